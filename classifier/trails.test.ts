/**
 * Money trails (classifier/trails.ts, docs/wash-methodology.md §3.8) on hand-made worlds, through
 * classify(): the financed share and the path a label names, and a defined answer for bad input,
 * never a crash or an unbounded walk: a funding graph with cycles, a trail of 10,000 hops, an
 * address that is both an exchange and a seller, a seller with no funding data at all.
 */
import { createHash } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { THRESHOLDS as T } from '../catalog/wash-rules.ts';
import { queryJson, sqlString } from '../lib/duckdb.ts';
import { openWarehouse, type Warehouse } from '../pipelines/warehouse.ts';
import { classify } from './index.ts';
import { RawWorld } from '../pipelines/testing/raw-world.ts';

const NOW = new Date('2026-06-01T00:00:00Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = NOW.getTime() - 60 * DAY;

const addr = (tag: string): string => `0x${createHash('sha256').update(tag).digest('hex').slice(0, 40)}`;

/** A seeded PRNG per tag: the same world every run. */
function rand(tag: string): () => number {
  let s = createHash('sha256').update(tag).digest().readUInt32LE(0);
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

class World extends RawWorld {
  /** A service of `seller` listed ten days before the world starts. */
  listing(seller: string, price = 0.05): string {
    return this.service(seller, 'ai_inference', price, T0 - 10 * DAY);
  }

  /** `n` wallets each paying `seller` about `calls` times over weeks, in irregular sessions (a person's rhythm, not a schedule). */
  payers(tag: string, n: number, seller: string, url: string, calls = 30, startSpreadDays = 0): string[] {
    const r = rand(tag);
    return Array.from({ length: n }, (_, i) => {
      const w = addr(`${tag}-${i}`);
      let t = T0 + r() * startSpreadDays * DAY + i * HOUR;
      const made = Math.max(2, Math.round(calls * (0.5 + r())));
      for (let k = 0; k < made; k++) {
        this.pay(w, seller, url, 0.05, t);
        t += r() < 0.6 ? r() * 20 * 60_000 : (4 + r() * 60) * HOUR;
      }
      return w;
    });
  }
}

const EXCHANGE = addr('exchange');

// the operator funds 15 sybils through a chain of 5 relays (deeper than the 4 hops a first-funding
// chain is read): the trail follows the money
const DEEP = { seller: addr('deep-seller'), relays: Array.from({ length: 5 }, (_, i) => addr(`deep-relay-${i}`)) };
// a chain of 10,000 relays between a seller and one buyer: followed 13 transfers deep, no further
const LONG = { seller: addr('long-seller'), buyer: addr('long-buyer'), hops: 10_000 };
// funding cycles: three wallets sending money round and round, one of them funded by the seller
const CYCLE = { seller: addr('cycle-seller'), ring: [addr('cycle-a'), addr('cycle-b'), addr('cycle-c')] };
// an exchange hot wallet that also sells an API, whose customers withdraw from it
const EXCHANGE_SELLER = { customers: 'exchange-customer' };
// a seller with no funding row at all, paid by ordinary customers
const UNFUNDED = { seller: addr('unfunded-seller') };

function world(): World {
  const w = new World();
  w.exchange(EXCHANGE);

  const deepUrl = w.listing(DEEP.seller);
  w.fund(DEEP.seller, EXCHANGE, 500, T0 - 30 * DAY);
  w.fund(DEEP.relays[0]!, DEEP.seller, 400, T0 - 20 * DAY);
  DEEP.relays.slice(1).forEach((r, i) => w.fund(r, DEEP.relays[i]!, 300 - i * 20, T0 - (19 - i) * DAY));
  const deep = w.payers('deep-sybil', 15, DEEP.seller, deepUrl);
  deep.forEach((s, i) => w.fund(s, DEEP.relays.at(-1)!, 10, T0 - 2 * DAY + i * HOUR));

  const longUrl = w.listing(LONG.seller);
  w.fund(LONG.seller, EXCHANGE, 100, T0 - 40 * DAY);
  let prev = LONG.seller;
  for (let h = 0; h < LONG.hops; h++) {
    const relay = addr(`long-relay-${h}`);
    w.fund(relay, prev, 50, T0 - 30 * DAY + h * 60_000);
    prev = relay;
  }
  w.fund(LONG.buyer, prev, 50, T0 - DAY);
  for (let k = 0; k < 30; k++) w.pay(LONG.buyer, LONG.seller, longUrl, 0.05, T0 + k * 17 * HOUR);

  const cycleUrl = w.listing(CYCLE.seller);
  w.fund(CYCLE.ring[0]!, CYCLE.seller, 100, T0 - 10 * DAY);
  for (let r = 0; r < 20; r++) {
    CYCLE.ring.forEach((a, i) => w.fund(CYCLE.ring[(i + 1) % 3]!, a, 30, T0 - 9 * DAY + r * HOUR + i * 60_000));
  }
  for (const a of CYCLE.ring) for (let k = 0; k < 25; k++) w.pay(a, CYCLE.seller, cycleUrl, 0.05, T0 + k * 17 * HOUR);

  const exchangeUrl = w.listing(EXCHANGE);
  const customers = w.payers(EXCHANGE_SELLER.customers, 20, EXCHANGE, exchangeUrl, 6, 40);
  // ordinary withdrawals, at their own times and amounts
  customers.forEach((c, i) => w.fund(c, EXCHANGE, 10 + 7 * i, T0 - 30 * DAY + i * 31 * HOUR));

  const unfundedUrl = w.listing(UNFUNDED.seller);
  // ordinary customers: arriving over weeks, each on its own
  const buyers = w.payers('unfunded-customer', 12, UNFUNDED.seller, unfundedUrl, 6, 40);
  buyers.forEach((b, i) => w.fund(b, EXCHANGE, 20 + i, T0 - 5 * DAY - i * 7 * HOUR));
  return w;
}

describe('money trails', () => {
  let wh: Warehouse;
  let c: DuckDBConnection;
  let seconds = 0;

  beforeAll(async () => {
    wh = await openWarehouse(':memory:', 'analytics', { threads: 2 });
    c = wh.connection;
    await world().load(c);
    const t0 = performance.now();
    await classify(c, { now: NOW });
    seconds = (performance.now() - t0) / 1000;
  }, 120_000);
  afterAll(() => wh.close());

  const buyer = async (address: string) => {
    const [row] = await queryJson(c, `SELECT label, reason, evidence FROM buyer_labels WHERE address = ${sqlString(address)}`);
    return row as {
      label: string;
      reason: string[];
      evidence: Array<{ kind: string; via: string; addresses: string[]; share: number }> | null;
    };
  };
  const trailOf = async (seller: string, node: string) =>
    queryJson(
      c,
      `SELECT t.taint, t.depth, t.path FROM money_trails t
        WHERE t.node = hash(${sqlString(node)}) AND t.op = (SELECT operator_id FROM seller_state WHERE seller_address = ${sqlString(seller)})`,
    );

  it("follows an operator's money through more relays than a first-funding chain is read, and names the path", async () => {
    expect(T.trailMaxHops).toBeGreaterThan(T.fundingMaxHops + 1);
    for (let i = 0; i < 15; i++) {
      const row = await buyer(addr(`deep-sybil-${i}`));
      expect(row.label).toBe('suspected_wash');
      expect(row.reason).toContain('money_trail');
      const trail = row.evidence!.find((e) => e.kind === 'money_trail')!;
      expect(trail.share, JSON.stringify(trail)).toBe(1);
      // the operator's side (the first relay: the seller sends it all it sends, its treasury), the
      // relays below it, the sybil
      expect(trail.addresses, JSON.stringify(trail)).toEqual([...DEEP.relays, addr(`deep-sybil-${i}`)]);
    }
  });

  it('answers a trail of 10,000 hops in bounded time: followed to its 13th transfer, the buyer beyond it untouched', async () => {
    expect(seconds).toBeLessThan(60);
    // the relays the rounds reached, and not one beyond
    const reached = await queryJson(
      c,
      `SELECT max(depth)::INTEGER AS depth, count(*)::INTEGER AS n FROM money_trails
        WHERE op = (SELECT operator_id FROM seller_state WHERE seller_address = ${sqlString(LONG.seller)})`,
    );
    expect(Number(reached[0]!.depth)).toBe(T.trailMaxHops + 1);
    expect(await trailOf(LONG.seller, LONG.buyer)).toEqual([]);
    const row = await buyer(LONG.buyer);
    expect(row.label).not.toBe('suspected_wash');
    expect(row.evidence).toBeNull();
  });

  it('converges on a funding graph with cycles: every taint within 0 and 1', async () => {
    for (const a of CYCLE.ring) {
      const [t] = await trailOf(CYCLE.seller, a);
      if (a === CYCLE.ring[0]) expect(t, a).toBeTruthy();
      if (t) {
        expect(Number(t.taint)).toBeGreaterThan(0);
        expect(Number(t.taint)).toBeLessThanOrEqual(1);
      }
    }
    const [bounds] = await queryJson(c, 'SELECT min(taint) AS lo, max(taint) AS hi FROM money_trails');
    expect(Number(bounds!.lo)).toBeGreaterThanOrEqual(T.trailMinTaint * 0);
    expect(Number(bounds!.hi)).toBeLessThanOrEqual(1);
  });

  it('gives an exchange that is also a seller no side: its customers, funded by its withdrawals, are not its money trail', async () => {
    const [op] = await queryJson(c, `SELECT operator_id FROM seller_state WHERE seller_address = ${sqlString(EXCHANGE)}`);
    expect(op).toBeTruthy();
    const [n] = await queryJson(c, `SELECT count(*)::INTEGER AS n FROM money_trails WHERE op = ${String(op!.operator_id)}`);
    expect(Number(n!.n)).toBe(0);
    for (let i = 0; i < 20; i++) {
      const row = await buyer(addr(`${EXCHANGE_SELLER.customers}-${i}`));
      expect(row.reason).not.toContain('money_trail');
      expect(row.label).not.toBe('suspected_wash');
    }
  });

  it('labels the customers of a seller with no funding data at all from their own evidence', async () => {
    const [state] = await queryJson(c, `SELECT trail_seeds FROM seller_state WHERE seller_address = ${sqlString(UNFUNDED.seller)}`);
    expect((state!.trail_seeds as unknown[]).length).toBe(1);
    for (let i = 0; i < 12; i++) {
      const row = await buyer(addr(`unfunded-customer-${i}`));
      expect(row.label).not.toBe('suspected_wash');
    }
  });
});
