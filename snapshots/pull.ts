/**
 * Follows a published snapshot source: a base URL under which `<service>/latest.json`,
 * `<service>/<version>/manifest.json` and the version's files are served, the layout of
 * SNAPSHOTS_DIR (pipelines running elsewhere, e.g. on GitHub Actions, publish there). A pull
 * reads the source's latest.json, downloads the manifest it names and checks its bytes against
 * the pointer's `manifest_sha256`, then fetches every file the manifest lists (datasetFiles: single
 * files, partitioned tables' parts and deltas), each checked against its size and sha256 while it
 * streams to disk, and publishes the version locally with the writer's own atomic publish
 * (makeVersionLive: rename, read-back, latest.json replaced by rename, retention).
 *
 * Nothing changes locally unless all of that holds: a network error, a file cut short or longer
 * than its manifest says, a wrong checksum, a manifest that does not parse or is not the one
 * latest.json vouches for, a version older than the local one: the pull fails with why, its
 * temporary directory is removed and the local latest.json keeps naming the version it named.
 *
 * Files of the local live version with the sha256 and size the new manifest gives are linked (or
 * copied) instead of downloaded: a run that rewrote a few parts of a big table moves only those.
 * Names come from the source, so every one is checked by the snapshot format first (VERSION_PATTERN,
 * dataset file names, part and delta names: manifest.ts), which allows no path separator and no
 * dot segment; each target is also checked to lie in the version's directory.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statfsSync } from 'node:fs';
import { mkdir, open, rm } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import pLimit from 'p-limit';
import { Agent, request } from 'undici';
import { writeNewFile } from '../lib/new-file.ts';
import { pidAlive } from '../lib/pid.ts';
import {
  datasetFiles,
  LatestPointer,
  MAX_MANIFEST_BYTES,
  MAX_POINTER_BYTES,
  parseSnapshotFile,
  SnapshotManifest,
  type DatasetFile,
} from './manifest.ts';
import { publicReason, readLatestPointer } from './reader.ts';
import { openRegularFile, readRegularFileSync, sha256Opened } from './regular-file.ts';
import { applyRetention, fsyncPath, linkOrCopy, makeVersionLive, newVersionTmpDir } from './writer.ts';

/** Where snapshots are pulled from. */
export interface SnapshotSource {
  /** The base URL (https, or http on a loopback host) under which `<service>/latest.json` is served. */
  url: string;
  /** Sent as `Authorization: Bearer <token>` (a source holding paid datasets is not public); never logged. */
  token?: string | null;
}

export interface PullOptions {
  /** SNAPSHOTS_DIR: the local root the version is published into. */
  root: string;
  service: string;
  source: SnapshotSource;
  /** Old local versions kept besides the live one (SNAPSHOT_RETENTION). Default 5. */
  retention?: number;
  /** Connect and response-header timeout, and the longest pause within a body (ms). Default 30 000. */
  timeoutMs?: number;
  /** Retries of one request after a network error, 429 or 5xx. Default 2. */
  retries?: number;
  /** Files downloaded at once. Default 4. */
  concurrency?: number;
  /** Where progress lines go. Default: none. */
  log?: (line: string) => void;
}

export interface PullReport {
  service: string;
  /** `published`: the source's newest version is now live here; `up-to-date`: it already was. */
  outcome: 'published' | 'up-to-date';
  /** The version the source's latest.json names (now the local live one). */
  version: string;
  /** Files fetched from the source, and their bytes (the manifest included). */
  downloaded: { files: number; bytes: number };
  /** Files of the previous local version reused (same sha256), and their bytes. */
  reused: { files: number; bytes: number };
}

/** A pull that changed nothing locally; the message names the source's files and says why, never a local path. */
export class PullError extends Error {
  override readonly name = 'PullError';
}

/**
 * A file must arrive at this average rate at least (plus the timeout): a source trickling bytes
 * to stay under the pause timeout cannot hold a pull forever (a 1 GiB file: at most 4.5 hours).
 */
const MIN_BYTES_PER_SECOND = 64 * 1024;

/** The URL for messages and /health: no credentials, no query string (either may carry a secret). */
export function shownSourceUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '<unparseable url>';
  }
}

/** `path` (e.g. `korea/latest.json`) below the source's base URL, keeping the base's own query. */
function sourceUrl(base: string, path: string): string {
  const u = new URL(base);
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/${path}`;
  return u.toString();
}

/** Drops what is left of a body (undici reports the abort as an error event: nothing to hear). */
function discard(body: { on(event: 'error', listener: () => void): unknown; destroy(): unknown }): void {
  body.on('error', () => {});
  body.destroy();
}

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/** An answer the source gave that a retry cannot change (4xx, a wrong size or checksum). */
class Final extends Error {}

interface Fetcher {
  agent: Agent;
  source: SnapshotSource;
  timeoutMs: number;
  retries: number;
  /** Aborted when another file of the pull failed: the downloads still under way stop. */
  cancel?: AbortSignal;
}

/**
 * One GET of `path` below the source, its body handed to `consume` as it streams; network errors,
 * 429 and 5xx are retried with backoff (`consume` must start over: it is called once per attempt).
 */
async function fetchFromSource<T>(
  f: Fetcher,
  path: string,
  maxBytes: number,
  consume: (body: AsyncIterable<Buffer>, declaredBytes: number | null) => Promise<T>,
): Promise<T> {
  const url = sourceUrl(f.source.url, path);
  const shown = shownSourceUrl(url);
  const deadline = f.timeoutMs + Math.ceil((maxBytes / MIN_BYTES_PER_SECOND) * 1000);
  for (let attempt = 0; ; attempt++) {
    let problem: string;
    try {
      const res = await request(url, {
        dispatcher: f.agent,
        headers: {
          accept: '*/*',
          'user-agent': 'kr-x402-data-services (snapshot follower)',
          ...(f.source.token ? { authorization: `Bearer ${f.source.token}` } : {}),
        },
        signal: f.cancel ? AbortSignal.any([AbortSignal.timeout(deadline), f.cancel]) : AbortSignal.timeout(deadline),
      });
      if (res.statusCode !== 200) {
        await res.body.dump().catch(() => {});
        problem = `HTTP ${res.statusCode}`;
        if (res.statusCode !== 429 && res.statusCode < 500) throw new Final(`GET ${shown} answered ${problem}`);
      } else {
        const length = res.headers['content-length'];
        const declared = typeof length === 'string' && /^\d+$/.test(length) ? Number(length) : null;
        if (declared !== null && declared > maxBytes) {
          discard(res.body);
          throw new Final(`GET ${shown}: the source sends ${declared} bytes, at most ${maxBytes} are expected`);
        }
        try {
          return await consume(res.body, declared);
        } finally {
          discard(res.body);
        }
      }
    } catch (err) {
      if (err instanceof Final) throw new PullError(err.message);
      const e = err as { name?: string; code?: string; message?: string };
      problem =
        e.name === 'TimeoutError' || e.name === 'AbortError'
          ? `no complete answer within ${Math.round(deadline / 1000)} s`
          : `network error${e.code ? ` ${e.code}` : ''}: ${e.message ?? String(err)}`;
    }
    if (f.cancel?.aborted) throw new PullError(`GET ${shown} stopped: another file of the version failed`);
    if (attempt >= f.retries) {
      throw new PullError(`GET ${shown} failed after ${attempt + 1} attempt${attempt ? 's' : ''}: ${problem}`);
    }
    await sleep(Math.floor(Math.random() * Math.min(10_000, 500 * 2 ** attempt)));
  }
}

/** A small document of the source (latest.json, manifest.json), at most `maxBytes`, read whole. */
function fetchDocument(f: Fetcher, path: string, maxBytes: number): Promise<Buffer> {
  return fetchFromSource(f, path, maxBytes, async (body) => {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body) {
      size += chunk.length;
      if (size > maxBytes) throw new Final(`${path} on the source is larger than the ${maxBytes} bytes it may have`);
      chunks.push(chunk);
    }
    return Buffer.concat(chunks, size);
  });
}

/**
 * A data file of the version into `target` (a new file), checked while it streams: never more
 * bytes than the manifest gives, then exactly that many and their sha256.
 */
function downloadFile(f: Fetcher, path: string, file: DatasetFile, target: string): Promise<void> {
  return fetchFromSource(f, path, file.bytes, async (body, declared) => {
    if (declared !== null && declared !== file.bytes) {
      throw new Final(
        `${path} on the source is ${declared} bytes, its manifest says ${file.bytes}${declared < file.bytes ? ' (truncated)' : ''}`,
      );
    }
    const handle = await onDisk(file.file, async () => {
      await rm(target, { force: true }); // what an earlier attempt left
      return open(target, 'wx');
    });
    const hash = createHash('sha256');
    let size = 0;
    try {
      for await (const chunk of body) {
        size += chunk.length;
        if (size > file.bytes) throw new Final(`${path} on the source is longer than the ${file.bytes} bytes its manifest says`);
        hash.update(chunk);
        await onDisk(file.file, () => handle.write(chunk));
      }
      if (size !== file.bytes) throw new Final(`${path} on the source is ${size} bytes, its manifest says ${file.bytes} (truncated)`);
      const sha = hash.digest('hex');
      if (sha !== file.sha256) throw new Final(`${path} on the source has sha256 ${sha}, its manifest says ${file.sha256}`);
      await onDisk(file.file, () => handle.sync());
    } finally {
      await handle.close();
    }
  });
}

/** A write of the local copy: its failure (a full disk...) is not the source's and not retried; the message names the file, not its path. */
async function onDisk<T>(name: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new Final(`${name} could not be written to SNAPSHOTS_DIR (${code})`);
  }
}

/** Throws unless `target` lies inside `dir` (the names were checked by the snapshot format already; this keeps it so). */
function inside(dir: string, name: string): string {
  const target = resolve(dir, name);
  const rel = relative(dir, target);
  if (rel === '' || rel.startsWith('..') || rel.split(sep).includes('..') || resolve(dir, rel) !== target) {
    throw new PullError(`the manifest names a file outside its version: ${JSON.stringify(name)}`);
  }
  return target;
}

/** The data files of the local live version, by sha256, for reuse; empty when it cannot be read. */
function localFiles(root: string, service: string, pointer: LatestPointer | null): Map<string, { path: string; bytes: number }> {
  const files = new Map<string, { path: string; bytes: number }>();
  if (!pointer) return files;
  const dir = join(root, service, pointer.version);
  try {
    const { bytes } = readRegularFileSync(join(dir, 'manifest.json'), 'manifest.json', MAX_MANIFEST_BYTES);
    const manifest = parseSnapshotFile(SnapshotManifest, 'manifest.json', bytes.toString('utf8'));
    for (const entry of manifest.datasets) {
      for (const f of datasetFiles(entry)) files.set(f.sha256, { path: join(dir, f.file), bytes: f.bytes });
    }
  } catch {
    // nothing to reuse: every file is downloaded
  }
  return files;
}

/** Links a local file into the new version when it still has the bytes the manifest names (hashed: a damaged one is downloaded). */
async function reuseLocal(local: { path: string; bytes: number } | undefined, file: DatasetFile, target: string): Promise<boolean> {
  if (!local || local.bytes !== file.bytes) return false;
  try {
    const opened = await openRegularFile(local.path, file.file);
    try {
      if (opened.stat.size !== file.bytes || (await sha256Opened(opened, file.file)) !== file.sha256) return false;
    } finally {
      await opened.handle.close();
    }
    linkOrCopy(local.path, target);
    return true;
  } catch {
    return false;
  }
}

/** Refuses a pull that would not fit on the disk (with 5 % to spare) before a byte is written. */
function checkFreeSpace(serviceDir: string, bytes: number): void {
  let free: number;
  try {
    const st = statfsSync(serviceDir);
    free = st.bavail * st.bsize;
  } catch {
    return; // not known here: the writes fail with ENOSPC if it is short
  }
  if (bytes * 1.05 > free) {
    throw new PullError(`the version needs ${bytes} bytes and SNAPSHOTS_DIR's disk has ${free} free`);
  }
}

/**
 * Pulls the source's newest version of `service` into `root` and makes it live (module comment).
 * Throws PullError (nothing changed locally) when the source or a file is wrong or unreachable.
 */
export async function pullLatest(options: PullOptions, agent?: Agent): Promise<PullReport> {
  const own = agent ?? sourceAgent(options.timeoutMs);
  try {
    return await pull(options, own);
  } finally {
    if (!agent) await own.close();
  }
}

/** The HTTP client of a follower: its timeouts (connect, headers, pause within a body). */
export function sourceAgent(timeoutMs = 30_000): Agent {
  return new Agent({ connect: { timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
}

async function pull(options: PullOptions, agent: Agent): Promise<PullReport> {
  const { root, service } = options;
  const f: Fetcher = { agent, source: options.source, timeoutMs: options.timeoutMs ?? 30_000, retries: options.retries ?? 2 };
  const downloaded = { files: 0, bytes: 0 };
  const reused = { files: 0, bytes: 0 };

  const pointerBytes = await fetchDocument(f, `${service}/latest.json`, MAX_POINTER_BYTES);
  downloaded.files++;
  downloaded.bytes += pointerBytes.length;
  const remote = parse(() => parseSnapshotFile(LatestPointer, `${service}/latest.json on the source`, pointerBytes.toString('utf8')));
  if (remote.service !== service) throw new PullError(`${service}/latest.json on the source names service "${remote.service}"`);

  let local: LatestPointer | null = null;
  try {
    local = readLatestPointer(root, service);
  } catch {
    // a local latest.json that cannot be read is replaced by the source's version
  }
  if (local?.version === remote.version) {
    if (local.manifest_sha256 === remote.manifest_sha256)
      return { service, outcome: 'up-to-date', version: remote.version, downloaded, reused };
    throw new PullError(
      `the source's latest.json names ${remote.version}, the version live here, with another manifest sha256 (versions never change once published): not pulled`,
    );
  }
  if (local && remote.version < local.version) {
    throw new PullError(`the source's latest.json names ${remote.version}, older than ${local.version} live here: not pulled`);
  }

  const manifestPath = `${service}/${remote.version}/manifest.json`;
  const manifestBytes = await fetchDocument(f, manifestPath, MAX_MANIFEST_BYTES);
  downloaded.files++;
  downloaded.bytes += manifestBytes.length;
  const sha = createHash('sha256').update(manifestBytes).digest('hex');
  if (sha !== remote.manifest_sha256) {
    throw new PullError(`${manifestPath} on the source has sha256 ${sha}, its latest.json says ${remote.manifest_sha256}: not pulled`);
  }
  const manifest = parse(() => parseSnapshotFile(SnapshotManifest, `${manifestPath} on the source`, manifestBytes.toString('utf8')));
  if (manifest.version !== remote.version || manifest.service !== service) {
    throw new PullError(`${manifestPath} on the source names ${manifest.service}/${manifest.version}: not pulled`);
  }

  const serviceDir = join(root, service);
  mkdirSync(serviceDir, { recursive: true });
  const files = manifest.datasets.flatMap((entry) => datasetFiles(entry).map((file) => ({ entry, file })));
  const reusable = localFiles(root, service, local);
  const fetched = files.filter(({ file }) => !reusable.has(file.sha256));
  const fetchBytes = fetched.reduce((a, { file }) => a + file.bytes, 0);
  checkFreeSpace(serviceDir, fetchBytes);
  options.log?.(
    `${service}: pulling ${remote.version} from ${shownSourceUrl(options.source.url)}: ${fetched.length} of ${files.length} files to download ` +
      `(${megabytes(fetchBytes)})${fetched.length < files.length ? `, the others unchanged since ${local?.version}` : ''}`,
  );
  const release = takePullLock(serviceDir, service);
  try {
    await writeVersion();
  } finally {
    release();
  }
  return { service, outcome: 'published', version: remote.version, downloaded, reused };

  async function writeVersion(): Promise<void> {
    const tmpDir = newVersionTmpDir(serviceDir);
    let renamed = false;
    try {
      await writeManifest(tmpDir, manifestBytes);
      for (const entry of manifest.datasets) if (entry.partitions) await mkdir(inside(tmpDir, entry.file));
      const limit = pLimit(options.concurrency ?? 4);
      const cancel = new AbortController();
      const downloads = { ...f, cancel: cancel.signal };
      let cause: unknown = null;
      const outcomes = await Promise.allSettled(
        files.map(({ file }) =>
          limit(async () => {
            if (cancel.signal.aborted) return;
            const target = inside(tmpDir, file.file);
            if (await reuseLocal(reusable.get(file.sha256), file, target)) {
              reused.files++;
              reused.bytes += file.bytes;
              return;
            }
            try {
              await downloadFile(downloads, `${service}/${remote.version}/${file.file}`, file, target);
            } catch (err) {
              if (!cancel.signal.aborted) cause = err;
              cancel.abort();
              throw err;
            }
            downloaded.files++;
            downloaded.bytes += file.bytes;
          }),
        ),
      );
      // the first failure is the reason; the others are downloads it stopped
      const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
      if (failed) throw cause ?? failed.reason;
      for (const entry of manifest.datasets) if (entry.partitions) fsyncPath(join(tmpDir, entry.file));
      fsyncPath(tmpDir);

      // a publish here since this pull began (the CLI beside a running follower) wins if it is as new
      const now = readLatestPointer(root, service);
      if (now && now.version >= remote.version) {
        throw new PullError(`${now.version} was published here while ${remote.version} was being pulled: not pulled`);
      }
      // a directory of that name not made live: a pull that stopped between the rename and
      // latest.json (no other pull can be under way: this one holds the lock)
      const finalDir = join(serviceDir, remote.version);
      if (existsSync(finalDir)) rmSync(finalDir, { recursive: true, force: true });
      renamed = true;
      await makeVersionLive({ serviceDir, tmpDir, manifest, previousPointer: now ?? local, retention: options.retention ?? 5 });
    } catch (err) {
      rmSync(tmpDir, { recursive: true, force: true });
      if (renamed && liveVersion(root, service) !== remote.version) {
        rmSync(join(serviceDir, remote.version), { recursive: true, force: true });
      }
      if (err instanceof PullError) throw err;
      throw new PullError(`${service} ${remote.version} could not be written here: ${publicReason(err, root)}`);
    }
    applyRetention(serviceDir, remote.version, options.retention ?? 5);
  }
}

function liveVersion(root: string, service: string): string | null {
  try {
    return readLatestPointer(root, service)?.version ?? null;
  } catch {
    return null;
  }
}

/**
 * One pull at a time per service folder, across processes (the server's follower and `npm run
 * pull-snapshots`): `<service>/.pull.lock` made exclusively, holding the pid; one left by a
 * process that is gone is taken over. Returns the release.
 */
function takePullLock(serviceDir: string, service: string): () => void {
  const lock = join(serviceDir, '.pull.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeNewFile(lock, String(process.pid));
      return () => rmSync(lock, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new PullError(`${service}: the pull lock could not be made (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
      }
    }
    let holder = Number.NaN;
    try {
      holder = Number(readFileSync(lock, 'utf8').trim());
    } catch {
      // gone meanwhile: try again
    }
    if (Number.isInteger(holder) && holder > 0 && pidAlive(holder)) {
      throw new PullError(`another pull of ${service} is under way here (process ${holder}): not pulled`);
    }
    rmSync(lock, { force: true });
  }
  throw new PullError(`${service}: the pull lock is being taken by another process: not pulled`);
}

function parse<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    throw new PullError(`${(err as Error).message}: not pulled`);
  }
}

async function writeManifest(tmpDir: string, bytes: Buffer): Promise<void> {
  const handle = await open(join(tmpDir, 'manifest.json'), 'wx');
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** "12.3 MB" */
function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

/** A pull in one line for the log. */
export function pullSummary(report: PullReport, source: string): string {
  if (report.outcome === 'up-to-date') return `${report.service}: ${report.version} from ${source} is live already`;
  return (
    `${report.service}: pulled ${report.version} from ${source}: ${report.downloaded.files} files downloaded ` +
    `(${megabytes(report.downloaded.bytes)}), ${report.reused.files} reused from the previous version (${megabytes(report.reused.bytes)})`
  );
}

/** What /health says about the snapshot source (no credentials, no local path). */
export interface SnapshotSourceStatus {
  /** The source's base URL without credentials or query string. */
  url: string;
  /** Time of the last check of the source, and of the last one that ended with its newest version live here. */
  last_checked_at: string | null;
  last_success_at: string | null;
  /** The version the source named at the last successful check (now live here). */
  version: string | null;
  /** Why the last pull changed nothing (the previous version stays live); null when it succeeded. */
  problem: string | null;
  /** Seconds between checks. */
  interval_seconds: number;
}

export interface FollowerOptions extends PullOptions {
  /** Time between two checks of the source (ms). */
  intervalMs: number;
  /** Called after a pull made a new version live (the proxy refreshes its reader). */
  onPublished?: (report: PullReport) => void;
}

/**
 * Pulls a service's newest snapshot from the source now and then every `intervalMs` (one pull at
 * a time), remembering the outcome for /health. A failed pull changes nothing locally and is
 * tried again at the next tick.
 */
export class SnapshotFollower {
  private readonly agent: Agent;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<PullReport | null> | null = null;
  private closed = false;
  private readonly state: SnapshotSourceStatus;
  /** The last problem logged, so one that persists is logged once, not at every tick. */
  private logged: string | null = null;

  constructor(private readonly options: FollowerOptions) {
    this.agent = sourceAgent(options.timeoutMs);
    this.state = {
      url: shownSourceUrl(options.source.url),
      last_checked_at: null,
      last_success_at: null,
      version: null,
      problem: null,
      interval_seconds: Math.round(options.intervalMs / 1000),
    };
  }

  get service(): string {
    return this.options.service;
  }

  status(): SnapshotSourceStatus {
    return { ...this.state };
  }

  /** One pull now (or the one under way); never throws: a failure is in status().problem and the log. */
  pull(): Promise<PullReport | null> {
    this.running ??= this.pullOnce().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async pullOnce(): Promise<PullReport | null> {
    if (this.closed) return null;
    const log = this.options.log ?? (() => {});
    try {
      const report = await pullLatest(this.options, this.agent);
      this.state.last_checked_at = new Date().toISOString();
      this.state.last_success_at = this.state.last_checked_at;
      this.state.version = report.version;
      this.state.problem = null;
      if (report.outcome === 'published' || this.logged !== null) log(pullSummary(report, this.state.url));
      this.logged = null;
      if (report.outcome === 'published') this.options.onPublished?.(report);
      return report;
    } catch (err) {
      this.state.last_checked_at = new Date().toISOString();
      const reason = err instanceof PullError ? err.message : publicReason(err, this.options.root);
      this.state.problem = `${reason}; the previous version stays live`;
      if (this.state.problem !== this.logged && !this.closed) {
        log(`${this.options.service}: snapshot pull from ${this.state.url} failed: ${this.state.problem}`);
      }
      this.logged = this.state.problem;
      return null;
    }
  }

  /** Pulls now and every intervalMs; the timer does not keep the process alive. */
  start(): void {
    if (this.timer || this.closed) return;
    void this.pull();
    this.timer = setInterval(() => void this.pull(), this.options.intervalMs);
    this.timer.unref();
  }

  /** Stops the timer, cuts a download under way (its pull changes nothing) and waits for it to end. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.agent.destroy().catch(() => {});
    await this.running;
  }
}
