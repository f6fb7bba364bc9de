/**
 * FREE_TIER_LIMIT through the wiring `npm run serve` uses (processParts → buildStores →
 * createServiceApp): the default stays 60 calls per hour per IP, a number changes it, and 0 lifts
 * the limit for local development (no 429, no RateLimit headers).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings, type Settings } from '../lib/config.ts';
import { sharedDemoSnapshots } from '../pipelines/testing/shared-demo.ts';
import { SnapshotReader } from '../snapshots/reader.ts';
import { createServiceApp, processParts, type ProcessParts } from './serve.ts';

const NOW = '2026-11-20T09:00:30Z';
let root: string;
let shared: Settings;
const readers: SnapshotReader[] = [];
const parts: ProcessParts[] = [];

beforeAll(async () => {
  ({ root, settings: shared } = await sharedDemoSnapshots('free-tier-limit-test-'));
}, 240_000);
afterAll(async () => {
  for (const r of readers) r.close();
  for (const p of parts) {
    await p.stores?.close();
    await p.crypto.close();
  }
  rmSync(root, { recursive: true, force: true });
});

/** The analytics app as proxy/serve.ts builds it, with FREE_TIER_LIMIT as given (undefined = unset). */
async function analyticsApp(name: string, freeTierLimit: string | undefined) {
  const settings = loadSettings({
    SITE_BUILD: 'off',
    SNAPSHOTS_DIR: shared.snapshotsDir,
    NONCE_DB_DIR: join(root, `nonces-${name}`),
    KEYS_DIR: join(root, 'keys'),
    CRYPTO_WORKERS: '0',
    ...(freeTierLimit === undefined ? {} : { FREE_TIER_LIMIT: freeTierLimit }),
  });
  const now = () => new Date(NOW);
  const reader = new SnapshotReader(settings.snapshotsDir, 'analytics');
  readers.push(reader);
  await reader.refresh();
  const p = processParts(settings, { now });
  parts.push(p);
  return createServiceApp('analytics', reader, settings, p, { now });
}

/** `count` calls of a free endpoint from one address; the statuses and the last answer. */
async function callFree(app: Awaited<ReturnType<typeof analyticsApp>>, count: number) {
  const statuses: number[] = [];
  let last: Response | null = null;
  for (let i = 0; i < count; i++) {
    last = await app.request('/api/v1/categories', { headers: { 'x-forwarded-for': '198.51.100.7' } });
    statuses.push(last.status);
  }
  return { statuses, last: last! };
}

describe('FREE_TIER_LIMIT', () => {
  it('unset: 60 calls per hour, the 61st answers 429', async () => {
    const { statuses, last } = await callFree(await analyticsApp('default', undefined), 61);
    expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true);
    expect(statuses[60]).toBe(429);
    expect(last.headers.get('ratelimit-limit')).toBe('60');
  });

  it('a number sets the calls per hour', async () => {
    const { statuses, last } = await callFree(await analyticsApp('three', '3'), 4);
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(last.headers.get('ratelimit-policy')).toBe('3;w=3600');
  });

  it('0: no limit (local development): 100 calls all answer, without RateLimit headers', async () => {
    const { statuses, last } = await callFree(await analyticsApp('unlimited', '0'), 100);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(last.headers.get('ratelimit-limit')).toBeNull();
  });

  it('refuses a negative or fractional limit with the setting named', () => {
    expect(() => loadSettings({ FREE_TIER_LIMIT: '-1' })).toThrow(/FREE_TIER_LIMIT must be a whole number from 0 to 1000000, got "-1"/);
    expect(() => loadSettings({ FREE_TIER_LIMIT: '2.5' })).toThrow(/FREE_TIER_LIMIT must be a whole number/);
  });
});
