/**
 * Issue 27, finding 6: a Redis without persistence forgets used payments when it restarts (the red
 * team's 1,617 of 1,617 accepted again after a kill and restart of `redis-server --appendonly no`).
 * Through the start path a user runs, `node --import tsx proxy/serve.ts` (npm run serve) and
 * scripts/start.ts (npm start), in child processes, on real redis-servers:
 *
 * - appendonly no: the server refuses to start, exit code 1, with a message saying why and how to
 *   fix or override it; NONCE_STORE_ALLOW_VOLATILE=1 starts it with a warning.
 * - appendonly yes: it starts; a payment used before a kill -9 and restart of Redis is refused after it.
 * - CONFIG renamed away (as managed services do): read from INFO persistence instead; CONFIG and
 *   INFO both refused (an ACL): it refuses to start and names NONCE_STORE_ALLOW_VOLATILE=1.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { copyOfSharedDemo } from '../pipelines/testing/shared-demo.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findEndpoint } from '../catalog/index.ts';
import type { Settings } from '../lib/config.ts';
import { servedUrl, startScript, type RunningScript } from '../lib/testing/script.ts';
import { redisInstalled, startRedis, type RedisOptions, type TestRedis } from './testing/redis.ts';
import { freshPaymentHeader } from '../payments/testing/bench-support.ts';
import { payToTable } from '../payments/networks.ts';

const PAID_PATH = '/api/v1/kimchi-premium?symbol=ETH';
let root: string;
let settings: Settings;
const redises: TestRedis[] = [];
const scripts: RunningScript[] = [];

const installed = redisInstalled();
if (!installed)
  console.warn('SKIPPED: /usr/bin/redis-server is not installed (apt-get install redis-server); the Redis persistence check is untested');

beforeAll(async () => {
  if (!installed) return;
  // the korea part of the run's shared demo publish, copied: the servers here start on korea data only
  ({ root, settings } = await copyOfSharedDemo('redis-persistence-test-', { services: ['korea'] }));
}, 240_000);
afterAll(async () => {
  for (const s of scripts) await s.stop();
  for (const r of redises) await r.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

async function redis(options: RedisOptions): Promise<TestRedis> {
  const r = await startRedis(options);
  redises.push(r);
  return r;
}

/** `script` (proxy/serve.ts or scripts/start.ts) as a user starts it, with REDIS_URL and `env`. */
function start(script: string, redisUrl: string, env: Record<string, string> = {}): RunningScript {
  const s = startScript([script], {
    SNAPSHOTS_DIR: settings.snapshotsDir,
    WAREHOUSE_DIR: settings.warehouseDir,
    KEYS_DIR: join(root, 'keys'),
    NONCE_DB_DIR: join(root, 'nonces'),
    KOREA_PORT: '0',
    ANALYTICS_PORT: '0',
    CRYPTO_WORKERS: '0',
    DEMO_REFRESH: 'off',
    REDIS_URL: redisUrl,
    ...env,
  });
  scripts.push(s);
  return s;
}

async function refusal(script: RunningScript): Promise<{ code: number | null; stderr: string }> {
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 60_000));
  const code = await Promise.race([script.exited, timeout]);
  if (code === 'timeout') throw new Error(`still running after 60 s:\n${script.stdout()}\n${script.stderr()}`);
  return { code, stderr: script.stderr() };
}

function payment(): Record<string, string> {
  const header = freshPaymentHeader({ endpoint: findEndpoint('korea', 'kimchi-premium')!, payTo: payToTable(settings), version: 1 });
  return { [header.name]: header.value };
}

describe.skipIf(!installed)('REDIS_URL: the server checks that Redis persists used payments (issue 27, finding 6)', () => {
  it('appendonly no: npm run serve refuses to start (exit 1) and says why and how to fix or override it', async () => {
    const r = await redis({ appendonly: false });
    const { code, stderr } = await refusal(start('proxy/serve.ts', r.url));
    expect(code).toBe(1);
    expect(stderr).toMatch(/REDIS_URL: this Redis runs with appendonly no: a Redis restart would forget every used payment/);
    expect(stderr).toMatch(/appendonly yes/);
    expect(stderr).toMatch(/NONCE_STORE_ALLOW_VOLATILE=1/);
  });

  it('appendonly no with NONCE_STORE_ALLOW_VOLATILE=1: it starts, with a warning', async () => {
    const r = await redis({ appendonly: false });
    const server = start('proxy/serve.ts', r.url, { NONCE_STORE_ALLOW_VOLATILE: '1' });
    const url = await servedUrl(server, 'korea');
    expect((await fetch(url + PAID_PATH, { headers: payment() })).status).toBe(200);
    expect(server.stderr()).toMatch(
      /warning \(NONCE_STORE_ALLOW_VOLATILE=1, running anyway\): REDIS_URL: this Redis runs with appendonly no/,
    );
    expect(await server.stop()).toBe(0);
  });

  it('appendonly yes: it starts, and a payment used before a kill -9 and restart of Redis is refused after it', async () => {
    const r = await redis({ appendonly: true });
    const server = start('proxy/serve.ts', r.url);
    const url = await servedUrl(server, 'korea');
    const used = payment();
    expect((await fetch(url + PAID_PATH, { headers: used })).status).toBe(200);
    await r.kill();
    await r.start();
    let answer: Response | null = null;
    for (let i = 0; i < 50; i++) {
      answer = await fetch(url + PAID_PATH, { headers: used });
      if (answer.status !== 503) break; // 503 while reconnecting
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(answer!.status).toBe(402);
    expect(((await answer!.json()) as { reason: string }).reason).toBe('nonce_used');
    expect((await fetch(url + PAID_PATH, { headers: payment() })).status).toBe(200);
    expect(await server.stop()).toBe(0);
  });

  it('CONFIG renamed away (managed Redis): read from INFO persistence; CONFIG and INFO both refused by an ACL: no start, and the override named', async () => {
    const noConfig = await redis({ appendonly: true, args: ['--rename-command', 'CONFIG', ''] });
    const server = start('proxy/serve.ts', noConfig.url);
    await servedUrl(server, 'korea');
    expect(await server.stop()).toBe(0);

    // the default user may run neither (an ACL, as managed services set up)
    const silent = await redis({ appendonly: true, args: ['--user', 'default', 'on', 'nopass', '~*', '&*', '+@all', '-config', '-info'] });
    const { code, stderr } = await refusal(start('proxy/serve.ts', silent.url));
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /REDIS_URL: this Redis does not tell its persistence setting \(CONFIG GET appendonly: NOPERM.*; INFO persistence: NOPERM/,
    );
    expect(stderr).toMatch(/set NONCE_STORE_ALLOW_VOLATILE=1 to run without this check/);
  });

  it('npm start refuses a Redis without appendonly before it runs the pipelines', async () => {
    const r = await redis({ appendonly: false });
    const npmStart = start('scripts/start.ts', r.url, { SNAPSHOTS_DIR: join(root, 'start-snapshots') });
    const { code, stderr } = await refusal(npmStart);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^REDIS_URL: this Redis runs with appendonly no/m);
    expect(npmStart.stdout()).not.toMatch(/^step\s+rows/m); // no pipeline ran
  });
});
