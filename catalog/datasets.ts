/**
 * The datasets of each service's snapshot: what the pipeline steps produce and the endpoints
 * read. Each declares how old it may get before /health and the site call it stale: by default
 * three update intervals, and never sooner than 10 minutes, so one slow or failed run does not
 * flag it; a dataset whose scheduled runs are further apart than its update interval (news every
 * 15 minutes, macro daily: pipelines/schedule-table.ts) declares its own
 * `staleAfterSeconds`.
 */
import { ANALYTICS_DATASET_SHAPES, type AnalyticsDatasetName } from './analytics.ts';
import { KOREA_DATASET_SHAPES, type KoreaDatasetName } from './korea.ts';
import type { DatasetDecl, DatasetShape, ServiceName } from './types.ts';

const MIN_STALE_AFTER_SECONDS = 600;

/**
 * Payments the transactions dataset keeps per service, newest first: the pipeline writes at most
 * this many of a service's 30 days, and GET /api/v1/services/:id/transactions returns them all.
 */
export const TRANSACTIONS_PER_SERVICE = 3000;

type DatasetInput<N extends string> = {
  name: N;
  description: string;
  updateEverySeconds: number;
  cohortState?: boolean;
  /** Free datasets are CC0 and published for download; paid ones are proprietary. */
  access: 'free' | 'paid';
  /**
   * A free korea dataset dedicated to the public domain: korea's other free datasets (symbols,
   * stats) are published for download but stay proprietary; analytics' free ones are all CC0.
   */
  cc0?: true;
  /** How old it may get, when three update intervals is wrong for it (say why beside it). */
  staleAfterSeconds?: number;
};

/** The default: three update intervals, at least 10 minutes. */
export function derivedStaleAfterSeconds(updateEverySeconds: number): number {
  return Math.max(3 * updateEverySeconds, MIN_STALE_AFTER_SECONDS);
}

/** A dataset with its shape (catalog/korea.ts, catalog/analytics.ts: `*_DATASET_SHAPES`). */
function dataset<N extends string>(service: ServiceName, shape: DatasetShape, input: DatasetInput<N>): DatasetDecl {
  const { access, cc0, ...rest } = input;
  return {
    service,
    ...shape,
    ...rest,
    staleAfterSeconds: input.staleAfterSeconds ?? derivedStaleAfterSeconds(input.updateEverySeconds),
    license: access === 'free' && (service === 'analytics' || cc0) ? 'CC0-1.0' : 'proprietary',
    publicDownload: access === 'free',
  };
}

const korea = (input: DatasetInput<KoreaDatasetName>) => dataset('korea', KOREA_DATASET_SHAPES[input.name], input);
const analytics = (input: DatasetInput<AnalyticsDatasetName>) => dataset('analytics', ANALYTICS_DATASET_SHAPES[input.name], input);

const MARKET = 60;
const MACRO = 900;
const AI_READ = 900;
const SENTIMENT = 3600;
const NEWS = 300;
const REFERENCE = 3600;
const ANALYTICS = 3600;
/**
 * The scheduled runs (npm run schedule, the workflow) fetch news every 15 minutes: a news
 * dataset is recomputed at most that often, so three of those runs, not three 5-minute
 * intervals, make it stale (900 s would flag it between every two runs).
 */
const NEWS_STALE_AFTER = 3 * 15 * 60;
/**
 * Macro data is fetched once a day (FRED and KRX publish daily): the stress score is as old as the
 * daily run, so it is stale when a daily run was missed, not after 45 minutes.
 */
const MACRO_STALE_AFTER = 2 * 86_400;

export const DATASETS: DatasetDecl[] = [
  // ---------------------------------------------------------------- korea
  korea({
    name: 'kr-prices',
    access: 'paid',
    updateEverySeconds: MARKET,
    description: 'Last KRW price, 24-hour change and 24-hour KRW volume per symbol on Upbit and Bithumb.',
  }),
  korea({
    name: 'kimchi-premium',
    access: 'paid',
    updateEverySeconds: MARKET,
    description: 'Kimchi premium per symbol and exchange at the official FX rate and on the USDT basis, with the global reference price.',
  }),
  ...(['1m', '1h', '1d'] as const).map((interval) =>
    korea({
      name: `kimchi-premium-${interval}`,
      access: 'paid',
      updateEverySeconds: MARKET,
      description: `The kimchi premium archive per ${{ '1m': 'minute (kept 7 days)', '1h': 'hour (kept 2 years; closed hours)', '1d': 'UTC day (kept for ever; closed days)' }[interval]}, per exchange and symbol: mean, min, max, last and minutes observed.`,
    }),
  ),
  korea({
    name: 'stablecoin-premium',
    access: 'paid',
    updateEverySeconds: MARKET,
    description: 'USDT and USDC KRW prices per exchange against the official USD/KRW rate.',
  }),
  korea({
    name: 'fx-rate',
    access: 'paid',
    updateEverySeconds: MARKET,
    description: 'USD/KRW rate (KRW per 1 USD) with its provider and time.',
  }),
  korea({
    name: 'arbitrage-executable',
    access: 'paid',
    updateEverySeconds: MARKET,
    description:
      'The executable kimchi premium of the most traded symbols: routes between the Korean exchanges and Binance at 1k, 10k and 100k USD.',
  }),
  korea({
    name: 'order-books',
    access: 'paid',
    updateEverySeconds: MARKET,
    description:
      'Order book levels within 2 % of mid of the most traded symbols on the Korean exchanges and Binance (what the executable premium walks).',
  }),
  korea({
    name: 'arbitrage-scanner',
    access: 'paid',
    updateEverySeconds: MARKET,
    description: 'Per-token kimchi premiums, reverse premiums, Upbit-Bithumb gaps and market share.',
  }),
  korea({
    name: 'exchange-alerts',
    access: 'paid',
    updateEverySeconds: MARKET,
    description: 'Listings, delistings, investment warnings and caution flags with first-seen times.',
  }),
  korea({
    name: 'market-movers',
    access: 'paid',
    updateEverySeconds: MARKET,
    description: '1-minute surges and crashes, volume spikes and the top 20 markets by 24-hour value.',
  }),
  korea({
    name: 'krw-macro-stress',
    access: 'paid',
    updateEverySeconds: MACRO,
    staleAfterSeconds: MACRO_STALE_AFTER,
    description: 'KRW macro stress score, regime, direction and five percentile-ranked components, with a factual note.',
  }),
  korea({
    name: 'kr-sentiment',
    access: 'paid',
    updateEverySeconds: SENTIMENT,
    description: 'English reading of Korean crypto market sentiment from exchange data and Korean news.',
  }),
  korea({
    name: 'market-read',
    access: 'paid',
    updateEverySeconds: AI_READ,
    description: 'AI market signal (BULLISH, BEARISH, NEUTRAL) with confidence, factors and token alerts.',
  }),
  korea({
    name: 'divergence',
    access: 'paid',
    updateEverySeconds: AI_READ,
    description: 'Global vs Korean price divergence of the 25 supported symbols, light and deep tiers (news signals, structured analysis).',
  }),
  korea({
    name: 'kr-news-kpop',
    access: 'paid',
    updateEverySeconds: NEWS,
    staleAfterSeconds: NEWS_STALE_AFTER,
    description: 'Latest Korean K-pop articles translated to English with relevance, plus the AI summary variant.',
  }),
  korea({
    name: 'kr-news-semiconductor',
    access: 'paid',
    updateEverySeconds: NEWS,
    staleAfterSeconds: NEWS_STALE_AFTER,
    description: 'Latest Korean semiconductor-industry articles translated to English, plus the AI summary variant with a market signal.',
  }),
  korea({
    name: 'symbols',
    access: 'free',
    updateEverySeconds: REFERENCE,
    description: 'Symbols with a KRW market on Upbit or Bithumb, and the 25 divergence symbols.',
  }),
  korea({
    name: 'stats',
    access: 'free',
    updateEverySeconds: REFERENCE,
    description: 'Coverage per exchange and the time, size and kind of every dataset of the snapshot.',
  }),
  korea({
    name: 'kimchi-premium-daily',
    access: 'free',
    cc0: true,
    updateEverySeconds: MARKET,
    description:
      'Free daily preview (CC0): the Korea premium index per closed UTC day, market-wide and of the 20 largest symbols, one day delayed, the last 365 days, each day with the exchanges it rests on.',
  }),

  // ---------------------------------------------------------------- analytics, free (CC0)
  analytics({
    name: 'landing-stats',
    access: 'free',
    updateEverySeconds: ANALYTICS,
    description:
      'Market overview: services indexed, transactions analysed, active buyers, real volume share, label distribution, daily category volume, new services per day.',
    cohortState: true,
  }),
  analytics({
    name: 'categories',
    access: 'free',
    updateEverySeconds: ANALYTICS,
    description: 'All 33 categories with statistics.',
    cohortState: true,
  }),
  analytics({
    name: 'category-detail',
    access: 'free',
    updateEverySeconds: ANALYTICS,
    description: 'Per category: statistics, 30-day daily series and top services.',
    cohortState: true,
  }),
  analytics({
    name: 'services',
    access: 'free',
    updateEverySeconds: ANALYTICS,
    description: 'Every indexed x402 service with 24-hour and all-time activity, real and wash volume shares and label distribution.',
    cohortState: true,
  }),
  analytics({
    name: 'service-health',
    access: 'free',
    updateEverySeconds: ANALYTICS,
    description:
      'Before you pay: per service, 7-day uptime and latency p50/p90/p99 from unpaid probes, the live offer, whether its payTo is where its payments settle, price drift, flags (dead, flaky, slow, unsignable, moved payout, decoy, price trap) and a trust grade A-F with the evidence it rests on.',
    cohortState: true,
  }),
  analytics({
    name: 'service-detail',
    access: 'free',
    updateEverySeconds: ANALYTICS,
    description: 'Per service: 30-day daily series and top buyers.',
    cohortState: true,
  }),
  analytics({
    name: 'trends',
    access: 'free',
    updateEverySeconds: ANALYTICS,
    description: '24-hour trends: new services, category movers, hot services.',
    cohortState: true,
  }),
  analytics({
    name: 'wash-report',
    access: 'free',
    updateEverySeconds: ANALYTICS,
    description: 'Aggregate wash patterns, label distribution, anonymised case studies and wash share per category.',
    cohortState: true,
  }),

  analytics({
    name: 'operators',
    access: 'free',
    updateEverySeconds: ANALYTICS,
    description:
      'Operators behind x402 sellers: sellers joined by shared funding keys, with their services, buyers, volume, wash share and the evidence (shared funding, an operator cohort, a funding burst).',
    cohortState: true,
  }),

  // ---------------------------------------------------------------- analytics, paid
  analytics({
    name: 'wash-detail',
    access: 'paid',
    updateEverySeconds: ANALYTICS,
    description: 'Per service: top 50 buyers with label, confidence and signals, and cohort signals.',
    cohortState: true,
  }),
  analytics({
    name: 'buyer-profiles',
    access: 'paid',
    updateEverySeconds: ANALYTICS,
    description: 'Per buyer wallet: label, confidence, reasons, services used, vanity cluster, timing.',
    cohortState: true,
  }),
  analytics({
    name: 'buyers',
    access: 'paid',
    updateEverySeconds: ANALYTICS,
    description: 'Per-address classification features and labels that the on-request wash check computes from.',
    cohortState: true,
  }),
  analytics({
    name: 'transactions',
    access: 'paid',
    updateEverySeconds: ANALYTICS,
    description: `Payments of the last 30 days per service: the newest ${TRANSACTIONS_PER_SERVICE} of each, and in total the count of all of them.`,
  }),
  analytics({
    name: 'full-history',
    access: 'paid',
    updateEverySeconds: ANALYTICS,
    description: 'Hourly series per category over 365 days.',
    cohortState: true,
  }),
  // the on-request wash check's point lookups (read by POST /api/v1/wash/check only)
  analytics({
    name: 'wash-check-sellers',
    access: 'paid',
    updateEverySeconds: ANALYTICS,
    description:
      "Per seller address: what the paid wash check answers a seller with (its pairs' labels weighed by 30-day volume, its cohort summary, vanity and flags).",
    cohortState: true,
  }),
];

export function datasetsOf(service: ServiceName): DatasetDecl[] {
  return DATASETS.filter((d) => d.service === service);
}

export function findDataset(service: ServiceName, name: string): DatasetDecl | undefined {
  return DATASETS.find((d) => d.service === service && d.name === name);
}

/**
 * The analytics datasets made from payments and labels: every one but service-health, which the
 * 10-minute probe run (`--datasets service-health`) remakes from fresh probes and what the last
 * full run kept. The ingest and prepare steps only these read declare them, so the probe run skips
 * them (sources/contract.ts, IngestStep.datasets).
 */
export const ANALYTICS_PAYMENT_DATASETS: readonly string[] = DATASETS.filter(
  (d) => d.service === 'analytics' && d.name !== 'service-health',
).map((d) => d.name);
