/**
 * Payment segments: how a source that only appends keeps its rows as immutable Parquet files
 * beside the warehouse, and hands them to the pipeline. The file import (file/append-only.ts, one
 * segment per imported file) and the live source (live/segments.ts, one segment per run of what
 * the indexers added) share it, so the pipeline reads both the same way:
 *
 *   <warehouse>/analytics-payments/<prefix>-<batch>-<id>.parquet   the segments, the raw table's columns
 *   import_ledger        one row per segment: the history it belongs to (`dir`), the run (batch)
 *                        that wrote it, its file, sha256 and counts
 *   <raw table>          TEMP view over every segment of the ledger
 *   new_<raw table>      TEMP view over this run's segments only: what the run adds
 *   <raw table>_by_import  the raw table with the `import_batch` of each row's segment, for steps
 *                        that read only what runs after a given one added
 *
 * `dir` names a payment history (the file import's directory, the live source's generation): a
 * segment never changes once its ledger row is committed, so the pipeline may take a history's
 * older rows as read before; a new `dir` tells it they are not.
 */
import { createHash } from 'node:crypto';
import { createReadStream, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { queryJson, sqlString } from '../lib/duckdb.ts';
import type { RawTable, SourceKind } from './raw-tables.ts';

export const SEGMENTS_DIR = 'analytics-payments';

export const LEDGER_DDL = `CREATE TABLE IF NOT EXISTS import_ledger (dir VARCHAR, file_name VARCHAR, table_name VARCHAR, sha256 VARCHAR,
  bytes BIGINT, mtime_ms DOUBLE, batch INTEGER, segment VARCHAR, rows_read BIGINT, rows_loaded BIGINT, rows_rejected BIGINT,
  imported_at TIMESTAMP)`;

export interface LedgerRow {
  dir: string;
  file_name: string;
  sha256: string;
  bytes: number;
  mtime_ms: number;
  batch: number;
  segment: string;
  rows_loaded: number;
  imported_at: string;
}

export async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The segments directory of a warehouse, created if needed. */
export function segmentsDirOf(warehouseDir: string): string {
  const dir = join(warehouseDir, SEGMENTS_DIR);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The ledger rows of one raw table, oldest batch first. */
export async function readLedger(c: DuckDBConnection, table: string): Promise<LedgerRow[]> {
  await c.run(LEDGER_DDL);
  return (await queryJson(c, `SELECT * FROM import_ledger WHERE table_name = ${sqlString(table)} ORDER BY batch, file_name`)).map(
    (r) => r as unknown as LedgerRow,
  );
}

/** The batch number of a run's new segments: one past every batch of the ledger. */
export async function nextBatch(c: DuckDBConnection): Promise<number> {
  const [last] = await queryJson(c, `SELECT coalesce(max(batch), 0)::INTEGER AS b FROM import_ledger`);
  return Number(last?.b ?? 0) + 1;
}

export interface NewLedgerRow {
  dir: string;
  fileName: string;
  table: string;
  sha256: string;
  bytes: number;
  mtimeMs: number;
  batch: number;
  segment: string;
  read: number;
  loaded: number;
  rejected: number;
  importedAt: Date;
}

/** Records a segment; inside the caller's transaction, with what the segment's rows depend on. */
export async function insertLedgerRow(c: DuckDBConnection, r: NewLedgerRow): Promise<void> {
  await c.run(
    `INSERT INTO import_ledger VALUES (${sqlString(r.dir)}, ${sqlString(r.fileName)}, ${sqlString(r.table)}, ${sqlString(r.sha256)},
      ${r.bytes}, ${r.mtimeMs}, ${r.batch}, ${sqlString(r.segment)}, ${r.read}, ${r.loaded},
      ${r.rejected}, ${sqlString(r.importedAt.toISOString())}::TIMESTAMPTZ::TIMESTAMP)`,
  );
}

/** Removes the files `<prefix>-*` that no committed ledger row names: written by a run that died before its commit. */
export function removeUncommitted(segmentsDir: string, prefix: string, committed: ReadonlySet<string>): string[] {
  const removed: string[] = [];
  for (const f of readdirSync(segmentsDir)) {
    if (f.startsWith(`${prefix}-`) && !committed.has(f)) {
      rmSync(join(segmentsDir, f), { force: true });
      removed.push(f);
    }
  }
  return removed;
}

/** A view over segments with the raw table's columns and `source`; an empty one without segments. */
export function segmentsView(raw: RawTable, paths: readonly string[], source: SourceKind): string {
  if (paths.length === 0) {
    return `SELECT ${raw.columns.map(([c, t]) => `NULL::${t} AS ${c}`).join(', ')} LIMIT 0`;
  }
  // a segment copied as it is may hold a number or time column in another type: cast as the import does
  const columns = raw.columns.filter(([c]) => c !== 'source').map(([c, t]) => `CAST(${c} AS ${t}) AS ${c}`);
  return `SELECT ${columns.join(', ')}, ${sqlString(source)} AS source
      FROM read_parquet([${paths.map(sqlString).join(', ')}], union_by_name = true)`;
}

/** Drops the raw table's views of an earlier run on this connection, and the copy an older warehouse kept. */
export async function dropSegmentViews(c: DuckDBConnection, raw: RawTable): Promise<void> {
  await c.run(`DROP VIEW IF EXISTS temp.${raw.name}`);
  await c.run(`DROP VIEW IF EXISTS temp.new_${raw.name}`);
  await c.run(`DROP VIEW IF EXISTS temp.${raw.name}_by_import`);
  await c.run(`DROP TABLE IF EXISTS main.${raw.name}`);
}

/**
 * (Re)creates the raw table's three views: over `segments` (every segment with its batch, in
 * ledger order), over `added` (this run's) and by batch.
 */
export async function createSegmentViews(
  c: DuckDBConnection,
  raw: RawTable,
  source: SourceKind,
  segments: readonly { batch: number; path: string }[],
  added: readonly string[],
): Promise<void> {
  await dropSegmentViews(c, raw);
  await c.run(
    `CREATE TEMP VIEW ${raw.name} AS ${segmentsView(
      raw,
      segments.map((s) => s.path),
      source,
    )}`,
  );
  await c.run(`CREATE TEMP VIEW new_${raw.name} AS ${segmentsView(raw, added, source)}`);
  // by the run that wrote them: a filter on import_batch reads only those runs' segments
  const byBatch = [...new Set(segments.map((s) => s.batch))].map(
    (b) =>
      `SELECT *, ${b} AS import_batch FROM (${segmentsView(
        raw,
        segments.filter((x) => x.batch === b).map((x) => x.path),
        source,
      )})`,
  );
  await c.run(
    `CREATE TEMP VIEW ${raw.name}_by_import AS ${byBatch.length ? byBatch.join(' UNION ALL ') : `SELECT *, 0 AS import_batch FROM (${segmentsView(raw, [], source)})`}`,
  );
}
