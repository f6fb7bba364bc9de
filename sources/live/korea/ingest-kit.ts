/**
 * What every korea ingest step is made of. index.ts builds one kit per run and hands it to each
 * step module of `steps/` (one per upstream or feed): the run's options, the upstream clients with
 * their tuning, the run's request budget, and `step`, which empties the step's share of the raw
 * tables and its recorded failures before it fetches. The helpers record what failed or was
 * skipped under the upstream's own name (ingest-failures.ts), so one upstream down never sinks
 * the others.
 */
import type { Settings } from '../../../lib/config.ts';
import { firstLine, type UpstreamOptions } from '../http.ts';
import type { IngestContext, IngestStep } from '../../contract.ts';
import type { Row } from '../../../lib/duckdb.ts';
import { clientOptions, type ClientTuning, type KoreaClient } from './clients.ts';
import {
  clearIngestFailures,
  clearSkippedRows,
  recordIngestFailure,
  recordSkippedRows,
  type KoreaUpstreamName,
} from './ingest-failures.ts';
import { DEFAULT_MACRO_OPTIONS, type MacroOptions } from './macro-history.ts';
import { replaceRows, resetRows, type RowsWrite } from './raw-rows.ts';
import { budgetFor, type RequestBudget } from './request-budget.ts';

export interface KoreaLiveOptions {
  /** Upstream requests one run may make, the macro backfill excluded. */
  requestBudget: number;
  candles: {
    /** At most this many markets (one request each); fewer when the budget is short. */
    maxMarkets: number;
    /** Requests the macro refresh leaves for candles. */
    reserve: number;
    /** Minutes asked per market (the open minute is dropped). */
    minutes: number;
  };
  macro: MacroOptions;
  /** The executable premium's books (steps/books.ts): how many symbols, and the requests they may take apart from the budget. */
  books: { symbols: number; requests: number };
  /** Applied to every client after its own tuning (tests inject `sleep`). */
  upstream: ClientTuning;
}

export const DEFAULT_KOREA_LIVE_OPTIONS: KoreaLiveOptions = {
  requestBudget: 15,
  candles: { maxMarkets: 5, reserve: 3, minutes: 60 },
  macro: DEFAULT_MACRO_OPTIONS,
  books: { symbols: 5, requests: 40 },
  upstream: {},
};

export type KoreaLiveOverrides = {
  requestBudget?: number;
  candles?: Partial<KoreaLiveOptions['candles']>;
  macro?: Partial<MacroOptions>;
  books?: Partial<KoreaLiveOptions['books']>;
  upstream?: ClientTuning;
};

export interface IngestKit {
  settings: Settings;
  options: KoreaLiveOptions;
  /** A client's options: its tuning (clients.ts), the run's overrides, its base URL setting. */
  client(name: KoreaClient): UpstreamOptions;
  /** The run's request budget (one per run, shared by the steps). */
  budget(ctx: IngestContext): RequestBudget;
  /**
   * A step writing `targets` (its share of the raw tables) for `upstreams`: both are emptied, with
   * their recorded failures and skipped rows, before `fetch` runs.
   */
  step(
    name: string,
    targets: ReadonlyArray<Omit<RowsWrite, 'rows'>>,
    upstreams: readonly KoreaUpstreamName[],
    fetch: (ctx: IngestContext) => Promise<number>,
    extraTables?: readonly string[],
  ): IngestStep;
}

/** A step module: makes its step from the run's kit. */
export type KoreaIngestStep = (kit: IngestKit) => IngestStep;

export function ingestKit(settings: Settings, overrides: KoreaLiveOverrides = {}): IngestKit {
  const options: KoreaLiveOptions = {
    requestBudget: overrides.requestBudget ?? DEFAULT_KOREA_LIVE_OPTIONS.requestBudget,
    candles: { ...DEFAULT_KOREA_LIVE_OPTIONS.candles, ...overrides.candles },
    macro: { ...DEFAULT_KOREA_LIVE_OPTIONS.macro, ...overrides.macro },
    books: { ...DEFAULT_KOREA_LIVE_OPTIONS.books, ...overrides.books },
    upstream: { ...overrides.upstream },
  };
  return {
    settings,
    options,
    client: (name) => clientOptions(settings, name, options.upstream),
    budget: (ctx) => budgetFor(ctx, options.requestBudget),
    step: (name, targets, upstreams, fetch, extraTables = []) => ({
      name,
      tables: [...new Set([...targets.map((t) => t.table.name), ...extraTables])],
      async run(ctx) {
        await resetRows(ctx.connection, targets);
        await clearIngestFailures(ctx.connection, upstreams);
        await clearSkippedRows(ctx.connection, upstreams);
        return fetch(ctx);
      },
    }),
  };
}

/** Runs `work`; on failure records it for `upstream` and rethrows. */
export async function recorded<V>(ctx: IngestContext, upstream: KoreaUpstreamName, work: () => Promise<V>): Promise<V> {
  try {
    return await work();
  } catch (err) {
    await recordIngestFailure(ctx.connection, upstream, firstLine(err), ctx.now);
    throw err;
  }
}

/** Records the rows of a list that could not be read, and says so in the run's notes. */
export async function noteSkipped(
  ctx: IngestContext,
  upstream: KoreaUpstreamName,
  list: string,
  read: { total: number; skipped: readonly string[] },
): Promise<void> {
  const note = await recordSkippedRows(ctx.connection, upstream, list, read, ctx.now);
  if (note) ctx.log(note);
}

/** The first source that answers with rows wins; each failure is recorded under its own name. */
export async function firstAnswer(
  ctx: IngestContext,
  what: string,
  sources: ReadonlyArray<{ upstream: KoreaUpstreamName; rows: () => Promise<Row[]> }>,
): Promise<{ upstream: KoreaUpstreamName; rows: Row[] }> {
  const problems: string[] = [];
  for (const { upstream, rows } of sources) {
    try {
      const got = await rows();
      if (got.length === 0) throw new Error(`${upstream}: answered no usable ${what}`);
      if (problems.length) ctx.log(`${what}: using ${upstream} after ${problems.join('; ')}`);
      return { upstream, rows: got };
    } catch (err) {
      problems.push(firstLine(err));
      await recordIngestFailure(ctx.connection, upstream, firstLine(err), ctx.now);
    }
  }
  throw new Error(`${what} unavailable: ${problems.join('; ')}`);
}

/**
 * The outcome of the several upstream calls of one step: the rows of those that answered are
 * written together, each failed call is recorded under its own name, and the step fails (after
 * writing) when any did, so the run says so.
 */
export class StepFeeds {
  private readonly writes: RowsWrite[] = [];
  private readonly failures: string[] = [];
  constructor(private readonly ctx: IngestContext) {}

  write(...writes: RowsWrite[]): void {
    this.writes.push(...writes);
  }

  async failed(upstream: KoreaUpstreamName, message: string): Promise<void> {
    this.failures.push(message);
    await recordIngestFailure(this.ctx.connection, upstream, message, this.ctx.now);
  }

  skipped(upstream: KoreaUpstreamName, list: string, read: { total: number; skipped: readonly string[] }): Promise<void> {
    return noteSkipped(this.ctx, upstream, list, read);
  }

  async finish(): Promise<number> {
    const rows = this.writes.length ? await replaceRows(this.ctx.connection, this.writes) : 0;
    if (this.failures.length) throw new Error(this.failures.join('; '));
    return rows;
  }
}
