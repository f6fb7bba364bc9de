/**
 * What a source is to the pipelines: a list of ingest steps that fill the raw tables
 * (raw-tables.ts) of the warehouse for one run. The pipeline runner gives each step an
 * IngestContext (its own context extends this one) and reports every step on the run's progress.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { IndexingTally } from './indexing.ts';
import type { SourceKind } from './raw-tables.ts';

/** Which source a run reads: the seeded demo world, the live upstreams, or a researcher's files. */
export type SourceSpec = { kind: 'demo' } | { kind: 'live' } | { kind: 'file'; dir: string };

export function sourceKindOf(source: SourceSpec): SourceKind {
  return source.kind;
}

/** What an ingest step may use: the warehouse connection and the run's parameters, nothing that writes a snapshot. */
export interface IngestContext {
  connection: DuckDBConnection;
  /** The run's "now": what time the data should describe (demo) or was fetched at (live). */
  now: Date;
  /** The demo world's seed and size (other sources ignore them). */
  seed: number;
  scale: number;
  sourceKind: SourceKind;
  /**
   * The warehouse's directory, for what a source keeps beside the DuckDB file (the file import's
   * payment segments). Absent for an in-memory warehouse.
   */
  warehouseDir?: string;
  log(message: string): void;
  /**
   * What the run indexed and skipped, by reason (sources/indexing.ts): the live steps count into
   * it and the runner writes it into the manifest's `indexing`. Absent outside a pipeline run.
   */
  indexing?: IndexingTally;
}

export interface IngestStep {
  /** Shown in progress and the summary, by convention 'ingest:<raw table>', e.g. 'ingest:kr_tickers'. */
  name: string;
  /** Raw tables this step (re)creates; they are dropped before the run so a failure leaves no stale rows. */
  tables: readonly string[];
  /**
   * The datasets that read what this step makes, when not all of them: a run restricted to other
   * datasets (`--datasets`, a scheduled group) skips the step and leaves its tables as the last run
   * made them. Absent: every run needs it.
   */
  datasets?: readonly string[];
  /** Returns the rows it loaded, or those and a line for the run table (what the step did and why). */
  run(ctx: IngestContext): Promise<number | { rows: number; detail: string }>;
}

/** A source this service cannot read (yet): a usage error, not a failed run. */
export class UnsupportedSourceError extends Error {}

export function unsupportedSource(service: string, source: string, when: string): never {
  throw new UnsupportedSourceError(`${service}: --source ${source} is not available yet (${when}); use --source demo`);
}

/** The rows an ingest step reported, whether or not it added a line for the run table. */
export function rowsOf(done: number | { rows: number }): number {
  return typeof done === 'number' ? done : done.rows;
}
