/**
 * Writing one upstream's rows into the korea raw tables. Upbit and Bithumb share kr_markets,
 * kr_tickers and market_flags, so a step owns only its exchange's rows: it empties them before it
 * fetches (a failed upstream leaves the table present with none of its rows) and writes all of
 * them in one transaction once every payload has parsed.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { appendRows, sqlString, type Row } from '../../../lib/duckdb.ts';
import type { RawTable } from '../../raw-tables.ts';
import { inTransaction } from '../scratch.ts';

export interface RowsWrite {
  table: RawTable;
  /** Only this exchange's rows are replaced; without it the step owns the whole table. */
  exchange?: string;
  rows: Row[];
}

/** The runner drops raw tables before a run; the first step that writes one creates it. */
export async function ensureRawTable(connection: DuckDBConnection, table: RawTable): Promise<void> {
  await connection.run(`CREATE TABLE IF NOT EXISTS ${table.name} (${table.columns.map(([c, ty]) => `${c} ${ty}`).join(', ')})`);
}

async function clear(connection: DuckDBConnection, table: RawTable, exchange: string | undefined): Promise<void> {
  await connection.run(`DELETE FROM ${table.name}${exchange === undefined ? '' : ` WHERE exchange = ${sqlString(exchange)}`}`);
}

/** Creates the tables if needed and empties this step's share of them. */
export async function resetRows(connection: DuckDBConnection, targets: ReadonlyArray<Omit<RowsWrite, 'rows'>>): Promise<void> {
  for (const { table, exchange } of targets) {
    await ensureRawTable(connection, table);
    await clear(connection, table, exchange);
  }
}

/** Replaces this step's share of each table with `rows`, all or nothing. Returns the rows written. */
export async function replaceRows(connection: DuckDBConnection, writes: readonly RowsWrite[]): Promise<number> {
  for (const { table } of writes) await ensureRawTable(connection, table);
  return inTransaction(connection, async () => {
    let total = 0;
    for (const { table, exchange, rows } of writes) {
      await clear(connection, table, exchange);
      total += await appendRows(connection, table, rows);
    }
    return total;
  });
}
