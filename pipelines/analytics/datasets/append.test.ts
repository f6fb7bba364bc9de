/**
 * When a run may extend an append-only table with a delta file, and when it writes the table
 * whole (append.ts): the decision over the warehouse's coverage records, as the step writes them.
 * The end-to-end runs (a delta appended, the same rows and answers as a table written whole,
 * --rebuild) are in pipelines/analytics/incremental.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../lib/duckdb.ts';
import type { DatasetEntry, SnapshotManifest } from '../../../snapshots/manifest.ts';
import { MAX_DELTA_SHARE, MAX_DELTAS, planAppend, recordCoverage } from './append.ts';

let db: Database;
beforeAll(async () => {
  db = await openDatabase(':memory:');
});
afterAll(() => db.close());

const NAME = 'wash-payments-by-buyer';
const AT = new Date('2026-11-20T09:00:00Z');
const HOUR_LATER = new Date('2026-11-20T10:00:00Z');
const segments = [
  { batch: 1, segment: 'transactions-000001-aaaa.parquet' },
  { batch: 2, segment: 'transactions-000002-bbbb.parquet' },
];

interface Live {
  previousManifest: SnapshotManifest | null;
}

function live(sha256: string, partRows: number, deltas: number[] = [], extra: Partial<DatasetEntry> = {}): Live {
  const entry = {
    name: NAME,
    sha256,
    partitions: {
      key: 'buyer',
      scheme: 'md5-hex8-mod',
      buckets: 256,
      parts: [{ bucket: 0, file: 'part-0000.parquet', rows: partRows, bytes: 1, sha256 }],
      ...(deltas.length
        ? { deltas: deltas.map((rows, i) => ({ file: `delta-${String(i + 1).padStart(6, '0')}.parquet`, rows, bytes: 1, sha256 })) }
        : {}),
    },
    ...extra,
  } as unknown as DatasetEntry;
  return { previousManifest: { datasets: [entry] } as unknown as SnapshotManifest };
}

const record = (sha256: string, now = AT, recipe = 'r1', dir = '/in', segs = segments) =>
  recordCoverage(db.connection, { dataset: NAME, sha256, previous: null, recipe, dir, segments: segs, now });

const plan = (
  writer: ReturnType<typeof live>,
  options: { now?: Date; rebuild?: boolean; recipe?: string; dir?: string; segs?: typeof segments } = {},
) =>
  planAppend(
    { connection: db.connection, now: options.now ?? HOUR_LATER, rebuild: options.rebuild, writer },
    NAME,
    options.recipe ?? 'r1',
    options.dir ?? '/in',
    options.segs ?? [...segments, { batch: 3, segment: 'transactions-000003-cccc.parquet' }],
  );

describe('append-only tables: extend the live version, or write whole and say why', () => {
  it('extends the version it has a record of, from the batches and the time that record covers', async () => {
    await record('a'.repeat(64));
    expect(await plan(live('a'.repeat(64), 1000))).toEqual({ fold: false, batch: 2, asOf: "TIMESTAMP '2026-11-20 09:00:00.000000'" });
    // the same time again (no new hour) is fine too
    expect(await plan(live('a'.repeat(64), 1000), { now: AT })).toMatchObject({ batch: 2 });
  });

  it('writes whole without a record, on --rebuild, another query, directory or files, or an earlier now', async () => {
    await record('b'.repeat(64));
    const writer = live('b'.repeat(64), 1000);
    expect(await plan(live('c'.repeat(64), 1000))).toEqual({ why: 'this warehouse has no record of what the live version holds' });
    expect(await plan({ previousManifest: null })).toEqual({ why: 'no live version' });
    expect(await plan(live('b'.repeat(64), 1000, [], { carried_over: { reason: 'x', failed_at: 'y' } }))).toEqual({
      why: 'the live version was carried over',
    });
    expect(await plan(writer, { rebuild: true })).toEqual({ why: '--rebuild' });
    expect(await plan(writer, { recipe: 'r2' })).toEqual({ why: "the table's query changed since the live version" });
    expect(await plan(writer, { dir: '/elsewhere' })).toEqual({ why: 'the payments come from another directory than the live version' });
    // the warehouse's files up to the covered batch are not the ones recorded (a new history)
    const other = [{ batch: 1, segment: 'transactions-000001-ffff.parquet' }, ...segments.slice(1)];
    expect(await plan(writer, { segs: other })).toEqual({ why: 'the imported files are not those the live version covered' });
    expect(await plan(writer, { now: new Date('2026-11-20T08:59:59Z') })).toEqual({ why: "--now is before the live version's" });
  });

  it('folds the deltas past the most delta files, and compacts past the largest share of rows in deltas', async () => {
    await record('d'.repeat(64));
    const sha = 'd'.repeat(64);
    expect(await plan(live(sha, 1000, Array(MAX_DELTAS - 1).fill(1)))).toMatchObject({ batch: 2, fold: false });
    expect(await plan(live(sha, 1000, Array(MAX_DELTAS).fill(1)))).toMatchObject({ batch: 2, fold: true });
    expect(await plan(live(sha, 1000, [MAX_DELTA_SHARE * 1000]))).toMatchObject({ batch: 2 });
    expect(await plan(live(sha, 1000, [60, 41]))).toEqual({
      why: `compacting: the delta files hold 101 rows, over ${MAX_DELTA_SHARE * 100} % of the parts' 1000`,
    });
  });

  it("keeps the live version's record and the new one, and drops older ones", async () => {
    const [v1, v2, v3] = ['1', '2', '3'].map((c) => c.repeat(64)) as [string, string, string];
    await record(v1);
    await recordCoverage(db.connection, { dataset: NAME, sha256: v2, previous: v1, recipe: 'r1', dir: '/in', segments, now: AT });
    // a run whose publish failed: v3 recorded, v2 still live
    await recordCoverage(db.connection, { dataset: NAME, sha256: v3, previous: v2, recipe: 'r1', dir: '/in', segments, now: AT });
    expect(await plan(live(v1, 1000))).toEqual({ why: 'this warehouse has no record of what the live version holds' });
    expect(await plan(live(v2, 1000))).toMatchObject({ batch: 2 });
    expect(await plan(live(v3, 1000))).toMatchObject({ batch: 2 });
  });
});
