import { createHash } from 'node:crypto';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatasetEntry, SnapshotManifest } from './manifest.ts';
import { bucketOf, bucketsFor, bucketSql, partFileName, partsDigest } from './partitions.ts';
import { loadLatest, parquetSql, partsForKeys, reverifyVersion, SnapshotReader, sha256File } from './reader.ts';
import { SnapshotWriter } from './writer.ts';

const meta = { source: 'demo' as const, asOf: '2026-11-20T12:00:00Z', license: 'proprietary' as const, description: 'test payments' };
const BUCKETS = 16;

let instance: DuckDBInstance;
let connection: DuckDBConnection;
const roots: string[] = [];
function freshRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'snap-parts-'));
  roots.push(root);
  return root;
}

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  connection = await instance.connect();
  // 400 buyers (addresses), 20,000 payments; a few buyers land in the same bucket
  await connection.run(`CREATE TABLE payments AS
    SELECT '0x' || md5('buyer' || (i % 400)) || '00000000' AS buyer, i AS n, (i * 0.25)::DOUBLE AS amount
      FROM range(20000) r(i)`);
});
afterAll(() => {
  connection.closeSync();
  instance.closeSync();
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

const QUERY = 'SELECT buyer, n, amount FROM payments ORDER BY buyer, n';

async function publishPartitioned(
  root: string,
  at: string,
  options: { keepBuckets?: (bucket: number) => boolean; query?: string; also?: (w: SnapshotWriter) => Promise<unknown> } = {},
) {
  const writer = await SnapshotWriter.begin({ root, service: 'svc', codeVersion: 'test', generatedAt: new Date(at), retention: 3 });
  await writer.writeTable(connection, 'payments-by-buyer', options.query ?? QUERY, meta, {
    rowGroupSize: 1024,
    partitionBy: { key: 'buyer', buckets: BUCKETS },
    keepBuckets: options.keepBuckets,
  });
  await options.also?.(writer);
  return writer.publish({ nextExpectedUpdate: new Date(Date.parse(at) + 60_000) });
}

const entryOf = (manifest: SnapshotManifest, name = 'payments-by-buyer'): DatasetEntry => manifest.datasets.find((d) => d.name === name)!;

async function rows(sql: string): Promise<Array<Record<string, unknown>>> {
  return (await connection.runAndReadAll(sql)).getRowObjectsJson();
}

describe('the bucket function', () => {
  it('is the first 8 hex digits of md5(key) mod buckets, the same in JavaScript and DuckDB SQL', async () => {
    const keys = Array.from({ length: 200 }, (_, i) => `0x${createHash('sha1').update(String(i)).digest('hex')}`);
    for (const buckets of [1, 7, 64, 256, 4096]) {
      const sql = await rows(
        `SELECT k, ${bucketSql('k', buckets)} AS b FROM (SELECT unnest(${JSON.stringify(keys).replaceAll('"', "'")}::VARCHAR[]) AS k)`,
      );
      for (const r of sql) expect(bucketOf(String(r.k), buckets)).toBe(Number(r.b));
    }
    // the documented definition, by hand: md5('0xabc') = 2a3aeb7c..., 0x2a3aeb7c = 708504444
    expect(bucketOf('0xabc', 256)).toBe(708504444 % 256);
  });
});

describe('the bucket count of rowsPerBucket', () => {
  it('is the fewest buckets, a power of two up to the most, whose parts average at most rowsPerBucket rows', () => {
    const at = (rows: number) => bucketsFor(rows, 256, 65_536);
    expect([0, 1, 65_536, 65_537, 131_072, 131_073, 267_598, 8_388_608, 8_388_609, 1e8].map(at)).toEqual([
      1, 1, 1, 2, 2, 4, 8, 128, 256, 256,
    ]);
    expect(bucketsFor(1e6, 7, 1000)).toBe(7);
  });
});

describe('partitioned datasets', () => {
  it('writes one sorted part per non-empty bucket, verified, with the entry summing and digesting its parts', async () => {
    const root = freshRoot();
    const manifest = await publishPartitioned(root, '2026-11-20T12:00:01Z');
    const entry = entryOf(manifest);
    const p = entry.partitions!;
    expect(entry.file).toBe('payments-by-buyer');
    expect(p).toMatchObject({ key: 'buyer', scheme: 'md5-hex8-mod', buckets: BUCKETS });
    expect(entry.rows).toBe(20000);
    expect(p.parts.reduce((a, x) => a + x.rows, 0)).toBe(20000);
    expect(entry.bytes).toBe(p.parts.reduce((a, x) => a + x.bytes, 0));
    expect(entry.sha256).toBe(partsDigest(p.parts));
    expect(entry.schema.map((c) => c.name)).toEqual(['buyer', 'n', 'amount']);
    const dir = join(root, 'svc', manifest.version, 'payments-by-buyer');
    expect(readdirSync(dir).sort()).toEqual(p.parts.map((x) => x.file));
    for (const part of p.parts) {
      const path = join(dir, part.file);
      expect(part.file).toBe(partFileName(part.bucket));
      expect(await sha256File(path)).toBe(part.sha256);
      expect(statSync(path).size).toBe(part.bytes);
      // every row of a part is in its bucket, and the part keeps the query's order
      const inPart = await rows(`SELECT buyer, n FROM read_parquet('${path}')`);
      expect(inPart.length).toBe(part.rows);
      for (const r of inPart) expect(bucketOf(String(r.buyer), BUCKETS)).toBe(part.bucket);
      const sorted = [...inPart].sort((a, b) =>
        a.buyer === b.buyer ? Number(a.n) - Number(b.n) : String(a.buyer) < String(b.buyer) ? -1 : 1,
      );
      expect(inPart).toEqual(sorted);
    }
    // the reader verifies every part and hands out the one part of a key
    const loaded = (await loadLatest(root, 'svc'))!;
    const data = loaded.datasets.get('payments-by-buyer')!;
    expect(data.files).toHaveLength(p.parts.length);
    const buyer = String((await rows('SELECT buyer FROM payments WHERE n = 123'))[0]!.buyer);
    const [file] = partsForKeys(data, [buyer]);
    expect(partsForKeys(data, [buyer])).toHaveLength(1);
    const found = await rows(`SELECT count(*)::INTEGER AS c FROM read_parquet('${file}') WHERE buyer = '${buyer}'`);
    expect(found[0]!.c).toBe(50);
    expect(partsForKeys(data, ['0xnobody', buyer]).length).toBeLessThanOrEqual(2);
    // the whole table through every part
    expect((await rows(`SELECT count(*)::INTEGER AS c FROM read_parquet(${JSON.stringify(data.files).replaceAll('"', "'")})`))[0]!.c).toBe(
      20000,
    );
  });

  it('writes identical parts for identical data, whether the query or orderBy orders the rows', async () => {
    const a = entryOf(await publishPartitioned(freshRoot(), '2026-11-20T12:00:01Z'));
    const b = entryOf(await publishPartitioned(freshRoot(), '2026-11-20T13:00:01Z'));
    expect(a.partitions).toEqual(b.partitions);
    expect(a.sha256).toBe(b.sha256);
    const writer = await SnapshotWriter.begin({ root: freshRoot(), service: 'svc', codeVersion: 'test' });
    const c = await writer.writeTable(connection, 'payments-by-buyer', 'SELECT buyer, n, amount FROM payments', meta, {
      rowGroupSize: 1024,
      partitionBy: { key: 'buyer', buckets: BUCKETS, orderBy: 'buyer, n' },
    });
    writer.abort();
    expect(c.partitions).toEqual(a.partitions);
  });

  it('with rowsPerBucket, a table gets the bucket count of its rows, in the manifest, and readers find keys by it', async () => {
    const root = freshRoot();
    const write = async (at: string, rowsPerBucket: number) => {
      const writer = await SnapshotWriter.begin({ root, service: 'svc', codeVersion: 'test', generatedAt: new Date(at), retention: 3 });
      await writer.writeTable(connection, 'payments-by-buyer', 'SELECT buyer, n, amount FROM payments', meta, {
        rowGroupSize: 1024,
        partitionBy: { key: 'buyer', buckets: BUCKETS, rowsPerBucket, orderBy: 'buyer, n' },
      });
      return writer.publish({ nextExpectedUpdate: new Date(Date.parse(at) + 60_000) });
    };
    // 20,000 rows at most 3,000 a part on average: 8 buckets (not the most, 16); at most 30,000: one
    const published = await write('2026-11-20T12:00:01Z', 3000);
    const eight = entryOf(published);
    expect(eight.partitions).toMatchObject({ buckets: 8 });
    expect(eight.partitions!.parts.map((p) => p.bucket)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const data = (await loadLatest(root, 'svc'))!.datasets.get('payments-by-buyer')!;
    for (const part of eight.partitions!.parts) {
      const keys = await rows(
        `SELECT DISTINCT buyer FROM read_parquet('${join(root, 'svc', published.version, 'payments-by-buyer', part.file)}')`,
      );
      for (const r of keys) expect(partsForKeys(data, [String(r.buyer)]).map((f) => f.split('/').at(-1))).toEqual([part.file]);
    }
    const one = entryOf(await write('2026-11-20T12:00:02Z', 30_000));
    expect(one.partitions).toMatchObject({ buckets: 1, parts: [{ bucket: 0, file: 'part-0000.parquet', rows: 20000 }] });
  });

  it('an empty table has one empty part that carries its schema', async () => {
    const manifest = await publishPartitioned(freshRoot(), '2026-11-20T12:00:01Z', {
      query: `${QUERY.replace('ORDER', 'WHERE n < 0 ORDER')}`,
    });
    const entry = entryOf(manifest);
    expect(entry.rows).toBe(0);
    expect(entry.partitions!.parts).toEqual([expect.objectContaining({ bucket: 0, file: 'part-0000.parquet', rows: 0 })]);
    expect(entry.schema.map((c) => c.name)).toEqual(['buyer', 'n', 'amount']);
  });

  it('a corrupted part fails verification: latest falls back, a served version is dropped at the next poll', async () => {
    const root = freshRoot();
    const first = await publishPartitioned(root, '2026-11-20T12:00:01Z');
    const second = await publishPartitioned(root, '2026-11-20T13:00:01Z', { query: QUERY.replace('ORDER', 'WHERE n <> 7 ORDER') });
    const reader = new SnapshotReader(root, 'svc');
    await reader.refresh();
    expect(reader.current()?.version).toBe(second.version);
    const part = entryOf(second).partitions!.parts[0]!;
    const path = join(root, 'svc', second.version, 'payments-by-buyer', part.file);
    const bytes = readFileSync(path);
    bytes[100] = bytes[100]! ^ 0xff;
    writeFileSync(path, bytes); // same size, other bytes
    expect(await reverifyVersion(reader.current()!)).toMatch(
      `payments-by-buyer/${part.file} (dataset payments-by-buyer) does not match its sha256`,
    );
    await reader.refresh();
    expect(reader.current()?.version).toBe(first.version);
    expect(reader.damagedVersions()[0]?.reason).toContain(part.file);
    const loaded = await loadLatest(root, 'svc');
    expect(loaded?.version).toBe(first.version);
    expect(loaded?.fallbackReason).toContain(`payments-by-buyer/${part.file} sha256`);
    // a part grown by a byte: the size check names it
    appendFileSync(join(root, 'svc', first.version, 'payments-by-buyer', part.file), 'x');
    await expect(loadLatest(root, 'svc')).rejects.toThrow(/no older version verifies/);
  });

  it('keep() and carryOver() link every part; the manifest entry is unchanged', async () => {
    const root = freshRoot();
    const first = await publishPartitioned(root, '2026-11-20T12:00:01Z', {
      also: (w) => w.writeTable(connection, 'by-buyer-too', QUERY, meta, { partitionBy: { key: 'buyer', buckets: 4 } }),
    });
    const writer = await SnapshotWriter.begin({ root, service: 'svc', codeVersion: 'test', generatedAt: new Date('2026-11-20T13:00:01Z') });
    const kept = await writer.keep('payments-by-buyer');
    const carried = await writer.carryOver('by-buyer-too', 'the step failed');
    const second = await writer.publish({ nextExpectedUpdate: new Date('2026-11-20T14:00:00Z') });
    expect(kept).toEqual(entryOf(first));
    expect(carried).toMatchObject({ ...entryOf(first, 'by-buyer-too'), carried_over: { reason: 'the step failed' } });
    for (const name of ['payments-by-buyer', 'by-buyer-too']) {
      for (const part of entryOf(first, name).partitions!.parts) {
        const a = statSync(join(root, 'svc', first.version, name, part.file));
        const b = statSync(join(root, 'svc', second.version, name, part.file));
        expect(b.ino).toBe(a.ino);
      }
    }
    expect((await loadLatest(root, 'svc'))?.version).toBe(second.version);
  });

  it('keepBuckets links the untouched buckets (same sha256 and inode) and writes only the touched ones', async () => {
    const root = freshRoot();
    const first = await publishPartitioned(root, '2026-11-20T12:00:01Z');
    // new payments of one buyer: only its bucket changes
    const buyer = String((await rows('SELECT buyer FROM payments WHERE n = 5'))[0]!.buyer);
    const touched = bucketOf(buyer, BUCKETS);
    await connection.run(
      `CREATE TABLE payments_later AS SELECT * FROM payments UNION ALL SELECT '${buyer}', 100000 + i, 1.0 FROM range(3) r(i)`,
    );
    const later = 'SELECT buyer, n, amount FROM payments_later ORDER BY buyer, n';
    const second = await publishPartitioned(root, '2026-11-20T13:00:01Z', { query: later, keepBuckets: (b) => b !== touched });
    const a = entryOf(first).partitions!.parts;
    const b = entryOf(second).partitions!.parts;
    expect(b.map((p) => p.bucket)).toEqual(a.map((p) => p.bucket));
    for (const [i, part] of b.entries()) {
      const before = statSync(join(root, 'svc', first.version, 'payments-by-buyer', a[i]!.file));
      const after = statSync(join(root, 'svc', second.version, 'payments-by-buyer', part.file));
      if (part.bucket === touched) {
        expect(part.rows).toBe(a[i]!.rows + 3);
        expect(part.sha256).not.toBe(a[i]!.sha256);
        expect(after.ino).not.toBe(before.ino);
      } else {
        expect(part).toEqual(a[i]);
        expect(after.ino).toBe(before.ino);
      }
    }
    expect(entryOf(second).rows).toBe(20003);
    // the same as writing every bucket again
    const full = entryOf(await publishPartitioned(freshRoot(), '2026-11-20T13:00:01Z', { query: later }));
    expect(full.partitions).toEqual(entryOf(second).partitions);
    expect(full.sha256).toBe(entryOf(second).sha256);
    const loaded = (await loadLatest(root, 'svc'))!;
    const file = partsForKeys(loaded.datasets.get('payments-by-buyer')!, [buyer])[0]!;
    expect((await rows(`SELECT count(*)::INTEGER AS c FROM read_parquet('${file}') WHERE buyer = '${buyer}'`))[0]!.c).toBe(53);
  });

  it('keepBuckets writes everything when the previous version is partitioned otherwise', async () => {
    const root = freshRoot();
    const writer = await SnapshotWriter.begin({ root, service: 'svc', codeVersion: 'test', generatedAt: new Date('2026-11-20T12:00:01Z') });
    await writer.writeTable(connection, 'payments-by-buyer', QUERY, meta, { partitionBy: { key: 'buyer', buckets: 8 } });
    await writer.publish({ nextExpectedUpdate: new Date('2026-11-20T13:00:00Z') });
    const second = await publishPartitioned(root, '2026-11-20T13:00:01Z', { keepBuckets: () => true });
    expect(entryOf(second).rows).toBe(20000);
    expect(entryOf(second).partitions!.buckets).toBe(BUCKETS);
  });

  it('the manifest format refuses parts that do not add up to the entry, and reads single-file entries as before', () => {
    const part = { bucket: 3, file: 'part-0003.parquet', rows: 10, bytes: 100, sha256: 'a'.repeat(64) };
    const base = {
      name: 'x',
      kind: 'table',
      format: 'parquet',
      schema: [],
      source: 'demo',
      as_of: '2026-11-20T12:00:00Z',
      license: 'proprietary',
      description: '',
      produced_in: '20261120T120000000Z-1a2b3c4d',
    };
    const manifest = (entry: Record<string, unknown>) => ({
      format_version: 1,
      service: 'svc',
      version: '20261120T120000000Z-1a2b3c4d',
      generated_at: '',
      code_version: '',
      license: { id: '', name: '', url: null, note: '' },
      next_expected_update: '',
      notice: null,
      datasets: [{ ...base, ...entry }],
    });
    const partitions = { key: 'buyer', scheme: 'md5-hex8-mod', buckets: 16, parts: [part] };
    const good = { file: 'x', rows: 10, bytes: 100, sha256: partsDigest([part]), partitions };
    expect(SnapshotManifest.safeParse(manifest(good)).success).toBe(true);
    expect(SnapshotManifest.safeParse(manifest({ file: 'x.parquet', rows: 1, bytes: 1, sha256: 'b'.repeat(64) })).success).toBe(true);
    for (const bad of [
      { ...good, rows: 11 },
      { ...good, sha256: 'c'.repeat(64) },
      { ...good, file: 'x.parquet' },
      { ...good, partitions: undefined },
      { ...good, partitions: { ...partitions, buckets: 2 } },
      { ...good, partitions: { ...partitions, parts: [{ ...part, file: 'part-0004.parquet' }] } },
      { ...good, partitions: { ...partitions, scheme: 'duckdb-hash' } },
    ]) {
      expect(SnapshotManifest.safeParse(manifest(bad)).success).toBe(false);
    }
  });
});

describe('append-only partitioned datasets: delta files', () => {
  const PARTITION = { key: 'buyer', buckets: BUCKETS, orderBy: 'buyer, n' };
  async function publishAppend(root: string, at: string, query: string) {
    const writer = await SnapshotWriter.begin({ root, service: 'svc', codeVersion: 'test', generatedAt: new Date(at), retention: 3 });
    const entry = await writer.appendTable(connection, 'payments-by-buyer', query, meta, { rowGroupSize: 1024, partitionBy: PARTITION });
    if (!entry) {
      writer.abort();
      return null;
    }
    return writer.publish({ nextExpectedUpdate: new Date(Date.parse(at) + 60_000) });
  }
  const whole = (where: string) => `SELECT buyer, n, amount FROM payments WHERE ${where} ORDER BY buyer, n`;

  it('links the parts, adds the new rows as one sorted delta file, and a key reads its part and the deltas', async () => {
    const root = freshRoot();
    const writer = await SnapshotWriter.begin({ root, service: 'svc', codeVersion: 'test', generatedAt: new Date('2026-11-20T12:00:01Z') });
    await writer.writeTable(connection, 'payments-by-buyer', whole('n < 18000'), meta, { rowGroupSize: 1024, partitionBy: PARTITION });
    const base = await writer.publish({ nextExpectedUpdate: new Date('2026-11-20T13:00:00Z') });
    const first = (await publishAppend(
      root,
      '2026-11-20T12:00:02Z',
      'SELECT buyer, n, amount FROM payments WHERE n >= 18000 AND n < 19000',
    ))!;
    const second = (await publishAppend(root, '2026-11-20T12:00:03Z', 'SELECT buyer, n, amount FROM payments WHERE n >= 19000'))!;
    // nothing new: no delta file, the same content
    const third = (await publishAppend(root, '2026-11-20T12:00:04Z', 'SELECT buyer, n, amount FROM payments WHERE false'))!;

    const p = entryOf(second).partitions!;
    expect(p.parts).toEqual(entryOf(base).partitions!.parts);
    expect(p.deltas!.map((d) => [d.file, d.rows])).toEqual([
      ['delta-000001.parquet', 1000],
      ['delta-000002.parquet', 1000],
    ]);
    expect(entryOf(first).partitions!.deltas).toHaveLength(1);
    expect(entryOf(second).rows).toBe(20000);
    expect(entryOf(second).sha256).toBe(partsDigest([...p.parts, ...p.deltas!]));
    expect(entryOf(third).sha256).toBe(entryOf(second).sha256);
    expect(entryOf(third).produced_in).toBe(third.version);

    // the parts are the base version's files (hard links), the deltas sorted by the order given
    const dir = join(root, 'svc', second.version, 'payments-by-buyer');
    const baseDir = join(root, 'svc', base.version, 'payments-by-buyer');
    expect(statSync(join(dir, p.parts[0]!.file)).ino).toBe(statSync(join(baseDir, p.parts[0]!.file)).ino);
    const delta = await rows(`SELECT buyer, n FROM read_parquet('${join(dir, 'delta-000002.parquet')}')`);
    expect(delta).toEqual(await rows('SELECT buyer, n FROM payments WHERE n >= 19000 ORDER BY buyer, n'));

    // the reader verifies the deltas too, and a key's files are its part and every delta
    const loaded = (await loadLatest(root, 'svc'))!;
    const data = loaded.datasets.get('payments-by-buyer')!;
    expect(data.files).toHaveLength(p.parts.length + 2);
    const buyer = String((await rows('SELECT buyer FROM payments WHERE n = 19123'))[0]!.buyer);
    const files = partsForKeys(data, [buyer]);
    expect(files.map((f) => f.split('/').at(-1))).toEqual([
      partFileName(bucketOf(buyer, BUCKETS)),
      'delta-000001.parquet',
      'delta-000002.parquet',
    ]);
    expect(await rows(`SELECT n FROM ${parquetSql(data, [buyer])} WHERE buyer = '${buyer}' ORDER BY n`)).toEqual(
      await rows(`SELECT n FROM payments WHERE buyer = '${buyer}' ORDER BY n`),
    );
    expect(partsForKeys(data, [])).toEqual([]);
    // all rows, as a table written whole holds them
    expect(await rows(`SELECT buyer, n, amount FROM ${parquetSql(data)} ORDER BY buyer, n`)).toEqual(await rows(whole('true')));

    // a changed delta file is caught like a changed part
    appendFileSync(join(dir, 'delta-000001.parquet'), 'x');
    expect(await reverifyVersion(loaded)).toMatch(/payments-by-buyer\/delta-000001\.parquet \(dataset payments-by-buyer\) is \d+ bytes/);
  });

  it('folds the earlier deltas and the new rows into one delta file when asked', async () => {
    const root = freshRoot();
    const writer = await SnapshotWriter.begin({ root, service: 'svc', codeVersion: 'test', generatedAt: new Date('2026-11-20T12:00:01Z') });
    await writer.writeTable(connection, 'payments-by-buyer', whole('n < 18000'), meta, { rowGroupSize: 1024, partitionBy: PARTITION });
    await writer.publish({ nextExpectedUpdate: new Date('2026-11-20T13:00:00Z') });
    await publishAppend(root, '2026-11-20T12:00:02Z', 'SELECT buyer, n, amount FROM payments WHERE n >= 18000 AND n < 19000');
    const w = await SnapshotWriter.begin({ root, service: 'svc', codeVersion: 'test', generatedAt: new Date('2026-11-20T12:00:03Z') });
    const entry = (await w.appendTable(connection, 'payments-by-buyer', 'SELECT buyer, n, amount FROM payments WHERE n >= 19000', meta, {
      rowGroupSize: 1024,
      partitionBy: PARTITION,
      mergeDeltas: true,
    }))!;
    await w.publish({ nextExpectedUpdate: new Date('2026-11-20T13:00:00Z') });
    expect(entry.partitions!.deltas!.map((d) => [d.file, d.rows])).toEqual([['delta-000002.parquet', 2000]]);
    expect(entry.rows).toBe(20000);
    const data = (await loadLatest(root, 'svc'))!.datasets.get('payments-by-buyer')!;
    // sorted as the parts are, and every row once
    const delta = data.files.at(-1)!;
    expect(await rows(`SELECT buyer, n FROM read_parquet('${delta}')`)).toEqual(
      await rows('SELECT buyer, n FROM payments WHERE n >= 18000 ORDER BY buyer, n'),
    );
    expect(await rows(`SELECT buyer, n, amount FROM ${parquetSql(data)} ORDER BY buyer, n`)).toEqual(await rows(whole('true')));
  });

  it('declines to append, writing nothing, to a version without the dataset, with other buckets, or other columns', async () => {
    const root = freshRoot();
    expect(await publishAppend(root, '2026-11-20T12:00:01Z', whole('true'))).toBeNull();
    const writer = await SnapshotWriter.begin({ root, service: 'svc', codeVersion: 'test', generatedAt: new Date('2026-11-20T12:00:02Z') });
    await writer.writeTable(connection, 'payments-by-buyer', whole('n < 100'), meta, {
      rowGroupSize: 1024,
      partitionBy: { ...PARTITION, buckets: BUCKETS * 2 },
    });
    await writer.publish({ nextExpectedUpdate: new Date('2026-11-20T13:00:00Z') });
    expect(await publishAppend(root, '2026-11-20T12:00:03Z', whole('n >= 100'))).toBeNull();
    const other = await SnapshotWriter.begin({ root, service: 'svc', codeVersion: 'test', generatedAt: new Date('2026-11-20T12:00:04Z') });
    await other.writeTable(connection, 'payments-by-buyer', whole('n < 100'), meta, { rowGroupSize: 1024, partitionBy: PARTITION });
    await other.publish({ nextExpectedUpdate: new Date('2026-11-20T13:00:00Z') });
    expect(await publishAppend(root, '2026-11-20T12:00:05Z', 'SELECT buyer, n FROM payments WHERE n >= 100')).toBeNull();
    // a version whose parts a run extended is not a base for kept buckets: their rows are in the deltas too
    expect(await publishAppend(root, '2026-11-20T12:00:06Z', whole('n >= 100'))).not.toBeNull();
    const kept = await publishPartitioned(root, '2026-11-20T12:00:07Z', { keepBuckets: () => true, query: whole('true') });
    expect(entryOf(kept).rows).toBe(20000);
  });

  it('with rowsPerBucket, appends while the rows keep their bucket count; past it the table is written whole, as from scratch', async () => {
    const root = freshRoot();
    // 18,000 and 19,000 rows at most 4,750 a part: 4 buckets; 20,000: 8
    const BY = { key: 'buyer', buckets: BUCKETS, rowsPerBucket: 4750, orderBy: 'buyer, n' };
    const write = async (at: string, where: string) => {
      const writer = await SnapshotWriter.begin({ root, service: 'svc', codeVersion: 'test', generatedAt: new Date(at), retention: 3 });
      await writer.writeTable(connection, 'payments-by-buyer', whole(where), meta, { rowGroupSize: 1024, partitionBy: BY });
      return writer.publish({ nextExpectedUpdate: new Date(Date.parse(at) + 60_000) });
    };
    const append = async (at: string, where: string) => {
      const writer = await SnapshotWriter.begin({ root, service: 'svc', codeVersion: 'test', generatedAt: new Date(at), retention: 3 });
      const entry = await writer.appendTable(connection, 'payments-by-buyer', whole(where), meta, { rowGroupSize: 1024, partitionBy: BY });
      if (!entry) {
        writer.abort();
        return null;
      }
      return writer.publish({ nextExpectedUpdate: new Date(Date.parse(at) + 60_000) });
    };
    expect(entryOf(await write('2026-11-20T12:00:01Z', 'n < 18000')).partitions!.buckets).toBe(4);
    const appended = (await append('2026-11-20T12:00:02Z', 'n >= 18000 AND n < 19000'))!;
    expect(entryOf(appended).partitions).toMatchObject({ buckets: 4, deltas: [{ rows: 1000 }] });
    expect(await append('2026-11-20T12:00:03Z', 'n >= 19000')).toBeNull();
    const regrown = entryOf(await write('2026-11-20T12:00:04Z', 'true'));
    expect(regrown.partitions!.buckets).toBe(8);
    expect(regrown.sha256).toBe(entryOf(await write('2026-11-20T12:00:05Z', 'true')).sha256);
    const scratch = freshRoot();
    const fresh = await SnapshotWriter.begin({
      root: scratch,
      service: 'svc',
      codeVersion: 'test',
      generatedAt: new Date('2026-11-20T12:00:06Z'),
    });
    await fresh.writeTable(connection, 'payments-by-buyer', whole('true'), meta, { rowGroupSize: 1024, partitionBy: BY });
    expect(entryOf(await fresh.publish({ nextExpectedUpdate: new Date('2026-11-20T13:00:00Z') })).sha256).toBe(regrown.sha256);
  });

  it('the manifest refuses delta files out of order, misnamed, or not summed into the entry', () => {
    const part = { bucket: 0, file: 'part-0000.parquet', rows: 10, bytes: 100, sha256: 'a'.repeat(64) };
    const delta = (n: number) => ({ file: `delta-00000${n}.parquet`, rows: 1, bytes: 10, sha256: 'b'.repeat(64) });
    const entry = (deltas: unknown[], rows = 12, bytes = 120) => ({
      name: 'payments-by-buyer',
      kind: 'table',
      file: 'payments-by-buyer',
      format: 'parquet',
      rows,
      bytes,
      sha256: partsDigest([part, ...(deltas as { file: string; sha256: string }[])]),
      schema: [{ name: 'buyer', type: 'VARCHAR' }],
      source: 'demo',
      as_of: '2026-11-20T12:00:00.000Z',
      license: 'proprietary',
      description: 'd',
      produced_in: '20261120T120000000Z-abcdef12',
      partitions: { key: 'buyer', scheme: 'md5-hex8-mod', buckets: 16, parts: [part], deltas },
    });
    const problems = (e: unknown) => {
      const r = DatasetEntry.safeParse(e);
      return r.success ? [] : r.error.issues.map((i) => i.message);
    };
    expect(problems(entry([delta(1), delta(2)]))).toEqual([]);
    expect(problems(entry([delta(2), delta(1)]))).toEqual(['delta files must be listed oldest first, each once']);
    expect(problems(entry([{ ...delta(1), file: 'delta-1.parquet' }], 11, 110))).toEqual([
      'expected a delta file name like delta-000003.parquet',
    ]);
    expect(problems(entry([delta(1)]))).toEqual(['the parts and deltas hold 11 rows in 110 bytes, the entry says 12 rows in 120 bytes']);
  });
});

describe('keyed partitioned datasets: delta files whose newest row of a key wins', () => {
  // one row per buyer (400 buyers); later runs replace some buyers' rows and add new buyers
  const PARTITION = { key: 'buyer', buckets: BUCKETS, orderBy: 'buyer', deltaRule: 'newest-wins' as const };
  const version = (v: number, where: string) => `SELECT DISTINCT buyer, ${v} AS v, hash(buyer) % 97 AS score FROM payments WHERE ${where}`;
  async function publishKeyed(root: string, at: string, query: string, expectRows?: number) {
    const writer = await SnapshotWriter.begin({ root, service: 'svc', codeVersion: 'test', generatedAt: new Date(at), retention: 3 });
    const entry = await writer.appendTable(connection, 'buyers', query, meta, {
      rowGroupSize: 1024,
      partitionBy: PARTITION,
      ...(expectRows === undefined ? {} : { expectRows }),
    });
    if (!entry) {
      writer.abort();
      return null;
    }
    return writer.publish({ nextExpectedUpdate: new Date(Date.parse(at) + 60_000) });
  }
  // buyers 0..299 at first (v 1); then buyers 250..349 change or arrive (v 2); then 0..9 and 390..399 (v 3)
  const first = version(1, 'n % 400 < 300');
  const second = version(2, 'n % 400 BETWEEN 250 AND 349');
  const third = version(3, 'n % 400 < 10 OR n % 400 >= 390');
  const merged = `SELECT buyer, max_by(v, v) AS v, max_by(score, v) AS score
                    FROM (${first} UNION ALL ${second} UNION ALL ${third}) GROUP BY buyer`;

  it('a key reads its newest row: from the newest delta holding it, else its part; the entry counts the merged rows', async () => {
    const root = freshRoot();
    const writer = await SnapshotWriter.begin({ root, service: 'svc', codeVersion: 'test', generatedAt: new Date('2026-11-20T12:00:01Z') });
    await writer.writeTable(connection, 'buyers', first, meta, { rowGroupSize: 1024, partitionBy: PARTITION });
    const base = await writer.publish({ nextExpectedUpdate: new Date('2026-11-20T13:00:00Z') });
    expect(entryOf(base, 'buyers').partitions!.delta_rule).toBe('newest-wins');
    expect(entryOf(base, 'buyers').rows).toBe(300);
    await publishKeyed(root, '2026-11-20T12:00:02Z', second, 350);
    const last = (await publishKeyed(root, '2026-11-20T12:00:03Z', third, 360))!;
    const entry = entryOf(last, 'buyers');
    expect(entry.partitions!.parts).toEqual(entryOf(base, 'buyers').partitions!.parts);
    expect(entry.partitions!.deltas!.map((d) => [d.file, d.rows])).toEqual([
      ['delta-000001.parquet', 100],
      ['delta-000002.parquet', 20],
    ]);
    // 300 + 50 new in the first delta + 10 new in the second; the rows the deltas replaced are not counted twice
    expect(entry.rows).toBe(360);

    const data = (await loadLatest(root, 'svc'))!.datasets.get('buyers')!;
    // the whole table, merged as a download holds it
    expect(await rows(`SELECT buyer, v, score FROM ${parquetSql(data)} ORDER BY buyer`)).toEqual(
      await rows(`SELECT buyer, v, score FROM (${merged}) ORDER BY buyer`),
    );
    // point reads: a buyer of the part only, one replaced once, one replaced in the newest delta, one new in a delta
    const buyerOf = async (i: number) => String((await rows(`SELECT buyer FROM payments WHERE n = ${i}`))[0]!.buyer);
    for (const [i, v] of [
      [100, 1],
      [260, 2],
      [5, 3],
      [320, 2],
      [395, 3],
    ] as const) {
      const buyer = await buyerOf(i);
      expect({ i, rows: await rows(`SELECT v FROM ${parquetSql(data, [buyer])} WHERE buyer = '${buyer}'`) }).toEqual({ i, rows: [{ v }] });
    }
    // a key no file holds reads nothing
    expect(await rows(`SELECT v FROM ${parquetSql(data, ['0xnobody'])} WHERE buyer = '0xnobody'`)).toEqual([]);
  });

  it('folds the earlier deltas and the new rows into one delta file, each key once, the newest row winning', async () => {
    const root = freshRoot();
    const writer = await SnapshotWriter.begin({ root, service: 'svc', codeVersion: 'test', generatedAt: new Date('2026-11-20T12:00:01Z') });
    await writer.writeTable(connection, 'buyers', first, meta, { rowGroupSize: 1024, partitionBy: PARTITION });
    await writer.publish({ nextExpectedUpdate: new Date('2026-11-20T13:00:00Z') });
    await publishKeyed(root, '2026-11-20T12:00:02Z', second, 350);
    const w = await SnapshotWriter.begin({ root, service: 'svc', codeVersion: 'test', generatedAt: new Date('2026-11-20T12:00:03Z') });
    const entry = (await w.appendTable(connection, 'buyers', third, meta, {
      rowGroupSize: 1024,
      partitionBy: PARTITION,
      expectRows: 360,
      mergeDeltas: true,
    }))!;
    const folded = await w.publish({ nextExpectedUpdate: new Date('2026-11-20T13:00:00Z') });
    // one delta (numbered after the earlier ones): buyers 250..349 and 0..9, 390..399, each once
    expect(entry.partitions!.deltas!.map((d) => [d.file, d.rows])).toEqual([['delta-000002.parquet', 120]]);
    expect(entry.rows).toBe(360);
    const data = (await loadLatest(root, 'svc'))!.datasets.get('buyers')!;
    expect(data.files).toHaveLength(entry.partitions!.parts.length + 1);
    expect(await rows(`SELECT buyer, v, score FROM ${parquetSql(data)} ORDER BY buyer`)).toEqual(
      await rows(`SELECT buyer, v, score FROM (${merged}) ORDER BY buyer`),
    );
    expect(folded.version).toBe(data.entry.produced_in);
  });

  it('declines, writing nothing, when the merged rows would not be the count expected, or the live version combines deltas otherwise', async () => {
    const root = freshRoot();
    const writer = await SnapshotWriter.begin({ root, service: 'svc', codeVersion: 'test', generatedAt: new Date('2026-11-20T12:00:01Z') });
    await writer.writeTable(connection, 'buyers', first, meta, { rowGroupSize: 1024, partitionBy: PARTITION });
    await writer.publish({ nextExpectedUpdate: new Date('2026-11-20T13:00:00Z') });
    // the whole table would hold 349 rows (a key vanished): a delta cannot delete it
    expect(await publishKeyed(root, '2026-11-20T12:00:02Z', second, 349)).toBeNull();
    expect(readdirSync(join(root, 'svc')).filter((f) => !f.startsWith('.') && f !== 'latest.json')).toHaveLength(1);
    // a delta with a key twice is a caller's bug
    await expect(publishKeyed(root, '2026-11-20T12:00:03Z', `${second} UNION ALL ${second}`)).rejects.toThrow(/one row per buyer/);
    // an append-only version of the same table: its deltas add rows, they cannot replace them
    const other = await SnapshotWriter.begin({ root, service: 'svc', codeVersion: 'test', generatedAt: new Date('2026-11-20T12:00:04Z') });
    await other.writeTable(connection, 'buyers', first, meta, { rowGroupSize: 1024, partitionBy: { ...PARTITION, deltaRule: 'append' } });
    await other.publish({ nextExpectedUpdate: new Date('2026-11-20T13:00:00Z') });
    expect(await publishKeyed(root, '2026-11-20T12:00:05Z', second, 350)).toBeNull();
  });

  it('the manifest takes merged row counts for newest-wins tables within what the parts and deltas can hold', () => {
    const part = { bucket: 0, file: 'part-0000.parquet', rows: 10, bytes: 100, sha256: 'a'.repeat(64) };
    const delta = { file: 'delta-000001.parquet', rows: 4, bytes: 10, sha256: 'b'.repeat(64) };
    const entry = (rows: number, rule?: string) => ({
      name: 'buyers',
      kind: 'table',
      file: 'buyers',
      format: 'parquet',
      rows,
      bytes: 110,
      sha256: partsDigest([part, delta]),
      schema: [{ name: 'buyer', type: 'VARCHAR' }],
      source: 'demo',
      as_of: '2026-11-20T12:00:00.000Z',
      license: 'proprietary',
      description: 'd',
      produced_in: '20261120T120000000Z-abcdef12',
      partitions: {
        key: 'buyer',
        scheme: 'md5-hex8-mod',
        buckets: 16,
        ...(rule ? { delta_rule: rule } : {}),
        parts: [part],
        deltas: [delta],
      },
    });
    const problems = (e: unknown) => {
      const r = DatasetEntry.safeParse(e);
      return r.success ? [] : r.error.issues.map((i) => i.message);
    };
    for (const rows of [10, 12, 14]) expect(problems(entry(rows, 'newest-wins'))).toEqual([]);
    expect(problems(entry(15, 'newest-wins'))).toEqual(['the entry says 15 rows; its parts hold 10 keys and its deltas at most 4 more']);
    expect(problems(entry(9, 'newest-wins'))).toEqual(['the entry says 9 rows; its parts hold 10 keys and its deltas at most 4 more']);
    // without the rule the deltas add rows: the entry must count them all
    expect(problems(entry(14))).toEqual([]);
    expect(problems(entry(12))).toEqual(['the parts and deltas hold 14 rows in 110 bytes, the entry says 12 rows in 110 bytes']);
    expect(problems(entry(14, 'replace'))[0]).toMatch(/append|newest-wins/);
  });
});
