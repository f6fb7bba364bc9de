/**
 * Reads the live snapshot of a service: resolves `latest.json`, checks it and the manifest against
 * the snapshot format (manifest.ts), the manifest's bytes against the sha256 `latest.json` gives
 * and every file's sha256 against the manifest before anything is served, and notices when a newer
 * version is published. If the version `latest.json` names fails its checks, the newest older
 * version that passes is served instead and the failure is reported.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readdirSync, readFileSync, statSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { LatestPointer, parseSnapshotFile, SnapshotManifest, VERSION_PATTERN, type DatasetEntry } from './manifest.ts';

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
  path: string;
  /** Parsed JSON for documents; undefined for tables (query the Parquet file at `path`). */
  document?: unknown;
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
 * Loads and verifies one version directory. Throws SnapshotVerificationError on any mismatch.
 * `manifestSha256` (from latest.json) is checked against the manifest's bytes: an edited manifest
 * could otherwise vouch for edited files.
 */
export async function loadVersion(root: string, service: string, version: string, manifestSha256?: string): Promise<LoadedSnapshot> {
  const dir = join(root, service, version);
  const manifestPath = join(dir, 'manifest.json');
  if (!existsSync(manifestPath)) throw new SnapshotVerificationError(`${version}: manifest.json missing`);
  const manifestBytes = readFileSync(manifestPath);
  if (manifestSha256 !== undefined) {
    const sha = createHash('sha256').update(manifestBytes).digest('hex');
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
    const path = join(dir, entry.file);
    if (!existsSync(path)) throw new SnapshotVerificationError(`${version}: ${entry.file} missing`);
    const size = statSync(path).size;
    if (size !== entry.bytes) {
      throw new SnapshotVerificationError(`${version}: ${entry.file} is ${size} bytes, manifest says ${entry.bytes}`);
    }
    const sha = await sha256File(path);
    if (sha !== entry.sha256) {
      throw new SnapshotVerificationError(`${version}: ${entry.file} sha256 ${sha} does not match manifest ${entry.sha256}`);
    }
    const loaded: LoadedDataset = { entry, path };
    if (entry.kind === 'document') loaded.document = JSON.parse(readFileSync(path, 'utf8'));
    datasets.set(entry.name, loaded);
  }
  return { service, version, dir, manifest, datasets, loadedAt: new Date(), fallbackReason: null };
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

/**
 * Resolves latest.json and loads it with verification; falls back to the newest older version that
 * verifies. Returns null when the service has never been published.
 */
export async function loadLatest(root: string, service: string): Promise<LoadedSnapshot | null> {
  let pointer: LatestPointer | null = null;
  let pointerError: string | null = null;
  try {
    pointer = readLatestPointer(root, service);
  } catch (err) {
    pointerError = `latest.json unreadable: ${publicReason(err, root)}`;
  }
  if (pointer) {
    try {
      return await loadVersion(root, service, pointer.version, pointer.manifest_sha256);
    } catch (err) {
      if (!(err instanceof SnapshotVerificationError)) throw err;
      pointerError = `latest.json names ${pointer.version}, which failed verification: ${err.message}`;
    }
  }
  if (!pointerError) return null;
  for (const version of listVersions(root, service)) {
    if (version === pointer?.version) continue;
    try {
      const loaded = await loadVersion(root, service, version);
      loaded.fallbackReason = pointerError;
      return loaded;
    } catch {
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

/**
 * Keeps the live snapshot of one service in memory and swaps it when a newer version is published.
 * A version that fails verification is never swapped in.
 */
export class SnapshotReader {
  private snapshot: LoadedSnapshot | null = null;
  private watcher: FSWatcher | null = null;
  private timer: NodeJS.Timeout | null = null;
  private refreshing: Promise<boolean> | null = null;
  lastError: Error | null = null;

  constructor(
    readonly root: string,
    readonly service: string,
    private readonly options: ReaderOptions = {},
  ) {}

  current(): LoadedSnapshot | null {
    return this.snapshot;
  }

  /** Loads latest if it names a version other than the one held. Returns true when it swapped. */
  refresh(): Promise<boolean> {
    this.refreshing ??= this.doRefresh().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async doRefresh(): Promise<boolean> {
    try {
      let pointer: LatestPointer | null = null;
      try {
        pointer = readLatestPointer(this.root, this.service);
      } catch {
        /* loadLatest reports it */
      }
      if (pointer && this.snapshot && pointer.version === this.snapshot.version && !this.snapshot.fallbackReason) {
        return false;
      }
      const loaded = await loadLatest(this.root, this.service);
      if (!loaded || loaded.version === this.snapshot?.version) return false;
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
