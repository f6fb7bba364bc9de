/**
 * The pipeline context of an analytics demo run in tests that drive the steps themselves (on a
 * warehouse and snapshot writer of their own), as the runner builds it for `--source demo`.
 */
import { findDataset } from '../../catalog/datasets.ts';
import { loadSettings } from '../../lib/config.ts';
import type { SnapshotWriter } from '../../snapshots/writer.ts';
import { RulesAnalyst } from '../analyst/index.ts';
import type { PipelineContext } from '../runner.ts';
import type { DuckDBConnection } from '@duckdb/node-api';

export function analyticsDemoContext(options: { connection: DuckDBConnection; writer: SnapshotWriter; now: Date }): PipelineContext {
  return {
    source: { kind: 'demo' },
    now: options.now,
    seed: 42,
    scale: 1,
    service: 'analytics',
    connection: options.connection,
    writer: options.writer,
    sourceKind: 'demo',
    settings: loadSettings({}),
    analyst: new RulesAnalyst(),
    isDue: () => true,
    log: () => {},
    setRunInputs: () => {},
    meta(dataset, asOf) {
      const decl = findDataset('analytics', dataset);
      if (!decl) throw new Error(`dataset ${dataset} is not in the catalog`);
      return { source: 'demo', asOf, license: decl.license, description: decl.description };
    },
  };
}
