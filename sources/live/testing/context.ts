/**
 * An ingest context for running live ingest steps in tests: an in-memory DuckDB and a log.
 */
import { openDatabase, type Database } from '../../../lib/duckdb.ts';
import type { IngestContext } from '../../contract.ts';

export interface TestContext {
  warehouse: Database;
  logs: string[];
  /** A context for one run at `now`, sharing the warehouse (history persists between runs). */
  at(now: Date): IngestContext;
}

export async function testContext(): Promise<TestContext> {
  const warehouse = await openDatabase(':memory:', { threads: '1' });
  const logs: string[] = [];
  return {
    warehouse,
    logs,
    at(now) {
      return { now, seed: 0, scale: 1, connection: warehouse.connection, sourceKind: 'live', log: (m: string) => logs.push(m) };
    },
  };
}
