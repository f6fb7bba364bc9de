import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeFeedBytes } from './charset.ts';
import { parseFeedDate } from './dates.ts';
import { articleId, canonicalUrl, collapseDuplicates, titleKey, type NewsItem } from './dedup.ts';
import { BUILT_IN_FEEDS, feedFetchUrl, loadNewsFeeds, NEWS_TOPICS } from './feeds.ts';
import { newsFixtureBytes } from '../../testing/news-upstreams.ts';
import { capText, plainText } from './plain-text.ts';
import { publisherOf } from './publishers.ts';

const iso = (d: Date | null) => d?.toISOString() ?? null;

describe('parseFeedDate', () => {
  it('reads RFC 822 with numeric offsets and zone names as UTC instants', () => {
    expect(iso(parseFeedDate('Thu, 30 Jul 2026 09:00:00 +0900'))).toBe('2026-07-30T00:00:00.000Z');
    expect(iso(parseFeedDate('Thu, 30 Jul 2026 14:20:00 KST'))).toBe('2026-07-30T05:20:00.000Z');
    expect(iso(parseFeedDate('Thu, 30 Jul 2026 05:02:00 GMT'))).toBe('2026-07-30T05:02:00.000Z');
    expect(iso(parseFeedDate('30 Jul 2026 05:02 -0400'))).toBe('2026-07-30T09:02:00.000Z');
    expect(iso(parseFeedDate('Thu, 30 Jul 26 09:00:00 +0900'))).toBe('2026-07-30T00:00:00.000Z');
  });

  it('reads ISO 8601 (Atom) and the zone-less ndsoft form as Korean time', () => {
    expect(iso(parseFeedDate('2026-07-30T05:58:12Z'))).toBe('2026-07-30T05:58:12.000Z');
    expect(iso(parseFeedDate('2026-07-30T07:00:00+09:00'))).toBe('2026-07-29T22:00:00.000Z');
    expect(iso(parseFeedDate('2026-07-30T07:00:00.123+0900'))).toBe('2026-07-29T22:00:00.000Z');
    expect(iso(parseFeedDate('2026-07-30 08:31:00'))).toBe('2026-07-29T23:31:00.000Z');
    expect(iso(parseFeedDate('2026.07.30 08:31'))).toBe('2026-07-29T23:31:00.000Z');
  });

  it('gives null for what it cannot read, rather than a wrong instant', () => {
    for (const bad of [
      '',
      '   ',
      'garbage',
      '발행일 미정',
      'Thu, 31 Jun 2026 09:00:00 +0900',
      'Thu, 30 Foo 2026 09:00:00 +0900',
      '30 Jul 2026 09:00:00 XYZ',
      '2026-13-01',
    ]) {
      expect(parseFeedDate(bad), bad).toBeNull();
    }
    expect(parseFeedDate(undefined)).toBeNull();
  });
});

describe('plainText and capText', () => {
  it('strips tags, decodes named and numeric entities, drops CDATA markers, collapses whitespace', () => {
    expect(plainText('<p>HBM&nbsp;&middot; D램</p>\n\n<p>&#8220;호황&#8221; &#x2014; &quot;끝&quot;</p>')).toBe('HBM · D램 “호황” — "끝"');
    expect(plainText('삼성전자 <b>HBM</b>4 양산')).toBe('삼성전자 HBM4 양산'); // inline tags join their text
    expect(plainText('<![CDATA[<b>세븐틴</b>]]>')).toBe('세븐틴');
    expect(plainText('a<br/>b<br>c')).toBe('a b c');
    expect(plainText('&#147;old CMS&#148;')).toBe('“old CMS”');
  });

  it('handles double-encoded markup and keeps Korean angle-bracket titles as text', () => {
    expect(plainText('&amp;lt;b&amp;gt;HBM&amp;lt;/b&amp;gt; &amp;quot;호황&amp;quot;')).toBe('HBM "호황"');
    expect(plainText('영화 &lt;기생충&gt; 4관왕')).toBe('영화 <기생충> 4관왕');
    expect(plainText('R&D 투자 &unknown; 유지')).toBe('R&D 투자 &unknown; 유지');
  });

  it('caps a long text on a word boundary with an ellipsis', () => {
    const words = Array.from({ length: 400 }, (_, i) => `단어${i}`).join(' ');
    const capped = capText(words, 1000);
    expect(capped.length).toBeLessThanOrEqual(1000);
    expect(capped.length).toBeGreaterThan(800);
    expect(capped.endsWith('…')).toBe(true);
    expect(words.startsWith(`${capped.slice(0, -1)} `)).toBe(true); // cut before a space, not inside a word
    expect(capText('짧은 본문', 1000)).toBe('짧은 본문');
  });
});

describe('canonicalUrl', () => {
  it('drops tracking parameters, fragment, www., default port and trailing slash; sorts the rest', () => {
    expect(canonicalUrl('https://www.etnews.com/20260730000187?utm_source=rss&utm_medium=feed#reply')).toBe(
      'https://etnews.com/20260730000187',
    );
    expect(canonicalUrl('HTTP://WWW.EtNews.com:80/20260730000187/')).toBe('https://etnews.com/20260730000187');
    expect(canonicalUrl('https://www.thelec.kr/news/articleView.html?sc=x&idxno=41235&fbclid=abc&gclid=1')).toBe(
      'https://thelec.kr/news/articleView.html?idxno=41235&sc=x',
    );
    expect(canonicalUrl('https://m.yna.co.kr/view/AKR20260730031100005?input=1195m')).toBe('https://m.yna.co.kr/view/AKR20260730031100005');
    // `input` is tracking only on Yonhap.
    expect(canonicalUrl('https://example.kr/a?input=2')).toBe('https://example.kr/a?input=2');
    expect(canonicalUrl('https://example.kr:8443/')).toBe('https://example.kr:8443');
    expect(canonicalUrl('  not a url ')).toBe('not a url');
  });

  it('names articles by the hash of the canonical URL', () => {
    expect(articleId('https://etnews.com/20260730000187')).toMatch(/^news-[0-9a-f]{16}$/);
    expect(articleId(canonicalUrl('http://www.etnews.com/20260730000187'))).toBe(
      articleId(canonicalUrl('https://www.etnews.com/20260730000187?utm_campaign=x')),
    );
  });
});

describe('titleKey', () => {
  it('ignores brackets, version tags, outlet suffixes, punctuation, spacing and width', () => {
    const key = titleKey('비트코인, 1억6천만원 돌파…사상 최고치 경신');
    expect(key).toBe('비트코인1억6천만원돌파사상최고치경신');
    for (const variant of [
      '[속보] 비트코인, 1억6천만원 돌파…사상 최고치 경신',
      '비트코인 1억6천만원 돌파... 사상 최고치 경신 (종합)',
      '【단독】 비트코인 1억6천만원 돌파 사상 최고치 경신(종합2보)',
      '비트코인, 1억6천만원 돌파…사상 최고치 경신 - 연합뉴스',
      '비트코인, 1억6천만원 돌파…사상 최고치 경신 | 블록미디어',
      '비트코인, 1억6천만원 돌파…사상 최고치 경신 - 한빛경제신문', // not a listed outlet, but named like one
      '［속보］비트코인，１억６천만원 돌파…사상 최고치 경신', // full-width forms (NFKC)
    ]) {
      expect(titleKey(variant), variant).toBe(key);
    }
    expect(titleKey('삼성전자(005930) 주가 급등')).toBe('삼성전자005930주가급등'); // not a tag: kept
    expect(titleKey('SK하이닉스 - 엔비디아 공급 확대')).toBe('sk하이닉스엔비디아공급확대'); // a subtitle, not an outlet
    expect(titleKey('HBM 수율 개선 - 반도체인사이트', ['반도체인사이트'])).toBe('hbm수율개선');
  });
});

describe('collapseDuplicates', () => {
  const item = (over: Partial<NewsItem>): NewsItem => ({
    feed: 'f',
    order: 0,
    topic: 'semiconductor',
    publishedAt: new Date('2026-07-30T00:00:00Z'),
    url: 'https://a.kr/1',
    canonicalUrl: 'https://a.kr/1',
    titleKey: 'a-title-key-long',
    sourceKr: 'a',
    sourceEn: 'a',
    titleKr: 't',
    bodyKr: '',
    ...over,
  });

  it('keeps the earliest of a group joined by URL or title, the first-listed source on a tie', () => {
    const kept = collapseDuplicates([
      item({ feed: 'late', order: 0, publishedAt: new Date('2026-07-30T02:00:00Z'), canonicalUrl: 'u1', titleKey: '삼성전자hbm4양산돌입' }),
      item({
        feed: 'early',
        order: 1,
        publishedAt: new Date('2026-07-30T01:00:00Z'),
        canonicalUrl: 'u2',
        titleKey: '삼성전자hbm4양산돌입',
      }),
      // joined to the group through u2 although its title differs
      item({
        feed: 'third',
        order: 2,
        publishedAt: new Date('2026-07-30T03:00:00Z'),
        canonicalUrl: 'u2',
        titleKey: '다른제목다른제목다른',
      }),
      item({ feed: 'tie-second', order: 4, canonicalUrl: 'u9', titleKey: '동점기사동점기사동점' }),
      item({ feed: 'tie-first', order: 3, canonicalUrl: 'u9', titleKey: '동점기사동점기사동점' }),
      // short keys name a subject, not an article: both kept
      item({ feed: 'short-a', canonicalUrl: 's1', titleKey: '뉴진스' }),
      item({ feed: 'short-b', canonicalUrl: 's2', titleKey: '뉴진스' }),
    ]);
    expect(kept.map((i) => i.feed)).toEqual(['early', 'tie-first', 'short-a', 'short-b']);
  });
});

describe('decodeFeedBytes', () => {
  const euckr = newsFixtureBytes('starnews-st_news.euc-kr.xml');
  const title = '스트레이 키즈, 日 오리콘 주간 차트 1위…해외 아티스트 최초';

  it('uses the Content-Type charset, else the XML declaration, else UTF-8', () => {
    expect(decodeFeedBytes(euckr, 'text/xml; charset=EUC-KR')).toMatchObject({ charset: 'euc-kr' });
    expect(decodeFeedBytes(euckr, 'text/xml; charset=EUC-KR').text).toContain(title);
    expect(decodeFeedBytes(euckr, 'text/xml').text).toContain(title); // the declaration says EUC-KR
    const undeclared = Buffer.from(euckr.toString('latin1').replace(/^<\?xml[^>]*\?>/, ''), 'latin1');
    expect(decodeFeedBytes(undeclared, 'text/xml; charset="ks_c_5601-1987"').text).toContain(title);
    expect(decodeFeedBytes(undeclared, 'text/xml; charset=cp949').text).toContain(title);
    // With no word on the charset the bytes are read as UTF-8 and the Hangul is lost.
    expect(decodeFeedBytes(undeclared, 'text/xml').text).not.toContain(title);
    expect(decodeFeedBytes(Buffer.from('<rss>반도체</rss>'), 'text/xml; charset=nonsense-8')).toMatchObject({
      text: '<rss>반도체</rss>',
      charset: 'utf-8',
      note: 'unknown charset "nonsense-8", read as UTF-8',
    });
  });
});

describe('feed list', () => {
  const dir = mkdtempSync(join(tmpdir(), 'news-feeds-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('built in: unique ids, every topic, https URLs', () => {
    expect(new Set(BUILT_IN_FEEDS.map((f) => f.id)).size).toBe(BUILT_IN_FEEDS.length);
    expect(new Set(BUILT_IN_FEEDS.map((f) => f.topic))).toEqual(new Set(NEWS_TOPICS));
    for (const f of BUILT_IN_FEEDS) expect(f.url).toMatch(/^https:\/\//);
    expect(loadNewsFeeds(null)).toBe(BUILT_IN_FEEDS);
  });

  it('NEWS_FEEDS_URL keeps host and path as the path', () => {
    expect(feedFetchUrl('https://www.yna.co.kr/rss/entertainment.xml', 'http://127.0.0.1:9/mirror/')).toBe(
      'http://127.0.0.1:9/mirror/www.yna.co.kr/rss/entertainment.xml',
    );
    expect(feedFetchUrl('https://news.google.com/rss/search?q=HBM&hl=ko', 'http://m')).toBe(
      'http://m/news.google.com/rss/search?q=HBM&hl=ko',
    );
    expect(feedFetchUrl('https://rss.etnews.com/06.xml', null)).toBe('https://rss.etnews.com/06.xml');
  });

  it('NEWS_FEEDS_FILE errors name the file and the field', () => {
    const good = {
      id: 'yonhap-entertainment',
      topic: 'kpop',
      url: 'https://www.yna.co.kr/rss/entertainment.xml',
      source_kr: '연합뉴스',
      source_en: 'Yonhap',
    };
    const badTopic = file('bad-topic.json', JSON.stringify([good, { ...good, id: 'second', topic: 'sports' }]));
    expect(() => loadNewsFeeds(badTopic)).toThrow(`NEWS_FEEDS_FILE ${badTopic} is not a valid feed list`);
    expect(() => loadNewsFeeds(badTopic)).toThrow(/\[1\]\.topic: .*"kpop"/);
    expect(() => loadNewsFeeds(file('bad-url.json', JSON.stringify([{ ...good, url: 'ftp://x/y' }])))).toThrow(
      /\[0\]\.url: must be an absolute http\(s\) URL/,
    );
    expect(() => loadNewsFeeds(file('bad-id.json', JSON.stringify([{ ...good, id: 'Has Spaces' }])))).toThrow(
      /\[0\]\.id: must be lower-case/,
    );
    expect(() => loadNewsFeeds(file('dup.json', JSON.stringify([good, good])))).toThrow(
      /\[1\]\.id: "yonhap-entertainment" is listed twice/,
    );
    expect(() => loadNewsFeeds(file('missing-field.json', JSON.stringify([{ ...good, source_en: undefined }])))).toThrow(
      /\[0\]\.source_en/,
    );
    expect(() => loadNewsFeeds(file('empty.json', '[]'))).toThrow(/must list at least one feed/);
    expect(() => loadNewsFeeds(file('not-json.json', '[{ id: yonhap }]'))).toThrow(/NEWS_FEEDS_FILE .*not-json\.json is not valid JSON/);
    expect(() => loadNewsFeeds(join(dir, 'absent.json'))).toThrow(/NEWS_FEEDS_FILE .*absent\.json cannot be read/);
    const ok = file('ok.json', JSON.stringify([good]));
    expect(loadNewsFeeds(ok)).toEqual([good]);
  });
});

describe('publisherOf', () => {
  it('names known outlets by host or parent domain, unknown ones by host', () => {
    expect(publisherOf('http://www.etnews.com/20260730000187')).toEqual({ kr: '전자신문', en: 'Electronic Times News' });
    expect(publisherOf('https://m.yna.co.kr/view/AKR1')).toEqual({ kr: '연합뉴스', en: 'Yonhap News Agency' });
    expect(publisherOf('https://n.news.naver.com/mnews/article/421/1')).toEqual({ kr: '네이버 뉴스', en: 'Naver News' });
    expect(publisherOf('https://www.ddaily.co.kr/page/view/1')).toEqual({ kr: 'ddaily.co.kr', en: 'ddaily.co.kr' });
  });
});
