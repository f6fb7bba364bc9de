/**
 * Every korea dataset step declares the guarded inputs it reads (KoreaDatasetStep.reads), and the
 * plausibility guard refuses it with them. This test keeps the declarations true: it runs every
 * step of a real live run (recorded upstreams on loopback) with DuckDB's query log on, finds the
 * guarded inputs' raw tables (plausibility-bounds.ts `table`) in the SQL each step ran, and fails
 * when a step reads one it does not declare. A new dataset that reads the FX rate without
 * declaring it fails here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASETS } from '../../catalog/datasets.ts';
import { loadSettings, type Settings } from '../../lib/config.ts';
import { queryJson } from '../../lib/duckdb.ts';
import { KOREA_FIXTURE_NOW, startKoreaUpstreams, type KoreaUpstreamWorld } from '../../sources/live/testing/korea-upstreams.ts';
import { LineProgress } from '../progress.ts';
import { runPipeline, type PipelineContext, type RunResult } from '../runner.ts';
import { KOREA_DATASET_STEPS } from './datasets/index.ts';
import { koreaPipeline } from './index.ts';
import { KOREA_INPUT_BOUNDS, type KoreaInput } from './plausibility-bounds.ts';
import type { KoreaDatasetStep } from './sql.ts';

const INPUTS = Object.keys(KOREA_INPUT_BOUNDS) as KoreaInput[];

/** The statements a step ran, read from DuckDB's query log. */
async function runLogged(step: KoreaDatasetStep, ctx: PipelineContext, into: Map<string, string[]>) {
  const c = ctx.connection;
  await c.run(`CALL enable_logging('QueryLog')`);
  await c.run('CALL truncate_duckdb_logs()');
  try {
    return await step.run(ctx);
  } finally {
    const logged = await queryJson(c, `SELECT message FROM duckdb_logs WHERE type = 'QueryLog' ORDER BY timestamp`);
    await c.run('CALL disable_logging()');
    into.set(step.dataset, [...(into.get(step.dataset) ?? []), ...logged.map((r) => String(r.message))]);
  }
}

/** The guarded inputs whose tables a statement reads: string literals and comments left out, and so is creating a table when missing. */
export function inputsRead(statement: string): KoreaInput[] {
  const sql = statement
    .replace(/'(?:[^']|'')*'/g, "''")
    .replace(/--[^\n]*/g, '')
    .replace(/\/\*[\s\S]*?\*\//g, '');
  if (/^\s*(CREATE\s+TABLE\s+IF\s+NOT\s+EXISTS\s+\w+\s*\(|DROP\s+TABLE)/i.test(sql)) return [];
  return INPUTS.filter((i) => new RegExp(`\\b${KOREA_INPUT_BOUNDS[i].table}\\b`, 'i').test(sql));
}

describe('inputsRead', () => {
  it('finds an input table wherever a statement reads it, not in a literal or a CREATE IF NOT EXISTS', () => {
    expect(inputsRead(`SELECT rate FROM (SELECT * FROM fx_rates WHERE pair = 'USDKRW') fx`)).toEqual(['fx']);
    expect(inputsRead(`COPY (SELECT * FROM kr_tickers k JOIN global_prices g USING (symbol)) TO 'x.parquet'`)).toEqual([
      'krPrices',
      'globalPrices',
    ]);
    expect(inputsRead(`INSERT INTO premium_1m SELECT * FROM macro_daily`)).toEqual(['macro']);
    expect(inputsRead(`SELECT count(*) FROM duckdb_tables() WHERE table_name = 'fx_rates'`)).toEqual([]);
    expect(inputsRead(`CREATE TABLE IF NOT EXISTS kr_tickers (exchange VARCHAR)`)).toEqual([]);
    expect(inputsRead(`SELECT kr_tickers_total FROM stats`)).toEqual([]);
  });
});

describe('every korea dataset reads only the guarded inputs it declares', () => {
  let world: KoreaUpstreamWorld;
  let root: string;
  let settings: Settings;
  const logs = new Map<string, string[]>();
  let full: RunResult;
  const quiet = new LineProgress(() => {});
  const logged = (step: KoreaDatasetStep): KoreaDatasetStep => ({ ...step, run: (ctx) => runLogged(step, ctx, logs) });

  beforeAll(async () => {
    world = await startKoreaUpstreams();
    root = mkdtempSync(join(tmpdir(), 'korea-reads-'));
    settings = loadSettings({
      ...world.env,
      SITE_BUILD: 'off',
      SNAPSHOTS_DIR: join(root, 'snapshots'),
      WAREHOUSE_DIR: join(root, 'warehouse'),
    });
    // one live run fills the warehouse and computes every dataset (nothing is due yet)
    const params = { source: { kind: 'live' as const }, now: KOREA_FIXTURE_NOW, seed: 0, scale: 1 };
    full = await runPipeline(koreaPipeline, params, settings, quiet);
    // Then each step runs alone on the warehouse it left, the other datasets kept: steps share
    // work within a run (the first AI step starts every product, the first archive step records
    // the run's premiums), so only alone does a step show all it reads.
    for (const step of KOREA_DATASET_STEPS) {
      const alone = await runPipeline(
        {
          ...koreaPipeline,
          ingestSteps: () => [],
          prepareSteps: [],
          datasetSteps: KOREA_DATASET_STEPS.map((s) => (s === step ? logged(s) : s)),
        },
        { ...params, datasets: [step.dataset], recompute: true },
        settings,
        quiet,
      );
      expect(alone.reports.find((r) => r.name === step.dataset)?.detail ?? 'ok', step.dataset).toBe('ok');
    }
  }, 60_000);
  afterAll(async () => {
    await world?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('the pipeline runs every korea dataset of the catalog, each guarded by the inputs it declares', () => {
    const declared: string[] = KOREA_DATASET_STEPS.map((s) => s.dataset);
    expect(new Set(declared).size).toBe(declared.length);
    expect([...declared].sort()).toEqual(
      DATASETS.filter((d) => d.service === 'korea')
        .map((d) => d.name)
        .sort(),
    );
    expect(koreaPipeline.datasetSteps.map((s) => s.dataset)).toEqual(declared);
    expect(full.reports.filter((r) => declared.includes(r.name) && r.status !== 'ok')).toEqual([]);
  });

  it('no dataset reads an input it does not declare, and each declared input is read', () => {
    const problems: string[] = [];
    for (const step of KOREA_DATASET_STEPS) {
      const statements = logs.get(step.dataset) ?? [];
      const read = new Set(statements.flatMap(inputsRead));
      const counted = step.counts?.inputs ?? [];
      for (const input of read) {
        if (step.reads.includes(input) || counted.includes(input)) continue;
        const statement = statements.find((s) => inputsRead(s).includes(input))!;
        problems.push(
          `${step.dataset} reads ${KOREA_INPUT_BOUNDS[input].table} (input '${input}') without declaring it: add '${input}' to its reads ` +
            `(or to counts, with why, if it never reads a value); the statement: ${statement.replace(/\s+/g, ' ').slice(0, 200)}`,
        );
      }
      for (const input of [...step.reads, ...counted]) {
        if (!read.has(input)) problems.push(`${step.dataset} declares '${input}' but reads nothing of ${KOREA_INPUT_BOUNDS[input].table}`);
      }
      for (const input of counted) {
        if (step.reads.includes(input)) problems.push(`${step.dataset} declares '${input}' both read and counted`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('the datasets the issue named read the FX rate and the prices, and declare them', () => {
    const reads = (dataset: string) => KOREA_DATASET_STEPS.find((s) => s.dataset === dataset)!.reads;
    for (const dataset of ['kimchi-premium-1m', 'kimchi-premium-1h', 'kimchi-premium-1d', 'kimchi-premium-daily']) {
      expect(reads(dataset), dataset).toEqual(['fx', 'krPrices', 'globalPrices']);
    }
    expect(reads('order-books')).toEqual(['fx']);
  });
});
