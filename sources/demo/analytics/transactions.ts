/**
 * From buyer plans to x402_transactions rows. Each buyer's payments are drawn from its own PRNG
 * stream when the stream reaches the buyer's start (so a buyer's rows do not depend on any other
 * buyer), and a heap merges the active buyers into one sequence ordered by (time, tx_hash) over
 * the whole table. Memory holds the plans plus the drawn, not yet emitted payments of the buyers
 * active at the current instant (long-running cron jobs a batch at a time), never the table.
 */
import type { Row } from '../../../lib/duckdb.ts';
import { Rng, txHash } from '../random.ts';
import { type Catalog, HOUR, MINUTE } from './catalog.ts';
import type { BuyerPlan, Timing } from './plans.ts';

/** One payment before it becomes a row. */
export interface Payment {
  time: number;
  service: number;
  amount: number;
  hash: string;
  resourceUrl: string | null;
  facilitator: string | null;
}

/** Share of settlements the indexer could not attribute to an endpoint, or to a facilitator. */
const NO_RESOURCE_URL = 0.06;
const NO_FACILITATOR = 0.04;
/** Bursts and soak tests stop here even if the schedule would go on (a runaway load test). */
const MAX_BURST_PAYMENTS = 20_000;
/** Ticks of a cron job drawn at once: a minute-level bot holds about 8 hours of payments. */
const CRON_TICKS_PER_BATCH = 512;

/** The PRNG of one buyer's payments: distinct per (seed, plan index), independent of other buyers. */
function buyerRng(seed: number, index: number): Rng {
  return new Rng((seed + Math.imul(index + 1, 0x9e3779b1)) >>> 0, 'x402:buyer-payments');
}

/**
 * The payments of one buyer as successive batches, each ordered by (time, hash) and each later
 * than the one before; null when there are no more. Cron jobs run for weeks at minute cadence, so
 * they are drawn a few hundred ticks at a time; every other schedule comes in one batch.
 */
export function paymentBatches(plan: BuyerPlan, catalog: Catalog, now: number, seed: number): () => Payment[] | null {
  const rng = buyerRng(seed, plan.index);
  const timing = plan.timing;
  if (timing.kind === 'cron') {
    const n = plan.legs.length;
    let tick = 0;
    let base = plan.start;
    return () => {
      const times: number[] = [];
      const legs: number[] = [];
      for (let k = 0; (k < CRON_TICKS_PER_BATCH || times.length === 0) && base <= timing.end; k++, tick++, base += timing.period) {
        // Every leg is polled before ticks may be skipped (missed runs), so every leg has payments.
        if (tick >= n && rng.chance(timing.skip)) continue;
        const time = tick === 0 ? plan.start : Math.floor(base + rng.uniform(-0.1, 0.1) * timing.period);
        if (timing.rotate) {
          times.push(time);
          legs.push(tick % n);
        } else {
          for (let j = 0; j < n; j++) {
            times.push(time + j * rng.int(300, 2500));
            legs.push(j);
          }
        }
      }
      return times.length === 0 ? null : toPayments(plan, times, legs, catalog, now, rng);
    };
  }
  let done = false;
  return () => {
    if (done) return null;
    done = true;
    const times: number[] = [];
    const legs: number[] = [];
    scheduleTimes(plan, timing, catalog, now, rng, (time, leg) => {
      times.push(Math.floor(time));
      legs.push(leg);
    });
    return toPayments(plan, times, legs, catalog, now, rng);
  };
}

/** All payments of one buyer, ordered by (time, hash). */
export function drawPayments(plan: BuyerPlan, catalog: Catalog, now: number, seed: number): Payment[] {
  const next = paymentBatches(plan, catalog, now, seed);
  const all: Payment[] = [];
  for (let batch = next(); batch !== null; batch = next()) all.push(...batch);
  return all;
}

function toPayments(
  plan: BuyerPlan,
  times: readonly number[],
  legs: readonly number[],
  catalog: Catalog,
  now: number,
  rng: Rng,
): Payment[] {
  const payments: Payment[] = new Array(times.length);
  for (let i = 0; i < times.length; i++) {
    const service = catalog.services[plan.legs[legs[i]!]!.service]!;
    payments[i] = {
      time: Math.min(times[i]!, now),
      service: service.index,
      amount: catalog.amountOf(service, rng),
      hash: txHash(rng, service.chain),
      resourceUrl: rng.chance(NO_RESOURCE_URL) ? null : service.url,
      facilitator: rng.chance(NO_FACILITATOR) ? null : rng.pick(service.relayers),
    };
  }
  payments.sort(byTimeThenHash);
  return payments;
}

/** Times (and legs) of every payment of a one-batch schedule, in any order. */
function scheduleTimes(
  plan: BuyerPlan,
  timing: Exclude<Timing, { kind: 'cron' }>,
  catalog: Catalog,
  now: number,
  rng: Rng,
  push: (time: number, leg: number) => void,
): void {
  switch (timing.kind) {
    case 'pieces': {
      let first = 0;
      timing.pieces.forEach((p, i) => {
        if (p.from < timing.pieces[first]!.from) first = i;
      });
      timing.pieces.forEach((p, i) => {
        for (let k = 0; k < p.count; k++) {
          // The earliest piece opens exactly at its start: the cohort's coordinated start is exact.
          push(i === first && k === 0 ? p.from : p.from + rng.next() * (p.to - p.from), p.leg);
        }
      });
      return;
    }
    case 'sessions': {
      const sequence: number[] = [];
      plan.legs.forEach((leg, i) => {
        for (let k = 0; k < leg.count; k++) sequence.push(i);
      });
      rng.shuffle(sequence);
      const offsets = new Float64Array(sequence.length);
      let t = 0;
      for (let i = 1; i < sequence.length; i++) {
        const newSession = rng.chance(timing.pNewSession);
        t += newSession
          ? rng.logNormal(Math.log(timing.sessionGapMedian), timing.sessionGapSigma)
          : rng.logNormal(Math.log(timing.intraGapMedian), timing.intraGapSigma);
        if (newSession && timing.tzHours !== null) t = awake(plan.start + t, timing.tzHours, rng) - plan.start;
        offsets[i] = t;
      }
      const span = timing.end - plan.start;
      const total = offsets[sequence.length - 1] ?? 0;
      const factor = total <= 0 ? 1 : timing.fit === 'stretch' ? span / total : Math.min(1, span / total);
      for (let i = 0; i < sequence.length; i++) push(plan.start + offsets[i]! * factor, sequence[i]!);
      return;
    }
    case 'verifier': {
      plan.legs.forEach((leg, i) => {
        const listed = catalog.services[leg.service]!.firstSeen;
        const delay = Math.min(71.5 * HOUR, Math.max(2 * MINUTE, rng.logNormal(Math.log(timing.delayMedian), timing.delaySigma)));
        let t0 = listed + delay;
        if (t0 > now) t0 = listed + rng.next() * (now - listed);
        push(t0, i);
        for (let k = 1; k < leg.count; k++) push(Math.min(now, t0 + rng.int(5_000, 20 * MINUTE)), i);
      });
      return;
    }
    case 'bursts': {
      const span = timing.end - plan.start;
      let made = 0;
      for (let b = 0; b < timing.bursts && made < MAX_BURST_PAYMENTS; b++) {
        const at = b === 0 ? plan.start : workingHours(plan.start + rng.next() * span, timing.tzHours, rng);
        if (at > timing.end) continue;
        const soak = timing.soak && b === 0;
        const minutes = soak ? rng.uniform(60, 240) : Math.min(120, Math.max(2, rng.logNormal(Math.log(3), 0.8)));
        const perMinute = soak ? rng.uniform(10, 14) : rng.uniform(12, 60);
        const stop = Math.min(now, at + minutes * MINUTE);
        for (let t = at; t <= stop && made < MAX_BURST_PAYMENTS; t += rng.exponential(MINUTE / perMinute), made++) push(t, 0);
      }
      for (let i = 1; i < plan.legs.length; i++) {
        for (let k = 0; k < plan.legs[i]!.count; k++) push(plan.start + rng.next() * span, i);
      }
      return;
    }
  }
}

/** Push a human's session out of local night (01:00-07:00) to the morning. */
function awake(t: number, tzHours: number, rng: Rng): number {
  const hour = (((t / HOUR + tzHours) % 24) + 24) % 24;
  return hour >= 1 && hour < 7 ? t + (7 - hour) * HOUR + rng.next() * 2 * HOUR : t;
}

/** Move a developer's test run into local working hours (09:00-19:00). */
function workingHours(t: number, tzHours: number, rng: Rng): number {
  const hour = (((t / HOUR + tzHours) % 24) + 24) % 24;
  if (hour >= 9 && hour < 19) return t;
  const until9 = hour < 9 ? 9 - hour : 33 - hour;
  return t + until9 * HOUR + rng.next() * 3 * HOUR;
}

function byTimeThenHash(a: { time: number; hash: string }, b: { time: number; hash: string }): number {
  return a.time - b.time || (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0);
}

interface Cursor {
  plan: BuyerPlan;
  next: () => Payment[] | null;
  payments: Payment[];
  pos: number;
}

function cursorBefore(a: Cursor, b: Cursor): boolean {
  return byTimeThenHash(a.payments[a.pos]!, b.payments[b.pos]!) < 0;
}

/**
 * The x402_transactions rows of all plans in (time, tx_hash) order. Re-iterable: each iteration
 * draws the payments again from the same streams, so it yields the same rows.
 */
export function transactionRows(plans: readonly BuyerPlan[], catalog: Catalog, now: number, seed: number): Iterable<Row> {
  const order = [...plans].sort((a, b) => a.start - b.start || a.index - b.index);
  return {
    [Symbol.iterator]: () => mergeByTime(order, catalog, now, seed),
  };
}

function* mergeByTime(order: readonly BuyerPlan[], catalog: Catalog, now: number, seed: number): Generator<Row, void, undefined> {
  const heap: Cursor[] = [];
  let next = 0;
  for (;;) {
    const top = heap[0];
    const nextStart = next < order.length ? order[next]!.start : Infinity;
    if (top === undefined && nextStart === Infinity) return;
    // A buyer whose start is not after the next payment may pay first: activate it before emitting.
    if (top === undefined || nextStart <= top.payments[top.pos]!.time) {
      const plan = order[next++]!;
      const batches = paymentBatches(plan, catalog, now, seed);
      const payments = batches();
      if (payments !== null && payments.length > 0) {
        heap.push({ plan, next: batches, payments, pos: 0 });
        siftUp(heap, heap.length - 1);
      }
      continue;
    }
    const p = top.payments[top.pos]!;
    const service = catalog.services[p.service]!;
    yield [
      p.hash,
      service.chain,
      top.plan.address,
      service.sellerAddress,
      p.amount,
      new Date(p.time),
      p.resourceUrl,
      p.facilitator,
      'demo',
    ];
    top.pos++;
    if (top.pos === top.payments.length) {
      const more = top.next();
      if (more !== null && more.length > 0) {
        top.payments = more;
        top.pos = 0;
        siftDown(heap, 0);
        continue;
      }
      const last = heap.pop()!;
      if (heap.length > 0) {
        heap[0] = last;
        siftDown(heap, 0);
      }
    } else {
      siftDown(heap, 0);
    }
  }
}

function siftUp(heap: Cursor[], i: number): void {
  const item = heap[i]!;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!cursorBefore(item, heap[parent]!)) break;
    heap[i] = heap[parent]!;
    i = parent;
  }
  heap[i] = item;
}

function siftDown(heap: Cursor[], i: number): void {
  const item = heap[i]!;
  const n = heap.length;
  for (;;) {
    const left = 2 * i + 1;
    if (left >= n) break;
    const right = left + 1;
    const child = right < n && cursorBefore(heap[right]!, heap[left]!) ? right : left;
    if (!cursorBefore(heap[child]!, item)) break;
    heap[i] = heap[child]!;
    i = child;
  }
  heap[i] = item;
}
