/**
 * What every analytics dataset step shares: the step builders (tableStep, documentStep, so a step
 * names its dataset once), the run's clock and windows, rounding of money and percentages, the
 * label groups and the category list. Kept in one place so "last 24 hours" or "real volume" means
 * the same thing in every dataset.
 *
 * Money is summed as integer micro-USDC (amount_micro BIGINT): integer sums do not depend on the
 * order DuckDB's threads combine partial sums, so the same input gives byte-identical files.
 */
import type { AnalyticsDatasetName } from '../../../catalog/analytics.ts';
import { PRICE_BUCKETS, PRICE_BUCKET_BOUNDS } from '../../../catalog/analytics.ts';
import { CATEGORIES, WASH_LABELS } from '../../../catalog/categories.ts';
import type { DatasetStep, PipelineContext } from '../../runner.ts';
import { queryJson } from '../../../lib/duckdb.ts';
import type { PartitionBy } from '../../../snapshots/writer.ts';

/** Labels whose volume counts as real demand (catalog: real_volume_pct). */
export const REAL_LABELS = ['organic_user', 'ai_agent'] as const;
/** The wash label (catalog: wash_pct). */
export const WASH_LABEL = 'suspected_wash';

export const quote = (s: string): string => `'${s.replaceAll("'", "''")}'`;
const list = (values: readonly string[]): string => values.map(quote).join(', ');

export const WASH_LABELS_SQL = `(${list(WASH_LABELS)})`;

/**
 * Per-payment tables keep the label as a 1-byte code: its 1-based position in WASH_LABELS
 * (a label the catalog does not know counts as unlabeled). Ten million short strings cost
 * memory and time; a code costs one byte.
 */
export const labelCodeSql = (label: string): string =>
  `coalesce(list_position([${list(WASH_LABELS)}], ${label}), ${WASH_LABELS.indexOf('unlabeled') + 1})::UTINYINT`;
export const labelNameSql = (code: string): string => `([${list(WASH_LABELS)}])[${code}]`;
const codeOf = (label: string): number => WASH_LABELS.indexOf(label as (typeof WASH_LABELS)[number]) + 1;
/** Predicates on a label code column. */
export const isRealSql = (code: string): string => `${code} IN (${REAL_LABELS.map(codeOf).join(', ')})`;
export const isWashSql = (code: string): string => `${code} = ${codeOf(WASH_LABEL)}`;

/**
 * The run's "now" as a SQL TIMESTAMP literal (UTC). Statements are built as text because COPY,
 * which the snapshot writer uses for tables, takes no bound parameters.
 */
export function nowSql(ctx: Pick<PipelineContext, 'now'>): string {
  return `TIMESTAMP '${ctx.now.toISOString().replace('T', ' ').replace('Z', '')}'`;
}

/** The windows, as predicates on a TIMESTAMP column; every row of tx_attributed is <= now. */
export function windows(now: string) {
  return {
    /** The last 24 hours: (now - 24h, now]. */
    last24h: (col: string) => `${col} > ${now} - INTERVAL 24 HOUR`,
    /** The 24 hours before that: (now - 48h, now - 24h]. */
    prev24h: (col: string) => `(${col} > ${now} - INTERVAL 48 HOUR AND ${col} <= ${now} - INTERVAL 24 HOUR)`,
    /** The rolling 30 days behind every "30-day" share: (now - 30d, now]. */
    last30d: (col: string) => `${col} > ${now} - INTERVAL 30 DAY`,
    /** First calendar day (UTC) of an n-day daily series that ends with today. */
    firstDay: (days: number) => `(${now}::DATE - ${days - 1})`,
  };
}

/** ISO 8601 with offset for a TIMESTAMP (UTC), e.g. 2026-11-20T09:00:00+00:00. */
export const isoSql = (expr: string): string => `strftime(${expr}, '%Y-%m-%dT%H:%M:%S+00:00')`;
/** YYYY-MM-DD of a DATE. */
export const dateSql = (expr: string): string => `strftime(${expr}, '%Y-%m-%d')`;

/** micro-USDC (integer) → USDC rounded to 6 decimals. */
export const moneySql = (micro: string): string => `round(coalesce(${micro}, 0)::DOUBLE / 1e6, 6)`;

/** part / whole as a percent 0-100 rounded to 2 decimals; 0 when there is no whole. */
export const pctSql = (part: string, whole: string): string =>
  `(CASE WHEN coalesce(${whole}, 0) > 0
         THEN greatest(0, least(100, round(100 * coalesce(${part}, 0)::DOUBLE / ${whole}::DOUBLE, 2)))
         ELSE 0 END)`;

/** A fraction 0-1 (as the classifier's *_pct cohort signals are) shown as a percent 0-100. */
export const fractionToPctSql = (fraction: string): string =>
  `(CASE WHEN isfinite(${fraction}) THEN round(100 * greatest(0, least(1, ${fraction})), 2) ELSE 0 END)`;

/**
 * Change in percent, catalog rule: when the previous value is 0 it is 0 if the current value is
 * also 0, else 100.
 */
export const changePctSql = (current: string, previous: string): string =>
  `(CASE WHEN ${previous} = 0 THEN (CASE WHEN ${current} = 0 THEN 0 ELSE 100 END)
         ELSE round(100 * (${current}::DOUBLE - ${previous}::DOUBLE) / ${previous}::DOUBLE, 2) END)`;

/** A finite DOUBLE or 0 (classifier features may be NaN for a single payment). */
export const finiteSql = (expr: string): string => `(CASE WHEN isfinite(${expr}) THEN ${expr} ELSE 0 END)`;

/**
 * A MAP(VARCHAR, DOUBLE) of signals as a JSON object: keys sorted, values rounded to 6 decimals,
 * non-finite values dropped (to_json would write NaN, which is not JSON). The rounding is for
 * reproducibility: the classifier's float features (CVs, shares) can differ in the last bit
 * between runs because parallel sums add in a different order.
 */
export const signalsJsonSql = (map: string): string =>
  // most pairs and wallets rest on no evidence and publish no signal: their empty map costs nothing
  `(CASE WHEN cardinality(coalesce(${map}, MAP {}::MAP(VARCHAR, DOUBLE))) = 0 THEN '{}'::JSON
         ELSE to_json(map_from_entries(list_transform(
           list_filter(list_sort(map_entries(${map})), e -> isfinite(e.value)),
           e -> struct_pack(key := e.key, value := round(e.value, 6))))) END)`;

/** The 33 categories as a relation (slug, title, position), for zero-filled per-category output. */
export function categoriesSql(alias = 'c'): string {
  const rows = CATEGORIES.map((c, i) => `(${quote(c.slug)}, ${quote(c.title)}, ${i + 1})`).join(', ');
  return `(VALUES ${rows}) AS ${alias}(slug, title, position)`;
}

/** Calendar days (UTC) of an n-day series ending today, as a relation with column `day`. */
export function daysSql(now: string, days: number, alias = 'd'): string {
  return `(SELECT (${now}::DATE - (${days - 1} - i)::INTEGER) AS day FROM range(${days}) r(i)) AS ${alias}`;
}

/**
 * Runs a SELECT that returns one row of JSON-typed columns and parses each: documents are built
 * in SQL (to_json keeps numbers as numbers), TypeScript only assembles the pieces.
 */
export async function queryJsonPieces(ctx: PipelineContext, sql: string): Promise<Record<string, unknown>> {
  const [row] = await queryJson(ctx.connection, sql);
  if (!row) throw new Error('document query returned no row');
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) out[key] = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
  return out;
}

/** The data stamp every document starts with. */
export function stamp(ctx: PipelineContext): { source: PipelineContext['sourceKind']; as_of: string } {
  return { source: ctx.sourceKind, as_of: ctx.now.toISOString() };
}

/** The services list's price bucket of a price column (catalog PRICE_BUCKET_BOUNDS). */
export function priceBucketSql(price: string): string {
  const arms = PRICE_BUCKETS.filter((b) => b !== 'unknown').map((bucket) => {
    const { min, max } = PRICE_BUCKET_BOUNDS[bucket];
    const conditions = [min === null ? null : `${price} >= ${min}::DOUBLE`, max === null ? null : `${price} < ${max}::DOUBLE`].filter(
      (x): x is string => x !== null,
    );
    return `WHEN ${conditions.join(' AND ')} THEN ${quote(bucket)}`;
  });
  return `(CASE WHEN ${price} IS NULL THEN 'unknown' ${arms.join(' ')} END)`;
}

/**
 * New services per calendar day over an n-day series ending today, zero-filled, oldest first:
 * a scalar subquery yielding a JSON array of {date, count}. Placeholders count: they are listings.
 */
export function dailyNewServicesSql(now: string, days: number): string {
  return `(SELECT to_json(list(struct_pack(date := ${dateSql('d.day')}, count := coalesce(n.count, 0)::INTEGER) ORDER BY d.day))
             FROM ${daysSql(now, days, 'd')}
             LEFT JOIN (SELECT first_seen_time::DATE AS day, count(*) AS count FROM service_facts GROUP BY day) n
               ON n.day = d.day)`;
}

/**
 * The JSON array of `value` (a STRUCT or other expression) for the rows of a group with the
 * `limit` smallest `rank`s, in rank order: an aggregate for groups of many rows. The list is
 * serialised whole: the same text as joining each element's to_json, without the ::JSON cast that
 * parses the joined text again (measured at 10M payments: service-detail 0.1 s faster).
 * DuckDB's top-N aggregate keeps a heap that grows with the group, so a `limit` at least the
 * largest group's size gives every row; it costs about two thirds of collecting and sorting a
 * list, and a third of an ordered aggregate (`list(x ORDER BY k)`). `rank` must be a number that
 * does not repeat within a group, for a total order; a group without rows yields no row, so
 * callers coalesce to '[]'.
 */
export function rankedJsonArraySql(rank: string, limit: number, value: string): string {
  return `to_json(arg_min(${value}, ${rank}, ${limit}))`;
}

/**
 * Parquet row-group sizes of the tables the proxy reads by key (service id, address, category):
 * the files are sorted by that key, so a point lookup reads only the groups whose min/max cover it.
 * Smaller groups cost a few percent of file size and make paid lookups 3 to 6 times faster on
 * large snapshots (full-history: one category per group).
 */
export const POINT_LOOKUP_ROW_GROUP = {
  'buyer-profiles': 4096,
  buyers: 4096,
  'full-history': 8760,
  'service-detail': 2048,
  transactions: 16384,
  'wash-detail': 1024,
  // the wash check's seller rows (wash-lookups.ts)
  'wash-check-sellers': 2048,
} as const;

/**
 * The per-address tables the proxy looks up one address at a time, partitioned by that address
 * (snapshots/partitions.ts): a lookup opens the one small part of the address's bucket instead of
 * checking every row group's statistics of one big file, whose cost grows with the table.
 * bench/partitions.ts at 10M payments, a payments table by buyer, p50 / p99 per key: one file
 * 28 / 47 ms; 64 buckets 2.2 / 3.8 ms; 256 buckets 2.2 / 6.3 ms; written in 10.8, 13.6 and 13.0 s.
 * 64 and 256 tie up to 10M; 256 keep a part near 40,000 payments at 10M and 400,000 at 100M,
 * where 64 would hold the 1.5M rows that already cost 5 ms per lookup in one file at 1M.
 * A smaller table gets fewer buckets (`rowsPerBucket`: parts of at most 65,536 rows on average, so
 * 256 from 8.4M rows on): the demo's 3,600 buyers are one part, not 256 parts of 14 rows each
 * costing a COPY and an fsync (about 5 ms a part; the demo's run wrote 1,206 of them, 7 s).
 * `orderBy` is each part's row order (the queries have no ORDER BY: the writer sorts once).
 */
const partitionedBy = (key: string, orderBy: string) => ({ key, buckets: 256, rowsPerBucket: 65_536, orderBy });
export const ADDRESS_PARTITIONS = {
  buyers: partitionedBy('address', 'address'),
  'buyer-profiles': partitionedBy('address', 'address'),
} as const satisfies Record<string, PartitionBy>;

/**
 * The dataset step that writes `select`'s rows as the Parquet table `dataset`, stamped with the
 * run's time; a table the proxy reads by key gets its POINT_LOOKUP_ROW_GROUP size, and a table
 * it reads by address is partitioned by it (ADDRESS_PARTITIONS: its `orderBy` orders the rows
 * within each part, so those tables' queries have no ORDER BY).
 */
export function tableStep(dataset: AnalyticsDatasetName, select: (ctx: PipelineContext) => string | Promise<string>): DatasetStep {
  const sizes: Partial<Record<string, number>> = POINT_LOOKUP_ROW_GROUP;
  const partitions: Partial<Record<string, PartitionBy>> = ADDRESS_PARTITIONS;
  const rowGroupSize = sizes[dataset];
  const partitionBy = partitions[dataset];
  return {
    dataset,
    run: async (ctx) =>
      ctx.writer.writeTable(ctx.connection, dataset, await select(ctx), ctx.meta(dataset, ctx.now), {
        rowGroupSize,
        ...(partitionBy ? { partitionBy } : {}),
      }),
  };
}

/** The dataset step that writes `build`'s document as the JSON document `dataset`, stamped with the run's time. */
export function documentStep(
  dataset: AnalyticsDatasetName,
  build: (ctx: PipelineContext) => Promise<Record<string, unknown>>,
): DatasetStep {
  return {
    dataset,
    run: async (ctx) => ctx.writer.writeDocument(dataset, await build(ctx), ctx.meta(dataset, ctx.now)),
  };
}

/** A label's evidence list (classifier/evidence.ts) as JSON: [] when the label rests on none (every label but suspected_wash). */
export const evidenceJsonSql = (col: string): string => `coalesce(to_json(${col}), '[]'::JSON)`;
