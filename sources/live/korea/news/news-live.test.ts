import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSettings } from '../../../../lib/config.ts';
import { queryJson } from '../../../../lib/duckdb.ts';
import { testContext, type TestContext } from '../../testing/context.ts';
import { BUILT_IN_FEEDS, newsIngestStep, type NewsLiveOverrides } from './index.ts';
import {
  newsFixtureBytes,
  NEWS_FIXTURE_FEEDS_FILE,
  NEWS_FIXTURE_NOW,
  startNewsUpstreams,
  type NewsUpstreamWorld,
} from '../../testing/news-upstreams.ts';
import { rowsOf } from '../../../contract.ts';

const NO_WAIT: NewsLiveOverrides = { upstream: { sleep: async () => {} } };
const MINUTE = 60_000;
const NAVER_ID = 'kV3xQ9aLmN2pR7sT';
const NAVER_SECRET = 'Zq8WnYt4Ub';

let world: NewsUpstreamWorld;
let t: TestContext;
let dir: string;
beforeEach(async () => {
  world = await startNewsUpstreams();
  t = await testContext();
  dir = mkdtempSync(join(tmpdir(), 'news-live-'));
});
afterEach(async () => {
  await world.close();
  t.warehouse.close();
  rmSync(dir, { recursive: true, force: true });
});

/** One run of the step as the runner does it: its tables dropped first. Rows, or the error message. */
async function ingest(
  env: Record<string, string>,
  now = NEWS_FIXTURE_NOW,
  overrides: NewsLiveOverrides = NO_WAIT,
): Promise<number | string> {
  world.reset();
  const step = newsIngestStep(loadSettings({ ...world.env, NEWS_FEEDS_FILE: NEWS_FIXTURE_FEEDS_FILE, ...env }), {
    ...NO_WAIT,
    ...overrides,
  });
  for (const table of step.tables) await t.warehouse.connection.run(`DROP TABLE IF EXISTS ${table}`);
  try {
    return rowsOf(await step.run(t.at(now)));
  } catch (err) {
    return (err as Error).message;
  }
}

const rows = (sql: string) => queryJson(t.warehouse.connection, sql);
const count = async (sql: string) => Number((await rows(`SELECT count(*)::INTEGER AS n FROM (${sql})`))[0]!.n);
const utc = (column: string) => `strftime(${column}, '%Y-%m-%dT%H:%M:%SZ')`;
const article = async (titleLike: string) => {
  const found = await rows(
    `SELECT *, ${utc('published_at')} AS at FROM news_articles WHERE title_kr LIKE '${titleLike.replaceAll("'", "''")}'`,
  );
  expect(found, titleLike).toHaveLength(1);
  return found[0]!;
};
const feedsFile = (feeds: unknown) => {
  const path = join(dir, `feeds-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify(feeds));
  return path;
};

describe('ingest:news against the recorded feeds', () => {
  it('declares the step and the raw table it recreates', () => {
    const step = newsIngestStep(loadSettings({}));
    expect([step.name, step.tables]).toEqual(['ingest:news', ['news_articles']]);
  });

  it('reads every feed through NEWS_FEEDS_URL, decodes EUC-KR, cleans the text and collapses duplicates', async () => {
    expect(await ingest({})).toBe(16); // 18 usable items, 2 duplicates
    expect(
      world
        .feedRequests()
        .map((r) => r.path)
        .sort(),
    ).toEqual([
      '/rss.etnews.com/06.xml',
      '/rss.etnews.com/06062.xml',
      '/rss.mt.co.kr/st_news.xml',
      '/www.blockmedia.co.kr/feed/atom/',
      '/www.coindeskkorea.com/rss/allArticle.xml',
      '/www.thelec.kr/rss/S1N2.xml',
      '/www.yna.co.kr/rss/entertainment.xml',
    ]);
    expect(world.naver.requests).toHaveLength(0); // no Naver credentials

    // The EUC-KR feed (Content-Type charset=EUC-KR, bytes in EUC-KR).
    expect((await rows(`SELECT title_kr FROM news_articles WHERE feed = 'starnews' ORDER BY published_at`)).map((r) => r.title_kr)).toEqual(
      [
        '뉴진스 하니, ‘푸른 산호초’ 무대 다시 화제',
        '스트레이 키즈, 日 오리콘 주간 차트 1위…해외 아티스트 최초',
        "블랙핑크 로제, 빌보드 '핫100' 8주 연속 진입",
      ],
    );
    expect((await article('뉴진스 하니%')).body_kr).toBe(
      '뉴진스 하니가 도쿄돔에서 선보인 ‘푸른 산호초’ 무대 영상이 조회수 3천만 회를 넘었다.',
    );

    // Tags, entities (also double-encoded) and CDATA gone; Korean angle-bracket text kept.
    const all = await rows(`SELECT title_kr, body_kr FROM news_articles`);
    for (const r of all) {
      for (const text of [String(r.title_kr), String(r.body_kr)]) {
        expect(text).not.toMatch(/<\/?[a-z][a-z0-9]*[\s/>]|&(?:[a-z]+|#\d+|#x[0-9a-f]+);|<!\[CDATA\[|\]\]>|\s{2}|^\s|\s$/i);
      }
    }
    expect(await article('아이브%')).toMatchObject({
      title_kr: '아이브, 정규 2집으로 컴백…"성장한 모습 보여줄 것"',
      body_kr:
        '(서울=연합뉴스) 그룹 아이브(IVE)가 정규 2집 ‘리바이브’로 돌아온다. 소속사 스타쉽엔터테인먼트는 30일 "아이브가 다음 달 18일 오후 6시 정규 2집을 발표한다"고 밝혔다 · 타이틀곡은 미정.',
    });
    expect((await article('세븐틴%')).body_kr).toBe(
      '세븐틴이 미니 13집으로 미국 빌보드 메인 앨범 차트 2위에 올랐다. 소속사는 "팬들의 사랑 덕분"이라며 <감사>의 뜻을 전했다.',
    );
    expect(await article('업비트, 원화마켓에%')).toMatchObject({
      title_kr: '업비트, 원화마켓에 ‘솔레이어(LAYER)’ 신규 상장',
      feed: 'blockmedia',
    });

    // Dates in UTC: RFC 822 +0900 / KST / GMT, ndsoft without a zone (KST), Atom ISO; undated = fetch time.
    expect((await article('아이브%')).at).toBe('2026-07-30T00:00:00Z');
    expect((await article('블랙핑크%')).at).toBe('2026-07-30T05:20:00Z');
    expect((await article('스트레이 키즈%')).at).toBe('2026-07-30T05:02:00Z');
    expect((await article('SK하이닉스, 청주%')).at).toBe('2026-07-29T23:31:00Z');
    expect((await article('[속보] 비트코인%')).at).toBe('2026-07-30T05:58:12Z');
    expect((await article('빗썸%')).at).toBe('2026-07-30T07:45:00Z');

    // Same article in two ETNews section feeds (one link with utm_* and a fragment, another headline):
    // one row, from the feed listed first (same time), with its own link.
    expect(await rows(`SELECT feed, url, canonical_url FROM news_articles WHERE url LIKE '%20260730000187%'`)).toEqual([
      { feed: 'etnews-electronics', url: 'https://www.etnews.com/20260730000187', canonical_url: 'https://etnews.com/20260730000187' },
    ]);
    expect(await count(`SELECT * FROM news_articles WHERE title_kr LIKE 'TSMC, 2나노 웨이퍼%'`)).toBe(0);
    // Same story from two outlets with differently tagged titles: the earlier one (Blockmedia 14:58 KST, CoinDesk Korea 15:03).
    expect(await rows(`SELECT feed, title_key FROM news_articles WHERE title_kr LIKE '%비트코인%1억6천만원%'`)).toEqual([
      { feed: 'blockmedia', title_key: '비트코인1억6천만원돌파사상최고치경신' },
    ]);

    // The long ETNews column is capped on a word boundary.
    const column = String((await article('[ET단상]%')).body_kr);
    expect(column.length).toBeGreaterThan(900);
    expect(column.length).toBeLessThanOrEqual(1000);
    expect(column.endsWith('…')).toBe(true);
    const lastWord = column.slice(0, -1).split(' ').pop()!;
    expect(newsFixtureBytes('etnews-06.xml').toString('utf8')).toMatch(new RegExp(`${lastWord}[\\s<]`));

    // Every column as the raw table declares it.
    for (const r of await rows(`SELECT * FROM news_articles`)) {
      expect(r.article_id).toBe(`news-${createHash('sha256').update(String(r.canonical_url)).digest('hex').slice(0, 16)}`);
      expect(r).toMatchObject({ title_en_ref: null, body_en_ref: null, source: 'live' });
    }
    expect(await count(`SELECT DISTINCT article_id FROM news_articles`)).toBe(16);
    expect(await rows(`SELECT topic, count(*)::INTEGER AS n FROM news_articles GROUP BY ALL ORDER BY 1`)).toEqual([
      { topic: 'crypto', n: 4 },
      { topic: 'kpop', n: 6 },
      { topic: 'semiconductor', n: 6 },
    ]);
    expect(await article('[포토] 에스파%')).toMatchObject({
      url: 'https://www.yna.co.kr/view/PYH20260730118400005?input=1195m',
      canonical_url: 'https://yna.co.kr/view/PYH20260730118400005',
      source_kr: '연합뉴스',
      source_en: 'Yonhap News Agency',
      topic: 'kpop',
    });

    expect(t.logs).toContain('news:yonhap-entertainment: 3 items (rss; 1 skipped without a title or link)');
    expect(t.logs).toContain('news:starnews: 3 items (rss; euc-kr)');
    expect(t.logs).toContain('news:coindeskkorea: 3 items (rss; 1 without a readable date (fetch time used))');
    expect(t.logs).toContain('news: 16 articles from 7 of 7 sources (2 duplicates collapsed, 1 item skipped without a title or link)');
    expect(await rows(`SELECT feed, ok, items FROM news_fetch_log ORDER BY feed`)).toEqual([
      { feed: 'blockmedia', ok: true, items: 2 },
      { feed: 'coindeskkorea', ok: true, items: 3 },
      { feed: 'etnews-components', ok: true, items: 2 },
      { feed: 'etnews-electronics', ok: true, items: 2 },
      { feed: 'starnews', ok: true, items: 3 },
      { feed: 'thelec-semiconductor', ok: true, items: 3 },
      { feed: 'yonhap-entertainment', ok: true, items: 3 },
    ]);
    expect(await count(`SELECT * FROM ingest_failures`)).toBe(0);
  });

  it('decodes EUC-KR from the Content-Type charset alone and from the XML declaration alone', async () => {
    const starnews = 'https://rss.mt.co.kr/st_news.xml';
    const bytes = newsFixtureBytes('starnews-st_news.euc-kr.xml');
    const undeclared = Buffer.from(bytes.toString('latin1').replace(/^<\?xml[^>]*\?>\s*/, ''), 'latin1');
    const title = '스트레이 키즈, 日 오리콘 주간 차트 1위…해외 아티스트 최초';
    const titles = async () => (await rows(`SELECT title_kr FROM news_articles WHERE feed = 'starnews'`)).map((r) => r.title_kr);
    const every = { intervalSeconds: 0 };

    world.fault(starnews, { status: 200, headers: { 'content-type': 'application/rss+xml; charset=euc-kr' }, body: undeclared });
    await ingest({}, NEWS_FIXTURE_NOW, every);
    expect(await titles()).toContain(title);

    world.fault(starnews, { status: 200, headers: { 'content-type': 'text/xml' }, body: bytes });
    await ingest({}, NEWS_FIXTURE_NOW, every);
    expect(await titles()).toContain(title);

    // Neither: read as UTF-8, the Hangul is lost (the control that shows the two above matter).
    world.fault(starnews, { status: 200, headers: { 'content-type': 'text/xml' }, body: undeclared });
    await ingest({}, NEWS_FIXTURE_NOW, every);
    expect(await titles()).not.toContain(title);
  });

  it('uses Naver news search only with both credentials, cleans its results and never shows the secret', async () => {
    expect(await ingest({ NAVER_CLIENT_ID: NAVER_ID })).toBe(16);
    expect(world.naver.requests).toHaveLength(0);
    expect(t.logs).toContain(
      'news: Naver news search needs both NAVER_CLIENT_ID and NAVER_CLIENT_SECRET; only one is set, so it is skipped',
    );
    expect(await ingest({ NAVER_CLIENT_SECRET: NAVER_SECRET }, new Date(NEWS_FIXTURE_NOW.getTime() + 5 * MINUTE))).toBe(16);
    expect(world.naver.requests).toHaveLength(0);

    // Both set. One query refused (Naver's recorded 401), one answered by a proxy that echoes the
    // request headers in its error page.
    world.naverAnswers.set('케이팝', { status: 401, json: JSON.parse(newsFixtureBytes('naver-news-401.json').toString('utf8')) });
    world.naverAnswers.set('업비트', {
      status: 502,
      text: `<html>Bad Gateway: upstream refused X-Naver-Client-Id: ${NAVER_ID} X-Naver-Client-Secret: ${NAVER_SECRET}</html>`,
    });
    const n = await ingest(
      { NAVER_CLIENT_ID: NAVER_ID, NAVER_CLIENT_SECRET: NAVER_SECRET },
      new Date(NEWS_FIXTURE_NOW.getTime() + 10 * MINUTE),
    );
    expect(n).toBe(19); // 4 search results, 1 of them the ETNews article the feeds gave

    const queries = world.naver.requests.map((r) => r.query.query).sort();
    expect(queries).toEqual(
      ['HBM', '가상자산', '반도체', '비트코인', '삼성전자 반도체', '아이돌', '업비트', '업비트', '컴백', '케이팝'].sort(),
    ); // the 502 retried once
    for (const r of world.naver.requests) {
      expect(r.path).toBe('/v1/search/news.json');
      expect(r.query).toMatchObject({ display: '20', start: '1', sort: 'date' });
      expect(r.headers['x-naver-client-id']).toBe(NAVER_ID);
      expect(r.headers['x-naver-client-secret']).toBe(NAVER_SECRET);
    }

    expect(
      await rows(
        `SELECT title_kr, body_kr, url, source_kr, source_en, topic, ${utc('published_at')} AS at FROM news_articles WHERE feed = 'naver:semiconductor' ORDER BY published_at`,
      ),
    ).toEqual([
      {
        title_kr: '[속보] 정부, 반도체 특별법 시행령 국무회의 의결',
        body_kr: '정부가 30일 국무회의에서 반도체 특별법 시행령을 의결했다.',
        url: 'https://n.news.naver.com/mnews/article/421/0008123456?sid=101', // no originallink: Naver's copy
        source_kr: '네이버 뉴스',
        source_en: 'Naver News',
        topic: 'semiconductor',
        at: '2026-07-30T01:40:00Z',
      },
      {
        title_kr: '"반도체 호황 온다"…코스피 장비주 일제히 강세',
        body_kr: '국내 반도체 장비주가 일제히 올랐다. 한미반도체는 7% 넘게 뛰었고, 한화세미텍&이오테크닉스도 강세를 보였다.',
        url: 'https://www.ddaily.co.kr/page/view/2026073015520712345',
        source_kr: 'ddaily.co.kr', // not a known outlet: named by its host
        source_en: 'ddaily.co.kr',
        topic: 'semiconductor',
        at: '2026-07-30T06:52:00Z',
      },
      {
        title_kr: '삼성전자 반도체 2분기 영업익 "시장 예상 상회"',
        body_kr:
          '삼성전자 반도체(DS) 부문의 2분기 영업이익이 시장 전망치를 웃돌았다. HBM4 출하가 본격화하면서 메모리 가격 상승 효과가 반영됐다는 분석이다.',
        url: 'https://www.hankyung.com/article/2026073051237', // originallink, not the Naver link
        source_kr: '한국경제',
        source_en: 'The Korea Economic Daily',
        topic: 'semiconductor',
        at: '2026-07-30T07:31:00Z',
      },
    ]);
    // Naver's http originallink of the ETNews article joined the feeds' row.
    expect(await rows(`SELECT feed FROM news_articles WHERE canonical_url = 'https://etnews.com/20260730000187'`)).toEqual([
      { feed: 'etnews-electronics' },
    ]);

    const failures = await rows(`SELECT upstream, error FROM ingest_failures ORDER BY upstream`);
    expect(failures.map((f) => f.upstream)).toEqual(['news:naver:crypto:업비트', 'news:naver:kpop:케이팝']);
    expect(String(failures[1]!.error)).toMatch(/^news:naver:kpop:케이팝: naver-news: GET .*failed with HTTP 401: .*Authentication failed/);
    expect(String(failures[0]!.error)).toMatch(/HTTP 502: .*X-Naver-Client-Secret: \[redacted\]/);

    const shown = [
      ...t.logs,
      ...failures.map((f) => String(f.error)),
      ...(await rows(`SELECT error FROM news_fetch_log WHERE error IS NOT NULL`)).map((r) => String(r.error)),
    ];
    expect(shown.join('\n')).toContain('HTTP 502'); // the echoing answer was logged...
    for (const line of shown) {
      expect(line).not.toContain(NAVER_SECRET); // ...without the secret
      expect(line).not.toContain(NAVER_ID);
    }
  });

  it('a feed answering 500 or something that is not a feed fails alone and is recorded', async () => {
    world.fault('https://www.yna.co.kr/rss/entertainment.xml', { status: 500, body: '<html><body>Internal Server Error</body></html>' });
    world.fault('https://www.thelec.kr/rss/S1N2.xml', { status: 200, body: newsFixtureBytes('etnews-rss-guide.html').toString('utf8') });
    expect(await ingest({})).toBe(10); // the other five feeds: 12 items, 2 of them duplicates
    expect(world.feedRequests().filter((r) => r.path === '/www.yna.co.kr/rss/entertainment.xml')).toHaveLength(2); // a 500 is retried once
    expect(world.feedRequests().filter((r) => r.path === '/www.thelec.kr/rss/S1N2.xml')).toHaveLength(1);

    expect(await count(`SELECT * FROM news_articles WHERE feed IN ('yonhap-entertainment', 'thelec-semiconductor')`)).toBe(0);
    const failures = await rows(`SELECT upstream, error, ${utc('"at"')} AS at FROM ingest_failures ORDER BY upstream`);
    expect(failures).toHaveLength(2);
    expect(failures[0]).toMatchObject({ upstream: 'news:thelec-semiconductor', at: '2026-07-30T07:45:00Z' });
    expect(String(failures[0]!.error)).toMatch(/^news:thelec-semiconductor: the answer is not an RSS, Atom or RDF feed .*RSS 서비스/);
    expect(failures[1]).toMatchObject({ upstream: 'news:yonhap-entertainment' });
    expect(String(failures[1]!.error)).toMatch(
      /^news:yonhap-entertainment: GET http:\/\/127\.0\.0\.1:\d+\/www\.yna\.co\.kr\/rss\/entertainment\.xml failed after 2 attempts: HTTP 500/,
    );
    expect(t.logs.some((l) => l.startsWith('news:yonhap-entertainment: GET'))).toBe(true);
    expect(t.logs).toContain('news: 10 articles from 5 of 7 sources (2 duplicates collapsed, 0 items skipped without a title or link)');
    expect(await rows(`SELECT feed, ok, items FROM news_fetch_log WHERE NOT ok ORDER BY feed`)).toEqual([
      { feed: 'thelec-semiconductor', ok: false, items: 0 },
      { feed: 'yonhap-entertainment', ok: false, items: 0 },
    ]);
  });

  it('throws only when every source failed, naming each, with news_articles present and empty', async () => {
    const file = feedsFile([
      {
        id: 'etnews-index',
        topic: 'semiconductor',
        url: 'https://www.etnews.com/rss/',
        source_kr: '전자신문',
        source_en: 'Electronic Times News',
      },
      { id: 'zdnet-korea', topic: 'semiconductor', url: 'https://zdnet.co.kr/rss/', source_kr: '지디넷코리아', source_en: 'ZDNet Korea' },
    ]);
    const message = await ingest({ NEWS_FEEDS_FILE: file });
    expect(message).toMatch(
      /^news: every source failed: news:etnews-index: the answer is not an RSS, Atom or RDF feed.*; news:zdnet-korea: GET \S+ failed with HTTP 404/,
    );
    expect(world.feedRequests()).toHaveLength(2); // a 404 is not retried
    expect(await count(`SELECT * FROM news_articles`)).toBe(0);
    expect((await rows(`SELECT upstream FROM ingest_failures ORDER BY 1`)).map((r) => r.upstream)).toEqual([
      'news:etnews-index',
      'news:zdnet-korea',
    ]);
  });

  it('fetches at most every 5 minutes by the run clock', async () => {
    const at = (minutes: number) => new Date(NEWS_FIXTURE_NOW.getTime() + minutes * MINUTE);
    expect(await ingest({}, at(0))).toBe(16);
    expect(world.feedRequests()).toHaveLength(7);

    t.logs.length = 0;
    expect(await ingest({}, at(2))).toBe(0);
    expect(world.feedRequests()).toHaveLength(0);
    expect(t.logs).toEqual(['news: not due until 2026-07-30T07:50:00.000Z']);
    expect(await count(`SELECT * FROM news_articles`)).toBe(0); // the table exists, empty

    expect(await ingest({}, at(4.99))).toBe(0);
    expect(world.feedRequests()).toHaveLength(0);

    expect(await ingest({}, at(5))).toBe(16);
    expect(world.feedRequests()).toHaveLength(7);
    expect(await rows(`SELECT ${utc('fetched_at')} AS at, count(*)::INTEGER AS feeds FROM news_fetch_log GROUP BY ALL ORDER BY 1`)).toEqual(
      [
        { at: '2026-07-30T07:45:00Z', feeds: 7 },
        { at: '2026-07-30T07:50:00Z', feeds: 7 },
      ],
    );

    // A shorter interval; and rounds logged by runs with a later clock do not hold back an earlier one.
    expect(await ingest({}, at(7), { intervalSeconds: 60 })).toBe(16);
    expect(await ingest({}, at(-10))).toBe(16);
  });

  it('reads the built-in outlets under NEWS_FEEDS_URL with host and path kept as the path', async () => {
    const result = await ingest({ NEWS_FEEDS_FILE: '' });
    expect(typeof result).toBe('number'); // the recorded outlets among them answered
    expect(
      world
        .feedRequests()
        .map((r) => r.url)
        .sort(),
    ).toEqual(BUILT_IN_FEEDS.map((f) => f.url).sort());
    const recorded = new Set(world.feeds.keys());
    const unrecorded = BUILT_IN_FEEDS.filter((f) => !recorded.has(f.url)).map((f) => `news:${f.id}`);
    expect((await rows(`SELECT upstream FROM ingest_failures ORDER BY 1`)).map((r) => r.upstream)).toEqual(unrecorded.sort());
  });

  it('fails with a clear message when NEWS_FEEDS_FILE is invalid, before fetching anything', async () => {
    const file = feedsFile([
      { id: 'yonhap', topic: 'sports', url: 'https://www.yna.co.kr/rss/sports.xml', source_kr: '연합뉴스', source_en: 'Yonhap' },
    ]);
    const message = await ingest({ NEWS_FEEDS_FILE: file });
    expect(message).toContain(`NEWS_FEEDS_FILE ${file} is not a valid feed list`);
    expect(message).toMatch(/\[0\]\.topic: Invalid option: expected one of "kpop"\|"semiconductor"\|"crypto"/);
    expect(world.feedRequests()).toHaveLength(0);
    // No round started, so the next run tries again.
    expect(await count(`SELECT * FROM duckdb_tables() WHERE table_name = 'news_fetch_log'`)).toBe(0);
  });
});
