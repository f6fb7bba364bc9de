import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KOREA_ENDPOINTS } from '../../catalog/korea.ts';
import type { EndpointDecl } from '../../catalog/types.ts';
import { loadSettings } from '../../lib/config.ts';
import { koreaPipeline } from '../../pipelines/korea/index.ts';
import { LineProgress } from '../../pipelines/progress.ts';
import { runPipeline } from '../../pipelines/runner.ts';
import { loadLatest, type LoadedSnapshot } from '../../snapshots/reader.ts';
import { closeSnapshotDuck } from './duck.ts';
import { koreaHandlers } from './korea.ts';
import type { DataRequest, DataResult } from './types.ts';

const FIRST = new Date('2026-11-20T09:00:00Z');
const LATER = new Date('2026-12-01T09:00:00Z');
const root = mkdtempSync(join(tmpdir(), 'korea-handlers-'));
let snapshot: LoadedSnapshot;

beforeAll(async () => {
  const settings = loadSettings({ SITE_BUILD: 'off', SNAPSHOTS_DIR: join(root, 'snapshots'), WAREHOUSE_DIR: join(root, 'warehouse') });
  const silent = new LineProgress(() => {});
  // two runs on one warehouse: the second sees listings, delistings and flags change
  for (const now of [FIRST, LATER]) {
    const result = await runPipeline(koreaPipeline, { source: { kind: 'demo' }, now, seed: 7, scale: 1 }, settings, silent);
    const failed = result.reports.filter((r) => r.status !== 'ok').map((r) => `${r.name}: ${r.detail}`);
    expect(failed).toEqual([]);
  }
  snapshot = (await loadLatest(settings.snapshotsDir, 'korea'))!;
}, 120_000);

afterAll(async () => {
  await closeSnapshotDuck();
  rmSync(root, { recursive: true, force: true });
});

function endpoint(id: string): EndpointDecl {
  const found = KOREA_ENDPOINTS.find((e) => e.id === id);
  if (!found) throw new Error(`no korea endpoint ${id}`);
  return found;
}

function request(id: string, query: Record<string, unknown> = {}, snap: LoadedSnapshot = snapshot, now = LATER): DataRequest {
  const e = endpoint(id);
  return {
    endpoint: e,
    query: e.query ? (e.query.parse(query) as Record<string, unknown>) : {},
    params: {},
    body: undefined,
    snapshot: snap,
    now,
  };
}

/** Precheck (if any) then handle, as the service app does. */
async function call(req: DataRequest): Promise<DataResult> {
  const handler = koreaHandlers[req.endpoint.id]!;
  const early = await handler.precheck?.(req);
  return early ?? handler.handle(req);
}

async function okBody(req: DataRequest): Promise<Record<string, unknown>> {
  const result = await call(req);
  expect(result.status, JSON.stringify(result.body).slice(0, 300)).toBe(200);
  const parsed = req.endpoint.response.safeParse(result.body);
  expect(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues.slice(0, 5), null, 1)).toBe(true);
  return result.body as Record<string, unknown>;
}

describe('korea handlers on a demo snapshot', () => {
  const ids = KOREA_ENDPOINTS.filter((e) => e.dataset !== null).map((e) => e.id);

  it('cover every endpoint that reads a dataset, the AI and news ones included', () => {
    // with issue 32's archive history and stats; and the free daily preview (proxy/kimchi-premium-daily.test.ts)
    expect(ids.filter((id) => id !== 'kimchi-premium-daily')).toHaveLength(21); // with issue 32's archive and executable premium
    expect(ids).toContain('kimchi-premium-daily');
    expect(Object.keys(koreaHandlers).sort()).toEqual([...ids].sort());
  });

  it('arbitrage-executable: at a published size the endpoint gives exactly the routes the pipeline published; any size walks the same books', async () => {
    type Route = {
      exchange: string;
      direction: string;
      size_usd: number;
      net_pct: number | null;
      fillable: boolean;
      transfer_open: boolean | null;
    };
    const doc = snapshot.datasets.get('arbitrage-executable')!.document as { symbols: string[]; routes: Array<Route & { symbol: string }> };
    expect(doc.symbols.length).toBeGreaterThanOrEqual(5);
    const body = await okBody(request('arbitrage-executable', { symbol: 'btc', size_usd: '10000' }));
    const published = doc.routes.filter((r) => r.symbol === 'BTC' && r.size_usd === 10000).map(({ symbol: _, ...r }) => r);
    const routes = body.routes as Route[];
    expect(routes.map((r) => `${r.exchange} ${r.direction}`)).toEqual(published.map((r) => `${r.exchange} ${r.direction}`));
    expect(routes).toEqual(published);
    // every Korean exchange quoting BTC, both ways
    expect(new Set(routes.map((r) => r.exchange))).toEqual(new Set(['upbit', 'bithumb', 'coinone', 'korbit']));
    // the best route is the fillable one with the highest net whose transfer is not known to be closed
    const open = routes.filter((r) => r.fillable && r.transfer_open !== false && r.net_pct !== null);
    expect((body.best as Route).net_pct).toBe(Math.max(...open.map((r) => r.net_pct!)));
    // a size between the published ones: a deeper walk never returns more on the same route
    const mid = (await okBody(request('arbitrage-executable', { symbol: 'BTC', size_usd: 37_000 }))).routes as Route[];
    const big = doc.routes.filter((r) => r.symbol === 'BTC' && r.size_usd === 100000);
    for (const r of mid.filter((x) => x.direction === 'buy_global_sell_korea' && x.exchange === 'upbit' && x.fillable)) {
      const at10k = routes.find((x) => x.exchange === r.exchange && x.direction === r.direction)!;
      expect(r.net_pct!).toBeLessThanOrEqual(at10k.net_pct! + 1e-9);
      const at100k = big.find((x) => x.exchange === r.exchange && x.direction === r.direction)!;
      if (at100k.fillable) expect(r.net_pct!).toBeGreaterThanOrEqual(at100k.net_pct! - 1e-9);
    }
    // Upbit and Binance publish no wallet status without a key: said, never guessed
    expect((body.unavailable as Array<{ exchange: string }>).map((u) => u.exchange)).toEqual(expect.arrayContaining(['upbit', 'binance']));
    expect(routes.filter((r) => r.exchange === 'upbit').every((r) => r.transfer_open === null)).toBe(true);
  });

  it('arbitrage-executable: 404 before payment for a symbol without books this run', async () => {
    const precheck = await koreaHandlers['arbitrage-executable']!.precheck!(request('arbitrage-executable', { symbol: 'NOPE1' }));
    expect(precheck).toMatchObject({
      status: 404,
      body: { message: expect.stringMatching(/^No order books of NOPE1 .* most traded symbols/) },
    });
  });

  it('news: the newest `limit` articles, and the summary written for exactly those', async () => {
    for (const limit of [1, 3, 10]) {
      const list = await okBody(request('kr-news-kpop', { limit }));
      const summary = await okBody(request('kr-news-kpop-summary', { limit }));
      expect(list.count).toBe(limit);
      expect(summary.articles).toEqual(list.articles);
      const times = (list.articles as Array<{ published_at: string }>).map((a) => a.published_at);
      expect([...times].sort().reverse()).toEqual(times);
      expect(summary.summary).toMatch(
        new RegExp(`The newest ${({ 1: 'one', 3: 'three', 10: 'ten' } as Record<number, string>)[limit]} Korean K-pop`),
      );
    }
    const chips = await okBody(request('kr-news-semiconductor-summary', { limit: 4 }));
    expect(['bullish', 'bearish', 'neutral']).toContain(chips.market_signal);
  });

  it('divergence: light leaves out what the deep tier adds; a symbol without a global price is a 404 before payment', async () => {
    const light = await okBody(request('global-vs-korea-divergence', { symbol: 'xrp' }));
    const deep = await okBody(request('global-vs-korea-divergence-deep', { symbol: 'xrp' }));
    expect(light.symbol).toBe('XRP');
    expect(light).not.toHaveProperty('analysis');
    expect(deep).toMatchObject({ symbol: 'XRP', summary: light.summary, divergence_pct: light.divergence_pct });
    expect(deep.news_signals).toMatchObject({ window_hours: 24 });
    const loaded = snapshot.datasets.get('divergence')!;
    const document = structuredClone(loaded.document) as { by_symbol: Record<string, unknown>; unavailable: Record<string, string> };
    delete document.by_symbol.FTM;
    document.unavailable.FTM = 'FTM has no global reference price (no Binance or OKX USDT market) in this run';
    const edited: LoadedSnapshot = { ...snapshot, datasets: new Map([...snapshot.datasets, ['divergence', { ...loaded, document }]]) };
    const req = request('global-vs-korea-divergence-deep', { symbol: 'FTM' }, edited);
    const early = await koreaHandlers[req.endpoint.id]!.precheck!(req);
    expect(early).toMatchObject({
      status: 404,
      body: { error: 'not_found', message: expect.stringMatching(/No divergence for FTM.*no global reference price/) },
    });
  });

  it.each(ids)('%s answers with a body that validates against its response schema', async (id) => {
    const body = await okBody(request(id));
    expect(body.source).toBe('demo');
    expect(typeof body.as_of).toBe('string');
  });

  it('kimchi-premium slices one symbol, with every exchange, its Korea index and the identity between the bases', async () => {
    const body = await okBody(request('kimchi-premium', { symbol: 'eth' }));
    expect(body.symbol).toBe('ETH');
    const exchanges = body.exchanges as {
      exchange: string;
      price_krw: number;
      premium_pct: number;
      usdt_krw: number;
      usdt_premium_pct: number;
    }[];
    expect(exchanges.map((e) => e.exchange)).toEqual(['upbit', 'bithumb', 'coinone', 'korbit']);
    const upbit = exchanges[0]!;
    const expected = (upbit.price_krw / Number(body.fx_rate) / Number(body.global_price_usd) - 1) * 100;
    expect(upbit.premium_pct).toBeCloseTo(expected, 3);
    // the symbol's index lies within its exchanges' premiums; the market-wide one names the four exchanges
    const index = body.index as { premium_pct: number; exchanges: Array<{ exchange: string; weight_pct: number }> };
    const premiums = exchanges.map((e) => e.premium_pct);
    expect(index.premium_pct).toBeGreaterThanOrEqual(Math.min(...premiums) - 0.05);
    expect(index.premium_pct).toBeLessThanOrEqual(Math.max(...premiums) + 0.05);
    expect(index.exchanges.reduce((a, e) => a + e.weight_pct, 0)).toBeCloseTo(100, 0);
    expect((body.korea_index as { exchanges_used: string[] }).exchanges_used).toEqual(['upbit', 'bithumb', 'coinone', 'korbit']);
  });

  it('kimchi-premium: 404 before payment for an unlisted symbol and for one without a global price', async () => {
    const handler = koreaHandlers['kimchi-premium']!;
    const unlisted = await handler.precheck!(request('kimchi-premium', { symbol: 'NOPE1' }));
    expect(unlisted).toMatchObject({
      status: 404,
      body: { error: 'not_found', message: expect.stringMatching(/No Korean exchange .* lists NOPE1/) },
    });
    const usdt = await handler.precheck!(request('kimchi-premium', { symbol: 'USDT' }));
    expect(usdt).toMatchObject({ status: 404, body: { message: expect.stringMatching(/no global reference price.*stablecoin-premium/) } });
    expect(await handler.precheck!(request('kimchi-premium', { symbol: 'BTC' }))).toBeNull();
  });

  it('kr-prices filters by exchange and answers 404 for an unknown symbol or an exchange that does not list it', async () => {
    const both = await okBody(request('kr-prices', { symbol: 'BTC' }));
    expect((both.prices as { exchange: string }[]).map((p) => p.exchange)).toEqual(['upbit', 'bithumb', 'coinone', 'korbit']);
    const upbit = await okBody(request('kr-prices', { symbol: 'btc', exchange: 'UPBIT' }));
    expect(upbit).toMatchObject({ symbol: 'BTC', exchange: 'upbit', prices: [{ exchange: 'upbit', symbol: 'BTC' }] });
    expect(await call(request('kr-prices', { symbol: 'NOPE1' }))).toMatchObject({ status: 404 });

    const symbols = snapshot.datasets.get('symbols')!.document as { symbols: { symbol: string; exchanges: string[] }[] };
    const bithumbOnly = symbols.symbols.find((s) => s.exchanges.length === 1 && s.exchanges[0] === 'bithumb')!;
    const miss = await koreaHandlers['kr-prices']!.precheck!(request('kr-prices', { symbol: bithumbOnly.symbol, exchange: 'upbit' }));
    expect(miss).toMatchObject({
      status: 404,
      body: { message: `${bithumbOnly.symbol} has no KRW market on upbit; it trades on bithumb.` },
    });
  });

  it('exchange-alerts reports what changed between the two runs', async () => {
    const body = await okBody(request('exchange-alerts'));
    const changes = body.listing_changes as { change: string; detected_at: string; previous_observed_at: string }[];
    expect(changes.length).toBeGreaterThan(0);
    for (const c of changes) {
      expect(c.detected_at).toBe('2026-12-01T09:00:00Z');
      expect(c.previous_observed_at).toBe('2026-11-20T09:00:00Z');
    }
    expect((body.recently_ended as unknown[]).length).toBeGreaterThan(0);
  });

  it('stats gives every dataset of the snapshot with its age at request time', async () => {
    const now = new Date(LATER.getTime() + 90_000);
    const body = await okBody(request('stats', {}, snapshot, now));
    const datasets = body.datasets as { name: string; age_seconds: number; carried_over_reason: string | null }[];
    expect(datasets.map((d) => d.name)).toEqual(snapshot.manifest.datasets.map((d) => d.name));
    expect(datasets.find((d) => d.name === 'kr-prices')!.age_seconds).toBe(90);
    expect(datasets.every((d) => d.carried_over_reason === null)).toBe(true);
    expect(body.snapshot).toEqual({ version: snapshot.version, generated_at: snapshot.manifest.generated_at });
  });

  it('a dataset missing from the snapshot is a 503 before payment, never invented data', async () => {
    const datasets = new Map(snapshot.datasets);
    datasets.delete('market-movers');
    datasets.delete('kr-prices');
    datasets.delete('kimchi-premium');
    const partial: LoadedSnapshot = { ...snapshot, datasets };
    for (const id of ['market-movers', 'kr-prices', 'kimchi-premium']) {
      const handler = koreaHandlers[id]!;
      const early = await handler.precheck!(request(id, {}, partial));
      expect(early).toMatchObject({ status: 503, body: { error: 'not_available' } });
      expect(await handler.handle(request(id, {}, partial))).toMatchObject({ status: 503 });
    }
  });
});
