/**
 * Wash verdicts from evidence (docs/wash-methodology.md §1 and §5, issue 46).
 *
 * Wash is payment to a seller financed by the seller's side, or a cohort that is most of a seller's
 * or operator's traffic and has no economic life of its own. The evidence, strongest first:
 *
 *   money_trail          money from the operator's side financed the buyer's payments (trails.ts)
 *   dominance            the buyer's group makes a large share of the operator's payer volume
 *   no_independent_life  the buyer pays the operator most of what it pays at all
 *   coordination         the buyer's group was funded, started or mined together (a funding root,
 *                        a funding burst, a vanity cluster, a synchronised start) — never enough
 *                        alone: it is how events, payrolls and onboarding look too
 *
 * A verdict needs a money trail with the buyer's own life mostly the operator's and the operator's
 * trail-financed wallets a cohort (enough of them, or most of its volume, over days), or a
 * coordinated group that dominates the operator's traffic and whose member lives for the operator.
 * How much is enough is the model's (catalog/wash-model.ts), fitted on families of behaviour.
 *
 * Groups are defined once per day state (whole world) with their keys and figures; a wallet's
 * membership is a match of its own funding, address and timing against those keys, the same SQL in
 * a whole-world run and over a set of buyers (on-request.ts), so both give the same verdict.
 */
import { THRESHOLDS as T } from '../catalog/wash-rules.ts';
import { TRAIL_FINANCED, WASH_MODEL, type WashModelThresholds } from '../catalog/wash-model.ts';
import { step, type SqlStep } from './plan.ts';

/** The coordination kinds of a cohort group, and the money-trail group (one per operator). */
export const GROUP_KINDS = [
  'funding_root',
  'funding_burst',
  'funding_wave',
  'vanity',
  'start_window',
  'coordinated',
  'money_trail',
] as const;
export type GroupKind = (typeof GROUP_KINDS)[number];

/**
 * The operator's coordinated payers as one group: every member of a keyed group of two or more
 * wallets that live for the operator (the group's median member pays it at least this share), so
 * many small groups make a cohort too. Crowds of popular services are groups that live elsewhere; a
 * seller's synchronised start window is the seller's own figure, judged alone.
 */
const COORDINATED_UNION = `g.life >= 0.9 AND g.kind <> 'start_window'`;

/** The farm signals (seller-flags.ts) a synchronised-start window needs besides itself: two of them. */
const START_WINDOW_MIN_SIGNALS = 2;

/** A start window (margins included) is at most this share of the seller's paid life, first payment to last. */
const START_WINDOW_MAX_LIFE_SHARE = 0.5;

/**
 * The model's thresholds as SQL expressions: constants in a run, a grid relation's columns in the
 * fit (pipelines/analytics/eval-wash-lofo.ts), so both decide with the same predicates.
 */
export type ModelSql = Record<keyof WashModelThresholds, string>;

export const modelSql = (m: WashModelThresholds): ModelSql =>
  Object.fromEntries(Object.entries(m).map(([k, v]) => [k, String(v)])) as ModelSql;

/**
 * Whether a pair's membership of a group makes it wash. Over columns `kind`, `wallets`, `dominance`,
 * `span_days`, `life` (the group's: its median member's payments to the operator over all its
 * payments: a cohort's life is the group's, and a sybil that spends more elsewhere is still one of
 * it), `periodic`, `diversified`, `agent_like` and `vanity_operator` (the pair's: whether it runs on a
 * schedule; x402watch's guard; an agent's breadth; the vanity operator's own wallet, self_test first).
 */
export function trailPassSql(m: ModelSql): string {
  return `(kind = 'money_trail' AND trail_cover >= ${m.trailCover} AND span_days >= ${m.trailSpanDays}
    AND CASE WHEN periodic THEN life >= ${m.trailPeriodicLife} AND wallets >= ${m.trailPeriodicWallets}
             ELSE life >= ${m.trailLife} AND (wallets >= ${m.trailWallets} OR dominance >= ${m.trailDominance}) END)`;
}

export function cohortPassSql(m: ModelSql): string {
  // a diversified wallet (x402watch's guard) is never wash on the strength of one group it is in
  return `(kind <> 'money_trail' AND NOT diversified AND NOT vanity_operator AND life >= ${m.cohortLife} AND wallets >= ${m.cohortWallets}
    AND dominance >= ${m.cohortDominance} AND span_days >= ${m.cohortSpanDays})`;
}

/**
 * Group definitions and figures of a whole-world run (the day state keeps them as `evidence_groups`;
 * a set of buyers reads them from there). One row per (op, kind, key).
 */
export function groupSteps(): SqlStep[] {
  const w = T.burstWindowHours * 3_600_000;
  return [
    // a payment ring: the buyer pays a seller of its own ring, and what it pays comes back round as the
    // ring's payments to it; how much is its pass-through (money in over money out, cycles.ts)
    step(
      'wc_pair_money',
      `SELECT pc.pk, pc.bk, pc.op, greatest(coalesce(t.trail_cover, 0), coalesce(r.ring_cover, 0)) AS trail_cover
  FROM wc_pair_ctx pc
  LEFT JOIN wc_pair_trail t USING (pk)
  LEFT JOIN (SELECT pc.pk, cb.pass_through AS ring_cover
               FROM wc_pair_ctx pc
               JOIN wc_cycles cb ON cb.ak = pc.bk AND cb.chain = pc.chain
               JOIN wc_cycles cs ON cs.ak = pc.sak AND cs.chain = pc.chain AND cs.cycle_id = cb.cycle_id
              WHERE NOT pc.self_pay) r USING (pk)
 WHERE t.pk IS NOT NULL OR r.pk IS NOT NULL`,
    ),
    step(
      'wc_op_volume',
      `SELECT op, sum(volume) AS payer_volume, count(DISTINCT bk)::INTEGER AS buyers FROM wc_pair_ctx WHERE NOT self_pay GROUP BY op`,
    ),
    step(
      'wc_group_defs',
      `WITH pc AS (SELECT * FROM wc_pair_ctx WHERE NOT self_pay),
owners AS (SELECT op, unnest(op_owners) AS k FROM wc_seller_ops),
roots AS (
  -- a non-public funder up the wallets' first-funding chains (hubs and exchanges end them); the
  -- operator's own keys are its money trail, not a third party's cohort
  SELECT DISTINCT r.op, r.root AS key FROM (SELECT op, unnest(roots) AS root FROM pc) r
    ANTI JOIN owners o ON o.op = r.op AND o.k = r.root
   WHERE r.root IS NOT NULL
),
m AS (
  -- the funding is the buyer's (one row per operator and buyer); first_paid: its first payment to the operator
  SELECT op, bk, any_value(funder_key) AS fkey, any_value(fund_time) AS fund_time, any_value(fund_amount) AS amount,
         min(first_time) AS first_paid
    FROM pc WHERE funder_key IS NOT NULL AND fund_amount > 0 GROUP BY op, bk
),
a AS (
  SELECT *, 0 AS align, epoch_ms(fund_time) // ${w} AS bucket FROM m
  UNION ALL
  SELECT *, 1 AS align, (epoch_ms(fund_time) + ${w / 2}) // ${w} AS bucket FROM m
),
-- (counted first, the median only for the windows that could hold a burst: most are one wallet's)
g AS (
  SELECT op, fkey, align, bucket, median(amount) AS med FROM a
   SEMI JOIN (SELECT op, fkey, align, bucket FROM a GROUP BY ALL
               HAVING count(*) >= CASE WHEN fkey IN (SELECT k FROM wc_trail_stops) THEN ${T.burstMinWallets} ELSE 2 END)
   USING (op, fkey, align, bucket)
   GROUP BY ALL
),
fresh AS (
  -- wallets first funded shortly before they first paid the operator: made for it
  SELECT op, bk, fkey, fund_time FROM m WHERE fund_time >= first_paid - INTERVAL ${T.freshWalletDays} DAY
),
bursts AS (
  -- first fundings by one source within hours, amounts near the group's median (the source may be
  -- an exchange: the burst and what its wallets do afterwards are the evidence, not the source). A
  -- public source funds many people every hour, in round amounts less one fee: two or three of an
  -- operator's payers withdrawing alike in one window is chance, a burst from it needs burstMinWallets
  SELECT op, hash(fkey, align, bucket) AS key, fkey, min(a.fund_time) AS t_from, max(a.fund_time) AS t_to, any_value(g.med) AS med
    FROM a JOIN g USING (op, fkey, align, bucket)
   WHERE abs(a.amount / g.med - 1) <= ${T.burstAmountBand}
   GROUP BY op, fkey, align, bucket
  HAVING count(*) >= CASE WHEN fkey IN (SELECT k FROM wc_trail_stops) THEN ${T.burstMinWallets} ELSE 2 END
),
rate AS (
  -- how many payers a source first-funds in a window at its usual pace, over every seller's payers:
  -- measured on one seller alone, a new service's launch (its first customers all arrive in its
  -- first days) would be a wave from the exchange they withdraw from
  SELECT fkey, count(DISTINCT bk) * ${T.waveWindowHours} / greatest((epoch_ms(max(fund_time)) - epoch_ms(min(fund_time))) / 3600000.0, ${T.waveWindowHours}) AS expected
    FROM m GROUP BY fkey
),
waves AS (
  -- fresh wallets first funded by one source within a few days, whatever the amounts (a burst spread
  -- out, withdrawals of an operator's deposit): a few from a private source; from a public one (an
  -- exchange funds a popular seller's new customers every day), many, and ${T.waveMinRate} times its usual pace
  SELECT w.op, hash(w.fkey, w.align, w.bucket, 'wave') AS key, w.fkey, min(w.fund_time) AS t_from, max(w.fund_time) AS t_to
    FROM (SELECT *, 0 AS align, epoch_ms(fund_time) // ${T.waveWindowHours * 3_600_000} AS bucket FROM fresh
          UNION ALL
          SELECT *, 1 AS align, (epoch_ms(fund_time) + ${(T.waveWindowHours * 3_600_000) / 2}) // ${T.waveWindowHours * 3_600_000} AS bucket FROM fresh) w
    JOIN rate r USING (fkey)
   GROUP BY w.op, w.fkey, w.align, w.bucket
  HAVING count(*) >= CASE WHEN w.fkey IN (SELECT k FROM wc_trail_stops)
                          THEN greatest(${T.burstMinWallets}, ${T.waveMinRate} * any_value(r.expected)) ELSE 3 END
),
life AS (SELECT sak, chain, epoch(min(first_time)) AS t_first, epoch(max(last_time)) AS t_last FROM pc GROUP BY sak, chain),
starts AS (
  -- a seller's core that started together, with at least one more farm signal, in a window short
  -- against the seller's paid life: every customer of a service launched last week started within
  -- a week, and that is a launch, not a start together
  SELECT coalesce(so.op, s.sak) AS op, s.sak, s.chain,
         s.core_start_p10 - greatest(${T.farmStartMarginDays} * 86400, 0.25 * (s.core_start_p90 - s.core_start_p10)) AS w_from,
         s.core_start_p90 + greatest(${T.farmStartMarginDays} * 86400, 0.25 * (s.core_start_p90 - s.core_start_p10)) AS w_to
    FROM wc_sellers s JOIN life l ON l.sak = s.sak AND l.chain = s.chain LEFT JOIN wc_seller_ops so ON so.sak = s.sak
   WHERE s.core_size >= 2 AND s.sig_synchronized_start
     AND s.sig_coordinated_start::INTEGER + s.sig_synchronized_start::INTEGER + s.sig_common_funder::INTEGER
         + s.sig_uniform_amount::INTEGER + s.sig_uniform_tx_count::INTEGER >= ${START_WINDOW_MIN_SIGNALS}
     AND (s.core_start_p90 - s.core_start_p10) + 2 * greatest(${T.farmStartMarginDays} * 86400, 0.25 * (s.core_start_p90 - s.core_start_p10))
         <= ${START_WINDOW_MAX_LIFE_SHARE} * (l.t_last - l.t_first)
)
SELECT op, 'funding_root' AS kind, key, NULL::UBIGINT AS sak, NULL::VARCHAR AS chain, NULL::UBIGINT AS fkey,
       NULL::TIMESTAMP AS t_from, NULL::TIMESTAMP AS t_to, NULL::DOUBLE AS med, NULL::DOUBLE AS w_from, NULL::DOUBLE AS w_to
  FROM roots
UNION ALL
SELECT op, 'funding_burst', key, NULL, NULL, fkey, t_from, t_to, med, NULL, NULL FROM bursts
UNION ALL
SELECT op, 'funding_wave', key, NULL, NULL, fkey, t_from, t_to, NULL, NULL, NULL FROM waves
UNION ALL
SELECT DISTINCT coalesce(so.op, v.sak), 'vanity', hash(v.tier, v.key), v.sak, v.chain, NULL, NULL, NULL, NULL, NULL, NULL
  FROM wc_vanity_clusters v LEFT JOIN wc_seller_ops so ON so.sak = v.sak
UNION ALL
SELECT op, 'start_window', hash(sak, chain), sak, chain, NULL, NULL, NULL, NULL, w_from, w_to FROM starts
UNION ALL
SELECT DISTINCT op, 'money_trail', op, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM wc_pair_money`,
    ),
    ...memberSteps(),
  ];
}

/** A group's figures from its member pairs (relation `members`: pk, bk, op, kind, key). */
function groupStatsSql(members: string): string {
  return `SELECT m.op, m.kind, m.key, count(DISTINCT m.bk)::INTEGER AS wallets, sum(pc.volume) AS volume,
       -- how long the group kept paying: from the start of its first tenth to the end of its last
       -- tenth (a straggler's later call does not make an afternoon's crowd a campaign)
       (quantile_cont(epoch_ms(pc.last_time), 0.9) - quantile_cont(epoch_ms(pc.first_time), 0.1)) / 86400000.0 AS span_days,
       median(pc.op_share) AS life,
       -- a few members by name: what a reader can look up
       list(DISTINCT p.buyer ORDER BY p.buyer)[1:5] AS sample
  FROM ${members} m JOIN wc_pair_ctx pc USING (pk) JOIN wc_pairs p USING (pk)
 GROUP BY ALL`;
}

/** The figures joined to the definitions: dominance is the group's share of the operator's payer volume. */
function groupsSql(defs: string, stats: string): string {
  return `SELECT d.*, s.wallets, s.volume, s.volume / nullif(ov.payer_volume, 0) AS dominance, s.span_days, s.life,
       ov.buyers AS op_buyers, s.sample
  FROM ${defs} d JOIN (${stats}) s USING (op, kind, key) JOIN wc_op_volume ov USING (op)
 -- one wallet is no group (a trail-financed wallet alone still says how much of the operator it is)
 WHERE s.wallets >= 2 OR d.kind = 'money_trail'`;
}

/**
 * Pair membership of the groups: a match of the pair's own features against the groups' keys, then
 * the operator's coordinated payers (every member of a keyed group of two or more wallets, whatever
 * the coordination: many small groups make a cohort too), then the figures of both.
 */
export function memberSteps(): SqlStep[] {
  return [
    step(
      'wc_group_keyed_members',
      `SELECT pc.pk, pc.bk, pc.op, 'funding_root' AS kind, d.key
  FROM (SELECT pk, bk, op, unnest(roots) AS root FROM wc_pair_ctx WHERE NOT self_pay) pc
  JOIN wc_group_defs d ON d.kind = 'funding_root' AND d.op = pc.op AND d.key = pc.root
UNION ALL
SELECT pc.pk, pc.bk, pc.op, 'funding_burst', d.key
  FROM wc_pair_ctx pc JOIN wc_group_defs d ON d.kind = 'funding_burst' AND d.op = pc.op AND d.fkey = pc.funder_key
 WHERE NOT pc.self_pay AND pc.fund_time BETWEEN d.t_from AND d.t_to AND abs(pc.fund_amount / d.med - 1) <= ${T.burstAmountBand}
UNION ALL
SELECT pc.pk, pc.bk, pc.op, 'funding_wave', d.key
  FROM wc_pair_ctx pc JOIN wc_group_defs d ON d.kind = 'funding_wave' AND d.op = pc.op AND d.fkey = pc.funder_key
 WHERE NOT pc.self_pay AND pc.fund_time BETWEEN d.t_from AND d.t_to
   AND pc.fund_time >= pc.buyer_first_time - INTERVAL ${T.freshWalletDays} DAY
UNION ALL
SELECT m.pk, m.bk, d.op, 'vanity', d.key
  FROM wc_vanity_members m JOIN wc_group_defs d ON d.kind = 'vanity' AND d.sak = m.sak AND d.chain = m.chain AND d.key = hash(m.tier, m.key)
UNION ALL
SELECT pc.pk, pc.bk, pc.op, 'start_window', d.key
  FROM wc_pair_ctx pc JOIN wc_group_defs d ON d.kind = 'start_window' AND d.sak = pc.sak AND d.chain = pc.chain
 WHERE pc.core AND epoch(pc.first_time) BETWEEN d.w_from AND d.w_to
UNION ALL
SELECT pk, bk, op, 'money_trail', op FROM wc_pair_money WHERE trail_cover >= ${TRAIL_FINANCED}`,
    ),
    step('wc_groups_keyed', groupsSql('wc_group_defs', groupStatsSql('wc_group_keyed_members'))),
    step(
      'wc_group_members',
      `SELECT pk, bk, op, kind, key FROM wc_group_keyed_members
UNION ALL
SELECT DISTINCT m.pk, m.bk, m.op, 'coordinated', m.op
  FROM wc_group_keyed_members m JOIN wc_groups_keyed g USING (op, kind, key)
 WHERE m.kind <> 'money_trail' AND ${COORDINATED_UNION}`,
    ),
    step(
      'wc_groups',
      `SELECT * FROM wc_groups_keyed
UNION ALL BY NAME
${groupsSql(
  `(SELECT DISTINCT op, 'coordinated' AS kind, op AS key FROM wc_group_members WHERE kind = 'coordinated')`,
  groupStatsSql(`(SELECT * FROM wc_group_members WHERE kind = 'coordinated')`),
)}`,
    ),
  ];
}

/**
 * One row per pair with any group: the pair's evidence figures (for the fit: every candidate the
 * thresholds could decide) — its kinds' best figures and its own.
 */
export const EVIDENCE_CANDIDATES_SQL = `SELECT m.pk, pc.bk, m.op, m.kind, m.key, g.wallets, g.dominance, g.span_days, g.life, g.op_buyers, pc.op_share, pc.periodic,
       pc.diversified, pc.agent_like, pt.trail_cover,
       -- the vanity operator's own wallet (pair-rules.ts: self_test, before the cohort rule)
       coalesce(v.vanity_operator, false) AND NOT pc.diversified AND NOT pc.periodic AND pc.buyer_sellers < ${T.selfTestMaxSellers} AS vanity_operator
  FROM wc_group_members m
  JOIN wc_groups g USING (op, kind, key)
  JOIN wc_pair_ctx pc USING (pk)
  LEFT JOIN wc_pair_money pt USING (pk)
  LEFT JOIN wc_pair_vanity v USING (pk)`;

/**
 * A cohort verdict needs a group that passes and money that is not the operator's own: a wallet the
 * operator's side financed is judged by its money trail (its own tests and CI are not a cohort of
 * strangers). Over the rows of one pair (trail_pass, cohort_pass, kind).
 */
export const COHORT_WASH_SQL = `(bool_or(cohort_pass) AND NOT bool_or(kind = 'money_trail'))`;

/** Whether a pair is wash, over its candidate rows: what the fit scores models with (eval-wash-lofo.ts). */
export const PAIR_WASH_SQL = `(bool_or(trail_pass) OR ${COHORT_WASH_SQL})`;

/** The verdict per pair with any group (both paths): which evidence passes, and the figures a label names. */
export function verdictSteps(model: WashModelThresholds = WASH_MODEL.thresholds): SqlStep[] {
  const m = modelSql(model);
  return [
    step(
      'wc_pair_verdict',
      `WITH v AS (
  SELECT *, ${trailPassSql(m)} AS trail_pass, ${cohortPassSql(m)} AS cohort_pass FROM (${EVIDENCE_CANDIDATES_SQL})
)
SELECT pk,
       bool_or(kind = 'money_trail') AS trail_financed,
       bool_or(trail_pass) AS trail_wash,
       ${COHORT_WASH_SQL} AS cohort_wash,
       max(trail_cover) AS trail_cover,
       any_value(op_share) AS op_share,
       max(dominance) FILTER (WHERE trail_pass OR cohort_pass) AS dominance,
       max(wallets) FILTER (WHERE trail_pass OR cohort_pass) AS group_wallets,
       max(span_days) FILTER (WHERE trail_pass OR cohort_pass) AS group_span_days,
       list_sort(list(DISTINCT kind) FILTER (WHERE cohort_pass)) AS cohort_kinds,
       list({'kind': kind, 'key': key, 'wallets': wallets, 'share': wallets / nullif(op_buyers, 0)} ORDER BY kind, key)
         FILTER (WHERE cohort_pass) AS cohort_groups
  FROM v GROUP BY pk`,
    ),
  ];
}

/**
 * Names for the keys the evidence shows: path nodes and group keys (batch; a set of buyers reads
 * them from the day state). Addresses come from the transfers and the payments.
 */
export function evidenceNameSteps(funding: string): SqlStep[] {
  return [
    // one path of addresses back from each reached wallet to the operator's side (trails.ts keeps
    // each node's nearest, biggest contributor, so a path strictly shortens and ends at the side)
    step(
      'wc_trail_path_keys',
      `WITH RECURSIVE walk(op, node, path, next, n) AS (
  SELECT op, node, [node], pred, 0 FROM wc_trail_reach
  UNION ALL
  SELECT w.op, w.node, list_prepend(w.next, w.path), t.pred, w.n + 1
    FROM walk w LEFT JOIN wc_trails t ON t.op = w.op AND t.node = w.next
   WHERE w.next IS NOT NULL AND w.n <= ${T.trailMaxHops + 1}
)
SELECT op, node, path FROM walk WHERE next IS NULL`,
    ),
    step(
      'wc_key_names',
      `WITH wanted AS (
  SELECT DISTINCT unnest(path) AS k FROM wc_trail_path_keys
  UNION SELECT key FROM wc_group_defs WHERE kind = 'funding_root'
  UNION SELECT fkey FROM wc_group_defs WHERE kind IN ('funding_burst', 'funding_wave')
), named AS (
  SELECT funder AS address FROM ${funding} WHERE funder IS NOT NULL
  UNION SELECT address FROM ${funding} WHERE address IS NOT NULL
  UNION SELECT buyer FROM wc_pairs UNION SELECT seller_address FROM wc_pairs
)
SELECT hash(address) AS k, min(address) AS address FROM named WHERE hash(address) IN (SELECT k FROM wanted) GROUP BY 1`,
    ),
    step(
      'wc_trail_paths',
      `SELECT p.op, p.node, list(n.address ORDER BY i) AS path
  FROM (SELECT op, node, unnest(path) AS k, generate_subscripts(path, 1) AS i FROM wc_trail_path_keys) p
  LEFT JOIN wc_key_names n USING (k)
 GROUP BY p.op, p.node`,
    ),
    step(
      'wc_group_names',
      `SELECT g.op, g.kind, g.key, n.address AS key_address
  FROM wc_group_defs g JOIN wc_key_names n ON n.k = CASE g.kind WHEN 'funding_root' THEN g.key WHEN 'funding_burst' THEN g.fkey WHEN 'funding_wave' THEN g.fkey END`,
    ),
  ];
}

/** A label's evidence as published: strongest first (docs/wash-methodology.md §1). */
export const EVIDENCE_TYPE = 'STRUCT(kind VARCHAR, via VARCHAR, addresses VARCHAR[], share DOUBLE, text VARCHAR)[]';

/** The words of one coordination kind ("12 wallets funded from one source"). */
const COORDINATION_WORDS = `CASE w.g.kind
    WHEN 'funding_root' THEN 'funded from one source up their funding chains'
    WHEN 'funding_burst' THEN 'first funded by one source within hours, amounts within ${Math.round(100 * T.burstAmountBand)} % of each other'
    WHEN 'funding_wave' THEN 'fresh, first funded by one source within ${T.waveWindowHours} hours'
    WHEN 'vanity' THEN 'sharing a mined address prefix or suffix'
    WHEN 'start_window' THEN 'starting with the seller together, with another farm signal'
    WHEN 'coordinated' THEN 'in small coordinated groups that live for the operator (funded, started or mined together)'
    ELSE 'coordinated' END`;

/**
 * Every wash pair's evidence, strongest first, as a list of {kind, via, addresses, share, text}:
 * the money trail (its path of addresses, the share of what the buyer paid the operator that its
 * side financed), the dominance of the buyer's group, the buyer's own life beyond the operator, and
 * for a cohort each coordination that passed. Over wc_pair_rules' labelled pairs (both paths).
 */
export function evidenceSteps(): SqlStep[] {
  return [
    step(
      'wc_pair_evidence',
      `WITH w AS (
  SELECT r.pk, r.bk, r.rule, r.trail_cover, r.dominance, r.op_share, r.cohort_groups, r.group_wallets, pc.op, p.buyer, p.seller_address
    FROM wc_pair_rules r JOIN wc_pair_ctx pc USING (pk) JOIN wc_pairs p USING (pk)
   WHERE r.rule IN ('money_trail', 'cohort', 'money_trail_test')
), trail AS (
  SELECT w.pk, {'kind': 'money_trail', 'via': 'operator side',
                'addresses': coalesce(tp.path, [w.buyer]),
                'share': round(w.trail_cover, 4)::DOUBLE,
                'text': format('{:d} % of what it paid the seller''s operator came from the operator''s side, through {:d} transfer(s)',
                               round(100 * w.trail_cover)::INTEGER, greatest(len(coalesce(tp.path, [w.buyer])) - 1, 0)::INTEGER)} AS e
    FROM w LEFT JOIN wc_trail_paths tp ON tp.op = w.op AND tp.node = w.bk
   WHERE w.trail_cover IS NOT NULL
), dom AS (
  SELECT pk, {'kind': 'dominance', 'via': CASE rule WHEN 'money_trail' THEN 'trail-financed wallets' ELSE 'coordinated group' END,
              'addresses': [seller_address], 'share': round(dominance, 4)::DOUBLE,
              'text': format('its group of {:d} wallets made {:d} % of the payer volume of the seller''s operator',
                             group_wallets::INTEGER, round(100 * dominance)::INTEGER)} AS e
    FROM w WHERE dominance IS NOT NULL AND rule <> 'money_trail_test'
), life AS (
  SELECT pk, {'kind': 'no_independent_life', 'via': 'payments', 'addresses': [buyer], 'share': round(op_share, 4)::DOUBLE,
              'text': format('{:d} % of its payments went to the seller''s operator', round(100 * op_share)::INTEGER)} AS e
    FROM w WHERE rule <> 'money_trail_test'
), coord AS (
  SELECT w.pk, {'kind': 'coordination', 'via': w.g.kind,
                'addresses': coalesce(CASE WHEN n.key_address IS NOT NULL THEN [n.key_address] END, gs.sample, [w.seller_address]),
                'share': round(w.g.share, 4)::DOUBLE,
                'text': format('{:d} wallets {}', w.g.wallets::INTEGER, ${COORDINATION_WORDS})} AS e,
         w.g.kind, w.g.wallets, w.g.key
    FROM (SELECT pk, op, seller_address, unnest(cohort_groups) AS g FROM w WHERE rule = 'cohort') w
    LEFT JOIN wc_group_names n ON n.op = w.op AND n.kind = w.g.kind AND n.key = w.g.key
    LEFT JOIN wc_groups gs ON gs.op = w.op AND gs.kind = w.g.kind AND gs.key = w.g.key
)
-- strongest first; coordinations by kind, the biggest group first, then a fixed key order
SELECT pk, list(e ORDER BY o, k, n DESC, gk) AS evidence FROM (
  SELECT pk, e, 1 AS o, '' AS k, 0 AS n, 0::UBIGINT AS gk FROM trail
  UNION ALL SELECT pk, e, 2, '', 0, 0 FROM dom
  UNION ALL SELECT pk, e, 3, '', 0, 0 FROM life
  UNION ALL SELECT pk, e, 4, kind, wallets, key FROM coord
) GROUP BY pk`,
    ),
    // a wash wallet's strongest evidence (its heaviest wash pair with evidence): what its other pairs and its label name
    step(
      'wc_buyer_evidence',
      `SELECT r.bk, arg_max(e.evidence, r.tx_count * 1048576 + (r.sak % 1048576)::BIGINT) AS evidence
  FROM wc_pair_rules r JOIN wc_pair_evidence e USING (pk)
 WHERE r.rule IN ('money_trail', 'cohort')
 GROUP BY r.bk`,
    ),
  ];
}
