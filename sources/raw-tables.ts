/**
 * The raw tables: the contract between sources (demo world, live adapters, file import) and the
 * pipelines. A source writes one run's observations into these tables of the warehouse; the
 * pipeline steps read only these tables (and the history they keep) and never an upstream.
 *
 * Every row carries `source` ('demo' | 'live' | 'file') so the kind of data travels to the API.
 * Timestamps are UTC (DuckDB TIMESTAMP holds UTC instants here, never local wall time). A korea
 * input's `as_of` is its source time: the upstream's own stamp of the figure, or the time the
 * answer was received when the upstream sends none; premiums combine only inputs whose as_of are
 * close (pipelines/korea/premiums.ts).
 */
import type { DataSource } from '../catalog/schemas.ts';
import type { TableShape } from '../lib/duckdb.ts';

/** The kind of source a run reads: the `source` every row and every published dataset carries. */
export type SourceKind = DataSource;

/** The topics of Korean news (news_articles.topic): K-pop, the semiconductor industry, the crypto market. */
export const NEWS_TOPICS = ['kpop', 'semiconductor', 'crypto'] as const;
export type NewsTopic = (typeof NEWS_TOPICS)[number];

/** What became of one probe. */
export const PROBE_OUTCOMES = [
  'offer', // a 402 with a readable x402 offer
  'open', // 2xx without payment: the resource is free (or its paywall is broken)
  'no_offer', // a 402 without any readable offer
  'invalid_offer', // a 402 whose offer does not decode (bad base64, not JSON, no accepts)
  'http_error', // another status (4xx, 5xx, an unfollowed 3xx)
  'rate_limited', // 429: the host asked us to wait (a 503 is down, an http_error, and its Retry-After is honoured too)
  'timeout', // connect, headers or the whole request took too long (hangs, slowloris, endless bodies)
  'too_large', // the body passed the cap
  'dns_error',
  'tls_error',
  'connect_error', // refused, reset, unreachable
  'private_address', // the name or a redirect points at a private, loopback or link-local address
  'redirect_loop', // more redirects than allowed, or back to a URL already visited
  'bad_url', // not an http(s) URL
  'deferred', // not probed this round: the host's Retry-After or the round's deadline
] as const;
export type ProbeOutcome = (typeof PROBE_OUTCOMES)[number];

/** One element of x402_probes.offers (a JSON array): an accepted payment of the offer a probe read. */
export interface ProbeOfferJson {
  network: string;
  /** The indexed chain, null for a network the index does not cover. */
  chain: string | null;
  asset: string | null;
  /** Atomic units, as the offer states them. */
  amount: string | null;
  pay_to: string;
  eip712_name: string | null;
  eip712_version: string | null;
  /** Whether a client can sign it; null where not judged. */
  signable: boolean | null;
  scheme: string | null;
}

export interface RawTable extends TableShape {
  service: 'korea' | 'analytics';
  description: string;
}

const t = (service: RawTable['service'], name: string, description: string, columns: RawTable['columns']): RawTable => ({
  service,
  name,
  description,
  columns,
});

export const RAW_TABLES = {
  // ---------------------------------------------------------------- korea
  kr_markets: t(
    'korea',
    'kr_markets',
    'Markets listed on a Korean exchange at observation time (Upbit /market/all, Bithumb /v1/market/all).',
    [
      ['exchange', 'VARCHAR'], // upbit | bithumb
      ['symbol', 'VARCHAR'], // BTC
      ['market', 'VARCHAR'], // KRW-BTC
      ['korean_name', 'VARCHAR'],
      ['english_name', 'VARCHAR'],
      ['observed_at', 'TIMESTAMP'],
      ['source', 'VARCHAR'],
    ],
  ),
  kr_tickers: t('korea', 'kr_tickers', 'Last KRW price and rolling 24h figures per exchange and symbol.', [
    ['exchange', 'VARCHAR'],
    ['symbol', 'VARCHAR'],
    ['price_krw', 'DOUBLE'],
    ['prev_close_krw', 'DOUBLE'],
    ['high_24h_krw', 'DOUBLE'],
    ['low_24h_krw', 'DOUBLE'],
    ['change_24h_pct', 'DOUBLE'], // percent, +2.18 means +2.18 %
    ['volume_24h_base', 'DOUBLE'],
    ['volume_24h_krw', 'DOUBLE'],
    ['as_of', 'TIMESTAMP'], // the exchange's time of the price (Upbit timestamp, Bithumb data.date)
    // when the last trade behind the price happened (Upbit trade_timestamp, Korbit lastTradedAt; the
    // demo's last minute with a trade); NULL when the exchange does not say (Bithumb, Coinone)
    ['last_trade_at', 'TIMESTAMP'],
    ['source', 'VARCHAR'],
  ]),
  global_prices: t('korea', 'global_prices', 'Global USD(T) reference price per symbol (Binance spot, OKX fallback).', [
    ['symbol', 'VARCHAR'],
    ['price_usd', 'DOUBLE'],
    ['volume_24h_usd', 'DOUBLE'],
    ['venue', 'VARCHAR'], // binance | okx
    ['as_of', 'TIMESTAMP'], // the venue's time of the price (Binance closeTime, OKX ts)
    ['source', 'VARCHAR'],
  ]),
  fx_rates: t('korea', 'fx_rates', 'USD/KRW rate (KRW per 1 USD) with its provider.', [
    ['pair', 'VARCHAR'], // USDKRW
    ['rate', 'DOUBLE'],
    ['provider', 'VARCHAR'], // dunamu | er-api | demo
    ['as_of', 'TIMESTAMP'], // the provider's time of the rate
    ['source', 'VARCHAR'],
  ]),
  candles_1m: t('korea', 'candles_1m', 'Closed 1-minute candles (no row for a minute without trades).', [
    ['exchange', 'VARCHAR'],
    ['symbol', 'VARCHAR'],
    ['minute', 'TIMESTAMP'], // candle start, UTC
    ['open_krw', 'DOUBLE'],
    ['high_krw', 'DOUBLE'],
    ['low_krw', 'DOUBLE'],
    ['close_krw', 'DOUBLE'],
    ['volume_base', 'DOUBLE'],
    ['volume_krw', 'DOUBLE'],
    ['source', 'VARCHAR'],
  ]),
  market_flags: t('korea', 'market_flags', 'Active warning / caution flags per market at observation time (one row per raised flag).', [
    ['exchange', 'VARCHAR'],
    ['symbol', 'VARCHAR'],
    // investment_warning | caution:PRICE_FLUCTUATIONS | caution:TRADING_VOLUME_SOARING | ...
    // | alert:<bithumb virtual-asset warning type> | market_warning:<an undocumented market_warning value>
    ['flag', 'VARCHAR'],
    ['started_at', 'TIMESTAMP'], // when the exchange says it started, if it says (NULL otherwise)
    ['ends_at', 'TIMESTAMP'], // announced end, if any: a flag past it is not active
    ['observed_at', 'TIMESTAMP'],
    ['source', 'VARCHAR'],
  ]),
  macro_daily: t(
    'korea',
    'macro_daily',
    'Daily macro observations: FRED DGS3, VIXCLS, DEXKOUS; Naver close and foreign ownership of 005930 and 000660.',
    [
      ['series', 'VARCHAR'], // DGS3 | VIXCLS | DEXKOUS | KRX:005930:close | KRX:005930:foreign_pct | KRX:000660:close | KRX:000660:foreign_pct
      ['date', 'DATE'],
      ['value', 'DOUBLE'], // NULL where the upstream has no value ('.')
      ['source', 'VARCHAR'],
    ],
  ),
  // Order books of the most traded symbols on the Korean exchanges (KRW) and the global venue
  // (Binance, USDT), best level first per side: what the executable premium walks.
  order_books: t('korea', 'order_books', 'Order book levels of the most traded symbols (Korean exchanges in KRW, Binance in USDT).', [
    ['exchange', 'VARCHAR'], // upbit | bithumb | coinone | korbit | binance
    ['symbol', 'VARCHAR'],
    ['side', 'VARCHAR'], // bid | ask
    ['level', 'BIGINT'], // 1 = best
    ['price', 'DOUBLE'], // in `quote`
    ['qty', 'DOUBLE'], // base units
    ['quote', 'VARCHAR'], // KRW | USDT
    ['as_of', 'TIMESTAMP'], // the exchange's time of the book (the time received when it sends none)
    ['source', 'VARCHAR'],
  ]),
  // Deposit and withdrawal status per currency and network where the exchange publishes it without
  // a key (Bithumb, Coinone, Korbit; not Upbit or Binance), with the withdrawal fee in coins.
  wallet_status: t('korea', 'wallet_status', 'Deposit and withdrawal status and withdrawal fee per currency and network.', [
    ['exchange', 'VARCHAR'],
    ['symbol', 'VARCHAR'],
    ['network', 'VARCHAR'], // NULL when the exchange publishes one status per currency
    ['deposit_enabled', 'BOOLEAN'],
    ['withdraw_enabled', 'BOOLEAN'],
    ['withdrawal_fee', 'DOUBLE'], // in the currency's units; NULL when not published
    ['as_of', 'TIMESTAMP'],
    ['source', 'VARCHAR'],
  ]),
  // The demo world's premium archive before its first run (sources/demo/korea/premium-history.ts):
  // merged once into the warehouse archive (pipelines/korea/archive.ts). No live source writes it.
  kr_premium_history: t('korea', 'kr_premium_history', 'Kimchi premium history the archive starts from (demo backfill).', [
    ['interval', 'VARCHAR'], // 1m | 1h | 1d
    ['t', 'TIMESTAMP'], // start of the minute, hour or UTC day
    ['exchange', 'VARCHAR'],
    ['symbol', 'VARCHAR'],
    ['premium_pct', 'DOUBLE'], // mean over the interval, percent
    ['min_pct', 'DOUBLE'],
    ['max_pct', 'DOUBLE'],
    ['last_pct', 'DOUBLE'],
    ['samples', 'BIGINT'], // minutes observed in it
    ['source', 'VARCHAR'],
  ]),
  news_articles: t(
    'korea',
    'news_articles',
    'Korean news articles (K-pop, semiconductors, crypto market) as published, in Korean: one row per article of this run, de-duplicated within the run.',
    [
      ['article_id', 'VARCHAR'], // stable: 'news-' + first 16 hex of sha256(canonical_url) for live, 'demo-...' for the demo world
      ['topic', 'VARCHAR'], // kpop | semiconductor | crypto: the topic of the feed or search that found it (a hint; the pipeline assigns the final topic)
      ['published_at', 'TIMESTAMP'],
      ['url', 'VARCHAR'], // link to the article as the outlet publishes it
      ['canonical_url', 'VARCHAR'], // the same URL normalised for de-duplication (lower-case host, no tracking parameters, fragment or trailing slash)
      ['title_key', 'VARCHAR'], // the title normalised for de-duplication (no spacing, punctuation, brackets or outlet tags)
      ['source_kr', 'VARCHAR'],
      ['source_en', 'VARCHAR'],
      ['title_kr', 'VARCHAR'], // plain text: tags stripped, entities decoded, whitespace collapsed
      ['body_kr', 'VARCHAR'], // the feed's description / summary as plain text (may be '' when the feed has none)
      // Reference English (demo world only): what a faithful translation says; NULL for live data.
      ['title_en_ref', 'VARCHAR'],
      ['body_en_ref', 'VARCHAR'],
      ['feed', 'VARCHAR'], // which feed or search found it, e.g. 'yonhap-entertainment', 'naver:semiconductor', 'demo'
      ['source', 'VARCHAR'],
    ],
  ),

  // ------------------------------------------------------------ analytics
  x402_services: t('analytics', 'x402_services', 'Indexed x402 resources (the services file of the file import).', [
    ['chain', 'VARCHAR'], // base | solana | polygon | arbitrum
    ['seller_address', 'VARCHAR'],
    ['resource_url', 'VARCHAR'],
    ['name', 'VARCHAR'],
    ['description', 'VARCHAR'],
    ['category', 'VARCHAR'], // may be NULL: the pipeline assigns one of the 33
    ['price_amount', 'DOUBLE'], // USD per call, NULL when unknown
    ['first_seen', 'TIMESTAMP'],
    ['source', 'VARCHAR'],
  ]),
  x402_transactions: t('analytics', 'x402_transactions', 'x402 settlements: one USDC payment from a buyer to a seller (payTo).', [
    ['tx_hash', 'VARCHAR'],
    ['chain', 'VARCHAR'],
    ['buyer', 'VARCHAR'],
    ['seller_address', 'VARCHAR'],
    ['amount', 'DOUBLE'], // USDC
    ['time', 'TIMESTAMP'],
    ['resource_url', 'VARCHAR'], // may be NULL
    ['facilitator', 'VARCHAR'], // may be NULL
    ['source', 'VARCHAR'],
  ]),
  wallet_funding: t('analytics', 'wallet_funding', 'Inbound USDC transfers to buyer wallets (who funded whom).', [
    ['address', 'VARCHAR'],
    ['funder', 'VARCHAR'],
    ['amount', 'DOUBLE'],
    ['time', 'TIMESTAMP'],
    ['source', 'VARCHAR'],
  ]),
  // What the prober saw when it asked a resource for its price without paying
  // (sources/live/analytics/prober.ts): the last 8 days, one row per probe.
  x402_probes: t('analytics', 'x402_probes', 'Unpaid probes of indexed resources: status, latency and the 402 offer.', [
    ['resource_url', 'VARCHAR'],
    ['probed_at', 'TIMESTAMP'],
    ['method', 'VARCHAR'],
    ['outcome', 'VARCHAR'], // offer | open | no_offer | invalid_offer | http_error | rate_limited | timeout | too_large | dns_error | tls_error | connect_error | private_address | redirect_loop | bad_url | deferred
    ['status', 'BIGINT'], // HTTP status of the final answer, NULL when none came
    ['ttfb_ms', 'DOUBLE'],
    ['total_ms', 'DOUBLE'],
    ['redirects', 'BIGINT'],
    ['error', 'VARCHAR'], // the failure's code or a short reason
    ['x402_version', 'BIGINT'],
    // JSON array, one element per accepted payment: {network, chain, asset, amount (atomic, text),
    // pay_to, eip712_name, eip712_version, signable, scheme}; NULL without an offer
    ['offers', 'VARCHAR'],
    ['bazaar', 'BOOLEAN'],
    ['source', 'VARCHAR'],
  ]),
  // Funding analysis stops at exchange hot wallets: otherwise every user who withdrew from the
  // same exchange would look like one operator's cohort. Empty when the source has no list.
  exchange_wallets: t(
    'analytics',
    'exchange_wallets',
    'Labelled exchange (CEX) hot wallets that fund users; the classifier never treats a shared exchange funder as a cohort.',
    [
      ['address', 'VARCHAR'], // EVM lower-case 0x…, Solana base58 as is
      ['name', 'VARCHAR'], // e.g. coinbase-hot-1; may be NULL
      ['source', 'VARCHAR'],
    ],
  ),
} as const satisfies Record<string, RawTable>;

export type RawTableName = keyof typeof RAW_TABLES;

/**
 * Ground truth of the demo world. Kept in the warehouse under `demo_truth_*` and in
 * `truth/` beside an exported world; never written into a snapshot.
 */
export const DEMO_TRUTH_TABLES = {
  demo_truth_buyers: t('analytics', 'demo_truth_buyers', 'Planted label of every demo buyer wallet.', [
    ['address', 'VARCHAR'],
    ['label', 'VARCHAR'], // one of the 8 WashLabel values
    ['pattern', 'VARCHAR'], // e.g. organic, sybil_cohort, funded_loop, ring, vanity_strict, exchange_funded_farm
    ['difficulty', 'VARCHAR'], // easy | medium | hard
    ['group_id', 'VARCHAR'], // cohort / ring / operator id, NULL for independent wallets
  ]),
  demo_truth_services: t(
    'analytics',
    'demo_truth_services',
    'Planted health of every demo listing (what its probes and payments should reveal).',
    [
      ['resource_url', 'VARCHAR'],
      ['chain', 'VARCHAR'],
      ['pattern', 'VARCHAR'], // healthy | dead | flaky | slow | unsignable | moved_payout | decoy | price_trap (sources/demo/analytics/health.ts)
      ['since', 'TIMESTAMP'], // when it started, for dead, moved_payout and price_trap; NULL otherwise
    ],
  ),
  demo_truth_pairs: t('analytics', 'demo_truth_pairs', 'Planted label of every demo (buyer, seller) pair.', [
    ['address', 'VARCHAR'],
    ['seller_address', 'VARCHAR'],
    ['chain', 'VARCHAR'],
    ['label', 'VARCHAR'],
  ]),
} as const satisfies Record<string, RawTable>;
