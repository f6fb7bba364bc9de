/**
 * The nonce store of several proxy instances: Redis (REDIS_URL) through `ioredis`. Why ioredis:
 * maintained, reconnects by itself with backoff, runs Lua scripts by SHA with defineCommand, and
 * rate-limiter-flexible's RateLimiterRedis takes the same client, so one connection serves both.
 *
 * One key per payment, `x402:nonce:<network|asset|from|nonce>`, valued "r" (reserved) or
 * "u<replay>" (used, with the replay answer if any), expiring at validBefore + margin: after that
 * the chain refuses the authorization anyway, so Redis forgets it by itself. The expiry is sent as
 * a time to live (PX, counted from this process's clock) rather than an absolute PXAT, so a Redis
 * host whose clock differs from the proxy's still keeps the key exactly as long as needed.
 *
 * - reserve: one Lua script, atomic on the server: the key's state if it exists, else SET "r".
 *   Of any number of instances sending one payment at once, exactly one gets 'reserved'.
 * - release: deletes the key only if it is still "r" (a used key is never given back).
 * - markUsed: SET "u<replay>" with the same expiry.
 *
 * Fail closed: while Redis is down or slow, every call throws StoreUnavailableError at once (no
 * offline queue, one try per command, a short command timeout) and the paywall answers 503.
 * ioredis keeps reconnecting in the background; once Redis is back, calls work again without a
 * restart.
 */
import { Redis, type RedisOptions } from 'ioredis';
import { nonceKeyText, StoreUnavailableError, type NonceKey, type NonceStore, type ReserveResult } from './nonce-store.ts';

const PREFIX = 'x402:nonce:';

/** KEYS[1] the payment's key; ARGV[1] its time to live in milliseconds. Returns the state before the call ('' = was free, now reserved). */
const RESERVE_LUA = `
local v = redis.call('GET', KEYS[1])
if v then return string.sub(v, 1, 1) end
redis.call('SET', KEYS[1], 'r', 'PX', ARGV[1])
return ''
`;

const RELEASE_LUA = `
if redis.call('GET', KEYS[1]) == 'r' then return redis.call('DEL', KEYS[1]) end
return 0
`;

interface NonceCommands {
  x402Reserve(key: string, ttlMs: number): Promise<string>;
  x402Release(key: string): Promise<number>;
}

/**
 * Client options for a store that must fail fast while Redis is down: no offline queue (a command
 * sent while disconnected fails at once instead of waiting), one attempt per command, a short
 * timeout, and reconnection with a backoff capped at 1 s so service resumes soon after Redis is back.
 */
export const FAIL_FAST_REDIS: RedisOptions = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  commandTimeout: 1000,
  connectTimeout: 2000,
  retryStrategy: (times) => Math.min(100 * times, 1000),
};

/** A Redis client for REDIS_URL with FAIL_FAST_REDIS; connection errors are logged once per outage, never with the URL. */
export function redisClient(url: string): Redis {
  const client = new Redis(url, FAIL_FAST_REDIS);
  let down = false;
  client.on('error', (err: Error) => {
    if (down) return;
    down = true;
    console.error(
      `redis: unavailable (${err.message.replace(/redis(s)?:\/\/\S*/gi, 'redis://…')}); paid endpoints answer 503 until it is back`,
    );
  });
  client.on('ready', () => {
    if (down) console.error('redis: connected again');
    down = false;
  });
  return client;
}

/**
 * Resolves once `redis` is connected, or after `timeoutMs` anyway (never rejects): with no offline
 * queue, commands sent before the first connection fail, so start-up waits for it.
 */
export async function whenReady(redis: Redis, timeoutMs = 3000): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, timeoutMs);
    function done() {
      clearTimeout(timer);
      redis.off('ready', done);
      resolve();
    }
    redis.once('ready', done);
  });
}

export interface RedisNonceStoreOptions {
  /** Seconds kept after validBefore (default 600, as the other stores). */
  marginSeconds?: number;
  /** Clock in unix seconds (tests): the time to live is counted from it. */
  now?: () => number;
}

export class RedisNonceStore implements NonceStore {
  readonly #redis: Redis & NonceCommands;
  readonly #margin: number;
  readonly #now: () => number;

  /** `redis`: a client made with FAIL_FAST_REDIS (redisClient); the caller closes it. */
  constructor(redis: Redis, options: RedisNonceStoreOptions = {}) {
    redis.defineCommand('x402Reserve', { numberOfKeys: 1, lua: RESERVE_LUA });
    redis.defineCommand('x402Release', { numberOfKeys: 1, lua: RELEASE_LUA });
    this.#redis = redis as Redis & NonceCommands;
    this.#margin = options.marginSeconds ?? 600;
    this.#now = options.now ?? (() => Math.floor(Date.now() / 1000));
  }

  async reserve(key: NonceKey, expiresAt: number): Promise<ReserveResult> {
    const before = await this.#call(() => this.#redis.x402Reserve(PREFIX + nonceKeyText(key), this.#ttlMs(expiresAt)));
    return before === '' ? 'reserved' : before === 'u' ? 'used' : 'in_flight';
  }

  async release(key: NonceKey): Promise<void> {
    await this.#call(() => this.#redis.x402Release(PREFIX + nonceKeyText(key)));
  }

  async markUsed(key: NonceKey, expiresAt: number, replay?: string): Promise<void> {
    await this.#call(() => this.#redis.set(PREFIX + nonceKeyText(key), `u${replay ?? ''}`, 'PX', this.#ttlMs(expiresAt)));
  }

  async replayOf(key: NonceKey): Promise<string | null> {
    const value = await this.#call(() => this.#redis.get(PREFIX + nonceKeyText(key)));
    return value?.startsWith('u') && value.length > 1 ? value.slice(1) : null;
  }

  /** Milliseconds until validBefore + margin (at least 1 s: Redis refuses a TTL of 0 or less). */
  #ttlMs(expiresAt: number): number {
    return Math.max(expiresAt + this.#margin - this.#now(), 1) * 1000;
  }

  async #call<T>(op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (err) {
      throw new StoreUnavailableError(`Redis did not answer: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }
}
