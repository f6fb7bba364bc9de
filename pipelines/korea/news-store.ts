/**
 * The news store: every Korean article the korea pipeline has seen, kept in the warehouse with the
 * time it was first seen, its topic, its K-pop relevance, lexicon sentiment, keywords and named
 * entities, and (once made) its English translation with who made it.
 *
 *   ingest:news_store  merges this run's news_articles (any source) into news_store: an article
 *                      already stored under the same id or canonical URL, or under the same
 *                      normalised title within TITLE_DEDUP_HOURS, is not added again
 *                      (de-duplication across feeds and runs). Topic, relevance,
 *                      sentiment, keywords and entities are assigned once, by deterministic rules
 *                      over the Korean text; Claude's relevance replaces the rules' when it
 *                      translates the article.
 *
 * Articles older than NEWS_KEEP_DAYS are dropped from the store.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { RAW_TABLES, type RawTable } from '../../sources/raw-tables.ts';
import type { PipelineContext, PrepareStep } from '../runner.ts';
import { appendRows, createTableSql, queryJson } from '../../lib/duckdb.ts';
import { timestampSql } from './sql.ts';
import { assignTopic, entitiesOf, keywordsOf, kpopRelevance, sentimentOf } from './text/lexicon.ts';

export type { NewsTopic } from '../../sources/raw-tables.ts';
export const NEWS_KEEP_DAYS = 30;
/** The same normalised title counts as the same article only this close in time: a daily column keeps its title. */
export const TITLE_DEDUP_HOURS = 48;

export const NEWS_STORE: RawTable = {
  name: 'news_store',
  service: 'korea',
  description: 'Every Korean article seen, with first-seen time, topic, relevance, lexicon fields and translation.',
  columns: [
    ['article_id', 'VARCHAR'],
    ['topic', 'VARCHAR'], // kpop | semiconductor | crypto | NULL (none of them: kept for de-duplication, never published)
    ['topic_hint', 'VARCHAR'],
    ['published_at', 'TIMESTAMP'],
    ['first_seen_at', 'TIMESTAMP'],
    ['url', 'VARCHAR'],
    ['canonical_url', 'VARCHAR'],
    ['title_key', 'VARCHAR'],
    ['source_kr', 'VARCHAR'],
    ['source_en', 'VARCHAR'],
    ['title_kr', 'VARCHAR'],
    ['body_kr', 'VARCHAR'],
    ['title_en_ref', 'VARCHAR'],
    ['body_en_ref', 'VARCHAR'],
    ['feed', 'VARCHAR'],
    ['source', 'VARCHAR'],
    ['relevance', 'VARCHAR'], // kpop only: high | medium | low
    ['relevance_by', 'VARCHAR'], // rules | claude
    ['sentiment', 'DOUBLE'], // lexicon score -1..1, NULL without sentiment words
    ['keywords', 'VARCHAR'], // JSON array of English keywords
    ['entities', 'VARCHAR'], // JSON array of English entity names
    ['title_en', 'VARCHAR'],
    ['summary_en', 'VARCHAR'],
    ['translation', 'VARCHAR'], // claude | demo_reference | NULL (not translated)
    ['translation_model', 'VARCHAR'],
    ['translated_at', 'TIMESTAMP'],
    ['translation_attempts', 'BIGINT'],
    ['translation_error', 'VARCHAR'],
  ],
};

/** Translation attempts (each is up to two model answers) before an article is left out for good. */
export const MAX_TRANSLATION_ATTEMPTS = 2;

export async function ensureNewsStore(c: DuckDBConnection): Promise<void> {
  await c.run(createTableSql(NEWS_STORE, NEWS_STORE.name, 'if-not-exists'));
}

interface IncomingArticle {
  article_id: string;
  topic: string | null;
  published_at: string;
  url: string;
  canonical_url: string;
  title_key: string;
  source_kr: string;
  source_en: string;
  title_kr: string;
  body_kr: string | null;
  title_en_ref: string | null;
  body_en_ref: string | null;
  feed: string;
  source: string;
}

/** Merges this run's news_articles into news_store; returns the number of new articles. */
export async function mergeNews(c: DuckDBConnection, now: Date): Promise<number> {
  await ensureNewsStore(c);
  await c.run(createTableSql(RAW_TABLES.news_articles, RAW_TABLES.news_articles.name, 'if-not-exists'));
  const incoming = (await queryJson(
    c,
    `SELECT a.article_id, a.topic, strftime(a.published_at, '%Y-%m-%dT%H:%M:%SZ') AS published_at, a.url, a.canonical_url,
            a.title_key, a.source_kr, a.source_en, a.title_kr, a.body_kr, a.title_en_ref, a.body_en_ref, a.feed, a.source
       FROM news_articles a
      WHERE a.title_kr IS NOT NULL AND a.title_kr <> '' AND a.published_at IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM news_store s
                         WHERE s.source = a.source
                           AND (s.article_id = a.article_id OR s.canonical_url = a.canonical_url
                                OR (coalesce(a.title_key, '') <> '' AND s.title_key = a.title_key
                                    AND abs(date_diff('hour', s.published_at, a.published_at)) <= ${TITLE_DEDUP_HOURS})))
    QUALIFY row_number() OVER (PARTITION BY a.source, a.canonical_url ORDER BY a.published_at, a.article_id) = 1
        AND row_number() OVER (PARTITION BY a.source, coalesce(nullif(a.title_key, ''), a.article_id) ORDER BY a.published_at, a.article_id) = 1
      ORDER BY a.published_at, a.article_id`,
  )) as unknown as IncomingArticle[];
  const rows = incoming.map((a) => {
    const text = `${a.title_kr} ${a.body_kr ?? ''}`;
    const hint = a.topic === 'kpop' || a.topic === 'semiconductor' || a.topic === 'crypto' ? a.topic : null;
    const topic = assignTopic(a.title_kr, a.body_kr ?? '', hint);
    const sentiment = sentimentOf(text);
    return [
      a.article_id,
      topic,
      a.topic,
      a.published_at,
      now,
      a.url,
      a.canonical_url,
      a.title_key,
      a.source_kr,
      a.source_en,
      a.title_kr,
      a.body_kr ?? '',
      a.title_en_ref,
      a.body_en_ref,
      a.feed,
      a.source,
      topic === 'kpop' ? kpopRelevance(a.title_kr, a.body_kr ?? '') : null,
      topic === 'kpop' ? 'rules' : null,
      sentiment.score,
      JSON.stringify(keywordsOf(text)),
      JSON.stringify([...new Set(entitiesOf(text).map((e) => e.en))]),
      null,
      null,
      null,
      null,
      null,
      0,
      null,
    ];
  });
  const added = rows.length > 0 ? await appendRows(c, NEWS_STORE, rows) : 0;
  await c.run(`DELETE FROM news_store WHERE published_at < ${timestampSql(now)} - INTERVAL ${NEWS_KEEP_DAYS} DAY`);
  return added;
}

/** Runs after the source's ingest steps (demo world or live feeds): merges news_articles into the store. */
export const newsStoreStep: PrepareStep = {
  name: 'news_store',
  tables: [],
  async run(ctx: PipelineContext) {
    const added = await mergeNews(ctx.connection, ctx.now);
    const [row] = await queryJson(ctx.connection, `SELECT count(*)::INTEGER AS n FROM news_store WHERE source = '${ctx.sourceKind}'`);
    ctx.log(`news: ${added} new article${added === 1 ? '' : 's'}, ${Number(row?.n ?? 0)} kept`);
    return added;
  },
};
