/**
 * Transaction → service attribution. An on-chain settlement names the seller (payTo) but not the
 * endpoint, so (docs/x402-indexing.md, "Attributing payments to services"):
 *   1. 'resource_url'          the facilitator reported the resource URL and it is a listing on that chain;
 *   2. 'price_match'           else the seller's listing on that chain whose price equals the amount
 *                              (several at that price: the lowest id);
 *   3. 'seller_first_service'  else the seller's first listing on that chain (earliest first_seen, then id);
 *   4. 'unmatched'             else the payee has no listing: kept for the record with service_id NULL
 *                              and left out of every dataset.
 * Payments after the run's "now" are left out, so every window ends at now.
 *
 * The attribution step builds the three small lookup tables once (`attribution_urls`,
 * `attribution_prices`, `attribution_sellers`) and attributes every payment into `tx_attributed`,
 * a run-scoped TEMP table of numbers only, one row per payment:
 *   pk            the (buyer, seller, chain) pair key, hash(hash(buyer), hash(seller_address), chain):
 *                 the classifier's pair key, so its day slices and the pair labels join on it
 *   buyer_h       hash(buyer) (grouping key; addresses are looked up again only for the rows
 *                 that are published)
 *   service_id, attribution_source (an ENUM of the four names above)
 *   amount_micro  amount in integer micro-USDC: exact, order-independent sums
 *   time
 * The classifier runs after this step and reads its pair keys; labels join on pk afterwards
 * (rollups.ts), so this table does not depend on them. The transactions dataset attributes its
 * 30 days of payments again with attributedSql(), carrying the hash and the buyer's address.
 *
 * Why hashes: at ten million payments every string copied or hashed per row costs about a second
 * on two cores; each string is hashed once and the joins compare 64-bit keys. Keys that must be
 * unique (listings) are checked for collisions, which would otherwise mis-attribute silently.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { PrepareStep } from '../runner.ts';
import { queryJson, sqlString } from '../../lib/duckdb.ts';
import { nowSql } from './datasets/sql.ts';

export const ATTRIBUTION_SOURCES = ['resource_url', 'price_match', 'seller_first_service', 'unmatched'] as const;
export type AttributionSource = (typeof ATTRIBUTION_SOURCES)[number];

/** An ENUM constant: one byte per payment instead of a string, and it still reads as text. */
const ATTRIBUTION_SOURCE_TYPE = `ENUM(${ATTRIBUTION_SOURCES.map((x) => `'${x}'`).join(', ')})`;
const source = (value: AttributionSource): string => `'${value}'::${ATTRIBUTION_SOURCE_TYPE}`;

/** The pair key of a payment or pair from its buyer and seller hashes and chain (the classifier's pk). */
export const pairKeySql = (buyerHash: string, sellerHash: string, chain: string): string => `hash(${buyerHash}, ${sellerHash}, ${chain})`;

/**
 * Payments of `payments` (a relation with x402_transactions' columns) with their attribution:
 * every column listed in `keep` (as `t.<name>`), plus buyer_h, seller_h (hash of the seller
 * address), chain, amount_micro, time, service_id and attribution_source. Reads the lookup
 * tables the attribution step made.
 */
export function attributedSql(payments: string, keep: readonly string[] = []): string {
  return `WITH t AS (
      SELECT ${keep.map((k) => `${k}, `).join('')}
             hash(buyer) AS buyer_h,
             hash(seller_address) AS seller_h,
             chain,
             CASE WHEN resource_url IS NOT NULL THEN hash(chain, resource_url) END AS url_h,
             round(amount * 1e6)::BIGINT AS amount_micro,
             time
        FROM ${payments}
    )
    SELECT ${keep.map((k) => `t.${k}, `).join('')} t.buyer_h, t.seller_h, t.chain, t.amount_micro, t.time,
           coalesce(u.id, p.id, s.id) AS service_id,
           CASE WHEN u.id IS NOT NULL THEN ${source('resource_url')}
                WHEN p.id IS NOT NULL THEN ${source('price_match')}
                WHEN s.id IS NOT NULL THEN ${source('seller_first_service')}
                ELSE ${source('unmatched')} END AS attribution_source
      FROM t
      LEFT JOIN attribution_urls u ON u.url_h = t.url_h
      LEFT JOIN attribution_prices p ON p.seller_h = t.seller_h AND p.chain = t.chain AND p.price_micro = t.amount_micro
      LEFT JOIN attribution_sellers s ON s.seller_h = t.seller_h AND s.chain = t.chain`;
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
    await c.run(`CREATE OR REPLACE TEMP TABLE attribution_prices AS
      SELECT hash(seller_address) AS seller_h, chain, round(price_amount * 1e6)::BIGINT AS price_micro, min(id) AS id
        FROM service_catalog WHERE price_amount >= 0 AND price_amount < 1e9 -- a wild listed price cannot overflow micro-USDC
       GROUP BY ALL`);
    await c.run(`CREATE OR REPLACE TEMP TABLE attribution_sellers AS
      SELECT hash(seller_address) AS seller_h, chain, first(id ORDER BY first_seen, id) AS id
        FROM service_catalog GROUP BY ALL`);
    const kept = await keptAttribution(ctx);
    const [counted] = await queryJson(
      c,
      kept
        ? `CREATE OR REPLACE TEMP TABLE tx_attributed AS
           SELECT pk, buyer_h, service_id, attribution_source::${ATTRIBUTION_SOURCE_TYPE} AS attribution_source, amount_micro, time
             FROM ${kept} WHERE time <= ${now}`
        : `CREATE OR REPLACE TEMP TABLE tx_attributed AS ${attributedRowsSql(`x402_transactions WHERE time <= ${now}`)}`,
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
const attributedRowsSql = (payments: string): string =>
  `SELECT ${pairKeySql('buyer_h', 'seller_h', 'chain')} AS pk, buyer_h, service_id, attribution_source, amount_micro, time
     FROM (${attributedSql(payments)})`;

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
async function keptAttribution(ctx: Parameters<PrepareStep['run']>[0]): Promise<string | null> {
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
    `SELECT [${fp('attribution_urls')}, ${fp('attribution_prices')}, ${fp('attribution_sellers')}]::VARCHAR AS h`,
  );
  const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);
  const recipe = digest(JSON.stringify({ lookups: lookups?.h, sql: attributedRowsSql('<payments>') }));
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
        attributedRowsSql(`(SELECT * EXCLUDE (import_batch) FROM x402_transactions_by_import WHERE import_batch = ${Number(b.batch)})`),
        file,
      );
      made++;
    }
    if (!existsSync(total)) await copyTo(`${TOTALS_SQL} FROM read_parquet(${sqlString(file)}) ${TOTALS_GROUP}`, total);
  }
  // the all-time totals per (service, buyer) of the runs' payments, for the rollups: exact integer
  // sums, so adding up the runs' totals gives what one aggregate over every payment gives
  await c.run(`CREATE OR REPLACE TEMP VIEW attributed_totals AS SELECT * FROM read_parquet([${totals.map(sqlString).join(', ')}])`);
  // what no import run needs any more: files of other lookups or of another payment history
  const keep = new Set([...files, ...totals].map((f) => basename(f)));
  for (const f of readdirSync(dir)) if (!keep.has(f)) rmSync(join(dir, f), { force: true });
  ctx.log(`attribution: ${batches.length - made} import run(s) kept, ${made} attributed`);
  if (files.length === 0) return null;
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
