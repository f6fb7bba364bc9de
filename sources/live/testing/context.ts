/**
 * An ingest context for running live ingest steps in tests: an in-memory DuckDB and a log, and
 * with `warehouseDir` a temporary directory for what a source keeps beside the warehouse (the
 * analytics payments' segments).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Database } from '../../../lib/duckdb.ts';
import type { IngestContext } from '../../contract.ts';

export interface TestContext {
  warehouse: Database;
  logs: string[];
  /** The temporary warehouse directory, when asked for. */
  warehouseDir?: string;
  /** A context for one run at `now`, sharing the warehouse (history persists between runs). */
  at(now: Date): IngestContext;
  /** Closes the warehouse and removes its directory. */
  close(): void;
}

export async function testContext(options: { warehouseDir?: boolean } = {}): Promise<TestContext> {
  const warehouse = await openDatabase(':memory:', { threads: '1' });
  const logs: string[] = [];
  const warehouseDir = options.warehouseDir ? mkdtempSync(join(tmpdir(), 'live-warehouse-')) : undefined;
  return {
    warehouse,
    logs,
    ...(warehouseDir ? { warehouseDir } : {}),
    at(now) {
      return {
        now,
        seed: 0,
        scale: 1,
        connection: warehouse.connection,
        sourceKind: 'live',
        log: (m: string) => logs.push(m),
        ...(warehouseDir ? { warehouseDir } : {}),
      };
    },
    close() {
      warehouse.close();
      if (warehouseDir) rmSync(warehouseDir, { recursive: true, force: true });
    },
  };
}
