/**
 * POST /api/v1/wash/check, computed on demand for any address with the classifier's own steps,
 * restricted to the address's cohorts: the sellers it paid (or itself, as a seller), every payer
 * of those sellers and every payment of those payers. That is all a buyer's labels depend on, so
 * a buyer's answer equals its buyer_labels row from classify().
 *
 * A seller address gets the seller's wash view instead (see docs/wash-methodology.md): its
 * label is the volume-weighted majority of the pair labels of its payers, `cohort` is its payer
 * cohort summary, and `concentration.top_service_share` is the share of its volume that comes
 * from suspected_wash pairs.
 *
 * It runs the steps as TEMP relations under a per-call prefix (so concurrent checks on one shared,
 * even read-only, connection whose raw tables are views over Parquet never collide) and drops
 * them afterwards; the cycle search runs only when a wallet of the scope both pays and gets paid.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { WashLabel } from '../../../catalog/categories.ts';
import { sqlString } from '../../../lib/duckdb.ts';
import { cyclesRelationSql, findCycles } from './cycles.ts';
import { dropSteps, runStepsBatch, step, timestampSql, withPrefix, type SqlStep, type StepContext } from './plan.ts';
import { SELLER_FLAGS_SQL } from './seller-flags.ts';
import { featureSteps, globalPairsSql, labelSteps } from './steps.ts';

export interface WashCheckResult {
  address: string;
  label: WashLabel;
  confidence: number;
  signals: {
    vanity: { strict: boolean; broad: boolean };
    cohort: { uniform_amount: number; coordinated_start: number };
    concentration: { top_service_share: number };
  };
  similar_patterns: Array<{ anonymous_id: string; pattern_type: string }>;
}

export interface WashCheckOptions {
  now: Date;
  /**
   * Secret salt of the anonymous pattern ids (a cohort id hashed without it could be matched
   * against public seller addresses). Default: WASH_PATTERN_SALT, else a random per-process salt.
   */
  salt?: string;
}

const PROCESS_SALT = randomBytes(16).toString('hex');

/** Addresses are base58 or 0x-hex; anything else is rejected before it reaches SQL. */
export function normalizeAddress(input: string): string {
  const a = input.trim();
  if (!/^(0x[0-9a-fA-F]{40}|[1-9A-HJ-NP-Za-km-z]{32,44})$/.test(a)) {
    throw new Error(`wash check: "${input.slice(0, 80)}" is not an address (0x + 40 hex characters, or a 32-44 character base58 key)`);
  }
  return a.startsWith('0x') ? a.toLowerCase() : a;
}

/** The salt of anonymous pattern ids: WASH_PATTERN_SALT, else one random salt per process. */
export function patternSalt(): string {
  return process.env.WASH_PATTERN_SALT ?? PROCESS_SALT;
}

/** Anonymous id of a wallet group (pattern type + cohort key), stable for one salt. */
export function anonymousId(salt: string, patternType: string, key: string): string {
  return createHash('sha256').update(`${salt}\u0000${patternType}\u0000${key}`).digest('hex').slice(0, 16);
}

const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;

function emptyResult(address: string): WashCheckResult {
  return {
    address,
    label: 'unlabeled',
    confidence: 0,
    signals: { vanity: { strict: false, broad: false }, cohort: { uniform_amount: 0, coordinated_start: 0 }, concentration: { top_service_share: 0 } },
    similar_patterns: [],
  };
}

/** The scope's addresses that both pay and get paid: only then can a cycle touch the answer. */
function dualRoleFocusSql(now: string): string {
  return `WITH f AS (
  SELECT DISTINCT seller_address AS a FROM x402_transactions WHERE time <= ${now} AND (buyer = $address OR seller_address = $address)
  UNION SELECT $address
)
SELECT a FROM f
 WHERE a IN (SELECT buyer FROM x402_transactions WHERE time <= ${now} AND buyer IN (SELECT a FROM f) AND buyer <> seller_address)
   AND a IN (SELECT seller_address FROM x402_transactions WHERE time <= ${now} AND seller_address IN (SELECT a FROM f) AND buyer <> seller_address)`;
}

/** Pattern keys (type, key) of the address; keys name cohorts and never leave the process. */
const PATTERNS_SQL = `WITH a AS (SELECT hash($address) AS k),
mine AS (SELECT f.* FROM wc_pair_final f, a WHERE f.bk = a.k),
cohort_key AS (SELECT sak::VARCHAR || '|' || chain AS ck, * FROM mine)
SELECT 'vanity_strict_cluster' AS type, ck || '|' || vanity_strict_key::VARCHAR AS key FROM cohort_key WHERE vanity_strict_key IS NOT NULL
UNION SELECT 'vanity_broad_cluster', ck || '|' || vanity_broad_key::VARCHAR FROM cohort_key WHERE vanity_broad_key IS NOT NULL
UNION SELECT 'farm_cohort', ck FROM cohort_key WHERE rule = 'farm'
UNION SELECT 'seller_funded_loop', ck FROM cohort_key WHERE rule = 'funded_loop'
UNION SELECT 'seller_funded_test', ck FROM cohort_key WHERE rule = 'seller_funded'
UNION SELECT 'payment_ring', cycle_id FROM cohort_key WHERE cycle_id IS NOT NULL
UNION SELECT 'common_funder_cohort', ck || '|' || funder_group_root::VARCHAR FROM cohort_key WHERE funder_group_root IS NOT NULL
UNION SELECT 'single_payer_concentration', ck FROM cohort_key WHERE rule = 'concentration'
UNION SELECT 'vanity_operator', ck FROM cohort_key WHERE rule = 'vanity_operator'
UNION SELECT unnest(${SELLER_FLAGS_SQL}) AS type, s.sak::VARCHAR || '|' || s.chain FROM wc_sellers s, a
 WHERE s.sak = a.k AND a.k NOT IN (SELECT bk FROM wc_buyer_labels)`;

/** The answer: the buyer view when the address pays anyone, else the seller view. */
const ANSWER_STEPS: SqlStep[] = [
  step('wc_patterns', PATTERNS_SQL, false),
  step(
    'wc_buyer_view',
    `SELECT b.label, b.confidence, b.vanity_strict, b.vanity_broad, b.top_service_share,
       coalesce(s.uniform_amount_pct, 0) AS uniform_amount, coalesce(s.coordinated_start_pct, 0) AS coordinated_start
  FROM wc_buyer_labels b
  LEFT JOIN wc_sellers s ON s.sak = b.top_sak AND s.chain = b.top_chain
 WHERE b.bk = hash($address)`,
    false,
  ),
  step(
    'wc_seller_view',
    `WITH votes AS (
  SELECT label, sum(volume) AS v, sum(volume * confidence) / nullif(sum(volume), 0) AS c
    FROM wc_pair_labels_all WHERE sak = hash($address) AND bk <> sak GROUP BY label
), pick AS (
  SELECT arg_max(label, (v, label)) AS label, max(v) / nullif(sum(v), 0) AS share,
         coalesce(sum(v) FILTER (WHERE label = 'suspected_wash'), 0) / nullif(sum(v), 0) AS wash_share
    FROM votes
), tiers AS (
  SELECT bool_or(tier = 'strict') AS strict, bool_or(tier = 'broad') AS broad
    FROM wc_vanity_clusters WHERE sak = hash($address)
), cohort AS (
  SELECT arg_max(uniform_amount_pct, (payer_volume, chain)) AS uniform_amount,
         arg_max(coordinated_start_pct, (payer_volume, chain)) AS coordinated_start
    FROM wc_sellers WHERE sak = hash($address)
)
SELECT p.label, coalesce(v.c, 0) * (0.5 + 0.5 * p.share) AS confidence,
       coalesce(t.strict, false) AS vanity_strict, coalesce(t.broad, false) AS vanity_broad,
       coalesce(p.wash_share, 0) AS top_service_share,
       coalesce(c.uniform_amount, 0) AS uniform_amount, coalesce(c.coordinated_start, 0) AS coordinated_start
  FROM pick p JOIN votes v ON v.label = p.label CROSS JOIN tiers t CROSS JOIN cohort c`,
    false,
  ),
];

const ANSWER_SELECT = `SELECT 'buyer' AS view, * FROM wc_buyer_view
UNION ALL
SELECT 'seller' AS view, * FROM wc_seller_view WHERE (SELECT count(*) FROM wc_buyer_view) = 0`;

let callCounter = 0;

export async function washCheck(connection: DuckDBConnection, address: string, options: WashCheckOptions): Promise<WashCheckResult> {
  const a = normalizeAddress(address);
  const salt = options.salt ?? patternSalt();
  const params = { address: a };
  // views cannot take statement parameters; the address passed normalizeAddress (0x-hex or
  // base58 characters only), so it is safe as a quoted literal
  const literal = (sql: string) => sql.replaceAll('$address', sqlString(a));

  // A cycle can touch the answer only when a wallet of the scope both pays and gets paid.
  const dual = (await connection.runAndReadAll(dualRoleFocusSql(timestampSql(options.now)), params)).getRowObjectsJson().map((r) => String(r.a));
  const cycles = dual.length > 0 ? await findCycles(connection, globalPairsSql(options.now), new Set(dual)) : [];

  const ctx: StepContext = { now: options.now, scope: { kind: 'address' } };
  const steps = [...featureSteps(ctx), ...labelSteps(cyclesRelationSql(cycles)), ...ANSWER_STEPS].map((s) => ({ ...s, sql: literal(s.sql) }));
  // per call: concurrent checks on one connection each get their own TEMP relations
  const prefix = `wc${process.pid.toString(36)}${(callCounter++).toString(36)}${randomBytes(3).toString('hex')}_`;
  try {
    await runStepsBatch(connection, steps, prefix);
    const answer = withPrefix(
      `SELECT a.*, (SELECT to_json(list({'type': type, 'key': key} ORDER BY type, key))::VARCHAR FROM wc_patterns) AS patterns
  FROM (${ANSWER_SELECT}) a`,
      prefix,
    );
    const rows = (await connection.runAndReadAll(answer)).getRowObjectsJson();
    const row = rows[0];
    if (!row || row.label === null || row.label === undefined) return emptyResult(a);
    const keys = row.patterns ? ((JSON.parse(String(row.patterns)) as Array<{ type: string; key: string }> | null) ?? []) : [];
    return {
      address: a,
      label: String(row.label) as WashLabel,
      confidence: round4(Number(row.confidence)),
      signals: {
        vanity: { strict: row.vanity_strict === true, broad: row.vanity_broad === true },
        cohort: { uniform_amount: round4(Number(row.uniform_amount)), coordinated_start: round4(Number(row.coordinated_start)) },
        concentration: { top_service_share: round4(Number(row.top_service_share)) },
      },
      similar_patterns: keys.map((k) => ({ anonymous_id: anonymousId(salt, k.type, k.key), pattern_type: k.type })),
    };
  } finally {
    await dropSteps(connection, steps, prefix);
  }
}
