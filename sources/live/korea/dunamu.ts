/**
 * Dunamu forex (quotation-api-cdn.dunamu.com): USD/KRW from Hana Bank, the first FX choice.
 * See docs/upstreams-korea.md, "Dunamu FX". Unofficial and undocumented, hence the er-api fallback.
 *
 * `/v1/forex/recent?codes=FRX.KRWUSD` answers an array; `basePrice` (매매기준율, the mid rate) per
 * `currencyUnit` units of the currency (1 for USD, 100 for JPY).
 */
import { z } from 'zod';
import type { Row } from '../../../lib/duckdb.ts';
import { UpstreamError, type Upstream } from '../http.ts';
import { shownUrl } from './shown-url.ts';

const Quote = z.object({
  code: z.string(),
  basePrice: z.number().positive(),
  currencyUnit: z.number().positive(),
  timestamp: z.number().int(),
});

export async function fetchDunamuUsdKrw(up: Upstream): Promise<Row> {
  const path = '/v1/forex/recent';
  const quotes = await up.getJson(path, { codes: 'FRX.KRWUSD' }, z.array(Quote));
  const usd = quotes.find((q) => q.code === 'FRX.KRWUSD');
  if (!usd) {
    const shown = shownUrl(up, path);
    throw new UpstreamError(
      up.name,
      shown,
      `${up.name}: GET ${shown}?codes=FRX.KRWUSD answered no FRX.KRWUSD quote (${quotes.length} quotes)`,
    );
  }
  return ['USDKRW', usd.basePrice / usd.currencyUnit, 'dunamu', new Date(usd.timestamp), 'live'];
}
