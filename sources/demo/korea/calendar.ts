/**
 * Time axis and trading calendars of the korea demo world. Every series is a function of the
 * day or minute index counted from one fixed epoch, so any instant can be computed on its own.
 */

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;
export const KST_OFFSET_MS = 9 * HOUR_MS;
export const MINUTES_PER_DAY = 1440;

/** Day 0 of every daily walk. Early enough for a 2-year macro backfill before any 2020 `now`. */
export const WORLD_EPOCH_MS = Date.UTC(2018, 0, 1);
/** The earliest `now` the world accepts (macro backfill and walks need history behind it). */
export const EARLIEST_NOW_MS = Date.UTC(2020, 2, 1);

/** Days since the epoch of the UTC date containing `ms`. */
export function dayIndexOf(ms: number): number {
  return Math.floor((ms - WORLD_EPOCH_MS) / DAY_MS);
}

/** Minutes since the epoch of the minute containing `ms`. */
export function minuteIndexOf(ms: number): number {
  return Math.floor((ms - WORLD_EPOCH_MS) / MINUTE_MS);
}

export function msOfDay(day: number): number {
  return WORLD_EPOCH_MS + day * DAY_MS;
}

export function msOfMinute(minute: number): number {
  return WORLD_EPOCH_MS + minute * MINUTE_MS;
}

/** 'YYYY-MM-DD' of a day index (the UTC calendar date; also used for KST dates shifted by the caller). */
export function isoDateOfDay(day: number): string {
  return new Date(msOfDay(day)).toISOString().slice(0, 10);
}

/** 0 = Sunday ... 6 = Saturday. */
export function weekdayOfDay(day: number): number {
  return new Date(msOfDay(day)).getUTCDay();
}

export function isWeekendDay(day: number): boolean {
  const weekday = weekdayOfDay(day);
  return weekday === 0 || weekday === 6;
}

/** The KST calendar date containing `ms`, as a day index on the same axis. */
export function kstDayIndexOf(ms: number): number {
  return dayIndexOf(ms + KST_OFFSET_MS);
}

// ------------------------------------------------------------------ US holidays (FRED gaps)

/** Which US calendar a FRED series follows: Fed (H.10 FX), bond market (Treasury yields), NYSE (VIX). */
export type UsMarket = 'fed' | 'bond' | 'nyse';

const usHolidayCache = new Map<string, ReadonlySet<string>>();

function iso(year: number, month: number, day: number): string {
  return new Date(Date.UTC(year, month - 1, day)).toISOString().slice(0, 10);
}

function nthWeekday(year: number, month: number, weekday: number, n: number): string {
  const first = new Date(Date.UTC(year, month - 1, 1)).getUTCDay();
  return iso(year, month, 1 + ((weekday - first + 7) % 7) + 7 * (n - 1));
}

function lastWeekday(year: number, month: number, weekday: number): string {
  const lastDate = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const last = new Date(Date.UTC(year, month - 1, lastDate)).getUTCDay();
  return iso(year, month, lastDate - ((last - weekday + 7) % 7));
}

/** A fixed-date holiday moved to Friday when on Saturday and to Monday when on Sunday. */
function observed(year: number, month: number, day: number): string {
  const weekday = new Date(Date.UTC(year, month - 1, day)).getUTCDay();
  if (weekday === 6) return iso(year, month, day - 1);
  if (weekday === 0) return iso(year, month, day + 1);
  return iso(year, month, day);
}

/** Gregorian Easter Sunday (anonymous algorithm), for Good Friday. */
function easterSunday(year: number): [month: number, day: number] {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return [month, day];
}

function usHolidays(year: number, market: UsMarket): ReadonlySet<string> {
  const key = `${year}:${market}`;
  const cached = usHolidayCache.get(key);
  if (cached) return cached;
  const days = new Set<string>([
    observed(year, 1, 1),
    nthWeekday(year, 1, 1, 3), // Martin Luther King Jr. Day
    nthWeekday(year, 2, 1, 3), // Presidents' Day
    lastWeekday(year, 5, 1), // Memorial Day
    observed(year, 7, 4),
    nthWeekday(year, 9, 1, 1), // Labor Day
    nthWeekday(year, 11, 4, 4), // Thanksgiving
    observed(year, 12, 25),
  ]);
  if (year >= 2022) days.add(observed(year, 6, 19)); // Juneteenth
  if (market !== 'nyse') {
    days.add(nthWeekday(year, 10, 1, 2)); // Columbus Day
    days.add(observed(year, 11, 11)); // Veterans Day
  }
  if (market !== 'fed') {
    const [month, day] = easterSunday(year);
    days.add(iso(year, month, day - 2)); // Good Friday
  }
  usHolidayCache.set(key, days);
  return days;
}

export function isUsHoliday(date: string, market: UsMarket): boolean {
  return usHolidays(Number(date.slice(0, 4)), market).has(date);
}

// ------------------------------------------------------------------ KRX holidays

// Lunar holidays (Seollal, Buddha's Birthday, Chuseok), substitutes and election days as announced.
const KRX_LUNAR_AND_SPECIAL: ReadonlySet<string> = new Set([
  '2018-02-15',
  '2018-02-16',
  '2018-05-07',
  '2018-05-22',
  '2018-06-13',
  '2018-09-24',
  '2018-09-25',
  '2018-09-26',
  '2019-02-04',
  '2019-02-05',
  '2019-02-06',
  '2019-05-06',
  '2019-09-12',
  '2019-09-13',
  '2020-01-24',
  '2020-01-27',
  '2020-04-15',
  '2020-04-30',
  '2020-08-17',
  '2020-09-30',
  '2020-10-01',
  '2020-10-02',
  '2021-02-11',
  '2021-02-12',
  '2021-05-19',
  '2021-08-16',
  '2021-09-20',
  '2021-09-21',
  '2021-09-22',
  '2021-10-04',
  '2021-10-11',
  '2022-01-31',
  '2022-02-01',
  '2022-02-02',
  '2022-03-09',
  '2022-06-01',
  '2022-09-09',
  '2022-09-12',
  '2022-10-10',
  '2023-01-23',
  '2023-01-24',
  '2023-05-29',
  '2023-09-28',
  '2023-09-29',
  '2023-10-02',
  '2024-02-09',
  '2024-02-12',
  '2024-04-10',
  '2024-05-06',
  '2024-05-15',
  '2024-09-16',
  '2024-09-17',
  '2024-09-18',
  '2024-10-01',
  '2025-01-27',
  '2025-01-28',
  '2025-01-29',
  '2025-01-30',
  '2025-03-03',
  '2025-05-06',
  '2025-06-03',
  '2025-10-06',
  '2025-10-07',
  '2025-10-08',
  '2026-02-16',
  '2026-02-17',
  '2026-02-18',
  '2026-03-02',
  '2026-05-25',
  '2026-06-03',
  '2026-08-17',
  '2026-09-24',
  '2026-09-25',
  '2026-10-05',
  '2027-02-08',
  '2027-02-09',
  '2027-05-13',
  '2027-08-16',
  '2027-09-14',
  '2027-09-15',
  '2027-09-16',
  '2027-10-04',
  '2027-10-11',
  '2028-01-26',
  '2028-01-27',
  '2028-01-28',
  '2028-04-12',
  '2028-05-02',
  '2028-10-02',
  '2028-10-04',
]);

// Fixed-date closures: New Year, Independence Movement Day, Labor Day, Children's Day, Memorial Day,
// Liberation Day, National Foundation Day, Hangul Day, Christmas, year-end closing.
const KRX_FIXED: readonly string[] = ['01-01', '03-01', '05-01', '05-05', '06-06', '08-15', '10-03', '10-09', '12-25', '12-31'];

export function isKrxTradingDay(day: number): boolean {
  if (isWeekendDay(day)) return false;
  const date = isoDateOfDay(day);
  return !KRX_FIXED.includes(date.slice(5)) && !KRX_LUNAR_AND_SPECIAL.has(date);
}
