/**
 * The analytics half of the demo world: a seeded simulator of x402 services, their buyers and
 * settlements, with the ground truth kept beside the data (docs/wash-methodology.md §11.8).
 *
 * x402World({ seed, now, scale }) returns the rows of x402_services, x402_transactions,
 * wallet_funding and x402_probes (raw-tables.ts) and of demo_truth_buyers, demo_truth_pairs and
 * demo_truth_services (the planted service health, health.ts). Same options, same
 * rows in the same order. At scale 1: about 1,070 services (340 sellers), 14,100 buyers (4,000 of
 * them paying in the last 30 days) and 300,000-330,000 transactions over the 400 days before `now`;
 * services, buyers and transactions grow linearly with `scale`. Below scale 0.12 the catalog keeps a
 * floor of 120 listings. The last 30 days match the real market's label shares (x402watch,
 * docs/wash-methodology.md §11.8): about 94 % organic users, 1.2-1.3 % bots and agents, 1.2 %
 * wash buyers carrying about 21 % of the volume.
 *
 * `transactions` is a re-iterable stream ordered by (time, tx_hash) over the whole table (not only
 * within chunks): buyers are planned up front and each buyer's payments are drawn when the stream
 * reaches its first payment, so memory holds the plans and the currently active buyers only
 * (scale 30 streams in under 450 MB of heap).
 *
 * Truth conventions (details in patterns.ts):
 * - Every truth label is one of the 7 real labels; 'unlabeled' is an output band, never a truth.
 * - Pair labels equal the buyer's label except: a developer's or a self-test wallet's casual
 *   payments to other sellers are organic_user pairs; the operator's main wallet inside an easy
 *   vanity cohort is self_test. Wash wallets are suspected_wash on every pair, sprinkles included.
 * - Seller-funded loops: 1-5 wallets self_test, 6-9 wallets self_test (boundary, hard), 10+ wash.
 * - Hard negatives (difficulty 'hard', honest labels on every pair): b2b_customer,
 *   honest_launch, bot_touching_farm, cex_shared_funder, heavy_agent; heavy_organic is 'medium'.
 * - The challenge world's patterns (challenge-patterns.ts, issue 15), difficulty 'hard', with
 *   parameters drawn from the "in" ranges of challenge/regimes.ts: wash sybil_spread,
 *   vanity_exchange, round_trip; look-alikes hackathon (developer), agent_fleet (ai_agent),
 *   heavy_single (organic_user).
 * - Verifiers visit every new listing except ring, concentration and B2B sellers, so planted
 *   shares (>= 95% single payer) and ring balances are exact.
 * - wallet_funding also holds rows for wallets that never pay (sybil operators, funding hops),
 *   so funding chains can be followed up to the funder of the first hop.
 */
import { DEMO_TRUTH_TABLES, RAW_TABLES } from '../../raw-tables.ts';
import type { WorldOptions } from '../world.ts';
import type { Row } from '../../../lib/duckdb.ts';
import { Rng } from '../random.ts';
import { Catalog, ServicePool, addHonestSellers } from './catalog.ts';
import { planHonestPopulations, planVerifiers, scaled } from './honest.ts';
import { plantChallengePatterns } from './challenge-patterns.ts';
import { plantPatterns } from './patterns.ts';
import { PlanBook, type PlanContext } from './plans.ts';
import { transactionRows } from './transactions.ts';
import { demoHealth } from './health.ts';

export { X402_EXCHANGE_WALLETS, X402_AGENT_PLATFORM_WALLETS, X402_FACILITATOR_RELAYERS } from './addresses.ts';
export type { TruthLabel, Difficulty } from './plans.ts';

export interface X402World {
  /** x402_services columns, in order; sorted by first_seen, then resource_url (unique). */
  services: Row[];
  /** x402_transactions columns, in order; ordered by time, then tx_hash. Re-iterable stream. */
  transactions: Iterable<Row>;
  /** wallet_funding columns, in order; sorted by time. Includes intermediate (hop) and operator wallets. */
  funding: Row[];
  /** demo_truth_buyers columns: one row per buyer wallet, sorted by address. */
  truthBuyers: Row[];
  /** demo_truth_pairs columns: one row per (buyer, seller_address, chain) with payments. */
  truthPairs: Row[];
  /** x402_probes columns: 7 days of unpaid probes of every listing (health.ts), by probed_at. */
  probes: Row[];
  /** demo_truth_services columns: the planted health of every listing. */
  truthServices: Row[];
}

/** Column names of the five tables, for writers that append rows. */
export const X402_WORLD_COLUMNS = {
  services: RAW_TABLES.x402_services.columns.map(([c]) => c),
  transactions: RAW_TABLES.x402_transactions.columns.map(([c]) => c),
  funding: RAW_TABLES.wallet_funding.columns.map(([c]) => c),
  truthBuyers: DEMO_TRUTH_TABLES.demo_truth_buyers.columns.map(([c]) => c),
  truthPairs: DEMO_TRUTH_TABLES.demo_truth_pairs.columns.map(([c]) => c),
  probes: RAW_TABLES.x402_probes.columns.map(([c]) => c),
  truthServices: DEMO_TRUTH_TABLES.demo_truth_services.columns.map(([c]) => c),
} as const;

export function x402World(opts: WorldOptions): X402World {
  const { seed, scale } = opts;
  const now = opts.now.getTime();
  if (!Number.isInteger(seed)) throw new Error(`x402World: seed must be an integer, got ${seed}`);
  if (!Number.isFinite(now)) throw new Error('x402World: now must be a valid Date');
  if (!(Number.isFinite(scale) && scale > 0 && scale <= 1000)) throw new Error(`x402World: scale must be in (0, 1000], got ${scale}`);

  const catalogRng = Rng.stream(seed, 'x402:catalog');
  const catalog = new Catalog(catalogRng, now);
  // A floor of 120 listings keeps all 33 categories and 4 chains populated in tiny test worlds.
  addHonestSellers(catalog, catalogRng, Math.max(120, Math.round(1000 * scale)));
  catalog.assignPopularity();
  const ctx: PlanContext = { catalog, pool: new ServicePool(catalog), book: new PlanBook(catalog, now), now, scale };

  // Patterns first: they add the special sellers (farms, rings, ...) the verifiers later visit.
  plantPatterns(ctx, seed);
  plantChallengePatterns(ctx, seed);
  planHonestPopulations(ctx, seed);
  planVerifiers(ctx, Rng.stream(seed, 'x402:verifiers'), scaled(14, scale));
  catalog.blankSomeCategories();
  const health = demoHealth(catalog, seed, now);

  return {
    services: catalog.rows(),
    transactions: transactionRows(ctx.book.buyers, catalog, now, seed),
    funding: ctx.book.fundingRows(),
    truthBuyers: ctx.book.truthBuyerRows(),
    truthPairs: ctx.book.truthPairRows(),
    probes: health.probes,
    truthServices: health.truthServices,
  };
}
