/**
 * Naver Finance daily bars with foreign ownership (외국인소진율) for KRX stocks: Samsung
 * Electronics 005930 and SK hynix 000660. See docs/upstreams-korea.md, "Naver Finance". Unofficial, keyless.
 *
 * `/siseJson.naver?symbol=005930&requestType=1&startTime=yyyyMMdd&endTime=yyyyMMdd&timeframe=day`
 * answers a JavaScript array literal, not JSON: a single-quoted header row
 * ['날짜', '시가', '고가', '저가', '종가', '거래량', '외국인소진율'], then one row per trading day,
 * with tabs, blank lines and possibly a trailing comma. Columns are found by name. A row that does
 * not read is skipped and counted; a body that is not such an array fails the request.
 */
import { expandDay } from './kst.ts';
import type { RowsRead } from './lenient.ts';
import type { TextUpstream } from './text-upstream.ts';

export const NAVER_STOCKS = ['005930', '000660'] as const;
export type NaverStock = (typeof NAVER_STOCKS)[number];

export interface DailyBar {
  date: string;
  close: number;
  /** Foreign ownership, percent of the foreign limit; null when the column is empty. */
  foreignPct: number | null;
}

const excerpt = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 120);

export function parseSiseJson(text: string, where: string): RowsRead<DailyBar> {
  let table: unknown;
  try {
    table = JSON.parse(text.replace(/'/g, '"').replace(/,\s*\]/g, ']'));
  } catch {
    throw new Error(`${where}: body is not the expected array literal: ${JSON.stringify(excerpt(text))}`);
  }
  if (!Array.isArray(table) || !Array.isArray(table[0])) {
    throw new Error(`${where}: expected an array whose first row names the columns, got ${JSON.stringify(excerpt(text))}`);
  }
  const header = (table[0] as unknown[]).map(String);
  const col = (test: (name: string) => boolean, label: string) => {
    const i = header.findIndex(test);
    if (i < 0) throw new Error(`${where}: no ${label} column in the header ${JSON.stringify(header)}`);
    return i;
  };
  const iDate = col((h) => h === '날짜', "'날짜' (date)");
  const iClose = col((h) => h === '종가', "'종가' (close)");
  const iForeign = col((h) => h.includes('외국인'), "'외국인소진율' (foreign ownership)");
  const out: RowsRead<DailyBar> = { rows: [], total: table.length - 1, skipped: [] };
  const shown = (v: unknown) => JSON.stringify(v)?.slice(0, 80);
  for (let r = 1; r < table.length; r++) {
    const row = table[r] as unknown[];
    const date = Array.isArray(row) ? row[iDate] : undefined;
    const close = Array.isArray(row) ? row[iClose] : undefined;
    const foreign = Array.isArray(row) ? row[iForeign] : undefined;
    if (!Array.isArray(row) || typeof date !== 'string' || !/^\d{8}$/.test(date) || typeof close !== 'number' || !(close > 0)) {
      out.skipped.push(`row ${r} is not [yyyyMMdd, ..., close, ...]: ${shown(row)}`);
    } else if (foreign !== null && foreign !== undefined && typeof foreign !== 'number') {
      out.skipped.push(`row ${r} has foreign ownership ${shown(foreign)}; expected a number`);
    } else {
      try {
        out.rows.push({ date: expandDay(date), close, foreignPct: typeof foreign === 'number' ? foreign : null });
      } catch {
        out.skipped.push(`row ${r} has the date ${shown(date)}`);
      }
    }
  }
  return out;
}

/** Daily bars of one stock from `since` to `until` (inclusive, 'YYYY-MM-DD', KST days). */
export async function fetchNaverDaily(up: TextUpstream, code: NaverStock, since: string, until: string): Promise<RowsRead<DailyBar>> {
  const path = '/siseJson.naver';
  const text = await up.getText(path, {
    symbol: code,
    requestType: 1,
    startTime: since.replaceAll('-', ''),
    endTime: until.replaceAll('-', ''),
    timeframe: 'day',
  });
  const read = parseSiseJson(text, `${up.name}: ${path}?symbol=${code}`);
  return { ...read, rows: read.rows.filter((b) => b.date >= since && b.date <= until) };
}
