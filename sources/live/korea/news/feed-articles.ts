/**
 * The articles of one RSS 2.0, Atom or RDF (RSS 1.0) feed, parsed by feedsmith (which keeps each
 * format's own structure) and reduced to what news_articles holds: plain-text title and summary,
 * the article link, the publication instant.
 */
import type { AnyFeed } from 'feedsmith';
import { parseFeedDate } from './dates.ts';
import { canonicalUrl, titleKey, type NewsItem } from './dedup.ts';
import type { NewsFeed } from './feeds.ts';
import { capText, collapseWhitespace, plainText } from './plain-text.ts';

/** One entry as every format gives it, before cleaning. */
interface RawEntry {
  title: string | undefined;
  link: string | undefined;
  summary: string | undefined;
  content: string | undefined;
  date: string | undefined;
}

export interface FeedArticles {
  format: 'rss' | 'atom' | 'rdf';
  items: NewsItem[];
  /** Entries without a title or a usable link. */
  skipped: number;
  /** Entries whose date could not be read (they carry the fetch time). */
  undated: number;
}

const BODY_MAX = 1000;

// loaded by the first live news round: its 160 modules would cost every start (npm start's demo too) about 0.4 s
let feedsmith: Promise<typeof import('feedsmith')> | null = null;

async function rawEntries(text: string, feedId: string): Promise<{ format: FeedArticles['format']; entries: RawEntry[] }> {
  const { parseFeed } = await (feedsmith ??= import('feedsmith'));
  let parsed: AnyFeed;
  try {
    parsed = parseFeed(text);
  } catch (err) {
    const head = collapseWhitespace(text.slice(0, 300)).slice(0, 120);
    throw new Error(`news:${feedId}: the answer is not an RSS, Atom or RDF feed (${(err as Error).message}): ${head}`);
  }
  switch (parsed.format) {
    case 'rss':
      return {
        format: 'rss',
        entries: (parsed.feed.items ?? []).map((item) => ({
          title: item.title,
          link: item.link ?? (item.guid?.isPermaLink !== false ? item.guid?.value : undefined),
          summary: item.description,
          content: item.content?.encoded,
          date: item.pubDate ?? item.dc?.dates?.[0],
        })),
      };
    case 'atom':
      return {
        format: 'atom',
        entries: (parsed.feed.entries ?? []).map((entry) => {
          const links = entry.links ?? [];
          const link = links.find((l) => l.rel === undefined || l.rel === 'alternate') ?? links[0];
          return {
            title: entry.title?.value,
            link: link?.href,
            summary: entry.summary?.value,
            content: entry.content?.value,
            date: entry.published ?? entry.updated,
          };
        }),
      };
    case 'rdf':
      return {
        format: 'rdf',
        entries: (parsed.feed.items ?? []).map((item) => ({
          title: item.title,
          link: item.link,
          summary: item.description,
          content: item.content?.encoded,
          date: item.dc?.dates?.[0],
        })),
      };
    default:
      throw new Error(`news:${feedId}: answered a ${parsed.format} feed; only RSS, Atom and RDF feeds are read`);
  }
}

/** WordPress ends excerpts with a "[…]" read-more marker. */
function withoutReadMore(text: string): string {
  return text.replace(/\s*\[(?:…|\.\.\.)\]$/, '');
}

/** An absolute http(s) article link (relative links resolve against the feed's own URL), or null. */
function articleLink(link: string | undefined, feedUrl: string): string | null {
  const text = collapseWhitespace(link ?? '');
  if (!text) return null;
  try {
    const url = new URL(text, feedUrl);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * The feed's articles. `order` is the feed's position in the run's list (the de-duplication
 * tie-break); `fetchedAt` stands in for a date that cannot be read.
 */
export async function feedArticles(
  text: string,
  feed: NewsFeed,
  order: number,
  fetchedAt: Date,
  outlets: readonly string[] = [],
): Promise<FeedArticles> {
  const { format, entries } = await rawEntries(text, feed.id);
  const items: NewsItem[] = [];
  let skipped = 0;
  let undated = 0;
  for (const entry of entries) {
    const title = plainText(entry.title);
    const url = articleLink(entry.link, feed.url);
    if (!title || !url) {
      skipped++;
      continue;
    }
    let publishedAt = parseFeedDate(entry.date);
    if (!publishedAt) {
      undated++;
      publishedAt = fetchedAt;
    }
    const canonical = canonicalUrl(url);
    items.push({
      feed: feed.id,
      order,
      topic: feed.topic,
      publishedAt,
      url,
      canonicalUrl: canonical,
      titleKey: titleKey(title, outlets),
      sourceKr: feed.source_kr,
      sourceEn: feed.source_en,
      titleKr: title,
      bodyKr: capText(withoutReadMore(plainText(entry.summary) || plainText(entry.content)), BODY_MAX),
    });
  }
  return { format, items, skipped, undated };
}
