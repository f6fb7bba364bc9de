/**
 * Money trails (docs/wash-methodology.md §1 and §3.8, issue 46): how much of a wallet's money came
 * from a seller's side, by whatever path and however long ago.
 *
 * The money graph is every USDC transfer (wallet_funding, not only first fundings) and every x402
 * payment (buyer -> seller), as aggregated edges between hash keys. A seller's side is its
 * operator's keys (operators.ts: the sellers, their first-funding chains, where they sweep their
 * takings), less the nodes where a trail ends. Its money is followed by proportional taint (the
 * "haircut" of blockchain tracing): a wallet's taint by an operator is the share of everything it
 * received that came from the operator's side,
 *
 *   taint(op, w) = sum over edges u -> w of amount(u, w) * taint(op, u) / inflow(w),   taint(op, side) = 1,
 *
 * so money passed through a relay keeps its share, and money that mixes with others' (a popular
 * seller's takings, an exchange) is diluted by exactly how much it mixed. The fixed point is
 * approached in `trailMaxHops` rounds (a trail longer than that is not followed: a chain of 10,000
 * relays costs 12 rounds, never a walk of 10,000 steps), cycles included (a ring's money comes round
 * again, each round adds what the next hop brings), and taint below `trailMinTaint` is dropped, so
 * the rows are bounded by the wallets that hold a material share of an operator's money.
 *
 * Trails end at public nodes: listed exchanges, funding hubs learned from the graph (funding.ts:
 * many funded wallets that go their own ways) and any wallet funding more than `returnMaxFanOut`
 * wallets. Their money is everyone's: nothing passes through them, and an exchange that is also a
 * seller has no side (its outflows are its customers' withdrawals).
 *
 * Each reached (op, wallet) keeps its depth (hops from the side) and its predecessor on one path
 * back (the biggest contributor among the nearest), so a path of addresses can be named.
 */
import { step, type SqlStep } from './plan.ts';
import { THRESHOLDS as T } from '../catalog/wash-rules.ts';

/** One round of propagation from relation `prev` (op, node, taint, depth, pred) to the next. */
function roundSql(prev: string): string {
  return `SELECT op, node, taint, depth, pred FROM wc_trail_seeds
UNION ALL
SELECT op, node, least(taint, 1.0) AS taint, depth, pred FROM (
  SELECT c.op, e.dst AS node,
         sum(e.amount * c.taint) / any_value(i.amount) AS taint,
         min(c.depth) + 1 AS depth,
         -- the nearest contributor, the biggest among them: a path back strictly shortens
         arg_max(c.node, c.taint * e.amount - c.depth * 1e15) AS pred
    FROM ${prev} c
    JOIN wc_money_edges e ON e.src = c.node
    JOIN wc_money_in i ON i.node = e.dst
    ANTI JOIN wc_trail_seeds s ON s.op = c.op AND s.node = e.dst
   WHERE e.dst NOT IN (SELECT k FROM wc_trail_stops)
   GROUP BY c.op, e.dst
) WHERE taint >= ${T.trailMinTaint}`;
}

/**
 * The trail steps of a whole-world run, after the operators (wc_seller_ops), the hubs, the
 * transfers (wc_transfers) and the pairs. An on-request or buyer-set run reads wc_trails from the
 * day state instead (on-request.ts).
 */
export function trailSteps(): SqlStep[] {
  const rounds: string[] = ['r0 AS (SELECT op, node, taint, depth, pred FROM wc_trail_seeds)'];
  for (let r = 1; r <= T.trailMaxHops; r++) rounds.push(`r${r} AS MATERIALIZED (${roundSql(`r${r - 1}`)})`);
  return [
    step(
      'wc_money_edges',
      `SELECT src, dst, sum(amount) AS amount FROM (
  SELECT src, dst, amount FROM wc_transfers WHERE amount > 0
  UNION ALL
  SELECT bk, sak, volume FROM wc_pairs WHERE bk <> sak AND volume > 0
) GROUP BY src, dst`,
    ),
    step('wc_money_in', 'SELECT dst AS node, sum(amount) AS amount FROM wc_money_edges GROUP BY dst'),
    step(
      'wc_trail_stops',
      `SELECT k FROM wc_exchanges
UNION SELECT hash(address) FROM wc_hubs
UNION SELECT src FROM wc_transfers GROUP BY src HAVING count(DISTINCT dst) > ${T.returnMaxFanOut}`,
    ),
    // an operator's side: its sellers and the funders up their chains, less the public nodes (a hub
    // that funded its seller is not its own); where its money went is reached by the taint itself
    step(
      'wc_trail_seeds',
      `SELECT DISTINCT op, node, 1.0::DOUBLE AS taint, 0 AS depth, NULL::UBIGINT AS pred
  FROM (SELECT op, unnest(op_owners) AS node FROM wc_seller_ops)
 WHERE node NOT IN (SELECT k FROM wc_trail_stops)`,
    ),
    step(
      'wc_trails',
      `WITH ${rounds.join(',\n')}
SELECT op, node, taint, depth, pred FROM r${T.trailMaxHops} WHERE depth > 0`,
    ),
    // One more hop from every wallet holding the operator's money, nothing dropped: what each wallet
    // received from the side, however small a share of its inflow (a seller returning a buyer's
    // payments into a large balance is a small share and a large part of what it paid).
    step(
      'wc_trail_reach',
      `WITH held AS (SELECT op, node, taint, depth FROM wc_trails UNION ALL SELECT op, node, taint, depth FROM wc_trail_seeds),
arrivals AS (
  -- each transfer or payment from the side into the wallet, with its time: money sent back after the
  -- wallet paid (a ring's money comes back as payments, a round trip's as transfers)
  SELECT op, node, list({'t': t, 'a': a} ORDER BY t, a) AS arrivals FROM (
    SELECT h.op, t.dst AS node, t.time AS t, t.amount * h.taint AS a
      FROM held h JOIN wc_transfers t ON t.src = h.node
     WHERE t.amount > 0
    UNION ALL
    SELECT h.op, p.sak AS node, x.time AS t, x.amount * h.taint AS a
      FROM held h JOIN wc_pairs p ON p.bk = h.node AND p.bk <> p.sak
      JOIN wc_tx x ON x.buyer = p.buyer AND x.seller_address = p.seller_address AND x.chain = p.chain
     WHERE x.amount > 0
  ) WHERE node NOT IN (SELECT k FROM wc_trail_stops)
  GROUP BY op, node
)
SELECT h.op, e.dst AS node,
       sum(e.amount * h.taint) AS tainted,
       least(sum(e.amount * h.taint) / any_value(i.amount), 1.0) AS taint,
       min(h.depth) + 1 AS depth,
       arg_max(h.node, h.taint * e.amount - h.depth * 1e15) AS pred,
       any_value(a.arrivals) AS arrivals
  FROM held h
  JOIN wc_money_edges e ON e.src = h.node
  JOIN wc_money_in i ON i.node = e.dst
  LEFT JOIN arrivals a ON a.op = h.op AND a.node = e.dst
  ANTI JOIN wc_trail_seeds s ON s.op = h.op AND s.node = e.dst
 WHERE e.dst NOT IN (SELECT k FROM wc_trail_stops)
 GROUP BY h.op, e.dst`,
    ),
    // what the wallets an operator's money reached paid the operator (only those: most wallets are not reached)
    step(
      'wc_pair_op_volume',
      `SELECT p.bk, coalesce(so.op, p.sak) AS op, sum(p.volume) AS op_volume, sum(p.tx_count) AS op_tx, min(p.first_time) AS op_first_time
  FROM wc_pairs p LEFT JOIN wc_seller_ops so ON so.sak = p.sak
 WHERE p.bk <> p.sak AND p.bk IN (SELECT node FROM wc_trail_reach UNION SELECT node FROM wc_trail_seeds)
 GROUP BY ALL`,
    ),
    step('wc_pair_trail', PAIR_TRAIL_SQL),
  ];
}

/**
 * Per pair: how much of what its buyer paid the seller's operator the operator's side financed
 * (`trail_cover`, 0 to 1), the larger of two measures:
 *   - the share of everything the buyer received that came from the side (`trail_share`: the
 *     haircut; a seller's small credit to a customer who spends mostly their own money is a small share);
 *   - what the side sent back after the buyer first paid the operator (transfers, or payments: a
 *     ring's money comes back as payments for the buyer's own service), against what it paid, when it
 *     came back in at least `roundTripMinReturns` arrivals (a loop repeats; one refund, one cashback is
 *     customer service): the same dollars paying again and again, however large the buyer's own balance.
 * A buyer that is itself one of the operator's own keys (not the seller) is wholly the operator's:
 * share and cover 1, depth 0.
 */
export const PAIR_TRAIL_SQL = `WITH j AS (
  SELECT p.pk, p.bk, coalesce(so.op, p.sak) AS op, sd.node IS NOT NULL AS own, t.taint, t.depth, po.op_volume,
         list_filter(coalesce(t.arrivals, []), x -> x.t > po.op_first_time) AS returned
    FROM wc_pairs p
    LEFT JOIN wc_seller_ops so ON so.sak = p.sak
    LEFT JOIN wc_trail_reach t ON t.op = coalesce(so.op, p.sak) AND t.node = p.bk
    LEFT JOIN wc_trail_seeds sd ON sd.op = coalesce(so.op, p.sak) AND sd.node = p.bk
    LEFT JOIN wc_pair_op_volume po ON po.bk = p.bk AND po.op = coalesce(so.op, p.sak)
   WHERE p.bk <> p.sak AND (t.node IS NOT NULL OR sd.node IS NOT NULL)
)
SELECT pk, op,
       CASE WHEN own THEN 1.0 ELSE greatest(taint,
         CASE WHEN len(returned) >= ${T.roundTripMinReturns}
              THEN least(list_sum(list_transform(returned, x -> x.a)) / nullif(op_volume, 0), 1.0) ELSE 0 END) END AS trail_cover,
       CASE WHEN own THEN 1.0 ELSE taint END AS trail_share,
       CASE WHEN own THEN 0 ELSE depth END AS trail_depth
  FROM j`;
