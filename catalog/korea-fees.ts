/**
 * Trading and withdrawal fees the executable kimchi premium is net of, as plain data: the default
 * spot taker fee of a regular user with no discount, voucher, plan choice or token payment, per
 * exchange, with its source and the date the source states (or, when it states none, the date it
 * was read). Sources and the rates these defaults leave out: sources/live/korea/books-wallets.md, "Trading fees".
 *
 * - Upbit: KRW market 0.05 % maker and taker (VAT included); BTC and USDT markets 0.25 %.
 * - Bithumb: KRW market 0.25 %; 0.04 % only for 30 days after a free in-app application.
 * - Coinone: 0.25 % in the app and web without the free 30-day voucher; orders sent with a personal
 *   Open API key pay 0.02 % (0 % under a promotion since 2026-08-21).
 * - Korbit: two plans a user chooses between, "최저가" 0.05 % maker and taker, "리워드" taker 0.15 %
 *   (maker free plus 0.01 %); which plan a new account starts on was not found, so the higher
 *   taker is kept. No source newer than 2024 was found.
 * - Binance: spot Regular tier 0.100 % (0.075 % when paying in BNB).
 *
 * Withdrawal fees come from public APIs where they exist (Coinone, Korbit, Bithumb); Upbit and
 * Binance give them only to an API key. No fee value is typed in here: WITHDRAWAL_FEE_SOURCES says
 * where each exchange publishes them, `publicApi: null` where no public API does, and a caller
 * without one keeps the withdrawal fee null (never a guess).
 */

export type FeeExchange = 'upbit' | 'bithumb' | 'coinone' | 'korbit' | 'binance';

export interface TradingFee {
  /** Default spot taker fee, percent of the traded value (0.05 = 0.05 %). */
  takerPct: number;
  source: string;
  /** 'YYYY-MM-DD': the date the source states, or the date it was read when it states none. */
  asOf: string;
}

export const TRADING_FEES: Record<FeeExchange, TradingFee> = {
  upbit: {
    takerPct: 0.05,
    source:
      'https://upbit.com/service_center/fees (기본 수수료, KRW 마켓 일반주문 Maker/Taker 0.05 %, VAT included), as captured in nemanull/arbitrage-observatory docs/profiles/upbit/fees.md',
    asOf: '2026-09-23',
  },
  bithumb: {
    takerPct: 0.25,
    source:
      'https://support.bithumb.com/hc/ko/articles/55133079159449 ("0.25%, 국내 최저 수수료 신청 시 0.04%", updated 2026-08-11) and https://support.bithumb.com/hc/ko/articles/51131586657689 (the 0.04 % lasts 30 days from an application)',
    asOf: '2026-08-11',
  },
  coinone: {
    takerPct: 0.25,
    source:
      'https://coinone.co.kr/support/fee-guide/ (standing app/web rate 0.25 %, 0 % with a free 30-day voucher); Open API personal keys 0.02 % per https://docs.coinone.co.kr/docs/api-거래-수수료율-안내 (updated 2026-09-08)',
    asOf: '2026-09-22',
  },
  korbit: {
    takerPct: 0.15,
    source:
      'Korbit fee plans announced 2024-03-29, in force 2024-04-01: 리워드 플랜 taker 0.15 %, 최저가 플랜 0.05 % (Newsis via https://blockmedia.co.kr/archives/494346)',
    asOf: '2024-03-29',
  },
  binance: {
    takerPct: 0.1,
    source: 'https://www.binance.com/en/fee/trading (Regular tier spot taker 0.100 %, 0.075 % paying in BNB), read 2026-07-26',
    asOf: '2026-07-26',
  },
};

/** Where each exchange publishes withdrawal fees, and what needs an API key. */
export interface WithdrawalFeeSource {
  /** A public (keyless) API with per-network withdrawal fees, or null when there is none. */
  publicApi: string | null;
  /** The API that gives them to a key holder, or null. */
  keyedApi: string | null;
  /** The exchange's fee page for people (not machine-readable here), or null. */
  page: string | null;
}

export const WITHDRAWAL_FEE_SOURCES: Record<FeeExchange, WithdrawalFeeSource> = {
  upbit: {
    publicApi: null,
    keyedApi: 'GET /v1/withdraws/chance (JWT, 출금조회 permission)',
    page: 'https://upbit.com/service_center/fees',
  },
  bithumb: { publicApi: 'GET /v2/fee/inout/ALL (bithumb-book.ts)', keyedApi: 'GET /v1/withdraws/chance (JWT)', page: null },
  coinone: { publicApi: 'GET /public/v2/currencies (coinone.ts)', keyedApi: null, page: 'https://coinone.co.kr/support/fee-guide/' },
  korbit: { publicApi: 'GET /v2/currencies (korbit.ts)', keyedApi: null, page: null },
  binance: {
    publicApi: null,
    keyedApi: 'GET /sapi/v1/capital/config/getall (USER_DATA, signed, weight 10)',
    page: 'https://www.binance.com/en/fee/cryptoFee',
  },
};
