/**
 * A pipeline context for running live ingest steps in tests: an in-memory warehouse and a log,
 * without a snapshot writer (ingest steps never write snapshots).
 */
import { loadSettings, type Settings } from '../../../lib/config.ts';
import { RulesAnalyst } from '../../../pipelines/analyst/index.ts';
import type { PipelineContext } from '../../../pipelines/runner.ts';
import { openWarehouse, type Warehouse } from '../../../pipelines/warehouse.ts';

export interface TestContext {
  warehouse: Warehouse;
  logs: string[];
  /** A context for one run at `now`, sharing the warehouse (history persists between runs). */
  at(now: Date, settings?: Settings): PipelineContext;
}

export async function testContext(): Promise<TestContext> {
  const warehouse = await openWarehouse(':memory:', 'analytics', { threads: 1 });
  const logs: string[] = [];
  return {
    warehouse,
    logs,
    at(now, settings = loadSettings({})) {
      const ctx = {
        source: { kind: 'live' },
        now,
        seed: 0,
        scale: 1,
        service: 'analytics',
        connection: warehouse.connection,
        sourceKind: 'live',
        settings,
        analyst: new RulesAnalyst(),
        log: (m: string) => logs.push(m),
        meta: () => {
          throw new Error('ingest steps do not write datasets');
        },
        isDue: () => true,
      } satisfies Omit<PipelineContext, 'writer'>;
      // Ingest steps never touch the writer; a test has none to give.
      return { ...ctx, writer: undefined } as unknown as PipelineContext;
    },
  };
}
