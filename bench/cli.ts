/**
 * npm run bench -- [foundation|korea|analytics|proxy|site]
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
import { sqlString } from '../lib/duckdb.ts';
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
    console.log(
      `  publish (COPY + fsync + sha256 + read-back + atomic pointer)  ${fmt(publish)}   ${(publish / bare).toFixed(2)}x baseline`,
    );
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
      // the pipelines' own work; the site build that an analytics publish adds is `-- site`
      {
        env: { ...process.env, SNAPSHOTS_DIR: join(dir, 's'), WAREHOUSE_DIR: join(dir, 'w'), SITE_BUILD: 'off', CI: '1' },
        encoding: 'utf8',
      },
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

interface ChildRun {
  seconds: number;
  /** CPU time of the child (user + system, all threads): what the run cost however busy the machine was. */
  cpuSeconds: number;
  maxRssMb: number;
  ok: boolean;
  error: string | null;
  reports: { name: string; status: string; rows: number | null; seconds: number | null; detail: string | null }[];
}

function pipelineChild(args: string[], env: Record<string, string>): ChildRun {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/pipeline-child.ts', ...args], {
    env: { ...process.env, ...env, CI: '1' },
    encoding: 'utf8',
    maxBuffer: 64 * 2 ** 20,
  });
  const line = run.stdout.trim().split('\n').at(-1) ?? '';
  if (run.status !== 0 || !line.startsWith('{')) throw new Error(`pipeline child failed (${run.status}): ${run.stderr.slice(-2000)}`);
  return JSON.parse(line) as ChildRun;
}

interface Timed {
  seconds: number;
  cpuSeconds: number;
}

const cpuSeconds = (since: NodeJS.CpuUsage): number => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1e6;
};

/**
 * The baseline: a bare DuckDB GROUP BY buyer, seller_address over the same Parquet, second of two
 * runs (the first warms the file cache, as the pipeline's run will find it). `consumed` sums its
 * count/sum/min/max: without that DuckDB drops the unused aggregates and reads only the two
 * grouping columns, so the figure the target is set against is a distinct-pairs count.
 */
async function bareAggregate(file: string, consumed: boolean): Promise<Timed> {
  const instance = await DuckDBInstance.create(':memory:');
  const c = await instance.connect();
  try {
    const grouped = `SELECT buyer, seller_address, count(*) AS n, sum(amount) AS volume, min(time) AS first, max(time) AS last
                 FROM read_parquet(${sqlString(file)}) GROUP BY buyer, seller_address`;
    const q = consumed
      ? `SELECT count(*), sum(n), sum(volume), min(first), max(last) FROM (${grouped})`
      : `SELECT count(*) FROM (${grouped})`;
    await c.run(q);
    const t0 = performance.now();
    const u0 = process.cpuUsage();
    await c.run(q);
    return { seconds: seconds(t0), cpuSeconds: cpuSeconds(u0) };
  } finally {
    c.closeSync();
    instance.closeSync();
  }
}

async function analytics(): Promise<void> {
  const { writeBenchWorld } = await import('./analytics-data.ts');
  const { analyticsFloor } = await import('./analytics-floor.ts');
  console.log(`analytics benchmark on ${process.version}, ${(await import('node:os')).cpus().length} cores`);
  console.log(
    'target: whole pipeline (Parquet in → snapshot published) ≤ 10× the bare GROUP BY buyer, seller_address aggregate; peak RSS ≤ 4 GiB',
  );
  console.log(
    '(cpu: user + system seconds of all threads; on a machine shared with other work, wall times stretch and cpu times do not)\n',
  );
  const rows: string[] = [];
  for (const transactions of [1_000_000, 3_000_000, 10_000_000]) {
    const dir = mkdtempSync(join(tmpdir(), 'bench-analytics-'));
    try {
      const input = join(dir, 'input');
      const t0 = performance.now();
      await writeBenchWorld(input, { transactions, services: 30_000, buyers: 1_000_000, now: '2026-11-20 09:00:00' });
      console.log(
        `generated ${transactions.toLocaleString('en-US')} transactions (30,000 services, 1,000,000 buyers) in ${fmt(seconds(t0))} (not timed)`,
      );
      const file = join(input, 'transactions.parquet');
      const bare = await bareAggregate(file, false);
      const floor = await analyticsFloor(input, '2026-11-20 09:00:00');
      const run = pipelineChild(['analytics', '--source', `file:${input}`, '--now', '2026-11-20T09:00:00Z'], {
        SNAPSHOTS_DIR: join(dir, 'snapshots'),
        WAREHOUSE_DIR: join(dir, 'warehouse'),
      });
      const consumed = await bareAggregate(file, true);
      const ratio = run.seconds / bare.seconds;
      const slow = run.reports.filter((r) => (r.seconds ?? 0) >= 0.05).map((r) => `${r.name} ${r.seconds!.toFixed(2)}s`);
      console.log(
        `  bare aggregate ${fmt(bare.seconds)} (cpu ${fmt(bare.cpuSeconds)}); pipeline ${fmt(run.seconds)} (cpu ${fmt(run.cpuSeconds)}) = ${ratio.toFixed(1)}x; ` +
          `peak RSS ${run.maxRssMb} MiB; ${
            run.ok
              ? 'all steps ok'
              : `NOT OK: ${
                  run.error ??
                  run.reports
                    .filter((r) => r.status !== 'ok')
                    .map((r) => `${r.name}: ${r.detail}`)
                    .join('; ')
                }`
          }`,
      );
      console.log(
        `  the same GROUP BY with its count/sum/min/max consumed: ${fmt(consumed.seconds)} (cpu ${fmt(consumed.cpuSeconds)}) = ${(run.seconds / consumed.seconds).toFixed(1)}x`,
      );
      console.log(`  steps ≥ 0.05 s: ${slow.join(', ')}`);
      console.log(
        `  floor, the bare passes any such pipeline makes (no classifier, rollups or other datasets; bench/analytics-floor.ts): ` +
          `${fmt(floor.seconds)} = ${(floor.seconds / bare.seconds).toFixed(1)}x (${floor.steps.map((s) => `${s.name} ${s.seconds.toFixed(2)}s`).join(', ')})`,
      );
      rows.push(
        `${transactions.toLocaleString('en-US').padStart(12)}  ${fmt(bare.seconds).padStart(8)}  ${fmt(run.seconds).padStart(9)}  ${ratio.toFixed(1).padStart(5)}x` +
          `  ${(run.cpuSeconds / bare.cpuSeconds).toFixed(1).padStart(9)}x  ${(run.seconds / consumed.seconds).toFixed(1).padStart(13)}x  ${String(run.maxRssMb).padStart(6)} MiB` +
          `  ${(floor.seconds / bare.seconds).toFixed(1).padStart(10)}x`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  console.log('\ntransactions  bare agg   pipeline   ratio  cpu ratio  vs consumed agg  peak RSS  floor ratio');
  for (const r of rows) console.log(r);
}

const which = process.argv[2] ?? 'foundation';
if (which === 'foundation') {
  await foundation();
} else if (which === 'analytics') {
  await analytics();
} else if (which === 'korea') {
  const { benchKorea } = await import('./korea.ts');
  await benchKorea();
  const { benchKoreaAnalyst } = await import('./korea-analyst.ts');
  await benchKoreaAnalyst();
} else if (which === 'proxy') {
  const { benchProxy } = await import('./proxy.ts');
  await benchProxy();
} else if (which === 'site') {
  const { benchSite } = await import('./site.ts');
  await benchSite();
} else {
  console.error(`unknown bench "${which}"; usage: npm run bench -- [foundation|korea|analytics|proxy|site]`);
  process.exit(2);
}
