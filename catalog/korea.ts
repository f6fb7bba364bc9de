/**
 * The korea service (spec/korea-service.md): Korean-exchange prices and premiums, FX, arbitrage,
 * alerts, movers, KRW macro stress, AI sentiment / market read / divergence, translated news.
 * Every endpoint is declared here once; see types.ts for what is derived from these declarations.
 */
import { z } from 'zod';
import type { EndpointDecl } from './types.ts';
import {
  Analyst,
  HealthBody,
  RootDocumentBody,
  HtmlPage,
  PlainText,
  WellKnownX402Body,
  dataStamp,
  fraction,
  isoDateTime,
  isoDateTimeOrNull,
  oneOf,
  percent,
  intParam,
} from './schemas.ts';

/**
 * Endpoints that look a well-formed symbol up in the exchange listings: an unlisted one gets 404
 * (checked before payment is asked). The divergence endpoints take an enum instead (422).
 */
export const SYMBOL_LOOKUP_ENDPOINT_IDS: readonly string[] = ['kimchi-premium', 'kr-prices'];

import { DIVERGENCE_SYMBOLS } from './symbols.ts';
export { DIVERGENCE_SYMBOLS, type DivergenceSymbol } from './symbols.ts';

export const KOREAN_EXCHANGES = ['upbit', 'bithumb'] as const;

/**
 * The spec lists three prices twice with different values; the formal description (OpenAPI) says
 * 0.001, an older prose listing 0.002. We charge the formal description's price.
 */
export const KOREA_PRICE_NOTE =
  'Prices: kimchi-premium, stablecoin-premium and kr-prices cost 0.001 USD per call, the price of the formal ' +
  'interface description; an older prose listing said 0.002. krw-macro-stress (0.05 USD) appears in the prose listing only.';

const DATA_NOTE =
  " Every response carries `source` ('live' = real exchange data, 'demo' = the built-in simulator used when the " +
  "service runs without network, 'file' = operator-imported files) and `as_of` (UTC time the data was computed).";

const AI_NOTE =
  " AI text comes from a Claude model or, without an API key, from the offline rules analyst; `analyst` says which ('claude' or 'rules').";

function priceLine(price: string, note?: string): string {
  return (
    ` Price: ${price} USD per call${note ? ` (${note})` : ''}, paid with x402 in USDC on base, polygon or solana;` +
    ' the same data is at /api/v1/xrpl/... for RLUSD on XRPL.'
  );
}
const PRICE_DISAGREEMENT = "the formal description's price; an older prose listing said 0.002";

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
  oneOf(['upbit', 'bithumb', 'all'], "Korean exchange: 'upbit', 'bithumb' or 'all' for both.").default('all'),
);

const limitParam = intParam({ min: 1, max: 10, default: 5, description: 'Number of articles to return, 1 to 10.' });

const SymbolQuery = z.object({ symbol: symbolParam });
const PricesQuery = z.object({ symbol: symbolParam, exchange: exchangeParam });
const DivergenceQuery = z.object({ symbol: divergenceSymbolParam });
const NewsQuery = z.object({ limit: limitParam });

/** Query schemas, exported for tests and the MCP tools. */
export const KOREA_QUERIES = { SymbolQuery, PricesQuery, DivergenceQuery, NewsQuery };

// ------------------------------------------------------------------ response pieces

const Exchange = z.enum(KOREAN_EXCHANGES).describe('Korean exchange.');
const Ticker = z.string().describe('Crypto ticker, e.g. BTC.');
const KoreanName = z.string().nullable().describe('Korean name of the token as the exchange lists it.');
const FxRate = z.number().positive().describe('USD/KRW rate used: KRW per 1 USD.');
const GlobalSource = z.string().describe("Venue of the global reference price, e.g. 'binance' (USDT pair, USDT taken as USD) or 'okx'.");
const Krw = (description: string) => z.number().describe(`${description} (KRW)`);
const Usd = (description: string) => z.number().describe(`${description} (USD)`);

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
      exchanges: z
        .array(z.object({ exchange: Exchange, tokens: z.number().int().describe('KRW markets on the exchange.') }))
        .describe('Coverage per exchange.'),
    })
    .describe('Token coverage.'),
  datasets: z
    .array(
      z.object({
        name: z.string().describe('Dataset name.'),
        as_of: isoDateTime('When it was computed.'),
        rows: z.number().int().min(0).describe('Rows (tables) or 1 (documents).'),
        source: z.string().describe("Kind of data: 'demo', 'live' or 'file'."),
      }),
    )
    .describe('Every dataset of the snapshot, by name.'),
});

// ------------------------------------------------------------------ paid responses

const KrPricesBody = z.object({
  ...dataStamp,
  symbol: Ticker,
  exchange: z.enum(['upbit', 'bithumb', 'all']).describe('Exchange filter as requested.'),
  prices: z
    .array(
      z.object({
        exchange: Exchange,
        symbol: Ticker,
        price_krw: Krw('Last traded price'),
        change_24h_pct: percent('Change against the previous close'),
        volume_24h_krw: Krw('24-hour traded value'),
        as_of: isoDateTime('Exchange time of the price (UTC).'),
      }),
    )
    .describe('One entry per exchange that lists the symbol (and matches `exchange`).'),
});

const KimchiPremiumBody = z.object({
  ...dataStamp,
  symbol: Ticker,
  fx_rate: FxRate,
  global_price_usd: Usd('Global reference price'),
  global_source: GlobalSource,
  exchanges: z
    .array(
      z.object({
        exchange: Exchange,
        price_krw: Krw('Last price on the Korean exchange'),
        premium_pct: percent('Kimchi premium at the official FX rate: (price_krw / fx_rate) / global_price_usd - 1'),
        usdt_premium_pct: percent(
          "Premium on the USDT basis: (price_krw / the exchange's KRW-USDT price) / global_price_usd - 1; null when the exchange has no USDT market",
        ).nullable(),
      }),
    )
    .describe('One entry per Korean exchange listing the symbol.'),
});

const StablecoinPremiumBody = z.object({
  ...dataStamp,
  fx_rate: FxRate,
  fx_source: z.string().describe("Provider of the official rate, e.g. 'dunamu'."),
  premiums: z
    .array(
      z.object({
        stablecoin: z.enum(['USDT', 'USDC']),
        exchange: Exchange,
        price_krw: Krw('Last price of the stablecoin'),
        premium_pct: percent('price_krw / fx_rate - 1'),
      }),
    )
    .describe('Stablecoin price against the official USD/KRW rate, per exchange.'),
  interpretation: z.string().describe('Plain reading: a positive premium means KRW money is flowing into Korean crypto.'),
});

const FxRateBody = z.object({
  ...dataStamp,
  pair: z.literal('USDKRW'),
  rate: FxRate,
  unit: z.literal('KRW per 1 USD'),
  provider: z.string().describe("Where the rate came from, e.g. 'dunamu' (Hana Bank base rate) or 'er-api'. Bank rates do not move on weekends and Korean holidays; as_of is the provider's time of the rate."),
});

const ArbitrageScannerBody = z.object({
  ...dataStamp,
  fx_rate: FxRate,
  premiums: z
    .array(
      z.object({
        symbol: Ticker,
        korean_name: KoreanName,
        upbit_krw: Krw('Upbit last price'),
        global_price_usd: Usd('Global reference price'),
        global_krw: Krw('Global price converted at fx_rate'),
        premium_pct: percent('Kimchi premium: upbit_krw / global_krw - 1'),
        volume_24h_krw: Krw('Upbit 24-hour traded value'),
        warning: z.boolean().describe('The market carries an investment warning.'),
      }),
    )
    .describe('Per token listed on Upbit and the global venue, highest premium first.'),
  reverse_premiums: z
    .array(z.object({ symbol: Ticker, premium_pct: percent('Negative premium: cheaper in Korea') }))
    .describe('Tokens trading below the global price in Korea (reverse premium), most negative first.'),
  exchange_gaps: z
    .array(
      z.object({
        symbol: Ticker,
        upbit_krw: Krw('Upbit last price'),
        bithumb_krw: Krw('Bithumb last price'),
        gap_pct: percent('upbit_krw / bithumb_krw - 1'),
      }),
    )
    .describe('Upbit-Bithumb price gaps larger than 0.3 % in absolute value, largest first, at most 20.'),
  market_share: z
    .object({
      upbit_pct: percent('Upbit share of combined 24-hour KRW volume'),
      bithumb_pct: percent('Bithumb share of combined 24-hour KRW volume'),
      upbit_volume_krw: Krw('Upbit 24-hour traded value'),
      bithumb_volume_krw: Krw('Bithumb 24-hour traded value'),
    })
    .describe('Market share of the two exchanges.'),
  common_symbols_count: z.number().int().describe('Symbols listed on both Upbit and the global venue.'),
});

const ExchangeAlertsBody = z.object({
  ...dataStamp,
  listing_changes: z
    .array(
      z.object({
        exchange: Exchange,
        symbol: Ticker,
        korean_name: KoreanName,
        change: z.enum(['new_listing', 'delisting']),
        detected_at: isoDateTime('When the change was first observed.'),
      }),
    )
    .describe('Markets that appeared or disappeared in the last 7 days, newest first.'),
  investment_warnings: z
    .array(
      z.object({
        exchange: Exchange,
        symbol: Ticker,
        korean_name: KoreanName,
        since: isoDateTimeOrNull('When the warning started, if the exchange says or we first saw it.'),
      }),
    )
    .describe('Markets under an investment warning (투자유의).'),
  caution_flags: z
    .array(
      z.object({
        exchange: Exchange,
        symbol: Ticker,
        korean_name: KoreanName,
        flags: z
          .array(z.string())
          .describe('Raised caution flags, e.g. PRICE_FLUCTUATIONS, TRADING_VOLUME_SOARING, DEPOSIT_AMOUNT_SOARING, GLOBAL_PRICE_DIFFERENCES, CONCENTRATION_OF_SMALL_ACCOUNTS.'),
        since: isoDateTimeOrNull('When we first saw the earliest of these flags.'),
      }),
    )
    .describe('Markets with caution flags (주의).'),
});

const MarketMoversBody = z.object({
  ...dataStamp,
  thresholds: z
    .object({
      move_1m_pct: z.number().describe('Minimum absolute 1-minute price change to count as a surge or crash (percent).'),
      volume_spike_ratio: z.number().describe('Minimum ratio of the last minute\'s volume to its trailing average to count as a spike.'),
    })
    .describe('Thresholds used for this response.'),
  movers_1m: z
    .array(
      z.object({
        exchange: Exchange,
        symbol: Ticker,
        direction: z.enum(['surge', 'crash']),
        prev_price_krw: Krw('Price one minute earlier'),
        price_krw: Krw('Latest price'),
        change_1m_pct: percent('1-minute change'),
        volume_1m_krw: Krw('Traded value in that minute'),
      }),
    )
    .describe('1-minute surges and crashes, largest absolute move first, at most 20.'),
  volume_spikes: z
    .array(
      z.object({
        exchange: Exchange,
        symbol: Ticker,
        volume_1m_krw: Krw('Traded value in the last closed minute'),
        avg_volume_1m_krw: Krw('Trailing 60-minute average traded value per minute'),
        ratio: z.number().describe('volume_1m_krw / avg_volume_1m_krw.'),
        change_24h_pct: percent('24-hour price change'),
      }),
    )
    .describe('Markets whose last-minute volume jumped against their trailing average, highest ratio first, at most 20.'),
  top_volume: z
    .array(
      z.object({
        exchange: Exchange,
        symbol: Ticker,
        volume_24h_krw: Krw('24-hour traded value'),
        change_24h_pct: percent('24-hour price change'),
      }),
    )
    .describe('Top 20 markets by 24-hour traded value.'),
});

const MACRO_COMPONENTS = ['us_rate_stress', 'risk_sentiment', 'foreign_flow', 'fx_momentum', 'semiconductor'] as const;

const KrwMacroStressBody = z.object({
  ...dataStamp,
  score: z.number().min(0).max(100).describe('Composite stress score 0 (calm) to 100 (crisis): weighted sum of the component percentiles.'),
  regime: z
    .enum(['calm', 'neutral', 'caution', 'risk_off', 'crisis'])
    .describe('Score band: below 20 calm, below 40 neutral, below 60 caution, below 80 risk_off, otherwise crisis.'),
  direction: z
    .enum(['krw_weakening', 'stable', 'strengthening'])
    .describe('USD/KRW change over the last 5 trading days: +0.3 % or more krw_weakening, -0.3 % or less strengthening, otherwise stable.'),
  components: z
    .array(
      z.object({
        name: z.enum(MACRO_COMPONENTS).describe('Component id.'),
        label: z.string().describe('What the component measures, in words.'),
        raw_value: z.number().nullable().describe('Latest stress input before ranking, in `unit`; null when unavailable.'),
        unit: z.string().describe("Unit of raw_value, e.g. 'percent' (yield), 'index points' (VIX), 'percentage points' (ownership change)."),
        percentile: z
          .number()
          .min(0)
          .max(100)
          .nullable()
          .describe('Rolling 120-trading-day percentile of raw_value (0 to 100); null when degraded.'),
        weight: fraction('Nominal weight: 0.25, 0.25, 0.20, 0.20, 0.10'),
        effective_weight: fraction('Weight actually used after degraded components are dropped and the rest renormalised'),
        freshness_days: z.number().int().nullable().describe('Days since the latest raw observation.'),
        degraded: z.boolean().describe('True when the component was left out (no value, or its latest value is older than 10 days).'),
      }),
    )
    .length(5)
    .describe(
      'The five components, in this order: us_rate_stress (US 3-year Treasury yield, FRED DGS3), risk_sentiment (VIX), ' +
        'foreign_flow (negative 5-day change of the market-cap-weighted foreign ownership of SK hynix and Samsung Electronics), ' +
        'fx_momentum (5-day USD/KRW change plus 20-day volatility of daily changes), semiconductor (negative 5-day market-cap-weighted return of the two stocks).',
    ),
  degraded: z.array(z.enum(MACRO_COMPONENTS)).describe('Components left out of this score.'),
  note: z.string().describe('Short factual note on what drives the score; no trading advice.'),
  analyst: Analyst,
  method: z.string().describe("How the score is computed, e.g. 'rolling percentile 120d over a 2-year backfill, weights 25/25/20/20/10'."),
});

const KrSentimentBody = z.object({
  ...dataStamp,
  sentiment: z.enum(['bullish', 'bearish', 'neutral']).describe('Overall mood of the Korean crypto market.'),
  sentiment_score: z.number().min(-1).max(1).describe('-1 very bearish to +1 very bullish.'),
  summary: z.string().describe('English paragraph on the Korean market mood, from exchange data and Korean news.'),
  key_drivers: z.array(z.string()).describe('What moves the mood, one short phrase each.'),
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
    .array(z.object({ title_en: z.string(), source_en: z.string(), published_at: isoDateTime('Publication time.') }))
    .describe('Korean news headlines (translated) that informed the reading.'),
  analyst: Analyst,
});

const MarketReadBody = z.object({
  ...dataStamp,
  signal: z.enum(['BULLISH', 'BEARISH', 'NEUTRAL']).describe('Overall market signal.'),
  confidence: fraction('Confidence in the signal'),
  summary: z.string().describe('Two to four sentences explaining the signal.'),
  factors: z.array(z.string()).describe('The observations behind the signal.'),
  alerts: z
    .array(
      z.object({
        symbol: Ticker,
        type: z
          .string()
          .describe("What happened, e.g. 'premium_spike', 'reverse_premium', 'price_surge', 'price_crash', 'volume_spike', 'investment_warning', 'new_listing', 'delisting'."),
        severity: z.enum(['info', 'warning', 'critical']),
        message: z.string().describe('One sentence on the alert.'),
      }),
    )
    .describe('Token-level alerts, most severe first.'),
  analyst: Analyst,
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
  divergence_pct: percent('Mean divergence over the listed exchanges; null when no Korean exchange lists the symbol').nullable(),
  summary: z.string().describe('One to two sentence AI summary of the divergence.'),
  analyst: Analyst,
});

const DivergenceDeepBody = DivergenceBody.extend({
  news_signals: z
    .object({
      window_hours: z.literal(24),
      article_count: z.number().int().describe('Korean articles in the window that mention the token or the market.'),
      top_keywords: z.array(z.string()).describe('Most frequent keywords (English), most frequent first.'),
      sentiment_score: z.number().min(-1).max(1).nullable().describe('-1 negative to +1 positive; null without articles.'),
    })
    .describe('Korean news signals over the last 24 hours.'),
  analysis: z
    .object({
      korean_market_drivers: z.array(z.string()).describe('What drives the Korean price.'),
      global_context: z.string().describe('What the global market is doing.'),
      action_suggestion: z.string().describe('What to watch or do next; informational, not financial advice.'),
      confidence: z.enum(['low', 'medium', 'high']).describe('Confidence rating of the analysis.'),
    })
    .describe('Structured AI analysis.'),
});

const NewsArticle = z.object({
  id: z.string().describe('Stable article id.'),
  title_en: z.string().describe('Title translated to English.'),
  summary_en: z.string().describe('Two to three sentence English summary of the article.'),
  source_en: z.string().describe('Publisher name in English.'),
  title_kr: z.string().describe('Original Korean title.'),
  source_kr: z.string().describe('Publisher name in Korean.'),
  url: z.string().describe('Link to the original article.'),
  published_at: isoDateTime('Publication time.'),
});
const KpopArticle = NewsArticle.extend({
  relevance: z
    .enum(['high', 'medium', 'low'])
    .describe('AI classification of how relevant the article is to K-pop (artists, agencies, releases, charts, tours).'),
});

const newsList = <A extends z.ZodObject>(topic: 'kpop' | 'semiconductor', article: A) =>
  z.object({
    ...dataStamp,
    topic: z.literal(topic),
    count: z.number().int().describe('Number of articles returned (at most `limit`).'),
    articles: z.array(article).describe('Newest first.'),
    analyst: Analyst.describe('Who translated and summarised the articles (and classified relevance).'),
  });

const KpopNewsBody = newsList('kpop', KpopArticle);
const SemiconductorNewsBody = newsList('semiconductor', NewsArticle);
const summaryFields = {
  overall_sentiment: z.enum(['positive', 'negative', 'neutral', 'mixed']).describe('Overall tone of the articles.'),
  key_themes: z.array(z.string()).describe('Main themes, most important first.'),
  trending_entities: z.array(z.string()).describe('People, groups, companies or products mentioned most.'),
  summary: z.string().describe('One paragraph summary of the articles, in English.'),
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
  KrPricesBody,
  KimchiPremiumBody,
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

// ------------------------------------------------------------------ endpoints

const korea = (decl: Omit<EndpointDecl, 'service'>): EndpointDecl => ({ service: 'korea', ...decl });

const paid = (decl: Omit<EndpointDecl, 'service' | 'access' | 'xrplVariant'>): EndpointDecl =>
  korea({ ...decl, access: 'paid', xrplVariant: true });

export const KOREA_ENDPOINTS: EndpointDecl[] = [
  // ---------------------------------------------------------------- free
  korea({
    id: 'root',
    method: 'GET',
    path: '/',
    summary: 'Root document: what the service is, its endpoints and prices.',
    description: 'JSON overview of the service: name, description, links to /docs, /llms.txt, the OpenAPI document, the x402 manifest, /health and the MCP server, the settlement and AI modes, the snapshot being served, and every endpoint with its price.',
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
    description: 'x402scan-compatible discovery document: `version` 1, the absolute URLs of every paid resource (XRPL variants included), instructions for agents, and `receipt_signer.public_key`, the key that signs every paid receipt.',
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
    description: 'Plain-text description of the service for language models and agents: what each endpoint returns, its parameters and price, and how to pay.',
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
    description: 'Whether the service has data and how fresh each dataset is (`stale` when older than three update intervals, at least 10 minutes), which snapshot version is served and whether it holds demo data, the settlement mode (local: payments verified, no funds move) and the AI mode (Claude or the offline rules analyst), with every problem in words. Status 503 while no snapshot is published. Not cached.',
    access: 'free',
    cacheTtlSeconds: 0,
    response: HealthBody,
    dataset: null,
    mcpTool: { name: 'check_health', description: 'Check the service health, the freshness of every dataset, and whether data is live or demo. Free.' },
  }),
  korea({
    id: 'symbols',
    method: 'GET',
    path: '/api/v1/symbols',
    summary: 'Tradeable symbols on Upbit and Bithumb.',
    description: 'Every symbol with a KRW market on Upbit or Bithumb (Korean and English names, which exchanges list it), plus the 25 symbols the divergence endpoints support.' + DATA_NOTE,
    access: 'free',
    cacheTtlSeconds: 300,
    response: SymbolsBody,
    dataset: 'symbols',
    mcpTool: { name: 'get_available_symbols', description: 'List the crypto symbols traded in KRW on Upbit and Bithumb, and the 25 symbols the divergence tools support. Free.' },
  }),
  korea({
    id: 'stats',
    method: 'GET',
    path: '/api/v1/stats',
    summary: 'Coverage statistics of the service.',
    description: 'Coverage statistics: tokens per exchange and in total, and every dataset of the snapshot with its time, size and kind of data.' + DATA_NOTE,
    access: 'free',
    cacheTtlSeconds: 300,
    response: StatsBody,
    dataset: 'stats',
  }),
  korea({
    id: 'docs',
    method: 'GET',
    path: '/docs',
    summary: 'Interactive API reference.',
    description: 'HTML reference pages generated from the OpenAPI document: every endpoint with its parameters, responses, price and a try-it form.',
    access: 'free',
    cacheTtlSeconds: 300,
    response: HtmlPage,
    dataset: null,
    contentType: 'text/html',
  }),

  // ---------------------------------------------------------------- paid: prices and premiums
  paid({
    id: 'kimchi-premium',
    method: 'GET',
    path: '/api/v1/kimchi-premium',
    summary: 'Kimchi premium of one token on Upbit and Bithumb.',
    description:
      'Kimchi premium of `symbol`: the gap between its KRW price on each Korean exchange and the global reference price (Binance USDT pair, OKX fallback) converted at the official USD/KRW rate, ' +
      'plus the same premium on the USDT basis (against the exchange\'s own KRW-USDT price). Percent: 2.5 means the Korean price is 2.5 % higher. ' +
      'A well-formed symbol that no Korean exchange lists gets 404 before any payment is asked.' +
      DATA_NOTE +
      priceLine('0.001', PRICE_DISAGREEMENT),
    priceUsd: '0.001',
    cacheTtlSeconds: 60,
    query: SymbolQuery,
    response: KimchiPremiumBody,
    dataset: 'kimchi-premium',
    mcpTool: { name: 'get_kimchi_premium', description: 'Kimchi premium of a crypto token (default BTC): Korean exchange price vs the global price at the official USD/KRW rate, per exchange. Paid: 0.001 USD.' },
  }),
  paid({
    id: 'stablecoin-premium',
    method: 'GET',
    path: '/api/v1/stablecoin-premium',
    summary: 'USDT and USDC premium in Korea against the official FX rate.',
    description:
      'Price of USDT and USDC in KRW on Upbit and Bithumb against the official USD/KRW rate: premium = price_krw / fx_rate - 1, in percent. A positive premium means KRW is flowing into Korean crypto.' +
      DATA_NOTE +
      priceLine('0.001', PRICE_DISAGREEMENT),
    priceUsd: '0.001',
    cacheTtlSeconds: 60,
    response: StablecoinPremiumBody,
    dataset: 'stablecoin-premium',
    mcpTool: { name: 'get_stablecoin_premium', description: 'USDT and USDC premium on Korean exchanges against the official USD/KRW rate. Paid: 0.001 USD.' },
  }),
  paid({
    id: 'kr-prices',
    method: 'GET',
    path: '/api/v1/kr-prices',
    summary: 'KRW prices of one token on Upbit and Bithumb.',
    description:
      'Last KRW price, 24-hour change (percent) and 24-hour traded value (KRW) of `symbol` on Upbit, Bithumb or both (`exchange`). ' +
      'A well-formed symbol that no Korean exchange lists gets 404 before any payment is asked.' +
      DATA_NOTE +
      priceLine('0.001', PRICE_DISAGREEMENT),
    priceUsd: '0.001',
    cacheTtlSeconds: 60,
    query: PricesQuery,
    response: KrPricesBody,
    dataset: 'kr-prices',
    mcpTool: { name: 'get_kr_prices', description: 'KRW price, 24h change and volume of a crypto token on Upbit and/or Bithumb. Paid: 0.001 USD.' },
  }),
  paid({
    id: 'fx-rate',
    method: 'GET',
    path: '/api/v1/fx-rate',
    summary: 'USD/KRW exchange rate.',
    description:
      'Official USD/KRW rate (KRW per 1 USD; Hana Bank base rate via Dunamu, with fallbacks) with its provider; `as_of` is the provider\'s time of the rate.' +
      DATA_NOTE +
      priceLine('0.001'),
    priceUsd: '0.001',
    cacheTtlSeconds: 60,
    response: FxRateBody,
    dataset: 'fx-rate',
    mcpTool: { name: 'get_fx_rate', description: 'Current USD/KRW exchange rate with provider and time. Paid: 0.001 USD.' },
  }),

  // ---------------------------------------------------------------- paid: AI analysis
  paid({
    id: 'kr-sentiment',
    method: 'GET',
    path: '/api/v1/kr-sentiment',
    summary: 'Korean crypto market sentiment in English.',
    description:
      'English-language reading of the Korean crypto market mood from exchange data (premiums, advancers and decliners, volume) and Korean news: a sentiment label, a score from -1 to +1, a paragraph and the key drivers. Recomputed hourly.' +
      AI_NOTE +
      DATA_NOTE +
      priceLine('0.05'),
    priceUsd: '0.05',
    cacheTtlSeconds: 3600,
    response: KrSentimentBody,
    dataset: 'kr-sentiment',
    mcpTool: { name: 'get_kr_sentiment', description: 'English summary of Korean crypto market sentiment from exchange data and Korean news. Paid: 0.05 USD.' },
  }),
  paid({
    id: 'krw-macro-stress',
    method: 'GET',
    path: '/api/v1/krw-macro-stress',
    summary: 'KRW macro stress score 0 to 100 with its five components.',
    description:
      'Composite KRW macro stress score (0 calm to 100 crisis) with regime and USD/KRW direction. Each of five components (US 3-year Treasury yield, VIX, foreign ownership of SK hynix and Samsung Electronics weighted by market cap, USD/KRW momentum, Korean semiconductor equity) ' +
      'is ranked as a rolling 120-trading-day percentile over a 2-year backfill; the score is their weighted sum (25/25/20/20/10), renormalised when a component is degraded. Includes a short factual AI note with no trading advice. Recomputed every 15 minutes.' +
      AI_NOTE +
      DATA_NOTE +
      priceLine('0.05', 'listed in the prose listing only'),
    priceUsd: '0.05',
    cacheTtlSeconds: 900,
    response: KrwMacroStressBody,
    dataset: 'krw-macro-stress',
  }),
  paid({
    id: 'arbitrage-scanner',
    method: 'GET',
    path: '/api/v1/arbitrage-scanner',
    summary: 'Per-token kimchi premiums, reverse premiums, Upbit-Bithumb gaps and market share.',
    description:
      'For every token on Upbit and the global venue: kimchi premium (highest first), reverse premiums (cheaper in Korea), Upbit-Bithumb last-price gaps above 0.3 %, and the two exchanges\' share of 24-hour KRW volume. Last prices, not executable spreads; fees and transfer status are not included.' +
      DATA_NOTE +
      priceLine('0.01'),
    priceUsd: '0.01',
    cacheTtlSeconds: 60,
    response: ArbitrageScannerBody,
    dataset: 'arbitrage-scanner',
    mcpTool: { name: 'get_arbitrage_scanner', description: 'Scan all Korean-listed tokens for kimchi premiums, reverse premiums, Upbit-Bithumb gaps and market share. Paid: 0.01 USD.' },
  }),
  paid({
    id: 'exchange-alerts',
    method: 'GET',
    path: '/api/v1/exchange-alerts',
    summary: 'Listings, delistings, investment warnings and caution flags.',
    description:
      'New listings and delistings seen on Upbit and Bithumb in the last 7 days, markets under an investment warning, and markets with caution flags (price fluctuation, volume or deposit surge, global price gap, small-account concentration), each with when it was first seen.' +
      DATA_NOTE +
      priceLine('0.01'),
    priceUsd: '0.01',
    cacheTtlSeconds: 300,
    response: ExchangeAlertsBody,
    dataset: 'exchange-alerts',
    mcpTool: { name: 'get_exchange_alerts', description: 'Recent listings and delistings, investment warnings and caution flags on Upbit and Bithumb. Paid: 0.01 USD.' },
  }),
  paid({
    id: 'market-movers',
    method: 'GET',
    path: '/api/v1/market-movers',
    summary: '1-minute surges and crashes, volume spikes, top 20 by volume.',
    description:
      '1-minute price surges and crashes (from closed 1-minute candles), volume spikes (last minute against the trailing 60-minute average) and the top 20 markets by 24-hour traded value, on Upbit and Bithumb. The thresholds used are in `thresholds`.' +
      DATA_NOTE +
      priceLine('0.01'),
    priceUsd: '0.01',
    cacheTtlSeconds: 60,
    response: MarketMoversBody,
    dataset: 'market-movers',
    mcpTool: { name: 'get_market_movers', description: 'Korean market movers: 1-minute surges and crashes, volume spikes and the top 20 tokens by volume. Paid: 0.01 USD.' },
  }),
  paid({
    id: 'market-read',
    method: 'GET',
    path: '/api/v1/market-read',
    summary: 'AI market read: BULLISH, BEARISH or NEUTRAL with confidence and token alerts.',
    description:
      'An AI reading of the Korean crypto market from premiums, flows, movers, alerts and macro stress: a signal (BULLISH, BEARISH or NEUTRAL), a confidence from 0 to 1, a short explanation, the factors behind it and token-level alerts. Recomputed every 15 minutes.' +
      AI_NOTE +
      DATA_NOTE +
      priceLine('0.10'),
    priceUsd: '0.10',
    cacheTtlSeconds: 900,
    response: MarketReadBody,
    dataset: 'market-read',
    mcpTool: { name: 'get_market_read', description: 'AI market read of the Korean crypto market: BULLISH/BEARISH/NEUTRAL signal with confidence and token alerts. Paid: 0.10 USD.' },
  }),
  paid({
    id: 'global-vs-korea-divergence',
    method: 'GET',
    path: '/api/v1/global-vs-korea-divergence',
    summary: 'Global vs Korean price divergence of one of 25 symbols, with a short AI summary.',
    description:
      'Divergence between the global reference price of `symbol` (one of 25) and its price on each Korean exchange converted at the official rate, in percent, with a one to two sentence AI summary. Recomputed every 15 minutes.' +
      AI_NOTE +
      DATA_NOTE +
      priceLine('0.05'),
    priceUsd: '0.05',
    cacheTtlSeconds: 900,
    query: DivergenceQuery,
    response: DivergenceBody,
    dataset: 'divergence',
    mcpTool: { name: 'get_global_vs_korea_divergence', description: 'Global vs Korean price divergence of a token (one of 25 symbols) with a short AI summary. Paid: 0.05 USD.' },
  }),
  paid({
    id: 'global-vs-korea-divergence-deep',
    method: 'GET',
    path: '/api/v1/global-vs-korea-divergence-deep',
    summary: 'Divergence plus 24-hour Korean news signals and a structured AI analysis.',
    description:
      'Everything in the light tier, plus Korean news signals over the last 24 hours (article count, top keywords, sentiment score) and a structured AI analysis: korean_market_drivers, global_context, an action suggestion (informational, not financial advice) and a confidence rating. Recomputed every 15 minutes.' +
      AI_NOTE +
      DATA_NOTE +
      priceLine('0.10'),
    priceUsd: '0.10',
    cacheTtlSeconds: 900,
    query: DivergenceQuery,
    response: DivergenceDeepBody,
    dataset: 'divergence',
    mcpTool: { name: 'get_global_vs_korea_divergence_deep', description: 'Deep global vs Korea divergence analysis of a token (one of 25 symbols): news signals, Korean market drivers, global context. Paid: 0.10 USD.' },
  }),

  // ---------------------------------------------------------------- paid: news
  paid({
    id: 'kr-news-kpop',
    method: 'GET',
    path: '/api/v1/kr-news/kpop',
    summary: 'Korean K-pop news translated to English.',
    description:
      'The latest Korean K-pop news (at most `limit`, newest first), each with English title, summary and source, the original Korean title and source, and an AI relevance classification (high, medium, low).' +
      AI_NOTE +
      DATA_NOTE +
      priceLine('0.01'),
    priceUsd: '0.01',
    cacheTtlSeconds: 300,
    query: NewsQuery,
    response: KpopNewsBody,
    dataset: 'kr-news-kpop',
  }),
  paid({
    id: 'kr-news-kpop-summary',
    method: 'GET',
    path: '/api/v1/kr-news/kpop-summary',
    summary: 'K-pop news with an AI summary, themes and trending names.',
    description:
      'The same articles as /api/v1/kr-news/kpop plus overall_sentiment, key_themes, trending_entities and a one-paragraph English summary.' +
      AI_NOTE +
      DATA_NOTE +
      priceLine('0.05'),
    priceUsd: '0.05',
    cacheTtlSeconds: 300,
    query: NewsQuery,
    response: KpopSummaryBody,
    dataset: 'kr-news-kpop',
  }),
  paid({
    id: 'kr-news-semiconductor',
    method: 'GET',
    path: '/api/v1/kr-news/semiconductor',
    summary: 'Korean semiconductor-industry news translated to English.',
    description:
      'The latest Korean semiconductor-industry news (at most `limit`, newest first), each with English title, summary and source and the original Korean title and source.' +
      AI_NOTE +
      DATA_NOTE +
      priceLine('0.02'),
    priceUsd: '0.02',
    cacheTtlSeconds: 300,
    query: NewsQuery,
    response: SemiconductorNewsBody,
    dataset: 'kr-news-semiconductor',
  }),
  paid({
    id: 'kr-news-semiconductor-summary',
    method: 'GET',
    path: '/api/v1/kr-news/semiconductor-summary',
    summary: 'Semiconductor news with an AI summary and a market signal.',
    description:
      'The same articles as /api/v1/kr-news/semiconductor plus overall_sentiment, key_themes, trending_entities, a market_signal (bullish, bearish, neutral) and a one-paragraph English summary.' +
      AI_NOTE +
      DATA_NOTE +
      priceLine('0.10'),
    priceUsd: '0.10',
    cacheTtlSeconds: 300,
    query: NewsQuery,
    response: SemiconductorSummaryBody,
    dataset: 'kr-news-semiconductor',
  }),
];
