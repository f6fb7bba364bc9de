/**
 * The free-tier limiter (rate-limiter-flexible): the decision and headers in memory, and on a real
 * redis-server shared by two limiters (two instances), with the in-memory insurance limiter
 * answering while Redis is down.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryRateLimit, rateLimitedBody, rateLimitHeaders, redisRateLimit } from './rate-limit.ts';
import { redisInstalled, startRedis, type TestRedis } from './testing/redis.ts';
import { redisClient, whenReady } from '../payments/nonce-store-redis.ts';

describe('memory rate limit', () => {
  it('allows N per window per key, then refuses with Retry-After; other keys are counted apart', async () => {
    const limiter = memoryRateLimit(3, 3600);
    const decisions = [];
    for (let i = 0; i < 3; i++) decisions.push(await limiter.hit('analytics:198.51.100.1'));
    expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
    ]);
    const refused = await limiter.hit('analytics:198.51.100.1');
    expect(refused).toMatchObject({ allowed: false, remaining: 0, limit: 3, windowSeconds: 3600 });
    expect(refused.resetSeconds).toBeGreaterThan(3500);
    expect(refused.resetSeconds).toBeLessThanOrEqual(3600);
    const headers = rateLimitHeaders(refused);
    expect(headers).toMatchObject({ 'RateLimit-Limit': '3', 'RateLimit-Remaining': '0', 'RateLimit-Policy': '3;w=3600' });
    expect(headers['Retry-After']).toBe(String(refused.resetSeconds));
    expect(rateLimitHeaders(decisions[0]!)['Retry-After']).toBeUndefined();
    expect(rateLimitedBody(refused)).toMatchObject({ error: 'rate_limited', limit: 3, window_seconds: 3600 });
    expect(rateLimitedBody(refused).message).toMatch(/3 requests per hour per IP address/);
    expect((await limiter.hit('analytics:198.51.100.2')).allowed).toBe(true);
  });
});

const installed = redisInstalled();
if (!installed)
  console.warn('SKIPPED: /usr/bin/redis-server is not installed (apt-get install redis-server); the Redis rate limit is untested');

describe.skipIf(!installed)('Redis rate limit', () => {
  let redis: TestRedis;
  const clients: Redis[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await redis?.close();
  });
  const client = async () => {
    const c = redisClient(redis.url);
    clients.push(c);
    await whenReady(c);
    return c;
  };

  it('two instances share one count; while Redis is down each counts in memory; back on Redis afterwards', async () => {
    const a = redisRateLimit(await client(), 4, 3600);
    const b = redisRateLimit(await client(), 4, 3600);
    const allowed = [];
    for (let i = 0; i < 4; i++) allowed.push((await (i % 2 ? a : b).hit('analytics:203.0.113.5')).allowed);
    expect(allowed).toEqual([true, true, true, true]);
    expect((await a.hit('analytics:203.0.113.5')).allowed).toBe(false);
    expect((await b.hit('analytics:203.0.113.5')).allowed).toBe(false);

    await redis.stop();
    const started = Date.now();
    const meanwhile = await a.hit('analytics:203.0.113.5'); // the insurance limiter has not seen this key yet
    expect(meanwhile).toMatchObject({ allowed: true, remaining: 3 });
    expect(Date.now() - started).toBeLessThan(2000);

    await redis.start(); // empty: the count starts again
    await Promise.all(clients.map((c) => whenReady(c, 5000))); // ioredis reconnects by itself
    expect((await a.hit('analytics:203.0.113.7')).remaining).toBe(3);
    expect((await b.hit('analytics:203.0.113.7')).remaining).toBe(2); // shared on Redis again
  }, 30_000);
});
