/**
 * The classifier over a set of buyers and a published day state: the pipeline's hourly labels
 * (docs/wash-methodology.md, "Day state and hourly labels"). The same steps as the on-request
 * check (on-request.ts), over relations that hold many buyers' payments at once: every step that
 * reads more than one buyer either groups by the buyer or joins the state, so a buyer's label is
 * the same in a set as alone (classify.test.ts checks it against one check per buyer).
 *
 * classifyBuyers writes two TEMP tables, with PAIR_LABELS_SQL's and BUYER_LABELS_SQL's columns:
 *   set_pair_labels   one row per pair of the set's buyers
 *   set_buyer_labels  one row per buyer of the set
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { onRequestSteps, type OnRequestInputs } from './on-request.ts';
import { dropSteps, releasePlan, runSteps, withPrefix, type StepTiming } from './plan.ts';
import { BUYER_LABELS_SQL, PAIR_LABELS_SQL } from './steps.ts';

/** The set's steps run under their own prefix: nothing of a batch run's `wc_*` is read or replaced. */
const PREFIX = 'wb_';

export interface BuyerSetInputs extends Omit<OnRequestInputs, 'computed'> {}

export async function classifyBuyers(connection: DuckDBConnection, inputs: BuyerSetInputs): Promise<StepTiming[]> {
  const steps = onRequestSteps(inputs);
  const later = [PAIR_LABELS_SQL, BUYER_LABELS_SQL];
  const timings = await runSteps(connection, steps, { prefix: PREFIX, release: releasePlan(steps, later) });
  try {
    const t0 = performance.now();
    await connection.run(withPrefix(`CREATE OR REPLACE TEMP TABLE set_pair_labels AS ${PAIR_LABELS_SQL}`, PREFIX));
    await connection.run(withPrefix(`CREATE OR REPLACE TEMP TABLE set_buyer_labels AS ${BUYER_LABELS_SQL}`, PREFIX));
    timings.push({ name: 'write tables', seconds: (performance.now() - t0) / 1000 });
  } finally {
    await dropSteps(connection, steps, PREFIX);
  }
  return timings;
}
