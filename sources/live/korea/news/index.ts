/**
 * ingest:news — Korean news about K-pop, semiconductors and the Korean crypto market into
 * news_articles, from the outlets' RSS/Atom feeds (built-in list or NEWS_FEEDS_FILE, all moved
 * under NEWS_FEEDS_URL when it is set) and, when both NAVER_CLIENT_ID and NAVER_CLIENT_SECRET are
 * set, Naver news search.
 *
 * Cadence: a round runs at most once per `intervalSeconds` (300, the news cache lifetime of docs/services.md)
 * by the run's clock; a run in between fetches nothing and leaves news_articles empty, and
 * news_fetch_log (kept across runs) says when the last round was.
 *
 * Every source fails alone: its failure goes to ingest_failures as news:<feed id> (Naver queries:
 * news:naver:<topic>:<query>) and to the log, the others are written. The step throws only when
 * every source failed. Items are de-duplicated within the round (dedup.ts).
 */
import type { Settings } from '../../../../lib/config.ts';
import type { IngestContext, IngestStep } from '../../../contract.ts';
import type { Row } from '../../../../lib/duckdb.ts';
import { RAW_TABLES } from '../../../raw-tables.ts';
import { firstLine, withUpstream } from '../../http.ts';
import type { ClientTuning } from '../clients.ts';
import { clearIngestFailures, recordIngestFailure, type KoreaUpstreamName } from '../ingest-failures.ts';
import { replaceRows, resetRows } from '../raw-rows.ts';
import { decodeFeedBytes } from './charset.ts';
import { articleId, collapseDuplicates, type NewsItem } from './dedup.ts';
import { feedArticles } from './feed-articles.ts';
import { createFeedClient } from './feed-client.ts';
import { feedFetchUrl, loadNewsFeeds, NAVER_QUERIES, NEWS_TOPICS, type NewsFeed, type NewsTopic } from './feeds.ts';
import { lastNewsRound, logNewsRound, type FetchOutcome } from './fetch-log.ts';
import { fetchNaverNews, naverArticles } from './naver-search.ts';

export { canonicalUrl, titleKey, articleId } from './dedup.ts';
export { BUILT_IN_FEEDS, NAVER_QUERIES, loadNewsFeeds, feedFetchUrl, type NewsFeed, type NewsTopic } from './feeds.ts';
export { lastNewsRound, NEWS_FETCH_LOG } from './fetch-log.ts';

export interface NewsLiveOptions {
  /** A round at most this often, by the run's clock. */
  intervalSeconds: number;
  /** Applied to the feed and Naver clients after their own tuning (tests inject `sleep`, `retries`). */
  upstream: ClientTuning;
}

export const DEFAULT_NEWS_LIVE_OPTIONS: NewsLiveOptions = { intervalSeconds: 300, upstream: {} };

export type NewsLiveOverrides = Partial<NewsLiveOptions>;

export const DEFAULT_NAVER_NEWS_BASE_URL = 'https://openapi.naver.com';

// A round repeats every 5 minutes: one retry, and a failed feed waits for the next round.
const FEED_TUNING: ClientTuning = { timeoutMs: 15_000, retries: 1, concurrency: 4, backoffBaseMs: 500, maxRetryAfterMs: 30_000 };
// Naver search allows about 10 calls a second per application.
const NAVER_TUNING: ClientTuning = {
  timeoutMs: 10_000,
  retries: 1,
  concurrency: 2,
  minIntervalMs: 120,
  backoffBaseMs: 500,
  maxRetryAfterMs: 30_000,
};

const T = RAW_TABLES;

/** One place a round reads from: a feed, or one Naver query. */
type NewsSource =
  | { kind: 'feed'; id: string; order: number; feed: NewsFeed }
  | { kind: 'naver'; id: string; order: number; topic: NewsTopic; query: string };

interface SourceResult {
  source: NewsSource;
  items: NewsItem[];
  skipped: number;
  error: string | null;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Replaces every secret value in a message (an upstream may echo request headers in an error body). */
function scrubber(secrets: readonly string[]): (text: string) => string {
  const values = secrets.filter((s) => s.length >= 4);
  return (text) => values.reduce((t, s) => t.split(s).join('[redacted]'), text);
}

function articleRow(item: NewsItem): Row {
  return [
    articleId(item.canonicalUrl),
    item.topic,
    item.publishedAt,
    item.url,
    item.canonicalUrl,
    item.titleKey,
    item.sourceKr,
    item.sourceEn,
    item.titleKr,
    item.bodyKr,
    null, // title_en_ref: demo world only
    null, // body_en_ref
    item.feed,
    'live',
  ];
}

export function newsIngestStep(settings: Settings, overrides: NewsLiveOverrides = {}): IngestStep {
  const o: NewsLiveOptions = {
    intervalSeconds: overrides.intervalSeconds ?? DEFAULT_NEWS_LIVE_OPTIONS.intervalSeconds,
    upstream: { ...overrides.upstream },
  };
  const mirror = settings.upstreams.NEWS_FEEDS_URL;
  const naverId = settings.news.naverClientId;
  const naverSecret = settings.news.naverClientSecret;
  const naverOn = naverId !== null && naverSecret !== null;
  const scrub = scrubber(naverOn ? [naverId.reveal(), naverSecret.reveal()] : []);

  async function fetchFeeds(
    ctx: IngestContext,
    sources: ReadonlyArray<Extract<NewsSource, { kind: 'feed' }>>,
    outlets: readonly string[],
  ): Promise<SourceResult[]> {
    if (sources.length === 0) return [];
    const client = createFeedClient({ ...FEED_TUNING, ...o.upstream, name: 'news-feeds' });
    try {
      return await Promise.all(
        sources.map(async (source): Promise<SourceResult> => {
          try {
            const body = await client.getBytes(feedFetchUrl(source.feed.url, mirror), `news:${source.id}`);
            const decoded = decodeFeedBytes(body.bytes, body.contentType);
            if (decoded.note) ctx.log(`news:${source.id}: ${decoded.note}`);
            const got = await feedArticles(decoded.text, source.feed, source.order, ctx.now, outlets);
            const notes = [
              decoded.charset !== 'utf-8' ? decoded.charset : null,
              got.skipped ? `${got.skipped} skipped without a title or link` : null,
              got.undated ? `${got.undated} without a readable date (fetch time used)` : null,
            ].filter((n) => n !== null);
            ctx.log(`news:${source.id}: ${got.items.length} items (${got.format}${notes.length ? `; ${notes.join('; ')}` : ''})`);
            return { source, items: got.items, skipped: got.skipped, error: null };
          } catch (err) {
            return { source, items: [], skipped: 0, error: firstLine(err) };
          }
        }),
      );
    } finally {
      const { requests, retries } = client.stats();
      ctx.log(`${client.name}: ${requests} request${requests === 1 ? '' : 's'}${retries ? ` (${retries} retries)` : ''}`);
      await client.close();
    }
  }

  async function fetchNaver(
    ctx: IngestContext,
    sources: ReadonlyArray<Extract<NewsSource, { kind: 'naver' }>>,
    outlets: readonly string[],
  ): Promise<SourceResult[]> {
    if (sources.length === 0 || !naverOn) return [];
    const options = {
      ...NAVER_TUNING,
      ...o.upstream,
      headers: { ...o.upstream.headers, 'X-Naver-Client-Id': naverId.reveal(), 'X-Naver-Client-Secret': naverSecret.reveal() },
      name: 'naver-news',
      baseUrl: settings.upstreams.NAVER_NEWS_BASE_URL ?? DEFAULT_NAVER_NEWS_BASE_URL,
    };
    return withUpstream(
      options,
      (m) => ctx.log(scrub(m)),
      (up) =>
        Promise.all(
          sources.map(async (source): Promise<SourceResult> => {
            try {
              const got = naverArticles(await fetchNaverNews(up, source.query), source.topic, source.order, ctx.now, outlets);
              ctx.log(
                `news:${source.id}: ${got.items.length} items${got.skipped ? ` (${got.skipped} skipped without a title or link)` : ''}`,
              );
              return { source, items: got.items, skipped: got.skipped, error: null };
            } catch (err) {
              return { source, items: [], skipped: 0, error: `news:${source.id}: ${firstLine(err)}` };
            }
          }),
        ),
    );
  }

  return {
    name: 'ingest:news',
    tables: [T.news_articles.name],
    async run(ctx) {
      await resetRows(ctx.connection, [{ table: T.news_articles }]);
      const feeds = loadNewsFeeds(settings.news.feedsFile);

      const last = await lastNewsRound(ctx.connection, ctx.now);
      if (last && ctx.now.getTime() - last.getTime() < o.intervalSeconds * 1000) {
        ctx.log(`news: not due until ${new Date(last.getTime() + o.intervalSeconds * 1000).toISOString()}`);
        return 0;
      }

      const sources: NewsSource[] = feeds.map((feed, i) => ({ kind: 'feed', id: feed.id, order: i, feed }));
      if (naverOn) {
        for (const topic of NEWS_TOPICS) {
          for (const query of NAVER_QUERIES[topic]) {
            sources.push({ kind: 'naver', id: `naver:${topic}:${query}`, order: sources.length, topic, query });
          }
        }
      } else if (naverId !== null || naverSecret !== null) {
        ctx.log('news: Naver news search needs both NAVER_CLIENT_ID and NAVER_CLIENT_SECRET; only one is set, so it is skipped');
      }
      const upstreamName = (s: NewsSource): KoreaUpstreamName => `news:${s.id}`;
      await clearIngestFailures(ctx.connection, sources.map(upstreamName));

      const outlets = feeds.flatMap((f) => [f.source_kr, f.source_en]);
      const results = [
        ...(await fetchFeeds(
          ctx,
          sources.filter((s) => s.kind === 'feed'),
          outlets,
        )),
        ...(await fetchNaver(
          ctx,
          sources.filter((s) => s.kind === 'naver'),
          outlets,
        )),
      ];

      const outcomes: FetchOutcome[] = [];
      const failures: string[] = [];
      for (const r of results) {
        const error = r.error === null ? null : scrub(r.error);
        outcomes.push({ feed: r.source.id, ok: error === null, items: r.items.length, error });
        if (error !== null) {
          failures.push(error);
          ctx.log(error);
          await recordIngestFailure(ctx.connection, upstreamName(r.source), error, ctx.now);
        }
      }
      await logNewsRound(ctx.connection, ctx.now, outcomes);

      const found = results.flatMap((r) => r.items);
      const kept = collapseDuplicates(found).sort((a, b) => b.publishedAt.getTime() - a.publishedAt.getTime() || a.order - b.order);
      const written = await replaceRows(ctx.connection, [{ table: T.news_articles, rows: kept.map(articleRow) }]);
      const skipped = results.reduce((n, r) => n + r.skipped, 0);
      const answered = results.length - failures.length;
      ctx.log(
        `news: ${written} articles from ${answered} of ${results.length} sources` +
          ` (${plural(found.length - kept.length, 'duplicate')} collapsed, ${plural(skipped, 'item')} skipped without a title or link)`,
      );
      if (answered === 0) throw new Error(`news: every source failed: ${failures.join('; ')}`);
      return written;
    },
  };
}
