/**
 * The demo source's ingest steps: the world's rows for each raw table, appended to the warehouse.
 */
import { appendRows, type Row } from '../../lib/duckdb.ts';
import type { IngestContext, IngestStep } from '../contract.ts';
import type { RawTable } from '../raw-tables.ts';

/**
 * One ingest step per raw table, fed from a lazily computed world (computed once, shared by the
 * steps of the run, so a generator that fails shows on its first table).
 */
export function worldIngestSteps<K extends string>(
  tables: ReadonlyArray<readonly [K, RawTable]>,
  world: (ctx: IngestContext) => Record<K, Iterable<Row>>,
): IngestStep[] {
  let cached: { ctx: IngestContext; world: Record<K, Iterable<Row>> } | null = null;
  const get = (ctx: IngestContext) => {
    if (!cached || cached.ctx !== ctx) cached = { ctx, world: world(ctx) };
    return cached.world;
  };
  return tables.map(([key, table]) => ({
    name: `ingest:${table.name}`,
    tables: [table.name],
    run: (ctx: IngestContext) => appendRows(ctx.connection, table, get(ctx)[key], { create: true }),
  }));
}
