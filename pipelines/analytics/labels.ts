/**
 * The buyer labels of a run: a day state, and hourly labels over it (docs/wash-methodology.md,
 * "Day state and hourly labels"; docs/scale.md for the figures).
 *
 * - **Day state.** Everything that describes a group rather than one wallet (each seller's cohort,
 *   funding clusters and chains, vanity clusters, rings, hubs, fleets) is computed by the batch
 *   classifier from the payments and funding before the start of the run's UTC day (`D`), once per
 *   day, and kept in the warehouse: the seller state, the funding stops, the cohort summaries, and
 *   the labels of every buyer as of `D`.
 * - **Hourly labels.** A buyer that paid on day D is labelled from its own payments up to `now` and
 *   the day state (classifier/buyer-set.ts, the on-request check's steps over many buyers); every
 *   other buyer keeps its label as of D. A run recomputes only the buyers whose payments of day D
 *   changed since the last run (a per-buyer fingerprint of that day's payments), so a label is a
 *   function of the payments, the funding before D and `now`, however the runs fell: a run from
 *   scratch at the same `now` gives the same labels (pipelines/analytics/incremental.test.ts).
 *
 * The state is rebuilt, with the reason in the log and the run table, on the first run of a UTC
 * day, with `--rebuild`, without a state, when the classifier's SQL or thresholds changed, when
 * `--now` is before the last run's, when its files are missing, or when anything it was computed
 * from changed (a fingerprint of the payments and funding before D, the listings and the exchange
 * list).
 *
 * Files: `<WAREHOUSE_DIR>/analytics-day-state/<id>/`: the state's five tables as Parquet, and the
 * day's labels and fingerprints of the last run (`today-<n>-*.parquet`); the warehouse table
 * `day_state` names the live ones. Files are written before the row that names them, so a run
 * killed midway leaves the last consistent state named. Without a warehouse directory (tests on an
 * in-memory warehouse) the files go to a temporary directory and every run builds the state.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { THRESHOLDS } from '../../catalog/wash-rules.ts';
import { classifyBuyers } from '../../classifier/buyer-set.ts';
import { cyclesRelationSql } from '../../classifier/cycles.ts';
import { classify, type ClassifyStats, OUTPUT_TABLES } from '../../classifier/index.ts';
import { onRequestSteps } from '../../classifier/on-request.ts';
import { WASH_MODEL, type WashModelThresholds } from '../../catalog/wash-model.ts';
import { timestampSql } from '../../classifier/plan.ts';
import { featureSteps, labelSteps } from '../../classifier/steps.ts';
import { queryJson, sqlString } from '../../lib/duckdb.ts';
import type { PipelineContext, PrepareStep } from '../runner.ts';

/** What a label run needs of the pipeline's context (the wash evaluation passes its own). */
export type LabelContext = Pick<PipelineContext, 'connection' | 'now' | 'rebuild' | 'warehouseDir' | 'log'> & {
  /** The verdict's thresholds (default the fitted model; the leave-one-family-out fit scores others). */
  model?: WashModelThresholds;
};

export interface LabelRun {
  /** Buyers labelled (rows of buyer_labels). */
  rows: number;
  /** What the run did with the day state, and why (the run table's line). */
  detail: string;
  /** The batch classifier's figures when this run built the day state. */
  state: ClassifyStats | null;
  /** Buyers labelled from their payments and the day state. */
  changed: number;
  seconds: number;
}

/** The tables the datasets read (TEMP, this run's). */
export const LABEL_TABLES = [
  'pair_labels',
  'buyer_labels',
  'seller_cohorts',
  'seller_state',
  'funding_stops',
  'money_trails',
  'evidence_groups',
] as const;

/**
 * What a run's labels changed, for the datasets that publish only that (keyed.ts), TEMP:
 *   relabelled_buyers  bk = hash(address) of each buyer this run labelled from its payments
 *   label_generation   one row when the labels rest on a kept warehouse: the day state's id, the
 *                      labels the run started from (`labels_from`, the last run's; '' after a new
 *                      state) and those it made (`labels_to`); no row otherwise
 */
export const LABEL_CHANGE_TABLES = ['relabelled_buyers', 'label_generation'] as const;

/** The day state a run's labels rest on, the labels it started from and those it made (label_generation). */
export interface LabelGeneration {
  state_id: string;
  labels_from: string;
  labels_to: string;
}

/** The run's label_generation row; null when the labels rest on no kept state, or were made otherwise (tests' own tables). */
export async function labelGeneration(c: PipelineContext['connection']): Promise<LabelGeneration | null> {
  const [made] = await queryJson(
    c,
    `SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE temporary AND table_name IN ${`('${LABEL_CHANGE_TABLES.join("', '")}')`}`,
  );
  if (Number(made?.n ?? 0) !== LABEL_CHANGE_TABLES.length) return null;
  const [row] = await queryJson(c, 'SELECT state_id, labels_from, labels_to FROM label_generation');
  return row ? { state_id: String(row.state_id), labels_from: String(row.labels_from), labels_to: String(row.labels_to) } : null;
}

/** The state keeps each of them as a file of the same name (`<table>.parquet`). */
const STATE_FILES = LABEL_TABLES;

/**
 * The pair labels' 30-day columns move with `now`, not with the labels: they are left out of the
 * kept labels (the datasets compute 30-day figures from the payments).
 */
const PAIR_MOVING_COLUMNS = ['tx_count_30d', 'volume_30d'];

const STATE_DIR = 'analytics-day-state';

const META = `CREATE TABLE IF NOT EXISTS day_state (id VARCHAR, state_as_of TIMESTAMP, recipe VARCHAR, inputs VARCHAR,
  labels_as_of TIMESTAMP, today VARCHAR, recorded_at TIMESTAMP)`;

/** The start of the UTC day of an instant: the day state's cutoff. */
export function dayStart(at: Date): Date {
  return new Date(Math.floor(at.getTime() / 86_400_000) * 86_400_000);
}

/**
 * Funding edges before `cutoff` (a TIMESTAMP expression) with whether the funder ends a chain
 * (funding_stops): what the day state's chains were computed from, which the hourly labels read.
 */
export function fundingEdgesSql(cutoff: string): string {
  return `SELECT f.address, f.funder, f.time, f.amount,
                 hash(f.funder) IN (SELECT k FROM funding_stops WHERE k IS NOT NULL) AS funder_exchange,
                 f.funder IN (SELECT hub FROM funding_stops WHERE hub IS NOT NULL) AS funder_hub,
                 f.funder IN (SELECT fleet FROM funding_stops WHERE fleet IS NOT NULL) AS funder_fleet
            FROM wallet_funding f
           WHERE f.time < ${cutoff} AND f.funder IS NOT NULL AND f.address IS NOT NULL`;
}

/** The payments the classifier reads (transactionSteps' filter). */
const PAYMENTS = `x402_transactions WHERE buyer IS NOT NULL AND seller_address IS NOT NULL AND chain IS NOT NULL`;

/**
 * What the state's SQL is: a state built by other rules or thresholds is not reused. Placeholder
 * names stand in for the relations; the text is what changes with the code.
 */
function recipe(model: WashModelThresholds): string {
  const epoch = new Date(0);
  const batch = [...featureSteps({ now: epoch, scope: { kind: 'all' } }), ...labelSteps(cyclesRelationSql([]), model)];
  const set = onRequestSteps({ now: epoch, payments: '<p>', funding: '<f>', sellers: '<s>', trails: '<t>', groups: '<g>', model });
  const text = JSON.stringify({
    version: 1,
    batch: batch.map((s) => s.sql),
    set: set.map((s) => s.sql),
    out: Object.values(OUTPUT_TABLES),
    thresholds: THRESHOLDS,
    model,
  });
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Order-independent fingerprints of everything the state is computed from (before `D`). A table
 * imported from files (`--source file:DIR`) only grows: its imported segments never change
 * (sources/file/append-only.ts), so its rows before D and its directory say whether they changed,
 * without hashing every row (1.8 s for 10M payments).
 */
async function stateInputs(ctx: LabelContext, d: string): Promise<string> {
  const c = ctx.connection;
  const fp = (cols: string) => `{'n': count(*), 'h': coalesce(sum(hash(${cols}) >> 8), 0)}::VARCHAR`;
  const appended = new Set(
    (
      await queryJson(
        c,
        `SELECT view_name FROM duckdb_views() WHERE temporary AND view_name IN ('x402_transactions_by_import', 'wallet_funding_by_import')`,
      )
    ).map((r) => String(r.view_name).replace(/_by_import$/, '')),
  );
  const imported = async (table: string): Promise<string | null> => {
    if (!appended.has(table)) return null;
    const [dir] = await queryJson(
      c,
      `SELECT min(dir) AS dir, count(DISTINCT dir)::INTEGER AS dirs FROM import_ledger WHERE table_name = ${sqlString(table)}`,
    );
    return Number(dir?.dirs ?? 0) === 1 ? `{'n': count(*), 'dir': ${sqlString(String(dir!.dir))}}::VARCHAR` : null;
  };
  const importedPayments = await imported('x402_transactions');
  const payments = importedPayments ?? fp('buyer, seller_address, chain, amount, time');
  const funding = (await imported('wallet_funding')) ?? fp('address, funder, amount, time');
  // segments only grow, so counting every row before D (not only the classifier's) says as much,
  // and reads one column: the null checks read three string columns (11 s against about 1.4 s at 100M)
  const paymentRows = importedPayments ? `x402_transactions WHERE time < ${d}` : `${PAYMENTS} AND time < ${d}`;
  const [row] = await queryJson(
    c,
    `SELECT (SELECT ${payments} FROM ${paymentRows}) AS payments,
            (SELECT ${funding} FROM wallet_funding WHERE time < ${d}) AS funding,
            (SELECT ${fp('seller_address, chain, first_seen, category, price_amount')} FROM x402_services) AS services,
            (SELECT ${fp('address')} FROM exchange_wallets) AS exchanges`,
  );
  return JSON.stringify(row);
}

interface Meta {
  id: string;
  state_as_of: string;
  recipe: string;
  inputs: string;
  labels_as_of: string;
  today: string;
}

const iso = (text: string): number => Date.parse(`${text.replace(' ', 'T')}Z`);

/** Why the kept state cannot serve this run, or null when it can. */
function rebuildReason(ctx: LabelContext, meta: Meta | null, dir: string | null, d: Date, code: string, inputs: string): string | null {
  if (ctx.rebuild) return '--rebuild';
  if (!dir) return 'no warehouse directory (the state lives for one run)';
  if (!meta) return 'no day state yet';
  if (iso(meta.state_as_of) !== d.getTime()) return `a new UTC day (the state is of ${meta.state_as_of.slice(0, 10)})`;
  if (meta.recipe !== code) return "the classifier's rules changed since the state was built";
  if (iso(meta.labels_as_of) > ctx.now.getTime()) return "--now is before the last run's";
  const files = [...STATE_FILES.map((f) => `${f}.parquet`), ...(meta.today ? todayFiles(meta.today) : [])];
  const missing = files.filter((f) => !existsSync(join(dir, meta.id, f)));
  if (missing.length > 0) return `the day state's files are missing (${missing.join(', ')})`;
  if (meta.inputs !== inputs) return 'the payments, funding, listings or exchange list before the day changed';
  return null;
}

const todayFiles = (n: string): string[] => [`today-${n}-pairs.parquet`, `today-${n}-buyers.parquet`, `today-${n}-fp.parquet`];

async function readMeta(ctx: LabelContext): Promise<Meta | null> {
  await ctx.connection.run(META);
  const [row] = await queryJson(
    ctx.connection,
    `SELECT id, strftime(state_as_of, '%Y-%m-%d %H:%M:%S.%f') AS state_as_of, recipe, inputs,
            strftime(labels_as_of, '%Y-%m-%d %H:%M:%S.%f') AS labels_as_of, today
       FROM day_state ORDER BY recorded_at DESC LIMIT 1`,
  );
  return row ? (row as unknown as Meta) : null;
}

async function writeMeta(ctx: LabelContext, meta: Meta): Promise<void> {
  const c = ctx.connection;
  await c.run('BEGIN TRANSACTION');
  try {
    await c.run(`DELETE FROM day_state;
      INSERT INTO day_state VALUES (${sqlString(meta.id)}, TIMESTAMP ${sqlString(meta.state_as_of)}, ${sqlString(meta.recipe)},
        ${sqlString(meta.inputs)}, TIMESTAMP ${sqlString(meta.labels_as_of)}, ${sqlString(meta.today)}, now()::TIMESTAMP)`);
    await c.run('COMMIT');
  } catch (err) {
    await c.run('ROLLBACK');
    throw err;
  }
}

const copy = (sql: string, file: string) => `COPY (${sql}) TO ${sqlString(file)} (FORMAT parquet, COMPRESSION zstd)`;
const parquet = (file: string) => `read_parquet(${sqlString(file)})`;
const stamp = (at: Date) => at.toISOString().replace('T', ' ').replace('Z', '');

/**
 * Builds the day state of `d` into a new directory under `root`: the batch classifier over the
 * payments and funding before `d`, its five tables as Parquet.
 */
async function buildState(ctx: LabelContext, root: string, d: Date): Promise<{ id: string; stats: ClassifyStats }> {
  const c = ctx.connection;
  const id = `${stamp(d).slice(0, 10)}-${randomBytes(4).toString('hex')}`;
  const dir = join(root, id);
  mkdirSync(dir, { recursive: true });
  const [attributed] = await queryJson(
    c,
    `SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE temporary AND table_name = 'tx_attributed'`,
  );
  // the attribution step's pair keys spare the classifier a pass over the payments' addresses
  const paymentKeys = Number(attributed?.n ?? 0) > 0 ? `SELECT pk, time FROM tx_attributed WHERE time < ${timestampSql(d)}` : undefined;
  const stats = await classify(c, { now: d, before: true, paymentKeys, model: ctx.model });
  await c.run(
    [
      copy(`SELECT * EXCLUDE (${PAIR_MOVING_COLUMNS.join(', ')}) FROM pair_labels`, join(dir, 'pair_labels.parquet')),
      ...STATE_FILES.filter((t) => t !== 'pair_labels').map((t) => copy(`SELECT * FROM ${t}`, join(dir, `${t}.parquet`))),
      ...LABEL_TABLES.map((t) => `DROP TABLE IF EXISTS temp.${t}`),
    ].join(';\n'),
  );
  const slowest = [...stats.steps]
    .sort((a, b) => b.seconds - a.seconds)
    .filter((t) => t.seconds >= 0.5)
    .slice(0, 8)
    .map((t) => `${t.name} ${t.seconds.toFixed(1)} s`);
  ctx.log(
    `classify: day state of ${stamp(d).slice(0, 10)} built from the payments before it: ${stats.buyers} buyers, ` +
      `${stats.sellers} sellers (${stats.seconds.toFixed(1)} s${slowest.length ? `; slowest steps: ${slowest.join(', ')}` : ''})`,
  );
  return { id, stats };
}

/** The hourly labels: the buyers whose day-D payments changed, labelled from their payments and the state. */
async function labelChanged(ctx: LabelContext, d: string): Promise<number> {
  const c = ctx.connection;
  const now = timestampSql(ctx.now);
  await c.run(`CREATE OR REPLACE TEMP TABLE lbl_payments AS
      SELECT buyer, seller_address, chain, amount, time FROM ${PAYMENTS} AND time <= ${now}
         AND hash(buyer) IN (SELECT bk FROM lbl_changed)`);
  await c.run(`CREATE OR REPLACE TEMP TABLE lbl_sellers AS
      SELECT * FROM seller_state
       WHERE seller_address IN (SELECT seller_address FROM lbl_payments UNION SELECT buyer FROM lbl_payments);
    CREATE OR REPLACE TEMP TABLE lbl_trails AS
      SELECT * FROM money_trails WHERE node IN (SELECT hash(buyer) FROM lbl_payments);
    CREATE OR REPLACE TEMP TABLE lbl_groups AS
      SELECT * FROM evidence_groups WHERE op IN (SELECT operator_id FROM lbl_sellers)`);
  // The funding chain as a check climbs it (proxy/data/wash-check.ts): every edge into the
  // payments' wallets, then into their funders that are not exchanges, level by level.
  await c.run(`CREATE OR REPLACE TEMP VIEW lbl_edges AS ${fundingEdgesSql(d)};
    CREATE OR REPLACE TEMP TABLE lbl_level AS SELECT DISTINCT w AS address FROM (
      SELECT buyer AS w FROM lbl_payments UNION ALL SELECT seller_address FROM lbl_payments);
    CREATE OR REPLACE TEMP TABLE lbl_fetched AS SELECT address FROM lbl_level;
    CREATE OR REPLACE TEMP TABLE lbl_funding AS SELECT * FROM lbl_edges WHERE address IN (SELECT address FROM lbl_level)`);
  // as far up as the roots go (a first-funding chain to trailMaxHops: classifier/funding.ts)
  for (let hop = 2; hop <= Math.max(THRESHOLDS.fundingMaxHops, THRESHOLDS.trailMaxHops); hop++) {
    await c.run(`CREATE OR REPLACE TEMP TABLE lbl_level AS
        SELECT DISTINCT funder AS address FROM lbl_funding
         WHERE address IN (SELECT address FROM lbl_level) AND NOT funder_exchange
           AND funder NOT IN (SELECT address FROM lbl_fetched);
      INSERT INTO lbl_fetched SELECT address FROM lbl_level;
      INSERT INTO lbl_funding SELECT * FROM lbl_edges WHERE address IN (SELECT address FROM lbl_level)`);
  }
  const timings = await classifyBuyers(c, {
    now: ctx.now,
    payments: 'lbl_payments',
    funding: 'lbl_funding',
    sellers: 'lbl_sellers',
    trails: 'lbl_trails',
    groups: 'lbl_groups',
    model: ctx.model,
  });
  const [n] = await queryJson(c, 'SELECT count(*)::INTEGER AS n FROM set_buyer_labels');
  await c.run(
    ['lbl_payments', 'lbl_sellers', 'lbl_trails', 'lbl_groups', 'lbl_level', 'lbl_fetched', 'lbl_funding']
      .map((t) => `DROP TABLE IF EXISTS temp.${t}`)
      .join(';\n') + ';\nDROP VIEW IF EXISTS temp.lbl_edges',
  );
  const slow = timings.filter((t) => t.seconds >= 0.5).map((t) => `${t.name} ${t.seconds.toFixed(1)} s`);
  ctx.log(
    `classify: ${Number(n?.n ?? 0)} buyers labelled from their payments and the day state${slow.length ? ` (${slow.join(', ')})` : ''}`,
  );
  return Number(n?.n ?? 0);
}

export const classifyStep: PrepareStep = {
  name: 'classify',
  // Dropped before the run: a failed classification must not leave last run's labels in place.
  tables: [...LABEL_TABLES, ...LABEL_CHANGE_TABLES],
  async run(ctx) {
    const done = await labelRun(ctx);
    return { rows: done.rows, detail: done.detail };
  },
};

/**
 * Makes this run's label tables (LABEL_TABLES, TEMP): the kept day state when it still holds,
 * else a new one, and the day's buyers labelled over it (the module comment).
 */
export async function labelRun(ctx: LabelContext): Promise<LabelRun> {
  const t0 = performance.now();
  // where the time goes, for the log: the phases in order
  const phases: string[] = [];
  let mark = t0;
  const phase = (name: string) => {
    const at = performance.now();
    phases.push(`${name} ${((at - mark) / 1000).toFixed(2)} s`);
    mark = at;
  };
  const c = ctx.connection;
  const d = dayStart(ctx.now);
  const dSql = timestampSql(d);
  const code = recipe(ctx.model ?? WASH_MODEL.thresholds);
  const inputs = await stateInputs(ctx, dSql);
  phase('fingerprints');
  const kept = ctx.warehouseDir ? join(ctx.warehouseDir, STATE_DIR) : null;
  const meta = kept ? await readMeta(ctx) : null;
  const why = rebuildReason(ctx, meta, kept, d, code, inputs);
  const root = kept ?? mkdtempSync(join(tmpdir(), 'day-state-'));
  try {
    let id: string;
    let lastToday = '';
    let detail: string;
    let state: ClassifyStats | null = null;
    if (why === null) {
      id = meta!.id;
      lastToday = meta!.today;
      detail = `day state of ${stamp(d).slice(0, 10)} kept`;
    } else {
      const built = await buildState(ctx, root, d);
      id = built.id;
      state = built.stats;
      phase('day state');
      ctx.log(`classify: day state rebuilt (${why})`);
      detail = `day state of ${stamp(d).slice(0, 10)} rebuilt (${why})`;
    }
    const dir = join(root, id);
    const file = (name: string) => join(dir, name);
    await c.run(
      STATE_FILES.filter((t) => t !== 'pair_labels' && t !== 'buyer_labels')
        .map((t) => `CREATE OR REPLACE TEMP TABLE ${t} AS SELECT * FROM ${parquet(file(`${t}.parquet`))}`)
        .join(';\n'),
    );

    // the day's payments by buyer, against the last run's: who changed
    const [oldPairs, oldBuyers, oldFp] = lastToday ? todayFiles(lastToday).map(file) : [];
    await c.run(`CREATE OR REPLACE TEMP TABLE lbl_fp AS
          SELECT hash(buyer) AS bk, count(*)::BIGINT AS n, sum(hash(seller_address, chain, amount, time) >> 8)::HUGEINT AS h
            FROM ${PAYMENTS} AND time >= ${dSql} AND time <= ${timestampSql(ctx.now)} GROUP BY 1;
        CREATE OR REPLACE TEMP TABLE lbl_changed AS
          SELECT bk FROM lbl_fp ${oldFp ? `ANTI JOIN ${parquet(oldFp)} o USING (bk, n, h)` : ''}`);
    phase("state read, the day's payments");
    const changed = await labelChanged(ctx, dSql);
    phase(`${changed} buyers labelled`);

    // the day's labels: the last run's for buyers that did not change, this run's for the rest
    const n = String(Date.now());
    const [pairs, buyers, fp] = todayFiles(n).map(file);
    // a buyer of the day whose payments did not change keeps the row the last run wrote
    const unchanged = (file: string | undefined, key: string) =>
      file
        ? [
            `SELECT * FROM ${parquet(file)} WHERE hash(${key}) IN (SELECT bk FROM lbl_fp) AND hash(${key}) NOT IN (SELECT bk FROM lbl_changed)`,
          ]
        : [];
    await c.run(
      [
        copy(
          [`SELECT * EXCLUDE (${PAIR_MOVING_COLUMNS.join(', ')}) FROM set_pair_labels`, ...unchanged(oldPairs, 'buyer')].join(
            ' UNION ALL BY NAME ',
          ),
          pairs!,
        ),
        copy(['SELECT * FROM set_buyer_labels', ...unchanged(oldBuyers, 'address')].join(' UNION ALL BY NAME '), buyers!),
        copy('SELECT * FROM lbl_fp', fp!),
      ].join(';\n'),
    );
    phase('day files');
    // every buyer of the day (lbl_fp) has its row in the day's files; the others keep the state's
    await c.run(`CREATE OR REPLACE TEMP TABLE pair_labels AS
          SELECT * FROM ${parquet(file('pair_labels.parquet'))} WHERE hash(buyer) NOT IN (SELECT bk FROM lbl_fp)
          UNION ALL BY NAME SELECT * FROM ${parquet(pairs!)};
        CREATE OR REPLACE TEMP TABLE buyer_labels AS
          SELECT * FROM ${parquet(file('buyer_labels.parquet'))} WHERE hash(address) NOT IN (SELECT bk FROM lbl_fp)
          UNION ALL BY NAME SELECT * FROM ${parquet(buyers!)};
        CREATE OR REPLACE TEMP TABLE relabelled_buyers AS SELECT bk FROM lbl_changed;
        CREATE OR REPLACE TEMP TABLE label_generation (state_id VARCHAR, labels_from VARCHAR, labels_to VARCHAR);
        DROP TABLE IF EXISTS temp.set_pair_labels; DROP TABLE IF EXISTS temp.set_buyer_labels;
        DROP TABLE IF EXISTS temp.lbl_fp; DROP TABLE IF EXISTS temp.lbl_changed`);

    if (kept) {
      await writeMeta(ctx, { id, state_as_of: stamp(d), recipe: code, inputs, labels_as_of: stamp(ctx.now), today: n });
      await c.run(`INSERT INTO label_generation VALUES (${sqlString(id)}, ${sqlString(lastToday)}, ${sqlString(n)})`);
      // what no row names any more: earlier states, and the day files of earlier runs
      for (const entry of readdirSync(root)) if (entry !== id) rmSync(join(root, entry), { recursive: true, force: true });
      for (const entry of readdirSync(dir)) {
        if (entry.startsWith('today-') && !todayFiles(n).includes(entry)) rmSync(join(dir, entry), { force: true });
      }
    }
    const [count] = await queryJson(c, 'SELECT count(*)::INTEGER AS n FROM buyer_labels');
    phase('label tables');
    ctx.log(`classify: ${phases.join(', ')}`);
    return { rows: Number(count?.n ?? 0), detail, state, changed, seconds: (performance.now() - t0) / 1000 };
  } finally {
    if (!kept) rmSync(root, { recursive: true, force: true });
  }
}

/** When the labels' cohort evidence was taken: the start of the run's UTC day (ISO 8601). */
export function cohortStateAsOf(now: Date): string {
  return dayStart(now).toISOString();
}
