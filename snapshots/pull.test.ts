/**
 * The snapshot follower (pull.ts) against a source on loopback (testing/static-source.ts) that the
 * writer publishes into: a partitioned table (parts, then a delta file), a single-file table and a
 * document. A pull publishes the source's newest version locally, reusing unchanged files; every
 * fault on the source (a file cut short, other bytes, a manifest latest.json does not vouch for, a
 * connection dropped mid-file, a manifest that does not parse, an older version, a name leading
 * out of the folder) changes nothing locally and says why.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasetFiles, type SnapshotManifest } from './manifest.ts';
import { PullError, pullLatest, SnapshotFollower, type PullOptions } from './pull.ts';
import { loadLatest, readLatestPointer } from './reader.ts';
import { startStaticSource, type StaticSource } from './testing/static-source.ts';
import { SnapshotWriter } from './writer.ts';

const SERVICE = 'svc';
const meta = { source: 'demo' as const, asOf: '2026-11-20T12:00:00Z', license: 'proprietary' as const, description: 'pull test' };
const BY_BUYER = { key: 'buyer', buckets: 8 };

let instance: DuckDBInstance;
let connection: DuckDBConnection;
let scratch: string;
/** The pipelines' root, served by `source`. */
let published: string;
let source: StaticSource;
const versions: SnapshotManifest[] = [];

/** Publishes the next version on the source: the first writes every dataset; later ones append a delta and a new document, keeping the single table. */
async function publishOnSource(at: string): Promise<SnapshotManifest> {
  const writer = await SnapshotWriter.begin({ root: published, service: SERVICE, codeVersion: 'test', generatedAt: new Date(at) });
  const n = versions.length;
  if (n === 0) {
    await writer.writeTable(connection, 'payments-by-buyer', 'SELECT buyer, n FROM payments WHERE n < 2000 ORDER BY buyer, n', meta, {
      partitionBy: BY_BUYER,
    });
    await writer.writeTable(connection, 'prices', 'SELECT n, n * 2 AS price FROM range(5000) t(n) ORDER BY n', meta);
  } else {
    const added = await writer.appendTable(
      connection,
      'payments-by-buyer',
      `SELECT buyer, n FROM payments WHERE n >= ${2000 * n} AND n < ${2000 * (n + 1)} ORDER BY buyer, n`,
      meta,
      { partitionBy: BY_BUYER },
    );
    expect(added).not.toBeNull();
    expect(await writer.keep('prices')).not.toBeNull();
  }
  await writer.writeDocument('summary', { run: n, at }, meta);
  const manifest = await writer.publish({ nextExpectedUpdate: new Date(Date.parse(at) + 3_600_000) });
  versions.push(manifest);
  return manifest;
}

/** A fresh local root, with options pulling from the source into it. */
function localRoot(): { root: string; options: PullOptions } {
  const root = mkdtempSync(join(scratch, 'local-'));
  return { root, options: { root, service: SERVICE, source: { url: source.url }, retries: 0, timeoutMs: 5_000 } };
}

/** What is in the local service folder (versions, latest.json, leftovers). */
const entries = (root: string) => (existsSync(join(root, SERVICE)) ? readdirSync(join(root, SERVICE)).sort() : []);

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  connection = await instance.connect();
  await connection.run(`CREATE TABLE payments AS
    SELECT '0x' || md5('buyer' || (i % 300)) AS buyer, i AS n FROM range(20000) r(i)`);
  scratch = mkdtempSync(join(tmpdir(), 'snapshot-pull-'));
  published = join(scratch, 'published');
  mkdirSync(published);
  source = await startStaticSource(published);
  await publishOnSource('2026-11-20T12:00:00Z');
});
afterAll(async () => {
  await source.close();
  connection.closeSync();
  instance.closeSync();
  rmSync(scratch, { recursive: true, force: true });
});

describe('pulling from a published source', () => {
  let root: string;
  let options: PullOptions;

  beforeAll(() => {
    ({ root, options } = localRoot());
  });

  it('publishes the newest version locally, every file and the manifest byte for byte, for the reader to verify', async () => {
    const first = versions[0]!;
    const report = await pullLatest(options);
    const files = first.datasets.flatMap(datasetFiles);
    expect(files.length).toBeGreaterThan(3); // parts of the partitioned table among them
    expect(report).toMatchObject({ outcome: 'published', version: first.version, reused: { files: 0 } });
    expect(report.downloaded.files).toBe(files.length + 2); // and latest.json, manifest.json
    const pointer = readLatestPointer(root, SERVICE)!;
    expect(pointer.version).toBe(first.version);
    expect(pointer.manifest_sha256).toBe(readLatestPointer(published, SERVICE)!.manifest_sha256);
    const loaded = await loadLatest(root, SERVICE);
    expect(loaded?.version).toBe(first.version);
    expect(loaded?.fallbackReason).toBeNull();
    expect(entries(root)).toEqual([first.version, 'latest.json']);
  });

  it('asks only latest.json when the newest version is live already', async () => {
    source.requests.length = 0;
    const report = await pullLatest(options);
    expect(report.outcome).toBe('up-to-date');
    expect(source.requests).toEqual([`/${SERVICE}/latest.json`]);
  });

  it('takes unchanged files from the previous version instead of downloading them again', async () => {
    const second = await publishOnSource('2026-11-20T13:00:00Z');
    source.requests.length = 0;
    const report = await pullLatest(options);
    expect(report).toMatchObject({ outcome: 'published', version: second.version });
    const before = new Set(versions[0]!.datasets.flatMap(datasetFiles).map((f) => f.sha256));
    const files = second.datasets.flatMap(datasetFiles);
    const unchanged = files.filter((f) => before.has(f.sha256));
    const changed = files.filter((f) => !before.has(f.sha256));
    // the parts and the kept table are the same bytes; the delta file and the document are new
    expect(unchanged.length).toBeGreaterThan(3);
    expect(changed.map((f) => f.file).sort()).toEqual(['payments-by-buyer/delta-000001.parquet', 'summary.json']);
    expect(report.reused.files).toBe(unchanged.length);
    const asked = source.requests.filter((p) => p.startsWith(`/${SERVICE}/${second.version}/`));
    expect(asked.sort()).toEqual(['manifest.json', ...changed.map((f) => f.file)].map((f) => `/${SERVICE}/${second.version}/${f}`).sort());
    const loaded = await loadLatest(root, SERVICE);
    expect(loaded?.version).toBe(second.version);
    // the previous version is kept beside it, with its manifest's sha256
    expect(readLatestPointer(root, SERVICE)?.kept?.map((k) => k.version)).toEqual([versions[0]!.version]);
  });

  describe('a fault on the source keeps the previous version live and says why', () => {
    let third: SnapshotManifest;
    let live: string;
    let deltaPath: string;
    let summaryPath: string;

    beforeAll(async () => {
      live = versions[1]!.version;
      third = await publishOnSource('2026-11-20T14:00:00Z');
      deltaPath = `${SERVICE}/${third.version}/payments-by-buyer/delta-000002.parquet`;
      summaryPath = `${SERVICE}/${third.version}/summary.json`;
    });

    /** Pulls with `fault` planted on `path`; expects a PullError matching `reason` and nothing changed locally. */
    async function refused(path: string, fault: Parameters<StaticSource['fault']>[1], reason: RegExp): Promise<string> {
      const before = entries(root);
      if (fault) source.fault(path, fault);
      try {
        const err = await pullLatest(options).then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(PullError);
        expect((err as Error).message).toMatch(reason);
        expect((err as Error).message).not.toContain(root);
        expect(readLatestPointer(root, SERVICE)?.version).toBe(live);
        // no temporary directory, no directory of the refused version
        expect(entries(root)).toEqual(before);
        return (err as Error).message;
      } finally {
        source.fault(path, null);
      }
    }

    it('a file cut short on the source', async () => {
      await refused(
        deltaPath,
        { kind: 'truncated' },
        /delta-000002\.parquet on the source is \d+ bytes, its manifest says \d+ \(truncated\)/,
      );
    });

    it('a file with other bytes (wrong checksum)', async () => {
      await refused(
        summaryPath,
        { kind: 'flipped' },
        /summary\.json on the source has sha256 [0-9a-f]{64}, its manifest says [0-9a-f]{64}/,
      );
    });

    it('a manifest whose sha256 is not the one latest.json gives', async () => {
      const text = readFileSync(join(published, SERVICE, third.version, 'manifest.json'), 'utf8');
      await refused(
        `${SERVICE}/${third.version}/manifest.json`,
        { kind: 'body', body: text.replace('pull test', 'pull tesT') },
        /manifest\.json on the source has sha256 [0-9a-f]{64}, its latest\.json says [0-9a-f]{64}: not pulled/,
      );
    });

    it('a connection dropped halfway through a file', async () => {
      await refused(
        deltaPath,
        { kind: 'cut' },
        /GET http:\/\/127\.0\.0\.1:\d+\/published\/svc\/.*delta-000002\.parquet failed after 1 attempt: network error/,
      );
    });

    it('the source not answering a file (HTTP 503)', async () => {
      await refused(summaryPath, { kind: 'status', status: 503 }, /summary\.json failed after 1 attempt: HTTP 503/);
    });

    it('a manifest that does not parse (and latest.json vouching for it)', async () => {
      const garbage = '{"format_version": 1, "datasets": "nope"';
      const pointer = { ...readLatestPointer(published, SERVICE)!, manifest_sha256: createHash('sha256').update(garbage).digest('hex') };
      source.fault(`${SERVICE}/latest.json`, { kind: 'body', body: JSON.stringify(pointer) });
      try {
        await refused(
          `${SERVICE}/${third.version}/manifest.json`,
          { kind: 'body', body: garbage },
          /manifest\.json on the source is not JSON/,
        );
      } finally {
        source.fault(`${SERVICE}/latest.json`, null);
      }
    });

    it('a latest.json naming a version older than the local one', async () => {
      const older = { ...readLatestPointer(published, SERVICE)!, version: versions[0]!.version, kept: [] };
      older.manifest_sha256 = createHash('sha256')
        .update(readFileSync(join(published, SERVICE, versions[0]!.version, 'manifest.json')))
        .digest('hex');
      await refused(
        `${SERVICE}/latest.json`,
        { kind: 'body', body: JSON.stringify(older) },
        new RegExp(`names ${versions[0]!.version}, older than ${live} live here: not pulled`),
      );
    });

    it('a name leading out of the folder, in the manifest or in latest.json, is refused by the snapshot format before anything is written', async () => {
      const manifest = JSON.parse(readFileSync(join(published, SERVICE, third.version, 'manifest.json'), 'utf8')) as SnapshotManifest;
      const summary = manifest.datasets.find((d) => d.name === 'summary')!;
      summary.file = '../../../escaped.json';
      const hostile = JSON.stringify(manifest);
      const pointer = { ...readLatestPointer(published, SERVICE)!, manifest_sha256: createHash('sha256').update(hostile).digest('hex') };
      source.fault(`${SERVICE}/latest.json`, { kind: 'body', body: JSON.stringify(pointer) });
      try {
        const message = await refused(
          `${SERVICE}/${third.version}/manifest.json`,
          { kind: 'body', body: hostile },
          /does not match the snapshot format/,
        );
        expect(message).toMatch(/datasets\[\d+\]\.file: expected a file name/);
      } finally {
        source.fault(`${SERVICE}/latest.json`, null);
      }
      await refused(
        `${SERVICE}/latest.json`,
        { kind: 'body', body: JSON.stringify({ ...readLatestPointer(published, SERVICE)!, version: '../../escaped' }) },
        /latest\.json on the source does not match the snapshot format: version/,
      );
      for (const dir of [scratch, join(scratch, '..'), root]) expect(existsSync(join(dir, 'escaped.json'))).toBe(false);
      expect(readdirSync(root).sort()).toEqual([SERVICE]);
    });

    it('another pull of the service under way here (the server beside npm run pull-snapshots)', async () => {
      writeFileSync(join(root, SERVICE, '.pull.lock'), String(process.pid));
      try {
        await refused(`${SERVICE}/latest.json`, null, new RegExp(`another pull of svc is under way here \\(process ${process.pid}\\)`));
      } finally {
        rmSync(join(root, SERVICE, '.pull.lock'));
      }
    });

    it('pulls the version once the source serves it whole (a lock left by a process that is gone is taken over)', async () => {
      writeFileSync(join(root, SERVICE, '.pull.lock'), '999999999');
      const report = await pullLatest(options);
      expect(report).toMatchObject({ outcome: 'published', version: third.version });
      expect((await loadLatest(root, SERVICE))?.version).toBe(third.version);
      expect(existsSync(join(root, SERVICE, '.pull.lock'))).toBe(false);
    });
  });
});

describe('the follower', () => {
  it('reports the last check and why a pull changed nothing, and logs a persisting problem once', async () => {
    const { options } = localRoot();
    const lines: string[] = [];
    const published: string[] = [];
    const follower = new SnapshotFollower({
      ...options,
      source: { url: `${source.url}/missing` },
      intervalMs: 60_000,
      log: (l) => lines.push(l),
      onPublished: (r) => published.push(r.version),
    });
    try {
      expect(await follower.pull()).toBeNull();
      await follower.pull();
      const status = follower.status();
      expect(status).toMatchObject({ url: `${source.url}/missing`, version: null, last_success_at: null, interval_seconds: 60 });
      expect(status.problem).toMatch(/GET .*\/missing\/svc\/latest\.json answered HTTP 404; the previous version stays live/);
      expect(lines).toHaveLength(1);
    } finally {
      await follower.close();
    }
    const good = new SnapshotFollower({
      ...localRoot().options,
      intervalMs: 60_000,
      log: (l) => lines.push(l),
      onPublished: (r) => published.push(r.version),
    });
    try {
      const report = await good.pull();
      expect(report?.outcome).toBe('published');
      expect(published).toEqual([versions.at(-1)!.version]);
      expect(good.status()).toMatchObject({ version: versions.at(-1)!.version, problem: null });
      expect(lines.at(-1)).toMatch(/^svc: pulled .* files downloaded/);
    } finally {
      await good.close();
    }
  });

  it('sends the token as a bearer token and never shows it', async () => {
    const guarded = await startStaticSource(published, { token: 'sekrit-token-123' });
    try {
      const { options } = localRoot();
      const refused = await pullLatest({ ...options, source: { url: guarded.url } }).catch((e: Error) => e);
      expect(refused).toBeInstanceOf(PullError);
      expect((refused as Error).message).toMatch(/HTTP 401/);
      const report = await pullLatest({ ...options, source: { url: guarded.url, token: 'sekrit-token-123' } });
      expect(report.outcome).toBe('published');
    } finally {
      await guarded.close();
    }
  });
});
