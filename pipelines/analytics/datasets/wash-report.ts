/**
 * wash-report (free document): how much traffic looks like wash trading and how, over 30 days,
 * with no address in it.
 *   summary            buyers with a label other than unlabeled (global label), suspected_wash
 *                      buyers, services with wash volume, volume and its real and wash shares;
 *                      also real_volume_30d and wash_volume_30d in USDC
 *   label_distribution as in landing-stats
 *   daily_wash_share   14 calendar days ending today, zero-filled: volume, wash_volume, wash_pct,
 *                      real_volume_pct
 *   patterns           one row per pattern of WASH_PATTERNS that any wash pair shows, plus
 *                      'unspecified' for wash pairs none of them describes. A pattern is a property
 *                      of a suspected_wash pair (buyer, seller, chain) measured on the classifier's
 *                      tables (pair_labels, buyer_labels, seller_cohorts) and the funding data
 *                      (wallet_funding, exchange_wallets); it is counted over the pairs' 30-day
 *                      payments to listed services: wallets (distinct buyers), services and volume.
 *                      Patterns overlap: a pair shows every pattern it has, so the rows do not add
 *                      up. Each pattern counts what it names, not the label rule that fired
 *                      (rules list several signals, so counting their reasons gave identical rows).
 *   case_studies       10 sellers with wash volume, as 'case-01'...: the largest case of each
 *                      pattern first, then by volume; a seller's pattern is the first of
 *                      WASH_PATTERNS (most specific first) carrying at least half of its wash
 *                      volume, else the one carrying most. Ids are ranks, not hashes, so nobody can recompute them
 *                      from the public seller list
 *   by_category        categories with 30-day volume, by wash_pct desc, then volume, then slug
 *
 * The patterns, most specific first (docs/wash-methodology.md, "Wash report patterns"; thresholds
 * from catalog/wash-rules.ts where the classifier has one, PATTERN_MIN_WALLETS otherwise):
 *   ring                       buyer and seller are both flagged cycle (members of a balanced ring)
 *   round_trip                 after the pair's first payment, transfers into the buyer from the seller or
 *                              wallets the seller's money reaches (within returnMaxHops transfers;
 *                              exchanges and wallets funding more than returnMaxFanOut end a path) repay
 *                              at least roundTripMinReturnShare of the pair's volume, in at least
 *                              roundTripMinReturns transfers (the classifier's round_trip test without
 *                              its minimum payment count)
 *   single_payer_concentration the seller is flagged concentration (seller_cohorts.flags) and the buyer
 *                              is its top payer by volume
 *   funding_loop               the seller is on the buyer's first-funding chain (first funder, its first
 *                              funder, ... up to fundingMaxHops links; an exchange wallet ends it)
 *   vanity_cluster             the buyer is a member of a vanity cluster of any tier: strict, broad or a
 *                              long prefix or suffix (buyer_labels.vanity_strict / vanity_broad)
 *   common_funder              a wallet on the buyer's first-funding chain below the seller (links at or
 *                              above the seller are its funding loop) is on the chains of at least
 *                              PATTERN_MIN_WALLETS wash wallets of the seller
 *   coordinated_start          the pair's first payment falls in one hour with the first payments of at
 *                              least PATTERN_MIN_WALLETS wash wallets of the seller (itself included;
 *                              two hour grids 30 minutes apart, as the classifier's coordinated start)
 *   synchronized_start         the seller has at least PATTERN_MIN_WALLETS wash wallets whose first payments'
 *                              10th to 90th percentile span at most farmMaxStartSpreadDays days, and the
 *                              pair's first payment falls in that span widened by farmStartMarginDays or a
 *                              quarter of it (the farm signal and farm membership, SynchroTrap-style)
 *   uniform_amount             the pair's mean payment is the same (to the micro-USDC) as that of at
 *                              least PATTERN_MIN_WALLETS wash wallets of the seller, at a seller whose
 *                              payers do not all pay one amount (a one-price service says nothing)
 *   uniform_tx_count           the seller has at least PATTERN_MIN_WALLETS wash wallets and their payment
 *                              counts to it spread by at most farmMaxLogCountSpread (1.4826 x MAD of ln)
 *   fresh_wallet               the buyer was first funded at most freshWalletDays days before its first
 *                              payment (buyer_labels.first_time)
 *   camouflage                 the pair is not the buyer's main pair (most payments): a wash wallet's
 *                              payments to other sellers
 * Funding is USDC transfers between two wallets up to now (wallet_funding); a wallet's first funder
 * is its earliest one (same-instant ties: the smaller address).
 */
import type { DatasetStep } from '../../runner.ts';
import { THRESHOLDS as T } from '../../../catalog/wash-rules.ts';
import { LABEL_DISTRIBUTION_SQL } from './landing-stats.ts';
import {
  WASH_LABEL,
  categoriesSql,
  isWashSql,
  dateSql,
  documentStep,
  daysSql,
  fractionToPctSql,
  moneySql,
  nowSql,
  pctSql,
  queryJsonPieces,
  quote,
  stamp,
} from './sql.ts';

export const CASE_STUDIES = 10;

/** Smallest group of wash wallets at one seller that makes a shared amount, start, count or funder a pattern. */
export const PATTERN_MIN_WALLETS = 5;

export interface WashPattern {
  pattern_type: string;
  description: string;
  /**
   * The wash pairs (buyer, seller_address, chain) that show the pattern, over the relations the
   * report's SQL defines: `wash` (suspected_wash pairs of pair_labels with amount = mean payment,
   * main = the buyer's main pair), `funding` (first funder and its time per address, exchanges
   * flagged), `funding_chain` (each wash buyer's first-funding chain by hop), `pair_returns`
   * (transfers back from the seller's reach) and the classifier's tables.
   */
  pairs: string;
}

const EVM_LOWER = (col: string) => `(CASE WHEN starts_with(${col}, '0x') THEN lower(${col}) ELSE ${col} END)`;

/** Most specific evidence first: a case study names the first pattern that carries at least half of its seller's wash volume. */
export const WASH_PATTERNS: readonly WashPattern[] = [
  {
    pattern_type: 'ring',
    description:
      "A money trail through a payment ring: the buyer pays a seller of its own ring of wallets paying each other, and what it pays comes back round as the ring's payments to it.",
    pairs: `SELECT w.buyer, w.seller_address, w.chain FROM wash w
              JOIN pair_labels p USING (buyer, seller_address, chain) WHERE list_contains(p.reasons, 'payment_ring')`,
  },
  {
    pattern_type: 'money_trail',
    description: `Money from the seller's side (the seller, the funders up its chain, its operator) financed the wallet's payments, by whatever path: funding, top-ups, relays (followed ${T.trailMaxHops} transfers deep), money sent back, a payment ring.`,
    pairs: `SELECT w.buyer, w.seller_address, w.chain FROM wash w
              JOIN pair_labels p USING (buyer, seller_address, chain) WHERE list_contains(p.reasons, 'money_trail')`,
  },
  {
    pattern_type: 'single_payer_concentration',
    description: 'A seller flagged for concentration (one payer with nearly all of its volume), and that top payer.',
    pairs: `SELECT w.buyer, w.seller_address, w.chain FROM wash w
              JOIN (SELECT p.seller_address, p.chain, arg_max(p.buyer, (p.volume, p.buyer)) AS top_payer
                      FROM pair_labels p JOIN seller_cohorts s USING (seller_address, chain)
                     WHERE list_contains(s.flags, 'concentration') AND p.buyer <> p.seller_address
                     GROUP BY ALL) c ON c.seller_address = w.seller_address AND c.chain = w.chain AND c.top_payer = w.buyer`,
  },
  {
    pattern_type: 'round_trip',
    description: `Sellers sending the money back: after the first payment, transfers from the seller (directly or through up to ${T.returnMaxHops - 1} relay wallets) repay the wallet at least ${T.roundTripMinReturnShare * 100}% of what it paid, in ${T.roundTripMinReturns} or more transfers.`,
    pairs: `SELECT buyer, seller_address, chain FROM pair_returns
             WHERE returned >= ${T.roundTripMinReturnShare} * volume AND returns >= ${T.roundTripMinReturns}`,
  },
  {
    pattern_type: 'funding_loop',
    description: `Wallets funded by the seller they pay: the seller is on their first-funding chain (first funder, its first funder, ... up to ${T.fundingMaxHops} links), so the money goes round.`,
    pairs: `SELECT DISTINCT w.buyer, w.seller_address, w.chain FROM wash w
              JOIN funding_chain c ON c.buyer = w.buyer AND c.funder = w.seller_address`,
  },
  {
    pattern_type: 'operator_cohort',
    description: `Wallets financed by the keys of the seller's operator (a funder up the chains of its sellers, or where they sweep their takings), an operator that runs several sellers.`,
    pairs: `SELECT w.buyer, w.seller_address, w.chain FROM wash w
              JOIN pair_labels p USING (buyer, seller_address, chain) WHERE list_contains(p.reasons, 'operator_cohort')`,
  },
  {
    pattern_type: 'funding_burst',
    description: `A cohort first funded by one source (often an exchange that funds many honest users too) within ${T.burstWindowHours} hours with amounts within ${Math.round(T.burstAmountBand * 100)}% of each other, that dominates its operator's traffic and lives for it.`,
    pairs: `SELECT w.buyer, w.seller_address, w.chain FROM wash w
              JOIN pair_labels p USING (buyer, seller_address, chain) WHERE list_contains(p.reasons, 'funding_burst')`,
  },
  {
    pattern_type: 'funding_wave',
    description: `A cohort of fresh wallets first funded by one source within ${T.waveWindowHours} hours, whatever the amounts (from an exchange: at least ${T.burstMinWallets} and ${T.waveMinRate} times its usual pace), that dominates its operator's traffic and lives for it.`,
    pairs: `SELECT w.buyer, w.seller_address, w.chain FROM wash w
              JOIN pair_labels p USING (buyer, seller_address, chain) WHERE list_contains(p.reasons, 'funding_wave')`,
  },
  {
    pattern_type: 'coordinated_groups',
    description:
      'Many small coordinated groups (funded, started or mined together) that live for one operator and together dominate its traffic.',
    pairs: `SELECT w.buyer, w.seller_address, w.chain FROM wash w
              JOIN pair_labels p USING (buyer, seller_address, chain) WHERE list_contains(p.reasons, 'coordinated')`,
  },
  {
    pattern_type: 'vanity_cluster',
    description: 'Buyer addresses mined to share a prefix, a suffix or both with other payers of the same seller, more than chance allows.',
    pairs: `SELECT w.buyer, w.seller_address, w.chain FROM wash w JOIN buyer_labels b ON b.address = w.buyer
             WHERE b.vanity_strict OR b.vanity_broad`,
  },
  {
    pattern_type: 'common_funder',
    description: `A cohort whose first-funding chains (up to ${T.trailMaxHops} links, exchanges and hubs end them) meet at one wallet, not the seller's own, that dominates its operator's traffic and lives for it.`,
    pairs: `SELECT w.buyer, w.seller_address, w.chain FROM wash w
              JOIN pair_labels p USING (buyer, seller_address, chain) WHERE list_contains(p.reasons, 'common_funder')`,
  },
  {
    pattern_type: 'coordinated_start',
    description: `Wallets whose first payment to a seller falls in the same hour as those of at least ${PATTERN_MIN_WALLETS - 1} other wash wallets.`,
    pairs: `SELECT w.buyer, w.seller_address, w.chain FROM wash w
              JOIN (SELECT seller_address, chain, epoch_ms(first_time) // 3600000 AS h FROM wash GROUP BY ALL HAVING count(*) >= ${PATTERN_MIN_WALLETS}) g
                ON g.seller_address = w.seller_address AND g.chain = w.chain AND g.h = epoch_ms(w.first_time) // 3600000
            UNION
            SELECT w.buyer, w.seller_address, w.chain FROM wash w
              JOIN (SELECT seller_address, chain, (epoch_ms(first_time) + 1800000) // 3600000 AS h FROM wash GROUP BY ALL HAVING count(*) >= ${PATTERN_MIN_WALLETS}) g
                ON g.seller_address = w.seller_address AND g.chain = w.chain AND g.h = (epoch_ms(w.first_time) + 1800000) // 3600000`,
  },
  {
    pattern_type: 'synchronized_start',
    description: `A seller's core of dedicated wallets that started within ${T.farmMaxStartSpreadDays} days of each other (10th to 90th percentile, widened by a day or a quarter) with another farm signal, dominating the seller's traffic.`,
    pairs: `SELECT w.buyer, w.seller_address, w.chain FROM wash w
              JOIN pair_labels p USING (buyer, seller_address, chain) WHERE list_contains(p.reasons, 'synchronized_start')`,
  },
  {
    pattern_type: 'uniform_amount',
    description: `Wallets paying one identical amount per call, shared by at least ${PATTERN_MIN_WALLETS} wash wallets of a seller that takes several amounts.`,
    pairs: `SELECT w.buyer, w.seller_address, w.chain FROM wash w
              JOIN (SELECT seller_address, chain, amount FROM wash GROUP BY ALL HAVING count(*) >= ${PATTERN_MIN_WALLETS}) g USING (seller_address, chain, amount)
              JOIN (SELECT seller_address, chain FROM pair_labels
                     WHERE (seller_address, chain) IN (SELECT seller_address, chain FROM wash) AND buyer <> seller_address
                     GROUP BY ALL HAVING count(DISTINCT round(volume / nullif(tx_count, 0), 6)) > 1) m USING (seller_address, chain)`,
  },
  {
    pattern_type: 'uniform_tx_count',
    description: `At least ${PATTERN_MIN_WALLETS} wash wallets of a seller making nearly the same number of payments each (log spread at most ${T.farmMaxLogCountSpread}).`,
    pairs: `SELECT w.buyer, w.seller_address, w.chain FROM wash w
              JOIN (SELECT seller_address, chain FROM wash GROUP BY ALL
                    HAVING count(*) >= ${PATTERN_MIN_WALLETS} AND 1.4826 * mad(ln(greatest(tx_count, 1))) <= ${T.farmMaxLogCountSpread}) g USING (seller_address, chain)`,
  },
  {
    pattern_type: 'fresh_wallet',
    description: `Wallets first funded at most ${T.freshWalletDays} days before their first payment.`,
    pairs: `SELECT w.buyer, w.seller_address, w.chain FROM wash w
              JOIN buyer_labels b ON b.address = w.buyer JOIN funding f ON f.address = w.buyer
             WHERE f.fund_time <= b.first_time AND f.fund_time >= b.first_time - INTERVAL ${T.freshWalletDays} DAY`,
  },
  {
    pattern_type: 'camouflage',
    description: "A wash wallet's payments to sellers other than the one it mainly pays.",
    pairs: `SELECT w.buyer, w.seller_address, w.chain FROM wash w WHERE NOT w.main`,
  },
];

const UNSPECIFIED = {
  pattern_type: 'unspecified',
  description: 'Payments labelled suspected_wash that none of the patterns above describes.',
};

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);

/**
 * The first-funding chain of every wash buyer, one row per (buyer, hop, funder) up to
 * fundingMaxHops (operators put relay wallets in between, as the classifier's funding links); an
 * exchange wallet ends the chain.
 */
function fundingChainSql(): string {
  return range(T.fundingMaxHops)
    .map((hop) => {
      const joins = range(hop)
        .map((i) => `JOIN funding f${i} ON f${i}.address = ${i === 1 ? 'b.buyer' : `f${i - 1}.funder`}`)
        .join(' ');
      const open = range(hop)
        .map((i) => `NOT f${i}.funder_is_exchange`)
        .join(' AND ');
      return `SELECT b.buyer, ${hop} AS hop, f${hop}.funder FROM (SELECT DISTINCT buyer FROM wash) b ${joins} WHERE ${open}`;
    })
    .join('\n       UNION ALL ');
}

/**
 * Wallets a wash seller's money reaches within returnMaxHops transfers (the seller itself
 * included): any transfer counts, not only first fundings; exchanges and wallets funding more than
 * returnMaxFanOut wallets end a path (they move everyone's money), as the classifier's round trips.
 */
function returnReachSql(): string {
  const levels = range(T.returnMaxHops - 1).map(
    (d) => `reach_${d} AS (
       SELECT DISTINCT r.seller_address, t.dst AS node FROM ${d === 1 ? 'reach_0' : `reach_${d - 1}`} r JOIN transfers t ON t.src = r.node
        WHERE t.dst NOT IN (SELECT address FROM return_ends) AND t.dst <> r.seller_address
     )`,
  );
  return `reach_0 AS (SELECT DISTINCT seller_address, seller_address AS node FROM wash),
     ${levels.join(',\n     ')},
     return_reach AS (
       SELECT seller_address, node FROM reach_0
       ${range(T.returnMaxHops - 1)
         .map((d) => `UNION SELECT seller_address, node FROM reach_${d}`)
         .join('\n       ')}
     )`;
}

/** The relations the patterns' SQL reads: wash pairs, first funders, funding chains and returns (as of `now`). */
export function patternRelationsSql(now: string): string {
  return `wash_buyer_pairs AS (
       SELECT buyer, seller_address, chain, label, tx_count, volume, first_time,
              -- the buyer's main pair: most payments, then volume, then seller (its other pairs are camouflage)
              row_number() OVER (PARTITION BY buyer ORDER BY tx_count DESC, volume DESC, seller_address, chain) = 1 AS main
         FROM pair_labels WHERE buyer IN (SELECT buyer FROM pair_labels WHERE label = ${quote(WASH_LABEL)})
     ),
     wash AS (
       SELECT buyer, seller_address, chain, tx_count, volume, first_time, round(volume / nullif(tx_count, 0), 6) AS amount, main
         FROM wash_buyer_pairs WHERE label = ${quote(WASH_LABEL)}
     ),
     exchanges AS (SELECT DISTINCT ${EVM_LOWER('address')} AS address FROM exchange_wallets WHERE address IS NOT NULL),
     transfers AS (
       SELECT funder AS src, address AS dst, amount, time FROM wallet_funding
        WHERE time <= ${now} AND funder IS NOT NULL AND address IS NOT NULL AND funder <> address
     ),
     -- each wallet's first USDC funder (same-instant ties: the smaller address)
     first_funding AS (
       SELECT dst AS address, arg_min(src, (time, src)) AS funder, min(time) AS fund_time FROM transfers GROUP BY dst
     ),
     funding AS (
       SELECT f.address, f.funder, f.fund_time, e.address IS NOT NULL AS funder_is_exchange
         FROM first_funding f LEFT JOIN exchanges e ON e.address = ${EVM_LOWER('f.funder')}
     ),
     funding_chain AS (
       ${fundingChainSql()}
     ),
     return_ends AS (
       SELECT address FROM exchanges
       UNION SELECT src FROM transfers GROUP BY src HAVING count(DISTINCT dst) > ${T.returnMaxFanOut}
     ),
     ${returnReachSql()},
     -- transfers into a wash buyer from its seller's reach after the pair's first payment
     pair_returns AS (
       SELECT w.buyer, w.seller_address, w.chain, any_value(w.volume) AS volume, count(*) AS returns, sum(t.amount) AS returned
         FROM wash w
         JOIN return_reach r ON r.seller_address = w.seller_address
         JOIN transfers t ON t.src = r.node AND t.dst = w.buyer
        WHERE t.time > w.first_time AND w.buyer <> w.seller_address
        GROUP BY w.buyer, w.seller_address, w.chain
     )`;
}
export const WASH_METHOD =
  "Every payment is attributed to a service (the resource URL the facilitator reported, else the seller's service at that price, " +
  "else the seller's first service). Each (buyer, seller) pair gets one of eight labels from rule-based signals: self-payment and " +
  'seller funding (self_test); sybil cohorts with uniform amounts, coordinated starts and uniform transaction counts, vanity-address ' +
  'clusters, funding loops and single-payer concentration (suspected_wash); then verifier, developer, analytics_bot, ai_agent and ' +
  'organic_user patterns; pairs the rules cannot call with enough confidence are unlabeled. Service and market figures use pair ' +
  "labels; buyer counts use each wallet's global label. Real volume is organic_user and ai_agent volume. The rules lean towards " +
  'false negatives: calling honest traffic fraudulent is worse than missing fraud.';

export const washReportStep: DatasetStep = documentStep('wash-report', async (ctx) => {
  const now = nowSql(ctx);
  const descriptions = [...WASH_PATTERNS, UNSPECIFIED].map((p) => `(${quote(p.pattern_type)}, ${quote(p.description)})`).join(', ');
  const patternPairs = WASH_PATTERNS.map(
    (p, i) => `SELECT ${quote(p.pattern_type)} AS pattern_type, ${i} AS position, buyer, seller_address, chain FROM (${p.pairs})`,
  ).join('\n     UNION ALL ');
  const pieces = await queryJsonPieces(
    ctx,
    `WITH ${patternRelationsSql(now)},
     pattern_pairs AS (
       SELECT DISTINCT pattern_type, position, hash(buyer) AS buyer_h, seller_address, chain FROM (${patternPairs})
     ),
     wash_pairs AS (
       SELECT b.service_id, b.buyer_h, f.seller_address, f.chain, f.category, b.tx_30d, b.micro_30d
         FROM service_buyer_stats b JOIN service_facts f ON f.id = b.service_id
        WHERE ${isWashSql('b.label_code')} AND b.tx_30d > 0
     ),
     -- one row per (30-day wash pair of a service, pattern it shows); a pair with none is 'unspecified'
     pair_patterns AS (
       SELECT w.service_id, w.buyer_h, w.seller_address, w.chain, w.category, w.tx_30d, w.micro_30d,
              coalesce(p.pattern_type, ${quote(UNSPECIFIED.pattern_type)}) AS pattern_type,
              coalesce(p.position, ${WASH_PATTERNS.length}) AS position
         FROM wash_pairs w
         LEFT JOIN pattern_pairs p ON p.buyer_h = w.buyer_h AND p.seller_address = w.seller_address AND p.chain = w.chain
     ),
     descriptions(pattern_type, description) AS (VALUES ${descriptions}),
     patterns AS (
       SELECT p.pattern_type,
              d.description,
              count(DISTINCT p.buyer_h)::INTEGER AS wallets,
              count(DISTINCT p.service_id)::INTEGER AS services_affected,
              sum(p.micro_30d)::BIGINT AS micro
         FROM pair_patterns p LEFT JOIN descriptions d ON d.pattern_type = p.pattern_type
        GROUP BY p.pattern_type, d.description
     ),
     cases AS (
       SELECT seller_address, chain, count(DISTINCT buyer_h)::INTEGER AS wallets,
              sum(tx_30d)::INTEGER AS tx_count, sum(micro_30d)::BIGINT AS micro
         FROM wash_pairs GROUP BY seller_address, chain
     ),
     case_category AS (
       SELECT seller_address, chain, first(category ORDER BY micro DESC, service_id) AS category
         FROM (SELECT seller_address, chain, service_id, category, sum(micro_30d) AS micro
                 FROM wash_pairs GROUP BY seller_address, chain, service_id, category)
        GROUP BY seller_address, chain
     ),
     -- the seller's pattern: the most specific one carrying at least half of its wash volume, else the largest
     case_pattern AS (
       SELECT pp.seller_address, pp.chain,
              coalesce(first(pp.pattern_type ORDER BY pp.position) FILTER (WHERE 2 * pp.micro >= c.micro),
                       first(pp.pattern_type ORDER BY pp.micro DESC, pp.position)) AS pattern_type
         FROM (SELECT seller_address, chain, pattern_type, sum(micro_30d) AS micro, min(position) AS position
                 FROM pair_patterns GROUP BY seller_address, chain, pattern_type) pp
         JOIN cases c USING (seller_address, chain)
        GROUP BY pp.seller_address, pp.chain
     ),
     seller_volume AS (
       SELECT seller_address, chain, sum(micro_30d) AS micro FROM service_facts GROUP BY seller_address, chain
     ),
     cases_by_pattern AS (
       SELECT c.*, cc.category, cp.pattern_type, sv.micro AS seller_micro, ct.title,
              coalesce(sc.cohort_size, 0) AS cohort_size,
              ${fractionToPctSql('coalesce(sc.uniform_amount_pct, 0)')} AS uniform_amount_pct,
              ${fractionToPctSql('coalesce(sc.coordinated_start_pct, 0)')} AS coordinated_start_pct,
              row_number() OVER (PARTITION BY cp.pattern_type ORDER BY c.micro DESC, c.wallets DESC, c.seller_address, c.chain) AS pattern_rank
         FROM cases c
         JOIN case_category cc USING (seller_address, chain)
         JOIN case_pattern cp USING (seller_address, chain)
         JOIN seller_volume sv USING (seller_address, chain)
         JOIN ${categoriesSql('ct')} ON ct.slug = cc.category
         LEFT JOIN seller_cohorts sc USING (seller_address, chain)
     ),
     -- the largest case of each pattern first, so the studies show different patterns; then by volume
     top_cases AS (
       SELECT *, row_number() OVER (ORDER BY pattern_rank = 1 DESC, micro DESC, wallets DESC, seller_address, chain) AS rank
         FROM cases_by_pattern
      QUALIFY rank <= ${CASE_STUDIES}
     ),
     market AS (
       SELECT count(*) FILTER (WHERE wash_micro_30d > 0)::INTEGER AS services_affected,
              coalesce(sum(micro_30d), 0)::BIGINT AS micro_30d,
              coalesce(sum(real_micro_30d), 0)::BIGINT AS real_micro_30d,
              coalesce(sum(wash_micro_30d), 0)::BIGINT AS wash_micro_30d
         FROM service_facts
     ),
     daily AS (
       SELECT day, sum(micro) AS micro, sum(wash_micro) AS wash_micro, sum(real_micro) AS real_micro
         FROM service_daily GROUP BY day
     )
     SELECT to_json(struct_pack(
              buyers_classified := (SELECT coalesce(sum(buyers), 0) FROM label_summary_30d WHERE label <> 'unlabeled')::INTEGER,
              suspected_wash_buyers := (SELECT coalesce(sum(buyers), 0) FROM label_summary_30d WHERE label = ${quote(WASH_LABEL)})::INTEGER,
              services_affected := m.services_affected,
              volume_30d := ${moneySql('m.micro_30d')},
              wash_volume_pct := ${pctSql('m.wash_micro_30d', 'm.micro_30d')},
              real_volume_pct := ${pctSql('m.real_micro_30d', 'm.micro_30d')},
              real_volume_30d := ${moneySql('m.real_micro_30d')},
              wash_volume_30d := ${moneySql('m.wash_micro_30d')}
            )) AS summary,
            coalesce(${LABEL_DISTRIBUTION_SQL}, '[]'::JSON) AS label_distribution,
            (SELECT to_json(list(struct_pack(
                      date := ${dateSql('d.day')},
                      volume := ${moneySql('y.micro')},
                      wash_volume := ${moneySql('y.wash_micro')},
                      wash_pct := ${pctSql('y.wash_micro', 'y.micro')},
                      real_volume_pct := ${pctSql('y.real_micro', 'y.micro')}
                    ) ORDER BY d.day))
               FROM ${daysSql(now, 14, 'd')} LEFT JOIN daily y ON y.day = d.day) AS daily_wash_share,
            coalesce((SELECT to_json(list(struct_pack(
                        pattern_type := pattern_type, description := description, wallets := wallets,
                        services_affected := services_affected, volume := ${moneySql('micro')}
                      ) ORDER BY micro DESC, wallets DESC, pattern_type)) FROM patterns), '[]'::JSON) AS patterns,
            coalesce((SELECT to_json(list(struct_pack(
                        case_id := 'case-' || lpad(rank::VARCHAR, 2, '0'),
                        pattern_type := pattern_type,
                        category := category,
                        summary := format(
                          '{} labelled suspected_wash paid one {} seller {:,} {} for {:g} USDC in 30 days, {:g}% of that seller''s volume. Main pattern: {}.',
                          CASE WHEN wallets = 1 THEN 'One wallet' ELSE wallets || ' wallets' END, title, tx_count,
                          CASE WHEN tx_count = 1 THEN 'time' ELSE 'times' END,
                          ${moneySql('micro')}, ${pctSql('micro', 'seller_micro')}, pattern_type)
                          || CASE WHEN cohort_size > 0
                                  THEN format(' Seller cohort: {:,} {}, {:g}% paying one identical amount, {:g}% starting together.',
                                              cohort_size, CASE WHEN cohort_size = 1 THEN 'buyer' ELSE 'buyers' END,
                                              uniform_amount_pct, coordinated_start_pct)
                                  ELSE '' END,
                        wallets := wallets,
                        tx_count := tx_count,
                        volume := ${moneySql('micro')}
                      ) ORDER BY rank)) FROM top_cases), '[]'::JSON) AS case_studies,
            coalesce((SELECT to_json(list(struct_pack(
                        category := slug, volume_30d := volume_30d, wash_pct := wash_pct, real_volume_pct := real_volume_pct
                      ) ORDER BY wash_pct DESC, volume_30d DESC, slug))
                        FROM category_facts WHERE micro_30d > 0), '[]'::JSON) AS by_category
       FROM market m`,
  );
  return {
    ...stamp(ctx),
    summary: pieces.summary,
    label_distribution: pieces.label_distribution,
    daily_wash_share: pieces.daily_wash_share,
    patterns: pieces.patterns,
    case_studies: pieces.case_studies,
    by_category: pieces.by_category,
    method: WASH_METHOD,
  };
});
