/**
 * A text-body client for the two upstreams that do not answer JSON: FRED's CSV and Naver's
 * JavaScript-literal arrays. The shared client (../http.ts) decodes every body as JSON, so this
 * one keeps its policy and its messages, and only returns the text: retries on network errors,
 * 429 (honouring Retry-After) and 5xx with full-jitter backoff, no retry on other 4xx, pacing
 * between request starts, counters for the run's request budget.
 */
import { Agent, request } from 'undici';
import { redactUrl, UpstreamError, type Query, type UpstreamOptions, type UpstreamStats } from '../http.ts';

export interface TextUpstream {
  readonly name: string;
  getText(path: string, query: Query): Promise<string>;
  stats(): UpstreamStats;
  close(): Promise<void>;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function urlOf(baseUrl: string, path: string, query: Query): string {
  const url = new URL(baseUrl);
  url.pathname = url.pathname.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`);
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
  return url.toString();
}

function retryAfterMs(header: string | string[] | undefined, now: number): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return null;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - now) : null;
}

const excerpt = (text: string) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
};

export function createTextUpstream(options: UpstreamOptions): TextUpstream {
  const {
    name,
    timeoutMs = 15_000,
    retries = 4,
    minIntervalMs = 0,
    backoffBaseMs = 500,
    backoffMaxMs = 20_000,
    maxRetryAfterMs = 120_000,
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
  const counters: UpstreamStats = { requests: 0, retries: 0 };
  let nextStart = 0;

  async function paced(): Promise<void> {
    if (minIntervalMs <= 0) return;
    const t = now();
    const startAt = Math.max(t, nextStart);
    nextStart = startAt + minIntervalMs;
    if (startAt > t) await sleep(startAt - t);
  }

  return {
    name,
    async getText(path, query) {
      const url = urlOf(options.baseUrl, path, query);
      const shown = redactUrl(url);
      for (let attempt = 0; ; attempt++) {
        await paced();
        counters.requests++;
        let problem: string;
        let status: number | null = null;
        let wait: number | null = null;
        let cause: unknown;
        try {
          const res = await request(url, {
            method: 'GET',
            dispatcher: agent,
            headers: { accept: 'text/plain, text/csv, */*', 'user-agent': 'kr-x402-data-services (live source)', ...options.headers },
          });
          const text = await res.body.text();
          status = res.statusCode;
          if (status >= 200 && status < 300) return text;
          problem = `HTTP ${status}: ${excerpt(text)}`;
          if (status !== 429 && status < 500) throw new UpstreamError(name, shown, `${name}: GET ${shown} failed with ${problem}`, status);
          wait = retryAfterMs(res.headers['retry-after'], now());
          if (wait !== null && wait > maxRetryAfterMs) {
            throw new UpstreamError(name, shown, `${name}: GET ${shown} asked to retry after ${Math.round(wait / 1000)}s: ${problem}`, status);
          }
        } catch (err) {
          if (err instanceof UpstreamError) throw err;
          const e = err as { code?: string; message?: string };
          problem = `network error ${e.code ?? ''} ${e.message ?? String(err)}`.replace(/\s+/g, ' ');
          cause = err;
        }
        if (attempt >= retries) {
          throw new UpstreamError(
            name,
            shown,
            `${name}: GET ${shown} failed after ${attempt + 1} attempt${attempt === 0 ? '' : 's'}: ${problem}`,
            status,
            cause === undefined ? undefined : { cause },
          );
        }
        counters.retries++;
        await sleep(wait ?? Math.floor(random() * Math.min(backoffMaxMs, backoffBaseMs * 2 ** attempt)));
      }
    },
    stats: () => ({ ...counters }),
    close: () => agent.close(),
  };
}
