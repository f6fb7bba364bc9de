/**
 * POST /api/v1/wash/check: the wash classifier's answer for one address, read on each request
 * (never cached) from the snapshot the request is served from, with at most two point reads.
 * Methodology: docs/wash-methodology.md §7.
 *
 * Why reads and not a computation: a buyer's label is a function of its own payments up to the
 * run's `now` and the day state (docs/wash-methodology.md §1.1), and the run that published the
 * snapshot evaluated exactly that function for every buyer, over the same payments and the same
 * day state a request would read: computing it again in the request gives the same answer
 * (pipelines/analytics/incremental.test.ts holds the run's labels to a run from scratch) at tens of
 * times the cost. A seller's answer weighs its pairs' labels by their 30-day volume, which the run
 * has for every pair and a request would have to re-read from every payer.
 *
 * buyer view (the address paid: wins when it also sells), from its `buyers` row
 *   label, confidence, signals.vanity (its membership of its sellers' vanity clusters),
 *   signals.concentration (its top seller's share of its payments); signals.cohort is the cohort
 *   summary of its main seller (its heaviest pair, as the classifier picks it); similar_patterns
 *   are the cohorts its heaviest pair's reasons name and its vanity clusters
 * seller view (the address sells and never paid), from its `wash-check-sellers` row
 *   label       the 30-day-volume-weighted majority of its pairs' labels
 *   confidence  that label's 30-day-volume-weighted pair confidence x (0.5 + 0.5 x its volume share)
 *   signals     vanity: its cohort holds a strict / broad vanity cluster; cohort: the cohort of its
 *               busiest chain (30-day volume); concentration.top_service_share: the share of its
 *               30-day volume on suspected_wash pairs
 *   similar_patterns  its seller flags, one per flag and chain
 * never seen: unlabeled, confidence 0, no signals, no patterns.
 * operator (both views): the operator the free `operators` dataset lists for the seller (a buyer's:
 *   its main seller's), through WashCheckContext.operatorOf (proxy/data/operators.ts); else null.
 *
 * `basis` says which of these the answer rests on, and `as_of` is the data's: payments after it
 * are not in any answer. Anonymous pattern ids are sha256 of a secret salt, the pattern type and the
 * cohort key (lib/wash-ids.ts; the salt from WASH_PATTERN_SALT, passed in by proxy/serve.ts), so
 * the same cohort gets the same id for one salt, and the key (built from hashed seller keys) never
 * leaves the process.
 */
import type { WashLabel } from '../../catalog/categories.ts';
import { THRESHOLDS } from '../../catalog/wash-rules.ts';
import { anonymousId } from '../../lib/wash-ids.ts';
import { parquetSql, type LoadedDataset } from '../../snapshots/reader.ts';
import type { z } from 'zod';
import type { Evidence } from '../../catalog/analytics.ts';
import { queryRows, type DuckRow } from './duck.ts';
import type { OperatorRef } from './operators.ts';

export type EvidenceItem = z.infer<typeof Evidence>[number];

export interface WashCheckSignals {
  vanity: { strict: boolean; broad: boolean };
  cohort: { uniform_amount: number; coordinated_start: number };
  concentration: { top_service_share: number };
}

export interface WashCheckBody {
  source: string;
  as_of: string;
  /** The day state the cohort evidence comes from (the start of a UTC day); null before day states. */
  cohort_state_as_of: string | null;
  address: string;
  label: WashLabel;
  confidence: number;
  signals: WashCheckSignals;
  /** What a suspected_wash label rests on, strongest first (classifier/evidence.ts); [] for any other label. */
  evidence: EvidenceItem[];
  similar_patterns: Array<{ anonymous_id: string; pattern_type: string }>;
  /** The operator behind the seller (a seller's own; a buyer's main seller's), when the operators dataset lists one. */
  operator: OperatorRef | null;
  /** What this answer was computed from (see the module comment). */
  basis: string;
}

export interface WashCheckContext {
  /** A dataset of the snapshot; throws (503) when it is missing. */
  dataset(name: string): LoadedDataset;
  /** Secret salt of the anonymous pattern ids. */
  patternSalt: string;
  /** The listed operator behind a seller address (proxy/data/operators.ts); null when none. */
  operatorOf(seller: string | null): Promise<OperatorRef | null>;
}

/** The snapshot datasets a check reads. */
export const WASH_CHECK_DATASETS = ['buyers', 'wash-check-sellers'] as const;

const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;

const NO_SIGNALS: WashCheckSignals = {
  vanity: { strict: false, broad: false },
  cohort: { uniform_amount: 0, coordinated_start: 0 },
  concentration: { top_service_share: 0 },
};

function stampOf(data: LoadedDataset) {
  return { source: data.entry.source, as_of: data.entry.as_of, cohort_state_as_of: data.entry.cohort_state_as_of ?? null };
}

function asOfText(data: LoadedDataset): string {
  const cohort = data.entry.cohort_state_as_of;
  return (
    `the run of ${data.entry.as_of} (snapshot ${data.entry.produced_in}); payments after that time are not included` +
    (cohort ? `; cohort evidence and funding from the day state of ${cohort} (a cohort's new members count from the next day)` : '')
  );
}

/** The address's buyer row: the classifier's label and what the answer shows of it. */
const BUYER_COLUMNS = (() => {
  const T = THRESHOLDS;
  return `label, confidence, reason, evidence::VARCHAR AS evidence, vanity_strict, vanity_broad, top_service_share, tx_count, top_seller_address,
          top_cohort_uniform_amount, top_cohort_coordinated_start,
          hash(top_seller_address)::VARCHAR || '|' || top_chain AS cohort_key,
          hash(left(address, ${2 + T.vanityStrictPrefix}), right(address, ${T.vanityStrictSuffix}))::VARCHAR AS strict_key,
          hash(left(address, ${2 + T.vanityBroadPrefix}), right(address, ${T.vanityBroadSuffix}))::VARCHAR AS broad_key`;
})();

export async function washCheckAnswer(address: string, ctx: WashCheckContext): Promise<WashCheckBody> {
  const buyers = ctx.dataset('buyers');
  const sellers = ctx.dataset('wash-check-sellers');
  // the address only ever reaches the SQL as a value; parquetSql takes it to pick its bucket's part
  const [bought] = await queryRows(`SELECT ${BUYER_COLUMNS} FROM ${parquetSql(buyers, [address])} WHERE address = $a LIMIT 1`, {
    a: address,
  });
  if (bought) {
    return {
      ...stampOf(buyers),
      ...buyerView(address, bought, ctx.patternSalt),
      operator: await ctx.operatorOf(bought.top_seller_address === null ? null : String(bought.top_seller_address)),
      basis: `Buyer view. ${buyerBasis(Number(bought.tx_count))} Based on ${asOfText(buyers)}.`,
    };
  }
  const [sold] = await queryRows(
    `SELECT payments::BIGINT AS payments, label, confidence, wash_share, uniform_amount, coordinated_start, vanity_strict, vanity_broad,
            to_json(flags)::VARCHAR AS flags, hash(seller_address)::VARCHAR AS sak, evidence::VARCHAR AS evidence
       FROM ${parquetSql(sellers)} WHERE seller_address = $a LIMIT 1`,
    { a: address },
  );
  if (sold) {
    const quiet = sold.label === null;
    const none = quiet ? ' None of its pairs had a payment in the last 30 days, so there is no label to report.' : '';
    return {
      ...stampOf(sellers),
      ...sellerView(address, sold, ctx.patternSalt),
      operator: await ctx.operatorOf(address),
      basis: `${sellerBasis(Number(sold.payments))}${none} Based on ${asOfText(sellers)}.`,
    };
  }
  return {
    ...stampOf(buyers),
    address,
    label: 'unlabeled',
    confidence: 0,
    signals: NO_SIGNALS,
    evidence: [],
    similar_patterns: [],
    operator: null,
    basis: `Never seen: the index has no payment from or to this address, so there is nothing to classify (label unlabeled, confidence 0). Based on ${asOfText(buyers)}.`,
  };
}

// ------------------------------------------------------------------ buyer view

function buyerBasis(payments: number): string {
  return (
    `label, confidence, signals.vanity and signals.concentration are the wash classifier's for this wallet, computed by the run below from all ${payments} of its payments ` +
    "(its pairs, timing, bursts, periodicity, funding chain, the pair rules and the roll-up to one label) with each seller's cohort evidence from the day state " +
    '(a wallet with no payment since the day began keeps the label of the day state); ' +
    'signals.cohort is the cohort summary of its main seller (its heaviest pair); ' +
    'similar_patterns are the cohorts named by the reasons of its heaviest pair and the vanity clusters it belongs to.'
  );
}

/** Pattern types a wallet's reasons point to (docs/wash-methodology.md), with the reason that names each. */
const REASON_PATTERNS: ReadonlyArray<readonly [string, string]> = [
  ['money_trail', 'money_trail'],
  ['payment_ring', 'payment_ring'],
  ['funds_returned', 'round_trip'],
  ['cohort', 'coordinated_cohort'],
  ['synchronized_start', 'farm_cohort'],
  ['common_funder', 'common_funder_cohort'],
  ['operator_cohort', 'operator_cohort'],
  ['funding_burst', 'funding_burst'],
  ['single_payer_concentration', 'single_payer_concentration'],
  ['vanity_operator', 'vanity_operator'],
];

function buyerView(address: string, row: DuckRow, salt: string) {
  const reason = ((row.reason as string[] | null) ?? []).map(String);
  const vanity = { strict: row.vanity_strict === true, broad: row.vanity_broad === true };
  const key = String(row.cohort_key);
  const patterns: Array<{ type: string; key: string }> = [];
  for (const [name, type] of REASON_PATTERNS) if (reason.includes(name)) patterns.push({ type, key });
  if (reason.includes('seller_funded') && row.label === 'self_test') patterns.push({ type: 'seller_funded_test', key });
  if (vanity.strict) patterns.push({ type: 'vanity_strict_cluster', key: `${key}|${String(row.strict_key)}` });
  if (vanity.broad) patterns.push({ type: 'vanity_broad_cluster', key: `${key}|${String(row.broad_key)}` });
  return {
    address,
    label: String(row.label) as WashLabel,
    confidence: round4(Number(row.confidence)),
    signals: {
      vanity,
      cohort: {
        uniform_amount: round4(Number(row.top_cohort_uniform_amount ?? 0)),
        coordinated_start: round4(Number(row.top_cohort_coordinated_start ?? 0)),
      },
      concentration: { top_service_share: round4(Number(row.top_service_share)) },
    },
    evidence: evidenceOf(row.evidence),
    similar_patterns: anonymised(salt, patterns),
  };
}

/** A row's evidence column (JSON text): what a suspected_wash label rests on, [] for any other. */
function evidenceOf(value: unknown): WashCheckBody['evidence'] {
  if (value === null || value === undefined) return [];
  const parsed = JSON.parse(String(value)) as WashCheckBody['evidence'] | null;
  return parsed ?? [];
}

// ------------------------------------------------------------------ seller view

function sellerBasis(payments: number): string {
  return (
    `Seller view: this address was paid ${payments} times and never paid. Each of its payers' pairs carries the label the run below gave it ` +
    "(from the payer's payments and the day state's cohort evidence: its own cohort's summary, flags and vanity clusters, its payers' other sellers', payment rings): " +
    "label is the volume-weighted majority of its pairs' labels over the last 30 days; confidence is that label's volume-weighted pair confidence times (0.5 + 0.5 x the label's volume share); " +
    'signals.vanity says its cohort holds a strict or broad vanity cluster; signals.cohort is the cohort summary of its busiest chain; ' +
    'signals.concentration.top_service_share is the share of its 30-day volume on suspected_wash pairs; similar_patterns are its seller flags.'
  );
}

function sellerView(address: string, row: DuckRow, salt: string) {
  const quiet = row.label === null;
  const flags = (JSON.parse(String(row.flags ?? '[]')) as Array<{ chain: string; flags: string[] | null }> | null) ?? [];
  const patterns = flags.flatMap((f) => (f.flags ?? []).map((type) => ({ type, key: `${String(row.sak)}|${f.chain}` })));
  return {
    address,
    label: quiet ? 'unlabeled' : (String(row.label) as WashLabel),
    confidence: quiet ? 0 : round4(Number(row.confidence)),
    signals: {
      vanity: { strict: row.vanity_strict === true, broad: row.vanity_broad === true },
      cohort: { uniform_amount: round4(Number(row.uniform_amount ?? 0)), coordinated_start: round4(Number(row.coordinated_start ?? 0)) },
      concentration: { top_service_share: quiet ? 0 : round4(Number(row.wash_share)) },
    },
    evidence: quiet ? [] : evidenceOf(row.evidence),
    similar_patterns: anonymised(salt, patterns),
  };
}

function anonymised(salt: string, patterns: Array<{ type: string; key: string }>): Array<{ anonymous_id: string; pattern_type: string }> {
  return [...patterns]
    .sort((a, b) => (a.type === b.type ? (a.key < b.key ? -1 : 1) : a.type < b.type ? -1 : 1))
    .map((p) => ({ anonymous_id: anonymousId(salt, p.type, p.key), pattern_type: p.type }));
}
