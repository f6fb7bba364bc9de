/**
 * The 8-label buyer classifier of the analytics service (methodology: docs/wash-methodology.md).
 *
 * classify() reads x402_transactions, x402_services, wallet_funding and exchange_wallets (and,
 * when the pipeline has them, the attribution step's pair keys) and (re)writes three TEMP tables
 * for the rest of the run (the datasets publish what they hold; writing them to the warehouse
 * file cost more than the classification itself):
 *   pair_labels    one row per (buyer, seller_address, chain) with payments
 *   buyer_labels   one row per paying wallet (tx-weighted majority over its pairs)
 *   seller_cohorts one row per (seller_address, chain) with payments: the wash-detail cohort summary
 *   seller_state   one row per (seller_address, chain) with payments: the cohort state the
 *                  on-request wash check reads instead of re-reading a cohort (on-request.ts)
 *   funding_stops  the exchange wallets and funding hubs that end a funding chain
 * The paid POST /api/v1/wash/check runs the same steps on request over one address's payments
 * (classifier/on-request.ts, proxy/data/wash-check.ts); the thresholds are in catalog/wash-rules.ts.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { WASH_LABELS, type WashLabel } from '../catalog/categories.ts';
import { cyclesRelationSql, findCycles } from './cycles.ts';
import { EVIDENCE_GROUPS_SQL, FUNDING_STOPS_SQL, MONEY_TRAILS_SQL, SELLER_STATE_SQL } from './on-request.ts';
import type { WashModelThresholds } from '../catalog/wash-model.ts';
import { dropSteps, releasePlan, runSteps, type SqlStep, type StepTiming } from './plan.ts';
import { BUYER_LABELS_SQL, featureSteps, labelSteps, PAIR_LABELS_SQL, SELLER_COHORTS_SQL } from './steps.ts';

export interface ClassifyOptions {
  /** The as-of instant: payments and fundings after it are ignored; `_30d` columns end here. */
  now: Date;
  /** Read only payments and fundings strictly before `now` (the pipeline's day state). */
  before?: boolean;
  /** Keep the intermediate `wc_*` TEMP tables (for inspection); default false. */
  keepIntermediate?: boolean;
  /** The run's payment keys (pk, time), when the pipeline has them already (StepContext.paymentKeys). */
  paymentKeys?: string;
  /** The verdict's thresholds (default the fitted model, catalog/wash-model.ts); the fit scores others. */
  model?: WashModelThresholds;
}

export interface ClassifyStats {
  pairs: number;
  buyers: number;
  sellers: number;
  /** Buyers per published label. */
  buyerLabels: Record<WashLabel, number>;
  /** Pairs per published label. */
  pairLabels: Record<WashLabel, number>;
  /** Share of all volume on suspected_wash pairs. */
  washVolumeShare: number;
  /** Wallets in balanced payment cycles. */
  cycleMembers: number;
  seconds: number;
  steps: StepTiming[];
}

const REQUIRED_TABLES = ['x402_transactions', 'x402_services', 'wallet_funding', 'exchange_wallets'] as const;

/** Fails with the missing table's name instead of a binder error deep inside a step. */
export async function assertInputs(connection: DuckDBConnection): Promise<void> {
  const reader = await connection.runAndReadAll(
    `SELECT table_name FROM information_schema.tables WHERE table_name IN (${REQUIRED_TABLES.map((t) => `'${t}'`).join(', ')})`,
  );
  const present = new Set(reader.getRowObjectsJson().map((r) => String(r.table_name)));
  const missing = REQUIRED_TABLES.filter((t) => !present.has(t));
  if (missing.length > 0) {
    throw new Error(
      `wash classifier: missing input table(s) ${missing.join(', ')}` +
        (missing.includes('exchange_wallets') ? ' (every source fills exchange_wallets, empty when it has no exchange list)' : ''),
    );
  }
}

function emptyCounts(): Record<WashLabel, number> {
  return Object.fromEntries(WASH_LABELS.map((l) => [l, 0])) as Record<WashLabel, number>;
}

/** The tables classify() writes (TEMP, in this order), each with the SQL over the steps that makes it. */
export const OUTPUT_TABLES = {
  pair_labels: PAIR_LABELS_SQL,
  buyer_labels: BUYER_LABELS_SQL,
  seller_cohorts: SELLER_COHORTS_SQL,
  seller_state: SELLER_STATE_SQL,
  funding_stops: FUNDING_STOPS_SQL,
  money_trails: MONEY_TRAILS_SQL,
  evidence_groups: EVIDENCE_GROUPS_SQL,
} as const;

export async function classify(connection: DuckDBConnection, options: ClassifyOptions): Promise<ClassifyStats> {
  const t0 = performance.now();
  await assertInputs(connection);
  const ctx = { now: options.now, before: options.before, scope: { kind: 'all' } as const, paymentKeys: options.paymentKeys };
  const created: SqlStep[] = [];
  try {
    const features = featureSteps(ctx);
    created.push(...features);
    const cyclePairs = 'SELECT buyer, seller_address, chain, volume, bk, sak FROM wc_pairs';
    // the label steps' shape does not depend on the cycles found: plan the releases over both lists
    const plan = releasePlan(
      [...features, ...labelSteps(cyclesRelationSql([]), options.model)],
      [cyclePairs, ...Object.values(OUTPUT_TABLES)],
    );
    const release = (steps: string[][]) => (options.keepIntermediate ? undefined : steps);
    const timings = await runSteps(connection, features, { release: release(plan.slice(0, features.length)) });

    const tc = performance.now();
    const cycles = await findCycles(connection, cyclePairs);
    timings.push({ name: 'cycles (Tarjan)', seconds: (performance.now() - tc) / 1000 });

    const labels = labelSteps(cyclesRelationSql(cycles), options.model);
    created.push(...labels);
    timings.push(...(await runSteps(connection, labels, { release: release(plan.slice(features.length)) })));

    const tw = performance.now();
    await connection.run('BEGIN TRANSACTION');
    try {
      for (const [table, sql] of Object.entries(OUTPUT_TABLES)) await connection.run(`CREATE OR REPLACE TEMP TABLE ${table} AS ${sql}`);
      await connection.run('COMMIT');
    } catch (err) {
      await connection.run('ROLLBACK');
      throw err;
    }
    timings.push({ name: 'write tables', seconds: (performance.now() - tw) / 1000 });

    const summary = await connection.runAndReadAll(`SELECT
        (SELECT count(*) FROM pair_labels) AS pairs,
        (SELECT count(*) FROM buyer_labels) AS buyers,
        (SELECT count(*) FROM seller_cohorts) AS sellers,
        (SELECT coalesce(sum(volume) FILTER (WHERE label = 'suspected_wash') / nullif(sum(volume), 0), 0) FROM pair_labels) AS wash_share`);
    const s = summary.getRowObjectsJson()[0]!;
    const buyerLabels = emptyCounts();
    for (const r of (await connection.runAndReadAll('SELECT label, count(*) AS n FROM buyer_labels GROUP BY label')).getRowObjectsJson()) {
      buyerLabels[r.label as WashLabel] = Number(r.n);
    }
    const pairLabels = emptyCounts();
    for (const r of (await connection.runAndReadAll('SELECT label, count(*) AS n FROM pair_labels GROUP BY label')).getRowObjectsJson()) {
      pairLabels[r.label as WashLabel] = Number(r.n);
    }
    return {
      pairs: Number(s.pairs),
      buyers: Number(s.buyers),
      sellers: Number(s.sellers),
      buyerLabels,
      pairLabels,
      washVolumeShare: Number(s.wash_share),
      cycleMembers: cycles.filter((c) => c.balanced).length,
      seconds: (performance.now() - t0) / 1000,
      steps: timings,
    };
  } finally {
    if (!options.keepIntermediate) await dropSteps(connection, created);
  }
}
