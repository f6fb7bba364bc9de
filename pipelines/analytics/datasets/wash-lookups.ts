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

export const washLookupSteps: DatasetStep[] = [washPaymentsByBuyerStep, washPaymentsBySellerStep, washFundingStep, washSellersStep];
