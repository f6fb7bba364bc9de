/**
 * kimchi-premium-daily (table, free, CC0): the free daily preview of the Korea premium index
 * (catalog/korea.ts KIMCHI_PREMIUM_DAILY, docs/upstreams-korea.md "Free daily preview"), read
 * from the archive's closed days (premium_1d, archive.ts) once this run's premiums are in it:
 *
 *   series  the market-wide index (exchange 'korea', symbol 'ALL'; rank NULL) and the 20 largest
 *           symbols by Korean 24-hour KRW volume in this run (INDEX_ROWS_SQL's volume_krw,
 *           stablecoins out) that have a day to publish, ranked 1 (largest) to 20;
 *   days    every closed UTC day up to the day before yesterday at the run's minute (a day is
 *           published once it closed at least 24 hours before), the last 365 at most;
 *   row     the day's mean, min and max of the minutes observed and how many (as archived), and
 *           the Korean exchanges with a point that day: of the same symbol, or for 'ALL' of any
 *           symbol but the stablecoins (what the market-wide index can rest on).
 *
 * Rows sorted by rank ('ALL' first), then day.
 */
import { KIMCHI_PREMIUM_DAILY, PREMIUM_ARCHIVE } from '../../../catalog/korea.ts';
import { PREMIUM_INPUTS, recordedRun } from '../archive.ts';
import { INDEX_EXCLUDED_SYMBOLS, INDEX_ROWS_SQL } from '../premiums.ts';
import { EXCHANGES, exchangeRankSql, quote, timestampSql, type KoreaDatasetStep } from '../sql.ts';

const DATASET = 'kimchi-premium-daily';
const INDEX = quote(PREMIUM_ARCHIVE.indexExchange);
const ALL = quote(PREMIUM_ARCHIVE.marketIndexSymbol);
const KOREAN = `(${EXCHANGES.map(quote).join(', ')})`;
const STABLECOINS = `(${INDEX_EXCLUDED_SYMBOLS.map(quote).join(', ')})`;

/** The preview's rows at the run's `minute` (the archive's: its newest Korean price's minute). */
export function dailyPreviewSql(minute: Date): string {
  const { delayedDays, keepDays, symbols } = KIMCHI_PREMIUM_DAILY;
  return `
    WITH span AS (
      SELECT date_trunc('day', ${timestampSql(minute)}) - INTERVAL ${delayedDays + 1} DAY AS last_t
    ),
    days AS (
      SELECT a.* FROM premium_1d a, span s WHERE a.t <= s.last_t AND a.t > s.last_t - INTERVAL ${keepDays} DAY
    ),
    top AS (
      SELECT symbol, row_number() OVER (ORDER BY volume_krw DESC, symbol)::INTEGER AS rank
        FROM ${INDEX_ROWS_SQL}
       WHERE symbol NOT IN ${STABLECOINS} AND symbol <> ${ALL}
         AND symbol IN (SELECT symbol FROM days WHERE exchange = ${INDEX})
      QUALIFY rank <= ${symbols}
    ),
    series AS (
      SELECT ${ALL} AS symbol, NULL::INTEGER AS rank
      UNION ALL
      SELECT symbol, rank FROM top
    ),
    points AS (
      SELECT symbol, t, exchange FROM days WHERE exchange IN ${KOREAN}
      UNION
      SELECT ${ALL}, t, exchange FROM days WHERE exchange IN ${KOREAN} AND symbol NOT IN ${STABLECOINS}
    ),
    exchanges AS (
      SELECT symbol, t, list(exchange ORDER BY ${exchangeRankSql('exchange')}) AS exchanges FROM points GROUP BY symbol, t
    )
    SELECT s.symbol, s.rank, d.t::DATE AS day, d.premium_pct, d.min_pct, d.max_pct, d.samples,
           coalesce(e.exchanges, []::VARCHAR[]) AS exchanges, d.source
      FROM series s
      JOIN days d ON d.exchange = ${INDEX} AND d.symbol = s.symbol
      LEFT JOIN exchanges e ON e.symbol = s.symbol AND e.t = d.t
     ORDER BY s.rank NULLS FIRST, d.t`;
}

export const kimchiPremiumDailyStep: KoreaDatasetStep = {
  dataset: DATASET,
  // this run's premiums, recorded in the archive before the preview reads it, and the ranking by this run's volumes
  reads: PREMIUM_INPUTS,
  async run(ctx) {
    const { minute } = await recordedRun(ctx, DATASET);
    return ctx.writer.writeTable(ctx.connection, DATASET, dailyPreviewSql(minute), ctx.meta(DATASET, minute));
  },
};
