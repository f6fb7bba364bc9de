import { createHash } from 'node:crypto';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WASH_LABELS } from '../catalog/categories.ts';
import { openWarehouse, type Warehouse } from '../pipelines/warehouse.ts';
import { sqlString } from '../lib/duckdb.ts';
import { evaluateWash, formatEval } from '../pipelines/analytics/eval-wash.ts';
import { stronglyConnected } from './cycles.ts';
import { classify, type ClassifyStats } from './index.ts';
import { RawWorld } from '../pipelines/testing/raw-world.ts';

const NOW = new Date('2026-06-01T00:00:00Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const EXCHANGE = '0x' + 'e'.repeat(38) + '01';

/** Deterministic addresses: a tag's sha256, optionally with a mined prefix/suffix. */
function addr(tag: string, prefix = '', suffix = ''): string {
  const hex = createHash('sha256').update(tag).digest('hex');
  return '0x' + prefix + hex.slice(0, 40 - prefix.length - suffix.length) + suffix;
}

/** A small seeded PRNG so the hand-made world is the same on every run. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * A hand-made world where each rule has one planted case, plus organic background traffic on
 * popular sellers, so every case sits among ordinary payers.
 */
class World extends RawWorld {}

const CASES = {
  selfPay: addr('self-pay-seller'),
  sybilSeller: addr('sybil-seller'),
  sybilOperator: addr('sybil-operator'),
  sybils: Array.from({ length: 12 }, (_, i) => addr(`sybil-${i}`)),
  launchSeller: addr('launch-seller'),
  adopters: Array.from({ length: 3 }, (_, i) => addr(`adopter-${i}`)),
  botSeller: addr('bot-seller'),
  bot: addr('cron-bot'),
  devSeller: addr('dev-seller'),
  developer: addr('developer'),
  verifier: addr('verifier'),
  listingSellers: Array.from({ length: 30 }, (_, i) => addr(`listing-${i}`)),
  agent: addr('agent'),
  agentSellers: Array.from({ length: 8 }, (_, i) => addr(`agent-seller-${i}`)),
  vanitySeller: addr('vanity-seller'),
  vanity: Array.from({ length: 5 }, (_, i) => addr(`vanity-${i}`, 'abcd', 'e12')),
  ring: Array.from({ length: 3 }, (_, i) => addr(`ring-${i}`)),
  popular: Array.from({ length: 4 }, (_, i) => addr(`popular-${i}`)),
  organic: Array.from({ length: 60 }, (_, i) => addr(`organic-${i}`)),
  // issue 29: one operator behind three sellers, an exchange burst, an event crowd, a platform, a funding cycle
  operatorRoot: addr('operator-root'),
  operatorRelay: addr('operator-relay'),
  operatorSellers: Array.from({ length: 3 }, (_, i) => addr(`operator-seller-${i}`)),
  operatorBuyers: Array.from({ length: 12 }, (_, i) => addr(`operator-buyer-${i}`)),
  burstSeller: addr('burst-seller'),
  burstBuyers: Array.from({ length: 12 }, (_, i) => addr(`burst-buyer-${i}`)),
  burstOrganic: Array.from({ length: 3 }, (_, i) => addr(`burst-organic-${i}`)),
  eventOrg: addr('event-org'),
  eventSponsor: addr('event-sponsor'),
  attendees: Array.from({ length: 15 }, (_, i) => addr(`attendee-${i}`)),
  platform: addr('platform'),
  platformSellers: Array.from({ length: 2 }, (_, i) => addr(`platform-seller-${i}`)),
  cycleSellers: Array.from({ length: 2 }, (_, i) => addr(`cycle-seller-${i}`)),
};

function buildWorld(): World {
  const w = new World();
  const rnd = prng(7);
  const t0 = NOW.getTime() - 120 * DAY;
  const categories = ['weather', 'news', 'ai_inference', 'token_data', 'defi_data', 'search_engine', 'maps_location', 'storage'];

  // popular honest sellers and organic background (1-3 payments, exchange funded)
  const popular = CASES.popular.map((s, i) => ({ seller: s, url: w.service(s, categories[i]!, 0.01, t0) }));
  CASES.organic.forEach((o, i) => {
    const start = t0 + 5 * DAY + rnd() * 100 * DAY;
    w.fund(o, EXCHANGE, 20, start - DAY);
    for (let k = 0; k < 1 + (i % 3); k++) {
      const p = popular[(i + k) % popular.length]!;
      w.pay(o, p.seller, p.url, 0.01, start + k * rnd() * 3 * DAY);
    }
  });

  // self-pay: the seller pays its own listing
  const selfUrl = w.service(CASES.selfPay, 'test_dummy', 0.01, NOW.getTime() - 20 * DAY);
  for (let k = 0; k < 5; k++) w.pay(CASES.selfPay, CASES.selfPay, selfUrl, 0.01, NOW.getTime() - 20 * DAY + k * HOUR);

  // sybil cohort: one operator funds 12 wallets with equal amounts within 10 minutes; they start
  // paying one seller within 20 minutes, the same number of times, the same two prices
  const sybilStart = NOW.getTime() - 10 * DAY;
  const sy = [
    w.service(CASES.sybilSeller, 'other', 0.01, sybilStart - 5 * DAY, 'a'),
    w.service(CASES.sybilSeller, 'other', 0.05, sybilStart - 5 * DAY, 'b'),
  ];
  w.fund(CASES.sybilOperator, EXCHANGE, 500, sybilStart - 3 * DAY);
  CASES.sybils.forEach((s, i) => {
    w.fund(s, CASES.sybilOperator, 10, sybilStart - HOUR + i * 50_000);
    const start = sybilStart + i * 100_000;
    for (let k = 0; k < 30; k++)
      w.pay(s, CASES.sybilSeller, sy[k % 2]!, k % 2 === 0 ? 0.01 : 0.05, start + (k === 0 ? 0 : rnd() * 3 * DAY));
  });

  // honest launch: three independent, older wallets carry a new seller's first 48 hours
  const launch = NOW.getTime() - 15 * DAY;
  const launchUrl = w.service(CASES.launchSeller, 'news', 0.02, launch);
  CASES.adopters.forEach((a, i) => {
    w.fund(a, EXCHANGE, 50, launch - 40 * DAY);
    w.pay(a, popular[i]!.seller, popular[i]!.url, 0.01, launch - 20 * DAY);
    for (let k = 0; k < 4 + 3 * i; k++) w.pay(a, CASES.launchSeller, launchUrl, 0.02, launch + HOUR + rnd() * 46 * HOUR);
  });

  // cron bot: every hour (+-5 minutes) for 20 days
  const botUrl = w.service(CASES.botSeller, 'weather', 0.001, t0);
  w.fund(CASES.bot, EXCHANGE, 100, NOW.getTime() - 31 * DAY);
  for (let h = 0; h < 20 * 24; h++)
    w.pay(CASES.bot, CASES.botSeller, botUrl, 0.001, NOW.getTime() - 30 * DAY + h * HOUR + (rnd() - 0.5) * 10 * MINUTE);

  // developer: a 3-minute load test at 40 calls a minute, plus one casual call elsewhere
  const devUrl = w.service(CASES.devSeller, 'ai_inference', 0.005, t0);
  const burst = NOW.getTime() - 5 * DAY;
  w.fund(CASES.developer, EXCHANGE, 20, burst - DAY);
  for (let k = 0; k < 120; k++) w.pay(CASES.developer, CASES.devSeller, devUrl, 0.005, burst + k * 1500);
  w.pay(CASES.developer, popular[0]!.seller, popular[0]!.url, 0.01, burst + DAY);

  // verifier: 30 new listings, each paid once or twice within a few hours of first_seen
  CASES.listingSellers.forEach((s, i) => {
    const listed = NOW.getTime() - 60 * DAY + i * 2 * DAY;
    const url = w.service(s, categories[i % categories.length]!, 0.01, listed);
    for (let k = 0; k < 1 + (i % 2); k++) w.pay(CASES.verifier, s, url, 0.01, listed + (1 + 5 * rnd()) * HOUR + k * MINUTE);
  });

  // AI agent: 8 sellers over 5 categories, prices from $0.001 to $0.25, irregular sessions for 20 days
  const agentSellers = CASES.agentSellers.map((s, i) => {
    const price = [0.001, 0.01, 0.05, 0.25][i % 4]!;
    return { seller: s, price, url: w.service(s, categories[i % 5]!, price, t0) };
  });
  w.fund(CASES.agent, addr('agent-treasury'), 250, NOW.getTime() - 26 * DAY);
  let t = NOW.getTime() - 25 * DAY;
  for (let k = 0; k < 60; k++) {
    t += rnd() < 0.3 ? rnd() * 2 * DAY : rnd() * 60_000;
    const s = agentSellers[Math.floor(rnd() * agentSellers.length)]!;
    w.pay(CASES.agent, s.seller, s.url, s.price, Math.min(t, NOW.getTime() - HOUR));
  }

  // strict vanity cohort: five exchange-funded wallets mined to 0xabcd...e12, starts over a day
  const vStart = NOW.getTime() - 8 * DAY;
  const vanityUrl = w.service(CASES.vanitySeller, 'other', 0.02, vStart - 2 * DAY);
  CASES.vanity.forEach((v, i) => {
    w.fund(v, EXCHANGE, 20, vStart - DAY);
    const start = vStart + i * 5 * HOUR;
    for (let k = 0; k < 12 + i; k++) w.pay(v, CASES.vanitySeller, vanityUrl, 0.02, start + rnd() * 4 * DAY);
  });

  // ring: three wallets that are sellers and pay the next one what they receive
  const ringUrls = CASES.ring.map((r) => w.service(r, 'other', 1, NOW.getTime() - 30 * DAY));
  CASES.ring.forEach((r, i) => {
    w.fund(r, EXCHANGE, 50, NOW.getTime() - 29 * DAY);
    const next = (i + 1) % CASES.ring.length;
    for (let k = 0; k < 40; k++) w.pay(r, CASES.ring[next]!, ringUrls[next]!, 1, NOW.getTime() - 28 * DAY + k * 6 * HOUR + i * MINUTE);
  });

  // one operator, three sellers: root -> relay -> sellers and 12 buyers; each buyer spreads its
  // calls over the sellers (no seller gets most of any buyer); the sellers sweep to the root weekly
  const opStart = NOW.getTime() - 30 * DAY;
  w.fund(CASES.operatorRoot, EXCHANGE, 2000, opStart - 20 * DAY);
  w.fund(CASES.operatorRelay, CASES.operatorRoot, 800, opStart - 10 * DAY);
  const opUrls = CASES.operatorSellers.map((s, i) => {
    w.fund(s, CASES.operatorRelay, 30, opStart - 5 * DAY + i * HOUR);
    for (let d = 7; d < 30; d += 7) w.fund(CASES.operatorRoot, s, 5, opStart + d * DAY);
    return w.service(s, 'other', 0.02, opStart - 3 * DAY, `op${i}`);
  });
  CASES.operatorBuyers.forEach((b, i) => {
    w.fund(b, CASES.operatorRelay, 20 + i, opStart - DAY + i * 7 * HOUR);
    const start = opStart + i * 1.5 * DAY;
    for (let k = 0; k < 9; k++) {
      const j = (i + k) % 3;
      w.pay(b, CASES.operatorSellers[j]!, opUrls[j]!, 0.02, start + k * 0.8 * DAY + rnd() * HOUR);
    }
  });

  // exchange burst: 12 fresh wallets funded by the exchange within two hours, near-equal amounts,
  // that pay one new seller and are most of its buyers (three organic buyers too)
  const burstAt = NOW.getTime() - 40 * DAY;
  const burstUrl = w.service(CASES.burstSeller, 'ai_inference', 0.05, burstAt - 2 * DAY);
  CASES.burstBuyers.forEach((b, i) => {
    w.fund(b, EXCHANGE, 49.5 * (1 + ((i % 5) - 2) * 0.01), burstAt + i * 10 * MINUTE);
    const start = burstAt + (1 + i) * 20 * HOUR;
    for (let k = 0; k < 6; k++) w.pay(b, CASES.burstSeller, burstUrl, 0.05, start + k * DAY + rnd() * HOUR);
  });
  CASES.burstOrganic.forEach((o, i) => {
    w.fund(o, EXCHANGE, 30 + 17 * i, burstAt - (10 + i) * DAY);
    w.pay(o, CASES.burstSeller, burstUrl, 0.05, burstAt + (5 + i) * DAY);
    w.pay(o, popular[i]!.seller, popular[i]!.url, 0.01, burstAt + (6 + i) * DAY);
  });

  // developer event (a crowd): one organisation funds 15 attendees the same amount within half an
  // hour; each tries the sponsor's service and three popular ones, a few calls each
  const eventAt = NOW.getTime() - 50 * DAY;
  w.fund(CASES.eventOrg, EXCHANGE, 500, eventAt - 3 * DAY);
  const sponsorUrl = w.service(CASES.eventSponsor, 'ai_inference', 0.01, eventAt - 10 * DAY);
  CASES.attendees.forEach((a, i) => {
    w.fund(a, CASES.eventOrg, 10, eventAt - 30 * MINUTE + i * MINUTE);
    let t = eventAt + i * 2 * MINUTE;
    for (let k = 0; k < 3; k++) w.pay(a, CASES.eventSponsor, sponsorUrl, 0.01, (t += 20_000));
    for (let j = 0; j < 3; j++) {
      const p = popular[(i + j) % popular.length]!;
      t += 30 * MINUTE;
      for (let k = 0; k < 3; k++) w.pay(a, p.seller, p.url, 0.01, (t += 20_000));
    }
  });

  // a platform funding more wallets than any operator would (1,001): two of them are sellers,
  // which the platform's key must not join into one operator
  const platformAt = NOW.getTime() - 90 * DAY;
  w.fund(CASES.platform, EXCHANGE, 100_000, platformAt - DAY);
  for (let k = 0; k < 1001; k++) w.fund(addr(`platform-user-${k}`), CASES.platform, 5, platformAt + k * MINUTE);
  CASES.platformSellers.forEach((s, i) => {
    w.fund(s, CASES.platform, 5, platformAt + (2000 + i) * MINUTE);
    const url = w.service(s, 'weather', 0.01, platformAt + 2 * DAY);
    w.pay(CASES.organic[i]!, s, url, 0.01, platformAt + 3 * DAY);
  });

  // a funding cycle: two sellers that each first funded the other (bad input: must not loop)
  const cycleAt = NOW.getTime() - 60 * DAY;
  w.fund(CASES.cycleSellers[0]!, CASES.cycleSellers[1]!, 3, cycleAt);
  w.fund(CASES.cycleSellers[1]!, CASES.cycleSellers[0]!, 3, cycleAt);
  CASES.cycleSellers.forEach((s, i) => {
    const url = w.service(s, 'news', 0.01, cycleAt + DAY);
    w.pay(CASES.organic[10 + i]!, s, url, 0.01, cycleAt + 2 * DAY);
    // and a seller that is also a buyer of the other
    w.pay(s, CASES.cycleSellers[1 - i]!, `${url}-peer`, 0.01, cycleAt + 3 * DAY);
  });
  return w;
}

async function loadWorld(c: DuckDBConnection, w: World): Promise<void> {
  w.exchange(EXCHANGE);
  await w.load(c);
}

async function one(c: DuckDBConnection, sql: string): Promise<Record<string, unknown>> {
  const rows = (await c.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
  if (rows.length !== 1) throw new Error(`expected one row from ${sql}, got ${rows.length}`);
  return rows[0]!;
}

const buyerRow = (c: DuckDBConnection, a: string) => one(c, `SELECT * FROM buyer_labels WHERE address = ${sqlString(a)}`);

describe('wash classifier on a hand-made world', () => {
  let wh: Warehouse;
  let c: DuckDBConnection;
  let stats: ClassifyStats;

  beforeAll(async () => {
    wh = await openWarehouse(':memory:', 'analytics', { threads: 2 });
    c = wh.connection;
    await loadWorld(c, buildWorld());
    stats = await classify(c, { now: NOW });
  });
  afterAll(() => wh.close());

  it('writes the three tables with the published columns', async () => {
    const columns = async (t: string) =>
      (
        await c.runAndReadAll(
          `SELECT column_name, data_type FROM information_schema.columns WHERE table_name = '${t}' ORDER BY ordinal_position`,
        )
      )
        .getRowObjectsJson()
        .map((r) => `${String(r.column_name)} ${String(r.data_type)}`);
    expect(await columns('pair_labels')).toEqual([
      'buyer VARCHAR',
      'seller_address VARCHAR',
      'chain VARCHAR',
      'label VARCHAR',
      'confidence DOUBLE',
      'reasons VARCHAR[]',
      'signals MAP(VARCHAR, DOUBLE)',
      'tx_count BIGINT',
      'volume DOUBLE',
      'tx_count_30d BIGINT',
      'volume_30d DOUBLE',
      'first_time TIMESTAMP',
      'last_time TIMESTAMP',
      expect.stringMatching(
        /^evidence STRUCT\(kind VARCHAR, via VARCHAR, addresses VARCHAR\[\], "?share"? DOUBLE, "?text"? VARCHAR\)\[\]$/,
      ),
    ]);
    expect(await columns('buyer_labels')).toEqual([
      'address VARCHAR',
      'label VARCHAR',
      'confidence DOUBLE',
      'reason VARCHAR[]',
      'reason_text VARCHAR',
      'signals MAP(VARCHAR, DOUBLE)',
      'vanity_strict BOOLEAN',
      'vanity_broad BOOLEAN',
      'vanity_cluster_size INTEGER',
      'mean_interval_s DOUBLE',
      'interval_cv DOUBLE',
      'tx_count BIGINT',
      'volume DOUBLE',
      'n_sellers INTEGER',
      'top_service_share DOUBLE',
      'first_funder VARCHAR',
      'first_time TIMESTAMP',
      'last_time TIMESTAMP',
      'top_seller_address VARCHAR',
      'top_chain VARCHAR',
      'top_cohort_uniform_amount DOUBLE',
      'top_cohort_coordinated_start DOUBLE',
      expect.stringMatching(
        /^evidence STRUCT\(kind VARCHAR, via VARCHAR, addresses VARCHAR\[\], "?share"? DOUBLE, "?text"? VARCHAR\)\[\]$/,
      ),
    ]);
    // every suspected_wash label names its evidence, every other label none
    const named = await one(
      c,
      `SELECT count(*) FILTER (WHERE label = 'suspected_wash' AND (evidence IS NULL OR len(evidence) = 0)) AS wash_without,
              count(*) FILTER (WHERE label <> 'suspected_wash' AND evidence IS NOT NULL) AS other_with,
              count(*) FILTER (WHERE label = 'suspected_wash') AS wash
         FROM buyer_labels`,
    );
    expect(Number(named.wash)).toBeGreaterThan(20);
    expect(Number(named.wash_without)).toBe(0);
    expect(Number(named.other_with)).toBe(0);
    expect(await columns('seller_cohorts')).toEqual([
      'seller_address VARCHAR',
      'chain VARCHAR',
      'cohort_size INTEGER',
      'uniform_amount_pct DOUBLE',
      'coordinated_start_pct DOUBLE',
      'uniform_tx_count_cv DOUBLE',
      'flags VARCHAR[]',
    ]);
    const counts = await one(
      c,
      `SELECT (SELECT count(*) FROM pair_labels) AS pairs,
        (SELECT count(*) FROM (SELECT DISTINCT buyer, seller_address, chain FROM x402_transactions)) AS expected_pairs,
        (SELECT count(*) FROM buyer_labels) AS buyers, (SELECT count(DISTINCT buyer) FROM x402_transactions) AS expected_buyers`,
    );
    expect(counts.pairs).toBe(counts.expected_pairs);
    expect(counts.buyers).toBe(counts.expected_buyers);
    expect(stats.pairs).toBe(Number(counts.pairs));
    const labels = (
      await c.runAndReadAll('SELECT DISTINCT label FROM pair_labels UNION SELECT DISTINCT label FROM buyer_labels')
    ).getRowObjectsJson();
    for (const r of labels) expect(WASH_LABELS).toContain(r.label);
  });

  it('labels a seller paying itself self_test', async () => {
    const pair = await one(
      c,
      `SELECT * FROM pair_labels WHERE buyer = ${sqlString(CASES.selfPay)} AND seller_address = ${sqlString(CASES.selfPay)}`,
    );
    expect(pair.label).toBe('self_test');
    expect(pair.confidence).toBe(1);
    expect(pair.reasons).toEqual(['self_pay']);
    expect((await buyerRow(c, CASES.selfPay)).label).toBe('self_test');
  });

  it('labels a 12-wallet coordinated, uniform cohort funded by one wallet suspected_wash', async () => {
    for (const s of CASES.sybils) {
      const b = await buyerRow(c, s);
      expect(b.label, s).toBe('suspected_wash');
      expect(Number(b.confidence)).toBeGreaterThanOrEqual(0.75);
      // a cohort that dominates its seller, funded from one root, started together
      expect(b.reason).toEqual(expect.arrayContaining(['cohort', 'common_funder']));
      const kinds = (b.evidence as Array<{ kind: string; via: string; addresses: string[] }>).map((e) => e.kind);
      expect(kinds).toEqual(expect.arrayContaining(['dominance', 'no_independent_life', 'coordination']));
      const root = (b.evidence as Array<{ kind: string; via: string; addresses: string[] }>).find((e) => e.via === 'funding_root');
      expect(root?.addresses).toEqual([CASES.sybilOperator]);
    }
    const cohort = await one(c, `SELECT * FROM seller_cohorts WHERE seller_address = ${sqlString(CASES.sybilSeller)}`);
    expect(cohort.cohort_size).toBe(12);
    expect(Number(cohort.coordinated_start_pct)).toBe(1);
    expect(Number(cohort.uniform_amount_pct)).toBe(1);
    expect(Number(cohort.uniform_tx_count_cv)).toBe(0);
    expect(cohort.flags).toEqual(expect.arrayContaining(['farm']));
    // the operator never paid anyone, so it is no buyer at all
    expect(
      (await c.runAndReadAll(`SELECT * FROM buyer_labels WHERE address = ${sqlString(CASES.sybilOperator)}`)).getRowObjectsJson(),
    ).toEqual([]);
  });

  it('leaves a 3-wallet honest launch alone', async () => {
    for (const a of CASES.adopters) {
      const b = await buyerRow(c, a);
      expect(b.label, a).toBe('organic_user');
      const pair = await one(
        c,
        `SELECT * FROM pair_labels WHERE buyer = ${sqlString(a)} AND seller_address = ${sqlString(CASES.launchSeller)}`,
      );
      expect(pair.label).not.toBe('suspected_wash');
    }
  });

  it('labels an hourly cron job analytics_bot', async () => {
    const b = await buyerRow(c, CASES.bot);
    expect(b.label).toBe('analytics_bot');
    expect(b.reason).toEqual(['periodic']);
    expect(Number(b.mean_interval_s)).toBeGreaterThan(3000);
    expect(Number(b.mean_interval_s)).toBeLessThan(4200);
    expect(Number(b.interval_cv)).toBeLessThan(0.3);
  });

  it('labels a 40 tx/min burst developer, and its casual call elsewhere organic', async () => {
    const b = await buyerRow(c, CASES.developer);
    expect(b.label).toBe('developer');
    expect(b.reason_text).toMatch(/^derived_from_pairs:developer\(99%\),organic_user\(1%\)$/);
    const casual = await one(
      c,
      `SELECT label FROM pair_labels WHERE buyer = ${sqlString(CASES.developer)} AND seller_address = ${sqlString(CASES.popular[0]!)}`,
    );
    expect(casual.label).toBe('organic_user');
  });

  it('labels a wallet paying 30 new listings within 72 h verifier', async () => {
    const b = await buyerRow(c, CASES.verifier);
    expect(b.label).toBe('verifier');
    expect(b.n_sellers).toBe(30);
  });

  it('labels a multi-category, irregular, varied-price wallet ai_agent', async () => {
    const b = await buyerRow(c, CASES.agent);
    expect(b.label).toBe('ai_agent');
    expect(b.reason).toEqual(['many_sellers', 'multi_category', 'varied_amounts']);
  });

  it('labels a strict vanity cohort suspected_wash with the vanity signal', async () => {
    for (const v of CASES.vanity) {
      const b = await buyerRow(c, v);
      expect(b.label, v).toBe('suspected_wash');
      expect(b.vanity_strict).toBe(true);
      expect(b.vanity_cluster_size).toBe(5);
      expect(b.reason).toEqual(expect.arrayContaining(['cohort', 'vanity_cluster']));
    }
  });

  it('labels a balanced payment ring suspected_wash', async () => {
    for (const r of CASES.ring) expect((await buyerRow(c, r)).label, r).toBe('suspected_wash');
    const cohort = await one(c, `SELECT flags FROM seller_cohorts WHERE seller_address = ${sqlString(CASES.ring[0]!)}`);
    expect(cohort.flags).toEqual(expect.arrayContaining(['cycle']));
  });

  it('keeps organic background traffic organic', async () => {
    const r = await one(
      c,
      `SELECT count(*) FILTER (WHERE label = 'organic_user') AS organic, count(*) AS n FROM buyer_labels
      WHERE address IN (${CASES.organic.map(sqlString).join(', ')})`,
    );
    expect(r.organic).toBe(r.n);
  });

  it('joins three sellers funded through one relay into one operator and labels its spread buyers an operator cohort', async () => {
    const ops = await c.runAndReadAll(
      `SELECT DISTINCT operator_id, operator_sellers, operator_wash FROM seller_state
        WHERE seller_address IN (${CASES.operatorSellers.map(sqlString).join(', ')})`,
    );
    const rows = ops.getRowObjectsJson();
    expect(rows).toHaveLength(1);
    expect(Number(rows[0]!.operator_sellers)).toBe(3);
    expect(rows[0]!.operator_wash).toBe(true);
    for (const b of CASES.operatorBuyers) {
      const row = await buyerRow(c, b);
      expect(row.label, b).toBe('suspected_wash');
      // the operator's money funded it (through the relay): a money trail, named with its path
      expect(row.reason).toEqual(expect.arrayContaining(['money_trail', 'operator_funded', 'operator_cohort']));
      const trail = (row.evidence as Array<{ kind: string; addresses: string[]; share: number }>)[0]!;
      expect(trail.kind).toBe('money_trail');
      expect(trail.share).toBe(1);
      expect(trail.addresses.at(-1)).toBe(b);
      expect(trail.addresses.length).toBeGreaterThanOrEqual(2);
      // no one seller gets most of its payments: only the operator does
      expect(Number(row.top_service_share)).toBeLessThan(0.5);
    }
  });

  it('labels a burst of near-equal exchange withdrawals that pays one seller a funding burst, and leaves its organic buyers alone', async () => {
    for (const b of CASES.burstBuyers) {
      const row = await buyerRow(c, b);
      expect(row.label, b).toBe('suspected_wash');
      expect(row.reason).toEqual(expect.arrayContaining(['cohort', 'funding_burst']));
    }
    for (const o of CASES.burstOrganic) expect((await buyerRow(c, o)).label, o).not.toBe('suspected_wash');
  });

  it("leaves an event's attendees (one funder, one amount, one start, spread over services) out of wash", async () => {
    for (const a of CASES.attendees) expect((await buyerRow(c, a)).label, a).not.toBe('suspected_wash');
  });

  it('joins no sellers through a platform funding more wallets than any operator, and survives a funding cycle', async () => {
    const state = async (sellers: string[]) =>
      (
        await c.runAndReadAll(
          `SELECT seller_address, operator_id::VARCHAR AS op FROM seller_state WHERE seller_address IN (${sellers.map(sqlString).join(', ')})`,
        )
      ).getRowObjectsJson();
    const platform = await state(CASES.platformSellers);
    expect(platform).toHaveLength(2);
    expect(platform[0]!.op).not.toBe(platform[1]!.op);
    const cycle = await state(CASES.cycleSellers);
    expect(cycle).toHaveLength(2);
    expect(cycle[0]!.op).toBe(cycle[1]!.op);
  });

  it('refuses to run without the exchange list', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const bare = await instance.connect();
    try {
      await loadWorld(bare, new World());
      await bare.run('DROP TABLE exchange_wallets');
      await expect(classify(bare, { now: NOW })).rejects.toThrow(/exchange_wallets/);
    } finally {
      bare.closeSync();
      instance.closeSync();
    }
  });
});

describe('strongly connected components', () => {
  it('finds rings and ignores chains and self-loops', () => {
    const e = (from: string, to: string) => ({ from, to });
    const scc = stronglyConnected([e('a', 'b'), e('b', 'c'), e('c', 'a'), e('c', 'd'), e('d', 'e'), e('x', 'x'), e('f', 'g'), e('g', 'f')]);
    expect(scc).toEqual([
      ['a', 'b', 'c'],
      ['f', 'g'],
    ]);
  });
});

describe('wash evaluation on the demo world', () => {
  it('meets the targets at scale 1, seed 1', async () => {
    const e = await evaluateWash({ seed: 1, scale: 1, threads: 2 });
    expect(e.failures, formatEval(e)).toEqual([]);
    const wash = e.buyer.find((s) => s.label === 'suspected_wash')!;
    expect(wash.precision).toBeGreaterThanOrEqual(0.95);
    expect(wash.recall).toBeGreaterThanOrEqual(0.9);
    expect(e.organic.asWash / e.organic.buyers).toBeLessThanOrEqual(0.01);
    for (const s of e.buyer) if (s.label !== 'suspected_wash') expect(s.f1, s.label).toBeGreaterThanOrEqual(0.85);
  });
});
