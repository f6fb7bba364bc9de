/**
 * Scratch tables: a run's freshly fetched rows land in a TEMP table (DuckDB's appender, fast),
 * then one set-based INSERT moves them into the persistent tables with the keys enforced there
 * (`INSERT OR IGNORE` keeps re-runs idempotent, which the appender alone cannot).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { appendRows, type Row } from '../../lib/duckdb.ts';
import type { RawTable } from '../raw-tables.ts';

export async function loadScratch(connection: DuckDBConnection, table: RawTable, rows: Iterable<Row>): Promise<number> {
  const columns = table.columns.map(([c, ty]) => `${c} ${ty}`).join(', ');
  await connection.run(`CREATE OR REPLACE TEMP TABLE ${table.name} (${columns})`);
  return appendRows(connection, table, rows);
}

/** Runs `work` in one transaction, so rows and the checkpoint that covers them land together. */
export async function inTransaction<T>(connection: DuckDBConnection, work: () => Promise<T>): Promise<T> {
  await connection.run('BEGIN TRANSACTION');
  try {
    const result = await work();
    await connection.run('COMMIT');
    return result;
  } catch (err) {
    await connection.run('ROLLBACK');
    throw err;
  }
}
