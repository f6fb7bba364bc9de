/**
 * The korea pipeline's live source: one ingest step per upstream, so one upstream down never
 * sinks the others.
 *
 *   ingest:upbit          kr_markets, market_flags, kr_tickers (exchange upbit)     2 requests
 *   ingest:bithumb        kr_markets, market_flags, kr_tickers (exchange bithumb)   3 requests
 *   ingest:coinone        kr_tickers (exchange coinone): prices only                1
 *   ingest:korbit         kr_tickers (exchange korbit): prices only                 1
 *   ingest:global_prices  global_prices: Binance and OKX                            2
 *   ingest:fx_rates       fx_rates: Dunamu, er-api when Dunamu fails                1 (2)
 *   ingest:macro_daily    macro_daily from the kept history, extended incrementally 0-2 (backfill free)
 *   ingest:candles_1m     Upbit 1-minute candles of the top markets by KRW volume   what is left, 1-5
 *   ingest:order_books    order_books, wallet_status: the executable premium's     21, apart from the budget
 *                         books of the 5 most traded symbols on every venue (steps/books.ts)
 *
 * Korean news (news_articles) has its own step and cadence, outside this budget: news/index.ts,
 * added by the korea pipeline (pipelines/korea/index.ts) after these steps.
 *
 * A run stays within 15 upstream requests (backfill excluded): the fixed feeds take 10, the macro
 * refresh at most 2 while leaving 3 for candles, and the candles take the rest (at most 5), so a
 * Dunamu fallback, or a retry, costs a candle market rather than the budget. Candles
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
import type { IngestStep } from '../../contract.ts';
import { ingestKit, type KoreaIngestStep, type KoreaLiveOverrides } from './ingest-kit.ts';
import { bithumbStep } from './steps/bithumb.ts';
import { booksStep } from './steps/books.ts';
import { candlesStep } from './steps/candles.ts';
import { coinoneStep, korbitStep } from './steps/price-only.ts';
import { fxRatesStep } from './steps/fx-rates.ts';
import { globalPricesStep } from './steps/global-prices.ts';
import { macroStep } from './steps/macro.ts';
import { upbitStep } from './steps/upbit.ts';

export { ingestFailureReason, type KoreaUpstreamName } from './ingest-failures.ts';
export { PUBLIC_BASE_URLS } from './clients.ts';
export type { KoreaLiveOverrides } from './ingest-kit.ts';

/**
 * The ingest steps in run order, one module each under steps/ (made from the run's kit,
 * ingest-kit.ts). Candles come last: they take what the others left of the request budget.
 */
const KOREA_INGEST_STEPS: readonly KoreaIngestStep[] = [
  upbitStep,
  bithumbStep,
  coinoneStep,
  korbitStep,
  globalPricesStep,
  fxRatesStep,
  macroStep,
  candlesStep,
  // after the tickers it picks its symbols from; its requests are counted apart from the budget
  booksStep,
];

export function koreaLiveIngestSteps(settings: Settings, overrides: KoreaLiveOverrides = {}): IngestStep[] {
  const kit = ingestKit(settings, overrides);
  return KOREA_INGEST_STEPS.map((make) => make(kit));
}
