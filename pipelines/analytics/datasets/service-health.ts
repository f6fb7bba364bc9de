/**
 * service-health (free table, CC0): before you pay, one row per indexed service: is it up, how
 * fast, is its offer the one its payments show, and a trust grade A-F with the evidence it rests
 * on (docs/wash-methodology.md, "Service health and trust grades").
 *
 * Reads the prober's 7 days (x402_probes: sources/live/analytics/prober.ts, or the demo world's),
 * the listing (service_catalog), the service's 30-day figures (service_facts) and the payments of
 * the last 30 days that the facilitator attributed to the resource URL (x402_transactions through
 * attribution_urls): where the money for this resource really went, and at what price.
 *
 * Facts, per service:
 *   uptime_7d_pct   answered probes (a 402 offer, a 2xx, a 402 without a readable offer) over
 *                   probes, 429s left out; live = one answered in the last 24 hours
 *   latency_*_ms    total time of the answered probes, 7 days; daily_7d: probes, uptime and p50 per UTC day
 *   offer_*         the newest offer on the service's own chain
 *   payto_moved     the offered payTo changed within the 7 days (payto_moved_at: when the newest one first showed)
 *   payto_consistent  the offered payTo is where the resource's payments settled (null: no such payment in 30 days)
 *   decoy           the offer names a payTo that is neither the listing's nor where the payments went, all week
 *   price_drift_pct the offer's amount against the median settled amount (at least 3 payments), else the
 *                   listed price; price_trap: an exact-scheme offer over 1.5x that reference
 * Grade: 100 points less what the evidence costs (catalog/trust-grade.ts holds every threshold and
 * point), A >= 90, B >= 80, C >= 65, D >= 50, else F; dead or decoy is F, a price trap D at best.
 * Fewer than 8 probes, or probes spanning under 24 hours:
 * no grade, the evidence says "not enough evidence". recommendation: pay (A, B), caution (C, D, no
 * grade), avoid (F).
 * Seller grade (seller_grade, seller_evidence on each of its services' rows): the mean score of
 * its graded services weighted by 30-day payments; any decoy makes it F, any price trap caps it.
 */
import { columnsOf } from '../../../catalog/analytics.ts';
import { TRUST_GRADE as G } from '../../../catalog/trust-grade.ts';
import type { DuckDBConnection } from '@duckdb/node-api';
import { createTableSql, queryJson, tableExists } from '../../../lib/duckdb.ts';
import { RAW_TABLES } from '../../../sources/raw-tables.ts';
import type { DatasetStep, PrepareStep } from '../../runner.ts';
import { nowSql, tableStep } from './sql.ts';

const OFFER_JSON =
  '[{"network":"VARCHAR","chain":"VARCHAR","asset":"VARCHAR","amount":"VARCHAR","pay_to":"VARCHAR","signable":"BOOLEAN","scheme":"VARCHAR"}]';

/** Two addresses of one chain are the same: Solana base58 is case-sensitive, EVM hex is not. */
const sameAddress = (chain: string, a: string, b: string): string =>
  `(CASE WHEN ${chain} = 'solana' THEN ${a} = ${b} ELSE lower(${a}) = lower(${b}) END)`;

const P = G.penalties;

/** The grade of a score (null: no grade). */
const gradeSql = (score: string): string =>
  `CASE WHEN ${score} IS NULL THEN NULL WHEN ${score} >= ${G.cuts.A} THEN 'A' WHEN ${score} >= ${G.cuts.B} THEN 'B' WHEN ${score} >= ${G.cuts.C} THEN 'C'
        WHEN ${score} >= ${G.cuts.D} THEN 'D' ELSE 'F' END`;

/**
 * What the grade reads besides the probes, kept in the warehouse by the full analytics run: per
 * service its listing and 30-day figures (service_health_inputs, here), and per service, payee and
 * facilitator the payments of 30 days the facilitator attributed to its resource URL
 * (service_settled, made by the attribution step: attribution.ts). The 10-minute probe run
 * (`--datasets service-health`) reads them as the last full run left them: its probes are fresh,
 * its payments at most an hour old.
 */
export async function saveHealthInputs(c: DuckDBConnection): Promise<void> {
  await c.run(`CREATE OR REPLACE TABLE service_health_inputs AS
    SELECT s.id, s.chain, s.seller_address, s.resource_url, s.price_amount, s.first_seen,
           coalesce(f.wash_pct, 0) AS wash_pct, coalesce(f.tx_30d, 0) AS tx_30d, coalesce(f.unique_buyers_30d, 0) AS buyers_30d
      FROM service_catalog s LEFT JOIN service_facts f ON f.id = s.id`);
}

export function serviceHealthSql(now: string): string {
  return `
    WITH svc AS (SELECT * FROM service_health_inputs),
    probes AS (
      SELECT resource_url, probed_at, outcome, total_ms, offers,
             outcome IN ('offer', 'open', 'no_offer', 'invalid_offer') AS up
        FROM x402_probes
       WHERE probed_at > ${now} - INTERVAL 7 DAY AND probed_at <= ${now} AND outcome NOT IN ('deferred', 'rate_limited')
    ),
    probe_stats AS (
      SELECT resource_url,
             count(*)::INTEGER AS probes_7d,
             count(*) FILTER (WHERE up)::INTEGER AS up_7d,
             bool_or(up AND probed_at > ${now} - INTERVAL 24 HOUR) AS up_24h,
             max(probed_at) AS last_probe_time,
             arg_max(outcome, probed_at) AS last_outcome,
             min(probed_at) AS first_probe_time,
             quantile_cont(total_ms, 0.5) FILTER (WHERE up) AS p50,
             quantile_cont(total_ms, 0.9) FILTER (WHERE up) AS p90,
             quantile_cont(total_ms, 0.99) FILTER (WHERE up) AS p99
        FROM probes GROUP BY resource_url
    ),
    daily AS (
      SELECT resource_url,
             to_json(list(struct_pack(
               date := strftime(day, '%Y-%m-%d'), probes := n, uptime_pct := round(100.0 * up / n, 2)::DOUBLE,
               latency_p50_ms := round(p50, 1)::DOUBLE) ORDER BY day)) AS daily_7d
        FROM (SELECT resource_url, date_trunc('day', probed_at) AS day, count(*)::INTEGER AS n, count(*) FILTER (WHERE up)::INTEGER AS up,
                     quantile_cont(total_ms, 0.5) FILTER (WHERE up) AS p50
                FROM probes GROUP BY ALL)
       GROUP BY resource_url
    ),
    offers AS (
      SELECT p.resource_url, p.probed_at, o.chain, o.network, o.scheme, o.pay_to, o.signable,
             TRY_CAST(o.amount AS DOUBLE) / 1e6 AS amount_usd
        FROM probes p, unnest(from_json(p.offers, '${OFFER_JSON}')) AS u(o)
       WHERE p.offers IS NOT NULL
    ),
    offer_stats AS (
      SELECT s.id,
             arg_max(o.pay_to, o.probed_at) AS pay_to,
             arg_max(o.amount_usd, o.probed_at) AS amount_usd,
             arg_max(o.scheme, o.probed_at) AS scheme,
             arg_max(o.network, o.probed_at) AS network,
             arg_max(o.signable, o.probed_at) AS signable,
             count(DISTINCT CASE WHEN s.chain = 'solana' THEN o.pay_to ELSE lower(o.pay_to) END)::INTEGER AS pay_tos,
             count(*)::INTEGER AS offers_7d,
             bool_or(${sameAddress('s.chain', 'o.pay_to', 's.seller_address')}) AS ever_listing_pay_to
        FROM svc s JOIN offers o ON o.resource_url = s.resource_url AND o.chain = s.chain
       GROUP BY s.id
    ),
    moved AS (
      SELECT s.id, min(o.probed_at) AS moved_at
        FROM svc s JOIN offer_stats os ON os.id = s.id
        JOIN offers o ON o.resource_url = s.resource_url AND o.chain = s.chain AND ${sameAddress('s.chain', 'o.pay_to', 'os.pay_to')}
       WHERE os.pay_tos > 1 AND os.pay_tos < ${G.rotationMinPayTos}
       GROUP BY s.id
    ),
    settled AS (SELECT * FROM service_settled),
    settle_stats AS (
      SELECT s.id,
             sum(x.payments)::INTEGER AS settled_payments_30d,
             sum(x.median_amount * x.payments) / sum(x.payments) AS settled_mean_median,
             bool_or(${sameAddress('s.chain', 'x.payee', 'os.pay_to')}) AS offer_pay_to_settled
        FROM svc s JOIN settled x ON x.id = s.id LEFT JOIN offer_stats os ON os.id = s.id
       GROUP BY s.id
    ),
    -- a rotating payTo: whether any address it offered in 7 days is one its payments settled to
    offered_settled AS (
      SELECT DISTINCT s.id
        FROM svc s JOIN offers o ON o.resource_url = s.resource_url AND o.chain = s.chain
        JOIN settled x ON x.id = s.id AND ${sameAddress('s.chain', 'x.payee', 'o.pay_to')}
    ),
    facts AS (
      SELECT s.*, ps.probes_7d, ps.up_7d, coalesce(ps.up_24h, false) AS live, ps.last_probe_time, ps.last_outcome, ps.first_probe_time,
             ps.p50, ps.p90, ps.p99, d.daily_7d,
             os.pay_to AS offer_pay_to, os.amount_usd AS offer_amount_usd, os.scheme AS offer_scheme, os.network AS offer_network,
             os.signable, coalesce(os.pay_tos, 0) AS pay_tos, coalesce(os.offers_7d, 0) AS offers_7d, os.ever_listing_pay_to, m.moved_at,
             ox.id IS NOT NULL AS any_offered_settled,
             coalesce(st.settled_payments_30d, 0) AS settled_payments_30d, st.offer_pay_to_settled,
             CASE WHEN st.settled_payments_30d >= ${G.minSettledForPrice} THEN st.settled_mean_median ELSE s.price_amount END AS reference_usd
        FROM svc s
        LEFT JOIN probe_stats ps ON ps.resource_url = s.resource_url
        LEFT JOIN daily d ON d.resource_url = s.resource_url
        LEFT JOIN offer_stats os ON os.id = s.id
        LEFT JOIN moved m ON m.id = s.id
        LEFT JOIN settle_stats st ON st.id = s.id
        LEFT JOIN offered_settled ox ON ox.id = s.id
    ),
    rotation AS (
      SELECT *,
             pay_tos >= ${G.rotationMinPayTos} AS rotates,
             pay_tos >= ${G.rotationMinPayTos} AND pay_tos >= ${G.freshShare} * offers_7d AS fresh_each_time
        FROM facts
    ),
    judged AS (
      SELECT *,
             CASE WHEN probes_7d > 0 THEN round(100.0 * up_7d / probes_7d, 2) END AS uptime,
             coalesce(probes_7d, 0) >= ${G.minProbes} AND last_probe_time - first_probe_time >= INTERVAL ${G.minSpanHours} HOUR AS enough,
             pay_tos > 1 AND NOT rotates AS payto_moved,
             -- rotating: consistent when any offered address is where payments settled; a new address per
             -- sale cannot be checked that way (the probes' addresses are never paid): null
             CASE WHEN offer_pay_to IS NULL OR settled_payments_30d = 0 THEN NULL
                  WHEN rotates AND any_offered_settled THEN true
                  WHEN rotates AND fresh_each_time THEN NULL
                  WHEN rotates THEN false
                  ELSE offer_pay_to_settled END AS payto_consistent,
             offer_pay_to IS NOT NULL AND NOT coalesce(ever_listing_pay_to, false)
               AND ((pay_tos = 1 AND NOT coalesce(offer_pay_to_settled, false))
                    OR (rotates AND NOT fresh_each_time AND settled_payments_30d > 0 AND NOT any_offered_settled)) AS decoy,
             CASE WHEN offer_amount_usd IS NOT NULL AND reference_usd > 0
                  THEN round(100.0 * (offer_amount_usd - reference_usd) / reference_usd, 2) END AS drift
        FROM rotation
    ),
    flagged AS (
      SELECT *,
             coalesce(probes_7d > 0 AND NOT live, false) AS dead,
             coalesce(live AND uptime < ${G.flakyBelowUptimePct}, false) AS flaky,
             coalesce(p50 > ${G.slowP50Ms}, false) AS slow,
             coalesce(signable = false, false) AS unsignable,
             coalesce(coalesce(offer_scheme, 'exact') = 'exact' AND drift > ${G.priceTrapDriftPct}, false) AS price_trap
        FROM judged
    ),
    scored AS (
      SELECT *,
             CASE WHEN NOT enough THEN NULL
                  WHEN dead OR decoy THEN 0.0
                  ELSE least(CASE WHEN price_trap THEN ${G.priceTrapCap}.0 ELSE 100.0 END,
                         100.0
                         - least(${G.maxUptimePenalty}.0, greatest(0.0, ${G.uptimeTargetPct}.0 - coalesce(uptime, 0)) * ${G.pointsPerUptimePoint})
                         - CASE WHEN slow THEN ${P.slow} ELSE 0 END
                         - CASE WHEN p99 > ${G.slowP99Ms} THEN ${P.slowP99} ELSE 0 END
                         - CASE WHEN payto_moved THEN ${P.movedPayout} ELSE 0 END
                         - CASE WHEN unsignable THEN ${P.unsignable} ELSE 0 END
                         - CASE WHEN payto_consistent = false THEN ${P.paytoInconsistent} ELSE 0 END
                         - CASE WHEN tx_30d >= ${G.washMinPayments} AND wash_pct >= ${G.washHighPct} THEN ${P.washHigh}
                                WHEN tx_30d >= ${G.washMinPayments} AND wash_pct >= ${G.washSomePct} THEN ${P.washSome} ELSE 0 END
                         - CASE WHEN first_seen > ${now} - INTERVAL ${G.youngDays} DAY THEN ${P.young} ELSE 0 END
                         - CASE WHEN tx_30d > 0 AND buyers_30d < ${G.fewBuyers} THEN ${P.fewBuyers} ELSE 0 END)
             END AS score
        FROM flagged
    ),
    -- the seller's grade: the transaction-weighted mean of its graded services' scores; a decoy
    -- among them makes it F, a price trap caps it as it caps the service
    sellers AS (
      SELECT chain, seller_address,
             count(*)::INTEGER AS services, count(score)::INTEGER AS graded,
             sum(score * (tx_30d + 1)) / nullif(sum(tx_30d + 1) FILTER (WHERE score IS NOT NULL), 0) AS mean_score,
             list(id ORDER BY id) FILTER (WHERE decoy) AS decoys,
             list(id ORDER BY id) FILTER (WHERE price_trap) AS traps,
             list(id ORDER BY id) FILTER (WHERE dead) AS dead_ids
        FROM scored GROUP BY chain, seller_address
    ),
    seller_grades AS (
      SELECT *,
             CASE WHEN graded = 0 THEN NULL WHEN len(coalesce(decoys, [])) > 0 THEN 0.0
                  WHEN len(coalesce(traps, [])) > 0 THEN least(mean_score, ${G.priceTrapCap}.0) ELSE mean_score END AS seller_score
        FROM sellers
    )
    SELECT id AS service_id, chain, resource_url,
           live, strftime(last_probe_time, '%Y-%m-%dT%H:%M:%SZ') AS last_probe_at, last_outcome,
           coalesce(probes_7d, 0)::INTEGER AS probes_7d, uptime::DOUBLE AS uptime_7d_pct,
           round(p50, 1)::DOUBLE AS latency_p50_ms, round(p90, 1)::DOUBLE AS latency_p90_ms, round(p99, 1)::DOUBLE AS latency_p99_ms,
           offer_network, offer_scheme, offer_pay_to, offer_amount_usd::DOUBLE AS offer_amount_usd, signable,
           seller_address AS listed_pay_to, price_amount::DOUBLE AS listed_price_usd,
           payto_moved, strftime(moved_at, '%Y-%m-%dT%H:%M:%SZ') AS payto_moved_at, rotates AS payto_rotates, payto_consistent, decoy,
           settled_payments_30d::INTEGER AS settled_payments_30d, drift::DOUBLE AS price_drift_pct, price_trap,
           to_json(list_filter([
             CASE WHEN dead THEN 'dead' END, CASE WHEN flaky THEN 'flaky' END, CASE WHEN slow THEN 'slow' END,
             CASE WHEN unsignable THEN 'unsignable' END, CASE WHEN payto_moved THEN 'moved_payout' END,
             CASE WHEN rotates THEN 'rotating_payto' END, CASE WHEN decoy THEN 'decoy' END, CASE WHEN price_trap THEN 'price_trap' END], x -> x IS NOT NULL)) AS flags,
           ${gradeSql('score')} AS grade,
           round(score, 1)::DOUBLE AS grade_score,
           to_json(CASE WHEN NOT enough THEN ['not enough evidence: ' || coalesce(probes_7d, 0) || ' probes in 7 days (a grade needs ${G.minProbes} over at least ${G.minSpanHours} hours)']
             ELSE list_filter([
               'uptime ' || uptime || ' % over ' || probes_7d || ' probes in 7 days' || CASE WHEN dead THEN '; no answer in the last 24 hours' ELSE '' END,
               CASE WHEN p50 IS NOT NULL THEN 'latency p50 ' || round(p50)::INTEGER || ' ms, p99 ' || round(p99)::INTEGER || ' ms' END,
               CASE WHEN offer_pay_to IS NULL THEN 'no readable offer in 7 days' END,
               CASE WHEN payto_moved THEN 'the offered payTo changed on ' || strftime(moved_at, '%Y-%m-%d') END,
               CASE WHEN rotates THEN 'the payTo rotates: ' || pay_tos || ' addresses in ' || offers_7d || ' offers of 7 days' ||
                    CASE WHEN fresh_each_time THEN ', a new one almost every time (its payments are attributed through its facilitator and amount)'
                         ELSE ' (its payments are attributed through the addresses it offered and settled to)' END END,
               CASE WHEN decoy THEN 'the offered payTo is neither the listed one nor where its payments settle' END,
               CASE WHEN payto_consistent THEN 'payTo matches where ' || settled_payments_30d || ' payments of 30 days settled'
                    WHEN payto_consistent = false THEN 'payTo differs from where ' || settled_payments_30d || ' payments of 30 days settled'
                    WHEN rotates AND settled_payments_30d > 0 THEN 'a new payTo per sale: not checked against where ' || settled_payments_30d || ' payments of 30 days settled'
                    WHEN offer_pay_to IS NOT NULL THEN 'no payment of 30 days names this resource: payTo not checked against settlements' END,
               CASE WHEN drift IS NOT NULL THEN 'offer ' || offer_amount_usd || ' USD, ' ||
                    CASE WHEN drift = 0 THEN 'as ' ELSE (CASE WHEN drift > 0 THEN '+' ELSE '' END) || drift || ' % against ' END ||
                    CASE WHEN settled_payments_30d >= ${G.minSettledForPrice} THEN 'settled payments' ELSE 'the listed price' END END,
               CASE WHEN unsignable THEN 'the offer has no EIP-712 domain a client can sign with' END,
               CASE WHEN tx_30d >= ${G.washMinPayments} THEN 'wash share ' || wash_pct || ' % of 30-day volume' END,
               CASE WHEN first_seen > ${now} - INTERVAL ${G.youngDays} DAY THEN 'listed less than ${G.youngDays} days ago' END,
               CASE WHEN tx_30d > 0 THEN buyers_30d || ' buyers in 30 days' END
             ], x -> x IS NOT NULL) END) AS evidence,
           CASE WHEN score IS NULL THEN 'caution' WHEN score >= ${G.payFrom} THEN 'pay' WHEN score >= ${G.cautionFrom} THEN 'caution' ELSE 'avoid' END AS recommendation,
           coalesce(daily_7d, '[]'::JSON) AS daily_7d,
           ${gradeSql('sg.seller_score')} AS seller_grade,
           to_json(CASE WHEN sg.graded = 0 THEN ['not enough evidence: none of its ' || sg.services || ' services has a grade']
             ELSE list_filter([
               sg.graded || ' of ' || sg.services || ' services graded, mean score ' || round(sg.mean_score, 1) || ' (weighted by 30-day payments)',
               CASE WHEN len(coalesce(sg.decoys, [])) > 0 THEN 'decoy offers on services ' || array_to_string(sg.decoys, ', ') END,
               CASE WHEN len(coalesce(sg.traps, [])) > 0 THEN 'price traps on services ' || array_to_string(sg.traps, ', ') END,
               CASE WHEN len(coalesce(sg.dead_ids, [])) > 0 THEN 'dead services: ' || array_to_string(sg.dead_ids, ', ') END
             ], x -> x IS NOT NULL) END) AS seller_evidence
      FROM scored s JOIN seller_grades sg USING (chain, seller_address)
     ORDER BY service_id`;
}

/** The columns the services list item takes from service_health (catalog: ServiceListItem), and live for its live_only filter. */
const LIST_COLUMNS = `h.grade AS trust_grade, h.uptime_7d_pct, h.latency_p50_ms, h.latency_p99_ms, h.payto_consistent, h.last_probe_at,
  coalesce(h.live, false) AS probe_live`;

/**
 * prepare:service_health, after the rollups: the TEMP table service_health (this file's SQL), and
 * its list columns joined into service_facts, so the services list, the service page and every
 * list item read the grade the service-health dataset publishes. A source without probes (the
 * file import) gets an empty x402_probes: every service "not enough evidence", never a guess.
 */
export const serviceHealthPrepStep: PrepareStep = {
  name: 'service_health',
  tables: [],
  async run(ctx) {
    const c = ctx.connection;
    let detail = '';
    if (!(await tableExists(c, 'x402_probes', { orView: true }))) {
      await c.run(createTableSql(RAW_TABLES.x402_probes, RAW_TABLES.x402_probes.name, 'temp'));
      detail = 'no probes from this source: every service without a grade (not enough evidence)';
    }
    const fullRun = await tableExists(c, 'service_facts', { temporary: true });
    if (fullRun) await saveHealthInputs(c);
    else {
      if (!(await tableExists(c, 'service_health_inputs')))
        throw new Error('service_health: no full analytics run has kept its inputs yet (run `npm run pipeline -- analytics` first)');
      detail = 'the listings, 30-day figures and settlements of the last full run';
    }
    await c.run(`CREATE OR REPLACE TEMP TABLE service_health AS ${serviceHealthSql(nowSql(ctx))}`);
    if (fullRun) {
      await c.run(`CREATE OR REPLACE TEMP TABLE service_facts_health AS
        SELECT f.*, ${LIST_COLUMNS} FROM service_facts f LEFT JOIN service_health h ON h.service_id = f.id`);
      await c.run('DROP TABLE temp.service_facts');
      await c.run('ALTER TABLE service_facts_health RENAME TO service_facts');
    }
    const [row] = await queryJson(
      c,
      `SELECT count(*)::INTEGER AS n, count(grade)::INTEGER AS graded, count(*) FILTER (WHERE live)::INTEGER AS live FROM service_health`,
    );
    const n = Number(row?.n ?? 0);
    const counts = `${Number(row?.graded ?? 0)} of ${n} graded, ${Number(row?.live ?? 0)} live`;
    return { rows: n, detail: detail ? `${counts}; ${detail}` : counts };
  },
};

export const serviceHealthStep: DatasetStep = tableStep(
  'service-health',
  () => `SELECT ${columnsOf('service-health').join(', ')} FROM service_health ORDER BY service_id`,
);
