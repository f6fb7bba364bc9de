/**
 * ExchangeRate-API open access (open.er-api.com): the keyless USD/KRW fallback. See docs/upstreams-korea.md, "ExchangeRate-API (er-api)".
 * Updated once a day; `time_last_update_unix` is when, and becomes the row's as_of.
 */
import { z } from 'zod';
import type { Row } from '../../../lib/duckdb.ts';
import { UpstreamError, type Upstream } from '../http.ts';
import { shownUrl } from './shown-url.ts';

const Latest = z.object({
  result: z.string(),
  'error-type': z.string().optional(),
  base_code: z.string().optional(),
  time_last_update_unix: z.number().int().optional(),
  rates: z.record(z.string(), z.number()).optional(),
});

export async function fetchErApiUsdKrw(up: Upstream): Promise<Row> {
  const path = '/v6/latest/USD';
  const body = await up.getJson(path, {}, Latest);
  const shown = shownUrl(up, path);
  if (body.result !== 'success') {
    throw new UpstreamError(
      up.name,
      shown,
      `${up.name}: GET ${shown} answered result "${body.result}"${body['error-type'] ? ` (${body['error-type']})` : ''}`,
    );
  }
  const rate = body.rates?.KRW;
  if (body.base_code !== 'USD' || !rate || rate <= 0 || body.time_last_update_unix === undefined) {
    throw new UpstreamError(up.name, shown, `${up.name}: GET ${shown} answered without a USD-based KRW rate and its update time`);
  }
  return ['USDKRW', rate, 'er-api', new Date(body.time_last_update_unix * 1000), 'live'];
}
