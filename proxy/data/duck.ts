/**
 * The proxy's one DuckDB: an in-memory instance that only reads snapshot Parquet files
 * (`read_parquet($path)`) for the point lookups of the large tables. It never opens the
 * pipeline's warehouse. Every statement is parameterised; callers pass user input as values,
 * never as SQL text.
 *
 * A few connections (as many as threads) serve every request, each statement going to the
 * connection with the fewest in flight: a statement waits behind others on its connection, so
 * one slow wash check does not hold up every lookup. The Parquet footers are cached
 * (parquet_metadata_cache), so a lookup does not re-read them.
 */
import { DuckDBInstance, type DuckDBConnection, type DuckDBValue, type Json } from '@duckdb/node-api';

export interface SnapshotDuckOptions {
  /** DuckDB worker threads; default 2 (the proxy shares the machine with the pipelines). */
  threads?: number;
  /** e.g. '512MB'; default 1GB. Lookups need little: a row group at a time. */
  memoryLimit?: string;
}

export type DuckRow = Record<string, Json>;

interface PooledConnection {
  connection: DuckDBConnection;
  inFlight: number;
}

interface Duck {
  instance: DuckDBInstance;
  pool: PooledConnection[];
  /** Statements not yet settled: closing waits for them (closing under a running one crashes the process). */
  running: Set<Promise<unknown>>;
}

let duck: Promise<Duck> | null = null;
let options: SnapshotDuckOptions = {};

/** Sets the instance options; only before the first query (later calls have no effect on a running instance). */
export function configureSnapshotDuck(next: SnapshotDuckOptions): void {
  options = { ...next };
}

async function open(): Promise<Duck> {
  const threads = Math.max(1, options.threads ?? 2);
  const instance = await DuckDBInstance.create(':memory:', {
    threads: String(threads),
    memory_limit: options.memoryLimit ?? '1GB',
    // the proxy reads snapshot files only: no extension downloads
    autoinstall_known_extensions: 'false',
  });
  const pool: PooledConnection[] = [];
  for (let i = 0; i < threads; i++) pool.push({ connection: await instance.connect(), inFlight: 0 });
  // parquet_metadata_cache belongs to the (built-in) parquet extension: load it first; the
  // setting is global, one connection sets it for all
  await pool[0]!.connection.run('LOAD parquet');
  await pool[0]!.connection.run('SET GLOBAL parquet_metadata_cache = true');
  return { instance, pool, running: new Set() };
}

function ready(): Promise<Duck> {
  duck ??= open().catch((err: unknown) => {
    duck = null;
    throw err;
  });
  return duck;
}

/**
 * Runs one parameterised statement and returns its rows as JSON values: INTEGER and DOUBLE as
 * numbers, BIGINT and HUGEINT as strings (cast in SQL when a number is wanted), JSON columns as
 * their text.
 */
export async function queryRows(sql: string, values: Record<string, DuckDBValue> = {}): Promise<DuckRow[]> {
  const { pool, running } = await ready();
  const pooled = pool.reduce((a, b) => (b.inFlight < a.inFlight ? b : a));
  pooled.inFlight += 1;
  const statement = pooled.connection.runAndReadAll(sql, values);
  running.add(statement);
  try {
    const reader = await statement;
    return reader.getRowObjectsJson();
  } finally {
    running.delete(statement);
    pooled.inFlight -= 1;
  }
}

/**
 * Closes the instance (a server's shutdown, tests). Statements still running (a request, or the
 * warm-up of a snapshot that just loaded) are interrupted and settle first, with an error for
 * their caller: closing a connection under a running statement crashes the process. A query after
 * this opens a new instance.
 */
export async function closeSnapshotDuck(): Promise<void> {
  const current = duck;
  duck = null;
  if (!current) return;
  const { instance, pool, running } = await current;
  for (const { connection, inFlight } of pool) if (inFlight > 0) connection.interrupt();
  await Promise.allSettled([...running]);
  for (const { connection } of pool) connection.closeSync();
  instance.closeSync();
}
