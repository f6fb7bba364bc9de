/**
 * Where single use and the free-tier count are kept, chosen from the settings in one place
 * (proxy/serve.ts processParts):
 *
 *   REDIS_URL unset → nonces in LMDB at NONCE_DB_DIR (x402/nonce-store-lmdb.ts), free-tier count
 *                     in memory. A restart or crash never forgets a used payment, and several
 *                     processes on one machine share the directory.
 *   REDIS_URL set   → nonces in Redis (x402/nonce-store-redis.ts) and the free-tier count in the
 *                     same Redis (rate-limiter-flexible RateLimiterRedis, memory as insurance), so
 *                     instances on several machines share both. One client serves both.
 *
 * memoryStores() keeps both in process memory: tests and the bench's baseline, never production.
 *
 * Either store can become unusable while the server runs (a full or read-only disk, Redis down or
 * restarted without persistence): paid endpoints then answer 503, free ones keep answering, and
 * health() says why; both come back by themselves, without a restart.
 */
import type { Redis } from 'ioredis';
import type { Settings } from '../lib/config.ts';
import type { StoreHealth } from './health.ts';
import { FREE_TIER, freeTierMemoryLimit, memoryRateLimit, redisRateLimit, type RateLimitStore } from './rate-limit.ts';
import { LmdbNonceStore } from '../payments/nonce-store-lmdb.ts';
import { persistenceRefusal, redisClient, RedisNonceStore, whenReady } from '../payments/nonce-store-redis.ts';
import { MemoryNonceStore, type NonceStore } from '../payments/nonce-store.ts';

export interface Stores {
  nonceStore: NonceStore;
  /** The free-tier limiter; null when FREE_TIER_LIMIT=0 (no limit). */
  rateLimit: RateLimitStore | null;
  /** Kind, reachability and why not, right now (synchronous: the store's last known state, no round trip). */
  health(): StoreHealth;
  /**
   * Why a restart of the store could forget used payments (Redis without appendonly; the refusal
   * message, saying how to fix or override it), or null: durable, or not known yet (Redis not
   * reachable: its store stays closed until it connects and says it persists). Asked once, at start.
   */
  volatility(): Promise<string | null>;
  /** Resolves once the store can answer (Redis connected), or after `timeoutMs` anyway: a store still down answers 503 per request. */
  ready(timeoutMs?: number): Promise<void>;
  /** Closes the database / connection; call once, at shutdown. */
  close(): Promise<void>;
}

export interface StoreOptions {
  /** Clock of the nonce stores (tests with a fixed clock); the rate limiter always uses the real one. */
  now?: () => Date;
}

const secondsOf = (now: () => Date) => () => Math.floor(now().getTime() / 1000);

/** The stores the settings ask for: Redis with REDIS_URL, else LMDB in NONCE_DB_DIR. */
export function buildStores(
  settings: Pick<Settings, 'nonceDbDir' | 'redisUrl' | 'freeTierLimit' | 'nonceStoreAllowVolatile'>,
  options: StoreOptions = {},
): Stores {
  const clock = options.now ? { now: secondsOf(options.now) } : {};
  if (settings.redisUrl) {
    const redis = redisClient(settings.redisUrl.reveal());
    return redisStores(redis, { ...clock, requirePersistence: !settings.nonceStoreAllowVolatile }, settings.freeTierLimit);
  }
  const nonceStore = new LmdbNonceStore(settings.nonceDbDir, clock);
  return {
    nonceStore,
    rateLimit: freeTierMemoryLimit(settings.freeTierLimit),
    health: () => {
      const fault = nonceStore.fault;
      return { nonce_store: 'lmdb', rate_limit_store: 'memory', reachable: fault === null, reason: fault };
    },
    volatility: async () => null,
    ready: async () => {},
    close: () => nonceStore.close(),
  };
}

function redisStores(redis: Redis, options: { now?: () => number; requirePersistence: boolean }, freeTierLimit: number): Stores {
  const nonceStore = new RedisNonceStore(redis, options);
  return {
    nonceStore,
    rateLimit: freeTierLimit === 0 ? null : redisRateLimit(redis, freeTierLimit, FREE_TIER.windowSeconds),
    health: () => {
      const reason = redis.status === 'ready' ? nonceStore.refusal : 'Redis does not answer';
      return { nonce_store: 'redis', rate_limit_store: 'redis', reachable: reason === null, reason };
    },
    volatility: async () => {
      const p = await nonceStore.persistence();
      return p && !p.durable ? persistenceRefusal(p) : null;
    },
    ready: (timeoutMs) => whenReady(redis, timeoutMs),
    close: async () => {
      redis.disconnect(false);
    },
  };
}

/** Both stores in this process's memory: forgotten on restart, not shared. Tests and the bench baseline only. */
export function memoryStores(options: StoreOptions = {}): Stores {
  return {
    nonceStore: new MemoryNonceStore(options.now ? { now: secondsOf(options.now) } : {}),
    rateLimit: memoryRateLimit(FREE_TIER.limit, FREE_TIER.windowSeconds),
    health: () => ({ nonce_store: 'memory', rate_limit_store: 'memory', reachable: true, reason: null }),
    volatility: async () => null,
    ready: async () => {},
    close: async () => {},
  };
}
