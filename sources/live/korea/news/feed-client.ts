/**
 * Fetches feed bodies as bytes. The shared client (../../http.ts) reads every body as UTF-8 text,
 * which destroys EUC-KR feeds before their charset is known, so feeds come through this small
 * byte client instead; it keeps the shared client's policy: per-phase timeouts, retries on network
 * errors, 429 (honouring Retry-After) and 5xx with full-jitter backoff, no retry on other 4xx,
 * p-limit concurrency, redacted URLs in every message, and a request counter.
 */
import { Agent, request } from 'undici';
import pLimit from 'p-limit';
import { redactUrl, UpstreamError, type UpstreamOptions, type UpstreamStats } from '../../http.ts';

export type FeedClientOptions = Pick<
  UpstreamOptions,
  'name' | 'timeoutMs' | 'retries' | 'concurrency' | 'backoffBaseMs' | 'backoffMaxMs' | 'maxRetryAfterMs' | 'headers' | 'sleep' | 'now' | 'random'
> & {
  /** A body larger than this fails the fetch (a feed is tens of kB; this is not one). Default 5 MB. */
  maxBytes?: number;
};

export interface FeedBody {
  bytes: Buffer;
  /** The Content-Type header, or null. */
  contentType: string | null;
  /** The redacted URL, for messages. */
  shown: string;
}

export interface FeedClient {
  readonly name: string;
  /** GETs `url`; failures are UpstreamErrors whose message starts with `label` (e.g. news:starnews). */
  getBytes(url: string, label: string): Promise<FeedBody>;
  stats(): UpstreamStats;
  close(): Promise<void>;
}

const ACCEPT = 'application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5';

class BodyTooLarge extends Error {}

type Attempt =
  | { kind: 'response'; status: number; headers: Record<string, string | string[] | undefined>; bytes: Buffer }
  | { kind: 'network'; error: unknown };

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function header(headers: Record<string, string | string[] | undefined>, name: string): string | null {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

function retryAfterMs(value: string | null, now: number): number | null {
  if (!value) return null;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - now) : null;
}

function excerpt(bytes: Buffer, max = 200): string {
  const flat = bytes.subarray(0, max * 4).toString('utf8').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

export function createFeedClient(options: FeedClientOptions): FeedClient {
  const {
    name,
    timeoutMs = 15_000,
    retries = 4,
    concurrency = 4,
    backoffBaseMs = 500,
    backoffMaxMs = 20_000,
    maxRetryAfterMs = 120_000,
    sleep = realSleep,
    now = Date.now,
    random = Math.random,
    maxBytes = 5_000_000,
  } = options;
  const agent = new Agent({ connect: { timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const limit = pLimit(concurrency);
  const counters: UpstreamStats = { requests: 0, retries: 0 };

  async function attemptOnce(url: string): Promise<Attempt> {
    counters.requests++;
    try {
      const res = await request(url, {
        method: 'GET',
        dispatcher: agent,
        headers: { accept: ACCEPT, 'user-agent': 'kr-x402-data-services (live source)', ...options.headers },
      });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > maxBytes) {
          res.body.destroy();
          throw new BodyTooLarge(`body larger than ${maxBytes} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
      return { kind: 'response', status: res.statusCode, headers: res.headers, bytes: Buffer.concat(chunks) };
    } catch (error) {
      if (error instanceof BodyTooLarge) throw error;
      return { kind: 'network', error };
    }
  }

  async function getBytes(url: string, label: string): Promise<FeedBody> {
    const shown = redactUrl(url);
    for (let attempt = 0; ; attempt++) {
      let outcome: Attempt;
      try {
        outcome = await limit(() => attemptOnce(url));
      } catch (err) {
        throw new UpstreamError(name, shown, `${label}: GET ${shown} failed: ${(err as Error).message}`);
      }
      let problem: string;
      let status: number | null = null;
      let wait: number | null = null;
      if (outcome.kind === 'network') {
        const err = outcome.error as { code?: string; message?: string };
        problem = `network error ${err.code ?? ''} ${err.message ?? String(outcome.error)}`.replace(/\s+/g, ' ');
      } else {
        status = outcome.status;
        if (status >= 200 && status < 300) return { bytes: outcome.bytes, contentType: header(outcome.headers, 'content-type'), shown };
        problem = `HTTP ${status}: ${excerpt(outcome.bytes)}`;
        if (status !== 429 && status < 500) throw new UpstreamError(name, shown, `${label}: GET ${shown} failed with ${problem}`, status);
        wait = retryAfterMs(header(outcome.headers, 'retry-after'), now());
        if (wait !== null && wait > maxRetryAfterMs) {
          throw new UpstreamError(
            name,
            shown,
            `${label}: GET ${shown} asked to retry after ${Math.round(wait / 1000)}s (more than the ${Math.round(maxRetryAfterMs / 1000)}s allowed): ${problem}`,
            status,
          );
        }
      }
      if (attempt >= retries) {
        throw new UpstreamError(name, shown, `${label}: GET ${shown} failed after ${attempt + 1} attempt${attempt === 0 ? '' : 's'}: ${problem}`, status);
      }
      counters.retries++;
      await sleep(wait ?? Math.floor(random() * Math.min(backoffMaxMs, backoffBaseMs * 2 ** attempt)));
    }
  }

  return {
    name,
    getBytes,
    stats: () => ({ ...counters }),
    close: () => agent.close(),
  };
}
