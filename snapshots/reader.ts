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
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readdirSync, readFileSync, statSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { datasetFiles, LatestPointer, parseSnapshotFile, SnapshotManifest, VERSION_PATTERN, type DatasetEntry } from './manifest.ts';
import { sqlString } from '../lib/duckdb.ts';
import { bucketOf } from './partitions.ts';

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
  const path = join(root, service, 'latest.json');
  if (!existsSync(path)) return null;
  // errors name the file as "latest.json", never its path: their text reaches the public /health
  const pointer = parseSnapshotFile(LatestPointer, 'latest.json', readFileSync(path, 'utf8'));
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
 */
export function parquetSql(data: LoadedDataset, keys?: Iterable<string>): string {
  const files = keys === undefined ? data.files : partsForKeys(data, keys);
  if (files.length === 0) return `(SELECT * FROM read_parquet(${sqlString(data.files[0]!)}) LIMIT 0)`;
  return `read_parquet(${files.length === 1 ? sqlString(files[0]!) : `[${files.map(sqlString).join(', ')}]`})`;
}

/**
 * The files holding the rows of `keys` (values of the partition key): for a partitioned table the
 * parts of their buckets (computed as the writer does, snapshots/partitions.ts), in bucket order,
 * none for a key whose bucket has no part (no row has it), then every delta file of an append-only
 * table (any key's rows may be in any of them); for a single file, that file.
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
}

export class SnapshotVerificationError extends Error {}

/**
 * The files of a loaded version as they were when their checksums matched (size, mtime, inode per
 * file, manifest.json included), and the sha256 of the manifest bytes it was loaded from. Kept
 * beside the snapshot rather than in it: only the reader compares them.
 */
interface LoadedFiles {
  stamp: string;
  manifestSha256: string;
}
const loadedFiles = new WeakMap<LoadedSnapshot, LoadedFiles>();

/**
 * Size, mtime and inode of every entry of a version directory and of the part files in its
 * dataset directories, as one string: a file written in place (a flipped byte, an edited
 * manifest) or replaced changes it. Cheap enough for every poll (a stat call per file, a few
 * hundred with partitioned datasets), unlike hashing the files.
 */
export function versionStamp(root: string, service: string, version: string): string {
  const dir = join(root, service, version);
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return 'missing';
  }
  const stamps: string[] = [];
  const stampOf = (name: string): void => {
    try {
      const st = statSync(join(dir, name));
      stamps.push(`${name}:${st.size}:${st.mtimeMs}:${st.ino}`);
      if (st.isDirectory()) for (const part of readdirSync(join(dir, name)).sort()) stampOf(`${name}/${part}`);
    } catch {
      stamps.push(`${name}:gone`);
    }
  };
  for (const name of names) stampOf(name);
  return stamps.join('|');
}

/**
 * Loads and verifies one version directory. Throws SnapshotVerificationError on any mismatch.
 * `manifestSha256` (from latest.json) is checked against the manifest's bytes: an edited manifest
 * could otherwise vouch for edited files.
 */
export async function loadVersion(root: string, service: string, version: string, manifestSha256?: string): Promise<LoadedSnapshot> {
  const dir = join(root, service, version);
  const manifestPath = join(dir, 'manifest.json');
  if (!existsSync(manifestPath)) throw new SnapshotVerificationError(`${version}: manifest.json missing`);
  // stamped before reading: a change made while the files are hashed shows at the next poll
  const stamp = versionStamp(root, service, version);
  const manifestBytes = readFileSync(manifestPath);
  const sha = createHash('sha256').update(manifestBytes).digest('hex');
  if (manifestSha256 !== undefined) {
    if (sha !== manifestSha256) {
      throw new SnapshotVerificationError(
        `${version}: manifest.json sha256 ${sha} does not match latest.json's manifest_sha256 ${manifestSha256}`,
      );
    }
  }
  let manifest: SnapshotManifest;
  try {
    manifest = parseSnapshotFile(SnapshotManifest, 'manifest.json', manifestBytes.toString('utf8'));
  } catch (err) {
    throw new SnapshotVerificationError(`${version}: ${(err as Error).message}`);
  }
  if (manifest.version !== version || manifest.service !== service) {
    throw new SnapshotVerificationError(`${version}: manifest names ${manifest.service}/${manifest.version}`);
  }
  const datasets = new Map<string, LoadedDataset>();
  for (const entry of manifest.datasets) {
    // every file the entry vouches for: the one file, or each part of a partitioned table
    const files = datasetFiles(entry);
    for (const f of files) {
      const path = join(dir, f.file);
      if (!existsSync(path)) throw new SnapshotVerificationError(`${version}: ${f.file} missing`);
      const size = statSync(path).size;
      if (size !== f.bytes) {
        throw new SnapshotVerificationError(`${version}: ${f.file} is ${size} bytes, manifest says ${f.bytes}`);
      }
      const sha = await sha256File(path);
      if (sha !== f.sha256) {
        throw new SnapshotVerificationError(`${version}: ${f.file} sha256 ${sha} does not match manifest ${f.sha256}`);
      }
    }
    const path = join(dir, entry.file);
    const loaded: LoadedDataset = { entry, path, files: files.map((f) => join(dir, f.file)) };
    if (entry.kind === 'document') loaded.document = JSON.parse(readFileSync(path, 'utf8'));
    datasets.set(entry.name, loaded);
  }
  const loaded: LoadedSnapshot = { service, version, dir, manifest, datasets, loadedAt: new Date(), fallbackReason: null };
  loadedFiles.set(loaded, { stamp, manifestSha256: sha });
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
    const sha = createHash('sha256')
      .update(readFileSync(join(snapshot.dir, 'manifest.json')))
      .digest('hex');
    if (files && sha !== files.manifestSha256)
      problems.push('manifest.json was changed after it was published (its sha256 no longer matches)');
  } catch (err) {
    problems.push(`manifest.json cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  for (const { entry } of snapshot.datasets.values()) {
    for (const f of datasetFiles(entry)) {
      const path = join(snapshot.dir, f.file);
      try {
        const size = statSync(path).size;
        if (size !== f.bytes) problems.push(`${f.file} (dataset ${entry.name}) is ${size} bytes, its manifest says ${f.bytes}`);
        else if ((await sha256File(path)) !== f.sha256)
          problems.push(`${f.file} (dataset ${entry.name}) does not match its sha256 in the manifest`);
      } catch (err) {
        problems.push(`${f.file} (dataset ${entry.name}) cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
      }
    }
  }
  return problems.length ? `${snapshot.version}: ${problems.join('; ')}` : null;
}

/** Complete version directories of a service, newest first. */
export function listVersions(root: string, service: string): string[] {
  const dir = join(root, service);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => VERSION_PATTERN.test(n))
    .sort()
    .reverse();
}

export interface LoadLatestOptions {
  /** Versions known to be damaged, by version: their reason. Not loaded (nor hashed) again. */
  damaged?: ReadonlyMap<string, string>;
  /** Told about every version that fails verification here, with the reason. */
  onDamaged?: (version: string, reason: string) => void;
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
    pointer = readLatestPointer(root, service);
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
        options.onDamaged?.(pointer.version, err.message);
        pointerError = `latest.json names ${pointer.version}, which failed verification: ${err.message}`;
      }
    }
  }
  if (!pointerError) return null;
  const kept = new Map(options.knownManifests);
  for (const k of pointer?.kept ?? []) kept.set(k.version, k.manifest_sha256);
  for (const version of listVersions(root, service)) {
    if (version === pointer?.version || options.damaged?.has(version)) continue;
    try {
      const loaded = await loadVersion(root, service, version, kept.get(version));
      loaded.fallbackReason = pointerError;
      return loaded;
    } catch (err) {
      if (err instanceof SnapshotVerificationError) options.onDamaged?.(version, err.message);
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
  /** Versions found damaged: the public reason, and the directory's stamp then (a change means a repair to try). */
  private readonly damaged = new Map<string, { reason: string; stamp: string }>();
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
    const stamp = versionStamp(this.root, this.service, snapshot.version);
    const last = this.intact.get(snapshot.version);
    if (last && last.stamp === stamp && Date.now() - last.at < INTACT_RECHECK_MS) return false;
    const problem = await reverifyVersion(snapshot);
    if (problem === null) {
      this.intact.set(snapshot.version, { at: Date.now(), stamp });
      return false;
    }
    this.markDamaged(snapshot.version, problem);
    await this.replaceIfServed(snapshot.version);
    return true;
  }

  /** Remembers a version as damaged (`problem` as reverifyVersion or loadVersion word it, version first). */
  private markDamaged(version: string, problem: string): void {
    const reason = problem.startsWith(`${version}: `) ? problem.slice(version.length + 2) : problem;
    this.damaged.set(version, { reason, stamp: versionStamp(this.root, this.service, version) });
    this.intact.delete(version);
    this.options.onError?.(new SnapshotVerificationError(`${this.service} ${version} is damaged: ${reason}`));
  }

  private loadOptions(): LoadLatestOptions {
    return {
      damaged: new Map([...this.damaged].map(([v, d]) => [v, d.reason])),
      onDamaged: (version, problem) => this.markDamaged(version, problem),
      knownManifests: this.vouched,
    };
  }

  private async doRefresh(): Promise<boolean> {
    try {
      let pointer: LatestPointer | null = null;
      try {
        pointer = readLatestPointer(this.root, this.service);
      } catch {
        /* loadLatest reports it */
      }
      if (pointer) this.vouched.set(pointer.version, pointer.manifest_sha256);
      // a damaged version whose files changed since may have been repaired: let it be tried again
      for (const [version, d] of this.damaged) {
        if (versionStamp(this.root, this.service, version) !== d.stamp) this.damaged.delete(version);
      }
      const held = this.snapshot;
      // the version served: files changed in place since they verified are hashed again
      if (held && !this.damaged.has(held.version)) {
        const files = loadedFiles.get(held);
        const stamp = versionStamp(this.root, this.service, held.version);
        if (files && stamp !== files.stamp) {
          const problem = await reverifyVersion(held);
          if (problem !== null) this.markDamaged(held.version, problem);
          else files.stamp = stamp; // touched or copied back, still the same bytes
        }
      }
      const heldDamaged = held !== null && this.damaged.has(held.version);
      if (!heldDamaged && held && pointer) {
        // the version latest.json names, as it vouched for it
        if (pointer.version === held.version && pointer.manifest_sha256 === loadedFiles.get(held)?.manifestSha256 && !held.fallbackReason)
          return false;
        // serving a fallback because latest.json's version is damaged: nothing to try until it changes
        if (held.fallbackReason && this.damaged.has(pointer.version)) return false;
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
      if (!loaded || (loaded.version === held?.version && !heldDamaged)) return false;
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
