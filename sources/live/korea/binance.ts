/**
 * Binance spot (api.binance.com): the global USD(T) reference. See docs/upstreams-korea.md, "Binance".
 *
 * One request, `/api/v3/ticker/24hr?type=MINI` for every symbol (weight 80 of 6,000 a minute):
 * last price and quote volume, strings. USDT pairs are read as USD (the premium's usual basis);
 * the venue is stored with every row. Binance answers HTTP 451 from US addresses (cloud runners):
 * the caller falls back to OKX.
 */
import { z } from 'zod';
import type { Row } from '../../../lib/duckdb.ts';
import type { Upstream } from '../http.ts';
import { labelBy, readRows, type RowsRead } from './lenient.ts';

const DecimalString = z
  .string()
  .regex(/^\d+(\.\d+)?$/, 'expected a decimal number in a string')
  .transform(Number);

const MiniTicker = z.object({
  symbol: z.string(),
  lastPrice: DecimalString,
  quoteVolume: DecimalString,
  /** End of the rolling 24 h window: the price's source time. */
  closeTime: z.number().int().nonnegative(),
  count: z.number().int(),
});
export type BinanceMiniTicker = z.infer<typeof MiniTicker>;

/** Every symbol's mini ticker; a row that does not parse is skipped and counted, not the list. */
export async function fetchBinanceTickers(up: Upstream): Promise<RowsRead<BinanceMiniTicker>> {
  return readRows(await up.getJson('/api/v3/ticker/24hr', { type: 'MINI' }, z.array(z.unknown())), MiniTicker, labelBy('symbol'));
}

/**
 * global_prices rows for the USDT pairs that traded in the last 24 h. Binance keeps delisted pairs
 * in ticker/24hr with their last price frozen and no trades (`count` 0): those are no reference.
 */
export function binancePriceRows(tickers: readonly BinanceMiniTicker[]): Row[] {
  const rows: Row[] = [];
  for (const t of tickers) {
    const m = /^([A-Z0-9]+)USDT$/.exec(t.symbol);
    if (!m || t.count === 0 || t.lastPrice <= 0) continue;
    rows.push([m[1]!, t.lastPrice, t.quoteVolume, 'binance', new Date(t.closeTime), 'live']);
  }
  return rows;
}
