/**
 * SQL pieces the korea dataset steps share: the run's clock, ISO times, the exchanges, the
 * upstream failures the live source reports, and the "inputs missing" errors that make the runner
 * keep a dataset's last good version.
 *
 * Every dataset is a function of a DuckDB connection and a `KoreaRun` (time and kind of data),
 * so the formula tests run the same SQL on tiny hand-made raw tables in an in-memory database.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { KOREAN_EXCHANGES, LISTING_EXCHANGES, type KoreaDatasetName } from '../../catalog/korea.ts';
import type { KoreaUpstreamName } from '../../sources/korea-upstreams.ts';
import { RAW_TABLES, type SourceKind } from '../../sources/raw-tables.ts';
import type { DatasetStep, PipelineContext } from '../runner.ts';
import type { KoreaInput } from './plausibility-bounds.ts';
import { queryJson, significantSql, sqlList, tableExists } from '../../lib/duckdb.ts';

/** What a korea dataset needs to know about its run besides the warehouse. */
export interface KoreaRun {
  /** The run's "now" (UTC). */
  now: Date;
  sourceKind: SourceKind;
}

export const runOf = (ctx: PipelineContext): KoreaRun => ({ now: ctx.now, sourceKind: ctx.sourceKind });

/**
 * A korea dataset step with the guarded inputs it reads (plausibility-bounds.ts), declared with it:
 * the plausibility guard refuses it while one of them is refused (plausibility.ts), and
 * reads.test.ts runs every step and fails when one reads an input's raw table it does not declare.
 */
export interface KoreaDatasetStep extends DatasetStep {
  dataset: KoreaDatasetName;
  /** The inputs whose values it reads (directly or through the SQL it shares): it is refused with any of them. */
  reads: readonly KoreaInput[];
  /**
   * Inputs it only counts (whether rows are there, or how many; never a value): a refused one
   * does not hold it back. Say why.
   */
  counts?: { inputs: readonly KoreaInput[]; why: string };
}

/** The dataset step that writes `build`'s document as `dataset`, stamped with the document's as_of. */
export function documentStep(
  dataset: KoreaDatasetName,
  reads: readonly KoreaInput[],
  build: (c: DuckDBConnection, run: KoreaRun) => Promise<Record<string, unknown>>,
): KoreaDatasetStep {
  return {
    dataset,
    reads,
    async run(ctx) {
      const doc = await build(ctx.connection, runOf(ctx));
      return ctx.writer.writeDocument(dataset, doc, ctx.meta(dataset, String(doc.as_of)));
    },
  };
}

/** The Korean exchanges whose prices we read, in the order every list of this service shows them. */
export const EXCHANGES = KOREAN_EXCHANGES;
export { LISTING_EXCHANGES };

/** Sort key of an exchange column: upbit, bithumb, coinone, korbit. */
export const exchangeRankSql = (col: string): string => `list_position(${sqlList(EXCHANGES)}, ${col})`;

export { sqlList };

/** Quotes a string as a SQL literal. */
export const quote = (s: string): string => `'${s.replaceAll("'", "''")}'`;

/** A TIMESTAMP literal (UTC) for a JS date; statements are text because COPY takes no parameters. */
export function timestampSql(at: Date): string {
  return `TIMESTAMP '${at.toISOString().replace('T', ' ').replace('Z', '')}'`;
}

/** ISO 8601 UTC text of a TIMESTAMP expression, e.g. 2026-11-20T09:00:00Z (NULL stays NULL). */
export const isoSql = (expr: string): string => `strftime(${expr}, '%Y-%m-%dT%H:%M:%SZ')`;

/** Significant digits a computed price keeps (a price is never rounded to a fixed number of decimals). */
export const PRICE_SIGNIFICANT_DIGITS = 8;

/**
 * A computed price (e.g. a KRW price converted to USD) rounded to significant digits: 0.0000141234567
 * stays 0.000014123457, 65729.7297297 becomes 65729.730, and a positive price never becomes 0.
 */
export function roundPrice(price: number): number {
  return Number.isFinite(price) ? Number(price.toPrecision(PRICE_SIGNIFICANT_DIGITS)) : price;
}

/** A computed price rounded to PRICE_SIGNIFICANT_DIGITS significant digits in SQL (roundPrice's twin; NULL and 0 stay). */
export const priceSql = (expr: string): string => significantSql(expr, PRICE_SIGNIFICANT_DIGITS);

/** A fraction shown as a percent rounded to 4 decimals (0.0065812 → 0.6581); percentages keep fixed decimals, prices do not (roundPrice). */
export const pctSql = (fraction: string, decimals = 4): string => `round(100 * (${fraction}), ${decimals})`;

/**
 * KRW amounts summed exactly: DOUBLE sums depend on the order DuckDB's threads combine partial
 * sums, DECIMAL sums do not, so the same input gives byte-identical files.
 */
export const krwSumSql = (expr: string, filter?: string): string =>
  `(sum((${expr})::DECIMAL(38, 2))${filter ? ` FILTER (WHERE ${filter})` : ''})::DOUBLE`;

/**
 * Creates any korea raw table this run did not (an ingest step that failed may leave none), so a
 * missing input reads as an empty table and fails with the dataset's own clear message.
 */
export async function ensureRawTables(c: DuckDBConnection): Promise<void> {
  for (const table of Object.values(RAW_TABLES)) {
    if (table.service !== 'korea') continue;
    await c.run(`CREATE TABLE IF NOT EXISTS ${table.name} (${table.columns.map(([n, ty]) => `${n} ${ty}`).join(', ')})`);
  }
}

export { tableExists };

/**
 * `ingest_failures(upstream, error, at)` as a relation: the live source writes one row per
 * upstream that failed in this run (an absent table means nothing failed). Upstream names are the
 * source's (sources/korea-upstreams.ts): 'upbit', 'bithumb:alerts', 'binance', 'dunamu', 'fred:DGS3', 'naver:005930'.
 */
export async function failuresSql(c: DuckDBConnection): Promise<string> {
  if (await tableExists(c, 'ingest_failures')) {
    return `(SELECT upstream::VARCHAR AS upstream, error::VARCHAR AS error FROM ingest_failures)`;
  }
  return `(SELECT NULL::VARCHAR AS upstream, NULL::VARCHAR AS error WHERE false)`;
}

/**
 * `ingest_skipped_rows(upstream, list, skipped, total, problems)` as a relation: rows an upstream
 * sent that the live source could not read this run (the rest of the list was kept); empty when
 * the table is absent.
 */
export async function skippedRowsSql(c: DuckDBConnection): Promise<string> {
  if (await tableExists(c, 'ingest_skipped_rows')) {
    return `(SELECT upstream::VARCHAR AS upstream, list::VARCHAR AS list, skipped::INTEGER AS skipped, total::INTEGER AS total,
                    problems::VARCHAR AS problems FROM ingest_skipped_rows)`;
  }
  return `(SELECT NULL::VARCHAR AS upstream, NULL::VARCHAR AS list, NULL::INTEGER AS skipped, NULL::INTEGER AS total,
                  NULL::VARCHAR AS problems WHERE false)`;
}

/** One failure as text: the error when it already names its upstream (the live source's do), else 'upstream: error'. */
const failureTextSql = (f: string): string =>
  `(CASE WHEN starts_with(lower(coalesce(${f}.error, '')), lower(${f}.upstream)) THEN ${f}.error
         ELSE ${f}.upstream || ': ' || coalesce(${f}.error, 'failed') END)`;

/** The failures of a group as one text, e.g. 'binance: HTTP 451; okx: timeout' (aggregate over alias `f`). */
export const failureListSql = (f = 'f'): string => `string_agg(DISTINCT ${failureTextSql(f)}, '; ' ORDER BY ${failureTextSql(f)})`;

/** 'binance: HTTP 451; okx: timeout' for failures whose upstream starts with one of `prefixes`. */
export async function failureReason(c: DuckDBConnection, prefixes: readonly KoreaUpstreamName[]): Promise<string | null> {
  if (prefixes.length === 0) return null;
  const failures = await failuresSql(c);
  const match = prefixes.map((p) => `starts_with(lower(f.upstream), ${quote(p.toLowerCase())})`).join(' OR ');
  const [row] = await queryJson(c, `SELECT ${failureListSql('f')} AS reason FROM ${failures} f WHERE ${match}`);
  return row?.reason ? String(row.reason) : null;
}

/** The error a dataset throws when an input it cannot do without is missing from this run. */
export async function missingInput(
  c: DuckDBConnection,
  dataset: string,
  what: string,
  upstreams: readonly KoreaUpstreamName[],
): Promise<Error> {
  const reason = await failureReason(c, upstreams);
  return new Error(`${dataset}: ${what} in this run${reason ? ` (${reason})` : ''}; the last good version stays live`);
}

/** Rows of `sql` (a table or a SELECT) that satisfy `where`. */
export async function countRows(c: DuckDBConnection, from: string, where = 'true'): Promise<number> {
  const [row] = await queryJson(c, `SELECT count(*)::INTEGER AS n FROM ${from} WHERE ${where}`);
  return Number(row?.n ?? 0);
}

/**
 * Exchanges missing from `table` (a relation with an `exchange` column) in this run, with the
 * reason the live source gave, as a JSON list `[{exchange, reason}]` (SQL expression). Failures
 * count when their upstream starts with the exchange's name, or is `<also>:<exchange>` (e.g.
 * candles:upbit). Datasets that can answer from one exchange publish with it and name the other.
 */
export async function unavailableExchangesSql(
  c: DuckDBConnection,
  table = 'kr_tickers',
  also?: string,
  exchanges: readonly string[] = EXCHANGES,
): Promise<string> {
  const failures = await failuresSql(c);
  const alsoMatch = also ? ` OR lower(f.upstream) = ${quote(also + ':')} || e.exchange` : '';
  const what = also ?? 'data';
  return `coalesce((SELECT to_json(list(struct_pack(
              exchange := e.exchange,
              reason := coalesce(
                (SELECT ${failureListSql('f')}
                   FROM ${failures} f WHERE starts_with(lower(f.upstream), e.exchange)${alsoMatch}),
                'no ' || e.exchange || ' ${what} in this run')
            ) ORDER BY e.rank))
          FROM (SELECT exchange, ${exchangeRankSql('exchange')} AS rank FROM unnest(${sqlList(exchanges)}) v(exchange)) e
         WHERE NOT EXISTS (SELECT 1 FROM ${table} t WHERE t.exchange = e.exchange)), '[]'::JSON)`;
}

/**
 * Runs a SELECT whose single row has one column `doc` built with to_json(struct_pack(...)) and
 * returns it parsed: documents are built in SQL (to_json keeps numbers as numbers and lists in
 * their ORDER BY order), TypeScript only adds the run's stamp.
 */
export async function queryDocument(c: DuckDBConnection, sql: string): Promise<Record<string, unknown>> {
  const [row] = await queryJson(c, sql);
  if (!row || typeof row.doc !== 'string') throw new Error('document query returned no row');
  return JSON.parse(row.doc) as Record<string, unknown>;
}
