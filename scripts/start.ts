/**
 * npm start: the main job on the embedded demo data. Runs both pipelines on the demo world,
 * builds the site over the new snapshots, then serves both services and prints their URLs.
 * Extra arguments go to the pipelines (e.g. `npm start -- --seed 7`).
 */
import { loadSettings } from '../lib/config.ts';
import { parseArgs, runCli, UsageError } from '../pipelines/cli.ts';
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
  const shutdown = () => {
    void stopServices(running).then(() => process.exit(0));
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

main().catch((err: Error) => {
  console.error(err instanceof UsageError ? err.message : `npm start failed: ${err.stack ?? err.message}`);
  process.exit(err instanceof UsageError ? 2 : 1);
});
