/**
 * What the demo world's prober saw: 7 days of unpaid probes of every listing (x402_probes, every
 * 3 hours here; production probes every 10 minutes), with services planted that a buyer should
 * be warned about, and their truth in demo_truth_services (docs/x402-indexing.md, "Probing
 * services"; the grade that reads them in docs/wash-methodology.md).
 *
 * Planted patterns (honest sellers' services listed at least 14 days, so each has a history):
 * - dead          every probe fails from a time 2-5 days ago on (refused, unknown name, 502/530)
 * - flaky         about 30 % of probes time out or answer 502/503
 * - slow          answers, with a median around 2.5-6 s
 * - unsignable    an EVM offer without the EIP-712 domain (extra.name / version): no client can sign it
 * - moved_payout  the offer's payTo changed 1-4 days ago to an address its payments never went to
 * - decoy         the offer's payTo is not where the resource's payments settle, all week
 * - price_trap    a fixed-price service whose 402 asks 10x its listed and settled price, since 2-5 days
 * The last three need payments to judge, so they are planted among the most popular services
 * (their settlements carry the resource URL the facilitator reported).
 * Everything else answers a 402 with the listing's payTo and price, p50 60-600 ms, and fails
 * 0.5 % of probes; listings on loopback or private hosts (placeholders) are refused by the prober.
 */
import type { AnalyticsChain } from '../../../catalog/categories.ts';
import type { Row } from '../../../lib/duckdb.ts';
import type { ProbeOfferJson } from '../../raw-tables.ts';
import { USDC } from '../../live/analytics/chains.ts';
import { Rng } from '../random.ts';
import { addressFamily, newAddress } from './addresses.ts';
import type { Catalog, Service } from './catalog.ts';

export const HEALTH_PATTERNS = ['healthy', 'dead', 'flaky', 'slow', 'unsignable', 'moved_payout', 'decoy', 'price_trap'] as const;
export type HealthPattern = (typeof HEALTH_PATTERNS)[number];

const DAY = 86_400_000;
const ROUND_MS = 3 * 3_600_000;
const HISTORY_DAYS = 7;

/**
 * x402 v2 network ids per chain, as a live offer names them, with USDC (chains.ts); `domain`: an EVM
 * offer carries the EIP-712 domain; `pinned`: the prober knows that token's domain (catalog/networks.ts).
 */
const NETWORK: Record<AnalyticsChain, { network: string; asset: string; domain: boolean; pinned: boolean }> = {
  base: { network: 'eip155:8453', asset: USDC.base, domain: true, pinned: true },
  polygon: { network: 'eip155:137', asset: USDC.polygon, domain: true, pinned: true },
  arbitrum: { network: 'eip155:42161', asset: USDC.arbitrum, domain: true, pinned: false },
  solana: { network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', asset: USDC.solana, domain: false, pinned: false },
};

interface Plant {
  pattern: HealthPattern;
  /** When it started (dead, moved_payout, price_trap); null for the others. */
  since: number | null;
  /** The address the offer names instead of the listing's (decoy from the start, moved_payout from `since`). */
  otherPayTo: string | null;
}

export interface DemoHealth {
  /** x402_probes rows, ordered by probed_at then resource_url. */
  probes: Row[];
  /** demo_truth_services rows: one per listing. */
  truthServices: Row[];
}

const PRIVATE_HOST = /localhost|127\.0\.0\.1|\/\/10\.|\/\/192\.168\./;

export function demoHealth(catalog: Catalog, seed: number, now: number): DemoHealth {
  const rng = Rng.stream(seed, 'x402:health');
  const plants = new Map<number, Plant>();
  const eligible = catalog.services.filter(
    (s) => !s.placeholder && catalog.sellers[s.seller]?.role === 'honest' && s.firstSeen <= now - 14 * DAY,
  );
  const count = Math.max(3, Math.round(catalog.services.length * 0.015));
  const take = (pool: Service[], n: number, plant: (s: Service) => Plant): void => {
    const free = rng.shuffle(pool.filter((s) => !plants.has(s.index)));
    for (const s of free.slice(0, n)) plants.set(s.index, plant(s));
  };
  // Payments are needed to see where money goes: the most popular third, listed with a price that is the real one.
  const popular = [...eligible]
    .sort((a, b) => b.weight - a.weight || a.index - b.index)
    .slice(0, Math.max(30, Math.round(eligible.length / 3)));
  take(
    popular.filter((s) => s.pricing === 'fixed' && s.listedPrice !== null),
    count,
    () => ({ pattern: 'price_trap', since: now - rng.uniform(2, 5) * DAY, otherPayTo: null }),
  );
  take(popular, count, (s) => ({ pattern: 'decoy', since: null, otherPayTo: newAddress(rng, addressFamily(s.chain)) }));
  take(popular, count, (s) => ({
    pattern: 'moved_payout',
    since: now - rng.uniform(1, 4) * DAY,
    otherPayTo: newAddress(rng, addressFamily(s.chain)),
  }));
  take(eligible, count, () => ({ pattern: 'dead', since: now - rng.uniform(2, 5) * DAY, otherPayTo: null }));
  take(eligible, count, () => ({ pattern: 'flaky', since: null, otherPayTo: null }));
  take(eligible, count, () => ({ pattern: 'slow', since: null, otherPayTo: null }));
  take(
    eligible.filter((s) => NETWORK[s.chain].domain),
    count,
    () => ({ pattern: 'unsignable', since: null, otherPayTo: null }),
  );

  const services = [...catalog.services].sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  const base = new Map(services.map((s) => [s.index, rng.logNormal(Math.log(rng.uniform(60, 600)), 0.1)]));
  const firstRound = Math.floor((now - HISTORY_DAYS * DAY) / ROUND_MS) * ROUND_MS + ROUND_MS;
  const probes: Row[] = [];
  for (let t = firstRound; t <= now; t += ROUND_MS) {
    for (const s of services) {
      if (s.firstSeen > t) continue;
      const plant = plants.get(s.index) ?? null;
      probes.push(probeRow(s, plant, t, base.get(s.index) ?? 200, rng));
    }
  }
  const truthServices = services.map((s) => {
    const plant = plants.get(s.index);
    return [
      s.url,
      s.chain,
      plant?.pattern ?? 'healthy',
      plant?.since !== null && plant?.since !== undefined ? new Date(plant.since) : null,
    ];
  });
  return { probes, truthServices };
}

function probeRow(s: Service, plant: Plant | null, t: number, median: number, rng: Rng): Row {
  // a round's probes spread over its first minutes
  const at = new Date(t + rng.int(0, 300_000));
  const row = (outcome: string, status: number | null, totalMs: number | null, error: string | null, offers: string | null): Row => [
    s.url,
    at,
    'GET',
    outcome,
    status,
    totalMs === null ? null : Math.round(totalMs * 0.92),
    totalMs === null ? null : Math.round(totalMs),
    0,
    error,
    offers === null ? null : 2,
    offers,
    offers === null ? null : true,
    'demo',
  ];
  if (PRIVATE_HOST.test(s.url)) return row('private_address', null, null, 'a non-public address', null);
  const pattern = plant?.pattern ?? 'healthy';
  const active = plant?.since === null || plant?.since === undefined || t >= plant.since;
  if (pattern === 'dead' && active) {
    const kind = rng.weighted(['connect_error', 'dns_error', 'http_error'], [50, 20, 30]);
    if (kind === 'connect_error') return row(kind, null, rng.uniform(1, 40), 'ECONNREFUSED', null);
    if (kind === 'dns_error') return row(kind, null, rng.uniform(5, 80), 'ENOTFOUND', null);
    return row(kind, rng.pick([502, 530]), rng.uniform(20, 300), null, null);
  }
  const failure = pattern === 'flaky' ? 0.3 : 0.005;
  if (rng.chance(failure)) {
    return rng.chance(0.5)
      ? row('timeout', null, 15_000, 'UND_ERR_HEADERS_TIMEOUT', null)
      : row('http_error', rng.pick([502, 503]), rng.uniform(20, 200), null, null);
  }
  const slowMedian = pattern === 'slow' ? rng.uniform(2_500, 6_000) : median;
  const total = slowMedian * rng.logNormal(0, 0.35);
  const net = NETWORK[s.chain];
  const price = s.listedPrice ?? s.price;
  const amount = Math.round(price * 1e6 * (pattern === 'price_trap' && active ? 10 : 1));
  const payTo = (pattern === 'decoy' || (pattern === 'moved_payout' && active)) && plant?.otherPayTo ? plant.otherPayTo : s.sellerAddress;
  const domain = net.domain && pattern !== 'unsignable';
  const offer: ProbeOfferJson = {
    network: net.network,
    chain: s.chain,
    asset: net.asset,
    amount: String(Math.max(1, amount)),
    pay_to: payTo,
    eip712_name: domain ? 'USD Coin' : null,
    eip712_version: domain ? '2' : null,
    signable: net.domain ? (domain ? (net.pinned ? true : null) : false) : null,
    scheme: s.pricing === 'upto' ? 'upto' : 'exact',
  };
  const offers = JSON.stringify([offer]);
  return row('offer', 402, total, null, offers);
}
