/**
 * The warehouse: one DuckDB file per service that the pipelines own read-write. It keeps history
 * across runs (first-seen times, macro backfill, hourly series); the proxy never opens it.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  DuckDBConnection,
  DuckDBDateValue,
  DuckDBInstance,
  DuckDBTimestampValue,
} from '@duckdb/node-api';
import type { RawTable } from '../sources/raw-tables.ts';
import { createTableSql } from '../sources/raw-tables.ts';
import type { Cell, Row } from '../sources/demo/world.ts';

export interface Warehouse {
  path: string;
  instance: DuckDBInstance;
  connection: DuckDBConnection;
  close(): void;
}

export interface WarehouseOptions {
  /** DuckDB threads; default: all cores. */
  threads?: number;
  /** e.g. '4GB'; default: DuckDB's own (80% of RAM). */
  memoryLimit?: string;
}

/** Opens (creating if needed) `<dir>/<service>.duckdb`. Pass ':memory:' as dir for tests. */
export async function openWarehouse(
  dir: string,
  service: string,
  options: WarehouseOptions = {},
): Promise<Warehouse> {
  let path = ':memory:';
  const config: Record<string, string> = {};
  if (dir !== ':memory:') {
    mkdirSync(dir, { recursive: true });
    path = join(dir, `${service}.duckdb`);
    config.temp_directory = join(dir, `${service}.tmp`);
  }
  if (options.threads) config.threads = String(options.threads);
  if (options.memoryLimit) config.memory_limit = options.memoryLimit;
  let instance: DuckDBInstance;
  try {
    instance = await DuckDBInstance.create(path, config);
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    if (/lock/i.test(msg)) {
      throw new Error(
        `warehouse ${path} is locked by another process (is another pipeline run for "${service}" still going?): ${msg}`,
      );
    }
    throw err;
  }
  const connection = await instance.connect();
  return {
    path,
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
  table: RawTable,
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
