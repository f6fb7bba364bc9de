/**
 * Transaction → service attribution. An on-chain settlement names the seller (payTo) but not the
 * endpoint, so (docs/x402-indexing.md, "Attributing payments to services"):
 *   1. 'resource_url'          the facilitator reported the resource URL and it is a listing on that chain;
 *   2. 'price_match'           else the seller's listing on that chain whose price equals the amount
 *                              (several at that price: the lowest id);
 *   3. 'seller_first_service'  else the seller's first listing on that chain (earliest first_seen, then id);
 *   4. 'learned_payee'         else the payee is no listing's payTo but one a service is known to use:
 *                              an address its 402 offers named (the prober's 8 days), another listing of
 *                              the same resource named, or where payments the facilitator reported for its
 *                              resource URL settled (30 days). A service whose
 *                              payTo rotates over a pool is found this way. Several services behind one such
 *                              payee: the one at that price, else the one with the most evidence (then the
 *                              lowest id);
 *   5. 'facilitator_price'     else, for services whose payTo is new on every sale (deposit addresses: at
 *                              least EPHEMERAL.minPayees payees, at most EPHEMERAL.maxPaymentsPerPayee
 *                              payments each on average), a payment through the same facilitator at one of
 *                              the amounts they settled at, when exactly one such service uses that
 *                              (facilitator, chain, amount);
 *   6. 'unmatched'             else the payee has no listing: kept for the record with service_id NULL
 *                              and left out of every dataset.
 * Services are keyed by (chain, resource URL), never by payTo (services.ts), so a rotating payTo never
 * splits a service in the list. Payments after the run's "now" are left out, so every window ends at now.
 *
 * The attribution step builds the small lookup tables once (`attribution_urls`, `attribution_prices`,
 * `attribution_sellers` with the learned payees marked `learned`, `attribution_facilitators`) and
 * `service_settled` (kept in the warehouse: the service-health grade reads it, service-health.ts), and
 * attributes every payment into `tx_attributed`,
 * a run-scoped TEMP table of numbers only, one row per payment:
 *   pk            the (buyer, seller, chain) pair key, hash(hash(buyer), hash(seller_address), chain):
 *                 the classifier's pair key, so its day slices and the pair labels join on it
 *   buyer_h       hash(buyer) (grouping key; addresses are looked up again only for the rows
 *                 that are published)
 *   service_id, attribution_source (an ENUM of the six names above)
 *   amount_micro  amount in integer micro-USDC: exact, order-independent sums
 *   time
 * The classifier runs after this step and reads its pair keys; labels join on pk afterwards
 * (rollups.ts), so this table does not depend on them. The transactions dataset attributes its
 * 30 days of payments again with attributedSql(), carrying the hash and the buyer's address.
 *
 * Why hashes: at ten million payments every string copied or hashed per row costs about a second
 * on two cores; each string is hashed once and the joins compare 64-bit keys (the facilitator is
 * hashed only when some service needs rule 5). Keys that must be unique (listings) are checked for
 * collisions, which would otherwise mis-attribute silently.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { PrepareStep } from '../runner.ts';
import { queryJson, sqlString, tableExists } from '../../lib/duckdb.ts';
import { nowSql } from './datasets/sql.ts';

export const ATTRIBUTION_SOURCES = [
  'resource_url',
  'price_match',
  'seller_first_service',
  'learned_payee',
  'facilitator_price',
  'unmatched',
] as const;
export type AttributionSource = (typeof ATTRIBUTION_SOURCES)[number];

/** An ENUM constant: one byte per payment instead of a string, and it still reads as text. */
const ATTRIBUTION_SOURCE_TYPE = `ENUM(${ATTRIBUTION_SOURCES.map((x) => `'${x}'`).join(', ')})`;
const source = (value: AttributionSource): string => `'${value}'::${ATTRIBUTION_SOURCE_TYPE}`;

/**
 * When a service's payTo counts as new on every sale (rule 5): it settled to at least minPayees
 * addresses in 30 days, with at most maxPaymentsPerPayee payments per address on average.
 */
export const EPHEMERAL = { minPayees: 3, maxPaymentsPerPayee: 1.5 } as const;

/** How attributedSql matches: byFacilitator adds rule 5 (only when some service needs it: it hashes every facilitator). */
export interface AttributionRules {
  byFacilitator: boolean;
}

/** The rules of this run's lookups (the attribution step made them): rule 5 only when attribution_facilitators has a key. */
export async function attributionRules(c: Parameters<PrepareStep['run']>[0]['connection']): Promise<AttributionRules> {
  const [row] = await queryJson(c, 'SELECT count(*)::INTEGER AS n FROM attribution_facilitators');
  return { byFacilitator: Number(row?.n ?? 0) > 0 };
}

/** The pair key of a payment or pair from its buyer and seller hashes and chain (the classifier's pk). */
export const pairKeySql = (buyerHash: string, sellerHash: string, chain: string): string => `hash(${buyerHash}, ${sellerHash}, ${chain})`;

/**
 * Payments of `payments` (a relation with x402_transactions' columns) with their attribution:
 * every column listed in `keep` (as `t.<name>`), plus buyer_h, seller_h (hash of the seller
 * address), chain, amount_micro, time, service_id and attribution_source. Reads the lookup
 * tables the attribution step made.
 */
export function attributedSql(payments: string, keep: readonly string[] = [], rules: AttributionRules = { byFacilitator: false }): string {
  return `WITH t AS (
      SELECT ${keep.map((k) => `${k}, `).join('')}
             hash(buyer) AS buyer_h,
             hash(seller_address) AS seller_h,
             chain,
             CASE WHEN resource_url IS NOT NULL THEN hash(chain, resource_url) END AS url_h,
             round(amount * 1e6)::BIGINT AS amount_micro,
             time${rules.byFacilitator ? ',\n             hash(facilitator) AS fac_h' : ''}
        FROM ${payments}
    )
    SELECT ${keep.map((k) => `t.${k}, `).join('')} t.buyer_h, t.seller_h, t.chain, t.amount_micro, t.time,
           coalesce(u.id, p.id, s.id${rules.byFacilitator ? ', f.id' : ''}) AS service_id,
           CASE WHEN u.id IS NOT NULL THEN ${source('resource_url')}
                WHEN p.id IS NOT NULL THEN CASE WHEN p.learned THEN ${source('learned_payee')} ELSE ${source('price_match')} END
                WHEN s.id IS NOT NULL THEN CASE WHEN s.learned THEN ${source('learned_payee')} ELSE ${source('seller_first_service')} END
                ${rules.byFacilitator ? `WHEN f.id IS NOT NULL THEN ${source('facilitator_price')}` : ''}
                ELSE ${source('unmatched')} END AS attribution_source
      FROM t
      LEFT JOIN attribution_urls u ON u.url_h = t.url_h
      LEFT JOIN attribution_prices p ON p.seller_h = t.seller_h AND p.chain = t.chain AND p.price_micro = t.amount_micro
      LEFT JOIN attribution_sellers s ON s.seller_h = t.seller_h AND s.chain = t.chain${
        rules.byFacilitator
          ? `
      LEFT JOIN attribution_facilitators f ON f.fac_h = t.fac_h AND f.chain = t.chain AND f.price_micro = t.amount_micro`
          : ''
      }`;
}

/** An address as a key: Solana base58 is case-sensitive, EVM hex is not. */
const addressKey = (chain: string, address: string): string => `CASE WHEN ${chain} = 'solana' THEN ${address} ELSE lower(${address}) END`;

/**
 * The lookup tables of rules 2-5 (the module comment), after attribution_urls: service_settled
 * (kept in the warehouse), the listings' and learned payees' prices and first services, and the
 * facilitator keys of services paid to a new address on every sale.
 */
export async function buildAttributionLookups(c: Parameters<PrepareStep['run']>[0]['connection'], now: string): Promise<void> {
  // where each resource's payments settled, by payee and facilitator: payments of 30 days the facilitator
  // reported the resource URL of (service-health.ts reads it too; the 10-minute probe run reads the last full run's)
  await c.run(`CREATE OR REPLACE TABLE service_settled AS
    SELECT u.id, t.seller_address AS payee, t.facilitator, count(*)::INTEGER AS payments, median(t.amount) AS median_amount
      FROM x402_transactions t JOIN attribution_urls u ON u.url_h = hash(t.chain, t.resource_url)
     WHERE t.resource_url IS NOT NULL AND t.time > ${now} - INTERVAL 30 DAY AND t.time <= ${now}
     GROUP BY ALL`);
  const probes = await tableExists(c, 'x402_probes', { orView: true });
  // the payees services are known to use besides their listing's: offered (8 days of probes) or settled (30 days)
  await c.run(`CREATE OR REPLACE TEMP TABLE attribution_learned AS
    WITH listed AS (SELECT DISTINCT hash(${addressKey('chain', 'seller_address')}) AS payee_h, chain FROM service_catalog),
    evidence AS (
      SELECT x.id, c.chain, hash(${addressKey('c.chain', 'x.payee')}) AS payee_h, x.payments::BIGINT AS n
        FROM service_settled x JOIN service_catalog c ON c.id = x.id
      UNION ALL -- another listing of the same resource that named another payTo (the catalog keeps the earliest)
      SELECT c.id, c.chain, hash(${addressKey('c.chain', 'x.seller_address')}), 1
        FROM x402_services x JOIN service_catalog c ON c.chain = x.chain AND c.resource_url = x.resource_url
       WHERE x.seller_address IS NOT NULL
      ${
        probes
          ? `UNION ALL
      SELECT c.id, c.chain, hash(${addressKey('c.chain', 'o.pay_to')}), 1
        FROM x402_probes p, unnest(from_json(p.offers, '[{"chain":"VARCHAR","pay_to":"VARCHAR"}]')) AS u(o), service_catalog c
       WHERE p.offers IS NOT NULL AND p.probed_at > ${now} - INTERVAL 8 DAY AND p.probed_at <= ${now}
         AND c.resource_url = p.resource_url AND c.chain = o.chain AND o.pay_to IS NOT NULL`
          : ''
      }
    )
    SELECT e.payee_h, e.chain, e.id, sum(e.n)::BIGINT AS n
      FROM evidence e ANTI JOIN listed l ON l.payee_h = e.payee_h AND l.chain = e.chain
     GROUP BY ALL`);
  // rules 2 and 4 by price, rules 3 and 4 without: the listings' payees, then the learned ones (never a listing's)
  await c.run(`CREATE OR REPLACE TEMP TABLE attribution_prices AS
    SELECT hash(seller_address) AS seller_h, chain, round(price_amount * 1e6)::BIGINT AS price_micro, min(id) AS id, false AS learned
      FROM service_catalog WHERE price_amount >= 0 AND price_amount < 1e9 -- a wild listed price cannot overflow micro-USDC
     GROUP BY ALL
    UNION ALL
    SELECT l.payee_h, l.chain, round(c.price_amount * 1e6)::BIGINT, min(l.id), true
      FROM attribution_learned l JOIN service_catalog c ON c.id = l.id
     WHERE c.price_amount >= 0 AND c.price_amount < 1e9
     GROUP BY ALL`);
  await c.run(`CREATE OR REPLACE TEMP TABLE attribution_sellers AS
    SELECT hash(seller_address) AS seller_h, chain, first(id ORDER BY first_seen, id) AS id, false AS learned
      FROM service_catalog GROUP BY ALL
    UNION ALL
    SELECT payee_h, chain, arg_max(id, (n, -id)), true FROM attribution_learned GROUP BY ALL`);
  // rule 5: services paid to a new address on every sale, by (facilitator, chain, settled amount) where only one uses it
  await c.run(`CREATE OR REPLACE TEMP TABLE attribution_facilitators AS
    WITH per_service AS (
      SELECT x.id, c.chain, count(DISTINCT x.payee) AS payees, sum(x.payments) AS payments
        FROM service_settled x JOIN service_catalog c ON c.id = x.id GROUP BY ALL
    ),
    ephemeral AS (
      SELECT id, chain FROM per_service
       WHERE payees >= ${EPHEMERAL.minPayees} AND payments <= ${EPHEMERAL.maxPaymentsPerPayee} * payees
    ),
    keys AS (
      SELECT DISTINCT e.id, e.chain, hash(x.facilitator) AS fac_h, round(x.median_amount * 1e6)::BIGINT AS price_micro
        FROM service_settled x JOIN ephemeral e ON e.id = x.id
       WHERE x.facilitator IS NOT NULL AND x.median_amount >= 0 AND x.median_amount < 1e9
    )
    SELECT fac_h, chain, price_micro, min(id) AS id FROM keys GROUP BY ALL HAVING count(DISTINCT id) = 1`);
}

export const attributionStep: PrepareStep = {
  name: 'attribution',
  tables: [],
  async run(ctx) {
    const c = ctx.connection;
    const now = nowSql(ctx);
    await c.run(`CREATE OR REPLACE TEMP TABLE attribution_urls AS
      SELECT hash(chain, resource_url) AS url_h, id FROM service_catalog`);
    const [keys] = await queryJson(c, 'SELECT (count(*) - count(DISTINCT url_h))::BIGINT AS clashes FROM attribution_urls');
    if (Number(keys?.clashes ?? 0) !== 0) throw new Error('attribution: two listings hash to one (chain, resource_url) key');
    await buildAttributionLookups(c, now);
    const rules = await attributionRules(c);
    const kept = await keptAttribution(ctx, rules);
    const [counted] = await queryJson(
      c,
      kept
        ? `CREATE OR REPLACE TEMP TABLE tx_attributed AS
           SELECT pk, buyer_h, service_id, attribution_source::${ATTRIBUTION_SOURCE_TYPE} AS attribution_source, amount_micro, time
             FROM ${kept} WHERE time <= ${now}`
        : `CREATE OR REPLACE TEMP TABLE tx_attributed AS ${attributedRowsSql(`x402_transactions WHERE time <= ${now}`, rules)}`,
    );
    const sources = await queryJson(
      c,
      `SELECT attribution_source::VARCHAR AS source, count(*)::BIGINT AS n FROM tx_attributed GROUP BY ALL ORDER BY source`,
    );
    ctx.log(`attribution: ${sources.map((r) => `${String(r.source)} ${Number(r.n)}`).join(', ')}`);
    return Number(counted?.Count ?? 0);
  },
};

/** tx_attributed's rows for the payments of `payments` (a relation with x402_transactions' columns). */
const attributedRowsSql = (payments: string, rules: AttributionRules): string =>
  `SELECT ${pairKeySql('buyer_h', 'seller_h', 'chain')} AS pk, buyer_h, service_id, attribution_source, amount_micro, time
     FROM (${attributedSql(payments, [], rules)})`;

/**
 * An import run's all-time totals per (service, buyer) of its attributed payments (the rollups'
 * service_buyer_stats sums them over the runs): the smallest pair key, payments, micro-USDC, the
 * last payment. Over a relation with tx_attributed's columns.
 */
export const TOTALS_SQL = `SELECT service_id, buyer_h, min(pk) AS pk, count(*)::BIGINT AS tx, sum(amount_micro)::BIGINT AS micro,
       max(time) AS last_time`;
export const TOTALS_GROUP = 'WHERE service_id IS NOT NULL GROUP BY service_id, buyer_h';

/** Where the warehouse keeps the attributed payments of each import run (file source). */
const ATTRIBUTED_DIR = 'analytics-attributed';

/**
 * The attributed payments kept per import run: payments imported by file (`--source file:DIR`)
 * never change once imported (sources/file/append-only.ts), and a payment's attribution depends
 * only on it and the listings' lookup tables, so each import run's payments are attributed once
 * per set of lookups and kept as Parquet in `WAREHOUSE_DIR/analytics-attributed/`, named by a
 * digest of the lookups and of the run's segments, with their totals per (service, buyer)
 * (`<name>.totals.parquet`, TEMP view `attributed_totals`); a run attributes only the runs not kept
 * (the new payments, or every one after a listing changed). Returns a relation over every
 * payment's row (all times: the caller filters by now), or null without a file source or a
 * warehouse directory (every payment is attributed as before). `--rebuild` attributes every run again.
 */
async function keptAttribution(ctx: Parameters<PrepareStep['run']>[0], rules: AttributionRules): Promise<string | null> {
  const c = ctx.connection;
  await c.run('DROP VIEW IF EXISTS temp.attributed_by_import; DROP VIEW IF EXISTS temp.attributed_totals');
  if (!ctx.warehouseDir) return null;
  const [view] = await queryJson(
    c,
    `SELECT count(*)::INTEGER AS n FROM duckdb_views() WHERE temporary AND view_name = 'x402_transactions_by_import'`,
  );
  if (Number(view?.n ?? 0) === 0) return null;
  const batches = await queryJson(
    c,
    `SELECT batch, string_agg(segment, '\n' ORDER BY segment) AS segments FROM import_ledger
      WHERE table_name = 'x402_transactions' AND segment IS NOT NULL GROUP BY batch ORDER BY batch`,
  );
  const fp = (relation: string) => `(SELECT {'n': count(*), 'h': coalesce(sum(hash(t) >> 8), 0)} FROM ${relation} t)`;
  const [lookups] = await queryJson(
    c,
    `SELECT [${fp('attribution_urls')}, ${fp('attribution_prices')}, ${fp('attribution_sellers')}, ${fp('attribution_facilitators')}]::VARCHAR AS h`,
  );
  const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);
  const recipe = digest(JSON.stringify({ lookups: lookups?.h, sql: attributedRowsSql('<payments>', rules) }));
  const dir = join(ctx.warehouseDir, ATTRIBUTED_DIR);
  if (ctx.rebuild) rmSync(dir, { recursive: true, force: true }); // --rebuild keeps nothing it computed
  mkdirSync(dir, { recursive: true });
  const files: string[] = [];
  const totals: string[] = [];
  let made = 0;
  // written under a temporary name and renamed: a kept file is always whole
  const copyTo = async (sql: string, file: string) => {
    const partial = `${file}.${randomBytes(4).toString('hex')}.tmp`;
    await c.run(`COPY (${sql}) TO ${sqlString(partial)} (FORMAT parquet, COMPRESSION zstd)`);
    renameSync(partial, file);
  };
  for (const b of batches) {
    const name = `${recipe}-${digest(String(b.segments))}`;
    const file = join(dir, `${name}.parquet`);
    const total = join(dir, `${name}.totals.parquet`);
    files.push(file);
    totals.push(total);
    if (!existsSync(file)) {
      await copyTo(
        attributedRowsSql(
          `(SELECT * EXCLUDE (import_batch) FROM x402_transactions_by_import WHERE import_batch = ${Number(b.batch)})`,
          rules,
        ),
        file,
      );
      made++;
    }
    if (!existsSync(total)) await copyTo(`${TOTALS_SQL} FROM read_parquet(${sqlString(file)}) ${TOTALS_GROUP}`, total);
  }
  // what no import run needs any more: files of other lookups or of another payment history
  const keep = new Set([...files, ...totals].map((f) => basename(f)));
  for (const f of readdirSync(dir)) if (!keep.has(f)) rmSync(join(dir, f), { force: true });
  ctx.log(`attribution: ${batches.length - made} import run(s) kept, ${made} attributed`);
  // no import run yet (a first live run that indexed no payment): every payment, none, is attributed as before
  if (files.length === 0) return null;
  // the all-time totals per (service, buyer) of the runs' payments, for the rollups: exact integer
  // sums, so adding up the runs' totals gives what one aggregate over every payment gives
  await c.run(`CREATE OR REPLACE TEMP VIEW attributed_totals AS SELECT * FROM read_parquet([${totals.map(sqlString).join(', ')}])`);
  // the same rows with the import run of each, for the datasets that rewrite only what a run touched (by-service.ts)
  await c.run(`CREATE OR REPLACE TEMP VIEW attributed_by_import AS
    ${files.map((f, i) => `SELECT *, ${Number(batches[i]!.batch)} AS import_batch FROM read_parquet(${sqlString(f)})`).join(' UNION ALL ')}`);
  return `read_parquet([${files.map(sqlString).join(', ')}])`;
}

/**
 * Frees tx_attributed once the rollups and the hourly history have read it: no dataset reads the
 * payments table, and the memory it holds (tens of bytes per payment) is better spent on the
 * dataset steps' sorts and aggregates. The lookup tables stay: the transactions dataset uses them.
 */
export const releasePaymentsStep: PrepareStep = {
  name: 'release_payments',
  tables: [],
  async run(ctx) {
    await ctx.connection.run('DROP TABLE IF EXISTS temp.tx_attributed');
    return 0;
  },
};
