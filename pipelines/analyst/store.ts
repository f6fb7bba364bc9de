/**
 * The analyst's memory in the warehouse:
 *
 *   analyst_cache  one valid answer per cache key (the hash of model, task, prompt version and the
 *                  exact prompt), so an unchanged article or market state is never paid for twice;
 *   analyst_calls  one row per model call with its tokens and cost, so the daily budget holds
 *                  across runs and a run's cost can be reported.
 *
 * Model calls run concurrently; their reads and writes here go through one queue (a DuckDB
 * connection runs one statement at a time).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import pLimit from 'p-limit';
import { queryJson } from '../../lib/duckdb.ts';

export interface CallRecord {
  at: Date;
  task: string;
  model: string;
  key: string;
  inputTokens: number;
  outputTokens: number;
  usd: number;
  outcome: 'ok' | 'malformed' | 'error';
  error: string | null;
}

const iso = (d: Date): string => d.toISOString();

export class AnalystStore {
  private readonly queue = pLimit(1);
  private ready: Promise<void> | null = null;

  constructor(private readonly connection: DuckDBConnection) {}

  private init(): Promise<void> {
    this.ready ??= (async () => {
      await this.connection.run(`CREATE TABLE IF NOT EXISTS analyst_cache (
        key VARCHAR PRIMARY KEY, task VARCHAR NOT NULL, model VARCHAR NOT NULL, prompt_version INTEGER NOT NULL,
        output VARCHAR NOT NULL, input_tokens BIGINT, output_tokens BIGINT, usd DOUBLE, created_at TIMESTAMP NOT NULL)`);
      // "at" is a reserved word in DuckDB: quoted wherever it is named.
      await this.connection.run(`CREATE TABLE IF NOT EXISTS analyst_calls (
        "at" TIMESTAMP NOT NULL, task VARCHAR NOT NULL, model VARCHAR NOT NULL, key VARCHAR NOT NULL,
        input_tokens BIGINT NOT NULL, output_tokens BIGINT NOT NULL, usd DOUBLE NOT NULL,
        outcome VARCHAR NOT NULL, error VARCHAR)`);
    })();
    return this.ready;
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    return this.queue(async () => {
      await this.init();
      return work();
    });
  }

  /** The cached answer of `key`, parsed from JSON; undefined when there is none. */
  lookup(key: string): Promise<unknown> {
    return this.serial(async () => {
      const rows = await queryJson(this.connection, 'SELECT output FROM analyst_cache WHERE key = $key', { key });
      return rows.length > 0 ? (JSON.parse(String(rows[0]!.output)) as unknown) : undefined;
    });
  }

  save(
    key: string,
    entry: {
      task: string;
      model: string;
      promptVersion: number;
      output: unknown;
      inputTokens: number;
      outputTokens: number;
      usd: number;
      at: Date;
    },
  ): Promise<void> {
    return this.serial(async () => {
      await queryJson(
        this.connection,
        `INSERT OR REPLACE INTO analyst_cache VALUES ($key, $task, $model, $version, $output, $in, $out, $usd, $at::TIMESTAMP)`,
        {
          key,
          task: entry.task,
          model: entry.model,
          version: entry.promptVersion,
          output: JSON.stringify(entry.output),
          in: entry.inputTokens,
          out: entry.outputTokens,
          usd: entry.usd,
          at: iso(entry.at).replace('Z', ''),
        },
      );
    });
  }

  record(call: CallRecord): Promise<void> {
    return this.serial(async () => {
      await queryJson(
        this.connection,
        `INSERT INTO analyst_calls VALUES ($at::TIMESTAMP, $task, $model, $key, $in, $out, $usd, $outcome, $error)`,
        {
          at: iso(call.at).replace('Z', ''),
          task: call.task,
          model: call.model,
          key: call.key,
          in: call.inputTokens,
          out: call.outputTokens,
          usd: call.usd,
          outcome: call.outcome,
          error: call.error,
        },
      );
    });
  }

  /** Dollars spent on calls at or after `since` (the start of the budget's UTC day). */
  spentSince(since: Date): Promise<number> {
    return this.serial(async () => {
      const rows = await queryJson(
        this.connection,
        `SELECT coalesce(sum(usd), 0)::DOUBLE AS usd FROM analyst_calls WHERE "at" >= $since::TIMESTAMP`,
        {
          since: iso(since).replace('Z', ''),
        },
      );
      return Number(rows[0]?.usd ?? 0);
    });
  }
}
