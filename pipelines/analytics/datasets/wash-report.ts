/**
 * wash-report (free document): how much traffic looks like wash trading and how, over 30 days,
 * with no address in it.
 *   summary            buyers with a label other than unlabeled (global label), suspected_wash
 *                      buyers, services with wash volume, volume and its real and wash shares;
 *                      also real_volume_30d and wash_volume_30d in USDC
 *   label_distribution as in landing-stats
 *   daily_wash_share   14 calendar days ending today, zero-filled: volume, wash_volume, wash_pct,
 *                      real_volume_pct
 *   patterns           one per signal (reason) behind suspected_wash pairs: the pair's reasons,
 *                      else the buyer's, else 'unspecified'; wallets, services and volume
 *   case_studies       10 sellers with wash volume, as 'case-01'...: the largest case of each main
 *                      signal first, then by volume. Ids are ranks, not hashes, so nobody can
 *                      recompute them from the public seller list
 *   by_category        categories with 30-day volume, by wash_pct desc, then volume, then slug
 */
import type { DatasetStep } from '../../runner.ts';
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

/** What each signal family looks like on chain; an unknown reason gets a generic sentence. */
export const PATTERN_DESCRIPTIONS: Record<string, string> = {
  vanity_cluster: 'Buyer addresses mined to share a prefix and suffix with each other, paying the same seller.',
  vanity_strict: 'Buyer addresses sharing a long mined prefix and suffix, paying the same seller.',
  vanity_broad: 'Buyer addresses sharing a shorter mined prefix or suffix, paying the same seller.',
  uniform_amount: 'Many wallets paying one identical amount on every call.',
  coordinated_start: 'Wallets whose first payment to a seller falls in the same short window.',
  synchronized_start: 'Wallets that start and stop paying a seller in step with each other.',
  uniform_tx_count: 'Wallets making nearly the same number of payments each.',
  dedicated_cohort: 'A cohort of wallets that pays almost nobody but one seller.',
  funding_loop: 'Wallets funded by the seller they pay, so the money goes round.',
  funded_loop: 'Wallets funded by the seller they pay, so the money goes round.',
  seller_funded: 'Wallets whose first USDC came from the seller they pay.',
  common_funder: 'Wallets funded from one source shortly before paying one seller.',
  funding_window: 'Wallets funded within a short window of each other.',
  funding_shared: 'Wallets funded from one source shortly before paying one seller.',
  ring: 'Wallets paying each other in a closed ring with balanced flows.',
  cycle: 'Wallets paying each other in a closed ring with balanced flows.',
  balanced_flow: 'Money flowing in and out of the wallets in near-equal amounts.',
  concentration: "One wallet accounting for nearly all of a seller's volume.",
  single_payer_concentration: "One wallet accounting for nearly all of a seller's volume.",
  fresh_wallet: 'Wallets funded only days before their first payment.',
  wash_wallet: 'Wallets labelled suspected_wash on another seller, paying here too.',
  unspecified: 'Payments labelled suspected_wash without a recorded signal.',
};

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
  const descriptions = Object.entries(PATTERN_DESCRIPTIONS)
    .map(([k, v]) => `(${quote(k)}, ${quote(v)})`)
    .join(', ');
  const pieces = await queryJsonPieces(
    ctx,
    `WITH wash_pairs AS (
       SELECT b.service_id, b.buyer_h, f.seller_address, f.chain, f.category, b.tx_30d, b.micro_30d
         FROM service_buyer_stats b JOIN service_facts f ON f.id = b.service_id
        WHERE ${isWashSql('b.label_code')} AND b.tx_30d > 0
     ),
     pair_reasons AS (
       SELECT w.*,
              CASE WHEN len(coalesce(p.reasons, [])) > 0 THEN p.reasons
                   WHEN len(coalesce(bl.reason, [])) > 0 THEN bl.reason
                   ELSE ['unspecified'] END AS reasons
         FROM wash_pairs w
         LEFT JOIN (SELECT hash(buyer) AS buyer_h, seller_address, chain, reasons FROM pair_labels WHERE label = ${quote(WASH_LABEL)}) p
           ON p.buyer_h = w.buyer_h AND p.seller_address = w.seller_address AND p.chain = w.chain
         LEFT JOIN (SELECT hash(address) AS buyer_h, reason FROM buyer_labels) bl ON bl.buyer_h = w.buyer_h
     ),
     -- one row per (pair, signal); position = the signal's place in the classifier's list, which
     -- puts the deciding signal first
     pair_patterns AS (
       SELECT service_id, buyer_h, seller_address, chain, category, tx_30d, micro_30d, pattern_type, min(position) AS position
         FROM (SELECT *, unnest(reasons) AS pattern_type, generate_subscripts(reasons, 1) AS position FROM pair_reasons)
        GROUP BY service_id, buyer_h, seller_address, chain, category, tx_30d, micro_30d, pattern_type
     ),
     descriptions(pattern_type, description) AS (VALUES ${descriptions}),
     patterns AS (
       SELECT p.pattern_type,
              coalesce(d.description, 'Wallets flagged by the ''' || p.pattern_type || ''' signal.') AS description,
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
     case_pattern AS (
       SELECT seller_address, chain, first(pattern_type ORDER BY micro DESC, position, pattern_type) AS pattern_type
         FROM (SELECT seller_address, chain, pattern_type, sum(micro_30d) AS micro, min(position) AS position
                 FROM pair_patterns GROUP BY seller_address, chain, pattern_type)
        GROUP BY seller_address, chain
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
                          '{} labelled suspected_wash paid one {} seller {:,} {} for {:g} USDC in 30 days, {:g}% of that seller''s volume. Main signal: {}.',
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
