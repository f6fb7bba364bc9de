/**
 * Issue 27, findings 4, 5 and 7: files planted in the snapshot folder, through the production
 * wiring (the korea demo published by runCli; createServiceApp over a SnapshotReader, and the real
 * server of proxy/serve.ts in a child process).
 *
 * 4. Links in the live version (to a large tree, two self-loops) cost the server nothing: /health
 *    keeps answering fast and memory does not grow, because the polls look only at what the
 *    manifest names, with lstat, off the event loop.
 * 5. The writer never writes through a planted temp-file link; a manifest with a huge `notice`,
 *    or above the size cap (a 1.9 GB one), is refused before it is parsed (nor read, for the
 *    size), and no huge text is served.
 * 7. A refused latest.json (a version whose manifest points outside its directory, a link, too
 *    big, unreadable) leaves the old version live and /health says so: degraded, naming the
 *    version and why, never a path. Putting latest.json back clears it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Settings } from '../lib/config.ts';
import { parseArgs, runCli } from '../pipelines/cli.ts';
import { LineProgress } from '../pipelines/progress.ts';
import { copyOfSharedDemo } from '../pipelines/testing/shared-demo.ts';
import { MAX_MANIFEST_BYTES, MAX_POINTER_BYTES, MAX_TEXT_CHARS } from '../snapshots/manifest.ts';
import { readLatestPointer, SnapshotReader } from '../snapshots/reader.ts';
import type { HealthDocument } from './health.ts';
import { createServiceApp } from './serve.ts';
import { testPaymentParts } from '../payments/testing/paywall.ts';

const quiet = { progress: new LineProgress(() => {}), out: () => {} };
const NOW = '2026-11-20T09:00:30Z';
let root: string;
let settings: Settings;
let live: string;
let koreaDir: string;
let reader: SnapshotReader;
let app: Hono;
/** latest.json as the writer published it. */
let goodPointer: string;

beforeAll(async () => {
  // a copy of the run's shared korea demo publish: this test plants files in it and publishes again
  ({ root, settings } = await copyOfSharedDemo('snapshot-planted-test-', { services: ['korea'] }));
  koreaDir = join(settings.snapshotsDir, 'korea');
  live = readLatestPointer(settings.snapshotsDir, 'korea')!.version;
  goodPointer = readFileSync(join(koreaDir, 'latest.json'), 'utf8');
  reader = new SnapshotReader(settings.snapshotsDir, 'korea');
  await reader.refresh();
  const now = () => new Date(NOW);
  app = await createServiceApp('korea', reader, settings, { ...testPaymentParts({ now }), washPatternSalt: 'salt' }, { now });
}, 240_000);
afterAll(() => {
  reader?.close();
  rmSync(root, { recursive: true, force: true });
});

async function health(): Promise<{ body: HealthDocument; text: string }> {
  const res = await app.request('/health');
  expect(res.status).toBe(200);
  const text = await res.text();
  return { body: JSON.parse(text) as HealthDocument, text };
}

function expectNoPath(text: string): void {
  expect(text).not.toContain(root);
  expect(text).not.toContain(tmpdir());
  expect(text).not.toMatch(/(^|[\s"'(])\/[\w.-]+\/[\w.-]+/);
}

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

/** latest.json replaced as the writer replaces it (a new file renamed over it). */
function writePointer(text: string): void {
  const tmp = join(koreaDir, '.pointer-under-test');
  writeFileSync(tmp, text);
  renameSync(tmp, join(koreaDir, 'latest.json'));
}

let planted = 0;
/**
 * A new version beside the live one: a copy of it whose manifest names the new version, changed
 * by `edit` (which returns the manifest text, or null when it placed the files itself), and
 * latest.json naming it with that text's sha256.
 */
function plantVersion(edit: (manifest: Record<string, unknown>, dir: string) => string | null = (m) => JSON.stringify(m)): string {
  planted++;
  const version = `20990101T${String(planted).padStart(9, '0')}Z-${planted.toString(16).padStart(8, '0')}`;
  const dir = join(koreaDir, version);
  cpSync(join(koreaDir, live), dir, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Record<string, unknown>;
  manifest.version = version;
  const text = edit(manifest, dir);
  if (text !== null) writeFileSync(join(dir, 'manifest.json'), text);
  const pointer = JSON.parse(goodPointer) as Record<string, unknown>;
  writePointer(JSON.stringify({ ...pointer, version, manifest_sha256: sha256(text ?? '') }));
  return version;
}

/** After two polls the live version is still served and /health names `version` and why, once and without a path. */
async function expectRefusedVisibly(version: string, why: RegExp): Promise<HealthDocument> {
  await reader.refresh();
  await reader.refresh(); // still said at the next poll
  expect(reader.current()?.version).toBe(live);
  const { body, text } = await health();
  expect(body.status).toBe('degraded');
  expect(body.snapshot?.version).toBe(live);
  const reason = body.snapshot?.fallback_reason ?? '';
  expect(reason).toMatch(new RegExp(`^latest\\.json names ${version}, which failed verification: ${version}: ${why.source}`));
  expect(body.problems).toContain(reason);
  expectNoPath(text);
  expect(text.length).toBeLessThan(64 * 1024);
  return body;
}

/** latest.json put back: the live version is served as latest.json's own again, and /health no longer names the refusal. */
async function expectCleared(version: string): Promise<void> {
  writePointer(goodPointer);
  await reader.refresh();
  const { body, text } = await health();
  expect(body.snapshot?.version).toBe(live);
  expect(body.snapshot?.fallback_reason).toBeNull();
  expect(text).not.toContain(version);
}

describe('finding 7: a refused latest.json is named on /health', () => {
  it('a manifest pointing outside its directory (a dataset file "../../...")', async () => {
    const version = plantVersion((m) => {
      const datasets = m.datasets as Array<{ file: string }>;
      datasets[0]!.file = '../../../keys/receipt-signing.key';
      return JSON.stringify(m);
    });
    await expectRefusedVisibly(version, /manifest\.json does not match the snapshot format: datasets\[0\]\.file/);
    await expectCleared(version);
  });

  it('a manifest.json that is a symbolic link to a file outside the version', async () => {
    const version = plantVersion((m, dir) => {
      const text = JSON.stringify(m);
      const outside = join(root, `manifest-outside-${planted}.json`);
      writeFileSync(outside, text);
      rmSync(join(dir, 'manifest.json'));
      symlinkSync(outside, join(dir, 'manifest.json'));
      return text;
    });
    await expectRefusedVisibly(version, /manifest\.json is a symbolic link/);
    await expectCleared(version);
  });

  it('a version directory that is a symbolic link to a directory outside', async () => {
    const version = plantVersion((m, dir) => {
      const text = JSON.stringify(m);
      writeFileSync(join(dir, 'manifest.json'), text);
      const outside = join(root, `version-outside-${planted}`);
      renameSync(dir, outside);
      symlinkSync(outside, dir);
      return text;
    });
    await expectRefusedVisibly(version, /the version directory is a symbolic link/);
    await expectCleared(version);
  });

  it('a data file that is a symbolic link (to a good copy of itself outside)', async () => {
    const version = plantVersion((m, dir) => {
      const file = (m.datasets as Array<{ file: string }>)[0]!.file;
      const outside = join(root, `data-outside-${planted}`);
      renameSync(join(dir, file), outside);
      symlinkSync(outside, join(dir, file));
      return JSON.stringify(m);
    });
    await expectRefusedVisibly(version, /[a-z-]+\.(json|parquet) is a symbolic link/);
    await expectCleared(version);
  });

  it('a manifest.json that cannot be read as a file (a directory)', async () => {
    const version = plantVersion((_m, dir) => {
      rmSync(join(dir, 'manifest.json'));
      mkdirSync(join(dir, 'manifest.json'));
      return null;
    });
    await expectRefusedVisibly(version, /manifest\.json is not a regular file/);
    await expectCleared(version);
  });

  it('a latest.json above its size cap: refused from its size, named on /health', async () => {
    writePointer(goodPointer);
    truncateSync(join(koreaDir, 'latest.json'), MAX_POINTER_BYTES + 1);
    await reader.refresh();
    await reader.refresh();
    expect(reader.current()?.version).toBe(live);
    const { body, text } = await health();
    expect(body.status).toBe('degraded');
    expect(body.snapshot?.fallback_reason).toBe(
      `latest.json unreadable: latest.json is ${MAX_POINTER_BYTES + 1} bytes, more than the ${MAX_POINTER_BYTES} bytes it may have`,
    );
    expectNoPath(text);
    await expectCleared('latest.json unreadable');
  });
});

describe('finding 5: huge manifests', () => {
  it('a notice longer than the snapshot format allows: the version is refused and the text never served', async () => {
    const notice = 'N'.repeat(100_000);
    const version = plantVersion((m) => JSON.stringify({ ...m, notice }));
    await expectRefusedVisibly(
      version,
      new RegExp(`manifest\\.json does not match the snapshot format: notice: expected at most ${MAX_TEXT_CHARS} characters`),
    );
    const rootDoc = await (await app.request('/', { headers: { Accept: 'application/json' } })).text();
    expect(rootDoc).not.toContain('NNNNNNNNNN');
    await expectCleared(version);
  });

  it('a huge value where the format version goes: the refusal quotes only its start', async () => {
    const version = plantVersion((m) => JSON.stringify({ ...m, format_version: 'F'.repeat(100_000) }));
    await expectRefusedVisibly(version, /manifest\.json does not match the snapshot format: format_version: snapshot format "FFF/);
    await expectCleared(version);
  });

  it('a 48 MB notice: the manifest is refused from its size, before it is parsed', async () => {
    const version = plantVersion((m) => JSON.stringify({ ...m, notice: 'N'.repeat(48 * 1024 * 1024) }));
    const body = await expectRefusedVisibly(
      version,
      new RegExp(`manifest\\.json is \\d+ bytes, more than the ${MAX_MANIFEST_BYTES} bytes it may have`),
    );
    expect(body.snapshot?.notice?.length ?? 0).toBeLessThanOrEqual(MAX_TEXT_CHARS);
    await expectCleared(version);
  });

  it('a 1.9 GB manifest is refused without being read: memory does not grow', async () => {
    const version = plantVersion((_m, dir) => {
      truncateSync(join(dir, 'manifest.json'), 1_900_000_000); // sparse: no disk used
      return null;
    });
    const before = process.memoryUsage().rss;
    await expectRefusedVisibly(version, /manifest\.json is 1900000000 bytes, more than/);
    expect(process.memoryUsage().rss - before).toBeLessThan(100 * 1024 * 1024);
    await expectCleared(version);
  });
});

describe('finding 5: the writer never writes through a planted temp-file link', () => {
  it('a link at the temp name latest.json used to be written to: the target is untouched, latest.json a regular file', async () => {
    const victim = join(root, 'victim.txt');
    writeFileSync(victim, 'do not overwrite\n');
    // the name the writer used before (pid only), and a stale one
    symlinkSync(victim, join(koreaDir, `.latest.json.tmp-${process.pid}`));
    const { exitCode } = await runCli(parseArgs(['korea', '--now', '2026-11-20T09:05:00Z']), settings, quiet);
    expect(exitCode).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('do not overwrite\n');
    const latest = lstatSync(join(koreaDir, 'latest.json'));
    expect(latest.isSymbolicLink()).toBe(false);
    expect(latest.isFile()).toBe(true);
    const published = readLatestPointer(settings.snapshotsDir, 'korea')!.version;
    expect(published).not.toBe(live);
    // and the server takes it
    await reader.refresh();
    expect(reader.current()?.version).toBe(published);
    expect((await health()).body.snapshot?.fallback_reason).toBeNull();
    live = published;
    goodPointer = readFileSync(join(koreaDir, 'latest.json'), 'utf8');
  }, 120_000);
});

describe('finding 4: links in the live version cost the real server nothing', () => {
  let server: ChildProcess | null = null;
  afterAll(() => {
    server?.kill('SIGKILL');
  });

  /** The child's resident memory, bytes. */
  const rssOf = (pid: number): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

  it('a link to a large tree and two self-loops: /health answers fast at every poll, memory stays flat', async () => {
    const { REDIS_URL: _shared, ...inherited } = process.env;
    const env = {
      ...inherited,
      SITE_BUILD: 'off',
      SNAPSHOTS_DIR: settings.snapshotsDir,
      WAREHOUSE_DIR: join(root, 'warehouse'),
      KEYS_DIR: join(root, 'keys'),
      NONCE_DB_DIR: join(root, 'nonces'),
      SITE_DIR: join(root, 'site'),
      KOREA_PORT: '0',
      ANALYTICS_PORT: '0',
      CRYPTO_WORKERS: '0',
    };
    server = spawn(process.execPath, ['--import', 'tsx', 'proxy/serve.ts'], {
      cwd: resolve(import.meta.dirname, '..'),
      env,
      stdio: 'pipe',
    });
    const child = server;
    const url = await new Promise<string>((found, fail) => {
      let out = '';
      const timer = setTimeout(() => fail(new Error(`the server did not start: ${out}`)), 60_000);
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const m = /^korea\s+(http:\/\/\S+)/m.exec(out);
        if (m) {
          clearTimeout(timer);
          found(m[1]!);
        }
      });
      child.stderr!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
      });
    });
    const first = await fetch(`${url}/health`);
    expect(((await first.json()) as HealthDocument).snapshot?.version).toBe(live);

    // planted while it serves: the next polls meet them
    const versionDir = join(koreaDir, live);
    symlinkSync('/usr', join(versionDir, 'usr'));
    symlinkSync('.', join(versionDir, 'loop-a'));
    symlinkSync('.', join(versionDir, 'loop-b'));
    const rssBefore = rssOf(child.pid!);

    // three polls (every 2 s) and more
    const latencies: number[] = [];
    const failures: string[] = [];
    let rssMax = rssBefore;
    const until = Date.now() + 7_000;
    while (Date.now() < until) {
      const t0 = performance.now();
      try {
        const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(3_000) });
        const doc = (await res.json()) as HealthDocument;
        if (doc.snapshot?.version !== live) failures.push(`served ${doc.snapshot?.version}`);
      } catch (err) {
        failures.push((err as Error).message);
      }
      latencies.push(performance.now() - t0);
      rssMax = Math.max(rssMax, rssOf(child.pid!));
      await new Promise((r) => setTimeout(r, 100));
    }
    latencies.sort((a, b) => a - b);
    const summary = JSON.stringify({ n: latencies.length, median: latencies[latencies.length >> 1], max: latencies.at(-1), failures });
    expect(failures, summary).toEqual([]);
    expect(latencies.at(-1)!, summary).toBeLessThan(1_000);
    expect(latencies[latencies.length >> 1]!, summary).toBeLessThan(100);
    expect(rssMax - rssBefore, `RSS grew ${((rssMax - rssBefore) / 2 ** 20).toFixed(1)} MiB`).toBeLessThan(64 * 1024 * 1024);
  }, 120_000);
});
