/**
 * Dunamu forex (quotation-api-cdn.dunamu.com): USD/KRW from Hana Bank, the first FX choice.
 * See docs/upstreams-korea.md, "Dunamu FX". Unofficial and undocumented, hence the er-api fallback.
 *
 * `/v1/forex/recent?codes=FRX.KRWUSD` answers an array; `basePrice` (매매기준율, the mid rate) per
 * `currencyUnit` units of the currency (1 for USD, 100 for JPY). Nothing here is documented, so
 * only `code` and `basePrice` are required: the unit defaults to 1 (USD's) and the rate's time is
 * `timestamp`, else `date` + `time` (KST wall clock), else the time the answer was received.
 */
import { z } from 'zod';
import type { Row } from '../../../lib/duckdb.ts';
import { describeIssues } from '../../../lib/zod-issues.ts';
import { UpstreamError, type Upstream } from '../http.ts';
import { kstWallClockToUtc } from './kst.ts';
import { EpochMs, NumberOrDecimalString } from './lenient.ts';
import { shownUrl } from './shown-url.ts';

const Quote = z.object({
  code: z.literal('FRX.KRWUSD'),
  basePrice: NumberOrDecimalString.refine((n) => n > 0, 'expected a positive rate'),
  currencyUnit: NumberOrDecimalString.refine((n) => n > 0, 'expected a positive unit').optional(),
  timestamp: EpochMs.optional(),
  date: z.string().optional(),
  time: z.string().optional(),
});

/** The rate's time from what the quote carries; null when it carries none that reads. */
function quoteTime(q: z.infer<typeof Quote>): Date | null {
  if (q.timestamp !== undefined) return new Date(q.timestamp);
  if (q.date && q.time) {
    try {
      return kstWallClockToUtc(`${q.date} ${q.time}`);
    } catch {
      return null;
    }
  }
  return null;
}

/** The fx_rates row, and a note when the quote had no time of its own. */
export async function fetchDunamuUsdKrw(up: Upstream, receivedAt: Date): Promise<{ row: Row; note: string | null }> {
  const path = '/v1/forex/recent';
  const quotes = await up.getJson(path, { codes: 'FRX.KRWUSD' }, z.array(z.unknown()));
  const shown = shownUrl(up, path);
  const raw = quotes.find((q) => typeof q === 'object' && q !== null && (q as { code?: unknown }).code === 'FRX.KRWUSD');
  if (raw === undefined) {
    throw new UpstreamError(
      up.name,
      shown,
      `${up.name}: GET ${shown}?codes=FRX.KRWUSD answered no FRX.KRWUSD quote (${quotes.length} quotes)`,
    );
  }
  const parsed = Quote.safeParse(raw);
  if (!parsed.success) {
    throw new UpstreamError(
      up.name,
      shown,
      `${up.name}: GET ${shown}?codes=FRX.KRWUSD: the FRX.KRWUSD quote ${describeIssues(parsed.error.issues)}`,
    );
  }
  const q = parsed.data;
  const at = quoteTime(q);
  return {
    row: ['USDKRW', q.basePrice / (q.currencyUnit ?? 1), 'dunamu', at ?? receivedAt, 'live'],
    note: at ? null : `dunamu: the FRX.KRWUSD quote has no time of its own; stamped with the time received`,
  };
}
