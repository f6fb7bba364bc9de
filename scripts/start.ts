/**
 * npm start: the main job on the embedded demo data. Runs both pipelines on the demo world (the
 * analytics publish builds the site for its new version), then serves both services and prints
 * their URLs, and keeps re-running the pipelines on their schedule.
 * Extra arguments go to the pipelines (e.g. `npm start -- --seed 7`).
 */
import { loadSettings } from '../lib/config.ts';
import { currentMinute } from '../lib/args.ts';
import { parseArgs, PIPELINES, runCli, UsageError } from '../pipelines/cli.ts';
import { LineProgress } from '../pipelines/progress.ts';
import { startServices, stopServices } from '../proxy/serve.ts';
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

  // Keep the demo alive like a scheduled deployment would: re-run each pipeline on its schedule
  // with the current minute as --now (not when the user pinned --now or set DEMO_REFRESH=off).
  const timers: NodeJS.Timeout[] = [];
  const pinned = process.argv.slice(2).some((a) => a === '--now' || a.startsWith('--now='));
  if (!pinned && process.env.DEMO_REFRESH !== 'off') {
    for (const service of args.services) {
      let busy = false;
      const every = PIPELINES[service].updateEverySeconds;
      const timer = setInterval(async () => {
        if (busy) return;
        busy = true;
        try {
          const { results } = await runCli({ ...args, services: [service], now: currentMinute() }, settings, {
            progress: new LineProgress(() => {}),
            out: () => {},
          });
          const r = results[0]!;
          console.log(
            `${new Date().toISOString()} ${service}: ${r.manifest ? `published ${r.manifest.version}${service === 'analytics' && settings.siteBuild ? ' with its site' : ''}` : `refresh failed: ${r.error}`}`,
          );
        } finally {
          busy = false;
        }
      }, every * 1000);
      timer.unref();
      timers.push(timer);
    }
    console.log(
      `demo data refreshes on schedule (${args.services.map((s) => `${s} every ${PIPELINES[s].updateEverySeconds}s`).join(', ')}); DEMO_REFRESH=off stops it`,
    );
  }
  const shutdown = () => {
    timers.forEach(clearInterval);
    void stopServices(running).then(() => process.exit(0));
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
  console.error(err instanceof UsageError ? err.message : `npm start failed: ${err.stack ?? err.message}`);
  process.exit(err instanceof UsageError ? 2 : 1);
});
