/**
 * The proxy following a published snapshot source (SNAPSHOTS_PULL_URL), through startServices as
 * `npm run serve` calls it: the pipelines publish korea snapshots into a folder a loopback static
 * host serves (snapshots/testing/static-source.ts); the proxy pulls each new version into its own
 * SNAPSHOTS_DIR and serves it, without downloading the files it already has. A truncated file, a
 * wrong checksum, a manifest latest.json does not vouch for and a connection dropped mid-file
 * each keep the version served and /health says why; the source's next good version is served.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../lib/config.ts';
import { datasetFiles, type SnapshotManifest } from '../snapshots/manifest.ts';
import { startStaticSource, type SourceFault, type StaticSource } from '../snapshots/testing/static-source.ts';
import { SnapshotWriter } from '../snapshots/writer.ts';
import type { HealthDocument } from './health.ts';
import { type RunningService, startServices, stopServices } from './serve.ts';

const meta = { source: 'demo' as const, asOf: '2026-11-20T12:00:00Z', license: 'proprietary' as const, description: 'followed' };
const BY_KEY = { key: 'buyer', buckets: 4 };

let instance: DuckDBInstance;
let connection: DuckDBConnection;
let scratch: string;
let published: string;
let source: StaticSource;
let running: RunningService[] = [];
const versions: SnapshotManifest[] = [];

/** The pipelines publish the next korea version on the source (datasets the catalog does not declare: the reader serves them as they are). */
async function publishOnSource(at: string): Promise<SnapshotManifest> {
  const writer = await SnapshotWriter.begin({ root: published, service: 'korea', codeVersion: 'test', generatedAt: new Date(at) });
  const n = versions.length;
  const rows = (from: number, to: number) => `SELECT buyer, n FROM payments WHERE n >= ${from} AND n < ${to} ORDER BY buyer, n`;
  if (n === 0) {
    await writer.writeTable(connection, 'pull-test-payments', rows(0, 3000), meta, { partitionBy: BY_KEY });
    await writer.writeTable(connection, 'pull-test-prices', 'SELECT n, n * 3 AS price FROM range(4000) t(n) ORDER BY n', meta);
  } else {
    expect(
      await writer.appendTable(connection, 'pull-test-payments', rows(3000 * n, 3000 * (n + 1)), meta, { partitionBy: BY_KEY }),
    ).not.toBeNull();
    expect(await writer.keep('pull-test-prices')).not.toBeNull();
  }
  await writer.writeDocument('pull-test-note', { run: n }, meta);
  const manifest = await writer.publish({ nextExpectedUpdate: new Date(Date.parse(at) + 3_600_000) });
  versions.push(manifest);
  return manifest;
}

const service = (name: string) => running.find((r) => r.service === name)!;

async function health(name: string): Promise<HealthDocument> {
  return (await (await fetch(`${service(name).url}/health`)).json()) as HealthDocument;
}

/** /health of korea once `check` holds (the reader swaps on its refresh after the pull). */
async function healthWhen(check: (h: HealthDocument) => boolean): Promise<HealthDocument> {
  const until = Date.now() + 10_000;
  for (;;) {
    const h = await health('korea');
    if (check(h) || Date.now() > until) return h;
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  connection = await instance.connect();
  await connection.run(`CREATE TABLE payments AS SELECT '0x' || md5('b' || (i % 200)) AS buyer, i AS n FROM range(30000) r(i)`);
  scratch = mkdtempSync(join(tmpdir(), 'snapshot-pull-proxy-'));
  published = join(scratch, 'published');
  mkdirSync(published);
  source = await startStaticSource(published);
  await publishOnSource('2026-11-20T12:00:00Z');
  const settings = loadSettings({
    SNAPSHOTS_DIR: join(scratch, 'proxy', 'snapshots'),
    KOREA_PORT: '0',
    ANALYTICS_PORT: '0',
    SITE_BUILD: 'off',
    CRYPTO_WORKERS: '0',
    SNAPSHOTS_PULL_URL: source.url,
    // the test asks for each pull itself (follower.pull), as the interval would
    SNAPSHOTS_PULL_INTERVAL_MS: '600000',
    SNAPSHOTS_PULL_TIMEOUT_MS: '5000',
  });
  running = await startServices(settings);
}, 60_000);
afterAll(async () => {
  await stopServices(running);
  await source.close();
  connection.closeSync();
  instance.closeSync();
  rmSync(scratch, { recursive: true, force: true });
});

describe('npm run serve with SNAPSHOTS_PULL_URL', () => {
  it('serves the version it pulled at start, and /health names the source', async () => {
    await service('korea').follower!.pull();
    const h = await healthWhen((x) => x.snapshot?.version === versions[0]!.version);
    expect(h.snapshot?.version).toBe(versions[0]!.version);
    expect(h.snapshot_source).toMatchObject({ url: source.url, version: versions[0]!.version, problem: null, interval_seconds: 600 });
    // the source has no analytics snapshot: that service says so instead of pointing at the pipeline
    await service('analytics').follower!.pull();
    const analytics = await health('analytics');
    expect(analytics.snapshot).toBeNull();
    expect(analytics.snapshot_source?.problem).toMatch(/analytics\/latest\.json answered HTTP 404; the previous version stays live/);
    expect(analytics.problems.join('\n')).toMatch(/^snapshot source: GET /m);
  });

  it('follows a new version published on the source, downloading only the files that changed', async () => {
    const second = await publishOnSource('2026-11-20T13:00:00Z');
    source.requests.length = 0;
    const report = await service('korea').follower!.pull();
    expect(report?.outcome).toBe('published');
    const h = await healthWhen((x) => x.snapshot?.version === second.version);
    expect(h.snapshot?.version).toBe(second.version);
    expect(h.snapshot_source).toMatchObject({ version: second.version, problem: null });
    const before = new Set(versions[0]!.datasets.flatMap(datasetFiles).map((f) => f.sha256));
    const unchanged = second.datasets.flatMap(datasetFiles).filter((f) => before.has(f.sha256));
    expect(unchanged.map((f) => f.file)).toContain('pull-test-prices.parquet');
    expect(unchanged.length).toBeGreaterThanOrEqual(2);
    for (const f of unchanged) expect(source.requests).not.toContain(`/korea/${second.version}/${f.file}`);
    expect(source.requests).toContain(`/korea/${second.version}/pull-test-payments/delta-000001.parquet`);
    expect(report?.reused.files).toBe(unchanged.length);
  });

  describe('a damaged version on the source keeps the served one and /health says why', () => {
    let third: SnapshotManifest;
    let live: string;

    beforeAll(async () => {
      live = versions[1]!.version;
      third = await publishOnSource('2026-11-20T14:00:00Z');
    });

    async function keptWith(path: string, fault: SourceFault, reason: RegExp): Promise<void> {
      source.fault(`korea/${third.version}/${path}`, fault);
      try {
        expect(await service('korea').follower!.pull()).toBeNull();
        const h = await health('korea');
        expect(h.snapshot?.version).toBe(live);
        expect(h.status).toBe('degraded');
        expect(h.snapshot_source?.problem).toMatch(reason);
        expect(h.snapshot_source?.problem).toMatch(/the previous version stays live$/);
        expect(h.problems.some((p) => p.startsWith('snapshot source: ') && reason.test(p))).toBe(true);
        // no local path in what the public sees
        expect(JSON.stringify(h)).not.toContain(scratch);
      } finally {
        source.fault(`korea/${third.version}/${path}`, null);
      }
    }

    it('a truncated file', async () => {
      await keptWith(
        'pull-test-payments/delta-000002.parquet',
        { kind: 'truncated' },
        /delta-000002\.parquet on the source is \d+ bytes, its manifest says \d+ \(truncated\)/,
      );
    });

    it('a wrong checksum', async () => {
      await keptWith(
        'pull-test-note.json',
        { kind: 'flipped' },
        /pull-test-note\.json on the source has sha256 [0-9a-f]{64}, its manifest says/,
      );
    });

    it("a manifest whose sha256 does not match latest.json's", async () => {
      const text = readFileSync(join(published, 'korea', third.version, 'manifest.json'), 'utf8');
      await keptWith(
        'manifest.json',
        { kind: 'body', body: text.replace('"followed"', '"followeD"') },
        /manifest\.json on the source has sha256 [0-9a-f]{64}, its latest\.json says [0-9a-f]{64}/,
      );
    });

    it('a network failure mid-download (retried, then given up)', async () => {
      await keptWith(
        'pull-test-payments/delta-000002.parquet',
        { kind: 'cut' },
        /delta-000002\.parquet failed after 3 attempts: network error/,
      );
    });

    it('then serves the version once the source serves it whole', async () => {
      await service('korea').follower!.pull();
      const h = await healthWhen((x) => x.snapshot?.version === third.version);
      expect(h.snapshot?.version).toBe(third.version);
      expect(h.snapshot_source?.problem).toBeNull();
      expect(h.problems.some((p) => p.startsWith('snapshot source: '))).toBe(false);
    });
  });
});
