/**
 * Pair and buyer features.
 *
 * Speed (the pipeline must stay within ~10x a bare GROUP BY over 10M payments): the raw table is
 * read once into the pair table, grouped on hash keys; only pairs with enough payments to be
 * periodic or bursty are read again, into (pair, day) slices, from the attribution step's numeric
 * pair keys when the pipeline has them. After that, every step joins and groups on 64-bit hash
 * keys (bk = hash(buyer), sak = hash(seller_address)) and the short chain name, never on 42-
 * character strings, and the names come back only in the published tables. A 64-bit collision
 * among a million wallets has a probability of about 3e-8 per run.
 *
 * Timing without sorting: a cron job pays about the same number of times every day, so the index
 * of dispersion (variance / mean) of its daily counts is near 0, where random (Poisson) arrivals
 * give 1 and human sessions give more; for a renewal process it equals the squared coefficient
 * of variation of the intervals, which is how `interval_cv` is estimated. A developer's burst is
 * the payments per minute of its busiest day: over the day's active span, or over the distinct
 * minutes it paid in (a 63-slot minute bitmap per day), whichever is higher; a soak test (hundreds
 * of calls in a day at a sustained rate) counts as a burst too.
 */
import { step, cutoffSql, type SqlStep, type StepContext } from './plan.ts';
import { THRESHOLDS as T, TOP_PAIR_KEY } from '../catalog/wash-rules.ts';

/**
 * The pair key: hash(hash(buyer), hash(seller_address), chain), over the pair's bk, sak and chain.
 * attribution.ts keys payments the same way (pairKeySql), so the run's payment keys can stand in
 * for the payments here.
 */
const PAIR_KEY = 'hash(bk, sak, chain)';

/** The payments the steps see: all of them up to `now`, or those of the relation an on-request check names. */
export function transactionSteps(ctx: StepContext): SqlStep[] {
  const now = cutoffSql(ctx);
  const source = ctx.scope.kind === 'all' ? 'x402_transactions' : ctx.scope.relations.payments;
  const base = `SELECT buyer, seller_address, chain, amount, time FROM ${source}
  WHERE time <= ${now} AND buyer IS NOT NULL AND seller_address IS NOT NULL AND chain IS NOT NULL`;
  // scoped: a few payments, read twice (pairs and day slices): written down once
  return [step('wc_tx', base, ctx.scope.kind !== 'all')];
}

export function pairSteps(ctx: StepContext): SqlStep[] {
  const now = cutoffSql(ctx);
  const recent = `time > ${now} - INTERVAL ${T.windowDays} DAY`;
  // interior days: the first and last day of a pair are partial, so they stay out of the dispersion
  const k = 'greatest(day1 - day0 - 1, 0)';
  const m = `(CASE WHEN day1 > day0 THEN tx - n_day0 - n_day1 ELSE 0 END)`;
  const s = `(CASE WHEN day1 > day0 THEN n_sq - n_day0 * n_day0 - n_day1 * n_day1 ELSE 0 END)`;
  const dispersion = `CASE WHEN ${k} >= 2 AND ${m} > 0 THEN greatest(${s} / ${k} - (${m} / ${k}) ** 2, 0) / (${m} / ${k}) END`;
  return [
    // Grouped on the 64-bit keys, not the 42-character strings (half the cost); the addresses
    // join back once per pair from the distinct addresses. Carried through the aggregate as
    // any_value(…) they made it run out of memory at 100M payments (6M pairs, 5.5 GiB limit):
    // DuckDB spills a grouped aggregate to disk, but not string states.
    step(
      'wc_pairs',
      `WITH a AS (
SELECT chain,
       ${PAIR_KEY} AS pk,
       bk,
       sak,
       count(*)::BIGINT AS tx_count,
       -- summed as decimals: a sum of doubles in parallel depends on the order the threads add in,
       -- and the same payments must give the same bytes (and the same labels at a threshold)
       coalesce(sum(amount::DECIMAL(38, 12)), 0)::DOUBLE AS volume,
       -- exact as well (micro-USDC squared fits DECIMAL(38, 12)); the buyer's sum below adds these
       coalesce(sum(amount::DECIMAL(38, 6) * amount::DECIMAL(38, 6)), 0) AS volume_sq,
       min(amount) AS amount_min,
       max(amount) AS amount_max,
       min(time) AS first_time,
       max(time) AS last_time,
       count(*) FILTER (WHERE ${recent})::BIGINT AS tx_count_30d,
       coalesce(sum(amount::DECIMAL(38, 12)) FILTER (WHERE ${recent}), 0)::DOUBLE AS volume_30d
  FROM (SELECT *, hash(buyer) AS bk, hash(seller_address) AS sak FROM wc_tx)
 GROUP BY bk, sak, chain
), buyer_names AS (
  -- one name per key (two addresses with one 64-bit hash are one wallet to the classifier, as in the aggregate)
  SELECT hash(buyer) AS bk, min(buyer) AS buyer FROM (SELECT DISTINCT buyer FROM wc_tx) GROUP BY 1
), seller_names AS (
  SELECT hash(seller_address) AS sak, min(seller_address) AS seller_address FROM (SELECT DISTINCT seller_address FROM wc_tx) GROUP BY 1
)
SELECT b.buyer, s.seller_address, a.* FROM a JOIN buyer_names b USING (bk) JOIN seller_names s USING (sak)`,
    ),
    // Day slices of the pairs that could be periodic or bursty (most pairs have a few payments),
    // from the run's payment keys when it has them (numbers only), else from the payments.
    step(
      'wc_pair_days',
      `SELECT pk,
       (epoch_ms(time) // 86400000)::INTEGER AS day,
       count(*) AS n,
       min(epoch_ms(time)) AS t0,
       max(epoch_ms(time)) AS t1,
       -- minutes of the day folded onto 63 bits (BIGINT shifts are much cheaper than UBIGINT + casts)
       bit_count(bit_or(1::BIGINT << ((epoch_ms(time) // 60000) % 63))) AS minute_slots,
       -- the hours of the day it paid in (a schedule keeps to its hours)
       bit_or(1::BIGINT << ((epoch_ms(time) // 3600000) % 24)::INTEGER) AS hours,
       count(DISTINCT epoch_ms(time) // 60000) AS minutes
  FROM (${ctx.paymentKeys ?? `SELECT hash(hash(buyer), hash(seller_address), chain) AS pk, time FROM wc_tx`})
 WHERE pk IN (SELECT pk FROM wc_pairs WHERE tx_count >= ${Math.min(T.burstMinDayTx, T.densityMinTx)})
 GROUP BY ALL`,
      false, // read once, by wc_pair_time: not worth writing down
    ),
    step(
      'wc_pair_time',
      `WITH r AS (
  SELECT pk, sum(n) AS tx, min(day) AS day0, max(day) AS day1, sum(n * n) AS n_sq,
         arg_min(n, day) AS n_day0, arg_max(n, day) AS n_day1,
         max(CASE WHEN n >= ${T.burstMinDayTx} THEN greatest(
               (n - 1) * 60000.0 / greatest(t1 - t0, 1000),
               -- the bitmap saturates (slots collide) past ~48 distinct minutes: no estimate then
               CASE WHEN minute_slots <= 48 THEN n / minute_slots END) END) AS burst_per_min,
         -- a soak test: hundreds of calls in a day at a sustained rate (its minutes saturate the bitmap)
         max(CASE WHEN n >= ${T.soakMinDayTx} THEN (n - 1) * 60000.0 / greatest(t1 - t0, 1000) END) AS soak_per_min,
         sum(minutes) AS active_minutes,
         bit_count(bit_or(hours)) AS hours_of_day
    FROM wc_pair_days GROUP BY ALL
)
SELECT pk,
       CASE WHEN tx >= ${T.densityMinTx} THEN tx / active_minutes END AS calls_per_minute,
       CASE WHEN soak_per_min >= ${T.soakPerMinute} THEN greatest(burst_per_min, ${T.burstPerMinute}) ELSE burst_per_min END AS burst_per_min,
       ${dispersion} AS dispersion,
       -- sub-Poisson daily counts. The rarer a random (Poisson) look-alike, the looser the bar:
       -- dispersion ~ chi2(k-1)/(k-1) for a random payer over k interior days
       coalesce(tx >= ${T.periodicMinTx} AND ${k} >= ${T.periodicMinInteriorDays}
         AND (${k} >= ${T.periodicMidDays} OR ${m} / ${k} >= ${T.periodicShortSpanMinDailyTx})
         AND ${m} / ${k} >= ${T.periodicMinDailyTx}
         AND ${dispersion} <= CASE WHEN ${k} >= ${T.periodicMidDays} AND ${m} / ${k} >= ${T.periodicBusyDailyTx}
                                   THEN ${T.periodicMaxDispersionBusy} ELSE ${T.periodicMaxDispersion} END, false)
       -- a short, busy run (a poller every few minutes for under a week): fewer days, a tighter bar
       OR coalesce(tx >= ${T.periodicMinTx} AND ${k} >= ${T.periodicShortMinInteriorDays}
         AND ${m} / ${k} >= ${T.periodicShortMinDailyTx} AND ${dispersion} <= ${T.periodicShortMaxDispersion}, false)
       -- a sparse schedule (a daily job): as many calls every day for weeks, with next to no spread
       OR coalesce(${k} >= ${T.periodicSparseMinInteriorDays} AND ${m} / ${k} >= ${T.periodicSparseMinDailyTx}
         AND ${dispersion} <= ${T.periodicSparseMaxDispersion}, false)
       -- a clock schedule: every day for weeks, at the same few hours (runs that drift over midnight
       -- spread the daily counts, not the hours); a person's habits keep hours but not counts
       OR coalesce(${k} >= ${T.periodicSparseMinInteriorDays} AND ${m} / ${k} >= ${T.periodicSparseMinDailyTx}
         AND hours_of_day <= ${T.periodicClockMaxHours} AND ${dispersion} <= ${T.periodicClockMaxDispersion}, false) AS periodic
  FROM r`,
    ),
  ];
}

/** Listings and seller metadata from the services table (small; never scoped). */
export function sellerMetaSteps(): SqlStep[] {
  return [
    step('wc_listings', `SELECT DISTINCT hash(seller_address) AS sak, chain, first_seen FROM x402_services WHERE first_seen IS NOT NULL`),
    step(
      'wc_seller_meta',
      `SELECT hash(seller_address) AS sak, chain, min(first_seen) AS first_seen,
       mode(category) FILTER (WHERE category IS NOT NULL) AS category
  FROM x402_services GROUP BY ALL`,
    ),
    // The seller's name, payer count and own branding key (first and last 4 characters, after 0x on EVM).
    step(
      'wc_seller_keys',
      `SELECT sak, chain, seller_address, payer_count,
       hash(left(${evmLower('seller_address')}, ${2 + T.sellerBrandChars}), right(${evmLower('seller_address')}, ${T.sellerBrandChars})) AS brand_key
  FROM (SELECT sak, chain, any_value(seller_address) AS seller_address, count(*) FILTER (WHERE bk <> sak) AS payer_count
          FROM wc_pairs GROUP BY sak, chain)`,
    ),
  ];
}

/** EIP-55 case is not part of an EVM address; base58 case is. */
const evmLower = (col: string): string => `(CASE WHEN starts_with(${col}, '0x') THEN lower(${col}) ELSE ${col} END)`;

/**
 * Address keys of a wallet (after `0x` on EVM, so `left(…, 6)` is the 4-hex prefix; base58 keys
 * compare exactly and carry 2 more prefix characters): strict vanity 4 + 3, broad vanity 2 + 3,
 * branding 4 + 4, and a long prefix or a long suffix alone (6 characters: vanity mined at one end).
 */
const addressKeys = (col: string): string => `
       hash(left(${evmLower(col)}, ${2 + T.vanityStrictPrefix}), right(${evmLower(col)}, ${T.vanityStrictSuffix})) AS vkey_strict,
       hash(left(${evmLower(col)}, ${2 + T.vanityBroadPrefix}), right(${evmLower(col)}, ${T.vanityBroadSuffix})) AS vkey_broad,
       hash(left(${evmLower(col)}, ${2 + T.sellerBrandChars}), right(${evmLower(col)}, ${T.sellerBrandChars})) AS brand_key,
       hash(left(${evmLower(col)}, ${2 + T.vanityLongChars})) AS vkey_prefix,
       hash(right(${evmLower(col)}, ${T.vanityLongChars})) AS vkey_suffix,
       hash(left(${evmLower(col)}, ${2 + T.vanityLongChars - 1})) AS vkey_prefix5,
       hash(right(${evmLower(col)}, ${T.vanityLongChars - 1})) AS vkey_suffix5`;

/** An agent: a diversified, irregular, week-long consumer (over wc_buyer_base b and wc_buyer_extra x). */
const AGENT_LIKE = `coalesce(b.n_sellers >= ${T.agentMinSellers} AND x.n_categories >= ${T.agentMinCategories}
         AND (b.n_tx >= ${T.agentMinTx} OR b.n_sellers >= ${T.agentBroadSellers})
         AND b.span_days >= ${T.agentMinSpanDays}
         AND (x.n_price_points >= ${T.agentMinPricePoints}
              OR sqrt(greatest(b.volume_sq / b.n_tx - (b.volume / b.n_tx) ** 2, 0)) / nullif(b.volume / b.n_tx, 0) > ${T.agentMinAmountCv})
         AND b.periodic_tx < 0.5 * b.n_tx, false)`;

export function buyerSteps(ctx: StepContext): SqlStep[] {
  const services = ctx.scope.kind === 'all' ? 'x402_services' : ctx.scope.relations.services;
  return [
    step(
      'wc_buyer_base',
      `WITH b AS (
  SELECT p.bk,
         any_value(p.buyer) AS address,
         count(*)::INTEGER AS n_sellers,
         sum(p.tx_count)::BIGINT AS n_tx,
         sum(p.volume::DECIMAL(38, 12))::DOUBLE AS volume,
         sum(p.volume_sq)::DOUBLE AS volume_sq,
         max(p.tx_count) AS top_tx,
         -- the heaviest pair; ties go to the larger seller key (a numeric key: struct keys cost 2x)
         arg_max(p.sak, ${TOP_PAIR_KEY}) AS top_sak,
         arg_max(p.chain, ${TOP_PAIR_KEY}) AS top_chain,
         arg_max(coalesce(t.dispersion, -1), ${TOP_PAIR_KEY}) AS top_dispersion,
         arg_max(coalesce(t.calls_per_minute, 0), ${TOP_PAIR_KEY}) AS top_calls_per_minute,
         arg_max(epoch_ms(p.last_time) - epoch_ms(p.first_time), ${TOP_PAIR_KEY}) / 86400000.0 AS top_span_days,
         min(p.first_time) AS first_time,
         max(p.last_time) AS last_time,
         coalesce(sum(p.tx_count) FILTER (WHERE t.periodic), 0) AS periodic_tx,
         coalesce(max(t.burst_per_min), 0) AS max_burst_per_min
    FROM wc_pairs p LEFT JOIN wc_pair_time t USING (pk)
   GROUP BY p.bk
)
SELECT * EXCLUDE (top_dispersion),
       nullif(top_dispersion, -1) AS dispersion,
       top_tx / n_tx AS top_share,
       (epoch_ms(last_time) - epoch_ms(first_time)) / 86400000.0 AS span_days,
       ${addressKeys('address')}
  FROM b`,
    ),
    // Features only a multi-seller wallet needs (agent and verifier rules): computed for those only.
    step(
      'wc_buyer_extra',
      `WITH c AS (
  SELECT p.bk, p.sak, p.chain, p.tx_count, p.amount_min, p.amount_max, p.first_time, b.n_sellers,
         epoch_ms(p.last_time) - epoch_ms(p.first_time) > 86400000 AS revisited
    FROM wc_pairs p JOIN wc_buyer_base b USING (bk)
   WHERE b.n_sellers >= ${T.agentMinSellers}
), f AS (
  SELECT c.bk,
         count(DISTINCT m.category)::INTEGER AS n_categories,
         len(list_distinct(flatten(list([round(c.amount_min, 6), round(c.amount_max, 6)]))))::INTEGER AS n_price_points,
         median(c.tx_count) AS median_pair_tx,
         avg(c.revisited::INTEGER) AS revisit_share
    FROM c LEFT JOIN wc_seller_meta m USING (sak, chain)
   GROUP BY c.bk
), prices AS (
  -- what a seller lists: a verifier pays these; a pay-per-use agent pays by usage
  SELECT hash(seller_address) AS sak, chain, list(DISTINCT round(price_amount, 6)) AS listed
    FROM ${services} WHERE price_amount IS NOT NULL GROUP BY ALL
), listed AS (
  SELECT c.bk, avg((list_contains(pr.listed, round(c.amount_min, 6)) AND list_contains(pr.listed, round(c.amount_max, 6)))::INTEGER) AS listed_price_share
    FROM c JOIN prices pr USING (sak, chain)
   WHERE c.n_sellers >= ${T.verifierMinSellers}
   GROUP BY c.bk
), near AS (
  -- verifier evidence: the share of pairs that begin within 72 h of one of the seller's listings
  SELECT bk, avg(near::INTEGER) AS near_listing_share FROM (
    SELECT c.bk, c.sak, c.chain,
           coalesce(bool_or(c.first_time >= l.first_seen AND c.first_time <= l.first_seen + INTERVAL ${T.verifierListingWindowHours} HOUR), false) AS near
      FROM c LEFT JOIN wc_listings l USING (sak, chain)
     WHERE c.n_sellers >= ${T.verifierMinSellers}
     GROUP BY ALL
  ) GROUP BY bk
)
SELECT f.*, coalesce(near.near_listing_share, 0) AS near_listing_share, listed.listed_price_share
  FROM f LEFT JOIN near USING (bk) LEFT JOIN listed USING (bk)`,
    ),
    step(
      'wc_buyers',
      `SELECT b.*,
       coalesce(x.n_categories, 0) AS n_categories,
       coalesce(x.n_price_points, 0) AS n_price_points,
       x.median_pair_tx,
       coalesce(x.near_listing_share, 0) AS near_listing_share,
       sqrt(b.dispersion) AS interval_cv,
       CASE WHEN b.n_tx > 1 THEN (epoch_ms(b.last_time) - epoch_ms(b.first_time)) / 1000.0 / (b.n_tx - 1) END AS mean_interval_s,
       CASE WHEN b.volume > 0
            THEN sqrt(greatest(b.volume_sq / b.n_tx - (b.volume / b.n_tx) ** 2, 0)) / (b.volume / b.n_tx) END AS amount_cv,
       -- a crawler pays many sellers a few times each and none of them most: it says nothing
       -- about any one seller's cohort
       coalesce(b.n_sellers >= ${T.verifierMinSellers} AND x.median_pair_tx <= ${T.verifierMaxMedianPairTx}
         AND b.top_share < ${T.coreMinPairShare}, false) AS crawler,
       -- a verifier visits each new listing once, soon after it appears; an agent keeps coming back
       coalesce(b.n_sellers >= ${T.verifierMinSellers} AND x.median_pair_tx <= ${T.verifierMaxMedianPairTx}
         AND b.top_share < ${T.coreMinPairShare} AND x.near_listing_share >= ${T.verifierMinNearListingShare}
         AND (b.n_sellers >= ${T.verifierBroadSellers} OR x.revisit_share <= ${T.verifierMaxRevisitShare})
         -- it pays what the listing asks (no evidence either way when prices are not listed)
         AND coalesce(x.listed_price_share, 1) >= ${T.verifierMinListedPriceShare}, false) AS verifier_like,
       ${AGENT_LIKE} AS agent_like,
       -- the guard of docs/wash-methodology.md §11.7, kept for wallets that really spread their payments
       b.n_sellers >= ${T.guardMinSellers} AND b.n_tx >= ${T.guardMinTx} AND b.top_share < ${T.guardMaxTopShare} AS diversified,
       -- a tester: fires its main service's calls seconds apart and is done with it within days
       b.top_calls_per_minute >= ${T.burstDensity} AND b.top_span_days <= ${T.testerMaxSpanDays}
         AND b.periodic_tx < 0.5 * b.n_tx
         -- an agent's parallel calls can land in one minute too; its breadth says what it is
         AND NOT ${AGENT_LIKE} AS tester
  FROM wc_buyer_base b LEFT JOIN wc_buyer_extra x USING (bk)`,
    ),
  ];
}
