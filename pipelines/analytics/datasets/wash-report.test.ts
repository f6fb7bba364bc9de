/**
 * The wash report's pattern table on the demo world with the real classifier: each pattern counts
 * what it names. Every row is checked against a direct SQL count of its definition over the
 * classifier's tables (written here independently of the report's SQL: correlated subqueries
 * instead of joins), and patterns with different meanings do not give identical rows (they once
 * did: fresh_wallet and single_payer_concentration both 3 / 4 / 1709, counted from one rule's
 * reason list).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyticsDemoContext } from '../../testing/context.ts';
import { ANALYTICS_RESPONSES } from '../../../catalog/analytics.ts';
import { THRESHOLDS as T } from '../../../catalog/wash-rules.ts';
import { queryJson } from '../../../lib/duckdb.ts';
import { SnapshotWriter } from '../../../snapshots/writer.ts';
import { analyticsIngestSteps } from '../../../sources/analytics.ts';
import { openWarehouse, type Warehouse } from '../../warehouse.ts';
import { analyticsPipeline } from '../index.ts';
import { PATTERN_MIN_WALLETS, patternRelationsSql, WASH_PATTERNS, washReportStep } from './wash-report.ts';

const NOW = new Date('2026-11-20T09:00:00Z');
const NOW_SQL = `TIMESTAMP '2026-11-20 09:00:00'`;
const N = PATTERN_MIN_WALLETS;

interface PatternRow {
  pattern_type: string;
  wallets: number;
  services_affected: number;
  volume: number;
}

let dir: string;
let wh: Warehouse;
let patterns: PatternRow[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wash-report-'));
  wh = await openWarehouse(join(dir, 'warehouse'), 'analytics');
  const writer = await SnapshotWriter.begin({ root: join(dir, 'snapshots'), service: 'analytics', codeVersion: 'test', generatedAt: NOW });
  const ctx = analyticsDemoContext({ connection: wh.connection, writer, now: NOW });
  for (const step of analyticsIngestSteps({ kind: 'demo' }, ctx.settings)) await step.run(ctx);
  for (const step of analyticsPipeline.prepareSteps) await step.run(ctx);
  await washReportStep.run(ctx);
  const manifest = await writer.publish({ nextExpectedUpdate: new Date(NOW.getTime() + 3_600_000) });
  const doc = JSON.parse(readFileSync(join(dir, 'snapshots', 'analytics', manifest.version, 'wash-report.json'), 'utf8')) as unknown;
  patterns = ANALYTICS_RESPONSES.WashReportBody.parse(doc).patterns;
}, 300_000);

afterAll(() => {
  wh?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// The report's scope: suspected_wash pairs with 30-day payments to a listed service (one row per
// service and pair), with the pair's classifier row.
const SCOPE = `scope AS (
  SELECT b.service_id, p.buyer, p.seller_address, p.chain, p.tx_count, p.volume, p.first_time, b.micro_30d
    FROM service_buyer_stats b
    JOIN service_facts f ON f.id = b.service_id
    JOIN pair_labels p ON hash(p.buyer) = b.buyer_h AND p.seller_address = f.seller_address AND p.chain = f.chain
   WHERE p.label = 'suspected_wash' AND b.tx_30d > 0
),
wp AS (SELECT * FROM pair_labels WHERE label = 'suspected_wash'),
ff AS (
  SELECT address, funder, time FROM wallet_funding
   WHERE time <= ${NOW_SQL} AND funder IS NOT NULL AND address IS NOT NULL AND funder <> address
  QUALIFY row_number() OVER (PARTITION BY address ORDER BY time, funder) = 1
),
ex AS (SELECT CASE WHEN starts_with(address, '0x') THEN lower(address) ELSE address END AS address FROM exchange_wallets),
-- every wash buyer's first-funding chain, hop by hop, until an exchange or fundingMaxHops
links(buyer, hop, funder) AS (
  SELECT ff.address, 1, ff.funder FROM ff
   WHERE ff.address IN (SELECT buyer FROM wp) AND NOT ${isExchange('ff.funder')}
  UNION ALL
  SELECT l.buyer, l.hop + 1, ff.funder FROM links l JOIN ff ON ff.address = l.funder
   WHERE l.hop < ${T.fundingMaxHops} AND NOT ${isExchange('ff.funder')}
),
transfers AS (
  SELECT funder AS src, address AS dst, amount, time FROM wallet_funding
   WHERE time <= ${NOW_SQL} AND funder IS NOT NULL AND address IS NOT NULL AND funder <> address
),
path_ends AS (
  SELECT address FROM ex UNION SELECT src FROM transfers GROUP BY src HAVING count(DISTINCT dst) > ${T.returnMaxFanOut}
),
-- where each wash seller's money goes: itself and up to returnMaxHops - 1 relays
reach(seller, node, depth) AS (
  SELECT DISTINCT seller_address, seller_address, 0 FROM wp
  UNION
  SELECT r.seller, t.dst, r.depth + 1 FROM reach r JOIN transfers t ON t.src = r.node
   WHERE r.depth < ${T.returnMaxHops - 1} AND t.dst NOT IN (SELECT address FROM path_ends) AND t.dst <> r.seller
)`;

function isExchange(col: string): string {
  return `(${col} IN (SELECT address FROM ex) OR lower(${col}) IN (SELECT address FROM ex))`;
}

const sameSeller = 'q.seller_address = s.seller_address AND q.chain = s.chain';

/** What each pattern names, as a predicate over one scope row `s` (docs/wash-methodology.md, "Wash report patterns"). */
const DIRECT: Record<string, string> = {
  vanity_cluster: `EXISTS (SELECT 1 FROM buyer_labels bl WHERE bl.address = s.buyer AND (bl.vanity_strict OR bl.vanity_broad))`,
  uniform_amount: `(SELECT count(*) FROM wp q WHERE ${sameSeller} AND round(q.volume / q.tx_count, 6) = round(s.volume / s.tx_count, 6)) >= ${N}
    AND (SELECT count(DISTINCT round(q.volume / q.tx_count, 6)) FROM pair_labels q WHERE ${sameSeller} AND q.buyer <> q.seller_address) > 1`,
  coordinated_start: `(SELECT count(*) FROM wp q WHERE ${sameSeller} AND epoch_ms(q.first_time) // 3600000 = epoch_ms(s.first_time) // 3600000) >= ${N}
    OR (SELECT count(*) FROM wp q WHERE ${sameSeller}
          AND (epoch_ms(q.first_time) + 1800000) // 3600000 = (epoch_ms(s.first_time) + 1800000) // 3600000) >= ${N}`,
  // the classifier's coordination kinds are what its reasons name (classifier/evidence.ts)
  synchronized_start: `EXISTS (SELECT 1 FROM pair_labels q WHERE q.buyer = s.buyer AND ${sameSeller} AND list_contains(q.reasons, 'synchronized_start'))`,
  uniform_tx_count: `(SELECT count(*) FROM wp q WHERE ${sameSeller}) >= ${N}
    AND (SELECT 1.4826 * mad(ln(q.tx_count)) FROM wp q WHERE ${sameSeller}) <= ${T.farmMaxLogCountSpread}`,
  funding_loop: `EXISTS (SELECT 1 FROM links l WHERE l.buyer = s.buyer AND l.funder = s.seller_address)`,
  common_funder: `EXISTS (SELECT 1 FROM pair_labels q WHERE q.buyer = s.buyer AND ${sameSeller} AND list_contains(q.reasons, 'common_funder'))`,
  funding_wave: `EXISTS (SELECT 1 FROM pair_labels q WHERE q.buyer = s.buyer AND ${sameSeller} AND list_contains(q.reasons, 'funding_wave'))`,
  coordinated_groups: `EXISTS (SELECT 1 FROM pair_labels q WHERE q.buyer = s.buyer AND ${sameSeller} AND list_contains(q.reasons, 'coordinated'))`,
  money_trail: `EXISTS (SELECT 1 FROM pair_labels q WHERE q.buyer = s.buyer AND ${sameSeller} AND list_contains(q.reasons, 'money_trail'))`,
  round_trip: `s.buyer <> s.seller_address
    AND (SELECT count(*) FROM transfers t WHERE t.dst = s.buyer AND t.time > s.first_time
            AND t.src IN (SELECT node FROM reach WHERE reach.seller = s.seller_address)) >= ${T.roundTripMinReturns}
    AND (SELECT sum(t.amount) FROM transfers t WHERE t.dst = s.buyer AND t.time > s.first_time
            AND t.src IN (SELECT node FROM reach WHERE reach.seller = s.seller_address)) >= ${T.roundTripMinReturnShare} * s.volume`,
  fresh_wallet: `(SELECT time FROM ff WHERE ff.address = s.buyer)
    BETWEEN (SELECT first_time FROM buyer_labels bl WHERE bl.address = s.buyer) - INTERVAL ${T.freshWalletDays} DAY
        AND (SELECT first_time FROM buyer_labels bl WHERE bl.address = s.buyer)`,
  single_payer_concentration: `EXISTS (SELECT 1 FROM seller_cohorts c WHERE c.seller_address = s.seller_address AND c.chain = s.chain
                                      AND list_contains(c.flags, 'concentration'))
    AND s.buyer = (SELECT q.buyer FROM pair_labels q WHERE ${sameSeller} AND q.buyer <> q.seller_address
                    ORDER BY q.volume DESC, q.buyer DESC LIMIT 1)`,
  ring: `EXISTS (SELECT 1 FROM pair_labels q WHERE q.buyer = s.buyer AND ${sameSeller} AND list_contains(q.reasons, 'payment_ring'))`,
  operator_cohort: `EXISTS (SELECT 1 FROM pair_labels q WHERE q.buyer = s.buyer AND ${sameSeller} AND list_contains(q.reasons, 'operator_cohort'))`,
  funding_burst: `EXISTS (SELECT 1 FROM pair_labels q WHERE q.buyer = s.buyer AND ${sameSeller} AND list_contains(q.reasons, 'funding_burst'))`,
  camouflage: `(s.seller_address, s.chain) <> (SELECT (q.seller_address, q.chain) FROM pair_labels q WHERE q.buyer = s.buyer
                                                ORDER BY q.tx_count DESC, q.volume DESC, q.seller_address, q.chain LIMIT 1)`,
};

async function directCount(predicate: string): Promise<PatternRow | null> {
  const [row] = await queryJson(
    wh.connection,
    `WITH RECURSIVE ${SCOPE}
     SELECT count(DISTINCT buyer)::INTEGER AS wallets, count(DISTINCT service_id)::INTEGER AS services_affected,
            round(coalesce(sum(micro_30d), 0) / 1e6, 6)::DOUBLE AS volume
       FROM scope s WHERE ${predicate}`,
  );
  const wallets = Number(row?.wallets ?? 0);
  return wallets === 0
    ? null
    : { pattern_type: '', wallets, services_affected: Number(row!.services_affected), volume: Number(row!.volume) };
}

describe('wash report patterns on the demo world', () => {
  it('defines a direct count for every pattern, and the demo world shows most of them', () => {
    expect(Object.keys(DIRECT).sort()).toEqual(WASH_PATTERNS.map((p) => p.pattern_type).sort());
    const shown = patterns.map((p) => p.pattern_type);
    expect(shown.filter((p) => p !== 'unspecified').length).toBeGreaterThanOrEqual(6);
    for (const name of [
      'money_trail',
      'ring',
      'round_trip',
      'vanity_cluster',
      'coordinated_start',
      'funding_loop',
      'fresh_wallet',
      'single_payer_concentration',
      'camouflage',
    ]) {
      expect(shown).toContain(name);
    }
  });

  it.each(WASH_PATTERNS.map((p) => p.pattern_type))('%s counts what it names (direct SQL over the classifier tables)', async (name) => {
    const direct = await directCount(DIRECT[name]!);
    const row = patterns.find((p) => p.pattern_type === name) ?? null;
    if (direct === null) {
      expect(row).toBeNull();
      return;
    }
    expect(row).not.toBeNull();
    expect({ wallets: row!.wallets, services_affected: row!.services_affected }).toEqual({
      wallets: direct.wallets,
      services_affected: direct.services_affected,
    });
    expect(row!.volume).toBeCloseTo(direct.volume, 6);
  });

  it("'unspecified' counts the wash pairs no pattern describes", async () => {
    const direct = await directCount(
      `NOT (${Object.values(DIRECT)
        .map((p) => `coalesce((${p}), false)`)
        .join(' OR ')})`,
    );
    const row = patterns.find((p) => p.pattern_type === 'unspecified') ?? null;
    expect(row === null ? null : { wallets: row.wallets, services_affected: row.services_affected }).toEqual(
      direct === null ? null : { wallets: direct.wallets, services_affected: direct.services_affected },
    );
  });

  it('patterns with different meanings give different rows', () => {
    // A pattern measured on the tables differs from every other; the patterns that are what the
    // classifier's reasons name may coincide with each other (a cohort pair names every coordination
    // kind it passed: the demo's sybil cohorts are funded from one root, in one wave, started together).
    const named = new Set(
      Object.entries(DIRECT)
        .filter(([, sql]) => sql.includes('list_contains(q.reasons'))
        .map(([name]) => name),
    );
    const rows = patterns.filter((p) => !named.has(p.pattern_type)).map((p) => `${p.wallets} / ${p.services_affected} / ${p.volume}`);
    expect(rows.length).toBeGreaterThanOrEqual(8);
    expect(new Set(rows).size).toBe(rows.length);
    const fresh = patterns.find((p) => p.pattern_type === 'fresh_wallet')!;
    const top = patterns.find((p) => p.pattern_type === 'single_payer_concentration')!;
    expect([fresh.wallets, fresh.services_affected, fresh.volume]).not.toEqual([top.wallets, top.services_affected, top.volume]);
  });

  it("every wash pair shows the pattern its classifier rule's reasons name, and no reason is left without one", async () => {
    // The classifier's reasons (classifier/pair-rules.ts) and the patterns that measure them. A new
    // rule with new reasons fails here until the report gets a pattern for it.
    const single: Record<string, string> = {
      money_trail: 'money_trail',
      payment_ring: 'ring',
      funds_returned: 'round_trip',
      seller_funded: 'funding_loop',
      operator_funded: 'money_trail',
      operator_cohort: 'operator_cohort',
      common_funder: 'common_funder',
      funding_burst: 'funding_burst',
      funding_wave: 'funding_wave',
      vanity_cluster: 'vanity_cluster',
      synchronized_start: 'synchronized_start',
      coordinated: 'coordinated_groups',
      single_payer_concentration: 'single_payer_concentration',
      fresh_wallet: 'fresh_wallet',
    };
    // 'cohort' names the verdict; its coordination kinds name their patterns one by one
    const known = new Set([...Object.keys(single), 'cohort', 'wash_wallet']);
    const rows = await queryJson(
      wh.connection,
      `WITH ${patternRelationsSql(NOW_SQL)},
       shown AS (${WASH_PATTERNS.map((p) => `SELECT ${`'${p.pattern_type}'`} AS pattern_type, buyer, seller_address, chain FROM (${p.pairs})`).join(' UNION ALL ')})
       SELECT p.reasons, list(DISTINCT sh.pattern_type ORDER BY sh.pattern_type) FILTER (WHERE sh.pattern_type IS NOT NULL) AS patterns
         FROM pair_labels p LEFT JOIN shown sh USING (buyer, seller_address, chain)
        WHERE p.label = 'suspected_wash'
        GROUP BY p.buyer, p.seller_address, p.chain, p.reasons`,
    );
    expect(rows.length).toBeGreaterThan(500);
    const missing = new Map<string, number>();
    const miss = (what: string) => missing.set(what, (missing.get(what) ?? 0) + 1);
    for (const row of rows) {
      const reasons = row.reasons as string[];
      const shown = new Set((row.patterns as string[] | null) ?? []);
      for (const reason of reasons) if (!known.has(reason)) miss(`unknown reason ${reason}`);
      for (const reason of reasons) {
        const pattern = single[reason];
        if (pattern !== undefined && !shown.has(pattern)) miss(`${reason} -> ${pattern}`);
      }
      if (reasons.includes('cohort') && reasons.length < 2) miss('a cohort that names no coordination');
    }
    expect(Object.fromEntries(missing)).toEqual({});
  });
});
