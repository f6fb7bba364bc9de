/**
 * Naver news search (docs/upstreams-korea.md, "Naver news search"): GET /v1/search/news.json?query=…&display=…&start=1&sort=date
 * with the X-Naver-Client-Id / X-Naver-Client-Secret headers. `title` and `description` carry
 * `<b>` highlights and HTML entities; `originallink` is the publisher's URL (empty for some
 * Naver-only items, then `link`, the Naver copy, is used).
 */
import { z } from 'zod';
import type { Upstream } from '../../http.ts';
import { parseFeedDate } from './dates.ts';
import { canonicalUrl, titleKey, type NewsItem } from './dedup.ts';
import type { NewsTopic } from './feeds.ts';
import { capText, plainText } from './plain-text.ts';
import { publisherOf } from './publishers.ts';

export const NAVER_NEWS_PATH = '/v1/search/news.json';
/** Results per query (the API allows 1-100); 9 queries a round every 5 minutes stay far below 25,000 calls a day. */
export const NAVER_DISPLAY = 20;

const naverItem = z.object({
  title: z.string(),
  originallink: z.string(),
  link: z.string(),
  description: z.string(),
  pubDate: z.string(),
});

// Items are read one by one (naverArticles): one that does not parse is skipped, not the answer.
const naverNewsAnswer = z.object({
  lastBuildDate: z.string().optional(),
  total: z.number().optional(),
  items: z.array(z.unknown()),
});
export type NaverNewsAnswer = z.infer<typeof naverNewsAnswer>;

export function fetchNaverNews(up: Upstream, query: string): Promise<NaverNewsAnswer> {
  return up.getJson(NAVER_NEWS_PATH, { query, display: NAVER_DISPLAY, start: 1, sort: 'date' }, naverNewsAnswer);
}

function httpUrl(text: string): string | null {
  try {
    const url = new URL(text.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** The answer's articles, found by `topic`'s search; `feed` is 'naver:<topic>'. */
export function naverArticles(
  answer: NaverNewsAnswer,
  topic: NewsTopic,
  order: number,
  fetchedAt: Date,
  outlets: readonly string[] = [],
): { items: NewsItem[]; skipped: number } {
  const items: NewsItem[] = [];
  let skipped = 0;
  for (const raw of answer.items) {
    const parsed = naverItem.safeParse(raw);
    if (!parsed.success) {
      skipped++;
      continue;
    }
    const it = parsed.data;
    const title = plainText(it.title);
    const url = httpUrl(it.originallink) ?? httpUrl(it.link);
    if (!title || !url) {
      skipped++;
      continue;
    }
    const publisher = publisherOf(url);
    items.push({
      feed: `naver:${topic}`,
      order,
      topic,
      publishedAt: parseFeedDate(it.pubDate) ?? fetchedAt,
      url,
      canonicalUrl: canonicalUrl(url),
      titleKey: titleKey(title, outlets),
      sourceKr: publisher.kr,
      sourceEn: publisher.en,
      titleKr: title,
      bodyKr: capText(plainText(it.description)),
    });
  }
  return { items, skipped };
}
