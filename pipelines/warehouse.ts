/**
 * The warehouse: one DuckDB file per service that the pipelines own read-write. It keeps history
 * across runs (first-seen times, macro backfill, hourly series); the proxy never opens it.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, type Database } from '../lib/duckdb.ts';

export interface Warehouse extends Database {
  path: string;
}

export interface WarehouseOptions {
  /** DuckDB threads; default: all cores. */
  threads?: number;
  /** e.g. '4GB'; default: DuckDB's own (80% of RAM). */
  memoryLimit?: string;
}

/** Opens (creating if needed) `<dir>/<service>.duckdb`. Pass ':memory:' as dir for tests. */
export async function openWarehouse(dir: string, service: string, options: WarehouseOptions = {}): Promise<Warehouse> {
  let path = ':memory:';
  const config: Record<string, string> = {};
  if (dir !== ':memory:') {
    mkdirSync(dir, { recursive: true });
    path = join(dir, `${service}.duckdb`);
    config.temp_directory = join(dir, `${service}.tmp`);
  }
  if (options.threads) config.threads = String(options.threads);
  if (options.memoryLimit) config.memory_limit = options.memoryLimit;
  try {
    return { path, ...(await openDatabase(path, config)) };
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    if (/lock/i.test(msg)) {
      throw new Error(`warehouse ${path} is locked by another process (is another pipeline run for "${service}" still going?): ${msg}`);
    }
    throw err;
  }
}
