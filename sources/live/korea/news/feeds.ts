/**
 * Which Korean news sources the live korea pipeline reads: the built-in RSS/Atom feeds per topic
 * (or NEWS_FEEDS_FILE in their place), and the Naver news search queries used when both Naver
 * credentials are set.
 *
 * The feed URLs follow docs/upstreams-korea.md, "RSS feeds", where it lists them; the crypto outlets
 * are not listed there and their URLs are plausible guesses for each site's CMS (ndsoft
 * `/rss/allArticle.xml`, WordPress `/feed`). None of them could be checked from the build machine
 * (no network): verify them at recording time. A feed that moved fails alone and is recorded.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { describeIssues } from '../../../../lib/zod-issues.ts';

import { NEWS_TOPICS, type NewsTopic } from '../../../raw-tables.ts';

export { NEWS_TOPICS, type NewsTopic };

export interface NewsFeed {
  /** Short and stable: it names the feed in news_articles.feed, news_fetch_log and ingest_failures (news:<id>). */
  id: string;
  /** A hint written to news_articles.topic; the pipeline assigns the final topic. */
  topic: NewsTopic;
  url: string;
  source_kr: string;
  source_en: string;
}

export const BUILT_IN_FEEDS: readonly NewsFeed[] = [
  // K-pop
  {
    id: 'yonhap-entertainment',
    topic: 'kpop',
    url: 'https://www.yna.co.kr/rss/entertainment.xml',
    source_kr: '연합뉴스',
    source_en: 'Yonhap News Agency',
  },
  { id: 'starnews', topic: 'kpop', url: 'https://rss.mt.co.kr/st_news.xml', source_kr: '스타뉴스', source_en: 'Star News' },
  { id: 'mbn-enter', topic: 'kpop', url: 'https://www.mbn.co.kr/rss/enter/', source_kr: 'MBN', source_en: 'MBN' },
  // Semiconductors
  {
    id: 'thelec-semiconductor',
    topic: 'semiconductor',
    url: 'https://www.thelec.kr/rss/S1N2.xml',
    source_kr: '디일렉',
    source_en: 'The Elec',
  },
  { id: 'kipost', topic: 'semiconductor', url: 'https://www.kipost.net/rss/allArticle.xml', source_kr: 'KIPOST', source_en: 'KIPOST' },
  {
    id: 'etnews-electronics',
    topic: 'semiconductor',
    url: 'https://rss.etnews.com/06.xml',
    source_kr: '전자신문',
    source_en: 'Electronic Times News',
  },
  {
    id: 'etnews-components',
    topic: 'semiconductor',
    url: 'https://rss.etnews.com/06062.xml',
    source_kr: '전자신문',
    source_en: 'Electronic Times News',
  },
  {
    id: 'zdnet-korea',
    topic: 'semiconductor',
    url: 'https://feeds.feedburner.com/zdkorea',
    source_kr: '지디넷코리아',
    source_en: 'ZDNet Korea',
  },
  {
    id: 'yonhap-industry',
    topic: 'semiconductor',
    url: 'https://www.yna.co.kr/rss/industry.xml',
    source_kr: '연합뉴스',
    source_en: 'Yonhap News Agency',
  },
  // Korean crypto market (URLs unverified, see above)
  { id: 'blockmedia', topic: 'crypto', url: 'https://www.blockmedia.co.kr/feed', source_kr: '블록미디어', source_en: 'Blockmedia' },
  {
    id: 'coindeskkorea',
    topic: 'crypto',
    url: 'https://www.coindeskkorea.com/rss/allArticle.xml',
    source_kr: '코인데스크코리아',
    source_en: 'CoinDesk Korea',
  },
  { id: 'decenter', topic: 'crypto', url: 'https://www.decenter.kr/rss/allArticle.xml', source_kr: '디센터', source_en: 'Decenter' },
  { id: 'tokenpost', topic: 'crypto', url: 'https://www.tokenpost.kr/rss', source_kr: '토큰포스트', source_en: 'TokenPost' },
];

/** Naver news search queries per topic (sort=date): broad terms, one request each per round. */
export const NAVER_QUERIES: Readonly<Record<NewsTopic, readonly string[]>> = {
  kpop: ['케이팝', '컴백', '아이돌'],
  semiconductor: ['반도체', 'HBM', '삼성전자 반도체'],
  crypto: ['비트코인', '가상자산', '업비트'],
};

const feedSchema = z.object({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be lower-case letters, digits and dashes, like "yonhap-entertainment"'),
  topic: z.enum(NEWS_TOPICS),
  url: z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' }),
  source_kr: z.string().trim().min(1),
  source_en: z.string().trim().min(1),
});

const feedsFileSchema = z
  .array(feedSchema)
  .min(1, 'must list at least one feed')
  .superRefine((feeds, ctx) => {
    const seen = new Set<string>();
    feeds.forEach((f, i) => {
      if (seen.has(f.id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `"${f.id}" is listed twice; feed ids must be unique` });
      seen.add(f.id);
    });
  });

/**
 * NEWS_FEEDS_FILE: a JSON array of `{ id, topic, url, source_kr, source_en }` that replaces the
 * built-in list. Fails naming the file and the first bad fields.
 */
export function loadNewsFeeds(file: string | null): readonly NewsFeed[] {
  if (file === null) return BUILT_IN_FEEDS;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`NEWS_FEEDS_FILE ${file} cannot be read: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`NEWS_FEEDS_FILE ${file} is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = feedsFileSchema.safeParse(json);
  if (!parsed.success) {
    throw new Error(
      `NEWS_FEEDS_FILE ${file} is not a valid feed list (a JSON array of { id, topic: ${NEWS_TOPICS.join(' | ')}, url, source_kr, source_en }): ${describeIssues(parsed.error.issues)}`,
    );
  }
  return parsed.data;
}

/**
 * Where a feed is fetched from: its own URL, or under NEWS_FEEDS_URL with host and path kept as
 * the path (`https://www.yna.co.kr/rss/x.xml` → `${mirror}/www.yna.co.kr/rss/x.xml`).
 */
export function feedFetchUrl(feedUrl: string, mirror: string | null): string {
  if (!mirror) return feedUrl;
  const url = new URL(feedUrl);
  return `${mirror.replace(/\/+$/, '')}/${url.host}${url.pathname}${url.search}`;
}
