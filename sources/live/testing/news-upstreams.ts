/**
 * The news upstreams on 127.0.0.1 for tests: one server plays every outlet under NEWS_FEEDS_URL
 * (`/<host><path>`, the mirror layout) and serves the recorded feeds in ../korea/news/fixtures/
 * byte for byte with their recorded Content-Type (the shared loopback in loopback.ts sends text
 * as UTF-8, which would re-encode the EUC-KR feed), and Naver news search runs on the shared
 * loopback, answering by query. Both log every request.
 *
 *   const world = await startNewsUpstreams();
 *   loadSettings({ ...world.env, NEWS_FEEDS_FILE: NEWS_FIXTURE_FEEDS_FILE, NAVER_CLIENT_ID: …, NAVER_CLIENT_SECRET: … })
 *   world.fault('https://rss.etnews.com/06.xml', { status: 500, body: 'Internal Server Error' });
 *   world.feedRequests(); world.naver.requests;
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLoopback, type Loopback, type RecordedRequest, type Reply } from '../../../lib/testing/loopback.ts';

export const NEWS_FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'korea', 'news', 'fixtures');
/** A NEWS_FEEDS_FILE listing the recorded feeds, in the order their ties are broken. */
export const NEWS_FIXTURE_FEEDS_FILE = join(NEWS_FIXTURES, 'feeds.json');
/** When the feeds were recorded (16:45 KST): the run's `now` in tests. */
export const NEWS_FIXTURE_NOW = new Date('2026-07-30T07:45:00Z');

export interface RecordedFeed {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export function newsFixtureBytes(name: string): Buffer {
  return readFileSync(join(NEWS_FIXTURES, name));
}

function recorded(file: string, contentType: string): RecordedFeed {
  return { status: 200, headers: { 'content-type': contentType }, body: newsFixtureBytes(file) };
}

/** The recorded feed answers by outlet URL. */
export function recordedFeeds(): Map<string, RecordedFeed> {
  return new Map([
    ['https://www.yna.co.kr/rss/entertainment.xml', recorded('yonhap-entertainment.xml', 'application/xml; charset=utf-8')],
    ['https://rss.mt.co.kr/st_news.xml', recorded('starnews-st_news.euc-kr.xml', 'text/xml; charset=EUC-KR')],
    ['https://www.thelec.kr/rss/S1N2.xml', recorded('thelec-S1N2.xml', 'text/xml;charset=UTF-8')],
    // No charset in the header: the XML declaration (UTF-8) decides.
    ['https://rss.etnews.com/06.xml', recorded('etnews-06.xml', 'text/xml')],
    ['https://rss.etnews.com/06062.xml', recorded('etnews-06062.xml', 'text/xml')],
    ['https://www.blockmedia.co.kr/feed/atom/', recorded('blockmedia-atom.xml', 'application/atom+xml; charset=UTF-8')],
    ['https://www.coindeskkorea.com/rss/allArticle.xml', recorded('coindeskkorea-allArticle.xml', 'text/xml;charset=UTF-8')],
    // The HTML guide page ETNews serves where a feed index might be expected.
    ['https://www.etnews.com/rss/', recorded('etnews-rss-guide.html', 'text/html; charset=utf-8')],
  ]);
}

/** Naver answers by query; other queries get the recorded empty answer. */
export function recordedNaverAnswers(): Map<string, Reply> {
  const json = (name: string) => JSON.parse(newsFixtureBytes(name).toString('utf8')) as unknown;
  return new Map([['반도체', { json: json('naver-news-query-semiconductor.json') }]]);
}

export interface FeedRequest {
  /** The outlet URL the mirror path stands for, e.g. https://www.yna.co.kr/rss/entertainment.xml. */
  url: string;
  path: string;
  headers: IncomingHttpHeaders;
}

export interface NewsUpstreamWorld {
  /** NEWS_FEEDS_URL and NAVER_NEWS_BASE_URL pointing at the loopback servers. */
  env: { NEWS_FEEDS_URL: string; NAVER_NEWS_BASE_URL: string };
  feeds: Map<string, RecordedFeed>;
  naverAnswers: Map<string, Reply>;
  naver: Loopback;
  feedRequests(): FeedRequest[];
  /** Answers the outlet URL with this instead of its recording until healed. */
  fault(url: string, reply: RecordedFeed | { status: number; body: string; headers?: Record<string, string> }): void;
  heal(): void;
  reset(): void;
  close(): Promise<void>;
}

export async function startNewsUpstreams(): Promise<NewsUpstreamWorld> {
  const feeds = recordedFeeds();
  const naverAnswers = recordedNaverAnswers();
  const faults = new Map<string, RecordedFeed>();
  const requests: FeedRequest[] = [];

  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const query = (req.url ?? '').includes('?') ? `?${(req.url ?? '').split('?').slice(1).join('?')}` : '';
    const url = `https:/${path}${query}`; // '/www.yna.co.kr/rss/x.xml' → 'https://www.yna.co.kr/rss/x.xml'
    requests.push({ url, path, headers: req.headers });
    const answer = faults.get(url) ?? feeds.get(url);
    if (!answer) {
      res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<html><body><h1>404 Not Found</h1></body></html>');
      return;
    }
    res.writeHead(answer.status, { ...answer.headers, 'content-length': String(answer.body.length) });
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('news feed server has no TCP address');

  const naver = await startLoopback([
    {
      method: 'GET',
      path: '/v1/search/news.json',
      reply: (req: RecordedRequest) =>
        naverAnswers.get(req.query.query ?? '') ?? {
          json: JSON.parse(newsFixtureBytes('naver-news-empty.json').toString('utf8')) as unknown,
        },
    },
  ]);

  return {
    env: { NEWS_FEEDS_URL: `http://127.0.0.1:${address.port}`, NAVER_NEWS_BASE_URL: naver.url },
    feeds,
    naverAnswers,
    naver,
    feedRequests: () => [...requests],
    fault(url, reply) {
      faults.set(url, {
        status: reply.status,
        headers: { 'content-type': 'text/html; charset=utf-8', ...reply.headers },
        body: Buffer.isBuffer(reply.body) ? reply.body : Buffer.from(reply.body),
      });
    },
    heal: () => faults.clear(),
    reset() {
      requests.length = 0;
      naver.reset();
    },
    async close() {
      await naver.close();
      await new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      });
    },
  };
}
