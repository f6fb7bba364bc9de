/**
 * npm run bench -- site: the Astro build of the public site for a snapshot of 30,000 services
 * (one page each). The input (bench/analytics-data.ts, 30,000 services) and its analytics
 * snapshot are made first and not timed; then the build runs in a child process so its wall
 * time, CPU time and peak RSS are its own. Targets: at most 30 s and at most 3 GiB.
 *
 * The child is this file: node --import tsx bench/site.ts --astro-child OUT_DIR (env as the site
 * build sets it) prints one JSON line {seconds, cpuSeconds, maxRssMb}.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const SERVICES = 30_000;
const NOW = '2026-11-20T09:00:00Z';
const TARGET_SECONDS = 30;
const TARGET_RSS_MB = 3 * 1024;

interface BuildRun {
  seconds: number;
  cpuSeconds: number;
  maxRssMb: number;
}

async function astroChild(outDir: string): Promise<void> {
  const { build } = await import('astro');
  const t0 = performance.now();
  const u0 = process.cpuUsage();
  await build({ root: resolve('site'), outDir, logLevel: 'warn' });
  const cpu = process.cpuUsage(u0);
  const run: BuildRun = {
    seconds: (performance.now() - t0) / 1000,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
  };
  process.stdout.write(`${JSON.stringify(run)}\n`);
}

/** Pages written: every index.html (directory format) and other .html file under `dir`. */
function countPages(dir: string): number {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.html')).length;
}

function run(args: string[], env: Record<string, string>, what: string): string {
  const child = spawnSync(process.execPath, ['--import', 'tsx', ...args], {
    env: { ...process.env, ...env, CI: '1' },
    encoding: 'utf8',
    maxBuffer: 64 * 2 ** 20,
  });
  if (child.status !== 0) throw new Error(`${what} failed (${child.status}): ${child.stderr.slice(-3000)}`);
  return child.stdout;
}

export async function benchSite(): Promise<void> {
  const { writeBenchWorld } = await import('./analytics-data.ts');
  console.log(`site benchmark on ${process.version}, ${(await import('node:os')).cpus().length} cores`);
  console.log(`target: astro build of ${SERVICES.toLocaleString('en-US')} service pages in ≤ ${TARGET_SECONDS} s with peak RSS ≤ 3 GiB`);
  console.log('(cpu: user + system seconds of all threads; on a shared machine wall time stretches, cpu time does not)\n');
  const dir = mkdtempSync(join(tmpdir(), 'bench-site-'));
  try {
    const input = join(dir, 'input');
    const snapshots = join(dir, 'snapshots');
    let t0 = performance.now();
    await writeBenchWorld(input, {
      transactions: 1_000_000,
      services: SERVICES,
      buyers: 300_000,
      now: NOW.replace('T', ' ').replace('Z', ''),
    });
    run(
      ['pipelines/cli.ts', 'analytics', '--source', `file:${input}`, '--now', NOW],
      { SNAPSHOTS_DIR: snapshots, WAREHOUSE_DIR: join(dir, 'warehouse') },
      'pipeline',
    );
    const version = (JSON.parse(readFileSync(join(snapshots, 'analytics', 'latest.json'), 'utf8')) as { version: string }).version;
    console.log(`input and analytics snapshot ${version} made in ${((performance.now() - t0) / 1000).toFixed(1)} s (not timed)`);

    const outDir = join(dir, 'out');
    t0 = performance.now();
    const stdout = run(
      ['bench/site.ts', '--astro-child', outDir],
      { SITE_SNAPSHOTS_DIR: snapshots, SITE_VERSION: version, SITE_DOWNLOADS_DIR: join(dir, 'downloads') },
      'astro build',
    );
    const wall = (performance.now() - t0) / 1000;
    const build = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as BuildRun;
    const pages = countPages(outDir);
    const ok = build.seconds <= TARGET_SECONDS && build.maxRssMb <= TARGET_RSS_MB;
    console.log(
      `astro build: ${pages.toLocaleString('en-US')} pages in ${build.seconds.toFixed(1)} s (child wall incl. start-up ${wall.toFixed(1)} s), ` +
        `${Math.round(pages / build.seconds).toLocaleString('en-US')} pages/s, cpu ${build.cpuSeconds.toFixed(1)} s, peak RSS ${build.maxRssMb} MiB` +
        ` (${ok ? 'within' : 'OVER'} the targets)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith('bench/site.ts') && process.argv[2] === '--astro-child') {
  const outDir = process.argv[3];
  if (!outDir) throw new Error('usage: bench/site.ts --astro-child OUT_DIR');
  await astroChild(outDir);
}
