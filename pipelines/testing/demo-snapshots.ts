/**
 * Test helper: a temporary folder with both services' demo snapshots (or one service's) published
 * the way `npm run pipeline -- all` publishes them (runCli), with the site build off, for tests that look
 * at the APIs rather than the pages. A test that only reads the snapshots at DEMO_NOW takes the
 * run's shared publish instead (shared-demo.ts: sharedDemoSnapshots, or copyOfSharedDemo to change them).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSettings, type Settings } from '../../lib/config.ts';
import { parseArgs, runCli } from '../cli.ts';
import { LineProgress } from '../progress.ts';

export const DEMO_NOW = '2026-11-20T09:00:00Z';

export async function publishDemoSnapshots(
  prefix: string,
  now = DEMO_NOW,
  service: 'korea' | 'analytics' | 'all' = 'all',
): Promise<{ root: string; settings: Settings }> {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const settings = loadSettings({
    SITE_BUILD: 'off',
    SNAPSHOTS_DIR: join(root, 'snapshots'),
    WAREHOUSE_DIR: join(root, 'warehouse'),
    KEYS_DIR: join(root, 'keys'),
  });
  const quiet = { progress: new LineProgress(() => {}), out: () => {} };
  const { exitCode } = await runCli(parseArgs([service, '--now', now]), settings, quiet);
  if (exitCode !== 0) throw new Error(`the demo pipeline (${service}) exited ${exitCode}`);
  return { root, settings };
}
