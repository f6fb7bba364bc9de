/**
 * Test support: both services' demo snapshots at DEMO_NOW, published once per test run and shared
 * by every test that only reads them (a publish costs about 30 s; two dozen test files each paid it).
 *
 * The publish is the one `npm run pipeline -- all --now DEMO_NOW` makes (runCli), with the
 * analytics site built before the version goes live, as production does. The vitest global setup
 * (pipelines/testing/global-setup.ts) names an empty folder; the first test that asks publishes
 * into it while tests in other workers that ask wait, so a run that never asks costs nothing.
 *
 * READ-ONLY: a test that changes snapshots, the warehouse or the site (a second run, a damaged
 * file, a planted link) takes copyOfSharedDemo, a copy of its own. The global setup fails the run
 * if a file of the shared folder changed.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { ServiceName } from '../../catalog/types.ts';
import { loadSettings, type Settings } from '../../lib/config.ts';
import { parseArgs, runCli } from '../cli.ts';
import { LineProgress } from '../progress.ts';
import { DEMO_NOW } from './demo-snapshots.ts';
import { SHARED_DEMO_CONTENT, writeListing } from './shared-demo-listing.ts';

/** The folders of the shared publish. Never write below them. */
export interface SharedDemoFolders {
  /** The folder holding the three below (what a path in a public answer must never name). */
  root: string;
  snapshotsDir: string;
  warehouseDir: string;
  /** The analytics site built for the published version (builds/<version>/, downloads/<version>/). */
  siteDir: string;
}

/** How long a test waits for another worker's publish before it gives up. */
const WAIT_MS = 10 * 60_000;

let published: Promise<SharedDemoFolders> | null = null;

/** The shared demo folders, published by this call if no test of the run has published them yet. */
export function sharedDemo(): Promise<SharedDemoFolders> {
  published ??= ensurePublished();
  return published;
}

/**
 * A root of the test's own (keys, nonces and site go there: remove it when done) and settings
 * whose SNAPSHOTS_DIR and WAREHOUSE_DIR are the shared ones: what publishDemoSnapshots gives,
 * without the run. Open the warehouse READ_ONLY. `site: true` points SITE_DIR at the shared site
 * build (read it only); `env` adds settings.
 */
export async function sharedDemoSnapshots(
  prefix: string,
  options: { site?: boolean; env?: Record<string, string> } = {},
): Promise<{ root: string; settings: Settings }> {
  const shared = await sharedDemo();
  const root = mkdtempSync(join(tmpdir(), prefix));
  const settings = loadSettings({
    SITE_BUILD: 'off',
    SNAPSHOTS_DIR: shared.snapshotsDir,
    WAREHOUSE_DIR: shared.warehouseDir,
    KEYS_DIR: join(root, 'keys'),
    NONCE_DB_DIR: join(root, 'nonces'),
    SITE_DIR: options.site ? shared.siteDir : join(root, 'site'),
    ...options.env,
  });
  return { root, settings };
}

/**
 * A copy of the shared publish in a root of the test's own, for a test that changes it (a second
 * run, a damaged file, a planted link): the same starting state as publishing it again, without
 * the run. `services` (default both) limits the copy to those services' snapshots and warehouse
 * files (the site comes with analytics); `env` adds settings.
 */
export async function copyOfSharedDemo(
  prefix: string,
  options: { services?: readonly ServiceName[]; env?: Record<string, string> } = {},
): Promise<{ root: string; settings: Settings }> {
  const shared = await sharedDemo();
  const services = options.services ?? ['korea', 'analytics'];
  const root = mkdtempSync(join(tmpdir(), prefix));
  const copy = { snapshotsDir: join(root, 'snapshots'), warehouseDir: join(root, 'warehouse'), siteDir: join(root, 'site') };
  mkdirSync(copy.snapshotsDir);
  mkdirSync(copy.warehouseDir);
  for (const service of services) {
    cpSync(join(shared.snapshotsDir, service), join(copy.snapshotsDir, service), { recursive: true });
    // <service>.duckdb and what the service keeps beside it (analytics-day-state)
    for (const name of readdirSync(shared.warehouseDir).filter((n) => n.startsWith(service))) {
      cpSync(join(shared.warehouseDir, name), join(copy.warehouseDir, name), { recursive: true });
    }
  }
  if (services.includes('analytics')) cpSync(shared.siteDir, copy.siteDir, { recursive: true });
  const settings = loadSettings({
    SITE_BUILD: 'off',
    SNAPSHOTS_DIR: copy.snapshotsDir,
    WAREHOUSE_DIR: copy.warehouseDir,
    SITE_DIR: copy.siteDir,
    KEYS_DIR: join(root, 'keys'),
    ...options.env,
  });
  return { root, settings };
}

function folders(dir: string): SharedDemoFolders {
  const content = join(dir, SHARED_DEMO_CONTENT);
  return {
    root: content,
    snapshotsDir: join(content, 'snapshots'),
    warehouseDir: join(content, 'warehouse'),
    siteDir: join(content, 'site'),
  };
}

async function ensurePublished(): Promise<SharedDemoFolders> {
  const dir = inject('sharedDemoDir');
  if (!dir) throw new Error('no shared demo folder: run the tests through vitest.config.ts, whose globalSetup provides it');
  const ready = join(dir, 'ready');
  const failed = join(dir, 'failed');
  const lock = join(dir, 'lock');
  let mine = false;
  try {
    mkdirSync(lock);
    mine = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  if (mine) {
    writeFileSync(join(lock, 'pid'), String(process.pid));
    try {
      await publish(folders(dir));
      writeListing(dir);
      writeFileSync(ready, '');
    } catch (err) {
      writeFileSync(failed, (err as Error).message);
      throw err;
    }
    return folders(dir);
  }
  // Another worker publishes: wait for it, and stop waiting if its process is gone.
  const start = Date.now();
  for (;;) {
    if (existsSync(ready)) return folders(dir);
    if (existsSync(failed)) throw new Error(`the shared demo publish failed: ${readFileSync(failed, 'utf8')}`);
    const pid = Number(existsSync(join(lock, 'pid')) ? readFileSync(join(lock, 'pid'), 'utf8') : 0);
    if (pid > 0 && !alive(pid)) throw new Error(`the process publishing the shared demo snapshots (pid ${pid}) ended before it finished`);
    if (Date.now() - start > WAIT_MS) throw new Error(`the shared demo snapshots were not published within ${WAIT_MS / 60_000} minutes`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function publish(target: SharedDemoFolders): Promise<void> {
  const settings = loadSettings({
    SITE_BUILD: 'on',
    SNAPSHOTS_DIR: target.snapshotsDir,
    WAREHOUSE_DIR: target.warehouseDir,
    SITE_DIR: target.siteDir,
    KEYS_DIR: join(target.snapshotsDir, '..', 'keys'),
  });
  const quiet = { progress: new LineProgress(() => {}), out: () => {} };
  const { exitCode, results } = await runCli(parseArgs(['all', '--now', DEMO_NOW]), settings, quiet);
  if (exitCode !== 0) {
    const why = results.flatMap((r) => [r.error ?? '', ...r.reports.filter((x) => x.status !== 'ok').map((x) => `${x.name}: ${x.detail}`)]);
    throw new Error(`the demo pipeline (all) exited ${exitCode}: ${why.filter(Boolean).join('; ')}`);
  }
}
