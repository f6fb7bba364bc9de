/**
 * Korean exchanges mix UTC and KST (UTC+9, no daylight saving) in one payload, and Bithumb stamps
 * some epoch milliseconds from the KST wall clock. Every instant leaves these helpers as UTC.
 */

export const KST_OFFSET_MS = 9 * 3_600_000;

const WALL_CLOCK = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/;

function wallClockMs(text: string, what: string): number {
  const m = WALL_CLOCK.exec(text);
  if (!m) throw new Error(`${what}: expected 'yyyy-MM-dd HH:mm:ss' without a zone, got ${JSON.stringify(text)}`);
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  // Date.UTC rolls 2026-02-30 over to March: a string that does not round-trip is not a real time.
  if (new Date(ms).toISOString().slice(0, 19) !== `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}`) {
    throw new Error(`${what}: ${JSON.stringify(text)} is not a valid date and time`);
  }
  return ms;
}

/** A KST wall-clock time without zone ('2026-07-31 06:59:59', Bithumb's end_date) as a UTC instant. */
export function kstWallClockToUtc(text: string): Date {
  return new Date(wallClockMs(text, 'KST time') - KST_OFFSET_MS);
}

/** A UTC wall-clock time without zone ('2026-07-30T07:41:00', Upbit's candle_date_time_utc). */
export function utcWallClock(text: string): Date {
  return new Date(wallClockMs(text, 'UTC time'));
}

/**
 * Bithumb epoch milliseconds as a UTC instant. Bithumb documents UTC but stamps REST timestamps from
 * the KST wall clock (9 h ahead; docs/upstreams-korea.md, "Bithumb timestamps"). A stamp more than
 * 30 minutes ahead of the run's clock cannot be a true UTC time: when it is at most 9.5 h ahead it
 * is such a shifted stamp (of a price up to 8.5 h old) and is moved back; any other stamp is taken
 * as it is, so the adapter stays right if Bithumb fixes its clock.
 */
export function bithumbStampToUtc(ms: number, nowMs: number): Date {
  const lead = ms - nowMs;
  const shifted = lead > 1_800_000 && lead < KST_OFFSET_MS + 1_800_000;
  return new Date(shifted ? ms - KST_OFFSET_MS : ms);
}

/** 'YYYY-MM-DD' of a UTC instant. */
export function isoDay(at: Date | number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** 'YYYY-MM-DD' of the KST calendar day an instant falls on (KRX trading days are KST days). */
export function kstDay(at: Date | number): string {
  return isoDay(new Date(at).getTime() + KST_OFFSET_MS);
}

/** 'YYYY-MM-DD' → 'YYYYMMDD' (Naver's date format) and back. */
export function compactDay(day: string): string {
  return day.replaceAll('-', '');
}
export function expandDay(compact: string): string {
  if (!/^\d{8}$/.test(compact)) throw new Error(`expected a yyyyMMdd date, got ${JSON.stringify(compact)}`);
  return `${compact.slice(0, 4)}-${compact.slice(4, 6)}-${compact.slice(6, 8)}`;
}

/** 'YYYY-MM-DD' shifted by whole days. */
export function addDays(day: string, days: number): string {
  return isoDay(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000);
}
