/**
 * Round trips: money a seller sends back to its own buyers (directly or through relay wallets)
 * after they paid it, so the same dollars pay again and again: a cycle of funds that the payment
 * graph alone never shows, because the way back is an ordinary transfer, not an x402 payment
 * (docs/wash-methodology.md §5, merona's net-flow test applied to the funding graph).
 *
 * Every transfer counts here, not only a wallet's first funding. From each seller that sends money
 * at all, the wallets it reaches within `returnMaxHops` transfers (exchanges and very wide funders
 * end a path: they move everyone's money) are its reach; a pair's returns are the transfers into
 * the buyer from that reach after the pair's first payment. A pair whose returns repay a large share
 * of what it paid, in several transfers, is a round trip.
 */
import { step, cutoffSql, type SqlStep, type StepContext } from './plan.ts';
import { THRESHOLDS as T } from '../catalog/wash-rules.ts';

export function returnSteps(ctx: StepContext): SqlStep[] {
  const now = cutoffSql(ctx);
  const funding = ctx.scope.kind === 'all' ? 'wallet_funding' : ctx.scope.relations.funding;
  // reach[d]: wallets d + 1 transfers away from a seller
  const levels: string[] = [];
  for (let d = 1; d < T.returnMaxHops; d++) {
    const from = d === 1 ? 'SELECT sak, sak AS node FROM s' : `SELECT sak, node FROM d${d - 1}`;
    levels.push(`d${d} AS (
  SELECT DISTINCT f.sak, t.dst AS node FROM (${from}) f JOIN wc_transfers t ON t.src = f.node
   WHERE t.dst NOT IN (SELECT k FROM ends) AND t.dst <> f.sak
)`);
  }
  return [
    step(
      'wc_transfers',
      `SELECT hash(funder) AS src, hash(address) AS dst, amount, time FROM ${funding}
  WHERE time <= ${now} AND funder IS NOT NULL AND address IS NOT NULL AND funder <> address`,
    ),
    step(
      'wc_return_reach',
      `WITH s AS (
  SELECT DISTINCT sak FROM wc_pairs WHERE bk <> sak AND sak IN (SELECT src FROM wc_transfers)
), ends AS (
  SELECT k FROM wc_exchanges
  UNION SELECT src FROM wc_transfers GROUP BY src HAVING count(DISTINCT dst) > ${T.returnMaxFanOut}
), ${levels.join(', ')}
SELECT sak, sak AS node FROM s
${levels.map((_, i) => `UNION SELECT sak, node FROM d${i + 1}`).join('\n')}`,
    ),
    step(
      'wc_pair_returns',
      `SELECT p.pk, count(*)::INTEGER AS returns, sum(t.amount) AS returned
  FROM wc_pairs p
  JOIN wc_return_reach r ON r.sak = p.sak
  JOIN wc_transfers t ON t.src = r.node AND t.dst = p.bk
 WHERE p.bk <> p.sak AND t.time > p.first_time
 GROUP BY p.pk`,
    ),
  ];
}
