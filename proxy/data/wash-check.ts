/**
 * POST /api/v1/wash/check, computed on each request (never cached) from the published snapshot.
 *
 * The raw payments, the wallet funding and the exchange list stay in the pipeline's warehouse;
 * what the snapshot publishes is the batch classifier's output (classifier,
 * methodology in docs/wash-methodology.md). So the check reads that output and applies its view
 * rules to it, with the classifier's constants (catalog/wash-rules.ts):
 *
 * buyer view (the address paid an x402 service; wins when the address is also a seller)
 *   label, confidence, signals.vanity, signals.concentration  the wallet's `buyers` row
 *   signals.cohort     uniform_amount / coordinated_start of its main seller's cohort: the
 *                      indexed seller it paid most (`buyer-profiles` services_used, ties as the
 *                      classifier breaks them), cohort from `wash-detail`
 *   similar_patterns   the cohorts its heaviest pair's reasons name, and its vanity clusters
 * seller view (the address sells an indexed service and never paid one)
 *   label       the volume-weighted majority of its buyers' pair labels (30-day volume per label,
 *               `services` label_distribution x volume_30d over all its services)
 *   confidence  that label's volume-weighted pair confidence among its top 50 buyers per service
 *               (`wash-detail`) x (0.5 + 0.5 x the label's volume share)
 *   signals     vanity: a vanity cluster among its top buyers' pairs; cohort: the cohort of its
 *               busiest chain; concentration.top_service_share: the share of its 30-day volume
 *               from suspected_wash pairs
 *   similar_patterns  the seller flags its top buyers' pair rules show (farm, cycle, ...)
 * never seen: unlabeled, confidence 0, no signals, no patterns.
 *
 * `basis` says which of these the answer rests on, and the data's as_of: payments after it are
 * not in any answer. Anonymous pattern ids are sha256 of a secret salt, the pattern type and the
 * cohort key (lib/wash-ids.ts; the salt from WASH_PATTERN_SALT, passed in by proxy/serve.ts), so
 * the same cohort gets the same id for one salt, and the key (built from hashed seller keys) never
 * leaves the process.
 */
import type { WashLabel } from '../../catalog/categories.ts';
import { RULE_CONFIDENCE, THRESHOLDS, TOP_PAIR_KEY } from '../../catalog/wash-rules.ts';
import { anonymousId } from '../../lib/wash-ids.ts';
import type { LoadedDataset } from '../../snapshots/reader.ts';
import { queryRows, type DuckRow } from './duck.ts';
import type { ServiceRecord, ServicesIndex } from './services-index.ts';

export interface WashCheckSignals {
  vanity: { strict: boolean; broad: boolean };
  cohort: { uniform_amount: number; coordinated_start: number };
  concentration: { top_service_share: number };
}

export interface WashCheckBody {
  source: string;
  as_of: string;
  address: string;
  label: WashLabel;
  confidence: number;
  signals: WashCheckSignals;
  similar_patterns: Array<{ anonymous_id: string; pattern_type: string }>;
  /** What this answer was computed from (see the module comment). */
  basis: string;
}

export interface WashCheckContext {
  services: ServicesIndex;
  /** A dataset of the snapshot; throws (503) when it is missing. */
  dataset(name: string): LoadedDataset;
  /** The address's buyer-profiles row (shared with the profile endpoint's lookup cache). */
  buyerProfile(address: string): Promise<DuckRow | null>;
  /** Secret salt of the anonymous pattern ids. */
  patternSalt: string;
}

const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;
const fraction = (pct: unknown): number => round4(Math.max(0, Math.min(1, Number(pct ?? 0) / 100)));

const NO_SIGNALS: WashCheckSignals = {
  vanity: { strict: false, broad: false },
  cohort: { uniform_amount: 0, coordinated_start: 0 },
  concentration: { top_service_share: 0 },
};

function asOfText(data: LoadedDataset): string {
  return `classifier output as of ${data.entry.as_of} (snapshot ${data.entry.produced_in}); payments after that time are not included`;
}

export async function washCheckAnswer(address: string, ctx: WashCheckContext): Promise<WashCheckBody> {
  const buyers = ctx.dataset('buyers');
  const stamp = { source: buyers.entry.source, as_of: buyers.entry.as_of };
  const rows = await queryRows(
    `SELECT address, label, confidence, reason, vanity_strict, vanity_broad, top_service_share
       FROM read_parquet($path) WHERE address = $address LIMIT 1`,
    { path: buyers.path, address },
  );
  const buyer = rows[0];
  if (buyer) {
    const { view, mainSellerFound } = await buyerView(address, buyer, ctx);
    const unindexed = mainSellerFound
      ? ''
      : ' It paid no indexed service, so there is no main seller: cohort signals are 0 and no cohort pattern is named.';
    return { ...stamp, ...view, basis: `Buyer view. ${buyerBasis}${unindexed} Based on the ${asOfText(buyers)}.` };
  }

  const sold = ctx.services.bySeller.get(address);
  if (sold) {
    const view = await sellerView(address, sold, ctx);
    const quiet = sold.every((s) => s.volume30d === 0)
      ? ' None of its services had a payment in the last 30 days, so there is no label to report.'
      : '';
    return { ...stamp, ...view, basis: `${sellerBasis(sold.length)}${quiet} Based on the ${asOfText(buyers)}.` };
  }

  return {
    ...stamp,
    address,
    label: 'unlabeled',
    confidence: 0,
    signals: NO_SIGNALS,
    similar_patterns: [],
    basis: `Never seen: the index has no payment from this address to an indexed x402 service and it sells none, so there is nothing to classify (label unlabeled, confidence 0). Based on the ${asOfText(buyers)}.`,
  };
}

// ------------------------------------------------------------------ buyer view

const buyerBasis =
  "label, confidence, signals.vanity and signals.concentration are this wallet's row of the batch wash classifier (its rules and thresholds over all of the wallet's payments); " +
  'signals.cohort is the cohort summary of its main seller (the indexed seller it paid most often); ' +
  'similar_patterns are the cohorts named by the reasons of its heaviest pair and the vanity clusters it belongs to.';

/** Pattern types a wallet's reasons point to (docs/wash-methodology.md), with the reason that names each. */
const REASON_PATTERNS: ReadonlyArray<readonly [string, string]> = [
  ['dedicated_cohort', 'farm_cohort'],
  ['funded_loop', 'seller_funded_loop'],
  ['balanced_flow', 'payment_ring'],
  ['funding_window', 'common_funder_cohort'],
  ['single_payer_concentration', 'single_payer_concentration'],
  ['vanity_operator', 'vanity_operator'],
];

interface MainSeller {
  /** hash(seller_address)::VARCHAR || '|' || chain: the cohort key. */
  cohortKey: string;
  serviceId: number;
}

async function buyerView(address: string, buyer: DuckRow, ctx: WashCheckContext) {
  const reason = (buyer.reason as string[] | null) ?? [];
  const vanity = { strict: buyer.vanity_strict === true, broad: buyer.vanity_broad === true };
  const main = await mainSeller(address, ctx);
  let cohort = NO_SIGNALS.cohort;
  const patterns: Array<{ type: string; key: string }> = [];
  if (main) {
    cohort = await cohortOf(ctx, main.serviceId);
    for (const [name, type] of REASON_PATTERNS) if (reason.includes(name)) patterns.push({ type, key: main.cohortKey });
    if (reason.includes('seller_funded') && !reason.includes('funded_loop'))
      patterns.push({ type: 'seller_funded_test', key: main.cohortKey });
    if (vanity.strict || vanity.broad) {
      const [keys] = await queryRows(
        `SELECT hash(left($a, ${2 + THRESHOLDS.vanityStrictPrefix}), right($a, ${THRESHOLDS.vanityStrictSuffix}))::VARCHAR AS strict,
                hash(left($a, ${2 + THRESHOLDS.vanityBroadPrefix}), right($a, ${THRESHOLDS.vanityBroadSuffix}))::VARCHAR AS broad`,
        { a: address },
      );
      if (vanity.strict) patterns.push({ type: 'vanity_strict_cluster', key: `${main.cohortKey}|${String(keys!.strict)}` });
      if (vanity.broad) patterns.push({ type: 'vanity_broad_cluster', key: `${main.cohortKey}|${String(keys!.broad)}` });
    }
  }
  const view = {
    address,
    label: String(buyer.label) as WashLabel,
    confidence: round4(Number(buyer.confidence)),
    signals: { vanity, cohort, concentration: { top_service_share: round4(Number(buyer.top_service_share)) } },
    similar_patterns: anonymised(ctx.patternSalt, patterns),
  };
  return { view, mainSellerFound: main !== null };
}

/**
 * The seller the wallet paid most (its heaviest pair), over the indexed services it used; ties go
 * the way the classifier breaks them (TOP_PAIR_KEY: payments, then the seller's hash key).
 */
async function mainSeller(address: string, ctx: WashCheckContext): Promise<MainSeller | null> {
  const profile = await ctx.buyerProfile(address);
  if (!profile || typeof profile.services_used !== 'string') return null;
  const used = JSON.parse(profile.services_used) as Array<{ id: number; tx_count: number }>;
  const pairs = new Map<string, { seller_address: string; chain: string; tx_count: number; service_id: number }>();
  for (const u of used) {
    const s = ctx.services.byId.get(u.id);
    if (!s) continue;
    const key = `${s.item.seller_address}|${s.item.chain}`;
    const pair = pairs.get(key);
    if (pair) {
      pair.tx_count += u.tx_count;
      pair.service_id = Math.min(pair.service_id, s.item.id);
    } else pairs.set(key, { seller_address: s.item.seller_address, chain: s.item.chain, tx_count: u.tx_count, service_id: s.item.id });
  }
  if (pairs.size === 0) return null;
  const [top] = await queryRows(
    `WITH p AS (
       SELECT *, hash(seller_address) AS sak
         FROM (SELECT unnest(from_json($pairs, '[{"seller_address":"VARCHAR","chain":"VARCHAR","tx_count":"BIGINT","service_id":"INTEGER"}]'), recursive := true))
     )
     SELECT p.seller_address, p.chain, p.service_id, p.sak::VARCHAR || '|' || p.chain AS cohort_key
       FROM p ORDER BY ${TOP_PAIR_KEY} DESC LIMIT 1`,
    { pairs: JSON.stringify([...pairs.values()]) },
  );
  if (!top) return null;
  return {
    cohortKey: String(top.cohort_key),
    serviceId: Number(top.service_id),
  };
}

/** A seller's cohort summary (every service of a seller on a chain carries the same), as fractions. */
async function cohortOf(ctx: WashCheckContext, serviceId: number): Promise<WashCheckSignals['cohort']> {
  const washDetail = ctx.dataset('wash-detail');
  const [row] = await queryRows('SELECT cohort_summary FROM read_parquet($path) WHERE service_id = $id LIMIT 1', {
    path: washDetail.path,
    id: serviceId,
  });
  if (!row || typeof row.cohort_summary !== 'string') return NO_SIGNALS.cohort;
  const c = JSON.parse(row.cohort_summary) as { uniform_amount_pct?: number; coordinated_start_pct?: number };
  return { uniform_amount: fraction(c.uniform_amount_pct), coordinated_start: fraction(c.coordinated_start_pct) };
}

// ------------------------------------------------------------------ seller view

function sellerBasis(services: number): string {
  return (
    `Seller view: this address sells ${services} indexed service${services === 1 ? '' : 's'} and never paid one. ` +
    "label is the volume-weighted majority of its buyers' pair labels over the last 30 days; confidence is that label's volume-weighted pair confidence among its top 50 buyers per service times (0.5 + 0.5 x the label's volume share); " +
    "signals.vanity and similar_patterns come from the classifier rules behind its top buyers' pairs; signals.cohort is the cohort summary of its busiest chain; " +
    'signals.concentration.top_service_share is the share of its 30-day volume from suspected_wash pairs.'
  );
}

interface TopPair {
  label: WashLabel;
  confidence: number;
  volume: number;
  signals: Record<string, number>;
}

/**
 * The seller flag (the classifier's seller flag names) a pair's rule implies, recognised by the
 * signals the rule publishes: each of these rules fires only when the seller carries the flag,
 * so a flag shown here is one the seller has (flags without such a pair among its top buyers,
 * and self_pay, seller_funded and launch, are not shown).
 */
function sellerFlagOf(p: TopPair): string | null {
  const has = (k: string) => k in p.signals;
  if (has('cycle_size')) return 'cycle';
  if (has('seller_funded_wallets')) return p.label === 'suspected_wash' ? 'funded_loop' : null;
  if (has('vanity_cluster_size') && has('seller_cohort_size')) return 'vanity_cohort';
  if (has('coordinated_start') && has('uniform_amount')) return 'farm';
  if (has('common_funder_share')) return 'common_funder';
  if (has('seller_top_payer_share')) return 'concentration';
  return null;
}

async function sellerView(address: string, sold: ServiceRecord[], ctx: WashCheckContext) {
  // label votes: 30-day volume per pair label over all its services
  const votes = new Map<WashLabel, number>();
  const chainVolume = new Map<string, number>();
  for (const s of sold) {
    chainVolume.set(s.item.chain, (chainVolume.get(s.item.chain) ?? 0) + s.volume30d);
    for (const [label, share] of Object.entries(s.item.label_distribution) as Array<[WashLabel, number]>) {
      votes.set(label, (votes.get(label) ?? 0) + share * s.volume30d);
    }
  }
  const total = [...votes.values()].reduce((a, b) => a + b, 0);
  // arg_max(label, (volume, label)): ties go to the later label name
  let label: WashLabel = 'unlabeled';
  let best = 0;
  if (total > 0) {
    best = -1;
    for (const [l, v] of votes) if (v > best || (v === best && l > label)) [label, best] = [l, v];
  }

  const pairs = await topPairs(ctx, sold);
  let confidence = 0;
  let vanity = { strict: false, broad: false };
  if (total > 0) {
    const same = pairs.filter((p) => p.pair.label === label);
    const volume = same.reduce((a, p) => a + p.pair.volume, 0);
    const weighted = volume > 0 ? same.reduce((a, p) => a + p.pair.confidence * p.pair.volume, 0) / volume : 0;
    confidence = round4(weighted * (0.5 + 0.5 * (best / total)));
    const C = RULE_CONFIDENCE;
    for (const { pair } of pairs) {
      const flag = sellerFlagOf(pair);
      if (flag === 'vanity_cohort') {
        if (pair.confidence === C.vanity_strict_and_broad || pair.confidence === C.vanity_strict) vanity = { ...vanity, strict: true };
        if (pair.confidence === C.vanity_strict_and_broad || pair.confidence === C.vanity_broad) vanity = { ...vanity, broad: true };
      } else if ('vanity_cluster_size' in pair.signals) vanity = { ...vanity, broad: true }; // a vanity operator's cluster
    }
  }
  // one pattern per flag and chain, keyed by the seller's cohort: hash(seller)|chain
  const sak = await sellerHashKey(sold[0]!.item.seller_address);
  const flags = new Map<string, { type: string; key: string }>();
  for (const { pair, chain } of pairs) {
    const type = sellerFlagOf(pair);
    if (type) flags.set(`${type} ${chain}`, { type, key: `${sak}|${chain}` });
  }
  // the cohort of the chain with the most volume (ties: the later chain name, as arg_max does)
  const busiest = [...chainVolume].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? 1 : -1))[0]?.[0];
  const cohortService = sold.find((s) => s.item.chain === busiest) ?? sold[0]!;
  return {
    address,
    label,
    confidence,
    signals: {
      vanity,
      cohort: await cohortOf(ctx, cohortService.item.id),
      concentration: { top_service_share: total > 0 ? round4((votes.get('suspected_wash') ?? 0) / total) : 0 },
    },
    similar_patterns: anonymised(ctx.patternSalt, [...flags.values()]),
  };
}

/** The top buyers' pairs of a seller's services (wash-detail), with the chain of each service. */
async function topPairs(ctx: WashCheckContext, sold: ServiceRecord[]): Promise<Array<{ pair: TopPair; chain: string }>> {
  const washDetail = ctx.dataset('wash-detail');
  const ids = sold.map((s) => s.item.id);
  const chainOf = new Map(sold.map((s) => [s.item.id, s.item.chain]));
  // the file is sorted by service_id: the range lets DuckDB skip row groups, the list picks the rows
  const rows = await queryRows(
    `SELECT service_id, buyers FROM read_parquet($path)
      WHERE service_id BETWEEN $lo AND $hi AND list_contains(from_json($ids, '["INTEGER"]'), service_id)`,
    { path: washDetail.path, lo: Math.min(...ids), hi: Math.max(...ids), ids: JSON.stringify(ids) },
  );
  const out: Array<{ pair: TopPair; chain: string }> = [];
  for (const r of rows) {
    const chain = chainOf.get(Number(r.service_id)) ?? '';
    for (const b of JSON.parse(String(r.buyers)) as TopPair[]) out.push({ pair: b, chain });
  }
  return out;
}

/** The seller key: hash(seller_address) as text (the cohort key before '|chain'). */
async function sellerHashKey(address: string): Promise<string> {
  const [row] = await queryRows('SELECT hash($a)::VARCHAR AS sak', { a: address });
  return String(row!.sak);
}

function anonymised(salt: string, patterns: Array<{ type: string; key: string }>): Array<{ anonymous_id: string; pattern_type: string }> {
  return [...patterns]
    .sort((a, b) => (a.type === b.type ? (a.key < b.key ? -1 : 1) : a.type < b.type ? -1 : 1))
    .map((p) => ({ anonymous_id: anonymousId(salt, p.type, p.key), pattern_type: p.type }));
}
