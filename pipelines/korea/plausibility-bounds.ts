/**
 * How far each korea input may stray before the pipeline refuses it (plausibility.ts applies
 * them). An input is refused when it leaves its absolute range, or when more of its references
 * disagree with it than agree (a reference disagrees when the value is more than `maxRatio` times
 * above or below it). References are the last good value of the same input (same source kind,
 * kept in the warehouse), the other exchange, the other FX source and the global price at the
 * official rate. Majority, not unanimity: a real move confirmed by one independent reference is
 * published, a glitch that no reference confirms is not.
 *
 * A refused input refuses every dataset that reads it: each dataset step declares the inputs it
 * reads (`reads` of KoreaDatasetStep, pipelines/korea/sql.ts) and keeps its last good version while
 * one of them is refused, with the reason in the run table and in /health. An input lives in one
 * raw table (`table`); reads.test.ts runs every dataset and checks that each reads no input's table
 * it does not declare.
 */

import type { RAW_TABLES } from '../../sources/raw-tables.ts';

/** A raw table a source fills (sources/raw-tables.ts). */
type RawTableName = keyof typeof RAW_TABLES;

/** A value more than `maxRatio` times above or below its reference disagrees with it. */
export interface RatioBound {
  maxRatio: number;
  /** Why this width. */
  why: string;
}

export interface LastGoodBound extends RatioBound {
  /** A last good value older than this (against the run's data time) is no reference any more. */
  maxAgeSeconds: number;
}

/** The bounds every tracked KRX stock shares (its close; its foreign ownership share). */
const KRX_CLOSE = {
  range: [100, 10_000_000],
  maxRatio: 1.5,
  why: 'KRX limits a stock to ±30 % per day; 1.5 leaves room for a gap over a holiday',
} as const;
const KRX_FOREIGN_PCT = {
  range: [0, 100],
  maxStep: 5,
  why: 'foreign ownership is a share of all shares: it moves by tenths of a point a day, 5 pp would be a block of the company',
} as const;

export const KOREA_INPUT_BOUNDS = {
  /** USD/KRW: Dunamu, er-api or the demo world (fx_rates). */
  fx: {
    label: 'FX',
    table: 'fx_rates',
    range: {
      min: 500,
      max: 5000,
      why: 'USD/KRW has stayed between 700 and 2,000 since the won floated in 1997; outside 500-5,000 it is a unit or parsing error',
    },
    lastGood: {
      maxRatio: 1.1,
      maxAgeSeconds: 7 * 86_400,
      why: 'the worst week of USD/KRW on record (October 2008) moved it about 10 %; a run is minutes after the last good one',
    },
    otherSource: {
      maxRatio: 1.1,
      maxAgeSeconds: 14 * 86_400,
      why: "FRED DEXKOUS (the Fed's noon buying rate) lags by up to a week and a holiday; 10 % covers a week of the worst moves",
    },
  },
  /** KRW prices per exchange and symbol (kr_tickers); stablecoins have their own reference below. */
  krPrices: {
    label: 'price',
    table: 'kr_tickers',
    lastGood: {
      maxRatio: 3,
      maxAgeSeconds: 86_400,
      why: 'a listing pump or a crash can double or halve a small token within minutes; tripling or losing two thirds since the last run is rarer than a bad tick',
    },
    otherExchange: {
      maxRatio: 2,
      why: 'Upbit and Bithumb quote the same KRW market; gaps above 100 % appear only for a token whose deposits are closed on one of them',
    },
    global: {
      maxRatio: 3,
      why: 'the kimchi premium of a liquid token has stayed within -30 % and +60 %; an isolated token with closed deposits can reach +200 %',
    },
    /** USDT and USDC: against all three references (their global price is $1 at the official rate). */
    stablecoin: {
      maxRatio: 1.25,
      why: 'USDT and USDC in KRW track the official rate; their premium peaked near +10 % (2021) and rarely went below -5 %, so a quarter off any reference is a bad tick',
    },
  },
  /** USD(T) prices on the global venue (global_prices). */
  globalPrices: {
    label: 'global price',
    table: 'global_prices',
    lastGood: {
      maxRatio: 3,
      maxAgeSeconds: 86_400,
      why: 'the same width as the Korean prices: a token that tripled since the last run is rarer than a bad tick',
    },
    korean: {
      maxRatio: 3,
      why: 'the Korean price at the official rate is the global price times (1 + kimchi premium); see krPrices.global',
    },
  },
  /**
   * Daily macro observations (macro_daily), each against the observation before it in the kept
   * history. `maxRatio` bounds levels that are always positive; `maxStep` bounds rates and shares
   * in their own unit (percentage points).
   */
  macro: {
    label: 'macro',
    table: 'macro_daily',
    series: {
      DGS3: {
        range: [-2, 25],
        maxStep: 1.5,
        why: 'the 3-year Treasury yield (percent) never moved more than about 0.6 pp in a day, even in March 2020',
      },
      VIXCLS: {
        range: [5, 150],
        maxRatio: 3,
        why: 'the VIX close has never left 9-83; its largest one-day rise was about +115 % (February 2018)',
      },
      DEXKOUS: {
        range: [500, 5000],
        maxRatio: 1.15,
        why: 'USD/KRW (KRW per USD) moved at most about 10 % between two fixings, in 1997 and 2008',
      },
      'KRX:005930:close': KRX_CLOSE,
      'KRX:000660:close': KRX_CLOSE,
      'KRX:005930:foreign_pct': KRX_FOREIGN_PCT,
      'KRX:000660:foreign_pct': KRX_FOREIGN_PCT,
    },
  },
} as const satisfies Record<string, { label: string; table: RawTableName; [bound: string]: unknown }>;

export type KoreaInput = keyof typeof KOREA_INPUT_BOUNDS;

/** Stablecoins: priced in KRW like any token, but checked against the official rate ($1). */
export const STABLECOINS = ['USDT', 'USDC'] as const;

export interface MacroSeriesBound {
  range: readonly [number, number];
  maxRatio?: number;
  maxStep?: number;
  why: string;
}
