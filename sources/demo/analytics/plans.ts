/**
 * Buyer plans: what each demo buyer wallet does, decided up front (which services it pays, how
 * many times, on what schedule, who funded it, and its true label). The transactions themselves
 * are drawn later from a plan, one buyer at a time, so the stream never holds the whole world.
 *
 * Because the plan fixes every (buyer, service) leg and every leg gets at least one transaction,
 * the truth tables can be written from the plans alone.
 */
import type { AnalyticsChain, WashLabel } from '../../../catalog/categories.ts';
import type { Row } from '../../../lib/duckdb.ts';
import type { Rng } from '../random.ts';
import { type AddressFamily, newAddress, pickExchange } from './addresses.ts';
import { type Catalog, DAY, HOUR, HISTORY_DAYS, MINUTE, round6, type ServicePool } from './catalog.ts';

/** What every planner works with. */
export interface PlanContext {
  catalog: Catalog;
  pool: ServicePool;
  book: PlanBook;
  now: number;
  scale: number;
}

/** Every planted wallet carries one of the 7 real labels; 'unlabeled' is only a confidence band. */
export type TruthLabel = Exclude<WashLabel, 'unlabeled'>;
export type Difficulty = 'easy' | 'medium' | 'hard';

/** One service a buyer pays, how often, and the label of that (buyer, seller) pair. */
export interface Leg {
  service: number;
  /** Planned payments; for cron and burst schedules a minimum (the schedule sets the rest). */
  count: number;
  label: TruthLabel;
}

/** `count` payments of `leg` at uniform random times in [from, to]. */
export interface Piece {
  leg: number;
  count: number;
  from: number;
  to: number;
}

export type Timing =
  /** Uniform times inside windows: farms, loops, rings, launch tests. */
  | { kind: 'pieces'; pieces: Piece[] }
  /** Human or agent usage: sessions separated by lognormal gaps, calls inside a session seconds apart. */
  | {
      kind: 'sessions';
      end: number;
      sessionGapMedian: number;
      sessionGapSigma: number;
      intraGapMedian: number;
      intraGapSigma: number;
      pNewSession: number;
      /** compress: squeeze into [start, end] only when it overflows; stretch: span exactly [start, end]. */
      fit: 'compress' | 'stretch';
      /** Local UTC offset of a human (sessions avoid local night); null for 24/7 software. */
      tzHours: number | null;
    }
  /** A scheduled job: a tick every `period` ±10%; all legs per tick, or one leg per tick in turn. */
  | { kind: 'cron'; period: number; end: number; rotate: boolean; skip: number }
  /** 1-3 calls to each listed service within 72 h of its first_seen. */
  | { kind: 'verifier'; delayMedian: number; delaySigma: number }
  /** Load tests on leg 0 (10-60 calls a minute); other legs are a few casual calls in [start, end]. */
  | { kind: 'bursts'; end: number; bursts: number; soak: boolean; tzHours: number };

export interface BuyerPlan {
  index: number;
  address: string;
  label: TruthLabel;
  pattern: string;
  difficulty: Difficulty;
  groupId: string | null;
  /** No payment before this instant; most schedules put the first payment exactly here. */
  start: number;
  legs: Leg[];
  timing: Timing;
}

export interface FundingTransfer {
  address: string;
  funder: string;
  amount: number;
  time: number;
}

/** The legs of one buyer, merged per service, with one label per seller. */
export class LegSet {
  readonly legs: Leg[] = [];
  private readonly byService = new Map<number, number>();
  private readonly sellerLabel = new Map<number, TruthLabel>();

  constructor(private readonly catalog: Catalog) {}

  /** Index of the leg, or -1 when the seller already carries another label for this buyer. */
  add(service: number, count: number, label: TruthLabel): number {
    const seller = this.catalog.services[service]!.seller;
    const known = this.sellerLabel.get(seller);
    if (known !== undefined && known !== label) return -1;
    this.sellerLabel.set(seller, label);
    const existing = this.byService.get(service);
    if (existing !== undefined) {
      this.legs[existing]!.count += count;
      return existing;
    }
    this.byService.set(service, this.legs.length);
    this.legs.push({ service, count, label });
    return this.legs.length - 1;
  }

  hasSeller(service: number): boolean {
    return this.sellerLabel.has(this.catalog.services[service]!.seller);
  }

  get sellerCount(): number {
    return this.sellerLabel.size;
  }

  get total(): number {
    let n = 0;
    for (const l of this.legs) n += l.count;
    return n;
  }
}

/** All buyer plans and funding transfers of a world, checked as they are added. */
export class PlanBook {
  readonly buyers: BuyerPlan[] = [];
  readonly funding: FundingTransfer[] = [];
  private readonly addresses = new Set<string>();

  constructor(
    readonly catalog: Catalog,
    readonly now: number,
  ) {}

  add(plan: Omit<BuyerPlan, 'index'>): BuyerPlan {
    const where = `x402 demo plan ${plan.pattern} ${plan.address}`;
    if (this.addresses.has(plan.address)) throw new Error(`${where}: address planned twice`);
    if (plan.legs.length === 0) throw new Error(`${where}: no legs`);
    if (!(plan.start <= this.now)) throw new Error(`${where}: starts after now`);
    const sellerLabel = new Map<number, TruthLabel>();
    for (const leg of plan.legs) {
      if (!(leg.count >= 1)) throw new Error(`${where}: a leg without payments`);
      const service = this.catalog.services[leg.service]!;
      if (service.firstSeen > this.now) throw new Error(`${where}: service listed after now`);
      const seller = service.seller;
      if ((sellerLabel.get(seller) ?? leg.label) !== leg.label) throw new Error(`${where}: two labels for one seller`);
      sellerLabel.set(seller, leg.label);
    }
    if (plan.timing.kind === 'pieces') {
      const covered = new Set<number>();
      for (const p of plan.timing.pieces) {
        if (!(p.from >= plan.start && p.from <= p.to && p.to <= this.now && p.count >= 1))
          throw new Error(`${where}: piece outside [start, now]`);
        if (this.catalog.services[plan.legs[p.leg]!.service]!.firstSeen > p.from)
          throw new Error(`${where}: pays a service before it is listed`);
        covered.add(p.leg);
      }
      if (covered.size !== plan.legs.length) throw new Error(`${where}: a leg has no piece`);
    } else if (plan.timing.kind !== 'verifier') {
      if (!(plan.timing.end >= plan.start && plan.timing.end <= this.now)) throw new Error(`${where}: schedule ends outside [start, now]`);
      for (const leg of plan.legs) {
        if (this.catalog.services[leg.service]!.firstSeen > plan.start) throw new Error(`${where}: pays a service before it is listed`);
      }
    }
    this.addresses.add(plan.address);
    const full: BuyerPlan = { ...plan, index: this.buyers.length };
    this.buyers.push(full);
    return full;
  }

  fund(address: string, funder: string, amount: number, time: number): void {
    if (!(time <= this.now)) throw new Error(`x402 demo funding of ${address}: after now`);
    this.funding.push({ address, funder, amount: round6(amount), time: Math.floor(time) });
  }

  /** Funding typical of a retail wallet: an exchange withdrawal, a personal wallet, or none seen. */
  /** Returns false when the wallet's funding is not seen (then it gets no later top-ups either). */
  fundRetail(
    rng: Rng,
    address: string,
    family: AddressFamily,
    firstPayment: number,
    shares: { exchange: number; personal: number; none: number },
  ): boolean {
    const how = rng.weighted(['exchange', 'personal', 'none'] as const, [shares.exchange, shares.personal, shares.none]);
    if (how === 'none') return false;
    const funder = how === 'exchange' ? pickExchange(rng, family) : newAddress(rng, family);
    const lead = Math.min(rng.logNormal(Math.log(6 * HOUR), 1.5), 60 * DAY) + MINUTE;
    this.fund(address, funder, retailAmount(rng), Math.max(firstPayment - lead, this.now - (HISTORY_DAYS + 60) * DAY));
    return true;
  }

  truthBuyerRows(): Row[] {
    return [...this.buyers]
      .sort((a, b) => compare(a.address, b.address))
      .map((p) => [p.address, p.label, p.pattern, p.difficulty, p.groupId]);
  }

  truthPairRows(): Row[] {
    const rows: Array<[string, string, AnalyticsChain, TruthLabel]> = [];
    for (const p of this.buyers) {
      const seen = new Set<string>();
      for (const leg of p.legs) {
        const s = this.catalog.services[leg.service]!;
        const key = `${s.chain}|${s.sellerAddress}`;
        if (seen.has(key)) continue;
        seen.add(key);
        rows.push([p.address, s.sellerAddress, s.chain, leg.label]);
      }
    }
    rows.sort((a, b) => compare(a[0], b[0]) || compare(a[2], b[2]) || compare(a[1], b[1]));
    return rows;
  }

  fundingRows(): Row[] {
    return [...this.funding]
      .sort((a, b) => a.time - b.time || compare(a.address, b.address) || compare(a.funder, b.funder))
      .map((f) => [f.address, f.funder, f.amount, new Date(f.time), 'demo']);
  }
}

/** Exchange withdrawals are usually round numbers a person types. */
export function retailAmount(rng: Rng): number {
  return rng.chance(0.8) ? rng.weighted([5, 10, 20, 25, 50, 100, 200, 500], [14, 24, 20, 8, 16, 10, 5, 3]) : round6(rng.uniform(3, 300));
}

export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Local UTC offsets of human users (Americas, Europe, Asia). */
export function pickTimezone(rng: Rng): number {
  return rng.weighted([-8, -7, -5, -4, -3, 0, 1, 2, 3, 5.5, 7, 8, 9], [12, 6, 16, 6, 4, 8, 12, 5, 3, 5, 4, 9, 10]);
}

export const clamp = (x: number, lo: number, hi: number): number => Math.max(lo, Math.min(hi, x));
