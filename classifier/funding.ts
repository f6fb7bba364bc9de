/**
 * Funding roots. x402 buyers are gasless, so the first USDC funder is the meaningful "funded by"
 * (docs/wash-methodology.md §11.2). A wallet's funding chain is its first funder, that funder's
 * first funder, and so on up to `fundingMaxHops` (operators put relay wallets in between), as hash
 * keys comparable with bk / sak: `links` (only exchanges end the chain; did the seller fund this
 * wallet?) and `roots` (exchanges and hubs end it: the candidate operators of a third-party cohort).
 * An exchange hot wallet or a hub funds many unrelated users, so sharing one is no evidence of a
 * cohort; a hub is recognised by where its wallets go (see wc_hubs), not by how many it funds.
 */
import { step, cutoffSql, type SqlStep, type StepContext } from './plan.ts';
import { THRESHOLDS as T } from '../catalog/wash-rules.ts';
import { chainColumns, chainJoins, chainKeysSql } from './funding-chain.ts';
import { operatorSteps } from './operators.ts';

export function fundingSteps(ctx: StepContext): SqlStep[] {
  const now = cutoffSql(ctx);
  // Scoped: the relation the check names holds only the edges of its wallets, its sellers and
  // their funders up the chain (classifier/on-request.ts), already cut to what the chain reads.
  const funding = ctx.scope.kind === 'all' ? 'wallet_funding' : ctx.scope.relations.funding;
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
 WHERE time <= ${now} AND funder IS NOT NULL
 GROUP BY address`,
    ),
    ...operatorSteps(ctx),
    // The first-funding chain as far up as roots go, cut only at exchanges: who is below whom.
    step(
      'wc_chains',
      `WITH c AS (
  SELECT f.address, ${chainColumns(T.trailMaxHops, false)}
    FROM wc_first_fund f
    ${chainJoins(T.trailMaxHops, false)}
)
SELECT hash(address) AS fk, ${chainKeysSql(T.trailMaxHops, false)} AS chain FROM c`,
    ),
    // Funding hubs: a wallet that funds many wallets which then go their own ways is
    // infrastructure (an exchange missing from the list, a bridge, an agent platform's treasury);
    // an operator's wallets all serve one operator (one seller or several), however many it funds
    // and however slowly. Where its wallets go is judged over every paying wallet below it, however
    // deep (an operator's trunk of relays funds relays that never pay; the wallets below them do).
    step(
      'wc_hubs',
      `WITH top_op AS (
  -- each paying wallet below some funder: the operator it pays most (its payments over the
  -- operator's sellers together: a wallet spreading its calls over an operator's sellers serves it)
  SELECT bk, arg_max(op, tx * 1048576 + (op % 1048576)::BIGINT) AS top_op FROM (
    SELECT p.bk, coalesce(o.op, p.sak) AS op, sum(p.tx_count) AS tx
      FROM wc_pairs p LEFT JOIN wc_seller_ops o ON o.sak = p.sak
     WHERE p.bk IN (SELECT fk FROM wc_chains WHERE len(chain) > 0)
     GROUP BY ALL
  ) GROUP BY bk
), below AS (
  SELECT u.k, t.top_op
    FROM (SELECT fk, unnest(chain) AS k FROM wc_chains) u
    JOIN top_op t ON t.bk = u.fk
), dedication AS (
  SELECT k, max(n) / sum(n) AS dedication FROM (SELECT k, top_op, count(*) AS n FROM below GROUP BY ALL) GROUP BY k
)
SELECT w.funder AS address FROM (
  SELECT funder FROM ${funding}
   WHERE time <= ${now} AND funder IN (SELECT funder FROM wc_first_fund)
   GROUP BY funder HAVING count(DISTINCT address) >= ${T.hubMinWallets}
) w LEFT JOIN dedication d ON d.k = hash(w.funder)
 WHERE coalesce(d.dedication, 0) < ${T.hubMaxDedication}`,
    ),
    // The first-funding chain as hash keys comparable with bk / sak: links up to ${T.fundingMaxHops} hops (relays),
    // roots up to ${T.trailMaxHops} (a deep relay tree between an operator and its wallets still meets at its root).
    step(
      'wc_funding',
      // over the one walk up the chain (wc_chains: exchanges end it); hubs end the roots too, at
      // the first hub up the chain
      `WITH hub_keys AS (SELECT DISTINCT hash(address) AS k FROM wc_hubs),
first_hub AS (
  SELECT u.fk, min(u.i) AS i FROM (
    SELECT fk, unnest(chain) AS k, generate_subscripts(chain, 1) AS i FROM wc_chains
  ) u JOIN hub_keys h USING (k) GROUP BY u.fk
)
SELECT hash(f.address) AS fk,
       f.funder AS first_funder,
       f.fund_time,
       f.fund_amount,
       hash(f.funder) IN (SELECT k FROM wc_exchanges) OR hash(f.funder) IN (SELECT k FROM hub_keys) AS funder_is_hub,
       -- funding links as they are (only exchanges cut them): did the seller fund this wallet?
       coalesce(c.chain[1:${T.fundingMaxHops}], []) AS links,
       -- roots for third-party cohorts: hubs cut them too
       coalesce(CASE WHEN h.i IS NULL THEN c.chain ELSE c.chain[1:h.i - 1] END, []) AS roots,
       CASE WHEN h.i IS NULL OR h.i > 1 THEN c.chain[1] END AS r1
  FROM wc_first_fund f
  LEFT JOIN wc_chains c ON c.fk = hash(f.address)
  LEFT JOIN first_hub h ON h.fk = c.fk`,
    ),
    // Agent fleets: a treasury (not an exchange) whose funded wallets are mostly agents. Its other
    // wallets are agents too, even those that used fewer services or categories than the agent
    // rule asks of a lone wallet (an operator runs one agent program across its wallets).
    step(
      'wc_fleet_members',
      `WITH w AS (
  SELECT f.first_funder, b.bk, b.agent_like
    FROM wc_funding f JOIN wc_buyers b ON b.bk = f.fk
   WHERE f.first_funder IS NOT NULL AND hash(CASE WHEN starts_with(f.first_funder, '0x') THEN lower(f.first_funder) ELSE f.first_funder END)
         NOT IN (SELECT k FROM wc_exchanges)
), fleets AS (
  SELECT first_funder FROM w GROUP BY first_funder
  HAVING count(*) >= ${T.fleetMinWallets} AND avg(agent_like::INTEGER) >= ${T.fleetMinAgentShare}
)
SELECT DISTINCT w.bk FROM w JOIN fleets USING (first_funder)`,
    ),
  ];
}
