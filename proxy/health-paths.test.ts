/**
 * Issue 16, fault 3: /health never publishes a file system path. A damaged latest.json (not JSON,
 * or naming another service) and a store where no version verifies are reported by dataset,
 * version and file name, through createServiceApp as proxy/serve.ts builds it.
 */
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings, type Settings } from '../lib/config.ts';
import { sharedDemoSnapshots } from '../pipelines/testing/shared-demo.ts';
import { listVersions, publicReason, SnapshotReader } from '../snapshots/reader.ts';
import type { HealthDocument } from './health.ts';
import { createServiceApp } from './serve.ts';
import { testPaymentParts } from '../payments/testing/paywall.ts';

const NOW = '2026-11-20T09:00:30Z';
let root: string;
let published: string;
const readers: SnapshotReader[] = [];

beforeAll(async () => {
  let settings: Settings;
  ({ root, settings } = await sharedDemoSnapshots('health-paths-test-'));
  published = settings.snapshotsDir;
}, 240_000);
afterAll(() => {
  for (const r of readers) r.close();
  rmSync(root, { recursive: true, force: true });
});

/** A copy of the published korea snapshots, damaged by `damage`, served as proxy/serve.ts serves it. */
async function healthAfter(
  name: string,
  damage: (koreaDir: string) => void,
): Promise<{ status: number; body: HealthDocument; text: string; dir: string }> {
  const dir = join(root, name);
  cpSync(join(published, 'korea'), join(dir, 'korea'), { recursive: true });
  damage(join(dir, 'korea'));
  const settings: Settings = loadSettings({ SITE_BUILD: 'off', SNAPSHOTS_DIR: dir, WAREHOUSE_DIR: join(root, 'warehouse') });
  const reader = new SnapshotReader(dir, 'korea');
  readers.push(reader);
  await reader.refresh();
  const now = () => new Date(NOW);
  const app = await createServiceApp('korea', reader, settings, { ...testPaymentParts({ now }), washPatternSalt: 'salt' }, { now });
  const res = await app.request('/health');
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as HealthDocument, text, dir };
}

/** No absolute path at all (the store's, the temp folder's or any other) in a public body. */
function expectNoPath(text: string, dir: string): void {
  expect(text).not.toContain(dir);
  expect(text).not.toContain(tmpdir());
  expect(text).not.toMatch(/(^|[\s"'(])\/[\w.-]+\/[\w.-]+/);
}

describe('/health names files, never paths', () => {
  it('latest.json that is not JSON: fallback_reason and problems say "latest.json", not where it lies', async () => {
    const { status, body, text, dir } = await healthAfter('not-json', (korea) => writeFileSync(join(korea, 'latest.json'), '{ damaged'));
    expect(status).toBe(200);
    expect(body.status).toBe('degraded');
    expect(body.snapshot?.fallback_reason).toMatch(/^latest\.json unreadable: latest\.json is not JSON/);
    expect(body.problems.join('\n')).toMatch(/latest\.json unreadable/);
    expectNoPath(text, dir);
  });

  it('latest.json naming another service', async () => {
    const { body, text, dir } = await healthAfter('other-service', (korea) => {
      const pointer = JSON.parse(readFileSync(join(korea, 'latest.json'), 'utf8')) as Record<string, unknown>;
      writeFileSync(join(korea, 'latest.json'), JSON.stringify({ ...pointer, service: 'analytics' }));
    });
    expect(body.snapshot?.fallback_reason).toBe('latest.json unreadable: latest.json names service "analytics"');
    expectNoPath(text, dir);
  });

  it('no version verifies: the 503 names the service and latest.json, not the store', async () => {
    const { status, body, text, dir } = await healthAfter('nothing-verifies', (korea) => {
      writeFileSync(join(korea, 'latest.json'), '{ damaged');
      for (const v of listVersions(join(korea, '..'), 'korea')) writeFileSync(join(korea, v, 'manifest.json'), '[]');
    });
    expect(status).toBe(503);
    expect(body.status).toBe('no_data');
    expect(body.problems.join('\n')).toMatch(/korea: latest\.json unreadable: latest\.json is not JSON.*no older version verifies/);
    expectNoPath(text, dir);
  });
});

describe('publicReason', () => {
  it("keeps an operating system error's code and drops its path; strips the store from other messages", () => {
    const denied = Object.assign(new Error("EACCES: permission denied, open '/srv/data/snapshots/korea/latest.json'"), {
      code: 'EACCES',
      syscall: 'open',
    });
    expect(publicReason(denied, '/srv/data/snapshots')).toBe('a snapshot file could not be read (EACCES on open)');
    expect(publicReason(new Error('/srv/data/snapshots/korea/latest.json is not JSON'), '/srv/data/snapshots/')).toBe(
      'korea/latest.json is not JSON',
    );
    expect(publicReason(new Error('cannot read /home/op/elsewhere/file.json'), '/srv/data/snapshots')).toBe('cannot read (path withheld)');
  });
});
