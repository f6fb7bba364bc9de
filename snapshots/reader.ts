/**
 * Reads the live snapshot of a service: resolves `latest.json`, checks it and the manifest against
 * the snapshot format (manifest.ts), the manifest's bytes against the sha256 `latest.json` gives
 * and every file's sha256 against the manifest before anything is served, and notices when a newer
 * version is published. If the version `latest.json` names fails its checks, the newest older
 * version that passes is served instead and the failure is reported.
 *
 * The checks hold while a version is served, not only when it is loaded: every poll compares the
 * served files' size, mtime and inode with what they were when their checksums matched and hashes
 * again what changed, and a read error on a file (SnapshotReader.checkAfterReadError) hashes the
 * version again. A version found damaged either way is dropped for the newest good kept version
 * and not loaded again until its files change (a repair) or latest.json names another version.
 *
 * Only what latest.json and the manifest name is ever opened or looked at, never through a
 * symbolic link (regular-file.ts), and manifest.json and latest.json above their size caps
 * (MAX_MANIFEST_BYTES, MAX_POINTER_BYTES) are refused before they are read: a link or a huge file
 * planted in a snapshot folder is refused, never followed, walked or parsed.
 */
import { columnsProblem, declaredDataset, documentProblem } from './shape.ts';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, lstat as lstatCallback, readdirSync, watch, type FSWatcher, type Stats } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  datasetFiles,
  LatestPointer,
  MAX_MANIFEST_BYTES,
  MAX_POINTER_BYTES,
  parseSnapshotFile,
  SnapshotManifest,
  VERSION_PATTERN,
  type DatasetEntry,
} from './manifest.ts';
import { sqlString } from '../lib/duckdb.ts';
import { bucketOf } from './partitions.ts';
import { openRegularFile, readOpened, readRegularFile, readRegularFileSync, RegularFileError, sha256Opened } from './regular-file.ts';

/** What readers of snapshots (the site) need besides the loaded data: the version name pattern and the licenses. */
export { LICENSES, VERSION_PATTERN } from './manifest.ts';

export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * `latest.json` of a service, checked against the snapshot format; null when the service has
 * never been published. A pointer without `manifest_sha256` is refused like any damaged one: the
 * writer has put it in every pointer it published, so its absence means the file was not written
 * by the writer.
 */
export function readLatestPointer(root: string, service: string): LatestPointer | null {
  let bytes: Buffer;
  try {
    bytes = readRegularFileSync(join(root, service, 'latest.json'), 'latest.json', MAX_POINTER_BYTES).bytes;
  } catch (err) {
    if (err instanceof RegularFileError && err.problem === 'missing') return null;
    throw err;
  }
  return parsePointer(bytes, service);
}

/** readLatestPointer off the event loop (the reader's polls). */
export async function readLatestPointerAsync(root: string, service: string): Promise<LatestPointer | null> {
  let bytes: Buffer;
  try {
    bytes = (await readRegularFile(join(root, service, 'latest.json'), 'latest.json', MAX_POINTER_BYTES)).bytes;
  } catch (err) {
    if (err instanceof RegularFileError && err.problem === 'missing') return null;
    throw err;
  }
  return parsePointer(bytes, service);
}

function parsePointer(bytes: Buffer, service: string): LatestPointer {
  // errors name the file as "latest.json", never its path: their text reaches the public /health
  const pointer = parseSnapshotFile(LatestPointer, 'latest.json', bytes.toString('utf8'));
  if (pointer.service !== service) throw new Error(`latest.json names service "${pointer.service}"`);
  return pointer;
}

/** An absolute file system path (POSIX or Windows) inside a message. */
const ABSOLUTE_PATH = /(?:[A-Za-z]:)?[\\/](?:[^\s'"`():,;[\]{}<>\\/]+[\\/])+[^\s'"`():,;[\]{}<>]*/g;

/**
 * The text of a reading error as the public may see it (/health's fallback_reason and problems):
 * the service, version and file names the reader uses, never a file system path. An operating
 * system error keeps its code (ENOENT, EACCES, EISDIR...), the rest of its message only with the
 * snapshot root removed and any other path replaced; the server log keeps the full error.
 */
export function publicReason(err: unknown, root: string): string {
  const errno = err as NodeJS.ErrnoException;
  if (errno instanceof Error && typeof errno.code === 'string' && /^E[A-Z]+$/.test(errno.code)) {
    return `a snapshot file could not be read (${errno.code}${errno.syscall ? ` on ${errno.syscall}` : ''})`;
  }
  const message = err instanceof Error ? err.message : String(err);
  const base = root.replace(/[\\/]+$/, '');
  return message.split(`${base}/`).join('').split(`${base}\\`).join('').split(base).join('').replace(ABSOLUTE_PATH, '(path withheld)');
}

export interface LoadedDataset {
  entry: DatasetEntry;
  /** The dataset's file; for a partitioned table, its directory (read `files`, or partsForKeys). */
  path: string;
  /** Every data file: the one file, or each part of a partitioned table by bucket, then its delta files. */
  files: string[];
  /** Parsed JSON for documents; undefined for tables (query the Parquet file(s) in `files`). */
  document?: unknown;
}

/**
 * A DuckDB relation over a table dataset's rows: `read_parquet` of its one file or of all its
 * parts, or with `keys` of only the parts that can hold them (partsForKeys); when none can, an
 * empty relation with the table's columns, so a query over it still plans and returns no row.
 * A table whose delta files replace rows (`delta_rule: newest-wins`, snapshots/partitions.ts) is
 * merged: each key's row from the newest file holding it.
 */
export function parquetSql(data: LoadedDataset, keys?: Iterable<string>): string {
  const files = keys === undefined ? data.files : partsForKeys(data, keys);
  if (files.length === 0) return `(SELECT * FROM read_parquet(${sqlString(data.files[0]!)}) LIMIT 0)`;
  const list = files.length === 1 ? sqlString(files[0]!) : `[${files.map(sqlString).join(', ')}]`;
  const p = data.entry.partitions;
  const deltas = new Set(data.files.slice(p?.parts.length ?? data.files.length));
  if (p?.delta_rule !== 'newest-wins' || !files.some((f) => deltas.has(f))) return `read_parquet(${list})`;
  // the files' rank: the parts 0, then each delta by its place (datasetFiles lists them oldest first)
  const rank = [...deltas].map((f, i) => `WHEN ${sqlString(f)} THEN ${i + 1}`).join(' ');
  return `(SELECT * EXCLUDE (snapshot_file) FROM read_parquet(${list}, filename = 'snapshot_file')
     QUALIFY row_number() OVER (PARTITION BY "${p.key.replaceAll('"', '""')}" ORDER BY CASE snapshot_file ${rank} ELSE 0 END DESC) = 1)`;
}

/**
 * The files holding the rows of `keys` (values of the partition key): for a partitioned table the
 * parts of their buckets (computed as the writer does, snapshots/partitions.ts), in bucket order,
 * none for a key whose bucket has no part (no row has it), then every delta file (any key's rows
 * may be in any of them; parquetSql merges a newest-wins table's); for a single file, that file.
 */
export function partsForKeys(data: LoadedDataset, keys: Iterable<string>): string[] {
  const p = data.entry.partitions;
  if (!p) return data.files;
  // datasetFiles order: the parts by bucket, then the deltas
  const byBucket = new Map(p.parts.map((part, i) => [part.bucket, data.files[i]!]));
  const buckets = new Set<number>();
  for (const key of keys) buckets.add(bucketOf(key, p.buckets));
  if (buckets.size === 0) return [];
  const parts = [...buckets]
    .sort((a, b) => a - b)
    .map((b) => byBucket.get(b))
    .filter((f): f is string => f !== undefined);
  return [...parts, ...data.files.slice(p.parts.length)];
}

export interface LoadedSnapshot {
  service: string;
  version: string;
  dir: string;
  manifest: SnapshotManifest;
  datasets: Map<string, LoadedDataset>;
  loadedAt: Date;
  /** Set when latest.json named a version that failed its checks and an older one is served. */
  fallbackReason: string | null;
  /**
   * Datasets of the version left out of `datasets` because their file does not have the shape the
   * catalog declares (written by another version of the code: snapshots/shape.ts), with why.
   */
  withheld?: ReadonlyMap<string, string>;
}

/** Why a catalog dataset is not in a loaded version: withheld for its shape, or not computed. */
export function absenceReason(snapshot: LoadedSnapshot, name: string): string {
  const withheld = snapshot.withheld?.get(name);
  return withheld
    ? `its file in this version is not the shape this server reads (${withheld}); the next pipeline run writes it again`
    : 'the pipeline has not computed it yet (or its first run failed)';
}

export class SnapshotVerificationError extends Error {
  constructor(
    message: string,
    /** What the version's stamp covers (stampedPaths): all the manifest names when it could be read, else the directory and manifest.json. */
    readonly stamped: readonly string[] = stampedPaths(null),
  ) {
    super(message);
  }
}

/**
 * The files of a loaded version as they were when their checksums matched (size, mtime, inode per
 * file, manifest.json included), which paths those are, and the sha256 of the manifest bytes it
 * was loaded from. Kept beside the snapshot rather than in it: only the reader compares them.
 */
interface LoadedFiles {
  stamp: string;
  paths: readonly string[];
  manifestSha256: string;
}
const loadedFiles = new WeakMap<LoadedSnapshot, LoadedFiles>();

/**
 * What a version's stamp covers, relative to its directory: the directory itself ("."),
 * manifest.json, the directory of each partitioned dataset and every data file the manifest names
 * (with no manifest, the first two). Nothing else in the directory is looked at.
 */
export function stampedPaths(manifest: SnapshotManifest | null): string[] {
  const paths = ['.', 'manifest.json'];
  for (const entry of manifest?.datasets ?? []) {
    if (entry.partitions) paths.push(entry.file);
    for (const f of datasetFiles(entry)) paths.push(f.file);
  }
  return paths;
}

/** One path's part of a stamp: an lstat (of the entry itself, never a link's target) or the fstat of the opened file. */
const statStamp = (st: Stats): string => `${st.size}:${st.mtimeMs}:${st.ino}:${st.mode}`;

/** lstat calls in flight per stamp: the size of libuv's default thread pool. */
const STAMP_CONCURRENCY = 4;

/**
 * Size, mtime, inode and mode of each of `paths` (stampedPaths) of a version directory, as one
 * string: a file written in place (a flipped byte, an edited manifest), replaced, or swapped for a
 * link changes it. Read with lstat, so a link is stamped as the link it is, never followed, and
 * nothing the manifest does not name is looked at (a planted link to a large tree, or a loop,
 * costs nothing). One lstat per named file at every poll (1,224 for the demo's analytics version:
 * about 35 ms of CPU in callbacks of a few tens of microseconds each, where the synchronous walk
 * it replaces held the event loop for 10 to 30 ms at once). Callback lstat, not fs/promises: it
 * costs half as much per call.
 */
export function versionStamp(root: string, service: string, version: string, paths: readonly string[]): Promise<string> {
  const dir = join(root, service, version);
  const stamps: string[] = new Array(paths.length);
  if (paths.length === 0) return Promise.resolve('');
  return new Promise((done) => {
    let next = 0;
    let left = paths.length;
    const stampNext = (): void => {
      const i = next++;
      if (i >= paths.length) return;
      const p = paths[i]!;
      lstatCallback(join(dir, p), (err, st) => {
        stamps[i] = err ? `${p}:gone` : `${p}:${statStamp(st)}`;
        if (--left === 0) done(stamps.join('|'));
        else stampNext();
      });
    };
    for (let k = 0; k < STAMP_CONCURRENCY; k++) stampNext();
  });
}

/** A directory of a version (the version's own, a partitioned dataset's), checked with lstat: never a link. */
async function realDirectory(path: string, name: string): Promise<Stats> {
  let st: Stats;
  try {
    st = await lstat(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new RegularFileError(
      code === 'ENOENT' ? 'missing' : 'unreadable',
      code === 'ENOENT' ? `${name} is missing` : `${name} cannot be read (${code})`,
    );
  }
  if (st.isSymbolicLink()) throw new RegularFileError('link', `${name} is a symbolic link (snapshot files are never read through links)`);
  if (!st.isDirectory()) throw new RegularFileError('not_file', `${name} is not a directory`);
  return st;
}

/**
 * Loads and verifies one version directory. Throws SnapshotVerificationError on any mismatch.
 * `manifestSha256` (from latest.json) is checked against the manifest's bytes: an edited manifest
 * could otherwise vouch for edited files. The version's directory, manifest.json and every file
 * the manifest names must be what they seem (directories and regular files, no link) and
 * manifest.json at most MAX_MANIFEST_BYTES; nothing else in the directory is read.
 */
export async function loadVersion(root: string, service: string, version: string, manifestSha256?: string): Promise<LoadedSnapshot> {
  const dir = join(root, service, version);
  let manifest: SnapshotManifest | null = null;
  const refused = (problem: string) => new SnapshotVerificationError(`${version}: ${problem}`, stampedPaths(manifest));
  // each path's stat as it was before its bytes were read: a change made while they are hashed
  // shows at the next poll
  const stats = new Map<string, string>();
  let manifestBytes: Buffer;
  try {
    stats.set('.', statStamp(await realDirectory(dir, 'the version directory')));
    const read = await readRegularFile(join(dir, 'manifest.json'), 'manifest.json', MAX_MANIFEST_BYTES);
    stats.set('manifest.json', statStamp(read.stat));
    manifestBytes = read.bytes;
  } catch (err) {
    if (err instanceof RegularFileError) throw refused(err.message);
    throw err;
  }
  const sha = createHash('sha256').update(manifestBytes).digest('hex');
  if (manifestSha256 !== undefined) {
    if (sha !== manifestSha256) {
      throw refused(`manifest.json sha256 ${sha} does not match latest.json's manifest_sha256 ${manifestSha256}`);
    }
  }
  try {
    manifest = parseSnapshotFile(SnapshotManifest, 'manifest.json', manifestBytes.toString('utf8'));
  } catch (err) {
    throw refused((err as Error).message);
  }
  if (manifest.version !== version || manifest.service !== service) {
    throw refused(`manifest names ${manifest.service}/${manifest.version}`);
  }
  const datasets = new Map<string, LoadedDataset>();
  for (const entry of manifest.datasets) {
    // every file the entry vouches for: the one file, or each part of a partitioned table
    const files = datasetFiles(entry);
    let document: unknown;
    try {
      if (entry.partitions) stats.set(entry.file, statStamp(await realDirectory(join(dir, entry.file), entry.file)));
      for (const f of files) {
        const opened = await openRegularFile(join(dir, f.file), f.file);
        try {
          if (opened.stat.size !== f.bytes) throw refused(`${f.file} is ${opened.stat.size} bytes, manifest says ${f.bytes}`);
          stats.set(f.file, statStamp(opened.stat));
          // a document is parsed from the very bytes that were hashed
          const bytes = entry.kind === 'document' ? await readOpened(opened, f.file) : null;
          const actual = bytes ? createHash('sha256').update(bytes).digest('hex') : await sha256Opened(opened, f.file);
          if (actual !== f.sha256) throw refused(`${f.file} sha256 ${actual} does not match manifest ${f.sha256}`);
          if (bytes) document = JSON.parse(bytes.toString('utf8'));
        } finally {
          await opened.handle.close();
        }
      }
    } catch (err) {
      if (err instanceof RegularFileError) throw refused(err.message);
      throw err;
    }
    const path = join(dir, entry.file);
    const loaded: LoadedDataset = { entry, path, files: files.map((f) => join(dir, f.file)) };
    if (entry.kind === 'document') loaded.document = document;
    datasets.set(entry.name, loaded);
  }
  // a file of the catalog's datasets whose shape is not the declared one (an older build wrote it):
  // left out, so a handler answers 503 with the reason instead of reading what it was not written for
  const withheld = new Map<string, string>();
  for (const [name, d] of datasets) {
    const decl = declaredDataset(service, name);
    const problem = !decl ? null : d.entry.kind === 'table' ? columnsProblem(decl, d.entry.schema) : documentProblem(decl, d.document);
    if (problem === null) continue;
    withheld.set(name, `"${name}" ${problem}`);
    datasets.delete(name);
  }
  const paths = stampedPaths(manifest);
  const stamp = paths.map((p) => `${p}:${stats.get(p) ?? 'gone'}`).join('|');
  const loaded: LoadedSnapshot = {
    service,
    version,
    dir,
    manifest,
    datasets,
    loadedAt: new Date(),
    fallbackReason: null,
    ...(withheld.size ? { withheld } : {}),
  };
  loadedFiles.set(loaded, { stamp, paths, manifestSha256: sha });
  return loaded;
}

/**
 * Checks a loaded version's files again: the manifest's bytes against the sha256 it was loaded
 * with (latest.json's), every dataset file's size and sha256 against the manifest. Returns null
 * when all still match, else what is wrong, naming the version and files, never a path.
 */
export async function reverifyVersion(snapshot: LoadedSnapshot): Promise<string | null> {
  const files = loadedFiles.get(snapshot);
  const problems: string[] = [];
  try {
    await realDirectory(snapshot.dir, 'the version directory');
    const { bytes } = await readRegularFile(join(snapshot.dir, 'manifest.json'), 'manifest.json', MAX_MANIFEST_BYTES);
    const sha = createHash('sha256').update(bytes).digest('hex');
    if (files && sha !== files.manifestSha256)
      problems.push('manifest.json was changed after it was published (its sha256 no longer matches)');
  } catch (err) {
    if (!(err instanceof RegularFileError)) throw err;
    problems.push(err.message);
  }
  for (const { entry } of snapshot.datasets.values()) {
    try {
      if (entry.partitions) await realDirectory(join(snapshot.dir, entry.file), entry.file);
    } catch (err) {
      if (!(err instanceof RegularFileError)) throw err;
      problems.push(`${err.message} (dataset ${entry.name})`);
      continue;
    }
    for (const f of datasetFiles(entry)) {
      try {
        const opened = await openRegularFile(join(snapshot.dir, f.file), f.file);
        try {
          const size = opened.stat.size;
          if (size !== f.bytes) problems.push(`${f.file} (dataset ${entry.name}) is ${size} bytes, its manifest says ${f.bytes}`);
          else if ((await sha256Opened(opened, f.file)) !== f.sha256)
            problems.push(`${f.file} (dataset ${entry.name}) does not match its sha256 in the manifest`);
        } finally {
          await opened.handle.close();
        }
      } catch (err) {
        if (!(err instanceof RegularFileError)) throw err;
        problems.push(`${err.message} (dataset ${entry.name})`);
      }
    }
  }
  return problems.length ? `${snapshot.version}: ${problems.join('; ')}` : null;
}

/** The version names among a service directory's entries, newest first. */
const newestFirst = (names: string[]): string[] =>
  names
    .filter((n) => VERSION_PATTERN.test(n))
    .sort()
    .reverse();

/** Complete version directories of a service, newest first. */
export function listVersions(root: string, service: string): string[] {
  const dir = join(root, service);
  if (!existsSync(dir)) return [];
  return newestFirst(readdirSync(dir));
}

/** listVersions off the event loop. */
async function versionsOf(root: string, service: string): Promise<string[]> {
  try {
    return newestFirst(await readdir(join(root, service)));
  } catch {
    return [];
  }
}

export interface LoadLatestOptions {
  /** Versions known to be damaged, by version: their reason. Not loaded (nor hashed) again. */
  damaged?: ReadonlyMap<string, string>;
  /** Told about every version that fails verification here, with the reason and the paths its stamp covers (awaited). */
  onDamaged?: (version: string, reason: string, stamped: readonly string[]) => void | Promise<void>;
  /** manifest.json sha256 of versions known from earlier pointers (the reader remembers the ones it served). */
  knownManifests?: ReadonlyMap<string, string>;
}

/**
 * Resolves latest.json and loads it with verification; falls back to the newest older version that
 * verifies. Returns null when the service has never been published. An older version's manifest
 * is checked against the sha256 an earlier latest.json gave for it when that is known (the
 * pointer's `kept` list, or `knownManifests`).
 */
export async function loadLatest(root: string, service: string, options: LoadLatestOptions = {}): Promise<LoadedSnapshot | null> {
  let pointer: LatestPointer | null = null;
  let pointerError: string | null = null;
  try {
    pointer = await readLatestPointerAsync(root, service);
  } catch (err) {
    pointerError = `latest.json unreadable: ${publicReason(err, root)}`;
  }
  if (pointer) {
    const known = options.damaged?.get(pointer.version);
    if (known !== undefined) {
      pointerError = `latest.json names ${pointer.version}, which is damaged: ${known}`;
    } else {
      try {
        return await loadVersion(root, service, pointer.version, pointer.manifest_sha256);
      } catch (err) {
        if (!(err instanceof SnapshotVerificationError)) throw err;
        await options.onDamaged?.(pointer.version, err.message, err.stamped);
        pointerError = `latest.json names ${pointer.version}, which failed verification: ${err.message}`;
      }
    }
  }
  if (!pointerError) return null;
  const kept = new Map(options.knownManifests);
  for (const k of pointer?.kept ?? []) kept.set(k.version, k.manifest_sha256);
  for (const version of await versionsOf(root, service)) {
    if (version === pointer?.version || options.damaged?.has(version)) continue;
    try {
      const loaded = await loadVersion(root, service, version, kept.get(version));
      loaded.fallbackReason = pointerError;
      return loaded;
    } catch (err) {
      if (err instanceof SnapshotVerificationError) await options.onDamaged?.(version, err.message, err.stamped);
      /* try the next older one */
    }
  }
  throw new SnapshotVerificationError(`${service}: ${pointerError}; no older version verifies either`);
}

export interface ReaderOptions {
  /** Poll interval for latest.json (fs.watch is used too, but can miss renames on some filesystems). */
  pollMs?: number;
  onChange?: (snapshot: LoadedSnapshot) => void;
  onError?: (error: Error) => void;
}

/** How long an intact result of checkAfterReadError stands for further read errors on unchanged files. */
const INTACT_RECHECK_MS = 30_000;

/**
 * Keeps the live snapshot of one service in memory and swaps it when a newer version is published.
 * A version that fails verification is never swapped in; one found damaged while served is
 * dropped for the newest good kept version (or, when there is none, nothing is served until a
 * good version appears: data endpoints answer 503, never a read error).
 */
export class SnapshotReader {
  private snapshot: LoadedSnapshot | null = null;
  private watcher: FSWatcher | null = null;
  private timer: NodeJS.Timeout | null = null;
  private refreshing: Promise<boolean> | null = null;
  /** Versions found damaged: the public reason, and the stamp of what it names then (a change means a repair to try). */
  private readonly damaged = new Map<string, { reason: string; paths: readonly string[]; stamp: string }>();
  /** While a fallback is served because latest.json itself cannot be read: that error (the same error again: nothing new to try). */
  private fallbackPointerError: string | null = null;
  /** manifest.json sha256 of every version a latest.json vouched for in this process. */
  private readonly vouched = new Map<string, string>();
  /** Re-verifications under way, by version, so concurrent read errors hash once. */
  private readonly checking = new Map<string, Promise<boolean>>();
  /** The last re-verification that found a version intact: when, and the directory's stamp then. */
  private readonly intact = new Map<string, { at: number; stamp: string }>();
  lastError: Error | null = null;

  constructor(
    readonly root: string,
    readonly service: string,
    private readonly options: ReaderOptions = {},
  ) {}

  current(): LoadedSnapshot | null {
    return this.snapshot;
  }

  /** Versions found damaged since the reader started (and not repaired since), with the reason; no paths. */
  damagedVersions(): Array<{ version: string; reason: string }> {
    return [...this.damaged].map(([version, { reason }]) => ({ version, reason }));
  }

  /** Loads latest if it names a version other than the one held. Returns true when it swapped. */
  refresh(): Promise<boolean> {
    this.refreshing ??= this.doRefresh().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  /**
   * A read of one of `snapshot`'s files failed (DuckDB: "Out of buffer", a decompression error...).
   * Hashes the version again; when a file or the manifest no longer matches, the version is
   * dropped for the newest good kept one (current() then returns it, or null when there is none)
   * and the answer is true: the request can be answered again from current(). False: the files
   * are intact, so the error is not theirs.
   */
  checkAfterReadError(snapshot: LoadedSnapshot): Promise<boolean> {
    let check = this.checking.get(snapshot.version);
    if (check) return check;
    check = this.damaged.has(snapshot.version)
      ? this.replaceIfServed(snapshot.version).then(() => true)
      : this.recheck(snapshot).finally(() => this.checking.delete(snapshot.version));
    if (!this.damaged.has(snapshot.version)) this.checking.set(snapshot.version, check);
    return check;
  }

  /** Once `version` is known damaged: waits until current() no longer returns it (a replacement, or null). */
  private async replaceIfServed(version: string): Promise<void> {
    // a refresh already under way may have looked before the version was marked: wait for it first
    await this.refreshing;
    if (this.snapshot?.version === version) await this.refresh();
  }

  /** Hashes `snapshot` again (unless found intact moments ago with the same stamp); drops it when damaged. */
  private async recheck(snapshot: LoadedSnapshot): Promise<boolean> {
    const paths = loadedFiles.get(snapshot)?.paths ?? stampedPaths(snapshot.manifest);
    const stamp = await versionStamp(this.root, this.service, snapshot.version, paths);
    const last = this.intact.get(snapshot.version);
    if (last && last.stamp === stamp && Date.now() - last.at < INTACT_RECHECK_MS) return false;
    const problem = await reverifyVersion(snapshot);
    if (problem === null) {
      this.intact.set(snapshot.version, { at: Date.now(), stamp });
      return false;
    }
    await this.markDamaged(snapshot.version, problem, paths);
    await this.replaceIfServed(snapshot.version);
    return true;
  }

  /**
   * Remembers a version as damaged (`problem` as reverifyVersion or loadVersion word it, version
   * first), with the stamp of `paths` (what its manifest names, stampedPaths) to notice a repair.
   */
  private async markDamaged(version: string, problem: string, paths: readonly string[]): Promise<void> {
    const reason = problem.startsWith(`${version}: `) ? problem.slice(version.length + 2) : problem;
    const stamp = await versionStamp(this.root, this.service, version, paths);
    this.damaged.set(version, { reason, paths, stamp });
    this.intact.delete(version);
    this.options.onError?.(new SnapshotVerificationError(`${this.service} ${version} is damaged: ${reason}`));
  }

  private loadOptions(): LoadLatestOptions {
    return {
      damaged: new Map([...this.damaged].map(([v, d]) => [v, d.reason])),
      onDamaged: (version, problem, paths) => this.markDamaged(version, problem, paths),
      knownManifests: this.vouched,
    };
  }

  private async doRefresh(): Promise<boolean> {
    try {
      let pointer: LatestPointer | null = null;
      let pointerError: string | null = null;
      try {
        pointer = await readLatestPointerAsync(this.root, this.service);
      } catch (err) {
        pointerError = publicReason(err, this.root); // loadLatest reports it
      }
      if (pointer) this.vouched.set(pointer.version, pointer.manifest_sha256);
      // a damaged version whose files changed since may have been repaired: let it be tried again
      for (const [version, d] of this.damaged) {
        if ((await versionStamp(this.root, this.service, version, d.paths)) !== d.stamp) this.damaged.delete(version);
      }
      const held = this.snapshot;
      // the version served: files changed in place since they verified are hashed again
      if (held && !this.damaged.has(held.version)) {
        const files = loadedFiles.get(held);
        if (files) {
          const stamp = await versionStamp(this.root, this.service, held.version, files.paths);
          if (stamp !== files.stamp) {
            const problem = await reverifyVersion(held);
            if (problem !== null) await this.markDamaged(held.version, problem, files.paths);
            else files.stamp = stamp; // touched or copied back, still the same bytes
          }
        }
      }
      const heldDamaged = held !== null && this.damaged.has(held.version);
      if (!heldDamaged && held) {
        // the version latest.json names, as it vouched for it
        if (
          pointer &&
          pointer.version === held.version &&
          pointer.manifest_sha256 === loadedFiles.get(held)?.manifestSha256 &&
          !held.fallbackReason
        )
          return false;
        // serving a fallback because latest.json's version is damaged, or latest.json itself cannot
        // be read: nothing to try (nor to hash again) until that changes
        if (held.fallbackReason && (pointer ? this.damaged.has(pointer.version) : pointerError === this.fallbackPointerError)) return false;
      }
      let loaded: LoadedSnapshot | null = null;
      try {
        loaded = await loadLatest(this.root, this.service, this.loadOptions());
      } catch (err) {
        if (!heldDamaged) throw err;
        this.options.onError?.(err as Error);
      }
      if (heldDamaged && !loaded) {
        // nothing good is left: serve nothing rather than a damaged file
        this.snapshot = null;
        this.lastError = new Error(
          `${this.service} snapshot ${held.version} is damaged (${this.damaged.get(held.version)!.reason}) and no other kept version verifies: ` +
            'data endpoints answer 503 until a good version is published',
        );
        return true;
      }
      this.fallbackPointerError = loaded?.fallbackReason ? pointerError : null;
      if (!loaded) return false;
      if (loaded.version === held?.version && !heldDamaged) {
        // the version served stays, but latest.json now names a version that is refused (or no
        // longer does): /health says so, naming that version and why
        if (loaded.fallbackReason !== held.fallbackReason) {
          held.fallbackReason = loaded.fallbackReason;
          this.lastError = loaded.fallbackReason ? new Error(loaded.fallbackReason) : null;
        }
        return false;
      }
      this.snapshot = loaded;
      this.lastError = loaded.fallbackReason ? new Error(loaded.fallbackReason) : null;
      this.options.onChange?.(loaded);
      return true;
    } catch (err) {
      // /health publishes lastError: keep paths out of it; the server log (onError) gets the full error
      this.lastError = new Error(publicReason(err, this.root));
      this.options.onError?.(err as Error);
      return false;
    }
  }

  /** Starts noticing new versions (fs.watch plus a poll); timers do not keep the process alive. */
  watch(): void {
    const dir = join(this.root, this.service);
    if (existsSync(dir) && !this.watcher) {
      try {
        this.watcher = watch(dir, (_event, file) => {
          if (file === 'latest.json') void this.refresh();
        });
        this.watcher.unref();
      } catch {
        this.watcher = null;
      }
    }
    if (!this.timer) {
      this.timer = setInterval(() => {
        if (!this.watcher && existsSync(dir)) this.watch();
        void this.refresh();
      }, this.options.pollMs ?? 2000);
      this.timer.unref();
    }
  }

  close(): void {
    this.watcher?.close();
    this.watcher = null;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
