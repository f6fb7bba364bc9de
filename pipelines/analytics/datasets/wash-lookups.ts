/**
 * The point-lookup tables of the on-request wash check (POST /api/v1/wash/check; paid-only, never
 * downloadable): the classifier's inputs as of the run, partitioned by the address a check looks
 * up and sorted by it within each part (sql.ts ADDRESS_PARTITIONS gives the order, so the queries
 * have none), so a lookup opens one part and reads only the row groups whose min/max cover it
 * (POINT_LOOKUP_ROW_GROUP), and the batch run's seller state for what a check does not recompute
 * (classifier/on-request.ts).
 *   wash-payments-by-buyer   every payment up to `now` the classifier reads, by buyer (append-only:
 *                            a run adds the new payments as a delta file, append.ts)
 *   wash-payments-by-seller  the same payments by seller (a seller check's cohort; append-only too)
 *   wash-funding             funding edges before the day state's cutoff (the start of the run's UTC
 *                            day) by funded address, with whether the funder
 *                            is an exchange hot wallet, a funding hub or an agent-fleet treasury
 *                            (classify's funding_stops)
 *   wash-sellers             one row per (seller, chain): classify's seller_state
 */
import type { DatasetStep } from '../../runner.ts';
import { timestampSql } from '../../../classifier/plan.ts';
import { SELLER_FLAGS_SQL } from '../../../classifier/seller-flags.ts';
import { pairKeySql } from '../attribution.ts';
import { dayStart, dayStateStep, fundingEdgesSql } from '../labels.ts';
import { appendOnlyStep } from './append.ts';
import { ADDRESS_PARTITIONS, POINT_LOOKUP_ROW_GROUP, tableStep } from './sql.ts';

/** The payments the classifier reads (transactionSteps' filter), over `payments` and `where` on them. */
const payments = (relation: string, where: string) =>
  `${relation} WHERE ${where} AND buyer IS NOT NULL AND seller_address IS NOT NULL AND chain IS NOT NULL`;

// Append-only: a run adds the payments that arrived since the live version as a delta file (append.ts).
export const washPaymentsByBuyerStep: DatasetStep = appendOnlyStep(
  'wash-payments-by-buyer',
  (relation, where) => `SELECT buyer, seller_address, chain, amount, time FROM ${payments(relation, where)}`,
  ADDRESS_PARTITIONS['wash-payments-by-buyer'],
  POINT_LOOKUP_ROW_GROUP['wash-payments-by-buyer'],
);

export const washPaymentsBySellerStep: DatasetStep = appendOnlyStep(
  'wash-payments-by-seller',
  (relation, where) => `SELECT seller_address, buyer, chain, amount, time FROM ${payments(relation, where)}`,
  ADDRESS_PARTITIONS['wash-payments-by-seller'],
  POINT_LOOKUP_ROW_GROUP['wash-payments-by-seller'],
);

// The funding edges the day state was computed from (before the start of the run's UTC day), and
// the state's seller rows: both the day state's alone, kept while it is (dayStateStep).
export const washFundingStep: DatasetStep = dayStateStep(
  tableStep('wash-funding', (ctx) => fundingEdgesSql(timestampSql(dayStart(ctx.now)))),
);

export const washSellersStep: DatasetStep = dayStateStep(
  tableStep('wash-sellers', () => 'SELECT * FROM seller_state ORDER BY seller_address, chain'),
);

/**
 * wash-check-sellers: one row per seller address (every payee of a labelled pair), what the paid
 * wash check answers an address with that sold and never paid (docs/wash-methodology.md §7):
 *   payments           its payments as seller, all time (pair_labels' counts)
 *   label              the 30-day-volume-weighted majority of the labels of its pairs with other
 *                      wallets (ties: the later label name); NULL when none had a payment in 30 days
 *   confidence         that label's volume-weighted pair confidence x (0.5 + 0.5 x its volume share)
 *   wash_share         the share of that 30-day volume on suspected_wash pairs
 *   uniform_amount, coordinated_start  the day state's cohort summary of its busiest chain (30-day
 *                      volume, ties: the later chain name), 0 without a cohort row
 *   vanity_strict, vanity_broad  its cohort holds a strict / broad vanity cluster
 *   flags              [{chain, flags}]: the classifier's seller flags per chain (the day state's)
 * Volumes are integer micro-USDC and pair confidences (4 decimals) are summed as integers, so the
 * same labels give the same bytes however the run's threads add. Written whole every run: a
 * seller's 30-day volumes move with `now` (thousands of rows at real scale).
 */
export const washCheckSellersStep: DatasetStep = tableStep(
  'wash-check-sellers',
  () => `WITH p AS (
      SELECT l.seller_address, l.chain, l.label, l.tx_count,
             hash(l.buyer) <> hash(l.seller_address) AS by_other,
             round(l.confidence * 1e4)::BIGINT AS confidence_e4,
             coalesce(v.micro_30d, 0)::BIGINT AS micro
        FROM pair_labels l
        LEFT JOIN pair_volume_30d v ON v.pk = ${pairKeySql('hash(l.buyer)', 'hash(l.seller_address)', 'l.chain')}
    ),
    votes AS (
      SELECT seller_address, label, sum(micro)::HUGEINT AS v, sum(micro::HUGEINT * confidence_e4) AS cw
        FROM p WHERE by_other GROUP BY ALL
    ),
    tally AS (
      SELECT seller_address,
             first(label ORDER BY v DESC, label DESC) FILTER (WHERE v > 0) AS label,
             first(cw::DOUBLE / 1e4 / v::DOUBLE ORDER BY v DESC, label DESC) FILTER (WHERE v > 0) AS weighted,
             max(v) AS win, sum(v) AS total,
             coalesce(sum(v) FILTER (WHERE label = 'suspected_wash'), 0) AS wash
        FROM votes GROUP BY ALL
    ),
    chains AS (SELECT seller_address, chain, sum(micro) AS m FROM p GROUP BY ALL),
    busiest AS (SELECT seller_address, first(chain ORDER BY m DESC, chain DESC) AS chain FROM chains GROUP BY ALL),
    payments AS (SELECT seller_address, sum(tx_count)::BIGINT AS payments FROM p GROUP BY ALL),
    state AS (
      SELECT seller_address,
             list({'chain': chain, 'flags': ${SELLER_FLAGS_SQL}} ORDER BY chain) AS flags,
             bool_or(coalesce(len(list_filter(vanity_clusters, c -> c.tier = 'strict')) > 0, false)) AS vanity_strict,
             bool_or(coalesce(len(list_filter(vanity_clusters, c -> c.tier = 'broad')) > 0, false)) AS vanity_broad
        FROM seller_state GROUP BY ALL
    )
    SELECT n.seller_address, n.payments,
           CASE WHEN t.total > 0 THEN t.label END AS label,
           CASE WHEN t.total > 0 THEN round(t.weighted * (0.5 + 0.5 * (t.win::DOUBLE / t.total::DOUBLE)), 4) ELSE 0 END AS confidence,
           CASE WHEN t.total > 0 THEN round(t.wash::DOUBLE / t.total::DOUBLE, 4) ELSE 0 END AS wash_share,
           round(coalesce(s.uniform_amount_pct, 0), 4)::DOUBLE AS uniform_amount,
           round(coalesce(s.coordinated_start_pct, 0), 4)::DOUBLE AS coordinated_start,
           coalesce(st.vanity_strict, false) AS vanity_strict,
           coalesce(st.vanity_broad, false) AS vanity_broad,
           coalesce(st.flags, []) AS flags
      FROM payments n
      LEFT JOIN tally t USING (seller_address)
      LEFT JOIN busiest b USING (seller_address)
      LEFT JOIN seller_state s ON s.seller_address = n.seller_address AND s.chain = b.chain
      LEFT JOIN state st ON st.seller_address = n.seller_address
     ORDER BY n.seller_address`,
);

export const washLookupSteps: DatasetStep[] = [
  washPaymentsByBuyerStep,
  washPaymentsBySellerStep,
  washFundingStep,
  washSellersStep,
  washCheckSellersStep,
];
