import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ANALYTICS_CHAINS, CATEGORY_SLUGS, WASH_LABELS } from '../../../catalog/categories.ts';
import { DEMO_TRUTH_TABLES, RAW_TABLES, type RawTable } from '../../raw-tables.ts';
import { Rng, txHash } from '../random.ts';
import type { Row } from '../../../lib/duckdb.ts';
import { CHALLENGE_PARAMETERS, CHALLENGE_PATTERNS, type ParameterSpec } from './challenge/regimes.ts';
import { X402_EXCHANGE_WALLETS, type X402World, x402World } from './world.ts';

const NOW = new Date('2026-08-05T12:00:00Z');
const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const EVM = /^0x[0-9a-f]{40}$/;
const SOLANA = /^[1-9A-HJ-NP-Za-km-z]{44}$/;

/** What one pass over the transaction stream tells the tests. */
interface TxStats {
  count: number;
  ordered: boolean;
  afterNow: number;
  uniqueHashes: number;
  badHashes: number;
  digest: string;
  firstTime: Map<string, number>;
  /** buyer -> [payments, last time, max payments within one minute] */
  perBuyer: Map<string, [number, number, number]>;
  beforeListing: number;
  pairs: Set<string>;
  selfPayBuyers: Set<string>;
  /** seller -> buyer -> [tx, volume] */
  sellerVolume: Map<string, Map<string, [number, number]>>;
  amountMatchesPrice: number;
  amountChecked: number;
  nullResource: number;
  nullFacilitator: number;
}

function scan(world: X402World): TxStats {
  const priceOf = new Map<string, number | null>();
  for (const s of world.services) priceOf.set(s[2] as string, s[6] as number | null);
  const sellerListed = new Map<string, number>();
  for (const sv of world.services)
    sellerListed.set(sv[1] as string, Math.min(sellerListed.get(sv[1] as string) ?? Infinity, (sv[7] as Date).getTime()));
  const minuteOf = new Map<string, [number, number]>();
  const hash = createHash('sha256');
  const hashes = new Set<string>();
  const stats: TxStats = {
    count: 0,
    ordered: true,
    afterNow: 0,
    uniqueHashes: 0,
    badHashes: 0,
    digest: '',
    firstTime: new Map(),
    perBuyer: new Map(),
    beforeListing: 0,
    pairs: new Set(),
    selfPayBuyers: new Set(),
    sellerVolume: new Map(),
    amountMatchesPrice: 0,
    amountChecked: 0,
    nullResource: 0,
    nullFacilitator: 0,
  };
  let prevTime = -Infinity;
  let prevHash = '';
  for (const row of world.transactions) {
    const [txHashCell, chain, buyer, seller, amount, time, url, facilitator] = row as [
      string,
      string,
      string,
      string,
      number,
      Date,
      string | null,
      string | null,
    ];
    const t = time.getTime();
    if (t < prevTime || (t === prevTime && txHashCell <= prevHash)) stats.ordered = false;
    prevTime = t;
    prevHash = txHashCell;
    if (t > NOW.getTime()) stats.afterNow++;
    hashes.add(txHashCell);
    if (!(chain === 'solana' ? /^[1-9A-HJ-NP-Za-km-z]{88}$/ : /^0x[0-9a-f]{64}$/).test(txHashCell)) stats.badHashes++;
    hash.update(JSON.stringify(row));
    stats.count++;
    if (!stats.firstTime.has(buyer)) stats.firstTime.set(buyer, t);
    if (t < sellerListed.get(seller)!) stats.beforeListing++;
    const minute = Math.floor(t / MINUTE);
    const m = minuteOf.get(buyer);
    const inMinute = m && m[0] === minute ? m[1] + 1 : 1;
    minuteOf.set(buyer, [minute, inMinute]);
    const b = stats.perBuyer.get(buyer) ?? [0, 0, 0];
    stats.perBuyer.set(buyer, [b[0] + 1, t, Math.max(b[2], inMinute)]);
    stats.pairs.add(`${buyer}|${seller}|${chain}`);
    if (buyer === seller) stats.selfPayBuyers.add(buyer);
    let bySeller = stats.sellerVolume.get(seller);
    if (!bySeller) stats.sellerVolume.set(seller, (bySeller = new Map()));
    const v = bySeller.get(buyer) ?? [0, 0];
    v[0]++;
    v[1] += amount;
    bySeller.set(buyer, v);
    if (url === null) stats.nullResource++;
    else {
      const price = priceOf.get(url);
      if (price !== null && price !== undefined) {
        stats.amountChecked++;
        if (Math.abs(amount - price) < 1e-9) stats.amountMatchesPrice++;
      }
    }
    if (facilitator === null) stats.nullFacilitator++;
  }
  stats.uniqueHashes = hashes.size;
  stats.digest = hash.digest('hex');
  return stats;
}

function checkShape(rows: readonly Row[], table: RawTable, nullable: readonly string[]): void {
  const columns = table.columns;
  for (const row of rows) {
    expect(row).toHaveLength(columns.length);
    columns.forEach(([name, type], i) => {
      const cell = row[i];
      if (cell === null) {
        expect(nullable, `${table.name}.${name} is NULL`).toContain(name);
        return;
      }
      if (type === 'VARCHAR') expect(typeof cell, `${table.name}.${name}`).toBe('string');
      else if (type === 'DOUBLE') expect(Number.isFinite(cell), `${table.name}.${name}`).toBe(true);
      else if (type === 'TIMESTAMP') expect(cell instanceof Date && !Number.isNaN(cell.getTime()), `${table.name}.${name}`).toBe(true);
      if (name === 'source') expect(cell).toBe('demo');
    });
  }
}

function byGroup(world: X402World, patterns: readonly string[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const [address, , pattern, , group] of world.truthBuyers) {
    if (!patterns.includes(pattern as string) || group === null) continue;
    const list = groups.get(group as string) ?? [];
    list.push(address as string);
    groups.set(group as string, list);
  }
  return groups;
}

describe('x402 demo world', () => {
  let world: X402World;
  let stats: TxStats;
  let firstFunder: Map<string, string>;
  let firstFunding: Map<string, number>;

  beforeAll(() => {
    world = x402World({ seed: 42, now: NOW, scale: 1 });
    stats = scan(world);
    firstFunder = new Map();
    firstFunding = new Map();
    for (const [address, funder, , time] of world.funding) {
      if (!firstFunder.has(address as string)) {
        firstFunder.set(address as string, funder as string);
        firstFunding.set(address as string, (time as Date).getTime());
      }
    }
  });

  it('is deterministic for a seed and differs across seeds; the stream is re-iterable', () => {
    const again = x402World({ seed: 42, now: NOW, scale: 1 });
    expect(again.services).toEqual(world.services);
    expect(again.funding).toEqual(world.funding);
    expect(again.truthBuyers).toEqual(world.truthBuyers);
    expect(again.truthPairs).toEqual(world.truthPairs);
    expect(scan(again).digest).toBe(stats.digest);
    expect(scan(world).digest).toBe(stats.digest);
    const other = x402World({ seed: 43, now: NOW, scale: 1 });
    expect(other.services).not.toEqual(world.services);
    expect(other.truthBuyers).not.toEqual(world.truthBuyers);
    expect(scan(other).digest).not.toBe(stats.digest);
  });

  it('writes rows in the column order and types of the raw and truth tables', () => {
    checkShape(world.services, RAW_TABLES.x402_services, ['category', 'price_amount']);
    checkShape(world.funding, RAW_TABLES.wallet_funding, []);
    checkShape(world.truthBuyers, DEMO_TRUTH_TABLES.demo_truth_buyers, ['group_id']);
    checkShape(world.truthPairs, DEMO_TRUTH_TABLES.demo_truth_pairs, []);
    const sample: Row[] = [];
    for (const row of world.transactions) {
      sample.push(row);
      if (sample.length === 5000) break;
    }
    checkShape(sample, RAW_TABLES.x402_transactions, ['resource_url', 'facilitator']);
    for (const [, label] of world.truthBuyers) expect(WASH_LABELS).toContain(label);
  });

  it('lists about 1,000 services over all 33 categories and 4 chains, Base first and Solana second', () => {
    expect(world.services.length).toBeGreaterThan(900);
    expect(world.services.length).toBeLessThan(1300);
    const categories = new Set(world.services.map((s) => s[5]));
    for (const slug of CATEGORY_SLUGS) expect(categories, slug).toContain(slug);
    const perChain = new Map<string, number>();
    for (const s of world.services) perChain.set(s[0] as string, (perChain.get(s[0] as string) ?? 0) + 1);
    for (const chain of ANALYTICS_CHAINS) expect(perChain.get(chain) ?? 0, chain).toBeGreaterThan(0);
    const ranked = [...perChain.entries()].sort((a, b) => b[1] - a[1]).map(([c]) => c);
    expect(ranked.slice(0, 2)).toEqual(['base', 'solana']);
    expect(new Set(world.services.map((s) => s[2])).size).toBe(world.services.length);
    for (const s of world.services) {
      expect(s[1]).toMatch(s[0] === 'solana' ? SOLANA : EVM);
      expect(s[2]).toMatch(/^https:\/\/[a-z0-9.-]+\.[a-z]+\//);
      expect((s[7] as Date).getTime()).toBeLessThanOrEqual(NOW.getTime());
      expect((s[7] as Date).getTime()).toBeGreaterThan(NOW.getTime() - 401 * DAY);
    }
  });

  it('has several new services a day recently, placeholders and listings without category', () => {
    const recent = world.services.filter((s) => (s[7] as Date).getTime() > NOW.getTime() - 15 * DAY).length;
    expect(recent).toBeGreaterThan(45);
    expect(world.services.filter((s) => (s[7] as Date).getTime() > NOW.getTime() - DAY).length).toBeGreaterThan(0);
    const placeholders = world.services.filter((s) => s[5] === 'test_dummy');
    expect(placeholders.length).toBeGreaterThanOrEqual(10);
    expect(placeholders.some((s) => /test|hello|demo|example/i.test(`${s[3]} ${s[2]}`))).toBe(true);
    const uncategorised = world.services.filter((s) => s[5] === null).length;
    expect(uncategorised / world.services.length).toBeGreaterThan(0.01);
    expect(uncategorised / world.services.length).toBeLessThan(0.06);
    expect(world.services.some((s) => s[6] === null)).toBe(true);
  });

  it('plants every label with its minimum count and the intended mix', () => {
    const counts = new Map<string, number>();
    for (const [, label] of world.truthBuyers) counts.set(label as string, (counts.get(label as string) ?? 0) + 1);
    expect(counts.has('unlabeled')).toBe(false);
    for (const label of WASH_LABELS.filter((l) => l !== 'unlabeled')) {
      expect(counts.get(label) ?? 0, label).toBeGreaterThanOrEqual(label === 'verifier' ? 8 : 15);
    }
    const total = world.truthBuyers.length;
    expect(total).toBeGreaterThanOrEqual(12_000);
    expect(total).toBeLessThanOrEqual(16_000);
    // Over the whole history (the last 30 days are checked against the real market below).
    expect(counts.get('organic_user')! / total).toBeGreaterThan(0.88);
    expect(counts.get('organic_user')! / total).toBeLessThan(0.95);
    expect(counts.get('suspected_wash')! / total).toBeGreaterThan(0.025);
    expect(counts.get('suspected_wash')! / total).toBeLessThan(0.05);
    expect(new Set(world.truthBuyers.map((b) => b[0])).size).toBe(total);
  });

  it("matches the real market's 30-day label shares (x402watch, docs/wash-methodology.md §11.8)", () => {
    // Truth label of each buyer paying in the 30 days before now, with the volume it paid there.
    const label = new Map(world.truthBuyers.map((b) => [b[0] as string, b[1] as string]));
    const since = NOW.getTime() - 30 * DAY;
    const buyers = new Map<string, number>();
    const volume = new Map<string, number>();
    const active = new Set<string>();
    let total = 0;
    for (const t of world.transactions) {
      if ((t[5] as Date).getTime() < since) continue;
      const l = label.get(t[2] as string)!;
      if (!active.has(t[2] as string)) {
        active.add(t[2] as string);
        buyers.set(l, (buyers.get(l) ?? 0) + 1);
      }
      volume.set(l, (volume.get(l) ?? 0) + (t[4] as number));
      total += t[4] as number;
    }
    // A few thousand buyers a month: the demo stays fast.
    expect(active.size).toBeGreaterThan(2500);
    expect(active.size).toBeLessThan(5000);
    const buyerShare = (l: string) => (buyers.get(l) ?? 0) / active.size;
    // Real buyer shares, each within a factor of 1.5 (organic capped at 100 %).
    const real = { organic_user: 0.95, analytics_bot: 0.015, ai_agent: 0.013, suspected_wash: 0.009 };
    for (const [l, share] of Object.entries(real)) {
      expect(buyerShare(l), l).toBeGreaterThan(share / 1.5);
      expect(buyerShare(l), l).toBeLessThan(Math.min(1, share * 1.5));
    }
    // Real: wash 21 % of volume, organic users and agents 74 %.
    const wash = (volume.get('suspected_wash') ?? 0) / total;
    const realVolume = ((volume.get('organic_user') ?? 0) + (volume.get('ai_agent') ?? 0)) / total;
    expect(wash).toBeGreaterThan(0.15);
    expect(wash).toBeLessThan(0.27);
    expect(realVolume).toBeGreaterThan(0.65);
    expect(realVolume).toBeLessThan(0.8);
  });

  it('streams 150k-320k payments, unique hashes, ordered by (time, tx_hash), none after now', () => {
    expect(stats.count).toBeGreaterThan(150_000);
    expect(stats.count).toBeLessThan(320_000);
    expect(stats.ordered).toBe(true);
    expect(stats.afterNow).toBe(0);
    expect(stats.beforeListing).toBe(0);
    expect(stats.badHashes).toBe(0);
    expect(stats.uniqueHashes).toBe(stats.count);
    // Most resource URLs and facilitators are known, some are not.
    expect(stats.nullResource / stats.count).toBeGreaterThan(0.02);
    expect(stats.nullResource / stats.count).toBeLessThan(0.12);
    expect(stats.nullFacilitator).toBeGreaterThan(0);
    expect(stats.amountMatchesPrice / stats.amountChecked).toBeGreaterThan(0.9);
    expect(stats.amountMatchesPrice).toBeLessThan(stats.amountChecked);
  });

  it('gives every truth buyer payments and every paying buyer a truth row; pairs match the stream', () => {
    const truth = new Set(world.truthBuyers.map((b) => b[0] as string));
    for (const buyer of stats.firstTime.keys()) expect(truth.has(buyer), buyer).toBe(true);
    for (const buyer of truth) expect(stats.firstTime.has(buyer), buyer).toBe(true);
    const pairs = new Set(world.truthPairs.map(([a, s, c]) => `${a}|${s}|${c}`));
    expect(pairs.size).toBe(world.truthPairs.length);
    expect(pairs).toEqual(stats.pairs);
    for (const [address] of world.truthBuyers) expect(address).toMatch(new RegExp(`${EVM.source}|${SOLANA.source}`));
  });

  it('funds buyers before their first payment, mostly from exchange hot wallets', () => {
    let funded = 0;
    for (const [address] of world.truthBuyers) {
      const fundedAt = firstFunding.get(address as string);
      if (fundedAt === undefined) continue;
      funded++;
      expect(fundedAt, address as string).toBeLessThan(stats.firstTime.get(address as string)!);
    }
    expect(funded / world.truthBuyers.length).toBeGreaterThan(0.75);
    const exchanges = new Set(X402_EXCHANGE_WALLETS.map((w) => w.address));
    const organicFromExchange = world.truthBuyers.filter(
      (b) => b[1] === 'organic_user' && exchanges.has(firstFunder.get(b[0] as string) ?? ''),
    ).length;
    expect(organicFromExchange / world.truthBuyers.filter((b) => b[1] === 'organic_user').length).toBeGreaterThan(0.6);
    for (const f of world.funding) expect((f[3] as Date).getTime()).toBeLessThanOrEqual(NOW.getTime());
  });

  it('gives each honest label its behaviour', () => {
    const sellers = new Map<string, number>();
    for (const [buyer] of world.truthPairs) sellers.set(buyer as string, (sellers.get(buyer as string) ?? 0) + 1);
    const of = (label: string, pattern?: string) =>
      world.truthBuyers.filter((b) => b[1] === label && (pattern === undefined || b[2] === pattern)).map((b) => b[0] as string);
    const span = (a: string) => stats.perBuyer.get(a)![1] - stats.firstTime.get(a)!;
    const organicCounts = of('organic_user', 'organic')
      .map((a) => stats.perBuyer.get(a)![0])
      .sort((x, y) => x - y);
    expect(organicCounts[Math.floor(organicCounts.length / 2)]).toBeLessThanOrEqual(2);
    expect(organicCounts[organicCounts.length - 1]).toBeGreaterThan(20);
    for (const a of of('ai_agent')) {
      expect(sellers.get(a), a).toBeGreaterThanOrEqual(5);
      expect(sellers.get(a), a).toBeLessThanOrEqual(40);
      expect(span(a), a).toBeGreaterThanOrEqual(7 * DAY - MINUTE);
    }
    for (const a of of('analytics_bot')) {
      expect(sellers.get(a), a).toBeLessThanOrEqual(5);
      expect(span(a), a).toBeGreaterThan(6.9 * DAY);
    }
    for (const a of of('verifier')) expect(sellers.get(a), a).toBeGreaterThanOrEqual(20);
    for (const a of of('developer', 'load_test')) {
      expect(span(a), a).toBeLessThan(14 * DAY);
      expect(stats.perBuyer.get(a)![2], a).toBeGreaterThanOrEqual(10);
    }
    // Camouflaged farms carry members past the 20-seller / 500-payment guard.
    for (const [group, members] of byGroup(world, ['exchange_funded_farm', 'hop_funded_farm'])) {
      const past = members.filter((m) => sellers.get(m)! >= 20 && stats.perBuyer.get(m)![0] >= 500);
      expect(past.length, group).toBeGreaterThanOrEqual(2);
    }
  });

  it('plants sybil cohorts that share a funder and start within 30 minutes', () => {
    const cohorts = byGroup(world, ['sybil_cohort']);
    expect(cohorts.size).toBeGreaterThanOrEqual(3);
    for (const [group, members] of cohorts) {
      expect(members.length, group).toBeGreaterThanOrEqual(10);
      expect(members.length, group).toBeLessThanOrEqual(200);
      expect(new Set(members.map((m) => firstFunder.get(m))).size, group).toBe(1);
      const starts = members.map((m) => stats.firstTime.get(m)!);
      expect(Math.max(...starts) - Math.min(...starts), group).toBeLessThan(30 * MINUTE);
    }
  });

  it('plants strict (4+3 hex) and broad (2+3 hex) vanity cohorts', () => {
    for (const [kind, prefix, minSize] of [
      ['strict', 4, 3],
      ['broad', 2, 4],
    ] as const) {
      const cohorts = byGroup(world, [`vanity_${kind}`, 'vanity_operator']);
      const mine = [...cohorts.entries()].filter(([g]) => g.startsWith(`vanity_${kind}`));
      expect(mine.length, kind).toBeGreaterThanOrEqual(3);
      for (const [group, members] of mine) {
        expect(members.length, group).toBeGreaterThanOrEqual(minSize);
        expect(new Set(members.map((m) => m.slice(2, 2 + prefix) + m.slice(-3))).size, group).toBe(1);
      }
    }
  });

  it('has self-pay rows, seller-funded loops and their truth by size', () => {
    expect(stats.selfPayBuyers.size).toBeGreaterThan(20);
    const label = new Map(world.truthBuyers.map((b) => [b[0] as string, b[1] as string]));
    for (const buyer of stats.selfPayBuyers) expect(label.get(buyer)).toBe('self_test');
    const sellersOf = new Map<string, Set<string>>();
    for (const [buyer, seller] of world.truthPairs) {
      const set = sellersOf.get(buyer as string) ?? new Set();
      set.add(seller as string);
      sellersOf.set(buyer as string, set);
    }
    for (const [pattern, truth, min, max] of [
      ['seller_funded_test', 'self_test', 1, 5],
      ['funded_loop_boundary', 'self_test', 6, 9],
      ['funded_loop', 'suspected_wash', 10, 100],
    ] as const) {
      const groups = byGroup(world, [pattern]);
      expect(groups.size, pattern).toBeGreaterThan(0);
      for (const [group, members] of groups) {
        expect(members.length, group).toBeGreaterThanOrEqual(min);
        expect(members.length, group).toBeLessThanOrEqual(max);
        for (const m of members) expect(label.get(m)).toBe(truth);
        // Funded by the seller itself (hard loops go through one hop).
        if (!group.includes('hard')) for (const m of members) expect(sellersOf.get(m)!.has(firstFunder.get(m)!), group).toBe(true);
      }
    }
  });

  it('plants single-payer concentration sellers and honest look-alikes', () => {
    const label = new Map(world.truthBuyers.map((b) => [b[0] as string, [b[1], b[2]] as const]));
    const groups = byGroup(world, ['single_payer_concentration', 'b2b_customer']);
    expect(groups.size).toBeGreaterThanOrEqual(4);
    for (const [group, [payer]] of groups) {
      let found = false;
      for (const buyers of stats.sellerVolume.values()) {
        const mine = buyers.get(payer!);
        if (!mine || mine[0] < 200) continue;
        let total = 0;
        for (const [, v] of buyers) total += v[1];
        expect(mine[1] / total, group).toBeGreaterThanOrEqual(0.95);
        found = true;
      }
      expect(found, group).toBe(true);
    }
    const patterns = new Set([...label.values()].map(([l, p]) => `${l}/${p}`));
    for (const honest of [
      'organic_user/b2b_customer',
      'organic_user/honest_launch',
      'organic_user/cex_shared_funder',
      'organic_user/heavy_organic',
      'analytics_bot/bot_touching_farm',
      'ai_agent/heavy_agent',
    ]) {
      expect(patterns, honest).toContain(honest);
    }
  });

  it('plants the challenge patterns (issue 15) with parameters from the "in" ranges', () => {
    const exchanges = new Set(X402_EXCHANGE_WALLETS.map((w) => w.address));
    const inRange = (pattern: keyof typeof CHALLENGE_PARAMETERS, name: string, value: number, slack = 0) => {
      const [lo, hi] = (CHALLENGE_PARAMETERS[pattern] as Record<string, ParameterSpec>)[name]!.in;
      expect(value, `${pattern}.${name}`).toBeGreaterThanOrEqual(lo);
      expect(value, `${pattern}.${name}`).toBeLessThanOrEqual(hi + slack);
    };
    const sellersOf = new Map<string, Set<string>>();
    for (const [buyer, seller] of world.truthPairs)
      sellersOf.set(buyer as string, (sellersOf.get(buyer as string) ?? new Set()).add(seller as string));
    const startSpread = (members: string[]) => {
      const starts = members.map((m) => stats.firstTime.get(m)!);
      return Math.max(...starts) - Math.min(...starts);
    };
    const groupsOf = (pattern: string) => {
      const groups = byGroup(world, [pattern]);
      expect(groups.size, pattern).toBeGreaterThanOrEqual(2);
      return groups;
    };

    // sybil_spread: one shared (non-exchange) funder, starts spread over hours to days
    for (const [group, members] of groupsOf('sybil_spread')) {
      inRange('sybil_spread', 'cohortSize', members.length);
      const funders = new Set(members.map((m) => firstFunder.get(m)));
      expect(funders.size, group).toBe(1);
      expect(exchanges.has([...funders][0]!), group).toBe(false);
      expect(startSpread(members), group).toBeGreaterThan(30 * MINUTE);
      expect(startSpread(members), group).toBeLessThanOrEqual(3 * DAY);
    }
    // vanity_exchange: a shared 4-5 hex prefix and 3 hex suffix, every wallet funded by an exchange
    for (const [group, members] of groupsOf('vanity_exchange')) {
      inRange('vanity_exchange', 'cohortSize', members.length);
      expect(new Set(members.map((m) => m.slice(2, 6) + m.slice(-3))).size, group).toBe(1);
      for (const m of members) expect(exchanges.has(firstFunder.get(m)!), m).toBe(true);
    }
    // round_trip: the seller the buyer pays sends money back to it after it has paid
    for (const [group, members] of groupsOf('round_trip')) {
      inRange('round_trip', 'buyers', members.length);
      for (const m of members) {
        const returns = world.funding.filter(
          ([address, funder, , time]) =>
            address === m && sellersOf.get(m)!.has(funder as string) && (time as Date).getTime() > stats.firstTime.get(m)!,
        );
        inRange('round_trip', 'rounds', returns.length);
        expect(exchanges.has(firstFunder.get(m)!), group).toBe(true);
      }
    }
    // hackathon: one faucet, one new sponsor service, starts within hours, bursts seconds apart
    for (const [group, members] of groupsOf('hackathon')) {
      inRange('hackathon', 'developers', members.length);
      expect(new Set(members.map((m) => firstFunder.get(m))).size, group).toBe(1);
      expect(startSpread(members), group).toBeLessThanOrEqual(6 * HOUR);
      const shared = [...sellersOf.get(members[0]!)!].filter((s) => members.every((m) => sellersOf.get(m)!.has(s)));
      expect(shared.length, group).toBe(1);
      for (const m of members) expect(stats.perBuyer.get(m)![2], m).toBeGreaterThanOrEqual(5);
    }
    // agent_fleet: one treasury, each agent on many sellers
    for (const [group, members] of groupsOf('agent_fleet')) {
      inRange('agent_fleet', 'agents', members.length);
      expect(new Set(members.map((m) => firstFunder.get(m))).size, group).toBe(1);
      for (const m of members) inRange('agent_fleet', 'servicesPerAgent', sellersOf.get(m)!.size);
    }
    // heavy_single: hundreds of payments to one seller
    const heavy = world.truthBuyers.filter((b) => b[2] === 'heavy_single').map((b) => b[0] as string);
    expect(heavy.length).toBeGreaterThanOrEqual(5);
    for (const m of heavy) {
      expect(sellersOf.get(m)!.size, m).toBe(1);
      inRange('heavy_single', 'calls', stats.perBuyer.get(m)![0]);
    }
    const labelOf = new Map(world.truthBuyers.map((b) => [b[2] as string, b[1] as string]));
    for (const pattern of ['sybil_spread', 'vanity_exchange', 'round_trip', 'hackathon', 'agent_fleet', 'heavy_single'] as const) {
      expect(labelOf.get(pattern), pattern).toBe(CHALLENGE_PATTERNS[pattern].label);
    }
  });

  it('balances ring flows: each member pays the next what it receives', () => {
    const rings = byGroup(world, ['ring']);
    expect(rings.size).toBeGreaterThanOrEqual(3);
    for (const [group, members] of rings) {
      if (group.includes('hard')) continue;
      for (const m of members) {
        let inflow = 0;
        for (const [, v] of stats.sellerVolume.get(m) ?? new Map<string, [number, number]>()) inflow += v[1];
        let outflow = 0;
        for (const other of members) outflow += stats.sellerVolume.get(other)?.get(m)?.[1] ?? 0;
        expect(inflow, group).toBeGreaterThan(0);
        expect(Math.abs(inflow - outflow) / Math.max(inflow, outflow), group).toBeLessThan(0.05);
      }
    }
  });

  it("draws transaction hashes in each chain's format, reproducibly", () => {
    const a = new Rng(7, 'hash');
    const b = new Rng(7, 'hash');
    for (let i = 0; i < 50; i++) {
      const evm = txHash(a, 'base');
      expect(evm).toMatch(/^0x[0-9a-f]{64}$/);
      expect(txHash(b, 'base')).toBe(evm);
      const sol = txHash(a, 'solana');
      expect(sol).toMatch(/^[1-9A-HJ-NP-Za-km-z]{88}$/);
      expect(txHash(b, 'solana')).toBe(sol);
    }
  });

  it('builds small and larger worlds', () => {
    const tiny = x402World({ seed: 1, now: NOW, scale: 0.05 });
    expect(tiny.services.length).toBeGreaterThanOrEqual(120);
    let n = 0;
    for (const row of tiny.transactions) if (row[0]) n++;
    expect(n).toBeGreaterThan(0);
    expect(() => x402World({ seed: 1, now: NOW, scale: 0 })).toThrow(/scale/);
  });
});
