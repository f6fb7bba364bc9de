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
 *
 * Persistence: Redis keeps used payments only as long as it keeps its data, and one without an
 * append-only file forgets them all when it restarts (every used payment would buy an answer
 * again). With `requirePersistence` (the server's default; NONCE_STORE_ALLOW_VOLATILE=1 turns it
 * off) the store reads Redis's persistence setting on every (re)connection (redisPersistence) and
 * refuses every call until it reads `appendonly yes`, so a Redis restarted without persistence, or
 * one that was down when the server started, never serves paid requests. proxy/serve.ts refuses to
 * start on the same check.
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

/** Whether Redis keeps its data across a restart, as read from Redis itself. */
export type RedisPersistence =
  | { durable: true; how: string }
  /** `unknown`: Redis refused both ways of asking (CONFIG renamed or disabled, INFO restricted). */
  | { durable: false; unknown: boolean; reason: string };

/**
 * Reads Redis's persistence: CONFIG GET appendonly, and where CONFIG is renamed or disabled (as
 * on managed services) INFO persistence's aof_enabled. RDB snapshots alone do not count: they
 * lose what changed since the last one. Throws only when Redis does not answer at all.
 */
export async function redisPersistence(redis: Redis): Promise<RedisPersistence> {
  const refused: string[] = [];
  try {
    const reply = (await redis.config('GET', 'appendonly')) as unknown;
    const value = Array.isArray(reply) && typeof reply[1] === 'string' ? reply[1] : null;
    if (value === 'yes') return { durable: true, how: 'appendonly yes' };
    if (value !== null) return { durable: false, unknown: false, reason: `this Redis runs with appendonly ${value}` };
    refused.push('CONFIG GET appendonly: no value');
  } catch (err) {
    if (!isReplyError(err)) throw err;
    refused.push(`CONFIG GET appendonly: ${(err as Error).message}`);
  }
  try {
    const aof = /^aof_enabled:(\d+)/m.exec(await redis.info('persistence'))?.[1];
    if (aof === '1') return { durable: true, how: 'aof_enabled:1' };
    if (aof !== undefined)
      return { durable: false, unknown: false, reason: `this Redis runs without an append-only file (aof_enabled:${aof})` };
    refused.push('INFO persistence: no aof_enabled field');
  } catch (err) {
    if (!isReplyError(err)) throw err;
    refused.push(`INFO persistence: ${(err as Error).message}`);
  }
  return { durable: false, unknown: true, reason: `this Redis does not tell its persistence setting (${refused.join('; ')})` };
}

/** An error Redis answered with (unknown command, no permission), as opposed to no answer at all. */
function isReplyError(err: unknown): boolean {
  return err instanceof Error && err.name === 'ReplyError';
}

/** The refusal message for a Redis that may forget used payments: what is wrong and the two ways out. */
export function persistenceRefusal(p: Extract<RedisPersistence, { durable: false }>): string {
  return p.unknown
    ? `REDIS_URL: ${p.reason}, so it cannot be confirmed that used payments survive a Redis restart. ` +
        'If this Redis persists its data (appendonly yes, or a managed service with persistence on), set ' +
        'NONCE_STORE_ALLOW_VOLATILE=1 to run without this check.'
    : `REDIS_URL: ${p.reason}: a Redis restart would forget every used payment and accept it again. ` +
        'Run Redis with appendonly yes (redis-server --appendonly yes, or CONFIG SET appendonly yes then CONFIG REWRITE), ' +
        'or set NONCE_STORE_ALLOW_VOLATILE=1 to run anyway (single use then lasts only as long as Redis keeps running).';
}

export interface RedisNonceStoreOptions {
  /** Seconds kept after validBefore (default 600, as the other stores). */
  marginSeconds?: number;
  /** Clock in unix seconds (tests): the time to live is counted from it. */
  now?: () => number;
  /** Refuse every call until Redis says it persists its data (appendonly yes), checked on every (re)connection. */
  requirePersistence?: boolean;
}

export class RedisNonceStore implements NonceStore {
  readonly #redis: Redis & NonceCommands;
  readonly #margin: number;
  readonly #now: () => number;
  readonly #requirePersistence: boolean;
  /** The persistence read on the current connection; null = not read yet (connecting, or asking). */
  #persistence: RedisPersistence | null = null;
  #checking: Promise<RedisPersistence | null> | null = null;

  /** `redis`: a client made with FAIL_FAST_REDIS (redisClient); the caller closes it. */
  constructor(redis: Redis, options: RedisNonceStoreOptions = {}) {
    redis.defineCommand('x402Reserve', { numberOfKeys: 1, lua: RESERVE_LUA });
    redis.defineCommand('x402Release', { numberOfKeys: 1, lua: RELEASE_LUA });
    this.#redis = redis as Redis & NonceCommands;
    this.#margin = options.marginSeconds ?? 600;
    this.#now = options.now ?? (() => Math.floor(Date.now() / 1000));
    this.#requirePersistence = options.requirePersistence ?? false;
    if (this.#requirePersistence) {
      // a reconnection may reach a Redis restarted with other settings: read them again each time
      redis.on('ready', () => void this.persistence());
      redis.on('close', () => {
        this.#persistence = null;
        this.#checking = null;
      });
      if (redis.status === 'ready') void this.persistence();
    }
  }

  /**
   * Redis's persistence on the current connection, read once per connection (the same answer to
   * every caller); null while Redis does not answer (read again when it connects).
   */
  persistence(): Promise<RedisPersistence | null> {
    if (this.#persistence) return Promise.resolve(this.#persistence);
    if (this.#redis.status !== 'ready') return Promise.resolve(null);
    this.#checking ??= redisPersistence(this.#redis).then(
      (p) => {
        this.#persistence = p;
        if (!p.durable && this.#requirePersistence) console.error(`redis: paid endpoints answer 503: ${persistenceRefusal(p)}`);
        return p;
      },
      () => {
        this.#checking = null; // no answer: asked again by the next call
        return null;
      },
    );
    return this.#checking;
  }

  /** Why the store refuses calls although Redis answers (no persistence, or not read yet); null when it does not. */
  get refusal(): string | null {
    if (!this.#requirePersistence || this.#redis.status !== 'ready') return null;
    const p = this.#persistence;
    if (!p) return "Redis's persistence setting is being read";
    return p.durable
      ? null
      : p.unknown
        ? `${p.reason}; set NONCE_STORE_ALLOW_VOLATILE=1 if it persists its data`
        : `${p.reason}: used payments would be forgotten on its restart`;
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
    if (this.#requirePersistence && !this.#persistence?.durable) {
      const p = this.#persistence ?? (await this.persistence());
      if (!p?.durable) {
        const why = p
          ? p.reason
          : this.#redis.status === 'ready'
            ? "Redis's persistence setting could not be read"
            : 'Redis is not connected';
        throw new StoreUnavailableError(`the Redis nonce store is closed: ${why}`);
      }
    }
    try {
      return await op();
    } catch (err) {
      throw new StoreUnavailableError(`Redis did not answer: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }
}
