/**
 * The shared upstream client of every live adapter: one `Upstream` per upstream (x402 discovery,
 * Base RPC, Solana RPC, the korea exchanges...), each with its own timeouts, retry budget and rate
 * limit, and every JSON answer parsed with a zod schema before an adapter sees it.
 *
 * Retries: network errors, HTTP 429 (waiting what Retry-After asks) and 5xx, with exponential
 * backoff and full jitter; any other 4xx is the caller's mistake and is not retried.
 * Messages name the upstream and the URL with secrets removed (RPC URLs often carry API keys).
 */
import { Agent, request } from 'undici';
import pLimit from 'p-limit';
import type { ZodType } from 'zod';
import { describeIssues } from '../../lib/zod-issues.ts';

export type QueryValue = string | number | boolean | null | undefined;
export type Query = Record<string, QueryValue>;

export interface UpstreamOptions {
  /** Shown in every message, e.g. 'x402-discovery', 'base-rpc'. */
  name: string;
  /** Base URL; request paths are appended to it ('' requests the base URL itself). */
  baseUrl: string;
  /** Connect, headers and body timeout, each (ms). Default 15 000. */
  timeoutMs?: number;
  /** Retries after the first attempt. Default 4. */
  retries?: number;
  /** Requests in flight at once. Default 4. */
  concurrency?: number;
  /** Minimum time between the starts of two requests (ms). Default 0. */
  minIntervalMs?: number;
  /** First backoff ceiling (ms); doubles per retry up to `backoffMaxMs`. Default 500. */
  backoffBaseMs?: number;
  /** Default 20 000. */
  backoffMaxMs?: number;
  /** A Retry-After longer than this fails the request instead of stalling the run. Default 120 000. */
  maxRetryAfterMs?: number;
  /** Extra headers (e.g. an API key header); never included in messages. */
  headers?: Record<string, string>;
  /** A body larger than this fails the request instead of filling memory. Default: no limit. */
  maxBodyBytes?: number;
  /** Injectable for tests: how to wait, what time it is, the jitter source in [0, 1). */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  random?: () => number;
}

export interface UpstreamStats {
  /** HTTP attempts made, retries included. */
  requests: number;
  retries: number;
}

export interface Upstream {
  readonly name: string;
  /** The base URL with secrets removed, for messages. */
  readonly shownBaseUrl: string;
  getJson<T>(path: string, query: Query, schema: ZodType<T>): Promise<T>;
  postJson<T>(path: string, body: unknown, schema: ZodType<T>): Promise<T>;
  /** The body as text (CSV, JavaScript literals...), with the same retries, pacing and messages. */
  getText(path: string, query: Query): Promise<string>;
  /**
   * The raw body of an absolute URL (not under the base URL) with its Content-Type, for bodies
   * whose charset is not known before they are read (Korean feeds in EUC-KR); same retries,
   * pacing and messages.
   */
  getBytes(url: string, accept: string): Promise<{ bytes: Buffer; contentType: string | null; shown: string }>;
  /** Parses a value with a schema, failing with this upstream's name, the URL and the field. */
  parse<T>(schema: ZodType<T>, value: unknown, where: string): T;
  /** Backoff for retry number `attempt` (0-based), with full jitter. */
  retryDelayMs(attempt: number): number;
  readonly retries: number;
  sleep(ms: number): Promise<void>;
  stats(): UpstreamStats;
  close(): Promise<void>;
}

/** Any failure talking to an upstream; the message is safe to log (no secrets). */
/** The first line of an error's message: what a run's notes and ingest_failures record of it. */
export function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]!;
}

export class UpstreamError extends Error {
  constructor(
    readonly upstream: string,
    /** Redacted URL. */
    readonly url: string,
    message: string,
    readonly status: number | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'UpstreamError';
  }
}

const SECRET_KEY = /key|token|secret|auth|sig|pass|cred|session|jwt/i;

/** A path segment or value that looks like an API key: long, and not a plain word or number. */
function looksLikeKey(value: string): boolean {
  if (value.length < 16) return false;
  if (/^[0-9a-fA-F]{24,}$/.test(value)) return true;
  return /^[A-Za-z0-9_\-.~=+]+$/.test(value) && /[0-9]/.test(value) && /[A-Za-z]/.test(value);
}

/** The URL with credentials, key-like path segments and secret query values replaced. */
export function redactUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return '<unparseable url>';
  }
  const origin = `${url.protocol}//${url.host}`; // drops user:password@
  const path = url.pathname
    .split('/')
    .map((seg) => (looksLikeKey(decodeURIComponent(seg)) ? '<redacted>' : seg))
    .join('/');
  const params = [...url.searchParams].map(([k, v]) => (SECRET_KEY.test(k) || looksLikeKey(v) ? `${k}=<redacted>` : `${k}=${v}`));
  return origin + path + (params.length ? `?${params.join('&')}` : '');
}

function joinUrl(baseUrl: string, path: string, query: Query = {}): string {
  const base = new URL(baseUrl);
  if (path) {
    // Append to the base path (new URL(path, base) would drop a base path like /platform/v2/x402).
    base.pathname = base.pathname.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`);
  }
  for (const [k, v] of Object.entries(query)) {
    if (v !== undefined && v !== null) base.searchParams.set(k, String(v));
  }
  return base.toString();
}

function retryAfterMs(header: string | string[] | undefined, now: number): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return null;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - now) : null;
}

function excerpt(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

type Attempt =
  | { kind: 'response'; status: number; headers: Record<string, string | string[] | undefined>; bytes: Buffer }
  | { kind: 'network'; error: unknown };

class BodyTooLarge extends Error {}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createUpstream(options: UpstreamOptions): Upstream {
  const {
    name,
    timeoutMs = 15_000,
    retries = 4,
    concurrency = 4,
    minIntervalMs = 0,
    backoffBaseMs = 500,
    backoffMaxMs = 20_000,
    maxRetryAfterMs = 120_000,
    maxBodyBytes = Infinity,
    sleep = realSleep,
    now = Date.now,
    random = Math.random,
  } = options;
  try {
    new URL(options.baseUrl);
  } catch {
    throw new UpstreamError(name, redactUrl(options.baseUrl), `${name}: base URL is not a valid absolute URL`);
  }
  const agent = new Agent({ connect: { timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const limit = pLimit(concurrency);
  const counters: UpstreamStats = { requests: 0, retries: 0 };
  let nextStart = 0;

  async function paced(): Promise<void> {
    if (minIntervalMs <= 0) return;
    const t = now();
    const startAt = Math.max(t, nextStart);
    nextStart = startAt + minIntervalMs;
    if (startAt > t) await sleep(startAt - t);
  }

  async function attemptOnce(method: 'GET' | 'POST', url: string, body: string | undefined, accept: string): Promise<Attempt> {
    await paced();
    counters.requests++;
    try {
      const res = await request(url, {
        method,
        dispatcher: agent,
        headers: {
          accept,
          'user-agent': 'kr-x402-data-services (live source)',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...options.headers,
        },
        body,
      });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > maxBodyBytes) {
          res.body.destroy();
          throw new BodyTooLarge(`body larger than ${maxBodyBytes} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
      return { kind: 'response', status: res.statusCode, headers: res.headers, bytes: Buffer.concat(chunks) };
    } catch (error) {
      if (error instanceof BodyTooLarge) throw error;
      return { kind: 'network', error };
    }
  }

  function retryDelayMs(attempt: number): number {
    const ceiling = Math.min(backoffMaxMs, backoffBaseMs * 2 ** attempt);
    return Math.floor(random() * ceiling);
  }

  async function send(
    method: 'GET' | 'POST',
    url: string,
    body: string | undefined,
    accept = 'application/json',
  ): Promise<{ bytes: Buffer; headers: Record<string, string | string[] | undefined>; shown: string }> {
    const shown = redactUrl(url);
    for (let attempt = 0; ; attempt++) {
      let outcome: Attempt;
      try {
        outcome = await limit(() => attemptOnce(method, url, body, accept));
      } catch (err) {
        throw new UpstreamError(name, shown, `${name}: ${method} ${shown} failed: ${(err as Error).message}`);
      }
      let problem: string;
      let status: number | null = null;
      let wait: number | null = null;
      if (outcome.kind === 'network') {
        const err = outcome.error as { code?: string; message?: string };
        problem = `network error ${err.code ?? ''} ${err.message ?? String(outcome.error)}`.replace(/\s+/g, ' ');
      } else {
        status = outcome.status;
        if (status >= 200 && status < 300) return { bytes: outcome.bytes, headers: outcome.headers, shown };
        problem = `HTTP ${status}: ${excerpt(outcome.bytes.subarray(0, 2000).toString('utf8'))}`;
        const retryable = status === 429 || status >= 500;
        if (!retryable) throw new UpstreamError(name, shown, `${name}: ${method} ${shown} failed with ${problem}`, status);
        wait = retryAfterMs(outcome.headers['retry-after'], now());
        if (wait !== null && wait > maxRetryAfterMs) {
          throw new UpstreamError(
            name,
            shown,
            `${name}: ${method} ${shown} asked to retry after ${Math.round(wait / 1000)}s (more than the ${Math.round(maxRetryAfterMs / 1000)}s allowed): ${problem}`,
            status,
          );
        }
      }
      if (attempt >= retries) {
        throw new UpstreamError(
          name,
          shown,
          `${name}: ${method} ${shown} failed after ${attempt + 1} attempt${attempt === 0 ? '' : 's'}: ${problem}`,
          status,
          outcome.kind === 'network' ? { cause: outcome.error } : undefined,
        );
      }
      counters.retries++;
      // Retry-After is the upstream's own word; otherwise full jitter spreads retries apart.
      await sleep(wait ?? retryDelayMs(attempt));
    }
  }

  function parse<T>(schema: ZodType<T>, value: unknown, where: string): T {
    const result = schema.safeParse(value);
    if (result.success) return result.data;
    throw new UpstreamError(name, where, `${name}: unexpected response from ${where}: ${describeIssues(result.error.issues)}`);
  }

  function decode<T>(text: string, shown: string, method: string, schema: ZodType<T>): T {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new UpstreamError(name, shown, `${name}: ${method} ${shown} returned a body that is not JSON: ${excerpt(text)}`);
    }
    return parse(schema, json, `${method} ${shown}`);
  }

  return {
    name,
    shownBaseUrl: redactUrl(options.baseUrl),
    retries,
    async getJson(path, query, schema) {
      const { bytes, shown } = await send('GET', joinUrl(options.baseUrl, path, query), undefined);
      return decode(bytes.toString('utf8'), shown, 'GET', schema);
    },
    async postJson(path, body, schema) {
      const { bytes, shown } = await send('POST', joinUrl(options.baseUrl, path), JSON.stringify(body));
      return decode(bytes.toString('utf8'), shown, 'POST', schema);
    },
    async getText(path, query) {
      const { bytes } = await send('GET', joinUrl(options.baseUrl, path, query), undefined, 'text/plain, text/csv, */*');
      return bytes.toString('utf8');
    },
    async getBytes(url, accept) {
      const { bytes, headers, shown } = await send('GET', url, undefined, accept);
      const type = headers['content-type'];
      return { bytes, contentType: (Array.isArray(type) ? type[0] : type) ?? null, shown };
    },
    parse,
    retryDelayMs,
    sleep,
    stats: () => ({ ...counters }),
    close: () => agent.close(),
  };
}

/**
 * Runs `work` with a fresh client for `options`, then logs its request count (and hands it to
 * `charge`, e.g. a run's request budget) and closes it, whether the work succeeded or not.
 */
export async function withUpstream<T>(
  options: UpstreamOptions,
  log: (message: string) => void,
  work: (upstream: Upstream) => Promise<T>,
  charge?: (upstream: string, requests: number) => void,
): Promise<T> {
  const upstream = createUpstream(options);
  try {
    return await work(upstream);
  } finally {
    const { requests, retries } = upstream.stats();
    charge?.(upstream.name, requests);
    log(`${upstream.name}: ${requests} request${requests === 1 ? '' : 's'}${retries ? ` (${retries} retries)` : ''}`);
    await upstream.close();
  }
}
