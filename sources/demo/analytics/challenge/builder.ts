/**
 * The challenge world's builder (issue 15), shared with the family world (../families/, issue 46):
 * addresses, services, settlements and funding transfers as they are planted, with the truth of
 * every buyer and pair, and the small behaviours every generator composes (a person's sessions, a
 * wash wallet's calls with camouflage, funding through relays, an ordinary user's use of popular
 * services). It knows nothing of the classifier: generators describe behaviour, not rules.
 */
import { CATEGORY_SLUGS } from '../../../../catalog/categories.ts';
import type { Row } from '../../../../lib/duckdb.ts';
import type { Rng } from '../../random.ts';
import {
  CHALLENGE_PATTERNS,
  type ChallengePattern,
  drawParameters,
  ORGANIC,
  type ParameterizedPattern,
  type ParamsOf,
  type Split,
} from './regimes.ts';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
/** How far back the world's history goes. */
export const HISTORY_DAYS = 180;
export const CHAIN = 'base';
export const SOURCE = 'demo';

export interface PlantedGroup {
  /** The pattern (challenge world) or family (family world). */
  pattern: string;
  groupId: string;
  /** The drawn parameters (within the split's ranges). */
  params: Record<string, number>;
  wallets: number;
}

export interface Service {
  seller: string;
  url: string;
  category: string;
  price: number;
  firstSeen: number;
  honest: boolean;
}

export interface Truth {
  label: string;
  /** The planted pattern (challenge world) or family (family world) the buyer belongs to. */
  pattern: string;
  group: string | null;
}

const hex = (rng: Rng, n: number): string => rng.hex(n);

/** The world under construction: addresses, services, and every row as it is planted. */
export class Builder {
  readonly services: Service[] = [];
  readonly honestServices: Service[] = [];
  /**
   * The services popularity picks draw from (popularHonest): every honest service by default; the
   * family world freezes it to the background's, so one family's new services never shift another's picks.
   */
  popularPool: Service[] = this.honestServices;
  readonly transactions: Array<{ time: number; hash: string; row: Row }> = [];
  readonly funding: Array<{ time: number; row: Row }> = [];
  readonly buyers = new Map<string, Truth>();
  readonly pairs = new Map<string, { address: string; seller: string; label: string }>();
  readonly groups: PlantedGroup[] = [];
  readonly exchanges: string[];
  readonly relayers: string[];
  private readonly used = new Set<string>();

  constructor(
    /** Swappable: the family world gives each family its own stream, so one family's draws never shift another's. */
    public rng: Rng,
    readonly now: number,
  ) {
    this.exchanges = Array.from({ length: 5 }, () => this.address());
    this.relayers = Array.from({ length: 3 }, () => this.address());
  }

  /** A fresh EVM address, optionally with a vanity prefix (after 0x) and suffix. */
  address(prefix = '', suffix = ''): string {
    for (;;) {
      const a = `0x${prefix}${hex(this.rng, 40 - prefix.length - suffix.length)}${suffix}`;
      if (!this.used.has(a)) {
        this.used.add(a);
        return a;
      }
    }
  }

  service(seller: string, firstSeen: number, honest: boolean, price?: number): Service {
    const n = this.services.length;
    const s: Service = {
      seller,
      url: `https://challenge-${seller.slice(2, 8)}.demo.example/v1/${n}`,
      category: this.rng.pick(CATEGORY_SLUGS),
      price: price ?? this.rng.pick([0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1]),
      firstSeen,
      honest,
    };
    this.services.push(s);
    if (honest) this.honestServices.push(s);
    return s;
  }

  fund(address: string, funder: string, amount: number, time: number): void {
    const t = Math.min(Math.floor(time), this.now);
    this.funding.push({ time: t, row: [address, funder, Math.round(amount * 1e6) / 1e6, new Date(t), SOURCE] });
  }

  fundFromExchange(address: string, time: number, amount = this.rng.uniform(5, 200)): void {
    this.fund(address, this.rng.pick(this.exchanges), amount, time);
  }

  /** The one large exchange: it funds a good share of honest users and the exchange bursts alike. */
  get largeExchange(): string {
    return this.exchanges[0]!;
  }

  /**
   * An ordinary user's exchange withdrawal (issue 29): often from the large exchange, often a round
   * amount less a fixed fee, so near-equal withdrawals from one exchange are common among honest users.
   */
  withdraw(address: string, time: number): void {
    const exchange = this.rng.chance(ORGANIC.largeExchangeShare) ? this.largeExchange : this.rng.pick(this.exchanges);
    const amount = this.rng.chance(ORGANIC.roundWithdrawalShare)
      ? this.rng.pick([10, 20, 25, 50, 100, 200]) - this.rng.pick([0, 0.1, 0.5, 1])
      : this.rng.uniform(5, 200);
    this.fund(address, exchange, amount, time);
  }

  buyer(address: string, pattern: ChallengePattern, group: string | null): void {
    this.plantBuyer(address, pattern, CHALLENGE_PATTERNS[pattern].label, group);
  }

  /** A buyer of any generator: its pattern (or family) and true label. */
  plantBuyer(address: string, pattern: string, label: string, group: string | null): void {
    this.buyers.set(address, { label, pattern, group });
  }

  /** `n` distinct popular honest services listed by `listedBy` (fewer when there are not that many). */
  distinctPopular(n: number, listedBy = this.now): Service[] {
    const chosen = new Set<Service>();
    for (let tries = 0; chosen.size < n && tries < 50 * n; tries++) chosen.add(this.popularHonest(listedBy));
    return [...chosen];
  }

  /** One settlement; times before the listing or after now are moved inside [firstSeen, now]. */
  pay(buyer: string, s: Service, time: number, pairLabel: string, amount = s.price): void {
    const t = Math.floor(Math.min(this.now, Math.max(time, s.firstSeen)));
    const hash = `0x${hex(this.rng, 64)}`;
    this.transactions.push({
      time: t,
      hash,
      row: [hash, CHAIN, buyer, s.seller, Math.round(amount * 1e6) / 1e6, new Date(t), s.url, this.rng.pick(this.relayers), SOURCE],
    });
    const key = `${buyer}|${s.seller}`;
    if (!this.pairs.has(key)) this.pairs.set(key, { address: buyer, seller: s.seller, label: pairLabel });
  }

  /** A Zipf-like pick (a few services get most traffic), among those listed by `listedBy`. */
  popularHonest(listedBy = this.now): Service {
    // never ask for a time before the first listing (the loop below would not end)
    const pool = this.popularPool;
    const earliest = Math.min(...pool.map((s) => s.firstSeen));
    if (listedBy < earliest) listedBy = earliest;
    for (;;) {
      const s = pool[this.rng.zipf(pool.length, 1.05)]!;
      if (s.firstSeen <= listedBy) return s;
    }
  }

  draw<P extends ParameterizedPattern>(pattern: P, split: Split): ParamsOf<P> {
    return drawParameters(this.rng, pattern, split);
  }

  group(pattern: string, index: number, params: Record<string, number>, wallets: number): string {
    const groupId = `${pattern}-${index + 1}`;
    this.groups.push({ pattern, groupId, params, wallets });
    return groupId;
  }

  /**
   * The finished world's rows: payments ordered by (time, tx_hash), funding by (time, address), the
   * truth of every wallet that paid. `names`: the listings' title ("Challenge service 3 (demo)") and
   * world ("challenge-world"), the exchanges' name prefix, the truth's difficulty column.
   */
  rows(names: { title: string; world: string; exchange: string; difficulty: string }): BuiltWorld {
    this.transactions.sort((x, y) => x.time - y.time || (x.hash < y.hash ? -1 : 1));
    this.funding.sort((x, y) => x.time - y.time || (String(x.row[0]) < String(y.row[0]) ? -1 : 1));
    const paying = new Set([...this.pairs.values()].map((p) => p.address));
    return {
      services: this.services.map((s, n) => [
        CHAIN,
        s.seller,
        s.url,
        `${names.title} service ${n + 1} (demo)`,
        `Synthetic ${names.world} listing (demo data, not a real service).`,
        s.category,
        s.price,
        new Date(Math.floor(s.firstSeen)),
        SOURCE,
      ]),
      transactions: this.transactions.map((t) => t.row),
      funding: this.funding.map((f) => f.row),
      exchanges: this.exchanges.map((a, n) => [a, `${names.exchange}-${n + 1}`, SOURCE]),
      truthBuyers: [...this.buyers.entries()]
        .filter(([a]) => paying.has(a))
        .sort(([a], [c]) => (a < c ? -1 : 1))
        .map(([a, t]) => [a, t.label, t.pattern, names.difficulty, t.group]),
      truthPairs: [...this.pairs.values()]
        .sort((x, y) => (x.address < y.address ? -1 : x.address > y.address ? 1 : x.seller < y.seller ? -1 : 1))
        .map((p) => [p.address, p.seller, CHAIN, p.label]),
      groups: this.groups,
    };
  }
}

/** A generated world in the raw tables' layout, with its planted truth (Builder.rows). */
export interface BuiltWorld {
  services: Row[];
  /** Ordered by (time, tx_hash). */
  transactions: Row[];
  /** Ordered by (time, address). Includes operators, relays and return transfers. */
  funding: Row[];
  exchanges: Row[];
  truthBuyers: Row[];
  truthPairs: Row[];
  groups: PlantedGroup[];
}

/** `n` times spread over [from, to] in sessions of a few calls minutes apart (a person's rhythm). */
export function sessionTimes(rng: Rng, n: number, from: number, to: number): number[] {
  const times: number[] = [];
  while (times.length < n) {
    let t = from + rng.next() * Math.max(0, to - from);
    const inSession = Math.min(n - times.length, 1 + Math.floor(rng.exponential(3)));
    for (let k = 0; k < inSession; k++) {
      times.push(t);
      t += rng.logNormal(Math.log(90_000), 0.8);
    }
  }
  return times;
}

export const lognormalCount = (rng: Rng, median: number, sigma: number): number =>
  Math.max(1, Math.round(rng.logNormal(Math.log(median), sigma)));

/** A farm seller (the wash's beneficiary) with one or two services, listed `ageDays` ago. */
export function farmSeller(b: Builder, listedAt: number): Service[] {
  const seller = b.address();
  const n = b.rng.int(1, 2);
  return Array.from({ length: n }, () => b.service(seller, listedAt, false, b.rng.pick([0.01, 0.05, 0.1, 0.25])));
}

/** A wash wallet's calls: mostly to its farm, sometimes a sprinkle of honest calls as camouflage. */
export function washCalls(b: Builder, wallet: string, farm: Service[], calls: number, from: number, to: number): void {
  for (const t of sessionTimes(b.rng, calls, from, to)) b.pay(wallet, b.rng.pick(farm), t, 'suspected_wash');
  if (b.rng.chance(0.3)) {
    const s = b.popularHonest();
    for (let k = b.rng.int(1, 2); k > 0; k--) b.pay(wallet, s, from + b.rng.next() * (to - from), 'suspected_wash');
  }
}

/** A funding chain of `hops` transfers from `root` to `wallet` through fresh relay wallets. */
export function fundThrough(b: Builder, root: string, wallet: string, hops: number, at: number, amount: number, relays: string[][]): void {
  // relays[h] are the wallets at depth h (1..hops-1); a few parallel paths share them
  let funder = root;
  let t = at - (hops - 1) * b.rng.uniform(0.5, 3) * HOUR;
  for (let h = 1; h < hops; h++) {
    const relay = b.rng.pick(relays[h]!);
    funder = relay;
    t += b.rng.uniform(0.2, 2) * HOUR;
  }
  b.fund(wallet, funder, amount, Math.min(t, at));
}

export function relayTree(b: Builder, root: string, hops: number, at: number): string[][] {
  const levels: string[][] = [[root]];
  for (let h = 1; h < hops; h++) {
    const level = Array.from({ length: b.rng.int(1, 3) }, () => b.address());
    for (const relay of level) b.fund(relay, b.rng.pick(levels[h - 1]!), b.rng.uniform(500, 3000), at - (hops - h) * 3 * HOUR);
    levels.push(level);
  }
  return levels;
}

/**
 * An ordinary user's use of popular services from `start` (or, when `start` is null, from some time
 * after the services were listed): one or more services, sessions over a span of days. Returns the
 * first payment's earliest time.
 */
export function organicUse(
  b: Builder,
  w: string,
  start: number | null,
  opts: { extraServicesMean?: number; callsMedian?: number; first?: Service; pairLabel?: string } = {},
): number {
  const services = new Set<Service>([opts.first ?? b.popularHonest(start ?? b.now)]);
  const extra = Math.floor(b.rng.exponential(opts.extraServicesMean ?? ORGANIC.extraServicesMean));
  for (let e = 0; e < extra; e++) services.add(b.popularHonest(start ?? b.now));
  const listed = Math.max(...[...services].map((s) => s.firstSeen));
  const from = start === null ? listed + b.rng.next() * (b.now - listed) : Math.min(start, b.now - HOUR);
  const end = Math.min(b.now, from + b.rng.logNormal(Math.log(ORGANIC.spanDaysMedian * DAY), 1));
  for (const s of services) {
    const n = lognormalCount(b.rng, opts.callsMedian ?? ORGANIC.callsMedian, ORGANIC.callsSigma);
    for (const t of sessionTimes(b.rng, n, from, end)) b.pay(w, s, t, opts.pairLabel ?? 'organic_user');
  }
  return from;
}
