/**
 * Single use across restarts and instances, through the production wiring (processParts and
 * createServiceApp from proxy/serve.ts over demo snapshots, real HTTP on loopback ports):
 * - LMDB (default): a payment used before a restart is refused after it (issue 13, item 1: with
 *   the in-memory store a restart forgot every used payment).
 * - Redis (REDIS_URL, appendonly yes): two instances on one Redis, one payment sent to both fifty
 *   times at once, exactly one 200; a restarted instance refuses a used payment; the free tier
 *   counts across both; Redis down → paid 503 (fail closed), free 200; Redis back → paid works
 *   without a restart; Redis restarted without appendonly → paid 503 and /health says why (issue
 *   27, finding 6), unless NONCE_STORE_ALLOW_VOLATILE=1.
 * - In every store (memory, LMDB, Redis): a served payment sent again is "already used" at once,
 *   not "being used by another request" (issue 27, finding 9), and a retry with its
 *   payment-identifier gets the kept answer.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { appendPaymentIdentifierToExtensions, generatePaymentId } from '@x402/extensions/payment-identifier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findEndpoint } from '../catalog/index.ts';
import { loadSettings, type Settings } from '../lib/config.ts';
import { sharedDemoSnapshots } from '../pipelines/testing/shared-demo.ts';
import { SnapshotReader } from '../snapshots/reader.ts';
import type { HealthDocument } from './health.ts';
import { createServiceApp, processParts, type ProcessParts } from './serve.ts';
import { redisInstalled, startRedis, type TestRedis } from './testing/redis.ts';
import { freshPaymentHeader } from '../payments/testing/bench-support.ts';
import { payToTable } from '../payments/networks.ts';
import { paymentIdentifierDeclaration } from '../payments/payment-identifier.ts';
import { serveOnLoopback, testPaymentParts, type ServedApp } from '../payments/testing/paywall.ts';

const NOW = '2026-11-20T09:00:30Z';
const now = () => new Date(NOW);
const nowSeconds = Math.floor(new Date(NOW).getTime() / 1000);
let root: string;
let base: Record<string, string>;
const readers: SnapshotReader[] = [];

beforeAll(async () => {
  const shared = await sharedDemoSnapshots('stores-test-');
  root = shared.root;
  // the run's shared demo snapshots (read-only); keys, nonces and site in the test's own root
  base = {
    SNAPSHOTS_DIR: shared.settings.snapshotsDir,
    WAREHOUSE_DIR: shared.settings.warehouseDir,
    KEYS_DIR: join(root, 'keys'),
    NONCE_DB_DIR: join(root, 'nonces'),
    SITE_DIR: join(root, 'site'),
    CRYPTO_WORKERS: '0',
    SITE_BUILD: 'off',
  };
}, 240_000);
afterAll(() => {
  for (const r of readers) r.close();
  rmSync(root, { recursive: true, force: true });
});

/** One proxy instance as `npm run serve` builds it: its own process parts, both services on loopback ports. */
interface Instance {
  parts: ProcessParts;
  korea: ServedApp;
  analytics: ServedApp;
  stop(): Promise<void>;
}

/** `clock`: the test's fixed clock (default), or null for the real one, exactly as `npm run serve` runs. */
async function startInstance(settings: Settings, clock: (() => Date) | null = now): Promise<Instance> {
  const parts = processParts(settings, clock ? { now: clock } : {});
  const served: Record<string, ServedApp> = {};
  for (const service of ['korea', 'analytics'] as const) {
    const reader = new SnapshotReader(settings.snapshotsDir, service);
    readers.push(reader);
    await reader.refresh();
    served[service] = await serveOnLoopback(await createServiceApp(service, reader, settings, parts, clock ? { now: clock } : {}));
  }
  return {
    parts,
    korea: served.korea!,
    analytics: served.analytics!,
    stop: async () => {
      await served.korea!.close();
      await served.analytics!.close();
      await parts.stores?.close();
    },
  };
}

const kimchi = findEndpoint('korea', 'kimchi-premium')!;
const PAID_PATH = '/api/v1/kimchi-premium?symbol=ETH';

function payment(settings: Settings, at: number = nowSeconds): Record<string, string> {
  const header = freshPaymentHeader({
    endpoint: kimchi,
    payTo: payToTable(settings),
    version: 1,
    now: at,
    resourceUrl: 'http://localhost/',
  });
  return { [header.name]: header.value };
}

const reasonOf = async (res: Response) => ((await res.json()) as { reason?: string }).reason;

/** A fresh v2 payment header value for the kimchi premium (no payment-identifier yet). */
function paymentV2(settings: Settings, at = nowSeconds): string {
  return freshPaymentHeader({ endpoint: kimchi, payTo: payToTable(settings), version: 2, now: at, resourceUrl: 'http://localhost/' }).value;
}

/** The same signed payment with `id` as its payment-identifier. */
function withPaymentId(value: string, id: string): string {
  const payload = JSON.parse(Buffer.from(value, 'base64').toString('utf8')) as Record<string, unknown>;
  payload.extensions = appendPaymentIdentifierToExtensions({ 'payment-identifier': paymentIdentifierDeclaration() }, id);
  return Buffer.from(JSON.stringify(payload)).toString('base64');
}

async function expectAlreadyUsed(res: Response): Promise<void> {
  expect(res.status).toBe(402);
  const body = (await res.json()) as { reason: string; error: string };
  expect(body.reason).toBe('nonce_used');
  expect(body.error).toMatch(/already used for a response/);
  expect(body.error).not.toMatch(/being used by another request/);
}

/**
 * Issue 27, finding 9, through one running service: a served payment sent again is refused as
 * already used at once (the LMDB store answered "being used by another request right now" for
 * 120 s, so a retry never got an answer), with or without a payment-identifier; a retry with the
 * served payment's own id gets the kept answer back.
 */
async function servedPaymentIsUsedAtOnce(url: string, settings: Settings, at = nowSeconds): Promise<void> {
  const send = (value: string) => fetch(url + PAID_PATH, { headers: { 'PAYMENT-SIGNATURE': value } });
  const plain = paymentV2(settings, at);
  expect((await send(plain)).status).toBe(200);
  await expectAlreadyUsed(await send(plain));
  await expectAlreadyUsed(await send(withPaymentId(plain, generatePaymentId()))); // no answer was kept for it

  const identified = paymentV2(settings, at);
  const id = generatePaymentId();
  const first = await send(withPaymentId(identified, id));
  expect(first.status).toBe(200);
  const firstBody = await first.text();
  const retry = await send(withPaymentId(identified, id));
  expect(retry.status).toBe(200);
  expect(await retry.text()).toBe(firstBody);
  expect(retry.headers.get('x-receipt')).toBe(first.headers.get('x-receipt'));
  await expectAlreadyUsed(await send(identified));
}

describe('a served payment sent again is already used at once (issue 27, finding 9)', () => {
  it('memory store', async () => {
    const settings = loadSettings(base);
    const reader = new SnapshotReader(settings.snapshotsDir, 'korea');
    readers.push(reader);
    await reader.refresh();
    const parts = { ...testPaymentParts({ now }), washPatternSalt: 'salt' };
    const served = await serveOnLoopback(await createServiceApp('korea', reader, settings, parts, { now }));
    try {
      await servedPaymentIsUsedAtOnce(served.url, settings);
    } finally {
      await served.close();
    }
  });

  it('LMDB store', async () => {
    const settings = loadSettings({ ...base, NONCE_DB_DIR: join(root, 'nonces-served') });
    const instance = await startInstance(settings);
    try {
      await servedPaymentIsUsedAtOnce(instance.korea.url, settings);
    } finally {
      await instance.stop();
    }
  });
});

describe('LMDB nonce store (the default)', () => {
  it('a payment used before a restart is refused after it: 402 nonce_used (issue 13, item 1)', async () => {
    // the real clock, as in production: the payment is valid for minutes, a restart takes seconds
    const settings = loadSettings({ ...base, NONCE_DB_DIR: join(root, 'nonces-restart') });
    const paid = payment(settings, Math.floor(Date.now() / 1000));
    const first = await startInstance(settings, null);
    expect((await fetch(first.korea.url + PAID_PATH, { headers: paid })).status).toBe(200);
    expect(await reasonOf(await fetch(first.korea.url + PAID_PATH, { headers: paid }))).toBe('nonce_used');
    await first.stop();

    const restarted = await startInstance(settings, null);
    const replay = await fetch(restarted.korea.url + PAID_PATH, { headers: paid });
    expect(replay.status).toBe(402);
    expect(await reasonOf(replay)).toBe('nonce_used');
    // a fresh payment still buys a response after the restart
    expect((await fetch(restarted.korea.url + PAID_PATH, { headers: payment(settings, Math.floor(Date.now() / 1000)) })).status).toBe(200);
    const health = (await (await fetch(`${restarted.korea.url}/health`)).json()) as HealthDocument;
    expect(health.stores).toEqual({ nonce_store: 'lmdb', rate_limit_store: 'memory', reachable: true, reason: null });
    expect(findEndpoint('korea', 'health')!.response.safeParse(health).success).toBe(true);
    expect(JSON.stringify(health)).not.toContain(root);
    expect(JSON.stringify(health)).not.toContain(base.SNAPSHOTS_DIR);
    await restarted.stop();
  }, 60_000);

  it('two instances on one NONCE_DB_DIR: one payment sent to both fifty times at once, exactly one 200', async () => {
    const settings = loadSettings({ ...base, NONCE_DB_DIR: join(root, 'nonces-shared') });
    const [a, b] = await Promise.all([startInstance(settings), startInstance(settings)]);
    const paid = payment(settings);
    const statuses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => fetch((i % 2 ? a! : b!).korea.url + PAID_PATH, { headers: paid }).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 402)).toHaveLength(49);
    await a!.stop();
    await b!.stop();
  }, 60_000);
});

const installed = redisInstalled();
if (!installed)
  console.warn('SKIPPED: /usr/bin/redis-server is not installed (apt-get install redis-server); the Redis store wiring is untested');

describe.skipIf(!installed)('Redis stores (REDIS_URL): two proxy instances on one Redis', () => {
  let redis: TestRedis;
  let settings: Settings;
  let a: Instance;
  let b: Instance;
  beforeAll(async () => {
    redis = await startRedis({ appendonly: true }); // as production must run it
    settings = loadSettings({ ...base, REDIS_URL: redis.url });
    [a, b] = await Promise.all([startInstance(settings), startInstance(settings)]);
  }, 60_000);
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await redis?.close();
  });

  it('one payment sent to both instances fifty times at once: exactly one 200, the rest 402 nonce_used', async () => {
    const paid = payment(settings);
    const answers = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const res = await fetch((i % 2 ? a : b).korea.url + PAID_PATH, { headers: paid });
        return { status: res.status, reason: await reasonOf(res) };
      }),
    );
    expect(answers.filter((x) => x.status === 200)).toHaveLength(1);
    expect(answers.filter((x) => x.status === 402 && x.reason === 'nonce_used')).toHaveLength(49);
  }, 60_000);

  it('a restart of either instance never accepts a used payment', async () => {
    const paid = payment(settings);
    expect((await fetch(a.korea.url + PAID_PATH, { headers: paid })).status).toBe(200);
    await a.stop();
    a = await startInstance(settings);
    expect(await reasonOf(await fetch(a.korea.url + PAID_PATH, { headers: paid }))).toBe('nonce_used');
    await b.stop();
    b = await startInstance(settings);
    expect(await reasonOf(await fetch(b.korea.url + PAID_PATH, { headers: paid }))).toBe('nonce_used');
  }, 60_000);

  it('the free tier counts across both instances: 60 per hour per IP in all', async () => {
    for (let i = 0; i < 60; i++) {
      const res = await fetch(`${(i % 2 ? a : b).analytics.url}/api/v1/trends`);
      expect(res.status, `request ${i + 1}`).toBe(200);
    }
    const limited = await fetch(`${a.analytics.url}/api/v1/trends`);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await limited.json()) as { limit: number }).limit).toBe(60);
    expect((await fetch(`${b.analytics.url}/api/v1/trends`)).status).toBe(429);
  }, 60_000);

  it('Redis down: paid endpoints answer 503 (fail closed), free ones 200; Redis back: paid works again without a restart', async () => {
    await redis.stop();
    const down = await fetch(a.korea.url + PAID_PATH, { headers: payment(settings) });
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('5');
    const body = (await down.json()) as { error: string; message: string; data?: unknown };
    expect(body.error).toBe('not_available');
    expect(body.message).toMatch(/nothing was charged or served/);
    expect(JSON.stringify(body)).not.toContain(redis.url);
    expect((await fetch(`${b.korea.url}/api/v1/symbols`)).status).toBe(200);
    expect((await fetch(`${a.analytics.url}/api/v1/trends`)).status).toBe(200); // counted in memory meanwhile
    const health = (await (await fetch(`${a.korea.url}/health`)).json()) as HealthDocument;
    expect(health.stores).toEqual({ nonce_store: 'redis', rate_limit_store: 'redis', reachable: false, reason: 'Redis does not answer' });
    expect(health.problems.join('\n')).toMatch(/paid endpoints answer 503/);

    await redis.start();
    const paid = payment(settings);
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = (await fetch(a.korea.url + PAID_PATH, { headers: paid })).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
    expect(await reasonOf(await fetch(b.korea.url + PAID_PATH, { headers: paid }))).toBe('nonce_used');
  }, 60_000);

  it('a served payment sent again is already used at once; a retry with its payment-identifier gets the kept answer (finding 9)', async () => {
    await servedPaymentIsUsedAtOnce(a.korea.url, settings);
  });

  it('Redis restarted without appendonly: paid endpoints answer 503 and /health says why, free ones 200; with appendonly again, paid works (finding 6)', async () => {
    const used = payment(settings);
    expect((await fetch(a.korea.url + PAID_PATH, { headers: used })).status).toBe(200);
    await redis.stop();
    await redis.start({ appendonly: false }); // it loaded nothing: its append-only file is not read without appendonly
    const answers: number[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await fetch(a.korea.url + PAID_PATH, { headers: payment(settings) });
      answers.push(res.status);
      if (res.status === 503) expect(res.headers.get('retry-after')).toBe('5');
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(answers).not.toContain(200);
    expect((await fetch(a.korea.url + PAID_PATH, { headers: used })).status).not.toBe(200); // forgotten by Redis, still refused
    expect((await fetch(`${b.korea.url}/api/v1/symbols`)).status).toBe(200);
    const health = (await (await fetch(`${a.korea.url}/health`)).json()) as HealthDocument;
    expect(health.stores).toMatchObject({ nonce_store: 'redis', reachable: false, reason: expect.stringMatching(/appendonly no/) });
    expect(health.problems.join('\n')).toMatch(
      /redis nonce store is unavailable \(this Redis runs with appendonly no.*paid endpoints answer 503/,
    );

    await redis.stop();
    await redis.start({ appendonly: true });
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = (await fetch(a.korea.url + PAID_PATH, { headers: payment(settings) })).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
  }, 60_000);

  it('NONCE_STORE_ALLOW_VOLATILE=1: a Redis without appendonly serves paid requests', async () => {
    const volatileRedis = await startRedis({ appendonly: false });
    const volatile = loadSettings({ ...base, REDIS_URL: volatileRedis.url, NONCE_STORE_ALLOW_VOLATILE: '1' });
    const strict = loadSettings({ ...base, REDIS_URL: volatileRedis.url });
    const [allowed, refused] = await Promise.all([startInstance(volatile), startInstance(strict)]);
    try {
      expect((await fetch(allowed.korea.url + PAID_PATH, { headers: payment(volatile) })).status).toBe(200);
      expect((await fetch(refused.korea.url + PAID_PATH, { headers: payment(strict) })).status).toBe(503);
    } finally {
      await allowed.stop();
      await refused.stop();
      await volatileRedis.close();
    }
  }, 60_000);
});
