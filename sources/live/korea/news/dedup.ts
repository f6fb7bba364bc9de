/**
 * One row per article in a run: the same story reaches us from several feeds (an outlet's section
 * feeds overlap, Naver search returns what the feeds already gave) and from several outlets
 * (wire copy, pooled photos). Two items are the same article when their canonical URLs match or
 * their title keys match; each group keeps its earliest item (tie: the source listed first).
 */
import { createHash } from 'node:crypto';
import { BUILT_IN_FEEDS, type NewsTopic } from './feeds.ts';
import { PUBLISHER_NAMES } from './publishers.ts';

/** Query parameters that only say where a click came from. */
const TRACKING_PARAM = /^(?:utm_\w+|fbclid|gclid|dclid|gbraid|wbraid|msclkid|yclid|igshid|mc_cid|mc_eid|_ga|_gl|ref_src|cmpid|ncid|spm)$/i;
/** Per-site tracking parameters: Yonhap stamps every feed link with ?input=1195m (which feed). */
const SITE_TRACKING: Record<string, readonly string[]> = { 'yna.co.kr': ['input'] };

/**
 * The URL as compared for de-duplication: http and https are the same article (Naver's
 * `originallink` is often http for an https feed link), host lower-cased without `www.`, no
 * default port, fragment, tracking parameters or trailing slash, the other parameters sorted.
 * Not a URL to show: news_articles.url keeps the link as published.
 */
export function canonicalUrl(raw: string): string {
  const trimmed = raw.trim();
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return trimmed;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return url.href;
  const host = url.hostname.toLowerCase().replace(/^www\./, '');
  const siteParams = Object.entries(SITE_TRACKING).find(([site]) => host === site || host.endsWith(`.${site}`))?.[1] ?? [];
  const params = [...url.searchParams]
    .filter(([k]) => !TRACKING_PARAM.test(k) && !siteParams.includes(k.toLowerCase()))
    .sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : av > bv ? 1 : 0) : a < b ? -1 : 1));
  const port = url.port && url.port !== '80' && url.port !== '443' ? `:${url.port}` : '';
  const path = url.pathname.replace(/\/+$/, '');
  const query = params.length ? `?${new URLSearchParams(params).toString()}` : '';
  return `https://${host}${port}${path}${query}`;
}

/** Parenthesised words that tag a story's version or format rather than name its subject. */
const PAREN_TAG =
  /\(\s*(?:종합\s*\d*\s*보?|\d+\s*보|속보|상보|단독|포토|사진|영상|인터뷰|르포|그래픽|표|일문일답|팩트체크|update\s*\d*)\s*\)/gi;
/** Outlet names ending a title after a dash or bar: " - 연합뉴스", " | 디일렉". */
const OUTLET_WORD = /(?:뉴스|일보|신문|경제|미디어|타임스|방송|tv|코리아|닷컴|데일리|저널|포스트)$/;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const KNOWN_OUTLETS = [...new Set([...PUBLISHER_NAMES, ...BUILT_IN_FEEDS.flatMap((f) => [f.source_kr, f.source_en])])].map((n) =>
  n.normalize('NFKC').toLowerCase(),
);
function suffixPattern(names: readonly string[]): RegExp {
  return new RegExp(`(?:\\s*[|ㅣ]|\\s+[-–—:])\\s*(?:${names.map(escapeRegExp).join('|')})\\s*$`);
}
const KNOWN_SUFFIX = suffixPattern(KNOWN_OUTLETS);

function withoutOutletSuffix(title: string, extra: readonly string[]): string {
  const names = extra.map((n) => n.normalize('NFKC').toLowerCase().trim()).filter((n) => n !== '');
  let t = title.replace(names.length ? suffixPattern([...KNOWN_OUTLETS, ...names]) : KNOWN_SUFFIX, '');
  const generic = /\s+[-|–—ㅣ]\s+(\S{1,12})$/.exec(t);
  if (generic && OUTLET_WORD.test(generic[1]!)) t = t.slice(0, generic.index);
  return t;
}

/**
 * The title as compared for de-duplication: NFKC, lower-case, no bracketed tags ([단독], [포토],
 * 【속보】, (종합)), no outlet suffix (" - 연합뉴스"), no punctuation, symbols or spaces.
 * `outlets` adds names (e.g. of a NEWS_FEEDS_FILE's feeds) to the built-in suffix list.
 */
export function titleKey(title: string, outlets: readonly string[] = []): string {
  let t = title.normalize('NFKC').toLowerCase().trim();
  t = withoutOutletSuffix(t, outlets);
  t = t.replace(/\[[^\]]*\]|【[^】]*】|〔[^〕]*〕|〖[^〗]*〗/g, ' ').replace(PAREN_TAG, ' ');
  return t.replace(/[^\p{L}\p{N}]+/gu, '');
}

/** 'news-' + the first 16 hex digits of sha256(canonical URL): stable across runs and feeds. */
export function articleId(canonical: string): string {
  return `news-${createHash('sha256').update(canonical).digest('hex').slice(0, 16)}`;
}

/** A title key this short ("뉴진스", "포토뉴스") names a subject, not one article. */
const MIN_TITLE_KEY = 8;

export interface NewsItem {
  /** Which feed or search found it: a feed id or 'naver:<topic>'. */
  feed: string;
  /** Position of that source in the run's list (the tie-break). */
  order: number;
  topic: NewsTopic;
  publishedAt: Date;
  url: string;
  canonicalUrl: string;
  titleKey: string;
  sourceKr: string;
  sourceEn: string;
  titleKr: string;
  bodyKr: string;
}

/** Keeps one item per duplicate group (connected by URL or title key), the earliest one. */
export function collapseDuplicates(items: readonly NewsItem[]): NewsItem[] {
  const parent = items.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]!]!;
    return i;
  };
  const byKey = new Map<string, number>();
  const link = (key: string, i: number) => {
    const j = byKey.get(key);
    if (j === undefined) byKey.set(key, i);
    else parent[find(i)] = find(j);
  };
  items.forEach((item, i) => {
    link(`url ${item.canonicalUrl}`, i);
    if (item.titleKey.length >= MIN_TITLE_KEY) link(`title ${item.titleKey}`, i);
  });
  const best = new Map<number, number>();
  const before = (a: number, b: number) => {
    const x = items[a]!;
    const y = items[b]!;
    return x.publishedAt.getTime() - y.publishedAt.getTime() || x.order - y.order || a - b;
  };
  items.forEach((_, i) => {
    const root = find(i);
    const kept = best.get(root);
    if (kept === undefined || before(i, kept) < 0) best.set(root, i);
  });
  return [...best.values()].sort((a, b) => a - b).map((i) => items[i]!);
}
