import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings, type Settings } from '../../lib/config.ts';
import { openDatabase, queryJson, sqlString } from '../../lib/duckdb.ts';
import { datasetFiles, type SnapshotManifest } from '../../snapshots/manifest.ts';
import { loadLatest } from '../../snapshots/reader.ts';
import {
  KOREA_FIXTURE_NOW,
  koreaFixture,
  startKoreaUpstreams,
  type KoreaUpstreamWorld,
} from '../../sources/live/testing/korea-upstreams.ts';
import { parseArgs, runCli } from '../cli.ts';
import { LineProgress } from '../progress.ts';
import { runPipeline, type PipelineContext } from '../runner.ts';
import { openWarehouse } from '../warehouse.ts';
import { archiveRepairStep, refusedMinutes } from './archive-repair.ts';
import { KOREA_DATASET_STEPS } from './datasets/index.ts';
import { koreaPipeline } from './index.ts';
import { guardedByPlausibility } from './plausibility.ts';

const MINUTE = 60_000;

/** The datasets that no feeds list named before each step declared what it reads. */
const UNGUARDED_BEFORE = ['kimchi-premium-1m', 'kimchi-premium-1h', 'kimchi-premium-1d', 'kimchi-premium-daily', 'order-books'];

/** The korea pipeline as it was wired before the fix: those datasets ran whatever was refused, and there was no repair. */
const beforeTheFix = {
  ...koreaPipeline,
  prepareSteps: koreaPipeline.prepareSteps.filter((s) => s !== archiveRepairStep),
  datasetSteps: KOREA_DATASET_STEPS.map((s) => (UNGUARDED_BEFORE.includes(s.dataset) ? s : guardedByPlausibility(s))),
};

async function warehouseRows(settings: Settings, sql: string): Promise<Array<Record<string, unknown>>> {
  const db = await openDatabase(join(settings.warehouseDir, 'korea.duckdb'), { access_mode: 'READ_ONLY' });
  try {
    return await queryJson(db.connection, sql);
  } finally {
    db.close();
  }
}

describe('the one-off archive repair, on a warehouse written before the fix', () => {
  let world: KoreaUpstreamWorld;
  let root: string;
  let settings: Settings;
  const quiet = new LineProgress(() => {});
  let before: Array<Record<string, unknown>>;
  let repair: { exitCode: number; out: string; progress: string[] };

  beforeAll(async () => {
    world = await startKoreaUpstreams();
    root = mkdtempSync(join(tmpdir(), 'korea-archive-repair-'));
    settings = loadSettings({
      ...world.env,
      SITE_BUILD: 'off',
      SNAPSHOTS_DIR: join(root, 'snapshots'),
      WAREHOUSE_DIR: join(root, 'warehouse'),
    });
    const live = (now: Date) => ({ source: { kind: 'live' as const }, now, seed: 0, scale: 1 });

    // before the fix: a normal run, then one whose FX is 1 KRW/USD and whose Upbit BTC is 1,000 times
    // too high, its Upbit prices stamped two minutes later (so its minute is one of its own)
    expect((await runPipeline(beforeTheFix, live(KOREA_FIXTURE_NOW), settings, quiet)).ok).toBe(true);
    const [dunamu] = koreaFixture<Array<Record<string, unknown>>>('dunamu-forex-recent-krwusd.json');
    world.fault('fx', '/v1/forex/recent', { json: [{ ...dunamu, basePrice: 1 }] });
    const tickers = koreaFixture<Array<Record<string, number | string>>>('upbit-ticker-all-krw.json');
    world.fault('upbit', '/v1/ticker/all', {
      json: tickers.map((t) => ({
        ...t,
        timestamp: Number(t.timestamp) + 2 * MINUTE,
        trade_timestamp: Number(t.trade_timestamp) + 2 * MINUTE,
        ...(t.market === 'KRW-BTC' ? { trade_price: Number(t.trade_price) * 1000 } : {}),
      })),
      headers: { 'remaining-req': 'group=ticker; min=1800; sec=9' },
    });
    const refused = await runPipeline(beforeTheFix, live(new Date(KOREA_FIXTURE_NOW.getTime() + 2 * MINUTE)), settings, quiet);
    expect(refused.reports.find((r) => r.name === 'kimchi-premium')?.detail).toMatch(/implausible input: FX 1\.0 KRW\/USD/);
    expect(refused.reports.find((r) => r.name === 'kimchi-premium-1m')?.status).toBe('ok');
    before = await warehouseRows(
      settings,
      `SELECT strftime(t, '%H:%M') AS t, count(*)::INTEGER AS n, max(premium_pct) AS top FROM premium_1m GROUP BY ALL ORDER BY 1`,
    );

    // this version, through the CLI, upstreams healed
    world.heal();
    const out: string[] = [];
    const progress: string[] = [];
    const r = await runCli(
      parseArgs(['korea', '--source', 'live', '--now', new Date(KOREA_FIXTURE_NOW.getTime() + 4 * MINUTE).toISOString()]),
      settings,
      { progress: new LineProgress((l) => progress.push(l)), out: (t) => out.push(t) },
    );
    repair = { exitCode: r.exitCode, out: out.join(''), progress };
  }, 60_000);
  afterAll(async () => {
    await world?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('the warehouse written before the fix holds the refused minute: a premium of millions of percent', () => {
    expect(before).toEqual([
      { t: '07:41', n: expect.any(Number), top: expect.any(Number) },
      { t: '07:43', n: expect.any(Number), top: expect.any(Number) },
    ]);
    expect(before[0]!.top).toBeLessThan(100);
    expect(before[1]!.top).toBeGreaterThan(1_000_000);
  });

  it('drops the points of that minute, rolls its hour and day up again, and logs what it dropped', async () => {
    expect(repair.exitCode).toBe(0);
    const dropped = Number(before[1]!.n);
    expect(repair.out).toMatch(
      new RegExp(
        `^korea/prepare:archive_repair .*ok.* dropped ${dropped} points of 1 minute recorded from refused inputs \\(2026-07-30T07:43:00Z\\)`,
        'm',
      ),
    );
    expect(repair.progress.join('\n')).toMatch(
      /archive repair: dropped the points of 2026-07-30T07:43:00Z, recorded from refused inputs \(\S+: implausible input: FX 1\.0 KRW\/USD \(dunamu\)/,
    );
    // only the good minute is left (this run's prices are stamped 07:41 again), and the hour and the day rest on it alone
    expect(
      await warehouseRows(settings, `SELECT strftime(t, '%H:%M') AS t, max(abs(premium_pct)) < 100 AS sane FROM premium_1m GROUP BY ALL`),
    ).toEqual([{ t: '07:41', sane: true }]);
    for (const table of ['premium_1h', 'premium_1d']) {
      expect(await warehouseRows(settings, `SELECT max(abs(max_pct)) < 100 AS sane, max(samples) AS samples FROM ${table}`), table).toEqual(
        [{ sane: true, samples: 1 }],
      );
    }
    const log = await warehouseRows(
      settings,
      `SELECT interval, strftime(t, '%H:%M') AS t, count(*)::INTEGER AS n, bool_and(replaced) AS replaced, min(reason) AS reason
         FROM premium_archive_dropped GROUP BY ALL ORDER BY 1`,
    );
    expect(log.map((r) => [r.interval, r.t, r.n, r.replaced])).toEqual([
      ['1d', '00:00', expect.any(Number), true],
      ['1h', '07:00', expect.any(Number), true],
      ['1m', '07:43', dropped, false],
    ]);
    expect(String(log[2]!.reason)).toMatch(/^implausible input: FX 1\.0 KRW\/USD/);
  });

  it('writes the archive datasets whole, so no published file keeps a dropped point', async () => {
    expect(repair.progress.join('\n')).toMatch(
      /kimchi-premium-1m: written whole \(points dropped from the archive by its repair since the live version\)/,
    );
    const snap = (await loadLatest(settings.snapshotsDir, 'korea'))!;
    const files = snap.manifest.datasets.find((d) => d.name === 'kimchi-premium-1m')!;
    expect(files.partitions?.deltas ?? []).toEqual([]);
    const db = await openDatabase(':memory:');
    try {
      const paths = datasetFiles(files).map((f) => sqlString(join(snap.dir, f.file)));
      expect(
        await queryJson(
          db.connection,
          `SELECT strftime(t, '%H:%M') AS t, max(abs(premium_pct)) < 100 AS sane FROM read_parquet([${paths.join(', ')}]) GROUP BY ALL`,
        ),
      ).toEqual([{ t: '07:41', sane: true }]);
    } finally {
      db.close();
    }
  });

  it('runs once: the warehouse records it, and the next run only says so', async () => {
    expect(await warehouseRows(settings, 'SELECT minutes, points > 0 AS dropped FROM premium_archive_repairs')).toEqual([
      { minutes: 1, dropped: true },
    ]);
    const warehouse = await openWarehouse(settings.warehouseDir, 'korea');
    try {
      const again = await archiveRepairStep.run({ connection: warehouse.connection } as PipelineContext);
      expect(again).toEqual({ rows: 0, detail: expect.stringMatching(/^done once, \S+Z: dropped \d+ points of 1 minute recorded/) });
      expect(await queryJson(warehouse.connection, 'SELECT count(*)::INTEGER AS n FROM premium_archive_repairs')).toEqual([{ n: 1 }]);
    } finally {
      warehouse.close();
    }
  });
});

describe('refusedMinutes', () => {
  const manifest = (version: string, minute: string, refused: string | null, written = true): SnapshotManifest =>
    ({
      version,
      datasets: [
        { name: 'kimchi-premium-1m', as_of: minute, produced_in: written ? version : 'older' },
        { name: 'kimchi-premium', ...(refused ? { carried_over: { reason: refused, failed_at: minute } } : {}) },
      ],
    }) as unknown as SnapshotManifest;

  it('names a minute written in a run that refused kimchi-premium for an implausible input, unless a later run wrote it again', () => {
    const fx = 'implausible input: FX 1.0 KRW/USD (dunamu) is outside 500 to 5,000';
    expect(
      refusedMinutes([
        manifest('v1', '2026-07-30T07:41:00Z', null),
        manifest('v2', '2026-07-30T07:42:00Z', fx),
        manifest('v3', '2026-07-30T07:43:00Z', fx),
        manifest('v4', '2026-07-30T07:43:00Z', null), // the same minute again, from accepted inputs
        manifest('v5', '2026-07-30T07:44:00Z', 'kimchi-premium: no USD/KRW rate in this run'), // missing, not refused
        manifest('v6', '2026-07-30T07:45:00Z', fx, false), // the archive kept its last good version
      ]),
    ).toEqual([{ minute: '2026-07-30T07:42:00Z', version: 'v2', reason: fx }]);
  });
});
