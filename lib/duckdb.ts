/**
 * DuckDB helpers every layer shares: opening a database, rows as arrays of cells appended in
 * declaration order, queries answered as JSON-safe objects, SQL string literals. Nothing here
 * knows a service, a source or a dataset.
 */
import { DuckDBDateValue, DuckDBInstance, DuckDBTimestampValue, type DuckDBConnection } from '@duckdb/node-api';

/** One cell of a table row: Date for TIMESTAMP, 'YYYY-MM-DD' string for DATE. */
export type Cell = string | number | boolean | Date | null;
/** A row in the column order of its table's declaration. */
export type Row = Cell[];

/** A table's name and columns (DuckDB DDL types), in the order appenders write them. */
export interface TableShape {
  name: string;
  columns: ReadonlyArray<readonly [name: string, type: string]>;
}

/** How createTableSql creates: replacing a table of that name (default), only when there is none, or as a TEMP table (replacing). */
export type CreateMode = 'replace' | 'if-not-exists' | 'temp';

export function createTableSql(table: TableShape, name = table.name, mode: CreateMode = 'replace'): string {
  const create = {
    replace: 'CREATE OR REPLACE TABLE',
    'if-not-exists': 'CREATE TABLE IF NOT EXISTS',
    temp: 'CREATE OR REPLACE TEMP TABLE',
  }[mode];
  return `${create} ${name} (${table.columns.map(([c, ty]) => `${c} ${ty}`).join(', ')})`;
}

/** Whether a table (or, with `orView`, a view) of that name exists; `temporary` limits it to TEMP ones. */
export async function tableExists(
  c: DuckDBConnection,
  name: string,
  options: { temporary?: boolean; orView?: boolean } = {},
): Promise<boolean> {
  const only = options.temporary ? ' AND temporary' : '';
  const views = options.orView ? ` UNION ALL SELECT 1 FROM duckdb_views() WHERE view_name = $name${only}` : '';
  const reader = await c.runAndReadAll(`SELECT 1 FROM duckdb_tables() WHERE table_name = $name${only}${views} LIMIT 1`, { name });
  return reader.getRows().length > 0;
}

export interface Database {
  instance: DuckDBInstance;
  connection: DuckDBConnection;
  close(): void;
}

/** Opens `path` (':memory:' for an in-memory database) with DuckDB settings such as `threads`. */
export async function openDatabase(path: string, config: Record<string, string> = {}): Promise<Database> {
  const instance = await DuckDBInstance.create(path, config);
  const connection = await instance.connect();
  return {
    instance,
    connection,
    close() {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

const MS_PER_DAY = 86_400_000;

function dateValue(cell: Cell, table: string, column: string): DuckDBDateValue {
  if (typeof cell !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(cell)) {
    throw new Error(`${table}.${column}: expected a 'YYYY-MM-DD' date, got ${JSON.stringify(cell)}`);
  }
  return new DuckDBDateValue(Math.round(Date.parse(cell + 'T00:00:00Z') / MS_PER_DAY));
}

function timestampValue(cell: Cell, table: string, column: string): DuckDBTimestampValue {
  const ms = cell instanceof Date ? cell.getTime() : typeof cell === 'string' ? Date.parse(cell) : NaN;
  if (!Number.isFinite(ms)) {
    throw new Error(`${table}.${column}: expected a timestamp, got ${JSON.stringify(cell)}`);
  }
  return new DuckDBTimestampValue(BigInt(ms) * 1000n);
}

/**
 * Appends rows (cells in declaration order) to a table shaped like `table`, creating it when
 * `create` is set. Returns the number of rows appended.
 */
export async function appendRows(
  connection: DuckDBConnection,
  table: TableShape,
  rows: Iterable<Row>,
  options: { tableName?: string; create?: boolean } = {},
): Promise<number> {
  const name = options.tableName ?? table.name;
  if (options.create) await connection.run(createTableSql(table, name));
  const appender = await connection.createAppender(name);
  const types = table.columns.map(([, type]) => type);
  const width = types.length;
  let count = 0;
  try {
    for (const row of rows) {
      if (row.length !== width) {
        throw new Error(`${name}: row ${count} has ${row.length} cells, the table has ${width} columns`);
      }
      for (let i = 0; i < width; i++) {
        const cell = row[i]!;
        if (cell === null) {
          appender.appendNull();
          continue;
        }
        switch (types[i]) {
          case 'VARCHAR':
            appender.appendVarchar(String(cell));
            break;
          case 'DOUBLE':
            if (typeof cell !== 'number') {
              throw new Error(`${name}.${table.columns[i]![0]}: expected a number, got ${JSON.stringify(cell)}`);
            }
            appender.appendDouble(cell);
            break;
          case 'BIGINT':
            appender.appendBigInt(BigInt(cell as number));
            break;
          case 'BOOLEAN':
            appender.appendBoolean(Boolean(cell));
            break;
          case 'DATE':
            appender.appendDate(dateValue(cell, name, table.columns[i]![0]));
            break;
          case 'TIMESTAMP':
            appender.appendTimestamp(timestampValue(cell, name, table.columns[i]![0]));
            break;
          default:
            throw new Error(`${name}: column type ${types[i]} is not supported by appendRows`);
        }
      }
      appender.endRow();
      count++;
    }
    appender.closeSync();
  } catch (err) {
    try {
      appender.closeSync();
    } catch {
      /* the original error is the one worth reporting */
    }
    throw err;
  }
  return count;
}

/** Runs a query and returns its rows as JSON-safe objects (BIGINT as string, timestamps ISO). */
export async function queryJson(
  connection: DuckDBConnection,
  sql: string,
  params?: Record<string, string | number | boolean | null>,
): Promise<Record<string, unknown>[]> {
  const reader = params ? await connection.runAndReadAll(sql, params) : await connection.runAndReadAll(sql);
  return reader.getRowObjectsJson() as Record<string, unknown>[];
}

/** Quotes a string as a SQL literal (for paths in COPY statements, which take no parameters). */
export function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** Strings as a SQL list literal: ['upbit', 'bithumb']. */
export function sqlList(values: readonly string[]): string {
  return `[${values.map(sqlString).join(', ')}]`;
}

/** A positive number rounded to `digits` significant digits in SQL (NULL and non-positive stay as they are). */
export function significantSql(expr: string, digits: number): string {
  return `(CASE WHEN (${expr}) > 0 THEN round(${expr}, (${digits} - 1 - floor(log10(${expr})))::INTEGER) ELSE ${expr} END)`;
}
