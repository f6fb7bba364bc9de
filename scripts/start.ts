/**
 * npm start: the main job on the embedded demo data. Runs both pipelines on the demo world,
 * builds the site over the new snapshots, then serves both services and prints their URLs.
 * Extra arguments go to the pipelines (e.g. `npm start -- --seed 7`).
 */
import { loadSettings } from '../lib/config.ts';
import { currentMinute } from '../lib/args.ts';
import { parseArgs, PIPELINES, runCli, UsageError } from '../pipelines/cli.ts';
import { LineProgress } from '../pipelines/progress.ts';
import { startServices, stopServices } from '../proxy/serve.ts';
import { buildSite } from '../site/build.ts';

async function main(): Promise<void> {
  const t0 = performance.now();
  const settings = loadSettings();
  const args = parseArgs(['all', ...process.argv.slice(2)]);
  if (args.source.kind !== 'demo') console.log(`npm start: using --source ${args.source.kind}`);

  console.log('1/3 pipelines (demo world → warehouse → snapshots)');
  const { exitCode } = await runCli(args, settings);
  if (exitCode !== 0) console.warn(`pipelines finished with exit code ${exitCode}; serving what was published`);

  console.log('\n2/3 site build');
  const t1 = performance.now();
  try {
    const out = await buildSite();
    console.log(`site built into ${out} in ${((performance.now() - t1) / 1000).toFixed(1)}s`);
  } catch (err) {
    console.error(`site build failed (the APIs are still served): ${(err as Error).message}`);
  }

  console.log('\n3/3 services');
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
            `${new Date().toISOString()} ${service}: ${r.manifest ? `published ${r.manifest.version}` : `refresh failed: ${r.error}`}`,
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

main().catch((err: Error) => {
  console.error(err instanceof UsageError ? err.message : `npm start failed: ${err.stack ?? err.message}`);
  process.exit(err instanceof UsageError ? 2 : 1);
});
