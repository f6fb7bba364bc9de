/**
 * npm run bench -- site: the public site's build for a snapshot of 30,000 services (one page
 * each), as production runs it: `site/build.ts --version V` (typed downloads, the Astro pages, the
 * page per service, the rename into place) in its own process, so its wall time, CPU time and
 * peak RSS are its own. The input (bench/analytics-data.ts) and its analytics snapshot are made
 * first with SITE_BUILD=off and not timed. Targets (issue 14): at most 30 s and at most 3 GiB.
 * Returns its figures as rows of the benchmark table (bench/table.ts).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RowInput } from './table.ts';

const SERVICES = 30_000;
const NOW = '2026-11-20T09:00:00Z';
const TARGET_SECONDS = 30;
const TARGET_RSS_MB = 3 * 1024;

/** The last stdout line of `site/build.ts --json`. */
interface BuildRun {
  version: string;
  pages: number;
  seconds: number;
  cpu_seconds: number;
  max_rss_mib: number;
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

export async function benchSite(): Promise<RowInput[]> {
  const { writeBenchWorld } = await import('./analytics-data.ts');
  console.log(`site benchmark on ${process.version}, ${(await import('node:os')).cpus().length} cores`);
  console.log(`target: site build of ${SERVICES.toLocaleString('en-US')} service pages in ≤ ${TARGET_SECONDS} s with peak RSS ≤ 3 GiB`);
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
      { SNAPSHOTS_DIR: snapshots, WAREHOUSE_DIR: join(dir, 'warehouse'), SITE_BUILD: 'off' },
      'pipeline',
    );
    const version = (JSON.parse(readFileSync(join(snapshots, 'analytics', 'latest.json'), 'utf8')) as { version: string }).version;
    console.log(`input and analytics snapshot ${version} made in ${((performance.now() - t0) / 1000).toFixed(1)} s (not timed)`);

    const siteDir = join(dir, 'site');
    t0 = performance.now();
    const stdout = run(['site/build.ts', '--version', version, '--json'], { SNAPSHOTS_DIR: snapshots, SITE_DIR: siteDir }, 'site build');
    const wall = (performance.now() - t0) / 1000;
    const build = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as BuildRun;
    const pages = countPages(join(siteDir, 'builds', version));
    const ok = build.seconds <= TARGET_SECONDS && build.max_rss_mib <= TARGET_RSS_MB;
    console.log(
      `site build: ${pages.toLocaleString('en-US')} pages and the typed downloads in ${build.seconds.toFixed(1)} s (process wall incl. start-up ${wall.toFixed(1)} s), ` +
        `${Math.round(pages / build.seconds).toLocaleString('en-US')} pages/s, cpu ${build.cpu_seconds.toFixed(1)} s, peak RSS ${build.max_rss_mib} MiB` +
        ` (${ok ? 'within' : 'OVER'} the targets)`,
    );
    const target = (limit: number) => ({ on: 'value' as const, op: '<=' as const, limit, source: 'issue 14' });
    const what = `site build, ${SERVICES.toLocaleString('en-US')} services (${pages.toLocaleString('en-US')} pages)`;
    return [
      { figure: `${what}: wall`, value: build.seconds, unit: 's', target: target(TARGET_SECONDS) },
      { figure: `${what}: peak RSS`, value: build.max_rss_mib, unit: 'MiB', target: target(TARGET_RSS_MB) },
      { figure: `${what}: pages per second`, value: pages / build.seconds, unit: 'pages/s' },
      { figure: `${what}: CPU (all threads)`, value: build.cpu_seconds, unit: 's' },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
