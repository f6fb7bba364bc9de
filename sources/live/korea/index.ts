/**
 * The korea pipeline's live source: one ingest step per upstream, so one upstream down never
 * sinks the others.
 *
 *   ingest:upbit          kr_markets, market_flags, kr_tickers (exchange upbit)     2 requests
 *   ingest:bithumb        kr_markets, market_flags, kr_tickers (exchange bithumb)   3 requests
 *   ingest:global_prices  global_prices: Binance, OKX when Binance fails            1 (2)
 *   ingest:fx_rates       fx_rates: Dunamu, er-api when Dunamu fails                1 (2)
 *   ingest:macro_daily    macro_daily from the kept history, extended incrementally 0-2 (backfill free)
 *   ingest:candles_1m     Upbit 1-minute candles of the top markets by KRW volume   what is left, 1-5
 *
 * Korean news (news_articles) has its own step and cadence, outside this budget: news/index.ts,
 * added by the korea pipeline (pipelines/korea/index.ts) after these steps.
 *
 * A run stays within 12 upstream requests (backfill excluded): the fixed feeds take 7, the macro
 * refresh at most 2 while leaving 3 for candles, and the candles take the rest (at most 5), so a
 * Binance or Dunamu fallback, or a retry, costs a candle market rather than the budget. Candles
 * always get at least one market: a run whose fixed feeds spent the whole budget on retries goes
 * over by that one request.
 *
 * A failing upstream call leaves its rows out of the raw tables (the tables exist, its share is
 * empty) and records why in ingest_failures; the dataset steps that need it then fail with that
 * reason and the runner keeps their last good files. A step that makes several calls (Upbit,
 * Bithumb) writes what the calls that answered feed and fails afterwards, naming the ones that did
 * not: a failed Bithumb alert feed never costs the Bithumb prices. A row an upstream sends that
 * cannot be read is skipped and counted in ingest_skipped_rows and the run's notes (lenient.ts);
 * the rest of its list is kept. Korea-specific warehouse state that survives runs: macro_history,
 * macro_fetch_log, live_upstream_cooloff.
 */
import type { Settings } from '../../../lib/config.ts';
import type { IngestContext, IngestStep } from '../../contract.ts';
import { queryJson, type Row } from '../../../lib/duckdb.ts';
import { RAW_TABLES } from '../../raw-tables.ts';
import { binancePriceRows, fetchBinanceTickers } from './binance.ts';
import {
  activeBithumbAlerts,
  BITHUMB_ALERT_STEPS,
  bithumbAlertFlagRows,
  bithumbAlertStepRows,
  bithumbMarketRows,
  bithumbTickerRows,
  bithumbWarningFlagRows,
  fetchBithumbAlerts,
  fetchBithumbMarkets,
  fetchBithumbTickers,
} from './bithumb.ts';
import { clientOptions, textClient, withUpstream, type ClientTuning, type KoreaClient } from './clients.ts';
import { fetchDunamuUsdKrw } from './dunamu.ts';
import { fetchErApiUsdKrw } from './er-api.ts';
import { fetchFredSeries } from './fred.ts';
import {
  clearIngestFailures,
  clearSkippedRows,
  ingestFailureReason,
  INGEST_FAILURES,
  INGEST_SKIPPED_ROWS,
  recordIngestFailure,
  recordSkippedRows,
  type KoreaUpstreamName,
} from './ingest-failures.ts';
import {
  DEFAULT_MACRO_OPTIONS,
  MACRO_UNITS,
  materializeMacroDaily,
  planMacroFetches,
  storeMacroFetch,
  type MacroFetch,
  type MacroOptions,
  type MacroUnit,
} from './macro-history.ts';
import { fetchNaverDaily } from './naver-finance.ts';
import { fetchOkxTickers, okxPriceRows } from './okx.ts';
import { ensureRawTable, replaceRows, resetRows, type RowsWrite } from './raw-rows.ts';
import { budgetFor, type RequestBudget } from './request-budget.ts';
import type { TextUpstream } from './text-upstream.ts';
import {
  fetchUpbitCandles,
  fetchUpbitMarkets,
  fetchUpbitTickers,
  isUpbitBan,
  startUpbitCooloff,
  upbitCandleRows,
  upbitCooloff,
  upbitMarketRows,
  upbitTickerRows,
} from './upbit.ts';

export { ingestFailureReason, type KoreaUpstreamName } from './ingest-failures.ts';
export { PUBLIC_BASE_URLS } from './clients.ts';

export interface KoreaLiveOptions {
  /** Upstream requests one run may make, the macro backfill excluded. */
  requestBudget: number;
  candles: {
    /** At most this many markets (one request each); fewer when the budget is short. */
    maxMarkets: number;
    /** Requests the macro refresh leaves for candles. */
    reserve: number;
    /** Minutes asked per market (the open minute is dropped). */
    minutes: number;
  };
  macro: MacroOptions;
  /** Applied to every client after its own tuning (tests inject `sleep`). */
  upstream: ClientTuning;
}

export const DEFAULT_KOREA_LIVE_OPTIONS: KoreaLiveOptions = {
  requestBudget: 12,
  candles: { maxMarkets: 5, reserve: 3, minutes: 60 },
  macro: DEFAULT_MACRO_OPTIONS,
  upstream: {},
};

export type KoreaLiveOverrides = {
  requestBudget?: number;
  candles?: Partial<KoreaLiveOptions['candles']>;
  macro?: Partial<MacroOptions>;
  upstream?: ClientTuning;
};

/** Stablecoins are quotes, not movers: candles go to the top volatile markets. */
const CANDLE_EXCLUDED = ['USDT', 'USDC'];

const T = RAW_TABLES;

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]!;
}

/** Runs `work`; on failure records it for `upstream` and rethrows. */
async function recorded<V>(ctx: IngestContext, upstream: KoreaUpstreamName, work: () => Promise<V>): Promise<V> {
  try {
    return await work();
  } catch (err) {
    await recordIngestFailure(ctx.connection, upstream, firstLine(err), ctx.now);
    throw err;
  }
}

export function koreaLiveIngestSteps(settings: Settings, overrides: KoreaLiveOverrides = {}): IngestStep[] {
  const o: KoreaLiveOptions = {
    requestBudget: overrides.requestBudget ?? DEFAULT_KOREA_LIVE_OPTIONS.requestBudget,
    candles: { ...DEFAULT_KOREA_LIVE_OPTIONS.candles, ...overrides.candles },
    macro: { ...DEFAULT_KOREA_LIVE_OPTIONS.macro, ...overrides.macro },
    upstream: { ...overrides.upstream },
  };
  const client = (name: KoreaClient) => clientOptions(settings, name, o.upstream);
  const budget = (ctx: IngestContext): RequestBudget => budgetFor(ctx, o.requestBudget);

  /** A step that empties its share of the raw tables and its recorded failures before it fetches. */
  const step = (
    name: string,
    targets: ReadonlyArray<Omit<RowsWrite, 'rows'>>,
    upstreams: readonly KoreaUpstreamName[],
    fetch: (ctx: IngestContext) => Promise<number>,
    extraTables: readonly string[] = [],
  ): IngestStep => ({
    name,
    tables: [...new Set([...targets.map((t) => t.table.name), ...extraTables])],
    async run(ctx) {
      await resetRows(ctx.connection, targets);
      await clearIngestFailures(ctx.connection, upstreams);
      await clearSkippedRows(ctx.connection, upstreams);
      return fetch(ctx);
    },
  });

  const upbit = step(
    'ingest:upbit',
    [
      { table: T.kr_markets, exchange: 'upbit' },
      { table: T.market_flags, exchange: 'upbit' },
      { table: T.kr_tickers, exchange: 'upbit' },
    ],
    ['upbit', 'upbit:markets'],
    async (ctx) => {
      const cooling = await upbitCooloff(ctx.connection, ctx.now);
      if (cooling) {
        await recordIngestFailure(ctx.connection, 'upbit', cooling, ctx.now);
        throw new Error(cooling);
      }
      const [markets, tickers] = await withUpstream(client('upbit'), budget(ctx), ctx.log, (up) =>
        Promise.allSettled([fetchUpbitMarkets(up), fetchUpbitTickers(up)]),
      );
      const banned = await upbitBanned(ctx, [markets, tickers]);
      const feeds = new StepFeeds(ctx);
      if (markets.status === 'fulfilled') {
        await feeds.skipped('upbit:markets', 'markets', markets.value);
        const m = upbitMarketRows(markets.value.rows, ctx.now);
        for (const note of m.unknown) ctx.log(`upbit: ${note}`);
        if (m.markets.length === 0) await feeds.failed('upbit:markets', 'upbit: the market list has no KRW market');
        else
          feeds.write(
            { table: T.kr_markets, exchange: 'upbit', rows: m.markets },
            { table: T.market_flags, exchange: 'upbit', rows: m.flags },
          );
        ctx.log(`upbit: ${m.markets.length} KRW markets, ${m.flags.length} flags raised`);
      } else await feeds.failed('upbit:markets', banned ?? firstLine(markets.reason));
      if (tickers.status === 'fulfilled') {
        await feeds.skipped('upbit', 'tickers', tickers.value);
        const tickerRows = upbitTickerRows(tickers.value.rows);
        if (tickerRows.length === 0) await feeds.failed('upbit', 'upbit: answered no KRW ticker that could be read');
        else feeds.write({ table: T.kr_tickers, exchange: 'upbit', rows: tickerRows });
        ctx.log(`upbit: ${tickerRows.length} tickers`);
      } else await feeds.failed('upbit', banned ?? firstLine(tickers.reason));
      return feeds.finish();
    },
    // ingest_failures and ingest_skipped_rows are dropped with the run's raw tables: a new run starts with none.
    [INGEST_FAILURES.name, INGEST_SKIPPED_ROWS.name],
  );

  /**
   * After a 418 no Upbit request is made until the cool-off ends: starts it and returns the
   * message that says until when, or null when no call was banned.
   */
  async function upbitBanned(ctx: IngestContext, calls: ReadonlyArray<PromiseSettledResult<unknown>>): Promise<string | null> {
    const ban = calls.find((c): c is PromiseRejectedResult => c.status === 'rejected' && isUpbitBan(c.reason));
    if (!ban) return null;
    const until = await startUpbitCooloff(ctx.connection, ctx.now, firstLine(ban.reason));
    return `${firstLine(ban.reason)}; Upbit banned this IP for exceeding the rate limit: no Upbit request until ${until.toISOString()}`;
  }

  // The three Bithumb calls feed different rows: one that fails loses only its own (a failed alert
  // feed keeps the prices), and is recorded under its own name.
  const bithumb = step(
    'ingest:bithumb',
    [
      { table: T.kr_markets, exchange: 'bithumb' },
      { table: T.market_flags, exchange: 'bithumb' },
      { table: T.kr_tickers, exchange: 'bithumb' },
      { table: BITHUMB_ALERT_STEPS },
    ],
    ['bithumb', 'bithumb:markets', 'bithumb:alerts'],
    async (ctx) => {
      const [tickers, markets, alerts] = await withUpstream(client('bithumb'), budget(ctx), ctx.log, (up) =>
        Promise.allSettled([fetchBithumbTickers(up), fetchBithumbMarkets(up), fetchBithumbAlerts(up)]),
      );
      const feeds = new StepFeeds(ctx);
      if (tickers.status === 'fulfilled') {
        await feeds.skipped('bithumb', 'tickers', tickers.value);
        if (tickers.value.stampMs === null)
          ctx.log('bithumb: ALL_KRW answered without data.date; its prices are stamped with the time received');
        const tickerRows = bithumbTickerRows(tickers.value, ctx.now);
        if (tickerRows.length === 0) await feeds.failed('bithumb', 'bithumb: ALL_KRW answered no KRW ticker that could be read');
        else feeds.write({ table: T.kr_tickers, exchange: 'bithumb', rows: tickerRows });
        ctx.log(`bithumb: ${tickerRows.length} tickers`);
      } else await feeds.failed('bithumb', firstLine(tickers.reason));

      const flagRows: Row[] = [];
      if (markets.status === 'fulfilled') {
        await feeds.skipped('bithumb:markets', 'markets', markets.value);
        const marketRows = bithumbMarketRows(markets.value.rows, ctx.now);
        const warnings = bithumbWarningFlagRows(markets.value.rows, ctx.now);
        for (const note of warnings.unknown) ctx.log(`bithumb: ${note}`);
        if (marketRows.length === 0) await feeds.failed('bithumb:markets', 'bithumb: the market list has no KRW market');
        else feeds.write({ table: T.kr_markets, exchange: 'bithumb', rows: marketRows });
        flagRows.push(...warnings.flags);
        ctx.log(`bithumb: ${marketRows.length} KRW markets, ${warnings.flags.length} market warnings`);
      } else await feeds.failed('bithumb:markets', firstLine(markets.reason));
      if (alerts.status === 'fulfilled') {
        await feeds.skipped('bithumb:alerts', 'alerts', alerts.value);
        const { active, expired, unknown } = activeBithumbAlerts(alerts.value.rows, ctx.now);
        for (const note of unknown) ctx.log(`bithumb: ${note}`);
        if (expired.length)
          ctx.log(`bithumb: ${expired.length} alerts past their end date are not active: ${expired.slice(0, 5).join(', ')}`);
        flagRows.push(...bithumbAlertFlagRows(active, ctx.now));
        feeds.write({ table: BITHUMB_ALERT_STEPS, rows: bithumbAlertStepRows(active, ctx.now) });
        ctx.log(`bithumb: ${active.length} active alerts`);
      } else await feeds.failed('bithumb:alerts', firstLine(alerts.reason));
      if (markets.status === 'fulfilled' || alerts.status === 'fulfilled') {
        feeds.write({ table: T.market_flags, exchange: 'bithumb', rows: flagRows });
      }
      return feeds.finish();
    },
  );

  /** The first source that answers with rows wins; each failure is recorded under its own name. */
  async function firstAnswer(
    ctx: IngestContext,
    what: string,
    sources: ReadonlyArray<{ upstream: KoreaUpstreamName; rows: () => Promise<Row[]> }>,
  ): Promise<{ upstream: KoreaUpstreamName; rows: Row[] }> {
    const problems: string[] = [];
    for (const { upstream, rows } of sources) {
      try {
        const got = await rows();
        if (got.length === 0) throw new Error(`${upstream}: answered no usable ${what}`);
        if (problems.length) ctx.log(`${what}: using ${upstream} after ${problems.join('; ')}`);
        return { upstream, rows: got };
      } catch (err) {
        problems.push(firstLine(err));
        await recordIngestFailure(ctx.connection, upstream, firstLine(err), ctx.now);
      }
    }
    throw new Error(`${what} unavailable: ${problems.join('; ')}`);
  }

  const globalPrices = step('ingest:global_prices', [{ table: T.global_prices }], ['binance', 'okx'], async (ctx) => {
    const answer = await firstAnswer(ctx, 'global prices', [
      {
        upstream: 'binance',
        rows: () =>
          withUpstream(client('binance'), budget(ctx), ctx.log, async (up) => {
            const read = await fetchBinanceTickers(up);
            await noteSkipped(ctx, 'binance', 'tickers', read);
            return binancePriceRows(read.rows);
          }),
      },
      {
        upstream: 'okx',
        rows: () =>
          withUpstream(client('okx'), budget(ctx), ctx.log, async (up) => {
            const read = await fetchOkxTickers(up);
            await noteSkipped(ctx, 'okx', 'tickers', read);
            return okxPriceRows(read.rows);
          }),
      },
    ]);
    ctx.log(`global prices: ${answer.rows.length} USDT pairs from ${answer.upstream}`);
    return replaceRows(ctx.connection, [{ table: T.global_prices, rows: answer.rows }]);
  });

  const fxRates = step('ingest:fx_rates', [{ table: T.fx_rates }], ['dunamu', 'er-api'], async (ctx) => {
    const answer = await firstAnswer(ctx, 'USD/KRW', [
      {
        upstream: 'dunamu',
        rows: () =>
          withUpstream(client('dunamu'), budget(ctx), ctx.log, async (up) => {
            const { row, note } = await fetchDunamuUsdKrw(up, ctx.now);
            if (note) ctx.log(note);
            return [row];
          }),
      },
      { upstream: 'er-api', rows: () => withUpstream(client('er-api'), budget(ctx), ctx.log, async (up) => [await fetchErApiUsdKrw(up)]) },
    ]);
    return replaceRows(ctx.connection, [{ table: T.fx_rates, rows: answer.rows }]);
  });

  const macroUnits = MACRO_UNITS.map((u) => u.id);
  const macro = step('ingest:macro_daily', [{ table: T.macro_daily }], macroUnits, async (ctx) => {
    const b = budget(ctx);
    const allowed = Math.min(o.macro.maxIncrementalPerRun, b.remaining - o.candles.reserve);
    const { fetches, deferred } = await planMacroFetches(ctx.connection, ctx.now, o.macro, allowed);
    const clients = new Map<'fred' | 'naver', TextUpstream>();
    const problems = new Map<MacroUnit['id'], string>();
    const done: string[] = [];
    try {
      for (const fetch of fetches) {
        const up = clients.get(fetch.unit.upstream) ?? textClient(settings, fetch.unit.upstream, o.upstream);
        clients.set(fetch.unit.upstream, up);
        const before = up.stats().requests;
        try {
          const { observations, skipped } = await fetchMacroUnit(up, fetch);
          await noteSkipped(ctx, fetch.unit.id, 'observations', skipped);
          if (fetch.mode === 'backfill' && observations.length === 0) {
            throw new Error(`${fetch.unit.id}: answered no observations from ${fetch.since} to ${fetch.until}`);
          }
          await storeMacroFetch(ctx.connection, fetch, observations, ctx.now);
          done.push(`${fetch.unit.id} ${fetch.mode} ${fetch.since}..${fetch.until} (${observations.length})`);
        } catch (err) {
          problems.set(fetch.unit.id, firstLine(err));
        } finally {
          b.spend(up.name, up.stats().requests - before, fetch.mode === 'backfill' ? 'backfill' : 'counted');
        }
      }
    } finally {
      for (const up of clients.values()) await up.close();
    }
    for (const [unit, problem] of problems) await recordIngestFailure(ctx.connection, unit, problem, ctx.now);
    const rows = await materializeMacroDaily(ctx.connection, ctx.now, o.macro.backfillDays);
    ctx.log(
      `macro: ${done.length ? done.join(', ') : 'nothing due'}${deferred ? `; ${deferred} due series left for the next run (request budget)` : ''}`,
    );
    // The kept history still makes macro_daily; the step fails so the run says a refresh failed.
    if (problems.size) throw new Error([...problems.values()].join('; '));
    return rows;
  });

  const candles = step('ingest:candles_1m', [{ table: T.candles_1m }], ['candles:upbit'], (ctx) =>
    recorded(ctx, 'candles:upbit', async () => {
      const cooling = await upbitCooloff(ctx.connection, ctx.now);
      if (cooling) throw new Error(cooling);
      const b = budget(ctx);
      const count = Math.min(o.candles.maxMarkets, Math.max(1, b.remaining));
      await ensureRawTable(ctx.connection, T.kr_tickers);
      const top = await queryJson(
        ctx.connection,
        `SELECT symbol FROM kr_tickers
          WHERE exchange = 'upbit' AND symbol NOT IN (${CANDLE_EXCLUDED.map((s) => `'${s}'`).join(', ')})
          ORDER BY volume_24h_krw DESC, symbol LIMIT ${count}`,
      );
      if (top.length === 0) {
        const reason = await ingestFailureReason(ctx.connection, ['upbit']);
        throw new Error(
          `candles:upbit: no Upbit tickers in this run to pick the top markets by volume from${reason ? ` (${reason})` : ''}`,
        );
      }
      const markets = top.map((r) => `KRW-${String(r.symbol)}`);
      const results = await withUpstream(client('upbit-candles'), b, ctx.log, (up) =>
        Promise.allSettled(markets.map((m) => fetchUpbitCandles(up, m, o.candles.minutes))),
      );
      const rows: Row[] = [];
      const problems: string[] = [];
      const banned = await upbitBanned(ctx, results);
      if (banned) throw new Error(banned);
      const candleRows = { total: 0, skipped: [] as string[] };
      for (const [i, r] of results.entries()) {
        if (r.status === 'fulfilled') {
          rows.push(...upbitCandleRows(r.value.rows, ctx.now));
          candleRows.total += r.value.total;
          candleRows.skipped.push(...r.value.skipped.map((p) => `${markets[i]} ${p}`));
        } else problems.push(`${markets[i]}: ${firstLine(r.reason)}`);
      }
      await noteSkipped(ctx, 'candles:upbit', 'candles', candleRows);
      for (const p of problems) ctx.log(`candles:upbit: skipped ${p}`);
      if (problems.length === markets.length) throw new Error(`candles:upbit: every candle request failed: ${problems.join('; ')}`);
      ctx.log(
        `candles:upbit: ${rows.length} closed 1-minute candles for ${markets.length - problems.length} of the top ${markets.length} markets (${markets.join(', ')}); run requests: ${b.describe()}`,
      );
      return replaceRows(ctx.connection, [{ table: T.candles_1m, rows }]);
    }),
  );

  return [upbit, bithumb, globalPrices, fxRates, macro, candles];
}

async function fetchMacroUnit(
  up: TextUpstream,
  fetch: MacroFetch,
): Promise<{ observations: Array<[string, string, number | null]>; skipped: { total: number; skipped: string[] } }> {
  const { unit, since, until } = fetch;
  if (unit.upstream === 'fred') {
    const read = await fetchFredSeries(up, unit.fred, since, until);
    return { observations: read.rows.map((r) => [unit.fred, r.date, r.value]), skipped: read };
  }
  const [close, foreign] = unit.series as [string, string];
  const read = await fetchNaverDaily(up, unit.stock, since, until);
  return {
    observations: read.rows.flatMap(
      (b): Array<[string, string, number | null]> => [
        [close, b.date, b.close],
        [foreign, b.date, b.foreignPct],
      ],
    ),
    skipped: read,
  };
}

/** Records the rows of a list that could not be read, and says so in the run's notes. */
async function noteSkipped(
  ctx: IngestContext,
  upstream: KoreaUpstreamName,
  list: string,
  read: { total: number; skipped: readonly string[] },
): Promise<void> {
  const note = await recordSkippedRows(ctx.connection, upstream, list, read, ctx.now);
  if (note) ctx.log(note);
}

/**
 * The outcome of the several upstream calls of one step: the rows of those that answered are
 * written together, each failed call is recorded under its own name, and the step fails (after
 * writing) when any did, so the run says so.
 */
class StepFeeds {
  private readonly writes: RowsWrite[] = [];
  private readonly failures: string[] = [];
  constructor(private readonly ctx: IngestContext) {}

  write(...writes: RowsWrite[]): void {
    this.writes.push(...writes);
  }

  async failed(upstream: KoreaUpstreamName, message: string): Promise<void> {
    this.failures.push(message);
    await recordIngestFailure(this.ctx.connection, upstream, message, this.ctx.now);
  }

  skipped(upstream: KoreaUpstreamName, list: string, read: { total: number; skipped: readonly string[] }): Promise<void> {
    return noteSkipped(this.ctx, upstream, list, read);
  }

  async finish(): Promise<number> {
    const rows = this.writes.length ? await replaceRows(this.ctx.connection, this.writes) : 0;
    if (this.failures.length) throw new Error(this.failures.join('; '));
    return rows;
  }
}
