/**
 * Label-bearing keyed tables (one row per buyer address: buyers, buyer-profiles): a run that kept
 * the day state changes only the rows of the buyers it labelled again (pipelines/analytics/labels.ts),
 * so it publishes those rows as one delta file beside the live version's parts, under the rule
 * "the newest row of a key wins" (snapshots/partitions.ts), instead of writing a million rows again.
 *
 * A delta is exact only when the live version holds what the labels this run started from gave.
 * The warehouse records, for each published version of the table (its sha256): the day state and
 * the labels it was written from, the table's query (a digest) and a digest of whatever else the
 * rows read (`inputs`, e.g. the services and attribution lookups behind a profile). A run appends
 * only when the live version's record names this run's day state, the labels it started from, the
 * same query and the same inputs; and the merged table must then count as many rows as the table
 * written whole would (no key may vanish: a delta cannot delete).
 *
 * Anything else writes the table whole, saying why: no record, a new day state (the first run of
 * a day, or one rebuilt), a run that died after labelling (the labels moved on, the live version
 * did not), `--rebuild`, a changed query or input, or deltas over MAX_KEYED_DELTA_SHARE of the
 * parts' rows (compaction). Past MAX_DELTAS files a run folds them and its rows into one.
 */
import { createHash } from 'node:crypto';
import { queryJson, sqlString } from '../../../lib/duckdb.ts';
import { labelGeneration, type LabelGeneration as Generation } from '../labels.ts';
import type { PartitionBy } from '../../../snapshots/writer.ts';
import type { DatasetStep, PipelineContext } from '../../runner.ts';

const COVERAGE = `CREATE TABLE IF NOT EXISTS keyed_coverage (dataset VARCHAR, sha256 VARCHAR, recipe VARCHAR, inputs VARCHAR,
  state_id VARCHAR, labels VARCHAR, recorded_at TIMESTAMP)`;

/**
 * Delta files a table may carry: a run that finds this many folds them and its new rows into one
 * (reading the deltas, not the parts). Each costs a point lookup about 1.2 ms (a payments table
 * by buyer at 10M, 256 parts, deltas of 100,000 rows, p50: 2.5 ms with none, 3.3 with 1, 13.2
 * with 8, 31.8 with 24, where one unpartitioned file costs 28 ms): 8 keeps a lookup under half
 * of that.
 */
export const MAX_DELTAS = 8;

const digest = (text: string): string => createHash('sha256').update(text).digest('hex');

export interface KeyedTable {
  dataset: string;
  /** The table's rows; `keys` a predicate on hash(<key column>) restricting them (TRUE for all). */
  select(ctx: PipelineContext, keys: (hashOfKey: string) => string): string | Promise<string>;
  /** The table is partitioned by its key (one row per key); `deltaRule` is set to newest-wins here. */
  partitionBy: PartitionBy;
  rowGroupSize?: number;
  /** A query giving `n`, the rows of the table written whole (cheap: a count of the labels, not the table's query). */
  count: string;
  /** A digest of what the rows read besides the labels, when that can change without a relabel. */
  inputs?(ctx: PipelineContext): Promise<string>;
}

/** The dataset step of a keyed table (the module comment). */
export function keyedStep(table: KeyedTable): DatasetStep {
  const partitionBy: PartitionBy = { ...table.partitionBy, deltaRule: 'newest-wins' };
  const { dataset, rowGroupSize } = table;
  return {
    dataset,
    async run(ctx) {
      const c = ctx.connection;
      await c.run(COVERAGE);
      const recipe = digest(
        JSON.stringify({ sql: await table.select(ctx, (h) => `<keys of ${h}>`), partitionBy, rowGroupSize, version: 1 }),
      );
      const inputs = table.inputs ? await table.inputs(ctx) : '';
      const generation = await labelGeneration(c);
      const meta = ctx.meta(dataset, ctx.now);
      const whole = async () =>
        ctx.writer.writeTable(c, dataset, await table.select(ctx, () => 'TRUE'), meta, { rowGroupSize, partitionBy });

      const plan = await planKeyed(ctx, dataset, recipe, inputs, generation ?? null);
      let entry = null;
      if ('why' in plan) {
        ctx.log(`${dataset}: written whole (${plan.why})`);
      } else {
        const rows = await table.select(ctx, (h) => `${h} IN (SELECT bk FROM relabelled_buyers)`);
        const [all] = await queryJson(c, table.count);
        // the merged table must count what the whole one would: a key that vanished cannot be deleted by a delta
        entry = await ctx.writer.appendTable(c, dataset, rows, meta, {
          partitionBy,
          rowGroupSize,
          expectRows: Number(all?.n),
          mergeDeltas: plan.fold,
        });
        if (!entry) {
          ctx.log(`${dataset}: written whole (the live version's partitioning or columns differ, or a key would be dropped)`);
        } else {
          const p = entry.partitions!;
          const folded = plan.fold ? ', the earlier delta files folded into it' : '';
          ctx.log(
            `${dataset}: rows of the buyers labelled again as a delta file (${p.deltas?.length ?? 0} beside ${p.parts.length} parts${folded})`,
          );
        }
      }
      entry ??= await whole();
      if (generation) await record(ctx, dataset, entry.sha256, plan.previous, { recipe, inputs, generation });
      return entry;
    },
  };
}

/** Whether this run can publish the changed rows as a delta, else why not; `previous` the live version's sha256. */
async function planKeyed(
  ctx: PipelineContext,
  dataset: string,
  recipe: string,
  inputs: string,
  generation: Generation | null,
): Promise<({ fold: boolean } | { why: string }) & { previous: string | null }> {
  const live = ctx.writer.previousManifest?.datasets.find((d) => d.name === dataset);
  const previous = live?.sha256 ?? null;
  const no = (why: string) => ({ why, previous });
  if (ctx.rebuild) return no('--rebuild');
  if (!generation) return no('the labels rest on no kept day state');
  if (!live) return no('no live version');
  if (live.carried_over) return no('the live version was carried over');
  if (!generation.labels_from) return no('a new day state');
  const [row] = await queryJson(
    ctx.connection,
    `SELECT recipe, inputs, state_id, labels FROM keyed_coverage
      WHERE dataset = ${sqlString(dataset)} AND sha256 = ${sqlString(live.sha256)} ORDER BY recorded_at DESC LIMIT 1`,
  );
  if (!row) return no('this warehouse has no record of what the live version holds');
  if (row.recipe !== recipe) return no("the table's query changed since the live version");
  if (row.state_id !== generation.state_id) return no('the live version rests on another day state');
  if (row.labels !== generation.labels_from) return no('the live version was written from other labels than this run started from');
  if (row.inputs !== inputs) return no('what the rows read besides the labels changed');
  const p = live.partitions;
  const deltas = p?.deltas ?? [];
  const partRows = (p?.parts ?? []).reduce((a, x) => a + x.rows, 0);
  const deltaRows = deltas.reduce((a, x) => a + x.rows, 0);
  if (deltaRows > MAX_KEYED_DELTA_SHARE * partRows) {
    return no(`compacting: the delta files hold ${deltaRows} rows, over ${MAX_KEYED_DELTA_SHARE * 100} % of the parts' ${partRows}`);
  }
  return { fold: deltas.length >= MAX_DELTAS, previous };
}

/**
 * The delta rows, as a share of the parts' rows, past which a run writes a keyed table whole. Higher
 * than an append-only table's would be (10 %): folded deltas hold each buyer once, so they
 * grow only with the buyers labelled since the day began, and a point read opens one part and at
 * most MAX_DELTAS deltas whatever their size (sorted by address, read by row group); the first run
 * of a day writes the table whole anyway.
 */
export const MAX_KEYED_DELTA_SHARE = 0.5;

/** Records what the version `sha256` was written from; the live version's record stays (a failed publish), older ones go. */
async function record(
  ctx: PipelineContext,
  dataset: string,
  sha256: string,
  previous: string | null,
  what: { recipe: string; inputs: string; generation: Generation },
): Promise<void> {
  const d = sqlString(dataset);
  await ctx.connection.run(`DELETE FROM keyed_coverage WHERE dataset = ${d} AND sha256 NOT IN (${sqlString(previous ?? '')}, ${sqlString(sha256)});
    DELETE FROM keyed_coverage WHERE dataset = ${d} AND sha256 = ${sqlString(sha256)};
    INSERT INTO keyed_coverage VALUES (${d}, ${sqlString(sha256)}, ${sqlString(what.recipe)}, ${sqlString(what.inputs)},
      ${sqlString(what.generation.state_id)}, ${sqlString(what.generation.labels_to)}, now()::TIMESTAMP)`);
}
