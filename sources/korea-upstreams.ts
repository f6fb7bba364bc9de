/**
 * The names the korea live source records its upstreams under (`ingest_failures.upstream`,
 * `ingest_skipped_rows.upstream`): part of the contract between the sources and the pipelines, like
 * the raw tables. The live adapters record failures under these names only, and the pipelines
 * name the upstreams behind an input with them ("no USD/KRW rate in this run (dunamu: HTTP 503)"),
 * so a name that no source records does not compile.
 *
 *   upbit, bithumb, coinone, korbit   the exchange's prices (upbit and bithumb: also its market list)
 *   upbit:markets, bithumb:markets    the market list alone
 *   bithumb:alerts                    the 경보제 (alert) feed
 *   binance, okx                      the global prices
 *   dunamu, er-api                    the official USD/KRW rate (er-api when Dunamu fails)
 *   candles:upbit                     Upbit's 1-minute candles (not the exchange being down)
 *   news, news:<source id>            the news step, and each feed or Naver search it reads
 *   books:<venue>, wallets:<exchange> the executable premium's order books and wallet statuses
 *   fred:<series>, naver:<code>       a macro series not refreshed this run (the kept history stays)
 *
 * Readers match by prefix: 'upbit' is the exchange's market list and prices, 'books:' every book.
 */
import { KOREAN_EXCHANGES } from '../catalog/korea.ts';

/** Upstreams recorded under a fixed name. */
export const KOREA_UPSTREAMS = [
  ...KOREAN_EXCHANGES,
  'upbit:markets',
  'bithumb:markets',
  'bithumb:alerts',
  'binance',
  'okx',
  'dunamu',
  'er-api',
  'candles:upbit',
  'news',
] as const;

/** Upstreams recorded one per item, as '<family>:<item>' ('fred:DGS3', 'books:binance'). */
export const KOREA_UPSTREAM_FAMILIES = ['news', 'books', 'wallets', 'fred', 'naver'] as const;

export type KoreaUpstreamName = (typeof KOREA_UPSTREAMS)[number] | `${(typeof KOREA_UPSTREAM_FAMILIES)[number]}:${string}`;

/** The upstreams of the official USD/KRW rate (fx_rates). */
export const FX_UPSTREAMS = ['dunamu', 'er-api'] as const satisfies readonly KoreaUpstreamName[];
/** The upstreams of the global reference prices (global_prices). */
export const GLOBAL_UPSTREAMS = ['binance', 'okx'] as const satisfies readonly KoreaUpstreamName[];
