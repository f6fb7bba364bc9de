/**
 * npm run pull-snapshots [-- korea|analytics|all]
 *
 * One pull of each service's newest snapshot from SNAPSHOTS_PULL_URL into SNAPSHOTS_DIR, as the
 * follower of `npm run serve` does at every check (snapshots/pull.ts): every file checked against
 * its manifest, published with the writer's atomic rename, the previous version kept live on any
 * failure. For a host's first fill before the server starts, or a cron on a host that does not
 * run the server.
 *
 * Exit: 0 = every service's newest version is live here (pulled now or already), 1 = a pull failed
 * (the reason is printed; nothing changed for that service), 2 = usage or settings error.
 */
import { SERVICES, type ServiceName } from '../catalog/types.ts';
import { loadSettings } from '../lib/config.ts';
import { PullError, pullLatest, pullSummary, shownSourceUrl } from '../snapshots/pull.ts';

const USAGE = 'usage: npm run pull-snapshots [-- korea|analytics|all]   (reads SNAPSHOTS_PULL_URL, SNAPSHOTS_DIR)';

async function main(args: string[]): Promise<number> {
  const which = args[0] ?? 'all';
  if (args.length > 1 || (which !== 'all' && !(SERVICES as readonly string[]).includes(which))) {
    console.error(USAGE);
    return 2;
  }
  let settings: ReturnType<typeof loadSettings>;
  try {
    settings = loadSettings();
  } catch (err) {
    console.error((err as Error).message);
    return 2;
  }
  const pull = settings.snapshotsPull;
  if (!pull) {
    console.error(`SNAPSHOTS_PULL_URL is not set: it names the snapshot source to pull from\n${USAGE}`);
    return 2;
  }
  const shown = shownSourceUrl(pull.url);
  const services: readonly ServiceName[] = which === 'all' ? SERVICES : [which as ServiceName];
  let failed = false;
  for (const service of services) {
    try {
      const report = await pullLatest({
        root: settings.snapshotsDir,
        service,
        source: { url: pull.url, token: pull.token?.reveal() ?? null },
        retention: settings.snapshotRetention,
        timeoutMs: pull.timeoutMs,
      });
      console.log(pullSummary(report, shown));
    } catch (err) {
      failed = true;
      console.error(`${service}: pull from ${shown} failed: ${err instanceof PullError ? err.message : String(err)}`);
    }
  }
  return failed ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(err.message);
    process.exit(1);
  },
);
