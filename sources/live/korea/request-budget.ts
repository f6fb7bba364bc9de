/**
 * The request budget of one live korea run: at most `limit` upstream HTTP requests (retries
 * included), the first-run macro backfill excluded. Ingest steps run one after another and add
 * what their clients spent; the two flexible consumers, the macro refresh and then the Upbit
 * candles, size themselves from what is left, so fallbacks and retries come out of the candles.
 */

export class RequestBudget {
  /** Requests that count against the limit. */
  counted = 0;
  /** Macro backfill requests (first run, or a series seen for the first time). */
  backfill = 0;
  readonly byUpstream = new Map<string, number>();

  constructor(readonly limit: number) {}

  spend(upstream: string, requests: number, kind: 'counted' | 'backfill' = 'counted'): void {
    if (requests <= 0) return;
    if (kind === 'backfill') this.backfill += requests;
    else this.counted += requests;
    this.byUpstream.set(upstream, (this.byUpstream.get(upstream) ?? 0) + requests);
  }

  get remaining(): number {
    return Math.max(0, this.limit - this.counted);
  }

  describe(): string {
    const parts = [...this.byUpstream].map(([name, n]) => `${name} ${n}`).join(', ');
    return `${this.counted} of ${this.limit} budgeted requests, ${this.backfill} backfill (${parts || 'none'})`;
  }
}

/** One budget per run: the runner gives every step of a run the same context object. */
const budgets = new WeakMap<object, RequestBudget>();

export function budgetFor(run: object, limit: number): RequestBudget {
  let budget = budgets.get(run);
  if (!budget) {
    budget = new RequestBudget(limit);
    budgets.set(run, budget);
  }
  return budget;
}
