/**
 * Tables of one row per service (wash-detail, service-detail): a run rewrites only the
 * rows of the services whose rows can have changed since the live version, and takes the rest from
 * the live version's file, in the same order, so the file is byte for byte what a run from scratch
 * writes (pipelines/analytics/incremental.test.ts).
 *
 * Within one day state (pipelines/analytics/labels.ts), a service's rows move only when
 *   - a payment of it is new to this run: imported since the live version, or timed after its `now`;
 *   - a payment of it leaves one of the windows its rows use: timed in (then - w, now - w] for the
 *     24-hour, 48-hour and 30-day windows, `then` the live version's `now`;
 *   - a buyer of it was labelled again this run (its pair labels and the label counts move);
 * the calendar days of the daily series move with the day, and so does the day state. The
 * warehouse records, for each published version of the table (its sha256), the day state, the
 * labels, the query, the listings, `now` and the last import run it was written from; a run takes
 * the merge path only when the live version's record names this run's day state and the labels it
 * started from, the same query and listings, a `now` not after this run's, and the payments came by
 * file with their attribution kept (attribution.ts, `attributed_by_import`). Anything else writes
 * the table whole and the log says why.
 */
import { createHash } from 'node:crypto';
import { timestampSql } from '../../../classifier/plan.ts';
import { queryJson, sqlString } from '../../../lib/duckdb.ts';
import { labelGeneration, type LabelGeneration as Generation } from '../labels.ts';
import type { DatasetEntry } from '../../../snapshots/manifest.ts';
import type { DatasetStep, PipelineContext } from '../../runner.ts';
import { nowSql, POINT_LOOKUP_ROW_GROUP } from './sql.ts';

const COVERAGE = `CREATE TABLE IF NOT EXISTS service_rows_coverage (dataset VARCHAR, sha256 VARCHAR, recipe VARCHAR, inputs VARCHAR,
  state_id VARCHAR, labels VARCHAR, as_of TIMESTAMP, batch INTEGER, recorded_at TIMESTAMP)`;

const digest = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The windows (hours) whose far edge moves a service's rows: 24 hours, the previous 24 and 30 days. */
const WINDOW_HOURS = [24, 48, 30 * 24];

export interface ByServiceTable {
  dataset: string;
  /** The service id column of the table. */
  key: string;
  /** The table's query, fully ordered; `services(col)` restricts it to the services to rewrite (TRUE for all). */
  select(ctx: PipelineContext, services: (column: string) => string): string;
}

/** The dataset step of a table by service (the module comment). */
export function byServiceStep(table: ByServiceTable): DatasetStep {
  const { dataset, key } = table;
  const sizes: Partial<Record<string, number>> = POINT_LOOKUP_ROW_GROUP;
  const rowGroupSize = sizes[dataset];
  return {
    dataset,
    async run(ctx) {
      const c = ctx.connection;
      await c.run(COVERAGE);
      const meta = ctx.meta(dataset, ctx.now);
      const recipe = digest(
        JSON.stringify({
          sql: table.select(ctx, (col) => `<services of ${col}>`).replaceAll(nowSql(ctx), '<now>'),
          rowGroupSize,
          version: 1,
        }),
      );
      const generation = await labelGeneration(c);
      const [byImport] = await queryJson(
        c,
        `SELECT count(*)::INTEGER AS n FROM duckdb_views() WHERE temporary AND view_name = 'attributed_by_import'`,
      );
      // the listings and the payees learned for them (attribution.ts): either moves which service a payment is
      const fp = (table: string) => `(SELECT {'n': count(*), 'h': coalesce(sum(hash(t) >> 8), 0)} FROM ${table} t)`;
      const [inputsRow] = await queryJson(
        c,
        `SELECT [${['service_catalog', 'attribution_prices', 'attribution_sellers', 'attribution_facilitators'].map(fp).join(', ')}]::VARCHAR AS h`,
      );
      const inputs = String(inputsRow?.h);
      const [batchRow] = await queryJson(
        c,
        Number(byImport?.n ?? 0) > 0 ? 'SELECT coalesce(max(import_batch), 0)::INTEGER AS b FROM attributed_by_import' : 'SELECT 0 AS b',
      );
      const batch = Number(batchRow?.b ?? 0);
      const live = ctx.writer.previousManifest?.datasets.find((d) => d.name === dataset);

      let plan = await planMerge(ctx, dataset, { recipe, inputs, generation: generation ?? null, byImport: Number(byImport?.n ?? 0) > 0 });
      const liveFile = 'why' in plan ? null : await ctx.writer.previousFile(dataset);
      if (!('why' in plan) && !liveFile) plan = { why: "the live version's file is missing or changed" };
      let entry: DatasetEntry;
      if ('why' in plan) {
        ctx.log(`${dataset}: written whole (${plan.why})`);
        entry = await ctx.writer.writeTable(
          c,
          dataset,
          table.select(ctx, () => 'TRUE'),
          meta,
          { rowGroupSize },
        );
      } else {
        const changed = await changedServices(ctx, plan.asOf, plan.batch);
        const fresh = `by_service_${dataset.replace(/\W/g, '_')}`;
        const k = `"${key}"`;
        // the new rows in the table's order (rowid keeps it), then merged with the live file's other
        // services by service, each service's rows in their own order
        await c.run(
          `CREATE OR REPLACE TEMP TABLE ${fresh} AS ${table.select(ctx, (col) => `${col} IN (SELECT service_id FROM services_changed)`)}`,
        );
        const merged = `SELECT * EXCLUDE (m_source, m_order) FROM (
              SELECT * EXCLUDE (file_row_number), 0 AS m_source, file_row_number AS m_order
                FROM read_parquet(${sqlString(liveFile!)}, file_row_number = true)
               WHERE ${k} NOT IN (SELECT service_id FROM services_changed)
              UNION ALL BY NAME
              SELECT *, 1 AS m_source, rowid AS m_order FROM ${fresh}
            ) ORDER BY ${k}, m_source, m_order`;
        entry = await ctx.writer.writeTable(c, dataset, merged, meta, { rowGroupSize });
        await c.run(`DROP TABLE IF EXISTS ${fresh}`);
        ctx.log(`${dataset}: rows of ${changed} service(s) rewritten, the rest from the live version`);
      }
      if (generation) {
        const d = sqlString(dataset);
        await c.run(`DELETE FROM service_rows_coverage WHERE dataset = ${d} AND sha256 NOT IN (${sqlString(live?.sha256 ?? '')}, ${sqlString(entry.sha256)});
          DELETE FROM service_rows_coverage WHERE dataset = ${d} AND sha256 = ${sqlString(entry.sha256)};
          INSERT INTO service_rows_coverage VALUES (${d}, ${sqlString(entry.sha256)}, ${sqlString(recipe)}, ${sqlString(inputs)},
            ${sqlString(generation.state_id)}, ${sqlString(generation.labels_to)}, ${nowSql(ctx)}, ${batch}, now()::TIMESTAMP)`);
      }
      return entry;
    },
  };
}

/** Whether this run can rewrite only the changed services' rows, from which `now` and import run; else why not. */
async function planMerge(
  ctx: PipelineContext,
  dataset: string,
  c: { recipe: string; inputs: string; generation: Generation | null; byImport: boolean },
): Promise<{ asOf: string; batch: number } | { why: string }> {
  const live = ctx.writer.previousManifest?.datasets.find((d) => d.name === dataset);
  if (ctx.rebuild) return { why: '--rebuild' };
  if (!c.byImport) return { why: 'the payments did not come by file with their attribution kept' };
  if (!c.generation) return { why: 'the labels rest on no kept day state' };
  if (!live) return { why: 'no live version' };
  if (live.carried_over) return { why: 'the live version was carried over' };
  if (!c.generation.labels_from) return { why: 'a new day state' };
  const [row] = await queryJson(
    ctx.connection,
    `SELECT recipe, inputs, state_id, labels, strftime(as_of, '%Y-%m-%d %H:%M:%S.%f') AS as_of, batch FROM service_rows_coverage
      WHERE dataset = ${sqlString(dataset)} AND sha256 = ${sqlString(live.sha256)} ORDER BY recorded_at DESC LIMIT 1`,
  );
  if (!row) return { why: 'this warehouse has no record of what the live version holds' };
  if (row.recipe !== c.recipe) return { why: "the table's query changed since the live version" };
  if (row.state_id !== c.generation.state_id) return { why: 'the live version rests on another day state' };
  if (row.labels !== c.generation.labels_from) return { why: 'the live version was written from other labels than this run started from' };
  if (row.inputs !== c.inputs) return { why: 'the listings changed since the live version' };
  const asOf = String(row.as_of);
  if (Date.parse(`${asOf.replace(' ', 'T')}Z`) > ctx.now.getTime()) return { why: "--now is before the live version's" };
  return { asOf, batch: Number(row.batch) };
}

/**
 * TEMP services_changed (service_id): the services whose rows can differ from the live version's,
 * written at `asOf` from the import runs up to `batch` (the module comment). Made once per run for
 * a given (asOf, batch); returns how many.
 */
async function changedServices(ctx: PipelineContext, asOf: string, batch: number): Promise<number> {
  const c = ctx.connection;
  const tag = `${asOf}|${batch}`;
  const [made] = await queryJson(
    c,
    `SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE temporary AND table_name = 'services_changed_for'`,
  );
  if (Number(made?.n ?? 0) > 0) {
    const [same] = await queryJson(c, `SELECT count(*)::INTEGER AS n FROM services_changed_for WHERE tag = ${sqlString(tag)}`);
    if (Number(same?.n ?? 0) > 0) {
      const [count] = await queryJson(c, 'SELECT count(*)::INTEGER AS n FROM services_changed');
      return Number(count?.n ?? 0);
    }
  }
  const now = nowSql(ctx);
  const then = timestampSql(new Date(`${asOf.replace(' ', 'T')}Z`));
  const edges = WINDOW_HOURS.map((h) => `(time > ${then} - INTERVAL ${h} HOUR AND time <= ${now} - INTERVAL ${h} HOUR)`);
  await c.run(`CREATE OR REPLACE TEMP TABLE services_changed AS
      SELECT DISTINCT service_id FROM attributed_by_import
       WHERE service_id IS NOT NULL AND time <= ${now}
         AND (import_batch > ${batch} OR time > ${then} OR ${edges.join(' OR ')})
      UNION
      SELECT DISTINCT service_id FROM service_buyer_stats WHERE buyer_h IN (SELECT bk FROM relabelled_buyers);
    CREATE OR REPLACE TEMP TABLE services_changed_for AS SELECT ${sqlString(tag)} AS tag`);
  const [count] = await queryJson(c, 'SELECT count(*)::INTEGER AS n FROM services_changed');
  return Number(count?.n ?? 0);
}
