/**
 * A small closed-loop HTTP load generator for the proxy bench: `connections` keep-alive
 * connections, each sending its next request as soon as the previous answer is read, for a fixed
 * duration after a warm-up. Used the same way for the service and its baselines, so their figures
 * compare like for like.
 */
import { Pool } from 'undici';

export interface LoadOptions {
  url: string;
  connections: number;
  durationMs: number;
  warmupMs?: number;
  /** Headers of request number i (e.g. a fresh payment per request). */
  headers?: (i: number) => Record<string, string>;
  method?: 'GET' | 'POST';
  body?: string;
  /** Status every answer must have; others are counted as errors. */
  expectStatus?: number;
}

export interface LoadResult {
  requests: number;
  errors: number;
  statuses: Record<number, number>;
  seconds: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}

export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const url = new URL(opts.url);
  const pool = new Pool(url.origin, { connections: opts.connections, pipelining: 1, keepAliveTimeout: 30_000 });
  const path = `${url.pathname}${url.search}`;
  const expect = opts.expectStatus ?? 200;
  let counter = 0;
  let measuring = false;
  let stop = false;
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let errors = 0;

  const worker = async () => {
    while (!stop) {
      const i = counter++;
      const t0 = performance.now();
      try {
        const res = await pool.request({
          path,
          method: opts.method ?? 'GET',
          headers: { ...(opts.body ? { 'content-type': 'application/json' } : {}), ...opts.headers?.(i) },
          body: opts.body,
        });
        await res.body.dump();
        const ms = performance.now() - t0;
        if (measuring) {
          latencies.push(ms);
          statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
          if (res.statusCode !== expect) errors++;
        }
      } catch {
        if (measuring) errors++;
      }
    }
  };

  const workers = Array.from({ length: opts.connections }, () => worker());
  await new Promise((r) => setTimeout(r, opts.warmupMs ?? 1000));
  measuring = true;
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, opts.durationMs));
  measuring = false;
  const seconds = (performance.now() - t0) / 1000;
  stop = true;
  await Promise.all(workers);
  await pool.close();
  const sorted = Float64Array.from(latencies).sort();
  return {
    requests: latencies.length,
    errors,
    statuses,
    seconds,
    rps: latencies.length / seconds,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted.length ? sorted[sorted.length - 1]! : NaN,
  };
}
