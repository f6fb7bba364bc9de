/**
 * npm start: the main job on the embedded demo data. Runs both pipelines on the demo world (the
 * analytics publish builds the site for its new version), then serves both services and prints
 * their URLs, and keeps re-running the pipelines on the demo table of pipelines/schedule-table.ts
 * (the scheduler of `npm run schedule`).
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
import { buildSiteVersion } from '../site/build.ts';

async function main(): Promise<void> {
  const t0 = performance.now();
  const settings = loadSettings();
  const args = parseArgs(['all', ...process.argv.slice(2)]);
  if (args.source.kind !== 'demo') console.log(`npm start: using --source ${args.source.kind}`);
  await preflightStores(settings); // a Redis that would forget used payments is refused before the pipelines run

  console.log('1/2 pipelines (demo world → warehouse → snapshots; the analytics publish builds its site)');
  const { exitCode } = await runCli(args, settings);
  if (exitCode !== 0) console.warn(`pipelines finished with exit code ${exitCode}; serving what was published`);
  await ensureSite(settings);

  console.log('\n2/2 services');
  const running = await startServices(settings);
  for (const r of running) console.log(`  ${r.service.padEnd(9)} ${r.url}   health: ${r.url}/health`);
  const analytics = running.find((r) => r.service === 'analytics');
  if (analytics) console.log(`  site      ${analytics.url}/`);
  console.log(`ready in ${((performance.now() - t0) / 1000).toFixed(1)}s; Ctrl-C stops`);

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
    const built = await buildSiteVersion({ snapshotsDir: settings.snapshotsDir, siteDir: settings.siteDir, version: live.version });
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
