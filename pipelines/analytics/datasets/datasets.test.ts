/**
 * The analytics prep and dataset steps end to end on a real DuckDB and a real SnapshotWriter:
 * exact numbers on a hand-made world, catalog response schemas and determinism on the demo
 * world. The classifier's tables are stand-ins built here (test fixture only): hand-written for
 * the tiny world, the planted truth (confidence 0.9, no reasons) for the demo world.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyticsDemoContext } from '../../testing/context.ts';
import { ANALYTICS_RESPONSES, OperatorsRow } from '../../../catalog/analytics.ts';
import { CATEGORIES, CATEGORY_SLUGS } from '../../../catalog/categories.ts';
import { CHAIN_COVERAGE } from '../../../catalog/facilitators.ts';
import { datasetsOf } from '../../../catalog/datasets.ts';
import type { SnapshotManifest } from '../../../snapshots/manifest.ts';
import { SnapshotWriter } from '../../../snapshots/writer.ts';
import { x402World } from '../../../sources/demo/analytics/world.ts';
import { DEMO_TRUTH_TABLES, RAW_TABLES } from '../../../sources/raw-tables.ts';
import type { PipelineContext } from '../../runner.ts';
import { openWarehouse } from '../../warehouse.ts';
import { appendRows, queryJson, type Row } from '../../../lib/duckdb.ts';
import { assignCategorySql } from '../categorize.ts';
import { HISTORY_HOURS } from './category-hourly.ts';
import { EVIDENCE_TYPE } from '../../../classifier/evidence.ts';
import { attributedSql } from '../attribution.ts';
import { analyticsDatasetSteps, analyticsPrepSteps, paymentPrepSteps } from './index.ts';
import { SERVICE_LIST_ITEM_COLUMNS } from '../../../catalog/analytics.ts';
import { TRANSACTIONS_PER_SERVICE } from '../../../catalog/datasets.ts';
import { bucketOf } from '../../../snapshots/partitions.ts';
import { changePctSql, POINT_LOOKUP_ROW_GROUP } from './sql.ts';

const R = ANALYTICS_RESPONSES;
const NOW = new Date('2026-11-20T09:00:00Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs);

const dirs: string[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

// ------------------------------------------------------------------ fixture: classifier tables

const LABEL_TABLES_DDL = [
  `CREATE OR REPLACE TABLE pair_labels (buyer VARCHAR, seller_address VARCHAR, chain VARCHAR, label VARCHAR,
     confidence DOUBLE, reasons VARCHAR[], signals MAP(VARCHAR, DOUBLE), tx_count BIGINT, volume DOUBLE,
     tx_count_30d BIGINT, volume_30d DOUBLE, first_time TIMESTAMP, last_time TIMESTAMP, evidence ${EVIDENCE_TYPE} DEFAULT NULL)`,
  `CREATE OR REPLACE TABLE buyer_labels (address VARCHAR, label VARCHAR, confidence DOUBLE, reason VARCHAR[],
     reason_text VARCHAR, signals MAP(VARCHAR, DOUBLE), vanity_strict BOOLEAN, vanity_broad BOOLEAN,
     vanity_cluster_size INTEGER, mean_interval_s DOUBLE, interval_cv DOUBLE, tx_count BIGINT, volume DOUBLE,
     n_sellers INTEGER, top_service_share DOUBLE, first_funder VARCHAR, first_time TIMESTAMP, last_time TIMESTAMP,
     top_seller_address VARCHAR DEFAULT NULL, top_chain VARCHAR DEFAULT NULL, top_cohort_uniform_amount DOUBLE DEFAULT NULL,
     top_cohort_coordinated_start DOUBLE DEFAULT NULL, evidence ${EVIDENCE_TYPE} DEFAULT NULL)`,
  `CREATE OR REPLACE TABLE seller_cohorts (seller_address VARCHAR, chain VARCHAR, cohort_size INTEGER,
     uniform_amount_pct DOUBLE, coordinated_start_pct DOUBLE, uniform_tx_count_cv DOUBLE, flags VARCHAR[])`,
  // the funding inputs every source fills before classification (the wash report reads them)
  `CREATE TABLE IF NOT EXISTS wallet_funding (address VARCHAR, funder VARCHAR, amount DOUBLE, time TIMESTAMP, source VARCHAR)`,
  `CREATE TABLE IF NOT EXISTS exchange_wallets (address VARCHAR, name VARCHAR, source VARCHAR)`,
  // the wash check's lookup inputs classify() also writes; the hand-made labels have no cohort state
  `CREATE OR REPLACE TABLE seller_state (seller_address VARCHAR, chain VARCHAR, uniform_amount_pct DOUBLE, coordinated_start_pct DOUBLE,
     vanity_clusters STRUCT(tier VARCHAR, "key" UBIGINT, size INTEGER, median_tx DOUBLE)[], self_pay_tx BIGINT, seller_tx BIGINT,
     funded_wallets BIGINT, payers BIGINT, funded_loop BOOLEAN, farm BOOLEAN, in_cycle BOOLEAN, concentration BOOLEAN,
     vanity_cohort BOOLEAN, common_funder_cohort BOOLEAN, launch BOOLEAN, operator_id UBIGINT, operator_sellers INTEGER,
     operator_wallets INTEGER, operator_wash BOOLEAN,
     funding_bursts STRUCT(fkey UBIGINT, t_from TIMESTAMP, t_to TIMESTAMP, med DOUBLE, wallets INTEGER)[])`,
  `CREATE OR REPLACE TABLE funding_stops (k UBIGINT, hub VARCHAR, fleet VARCHAR)`,
];

/** The pair_labels columns the fixtures give (no evidence: the hand-made labels rest on none). */
const PAIR_LABEL_FIXTURE_COLUMNS = `(buyer, seller_address, chain, label, confidence, reasons, signals, tx_count, volume, tx_count_30d,
  volume_30d, first_time, last_time)`;

/** The buyer_labels columns the fixtures give (the heaviest pair's seller and cohort are left NULL). */
const BUYER_LABEL_FIXTURE_COLUMNS = `(address, label, confidence, reason, reason_text, signals, vanity_strict, vanity_broad,
  vanity_cluster_size, mean_interval_s, interval_cv, tx_count, volume, n_sellers, top_service_share, first_funder, first_time, last_time)`;

/** The classifier's three tables from the demo world's planted truth (TEST FIXTURE ONLY). */
async function truthLabelTables(c: DuckDBConnection, now: Date): Promise<void> {
  for (const ddl of LABEL_TABLES_DDL) await c.run(ddl);
  const nowSql = `TIMESTAMP '${now.toISOString().replace('T', ' ').replace('Z', '')}'`;
  await c.run(`INSERT INTO pair_labels ${PAIR_LABEL_FIXTURE_COLUMNS}
    WITH tx AS (
      SELECT buyer, seller_address, chain, count(*) AS n, sum(amount) AS volume,
             count(*) FILTER (WHERE time > ${nowSql} - INTERVAL 30 DAY) AS n30,
             coalesce(sum(amount) FILTER (WHERE time > ${nowSql} - INTERVAL 30 DAY), 0) AS v30,
             min(time) AS first_time, max(time) AS last_time
        FROM x402_transactions WHERE time <= ${nowSql} GROUP BY ALL)
    SELECT t.buyer, t.seller_address, t.chain, p.label, 0.9, []::VARCHAR[], MAP {}::MAP(VARCHAR, DOUBLE),
           t.n, t.volume, t.n30, t.v30, t.first_time, t.last_time
      FROM demo_truth_pairs p JOIN tx t ON t.buyer = p.address AND t.seller_address = p.seller_address AND t.chain = p.chain`);
  await c.run(`INSERT INTO buyer_labels ${BUYER_LABEL_FIXTURE_COLUMNS}
    WITH tx AS (
      SELECT buyer, count(*) AS n, sum(amount) AS volume, count(DISTINCT seller_address)::INTEGER AS sellers,
             min(time) AS first_time, max(time) AS last_time
        FROM x402_transactions WHERE time <= ${nowSql} GROUP BY buyer)
    SELECT b.address, b.label, 0.9, []::VARCHAR[], '', MAP {}::MAP(VARCHAR, DOUBLE), false, false, 0, 0, 0,
           coalesce(t.n, 0), coalesce(t.volume, 0), coalesce(t.sellers, 0), 1, NULL, t.first_time, t.last_time
      FROM demo_truth_buyers b LEFT JOIN tx t ON t.buyer = b.address`);
  await c.run(`INSERT INTO seller_cohorts
    SELECT seller_address, chain, count(DISTINCT buyer)::INTEGER, 0, 0, 0, []::VARCHAR[]
      FROM x402_transactions GROUP BY seller_address, chain`);
}

// ------------------------------------------------------------------ running the steps

interface Run {
  manifest: SnapshotManifest;
  dir: string;
}

/** Opens the warehouse in `whDir`, lets `load` fill this run's raw and label tables, runs every step, publishes. */
async function runSteps(whDir: string, snapRoot: string, now: Date, load: (c: DuckDBConnection) => Promise<void>): Promise<Run> {
  const wh = await openWarehouse(whDir, 'analytics');
  try {
    await load(wh.connection);
    const writer = await SnapshotWriter.begin({ root: snapRoot, service: 'analytics', codeVersion: 'test', generatedAt: now });
    const ctx = analyticsDemoContext({ connection: wh.connection, writer, now });
    for (const step of analyticsPrepSteps) await step.run(ctx);
    for (const step of analyticsDatasetSteps) {
      const entry = await step.run(ctx);
      expect(entry.name).toBe(step.dataset);
    }
    const manifest = await writer.publish({ nextExpectedUpdate: new Date(now.getTime() + HOUR) });
    return { manifest, dir: join(snapRoot, 'analytics', manifest.version) };
  } finally {
    wh.close();
  }
}

type Rec = Record<string, unknown>;

function readDocument(run: Run, name: string): Rec {
  return JSON.parse(readFileSync(join(run.dir, `${name}.json`), 'utf8')) as Rec;
}

let reader: DuckDBConnection;
let readerInstance: DuckDBInstance;
beforeAll(async () => {
  readerInstance = await DuckDBInstance.create(':memory:');
  reader = await readerInstance.connect();
});
afterAll(() => {
  reader.closeSync();
  readerInstance.closeSync();
});

/** Rows of a published table as the proxy would see them through DuckDB: JSON columns parsed. */
async function readTable(run: Run, name: string, where = 'true'): Promise<Rec[]> {
  // a partitioned table (ADDRESS_PARTITIONS) is a directory of parts
  const entry = run.manifest.datasets.find((d) => d.name === name);
  const path = entry?.partitions ? join(run.dir, entry.file, '*.parquet') : join(run.dir, `${name}.parquet`);
  const columns = await queryJson(reader, `DESCRIBE SELECT * FROM read_parquet('${path}')`);
  const json = new Set(columns.filter((c) => c.column_type === 'JSON').map((c) => String(c.column_name)));
  const rows = await queryJson(reader, `SELECT * FROM read_parquet('${path}') WHERE ${where}`);
  return rows.map((row) => {
    const out: Rec = {};
    for (const [k, v] of Object.entries(row)) out[k] = json.has(k) && typeof v === 'string' ? (JSON.parse(v) as unknown) : v;
    return out;
  });
}

const stamp = { source: 'demo', as_of: NOW.toISOString() };
/** The paid label answers also say which day state their labels rest on (the start of NOW's UTC day). */
const labelStamp = { ...stamp, cohort_state_as_of: '2026-11-20T00:00:00.000Z' };
const pick = (row: Rec, keys: readonly string[]): Rec => Object.fromEntries(keys.map((k) => [k, row[k]]));
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

// ------------------------------------------------------------------ the hand-made world

const S1 = '0x' + '51'.repeat(20);
const S2 = '0x' + '52'.repeat(20);
const S3 = 'So1ana3SeLLerAddressXXXXXXXXXXXXXXXXXXXXXXX'; // a Solana seller
const S4 = '0x' + '54'.repeat(20);
const S9 = '0x' + '59'.repeat(20); // pays no listing
const B = (n: number) => '0x' + `b${n}`.repeat(20);
const B5 = 'So1anaBuyer5XXXXXXXXXXXXXXXXXXXXXXXXXXXXXX';

const URL = {
  current: 'https://skycast.io/api/weather/current',
  forecast: 'https://skycast.io/api/weather/forecast',
  token: 'https://tokenly.xyz/api/price',
  hello: 'https://example.com/api/test',
  news: 'https://newswire.net/api/news/latest',
};

// Registry ids follow first_seen: 1 news, 2 current weather, 3 hello world, 4 token price, 5 forecast.
const TINY_SERVICES: Row[] = [
  ['base', S4, URL.news, 'Latest headlines', 'Latest headlines by topic and country.', null, 0.005, at(-40 * DAY), 'demo'],
  ['base', S1, URL.current, 'Current weather', 'Current temperature and conditions.', 'weather', 0.01, at(-10 * DAY), 'demo'],
  ['solana', S3, URL.hello, 'hello world', 'test', 'test_dummy', 0.001, at(-3 * DAY), 'demo'],
  ['base', S2, URL.token, 'Token price', 'USD price of any token.', 'token_data', null, at(-30 * HOUR), 'demo'],
  ['base', S1, URL.forecast, 'Weather forecast', '7-day forecast with hourly detail.', null, 0.02, at(-2 * HOUR), 'demo'],
];

const tx = (hash: string, chain: string, buyer: string, seller: string, amount: number, offsetMs: number, url: string | null): Row => [
  hash,
  chain,
  buyer,
  seller,
  amount,
  at(offsetMs),
  url,
  null,
  'demo',
];

function tinyTransactions(shift = 0): Row[] {
  const s = (ms: number) => ms + shift;
  return [
    tx('0xt01', 'base', B(1), S1, 0.01, s(-1 * HOUR), URL.current), // resource_url → 2
    tx('0xt02', 'base', B(1), S1, 0.02, s(-2 * HOUR + 60_000), null), // price 0.02 → 5
    tx('0xt03', 'base', B(2), S1, 0.05, s(-3 * HOUR), null), // no price → seller's first (2)
    tx('0xt04', 'base', B(2), S1, 0.01, s(-25 * HOUR), null), // price 0.01 → 2, previous 24h
    tx('0xt05', 'base', B(3), S2, 0.5, s(-5 * HOUR), URL.token),
    tx('0xt06', 'base', B(3), S2, 0.5, s(-10 * DAY), URL.token),
    tx('0xt07', 'base', B(4), S2, 0.25, s(-40 * DAY), URL.token), // outside 30 days
    tx('0xt08', 'base', B(1), S4, 0.005, s(-2 * DAY), URL.news),
    tx('0xt09', 'solana', B5, S3, 0.001, s(-1 * HOUR), URL.hello),
    tx('0xt10', 'base', B(6), S9, 1, s(-1 * HOUR), null), // unmatched
    tx('0xt11', 'base', B(1), S1, 0.01, s(+1 * HOUR), URL.current), // after now: ignored
    tx('0xt12', 'base', B(7), S1, 0.01, s(-30 * 60_000), URL.current), // pair without a label
    tx('0xt13', 'base', B(8), S4, 0.005, s(-30 * HOUR), URL.news),
    tx('0xt14', 'base', B(1), S1, 0.02, s(-4 * HOUR), 'https://skycast.io/api/unknown'), // unknown URL → price → 5
  ];
}

async function loadTiny(c: DuckDBConnection, transactions: Row[]): Promise<void> {
  await appendRows(c, RAW_TABLES.x402_services, TINY_SERVICES, { create: true });
  await appendRows(c, RAW_TABLES.x402_transactions, transactions, { create: true });
  for (const ddl of LABEL_TABLES_DDL) await c.run(ddl);
  await c.run(`INSERT INTO pair_labels ${PAIR_LABEL_FIXTURE_COLUMNS} VALUES
    ('${B(1)}', '${S1}', 'base', 'organic_user', 0.8, [], MAP {}, 0, 0, 0, 0, NULL, NULL),
    ('${B(2)}', '${S1}', 'base', 'suspected_wash', 0.95, ['uniform_amount', 'coordinated_start'],
       MAP {'uniform_amount': 0.9, 'coordinated_start': 0.8}, 0, 0, 0, 0, NULL, NULL),
    ('${B(3)}', '${S2}', 'base', 'ai_agent', 0.75, [], MAP {}, 0, 0, 0, 0, NULL, NULL),
    ('${B(4)}', '${S2}', 'base', 'developer', 0.8, [], MAP {}, 0, 0, 0, 0, NULL, NULL),
    ('${B(1)}', '${S4}', 'base', 'verifier', 0.9, [], MAP {}, 0, 0, 0, 0, NULL, NULL),
    ('${B5}', '${S3}', 'solana', 'self_test', 1.0, ['self_payment'], MAP {'self_pay': 1.0}, 0, 0, 0, 0, NULL, NULL),
    ('${B(8)}', '${S4}', 'base', 'organic_user', 0.7, [], MAP {}, 0, 0, 0, 0, NULL, NULL)`);
  await c.run(`INSERT INTO buyer_labels ${BUYER_LABEL_FIXTURE_COLUMNS} VALUES
    ('${B(1)}', 'organic_user', 0.8, ['derived_from_pairs'], 'derived_from_pairs:organic_user(75%)', MAP {}, false, false, 0, 3600, 1.5, 5, 0.065, 2, 0.6, NULL, NULL, NULL),
    ('${B(2)}', 'suspected_wash', 0.95, ['uniform_amount', 'coordinated_start'], 'farm', MAP {'uniform_amount': 0.9}, true, true, 12, 60, 0.05, 2, 0.06, 1, 1, NULL, NULL, NULL),
    ('${B(3)}', 'ai_agent', 0.75, [], '', MAP {}, false, false, 0, 'nan'::DOUBLE, 2, 2, 1, 1, 1, NULL, NULL, NULL),
    ('${B(4)}', 'developer', 0.8, [], '', MAP {}, false, false, 0, 0, 0, 1, 0.25, 1, 1, NULL, NULL, NULL),
    ('${B5}', 'self_test', 1.0, ['self_payment'], '', MAP {}, false, false, 0, 0, 0, 1, 0.001, 1, 1, NULL, NULL, NULL),
    ('${B(8)}', 'organic_user', 0.7, [], '', MAP {'b': 0.5, 'a': 'nan'::DOUBLE}, false, false, 0, 0, 0, 1, 0.005, 1, 1, NULL, NULL, NULL)`);
  await c.run(`INSERT INTO seller_cohorts VALUES ('${S1}', 'base', 3, 0.5, 0.25, 0.1, ['uniform_amount'])`);
}

describe('analytics datasets on a hand-made world', () => {
  let run: Run;
  let whDir: string;
  let snapRoot: string;
  beforeAll(async () => {
    whDir = tempDir('tiny-wh-');
    snapRoot = tempDir('tiny-snap-');
    run = await runSteps(whDir, snapRoot, NOW, (c) => loadTiny(c, tinyTransactions()));
  }, 60_000);

  it("attributes each payment by resource URL, then price, then the seller's first listing, then a payee learned for the resource", async () => {
    const wh = await openWarehouse(tempDir('attr-'), 'analytics');
    try {
      // attribution is a TEMP table of the run: rerun the prep steps to look at it
      // the current-weather resource listed a second time with another payTo (a rotating payout), and two
      // payments to that payTo the facilitator did not name the resource of
      const S8 = '0x' + '58'.repeat(20);
      await loadTiny(wh.connection, [
        ...tinyTransactions(),
        tx('0xt15', 'base', B(1), S8, 0.01, -90 * 60_000, null),
        tx('0xt16', 'base', B(2), S8, 0.07, -95 * 60_000, null),
      ]);
      await appendRows(wh.connection, RAW_TABLES.x402_services, [
        ['base', S8, URL.current, 'Current weather', 'Current temperature and conditions.', 'weather', 0.01, at(-5 * DAY), 'demo'],
      ]);
      const ctx = { now: NOW, connection: wh.connection, log: () => {} } as unknown as PipelineContext;
      for (const step of paymentPrepSteps) await step.run(ctx);
      // tx_attributed keeps numbers only: attribute again with the hashes to look at it
      const rows = await queryJson(
        wh.connection,
        `SELECT tx_hash, service_id, attribution_source
           FROM (${attributedSql(`x402_transactions WHERE time <= TIMESTAMP '2026-11-20 09:00:00'`, ['tx_hash'])})
          ORDER BY tx_hash`,
      );
      const [attributed] = await queryJson(wh.connection, 'SELECT count(*)::INTEGER AS n FROM tx_attributed');
      expect(attributed!.n).toBe(rows.length);
      expect(rows.map((r) => [r.tx_hash, r.service_id, r.attribution_source])).toEqual([
        ['0xt01', 2, 'resource_url'],
        ['0xt02', 5, 'price_match'],
        ['0xt03', 2, 'seller_first_service'],
        ['0xt04', 2, 'price_match'],
        ['0xt05', 4, 'resource_url'],
        ['0xt06', 4, 'resource_url'],
        ['0xt07', 4, 'resource_url'],
        ['0xt08', 1, 'resource_url'],
        ['0xt09', 3, 'resource_url'],
        ['0xt10', null, 'unmatched'],
        ['0xt12', 2, 'resource_url'],
        ['0xt13', 1, 'resource_url'],
        ['0xt14', 5, 'price_match'],
        ['0xt15', 2, 'learned_payee'],
        ['0xt16', 2, 'learned_payee'],
      ]);
      // still one service per resource: the second listing split nothing
      const [services] = await queryJson(wh.connection, 'SELECT count(*)::INTEGER AS n FROM service_catalog');
      expect(services!.n).toBe(TINY_SERVICES.length);
    } finally {
      wh.close();
    }
  });

  it('lists every service with exact 24-hour, all-time and 30-day label figures', async () => {
    const rows = await readTable(run, 'services');
    expect(rows.map((r) => r.id)).toEqual([1, 2, 3, 4, 5]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    const s2 = byId.get(2)!;
    expect(pick(s2, ['tx_24h', 'volume_24h', 'tx_total', 'real_volume_pct', 'wash_pct', 'tx_prev_24h', 'active'])).toEqual({
      tx_24h: 3,
      volume_24h: 0.07,
      tx_total: 4,
      real_volume_pct: 12.5,
      wash_pct: 75,
      tx_prev_24h: 1,
      active: true,
    });
    expect(s2.label_distribution).toEqual({ organic_user: 0.125, suspected_wash: 0.75, unlabeled: 0.125 });
    expect(pick(byId.get(5)!, ['tx_24h', 'volume_24h', 'real_volume_pct', 'category', 'category_source'])).toEqual({
      tx_24h: 2,
      volume_24h: 0.04,
      real_volume_pct: 100,
      category: 'weather',
      category_source: 'assigned',
    });
    expect(
      pick(byId.get(4)!, ['tx_24h', 'volume_24h', 'tx_total', 'volume_total', 'price_amount', 'price_bucket', 'label_distribution']),
    ).toEqual({
      tx_24h: 1,
      volume_24h: 0.5,
      tx_total: 3,
      volume_total: 1.25,
      price_amount: null,
      price_bucket: 'unknown',
      label_distribution: { ai_agent: 1 },
    });
    expect(
      pick(byId.get(1)!, ['tx_24h', 'tx_total', 'real_volume_pct', 'wash_pct', 'category', 'category_source', 'active', 'last_tx_at']),
    ).toEqual({
      tx_24h: 0,
      tx_total: 2,
      real_volume_pct: 50,
      wash_pct: 0,
      category: 'news',
      category_source: 'assigned',
      active: false,
      last_tx_at: '2026-11-19T03:00:00+00:00',
    });
    expect(byId.get(1)!.label_distribution).toEqual({ organic_user: 0.5, verifier: 0.5 });
    expect(rows.filter((r) => r.is_placeholder).map((r) => r.id)).toEqual([3]);
    expect(byId.get(2)!.first_seen).toBe('2026-11-10T09:00:00+00:00');
    expect(byId.get(2)!.price_bucket).toBe('0.01_0.1');
    expect(byId.get(3)!.price_bucket).toBe('0.001_0.01');
    expect(byId.get(5)!.search_text).toContain('weather forecast');
    for (const row of rows) {
      ANALYTICS_RESPONSES.ServiceListItem.parse(pick(row, SERVICE_LIST_ITEM_COLUMNS));
      const fractions = Object.values(row.label_distribution as Record<string, number>);
      if (fractions.length > 0) expect(sum(fractions)).toBeCloseTo(1, 5);
    }
  });

  it('gives the service detail its 30-day series and top buyers with their pair labels', async () => {
    const [row] = await readTable(run, 'service-detail', 'id = 2');
    const body = R.ServiceDetailBody.parse({
      ...stamp,
      service: row!.service,
      daily_series: row!.daily_series,
      top_buyers: row!.top_buyers,
    });
    expect(body.service.unique_buyers_30d).toBe(3);
    expect(body.service.last_tx_at).toBe('2026-11-20T08:30:00+00:00');
    expect(body.daily_series[0]!.date).toBe('2026-10-22');
    expect(body.daily_series.at(-1)).toEqual({ date: '2026-11-20', tx_count: 3, volume: 0.07, unique_buyers: 3, real_volume_pct: 14.29 });
    expect(body.daily_series.at(-2)).toEqual({ date: '2026-11-19', tx_count: 1, volume: 0.01, unique_buyers: 1, real_volume_pct: 0 });
    expect(body.top_buyers[0]).toEqual({ address: B(2), label: 'suspected_wash', tx_count: 2, volume: 0.06, share_pct: 75 });
    expect(
      body.top_buyers
        .slice(1)
        .map((b) => b.address)
        .sort(),
    ).toEqual([B(1), B(7)].sort());
    // the label wash-detail sells for the same pair; free, without confidence or signals
    expect(body.top_buyers.find((b) => b.address === B(1))?.label).toBe('organic_user');
    expect(body.top_buyers.find((b) => b.address === B(7))?.label).toBe('unlabeled');
    for (const buyer of body.top_buyers) expect(Object.keys(buyer).sort()).toEqual(['address', 'label', 'share_pct', 'tx_count', 'volume']);
  });

  it('builds the trends with zero-filled days and the change rules', () => {
    const doc = R.TrendsBody.parse(readDocument(run, 'trends'));
    expect(doc.summary).toEqual({
      new_services_24h: 1,
      new_services_prev_24h: 1,
      new_services_change_pct: 0,
      total_tx_24h: 7,
      total_volume_24h: 0.611,
      active_buyers_24h: 5,
    });
    expect(doc.daily_new_services).toHaveLength(15);
    expect(doc.daily_new_services[0]!.date).toBe('2026-11-06');
    expect(doc.daily_new_services.filter((d) => d.count > 0)).toEqual([
      { date: '2026-11-10', count: 1 },
      { date: '2026-11-17', count: 1 },
      { date: '2026-11-19', count: 1 },
      { date: '2026-11-20', count: 1 },
    ]);
    expect(doc.recent_new_services.map((s) => s.id)).toEqual([5, 4, 2, 1]);
    // growth from zero has no percentage: null and new, ranked before every change in percent
    expect(doc.category_movers.map((m) => [m.category, m.volume_24h, m.volume_prev, m.volume_change_pct, m.tx_change_pct, m.new])).toEqual([
      ['token_data', 0.5, 0, null, null, true],
      ['test_dummy', 0.001, 0, null, null, true],
      ['weather', 0.11, 0.01, 1000, 400, false],
      ['news', 0, 0.005, -100, -100, false],
    ]);
    expect(doc.hot_services.map((h) => [h.id, h.tx_24h, h.tx_prev, h.tx_change_pct, h.new])).toEqual([
      [2, 3, 1, 200, false],
      [5, 2, 0, null, true],
      [4, 1, 0, null, true],
    ]);
  });

  it('computes a change of 0 when both windows are 0 and 100 when only the previous one is', async () => {
    const rows = await queryJson(
      reader,
      `SELECT ${changePctSql('0', '0')} AS a, ${changePctSql('3', '0')} AS b, ${changePctSql('1', '4')} AS c`,
    );
    expect(rows[0]).toEqual({ a: 0, b: 100, c: -75 });
  });

  it('publishes the landing statistics', () => {
    const doc = R.LandingStatsBody.parse(readDocument(run, 'landing-stats'));
    const s = doc.stats;
    expect(pick(s, ['services_indexed', 'transactions_analyzed', 'active_buyers', 'real_volume_pct', 'last_updated'])).toEqual({
      services_indexed: 5,
      transactions_analyzed: 12,
      active_buyers: 6,
      real_volume_pct: 93.28,
      last_updated: NOW.toISOString(),
    });
    expect(s.label_distribution.map((l) => [l.label, l.buyers, l.tx_pct])).toEqual([
      ['ai_agent', 1, 18.18],
      ['suspected_wash', 1, 18.18],
      ['organic_user', 2, 36.36],
      ['unlabeled', 1, 9.09],
      ['verifier', 0, 9.09],
      ['self_test', 1, 9.09],
    ]);
    expect(sum(s.label_distribution.map((l) => l.volume_pct))).toBeCloseTo(100, 1);
    expect(s.daily_new_services).toHaveLength(30);
    expect(s.category_volume_series.filter((r) => r.date === '2026-11-20')).toEqual([
      { date: '2026-11-20', category: 'test_dummy', volume: 0.001, tx_count: 1 },
      { date: '2026-11-20', category: 'token_data', volume: 0.5, tx_count: 1 },
      { date: '2026-11-20', category: 'weather', volume: 0.11, tx_count: 5 },
    ]);
  });

  it('lists all 33 categories, empty ones included, and details each slug', async () => {
    const doc = R.CategoriesBody.parse(readDocument(run, 'categories'));
    expect(doc.total_categories).toBe(33);
    expect(doc.categories.map((c) => c.slug).sort()).toEqual([...CATEGORY_SLUGS].sort());
    expect(doc.categories.slice(0, 2).map((c) => c.slug)).toEqual(['token_data', 'weather']);
    const weather = doc.categories.find((c) => c.slug === 'weather')!;
    expect(weather).toMatchObject({
      services_count: 2,
      active_services_24h: 2,
      tx_24h: 5,
      volume_24h: 0.11,
      tx_total: 6,
      median_price: 0.015,
    });
    expect(pick(weather, ['real_volume_pct', 'wash_pct'])).toEqual({ real_volume_pct: 41.67, wash_pct: 50 }); // of 0.12 USDC: 0.05 organic, 0.06 wash
    const rows = await readTable(run, 'category-detail');
    expect(rows.map((r) => r.slug)).toEqual([...CATEGORY_SLUGS].sort());
    for (const row of rows) {
      R.CategoryDetailBody.parse({ ...stamp, category: row.category, daily_series: row.daily_series, top_services: row.top_services });
    }
    const w = rows.find((r) => r.slug === 'weather')!;
    expect((w.top_services as Rec[]).map((s) => s.id)).toEqual([2, 5]);
    const today = (w.daily_series as Rec[]).at(-1);
    expect(today).toEqual({ date: '2026-11-20', tx_count: 5, volume: 0.11, real_volume_pct: 45.45, active_services: 2, new_services: 1 });
    const dummy = rows.find((r) => r.slug === 'test_dummy')!;
    expect((dummy.top_services as Rec[]).map((s) => s.id)).toEqual([3]);
  });

  it('reports wash patterns without addresses', () => {
    const doc = R.WashReportBody.parse(readDocument(run, 'wash-report'));
    expect(doc.summary).toEqual({
      buyers_classified: 5,
      suspected_wash_buyers: 1,
      services_affected: 1,
      volume_30d: 1.131,
      wash_volume_pct: 5.31,
      real_volume_pct: 93.28,
      real_volume_30d: 1.055,
      wash_volume_30d: 0.06,
    });
    const raw = readDocument(run, 'wash-report');
    expect(raw.summary).toMatchObject({ real_volume_30d: 1.055, wash_volume_30d: 0.06 });
    // patterns are measured on the classifier's tables, not read from the rule's reasons: the one
    // wash wallet is a vanity-cluster member; one wallet makes no shared amount, start or funder
    expect(doc.patterns.map((p) => [p.pattern_type, p.wallets, p.services_affected, p.volume])).toEqual([['vanity_cluster', 1, 1, 0.06]]);
    expect(doc.case_studies).toHaveLength(1);
    expect(doc.case_studies[0]).toMatchObject({
      case_id: 'case-01',
      category: 'weather',
      wallets: 1,
      tx_count: 2,
      volume: 0.06,
      pattern_type: 'vanity_cluster',
    });
    expect(doc.case_studies[0]!.summary).toMatch(
      /^One wallet labelled suspected_wash paid one Weather seller 2 times for 0.06 USDC in 30 days, 50% of that seller's volume\./,
    );
    const daily = raw.daily_wash_share as Rec[];
    expect(daily).toHaveLength(14);
    expect(daily.at(-2)).toEqual({ date: '2026-11-19', volume: 0.015, wash_volume: 0.01, wash_pct: 66.67, real_volume_pct: 33.33 });
    expect(doc.by_category[0]).toEqual({ category: 'weather', volume_30d: 0.12, wash_pct: 50, real_volume_pct: 41.67 });
    const text = JSON.stringify(raw);
    for (const address of [S1, S2, S3, S4, B(1), B(2), B5]) expect(text).not.toContain(address);
  });

  it("sells the top buyers with labels, signals and the seller's cohort", async () => {
    const [row] = await readTable(run, 'wash-detail', 'service_id = 2');
    const body = R.WashDetailBody.parse({
      ...labelStamp,
      service_id: row!.service_id,
      buyers: row!.buyers,
      cohort_summary: row!.cohort_summary,
      operator: null, // the proxy adds it from the operators dataset
    });
    expect(body.buyers[0]).toEqual({
      address: B(2),
      label: 'suspected_wash',
      confidence: 0.95,
      signals: { coordinated_start: 0.8, uniform_amount: 0.9 },
      // a hand-made label without evidence reads as none
      evidence: [],
      tx_count: 2,
      volume: 0.06,
      first_tx_at: '2026-11-19T08:00:00+00:00',
      last_tx_at: '2026-11-20T06:00:00+00:00',
    });
    expect(body.buyers.find((b) => b.address === B(7))).toMatchObject({ label: 'unlabeled', confidence: 0, signals: {} });
    expect(body.cohort_summary).toEqual({ uniform_amount_pct: 50, coordinated_start_pct: 25, uniform_tx_count_cv: 0.1, cohort_size: 3 });
    const [quiet] = await readTable(run, 'wash-detail', 'service_id = 4');
    expect(quiet!.cohort_summary).toEqual({ uniform_amount_pct: 0, coordinated_start_pct: 0, uniform_tx_count_cv: 0, cohort_size: 0 });
  });

  it('profiles buyers and keeps every number finite', async () => {
    const rows = await readTable(run, 'buyer-profiles');
    // partitioned by address: the parts in bucket order (as many buckets as the manifest says), each sorted by address
    const { buckets } = run.manifest.datasets.find((d) => d.name === 'buyer-profiles')!.partitions!;
    const order = (a: string, b: string) => bucketOf(a, buckets) - bucketOf(b, buckets) || (a < b ? -1 : 1);
    expect(rows.map((r) => r.address)).toEqual([B(1), B(2), B(3), B(4), B(8), B5].sort(order));
    for (const row of rows) {
      R.BuyerProfileBody.parse({
        ...labelStamp,
        ...pick(row, ['address', 'label', 'confidence', 'reason', 'evidence', 'services_used', 'vanity_cluster', 'time_pattern']),
        operator: null, // the proxy adds it from the operators dataset
      });
    }
    const b1 = rows.find((r) => r.address === B(1))!;
    expect(b1.services_used).toEqual([
      { id: 5, category: 'weather', tx_count: 2 },
      { id: 1, category: 'news', tx_count: 1 },
      { id: 2, category: 'weather', tx_count: 1 },
    ]);
    expect(b1.vanity_cluster).toBeNull();
    expect(rows.find((r) => r.address === B(2))!.vanity_cluster).toEqual({ strict: true, broad: true, size: 12 });
    expect(rows.find((r) => r.address === B(3))!.time_pattern).toEqual({ mean_interval_s: 0, cv: 2 });
    const buyers = await readTable(run, 'buyers');
    expect(buyers).toHaveLength(6);
    expect(buyers.find((r) => r.address === B(8))!.signals).toEqual({ b: 0.5 });
    for (const key of ['address', 'label', 'confidence', 'reason', 'tx_count', 'volume', 'n_sellers', 'first_time', 'last_time']) {
      expect(buyers[0]).toHaveProperty(key);
    }
  });

  it('sells 30 days of payments per service, newest first', async () => {
    const rows = await readTable(run, 'transactions');
    expect(rows).toHaveLength(11);
    const two = rows.filter((r) => r.service_id === 2);
    const body = R.TransactionsBody.parse({
      ...stamp,
      service_id: 2,
      total: two.length,
      transactions: two.map((r) => pick(r, ['tx_hash', 'chain', 'buyer', 'amount', 'time'])),
    });
    expect(body.transactions.map((t) => t.tx_hash)).toEqual(['0xt12', '0xt01', '0xt03', '0xt04']);
    expect(body.transactions[0]!.time).toBe('2026-11-20T08:30:00+00:00');
    expect(two.map((r) => r.total)).toEqual([4, 4, 4, 4]);
    expect(rows.map((r) => r.service_id)).toEqual([...rows.map((r) => Number(r.service_id))].sort((a, b) => a - b));
  });

  it('keeps the newest 3000 payments of a busy service and counts the whole window', async () => {
    // service 2 (current weather): its 4 tiny payments plus 3003 more, a minute apart; the first
    // two share a second, and the later of them has the larger hash (the instant decides, not the text)
    const offset = (i: number) => (i === 0 ? -120_000 : i === 1 ? -119_600 : -(i + 1) * 60_000);
    const busy = Array.from({ length: TRANSACTIONS_PER_SERVICE + 3 }, (_, i) =>
      tx(`0xbusy${String(i).padStart(5, '0')}`, 'base', B(9), S1, 0.01, offset(i), URL.current),
    );
    const busyRun = await runSteps(tempDir('busy-wh-'), tempDir('busy-snap-'), NOW, (c) => loadTiny(c, [...tinyTransactions(), ...busy]));
    const all = await readTable(busyRun, 'transactions');
    const rows = all.filter((r) => r.service_id === 2);
    const window = TRANSACTIONS_PER_SERVICE + 3 + 4;
    expect(rows).toHaveLength(TRANSACTIONS_PER_SERVICE);
    expect(new Set(rows.map((r) => r.total))).toEqual(new Set([window]));
    const [service] = (await readTable(busyRun, 'services')).filter((r) => r.id === 2);
    expect(service!.tx_30d).toBe(window);
    const hashes = rows.map((r) => String(r.tx_hash));
    expect(hashes.slice(0, 3)).toEqual(['0xbusy00001', '0xbusy00000', '0xbusy00002']);
    expect(hashes).toEqual(expect.arrayContaining(['0xt12', '0xt01', '0xt03', '0xt04']));
    // the 7 oldest go
    expect(hashes.at(-1)).toBe('0xbusy02995');
    expect(hashes).not.toContain('0xbusy02996');
    // the other services keep all their payments
    expect(all.filter((r) => r.service_id !== 2)).toHaveLength(7);
  }, 60_000);

  it('serves 8760 zero-filled hours per category and keeps the hourly history across runs', async () => {
    const history = await readTable(run, 'full-history', "category = 'weather'");
    expect(history).toHaveLength(HISTORY_HOURS);
    const body = R.FullHistoryBody.parse({
      ...stamp,
      category: 'weather',
      points: history.map((r) => pick(r, ['time', 'services_count', 'volume', 'tx_count', 'real_volume_pct'])),
    });
    expect(body.points[0]!.time).toBe('2025-11-20T10:00:00+00:00');
    expect(body.points.at(-1)).toEqual({
      time: '2026-11-20T09:00:00+00:00',
      services_count: 0,
      volume: 0,
      tx_count: 0,
      real_volume_pct: 0,
    });
    expect(body.points.at(-2)).toEqual({
      time: '2026-11-20T08:00:00+00:00',
      services_count: 1,
      volume: 0.02,
      tx_count: 2,
      real_volume_pct: 50,
    });
    const perCategory = await queryJson(
      reader,
      `SELECT count(*)::INTEGER AS n, count(DISTINCT category)::INTEGER AS c FROM read_parquet('${join(run.dir, 'full-history.parquet')}')`,
    );
    expect(perCategory[0]).toEqual({ n: HISTORY_HOURS * CATEGORIES.length, c: CATEGORIES.length });

    // Two days later the source brings only the payments of the new day: older hours stay.
    const later = new Date(NOW.getTime() + 2 * DAY);
    const run2 = await runSteps(whDir, snapRoot, later, (c) =>
      loadTiny(c, [tx('0xn01', 'base', B(1), S1, 0.01, 2 * DAY - HOUR, URL.current)]),
    );
    const weather2 = await readTable(run2, 'full-history', "category = 'weather'");
    const byTime = new Map(weather2.map((r) => [r.time, r]));
    expect(byTime.get('2026-11-20T08:00:00+00:00')).toMatchObject({ tx_count: 2, volume: 0.02 });
    expect(byTime.get('2026-11-22T08:00:00+00:00')).toMatchObject({ tx_count: 1, volume: 0.01, services_count: 1 });
    const ids = (await readTable(run2, 'services')).map((r) => r.id);
    expect(ids).toEqual([1, 2, 3, 4, 5]); // stable ids

    // A year and more later everything older than 365 days is trimmed from the warehouse.
    const muchLater = new Date(NOW.getTime() + 370 * DAY);
    await runSteps(whDir, snapRoot, muchLater, (c) => loadTiny(c, [tx('0xn02', 'base', B(1), S1, 0.01, 370 * DAY - HOUR, URL.current)]));
    const wh = await openWarehouse(whDir, 'analytics');
    try {
      const [kept] = await queryJson(wh.connection, `SELECT min(hour)::VARCHAR AS oldest, count(*)::INTEGER AS n FROM category_hourly`);
      expect(kept).toEqual({ oldest: '2027-11-25 08:00:00', n: 1 });
    } finally {
      wh.close();
    }
  }, 60_000);
});

// ------------------------------------------------------------------ the demo world

async function loadDemo(c: DuckDBConnection): Promise<void> {
  const world = x402World({ seed: 42, now: NOW, scale: 1 });
  await appendRows(c, RAW_TABLES.x402_services, world.services, { create: true });
  await appendRows(c, RAW_TABLES.x402_transactions, world.transactions, { create: true });
  await appendRows(c, DEMO_TRUTH_TABLES.demo_truth_buyers, world.truthBuyers, { create: true });
  await appendRows(c, DEMO_TRUTH_TABLES.demo_truth_pairs, world.truthPairs, { create: true });
  await truthLabelTables(c, NOW);
}

describe('analytics datasets on the demo world', () => {
  let run: Run;
  let whDir: string;
  beforeAll(async () => {
    whDir = tempDir('demo-wh-');
    run = await runSteps(whDir, tempDir('demo-snap-'), NOW, loadDemo);
  }, 120_000);

  it('writes every analytics dataset of the catalog, each with its source and time', () => {
    const names = run.manifest.datasets.map((d) => d.name).sort();
    expect(names).toEqual(
      datasetsOf('analytics')
        .map((d) => d.name)
        .sort(),
    );
    for (const d of run.manifest.datasets) {
      expect(d.source).toBe('demo');
      expect(d.as_of).toBe(NOW.toISOString());
      if (d.kind === 'document') expect(readDocument(run, d.name)).toMatchObject(stamp);
    }
  });

  it('parses with the catalog response schemas', async () => {
    R.LandingStatsBody.parse(readDocument(run, 'landing-stats'));
    R.CategoriesBody.parse(readDocument(run, 'categories'));
    R.TrendsBody.parse(readDocument(run, 'trends'));
    R.WashReportBody.parse(readDocument(run, 'wash-report'));
    const services = await readTable(run, 'services');
    const visible = services.filter((s) => !s.is_placeholder);
    const page = [...visible].sort((a, b) => Number(b.tx_24h) - Number(a.tx_24h) || Number(a.id) - Number(b.id)).slice(0, 50);
    R.ServicesListBody.parse({
      ...stamp,
      services: page.map((s) => pick(s, SERVICE_LIST_ITEM_COLUMNS)),
      pagination: { page: 1, page_size: 50, total: visible.length, total_pages: Math.ceil(visible.length / 50) },
      summary: { total_volume_24h: sum(visible.map((s) => Number(s.volume_24h))), total_tx_24h: sum(visible.map((s) => Number(s.tx_24h))) },
      filters_applied: {
        search: null,
        category: null,
        chain: null,
        price_bucket: null,
        min_real_pct: null,
        max_wash_pct: null,
        active_only: false,
        min_grade: null,
        live_only: false,
        show_placeholder: false,
        sort: 'tx_24h',
        order: 'desc',
        page: 1,
        page_size: 50,
      },
      chain_coverage: [...CHAIN_COVERAGE],
    });
    for (const row of await readTable(run, 'service-detail')) {
      R.ServiceDetailBody.parse({ ...stamp, service: row.service, daily_series: row.daily_series, top_buyers: row.top_buyers });
    }
    for (const row of await readTable(run, 'category-detail')) {
      R.CategoryDetailBody.parse({ ...stamp, category: row.category, daily_series: row.daily_series, top_services: row.top_services });
    }
    for (const row of await readTable(run, 'wash-detail')) {
      R.WashDetailBody.parse({
        ...labelStamp,
        service_id: row.service_id,
        buyers: row.buyers,
        cohort_summary: row.cohort_summary,
        operator: null,
      });
    }
    for (const row of await readTable(run, 'buyer-profiles')) {
      R.BuyerProfileBody.parse({
        ...labelStamp,
        ...pick(row, ['address', 'label', 'confidence', 'reason', 'evidence', 'services_used', 'vanity_cluster', 'time_pattern']),
        operator: null, // the proxy adds it from the operators dataset
      });
    }
    const tx = await readTable(run, 'transactions');
    const busiest = Number(services.reduce((a, b) => (Number(b.tx_30d) > Number(a.tx_30d) ? b : a)).id);
    const mine = tx.filter((t) => t.service_id === busiest);
    const window = Number(services.find((s) => s.id === busiest)!.tx_30d);
    expect(mine.length).toBe(Math.min(window, TRANSACTIONS_PER_SERVICE));
    expect(new Set(mine.map((t) => t.total))).toEqual(new Set([window]));
    R.TransactionsBody.parse({
      ...stamp,
      service_id: busiest,
      total: window,
      transactions: mine.map((t) => pick(t, ['tx_hash', 'chain', 'buyer', 'amount', 'time'])),
    });
    const history = await readTable(run, 'full-history', "category = 'ai_inference'");
    R.FullHistoryBody.parse({
      ...stamp,
      category: 'ai_inference',
      points: history.map((r) => pick(r, ['time', 'services_count', 'volume', 'tx_count', 'real_volume_pct'])),
    });
    expect(history).toHaveLength(HISTORY_HOURS);
  }, 60_000);

  it('agrees with itself: 24-hour totals, label fractions, per-category sums', async () => {
    const services = await readTable(run, 'services');
    const trends = readDocument(run, 'trends') as { summary: { total_tx_24h: number; total_volume_24h: number } };
    expect(sum(services.map((s) => Number(s.tx_24h)))).toBe(trends.summary.total_tx_24h);
    expect(sum(services.map((s) => Number(s.volume_24h)))).toBeCloseTo(trends.summary.total_volume_24h, 4);
    for (const s of services) {
      const fractions = Object.values(s.label_distribution as Record<string, number>);
      if (Number(s.tx_30d) > 0 && Number(s.volume_30d) > 0) expect(sum(fractions)).toBeCloseTo(1, 4);
      expect(Number(s.real_volume_pct) + Number(s.wash_pct)).toBeLessThanOrEqual(100.01);
    }
    const categories = readDocument(run, 'categories') as { categories: { slug: string; tx_total: number }[] };
    const landing = readDocument(run, 'landing-stats') as { stats: { transactions_analyzed: number } };
    expect(sum(categories.categories.map((c) => c.tx_total))).toBe(landing.stats.transactions_analyzed);
  });

  it('flags placeholder listings and hides no ordinary service', async () => {
    const services = await readTable(run, 'services');
    const dummy = services.filter((s) => s.category === 'test_dummy');
    expect(dummy.length).toBeGreaterThan(10);
    expect(dummy.every((s) => s.is_placeholder)).toBe(true);
    const flaggedOthers = services.filter((s) => s.is_placeholder && s.category !== 'test_dummy');
    expect(flaggedOthers.length / services.length).toBeLessThan(0.01);
  });

  it('assigns one of the 33 categories to listings without one, matching listed ones 90% of the time', async () => {
    const services = await readTable(run, 'services');
    const assigned = services.filter((s) => s.category_source === 'assigned');
    expect(assigned.length).toBeGreaterThan(10);
    for (const s of assigned) expect(CATEGORY_SLUGS).toContain(s.category);
    const wh = await openWarehouse(whDir, 'analytics');
    try {
      const [score] = await queryJson(
        wh.connection,
        `WITH a AS (${assignCategorySql("(SELECT * FROM service_catalog WHERE category_source = 'listed' AND category <> 'test_dummy')")})
         SELECT count(*)::INTEGER AS n, count(*) FILTER (WHERE a.category = s.category)::INTEGER AS ok
           FROM a JOIN service_catalog s USING (id)`,
      );
      expect(Number(score!.ok) / Number(score!.n)).toBeGreaterThan(0.9);
    } finally {
      wh.close();
    }
  });

  it('writes the tables the proxy reads by key in their point-lookup row groups, the others in the default ones', async () => {
    const tables = run.manifest.datasets.filter((d) => d.kind === 'table');
    for (const name of Object.keys(POINT_LOOKUP_ROW_GROUP)) expect(tables.map((d) => d.name)).toContain(name);
    const sizes: Partial<Record<string, number>> = POINT_LOOKUP_ROW_GROUP;
    // DuckDB fills row groups in whole vectors of 2048 rows
    const vectors = (rows: number) => Math.ceil(rows / 2048) * 2048;
    for (const d of tables) {
      const [groups] = await queryJson(
        reader,
        `SELECT max(row_group_num_rows)::INTEGER AS largest FROM parquet_metadata('${join(run.dir, d.file, d.partitions ? '*.parquet' : '')}')`,
      );
      const size = sizes[d.name] ?? 122_880;
      if (d.partitions) {
        // a part is copied from a filtered scan, whose chunks are not whole vectors: a group
        // closes at the first chunk that reaches the size
        const largestPart = Math.max(...d.partitions.parts.map((p) => p.rows));
        expect(groups!.largest ?? 0, d.name).toBeGreaterThanOrEqual(Math.min(largestPart, size));
        expect(groups!.largest ?? 0, d.name).toBeLessThan(size + 2048);
      } else expect(groups!.largest ?? 0, d.name).toBe(Math.min(d.rows, vectors(size)));
    }
  });

  it('publishes the operators table with its declared columns (empty here: the truth fixture has no seller state)', async () => {
    expect(await readTable(run, 'operators')).toEqual([]);
    const columns = await queryJson(reader, `DESCRIBE SELECT * FROM read_parquet('${join(run.dir, 'operators.parquet')}')`);
    expect(columns.map((c) => String(c.column_name))).toEqual(Object.keys(OperatorsRow.shape));
  });

  it('publishes no ground truth', () => {
    for (const d of run.manifest.datasets) {
      const columns = d.schema.map((c) => c.name);
      for (const truth of ['pattern', 'difficulty', 'group_id', 'truth_label']) expect(columns).not.toContain(truth);
      expect(d.name).not.toMatch(/truth/);
      if (d.kind === 'document')
        expect(readFileSync(join(run.dir, d.file), 'utf8')).not.toMatch(/"(difficulty|group_id|sybil_cohort|funded_loop)"/);
    }
  });

  it('gives byte-identical files for the same input', async () => {
    const again = await runSteps(tempDir('demo-wh2-'), tempDir('demo-snap2-'), NOW, loadDemo);
    const digest = (m: SnapshotManifest) => m.datasets.map((d) => [d.name, d.sha256]);
    expect(digest(again.manifest)).toEqual(digest(run.manifest));
    const file = (r: Run, name: string) =>
      createHash('sha256')
        .update(readFileSync(join(r.dir, name)))
        .digest('hex');
    expect(file(again, 'services.parquet')).toBe(file(run, 'services.parquet'));
  }, 120_000);
});
