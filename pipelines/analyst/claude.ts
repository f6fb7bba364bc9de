/**
 * The Claude analyst: runs a task as one forced tool call through @anthropic-ai/sdk.
 *
 * - The SDK does the transport: per-attempt timeout, retries on 408/409/429/5xx (529 overloaded
 *   included) and connection errors, honouring retry-after / retry-after-ms.
 * - Every answer is validated with the task's zod schema and its own check before it is used; a
 *   malformed answer is asked once more (naming the problem), then the task fails and the product
 *   keeps its last good version.
 * - Calls are keyed by the hash of their exact inputs in the warehouse (analyst_cache): a cached
 *   answer costs nothing.
 * - ANTHROPIC_DAILY_BUDGET_USD: a call whose worst-case cost would pass the budget is not made.
 * - At most ANTHROPIC_CONCURRENCY calls are in flight.
 *
 * The API key goes to the SDK only: it is never logged and never part of a prompt; the SDK's own
 * logger is off so nothing it prints can carry headers.
 */
import type Anthropic from '@anthropic-ai/sdk';
import pLimit from 'p-limit';
import type { AnthropicSettings } from '../../lib/config.ts';
import { describeIssues } from '../../lib/zod-issues.ts';
import { buildRequest, cacheKeyOf, type ModelRequest } from './prompt.ts';
import { costUsd, priceOf } from './pricing.ts';
import type { AnalystStore } from './store.ts';
import { AnalystError, type Analyst, type AnalystAnswer, type AnalystTask, type AnalystUsage, type ModelTier } from './types.ts';

export interface ClaudeAnalystOptions {
  settings: AnthropicSettings;
  /** ANTHROPIC_BASE_URL; null = the SDK's default (api.anthropic.com). */
  baseUrl: string | null;
  store: AnalystStore;
  /** The run's clock: the budget day is the UTC day of this time. */
  now: Date;
  log: (message: string) => void;
}

function startOfUtcDay(d: Date): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
}

function firstLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n')[0]!.replace(/\s+/g, ' ').slice(0, 240);
}

export class ClaudeAnalyst implements Analyst {
  readonly kind = 'claude' as const;
  /** The SDK client, loaded at the first call: its 300 modules would cost every run without a key (npm start's demo too) about a second. */
  private client: Promise<Anthropic> | null = null;
  private readonly limit: ReturnType<typeof pLimit>;
  private readonly totals = { calls: 0, cacheHits: 0, inputTokens: 0, outputTokens: 0, usd: 0, failures: 0 };
  private spentBefore: Promise<number> | null = null;
  /** Worst-case cost of the calls in flight, held against the budget until they answer. */
  private reserved = 0;
  private budgetReached = false;

  constructor(private readonly options: ClaudeAnalystOptions) {
    const { settings } = options;
    if (!settings.apiKey) throw new Error('the Claude analyst needs ANTHROPIC_API_KEY');
    this.limit = pLimit(settings.concurrency);
  }

  private sdk(): Promise<Anthropic> {
    const { settings, baseUrl } = this.options;
    this.client ??= import('@anthropic-ai/sdk').then(
      ({ default: Sdk }) =>
        new Sdk({
          apiKey: settings.apiKey!.reveal(),
          ...(baseUrl ? { baseURL: baseUrl } : {}),
          timeout: settings.timeoutMs,
          maxRetries: settings.maxRetries,
          logLevel: 'off',
        }),
    );
    return this.client;
  }

  modelOf(tier: ModelTier): string {
    return tier === 'fast' ? this.options.settings.fastModel : this.options.settings.deepModel;
  }

  private spentToday(): Promise<number> {
    this.spentBefore ??= this.options.store.spentSince(startOfUtcDay(this.options.now));
    return this.spentBefore;
  }

  async run<I, O>(task: AnalystTask<I, O>, input: I): Promise<AnalystAnswer<O>> {
    // What was spent before this run is read before its first call is recorded.
    await this.spentToday();
    const model = this.modelOf(task.tier);
    const request = buildRequest(task, input);
    const key = cacheKeyOf(model, task, request);
    const cached = await this.options.store.lookup(key);
    if (cached !== undefined) {
      const parsed = task.output.safeParse(cached);
      if (parsed.success && !task.verify?.(parsed.data, input)) {
        this.totals.cacheHits++;
        return { value: parsed.data, analyst: 'claude', model, cached: true };
      }
    }
    let problem: string | null = null;
    for (let attempt = 0; attempt < 2; attempt++) {
      const answer = await this.limit(() => this.call(task, model, key, request, problem));
      const parsed = task.output.safeParse(answer.input);
      problem = parsed.success
        ? (task.verify?.(parsed.data, input) ?? null)
        : answer.input === undefined
          ? `no call of the tool ${request.tool.name}${answer.text ? ` (answered in text: ${answer.text.slice(0, 120)})` : ''}`
          : `the answer does not match the schema: ${describeIssues(parsed.error.issues)}`;
      await this.options.store.record({
        at: new Date(),
        task: task.name,
        model,
        key,
        inputTokens: answer.inputTokens,
        outputTokens: answer.outputTokens,
        usd: answer.usd,
        outcome: problem ? 'malformed' : 'ok',
        error: problem,
      });
      if (parsed.success && !problem) {
        await this.options.store.save(key, {
          task: task.name,
          model,
          promptVersion: task.promptVersion,
          output: parsed.data,
          inputTokens: answer.inputTokens,
          outputTokens: answer.outputTokens,
          usd: answer.usd,
          at: new Date(),
        });
        return { value: parsed.data, analyst: 'claude', model, cached: false };
      }
      this.options.log(`claude: ${task.name}: answer ${attempt + 1} of 2 rejected: ${problem}`);
    }
    this.totals.failures++;
    throw new AnalystError(
      'malformed',
      task.name,
      `${task.name}: ${model} answered twice without a valid result (${problem}); the last good version stays live`,
    );
  }

  /** One model call (the SDK retries transport failures); throws AnalystError for budget and API failures. */
  private async call<I, O>(
    task: AnalystTask<I, O>,
    model: string,
    key: string,
    request: ModelRequest,
    previousProblem: string | null,
  ): Promise<{ input: unknown; text: string; inputTokens: number; outputTokens: number; usd: number }> {
    const budget = this.options.settings.dailyBudgetUsd;
    const user = previousProblem
      ? `${request.user}\n\nA previous answer to this request was rejected: ${previousProblem}. Answer again with the tool, following its schema exactly.`
      : request.user;
    const worstCase = costUsd(
      model,
      Math.ceil((request.system.length + user.length + JSON.stringify(request.tool).length) / 2),
      task.maxTokens,
    );
    if (budget !== null) {
      const spent = (await this.spentToday()) + this.totals.usd;
      if (spent + this.reserved + worstCase > budget) {
        this.budgetReached = true;
        this.totals.failures++;
        throw new AnalystError(
          'budget',
          task.name,
          `${task.name}: the daily model budget of ${usd(budget)} is reached (${usd(spent)} spent today): no model call until the next UTC day; the last good version stays live`,
        );
      }
    }
    this.reserved += worstCase;
    this.totals.calls++;
    try {
      const message = await (await this.sdk()).messages.create({
        model,
        max_tokens: task.maxTokens,
        system: request.system,
        tools: [request.tool as Anthropic.Messages.Tool],
        tool_choice: { type: 'tool', name: request.tool.name },
        messages: [{ role: 'user', content: user }],
      });
      const usage = message.usage;
      const inputTokens = usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
      const outputTokens = usage.output_tokens;
      const usd = costUsd(model, inputTokens, outputTokens);
      this.totals.inputTokens += inputTokens;
      this.totals.outputTokens += outputTokens;
      this.totals.usd += usd;
      const tool = message.content.find((b) => b.type === 'tool_use' && b.name === request.tool.name);
      const text = message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(' ');
      return { input: tool && tool.type === 'tool_use' ? tool.input : undefined, text, inputTokens, outputTokens, usd };
    } catch (err) {
      if (err instanceof AnalystError) throw err;
      const reason = firstLine(err);
      await this.options.store.record({
        at: new Date(),
        task: task.name,
        model,
        key,
        inputTokens: 0,
        outputTokens: 0,
        usd: 0,
        outcome: 'error',
        error: reason,
      });
      this.totals.failures++;
      this.options.log(`claude: ${task.name}: call failed: ${reason}`);
      throw new AnalystError('api', task.name, `${task.name}: the Anthropic API call failed (${reason}); the last good version stays live`);
    } finally {
      this.reserved -= worstCase;
    }
  }

  used(): boolean {
    return this.totals.calls + this.totals.cacheHits + this.totals.failures > 0;
  }

  async usage(): Promise<AnalystUsage> {
    const spentBefore = await this.spentToday();
    const { fastModel, deepModel, dailyBudgetUsd } = this.options.settings;
    const unknown = [fastModel, deepModel].filter((m) => !priceOf(m).known);
    return {
      analyst: 'claude',
      models: { fast: fastModel, deep: deepModel },
      calls: this.totals.calls,
      cache_hits: this.totals.cacheHits,
      rules_answers: 0,
      input_tokens: this.totals.inputTokens,
      output_tokens: this.totals.outputTokens,
      usd: round6(this.totals.usd),
      spent_today_usd: round6(this.totals.usd + spentBefore),
      daily_budget_usd: dailyBudgetUsd,
      budget_reached: this.budgetReached,
      failures: this.totals.failures,
      price_note: unknown.length
        ? `no list price known for ${unknown.join(' and ')}: priced at the most expensive model in the table, so the budget is not underestimated`
        : null,
    };
  }
}

const round6 = (n: number): number => Math.round(n * 1e6) / 1e6;

/** $5.00, $0.2413, $0.0002: cents for dollars, four decimals below one. */
export function usd(n: number): string {
  return `$${n.toFixed(n >= 1 ? 2 : 4)}`;
}
