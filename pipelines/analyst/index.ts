/**
 * The run's analyst, chosen by ANTHROPIC_API_KEY: Claude when a key is set, else the offline rules
 * analyst (deterministic answers from the same inputs, labelled `analyst: 'rules'`).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Settings } from '../../lib/config.ts';
import { ClaudeAnalyst, usd } from './claude.ts';
import { AnalystStore } from './store.ts';
import { AnalystError, type Analyst, type AnalystAnswer, type AnalystTask, type AnalystUsage } from './types.ts';

export {
  AnalystError,
  toolNameOf,
  type Analyst,
  type AnalystAnswer,
  type AnalystKind,
  type AnalystTask,
  type AnalystUsage,
  type ModelTier,
  type UntrustedText,
} from './types.ts';

/** Runs each task's rules; a rules answer that fails the task's own check is an error, never published. */
export class RulesAnalyst implements Analyst {
  readonly kind = 'rules' as const;
  private answers = 0;
  private failures = 0;

  modelOf(): null {
    return null;
  }

  async run<I, O>(task: AnalystTask<I, O>, input: I): Promise<AnalystAnswer<O>> {
    const value = task.rules(input);
    const parsed = task.output.safeParse(value);
    const problem = parsed.success
      ? (task.verify?.(parsed.data, input) ?? null)
      : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    if (!parsed.success || problem) {
      this.failures++;
      throw new AnalystError('rules', task.name, `${task.name}: the rules answer failed its check (${problem})`);
    }
    this.answers++;
    return { value: parsed.data, analyst: 'rules', model: null, cached: false };
  }

  used(): boolean {
    return this.answers + this.failures > 0;
  }

  async usage(): Promise<AnalystUsage> {
    return {
      analyst: 'rules',
      models: null,
      calls: 0,
      cache_hits: 0,
      rules_answers: this.answers,
      input_tokens: 0,
      output_tokens: 0,
      usd: 0,
      spent_today_usd: 0,
      daily_budget_usd: null,
      budget_reached: false,
      failures: this.failures,
      price_note: null,
    };
  }
}

/** The analyst of one run; it touches the warehouse only when a task runs. */
export function createAnalyst(settings: Settings, connection: DuckDBConnection, now: Date, log: (message: string) => void): Analyst {
  if (!settings.anthropic.apiKey) return new RulesAnalyst();
  return new ClaudeAnalyst({
    settings: settings.anthropic,
    baseUrl: settings.upstreams.ANTHROPIC_BASE_URL,
    store: new AnalystStore(connection),
    now,
    log,
  });
}

/** One line for the run's summary: who wrote the AI fields, calls, cache hits, tokens and cost. */
export function usageLine(u: AnalystUsage): string {
  if (u.analyst === 'rules') {
    return `analyst: rules (offline, no ANTHROPIC_API_KEY): ${u.rules_answers} answers${u.failures ? `, ${u.failures} failed their checks` : ''}`;
  }
  const asked = u.calls + u.cache_hits;
  const hitRate = asked > 0 ? `${Math.round((100 * u.cache_hits) / asked)} %` : '-';
  const budget =
    u.daily_budget_usd === null
      ? `${usd(u.spent_today_usd)} spent today, no daily budget`
      : `${usd(u.spent_today_usd)} of the ${usd(u.daily_budget_usd)} daily budget spent today${u.budget_reached ? ' (reached: calls stopped)' : ''}`;
  return (
    `analyst: claude (fast ${u.models!.fast}, deep ${u.models!.deep}): ${u.calls} calls, ${u.cache_hits} cache hits (${hitRate}), ` +
    `${u.input_tokens.toLocaleString('en-US')} input + ${u.output_tokens.toLocaleString('en-US')} output tokens, ${usd(u.usd)} this run; ${budget}` +
    (u.failures ? `; ${u.failures} failed` : '') +
    (u.price_note ? `; ${u.price_note}` : '')
  );
}
