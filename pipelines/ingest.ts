/**
 * Ingest steps shared by the services: load a source's rows for one raw table into the warehouse.
 */
import type { Row } from '../sources/demo/world.ts';
import type { RawTable } from '../sources/raw-tables.ts';
import type { IngestStep, PipelineContext } from './runner.ts';
import { appendRows } from './warehouse.ts';

/**
 * One ingest step per raw table, fed from a lazily computed world (computed once, shared by the
 * steps of the run, so a generator that fails shows on its first table).
 */
export function worldIngestSteps<K extends string>(
  tables: ReadonlyArray<readonly [K, RawTable]>,
  world: (ctx: PipelineContext) => Record<K, Iterable<Row>>,
): IngestStep[] {
  let cached: { ctx: PipelineContext; world: Record<K, Iterable<Row>> } | null = null;
  const get = (ctx: PipelineContext) => {
    if (!cached || cached.ctx !== ctx) cached = { ctx, world: world(ctx) };
    return cached.world;
  };
  return tables.map(([key, table]) => ({
    name: `ingest:${table.name}`,
    tables: [table.name],
    run: (ctx: PipelineContext) => appendRows(ctx.connection, table, get(ctx)[key], { create: true }),
  }));
}

/** A source this service cannot read (yet): a usage error, not a failed run. */
export class UnsupportedSourceError extends Error {}

export function unsupportedSource(service: string, source: string, when: string): never {
  throw new UnsupportedSourceError(`${service}: --source ${source} is not available yet (${when}); use --source demo`);
}
