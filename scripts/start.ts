/**
 * npm start: the main job on the embedded demo data. Serves both services at once, runs the
 * pipelines on the demo world (korea, then analytics; each API is served as soon as its snapshot
 * is published), builds the analytics site for the live version (`/` says it is being built until
 * then), and keeps re-running the pipelines on the demo table of pipelines/schedule-table.ts (the
 * scheduler of `npm run schedule`, whose analytics publishes build their site before going live).
 * Extra arguments go to the pipelines (e.g. `npm start -- --seed 7`).
 */
import { loadSettings } from '../lib/config.ts';
import { parseArgs, runCli, UsageError } from '../pipelines/cli.ts';
import { pipelineRunner, Scheduler } from '../pipelines/schedule.ts';
import { SCHEDULE_TABLES } from '../pipelines/schedule-table.ts';
import { preflightStores, startServices, StoreRefusedError, stopServices } from '../proxy/serve.ts';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Settings } from '../lib/config.ts';
import { siteBuildDir } from '../lib/site-paths.ts';
import { readLatestPointer } from '../snapshots/reader.ts';
import { runSiteBuild } from '../pipelines/site-build.ts';

async function main(): Promise<void> {
  const t0 = performance.now();
  const since = () => `${((performance.now() - t0) / 1000).toFixed(1)}s`;
  const settings = loadSettings();
  const args = parseArgs(['all', ...process.argv.slice(2)]);
  if (args.source.kind !== 'demo') console.log(`npm start: using --source ${args.source.kind}`);
  await preflightStores(settings); // a Redis that would forget used payments is refused before the pipelines run

  // Serve at once: /health says no_data (503) until a service's first snapshot is published, and
  // each API is served the moment its data is (korea first, the faster pipeline); the analytics
  // pages are built after its API is up (about 20 s), `/` saying so until then.
  console.log('services');
  const running = await startServices(settings);
  for (const r of running) console.log(`  ${r.service.padEnd(9)} ${r.url}   health: ${r.url}/health`);
  const analytics = running.find((r) => r.service === 'analytics');
  if (analytics) console.log(`  site      ${analytics.url}/`);

  console.log('\npipelines (demo world → warehouse → snapshots), korea first');
  let failed = false;
  // one after the other: side by side they share 2 cores and korea is served later, analytics no sooner
  // (measured in one process, and with either pipeline in a child process: within the noise)
  for (const service of args.services) {
    // the site is built below, after the API serves the version (scheduled refreshes build it before)
    const { exitCode } = await runCli({ ...args, services: [service] }, { ...settings, siteBuild: false });
    if (exitCode !== 0) failed = true;
    const served = running.find((r) => r.service === service);
    await served?.reader.refresh(); // at once, not at the reader's next poll
    if (served?.reader.current()) console.log(`${service}: API served at ${served.url} (${since()})`);
  }
  if (failed) console.warn('a pipeline did not finish cleanly; serving what was published');
  await ensureSite(settings);
  console.log(`ready in ${since()}; Ctrl-C stops`);

  // Keep the demo alive like a scheduled deployment would: the scheduler of `npm run schedule` on
  // the demo table (the production groups, faster; pipelines/schedule-table.ts), each run with the
  // current minute as --now (not when the user pinned --now or set DEMO_REFRESH=off). Every
  // pipeline has just run, so the first refresh waits for its next slot.
  const pinned = process.argv.slice(2).some((a) => a === '--now' || a.startsWith('--now='));
  const table = SCHEDULE_TABLES.demo.filter((e) => args.services.includes(e.service));
  const scheduler =
    !pinned && process.env.DEMO_REFRESH !== 'off'
      ? new Scheduler(table, pipelineRunner(settings, process.argv.slice(2)), {
          firstStart: 'wait',
          statePath: null,
          log: (line) => console.log(line),
        })
      : null;
  if (scheduler) {
    scheduler.start();
    console.log(
      `demo data refreshes on the demo schedule (UTC: ${table.map((e) => `${e.name} "${e.cron}"`).join(', ')}); DEMO_REFRESH=off stops it`,
    );
  }
  let stopping = false;
  const shutdown = () => {
    // A second Ctrl-C leaves at once: the snapshot writer is atomic, so latest.json still names a complete version.
    if (stopping) process.exit(1);
    stopping = true;
    // The running refresh finishes its step and publishes nothing; then the servers close.
    void (scheduler?.stop() ?? Promise.resolve()).then(() => stopServices(running)).then(() => process.exit(0));
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

/**
 * Builds the site for the live analytics version when it has none (a snapshot published with
 * SITE_BUILD=off, or before site builds existed), so `/` shows pages rather than the JSON index.
 */
async function ensureSite(settings: Settings): Promise<void> {
  if (!settings.siteBuild) return;
  const live = readLatestPointer(settings.snapshotsDir, 'analytics');
  if (!live || existsSync(join(siteBuildDir(settings.siteDir, live.version), 'index.html'))) return;
  const t0 = performance.now();
  try {
    // a child process, as the publishes build it: Astro in this process would stall the APIs it serves meanwhile
    const built = await runSiteBuild(settings, live.version);
    console.log(`site for ${built.version}: ${built.pages} pages in ${((performance.now() - t0) / 1000).toFixed(1)}s`);
  } catch (err) {
    console.error(`site build failed (the APIs are still served): ${(err as Error).message}`);
  }
}

main().catch((err: Error) => {
  console.error(
    err instanceof UsageError || err instanceof StoreRefusedError ? err.message : `npm start failed: ${err.stack ?? err.message}`,
  );
  process.exit(err instanceof UsageError ? 2 : 1);
});
