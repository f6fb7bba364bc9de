/**
 * Append-only datasets: tables whose rows are a filter of the payments and nothing else (no label,
 * no window), so a later run's table is the earlier one's rows plus the payments that arrived
 * since. A run extends the live version with one delta file of those rows (SnapshotWriter.appendTable)
 * instead of writing the table again, when it can prove what "since" means:
 *
 * - the payments came by file (`--source file:DIR`) or from the live indexers: the raw table is
 *   the union of the kept segments, which never change once written, and the source's
 *   `x402_transactions_by_import` view and `import_ledger` say which run added each
 *   (sources/segments.ts);
 * - the warehouse remembers, for the live version's exact content (its sha256), which segments it
 *   covered and its `now` (dataset_coverage). The new rows are then the later segments' payments
 *   up to `now`, plus the covered segments' payments with a time after the old `now` and up to
 *   the new one (a file may hold payments timed after the run that imported it).
 *
 * Anything else writes the whole table: no live version or no record of it, another directory
 * (a new payment history), a `now` before the live version's, a changed query (the recipe
 * digest), `--rebuild`, or deltas too large (over MAX_DELTA_SHARE of the parts' rows: the table is
 * then compacted, written again as parts only, byte for byte what a run from scratch writes). Past
 * MAX_DELTAS files, a run folds the deltas and its new rows into one delta file. The log says which, and why.
 */
import { createHash } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import { queryJson, sqlString } from '../../../lib/duckdb.ts';
import type { DatasetEntry } from '../../../snapshots/manifest.ts';
import type { PartitionBy } from '../../../snapshots/writer.ts';
import type { DatasetStep, PipelineContext } from '../../runner.ts';
import { nowSql } from './sql.ts';

/**
 * Delta files a table may carry: a run that finds this many folds them and its new rows into one
 * (reading the deltas, not the parts). Each costs a point lookup about 1.2 ms
 * (wash-payments-by-buyer at 10M, 256 parts, deltas of 100,000 rows, p50: 2.5 ms with none, 3.3
 * with 1, 13.2 with 8, 31.8 with 24, where one unpartitioned file costs 28 ms): 8 keeps a lookup
 * under half of that.
 */
export const MAX_DELTAS = 8;
/** The delta files' rows, as a share of the parts' rows, past which a run compacts the table. */
export const MAX_DELTA_SHARE = 0.1;

const COVERAGE = `CREATE TABLE IF NOT EXISTS dataset_coverage (dataset VARCHAR, sha256 VARCHAR, recipe VARCHAR,
  dir VARCHAR, batch INTEGER, segments VARCHAR, as_of TIMESTAMP, recorded_at TIMESTAMP)`;

interface Coverage {
  recipe: string;
  dir: string;
  batch: number;
  segments: string;
  as_of: string;
}

const digest = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * A partitioned table of payments that runs extend: `select(payments, where)` is the table's
 * query over a relation with the raw payments' columns and a predicate on them, the same for the
 * whole table and for the rows a run adds.
 */
export function appendOnlyStep(
  dataset: string,
  select: (payments: string, where: string) => string,
  partitionBy: PartitionBy,
  rowGroupSize: number | undefined,
): DatasetStep {
  const recipe = digest(JSON.stringify({ sql: select('<payments>', '<where>'), partitionBy, rowGroupSize }));
  return {
    dataset,
    run: async (ctx) => {
      const now = nowSql(ctx);
      const meta = ctx.meta(dataset, ctx.now);
      const live = ctx.writer.previousManifest?.datasets.find((d) => d.name === dataset);
      const imported = await importedPayments(ctx.connection); // by file, or live (both keep segments)
      let entry: DatasetEntry | null = null;
      if (imported) {
        const plan = await planAppend(ctx, dataset, recipe, imported.dir, imported.segments);
        if ('why' in plan) {
          ctx.log(`${dataset}: written whole (${plan.why})`);
        } else {
          // DuckDB reads only the segments of the batches each side's filter keeps
          const batches = (filter: string) => `(SELECT * EXCLUDE (import_batch) FROM ${BY_IMPORT} WHERE ${filter})`;
          const rows = `${select(batches(`import_batch > ${plan.batch}`), `time <= ${now}`)}
            UNION ALL ${select(batches(`import_batch <= ${plan.batch}`), `time > ${plan.asOf} AND time <= ${now}`)}`;
          entry = await ctx.writer.appendTable(ctx.connection, dataset, rows, meta, { partitionBy, rowGroupSize, mergeDeltas: plan.fold });
          if (entry) {
            const deltas = entry.partitions?.deltas ?? [];
            const added = entry.rows - (live?.rows ?? 0);
            const folded = plan.fold ? `, the ${live?.partitions?.deltas?.length ?? 0} earlier delta files folded into it` : '';
            ctx.log(
              `${dataset}: ${added} rows appended (${deltas.length} delta file(s) beside ${entry.partitions!.parts.length} parts${folded})`,
            );
          } else {
            ctx.log(`${dataset}: written whole (the live version's partitioning or columns differ)`);
          }
        }
      }
      entry ??= await ctx.writer.writeTable(ctx.connection, dataset, select('x402_transactions', `time <= ${now}`), meta, {
        rowGroupSize,
        partitionBy,
      });
      if (imported) {
        await recordCoverage(ctx.connection, {
          dataset,
          sha256: entry.sha256,
          previous: live?.sha256 ?? null,
          recipe,
          ...imported,
          now: ctx.now,
        });
      }
      return entry;
    },
  };
}

/** The payments with the import run (ledger batch) of each, from the file source (sources/file/append-only.ts). */
const BY_IMPORT = 'x402_transactions_by_import';

/**
 * What the file source imported: its directory and every imported file's segment with its batch,
 * from the source's ledger; null without the by-import view (no payment came by file).
 */
async function importedPayments(
  connection: DuckDBConnection,
): Promise<{ dir: string; segments: { batch: number; segment: string }[] } | null> {
  const [view] = await queryJson(
    connection,
    `SELECT count(*)::INTEGER AS n FROM duckdb_views() WHERE temporary AND view_name = ${sqlString(BY_IMPORT)}`,
  );
  if (Number(view?.n ?? 0) === 0) return null;
  const rows = await queryJson(
    connection,
    `SELECT dir, batch, segment FROM import_ledger WHERE table_name = 'x402_transactions' ORDER BY batch, file_name`,
  );
  if (rows.length === 0) return null;
  return { dir: String(rows[0]!.dir), segments: rows.map((r) => ({ batch: Number(r.batch), segment: String(r.segment) })) };
}

/**
 * Records what a version's table (by its sha256) covers: the imported segments up to the last
 * batch, from `dir`, and `now`. The live version's record (`previous`) stays, for the run after a
 * failed publish; older ones go.
 */
export async function recordCoverage(
  connection: DuckDBConnection,
  c: {
    dataset: string;
    sha256: string;
    previous: string | null;
    recipe: string;
    dir: string;
    segments: readonly { batch: number; segment: string }[];
    now: Date;
  },
): Promise<void> {
  await connection.run(COVERAGE);
  const dataset = sqlString(c.dataset);
  const segments = digest(c.segments.map((s) => s.segment).join('\n'));
  await connection.run(`DELETE FROM dataset_coverage WHERE dataset = ${dataset}
      AND sha256 NOT IN (${sqlString(c.previous ?? '')}, ${sqlString(c.sha256)});
    DELETE FROM dataset_coverage WHERE dataset = ${dataset} AND sha256 = ${sqlString(c.sha256)};
    INSERT INTO dataset_coverage VALUES (${dataset}, ${sqlString(c.sha256)}, ${sqlString(c.recipe)}, ${sqlString(c.dir)},
      ${c.segments.at(-1)?.batch ?? 0}, ${sqlString(segments)}, ${nowSql(c)}, now()::TIMESTAMP)`);
}

/** Whether this run can append to the live version, and from where; else why not. */
export async function planAppend(
  ctx: Pick<PipelineContext, 'connection' | 'rebuild' | 'now'> & { writer: Pick<PipelineContext['writer'], 'previousManifest'> },
  dataset: string,
  recipe: string,
  dir: string,
  segments: readonly { batch: number; segment: string }[],
): Promise<{ batch: number; asOf: string; fold: boolean } | { why: string }> {
  await ctx.connection.run(COVERAGE);
  if (ctx.rebuild) return { why: '--rebuild' };
  const live = ctx.writer.previousManifest?.datasets.find((d) => d.name === dataset);
  if (!live) return { why: 'no live version' };
  if (live.carried_over) return { why: 'the live version was carried over' };
  const [row] = await queryJson(
    ctx.connection,
    `SELECT recipe, dir, batch, segments, strftime(as_of, '%Y-%m-%d %H:%M:%S.%f') AS as_of FROM dataset_coverage
      WHERE dataset = ${sqlString(dataset)} AND sha256 = ${sqlString(live.sha256)} ORDER BY recorded_at DESC LIMIT 1`,
  );
  if (!row) return { why: 'this warehouse has no record of what the live version holds' };
  const cov = row as unknown as Coverage;
  if (cov.recipe !== recipe) return { why: "the table's query changed since the live version" };
  if (cov.dir !== dir) return { why: 'the payments come from another directory than the live version' };
  const batch = Number(cov.batch);
  const covered = segments.filter((s) => s.batch <= batch).map((s) => s.segment);
  if (digest(covered.join('\n')) !== cov.segments) return { why: 'the imported files are not those the live version covered' };
  const asOf = `TIMESTAMP ${sqlString(cov.as_of)}`;
  if (new Date(`${cov.as_of.replace(' ', 'T')}Z`).getTime() > ctx.now.getTime()) return { why: "--now is before the live version's" };
  const p = live.partitions;
  const deltas = p?.deltas ?? [];
  const partRows = (p?.parts ?? []).reduce((a, x) => a + x.rows, 0);
  const deltaRows = deltas.reduce((a, x) => a + x.rows, 0);
  if (deltaRows > MAX_DELTA_SHARE * partRows) {
    return { why: `compacting: the delta files hold ${deltaRows} rows, over ${MAX_DELTA_SHARE * 100} % of the parts' ${partRows}` };
  }
  return { batch, asOf, fold: deltas.length >= MAX_DELTAS };
}
