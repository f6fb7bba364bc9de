/**
 * The client of the two upstreams that do not answer JSON: FRED's CSV and Naver's
 * JavaScript-literal arrays. The shared client's text mode (../http.ts getText): the same retries
 * on network errors, 429 (honouring Retry-After) and 5xx with full-jitter backoff, no retry on other
 * 4xx, pacing between request starts, and counters for the run's request budget.
 */
import { createUpstream, type Query, type UpstreamOptions, type UpstreamStats } from '../http.ts';

export interface TextUpstream {
  readonly name: string;
  getText(path: string, query: Query): Promise<string>;
  stats(): UpstreamStats;
  close(): Promise<void>;
}

export function createTextUpstream(options: UpstreamOptions): TextUpstream {
  const upstream = createUpstream(options);
  return {
    name: upstream.name,
    getText: (path, query) => upstream.getText(path, query),
    stats: () => upstream.stats(),
    close: () => upstream.close(),
  };
}
