/**
 * The free tier's limit: N requests per window per client IP (analytics: 60 per hour), counted by
 * rate-limiter-flexible (a maintained limiter with the same API over memory and Redis): a fixed
 * window per key that opens with the key's first request. The headers follow the IETF RateLimit
 * fields draft (`RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` in seconds) plus
 * `Retry-After` on a 429.
 *
 * In memory by default (RateLimiterMemory: each key is dropped when its window ends, so memory
 * follows the addresses seen in the last window). With REDIS_URL (proxy/stores.ts) the count lives
 * in Redis (RateLimiterRedis), so every proxy instance counts against one limit; while Redis is
 * down an in-memory insurance limiter per instance takes over, so free endpoints keep answering.
 */
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

/** The analytics free tier: 60 requests per hour per IP address (FREE_TIER_LIMIT changes the 60). */
export const FREE_TIER = { limit: 60, windowSeconds: 3600 } as const;

/** The free-tier limiter in this process for `limit` calls per hour (FREE_TIER_LIMIT); null when 0 = no limit. */
export function freeTierMemoryLimit(limit: number): RateLimitStore | null {
  return limit === 0 ? null : memoryRateLimit(limit, FREE_TIER.windowSeconds);
}

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window ends and the count starts again. */
  resetSeconds: number;
  windowSeconds: number;
}

export interface RateLimitStore {
  /** Counts one request for `key` and says whether it is within the limit. */
  hit(key: string): Promise<RateLimitDecision>;
}

/** A RateLimitStore over any rate-limiter-flexible limiter (one point per request). */
export class FlexibleRateLimitStore implements RateLimitStore {
  #warned = false;

  constructor(
    private readonly limiter: RateLimiterAbstract,
    readonly limit: number,
    readonly windowSeconds: number,
  ) {}

  async hit(key: string): Promise<RateLimitDecision> {
    const base = { limit: this.limit, windowSeconds: this.windowSeconds };
    try {
      const res = await this.limiter.consume(key, 1);
      return {
        ...base,
        allowed: true,
        remaining: Math.max(0, res.remainingPoints),
        resetSeconds: Math.max(0, Math.ceil(res.msBeforeNext / 1000)),
      };
    } catch (err) {
      if (err instanceof RateLimiterRes) {
        return { ...base, allowed: false, remaining: 0, resetSeconds: Math.max(1, Math.ceil(err.msBeforeNext / 1000)) };
      }
      // The store failed and no insurance limiter answered: a free endpoint keeps answering, uncounted.
      if (!this.#warned) console.error(`rate limit: not counted (${err instanceof Error ? err.message : String(err)})`);
      this.#warned = true;
      return { ...base, allowed: true, remaining: this.limit, resetSeconds: this.windowSeconds };
    }
  }
}

/** N requests per window per key in this process. */
export function memoryRateLimit(limit: number, windowSeconds: number): FlexibleRateLimitStore {
  return new FlexibleRateLimitStore(
    new RateLimiterMemory({ points: limit, duration: windowSeconds, keyPrefix: 'free' }),
    limit,
    windowSeconds,
  );
}

/**
 * N requests per window per key, counted in Redis and so shared by every instance on it; while
 * Redis does not answer, each instance counts in memory instead (the insurance limiter), so a free
 * endpoint never fails because Redis is down. `redis` should fail fast (FAIL_FAST_REDIS).
 */
export function redisRateLimit(redis: Redis, limit: number, windowSeconds: number): FlexibleRateLimitStore {
  const limiter = new RateLimiterRedis({
    storeClient: redis,
    points: limit,
    duration: windowSeconds,
    keyPrefix: 'x402:free',
    rejectIfRedisNotReady: true,
    insuranceLimiter: new RateLimiterMemory({ points: limit, duration: windowSeconds, keyPrefix: 'free' }),
  });
  return new FlexibleRateLimitStore(limiter, limit, windowSeconds);
}

export function rateLimitHeaders(d: RateLimitDecision): Record<string, string> {
  const headers: Record<string, string> = {
    'RateLimit-Limit': String(d.limit),
    'RateLimit-Remaining': String(d.remaining),
    'RateLimit-Reset': String(d.resetSeconds),
    'RateLimit-Policy': `${d.limit};w=${d.windowSeconds}`,
  };
  if (!d.allowed) headers['Retry-After'] = String(d.resetSeconds);
  return headers;
}

export function rateLimitedBody(d: RateLimitDecision) {
  return {
    error: 'rate_limited' as const,
    message: `The free tier allows ${d.limit} requests per ${d.windowSeconds / 3600 === 1 ? 'hour' : `${d.windowSeconds} seconds`} per IP address; try again in ${d.resetSeconds} s. Paid endpoints have no per-address limit.`,
    limit: d.limit,
    window_seconds: d.windowSeconds,
    retry_after_seconds: d.resetSeconds,
  };
}

/**
 * The client's IP: the socket's remote address, or, only when the operator says a trusted proxy
 * sits in front (TRUST_PROXY), the address that proxy appended last to X-Forwarded-For (the
 * right-most entry; earlier entries are whatever the client claimed).
 */
export function clientIp(socketAddress: string | undefined, forwardedFor: string | undefined, trustProxy: boolean): string {
  if (trustProxy && forwardedFor) {
    const parts = forwardedFor
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean);
    const last = parts[parts.length - 1];
    if (last) return last;
  }
  return socketAddress ?? 'unknown';
}
