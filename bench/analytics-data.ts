/**
 * Synthetic input for the analytics benchmark, in the file-import layout (`services`,
 * `transactions`, `funding` Parquet files), generated in DuckDB SQL so 10 million rows take
 * seconds. Shapes follow the demo world (Zipf service popularity, heavy-tailed buyers, 400 days
 * of history denser recently); only the cost profile matters here, not the labels.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { sqlString } from '../lib/duckdb.ts';

export interface BenchWorld {
  transactions: number;
  services: number;
  buyers: number;
  /** The run's "now"; history spans the 400 days before it. */
  now: string;
}

/** A uniform number in [0, 1) from a hash of the inputs (deterministic, unlike random()). */
const u = (expr: string, salt: string) => `((hash(${expr}, '${salt}') % 1000000007) / 1000000007.0)`;

export async function writeBenchWorld(dir: string, world: BenchWorld): Promise<void> {
  await withWorld(dir, world, true, async (c) => {
    await c.run(`COPY (${paymentsSql(world, 0, world.transactions, `TIMESTAMP '${world.now}' - INTERVAL (floor(400 * 86400 * pow(${u('i', 'time')}, 1.6))::BIGINT) SECOND`)})
                 TO ${sqlString(join(dir, 'transactions.parquet'))} (FORMAT parquet, COMPRESSION zstd)`);
    await c.run(`COPY (
      SELECT b.address, '0x' || substr(md5('cex' || (b.buyer_id % 40)) || md5('cex2' || (b.buyer_id % 40)), 1, 40) AS funder,
             round(5 + 100 * ${u('b.buyer_id', 'fund')}, 2) AS amount,
             TIMESTAMP '${world.now}' - INTERVAL 420 DAY AS time
        FROM buyers b WHERE ${u('b.buyer_id', 'funded')} < 0.8
    ) TO ${sqlString(join(dir, 'funding.parquet'))} (FORMAT parquet, COMPRESSION zstd)`);
  });
}

/**
 * The payments of the hour after `world.now`, as a new file `transactions-<label>.parquet` in the
 * world's directory: `transactions` more payments by the same buyers to the same services (new
 * hashes), their times spread over (from, until] (`from` defaults to the world's now). What an
 * hourly incremental run imports. A later delta passes `first`: the index of its first payment
 * (after every earlier delta's), so its tx hashes are new.
 */
export async function writeBenchDelta(
  dir: string,
  world: BenchWorld,
  delta: { transactions: number; until: string; label: string; from?: string; first?: number },
): Promise<string> {
  const file = join(dir, `transactions-${delta.label}.parquet`);
  await withWorld(dir, world, false, async (c) => {
    const from = delta.from ?? world.now;
    const span = `(epoch(TIMESTAMP '${delta.until}') - epoch(TIMESTAMP '${from}'))`;
    await c.run(`COPY (${paymentsSql(world, delta.first ?? world.transactions, delta.transactions, `TIMESTAMP '${delta.until}' - INTERVAL (floor(${span} * ${u('i', 'time')})::BIGINT) SECOND`)})
                 TO ${sqlString(file)} (FORMAT parquet, COMPRESSION zstd)`);
  });
  return file;
}

/** Payments `first` .. `first + count - 1` of the world (tx hashes from the index), at `time` (an expression of i). */
function paymentsSql(world: BenchWorld, first: number, count: number, time: string): string {
  const pairs = world.buyers * 2;
  return `
      WITH t AS (
        SELECT i, floor(${pairs} * pow(${u('i', 'pair')}, 2))::BIGINT AS pair_id, ${time} AS time
          FROM range(${first}, ${first + count}) r(i))
      SELECT '0x' || md5('tx' || t.i) || md5('tx2' || t.i) AS tx_hash, s.chain, b.address AS buyer, s.seller_address,
             coalesce(s.price_amount, 0.01) AS amount, t.time,
             CASE WHEN ${u('t.i', 'nourl')} < 0.06 THEN NULL ELSE s.resource_url END AS resource_url,
             CASE WHEN ${u('t.i', 'nofac')} < 0.04 THEN NULL ELSE '0xdbdf3d8ed80f84c35d01c6c9f9271761bad90ba6' END AS facilitator
        FROM t JOIN pairs USING (pair_id) JOIN services s USING (service_id) JOIN buyers b USING (buyer_id)
        ORDER BY t.time`;
}

/** The world's sellers, services, buyers and pairs as tables (services.parquet written when `writeServices`). */
async function withWorld(
  dir: string,
  world: BenchWorld,
  writeServices: boolean,
  write: (c: Awaited<ReturnType<DuckDBInstance['connect']>>) => Promise<void>,
): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const instance = await DuckDBInstance.create(':memory:', { preserve_insertion_order: 'false' });
  const c = await instance.connect();
  const sellers = Math.max(1, Math.round(world.services / 2.5));
  try {
    await c.run(`CREATE TABLE sellers AS
      SELECT s AS seller_id, '0x' || substr(md5('seller' || s) || md5('seller2' || s), 1, 40) AS address
        FROM range(${sellers}) r(s)`);
    await c.run(`CREATE TABLE services AS
      SELECT i AS service_id,
             CASE WHEN ${u('i', 'chain')} < 0.7 THEN 'base' WHEN ${u('i', 'chain')} < 0.85 THEN 'polygon' ELSE 'arbitrum' END AS chain,
             s.address AS seller_address,
             'https://svc' || (i % ${sellers}) || '.example.net/api/v1/r' || i AS resource_url,
             'Service ' || i AS name,
             'Benchmark service number ' || i AS description,
             CASE WHEN ${u('i', 'nocat')} < 0.03 THEN NULL
                  ELSE (['ai_inference','financial_data','token_data','weather','news','search_engine','defi_data','storage'])[1 + (i % 8)] END AS category,
             CASE WHEN ${u('i', 'noprice')} < 0.01 THEN NULL
                  ELSE ([0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1])[1 + (hash(i, 'price') % 7)::INTEGER] END AS price_amount,
             TIMESTAMP '${world.now}' - INTERVAL (floor(400 * 86400 * pow(${u('i', 'first')}, 0.7))::BIGINT) SECOND AS first_seen
        FROM range(${world.services}) r(i) JOIN sellers s ON s.seller_id = i % ${sellers}`);
    if (writeServices) {
      await c.run(`COPY (SELECT chain, seller_address, resource_url, name, description, category, price_amount, first_seen
                           FROM services ORDER BY service_id)
                   TO ${sqlString(join(dir, 'services.parquet'))} (FORMAT parquet, COMPRESSION zstd)`);
    }
    await c.run(`CREATE TABLE buyers AS
      SELECT b AS buyer_id, '0x' || substr(md5('buyer' || b) || md5('buyer2' || b), 1, 40) AS address
        FROM range(${world.buyers}) r(b)`);
    // Buyers keep coming back to the same few services: draw (buyer, service) pairs first, two
    // per buyer on average, then payments over pairs skewed towards heavy pairs (low ids).
    const pairs = world.buyers * 2;
    await c.run(`CREATE TABLE pairs AS
      SELECT p AS pair_id, p // 2 AS buyer_id,
             floor(${world.services} * pow(${u('p', 'svc')}, 3))::BIGINT AS service_id
        FROM range(${pairs}) r(p)`);
    await write(c);
  } finally {
    c.closeSync();
    instance.closeSync();
  }
}
