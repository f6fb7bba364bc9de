/**
 * Issue 16, fault 6: `--source live` without its required settings stops before any work with one
 * message naming each missing setting and exit 2 (it used to run every analytics step and print
 * "Table with name x402_services does not exist" twenty times).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../lib/config.ts';
import { parseArgs, runCli } from './cli.ts';
import { LineProgress } from './progress.ts';

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

function tempEnv(extra: Record<string, string> = {}): Record<string, string> {
  const root = mkdtempSync(join(tmpdir(), 'live-settings-test-'));
  roots.push(root);
  return { SITE_BUILD: 'off', SNAPSHOTS_DIR: join(root, 'snapshots'), WAREHOUSE_DIR: join(root, 'warehouse'), ...extra };
}

async function run(argv: string[], env: Record<string, string>) {
  const lines: string[] = [];
  const out: string[] = [];
  const err: string[] = [];
  const settings = loadSettings(env);
  const { exitCode, results } = await runCli(parseArgs(argv), settings, {
    progress: new LineProgress((line) => lines.push(line)),
    out: (t) => out.push(t),
    err: (t) => err.push(t),
  });
  return { exitCode, results, progress: lines, out: out.join(''), err: err.join(''), settings };
}

describe('--source live checks its required settings before any work', () => {
  it('analytics without X402_DISCOVERY_URL and BASE_RPC_URL: one message naming both, exit 2, nothing run', async () => {
    const env = tempEnv();
    const r = await run(['analytics', '--source', 'live'], env);
    expect(r.exitCode).toBe(2);
    expect(r.results).toEqual([]);
    expect(r.err.trim().split('\n')).toHaveLength(3); // the message and one line per missing setting
    expect(r.err).toMatch(/^--source live needs settings that are not set/);
    expect(r.err).toMatch(/X402_DISCOVERY_URL \(analytics\): .*discovery URL/);
    expect(r.err).toMatch(/BASE_RPC_URL \(analytics\): .*Base JSON-RPC/);
    expect(r.err).not.toMatch(/does not exist/);
    expect(r.out).toBe('');
    expect(r.progress).toEqual([]);
    expect(existsSync(r.settings.warehouseDir)).toBe(false);
    expect(existsSync(r.settings.snapshotsDir)).toBe(false);
  });

  it('names only what is missing', async () => {
    const r = await run(['analytics', '--source', 'live'], tempEnv({ BASE_RPC_URL: 'http://127.0.0.1:9' }));
    expect(r.exitCode).toBe(2);
    expect(r.err).toMatch(/X402_DISCOVERY_URL/);
    expect(r.err).not.toMatch(/BASE_RPC_URL/);
  });

  it('korea needs no upstream setting, but takes the Naver key pair whole', async () => {
    const r = await run(['all', '--source', 'live'], tempEnv({ NAVER_CLIENT_ID: 'id-only' }));
    expect(r.exitCode).toBe(2);
    expect(r.err).toMatch(/NAVER_CLIENT_SECRET \(korea\): /);
    expect(r.err).toMatch(/X402_DISCOVERY_URL \(analytics\)/);
    expect(r.err).not.toContain('id-only');
  });

  it('the demo source needs none of them', async () => {
    const r = await run(['korea', '--now', '2026-11-20T09:00:00Z'], tempEnv());
    expect(r.exitCode).toBe(0);
    expect(r.err).toBe('');
  }, 120_000);

  it('npm run pipeline -- analytics --source live: exit 2 and the message on stderr', () => {
    const env = tempEnv();
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'pipelines/cli.ts', 'analytics', '--source', 'live'], {
      env: { PATH: process.env.PATH ?? '', ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/--source live needs settings that are not set/);
    expect(result.stderr).toMatch(/X402_DISCOVERY_URL/);
    expect(result.stderr).not.toMatch(/does not exist/);
    expect(result.stdout).toBe('');
  });
});
