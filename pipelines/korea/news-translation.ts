/**
 * Translating the stored Korean articles, once each.
 *
 * Korean number units (만, 억, 조) are expanded into digits before the model sees the text, and
 * every number of the Korean text must then appear, correctly scaled, in the English title and
 * summary (checkNumbers); an answer that fails is asked again once, then the article is left out
 * (never published wrong) and retried in a later run, at most MAX_TRANSLATION_ATTEMPTS times.
 *
 * Without a Claude key the demo world's reference English is used (checked the same way) and live
 * articles stay untranslated: they are published with their Korean title and the English marked
 * unavailable, never invented.
 */
import { z } from 'zod';
import { KOREA_RESPONSES } from '../../catalog/korea.ts';
import { AnalystError, type AnalystTask } from '../analyst/index.ts';
import type { PipelineContext } from '../runner.ts';
import { queryJson } from '../../lib/duckdb.ts';
import { MAX_TRANSLATION_ATTEMPTS, ensureNewsStore, type NewsTopic } from './news-store.ts';
import { checkNumbers, expandKoreanNumbers } from './text/korean-numbers.ts';

const KpopArticle = KOREA_RESPONSES.KpopNewsBody.shape.articles.element;

/** The translation tool's answer, from the catalog's article schema (English fields required here). */
const TranslationFields = {
  title_en: KpopArticle.shape.title_en.unwrap(),
  summary_en: KpopArticle.shape.summary_en.unwrap(),
};
const KpopTranslation = z.strictObject({ ...TranslationFields, relevance: KpopArticle.shape.relevance });
const PlainTranslation = z.strictObject(TranslationFields);
type Translation = { title_en: string; summary_en: string; relevance?: 'high' | 'medium' | 'low' };

export interface ArticleToTranslate {
  article_id: string;
  topic: NewsTopic;
  source_kr: string;
  source_en: string;
  title_kr: string;
  body_kr: string;
  title_en_ref: string | null;
  body_en_ref: string | null;
  relevance: 'high' | 'medium' | 'low' | null;
}

const RELEVANCE_RULES =
  'relevance: "high" when the article is about a K-pop act (group, idol, agency) and its music activity (release, comeback, chart, tour, debut, music show); ' +
  '"medium" when a K-pop act or agency is named but the story is business, variety or personal news; "low" when it is general entertainment without K-pop acts.';

function translationTask(topic: NewsTopic): AnalystTask<ArticleToTranslate, Translation> {
  const kpop = topic === 'kpop';
  return {
    name: `translate-${topic}`,
    tier: 'fast',
    promptVersion: 1,
    description: `Record the English translation of one Korean ${topic === 'kpop' ? 'K-pop' : topic} news article${kpop ? ' and its K-pop relevance' : ''}.`,
    instructions:
      'Translate the Korean news article in the untrusted text into English. title_en: the headline in natural English headline style. ' +
      'summary_en: two to three sentences in English that say what the article says. State every number of the Korean text with the same value ' +
      '(amounts, percentages, counts, dates); Korean number units are already written out in digits, so write them as English amounts ' +
      '(45,000,000,000 won = 45 billion won; 13,000,000,000 달러 = $13 billion). Use the usual English names of people, groups and companies. ' +
      'Add nothing the article does not say.' +
      (kpop ? ` ${RELEVANCE_RULES}` : ''),
    output: (kpop ? KpopTranslation : PlainTranslation) as z.ZodType<Translation>,
    facts: (a) => ({ topic: a.topic, publisher: a.source_en, number_units: 'expanded into digits' }),
    untrusted: (a) => [
      { id: 'article', source: a.source_kr, title: expandKoreanNumbers(a.title_kr), body: expandKoreanNumbers(a.body_kr) },
    ],
    rules: (a) => {
      if (a.title_en_ref === null || a.body_en_ref === null)
        throw new Error(`${a.article_id}: no reference translation to use without a model`);
      return { title_en: a.title_en_ref, summary_en: a.body_en_ref, ...(kpop ? { relevance: a.relevance ?? 'low' } : {}) };
    },
    verify: (t, a) => {
      const check = checkNumbers(`${a.title_kr}\n${a.body_kr}`, `${t.title_en}\n${t.summary_en}`);
      return check.ok ? null : `numbers of the Korean text missing or wrongly scaled in the English: ${check.missing.join(', ')}`;
    },
    maxTokens: 800,
  };
}

export const TRANSLATION_TASKS: Record<NewsTopic, AnalystTask<ArticleToTranslate, Translation>> = {
  kpop: translationTask('kpop'),
  semiconductor: translationTask('semiconductor'),
  crypto: translationTask('crypto'),
};

/** Days back a pending article is still worth translating. */
const TRANSLATE_WITHIN_DAYS = 7;
/** Most translations one run asks for (newest first); the rest wait for the next run. */
export const TRANSLATIONS_PER_RUN = 200;

export interface TranslationReport {
  translated: number;
  rejected: number;
  /** Articles left for a later run (budget reached, API down, or over the per-run limit). */
  deferred: number;
  /** Live articles without a translation because there is no model (rules analyst). */
  unavailable: number;
}

/** Translates the stored articles that have none yet, concurrently within the analyst's limit. */
export async function translatePending(ctx: PipelineContext): Promise<TranslationReport> {
  const c = ctx.connection;
  await ensureNewsStore(c);
  const rules = ctx.analyst.kind === 'rules';
  const now = ctx.now.toISOString().replace('Z', '');
  const pending = (await queryJson(
    c,
    `SELECT article_id, topic, source_kr, source_en, title_kr, coalesce(body_kr, '') AS body_kr, title_en_ref, body_en_ref, relevance
       FROM news_store
      WHERE source = $source AND topic IS NOT NULL AND translation IS NULL
        AND translation_attempts < ${MAX_TRANSLATION_ATTEMPTS}
        AND published_at <= $now::TIMESTAMP AND published_at >= $now::TIMESTAMP - INTERVAL ${TRANSLATE_WITHIN_DAYS} DAY
      ORDER BY published_at DESC, article_id`,
    { source: ctx.sourceKind, now },
  )) as unknown as ArticleToTranslate[];
  const report: TranslationReport = { translated: 0, rejected: 0, deferred: 0, unavailable: 0 };
  const todo = pending.filter((a) => !rules || (a.title_en_ref !== null && a.body_en_ref !== null));
  report.unavailable = pending.length - todo.length;
  report.deferred = Math.max(0, todo.length - TRANSLATIONS_PER_RUN);
  const batch = todo.slice(0, TRANSLATIONS_PER_RUN);
  await Promise.all(
    batch.map(async (article) => {
      try {
        const answer = await ctx.analyst.run(TRANSLATION_TASKS[article.topic], article);
        const claudeRelevance = answer.analyst === 'claude' && answer.value.relevance !== undefined;
        await queryJson(
          c,
          `UPDATE news_store SET title_en = $title, summary_en = $summary, translation = $by, translation_model = $model,
                  translated_at = $now::TIMESTAMP, translation_error = NULL,
                  relevance = CASE WHEN $claude_relevance THEN $relevance ELSE relevance END,
                  relevance_by = CASE WHEN $claude_relevance THEN 'claude' ELSE relevance_by END
            WHERE article_id = $id AND source = $source`,
          {
            title: answer.value.title_en,
            summary: answer.value.summary_en,
            by: answer.analyst === 'claude' ? 'claude' : 'demo_reference',
            model: answer.model,
            now,
            claude_relevance: claudeRelevance,
            relevance: answer.value.relevance ?? null,
            id: article.article_id,
            source: ctx.sourceKind,
          },
        );
        report.translated++;
      } catch (err) {
        // Only an answer that was rejected (twice by the model, or the reference failing its check)
        // counts against the article; the budget, the API or the warehouse failing does not.
        const rejected = err instanceof AnalystError && (err.kind === 'malformed' || err.kind === 'rules');
        if (!rejected) {
          report.deferred++;
          if (!(err instanceof AnalystError))
            ctx.log(`news: ${article.article_id} not translated in this run: ${(err as Error).message.split('\n')[0]}`);
          return;
        }
        report.rejected++;
        await queryJson(
          c,
          `UPDATE news_store SET translation_attempts = translation_attempts + 1, translation_error = $error WHERE article_id = $id AND source = $source`,
          { error: (err as Error).message.slice(0, 300), id: article.article_id, source: ctx.sourceKind },
        );
        ctx.log(`news: ${article.article_id} left out: ${(err as Error).message.split('\n')[0]}`);
      }
    }),
  );
  return report;
}
