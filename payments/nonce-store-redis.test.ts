/**
 * The Redis nonce store (REDIS_URL) on a real redis-server: the NonceStore contract, two clients
 * racing for one key, fail-fast StoreUnavailableError while Redis is down and recovery without a
 * new client once it is back.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisInstalled, startRedis, type TestRedis } from '../proxy/testing/redis.ts';
import { StoreUnavailableError, type NonceKey } from './nonce-store.ts';
import { redisClient, RedisNonceStore, whenReady } from './nonce-store-redis.ts';

const installed = redisInstalled();
if (!installed)
  console.warn('SKIPPED: /usr/bin/redis-server is not installed (apt-get install redis-server); the Redis nonce store is untested');

const key = (nonce: string): NonceKey => ({
  network: 'eip155:8453',
  asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  from: '0xAbC0000000000000000000000000000000000001',
  nonce,
});

describe.skipIf(!installed)('RedisNonceStore', () => {
  let redis: TestRedis;
  const clients: Redis[] = [];
  const client = async () => {
    const c = redisClient(redis.url);
    clients.push(c);
    await whenReady(c);
    return c;
  };
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await redis?.close();
  });

  it('reserve → in_flight → release → reservable; markUsed keeps it used with its replay; keys expire at validBefore + margin', async () => {
    const store = new RedisNonceStore(await client(), { now: () => 1000, marginSeconds: 600 });
    const k = key('0x01');
    expect(await store.reserve(k, 1300)).toBe('reserved');
    expect(await store.reserve(k, 1300)).toBe('in_flight');
    await store.release(k);
    expect(await store.reserve(k, 1300)).toBe('reserved');
    await store.markUsed(k, 1300, '{"answer":1}');
    await store.release(k); // a used key is never given back
    expect(await store.reserve({ ...k, from: k.from.toLowerCase() }, 1300)).toBe('used');
    expect(await store.replayOf(k)).toBe('{"answer":1}');
    expect(await store.replayOf(key('0x02'))).toBeNull();
    const c = await client();
    const ttl = await c.pttl(
      'x402:nonce:eip155:8453|0x833589fcd6edb6e08f4c7c32d4f71b54bda02913|0xabc0000000000000000000000000000000000001|0x01',
    );
    expect(ttl).toBeGreaterThan(899_000); // 1300 + 600 - 1000 seconds
    expect(ttl).toBeLessThanOrEqual(900_000);
  });

  it('two clients (two instances) racing for one key fifty times: exactly one reserved', async () => {
    const a = new RedisNonceStore(await client());
    const b = new RedisNonceStore(await client());
    const expiresAt = Math.floor(Date.now() / 1000) + 300;
    const k = key('0x03');
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).reserve(k, expiresAt)));
    expect(results.filter((r) => r === 'reserved')).toHaveLength(1);
    expect(results.filter((r) => r === 'in_flight')).toHaveLength(49);
  });

  it('Redis down: every call fails fast with StoreUnavailableError; Redis back: the same store works again', async () => {
    const store = new RedisNonceStore(await client());
    const expiresAt = Math.floor(Date.now() / 1000) + 300;
    expect(await store.reserve(key('0x04'), expiresAt)).toBe('reserved');
    await redis.stop();
    const started = Date.now();
    await expect(store.reserve(key('0x05'), expiresAt)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.markUsed(key('0x04'), expiresAt)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.release(key('0x04'))).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(Date.now() - started).toBeLessThan(3000);
    await redis.start();
    let result: string | null = null;
    for (let i = 0; i < 100 && result === null; i++) {
      result = await store.reserve(key('0x05'), expiresAt).catch(() => null);
      if (result === null) await new Promise((r) => setTimeout(r, 100));
    }
    expect(result).toBe('reserved');
  }, 30_000);
});
