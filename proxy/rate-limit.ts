/**
 * The free tier's limit: N requests per window per client IP (analytics: 60 per hour), a sliding
 * log per key so a burst at the end of one hour and the start of the next is still held to N.
 * The headers follow the IETF RateLimit fields draft (`RateLimit-Limit`, `RateLimit-Remaining`,
 * `RateLimit-Reset` in seconds) plus `Retry-After` on a 429.
 *
 * The store sits behind an interface: in-process by default; several proxy instances would share
 * one (Redis, PostgreSQL) by implementing `RateLimitStore`.
 */

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until a slot frees up (the oldest counted request leaves the window). */
  resetSeconds: number;
  windowSeconds: number;
}

export interface RateLimitStore {
  /** Counts one request for `key` at `nowMs` if allowed, and says whether it was. */
  hit(key: string, nowMs: number): RateLimitDecision;
}

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly hits = new Map<string, number[]>();
  private lastSweep = 0;

  constructor(
    readonly limit: number,
    readonly windowSeconds: number,
    /** Bound on tracked keys, so a flood of spoofed addresses cannot grow memory without end. */
    readonly maxKeys = 100_000,
  ) {}

  hit(key: string, nowMs: number): RateLimitDecision {
    const windowMs = this.windowSeconds * 1000;
    this.sweep(nowMs, windowMs);
    let log = this.hits.get(key);
    if (log) {
      let drop = 0;
      while (drop < log.length && log[drop]! <= nowMs - windowMs) drop++;
      if (drop > 0) log.splice(0, drop);
    } else {
      if (this.hits.size >= this.maxKeys) {
        // forget the oldest-inserted key (Map keeps insertion order)
        const oldest = this.hits.keys().next().value;
        if (oldest !== undefined) this.hits.delete(oldest);
      }
      log = [];
      this.hits.set(key, log);
    }
    const allowed = log.length < this.limit;
    if (allowed) log.push(nowMs);
    const oldest = log[0];
    const resetSeconds = oldest === undefined ? 0 : Math.max(0, Math.ceil((oldest + windowMs - nowMs) / 1000));
    return {
      allowed,
      limit: this.limit,
      remaining: Math.max(0, this.limit - log.length),
      resetSeconds: allowed && log.length < this.limit ? resetSeconds : Math.max(1, resetSeconds),
      windowSeconds: this.windowSeconds,
    };
  }

  private sweep(nowMs: number, windowMs: number): void {
    if (nowMs - this.lastSweep < 60_000) return;
    this.lastSweep = nowMs;
    for (const [key, log] of this.hits) {
      if (log.length === 0 || log[log.length - 1]! <= nowMs - windowMs) this.hits.delete(key);
    }
  }
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
