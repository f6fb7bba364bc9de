/**
 * Fetches feed bodies as bytes through the shared upstream client (../../http.ts getBytes), so an
 * EUC-KR feed is decoded only once its charset is known (charset.ts). The shared client's policy
 * holds: per-phase timeouts, retries on network errors, 429 (honouring Retry-After) and 5xx with
 * full-jitter backoff, no retry on other 4xx, p-limit concurrency, redacted URLs in every message,
 * and a request counter. Messages name the feed (news:<feed id>) instead of the client.
 */
import { createUpstream, UpstreamError, type UpstreamOptions, type UpstreamStats } from '../../http.ts';

export type FeedClientOptions = Pick<
  UpstreamOptions,
  | 'name'
  | 'timeoutMs'
  | 'retries'
  | 'concurrency'
  | 'backoffBaseMs'
  | 'backoffMaxMs'
  | 'maxRetryAfterMs'
  | 'headers'
  | 'sleep'
  | 'now'
  | 'random'
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

export function createFeedClient(options: FeedClientOptions): FeedClient {
  const { maxBytes = 5_000_000, ...tuning } = options;
  // The base URL is never requested: every feed is an absolute URL of its own outlet.
  const upstream = createUpstream({ ...tuning, baseUrl: 'http://127.0.0.1/', maxBodyBytes: maxBytes });
  const prefix = `${options.name}:`;
  return {
    name: options.name,
    async getBytes(url, label) {
      try {
        return await upstream.getBytes(url, ACCEPT);
      } catch (err) {
        if (!(err instanceof UpstreamError)) throw err;
        const message = err.message.startsWith(prefix) ? `${label}:${err.message.slice(prefix.length)}` : `${label}: ${err.message}`;
        throw new UpstreamError(err.upstream, err.url, message, err.status, { cause: err });
      }
    },
    stats: () => upstream.stats(),
    close: () => upstream.close(),
  };
}
