/**
 * A floor for the analytics benchmark: the passes over the payments that any pipeline meeting the
 * issue has to make, each cut down to its least (the fewest checks, no price matching, no
 * features, no labels), run back to back on one DuckDB over the same Parquet input. Nothing of
 * the classifier, the rollups, the hourly history or the other datasets is in it, so the real
 * pipeline can only be slower; the benchmark prints it beside the pipeline so a reader sees how
 * much of the 10x budget these passes alone take on this machine.
 *
 *   validate       every row's chain, addresses, amount and time checked; repeated (chain, tx_hash) counted
 *   attribute      each payment to a listing by (chain, resource_url), else the seller's first listing
 *   pairs          GROUP BY buyer, seller, chain with the addresses (the classifier's starting point)
 *   buyers         one row per buyer, sorted by address, written (the researchers' buyers table)
 *   buyer services each buyer's services, most payments first, sorted by address, written (buyer profiles)
 *   transactions   the 30 days of payments, attributed, sorted by service and time, written
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { POINT_LOOKUP_ROW_GROUP } from '../pipelines/analytics/datasets/sql.ts';
import { sqlString } from '../lib/duckdb.ts';

export interface FloorStep {
  name: string;
  seconds: number;
}

const address = (col: string) =>
  `CASE WHEN chain = 'solana' THEN regexp_full_match(${col}, '[1-9A-HJ-NP-Za-km-z]{32,44}') ELSE regexp_full_match(${col}, '0x[0-9a-f]{40}') END`;
/** The snapshot writer's Parquet options, with the row groups the dataset uses. */
const parquet = (rowGroupSize: number) => `(FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 1, ROW_GROUP_SIZE ${rowGroupSize})`;

/** Runs the floor passes on `dir`'s services and transactions Parquet files; `now` as 'YYYY-MM-DD HH:MM:SS'. */
export async function analyticsFloor(dir: string, now: string): Promise<{ steps: FloorStep[]; seconds: number }> {
  const tx = `read_parquet(${sqlString(join(dir, 'transactions.parquet'))})`;
  const services = `read_parquet(${sqlString(join(dir, 'services.parquet'))})`;
  const out = mkdtempSync(join(tmpdir(), 'bench-floor-'));
  const instance = await DuckDBInstance.create(':memory:');
  const c = await instance.connect();
  const at = `TIMESTAMP '${now}'`;
  const attributed = (where: string, keep: string) => `
    SELECT coalesce(u.id, s.id) AS service_id, ${keep}
      FROM ${tx} t
      LEFT JOIN urls u ON u.url_h = hash(t.chain, t.resource_url)
      LEFT JOIN sellers s ON s.seller_h = hash(t.seller_address) AND s.chain = t.chain
     WHERE ${where}`;
  const steps: [string, string][] = [
    [
      'validate',
      `SELECT count(*) FILTER (WHERE NOT ${address('buyer')}),
              count(*) FILTER (WHERE NOT ${address('seller_address')}),
              count(*) FILTER (WHERE chain NOT IN ('base', 'solana', 'polygon', 'arbitrum')),
              count(*) FILTER (WHERE amount IS NULL OR amount < 0 OR time IS NULL),
              count(*) - count(DISTINCT hash(chain, tx_hash))
         FROM ${tx}`,
    ],
    [
      'attribute',
      `CREATE TABLE attributed AS ${attributed(`t.time <= ${at}`, `hash(t.buyer) AS buyer_h, round(t.amount * 1e6)::BIGINT AS micro, t.time`)}`,
    ],
    [
      'pairs',
      `CREATE TABLE pairs AS
       SELECT hash(buyer) AS bk, any_value(buyer) AS buyer, any_value(seller_address) AS seller_address, chain,
              count(*) AS tx_count, sum(amount) AS volume
         FROM ${tx} WHERE time <= ${at} GROUP BY hash(buyer), hash(seller_address), chain`,
    ],
    [
      'buyers',
      `COPY (SELECT any_value(buyer) AS address, 'organic_user' AS label, 0.6 AS confidence, ['default'] AS reason,
                    sum(tx_count) AS tx_count, sum(volume) AS volume
               FROM pairs GROUP BY bk ORDER BY address) TO ${sqlString(join(out, 'buyers.parquet'))} ${parquet(POINT_LOOKUP_ROW_GROUP.buyers)}`,
    ],
    [
      'buyer services',
      `COPY (WITH sb AS (SELECT buyer_h, service_id, count(*)::BIGINT AS n FROM attributed WHERE service_id IS NOT NULL GROUP BY ALL),
                  used AS (SELECT buyer_h, arg_min(struct_pack(id := service_id, tx_count := n), -n * 4294967296 + service_id, 100000) AS services_used
                             FROM sb GROUP BY buyer_h)
             SELECT b.address, u.services_used
               FROM (SELECT bk, any_value(buyer) AS address FROM pairs GROUP BY bk) b LEFT JOIN used u ON u.buyer_h = b.bk
              ORDER BY b.address) TO ${sqlString(join(out, 'profiles.parquet'))} ${parquet(POINT_LOOKUP_ROW_GROUP['buyer-profiles'])}`,
    ],
    [
      'transactions',
      `COPY (SELECT * FROM (${attributed(`t.time <= ${at} AND t.time > ${at} - INTERVAL 30 DAY`, 't.tx_hash, t.chain, t.buyer, t.amount, t.time')})
              WHERE service_id IS NOT NULL ORDER BY service_id, time DESC, tx_hash)
         TO ${sqlString(join(out, 'transactions.parquet'))} ${parquet(POINT_LOOKUP_ROW_GROUP.transactions)}`,
    ],
  ];
  try {
    // the listings' lookup tables (30,000 rows: not timed)
    await c.run(`CREATE TABLE listings AS SELECT row_number() OVER (ORDER BY first_seen, resource_url) AS id, * FROM ${services}`);
    await c.run(`CREATE TABLE urls AS SELECT hash(chain, resource_url) AS url_h, min(id) AS id FROM listings GROUP BY ALL`);
    await c.run(`CREATE TABLE sellers AS SELECT hash(seller_address) AS seller_h, chain, min(id) AS id FROM listings GROUP BY ALL`);
    const timed: FloorStep[] = [];
    for (const [name, sql] of steps) {
      const t0 = performance.now();
      await c.run(sql);
      timed.push({ name, seconds: (performance.now() - t0) / 1000 });
    }
    return { steps: timed, seconds: timed.reduce((a, s) => a + s.seconds, 0) };
  } finally {
    c.closeSync();
    instance.closeSync();
    rmSync(out, { recursive: true, force: true });
  }
}
