/**
 * Partitioned snapshot tables against one sorted file (issue 17): the write time of a dataset
 * through SnapshotWriter.writeTable and the point-lookup latency per key as the proxy reads it
 * (one parameterised read_parquet on the file, or on the key's part), for two address-keyed
 * shapes: every payment by buyer (the former wash-payments-by-buyer) and buyers (one row per buyer).
 *
 *   npx tsx bench/partitions.ts [--transactions 1000000,10000000] [--buckets 64,256] [--world DIR]
 *
 * `--world DIR` reuses bench worlds written earlier as DIR/w<transactions>/ (writeBenchWorld);
 * otherwise they are generated into a temporary folder (not timed). Prints one line per layout.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { sqlString } from '../lib/duckdb.ts';
import { bucketSql } from '../snapshots/partitions.ts';
import { loadLatest, partsForKeys, type LoadedDataset } from '../snapshots/reader.ts';
import { SnapshotWriter } from '../snapshots/writer.ts';
import { writeBenchWorld } from './analytics-data.ts';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
};
const sizes = arg('transactions', '1000000,10000000').split(',').map(Number);
const bucketCounts = arg('buckets', '64,256').split(',').map(Number);
const worldRoot = process.argv.includes('--world') ? arg('world', '') : null;
const LOOKUPS = 300;

const meta = { source: 'file' as const, asOf: '2026-11-20T09:00:00Z', license: 'proprietary' as const, description: 'bench' };

/** The two tables' queries, ordered as the pipeline orders such tables (buyers.ts). */
const DATASETS = {
  'wash-payments-by-buyer': {
    key: 'buyer',
    rowGroupSize: 8192,
    query: 'SELECT buyer, seller_address, chain, amount, time FROM tx',
    orderBy: 'buyer, seller_address, time',
  },
  buyers: {
    key: 'address',
    rowGroupSize: 4096,
    // the buyers table's shape: one row per wallet, a label, counts, a reason list and JSON signals
    query: `SELECT buyer AS address, 'unlabeled' AS label, round((hash(buyer) % 10000) / 10000.0, 4) AS confidence,
                   ['dedicated_cohort']::VARCHAR[] AS reason, 'No wash pattern.' AS reason_text, count(*)::INTEGER AS tx_count,
                   round(sum(amount), 6) AS volume, count(DISTINCT seller_address)::INTEGER AS n_sellers,
                   min(time) AS first_time, max(time) AS last_time,
                   to_json({'interval_cv': round((hash(buyer) % 1000) / 100.0, 6)})::VARCHAR AS signals
              FROM tx GROUP BY buyer`,
    orderBy: 'address',
  },
} as const;

const seconds = (t0: number) => (performance.now() - t0) / 1000;
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

async function lookups(connection: DuckDBConnection, data: LoadedDataset, key: string, keys: string[]): Promise<number[]> {
  const times: number[] = [];
  for (const k of keys) {
    const t0 = performance.now();
    const files = partsForKeys(data, [k]);
    if (files.length > 0) {
      await connection.runAndReadAll(`SELECT * FROM read_parquet($path) WHERE ${key} = $key`, { path: files[0]!, key: k });
    }
    times.push(performance.now() - t0);
  }
  return times;
}

async function main(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'bench-partitions-'));
  try {
    const instance = await DuckDBInstance.create(':memory:');
    const c = await instance.connect();
    for (const n of sizes) {
      const world = worldRoot ? join(worldRoot, `w${n}`) : join(scratch, `w${n}`);
      if (!worldRoot) await writeBenchWorld(world, { transactions: n, services: 30_000, buyers: 1_000_000, now: '2026-11-20 09:00:00' });
      await c.run(`CREATE OR REPLACE TABLE tx AS SELECT * FROM read_parquet(${sqlString(join(world, 'transactions.parquet'))})`);
      let t0 = performance.now();
      await c.run(`SELECT count(DISTINCT ${bucketSql('tx_hash', 256)}) FROM tx`);
      const md5s = seconds(t0);
      t0 = performance.now();
      await c.run('SELECT count(DISTINCT hash(tx_hash) % 256) FROM tx');
      console.log(
        `${n.toLocaleString('en-US')} transactions: bucket of ${n.toLocaleString('en-US')} keys by md5 ${md5s.toFixed(2)} s (DuckDB hash() ${seconds(t0).toFixed(2)} s)`,
      );
      // keys looked up: present ones drawn by a hash (heavy and light buyers alike), and absent ones
      const present = (await c.runAndReadAll(`SELECT DISTINCT buyer FROM tx ORDER BY hash(buyer, 'pick') LIMIT ${LOOKUPS}`))
        .getRowObjectsJson()
        .map((r) => String(r.buyer));
      const keys = [...present, ...Array.from({ length: 30 }, (_, i) => `0x${'0'.repeat(38)}${String(i).padStart(2, '0')}`)];
      for (const [name, d] of Object.entries(DATASETS)) {
        for (const buckets of [0, ...bucketCounts]) {
          const root = join(scratch, `s-${n}-${name}-${buckets}`);
          const writer = await SnapshotWriter.begin({ root, service: 'bench', codeVersion: 'bench' });
          t0 = performance.now();
          // as the pipeline writes them: one file sorted by the query, or parts sorted by orderBy
          await writer.writeTable(c, name, buckets > 0 ? d.query : `${d.query} ORDER BY ${d.orderBy}`, meta, {
            rowGroupSize: d.rowGroupSize,
            ...(buckets > 0 ? { partitionBy: { key: d.key, buckets, orderBy: d.orderBy } } : {}),
          });
          const write = seconds(t0);
          await writer.publish({ nextExpectedUpdate: new Date() });
          const loaded = (await loadLatest(root, 'bench'))!;
          const data = loaded.datasets.get(name)!;
          // a fresh instance per layout, as a proxy process after a swap; one warm-up pass
          const reading = await DuckDBInstance.create(':memory:');
          const rc = await reading.connect();
          await lookups(rc, data, d.key, keys.slice(0, 20));
          const times = await lookups(rc, data, d.key, keys);
          rc.closeSync();
          reading.closeSync();
          console.log(
            `  ${name.padEnd(24)} ${buckets === 0 ? 'one file    ' : `${String(buckets).padStart(4)} buckets`}  rows ${data.entry.rows.toLocaleString('en-US').padStart(11)}` +
              `  parts ${String(data.files.length).padStart(4)}  write ${write.toFixed(2).padStart(6)} s` +
              `  lookup p50 ${pct(times, 50).toFixed(2).padStart(6)} ms  p99 ${pct(times, 99).toFixed(2).padStart(6)} ms`,
          );
          rmSync(root, { recursive: true, force: true });
        }
      }
    }
    c.closeSync();
    instance.closeSync();
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
