/**
 * OKX spot (www.okx.com): the fallback global reference when Binance fails. See docs/upstreams-korea.md, "OKX".
 *
 * `/api/v5/market/tickers?instType=SPOT`: envelope `{code, msg, data}`, code "0" = success, every
 * number a string; `volCcy24h` is the quote-currency (USDT) volume for spot.
 */
import { z } from 'zod';
import type { Row } from '../../../lib/duckdb.ts';
import { UpstreamError, type Upstream } from '../http.ts';
import { labelBy, readRows, type RowsRead } from './lenient.ts';
import { shownUrl } from './shown-url.ts';

const Envelope = z.object({ code: z.string(), msg: z.string().optional(), data: z.unknown().optional() });

const OkxTicker = z.object({
  instId: z.string(),
  last: z.string(),
  volCcy24h: z.string(),
  /** The ticker's time: the price's source time. */
  ts: z.string().regex(/^\d+$/, 'expected epoch milliseconds in a string'),
});
export type OkxTicker = z.infer<typeof OkxTicker>;

/** Every spot ticker; a row that does not parse is skipped and counted, not the list. */
export async function fetchOkxTickers(up: Upstream): Promise<RowsRead<OkxTicker>> {
  const path = '/api/v5/market/tickers';
  const body = await up.getJson(path, { instType: 'SPOT' }, Envelope);
  const shown = shownUrl(up, path);
  if (body.code !== '0') {
    throw new UpstreamError(up.name, shown, `${up.name}: GET ${shown} answered code ${body.code}${body.msg ? `: ${body.msg}` : ''}`);
  }
  const data = up.parse(z.object({ data: z.array(z.unknown()) }), { data: body.data }, `GET ${shown}`).data;
  return readRows(data, OkxTicker, labelBy('instId'));
}

/** global_prices rows for the X-USDT pairs with a positive last price. */
export function okxPriceRows(tickers: readonly OkxTicker[]): Row[] {
  const rows: Row[] = [];
  for (const t of tickers) {
    const m = /^([A-Z0-9]+)-USDT$/.exec(t.instId);
    const price = Number(t.last);
    const volume = Number(t.volCcy24h);
    if (!m || !(price > 0) || !Number.isFinite(volume)) continue; // '' for a pair without trades
    rows.push([m[1]!, price, volume, 'okx', new Date(Number(t.ts)), 'live']);
  }
  return rows;
}
