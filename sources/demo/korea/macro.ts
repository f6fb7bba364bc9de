/**
 * Daily macro backdrop of the korea demo world: US 3-year yield, VIX, USD/KRW, Samsung Electronics
 * and SK hynix closes and foreign ownership, plus the daily stablecoin premium and kimchi spread the
 * crypto prices use. One sequential walk from the epoch, so a date's value never depends on `now`.
 * A shared risk shock drives them together: VIX spikes weaken the won and sink chip stocks.
 */

import { Rng } from '../random.ts';
import type { Row } from '../../../lib/duckdb.ts';
import { gaussian, reflect } from './walks.ts';
import {
  isKrxTradingDay,
  isUsHoliday,
  isWeekendDay,
  isoDateOfDay,
  dayIndexOf,
  kstDayIndexOf,
  msOfDay,
  HOUR_MS,
  KST_OFFSET_MS,
  MINUTE_MS,
  type UsMarket,
} from './calendar.ts';

export interface MacroHistory {
  /** Value at day index d (days since the world epoch), d = 0..lastDay. */
  dgs3: Float64Array;
  vix: Float64Array;
  /** USD/KRW at 00:00 UTC of day d (DEXKOUS reports it for that date). */
  usdKrw: Float64Array;
  samsungClose: Float64Array;
  hynixClose: Float64Array;
  samsungForeignPct: Float64Array;
  hynixForeignPct: Float64Array;
  /** USDT-KRW over the official rate, minus 1 (a fraction, ~0.001-0.006). */
  stablecoinPremium: Float64Array;
  /** Kimchi premium of ordinary tokens above the stablecoin premium (a fraction). */
  kimchiSpread: Float64Array;
  lastDay: number;
}

// Trend anchors (date, KRW) the chip stocks follow in log space; noise and shocks ride on top.
const SAMSUNG_TREND: readonly (readonly [string, number])[] = [
  ['2018-01-01', 50000],
  ['2019-01-02', 39000],
  ['2020-03-19', 42000],
  ['2021-01-11', 90000],
  ['2022-09-30', 53000],
  ['2023-12-28', 78000],
  ['2024-07-10', 87000],
  ['2024-11-14', 55000],
  ['2025-06-30', 60000],
  ['2025-11-03', 100000],
  ['2026-03-02', 160000],
  ['2026-08-03', 235000],
  ['2027-06-01', 240000],
];
const HYNIX_TREND: readonly (readonly [string, number])[] = [
  ['2018-01-01', 76000],
  ['2019-01-02', 60000],
  ['2020-03-19', 75000],
  ['2021-04-01', 140000],
  ['2022-10-04', 80000],
  ['2023-12-28', 140000],
  ['2024-07-10', 230000],
  ['2024-11-14', 170000],
  ['2025-06-30', 290000],
  ['2025-11-03', 600000],
  ['2026-03-02', 1000000],
  ['2026-08-03', 1535000],
  ['2027-06-01', 1600000],
];

type TrendPoints = readonly (readonly [day: number, logPrice: number])[];

function trendPoints(anchors: readonly (readonly [string, number])[]): TrendPoints {
  return anchors.map(([date, price]) => [dayIndexOf(Date.parse(`${date}T00:00:00Z`)), Math.log(price)] as const);
}

const SAMSUNG_POINTS = trendPoints(SAMSUNG_TREND);
const HYNIX_POINTS = trendPoints(HYNIX_TREND);

function trendLog(points: TrendPoints, day: number): number {
  const first = points[0]!;
  const last = points[points.length - 1]!;
  if (day <= first[0]) return first[1];
  if (day >= last[0]) return last[1];
  for (let i = 1; i < points.length; i++) {
    const [d1, v1] = points[i]!;
    if (day <= d1) {
      const [d0, v0] = points[i - 1]!;
      return v0 + ((v1 - v0) * (day - d0)) / (d1 - d0);
    }
  }
  return last[1];
}

/** The daily macro walk from the epoch through `lastDay` (inclusive). */
export function macroHistory(seed: number, lastDay: number): MacroHistory {
  const n = lastDay + 1;
  const history: MacroHistory = {
    dgs3: new Float64Array(n),
    vix: new Float64Array(n),
    usdKrw: new Float64Array(n),
    samsungClose: new Float64Array(n),
    hynixClose: new Float64Array(n),
    samsungForeignPct: new Float64Array(n),
    hynixForeignPct: new Float64Array(n),
    stablecoinPremium: new Float64Array(n),
    kimchiSpread: new Float64Array(n),
    lastDay,
  };
  const rng = Rng.stream(seed, 'korea:macro');
  const samsungTrend = (d: number): number => trendLog(SAMSUNG_POINTS, d);
  const hynixTrend = (d: number): number => trendLog(HYNIX_POINTS, d);

  let logVix = Math.log(16 + 4 * rng.next());
  let rate = 3.6 + 0.8 * rng.next();
  let logFx = Math.log(1360 + 60 * rng.next());
  let samsungNoise = 0.05 * gaussian(rng);
  let hynixNoise = 0.07 * gaussian(rng);
  let samsungForeign = 50 + 3 * rng.next();
  let hynixForeign = 51 + 4 * rng.next();
  let stable = 0.0025 + 0.002 * rng.next();
  let spread = 0.006 + 0.006 * rng.next();

  for (let d = 0; d < n; d++) {
    history.dgs3[d] = rate;
    history.vix[d] = Math.exp(logVix);
    history.usdKrw[d] = Math.exp(logFx);
    history.samsungClose[d] = Math.exp(samsungTrend(d) + samsungNoise);
    history.hynixClose[d] = Math.exp(hynixTrend(d) + hynixNoise);
    history.samsungForeignPct[d] = samsungForeign;
    history.hynixForeignPct[d] = hynixForeign;
    history.stablecoinPremium[d] = stable;
    history.kimchiSpread[d] = spread;

    // Draw the same numbers every day so one day's draws never shift another's.
    const z = gaussian(rng);
    const jumpDraw = rng.next();
    const jumpSize = rng.uniform(0.2, 0.55);
    const eRate = gaussian(rng);
    const eFx = gaussian(rng);
    const eChip = gaussian(rng);
    const eSamsung = gaussian(rng);
    const eHynix = gaussian(rng);
    const eSamsungForeign = gaussian(rng);
    const eHynixForeign = gaussian(rng);
    const eStable = gaussian(rng);
    const eSpread = gaussian(rng);

    // Crypto premiums move every day; US and KRX series stand still over the weekend.
    stable = reflect(stable + 0.05 * (0.0035 - stable) + 0.0006 * eStable, 0.001, 0.006);
    spread = reflect(spread + 0.03 * (0.009 - spread) + 0.0012 * eSpread, -0.004, 0.03);
    if (isWeekendDay(d + 1)) continue;

    const shock = 0.06 * z + (jumpDraw < 0.008 ? jumpSize : 0);
    logVix = reflect(logVix + 0.045 * (Math.log(16.5) - logVix) + shock, Math.log(9.5), Math.log(85));
    rate = reflect(rate + 0.005 * (4.15 - rate) + 0.03 * eRate - 0.15 * shock, 3.3, 5.0);
    logFx = reflect(logFx + 0.006 * (Math.log(1400) - logFx) + 0.0028 * eFx + 0.05 * shock, Math.log(1320), Math.log(1478));
    const chip = 0.75 * eChip;
    samsungNoise += -0.03 * samsungNoise + 0.016 * (chip + 0.66 * eSamsung) - 0.12 * shock;
    hynixNoise += -0.03 * hynixNoise + 0.022 * (chip + 0.66 * eHynix) - 0.16 * shock;
    samsungForeign = reflect(samsungForeign + 0.01 * (51.5 - samsungForeign) + 0.05 * eSamsungForeign - 1.5 * shock, 47, 57);
    hynixForeign = reflect(hynixForeign + 0.01 * (53 - hynixForeign) + 0.05 * eHynixForeign - 1.5 * shock, 47, 57);
  }
  return history;
}

/** KRX price tick (KRW) for a share price. */
export function krxTick(price: number): number {
  if (price < 2000) return 1;
  if (price < 5000) return 5;
  if (price < 20000) return 10;
  if (price < 50000) return 50;
  if (price < 200000) return 100;
  if (price < 500000) return 500;
  return 1000;
}

export function krxRound(price: number): number {
  const tick = krxTick(price);
  return Math.round(price / tick) * tick;
}

const round2 = (value: number): number => Math.round(value * 100) / 100;

/** How far back macro_daily reaches (the reference backfills ~760 calendar days). */
export const MACRO_BACKFILL_DAYS = 760;

/**
 * macro_daily rows at `nowMs`: FRED series on weekdays through yesterday (NULL on US holidays),
 * KRX series on KRX trading days through the latest closed session (15:30 KST).
 */
export function macroDailyRows(history: MacroHistory, nowMs: number): Row[] {
  const today = dayIndexOf(nowMs);
  const firstDay = today - MACRO_BACKFILL_DAYS;
  const lastFredDay = today - 1;
  const kstToday = kstDayIndexOf(nowMs);
  const krxClosedToday = nowMs + KST_OFFSET_MS - msOfDay(kstToday) >= 15 * HOUR_MS + 30 * MINUTE_MS;
  const lastKrxDay = krxClosedToday ? kstToday : kstToday - 1;
  const rows: Row[] = [];

  const fred = (series: string, market: UsMarket, values: Float64Array): void => {
    for (let d = firstDay; d <= lastFredDay; d++) {
      if (isWeekendDay(d)) continue;
      const date = isoDateOfDay(d);
      rows.push([series, date, isUsHoliday(date, market) ? null : round2(values[d]!), 'demo']);
    }
  };
  const krx = (series: string, values: Float64Array, format: (v: number) => number): void => {
    for (let d = firstDay; d <= lastKrxDay; d++) {
      if (!isKrxTradingDay(d)) continue;
      rows.push([series, isoDateOfDay(d), format(values[d]!), 'demo']);
    }
  };

  fred('DGS3', 'bond', history.dgs3);
  fred('VIXCLS', 'nyse', history.vix);
  fred('DEXKOUS', 'fed', history.usdKrw);
  krx('KRX:005930:close', history.samsungClose, krxRound);
  krx('KRX:005930:foreign_pct', history.samsungForeignPct, round2);
  krx('KRX:000660:close', history.hynixClose, krxRound);
  krx('KRX:000660:foreign_pct', history.hynixForeignPct, round2);
  return rows;
}

/** The last KRX session strictly before `day`, for news that quotes the previous close. */
export function previousKrxSession(day: number): number {
  let d = day - 1;
  while (!isKrxTradingDay(d)) d--;
  return d;
}
