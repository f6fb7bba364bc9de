/**
 * The live korea run (the pipeline command, runCli --source live) against upstreams on loopback
 * that answer in the exchanges' documented formats (fixtures/*-documented.json, served by
 * world.serveDocumented()), and against the faults real payloads bring: a failing alert feed, a
 * bad row, an undocumented enum value, inputs from different times, an alert past its end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSettings, type Settings } from '../../../lib/config.ts';
import { parseArgs, runCli } from '../../../pipelines/cli.ts';
import { LineProgress } from '../../../pipelines/progress.ts';
import { createServiceApp } from '../../../proxy/serve.ts';
import { testPaymentParts } from '../../../payments/testing/paywall.ts';
import { loadLatest, SnapshotReader, type LoadedSnapshot } from '../../../snapshots/reader.ts';
import { KOREA_FIXTURE_NOW, koreaFixture, startKoreaUpstreams, type KoreaUpstreamWorld } from '../testing/korea-upstreams.ts';

const MINUTE = 60_000;
const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

let world: KoreaUpstreamWorld;
let settings: Settings;
beforeEach(async () => {
  world = await startKoreaUpstreams();
  const root = mkdtempSync(join(tmpdir(), 'korea-documented-'));
  roots.push(root);
  settings = loadSettings({
    ...world.env,
    SITE_BUILD: 'off',
    SNAPSHOTS_DIR: join(root, 'snapshots'),
    WAREHOUSE_DIR: join(root, 'warehouse'),
  });
});
afterEach(async () => {
  await world.close();
});

/** One live run as `npm run pipeline -- korea --source live --now <now>` makes it. */
async function liveRun(now: Date = KOREA_FIXTURE_NOW) {
  world.reset();
  const lines: string[] = [];
  const { results, exitCode } = await runCli(parseArgs(['korea', '--source', 'live', '--now', now.toISOString()]), settings, {
    progress: new LineProgress((l) => lines.push(l)),
    out: (t) => lines.push(t),
  });
  const result = results[0]!;
  const snap = (await loadLatest(settings.snapshotsDir, 'korea'))!;
  const step = (name: string) => result.reports.find((r) => r.name === name)!;
  return { exitCode, result, snap, step, log: lines.join('\n') };
}

const doc = <T = Record<string, unknown>>(snap: LoadedSnapshot, name: string): T => snap.datasets.get(name)!.document as T;

type Kimchi = {
  by_symbol: Record<
    string,
    {
      exchanges: Array<{ exchange: string; price_krw: number; premium_pct: number }>;
      stale_exchanges: Array<{ exchange: string; reason: string }>;
    }
  >;
  stale: Array<{ symbol: string; exchange: string; reason: string }>;
  input_window: { prices_minutes: number; fx_hours: number };
};
type Alerts = { caution_flags: Array<{ exchange: string; symbol: string; flag: string; system: string; ends_at: string | null }> };

async function krPrices(snap: LoadedSnapshot): Promise<string[]> {
  const { queryJson } = await import('../../../lib/duckdb.ts');
  const { openDatabase } = await import('../../../lib/duckdb.ts');
  const { parquetSql } = await import('../../../snapshots/reader.ts');
  const db = await openDatabase(':memory:');
  try {
    const rows = await queryJson(
      db.connection,
      `SELECT exchange, symbol FROM ${parquetSql(snap.datasets.get('kr-prices')!)} ORDER BY 1, 2`,
    );
    return rows.map((r) => `${r.exchange} ${r.symbol}`);
  } finally {
    db.close();
  }
}

/** The korea app as proxy/serve.ts builds it, over the published snapshots. */
async function koreaApp(now: Date) {
  const reader = new SnapshotReader(settings.snapshotsDir, 'korea');
  await reader.refresh();
  const clock = () => now;
  const app = await createServiceApp(
    'korea',
    reader,
    settings,
    { ...testPaymentParts({ now: clock }), washPatternSalt: 'salt' },
    { now: clock },
  );
  return { app, close: () => reader.close() };
}

describe('the live korea run on payloads in the exchanges documented formats', () => {
  it('publishes Korean prices and premiums from both exchanges', async () => {
    world.serveDocumented();
    const run = await liveRun();
    expect(run.result.reports.filter((r) => r.status !== 'ok' && r.status !== 'kept').map((r) => [r.name, r.detail])).toEqual([]);
    expect(run.exitCode).toBe(0);
    const prices = await krPrices(run.snap);
    for (const symbol of ['BTC', 'ETH', 'XRP', 'SOL', 'DOGE', 'SHIB', 'USDT']) {
      expect(prices).toContain(`upbit ${symbol}`);
      expect(prices).toContain(`bithumb ${symbol}`);
    }
    const kimchi = doc<Kimchi>(run.snap, 'kimchi-premium');
    // Korbit's SHIB last traded 2 hours before the run: its price is from another time than the global one
    expect(kimchi.stale.map((s) => [s.symbol, s.exchange])).toEqual([['SHIB', 'korbit']]);
    expect(kimchi.by_symbol.BTC!.exchanges.map((e) => [e.exchange, e.price_krw])).toEqual([
      ['upbit', 91200000],
      ['bithumb', 91171000],
      ['coinone', 91180000],
      ['korbit', 91160000],
    ]);
    expect(kimchi.by_symbol.BTC!.exchanges.every((e) => Math.abs(e.premium_pct - 0.66) < 0.05)).toBe(true);
    expect(doc<{ premiums: Array<{ exchange: string }> }>(run.snap, 'stablecoin-premium').premiums.map((p) => p.exchange)).toEqual([
      'upbit',
      'bithumb',
      'coinone',
      'korbit',
    ]);
    // the executable premium from the live books and wallets: the five most traded symbols on every venue,
    // Coinone's BTC withdrawal fee (0.0008 BTC in its currencies answer) in the route out of Coinone,
    // Upbit's and Binance's wallets unknown, never guessed
    type Route = {
      symbol: string;
      exchange: string;
      direction: string;
      size_usd: number;
      withdrawal_fee: number | null;
      transfer_open: boolean | null;
      net_pct: number | null;
    };
    const executable = doc<{ symbols: string[]; routes: Route[]; unavailable: Array<{ exchange: string }> }>(
      run.snap,
      'arbitrage-executable',
    );
    expect(executable.symbols).toEqual(['BTC', 'DOGE', 'ETH', 'SOL', 'XRP']);
    const btc = executable.routes.filter((r) => r.symbol === 'BTC' && r.size_usd === 10000);
    expect(btc.map((r) => r.exchange)).toEqual(['upbit', 'upbit', 'bithumb', 'bithumb', 'coinone', 'coinone', 'korbit', 'korbit']);
    expect(btc.find((r) => r.exchange === 'coinone' && r.direction === 'buy_korea_sell_global')).toMatchObject({ withdrawal_fee: 0.0008 });
    expect(btc.filter((r) => r.exchange === 'upbit').every((r) => r.transfer_open === null && r.net_pct !== null)).toBe(true);
    expect(executable.unavailable.map((u) => u.exchange)).toEqual(['upbit', 'binance']);

    // the alert feed without warning_step is read: its alerts are active flags
    expect(
      doc<Alerts>(run.snap, 'exchange-alerts')
        .caution_flags.filter((f) => f.exchange === 'bithumb')
        .map((f) => [f.symbol, f.flag, f.system]),
    ).toEqual([
      ['DOGE', 'PRICE_SUDDEN_FLUCTUATION', 'bithumb_alert'],
      ['XRP', 'TRADING_VOLUME_SUDDEN_FLUCTUATION', 'bithumb_alert'],
    ]);
    expect(run.log).toMatch(/bithumb: ALL_KRW answered without data\.date; its prices are stamped with the time received/);
  });

  it('a failing Bithumb alert feed keeps the Bithumb prices; an alert whose end passed is over while the feed is down', async () => {
    world.serveDocumented();
    const first = await liveRun();
    expect(first.exitCode).toBe(0);

    // 34 minutes later the alert feed fails; the XRP alert ended at 08:09:59Z meanwhile, DOGE's has not
    world.fault('bithumb', '/v1/market/virtual_asset_warning', {
      status: 500,
      json: { error: { name: 'server_error', message: 'Internal Server Error' } },
    });
    const later = new Date(KOREA_FIXTURE_NOW.getTime() + 34 * MINUTE);
    const second = await liveRun(later);
    expect(second.exitCode).toBe(1);
    expect(second.step('ingest:bithumb')).toMatchObject({ status: 'failed' });
    expect(second.step('ingest:bithumb').detail).toMatch(
      /^bithumb: GET .*\/v1\/market\/virtual_asset_warning failed after 3 attempts: HTTP 500/,
    );
    const prices = await krPrices(second.snap);
    expect(prices.filter((p) => p.startsWith('bithumb '))).toHaveLength(7);
    expect(second.snap.manifest.datasets.find((d) => d.name === 'kr-prices')!.carried_over).toBeUndefined();
    expect(
      doc<Alerts>(second.snap, 'exchange-alerts')
        .caution_flags.filter((f) => f.exchange === 'bithumb')
        .map((f) => f.symbol),
    ).toEqual(['DOGE']);
  });

  it('skips and counts a bad Upbit ticker, keeps an undocumented market_warning as other, and marks prices from other minutes stale with the reason', async () => {
    world.serveDocumented();
    const headers = { 'remaining-req': 'group=ticker; min=1800; sec=9' };
    const tickers = koreaFixture<Array<Record<string, unknown>>>('upbit-ticker-all-krw-documented.json');
    world.fault('upbit', '/v1/ticker/all', {
      headers,
      json: [
        // a 2024 snapshot of ETH among the 2026 ones
        ...tickers.map((t) => (t.market === 'KRW-ETH' ? { ...t, timestamp: 1710328237828, trade_timestamp: 1710328237798 } : t)),
        { market: 'KRW-BAD', trade_price: 'n/a', timestamp: 1785397260000 },
      ],
    });
    const markets = koreaFixture<Array<Record<string, unknown>>>('bithumb-market-all-documented.json');
    world.fault('bithumb', '/v1/market/all', {
      json: markets.map((m) => (m.market === 'KRW-SOL' ? { ...m, market_warning: 'WATCH' } : m)),
    });
    // Binance's XRP ticker closed two hours before the others
    const binance = koreaFixture<Array<Record<string, unknown>>>('binance-ticker-24hr-mini.json');
    world.fault('binance', '/api/v3/ticker/24hr', {
      json: binance.map((t) => (t.symbol === 'XRPUSDT' ? { ...t, closeTime: Number(t.closeTime) - 120 * MINUTE } : t)),
    });
    const run = await liveRun();
    expect(run.exitCode).toBe(0);

    // the bad row is skipped and counted; the other Upbit prices are published
    const prices = await krPrices(run.snap);
    expect(prices.filter((p) => p.startsWith('upbit '))).toHaveLength(7);
    expect(prices).not.toContain('upbit BAD');
    expect(run.log).toMatch(/upbit: skipped 1 of 8 tickers that could not be read \(KRW-BAD: trade_price: /);
    const stats = doc<{ coverage: { exchanges: Array<{ exchange: string; problems: string | null }> } }>(run.snap, 'stats');
    expect(stats.coverage.exchanges.find((e) => e.exchange === 'upbit')!.problems).toMatch(
      /^upbit: skipped 1 of 8 tickers that could not be read \(KRW-BAD/,
    );

    // the undocumented market_warning is kept as other with its value, and noted
    expect(run.log).toMatch(/bithumb: market_warning "WATCH" is not a documented value, kept as other \(KRW-SOL\)/);
    expect(
      doc<Alerts>(run.snap, 'exchange-alerts')
        .caution_flags.filter((f) => f.system === 'other')
        .map((f) => [f.exchange, f.symbol, f.flag]),
    ).toEqual([['bithumb', 'SOL', 'market_warning:WATCH']]);

    // premiums only from inputs of the same minutes: XRP (global price 2 h older) and ETH on Upbit (a 2024 price) are stale, with the reason
    const kimchi = doc<Kimchi>(run.snap, 'kimchi-premium');
    expect(kimchi.input_window).toEqual({ prices_minutes: 10, fx_hours: 96, trade_minutes: 60 });
    expect(kimchi.stale.map((s) => [s.symbol, s.exchange])).toEqual([
      ['ETH', 'upbit'],
      ['SHIB', 'korbit'],
      ['XRP', 'upbit'],
      ['XRP', 'bithumb'],
      ['XRP', 'coinone'],
      ['XRP', 'korbit'],
    ]);
    expect(kimchi.stale[0]!.reason).toMatch(
      /^the binance global price \(2026-07-30T07:41:04Z\) and the upbit price \(2024-03-13T11:10:37Z\) are 869 days apart; a premium combines prices at most 10 minutes apart; the USD\/KRW rate \(dunamu, 2026-07-30T07:40:12Z\) is 869 days from the upbit price \(2024-03-13T11:10:37Z\); a premium uses a rate at most 96 hours from the price$/,
    );
    expect(kimchi.stale[2]!.reason).toMatch(
      /^the binance global price \(2026-07-30T05:41:04Z\) and the upbit price \(2026-07-30T07:41:0\dZ\) are 120 minutes apart; a premium combines prices at most 10 minutes apart$/,
    );
    expect(kimchi.by_symbol.XRP).toBeUndefined();
    expect(kimchi.by_symbol.ETH!.exchanges.map((e) => e.exchange)).toEqual(['bithumb', 'coinone', 'korbit']);
    expect(kimchi.by_symbol.ETH!.stale_exchanges).toEqual([{ exchange: 'upbit', reason: kimchi.stale[0]!.reason }]);
    const scanner = doc<{
      tokens: Array<{ symbol: string; upbit_premium_pct: number | null }>;
      stale: Array<{ symbol: string; figure: string }>;
    }>(run.snap, 'arbitrage-scanner');
    expect(scanner.tokens.find((t) => t.symbol === 'XRP')!.upbit_premium_pct).toBeNull();
    expect(scanner.stale.map((s) => `${s.symbol} ${s.figure}`)).toEqual([
      'ETH upbit_premium',
      'ETH gap',
      'XRP upbit_premium',
      'XRP bithumb_premium',
    ]);
    expect(doc<{ unavailable: Record<string, string> }>(run.snap, 'divergence').unavailable.XRP).toMatch(
      /^XRP has no current premium in this run: upbit: the binance global price \(2026-07-30T05:41:04Z\)/,
    );

    // the paid endpoint says so before any payment is asked, and names the stale exchange beside a fresh one
    const { app, close } = await koreaApp(new Date(KOREA_FIXTURE_NOW.getTime() + 5_000));
    try {
      const xrp = await app.request('/api/v1/kimchi-premium?symbol=XRP');
      expect(xrp.status).toBe(503);
      expect(((await xrp.json()) as { message: string }).message).toMatch(
        /^No current kimchi premium for XRP in snapshot \S+: upbit: the binance global price \(2026-07-30T05:41:04Z\)/,
      );
      expect((await app.request('/api/v1/kimchi-premium?symbol=ETH')).status).toBe(402);
    } finally {
      close();
    }
  });

  it('marks every premium stale with the reason when the USD/KRW rate is outside the window', async () => {
    world.serveDocumented();
    const [dunamu] = koreaFixture<Array<Record<string, unknown>>>('dunamu-forex-recent-krwusd.json');
    world.fault('fx', '/v1/forex/recent', { json: [{ ...dunamu, timestamp: Date.parse('2026-07-20T06:00:00Z') }] });
    const run = await liveRun();
    const kimchi = doc<Kimchi>(run.snap, 'kimchi-premium');
    expect(kimchi.by_symbol).toEqual({});
    expect(kimchi.stale.length).toBe(24); // 6 symbols with a global price on 4 exchanges
    for (const s of kimchi.stale) {
      expect(s.reason).toMatch(
        /^(the binance global price .* a premium combines prices at most 10 minutes apart; )?the USD\/KRW rate \(dunamu, 2026-07-20T06:00:00Z\) is 10 days from the (upbit|bithumb|coinone|korbit) price \(2026-07-30T0[57]:\d\d:\d\dZ\); a premium uses a rate at most 96 hours from the price$/,
      );
    }
    const stable = doc<{ premiums: unknown[]; stale: Array<{ stablecoin: string; exchange: string; reason: string }> }>(
      run.snap,
      'stablecoin-premium',
    );
    expect(stable.premiums).toEqual([]);
    expect(stable.stale.map((s) => `${s.stablecoin} ${s.exchange}`)).toEqual(['USDT upbit', 'USDT bithumb', 'USDT coinone', 'USDT korbit']);
    // the products that read the premiums say why they have none (no version to keep yet)
    for (const name of ['divergence', 'market-read']) {
      expect(run.step(name).detail, name).toMatch(
        /this run has no kimchi-premium figures \(the inputs of the premiums are too far apart in time, e\.g\. BTC on upbit: the USD\/KRW rate \(dunamu/,
      );
    }
  });
});

describe('an alert past its end date', () => {
  it('is not published as active', async () => {
    const alerts = koreaFixture<Array<Record<string, unknown>>>('bithumb-virtual-asset-warning.json');
    // ended at 16:00 KST = 07:00Z, 41 minutes before the run; the feed still lists it
    const ended = {
      market: 'KRW-WAXP',
      warning_type: 'PRICE_SUDDEN_FLUCTUATION',
      warning_step: 'CAUTION',
      end_date: '2026-07-30 16:00:00',
    };
    world.fault('bithumb', '/v1/market/virtual_asset_warning', { json: [...alerts, ended] });
    const run = await liveRun();
    const flags = doc<Alerts>(run.snap, 'exchange-alerts').caution_flags.filter((f) => f.exchange === 'bithumb');
    expect(flags.map((f) => f.symbol)).toEqual(['KAIA', 'OBSR', 'OBSR', 'ZIL']);
    expect(flags.every((f) => Date.parse(f.ends_at!) > KOREA_FIXTURE_NOW.getTime())).toBe(true);
    expect(run.log).toMatch(
      /bithumb: 1 alerts past their end date are not active: KRW-WAXP PRICE_SUDDEN_FLUCTUATION \(ended 2026-07-30T07:00:00\.000Z\)/,
    );
  });
});
