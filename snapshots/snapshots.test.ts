import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { findDataset } from '../catalog/datasets.ts';
import { KOREA_RESPONSES } from '../catalog/korea.ts';
import { MAX_TEXT_CHARS } from './manifest.ts';
import { SnapshotWriter } from './writer.ts';
import { absenceReason, listVersions, loadLatest, readLatestPointer, SnapshotReader, sha256File } from './reader.ts';

const meta = {
  source: 'demo' as const,
  asOf: '2026-11-20T12:00:00Z',
  license: 'CC0-1.0' as const,
  description: 'test dataset',
};

let instance: DuckDBInstance;
let connection: DuckDBConnection;
const roots: string[] = [];
function freshRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'snap-test-'));
  roots.push(root);
  return root;
}

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  connection = await instance.connect();
  await connection.run(
    `CREATE TABLE prices AS SELECT 'SYM' || i AS symbol, (i * 10.5)::DOUBLE AS price, TIMESTAMP '2026-11-20 12:00:00' + INTERVAL (i) MINUTE AS t FROM range(50000) r(i)`,
  );
});
afterAll(() => {
  connection.closeSync();
  instance.closeSync();
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

async function publishOnce(root: string, generatedAt: Date, docValue = 1) {
  const writer = await SnapshotWriter.begin({ root, service: 'svc', codeVersion: 'test', generatedAt, retention: 2 });
  await writer.writeTable(connection, 'prices', 'SELECT * FROM prices ORDER BY symbol', meta);
  await writer.writeDocument('stats', { tokens: 50000, value: docValue }, meta);
  return writer.publish({ nextExpectedUpdate: new Date(generatedAt.getTime() + 60_000) });
}

describe('snapshot writer and reader', () => {
  it('publishes parquet and json with a manifest the reader verifies', async () => {
    const root = freshRoot();
    const manifest = await publishOnce(root, new Date('2026-11-20T12:00:01Z'));
    expect(manifest.datasets.map((d) => d.name)).toEqual(['prices', 'stats']);
    const prices = manifest.datasets.find((d) => d.name === 'prices')!;
    expect(prices.rows).toBe(50000);
    expect(prices.schema).toEqual([
      { name: 'symbol', type: 'VARCHAR' },
      { name: 'price', type: 'DOUBLE' },
      { name: 't', type: 'TIMESTAMP' },
    ]);
    expect(prices.source).toBe('demo');
    expect(prices.as_of).toBe('2026-11-20T12:00:00.000Z');
    expect(manifest.generated_at).toBe('2026-11-20T12:00:01.000Z');
    expect(manifest.next_expected_update).toBe('2026-11-20T12:01:01.000Z');
    const dir = join(root, 'svc', manifest.version);
    expect(await sha256File(join(dir, 'prices.parquet'))).toBe(prices.sha256);
    // zstd compression in the Parquet footer
    const codec = await connection.runAndReadAll(`SELECT DISTINCT compression FROM parquet_metadata('${join(dir, 'prices.parquet')}')`);
    expect(codec.getRowObjectsJson().map((r) => r.compression)).toEqual(['ZSTD']);

    const loaded = await loadLatest(root, 'svc');
    expect(loaded?.version).toBe(manifest.version);
    expect(loaded?.datasets.get('stats')?.document).toEqual({ tokens: 50000, value: 1 });
    expect(readLatestPointer(root, 'svc')?.version).toBe(manifest.version);
    expect(readdirSync(join(root, 'svc')).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('writes identical bytes for identical data', async () => {
    const a = await publishOnce(freshRoot(), new Date('2026-11-20T12:00:01Z'));
    const b = await publishOnce(freshRoot(), new Date('2026-11-20T13:00:01Z'));
    expect(a.datasets.map((d) => d.sha256)).toEqual(b.datasets.map((d) => d.sha256));
    expect(a.version).not.toBe(b.version);
  });

  it('keeps the retention count of old versions and never the tmp leftovers of dead processes', async () => {
    const root = freshRoot();
    // a leftover of a crashed publish by a process that no longer exists
    const ghost = join(root, 'svc', '.tmp-999999-deadbeef');
    await publishOnce(root, new Date('2026-11-20T10:00:00Z'));
    rmSync(ghost, { force: true, recursive: true });
    writeFileSync(join(root, 'svc', '.latest.json.tmp-999999'), '{');
    const fs = await import('node:fs');
    fs.mkdirSync(ghost);
    for (let i = 1; i <= 4; i++) await publishOnce(root, new Date(`2026-11-20T1${i}:00:00Z`), i);
    const versions = listVersions(root, 'svc');
    expect(versions).toHaveLength(3); // live + 2 kept
    expect(readLatestPointer(root, 'svc')?.version).toBe(versions[0]);
    expect(existsSync(ghost)).toBe(false);
    expect(existsSync(join(root, 'svc', '.latest.json.tmp-999999'))).toBe(false);
  });

  it('carries over the last good file of a dataset that failed, marked with the reason', async () => {
    const root = freshRoot();
    const first = await publishOnce(root, new Date('2026-11-20T10:00:00Z'));
    const writer = await SnapshotWriter.begin({ root, service: 'svc', codeVersion: 'test', generatedAt: new Date('2026-11-20T11:00:00Z') });
    await writer.writeDocument('stats', { tokens: 1, value: 2 }, { ...meta, asOf: '2026-11-20T11:00:00Z' });
    const kept = await writer.carryOver('prices', 'upbit: HTTP 503');
    expect(kept?.produced_in).toBe(first.version);
    expect(await writer.carryOver('never-existed', 'x')).toBeNull();
    const second = await writer.publish({ nextExpectedUpdate: new Date('2026-11-20T12:00:00Z') });
    const prices = second.datasets.find((d) => d.name === 'prices')!;
    expect(prices.carried_over).toEqual({ reason: 'upbit: HTTP 503', failed_at: '2026-11-20T11:00:00.000Z' });
    expect(prices.as_of).toBe('2026-11-20T12:00:00.000Z');
    expect(prices.sha256).toBe(first.datasets.find((d) => d.name === 'prices')!.sha256);
    const loaded = await loadLatest(root, 'svc');
    expect(loaded?.version).toBe(second.version);
  });

  it('shortens a carried-over reason to what the snapshot format allows (an error text can be any length)', async () => {
    const root = freshRoot();
    await publishOnce(root, new Date('2026-11-20T10:00:00Z'));
    const writer = await SnapshotWriter.begin({ root, service: 'svc', codeVersion: 'test', generatedAt: new Date('2026-11-20T11:00:00Z') });
    await writer.writeDocument('stats', { tokens: 1, value: 2 }, meta);
    const kept = await writer.carryOver('prices', `duckdb: ${'x'.repeat(50_000)}`);
    expect(kept?.carried_over?.reason).toHaveLength(MAX_TEXT_CHARS);
    const second = await writer.publish({ nextExpectedUpdate: new Date('2026-11-20T12:00:00Z') });
    expect((await loadLatest(root, 'svc'))?.version).toBe(second.version);
  });

  it('refuses to publish a manifest readers would refuse (a notice above the cap), leaving the previous version live', async () => {
    const root = freshRoot();
    const first = await publishOnce(root, new Date('2026-11-20T10:00:00Z'));
    const writer = await SnapshotWriter.begin({ root, service: 'svc', codeVersion: 'test', generatedAt: new Date('2026-11-20T11:00:00Z') });
    await writer.writeDocument('stats', { tokens: 1, value: 2 }, meta);
    await expect(
      writer.publish({ nextExpectedUpdate: new Date('2026-11-20T12:00:00Z'), notice: 'n'.repeat(MAX_TEXT_CHARS + 1) }),
    ).rejects.toThrow(new RegExp(`does not match the snapshot format: notice: expected at most ${MAX_TEXT_CHARS} characters`));
    expect(readLatestPointer(root, 'svc')?.version).toBe(first.version);
    expect(listVersions(root, 'svc')).toEqual([first.version]);
  });

  it('never writes through a link planted at a temporary name: latest.json stays a regular file', async () => {
    const root = freshRoot();
    await publishOnce(root, new Date('2026-11-20T10:00:00Z'));
    const victim = join(root, 'victim.txt');
    writeFileSync(victim, 'untouched\n');
    symlinkSync(victim, join(root, 'svc', `.latest.json.tmp-${process.pid}`));
    const second = await publishOnce(root, new Date('2026-11-20T11:00:00Z'), 2);
    expect(readFileSync(victim, 'utf8')).toBe('untouched\n');
    expect(lstatSync(join(root, 'svc', 'latest.json')).isFile()).toBe(true);
    expect(readLatestPointer(root, 'svc')?.version).toBe(second.version);
  });

  it('runs beforeLive on the verified version while the previous one is still live; a throw keeps the previous live', async () => {
    const root = freshRoot();
    const first = await publishOnce(root, new Date('2026-11-20T10:00:00Z'));
    const seen: Array<{ dir: string; live: string | undefined; files: string[] }> = [];
    const begin = (beforeLive: (dir: string) => Promise<void>, at: string) =>
      SnapshotWriter.begin({ root, service: 'svc', codeVersion: 'test', generatedAt: new Date(at), beforeLive });
    const failing = await begin(async () => {
      throw new Error('site build failed');
    }, '2026-11-20T11:00:00Z');
    await failing.writeDocument('stats', { tokens: 1, value: 3 }, meta);
    await expect(failing.publish({ nextExpectedUpdate: new Date('2026-11-20T12:00:00Z') })).rejects.toThrow(/site build failed/);
    expect(readLatestPointer(root, 'svc')?.version).toBe(first.version);
    expect(listVersions(root, 'svc')).toEqual([first.version]);

    const writer = await begin(async (dir) => {
      seen.push({ dir, live: readLatestPointer(root, 'svc')?.version, files: readdirSync(dir).sort() });
    }, '2026-11-20T12:00:00Z');
    await writer.writeDocument('stats', { tokens: 1, value: 4 }, meta);
    const second = await writer.publish({ nextExpectedUpdate: new Date('2026-11-20T13:00:00Z') });
    expect(seen).toEqual([{ dir: join(root, 'svc', second.version), live: first.version, files: ['manifest.json', 'stats.json'] }]);
    expect(readLatestPointer(root, 'svc')?.version).toBe(second.version);
  });

  it('refuses to publish an empty snapshot and leaves the previous one live', async () => {
    const root = freshRoot();
    const first = await publishOnce(root, new Date('2026-11-20T10:00:00Z'));
    const writer = await SnapshotWriter.begin({ root, service: 'svc', codeVersion: 'test' });
    await expect(writer.publish({ nextExpectedUpdate: new Date() })).rejects.toThrow(/nothing to publish/);
    expect(readLatestPointer(root, 'svc')?.version).toBe(first.version);
    expect(readdirSync(join(root, 'svc')).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('serves the newest older version that verifies when latest is corrupted, and says why', async () => {
    const root = freshRoot();
    const good = await publishOnce(root, new Date('2026-11-20T10:00:00Z'), 1);
    const bad = await publishOnce(root, new Date('2026-11-20T11:00:00Z'), 2);
    appendFileSync(join(root, 'svc', bad.version, 'stats.json'), ' ');
    const loaded = await loadLatest(root, 'svc');
    expect(loaded?.version).toBe(good.version);
    expect(loaded?.fallbackReason).toMatch(/failed verification.*stats\.json/);
  });

  it('refuses a manifest edited after publishing (sha256 in latest.json) and serves the version before', async () => {
    const root = freshRoot();
    const good = await publishOnce(root, new Date('2026-11-20T10:00:00Z'), 1);
    const edited = await publishOnce(root, new Date('2026-11-20T11:00:00Z'), 2);
    const manifestPath = join(root, 'svc', edited.version, 'manifest.json');
    // every file still matches the manifest: only the manifest's own checksum tells
    writeFileSync(manifestPath, readFileSync(manifestPath, 'utf8').replace('"license": "CC0-1.0"', '"license": "proprietary"'));
    expect(readFileSync(manifestPath, 'utf8')).toContain('"license": "proprietary"');
    const loaded = await loadLatest(root, 'svc');
    expect(loaded?.version).toBe(good.version);
    expect(loaded?.fallbackReason).toMatch(
      new RegExp(
        `names ${edited.version}, which failed verification: .*manifest\\.json sha256 [0-9a-f]{64} does not match latest\\.json's manifest_sha256`,
      ),
    );
  });

  it('refuses a manifest that does not match the snapshot format, naming the field', async () => {
    const root = freshRoot();
    const good = await publishOnce(root, new Date('2026-11-20T10:00:00Z'), 1);
    const bad = await publishOnce(root, new Date('2026-11-20T11:00:00Z'), 2);
    const manifestPath = join(root, 'svc', bad.version, 'manifest.json');
    writeFileSync(manifestPath, readFileSync(manifestPath, 'utf8').replace('"rows": 50000', '"rows": "50000"'));
    // a pointer that vouches for the edited bytes: the format check is what refuses it
    const pointerPath = join(root, 'svc', 'latest.json');
    const pointer = JSON.parse(readFileSync(pointerPath, 'utf8')) as Record<string, unknown>;
    writeFileSync(pointerPath, JSON.stringify({ ...pointer, manifest_sha256: await sha256File(manifestPath) }));
    const loaded = await loadLatest(root, 'svc');
    expect(loaded?.version).toBe(good.version);
    expect(loaded?.fallbackReason).toMatch(
      /manifest\.json does not match the snapshot format: datasets\[0\]\.rows: .*expected number, received string/,
    );
  });

  it('refuses a latest.json without manifest_sha256 (the writer always wrote one) and serves the newest version that verifies', async () => {
    const root = freshRoot();
    await publishOnce(root, new Date('2026-11-20T10:00:00Z'), 1);
    const newest = await publishOnce(root, new Date('2026-11-20T11:00:00Z'), 2);
    const pointerPath = join(root, 'svc', 'latest.json');
    const { manifest_sha256: _dropped, ...pointer } = JSON.parse(readFileSync(pointerPath, 'utf8')) as Record<string, unknown>;
    writeFileSync(pointerPath, JSON.stringify(pointer));
    expect(() => readLatestPointer(root, 'svc')).toThrow(/latest\.json does not match the snapshot format: manifest_sha256: /);
    const loaded = await loadLatest(root, 'svc');
    expect(loaded?.version).toBe(newest.version);
    expect(loaded?.fallbackReason).toMatch(/latest\.json unreadable: .*manifest_sha256/);
  });

  it('notices a newer version and swaps it in', async () => {
    const root = freshRoot();
    const first = await publishOnce(root, new Date('2026-11-20T10:00:00Z'), 1);
    const changes: string[] = [];
    const reader = new SnapshotReader(root, 'svc', { pollMs: 50, onChange: (s) => changes.push(s.version) });
    await reader.refresh();
    expect(reader.current()?.version).toBe(first.version);
    reader.watch();
    const second = await publishOnce(root, new Date('2026-11-20T11:00:00Z'), 2);
    const deadline = Date.now() + 5000;
    while (reader.current()?.version !== second.version && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    reader.close();
    expect(reader.current()?.version).toBe(second.version);
    expect(changes).toEqual([first.version, second.version]);
  });
});

describe('damage found while a version is served (issue 16, faults 1 and 2)', () => {
  it("latest.json lists the kept versions with their manifest's sha256, newest first, within retention", async () => {
    const root = freshRoot();
    const versions: string[] = [];
    for (let hour = 10; hour < 14; hour++) versions.push((await publishOnce(root, new Date(`2026-11-20T${hour}:00:00Z`), hour)).version);
    const pointer = readLatestPointer(root, 'svc')!;
    expect(pointer.version).toBe(versions[3]);
    // retention 2: the two before the live one
    expect(pointer.kept?.map((k) => k.version)).toEqual([versions[2], versions[1]]);
    for (const k of pointer.kept!) expect(k.manifest_sha256).toBe(await sha256File(join(root, 'svc', k.version, 'manifest.json')));
  });

  it('a read error on intact files leaves the version served (the error is not the data)', async () => {
    const root = freshRoot();
    const only = await publishOnce(root, new Date('2026-11-20T10:00:00Z'));
    const reader = new SnapshotReader(root, 'svc');
    await reader.refresh();
    expect(await reader.checkAfterReadError(reader.current()!)).toBe(false);
    expect(reader.current()?.version).toBe(only.version);
    expect(reader.damagedVersions()).toEqual([]);
  });

  it('a live file damaged in place: dropped for the older version at the next poll, served again once repaired', async () => {
    const root = freshRoot();
    const first = await publishOnce(root, new Date('2026-11-20T10:00:00Z'), 1);
    const second = await publishOnce(root, new Date('2026-11-20T11:00:00Z'), 2);
    const errors: string[] = [];
    const reader = new SnapshotReader(root, 'svc', { onError: (e) => errors.push(e.message) });
    await reader.refresh();
    const path = join(root, 'svc', second.version, 'prices.parquet');
    const good = readFileSync(path);
    const bad = Buffer.from(good);
    bad[100]! ^= 0x01;
    writeFileSync(path, bad);

    expect(await reader.refresh()).toBe(true);
    expect(reader.current()?.version).toBe(first.version);
    expect(reader.current()?.fallbackReason).toBe(
      `latest.json names ${second.version}, which is damaged: prices.parquet (dataset prices) does not match its sha256 in the manifest`,
    );
    expect(reader.damagedVersions().map((d) => d.version)).toEqual([second.version]);
    expect(errors.join('\n')).toContain(`svc ${second.version} is damaged`);
    // a damaged version is not loaded (nor hashed) again while its files stay as they are
    expect(await reader.refresh()).toBe(false);

    writeFileSync(path, good);
    expect(await reader.refresh()).toBe(true);
    expect(reader.current()?.version).toBe(second.version);
    expect(reader.current()?.fallbackReason).toBeNull();
    expect(reader.lastError).toBeNull();
  });

  it('a file touched but unchanged is not damage', async () => {
    const root = freshRoot();
    const only = await publishOnce(root, new Date('2026-11-20T10:00:00Z'));
    const reader = new SnapshotReader(root, 'svc');
    await reader.refresh();
    const path = join(root, 'svc', only.version, 'stats.json');
    writeFileSync(path, readFileSync(path));
    expect(await reader.refresh()).toBe(false);
    expect(reader.current()?.version).toBe(only.version);
    expect(reader.damagedVersions()).toEqual([]);
  });
});

// ------------------------------------------------------------------ crash safety

const child = join(import.meta.dirname, 'testing', 'publish-child.ts');
const tsx = join(process.cwd(), 'node_modules', '.bin', 'tsx');

/** Runs a publish in a child process and SIGKILLs it at `stage` (or after `delayMs`). */
function publishAndKill(root: string, mark: string, how: { stage?: string; delayMs?: number }): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const args = [child, root, mark];
    if (how.stage) args.push('--pause-at', how.stage);
    else args.push('--slow');
    const proc = spawn(tsx, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const seen: string[] = [];
    let buffer = '';
    let stderr = '';
    let timer: NodeJS.Timeout | null = null;
    proc.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        seen.push(line);
        if (how.stage && line === `stage ${how.stage}`) proc.kill('SIGKILL');
        if (how.delayMs !== undefined && line === 'stage begin' && !timer) {
          timer = setTimeout(() => proc.kill('SIGKILL'), how.delayMs);
        }
      }
    });
    proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    proc.on('error', reject);
    proc.on('exit', () => {
      if (timer) clearTimeout(timer);
      if (how.stage && !seen.includes(`stage ${how.stage}`)) reject(new Error(`child never reached ${how.stage}: ${stderr}`));
      else resolve(seen);
    });
  });
}

async function assertServesCompleteVersion(root: string, expectMark: string): Promise<void> {
  const loaded = await loadLatest(root, 'crashy');
  expect(loaded).not.toBeNull();
  expect(loaded!.fallbackReason).toBeNull();
  const doc = loaded!.datasets.get('doc-a')!.document as { mark: string };
  expect(doc.mark).toBe(expectMark);
  expect(loaded!.datasets.size).toBe(3);
}

describe('a publish killed midway', () => {
  const stages = [
    'begin',
    'dataset:big-table',
    'dataset:doc-a',
    'dataset:doc-b',
    'manifest-written',
    'directory-renamed',
    'verified',
    'pointer-written',
  ];

  it.each(stages)('leaves the previous complete version live when killed after %s', async (stage) => {
    const root = freshRoot();
    const ok = await publishAndKill(root, 'first', { stage: 'never' }).catch(() => null);
    expect(ok).toBeNull(); // 'never' is not a stage: the run completes, the helper reports it
    expect(readLatestPointer(root, 'crashy')).not.toBeNull();
    await assertServesCompleteVersion(root, 'first');
    await publishAndKill(root, 'second', { stage });
    await assertServesCompleteVersion(root, 'first');
  });

  it('after the pointer is renamed the new version is live and complete', async () => {
    const root = freshRoot();
    await publishAndKill(root, 'first', { stage: 'never' }).catch(() => null);
    await publishAndKill(root, 'second', { stage: 'published' });
    await assertServesCompleteVersion(root, 'second');
  });

  it('at random times, latest.json always names a complete, checksum-valid version', async () => {
    const root = freshRoot();
    await publishAndKill(root, 'first', { stage: 'never' }).catch(() => null);
    const delays = [5, 40, 80, 120, 160, 200, 260];
    for (const delayMs of delays) {
      await publishAndKill(root, `run-${delayMs}`, { delayMs });
      const loaded = await loadLatest(root, 'crashy');
      expect(loaded?.fallbackReason).toBeNull();
      expect(loaded?.datasets.size).toBe(3);
    }
    // the next successful publish cleans every leftover of the killed ones
    await publishAndKill(root, 'last', { stage: 'never' }).catch(() => null);
    await assertServesCompleteVersion(root, 'last');
    expect(readdirSync(join(root, 'crashy')).filter((n) => n.startsWith('.'))).toEqual([]);
    expect(JSON.parse(readFileSync(join(root, 'crashy', 'latest.json'), 'utf8')).service).toBe('crashy');
  });
});

describe('datasets against the shapes the catalog declares (snapshots/shape.ts)', () => {
  const fx = { source: 'demo', as_of: '2026-11-20T12:00:00Z', pair: 'USDKRW', rate: 1381.46, unit: 'KRW per 1 USD', provider: 'demo' };

  it('refuses a new file without its shape; a file a build with another shape wrote is withheld by the reader, never kept or carried over', async () => {
    const root = freshRoot();
    const at = new Date('2026-11-20T12:00:00Z');
    const writer = await SnapshotWriter.begin({ root, service: 'korea', codeVersion: 'test', generatedAt: at });
    await expect(writer.writeDocument('fx-rate', { ...fx, rate: 'high' }, meta)).rejects.toThrow(
      /"fx-rate" does not have its declared shape: rate: .*number/,
    );
    await expect(writer.writeTable(connection, 'kr-prices', 'SELECT symbol FROM prices ORDER BY symbol', meta)).rejects.toThrow(
      /"kr-prices" has 1 columns, declared 10 \(missing exchange VARCHAR\)/,
    );
    expect(existsSync(join(writer.tmpDir, 'kr-prices.parquet'))).toBe(false);
    await writer.writeDocument('fx-rate', fx, meta);
    await writer.publish({ nextExpectedUpdate: new Date(at.getTime() + 60_000) });

    // the same store read by a build whose fx-rate has one more field
    const decl = findDataset('korea', 'fx-rate') as { document: z.ZodType };
    const declared = decl.document;
    decl.document = KOREA_RESPONSES.FxRateBody.extend({ spread_pct: z.number() });
    try {
      const loaded = (await loadLatest(root, 'korea'))!;
      expect(loaded.datasets.has('fx-rate')).toBe(false);
      expect(absenceReason(loaded, 'fx-rate')).toMatch(/not the shape this server reads .*spread_pct/);
      const next = await SnapshotWriter.begin({
        root,
        service: 'korea',
        codeVersion: 'test',
        generatedAt: new Date(at.getTime() + 60_000),
      });
      expect(await next.keep('fx-rate')).toBeNull();
      expect(await next.carryOver('fx-rate', 'FX upstream answered HTTP 503')).toBeNull();
      next.abort();
    } finally {
      decl.document = declared;
    }
    expect((await loadLatest(root, 'korea'))!.datasets.has('fx-rate')).toBe(true);
  });
});
