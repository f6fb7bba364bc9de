/**
 * The korea service (docs/services.md, "Korea service"): Korean-exchange prices and premiums, FX, arbitrage,
 * alerts, movers, KRW macro stress, AI sentiment / market read / divergence, translated news.
 * Every endpoint is declared here once; see types.ts for what is derived from these declarations.
 */
import { z } from 'zod';
import { usdcNetworksText } from './networks.ts';
import { EXECUTABLE } from './korea-executable.ts';
import { type DatasetShape, document, type EndpointDecl, type PaidEndpointInput, table } from './types.ts';
import {
  Analyst,
  HealthBody,
  RootDocumentBody,
  HtmlPage,
  PlainText,
  WellKnownX402Body,
  dataStamp,
  fraction,
  isoDate,
  isoDateTime,
  isoDateTimeOrNull,
  oneOf,
  percent,
  percent0to100,
  intParam,
} from './schemas.ts';

/**
 * Endpoints that look a well-formed symbol up in the exchange listings: an unlisted one gets 404
 * (checked before payment is asked). The divergence endpoints take an enum instead (422).
 */
export const SYMBOL_LOOKUP_ENDPOINT_IDS: readonly string[] = [
  'kimchi-premium',
  'kr-prices',
  'kimchi-premium-history',
  'kimchi-premium-stats',
];

import { DIVERGENCE_SYMBOLS } from './symbols.ts';
export { DIVERGENCE_SYMBOLS, type DivergenceSymbol } from './symbols.ts';

/**
 * The Korean exchanges whose prices we read, in the order every list shows them (Upbit first).
 * Upbit and Bithumb also give their market lists, caution flags, alerts and 1-minute candles
 * (LISTING_EXCHANGES); Coinone and Korbit give prices only.
 */
export const KOREAN_EXCHANGES = ['upbit', 'bithumb', 'coinone', 'korbit'] as const;
export type KoreanExchange = (typeof KOREAN_EXCHANGES)[number];
/** The exchanges whose market lists, flags, alerts and candles we read. */
export const LISTING_EXCHANGES = ['upbit', 'bithumb'] as const;

const DATA_NOTE =
  " Every response carries `source` ('live' = real exchange data, 'demo' = the built-in simulator used when the " +
  "service runs without network, 'file' = operator-imported files) and `as_of` (UTC time the data was computed).";

const AI_NOTE =
  " AI text comes from a Claude model or, without an API key, from the offline rules analyst; `analyst` says which ('claude' or 'rules').";

// ------------------------------------------------------------------ parameters

const toUpper = (value: unknown): unknown => (typeof value === 'string' ? value.trim().toUpperCase() : value);
const toLower = (value: unknown): unknown => (typeof value === 'string' ? value.trim().toLowerCase() : value);

const TICKER = /^[A-Z0-9]{1,15}$/;
const symbolParam = z.preprocess(
  toUpper,
  z
    .string({ error: 'Expected a ticker of 1 to 15 letters or digits, e.g. BTC' })
    .regex(TICKER, { error: (iss) => `Expected a ticker of 1 to 15 letters or digits, e.g. BTC, got ${JSON.stringify(iss.input)}` })
    .describe('Crypto ticker, e.g. BTC (case-insensitive; normalised to upper case).')
    .default('BTC'),
);

const divergenceSymbolParam = z.preprocess(
  toUpper,
  oneOf(DIVERGENCE_SYMBOLS, 'One of the 25 supported symbols (case-insensitive; normalised to upper case).').default('BTC'),
);

const exchangeParam = z.preprocess(
  toLower,
  oneOf([...KOREAN_EXCHANGES, 'all'], "Korean exchange: 'upbit', 'bithumb', 'coinone', 'korbit' or 'all' for every one.").default('all'),
);

const limitParam = intParam({ min: 1, max: 10, default: 5, description: 'Number of articles to return, 1 to 10.' });

const SymbolQuery = z.object({ symbol: symbolParam });
const PricesQuery = z.object({ symbol: symbolParam, exchange: exchangeParam });
const DivergenceQuery = z.object({ symbol: divergenceSymbolParam });
const NewsQuery = z.object({ limit: limitParam });

/**
 * The kimchi premium archive (pipelines/korea/archive.ts, docs/upstreams-korea.md "Premium
 * archive"): what it keeps, how the history endpoint pages and the stats endpoint's windows, each
 * with the series it is computed over. Buckets, row groups and the fold threshold shape the
 * published Parquet (partitioned by symbol).
 */
export const PREMIUM_ARCHIVE = {
  intervals: ['1m', '1h', '1d'] as const,
  /** The archive's `exchange` of the Korea premium index (per symbol; symbol MARKET_INDEX_SYMBOL for the market-wide one). */
  indexExchange: 'korea' as const,
  /** The archive's `symbol` of the market-wide Korea premium index. */
  marketIndexSymbol: 'ALL' as const,
  /** Days each interval is kept; null: for ever. */
  keepDays: { '1m': 7, '1h': 730, '1d': null } as Record<'1m' | '1h' | '1d', number | null>,
  /** Points (time, exchange) per page at most. */
  pageMax: 2000,
  /** The range a history request without `from` covers, ending at `to`. */
  defaultSpanDays: { '1m': 1, '1h': 30, '1d': 365 } as Record<'1m' | '1h' | '1d', number>,
  windows: {
    '1h': { hours: 1, series: '1m' },
    '24h': { hours: 24, series: '1m' },
    '7d': { hours: 7 * 24, series: '1h' },
    '30d': { hours: 30 * 24, series: '1h' },
    '90d': { hours: 90 * 24, series: '1h' },
    '365d': { hours: 365 * 24, series: '1h' },
  } as const,
  buckets: 64,
  rowGroupSize: 8192,
  foldMinRows: 200_000,
};
export type PremiumInterval = (typeof PREMIUM_ARCHIVE.intervals)[number];
export type PremiumWindow = keyof typeof PREMIUM_ARCHIVE.windows;
const PREMIUM_WINDOWS = Object.keys(PREMIUM_ARCHIVE.windows) as PremiumWindow[];

/**
 * The free daily preview of the Korea premium index (docs/upstreams-korea.md, "Free daily
 * preview"): the market-wide index and the `symbols` largest symbols' index per closed UTC day,
 * `delayedDays` behind (a day is published once it closed at least that many days before the
 * run), the last `keepDays` days, CC0. The minutes, hours and today stay paid.
 */
export const KIMCHI_PREMIUM_DAILY = {
  delayedDays: 1 as const,
  keepDays: 365,
  symbols: 20,
  /** `?format=`: the JSON answer, or the same rows as CSV or as the published Parquet file. */
  formats: ['json', 'csv', 'parquet'] as const,
};
export type DailyPreviewFormat = (typeof KIMCHI_PREMIUM_DAILY.formats)[number];

/** The newest day the preview publishes at `asOf`: the UTC day before yesterday (2026-11-18 at 2026-11-20T09:00:00Z). */
export function dailyPreviewThrough(asOf: Date | string): string {
  const day = Math.floor(new Date(asOf).getTime() / 86_400_000) - KIMCHI_PREMIUM_DAILY.delayedDays - 1;
  return new Date(day * 86_400_000).toISOString().slice(0, 10);
}

const DailyPreviewQuery = z.object({
  format: z.preprocess(
    toLower,
    oneOf(
      KIMCHI_PREMIUM_DAILY.formats,
      "'json' (default), 'csv' (one row per series and day: symbol, rank, day, premium_pct, min_pct, max_pct, samples, exchanges, source) or 'parquet' (the published file, the same rows).",
    ).default('json'),
  ),
});

/** A history page's cursor: base64url of the last point's time (ISO) and exchange, joined by '|'. */
export function decodeHistoryCursor(cursor: string): { t: string; exchange: string } | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return null;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const [t, exchange, ...rest] = text.split('|');
  if (rest.length > 0 || !t || !exchange || !/^[a-z]{1,20}$/.test(exchange) || Number.isNaN(Date.parse(t))) return null;
  if (!z.iso.datetime({ offset: true }).safeParse(t).success) return null;
  return { t, exchange };
}
export const encodeHistoryCursor = (t: string, exchange: string): string => Buffer.from(`${t}|${exchange}`, 'utf8').toString('base64url');

const timeParam = (description: string) =>
  z
    .union([z.iso.datetime({ offset: true }), z.iso.date()], {
      error: (iss) => `Expected an ISO 8601 time (2026-11-20T09:00:00Z) or date (2026-11-20), got ${JSON.stringify(iss.input)}`,
    })
    .optional()
    .describe(description);

const HistoryQuery = z
  .object({
    symbol: symbolParam,
    interval: z.preprocess(
      toLower,
      oneOf(
        PREMIUM_ARCHIVE.intervals,
        "Points per minute ('1m', kept 7 days), hour ('1h', kept 2 years) or UTC day ('1d', kept for ever).",
      ).default('1h'),
    ),
    from: timeParam(
      "Start of the range (inclusive; a date is its 00:00 UTC). Default: `to` less 1 day ('1m'), 30 days ('1h') or 365 days ('1d').",
    ),
    to: timeParam('End of the range (exclusive; a date is its 00:00 UTC). Default: now.'),
    limit: intParam({
      min: 1,
      max: PREMIUM_ARCHIVE.pageMax,
      default: PREMIUM_ARCHIVE.pageMax,
      description: `Points per page, 1 to ${PREMIUM_ARCHIVE.pageMax}.`,
    }),
    cursor: z
      .string()
      .refine((c) => decodeHistoryCursor(c) !== null, {
        error: 'Not a cursor this endpoint gave out: pass `next_cursor` of the previous page as it is',
      })
      .optional()
      .describe('`next_cursor` of the previous page: the next points of the same query.'),
  })
  .superRefine((q, ctx) => {
    if (q.from && q.to && Date.parse(q.from) >= Date.parse(q.to)) {
      ctx.addIssue({ code: 'custom', path: ['from'], message: `from (${q.from}) must be before to (${q.to})` });
    }
  });

const StatsQuery = z.object({
  symbol: symbolParam,
  window: z.preprocess(
    toLower,
    oneOf(PREMIUM_WINDOWS, "The window ending now: '1h' and '24h' over minute points, '7d' to '365d' over hourly points.").default('24h'),
  ),
});

const ExecutableQuery = z.object({
  symbol: symbolParam,
  size_usd: intParam({
    min: EXECUTABLE.minSizeUsd,
    max: EXECUTABLE.maxSizeUsd,
    default: EXECUTABLE.scannerSizeUsd,
    description: `Trade size in USD, ${EXECUTABLE.minSizeUsd} to ${EXECUTABLE.maxSizeUsd.toLocaleString('en-US')}: what is spent on the buying side.`,
  }),
});

/** Query schemas, exported for tests and the MCP tools. */
export const KOREA_QUERIES = { SymbolQuery, PricesQuery, DivergenceQuery, NewsQuery, HistoryQuery, StatsQuery, ExecutableQuery };

// ------------------------------------------------------------------ response pieces

const Exchange = z.enum(KOREAN_EXCHANGES).describe('Korean exchange.');
const Ticker = z.string().describe('Crypto ticker, e.g. BTC.');
const KoreanName = z.string().nullable().describe('Korean name of the token as the exchange lists it.');
const FxRate = z.number().positive().describe('USD/KRW rate used: KRW per 1 USD.');
const ModelName = z
  .string()
  .nullable()
  .describe("The Claude model that wrote the AI fields, e.g. 'claude-haiku-4-5'; null when the offline rules analyst wrote them.");
/** Who wrote a response's AI fields: spread into the response object. */
const producedBy = { analyst: Analyst, model: ModelName };
const GlobalSource = z.string().describe("Venue of the global reference price, e.g. 'binance' (USDT pair, USDT taken as USD) or 'okx'.");
const Krw = (description: string) => z.number().describe(`${description} (KRW)`);
const Usd = (description: string) => z.number().describe(`${description} (USD)`);

/** The official rate a premium was computed with, and how fresh it is. */
const fxStamp = {
  fx_rate: FxRate,
  fx_source: z.string().describe("Provider of the official rate, e.g. 'dunamu' (Hana Bank base rate) or 'er-api'; 'demo' in demo data."),
  fx_as_of: isoDateTime("The provider's time of the rate (UTC). Bank rates do not move on weekends and Korean holidays."),
};

/**
 * How far apart in time a premium's inputs may be (docs/upstreams-korea.md, "Inputs of one
 * premium"): prices (Korean, global, the exchange's USDT price, the other exchange's) within
 * `pricesMinutes` of each other, since one run's answers are seconds apart and the slack covers
 * clock differences between venues; the official rate within `fxHours` of the Korean price, since
 * bank rates do not move over a weekend and a Korean holiday and er-api publishes once a day.
 */
export const PREMIUM_INPUT_WINDOW = { pricesMinutes: 10, fxHours: 96, tradeMinutes: 60 } as const;

/** The time windows a premium's inputs must fall in, as the premium documents state them. */
const InputWindow = z
  .object({
    prices_minutes: z
      .number()
      .describe('Prices one figure combines (Korean, global, USDT, the other exchange) are at most this many minutes apart.'),
    fx_hours: z.number().describe('The USD/KRW rate is at most this many hours from the Korean price it converts.'),
    trade_minutes: z
      .number()
      .describe(
        'A Korean price whose last trade (where the exchange says when: Upbit, Korbit) is more than this many minutes before it is stale: no premium rests on it.',
      ),
  })
  .describe('A figure is computed only from inputs within these windows of each other; otherwise it is listed in `stale` with the reason.');

const staleReason = z.string().describe('Which inputs, their times and how far apart they are.');

/** A list of Korean exchanges with the reason each is named. */
const UnavailableExchangesOf = (description: string) =>
  z.array(z.object({ exchange: Exchange, reason: z.string().describe('Why, as the run saw it.') })).describe(description);

const UnavailableExchanges = z
  .array(
    z.object({
      exchange: Exchange,
      reason: z
        .string()
        .describe(
          'Why: the upstream error of this run, that the run has no data from the exchange, or that its price was too far in time from the other inputs.',
        ),
    }),
  )
  .describe(
    'Korean exchanges missing from this run (upstream down, or for kimchi-premium a price too far in time from the global price or the rate): the figures come from the other exchanges only. Empty when every exchange answered.',
  );

// ------------------------------------------------------------------ free responses

const SymbolsBody = z.object({
  ...dataStamp,
  count: z.number().int().describe('Number of symbols listed.'),
  symbols: z
    .array(
      z.object({
        symbol: Ticker,
        korean_name: KoreanName,
        english_name: z.string().nullable().describe('English name as the exchange lists it.'),
        exchanges: z.array(Exchange).describe('Korean exchanges with a KRW market for the symbol.'),
      }),
    )
    .describe('Symbols with a KRW market on Upbit or Bithumb, sorted by symbol.'),
  divergence_symbols: z
    .array(
      z.object({
        symbol: z.enum(DIVERGENCE_SYMBOLS),
        listed: z.boolean().describe('Whether a Korean exchange currently lists it (if not, divergence has no Korean price).'),
      }),
    )
    .length(DIVERGENCE_SYMBOLS.length)
    .describe('The 25 symbols the divergence endpoints support, in their fixed order.'),
});

const StatsBody = z.object({
  ...dataStamp,
  coverage: z
    .object({
      tokens_total: z.number().int().describe('Distinct symbols with a KRW market on either exchange.'),
      tokens_on_both: z.number().int().describe('Symbols with a KRW market on both exchanges.'),
      tokens_with_global_price: z.number().int().describe('Listed symbols that also have a global reference price (so a kimchi premium).'),
      exchanges: z
        .array(
          z.object({
            exchange: Exchange,
            available: z
              .boolean()
              .describe('Whether the last run had the prices of the exchange, and for Upbit and Bithumb its market list too.'),
            tokens: z
              .number()
              .int()
              .describe('KRW markets listed on the exchange (Upbit and Bithumb; 0 for the price-only Coinone and Korbit).'),
            priced: z.number().int().describe('KRW markets with a last price.'),
            with_global_price: z.number().int().describe('Priced markets whose token has a global reference price.'),
            with_candles: z.number().int().describe('Markets with 1-minute candles in the last run.'),
            flagged: z.number().int().describe('Markets with an investment warning or a caution flag.'),
            as_of: isoDateTimeOrNull('When the market list was observed; null when the last run has none.'),
            problems: z
              .string()
              .nullable()
              .describe(
                "Upstream errors of the last run for this exchange, e.g. 'bithumb: HTTP 503', and rows it sent that could not be read (skipped, the rest kept); null when none.",
              ),
          }),
        )
        .describe('Coverage per exchange, Upbit first.'),
    })
    .describe('Token coverage.'),
  datasets: z
    .array(
      z.object({
        name: z.string().describe('Dataset name.'),
        as_of: isoDateTime('When it was computed.'),
        age_seconds: z.number().int().min(0).describe('Seconds between as_of and this response.'),
        rows: z.number().int().min(0).describe('Rows (tables) or 1 (documents).'),
        source: z.string().describe("Kind of data: 'demo', 'live' or 'file'."),
        produced_in: z.string().describe('Snapshot version that computed it.'),
        carried_over_reason: z
          .string()
          .nullable()
          .describe('Why the last run could not recompute it and the previous version is served; null when it is fresh from the last run.'),
      }),
    )
    .describe('Every dataset of the snapshot served, by name.'),
  snapshot: z
    .object({
      version: z.string().describe('Snapshot version served.'),
      generated_at: isoDateTime('When the snapshot was published.'),
    })
    .describe('The snapshot this answer comes from.'),
});

/** One UTC day of the free daily preview. */
const PremiumDay = z.object({
  day: isoDate('The UTC day.'),
  premium_pct: percent('Korea premium index, the mean of the minutes observed in the day'),
  min_pct: percent('Lowest minute of the day'),
  max_pct: percent('Highest minute of the day'),
  samples: z.number().int().min(1).describe('Minutes observed in the day (1,440 when the pipeline observed every minute).'),
  exchanges: z
    .array(Exchange)
    .describe(
      'The Korean exchanges with a premium point that day (of this symbol; for the market-wide index, of any symbol but the stablecoins), Upbit first: what the day rests on. An index from one exchange names one.',
    ),
});

const PremiumDailyBody = z.object({
  ...dataStamp,
  license: z.literal('CC0-1.0').describe('Public domain (CC0 1.0): use it for anything, no attribution needed.'),
  delayed_days: z
    .literal(KIMCHI_PREMIUM_DAILY.delayedDays)
    .describe('A day is published once it closed at least this many days before as_of (the newest days and the minutes stay paid).'),
  through: isoDate('The newest day published: the UTC day before yesterday at as_of (it closed at least 24 hours before as_of).'),
  market: z
    .array(PremiumDay)
    .max(KIMCHI_PREMIUM_DAILY.keepDays)
    .describe(
      `The market-wide Korea premium index (the symbols' indices weighted by Korean 24-hour KRW volume, stablecoins out) per UTC day, oldest first, the last ${KIMCHI_PREMIUM_DAILY.keepDays} days at most.`,
    ),
  symbols: z
    .array(
      z.object({
        symbol: Ticker,
        rank: z
          .number()
          .int()
          .min(1)
          .max(KIMCHI_PREMIUM_DAILY.symbols)
          .describe('Rank by Korean 24-hour KRW volume at as_of, 1 the largest.'),
        days: z
          .array(PremiumDay)
          .max(KIMCHI_PREMIUM_DAILY.keepDays)
          .describe("The symbol's Korea premium index per UTC day, oldest first."),
      }),
    )
    .max(KIMCHI_PREMIUM_DAILY.symbols)
    .describe(
      `The ${KIMCHI_PREMIUM_DAILY.symbols} largest symbols by Korean 24-hour KRW volume at as_of (stablecoins out) that have a day published, largest first.`,
    ),
});

// ------------------------------------------------------------------ paid responses

const KrPricesBody = z.object({
  ...dataStamp,
  symbol: Ticker,
  exchange: z.enum([...KOREAN_EXCHANGES, 'all']).describe('Exchange filter as requested.'),
  prices: z
    .array(
      z.object({
        exchange: Exchange,
        symbol: Ticker,
        price_krw: Krw('Last traded price'),
        change_24h_pct: percent('Change against the previous close'),
        volume_24h_krw: Krw('24-hour traded value'),
        as_of: isoDateTime('Exchange time of the price (UTC).'),
        last_trade_at: isoDateTimeOrNull(
          'When the last trade behind the price happened (UTC); null when the exchange does not say (Bithumb).',
        ),
        trade_age_seconds: z
          .number()
          .int()
          .nullable()
          .describe('Seconds from that trade to the price time: how old the price really is; null when unknown.'),
        stale: z
          .boolean()
          .describe(
            `The last trade is more than ${PREMIUM_INPUT_WINDOW.tradeMinutes} minutes before the price time: shown, but no premium rests on it.`,
          ),
      }),
    )
    .describe('One entry per exchange that lists the symbol (and matches `exchange`).'),
});

/** The Korea premium index of one symbol (pipelines/korea/premiums.ts INDEX_ROWS_SQL). */
const SymbolIndex = z
  .object({
    premium_pct: percent(
      "Korea premium index of the symbol: the KRW price weighted by each exchange's 24-hour KRW volume, at the official rate, against the volume-weighted global price",
    ),
    price_krw: Krw('Volume-weighted Korean price'),
    global_price_usd: Usd("Global price weighted by each venue's 24-hour USD volume"),
    global_venues: z.array(z.string()).describe("Global venues in the global price, e.g. ['binance', 'okx']."),
    exchanges: z
      .array(z.object({ exchange: Exchange, weight_pct: percent("The exchange's share of the symbol's Korean 24-hour KRW volume") }))
      .describe(
        'The Korean exchanges in the index of this symbol and their weights, Upbit first; an exchange left out has a stale price, no volume or no price.',
      ),
  })
  .nullable()
  .describe('The Korea premium index of this symbol; null when no exchange has a fresh, traded price of it with 24-hour volume.');

/** The market-wide Korea premium index of one run. */
const KoreaIndex = z
  .object({
    premium_pct: percent(
      "Market-wide Korea premium index: the symbols' indices weighted by their Korean 24-hour KRW volume, stablecoins left out",
    ).nullable(),
    symbols: z.number().int().min(0).describe('Symbols in the index.'),
    volume_24h_krw: Krw('Korean 24-hour KRW volume of the symbols in the index').nullable(),
    exchanges_used: z.array(Exchange).describe('The exchanges the index rests on, Upbit first: an index from one exchange says so here.'),
    exchanges: z
      .array(
        z.object({
          exchange: Exchange,
          symbols: z.number().int().describe('Symbols this exchange contributes.'),
          volume_24h_krw: Krw('Its 24-hour KRW volume in the index'),
          weight_pct: percent("Its share of the index's volume"),
        }),
      )
      .describe('Per exchange used.'),
    left_out: UnavailableExchangesOf(
      'Korean exchanges with no weight in the index this run, with the reason (down, every price stale, prices refused as implausible).',
    ),
    method: z.string().describe('How the index is computed.'),
  })
  .describe('The Korea premium index over every Korean exchange read (Upbit, Bithumb, Coinone, Korbit).');

const KimchiPremiumBody = z.object({
  ...dataStamp,
  symbol: Ticker,
  korean_name: KoreanName,
  ...fxStamp,
  global_price_usd: Usd('Global reference price'),
  global_source: GlobalSource,
  exchanges: z
    .array(
      z.object({
        exchange: Exchange,
        price_krw: Krw('Last price on the Korean exchange'),
        premium_pct: percent('Kimchi premium at the official FX rate: (price_krw / fx_rate) / global_price_usd - 1'),
        last_trade_at: isoDateTimeOrNull('When the last trade behind price_krw happened (UTC); null when the exchange does not say.'),
        usdt_krw: Krw("The exchange's KRW-USDT price used for the USDT basis").nullable(),
        usdt_premium_pct: percent(
          'Premium on the USDT basis: (price_krw / usdt_krw) / global_price_usd - 1; null when the exchange has no USDT market. ' +
            '(1 + premium) = (1 + usdt premium) x (1 + the USDT premium of /api/v1/stablecoin-premium)',
        ).nullable(),
      }),
    )
    .describe('One entry per Korean exchange listing the symbol, Upbit first.'),
  index: SymbolIndex,
  korea_index: KoreaIndex,
  unavailable_exchanges: UnavailableExchanges,
});

const ArchiveExchange = z
  .enum([...KOREAN_EXCHANGES, PREMIUM_ARCHIVE.indexExchange])
  .describe(`Korean exchange, or '${PREMIUM_ARCHIVE.indexExchange}': the Korea premium index (volume-weighted over the exchanges).`);

const PremiumPoint = z.object({
  t: isoDateTime('Start of the minute, hour or UTC day (UTC).'),
  exchange: ArchiveExchange,
  premium_pct: percent('Kimchi premium at the official FX rate, mean of the minutes observed in the interval'),
  min_pct: percent('Lowest minute in the interval'),
  max_pct: percent('Highest minute in the interval'),
  last_pct: percent('Last minute in the interval'),
  samples: z.number().int().min(1).describe('Minutes observed in the interval (a run every minute observes 60 an hour).'),
});

const PremiumHistoryBody = z.object({
  ...dataStamp,
  symbol: Ticker,
  interval: z.enum(PREMIUM_ARCHIVE.intervals).describe('Points per minute, hour or UTC day.'),
  from: isoDateTime('Start of the range (inclusive).'),
  to: isoDateTime('End of the range (exclusive).'),
  count: z.number().int().min(0).describe('Points on this page.'),
  points: z
    .array(PremiumPoint)
    .max(PREMIUM_ARCHIVE.pageMax)
    .describe(
      `Oldest first, one per (time, exchange) the archive holds, at most ${PREMIUM_ARCHIVE.pageMax} a page. Hours and days appear once closed; a time without a point had no premium observed (an exchange down, inputs too far apart in time, or no run).`,
    ),
  next_cursor: z.string().nullable().describe('Pass as `cursor` with the same query for the next page; null on the last page.'),
  kept: z.string().describe('How long this interval is kept.'),
});

const PremiumStatsEntry = z.object({
  exchange: ArchiveExchange,
  current_pct: percent('The newest minute point (the premium now)').nullable(),
  current_at: isoDateTimeOrNull('Its time.'),
  percentile: z
    .number()
    .min(0)
    .max(100)
    .nullable()
    .describe("Share of the window's points below the current premium, percent 0 to 100; null without a current premium or points."),
  mean: percent("Mean of the window's points").nullable(),
  stdev: percent('Sample standard deviation of the points').nullable(),
  zscore: z.number().nullable().describe('(current - mean) / stdev; null when stdev is 0 or unknown.'),
  min: percent('Lowest point').nullable(),
  max: percent('Highest point').nullable(),
  samples: z.number().int().min(0).describe('Points in the window.'),
  coverage_pct: percent0to100('Points in the window over the points a full window has (one per minute or hour)'),
});

const PremiumStatsBody = z.object({
  ...dataStamp,
  symbol: Ticker,
  window: z.enum(PREMIUM_WINDOWS as [PremiumWindow, ...PremiumWindow[]]).describe('The window, ending at the newest point.'),
  series_interval: z.enum(PREMIUM_ARCHIVE.intervals).describe("The points the figures are over: '1m' for 1h and 24h, '1h' for longer."),
  from: isoDateTime('Start of the window (exclusive).'),
  to: isoDateTime('End of the window (inclusive): the newest minute archived.'),
  exchanges: z.array(PremiumStatsEntry).describe('One entry per Korean exchange with points in the window, Upbit first.'),
});

const StablecoinPremiumBody = z.object({
  ...dataStamp,
  ...fxStamp,
  premiums: z
    .array(
      z.object({
        stablecoin: z.enum(['USDT', 'USDC']),
        exchange: Exchange,
        price_krw: Krw('Last price of the stablecoin'),
        premium_pct: percent('price_krw / fx_rate - 1'),
        volume_24h_krw: Krw('24-hour traded value of the stablecoin on the exchange'),
      }),
    )
    .describe('Stablecoin price against the official USD/KRW rate, per exchange that lists it: USDT first, Upbit first.'),
  input_window: InputWindow,
  stale: z
    .array(z.object({ stablecoin: z.enum(['USDT', 'USDC']), exchange: Exchange, reason: staleReason }))
    .describe('Stablecoin prices too far in time from the official rate for a premium, with the reason; empty when none.'),
  interpretation: z
    .string()
    .describe('Plain reading of the USDT figure: a positive premium means KRW money is flowing into Korean crypto.'),
  unavailable_exchanges: UnavailableExchanges,
});

const FxRateBody = z.object({
  ...dataStamp,
  pair: z.literal('USDKRW'),
  rate: FxRate,
  unit: z.literal('KRW per 1 USD'),
  provider: z
    .string()
    .describe(
      "Where the rate came from, e.g. 'dunamu' (Hana Bank base rate) or 'er-api'. Bank rates do not move on weekends and Korean holidays; as_of is the provider's time of the rate.",
    ),
});

const premiumOn = (exchange: string) =>
  percent(
    `Kimchi premium on ${exchange}: (${exchange.toLowerCase()}_krw / fx_rate) / global_price_usd - 1; null without a ${exchange} market or a global price`,
  ).nullable();

/** One route of the executable premium (catalog/korea-executable.ts). */
const ExecutableRoute = z.object({
  exchange: Exchange,
  direction: z
    .enum(EXECUTABLE.directions)
    .describe(
      "'buy_global_sell_korea': buy on Binance, move the coins, sell on the Korean exchange (pays when the premium is positive); 'buy_korea_sell_global': the reverse.",
    ),
  size_usd: z.number().describe('USD spent on the buying side.'),
  buy_on: z.string().describe('Where the coins are bought.'),
  sell_on: z.string().describe('Where they are sold.'),
  quoted_premium_pct: percent('The Korean book mid against the Binance book mid at the official rate'),
  fillable: z.boolean().describe(`Whether both books hold the size within ${EXECUTABLE.bandPct} % of their mid.`),
  max_size_usd: z
    .number()
    .describe(
      `The most both books hold within ${EXECUTABLE.bandPct} % of their mid (USD): the buying side's asks, the selling side's bids.`,
    ),
  buy_avg_price_usd: z
    .number()
    .nullable()
    .describe('Average price paid walking the asks (USD; KRW at the official rate); null when not fillable.'),
  sell_avg_price_usd: z.number().nullable().describe('Average price received walking the bids (USD); null when not fillable.'),
  fees_pct: percent('Both taker fees (the default rate of a regular account, catalog/korea-fees.ts)'),
  withdrawal_fee: z
    .number()
    .nullable()
    .describe(
      'Withdrawal fee of the buying exchange in coins (its cheapest open network); null when it publishes none without a key (Upbit, Binance).',
    ),
  withdrawal_fee_usd: z.number().nullable().describe('The withdrawal fee at the buying price (USD).'),
  withdrawal_fee_known: z.boolean().describe('False: the net leaves the withdrawal fee out, for want of a public figure.'),
  withdraw_open: z.boolean().nullable().describe('Withdrawals of the coin open on the buying exchange (any network); null when unknown.'),
  deposit_open: z.boolean().nullable().describe('Deposits of the coin open on the selling exchange (any network); null when unknown.'),
  transfer_open: z.boolean().nullable().describe('Both open; false when either is closed; null when either is unknown.'),
  net_pct: percent('Return of the route after walking both books, both taker fees and the withdrawal fee: > 0 pays').nullable(),
});

const ExecutableFee = z.object({
  exchange: z.string(),
  taker_pct: z.number().describe('Default taker fee, percent.'),
  source: z.string().describe('Where the fee is published.'),
  as_of: z.string().describe('The date the source states (or was read).'),
});

const ExecutableStamp = {
  band_pct: z.number().describe('Books are walked within this many percent of their mid.'),
  global_venue: z.literal(EXECUTABLE.globalVenue).describe('The global side of every route (its USDT at 1 USD).'),
  fees: z.array(ExecutableFee).describe('The taker fees used.'),
  unavailable: z
    .array(z.object({ exchange: z.string(), reason: z.string() }))
    .describe('Books or wallet statuses missing from this run, and wallet statuses no exchange publishes without a key, with the reason.'),
};

const ArbitrageExecutableBody = z.object({
  ...dataStamp,
  ...fxStamp,
  symbol: Ticker,
  size_usd: z.number().describe('The size asked (USD).'),
  ...ExecutableStamp,
  books_as_of: z.array(z.object({ exchange: z.string(), as_of: isoDateTime('Time of the book.') })).describe('The books walked.'),
  routes: z.array(ExecutableRoute).describe('Per Korean exchange with a book of the symbol, both directions, Upbit first.'),
  best: ExecutableRoute.nullable().describe(
    'The fillable route with the highest net whose transfer is not known to be closed; null when none.',
  ),
});

const ArbitrageScannerBody = z.object({
  ...dataStamp,
  ...fxStamp,
  thresholds: z
    .object({
      gap_pct: z.number().describe('exchange_gaps lists gaps larger than this in absolute value (percent).'),
      reverse_premium_pct: z.number().describe('A premium below this counts as a reverse premium (percent; 0).'),
    })
    .describe('Thresholds used for the lists.'),
  counts: z
    .object({
      tokens: z.number().int().describe('Tokens in `tokens`.'),
      on_both_exchanges: z.number().int().describe('Tokens with a KRW market on both exchanges.'),
      with_global_price: z.number().int().describe('Tokens with a global reference price.'),
      reverse_premium: z.number().int().describe('Tokens flagged reverse_premium.'),
    })
    .describe('Counts over `tokens`.'),
  tokens: z
    .array(
      z.object({
        symbol: Ticker,
        korean_name: KoreanName,
        global_price_usd: Usd('Global reference price').nullable(),
        global_source: GlobalSource.nullable(),
        upbit_krw: Krw('Upbit last price').nullable(),
        bithumb_krw: Krw('Bithumb last price').nullable(),
        upbit_premium_pct: premiumOn('Upbit'),
        bithumb_premium_pct: premiumOn('Bithumb'),
        reverse_premium: z
          .boolean()
          .describe(
            'True when the token trades below the global price on every Korean exchange that has a premium for it; false without a global price.',
          ),
        gap_pct: percent('Upbit-Bithumb gap: upbit_krw / bithumb_krw - 1; null unless both list the token').nullable(),
        upbit_volume_24h_krw: Krw('Upbit 24-hour traded value').nullable(),
        bithumb_volume_24h_krw: Krw('Bithumb 24-hour traded value').nullable(),
        upbit_share_pct: percent("Upbit's share of the token's combined 24-hour KRW volume").nullable(),
        bithumb_share_pct: percent("Bithumb's share of the token's combined 24-hour KRW volume").nullable(),
        investment_warning: z.boolean().describe('Under an investment warning on either exchange.'),
        executable: ExecutableRoute.pick({
          exchange: true,
          direction: true,
          size_usd: true,
          net_pct: true,
          fillable: true,
          transfer_open: true,
        })
          .nullable()
          .describe(
            `The best route at ${EXECUTABLE.scannerSizeUsd.toLocaleString('en-US')} USD (as /api/v1/arbitrage/executable gives it): the fillable one with the highest net whose transfer is not known to be closed; null for a token without order books this run (the most traded ones have them).`,
          ),
      }),
    )
    .describe(
      'Every token with a KRW market on Upbit or Bithumb; highest premium (the larger of the two) first, tokens without a premium last, then by symbol.',
    ),
  reverse_premiums: z
    .array(z.object({ symbol: Ticker, exchange: Exchange, premium_pct: percent('Negative premium: cheaper in Korea') }))
    .describe('Exchange listings trading below the global price (reverse premium), most negative first, at most 20.'),
  exchange_gaps: z
    .array(
      z.object({
        symbol: Ticker,
        upbit_krw: Krw('Upbit last price'),
        bithumb_krw: Krw('Bithumb last price'),
        gap_pct: percent('upbit_krw / bithumb_krw - 1'),
      }),
    )
    .describe('Upbit-Bithumb last-price gaps larger than thresholds.gap_pct in absolute value, largest first, at most 20.'),
  market_share: z
    .object({
      upbit_pct: percent('Upbit share of the combined 24-hour KRW volume of all KRW markets; null when neither has volume').nullable(),
      bithumb_pct: percent('Bithumb share of the combined 24-hour KRW volume of all KRW markets; null when neither has volume').nullable(),
      upbit_volume_krw: Krw('Upbit 24-hour traded value, all KRW markets'),
      bithumb_volume_krw: Krw('Bithumb 24-hour traded value, all KRW markets'),
    })
    .describe('Market share of the two exchanges overall.'),
  input_window: InputWindow,
  stale: z
    .array(
      z.object({
        symbol: Ticker,
        figure: z.enum(['upbit_premium', 'bithumb_premium', 'gap']).describe('The figure left out (null in `tokens`).'),
        reason: staleReason,
      }),
    )
    .describe('Figures whose inputs are too far apart in time, with the reason; empty when none.'),
});

const flagTimes = {
  first_seen: isoDateTime('When this service first saw it (or began tracking the exchange, see `tracking`).'),
  last_seen: isoDateTime('The last observation that still showed it.'),
  started_at: isoDateTimeOrNull('Start the exchange announces, when it does (Bithumb alerts); null otherwise.'),
  ends_at: isoDateTimeOrNull('Release time the exchange announces, when it does (Bithumb alerts); null otherwise.'),
};

const ExchangeAlertsBody = z.object({
  ...dataStamp,
  window_days: z.number().int().describe('listing_changes and recently_ended cover this many days before as_of.'),
  tracking: z
    .array(
      z.object({
        exchange: Exchange,
        since: isoDateTime('First observation of the exchange: what it listed then is the baseline, not reported as new.'),
        last_observed: isoDateTime('Latest observation of its market list.'),
        markets_observed: z.boolean().describe('Whether this run observed its market list (listing changes are detected only then).'),
        flags_observed: z.boolean().describe('Whether this run observed its flags (flags start and end only then).'),
      }),
    )
    .describe('How far back detection goes per exchange.'),
  counts: z
    .object({
      new_listings: z.number().int(),
      delistings: z.number().int(),
      investment_warnings: z.number().int(),
      caution_flags: z.number().int(),
    })
    .describe('Listing changes in the window, and active warnings and flags.'),
  listing_changes: z
    .array(
      z.object({
        exchange: Exchange,
        symbol: Ticker,
        korean_name: KoreanName,
        change: z.enum(['new_listing', 'delisting']),
        detected_at: isoDateTime('The observation that first showed the change.'),
        previous_observed_at: isoDateTime('The observation before it: the change happened in between.'),
      }),
    )
    .describe('KRW markets that appeared or disappeared within window_days, newest first.'),
  investment_warnings: z
    .array(z.object({ exchange: Exchange, symbol: Ticker, korean_name: KoreanName, ...flagTimes }))
    .describe('Markets under an investment warning (투자유의 / 유의 종목) now, Upbit first, by symbol.'),
  caution_flags: z
    .array(
      z.object({
        exchange: Exchange,
        symbol: Ticker,
        korean_name: KoreanName,
        flag: z
          .string()
          .describe(
            'The raised criterion. Upbit caution (주의): PRICE_FLUCTUATIONS, TRADING_VOLUME_SOARING, DEPOSIT_AMOUNT_SOARING, GLOBAL_PRICE_DIFFERENCES, CONCENTRATION_OF_SMALL_ACCOUNTS. ' +
              'Bithumb alert (경보제): PRICE_SUDDEN_FLUCTUATION, TRADING_VOLUME_SUDDEN_FLUCTUATION, DEPOSIT_AMOUNT_SUDDEN_FLUCTUATION, PRICE_DIFFERENCE_HIGH, SPECIFIC_ACCOUNT_HIGH_TRANSACTION, EXCHANGE_TRADING_CONCENTRATION.',
          ),
        system: z.enum(['upbit_caution', 'bithumb_alert', 'other']).describe('Which alert system raised it.'),
        ...flagTimes,
      }),
    )
    .describe('Caution flags raised now, one entry per market and flag, Upbit first, by symbol and flag.'),
  recently_ended: z
    .array(
      z.object({
        exchange: Exchange,
        symbol: Ticker,
        korean_name: KoreanName,
        flag: z.string().describe('The flag that ended (INVESTMENT_WARNING for an investment warning).'),
        system: z.enum(['investment_warning', 'upbit_caution', 'bithumb_alert', 'other']),
        ...flagTimes,
        ended_at: isoDateTime('The first observation that no longer showed it.'),
      }),
    )
    .describe('Warnings and flags that ended within window_days, newest first.'),
  unavailable_exchanges: UnavailableExchanges,
});

const MarketMoversBody = z.object({
  ...dataStamp,
  thresholds: z
    .object({
      move_1m_pct: z.number().describe('Minimum absolute 1-minute price change to count as a surge or crash (percent).'),
      volume_spike_ratio: z.number().describe("Minimum ratio of the last minute's KRW volume to its trailing average per minute."),
      volume_spike_min_krw: z.number().describe('Minimum KRW volume in the last minute for a volume spike.'),
      trailing_minutes: z.number().int().describe('Length of the trailing window for the average (minutes).'),
    })
    .describe('Thresholds used for this response.'),
  minutes: z
    .array(
      z.object({
        exchange: Exchange,
        minute: isoDateTime('Start of the last closed 1-minute candle of the exchange (UTC).'),
        markets_traded: z.number().int().describe('Markets with a trade (a candle) in that minute.'),
      }),
    )
    .describe('The minute each exchange was read at.'),
  candle_markets: z
    .array(z.object({ exchange: Exchange, markets: z.number().int().describe('Markets with 1-minute candles in this run.') }))
    .describe(
      'How many markets of each exchange movers and spikes were looked for in (the live source reads candles of the most traded markets only).',
    ),
  movers_1m: z
    .array(
      z.object({
        exchange: Exchange,
        symbol: Ticker,
        direction: z.enum(['surge', 'crash']),
        minute: isoDateTime('Start of the minute of the move.'),
        prev_minute: isoDateTime(
          'Start of the candle the previous price comes from: the minute before, or earlier when the market did not trade in between (the last traded price carries over).',
        ),
        prev_price_krw: Krw('Price at the end of the minute before'),
        price_krw: Krw('Close of the minute'),
        change_1m_pct: percent('price_krw / prev_price_krw - 1'),
        volume_1m_krw: Krw('Traded value in the minute'),
      }),
    )
    .describe('1-minute surges and crashes of the last closed minute, largest absolute move first, at most 20.'),
  volume_spikes: z
    .array(
      z.object({
        exchange: Exchange,
        symbol: Ticker,
        minute: isoDateTime('Start of the minute of the spike.'),
        volume_1m_krw: Krw('Traded value in the last closed minute'),
        avg_volume_1m_krw: Krw('Average traded value per minute over the trailing window (minutes without trades count as zero)'),
        trailing_minutes: z
          .number()
          .int()
          .describe('Minutes in the trailing window (fewer than thresholds.trailing_minutes when the candle history is shorter).'),
        ratio: z.number().describe('volume_1m_krw / avg_volume_1m_krw.'),
        change_1m_pct: percent('Price change in the minute').nullable(),
        change_24h_pct: percent('24-hour price change').nullable(),
      }),
    )
    .describe('Markets whose last-minute volume jumped against their trailing average, highest ratio first, at most 20.'),
  top_volume: z
    .array(
      z.object({
        rank: z.number().int().min(1),
        symbol: Ticker,
        korean_name: KoreanName,
        volume_24h_krw: Krw('24-hour traded value over both exchanges'),
        exchanges: z
          .array(
            z.object({
              exchange: Exchange,
              price_krw: Krw('Last price'),
              volume_24h_krw: Krw('24-hour traded value'),
              change_24h_pct: percent('24-hour price change'),
            }),
          )
          .describe('Per exchange listing the token, Upbit first.'),
      }),
    )
    .describe('Top 20 tokens by 24-hour KRW traded value over both exchanges.'),
  unavailable_exchanges: UnavailableExchanges.describe(
    'Korean exchanges without prices or without 1-minute candles in this run: no movers or spikes are reported for them. Empty when both have both.',
  ),
});

const MACRO_COMPONENTS = ['us_rate_stress', 'risk_sentiment', 'foreign_flow', 'fx_momentum', 'semiconductor'] as const;
const MacroRegime = z
  .enum(['calm', 'neutral', 'caution', 'risk_off', 'crisis'])
  .describe('Score band: below 20 calm, below 40 neutral, below 60 caution, below 80 risk_off, otherwise crisis.');

const KrwMacroStressBody = z.object({
  ...dataStamp,
  data_date: isoDate('Latest date of the daily history the score is computed for.'),
  score: z.number().min(0).max(100).describe('Composite stress score 0 (calm) to 100 (crisis): weighted sum of the component percentiles.'),
  regime: MacroRegime,
  direction: z
    .enum(['krw_weakening', 'stable', 'strengthening'])
    .describe(
      'USD/KRW change over the last 5 trading days: +0.3 % or more krw_weakening, -0.3 % or less strengthening, otherwise (or unknown) stable.',
    ),
  usdkrw_change_5d_pct: percent('USD/KRW change over the last 5 trading days (FRED DEXKOUS)').nullable(),
  usdkrw_now: z
    .object({ rate: FxRate, source: fxStamp.fx_source, as_of: fxStamp.fx_as_of })
    .nullable()
    .describe(
      "The run's official USD/KRW, the same rate /api/v1/fx-rate and the premiums of the run use; the fx_momentum component reads FRED's daily closes up to data_date (its inputs.usdkrw), which can differ from it. Null when the run has no rate.",
    ),
  components: z
    .array(
      z.object({
        name: z.enum(MACRO_COMPONENTS).describe('Component id.'),
        label: z.string().describe('What the component measures, in words.'),
        raw_value: z.number().nullable().describe('Latest stress input before ranking, in `unit`; null when unavailable.'),
        unit: z
          .string()
          .describe("Unit of raw_value, e.g. 'percent' (yield), 'index points' (VIX), 'percentage points' (ownership change)."),
        percentile: z
          .number()
          .min(0)
          .max(100)
          .nullable()
          .describe(
            'Rolling 120-trading-day percentile of raw_value (0 to 100): the share of the window strictly below it; null without enough history.',
          ),
        weight: fraction('Nominal weight: 0.25, 0.25, 0.20, 0.20, 0.10'),
        effective_weight: fraction('Weight actually used after degraded components are dropped and the rest renormalised'),
        freshness_days: z.number().int().nullable().describe('Days since the latest raw observation (the oldest of its inputs).'),
        last_observation: isoDate('Date of that observation.').nullable(),
        degraded: z
          .boolean()
          .describe(
            'True when the component was left out (no value, its latest value is older than 10 days, too little history, or its upstream failed 5 runs in a row).',
          ),
        degraded_reason: z.string().nullable().describe('Why it was left out; null when it is used.'),
        inputs: z
          .record(z.string(), z.number().nullable())
          .describe(
            'The named inputs behind raw_value on the latest date, e.g. {us_3y_yield_pct}, {usdkrw, change_5d_pct, volatility_20d_pct}.',
          ),
      }),
    )
    .length(5)
    .describe(
      'The five components, in this order: us_rate_stress (US 3-year Treasury yield, FRED DGS3), risk_sentiment (VIX), ' +
        'foreign_flow (negative 5-day change of the market-cap-weighted foreign ownership of SK hynix and Samsung Electronics), ' +
        'fx_momentum (5-day USD/KRW change plus 20-day volatility of daily changes), semiconductor (negative 5-day market-cap-weighted return of the two stocks).',
    ),
  degraded: z.array(z.enum(MACRO_COMPONENTS)).describe('Components left out of this score.'),
  history: z
    .array(z.object({ date: isoDate('Trading day.'), score: z.number().min(0).max(100), regime: MacroRegime }))
    .describe('The score on each of the last 20 trading days, oldest first, computed with the components used today.'),
  note: z.string().describe('Short factual note on what drives the score; no trading advice.'),
  ...producedBy,
  window_days: z.number().int().describe('Length of the rolling percentile window (trading days).'),
  method: z.string().describe("How the score is computed, e.g. 'rolling percentile 120d over a 2-year backfill, weights 25/25/20/20/10'."),
});

const KrSentimentBody = z.object({
  ...dataStamp,
  sentiment: z.enum(['bullish', 'bearish', 'neutral']).describe('Overall mood of the Korean crypto market.'),
  sentiment_score: z.number().min(-1).max(1).describe('-1 very bearish to +1 very bullish.'),
  summary: z.string().min(1).max(1200).describe('English paragraph on the Korean market mood, from exchange data and Korean news.'),
  key_drivers: z.array(z.string().min(1).max(160)).min(1).max(6).describe('What moves the mood, one short phrase each.'),
  indicators: z
    .object({
      btc_kimchi_premium_pct: percent('BTC kimchi premium on Upbit').nullable(),
      usdt_premium_pct: percent('USDT premium on Upbit').nullable(),
      advancers: z.number().int().describe('Upbit KRW markets up over 24 hours.'),
      decliners: z.number().int().describe('Upbit KRW markets down over 24 hours.'),
      volume_24h_krw: Krw('Combined 24-hour traded value of both exchanges'),
    })
    .describe('The exchange numbers the reading is based on.'),
  headlines: z
    .array(
      z.object({
        title_en: z.string().nullable().describe('English title; null when no translation is available (live data without a Claude key).'),
        title_kr: z.string().describe('Original Korean title.'),
        source_en: z.string(),
        published_at: isoDateTime('Publication time.'),
        sentiment_score: z
          .number()
          .min(-1)
          .max(1)
          .nullable()
          .describe('Lexicon sentiment of the Korean text, -1 to +1; null when it has no sentiment words.'),
      }),
    )
    .describe('The Korean crypto-market headlines of the last 24 hours that informed the reading, newest first, at most 8.'),
  inputs: z
    .object({
      datasets: z.array(z.string()).describe('Datasets of this snapshot the exchange figures come from.'),
      exchanges: z.array(Exchange).describe('Korean exchanges whose data was used.'),
      news_articles: z
        .number()
        .int()
        .min(0)
        .describe("Korean crypto-market articles of the last 24 hours read: the run's whole article set (the newest 50 go to the model)."),
      news_window_hours: z.literal(24),
      news_sentiment_score: z
        .number()
        .min(-1)
        .max(1)
        .nullable()
        .describe('Mean lexicon sentiment of those articles; null without sentiment words.'),
    })
    .describe('What the reading is based on.'),
  ...producedBy,
});

export const MARKET_ALERT_TYPES = [
  'premium_spike',
  'reverse_premium',
  'price_surge',
  'price_crash',
  'volume_spike',
  'investment_warning',
  'new_listing',
  'delisting',
] as const;

const MarketReadBody = z.object({
  ...dataStamp,
  signal: z.enum(['BULLISH', 'BEARISH', 'NEUTRAL']).describe('Overall market signal.'),
  confidence: fraction('Confidence in the signal'),
  summary: z.string().min(1).max(1200).describe('Two to four sentences explaining the signal.'),
  factors: z.array(z.string().min(1).max(200)).min(1).max(8).describe('The observations behind the signal.'),
  alerts: z
    .array(
      z.object({
        symbol: Ticker,
        exchange: z.enum(['upbit', 'bithumb', 'both']).describe('Where it happened.'),
        type: z.enum(MARKET_ALERT_TYPES).describe('What happened.'),
        severity: z.enum(['info', 'warning', 'critical']),
        message: z.string().describe('One sentence on the alert, with the figure.'),
        trigger: z
          .object({
            figure: z
              .string()
              .describe("The figure that triggered the alert, e.g. 'kimchi_premium_pct', 'change_1m_pct', 'volume_ratio', 'listed_at'."),
            value: z.number().nullable().describe('Its value (null for events without a number, e.g. a warning).'),
            threshold: z.number().nullable().describe('The threshold it crossed (same unit).'),
            source: z.string().describe("Dataset of this snapshot the figure comes from, e.g. 'market-movers'."),
          })
          .describe('What raised the alert: computed from the data, not written by the model.'),
      }),
    )
    .describe('Token-level alerts computed from the snapshot data (not by the model), most severe first, at most 20.'),
  ...producedBy,
});

const DivergenceBody = z.object({
  ...dataStamp,
  symbol: z.enum(DIVERGENCE_SYMBOLS).describe('Requested symbol.'),
  global_price_usd: Usd('Global reference price'),
  global_source: GlobalSource,
  fx_rate: FxRate,
  exchanges: z
    .array(
      z.object({
        exchange: Exchange,
        price_krw: Krw('Last price'),
        price_usd: Usd('price_krw / fx_rate'),
        divergence_pct: percent('price_usd / global_price_usd - 1'),
      }),
    )
    .describe('Korean exchanges listing the symbol; empty when none does.'),
  divergence_pct: percent(
    "The symbol's Korea premium index: the exchanges' prices weighted by their 24-hour KRW volume against the volume-weighted global price; null when no Korean exchange lists the symbol",
  ).nullable(),
  summary: z.string().min(1).max(400).describe('One to two sentence AI summary of the divergence.'),
  ...producedBy,
});

const DivergenceDeepBody = DivergenceBody.extend({
  news_signals: z
    .object({
      window_hours: z.literal(24),
      articles_in_window: z
        .number()
        .int()
        .min(0)
        .describe(
          "The run's article set: every Korean crypto-market article of the 24 hours (kr-sentiment's inputs.news_articles for the same run).",
        ),
      article_count: z
        .number()
        .int()
        .describe('Of those, the articles that mention the token, or none of the 25 symbols (news about the market in general).'),
      top_keywords: z.array(z.string()).describe('Most frequent keywords (English), most frequent first.'),
      sentiment_score: z.number().min(-1).max(1).nullable().describe('-1 negative to +1 positive; null without articles.'),
    })
    .describe('Korean news signals over the last 24 hours.'),
  analysis: z
    .object({
      korean_market_drivers: z.array(z.string().min(1).max(200)).min(1).max(5).describe('What drives the Korean price.'),
      global_context: z.string().min(1).max(600).describe('What the global market is doing.'),
      action_suggestion: z.string().min(1).max(400).describe('What to watch or do next; informational, not financial advice.'),
      confidence: z
        .enum(['low', 'medium', 'high'])
        .describe(
          'Confidence rating of the analysis: how far its inputs agree and how much there is (both exchanges agreeing, news volume, the news tone against the gap; the rules analyst\'s rule is in the README, "AI and news").',
        ),
      model: ModelName.describe('The Claude model that wrote the analysis (the deep model); null for the rules analyst.'),
    })
    .describe('Structured AI analysis.'),
});

const NewsArticle = z.object({
  id: z.string().describe('Stable article id.'),
  title_en: z
    .string()
    .min(1)
    .max(300)
    .nullable()
    .describe('Title translated to English; null when no translation is available (translation is unavailable).'),
  summary_en: z
    .string()
    .min(1)
    .max(1200)
    .nullable()
    .describe(
      'Two to three sentence English summary of the article, stating every number of the Korean text; null when no translation is available.',
    ),
  source_en: z.string().describe('Publisher name in English.'),
  title_kr: z.string().describe('Original Korean title.'),
  source_kr: z.string().describe('Publisher name in Korean.'),
  url: z.string().describe('Link to the original article.'),
  published_at: isoDateTime('Publication time.'),
  translation: z
    .enum(['claude', 'demo_reference', 'unavailable'])
    .describe(
      "Who wrote title_en and summary_en: 'claude' = a Claude model (every number checked against the Korean text); 'demo_reference' = the demo world's reference English (demo data only); " +
        "'unavailable' = no translation (live data without an ANTHROPIC_API_KEY): the Korean title is published and the English fields are null, never invented.",
    ),
  translation_model: ModelName.describe('The Claude model that translated the article; null otherwise.'),
});
const KpopArticle = NewsArticle.extend({
  relevance: z
    .enum(['high', 'medium', 'low'])
    .describe(
      'AI classification of how relevant the article is to K-pop (artists, agencies, releases, charts, tours): by Claude when translation is claude, else by the rules analyst.',
    ),
});

const newsList = <A extends z.ZodObject>(topic: 'kpop' | 'semiconductor', article: A) =>
  z.object({
    ...dataStamp,
    topic: z.literal(topic),
    count: z.number().int().describe('Number of articles returned (at most `limit`).'),
    articles: z.array(article).describe('Newest first.'),
    analyst: Analyst.describe('Who wrote the AI fields of this response (summaries; see each article for its translation).'),
    model: ModelName,
  });

const KpopNewsBody = newsList('kpop', KpopArticle);
const SemiconductorNewsBody = newsList('semiconductor', NewsArticle);
const summaryFields = {
  overall_sentiment: z.enum(['positive', 'negative', 'neutral', 'mixed']).describe('Overall tone of the articles.'),
  key_themes: z.array(z.string().min(1).max(80)).max(8).describe('Main themes, most important first.'),
  trending_entities: z.array(z.string().min(1).max(80)).max(10).describe('People, groups, companies or products mentioned most.'),
  summary: z.string().min(1).max(1500).describe('One paragraph summary of the articles, in English.'),
};
const KpopSummaryBody = KpopNewsBody.extend(summaryFields);
const SemiconductorSummaryBody = SemiconductorNewsBody.extend({
  ...summaryFields,
  market_signal: z.enum(['bullish', 'bearish', 'neutral']).describe('What the news suggests for Korean semiconductor equities.'),
});

/** Response schemas, exported for the proxy, the pipelines and tests. */
export const KOREA_RESPONSES = {
  SymbolsBody,
  StatsBody,
  PremiumDailyBody,
  KrPricesBody,
  KimchiPremiumBody,
  PremiumHistoryBody,
  PremiumStatsBody,
  StablecoinPremiumBody,
  FxRateBody,
  ArbitrageScannerBody,
  ExchangeAlertsBody,
  MarketMoversBody,
  KrwMacroStressBody,
  KrSentimentBody,
  MarketReadBody,
  DivergenceBody,
  DivergenceDeepBody,
  KpopNewsBody,
  KpopSummaryBody,
  SemiconductorNewsBody,
  SemiconductorSummaryBody,
};

// ------------------------------------------------------------------ datasets

/** The kimchi-premium document's entry of one symbol: the endpoint's answer without the run's stamp and rate. */
const KimchiPremiumEntry = KimchiPremiumBody.pick({
  symbol: true,
  korean_name: true,
  global_price_usd: true,
  global_source: true,
  exchanges: true,
  index: true,
}).extend({
  stale_exchanges: UnavailableExchanges.describe(
    'Exchanges whose price of this symbol was too far in time from the other inputs, with the reason.',
  ),
});

/** kimchi-premium: every symbol's premium of one run; the endpoint answers one symbol of it. */
const KimchiPremiumDocument = z.object({
  ...dataStamp,
  ...fxStamp,
  symbols_count: z.number().int().min(0).describe('Symbols in `by_symbol`.'),
  by_symbol: z.record(Ticker, KimchiPremiumEntry),
  no_global_price: z.array(Ticker).describe('Listed symbols without a global reference price (no premium).'),
  korea_index: KoreaIndex,
  input_window: InputWindow,
  stale: z.array(z.object({ symbol: Ticker, exchange: Exchange, reason: staleReason })),
  unavailable_exchanges: UnavailableExchanges,
});

/** divergence: the deep answer of every divergence symbol of one run; the endpoints answer one (light: without news and analysis). */
const DivergenceDocument = z.object({
  ...dataStamp,
  ...producedBy,
  by_symbol: z.record(Ticker, DivergenceDeepBody.omit({ source: true, as_of: true, analyst: true, model: true })),
  unavailable: z.record(Ticker, z.string()).describe('Divergence symbols without an answer, with the reason.'),
});

/** A news document: the newest articles, and the summary of the newest n articles for each n the endpoint's `limit` allows. */
const SummaryCount = z.string().regex(/^\d+$/).describe('How many of the newest articles the summary covers.');
const KpopNewsDocument = KpopNewsBody.omit({ count: true }).extend({ summaries: z.record(SummaryCount, z.object(summaryFields)) });
const SemiconductorNewsDocument = SemiconductorNewsBody.omit({ count: true }).extend({
  summaries: z.record(SummaryCount, z.object({ ...summaryFields, market_signal: SemiconductorSummaryBody.shape.market_signal })),
});

/** arbitrage-executable: every route of the symbols with books, at the published sizes; the endpoint walks the order-books table for any size. */
const ArbitrageExecutableDocument = z.object({
  ...dataStamp,
  ...fxStamp,
  ...ExecutableStamp,
  sizes_usd: z.array(z.number()).describe('The sizes of `routes`.'),
  symbols: z.array(Ticker).describe('Symbols with books on Binance and at least one Korean exchange this run.'),
  books: z
    .array(
      z.object({
        exchange: z.string(),
        symbol: Ticker,
        as_of: isoDateTime('Time of the book.'),
        bid_levels: z.number().int(),
        ask_levels: z.number().int(),
      }),
    )
    .describe('The books read this run.'),
  wallets: z
    .array(
      z.object({
        exchange: z.string(),
        symbol: Ticker,
        deposit_open: z.boolean().nullable(),
        withdraw_open: z.boolean().nullable(),
        withdrawal_fee: z.number().nullable().describe('Cheapest open network, in coins.'),
      }),
    )
    .describe('Wallet status per exchange and symbol where published without a key.'),
  routes: z.array(ExecutableRoute.extend({ symbol: Ticker })).describe('By symbol, exchange (Upbit first), direction and size.'),
});

/** stats: coverage of the run; the endpoint adds every dataset's age from the manifest it serves. */
const StatsDocument = StatsBody.pick({ source: true, as_of: true, coverage: true }).extend({
  datasets: z.array(StatsBody.shape.datasets.element.pick({ name: true, as_of: true, rows: true, source: true })),
});

/**
 * The shape of every korea dataset (catalog/datasets.ts declares them): the writer checks it before
 * publishing, the handlers read their types from it. A document served as published has the
 * endpoint's response schema.
 */
/** The archive's published rows (pipelines/korea/archive.ts), one table per interval, partitioned by symbol. */
const PREMIUM_ARCHIVE_TABLE = table({
  symbol: 'VARCHAR',
  exchange: 'VARCHAR',
  t: 'TIMESTAMP',
  premium_pct: 'DOUBLE',
  min_pct: 'DOUBLE',
  max_pct: 'DOUBLE',
  last_pct: 'DOUBLE',
  samples: 'INTEGER',
});

export const KOREA_DATASET_SHAPES = {
  'kr-prices': table({
    symbol: 'VARCHAR',
    exchange: 'VARCHAR',
    price_krw: 'DOUBLE',
    change_24h_pct: 'DOUBLE',
    volume_24h_krw: 'DOUBLE',
    as_of: 'TIMESTAMP',
    last_trade_at: 'TIMESTAMP',
    trade_age_seconds: 'BIGINT',
    stale: 'BOOLEAN',
    source: 'VARCHAR',
  }),
  'kimchi-premium': document(KimchiPremiumDocument),
  ...(Object.fromEntries(PREMIUM_ARCHIVE.intervals.map((i) => [`kimchi-premium-${i}`, PREMIUM_ARCHIVE_TABLE])) as Record<
    `kimchi-premium-${PremiumInterval}`,
    typeof PREMIUM_ARCHIVE_TABLE
  >),
  'stablecoin-premium': document(StablecoinPremiumBody),
  'fx-rate': document(FxRateBody),
  'arbitrage-scanner': document(ArbitrageScannerBody),
  'arbitrage-executable': document(ArbitrageExecutableDocument),
  'order-books': table({
    exchange: 'VARCHAR',
    symbol: 'VARCHAR',
    side: 'VARCHAR',
    level: 'BIGINT',
    price: 'DOUBLE',
    qty: 'DOUBLE',
    quote: 'VARCHAR',
    // bandSql's walk columns at the run's rate: price in USD, USD and quantity of the better levels, the book's mid in USD
    p: 'DOUBLE',
    usd_before: 'DOUBLE',
    qty_before: 'DOUBLE',
    mid: 'DOUBLE',
    as_of: 'TIMESTAMP',
  }),
  'exchange-alerts': document(ExchangeAlertsBody),
  'market-movers': document(MarketMoversBody),
  'krw-macro-stress': document(KrwMacroStressBody),
  'kr-sentiment': document(KrSentimentBody),
  'market-read': document(MarketReadBody),
  divergence: document(DivergenceDocument),
  'kr-news-kpop': document(KpopNewsDocument),
  'kr-news-semiconductor': document(SemiconductorNewsDocument),
  symbols: document(SymbolsBody),
  stats: document(StatsDocument),
  // the free daily preview (KIMCHI_PREMIUM_DAILY): symbol 'ALL' is the market-wide index (rank NULL)
  'kimchi-premium-daily': table({
    symbol: 'VARCHAR',
    rank: 'INTEGER',
    day: 'DATE',
    premium_pct: 'DOUBLE',
    min_pct: 'DOUBLE',
    max_pct: 'DOUBLE',
    samples: 'INTEGER',
    exchanges: 'VARCHAR[]',
    source: 'VARCHAR',
  }),
} satisfies Record<string, DatasetShape>;

export type KoreaDatasetName = keyof typeof KOREA_DATASET_SHAPES;
/** The documents of the korea datasets, by name, as their schemas type them. */
export type KoreaDocuments = {
  [N in KoreaDatasetName as (typeof KOREA_DATASET_SHAPES)[N] extends { kind: 'document' }
    ? N
    : never]: (typeof KOREA_DATASET_SHAPES)[N] extends {
    document: infer S extends z.ZodType;
  }
    ? z.infer<S>
    : never;
};

// ------------------------------------------------------------------ endpoints

const korea = (decl: Omit<EndpointDecl, 'service'>): EndpointDecl => ({ service: 'korea', ...decl });

/**
 * A paid endpoint: the price is written once, in `priceUsd`; the description's price line and the
 * MCP tool's "Paid: ..." are made from it.
 */
const paid = (decl: PaidEndpointInput): EndpointDecl =>
  korea({
    ...decl,
    description:
      decl.description +
      ` Price: ${decl.priceUsd} USD per call, paid with x402 in USDC on ${usdcNetworksText('korea')};` +
      ' the same data is at /api/v1/xrpl/... for RLUSD on XRPL.',
    ...(decl.mcpTool ? { mcpTool: { ...decl.mcpTool, description: `${decl.mcpTool.description} Paid: ${decl.priceUsd} USD.` } } : {}),
    access: 'paid',
    xrplVariant: true,
  });

export const KOREA_ENDPOINTS: EndpointDecl[] = [
  // ---------------------------------------------------------------- free
  korea({
    id: 'root',
    method: 'GET',
    path: '/',
    summary: 'Root document: what the service is, its endpoints and prices.',
    description:
      'JSON overview of the service: name, description, links to /docs, /llms.txt, the OpenAPI document, the x402 manifest, /health and the MCP server, the settlement and AI modes, the snapshot being served, and every endpoint with its price.',
    access: 'free',
    cacheTtlSeconds: 300,
    response: RootDocumentBody,
    dataset: null,
  }),
  korea({
    id: 'well-known-x402',
    method: 'GET',
    path: '/.well-known/x402',
    summary: 'x402 discovery manifest.',
    description:
      'x402scan-compatible discovery document: `version` 1 with `resources`, the absolute URLs of every paid resource (XRPL variants included), and `items`, the same resources with method, query defaults and output type (x402 foundation discovery draft); instructions for agents, and `receipt_signer.public_key`, the key that signs every paid receipt.',
    access: 'free',
    cacheTtlSeconds: 300,
    response: WellKnownX402Body,
    dataset: null,
  }),
  korea({
    id: 'llms-txt',
    method: 'GET',
    path: '/llms.txt',
    summary: 'Plain-text summary for language models.',
    description:
      'Plain-text description of the service for language models and agents: what each endpoint returns, its parameters and price, and how to pay.',
    access: 'free',
    cacheTtlSeconds: 300,
    response: PlainText,
    dataset: null,
    contentType: 'text/plain',
  }),
  korea({
    id: 'health',
    method: 'GET',
    path: '/health',
    summary: 'Service health and data freshness.',
    description:
      'Whether the service has data and how fresh each dataset is (`stale` when older than three update intervals, at least 10 minutes), which snapshot version is served and whether it holds demo data, the settlement mode (local: payments verified, no funds move) and the AI mode (Claude or the offline rules analyst), with every problem in words. Status 503 while no snapshot is published. Not cached.',
    access: 'free',
    cacheTtlSeconds: 0,
    response: HealthBody,
    dataset: null,
    mcpTool: {
      name: 'check_health',
      description: 'Check the service health, the freshness of every dataset, and whether data is live or demo. Free.',
    },
  }),
  korea({
    id: 'symbols',
    method: 'GET',
    path: '/api/v1/symbols',
    summary: 'Tradeable symbols on Upbit and Bithumb.',
    description:
      'Every symbol with a KRW market on Upbit or Bithumb (Korean and English names, which exchanges list it), plus the 25 symbols the divergence endpoints support.' +
      DATA_NOTE,
    access: 'free',
    cacheTtlSeconds: 300,
    response: SymbolsBody,
    dataset: 'symbols',
    mcpTool: {
      name: 'get_available_symbols',
      description: 'List the crypto symbols traded in KRW on Upbit and Bithumb, and the 25 symbols the divergence tools support. Free.',
    },
  }),
  korea({
    id: 'stats',
    method: 'GET',
    path: '/api/v1/stats',
    summary: 'Coverage statistics of the service.',
    description:
      'Coverage statistics: tokens per exchange and in total (listed, priced, with a global price, with candles, flagged, and upstream problems of the last run), and every dataset of the snapshot with its time, age, size, kind of data and whether it was carried over from an earlier run.' +
      DATA_NOTE,
    access: 'free',
    cacheTtlSeconds: 300,
    response: StatsBody,
    dataset: 'stats',
  }),
  korea({
    id: 'kimchi-premium-daily',
    method: 'GET',
    path: '/api/v1/kimchi-premium/daily',
    summary: 'Free daily preview: the Korea premium index and its 20 largest symbols per UTC day, one day delayed, CC0.',
    description:
      `The Korea premium index per closed UTC day, free and public domain (CC0): market-wide and for the ${KIMCHI_PREMIUM_DAILY.symbols} largest symbols by Korean 24-hour KRW volume (stablecoins out), ` +
      `each day's mean, min and max of the minutes observed and how many, over the last ${KIMCHI_PREMIUM_DAILY.keepDays} days. One day delayed: the newest day is the UTC day before yesterday (\`through\`); today, yesterday, the minutes and hours, the exchanges' own premiums and the other symbols are in the paid archive (/api/v1/kimchi-premium/history). ` +
      'Each day names the Korean exchanges it rests on: an index from one exchange says one, never four. ' +
      "`?format=csv` gives the same rows as CSV (one per series and day; symbol 'ALL' is the market-wide index) and `?format=parquet` the published Parquet file." +
      DATA_NOTE,
    access: 'free',
    cacheTtlSeconds: 300,
    query: DailyPreviewQuery,
    response: PremiumDailyBody,
    dataset: 'kimchi-premium-daily',
    downloadFormats: ['csv', 'parquet'],
  }),
  korea({
    id: 'docs',
    method: 'GET',
    path: '/docs',
    summary: 'Interactive API reference.',
    description:
      'HTML reference pages generated from the OpenAPI document: every endpoint with its parameters, responses, price and a try-it form.',
    access: 'free',
    cacheTtlSeconds: 300,
    response: HtmlPage,
    dataset: null,
    contentType: 'text/html',
  }),

  // ---------------------------------------------------------------- paid: prices and premiums
  paid({
    id: 'kimchi-premium',
    tags: ['crypto', 'korea', 'kimchi-premium', 'market-data'],
    method: 'GET',
    path: '/api/v1/kimchi-premium',
    summary: 'Kimchi premium of one token on Upbit and Bithumb.',
    description:
      'Kimchi premium of `symbol`: the gap between its KRW price on each Korean exchange and the global reference price (Binance USDT pair, OKX fallback) converted at the official USD/KRW rate, ' +
      "plus the same premium on the USDT basis (against the exchange's own KRW-USDT price). Percent: 2.5 means the Korean price is 2.5 % higher. " +
      'A well-formed symbol that no Korean exchange lists, or that has no global reference price (e.g. USDT itself: see /api/v1/stablecoin-premium), gets 404 before any payment is asked. ' +
      "When one exchange is down, the other one's premium is served and the missing one is named in unavailable_exchanges. " +
      `A premium combines only inputs close in time (prices within ${PREMIUM_INPUT_WINDOW.pricesMinutes} minutes of each other, the rate within ${PREMIUM_INPUT_WINDOW.fxHours} hours of the price): ` +
      'an exchange whose price is further from them is named in unavailable_exchanges, and a symbol with no current premium on either exchange gets 503 with the reason before any payment is asked.' +
      DATA_NOTE,
    priceUsd: '0.001',
    cacheTtlSeconds: 60,
    query: SymbolQuery,
    response: KimchiPremiumBody,
    dataset: 'kimchi-premium',
    mcpTool: {
      name: 'get_kimchi_premium',
      description:
        'Kimchi premium of a crypto token (default BTC): Korean exchange price vs the global price at the official USD/KRW rate, per exchange.',
    },
  }),
  paid({
    id: 'kimchi-premium-history',
    tags: ['crypto', 'korea', 'kimchi-premium', 'history', 'market-data'],
    method: 'GET',
    path: '/api/v1/kimchi-premium/history',
    summary: 'Kimchi premium history of one token per minute, hour or day, per exchange.',
    description:
      'The archived kimchi premium of `symbol` on each Korean exchange: per minute (kept 7 days), per hour (2 years) or per UTC day (for ever), each point the mean of the minutes observed in it with their min, max, last and count. ' +
      `Oldest first, at most \`limit\` (default and most ${PREMIUM_ARCHIVE.pageMax}) points a page; \`next_cursor\` continues the same query. Hours and days appear once closed; minutes older than 7 days and hours older than 2 years are not served. ` +
      'A range whose `from` is not before `to`, an unknown interval or a cursor this endpoint did not give out gets 422; a symbol the archive has never seen gets 404, both before any payment is asked.' +
      DATA_NOTE,
    priceUsd: '0.01',
    cacheTtlSeconds: 60,
    query: HistoryQuery,
    response: PremiumHistoryBody,
    dataset: 'kimchi-premium-1h',
    mcpTool: {
      name: 'get_kimchi_premium_history',
      description:
        'Kimchi premium history of a token (default BTC) per minute, hour or day and exchange, from the archive; paged with next_cursor.',
    },
  }),
  paid({
    id: 'kimchi-premium-stats',
    tags: ['crypto', 'korea', 'kimchi-premium', 'history', 'statistics'],
    method: 'GET',
    path: '/api/v1/kimchi-premium/stats',
    summary: 'Where the kimchi premium stands now against its own history: percentile, mean, stdev, z-score.',
    description:
      'For `symbol` on each Korean exchange over a window ending now (1h and 24h over minute points, 7d to 365d over hourly points): the current premium, its percentile within the window, the mean, standard deviation, z-score, min, max, the number of points and the coverage (points over a full window). ' +
      'An unknown window gets 422 and a symbol the archive has never seen 404, before any payment is asked.' +
      DATA_NOTE,
    priceUsd: '0.01',
    cacheTtlSeconds: 60,
    query: StatsQuery,
    response: PremiumStatsBody,
    dataset: 'kimchi-premium-1h',
    mcpTool: {
      name: 'get_kimchi_premium_stats',
      description:
        'Kimchi premium of a token now against its history (window 1h to 365d): percentile, mean, stdev, z-score, min, max, coverage, per exchange.',
    },
  }),
  paid({
    id: 'stablecoin-premium',
    tags: ['crypto', 'korea', 'stablecoins', 'kimchi-premium', 'market-data'],
    method: 'GET',
    path: '/api/v1/stablecoin-premium',
    summary: 'USDT and USDC premium in Korea against the official FX rate.',
    description:
      'Price of USDT and USDC in KRW on Upbit and Bithumb against the official USD/KRW rate: premium = price_krw / fx_rate - 1, in percent. A positive premium means KRW is flowing into Korean crypto.' +
      DATA_NOTE,
    priceUsd: '0.001',
    cacheTtlSeconds: 60,
    response: StablecoinPremiumBody,
    dataset: 'stablecoin-premium',
    mcpTool: {
      name: 'get_stablecoin_premium',
      description: 'USDT and USDC premium on Korean exchanges against the official USD/KRW rate.',
    },
  }),
  paid({
    id: 'kr-prices',
    tags: ['crypto', 'korea', 'prices', 'market-data'],
    method: 'GET',
    path: '/api/v1/kr-prices',
    summary: 'KRW prices of one token on Upbit and Bithumb.',
    description:
      'Last KRW price, 24-hour change (percent) and 24-hour traded value (KRW) of `symbol` on Upbit, Bithumb or both (`exchange`). ' +
      'A well-formed symbol that no Korean exchange lists gets 404 before any payment is asked.' +
      DATA_NOTE,
    priceUsd: '0.001',
    cacheTtlSeconds: 60,
    query: PricesQuery,
    response: KrPricesBody,
    dataset: 'kr-prices',
    mcpTool: { name: 'get_kr_prices', description: 'KRW price, 24h change and volume of a crypto token on Upbit and/or Bithumb.' },
  }),
  paid({
    id: 'fx-rate',
    tags: ['korea', 'fx', 'usd-krw', 'market-data'],
    method: 'GET',
    path: '/api/v1/fx-rate',
    summary: 'USD/KRW exchange rate.',
    description:
      "Official USD/KRW rate (KRW per 1 USD; Hana Bank base rate via Dunamu, with fallbacks) with its provider; `as_of` is the provider's time of the rate." +
      DATA_NOTE,
    priceUsd: '0.001',
    cacheTtlSeconds: 60,
    response: FxRateBody,
    dataset: 'fx-rate',
    mcpTool: { name: 'get_fx_rate', description: 'Current USD/KRW exchange rate with provider and time.' },
  }),

  // ---------------------------------------------------------------- paid: AI analysis
  paid({
    id: 'kr-sentiment',
    tags: ['crypto', 'korea', 'sentiment', 'ai'],
    method: 'GET',
    path: '/api/v1/kr-sentiment',
    summary: 'Korean crypto market sentiment in English.',
    description:
      'English-language reading of the Korean crypto market mood from exchange data (premiums, advancers and decliners, volume) and Korean news: a sentiment label, a score from -1 to +1, a paragraph and the key drivers. Recomputed hourly.' +
      AI_NOTE +
      DATA_NOTE,
    priceUsd: '0.05',
    cacheTtlSeconds: 3600,
    response: KrSentimentBody,
    dataset: 'kr-sentiment',
    mcpTool: {
      name: 'get_kr_sentiment',
      description: 'English summary of Korean crypto market sentiment from exchange data and Korean news.',
    },
  }),
  paid({
    id: 'krw-macro-stress',
    tags: ['korea', 'macro', 'usd-krw', 'risk', 'ai'],
    method: 'GET',
    path: '/api/v1/krw-macro-stress',
    summary: 'KRW macro stress score 0 to 100 with its five components.',
    description:
      'Composite KRW macro stress score (0 calm to 100 crisis) with regime and USD/KRW direction. Each of five components (US 3-year Treasury yield, VIX, foreign ownership of SK hynix and Samsung Electronics weighted by market cap, USD/KRW momentum, Korean semiconductor equity) ' +
      'is ranked as a rolling 120-trading-day percentile over a 2-year backfill; the score is their weighted sum (25/25/20/20/10), renormalised when a component is degraded. Includes a short factual AI note with no trading advice. Recomputed every 15 minutes.' +
      AI_NOTE +
      DATA_NOTE,
    priceUsd: '0.05',
    cacheTtlSeconds: 900,
    response: KrwMacroStressBody,
    dataset: 'krw-macro-stress',
    mcpTool: {
      name: 'get_krw_macro_stress',
      description: 'KRW macro stress score 0-100 with regime, USD/KRW direction and its five components.',
    },
  }),
  paid({
    id: 'arbitrage-scanner',
    tags: ['crypto', 'korea', 'arbitrage', 'market-data'],
    method: 'GET',
    path: '/api/v1/arbitrage-scanner',
    summary: 'Per-token kimchi premiums, reverse premiums, Upbit-Bithumb gaps and market share.',
    description:
      "Every token with a KRW market on Upbit or Bithumb, side by side: the kimchi premium on each exchange (highest first), a reverse-premium flag (cheaper in Korea than globally), the Upbit-Bithumb last-price gap, and each exchange's share of the token's 24-hour KRW volume; " +
      'plus the most negative premiums, the gaps above 0.3 % and the overall market share of the two exchanges. Premiums are on last prices; each token with order books this run also carries its best executable route at 10,000 USD (books, fees, wallets: /api/v1/arbitrage/executable). ' +
      'It compares both exchanges, so when one is down the previous scan is served (see /health).' +
      DATA_NOTE,
    priceUsd: '0.01',
    cacheTtlSeconds: 60,
    response: ArbitrageScannerBody,
    dataset: 'arbitrage-scanner',
    mcpTool: {
      name: 'get_arbitrage_scanner',
      description: 'Scan all Korean-listed tokens for kimchi premiums, reverse premiums, Upbit-Bithumb gaps and market share.',
    },
  }),
  paid({
    id: 'arbitrage-executable',
    tags: ['crypto', 'korea', 'arbitrage', 'kimchi-premium', 'order-book'],
    method: 'GET',
    path: '/api/v1/arbitrage/executable',
    summary: 'The kimchi premium you can actually execute at a size: both order books, fees, withdrawal fee, wallet status.',
    description:
      `For \`symbol\` and \`size_usd\`, every route between a Korean exchange (Upbit, Bithumb, Coinone, Korbit) and Binance, both ways: the average prices walking both order books within ${EXECUTABLE.bandPct} % of their mid, both default taker fees, the withdrawal fee of the buying exchange, whether withdrawals and deposits are open on both sides, and the net return (> 0 pays); ` +
      'the most a size can be within the books, and the best route. A withdrawal fee or wallet status an exchange publishes only to API key holders (Upbit, Binance) is null and said so, never guessed. ' +
      'Books are read for the most traded symbols each run; another symbol gets 404 before any payment is asked.' +
      DATA_NOTE,
    priceUsd: '0.01',
    cacheTtlSeconds: 60,
    query: ExecutableQuery,
    response: ArbitrageExecutableBody,
    dataset: 'arbitrage-executable',
    mcpTool: {
      name: 'get_arbitrage_executable',
      description:
        'The executable kimchi premium of a token at a trade size (USD): order-book walk, taker and withdrawal fees, wallet status, net return per route between Korean exchanges and Binance.',
    },
  }),
  paid({
    id: 'exchange-alerts',
    tags: ['crypto', 'korea', 'exchange-alerts', 'listings'],
    method: 'GET',
    path: '/api/v1/exchange-alerts',
    summary: 'Listings, delistings, investment warnings and caution flags.',
    description:
      'New listings and delistings seen on Upbit and Bithumb in the last 7 days (detected by comparing successive market lists), markets under an investment warning, caution flags (Upbit 주의: price fluctuation, volume or deposit surge, global price gap, small-account concentration; Bithumb 경보제 alerts), ' +
      'each with when it was first and last seen and the start and end the exchange announces where it does, and the warnings and flags that ended in the last 7 days. History is kept across runs.' +
      DATA_NOTE,
    priceUsd: '0.01',
    cacheTtlSeconds: 300,
    response: ExchangeAlertsBody,
    dataset: 'exchange-alerts',
    mcpTool: {
      name: 'get_exchange_alerts',
      description: 'Recent listings and delistings, investment warnings and caution flags on Upbit and Bithumb.',
    },
  }),
  paid({
    id: 'market-movers',
    tags: ['crypto', 'korea', 'market-movers', 'market-data'],
    method: 'GET',
    path: '/api/v1/market-movers',
    summary: '1-minute surges and crashes, volume spikes, top 20 by volume.',
    description:
      "1-minute price surges and crashes of the last closed minute (from 1-minute candles; a minute without trades keeps the last traded price), volume spikes (the last minute's KRW volume against its trailing 60-minute average, not 24-hour change) and the top 20 tokens by 24-hour KRW traded value over Upbit and Bithumb. The thresholds used are in `thresholds`." +
      DATA_NOTE,
    priceUsd: '0.01',
    cacheTtlSeconds: 60,
    response: MarketMoversBody,
    dataset: 'market-movers',
    mcpTool: {
      name: 'get_market_movers',
      description: 'Korean market movers: 1-minute surges and crashes, volume spikes and the top 20 tokens by volume.',
    },
  }),
  paid({
    id: 'market-read',
    tags: ['crypto', 'korea', 'market-analysis', 'ai'],
    method: 'GET',
    path: '/api/v1/market-read',
    summary: 'AI market read: BULLISH, BEARISH or NEUTRAL with confidence and token alerts.',
    description:
      'An AI reading of the Korean crypto market from premiums, flows, movers, alerts and macro stress: a signal (BULLISH, BEARISH or NEUTRAL), a confidence from 0 to 1, a short explanation, the factors behind it and token-level alerts. Recomputed every 15 minutes.' +
      AI_NOTE +
      DATA_NOTE,
    priceUsd: '0.10',
    cacheTtlSeconds: 900,
    response: MarketReadBody,
    dataset: 'market-read',
    mcpTool: {
      name: 'get_market_read',
      description: 'AI market read of the Korean crypto market: BULLISH/BEARISH/NEUTRAL signal with confidence and token alerts.',
    },
  }),
  paid({
    id: 'global-vs-korea-divergence',
    tags: ['crypto', 'korea', 'divergence', 'ai'],
    method: 'GET',
    path: '/api/v1/global-vs-korea-divergence',
    summary: 'Global vs Korean price divergence of one of 25 symbols, with a short AI summary.',
    description:
      'Divergence between the global reference price of `symbol` (one of 25) and its price on each Korean exchange converted at the official rate, in percent, with a one to two sentence AI summary. Recomputed every 15 minutes.' +
      AI_NOTE +
      DATA_NOTE,
    priceUsd: '0.05',
    cacheTtlSeconds: 900,
    query: DivergenceQuery,
    response: DivergenceBody,
    dataset: 'divergence',
    mcpTool: {
      name: 'get_global_vs_korea_divergence',
      description: 'Global vs Korean price divergence of a token (one of 25 symbols) with a short AI summary.',
    },
  }),
  paid({
    id: 'global-vs-korea-divergence-deep',
    tags: ['crypto', 'korea', 'divergence', 'ai'],
    method: 'GET',
    path: '/api/v1/global-vs-korea-divergence-deep',
    summary: 'Divergence plus 24-hour Korean news signals and a structured AI analysis.',
    description:
      'Everything in the light tier, plus Korean news signals over the last 24 hours (article count, top keywords, sentiment score) and a structured AI analysis: korean_market_drivers, global_context, an action suggestion (informational, not financial advice) and a confidence rating. Recomputed every 15 minutes.' +
      AI_NOTE +
      DATA_NOTE,
    priceUsd: '0.10',
    cacheTtlSeconds: 900,
    query: DivergenceQuery,
    response: DivergenceDeepBody,
    dataset: 'divergence',
    mcpTool: {
      name: 'get_global_vs_korea_divergence_deep',
      description:
        'Deep global vs Korea divergence analysis of a token (one of 25 symbols): news signals, Korean market drivers, global context.',
    },
  }),

  // ---------------------------------------------------------------- paid: news
  paid({
    id: 'kr-news-kpop',
    tags: ['korea', 'news', 'k-pop', 'translation'],
    method: 'GET',
    path: '/api/v1/kr-news/kpop',
    summary: 'Korean K-pop news translated to English.',
    description:
      'The latest Korean K-pop news (at most `limit`, newest first), each with English title, summary and source, the original Korean title and source, and an AI relevance classification (high, medium, low).' +
      AI_NOTE +
      DATA_NOTE,
    priceUsd: '0.01',
    cacheTtlSeconds: 300,
    query: NewsQuery,
    response: KpopNewsBody,
    dataset: 'kr-news-kpop',
    mcpTool: { name: 'get_kr_news_kpop', description: 'Latest Korean K-pop news translated to English (limit 1-10).' },
  }),
  paid({
    id: 'kr-news-kpop-summary',
    tags: ['korea', 'news', 'k-pop', 'summary', 'ai'],
    method: 'GET',
    path: '/api/v1/kr-news/kpop-summary',
    summary: 'K-pop news with an AI summary, themes and trending names.',
    description:
      'The same articles as /api/v1/kr-news/kpop plus overall_sentiment, key_themes, trending_entities and a one-paragraph English summary.' +
      AI_NOTE +
      DATA_NOTE,
    priceUsd: '0.05',
    cacheTtlSeconds: 300,
    query: NewsQuery,
    response: KpopSummaryBody,
    dataset: 'kr-news-kpop',
    mcpTool: {
      name: 'get_kr_news_kpop_summary',
      description: 'Korean K-pop news in English with an AI summary, themes, trending names and overall sentiment.',
    },
  }),
  paid({
    id: 'kr-news-semiconductor',
    tags: ['korea', 'news', 'semiconductors', 'translation'],
    method: 'GET',
    path: '/api/v1/kr-news/semiconductor',
    summary: 'Korean semiconductor-industry news translated to English.',
    description:
      'The latest Korean semiconductor-industry news (at most `limit`, newest first), each with English title, summary and source and the original Korean title and source.' +
      AI_NOTE +
      DATA_NOTE,
    priceUsd: '0.02',
    cacheTtlSeconds: 300,
    query: NewsQuery,
    response: SemiconductorNewsBody,
    dataset: 'kr-news-semiconductor',
    mcpTool: {
      name: 'get_kr_news_semiconductor',
      description: 'Latest Korean semiconductor-industry news translated to English (limit 1-10).',
    },
  }),
  paid({
    id: 'kr-news-semiconductor-summary',
    tags: ['korea', 'news', 'semiconductors', 'summary', 'ai'],
    method: 'GET',
    path: '/api/v1/kr-news/semiconductor-summary',
    summary: 'Semiconductor news with an AI summary and a market signal.',
    description:
      'The same articles as /api/v1/kr-news/semiconductor plus overall_sentiment, key_themes, trending_entities, a market_signal (bullish, bearish, neutral) and a one-paragraph English summary.' +
      AI_NOTE +
      DATA_NOTE,
    priceUsd: '0.10',
    cacheTtlSeconds: 300,
    query: NewsQuery,
    response: SemiconductorSummaryBody,
    dataset: 'kr-news-semiconductor',
    mcpTool: {
      name: 'get_kr_news_semiconductor_summary',
      description: 'Korean semiconductor news in English with an AI summary, themes and a market signal (bullish, bearish, neutral).',
    },
  }),
];
