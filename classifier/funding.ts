/**
 * Funding roots. x402 buyers are gasless, so the first USDC funder is the meaningful "funded by"
 * (docs/wash-methodology.md §11.2). A wallet's roots are its first funder (r1) and that funder's first funder (r2),
 * as hash keys comparable with bk / sak; an exchange hot wallet or another funding hub ends the
 * chain (it funds thousands of unrelated users, so sharing one is no evidence of a cohort), as
 * does a wallet with no funding row.
 */
import { step, timestampSql, type SqlStep, type StepContext } from './plan.ts';
import { THRESHOLDS as T } from '../catalog/wash-rules.ts';

export function fundingSteps(ctx: StepContext): SqlStep[] {
  const now = timestampSql(ctx.now);
  const funding = ctx.scope.kind === 'all' ? 'wallet_funding' : ctx.scope.relations.funding;
  // Scoped: the check's wallets, the sellers, and one level of funders above the wallets.
  const scoped =
    ctx.scope.kind === 'all'
      ? ''
      : `AND address IN (
      SELECT buyer FROM wc_pairs UNION SELECT seller_address FROM wc_pairs
      UNION SELECT funder FROM ${funding} WHERE address IN (SELECT buyer FROM wc_pairs UNION SELECT seller_address FROM wc_pairs))`;
  return [
    // exchange lists may come checksummed from a file: EVM addresses compare lower-case
    step(
      'wc_exchanges',
      `SELECT DISTINCT hash(CASE WHEN starts_with(address, '0x') THEN lower(address) ELSE address END) AS k
  FROM exchange_wallets WHERE address IS NOT NULL`,
    ),
    step(
      'wc_first_fund',
      `SELECT address,
       -- the earliest transfer; same-instant ties go to the smaller funder hash (numeric key)
       arg_min(funder, epoch_ms(time) * 1048576 + (hash(funder) % 1048576)::BIGINT) AS funder,
       min(time) AS fund_time,
       arg_min(amount, epoch_ms(time) * 1048576 + (hash(funder) % 1048576)::BIGINT) AS fund_amount
  FROM ${funding}
 WHERE time <= ${now} AND funder IS NOT NULL ${scoped}
 GROUP BY address`,
    ),
    // Funding hubs: a wallet that funds many wallets over a long time is infrastructure (an
    // exchange missing from the list, a bridge, an agent platform's treasury), not an operator;
    // an operator funds its cohort in a burst. Per funder, over all its transfers.
    step(
      'wc_hubs',
      `SELECT funder AS address FROM ${funding}
 WHERE time <= ${now} AND funder IN (SELECT funder FROM wc_first_fund)
 GROUP BY funder
HAVING count(DISTINCT address) >= ${T.hubMinWallets}
   AND epoch_ms(max(time)) - epoch_ms(min(time)) >= ${T.hubMinSpanDays} * 86400000::BIGINT`,
    ),
    step(
      'wc_funding',
      `SELECT hash(f.address) AS fk,
       f.funder AS first_funder,
       f.fund_time,
       f.fund_amount,
       e1.k IS NOT NULL OR h1.address IS NOT NULL AS funder_is_hub,
       -- funding links as they are (only exchanges cut them): did the seller fund this wallet?
       CASE WHEN e1.k IS NULL THEN hash(f.funder) END AS d1,
       CASE WHEN e1.k IS NULL AND e2.k IS NULL AND f2.funder IS NOT NULL THEN hash(f2.funder) END AS d2,
       -- roots for third-party cohorts: hubs cut them too
       CASE WHEN e1.k IS NULL AND h1.address IS NULL THEN hash(f.funder) END AS r1,
       CASE WHEN e1.k IS NULL AND h1.address IS NULL AND e2.k IS NULL AND h2.address IS NULL AND f2.funder IS NOT NULL
            THEN hash(f2.funder) END AS r2
  FROM wc_first_fund f
  LEFT JOIN wc_first_fund f2 ON f2.address = f.funder
  LEFT JOIN wc_exchanges e1 ON e1.k = hash(f.funder)
  LEFT JOIN wc_exchanges e2 ON e2.k = hash(f2.funder)
  LEFT JOIN wc_hubs h1 ON h1.address = f.funder
  LEFT JOIN wc_hubs h2 ON h2.address = f2.funder`,
    ),
  ];
}
