/**
 * The demo x402 catalog: sellers (payTo addresses) and the resources they list. Honest sellers are
 * made here; the pattern planners add the special sellers they need (farms, rings, concentration
 * and B2B sellers) through `Catalog.addSeller`, so every seller goes through the same naming,
 * pricing and first-seen rules.
 */
import { ANALYTICS_CHAINS, type AnalyticsChain, type CategorySlug } from '../../../catalog/categories.ts';
import type { Row } from '../../../lib/duckdb.ts';
import type { Rng } from '../random.ts';
import { addressFamily, newAddress, pickFacilitator, relayersOf, type FacilitatorId } from './addresses.ts';
import {
  BRAND_SUFFIXES,
  CATEGORY_VOCABULARY,
  DESCRIPTION_EXTRAS,
  ENDPOINT_VARIANTS,
  PLACEHOLDER_DESCRIPTIONS,
  PLACEHOLDER_HOSTS,
  PLACEHOLDER_NAMES,
  PLACEHOLDER_PATHS,
  PLATFORM_HOSTS,
  PRICE_POINTS,
  PRICE_WEIGHTS,
  TLDS,
  TLD_WEIGHTS,
  type ListedCategory,
} from './vocabulary.ts';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
/** The simulated history: everything happens in the last 400 days before `now`. */
export const HISTORY_DAYS = 400;

export const LISTED_CATEGORIES = Object.keys(CATEGORY_VOCABULARY) as ListedCategory[];

/** Share of honest sellers per chain: Base dominant, Solana second. */
export const CHAIN_WEIGHTS: Record<AnalyticsChain, number> = { base: 62, solana: 24, polygon: 8, arbitrum: 6 };

export function pickChain(rng: Rng, chains: readonly AnalyticsChain[] = ANALYTICS_CHAINS): AnalyticsChain {
  return rng.weighted(
    chains,
    chains.map((c) => CHAIN_WEIGHTS[c]),
  );
}

/**
 * A time in the history window with a density rising toward `now` (e-folding `tauDays`), so
 * recent days hold more new services and buyers than old ones.
 */
export function growthTime(rng: Rng, now: number, tauDays: number, maxDays = HISTORY_DAYS, minDays = 0): number {
  const lo = Math.exp(-minDays / tauDays);
  const hi = Math.exp(-maxDays / tauDays);
  const ageDays = -tauDays * Math.log(lo - rng.next() * (lo - hi));
  return Math.floor(now - ageDays * DAY);
}

export const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;

/**
 * What a seller is in the simulation. Only honest and placeholder sellers are chosen by honest
 * buyers at random; the others get traffic only from the buyers planted for them (and verifiers).
 */
export type SellerRole = 'honest' | 'placeholder' | 'farm' | 'ring' | 'concentration' | 'b2b';

export interface Seller {
  index: number;
  address: string;
  chain: AnalyticsChain;
  role: SellerRole;
  brand: string;
  category: CategorySlug;
  /** first_seen of its first listing. */
  launch: number;
  facilitator: FacilitatorId;
  /** Address mined with a readable prefix and suffix (operator branding). */
  branded: boolean;
  services: number[];
}

/** fixed: amount == price; tiered: a few multiples of the price; upto: up to the listed price. */
export type Pricing = 'fixed' | 'tiered' | 'upto';

export interface Service {
  index: number;
  seller: number;
  chain: AnalyticsChain;
  sellerAddress: string;
  url: string;
  name: string;
  description: string;
  /** As listed; NULL for the few the pipeline must categorise itself. */
  category: CategorySlug | null;
  trueCategory: CategorySlug;
  /** As listed; NULL when the listing shows no price. */
  listedPrice: number | null;
  /** What a call costs (known to the simulator even when the listing hides it). */
  price: number;
  pricing: Pricing;
  firstSeen: number;
  /** Popularity among honest buyers; 0 = never picked at random. */
  weight: number;
  placeholder: boolean;
  relayers: readonly string[];
}

export interface SellerSpec {
  role: SellerRole;
  chain: AnalyticsChain;
  launch: number;
  endpoints: number;
  category?: ListedCategory;
  address?: string;
  /** Fixed prices of the endpoints (cycled); otherwise drawn from the bazaar price bands. */
  prices?: readonly number[];
  /** All endpoints listed at launch (special sellers are set up in one go). */
  listAllAtLaunch?: boolean;
}

const VANITY_WORDS = [
  'cafe',
  'beef',
  'dead',
  'face',
  'babe',
  'f00d',
  'c0de',
  'a11e',
  '5afe',
  'b0b0',
  '1337',
  '4020',
  'abba',
  'd00d',
  'feed',
  'bead',
  'fade',
  'ace0',
  '0000',
  '7777',
];

export class Catalog {
  readonly sellers: Seller[] = [];
  readonly services: Service[] = [];
  private readonly hosts = new Set<string>();
  private readonly urls = new Set<string>();

  constructor(
    private readonly rng: Rng,
    readonly now: number,
  ) {}

  addSeller(spec: SellerSpec): Seller {
    const rng = this.rng;
    const family = addressFamily(spec.chain);
    const placeholder = spec.role === 'placeholder';
    const category: CategorySlug = placeholder ? 'test_dummy' : (spec.category ?? rng.pick(LISTED_CATEGORIES));
    const branded = !spec.address && family === 'evm' && spec.role === 'honest' && rng.chance(0.04);
    const address =
      spec.address ?? (branded ? newAddress(rng, family, rng.pick(VANITY_WORDS), rng.pick(VANITY_WORDS)) : newAddress(rng, family));
    const vocab = placeholder ? null : CATEGORY_VOCABULARY[category as ListedCategory];
    const brand = vocab
      ? capitalize(rng.pick(vocab.roots) + rng.pick(BRAND_SUFFIXES))
      : capitalize(rng.pick(['my', 'test', 'demo', 'x402', 'hello', 'sample', 'dev'])) + rng.int(1, 999);
    const facilitator = pickFacilitator(rng, spec.chain);
    const seller: Seller = {
      index: this.sellers.length,
      address,
      chain: spec.chain,
      role: spec.role,
      brand,
      category,
      launch: spec.launch,
      facilitator,
      branded,
      services: [],
    };
    this.sellers.push(seller);
    const relayers = relayersOf(facilitator, spec.chain);
    if (placeholder) this.addPlaceholderListings(seller, spec, relayers);
    else this.addListings(seller, spec, vocab!, relayers);
    return seller;
  }

  private addListings(
    seller: Seller,
    spec: SellerSpec,
    vocab: (typeof CATEGORY_VOCABULARY)[ListedCategory],
    relayers: readonly string[],
  ): void {
    const rng = this.rng;
    const origin = this.origin(seller.brand);
    // Path style of the whole seller: most mount under /api, some under /x402 or /v1.
    const pathStyle = rng.weighted(['api', 'x402', 'v1', 'bare'], [85, 5, 5, 5]);
    const nameStyle = rng.weighted([0, 1, 2, 3, 4], [35, 25, 15, 15, 10]);
    const secondary: ListedCategory | null = rng.chance(0.15) ? rng.pick(LISTED_CATEGORIES) : null;
    const primaryTemplates = rng.shuffle([...vocab.endpoints]);
    const secondaryTemplates = secondary ? rng.shuffle([...CATEGORY_VOCABULARY[secondary].endpoints]) : [];
    const basePriceIndex = clampIndex(
      rng.weighted(
        PRICE_POINTS.map((_, i) => i),
        PRICE_WEIGHTS,
      ) + vocab.priceShift,
    );
    const pricing: Pricing = rng.weighted(['fixed', 'tiered', 'upto'] as const, [94, 4, 2]);
    for (let j = 0; j < spec.endpoints; j++) {
      const fromSecondary = secondary !== null && j > 0 && rng.chance(0.3);
      const templates = fromSecondary ? secondaryTemplates : primaryTemplates;
      const category = fromSecondary ? secondary! : (seller.category as ListedCategory);
      const template = templates[j % templates.length]!;
      const round = Math.floor(j / templates.length);
      const variant = round > 0 ? ENDPOINT_VARIANTS[(round - 1 + j) % ENDPOINT_VARIANTS.length]! : null;
      let path = template[0] + (variant ? variant[0] : '');
      if (pathStyle === 'x402') path = path.replace(/^\/api\//, '/x402/');
      else if (pathStyle === 'v1') path = path.replace(/^\/api\//, '/v1/');
      else if (pathStyle === 'bare') path = path.replace(/^\/api/, '');
      const baseName = template[1] + (variant ? variant[1] : '');
      const name = [baseName, `${seller.brand} ${baseName}`, `${seller.brand}: ${baseName}`, `${baseName} API`, slugify(baseName)][
        nameStyle
      ]!;
      const price = spec.prices
        ? spec.prices[j % spec.prices.length]!
        : PRICE_POINTS[clampIndex(basePriceIndex + (rng.chance(0.4) ? rng.pick([-1, 1]) : 0))]!;
      let description = (variant ? variant[2] : '') + template[2];
      for (let e = rng.weighted([0, 1, 2], [40, 40, 20]); e > 0; e--) {
        description += ' ' + rng.pick(DESCRIPTION_EXTRAS).replace('{price}', `$${price}`).replace('{chain}', chainTitle(seller.chain));
      }
      this.pushService(seller, spec, j, {
        url: this.uniqueUrl(origin + path),
        name,
        description,
        category,
        price,
        pricing: spec.prices ? 'fixed' : pricing,
        relayers,
        placeholder: false,
      });
    }
  }

  private addPlaceholderListings(seller: Seller, spec: SellerSpec, relayers: readonly string[]): void {
    const rng = this.rng;
    const slug = seller.brand.toLowerCase();
    const host = rng.pick(PLACEHOLDER_HOSTS).replace('{slug}', slug);
    for (let j = 0; j < spec.endpoints; j++) {
      this.pushService(seller, spec, j, {
        url: this.uniqueUrl(`https://${host}${rng.pick(PLACEHOLDER_PATHS)}`),
        name: rng.pick(PLACEHOLDER_NAMES),
        description: rng.pick(PLACEHOLDER_DESCRIPTIONS),
        category: 'test_dummy',
        price: spec.prices ? spec.prices[j % spec.prices.length]! : rng.weighted([0.0001, 0.001, 0.01, 0.1, 1], [25, 25, 30, 10, 10]),
        pricing: 'fixed',
        relayers,
        placeholder: true,
      });
    }
  }

  private pushService(
    seller: Seller,
    spec: SellerSpec,
    j: number,
    listing: {
      url: string;
      name: string;
      description: string;
      category: CategorySlug;
      price: number;
      pricing: Pricing;
      relayers: readonly string[];
      placeholder: boolean;
    },
  ): void {
    const rng = this.rng;
    let firstSeen = seller.launch;
    if (j > 0) {
      // Most sellers list their endpoints together; some add endpoints weeks later.
      firstSeen =
        spec.listAllAtLaunch || rng.chance(0.65)
          ? seller.launch + rng.int(0, 3 * HOUR)
          : seller.launch + Math.floor(rng.exponential(40 * DAY));
      if (firstSeen > this.now) firstSeen = seller.launch + Math.floor(rng.next() * (this.now - seller.launch));
    }
    const service: Service = {
      index: this.services.length,
      seller: seller.index,
      chain: seller.chain,
      sellerAddress: seller.address,
      url: listing.url,
      name: listing.name,
      description: listing.description,
      category: listing.category,
      trueCategory: listing.category,
      listedPrice: rng.chance(0.02) ? null : listing.price,
      price: listing.price,
      pricing: listing.pricing,
      firstSeen,
      weight: 0,
      placeholder: listing.placeholder,
      relayers: listing.relayers,
    };
    seller.services.push(service.index);
    this.services.push(service);
  }

  private origin(brand: string): string {
    const rng = this.rng;
    let slug = slugify(brand).replace(/-/g, '');
    const style = rng.weighted(['own', 'api', 'platform'], [80, 12, 8]);
    for (let attempt = 0; ; attempt++) {
      const candidate = attempt < 5 ? slug : `${slug}${attempt}`;
      const host =
        style === 'platform'
          ? `${candidate}.${rng.pick(PLATFORM_HOSTS)}`
          : `${style === 'api' ? 'api.' : ''}${candidate}.${rng.weighted(TLDS, TLD_WEIGHTS)}`;
      if (!this.hosts.has(host)) {
        this.hosts.add(host);
        return `https://${host}`;
      }
      if (attempt > 50) slug += rng.hex(2);
    }
  }

  private uniqueUrl(url: string): string {
    let candidate = url;
    for (let n = 2; this.urls.has(candidate); n++) candidate = `${url}${url.includes('?') ? '&' : '?'}v=${n}`;
    this.urls.add(candidate);
    return candidate;
  }

  /** Amount of one call of a service. */
  amountOf(service: Service, rng: Rng): number {
    switch (service.pricing) {
      case 'fixed':
        return service.price;
      case 'tiered':
        return round6(service.price * rng.weighted([1, 2, 4], [60, 30, 10]));
      case 'upto':
        return Math.max(0.000001, round6(service.price * rng.uniform(0.1, 1)));
    }
  }

  /**
   * Popularity (Zipf over honest sellers, then over each seller's endpoints), and the few listings
   * without a category. Called once after the honest sellers exist.
   */
  assignPopularity(): void {
    const rng = this.rng;
    const honest = this.sellers.filter((s) => s.role === 'honest' || s.role === 'placeholder');
    const ranks = rng.shuffle(honest.map((_, i) => i));
    honest.forEach((seller, i) => {
      const sellerWeight = (1 / Math.pow(ranks[i]! + 1, 1.1)) * (seller.role === 'placeholder' ? 0.03 : 1);
      let total = 0;
      const shares = seller.services.map((_, j) => {
        const w = 1 / Math.pow(j + 1, 0.8);
        total += w;
        return w;
      });
      seller.services.forEach((s, j) => {
        this.services[s]!.weight = (sellerWeight * shares[j]!) / total;
      });
    });
  }

  /** About 3% of listings lose their category; every category keeps at least one listed service. */
  blankSomeCategories(): void {
    const rng = this.rng;
    const listed = new Map<CategorySlug, number>();
    for (const s of this.services) if (s.category) listed.set(s.category, (listed.get(s.category) ?? 0) + 1);
    for (const s of this.services) {
      if (!s.category || !rng.chance(0.03)) continue;
      const left = listed.get(s.category)!;
      if (left <= 1) continue;
      listed.set(s.category, left - 1);
      s.category = null;
    }
  }

  rows(): Row[] {
    return [...this.services]
      .sort((a, b) => a.firstSeen - b.firstSeen || (a.url < b.url ? -1 : a.url > b.url ? 1 : 0))
      .map((s) => [s.chain, s.sellerAddress, s.url, s.name, s.description, s.category, s.listedPrice, new Date(s.firstSeen), 'demo']);
  }
}

/** Honest and placeholder sellers, about `targetServices` listings across all 33 categories. */
export function addHonestSellers(catalog: Catalog, rng: Rng, targetServices: number): void {
  const now = catalog.now;
  // Categories get Zipf-sized shares, but the first sellers cover every category once.
  const coverage = rng.shuffle([...LISTED_CATEGORIES]);
  const ranking = rng.shuffle([...LISTED_CATEGORIES]);
  const placeholderTarget = Math.max(2, Math.round(targetServices * 0.03));
  let placeholders = 0;
  let made = 0;
  let n = 0;
  while (made < targetServices) {
    const wantPlaceholder = placeholders < placeholderTarget && (n % 30 === 7 || made > targetServices - placeholderTarget);
    // The first sellers cover every chain, early enough that buyers of each chain find services.
    const chain = n < ANALYTICS_CHAINS.length ? ANALYTICS_CHAINS[n]! : pickChain(rng);
    const launch = n < ANALYTICS_CHAINS.length ? growthTime(rng, now, 120, HISTORY_DAYS, 300) : growthTime(rng, now, 120);
    if (wantPlaceholder) {
      const seller = catalog.addSeller({ role: 'placeholder', chain, launch, endpoints: rng.int(1, 3) });
      placeholders += seller.services.length;
      made += seller.services.length;
    } else {
      const category = n < coverage.length ? coverage[n]! : ranking[rng.zipf(ranking.length, 0.9)]!;
      const endpoints = Math.min(30, 1 + rng.zipf(30, 1.6));
      made += catalog.addSeller({ role: 'honest', chain, launch, endpoints, category }).services.length;
    }
    n++;
  }
}

/**
 * Honest buyers' choice of services: popularity-weighted among the listings of a chain that exist
 * at a given time (a buyer cannot pay a service before it was listed).
 */
export class ServicePool {
  private readonly byChain = new Map<AnalyticsChain, { ids: number[]; firstSeen: Float64Array; cum: Float64Array }>();

  constructor(private readonly catalog: Catalog) {
    for (const chain of ANALYTICS_CHAINS) {
      const ids = catalog.services
        .filter((s) => s.chain === chain && s.weight > 0)
        .sort((a, b) => a.firstSeen - b.firstSeen || a.index - b.index)
        .map((s) => s.index);
      const firstSeen = new Float64Array(ids.length);
      const cum = new Float64Array(ids.length);
      let acc = 0;
      ids.forEach((id, i) => {
        const s = catalog.services[id]!;
        firstSeen[i] = s.firstSeen;
        acc += s.weight;
        cum[i] = acc;
      });
      this.byChain.set(chain, { ids, firstSeen, cum });
    }
  }

  /** Number of pool listings on `chain` that exist at `at`. */
  available(chain: AnalyticsChain, at: number): number {
    const p = this.byChain.get(chain)!;
    return upperBound(p.firstSeen, at);
  }

  /** First time at which `count` pool listings exist on `chain` (or the last listing's time). */
  timeWithAtLeast(chain: AnalyticsChain, count: number): number {
    const p = this.byChain.get(chain)!;
    if (p.ids.length === 0) throw new Error(`x402 demo: no honest services on ${chain}`);
    return p.firstSeen[Math.min(count, p.ids.length) - 1]!;
  }

  /** A popularity-weighted listing on `chain` existing at `at`, or -1 when there is none. */
  sample(rng: Rng, chain: AnalyticsChain, at: number): number {
    const p = this.byChain.get(chain)!;
    const k = upperBound(p.firstSeen, at);
    if (k === 0) return -1;
    const x = rng.next() * p.cum[k - 1]!;
    let lo = 0;
    let hi = k - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (p.cum[mid]! <= x) lo = mid + 1;
      else hi = mid;
    }
    return p.ids[lo]!;
  }

  /** Like `sample`, restricted by a predicate (rejection sampling; -1 when unlucky). */
  sampleWhere(rng: Rng, chain: AnalyticsChain, at: number, accept: (s: Service) => boolean, tries = 40): number {
    for (let i = 0; i < tries; i++) {
      const id = this.sample(rng, chain, at);
      if (id < 0) return -1;
      if (accept(this.catalog.services[id]!)) return id;
    }
    return -1;
  }
}

/** Number of entries of a sorted array that are <= x. */
export function upperBound(sorted: Float64Array | readonly number[], x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function clampIndex(i: number): number {
  return Math.max(0, Math.min(PRICE_POINTS.length - 1, i));
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function slugify(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

function chainTitle(chain: AnalyticsChain): string {
  return chain.charAt(0).toUpperCase() + chain.slice(1);
}
