/**
 * The day state and the hourly labels (labels.ts): a buyer labelled in a set over the day state
 * gets the batch classifier's label; a run that keeps the state and labels only the buyers whose
 * day changed gives the same tables as one that builds everything; every reason to rebuild is
 * noticed. On the demo and challenge worlds of the wash evaluation, in an in-memory warehouse with
 * the state's files in a temporary directory (the pipeline-level check, through the pipeline
 * command on the file source, is incremental.test.ts).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyBuyers } from '../../classifier/buyer-set.ts';
import { classify } from '../../classifier/index.ts';
import { timestampSql } from '../../classifier/plan.ts';
import { queryJson } from '../../lib/duckdb.ts';
import { openWarehouse, type Warehouse } from '../warehouse.ts';
import { DEFAULT_EVAL_NOW, loadChallengeWorld, loadDemoWorld } from './eval-wash.ts';
import { ISSUE_29_CROWDS, ISSUE_29_WASH } from '../../sources/demo/analytics/challenge/regimes.ts';
import { dayStart, fundingEdgesSql, type LabelContext, labelRun } from './labels.ts';

const HOUR = 3_600_000;
const temps: string[] = [];
afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

/** Every buyer's label, confidence, reasons and vanity flags, in a canonical order. */
const buyerRows = (c: DuckDBConnection, table: string) =>
  queryJson(c, `SELECT address, label, confidence, reason, vanity_strict, vanity_broad, tx_count FROM ${table} ORDER BY address`);
const pairRows = (c: DuckDBConnection) =>
  queryJson(c, 'SELECT buyer, seller_address, chain, label, confidence, reasons, tx_count, volume FROM pair_labels ORDER BY ALL');

describe('a buyer labelled in a set over the day state', () => {
  for (const world of ['demo', 'challenge ood'] as const) {
    it(`gets the batch classifier's labels, confidences and reasons: every buyer and pair of the ${world} world`, async () => {
      const w = await openWarehouse(':memory:', 'analytics', { threads: 2 });
      try {
        const c = w.connection;
        const d = dayStart(DEFAULT_EVAL_NOW);
        if (world === 'demo') await loadDemoWorld(c, 1, 1, DEFAULT_EVAL_NOW);
        else await loadChallengeWorld(c, 1, 'ood', DEFAULT_EVAL_NOW);
        // the batch over everything before the day, and its state
        await classify(c, { now: d, before: true });
        await c.run(
          'CREATE TEMP TABLE batch_labels AS SELECT * FROM buyer_labels; CREATE TEMP TABLE batch_pairs AS SELECT * FROM pair_labels',
        );
        // every buyer of the same payments as one set, over that state
        const dSql = timestampSql(d);
        await c.run(`CREATE TEMP TABLE p AS SELECT buyer, seller_address, chain, amount, time FROM x402_transactions
                      WHERE time < ${dSql} AND buyer IS NOT NULL AND seller_address IS NOT NULL AND chain IS NOT NULL;
                     CREATE TEMP TABLE f AS ${fundingEdgesSql(dSql)}`);
        await classifyBuyers(c, {
          now: DEFAULT_EVAL_NOW,
          payments: 'p',
          funding: 'f',
          sellers: 'seller_state',
          trails: 'money_trails',
          groups: 'evidence_groups',
        });
        const batch = await buyerRows(c, 'batch_labels');
        expect(batch.length).toBeGreaterThan(2000);
        expect(new Set(batch.map((r) => r.label)).size).toBeGreaterThanOrEqual(7);
        expect(await buyerRows(c, 'set_buyer_labels')).toEqual(batch);
        const pairs = (table: string) =>
          queryJson(c, `SELECT buyer, seller_address, chain, label, confidence, reasons, tx_count, volume FROM ${table} ORDER BY ALL`);
        expect(await pairs('set_pair_labels')).toEqual(await pairs('batch_pairs'));
        if (world === 'challenge ood') {
          // issue 29 through the hourly path: operators and bursts caught, honest crowds left alone
          const rates = await queryJson(
            c,
            `SELECT t.pattern, avg((b.label = 'suspected_wash')::INTEGER) AS wash FROM demo_truth_buyers t
               JOIN set_buyer_labels b ON b.address = t.address GROUP BY t.pattern`,
          );
          const rate = new Map(rates.map((r) => [String(r.pattern), Number(r.wash)]));
          for (const p of ISSUE_29_WASH) expect(rate.get(p), p).toBeGreaterThanOrEqual(0.93);
          for (const p of ISSUE_29_CROWDS) expect(rate.get(p), p).toBeLessThanOrEqual(0.01);
          const [why] = await queryJson(
            c,
            `SELECT count(*) FILTER (WHERE list_contains(reasons, 'operator_cohort')) AS operator,
                    count(*) FILTER (WHERE list_contains(reasons, 'funding_burst')) AS burst FROM set_pair_labels`,
          );
          expect(Number(why!.operator)).toBeGreaterThan(100);
          expect(Number(why!.burst)).toBeGreaterThan(100);
        }
      } finally {
        w.close();
      }
    }, 120_000);
  }
});

describe('hourly labels over a kept day state', () => {
  let w: Warehouse;
  let dir: string;
  const notes: string[] = [];
  const ctx = (now: Date, extra: Partial<LabelContext> = {}): LabelContext => ({
    connection: w.connection,
    now,
    warehouseDir: dir,
    log: (m) => notes.push(m),
    ...extra,
  });
  const early = new Date(DEFAULT_EVAL_NOW.getTime() - 6 * HOUR);
  beforeAll(async () => {
    w = await openWarehouse(':memory:', 'analytics', { threads: 2 });
    dir = mkdtempSync(join(tmpdir(), 'labels-test-'));
    temps.push(dir);
    await loadDemoWorld(w.connection, 1, 1, DEFAULT_EVAL_NOW);
  }, 60_000);
  afterAll(() => w?.close());

  it('labels only the buyers whose day changed, and gives what a run from scratch gives', async () => {
    const c = w.connection;
    const first = await labelRun(ctx(early));
    expect(first.detail).toBe('day state of 2026-08-05 rebuilt (no day state yet)');
    const second = await labelRun(ctx(DEFAULT_EVAL_NOW));
    expect(second.detail).toBe('day state of 2026-08-05 kept');
    expect(second.state).toBeNull();
    // the buyers who paid in the six hours between the runs, and no other
    const [paid] = await queryJson(
      c,
      `SELECT count(DISTINCT buyer)::INTEGER AS n FROM x402_transactions
        WHERE time > ${timestampSql(early)} AND time <= ${timestampSql(DEFAULT_EVAL_NOW)}`,
    );
    expect(second.changed).toBe(Number(paid!.n));
    expect(second.changed).toBeGreaterThan(50);
    expect(second.changed).toBeLessThan(second.rows / 4);
    const kept = { buyers: await buyerRows(c, 'buyer_labels'), pairs: await pairRows(c) };
    const again = await labelRun(ctx(DEFAULT_EVAL_NOW));
    expect(again.changed).toBe(0);

    const scratch = await labelRun(ctx(DEFAULT_EVAL_NOW, { rebuild: true }));
    expect(scratch.detail).toBe('day state of 2026-08-05 rebuilt (--rebuild)');
    expect(scratch.changed).toBeGreaterThan(second.changed);
    expect(await buyerRows(c, 'buyer_labels')).toEqual(kept.buyers);
    expect(await pairRows(c)).toEqual(kept.pairs);
    // one state directory, with the last run's day files only
    const states = readdirSync(join(dir, 'analytics-day-state'));
    expect(states).toHaveLength(1);
    expect(readdirSync(join(dir, 'analytics-day-state', states[0]!)).filter((f) => f.startsWith('today-'))).toHaveLength(3);
  }, 120_000);

  it('rebuilds the state, and says why, when it cannot serve the run', async () => {
    const c = w.connection;
    const reason = async (now: Date) => (await labelRun(ctx(now))).detail;
    expect(await reason(DEFAULT_EVAL_NOW)).toBe('day state of 2026-08-05 kept');
    expect(await reason(early)).toBe("day state of 2026-08-05 rebuilt (--now is before the last run's)");
    expect(await reason(new Date(DEFAULT_EVAL_NOW.getTime() + 24 * HOUR))).toBe(
      'day state of 2026-08-06 rebuilt (a new UTC day (the state is of 2026-08-05))',
    );
    expect(await reason(new Date(DEFAULT_EVAL_NOW.getTime() + 25 * HOUR))).toBe('day state of 2026-08-06 kept');
    // a warehouse from another version of the rules
    await c.run(`UPDATE day_state SET recipe = 'older'`);
    expect(await reason(new Date(DEFAULT_EVAL_NOW.getTime() + 25 * HOUR))).toBe(
      "day state of 2026-08-06 rebuilt (the classifier's rules changed since the state was built)",
    );
    // a lost file
    const state = readdirSync(join(dir, 'analytics-day-state'))[0]!;
    rmSync(join(dir, 'analytics-day-state', state, 'seller_state.parquet'));
    expect(await reason(new Date(DEFAULT_EVAL_NOW.getTime() + 25 * HOUR))).toBe(
      "day state of 2026-08-06 rebuilt (the day state's files are missing (seller_state.parquet))",
    );
    // a payment that arrived late, dated before the day
    await c.run(`INSERT INTO x402_transactions SELECT * REPLACE (time - INTERVAL 3 DAY AS time, tx_hash || 'late' AS tx_hash)
                   FROM x402_transactions ORDER BY time LIMIT 1`);
    expect(await reason(new Date(DEFAULT_EVAL_NOW.getTime() + 25 * HOUR))).toBe(
      'day state of 2026-08-06 rebuilt (the payments, funding, listings or exchange list before the day changed)',
    );
  }, 180_000);
});
