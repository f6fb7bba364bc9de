/**
 * kr-news-kpop and kr-news-semiconductor: the newest articles of a topic (at most 10, newest
 * first) with their English, and the AI summary of the newest k articles for every k from 1 to
 * 10, so /kr-news/<topic>-summary?limit=k summarises exactly the k articles it lists.
 *
 * Which articles are listed: those of the last NEWS_WINDOW_DAYS days with an English translation
 * (Claude's, or the demo world's reference); with the rules analyst, live articles without one are
 * listed too, marked `translation: 'unavailable'` with the English fields null. An article whose
 * translation failed the number check is not listed.
 *
 * The summaries come from one call per topic (the fast model) whose tool answers a summary per k;
 * the rules analyst computes them from the Korean sentiment lexicon, keywords and named entities.
 */
import { z } from 'zod';
import { KOREA_RESPONSES } from '../../../catalog/korea.ts';
import type { AnalystTask } from '../../analyst/index.ts';
import type { PipelineContext } from '../../runner.ts';
import { queryJson } from '../../../lib/duckdb.ts';
import { ensureNewsStore, type NewsTopic } from '../news-store.ts';
import { isoSql } from '../sql.ts';

export const NEWS_LIMIT_MAX = 10;
export const NEWS_WINDOW_DAYS = 7;

export interface StoredArticle {
  id: string;
  title_en: string | null;
  summary_en: string | null;
  source_en: string;
  title_kr: string;
  source_kr: string;
  url: string;
  published_at: string;
  translation: 'claude' | 'demo_reference' | 'unavailable';
  translation_model: string | null;
  relevance: 'high' | 'medium' | 'low' | null;
  body_kr: string;
  sentiment: number | null;
  keywords: string[];
  entities: string[];
}

/**
 * The articles of a topic, newest first. `publishable` (the news lists): only those with English,
 * or, with the rules analyst, live ones that will never have any. Otherwise (news read as data by
 * the other products) every stored article of the window, translated or not, so what a product
 * reads does not depend on how far this run's translations have got.
 */
export async function articlesOf(
  ctx: PipelineContext,
  topic: NewsTopic,
  options: { limit: number; sinceHours?: number; publishable?: boolean },
): Promise<StoredArticle[]> {
  await ensureNewsStore(ctx.connection);
  const rules = ctx.analyst.kind === 'rules';
  const publishable = options.publishable ?? true;
  const hours = options.sinceHours ?? NEWS_WINDOW_DAYS * 24;
  const rows = await queryJson(
    ctx.connection,
    `SELECT article_id AS id, title_en, summary_en, source_en, title_kr, source_kr, url, ${isoSql('published_at')} AS published_at,
            coalesce(translation, 'unavailable') AS translation, translation_model, relevance, coalesce(body_kr, '') AS body_kr,
            sentiment, keywords, entities
       FROM news_store
      WHERE source = $source AND topic = $topic
        AND published_at <= $now::TIMESTAMP AND published_at > $now::TIMESTAMP - INTERVAL ${hours} HOUR
        AND (NOT $publishable OR translation IS NOT NULL
             OR ($rules AND translation_attempts = 0 AND title_en_ref IS NULL))
      ORDER BY published_at DESC, article_id
      LIMIT ${options.limit}`,
    { source: ctx.sourceKind, topic, now: ctx.now.toISOString().replace('Z', ''), rules, publishable },
  );
  return rows.map((r) => ({
    ...(r as unknown as StoredArticle),
    sentiment: r.sentiment === null ? null : Number(r.sentiment),
    keywords: JSON.parse(String(r.keywords ?? '[]')) as string[],
    entities: JSON.parse(String(r.entities ?? '[]')) as string[],
  }));
}

// ------------------------------------------------------------------ the summaries

const KpopSummary = KOREA_RESPONSES.KpopSummaryBody.shape;
const ChipSummary = KOREA_RESPONSES.SemiconductorSummaryBody.shape;

const summaryItem = (topic: 'kpop' | 'semiconductor') =>
  z.strictObject({
    articles: z
      .number()
      .int()
      .min(1)
      .max(NEWS_LIMIT_MAX)
      .describe('How many of the newest articles this summary covers: a1 to a<articles>.'),
    overall_sentiment: KpopSummary.overall_sentiment,
    key_themes: KpopSummary.key_themes,
    trending_entities: KpopSummary.trending_entities,
    summary: KpopSummary.summary,
    ...(topic === 'semiconductor' ? { market_signal: ChipSummary.market_signal } : {}),
  });

export interface TopicSummary {
  articles: number;
  overall_sentiment: 'positive' | 'negative' | 'neutral' | 'mixed';
  key_themes: string[];
  trending_entities: string[];
  summary: string;
  market_signal?: 'bullish' | 'bearish' | 'neutral';
}

interface SummaryInput {
  topic: 'kpop' | 'semiconductor';
  articles: StoredArticle[];
}

const TOPIC_WORDS = { kpop: 'K-pop', semiconductor: 'semiconductor-industry' } as const;

/** The items found in the most lists (each list counts an item once), ties by first appearance. */
export function mostFrequent(lists: readonly string[][], max: number): string[] {
  const counts = new Map<string, { n: number; first: number }>();
  let order = 0;
  for (const list of lists) {
    for (const item of new Set(list)) {
      const seen = counts.get(item);
      if (seen) seen.n++;
      else counts.set(item, { n: 1, first: order++ });
    }
  }
  return [...counts.entries()]
    .sort((a, b) => b[1].n - a[1].n || a[1].first - b[1].first)
    .slice(0, max)
    .map(([item]) => item);
}

const NUMBER_WORDS = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];

/** The rules analyst's summary of the newest k articles (lexicon tone, keywords, entities). */
export function rulesSummary(topic: 'kpop' | 'semiconductor', articles: StoredArticle[]): TopicSummary {
  const k = articles.length;
  const scores = articles.map((a) => a.sentiment).filter((s): s is number => s !== null);
  const mean = scores.length ? scores.reduce((a, b) => a + b, 0) / scores.length : 0;
  const positives = scores.filter((s) => s > 0).length;
  const negatives = scores.filter((s) => s < 0).length;
  const overall: TopicSummary['overall_sentiment'] =
    mean >= 0.2 ? 'positive' : mean <= -0.2 ? 'negative' : positives > 0 && negatives > 0 ? 'mixed' : 'neutral';
  const themes = mostFrequent(
    articles.map((a) => a.keywords),
    5,
  );
  const entities = mostFrequent(
    articles.map((a) => a.entities),
    5,
  );
  const headlines = articles
    .filter((a) => a.title_en)
    .slice(0, 3)
    .map((a) => `"${a.title_en}" (${a.source_en})`);
  const noun = k === 1 ? 'article' : 'articles';
  const sentences = [`The newest ${NUMBER_WORDS[k] ?? k} Korean ${TOPIC_WORDS[topic]} ${noun}.`];
  if (headlines.length) sentences.push(`Headlines: ${headlines.join('; ')}.`);
  else
    sentences.push(
      'English translations are not available (no Claude model is configured), so this summary uses Korean keyword and name lists only.',
    );
  if (entities.length) sentences.push(`Most mentioned: ${entities.join(', ')}.`);
  if (themes.length) sentences.push(`Themes: ${themes.join(', ')}.`);
  sentences.push(
    `Tone by a Korean sentiment lexicon: ${overall} (${positives} positive, ${negatives} negative, ${k - positives - negatives} without a clear tone).`,
  );
  return {
    articles: k,
    overall_sentiment: overall,
    key_themes: themes,
    trending_entities: entities,
    summary: sentences.join(' '),
    ...(topic === 'semiconductor' ? { market_signal: mean >= 0.2 ? 'bullish' : mean <= -0.2 ? 'bearish' : 'neutral' } : {}),
  };
}

function summariesTask(topic: 'kpop' | 'semiconductor'): AnalystTask<SummaryInput, { summaries: TopicSummary[] }> {
  return {
    name: `kr-news-${topic}-summaries`,
    tier: 'fast',
    promptVersion: 1,
    description: `Record summaries of the newest Korean ${TOPIC_WORDS[topic]} news articles: one for the newest 1, 2, ... n articles.`,
    instructions:
      `Summarise Korean ${TOPIC_WORDS[topic]} news for readers of an English data service. The articles a1..an are in the untrusted texts, newest first. ` +
      'Write one summary per k from 1 to n, in order, each covering exactly the newest k articles (a1..ak), with `articles` = k: ' +
      'overall_sentiment, key_themes (short English phrases, most important first), trending_entities (people, groups, companies or products mentioned most, English names), ' +
      'and summary (one paragraph, factual, only what the articles report)' +
      (topic === 'semiconductor'
        ? ', and market_signal: what this news suggests for Korean semiconductor equities (bullish, bearish or neutral), from the news alone.'
        : '.'),
    output: z.strictObject({ summaries: z.array(summaryItem(topic)).min(1).max(NEWS_LIMIT_MAX) }) as unknown as z.ZodType<{
      summaries: TopicSummary[];
    }>,
    facts: (input) => ({
      topic: TOPIC_WORDS[input.topic],
      articles: input.articles.map((a, i) => ({
        id: `a${i + 1}`,
        published_at: a.published_at,
        publisher: a.source_en,
        lexicon_sentiment: a.sentiment,
        named_entities: a.entities,
      })),
    }),
    untrusted: (input) =>
      input.articles.map((a, i) => ({
        id: `a${i + 1}`,
        source: a.source_en,
        title: a.title_en ?? a.title_kr,
        body: a.summary_en ?? a.body_kr,
      })),
    rules: (input) => ({ summaries: input.articles.map((_, i) => rulesSummary(input.topic, input.articles.slice(0, i + 1))) }),
    verify: (answer, input) => {
      const counts = answer.summaries.map((s) => s.articles);
      const expected = input.articles.map((_, i) => i + 1);
      return counts.join(',') === expected.join(',')
        ? null
        : `expected one summary for each of 1..${input.articles.length} newest articles, in order; got [${counts.join(', ')}]`;
    },
    maxTokens: 6000,
  };
}

export const SUMMARY_TASKS = { kpop: summariesTask('kpop'), semiconductor: summariesTask('semiconductor') };

/** The document of one news dataset: the listed articles and the summary per limit. */
export async function newsDocument(
  ctx: PipelineContext,
  topic: 'kpop' | 'semiconductor',
): Promise<{ doc: Record<string, unknown>; models: string[] }> {
  const articles = await articlesOf(ctx, topic, { limit: NEWS_LIMIT_MAX });
  if (articles.length === 0) {
    throw new Error(
      `kr-news-${topic}: no ${TOPIC_WORDS[topic]} article of the last ${NEWS_WINDOW_DAYS} days is ready to publish (none ingested, or none translated yet); the last good version stays live`,
    );
  }
  const answer = await ctx.analyst.run(SUMMARY_TASKS[topic], { topic, articles });
  const summaries = Object.fromEntries(
    answer.value.summaries.map((s) => {
      const { articles: count, ...fields } = s;
      return [String(count), fields];
    }),
  );
  const models = [...new Set([answer.model, ...articles.map((a) => a.translation_model)].filter((m): m is string => m !== null))].sort();
  return {
    models,
    doc: {
      source: ctx.sourceKind,
      as_of: ctx.now.toISOString(),
      topic,
      analyst: answer.analyst,
      model: answer.model,
      articles: articles.map((a) => ({
        id: a.id,
        title_en: a.translation === 'unavailable' ? null : a.title_en,
        summary_en: a.translation === 'unavailable' ? null : a.summary_en,
        source_en: a.source_en,
        title_kr: a.title_kr,
        source_kr: a.source_kr,
        url: a.url,
        published_at: a.published_at,
        translation: a.translation,
        translation_model: a.translation_model,
        ...(topic === 'kpop' ? { relevance: a.relevance ?? 'low' } : {}),
      })),
      summaries,
    },
  };
}
