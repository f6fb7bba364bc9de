/**
 * The premium archive across runs, through `npm run pipeline -- korea` (runCli) on a copy of the
 * shared demo: each run appends its minute to the published minutes, the hour and the day are
 * rolled up from what the warehouse holds, a lost snapshot directory and `--rebuild` lose nothing,
 * and minutes older than 7 days leave the warehouse. Several runs are the point: what is kept
 * between them is the feature.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Settings } from '../../lib/config.ts';
import { openDatabase, queryJson } from '../../lib/duckdb.ts';
import { loadLatest, type LoadedSnapshot } from '../../snapshots/reader.ts';
import { parseArgs, runCli } from '../cli.ts';
import { LineProgress } from '../progress.ts';
import { DEMO_NOW } from '../testing/demo-snapshots.ts';
import { copyOfSharedDemo } from '../testing/shared-demo.ts';
import { findEndpoint } from '../../catalog/index.ts';
import { closeSnapshotDuck } from '../../proxy/data/duck.ts';
import { koreaHandlers } from '../../proxy/data/korea.ts';

const MINUTE = 60_000;
const at = (ms: number) => new Date(Date.parse(DEMO_NOW) + ms).toISOString();

describe('the kimchi premium archive across korea runs', () => {
  let root = '';
  let settings: Settings;

  const run = async (now: string, ...extra: string[]) => {
    const { exitCode } = await runCli(parseArgs(['korea', '--now', now, ...extra]), settings, {
      progress: new LineProgress(() => {}),
      out: () => {},
    });
    expect(exitCode).toBe(0);
    return (await loadLatest(settings.snapshotsDir, 'korea'))!;
  };
  /** Rows of a published archive dataset, as sorted text lines (to compare sets of rows). */
  const published = async (snap: LoadedSnapshot, interval: string): Promise<string[]> => {
    const db = await openDatabase(':memory:', { threads: '1' });
    try {
      const files = snap.datasets.get(`kimchi-premium-${interval}`)!.files.map((f) => `'${f}'`);
      const rows = await queryJson(
        db.connection,
        `SELECT concat_ws('|', symbol, exchange, strftime(t, '%Y-%m-%dT%H:%M'), premium_pct, samples) AS line FROM read_parquet([${files.join(', ')}]) ORDER BY line`,
      );
      return rows.map((r) => String(r.line));
    } finally {
      db.close();
    }
  };
  /** The warehouse's rows of an interval, the same way (publishedOnly: hours and days once closed). */
  const kept = async (interval: string, where = 'true'): Promise<string[]> => {
    const db = await openDatabase(join(settings.warehouseDir, 'korea.duckdb'), { access_mode: 'READ_ONLY', threads: '1' });
    try {
      const rows = await queryJson(
        db.connection,
        `SELECT concat_ws('|', symbol, exchange, strftime(t, '%Y-%m-%dT%H:%M'), premium_pct, samples) AS line FROM premium_${interval} WHERE ${where} ORDER BY line`,
      );
      return rows.map((r) => String(r.line));
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    ({ root, settings } = await copyOfSharedDemo('korea-archive-', { services: ['korea'] }));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('appends each run to what the warehouse keeps, and the snapshots show exactly that', async () => {
    const first = (await loadLatest(settings.snapshotsDir, 'korea'))!;
    const before = await published(first, '1m');
    const snap = await run(at(MINUTE));
    const after = await published(snap, '1m');
    const minute = at(MINUTE).slice(0, 16);
    const added = after.filter((l) => !before.includes(l));
    expect(added.length).toBeGreaterThan(100);
    expect(added.every((l) => l.split('|')[2] === minute)).toBe(true);
    // appended as a delta file, not rewritten
    expect(snap.datasets.get('kimchi-premium-1m')!.entry.partitions!.deltas).toHaveLength(1);
    expect(after).toEqual(await kept('1m'));
    // the hour rolled up from its minutes: mean and count
    const db = await openDatabase(join(settings.warehouseDir, 'korea.duckdb'), { access_mode: 'READ_ONLY', threads: '1' });
    try {
      const [check] = await queryJson(
        db.connection,
        `SELECT count(*)::INTEGER AS hours,
                count(*) FILTER (WHERE abs(h.premium_pct - m.mean) > 0.0001 OR h.samples <> m.n)::INTEGER AS wrong
           FROM premium_1h h JOIN (SELECT date_trunc('hour', t) AS t, exchange, symbol, avg(premium_pct) AS mean, count(*)::INTEGER AS n
                                     FROM premium_1m GROUP BY ALL) m USING (t, exchange, symbol)
          WHERE h.t = TIMESTAMP '${DEMO_NOW.slice(0, 13).replace('T', ' ')}:00:00'`,
      );
      expect(Number(check?.hours)).toBeGreaterThan(100);
      expect(check?.wrong).toBe(0);
    } finally {
      db.close();
    }
    // closed hours only are published
    expect((await published(snap, '1h')).every((l) => l.split('|')[2]! < DEMO_NOW.slice(0, 13))).toBe(true);
    // the history endpoint's handler reads the parts and the delta in time order, the new minute last
    const endpoint = findEndpoint('korea', 'kimchi-premium-history')!;
    const res = await koreaHandlers['kimchi-premium-history']!.handle({
      endpoint,
      query: { symbol: 'BTC', interval: '1m', from: at(-3 * 60 * MINUTE), to: at(5 * MINUTE), limit: 2000 },
      params: {},
      body: undefined,
      snapshot: snap,
      now: new Date(at(5 * MINUTE)),
    });
    expect(res.status).toBe(200);
    const points = (res.body as { points: Array<{ t: string; exchange: string }> }).points;
    const keys = points.map((p) => `${p.t}|${p.exchange}`);
    expect(keys).toEqual([...keys].sort());
    expect(points.at(-1)!.t).toBe(`${minute}:00Z`);
    await closeSnapshotDuck();
  }, 120_000);

  it('loses nothing with the snapshot directory gone, nor with --rebuild', async () => {
    const kept1m = await kept('1m');
    rmSync(join(settings.snapshotsDir, 'korea'), { recursive: true, force: true });
    const snap = await run(at(2 * MINUTE));
    const after = await published(snap, '1m');
    expect(after.length).toBeGreaterThan(kept1m.length);
    for (const l of kept1m) expect(after).toContain(l);
    expect(await published(snap, '1d')).toEqual(await kept('1d', `t < TIMESTAMP '${DEMO_NOW.slice(0, 10)}'`));
    const rebuilt = await run(at(3 * MINUTE), '--rebuild');
    expect(rebuilt.datasets.get('kimchi-premium-1m')!.entry.partitions!.deltas ?? []).toHaveLength(0);
    expect(await published(rebuilt, '1m')).toEqual(await kept('1m'));
  }, 120_000);

  it('keeps minutes 7 days, and the hours and days they made', async () => {
    const hoursBefore = await kept('1h', `t = TIMESTAMP '${DEMO_NOW.slice(0, 13).replace('T', ' ')}:00:00'`);
    const snap = await run(at(8 * 24 * 60 * MINUTE));
    const minutes = await kept('1m');
    expect(minutes.length).toBeGreaterThan(100);
    // only the new run's minute is left: every earlier one is older than 7 days
    expect(new Set(minutes.map((l) => l.split('|')[2])).size).toBe(1);
    expect(await kept('1h', `t = TIMESTAMP '${DEMO_NOW.slice(0, 13).replace('T', ' ')}:00:00'`)).toEqual(hoursBefore);
    // and none is served: the minutes published are the warehouse's (written whole or filtered by the reader)
    const served = await published(snap, '1m');
    for (const l of minutes) expect(served).toContain(l);
  }, 120_000);
});
