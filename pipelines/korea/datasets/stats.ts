/**
 * stats (free): coverage per exchange (listed markets, priced, with a global reference, with
 * candles, flagged, and why an exchange is missing from this run or which of its rows could not be
 * read) and the as_of of every dataset
 * written before it in this run; the proxy replaces `datasets` with the live manifest's entries
 * and their ages at request time.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { GLOBAL_SQL, TICKERS_SQL } from '../premiums.ts';
import {
  EXCHANGES,
  LISTING_EXCHANGES,
  sqlList,
  countRows,
  ensureRawTables,
  exchangeRankSql,
  failureListSql,
  failuresSql,
  isoSql,
  missingInput,
  queryDocument,
  skippedRowsSql,
  type KoreaDatasetStep,
} from '../sql.ts';

export async function coverageDocument(c: DuckDBConnection): Promise<{ coverage: Record<string, unknown>; as_of: string }> {
  await ensureRawTables(c);
  if ((await countRows(c, 'kr_markets')) === 0) {
    throw await missingInput(c, 'stats', 'no market lists (kr_markets is empty), so no coverage to report', LISTING_EXCHANGES);
  }
  const failures = await failuresSql(c);
  const skipped = await skippedRowsSql(c);
  const per = (table: string, e: string, where = 'true') =>
    `(SELECT count(DISTINCT symbol) FROM ${table} x WHERE x.exchange = ${e} AND ${where})::INTEGER`;
  return (await queryDocument(
    c,
    `WITH per AS (
       SELECT e.exchange, ${exchangeRankSql('e.exchange')} AS rank,
              ${per('kr_markets', 'e.exchange')} AS tokens,
              ${per(TICKERS_SQL, 'e.exchange')} AS priced,
              ${per(TICKERS_SQL, 'e.exchange', `x.symbol IN (SELECT symbol FROM ${GLOBAL_SQL})`)} AS with_global_price,
              ${per('candles_1m', 'e.exchange')} AS with_candles,
              ${per('market_flags', 'e.exchange')} AS flagged,
              (SELECT ${isoSql('max(observed_at)')} FROM kr_markets x WHERE x.exchange = e.exchange) AS as_of,
              nullif(concat_ws('; ',
                (SELECT ${failureListSql('f')}
                   FROM ${failures} f
                  WHERE starts_with(lower(f.upstream), e.exchange) OR lower(f.upstream) = 'candles:' || e.exchange),
                (SELECT string_agg(s.upstream || ': skipped ' || s.skipped || ' of ' || s.total || ' ' || s.list
                                   || ' that could not be read (' || s.problems || ')', '; ' ORDER BY s.upstream, s.list)
                   FROM ${skipped} s
                  WHERE starts_with(lower(s.upstream), e.exchange) OR lower(s.upstream) = 'candles:' || e.exchange)), '') AS problems
         FROM unnest(${sqlList(EXCHANGES)}) e(exchange))
     SELECT to_json(struct_pack(
       as_of := (SELECT ${isoSql('max(observed_at)')} FROM kr_markets),
       coverage := struct_pack(
         tokens_total := (SELECT count(DISTINCT symbol) FROM kr_markets)::INTEGER,
         tokens_on_both := (SELECT count(*) FROM (SELECT symbol FROM kr_markets GROUP BY symbol HAVING count(DISTINCT exchange) = 2))::INTEGER,
         tokens_with_global_price := (SELECT count(DISTINCT k.symbol) FROM kr_markets k JOIN ${GLOBAL_SQL} g ON g.symbol = k.symbol)::INTEGER,
         exchanges := (SELECT list(struct_pack(
                          exchange := exchange, available := priced > 0 AND (tokens > 0 OR NOT list_contains(${sqlList(LISTING_EXCHANGES)}, exchange)),
                          tokens := tokens, priced := priced, with_global_price := with_global_price,
                          with_candles := with_candles, flagged := flagged, as_of := as_of, problems := problems
                        ) ORDER BY rank) FROM per))
     )) AS doc`,
  )) as { coverage: Record<string, unknown>; as_of: string };
}

export const statsStep: KoreaDatasetStep = {
  dataset: 'stats',
  reads: [],
  counts: {
    inputs: ['krPrices', 'globalPrices'],
    why: 'coverage counts the symbols priced and those with a global price, never a price; it says what a run lacks, so a refused price never holds it back',
  },
  async run(ctx) {
    const { coverage, as_of: asOf } = await coverageDocument(ctx.connection);
    const doc = {
      coverage,
      datasets: ctx.writer
        .datasetNames()
        .sort()
        .map((name) => ctx.writer.entry(name)!)
        .map((e) => ({ name: e.name, as_of: e.as_of, rows: e.rows, source: e.source })),
      as_of: asOf,
      source: ctx.sourceKind,
    };
    return ctx.writer.writeDocument('stats', doc, ctx.meta('stats', asOf));
  },
};
