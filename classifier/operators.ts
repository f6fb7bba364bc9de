/**
 * Operators and funding bursts (docs/wash-methodology.md §3.4, issue 29).
 *
 * An operator is the owner behind one or more sellers. Sellers are joined into one operator when
 * they share a funding key: a funder up their first-funding chains (only exchanges end a chain
 * here: relays and an operator's treasury are what joins them), an address they sweep their
 * takings to, or the seller itself (its own wallets). A key shared by more than
 * `operatorMaxKeySellers` sellers, or funding more than `returnMaxFanOut` wallets, is a platform
 * and joins nobody. The components come from label propagation over the seller-key graph, a fixed
 * number of rounds (OPERATOR_ROUNDS): a component longer than that splits, which only errs on the
 * side of "two owners".
 *
 * Two signals follow, both over the operator rather than one seller (an operator's fake buyers
 * spread their calls over its sellers, so no one seller's cohort looks concentrated):
 *   operator       wallets funded from the operator's keys (within fundingMaxHops, hubs end the
 *                  chain) that pay the operator most of their payments: enough of them is a
 *                  cohort (wash), fewer are the operator's own tests or CI (self_test)
 *   funding burst  fresh wallets funded by one source within hours with near-equal amounts, that
 *                  pay mostly one operator and make up most of its buyers. The source may be an
 *                  exchange that funds thousands of honest users: "common funder" says nothing
 *                  there, the burst and what its wallets do afterwards do. A burst whose wallets
 *                  spread over unrelated services (an event, an onboarding, a payroll) is a crowd.
 *
 * The hubs of funding.ts are judged by operator too: a relay funding an operator's wallets, which
 * spread over its sellers, is not infrastructure.
 */
import { cutoffSql, step, type SqlStep, type StepContext } from './plan.ts';
import { THRESHOLDS as T } from '../catalog/wash-rules.ts';
import { chainColumns, chainJoins, chainKeysSql } from './funding-chain.ts';

/** Rounds of label propagation (seller -> key -> seller): components up to this many sellers apart in a chain of shared keys. */
export const OPERATOR_ROUNDS = 4;

/** Steps between wc_first_fund and wc_hubs: the operators (hub dedication is judged per operator). */
export function operatorSteps(ctx: StepContext): SqlStep[] {
  const now = cutoffSql(ctx);
  const funding = ctx.scope.kind === 'all' ? 'wallet_funding' : ctx.scope.relations.funding;
  const hops = T.fundingMaxHops;
  let propagation = `l0 AS (SELECT DISTINCT sak, sak AS op FROM e)`;
  for (let r = 1; r <= OPERATOR_ROUNDS; r++) {
    propagation += `,
k${r} AS (SELECT e.key, min(l.op) AS op FROM e JOIN l${r - 1} l USING (sak) GROUP BY e.key),
l${r} AS (SELECT e.sak, least(min(k.op), any_value(p.op)) AS op FROM e JOIN k${r} k USING (key) JOIN l${r - 1} p USING (sak) GROUP BY e.sak)`;
  }
  const last = `l${OPERATOR_ROUNDS}`;
  return [
    step(
      'wc_seller_ops',
      `WITH s AS (
  SELECT DISTINCT sak, seller_address FROM wc_seller_keys
), c AS (
  -- the seller's first-funding chain, cut at the first exchange (hubs do not cut it: relays are
  -- what joins an operator, and hubs are judged by operator)
  SELECT s.sak, ${chainColumns(hops, false)}
    FROM s LEFT JOIN wc_first_fund f ON f.address = s.seller_address
    ${chainJoins(hops, false)}
), chain AS (
  SELECT sak, ${chainKeysSql(hops, false)} AS links FROM c
), sent AS (
  SELECT s.sak, hash(f.address) AS key, sum(f.amount) AS amount,
         hash(CASE WHEN starts_with(f.address, '0x') THEN lower(f.address) ELSE f.address END) IN (SELECT k FROM wc_exchanges) AS exchange
    FROM ${funding} f JOIN s ON f.funder = s.seller_address
   WHERE f.time <= ${now} AND f.address IS NOT NULL AND f.address <> f.funder
     -- an exchange that also sells: what it sends out is its customers' withdrawals, nobody's sweep
     AND hash(CASE WHEN starts_with(s.seller_address, '0x') THEN lower(s.seller_address) ELSE s.seller_address END) NOT IN (SELECT k FROM wc_exchanges)
   GROUP BY ALL
), sweeps AS (
  -- where a seller sends its takings: an address that gets a large share of what it sends (refunds,
  -- rewards and withdrawals spread over many customers are none; an exchange deposit is nobody's key)
  SELECT sak, key FROM (SELECT *, amount / sum(amount) OVER (PARTITION BY sak) AS share FROM sent)
   WHERE NOT exchange AND share >= ${T.sweepMinShare}
), raw AS (
  SELECT sak, sak AS key, true AS owner FROM s
  UNION SELECT sak, unnest(links) AS key, true AS owner FROM chain
  -- a wallet the seller sends money to is its own (a treasury its takings go to) unless it is one
  -- of its customers (a refund, a cashback, money sent back round: the trail's taint judges those)
  UNION SELECT w.sak, w.key, NOT EXISTS (SELECT 1 FROM wc_pairs p WHERE p.bk = w.key AND p.sak = w.sak) AS owner FROM sweeps w
), fanout AS (
  -- a key funding more wallets than any operator would (an exchange missing from the list, a bridge)
  SELECT hash(funder) AS key FROM wc_first_fund GROUP BY funder HAVING count(*) > ${T.returnMaxFanOut}
), ek AS (
  SELECT sak, key, owner FROM raw
   WHERE key NOT IN (SELECT key FROM fanout)
     AND key IN (SELECT key FROM raw GROUP BY key HAVING count(DISTINCT sak) <= ${T.operatorMaxKeySellers})
  UNION SELECT sak, sak AS key, true AS owner FROM s
), e AS (
  SELECT DISTINCT sak, key FROM ek
), ${propagation}
SELECT l.sak, l.op, count(*) OVER (PARTITION BY l.op)::INTEGER AS op_sellers, k.op_keys, k.op_owners
  FROM ${last} l
  JOIN (SELECT l.op, list_sort(list(DISTINCT e.key)) AS op_keys,
               -- the operator's own keys (its sellers and the funders up their chains), not where its
               -- money went: the side a money trail starts from (trails.ts)
               list_sort(list(DISTINCT e.key) FILTER (WHERE e.owner)) AS op_owners
          FROM ${last} l JOIN ek e USING (sak) GROUP BY l.op) k USING (op)`,
    ),
  ];
}

/** Per (buyer, operator of several sellers): its payments to the operator (wc_pair_ctx's op_share). */
export function operatorPairSteps(): SqlStep[] {
  return [
    step(
      'wc_pair_ops',
      `SELECT p.bk, o.op, sum(p.tx_count)::BIGINT AS op_tx
  FROM wc_pairs p JOIN wc_seller_ops o ON o.sak = p.sak
 WHERE o.op_sellers > 1
 GROUP BY ALL`,
    ),
  ];
}

/**
 * The operators' cohorts and bursts (batch only: an on-request run reads them from the seller
 * state), then the pairs that belong to a burst.
 */
export function operatorCohortSteps(): SqlStep[] {
  const w = T.burstWindowHours * 3_600_000;
  return [
    step(
      'wc_operators',
      `WITH b AS (
  SELECT op, bk, bool_or(in_cohort) AS in_cohort, bool_or(operator_funded) AS funded, max(op_share) AS op_share,
         max(span_days) AS span_days, bool_or(periodic) AS periodic
    FROM wc_pair_ctx WHERE NOT self_pay GROUP BY op, bk
)
SELECT op,
       count(*) FILTER (WHERE in_cohort)::INTEGER AS buyers,
       count(*) FILTER (WHERE in_cohort AND funded AND op_share >= ${T.operatorMinShare}
                          AND span_days > ${T.selfTestMaxSpanDays} AND NOT periodic)::INTEGER AS funded_wallets
  FROM b GROUP BY op`,
    ),
    step(
      'wc_op_bursts',
      `WITH m AS (
  -- the operator's dedicated cohort wallets by their first funding (a burst's wallets are fresh:
  -- the burst is their first funding, however long they wait before paying)
  SELECT op, bk, any_value(funder_key) AS fkey, any_value(fund_time) AS fund_time, any_value(fund_amount) AS amount
    FROM wc_pair_ctx
   WHERE in_cohort AND op_share >= ${T.operatorMinShare} AND funder_key IS NOT NULL AND fund_amount > 0
   GROUP BY op, bk
), a AS (
  SELECT *, 0 AS align, epoch_ms(fund_time) // ${w} AS bucket FROM m
  UNION ALL
  SELECT *, 1 AS align, (epoch_ms(fund_time) + ${w / 2}) // ${w} AS bucket FROM m
), g AS (
  SELECT op, fkey, align, bucket, median(amount) AS med FROM a GROUP BY ALL HAVING count(*) >= ${T.burstMinWallets}
), near AS (
  SELECT op, fkey, align, bucket, any_value(g.med) AS med, count(*)::INTEGER AS wallets,
         min(a.fund_time) AS t_from, max(a.fund_time) AS t_to
    FROM a JOIN g USING (op, fkey, align, bucket)
   WHERE abs(a.amount / g.med - 1) <= ${T.burstAmountBand}
   GROUP BY ALL HAVING count(*) >= ${T.burstMinWallets}
)
SELECT n.op, n.fkey, n.t_from, n.t_to, n.med, max(n.wallets)::INTEGER AS wallets
  FROM near n JOIN wc_operators o USING (op)
 WHERE n.wallets >= ${T.burstMinBuyerShare} * o.buyers
 GROUP BY ALL`,
    ),
    step(
      'wc_burst_members',
      `SELECT c.pk, max(b.wallets) AS burst_wallets
  FROM wc_pair_ctx c JOIN wc_op_bursts b ON b.op = c.op AND b.fkey = c.funder_key
 WHERE c.in_cohort AND c.op_share >= ${T.operatorMinShare}
   AND c.fund_time BETWEEN b.t_from AND b.t_to AND abs(c.fund_amount / b.med - 1) <= ${T.burstAmountBand}
 GROUP BY c.pk`,
    ),
  ];
}
