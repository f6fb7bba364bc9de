/**
 * POST /api/v1/wash/check, computed on each request (never cached) with the classifier's own
 * steps (classifier/on-request.ts: the SQL the pipeline runs, one implementation) over the
 * snapshot's point-lookup tables (pipelines/analytics/datasets/wash-lookups.ts): the address's
 * payments and funding edges as of the run, and the batch run's seller state for the cohort-level
 * evidence (a seller's cohort spans thousands of payers). Methodology: docs/wash-methodology.md §7.
 *
 * buyer view (the address paid: wins when it also sells)
 *   the classifier's pair rules and roll-up over all of its pairs, computed here from its
 *   payments: label, confidence, signals.vanity (its membership of its sellers' vanity clusters),
 *   signals.concentration (its top seller's share of its payments); signals.cohort is the cohort
 *   summary of its main seller (its heaviest pair, as the classifier picks it); similar_patterns
 *   are the cohorts its heaviest pair's reasons name and its vanity clusters
 * seller view (the address sells and never paid), with up to SELLER_ON_REQUEST_MAX payments as
 *   seller: its payers' pairs labelled here from every payment of every payer, over the day
 *   state (its own cohort included: cohorts are of the day, docs/wash-methodology.md §1.1), then
 *   label       the 30-day-volume-weighted majority of its pairs' labels
 *   confidence  that label's 30-day-volume-weighted pair confidence x (0.5 + 0.5 x its volume share)
 *   signals     vanity: its cohort holds a strict / broad vanity cluster; cohort: the cohort of its
 *               busiest chain (30-day volume); concentration.top_service_share: the share of its
 *               30-day volume on suspected_wash pairs
 *   similar_patterns  its seller flags, one per flag and chain
 *   A bigger seller is answered from the batch run's published output (sellerView below): a
 *   cohort of tens of thousands of payers is not recomputed in a request.
 * never seen: unlabeled, confidence 0, no signals, no patterns.
 *
 * `basis` says which of these the answer rests on, and `as_of` is the data's: payments after it
 * are not in any answer. Anonymous pattern ids are sha256 of a secret salt, the pattern type and the
 * cohort key (lib/wash-ids.ts; the salt from WASH_PATTERN_SALT, passed in by proxy/serve.ts), so
 * the same cohort gets the same id for one salt, and the key (built from hashed seller keys) never
 * leaves the process.
 */
import type { DuckDBConnection, DuckDBPreparedStatement } from '@duckdb/node-api';
import type { WashLabel } from '../../catalog/categories.ts';
import { RULE_CONFIDENCE, THRESHOLDS } from '../../catalog/wash-rules.ts';
import { CHECK_BUYER_SQL, onRequestSteps } from '../../classifier/on-request.ts';
import { stepsAsQuery } from '../../classifier/plan.ts';
import { SELLER_FLAGS_SQL } from '../../classifier/seller-flags.ts';
import { sqlString } from '../../lib/duckdb.ts';
import { anonymousId } from '../../lib/wash-ids.ts';
import { parquetSql, type LoadedDataset } from '../../snapshots/reader.ts';
import { queryRows, withCheckConnection, type DuckRow } from './duck.ts';
import type { ServiceRecord, ServicesIndex } from './services-index.ts';

export interface WashCheckSignals {
  vanity: { strict: boolean; broad: boolean };
  cohort: { uniform_amount: number; coordinated_start: number };
  concentration: { top_service_share: number };
}

export interface WashCheckBody {
  source: string;
  as_of: string;
  /** The day state the cohort evidence comes from (the start of a UTC day); null before day states. */
  cohort_state_as_of: string | null;
  address: string;
  label: WashLabel;
  confidence: number;
  signals: WashCheckSignals;
  similar_patterns: Array<{ anonymous_id: string; pattern_type: string }>;
  /** What this answer was computed from (see the module comment). */
  basis: string;
}

export interface WashCheckContext {
  services: ServicesIndex;
  /** A dataset of the snapshot; throws (503) when it is missing. */
  dataset(name: string): LoadedDataset;
  /** Secret salt of the anonymous pattern ids. */
  patternSalt: string;
}

/** The snapshot datasets a check reads (besides `services` and, for a big seller, `wash-detail`). */
export const WASH_CHECK_DATASETS = ['wash-payments-by-buyer', 'wash-payments-by-seller', 'wash-funding', 'wash-sellers'] as const;

/** A seller with more payments than this is answered from the batch output (module comment). */
export const SELLER_ON_REQUEST_MAX = 10_000;

const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;
const fraction = (pct: unknown): number => round4(Math.max(0, Math.min(1, Number(pct ?? 0) / 100)));

const NO_SIGNALS: WashCheckSignals = {
  vanity: { strict: false, broad: false },
  cohort: { uniform_amount: 0, coordinated_start: 0 },
  concentration: { top_service_share: 0 },
};

interface Lookups {
  byBuyer: LoadedDataset;
  bySeller: LoadedDataset;
  funding: LoadedDataset;
  sellers: LoadedDataset;
}

function lookups(ctx: WashCheckContext): Lookups {
  return {
    byBuyer: ctx.dataset('wash-payments-by-buyer'),
    bySeller: ctx.dataset('wash-payments-by-seller'),
    funding: ctx.dataset('wash-funding'),
    sellers: ctx.dataset('wash-sellers'),
  };
}

function asOfText(data: LoadedDataset, state: LoadedDataset): string {
  const cohort = state.entry.cohort_state_as_of;
  return (
    `payments as of ${data.entry.as_of} (snapshot ${data.entry.produced_in}); payments after that time are not included` +
    (cohort ? `; cohort evidence and funding from the day state of ${cohort} (a cohort's new members count from the next day)` : '')
  );
}

/** Where a check's time went (the bench reads it): reading its rows, and the classifier's statement. */
export interface CheckTimings {
  lookupMs: number;
  classifyMs: number;
}

export async function washCheckAnswer(address: string, ctx: WashCheckContext, timings?: CheckTimings): Promise<WashCheckBody> {
  const data = lookups(ctx);
  const stamp = {
    source: data.byBuyer.entry.source,
    as_of: data.byBuyer.entry.as_of,
    cohort_state_as_of: data.sellers.entry.cohort_state_as_of ?? null,
  };
  const now = new Date(data.byBuyer.entry.as_of);
  const checked = await classifyOnRequest(address, now, data, timings);

  if (checked.row && checked.asBuyer > 0) {
    const view = buyerView(address, checked.row, ctx.patternSalt);
    return { ...stamp, ...view, basis: `Buyer view. ${buyerBasis(checked.asBuyer)} Based on the ${asOfText(data.byBuyer, data.sellers)}.` };
  }
  if (checked.row) {
    const { view, quiet } = sellerOnRequest(address, checked.row, ctx.patternSalt);
    const none = quiet ? ' None of its pairs had a payment in the last 30 days, so there is no label to report.' : '';
    return {
      ...stamp,
      ...view,
      basis: `${sellerOnRequestBasis(checked.asSeller)}${none} Based on the ${asOfText(data.byBuyer, data.sellers)}.`,
    };
  }
  const sold = ctx.services.bySeller.get(address);
  if (checked.asSeller > 0 && sold) {
    const view = await sellerView(address, sold, ctx);
    const quiet = sold.every((s) => s.volume30d === 0)
      ? ' None of its services had a payment in the last 30 days, so there is no label to report.'
      : '';
    const washDetail = ctx.dataset('wash-detail');
    return {
      source: washDetail.entry.source,
      as_of: washDetail.entry.as_of,
      cohort_state_as_of: washDetail.entry.cohort_state_as_of ?? null,
      ...view,
      basis:
        `${sellerBasis(sold.length, checked.asSeller)}${quiet} Based on the classifier output as of ${washDetail.entry.as_of} ` +
        `(snapshot ${washDetail.entry.produced_in}); payments after that time are not included.`,
    };
  }

  return {
    ...stamp,
    address,
    label: 'unlabeled',
    confidence: 0,
    signals: NO_SIGNALS,
    similar_patterns: [],
    basis: `Never seen: the index has no payment from or to this address, so there is nothing to classify (label unlabeled, confidence 0). Based on the ${asOfText(data.byBuyer, data.sellers)}.`,
  };
}

// ------------------------------------------------------------------ the classifier on request

type Mode = 'buyer' | 'seller';

/**
 * The check's input tables (TEMP, on the check's own connection): the address, its payments (a
 * seller's: every payment of its payers too), the funding edges of their wallets and sellers and
 * of those wallets' funders, the seller state of the payments' sellers and of the address, and
 * for a seller the (sak, chain) of its cohorts. Refilled for every check; the classifier's steps
 * read them through one statement prepared once per connection and snapshot (CheckSession).
 * `state` is the whole seller state (one row per seller and chain, small), read into memory once
 * per snapshot: its nested columns cost more to decode from Parquet than the rest of a lookup.
 */
const INPUT = {
  address: 'wash_check_address',
  payments: 'wash_check_payments',
  funding: 'wash_check_funding',
  sellers: 'wash_check_sellers',
} as const;
const STATE = 'wash_check_state';

const ADDRESS = `(SELECT address FROM ${INPUT.address})`;

/** What each mode's statement returns (one row), over the steps' relations. */
const RESULT: Record<Mode, () => string> = {
  buyer: () => {
    const T = THRESHOLDS;
    return `SELECT b.label, b.confidence, b.reason, b.vanity_strict, b.vanity_broad, b.top_service_share,
            b.top_sak::VARCHAR || '|' || b.top_chain AS cohort_key,
            round(s.uniform_amount_pct, 4)::DOUBLE AS uniform_amount, round(s.coordinated_start_pct, 4)::DOUBLE AS coordinated_start,
            hash(left(b.address, ${2 + T.vanityStrictPrefix}), right(b.address, ${T.vanityStrictSuffix}))::VARCHAR AS strict_key,
            hash(left(b.address, ${2 + T.vanityBroadPrefix}), right(b.address, ${T.vanityBroadSuffix}))::VARCHAR AS broad_key
       FROM (${CHECK_BUYER_SQL}) b LEFT JOIN wc_sellers s ON s.sak = b.top_sak AND s.chain = b.top_chain
      WHERE b.address = ${ADDRESS}`;
  },
  seller: () => `SELECT * FROM (WITH me AS (SELECT hash(address) AS sak FROM ${INPUT.address}),
     p AS (SELECT label, confidence, volume_30d, chain FROM wc_pair_labels_all WHERE sak = (SELECT sak FROM me) AND bk <> sak),
     votes AS (SELECT label, sum(volume_30d) AS v, sum(volume_30d * confidence) AS cw FROM p GROUP BY label),
     win AS (SELECT label, v, cw FROM votes WHERE v > 0 ORDER BY v DESC, label DESC LIMIT 1),
     -- the busiest chain by 30-day volume (ties: the later chain name)
     busiest AS (SELECT chain FROM wc_pair_labels_all WHERE sak = (SELECT sak FROM me) GROUP BY chain ORDER BY sum(volume_30d) DESC, chain DESC LIMIT 1),
     mine AS (SELECT * FROM wc_sellers WHERE sak = (SELECT sak FROM me))
     SELECT (SELECT label FROM win) AS label,
            (SELECT cw / v FROM win) AS weighted,
            (SELECT v FROM win) AS win_volume,
            (SELECT coalesce(sum(v), 0) FROM votes) AS total,
            (SELECT coalesce(sum(v) FILTER (WHERE label = 'suspected_wash'), 0) FROM votes) AS wash_volume,
            (SELECT round(uniform_amount_pct, 4)::DOUBLE FROM mine WHERE chain = (SELECT chain FROM busiest)) AS uniform_amount,
            (SELECT round(coordinated_start_pct, 4)::DOUBLE FROM mine WHERE chain = (SELECT chain FROM busiest)) AS coordinated_start,
            (SELECT coalesce(bool_or(tier = 'strict'), false) FROM wc_vanity_clusters WHERE sak = (SELECT sak FROM me)) AS vanity_strict,
            (SELECT coalesce(bool_or(tier = 'broad'), false) FROM wc_vanity_clusters WHERE sak = (SELECT sak FROM me)) AS vanity_broad,
            (SELECT to_json(list({'chain': chain, 'flags': ${SELLER_FLAGS_SQL}})) FROM mine)::VARCHAR AS flags,
            (SELECT sak FROM me)::VARCHAR AS sak)`,
};

interface CheckSession {
  /** The snapshot files the tables and statements were made for. */
  files: string;
  statements: Record<Mode, DuckDBPreparedStatement>;
}

const sessions = new WeakMap<DuckDBConnection, CheckSession>();

const list = (xs: readonly string[]) => xs.map(sqlString).join(', ');
const column = (rows: DuckRow[], name: string) => rows.map((r) => String(r[name]));

/** The connection's input tables and prepared statements for this snapshot (made on first use). */
async function session(connection: DuckDBConnection, data: Lookups, now: Date): Promise<CheckSession> {
  const files = [data.byBuyer, data.bySeller, data.funding, data.sellers].map((d) => d.path).join('\n');
  const known = sessions.get(connection);
  if (known?.files === files) return known;
  // the tables take their columns from the files (the seller state's follow the rules)
  await connection.run(`CREATE OR REPLACE TEMP TABLE ${INPUT.address} (address VARCHAR);
    CREATE OR REPLACE TEMP TABLE ${INPUT.payments} AS SELECT buyer, seller_address, chain, amount, time FROM ${parquetSql(data.byBuyer)} LIMIT 0;
    CREATE OR REPLACE TEMP TABLE ${INPUT.funding} AS SELECT * FROM ${parquetSql(data.funding)} LIMIT 0;
    CREATE OR REPLACE TEMP TABLE ${INPUT.sellers} AS SELECT * FROM ${parquetSql(data.sellers)} LIMIT 0;
    CREATE OR REPLACE TEMP TABLE ${STATE} AS SELECT * FROM ${parquetSql(data.sellers)}`);
  const prepare = (mode: Mode) =>
    connection.prepare(
      stepsAsQuery(
        onRequestSteps({
          now,
          payments: INPUT.payments,
          funding: INPUT.funding,
          sellers: INPUT.sellers,
        }),
        RESULT[mode](),
      ),
    );
  const created: CheckSession = { files, statements: { buyer: await prepare('buyer'), seller: await prepare('seller') } };
  sessions.set(connection, created);
  return created;
}

/** What a check found: its payments as buyer and as seller, and the classifier's row when it ran. */
interface Checked {
  asBuyer: number;
  asSeller: number;
  /** The mode's row: buyer when the address paid, seller when it only sold (up to SELLER_ON_REQUEST_MAX payments); else null. */
  row: DuckRow | null;
}

/**
 * Reads the address's rows into the input tables and runs the classifier's steps as one prepared
 * statement (planned once: the plan of ~35 steps costs more than running them on one address's
 * rows): as a buyer when it paid, else as a seller when it was paid at most
 * SELLER_ON_REQUEST_MAX times (every payment of every payer too), else not at all. The lookup
 * tables are partitioned by address: a lookup reads only the parts of its keys' buckets
 * (parquetSql), with literal keys, so DuckDB reads only the row groups whose min/max hold one of
 * them; the address's payments are read once, and counted from what was read.
 */
async function classifyOnRequest(address: string, now: Date, data: Lookups, timings?: CheckTimings): Promise<Checked> {
  return withCheckConnection(async (connection) => {
    const t0 = performance.now();
    const { statements } = await session(connection, data, now);
    // the check's rows live in a transaction that is rolled back: DuckDB never reclaims the
    // storage of rows deleted from an in-memory table, so refilling the tables by DELETE would
    // grow the process by every check's rows until the next snapshot
    await connection.run('BEGIN TRANSACTION');
    try {
      const { asBuyer, asSeller, mode } = await fillInputs(connection, address, data);
      if (!mode) return { asBuyer, asSeller, row: null };
      const t1 = performance.now();
      const row = (await statements[mode].runAndReadAll()).getRowObjectsJson()[0] ?? null;
      if (timings) {
        timings.lookupMs = t1 - t0;
        timings.classifyMs = performance.now() - t1;
      }
      if (!row) throw new Error(`wash check: the classifier returned no row for a ${mode} with payments`);
      return { asBuyer, asSeller, row };
    } finally {
      await connection.run('ROLLBACK');
    }
  });
}

/**
 * Reads the address's rows into the (empty) input tables: its payments as buyer; when it never
 * paid, its payments as seller and every payment of its payers (up to SELLER_ON_REQUEST_MAX; a
 * bigger seller gets no mode); the funding edges; the seller state of its sellers.
 */
async function fillInputs(
  connection: DuckDBConnection,
  address: string,
  data: Lookups,
): Promise<{ asBuyer: number; asSeller: number; mode: Mode | null }> {
  const rows = async (sql: string) => (await connection.runAndReadAll(sql)).getRowObjectsJson();
  const a = sqlString(address);
  const [bought] = await rows(`INSERT INTO ${INPUT.address} VALUES (${a});
      INSERT INTO ${INPUT.payments} SELECT buyer, seller_address, chain, amount, time FROM ${parquetSql(data.byBuyer, [address])} WHERE buyer = ${a};
      SELECT count(*)::INTEGER AS n FROM ${INPUT.payments}`);
  const asBuyer = Number(bought?.n ?? 0);
  let asSeller = 0;
  let mode: Mode = 'buyer';
  if (asBuyer === 0) {
    // never paid: a seller? (its payers, when it is small enough to compute on request)
    const [sold] = await rows(
      `SELECT count(*)::INTEGER AS n, list(DISTINCT buyer) AS payers FROM ${parquetSql(data.bySeller, [address])} WHERE seller_address = ${a}`,
    );
    asSeller = Number(sold?.n ?? 0);
    if (asSeller === 0 || asSeller > SELLER_ON_REQUEST_MAX) return { asBuyer, asSeller, mode: null };
    mode = 'seller';
    const payers = ((sold?.payers as string[] | null) ?? []).map(String);
    await connection.run(
      `INSERT INTO ${INPUT.payments} SELECT buyer, seller_address, chain, amount, time FROM ${parquetSql(data.byBuyer, payers)} WHERE buyer IN (${list(payers)})`,
    );
  }
  const wallets = column(
    await rows(`SELECT buyer AS w FROM ${INPUT.payments} UNION SELECT seller_address FROM ${INPUT.payments} UNION SELECT ${a}`),
    'w',
  );
  // the funding chain climbs fundingMaxHops first funders: every edge into the wallets (their
  // returns too), then into their funders, level by level (each level's funders are only known
  // once the level is read); an exchange ends a chain, so nothing above one is read
  const fetched = new Set(wallets);
  let level = wallets;
  for (let hop = 1; hop <= THRESHOLDS.fundingMaxHops && level.length > 0; hop++) {
    const funders = column(
      await rows(`INSERT INTO ${INPUT.funding} SELECT * FROM ${parquetSql(data.funding, level)} WHERE address IN (${list(level)});
          SELECT DISTINCT funder FROM ${INPUT.funding} WHERE address IN (${list(level)}) AND NOT funder_exchange`),
      'funder',
    );
    level = hop < THRESHOLDS.fundingMaxHops ? funders.filter((f) => !fetched.has(f)) : [];
    for (const f of level) fetched.add(f);
  }
  await connection.run(
    `INSERT INTO ${INPUT.sellers} SELECT * FROM ${STATE} WHERE seller_address IN (SELECT seller_address FROM ${INPUT.payments} UNION SELECT ${a})`,
  );
  return { asBuyer, asSeller, mode };
}

// ------------------------------------------------------------------ buyer view

function buyerBasis(payments: number): string {
  return (
    `label, confidence, signals.vanity and signals.concentration are the wash classifier's rules computed on request over all ${payments} of this wallet's payments ` +
    "(its pairs, timing, bursts, periodicity, funding chain, the pair rules and the roll-up to one label), with each seller's cohort evidence from the batch run's seller state; " +
    'signals.cohort is the cohort summary of its main seller (its heaviest pair); ' +
    'similar_patterns are the cohorts named by the reasons of its heaviest pair and the vanity clusters it belongs to.'
  );
}

/** Pattern types a wallet's reasons point to (docs/wash-methodology.md), with the reason that names each. */
const REASON_PATTERNS: ReadonlyArray<readonly [string, string]> = [
  ['dedicated_cohort', 'farm_cohort'],
  ['funded_loop', 'seller_funded_loop'],
  ['balanced_flow', 'payment_ring'],
  ['funding_window', 'common_funder_cohort'],
  ['single_payer_concentration', 'single_payer_concentration'],
  ['vanity_operator', 'vanity_operator'],
];

function buyerView(address: string, row: DuckRow, salt: string) {
  const reason = (row.reason as string[] | null) ?? [];
  const vanity = { strict: row.vanity_strict === true, broad: row.vanity_broad === true };
  const key = String(row.cohort_key);
  const patterns: Array<{ type: string; key: string }> = [];
  for (const [name, type] of REASON_PATTERNS) if (reason.includes(name)) patterns.push({ type, key });
  if (reason.includes('seller_funded') && !reason.includes('funded_loop')) patterns.push({ type: 'seller_funded_test', key });
  if (vanity.strict) patterns.push({ type: 'vanity_strict_cluster', key: `${key}|${String(row.strict_key)}` });
  if (vanity.broad) patterns.push({ type: 'vanity_broad_cluster', key: `${key}|${String(row.broad_key)}` });
  return {
    address,
    label: String(row.label) as WashLabel,
    confidence: round4(Number(row.confidence)),
    signals: {
      vanity,
      cohort: { uniform_amount: round4(Number(row.uniform_amount ?? 0)), coordinated_start: round4(Number(row.coordinated_start ?? 0)) },
      concentration: { top_service_share: round4(Number(row.top_service_share)) },
    },
    similar_patterns: anonymised(salt, patterns),
  };
}

// ------------------------------------------------------------------ seller view, on request

function sellerOnRequestBasis(payments: number): string {
  return (
    `Seller view: this address was paid ${payments} times and never paid. Its payers' pairs were labelled on request with the wash classifier's rules ` +
    "(every payment of every payer and their funding, the pair rules, with the cohort evidence of the day state: its own cohort's summary, flags and vanity clusters, its payers' other sellers', payment rings): " +
    "label is the volume-weighted majority of its pairs' labels over the last 30 days; confidence is that label's volume-weighted pair confidence times (0.5 + 0.5 x the label's volume share); " +
    'signals.vanity says its cohort holds a strict or broad vanity cluster; signals.cohort is the cohort summary of its busiest chain; ' +
    'signals.concentration.top_service_share is the share of its 30-day volume on suspected_wash pairs; similar_patterns are its seller flags.'
  );
}

function sellerOnRequest(address: string, row: DuckRow, salt: string) {
  const total = Number(row.total ?? 0);
  const quiet = !(total > 0);
  const flags = JSON.parse(String(row.flags ?? '[]')) as Array<{ chain: string; flags: string[] }> | null;
  const patterns = (flags ?? []).flatMap((f) => f.flags.map((type) => ({ type, key: `${String(row.sak)}|${f.chain}` })));
  const label = quiet ? 'unlabeled' : (String(row.label) as WashLabel);
  const share = quiet ? 0 : Number(row.win_volume) / total;
  return {
    quiet,
    view: {
      address,
      label,
      confidence: quiet ? 0 : round4(Number(row.weighted) * (0.5 + 0.5 * share)),
      signals: {
        vanity: { strict: row.vanity_strict === true, broad: row.vanity_broad === true },
        cohort: { uniform_amount: round4(Number(row.uniform_amount ?? 0)), coordinated_start: round4(Number(row.coordinated_start ?? 0)) },
        concentration: { top_service_share: quiet ? 0 : round4(Number(row.wash_volume) / total) },
      },
      similar_patterns: anonymised(salt, patterns),
    },
  };
}

// ------------------------------------------------------------------ seller view

function sellerBasis(services: number, payments: number): string {
  return (
    `Seller view from the batch run: this address sells ${services} indexed service${services === 1 ? '' : 's'}, never paid one, and was paid ${payments} times ` +
    `(more than the ${SELLER_ON_REQUEST_MAX} a check recomputes on request). ` +
    "label is the volume-weighted majority of its buyers' pair labels over the last 30 days; confidence is that label's volume-weighted pair confidence among its top 50 buyers per service times (0.5 + 0.5 x the label's volume share); " +
    "signals.vanity and similar_patterns come from the classifier rules behind its top buyers' pairs; signals.cohort is the cohort summary of its busiest chain; " +
    'signals.concentration.top_service_share is the share of its 30-day volume from suspected_wash pairs.'
  );
}

interface TopPair {
  label: WashLabel;
  confidence: number;
  volume: number;
  signals: Record<string, number>;
}

/**
 * The seller flag (the classifier's seller flag names) a pair's rule implies, recognised by the
 * signals the rule publishes: each of these rules fires only when the seller carries the flag,
 * so a flag shown here is one the seller has (flags without such a pair among its top buyers,
 * and self_pay, seller_funded and launch, are not shown).
 */
function sellerFlagOf(p: TopPair): string | null {
  const has = (k: string) => k in p.signals;
  if (has('cycle_size')) return 'cycle';
  if (has('seller_funded_wallets')) return p.label === 'suspected_wash' ? 'funded_loop' : null;
  if (has('vanity_cluster_size') && has('seller_cohort_size')) return 'vanity_cohort';
  if (has('coordinated_start') && has('uniform_amount')) return 'farm';
  if (has('common_funder_share')) return 'common_funder';
  if (has('seller_top_payer_share')) return 'concentration';
  return null;
}

async function sellerView(address: string, sold: ServiceRecord[], ctx: WashCheckContext) {
  // label votes: 30-day volume per pair label over all its services
  const votes = new Map<WashLabel, number>();
  const chainVolume = new Map<string, number>();
  for (const s of sold) {
    chainVolume.set(s.item.chain, (chainVolume.get(s.item.chain) ?? 0) + s.volume30d);
    for (const [label, share] of Object.entries(s.item.label_distribution) as Array<[WashLabel, number]>) {
      votes.set(label, (votes.get(label) ?? 0) + share * s.volume30d);
    }
  }
  const total = [...votes.values()].reduce((a, b) => a + b, 0);
  // arg_max(label, (volume, label)): ties go to the later label name
  let label: WashLabel = 'unlabeled';
  let best = 0;
  if (total > 0) {
    best = -1;
    for (const [l, v] of votes) if (v > best || (v === best && l > label)) [label, best] = [l, v];
  }

  const pairs = await topPairs(ctx, sold);
  let confidence = 0;
  let vanity = { strict: false, broad: false };
  if (total > 0) {
    const same = pairs.filter((p) => p.pair.label === label);
    const volume = same.reduce((a, p) => a + p.pair.volume, 0);
    const weighted = volume > 0 ? same.reduce((a, p) => a + p.pair.confidence * p.pair.volume, 0) / volume : 0;
    confidence = round4(weighted * (0.5 + 0.5 * (best / total)));
    const C = RULE_CONFIDENCE;
    for (const { pair } of pairs) {
      const flag = sellerFlagOf(pair);
      if (flag === 'vanity_cohort') {
        if (pair.confidence === C.vanity_strict_and_broad || pair.confidence === C.vanity_strict) vanity = { ...vanity, strict: true };
        if (pair.confidence === C.vanity_strict_and_broad || pair.confidence === C.vanity_broad) vanity = { ...vanity, broad: true };
      } else if ('vanity_cluster_size' in pair.signals) vanity = { ...vanity, broad: true }; // a vanity operator's cluster
    }
  }
  // one pattern per flag and chain, keyed by the seller's cohort: hash(seller)|chain
  const sak = await sellerHashKey(sold[0]!.item.seller_address);
  const flags = new Map<string, { type: string; key: string }>();
  for (const { pair, chain } of pairs) {
    const type = sellerFlagOf(pair);
    if (type) flags.set(`${type} ${chain}`, { type, key: `${sak}|${chain}` });
  }
  // the cohort of the chain with the most volume (ties: the later chain name, as arg_max does)
  const busiest = [...chainVolume].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? 1 : -1))[0]?.[0];
  const cohortService = sold.find((s) => s.item.chain === busiest) ?? sold[0]!;
  return {
    address,
    label,
    confidence,
    signals: {
      vanity,
      cohort: await cohortOf(ctx, cohortService.item.id),
      concentration: { top_service_share: total > 0 ? round4((votes.get('suspected_wash') ?? 0) / total) : 0 },
    },
    similar_patterns: anonymised(ctx.patternSalt, [...flags.values()]),
  };
}

/** A seller's cohort summary (every service of a seller on a chain carries the same), as fractions. */
async function cohortOf(ctx: WashCheckContext, serviceId: number): Promise<WashCheckSignals['cohort']> {
  const washDetail = ctx.dataset('wash-detail');
  const [row] = await queryRows('SELECT cohort_summary FROM read_parquet($path) WHERE service_id = $id LIMIT 1', {
    path: washDetail.path,
    id: serviceId,
  });
  if (!row || typeof row.cohort_summary !== 'string') return NO_SIGNALS.cohort;
  const c = JSON.parse(row.cohort_summary) as { uniform_amount_pct?: number; coordinated_start_pct?: number };
  return { uniform_amount: fraction(c.uniform_amount_pct), coordinated_start: fraction(c.coordinated_start_pct) };
}

/** The top buyers' pairs of a seller's services (wash-detail), with the chain of each service. */
async function topPairs(ctx: WashCheckContext, sold: ServiceRecord[]): Promise<Array<{ pair: TopPair; chain: string }>> {
  const washDetail = ctx.dataset('wash-detail');
  const ids = sold.map((s) => s.item.id);
  const chainOf = new Map(sold.map((s) => [s.item.id, s.item.chain]));
  // the file is sorted by service_id: the range lets DuckDB skip row groups, the list picks the rows
  const rows = await queryRows(
    `SELECT service_id, buyers FROM read_parquet($path)
      WHERE service_id BETWEEN $lo AND $hi AND list_contains(from_json($ids, '["INTEGER"]'), service_id)`,
    { path: washDetail.path, lo: Math.min(...ids), hi: Math.max(...ids), ids: JSON.stringify(ids) },
  );
  const out: Array<{ pair: TopPair; chain: string }> = [];
  for (const r of rows) {
    const chain = chainOf.get(Number(r.service_id)) ?? '';
    for (const b of JSON.parse(String(r.buyers)) as TopPair[]) out.push({ pair: b, chain });
  }
  return out;
}

/** The seller key: hash(seller_address) as text (the cohort key before '|chain'). */
async function sellerHashKey(address: string): Promise<string> {
  const [row] = await queryRows('SELECT hash($a)::VARCHAR AS sak', { a: address });
  return String(row!.sak);
}

function anonymised(salt: string, patterns: Array<{ type: string; key: string }>): Array<{ anonymous_id: string; pattern_type: string }> {
  return [...patterns]
    .sort((a, b) => (a.type === b.type ? (a.key < b.key ? -1 : 1) : a.type < b.type ? -1 : 1))
    .map((p) => ({ anonymous_id: anonymousId(salt, p.type, p.key), pattern_type: p.type }));
}

/**
 * The classifier statement's fixed cost (the bench): runs the buyer statement `runs` times over
 * empty input tables on a check connection, as a check would, and returns each run's wall time in
 * ms. What the plan costs to set up and tear down, whatever the address.
 */
export async function timeEmptyClassifierStatement(ctx: WashCheckContext, runs: number): Promise<number[]> {
  const data = lookups(ctx);
  return withCheckConnection(async (connection) => {
    // the input tables are empty outside a check's transaction
    const { statements } = await session(connection, data, new Date(data.byBuyer.entry.as_of));
    const out: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      await statements.buyer.runAndReadAll();
      out.push(performance.now() - t);
    }
    return out;
  });
}
