/**
 * Claude for the korea pipeline's tests and benchmark: answers for every korea analyst tool, in
 * the shape a model answers them, served through the fake Messages API on loopback
 * (sources/live/testing/fake-messages-api.ts), and the checks every request must pass.
 *
 * Answers are built from the request itself (its facts and texts), the way a model would: the
 * translation of a demo article is the demo world's reference English (what a faithful
 * translation says), other articles get their Korean text back with the numbers intact.
 */
import { isDeepStrictEqual } from 'node:util';
import type { AnalystTask } from '../../analyst/index.ts';
import { SYSTEM_RULES, toolInputSchema } from '../../analyst/prompt.ts';
import { toolNameOf } from '../../analyst/types.ts';
import type { FakeMessagesRequest, FakeReply } from '../../../sources/live/testing/fake-messages-api.ts';
import { koreaWorld } from '../../../sources/demo/korea/world.ts';
import { deepTask, lightTask } from '../datasets/divergence.ts';
import { SUMMARY_TASKS } from '../datasets/kr-news.ts';
import { sentimentTask } from '../datasets/kr-sentiment.ts';
import { macroNoteTask } from '../macro-note.ts';
import { marketReadTask } from '../datasets/market-read.ts';
import { TRANSLATION_TASKS } from '../news-translation.ts';
import { expandKoreanNumbers } from '../text/korean-numbers.ts';

/** Every analyst task of the korea pipeline, by tool name. */
export const KOREA_TASKS: ReadonlyMap<string, AnalystTask<never, unknown>> = new Map(
  (
    [
      ...Object.values(TRANSLATION_TASKS),
      ...Object.values(SUMMARY_TASKS),
      sentimentTask,
      marketReadTask,
      lightTask,
      deepTask,
      macroNoteTask,
    ] as Array<AnalystTask<never, unknown>>
  ).map((t) => [toolNameOf(t), t]),
);

export interface ParsedPrompt {
  tool: string;
  facts: Record<string, unknown>;
  texts: Array<{ id: string; source: string; title: string; body: string }>;
  user: string;
}

const UNTRUSTED = /<untrusted_text id="([^"]*)" source="([^"]*)">\n(.*)\n<\/untrusted_text>/g;

/** The forced tool, the facts and the outside texts of a request. */
export function parsePrompt(req: FakeMessagesRequest): ParsedPrompt {
  const messages = req.body.messages as Array<{ role: string; content: string }>;
  const user = String(messages[0]?.content ?? '');
  const factsText = /<facts>\n([\s\S]*?)\n<\/facts>/.exec(user)?.[1] ?? '{}';
  const texts = [...user.matchAll(UNTRUSTED)].map((m) => {
    const { title, body } = JSON.parse(m[3]!) as { title: string; body: string };
    return { id: m[1]!, source: m[2]!, title, body };
  });
  return { tool: req.toolName ?? '', facts: JSON.parse(factsText) as Record<string, unknown>, texts, user };
}

export interface CheckOptions {
  /** Values that must never reach the API (keys, file system paths). */
  secrets: readonly string[];
}

/**
 * The checks of every korea request: a known tool whose schema is the task's output schema (from
 * the catalog), the shared system rules, facts as JSON, outside texts only inside well-formed
 * <untrusted_text> elements, and no secret or path anywhere.
 */
export function checkKoreaRequest(options: CheckOptions): (req: FakeMessagesRequest) => void {
  return (req) => {
    const tool = req.toolName ?? '';
    const task = KOREA_TASKS.get(tool);
    if (!task) throw new Error(`unknown tool ${tool}`);
    const sent = req.body.tools?.find((t) => t.name === tool);
    if (!sent || !isDeepStrictEqual(sent.input_schema, toolInputSchema(task.output)))
      throw new Error(`${tool}: input_schema differs from the task's output schema`);
    if (req.body.system !== SYSTEM_RULES) throw new Error(`${tool}: system prompt is not the shared rules`);
    const { user } = parsePrompt(req);
    if (!/<facts>\n[\s\S]*\n<\/facts>/.test(user)) throw new Error(`${tool}: no facts block`);
    const opened = user.split('<untrusted_text ').length - 1;
    const closed = user.split('</untrusted_text>').length - 1;
    if (opened !== closed) throw new Error(`${tool}: ${opened} <untrusted_text> elements opened, ${closed} closed`);
    for (const secret of options.secrets) {
      if (secret && req.raw.includes(secret)) throw new Error(`${tool}: the request carries a secret or a path`);
    }
    if (/(^|[\s"'(])\/(?:tmp|root|home|work|var|etc|Users)\//.test(req.raw))
      throw new Error(`${tool}: the request carries a file system path`);
  };
}

/** The demo world's reference English by expanded Korean title and body (titles repeat), for the seeds and times a test runs. */
export function demoReferences(runs: ReadonlyArray<{ seed: number; now: Date }>): Map<string, { title: string; body: string }> {
  const map = new Map<string, { title: string; body: string }>();
  for (const { seed, now } of runs) {
    const world = koreaWorld({ seed, now, scale: 1 });
    for (const row of world.news_articles) {
      const [titleKr, bodyKr, titleEn, bodyEn] = [row[8], row[9], row[10], row[11]].map((c) => (c === null ? null : String(c)));
      if (titleKr && titleEn && bodyEn)
        map.set(`${expandKoreanNumbers(titleKr)}\n${expandKoreanNumbers(bodyKr ?? '')}`, { title: titleEn, body: bodyEn });
    }
  }
  return map;
}

const tool = (input: unknown): FakeReply => ({ kind: 'tool', input });

/** Answers every korea tool like a model would; `override` replaces the answer of chosen calls. */
export function koreaReplies(references: ReadonlyMap<string, { title: string; body: string }>): (req: FakeMessagesRequest) => FakeReply {
  return (req) => {
    const p = parsePrompt(req);
    if (p.tool.startsWith('write_translate_')) {
      const article = p.texts[0]!;
      const ref = references.get(`${article.title}\n${article.body}`);
      const answer = ref
        ? { title_en: ref.title, summary_en: ref.body }
        : {
            title_en: `Korean news: ${article.title}`.slice(0, 300),
            summary_en: `The article reports: ${article.title}. ${article.body}`.slice(0, 1200),
          };
      return tool(p.tool === 'write_translate_kpop' ? { ...answer, relevance: 'high' } : answer);
    }
    if (p.tool.startsWith('write_kr_news_')) {
      const semiconductor = p.tool.includes('semiconductor');
      return tool({
        summaries: p.texts.map((_, i) => ({
          articles: i + 1,
          overall_sentiment: 'positive',
          key_themes: ['earnings', 'exports'],
          trending_entities: semiconductor ? ['Samsung Electronics', 'SK hynix'] : ['NewJeans', 'HYBE'],
          summary: `Claude summary of the newest ${i + 1} articles: ${p.texts
            .slice(0, i + 1)
            .map((t) => t.title)
            .join(' / ')}`.slice(0, 1500),
          ...(semiconductor ? { market_signal: 'bullish' } : {}),
        })),
      });
    }
    switch (p.tool) {
      case 'write_kr_sentiment':
        return tool({
          sentiment: 'bullish',
          sentiment_score: 0.4,
          summary: 'Claude reads the Korean market as bullish on breadth and premiums.',
          key_drivers: ['Breadth', 'Premiums'],
        });
      case 'write_market_read':
        return tool({ signal: 'NEUTRAL', confidence: 0.55, summary: 'Claude: mixed figures.', factors: ['Breadth is even.'] });
      case 'write_divergence_light': {
        const symbols = (p.facts.symbols as Array<{ symbol: string; divergence_pct: number | null }>) ?? [];
        return tool({
          summaries: symbols.map((s) => ({
            symbol: s.symbol,
            summary: `Claude: ${s.symbol} diverges ${s.divergence_pct ?? 'n/a'} % from its global price.`,
          })),
        });
      }
      case 'write_divergence_deep':
        return tool({
          korean_market_drivers: ['The USDT premium lifts Korean prices.'],
          global_context: 'Global prices are steady.',
          action_suggestion: 'Watch the premium; informational, not financial advice.',
          confidence: 'medium',
        });
      case 'write_krw_macro_note':
        return tool({ note: `Claude note: KRW macro stress is ${String(p.facts.score)} of 100 (${String(p.facts.regime)}).` });
      default:
        return { kind: 'error', status: 400, errorType: 'invalid_request_error', message: `no recorded answer for ${p.tool}` };
    }
  };
}
