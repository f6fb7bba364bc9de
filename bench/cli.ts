/**
 * npm run bench -- [foundation|korea|analytics|proxy]
 *
 * A benchmark, not a test: prints timings and peak memory next to a baseline measured in the same
 * run. `foundation` (the default) measures the snapshot publish against a bare DuckDB COPY of the
 * same table, the verifying reader, and the demo pipelines end to end at two scales.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { sqlString } from '../pipelines/warehouse.ts';
import { loadLatest } from '../snapshots/reader.ts';
import { SnapshotWriter } from '../snapshots/writer.ts';

const seconds = (t0: number) => (performance.now() - t0) / 1000;
const fmt = (s: number) => `${s.toFixed(3)} s`;

async function publishVersusCopy(rows: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-snap-'));
  const instance = await DuckDBInstance.create(':memory:');
  const c = await instance.connect();
  try {
    await c.run(
      `CREATE TABLE tx AS SELECT '0x' || md5(i::VARCHAR) || md5((i * 7)::VARCHAR)[:24] AS tx_hash,
              ['base','solana','polygon','arbitrum'][1 + i % 4] AS chain,
              '0x' || md5((i % 100000)::VARCHAR)[:40] AS buyer, (i % 997) * 0.001 AS amount,
              TIMESTAMP '2026-01-01' + INTERVAL (i) SECOND AS time
         FROM range(${rows}) r(i)`,
    );
    const query = 'SELECT * FROM tx ORDER BY time';
    let t0 = performance.now();
    await c.run(`COPY (${query}) TO ${sqlString(join(dir, 'bare.parquet'))} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880)`);
    const bare = seconds(t0);

    t0 = performance.now();
    const writer = await SnapshotWriter.begin({ root: dir, service: 'bench', codeVersion: 'bench' });
    await writer.writeTable(c, 'tx', query, { source: 'demo', asOf: new Date(), license: 'CC0-1.0', description: 'bench' });
    const manifest = await writer.publish({ nextExpectedUpdate: new Date() });
    const publish = seconds(t0);

    t0 = performance.now();
    await loadLatest(dir, 'bench');
    const verify = seconds(t0);
    const mb = manifest.datasets[0]!.bytes / 2 ** 20;
    console.log(`\nsnapshot publish, ${rows.toLocaleString('en-US')} rows (${mb.toFixed(1)} MiB Parquet zstd)`);
    console.log(`  baseline: bare DuckDB COPY to Parquet        ${fmt(bare)}`);
    console.log(`  publish (COPY + fsync + sha256 + read-back + atomic pointer)  ${fmt(publish)}   ${(publish / bare).toFixed(2)}x baseline`);
    console.log(`  reader load with sha256 verification          ${fmt(verify)}   ${(verify / bare).toFixed(2)}x baseline`);
  } finally {
    c.closeSync();
    instance.closeSync();
    rmSync(dir, { recursive: true, force: true });
  }
}

function demoPipeline(scale: number): { wall: number; maxRssMb: number; exit: number } {
  const dir = mkdtempSync(join(tmpdir(), 'bench-demo-'));
  try {
    const t0 = performance.now();
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'bench/measure-child.ts', 'pipelines/cli.ts', 'all', '--now', '2026-11-20T09:00:00Z', '--scale', String(scale)],
      { env: { ...process.env, SNAPSHOTS_DIR: join(dir, 's'), WAREHOUSE_DIR: join(dir, 'w'), CI: '1' }, encoding: 'utf8' },
    );
    const wall = seconds(t0);
    const m = /maxRssMb=(\d+)/.exec(run.stderr);
    return { wall, maxRssMb: m ? Number(m[1]) : NaN, exit: run.status ?? -1 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function foundation(): Promise<void> {
  console.log(`foundation benchmark on ${process.version}, ${(await import('node:os')).cpus().length} cores`);
  await publishVersusCopy(2_000_000);
  console.log('\ndemo pipelines, both services (child process, includes tsx start-up)');
  for (const scale of [1, 3]) {
    const r = demoPipeline(scale);
    console.log(`  scale ${scale}: ${fmt(r.wall)} wall, peak RSS ${r.maxRssMb} MiB, exit ${r.exit}`);
  }
}

const which = process.argv[2] ?? 'foundation';
const later: Record<string, string> = {
  korea: 'the korea market pipeline issue',
  analytics: 'the analytics pipeline issue',
  proxy: 'the paywall proxy issue',
};
if (which === 'foundation') {
  await foundation();
} else if (later[which]) {
  console.error(`bench "${which}" is not built yet: it lands with ${later[which]}. Available: foundation`);
  process.exit(2);
} else {
  console.error(`unknown bench "${which}"; usage: npm run bench -- [foundation|korea|analytics|proxy]`);
  process.exit(2);
}
