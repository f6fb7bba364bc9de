/**
 * The analyst: one interface, two implementations (Claude through the Anthropic API, or the
 * offline rules analyst), chosen by ANTHROPIC_API_KEY. A product does not talk to a model; it
 * declares an AnalystTask (what the model reads, the tool schema it must answer with, and the
 * rules answer from the same input) and asks the run's analyst to run it.
 */
import type { z } from 'zod';
import type { AiMode } from '../../lib/config.ts';

/** Which analyst: a Claude model or the offline rules (the setting's AiMode). */
export type AnalystKind = AiMode;
export type ModelTier = 'fast' | 'deep';

/** A text from outside (a news title and body): data for the model, never instructions. */
export interface UntrustedText {
  /** Short id the model can cite, e.g. 'a3'. */
  id: string;
  /** Publisher name. */
  source: string;
  title: string;
  body: string;
}

export interface AnalystTask<I, O> {
  /** Product the task writes for, e.g. 'market-read'; names the tool and keys the cache. */
  name: string;
  /** fast: translation, classification, summaries; deep: market read, sentiment, deep analysis, macro note. */
  tier: ModelTier;
  /** Bumped whenever the prompt or the meaning of the output changes, so old cached answers stop matching. */
  promptVersion: number;
  /** One line describing the tool to the model. */
  description: string;
  /** What to write, for this task (appended to the shared system rules). */
  instructions: string;
  /** The answer's schema: a zod object derived from the catalog's response schema (and validated before use). */
  output: z.ZodType<O>;
  /** Numbers and facts the model reads, as JSON. Never a secret or a file system path. */
  facts(input: I): unknown;
  /** Outside texts the model reads as data (news), delimited in the prompt. */
  untrusted?(input: I): readonly UntrustedText[];
  /** The rules analyst's answer from the same input (deterministic, offline). */
  rules(input: I): O;
  /** Checks beyond the schema (numbers of a translation, no trading advice): the problem in words, or null. */
  verify?(output: O, input: I): string | null;
  /** Output token limit of one call. */
  maxTokens: number;
}

export interface AnalystAnswer<O> {
  value: O;
  analyst: AnalystKind;
  /** The Claude model that wrote it; null for the rules analyst. */
  model: string | null;
  /** True when the answer came from the cache (no model call). */
  cached: boolean;
}

/** Why no answer could be had. `budget`: the daily budget is spent; `malformed`: two invalid answers; `api`: the API failed after its retries; `rules`: the rules answer failed its own check. */
export type AnalystFailure = 'budget' | 'malformed' | 'api' | 'rules';

export class AnalystError extends Error {
  constructor(
    readonly kind: AnalystFailure,
    readonly task: string,
    message: string,
  ) {
    super(message);
    this.name = 'AnalystError';
  }
}

/** What the run's analyst did: goes to the manifest (`ai`) and the pipeline's summary. */
export type { AiUsage as AnalystUsage } from '../../snapshots/manifest.ts';
import type { AiUsage as AnalystUsage } from '../../snapshots/manifest.ts';

export interface Analyst {
  readonly kind: AnalystKind;
  /** The model a tier uses; null for the rules analyst. */
  modelOf(tier: ModelTier): string | null;
  /** Runs a task; throws AnalystError when no valid answer can be had. */
  run<I, O>(task: AnalystTask<I, O>, input: I): Promise<AnalystAnswer<O>>;
  /** Whether any task was run (the manifest reports usage only then). */
  used(): boolean;
  usage(): Promise<AnalystUsage>;
}

/** The tool a task forces the model to call. */
export function toolNameOf(task: { name: string }): string {
  return `write_${task.name.replace(/[^a-z0-9]+/gi, '_').toLowerCase()}`;
}
