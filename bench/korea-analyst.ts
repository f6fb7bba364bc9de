/**
 * bench korea, the news-and-analyst run: the korea pipeline in live mode against the loopback
 * upstream world, plus three Korean news feeds (RSS 2.0, the demo world's 50 newest articles) and
 * the fake Messages API answering every model call after 300 ms, as a slow real API would.
 *
 *   warm-up   a run without a key (rules analyst) fills the market history and the macro backfill;
 *             the feeds are not up yet
 *   measured  the feeds serve 50 new articles; with a key, every product is due: 50 translations,
 *             the news summaries, sentiment, market read, divergence (light and 25 deep) and the
 *             macro note, calls in flight at once up to ANTHROPIC_CONCURRENCY
 *   rerun     the same run again at once (--recompute): every answer from the cache
 *
 * Target (the AI and news issue): the measured run ≤ 5 s wall, the rerun 0 model calls. Returns its
 * figures as rows of the benchmark table (bench/table.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSettings } from '../lib/config.ts';
import { koreaPipeline } from '../pipelines/korea/index.ts';
import { checkKoreaRequest, demoReferences, koreaReplies } from '../pipelines/korea/testing/claude-replies.ts';
import type { ProgressSink } from '../pipelines/progress.ts';
import { runPipeline, type RunResult } from '../pipelines/runner.ts';
import { koreaWorld } from '../sources/demo/korea/world.ts';
import { startFakeMessagesApi } from '../sources/live/testing/fake-messages-api.ts';
import { KOREA_FIXTURE_NOW, startKoreaUpstreams } from '../sources/live/testing/korea-upstreams.ts';
import { NEWS_TOPICS, type NewsTopic } from '../sources/raw-tables.ts';
import type { RowInput } from './table.ts';

const quiet: ProgressSink = { start() {}, finish() {}, note() {}, close() {} };
const KEY = 'sk-ant-bench-0000000000000000';
const LATENCY_MS = 300;
const ARTICLES = 50;
const SEED = 42;

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** RFC 822 in Korean time, as Korean outlets write pubDate. */
function rfc822Kst(d: Date): string {
  const k = new Date(d.getTime() + 9 * 3600_000);
  const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][k.getUTCDay()];
  const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][k.getUTCMonth()];
  const p = (n: number) => String(n).padStart(2, '0');
  return `${day}, ${p(k.getUTCDate())} ${month} ${k.getUTCFullYear()} ${p(k.getUTCHours())}:${p(k.getUTCMinutes())}:${p(k.getUTCSeconds())} +0900`;
}

interface BenchArticle {
  id: string;
  topic: NewsTopic;
  publishedAt: Date;
  titleKr: string;
  bodyKr: string;
}

function rss(topic: NewsTopic, articles: BenchArticle[]): Buffer {
  const items = articles
    .map(
      (a) =>
        `<item><title>${xml(a.titleKr)}</title><link>https://bench-${topic}.invalid/news/${a.id}</link>` +
        `<description><![CDATA[<p>${a.bodyKr}</p>]]></description><pubDate>${rfc822Kst(a.publishedAt)}</pubDate><guid>${a.id}</guid></item>`,
    )
    .join('\n');
  return Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel><title>bench ${topic}</title><link>https://bench-${topic}.invalid/</link><description>bench</description>\n${items}\n</channel></rss>\n`,
  );
}

function describe(result: RunResult): string {
  const ai = result.ai;
  const asked = ai ? ai.calls + ai.cache_hits : 0;
  const bad = result.reports.filter((r) => r.status !== 'ok' && r.status !== 'kept');
  return (
    `${ai?.calls ?? 0} model calls, ${ai?.cache_hits ?? 0} cache hits (hit rate ${asked ? Math.round((100 * (ai?.cache_hits ?? 0)) / asked) : 0} %), ` +
    `${(ai?.input_tokens ?? 0).toLocaleString('en-US')} input + ${(ai?.output_tokens ?? 0).toLocaleString('en-US')} output tokens, $${(ai?.usd ?? 0).toFixed(4)}` +
    (bad.length ? `; not ok: ${bad.map((r) => `${r.name} ${r.status} (${r.detail ?? ''})`).join('; ')}` : '')
  );
}

export async function benchKoreaAnalyst(): Promise<RowInput[]> {
  console.log(
    `\nkorea news-and-analyst run: live pipeline, ${ARTICLES} new articles from 3 RSS feeds, fake Messages API answering each call after ${LATENCY_MS} ms`,
  );
  console.log('target: the run with the new articles and every AI product ≤ 5 s wall; the immediate rerun 0 model calls\n');
  const world = await startKoreaUpstreams();
  const dir = mkdtempSync(join(tmpdir(), 'bench-korea-ai-'));
  const now = KOREA_FIXTURE_NOW;
  const articles: BenchArticle[] = koreaWorld({ seed: SEED, now, scale: 1 })
    .news_articles.map((r) => ({
      id: String(r[0]),
      topic: r[1] as NewsTopic,
      publishedAt: r[2] as Date,
      titleKr: String(r[8]),
      bodyKr: String(r[9]),
    }))
    .sort((a, b) => b.publishedAt.getTime() - a.publishedAt.getTime())
    .slice(0, ARTICLES);
  const feedsFile = join(dir, 'feeds.json');
  writeFileSync(
    feedsFile,
    JSON.stringify(
      NEWS_TOPICS.map((topic) => ({
        id: `bench-${topic}`,
        topic,
        url: `https://bench-${topic}.invalid/rss.xml`,
        source_kr: `벤치 ${topic}`,
        source_en: `Bench ${topic}`,
      })),
    ),
  );
  const api = await startFakeMessagesApi({
    apiKey: KEY,
    latencyMs: LATENCY_MS,
    check: checkKoreaRequest({ secrets: [KEY, dir] }),
    respond: koreaReplies(demoReferences([{ seed: SEED, now }])),
  });
  try {
    const env = { ...world.env, NEWS_FEEDS_FILE: feedsFile, SNAPSHOTS_DIR: join(dir, 'snapshots'), WAREHOUSE_DIR: join(dir, 'warehouse') };
    const params = { source: { kind: 'live' as const }, seed: 0, scale: 1 };

    let t0 = performance.now();
    const warm = await runPipeline(koreaPipeline, { ...params, now: new Date(now.getTime() - 10 * 60_000) }, loadSettings(env), quiet);
    console.log(
      `warm-up (rules, macro backfill, feeds not up yet): ${((performance.now() - t0) / 1000).toFixed(3)} s; ${warm.manifest ? 'published' : `nothing published: ${warm.error}`}`,
    );

    for (const topic of NEWS_TOPICS) {
      world.news.feeds.set(`https://bench-${topic}.invalid/rss.xml`, {
        status: 200,
        headers: { 'content-type': 'application/rss+xml; charset=UTF-8' },
        body: rss(
          topic,
          articles.filter((a) => a.topic === topic),
        ),
      });
    }
    const claude = loadSettings({
      ...env,
      ANTHROPIC_API_KEY: KEY,
      ANTHROPIC_BASE_URL: api.url,
      ...(process.env.ANTHROPIC_CONCURRENCY ? { ANTHROPIC_CONCURRENCY: process.env.ANTHROPIC_CONCURRENCY } : {}),
    });
    api.reset();
    t0 = performance.now();
    const measured = await runPipeline(koreaPipeline, { ...params, now }, claude, quiet);
    const wall = (performance.now() - t0) / 1000;
    const aiSteps = measured.reports.filter((r) =>
      ['krw-macro-stress', 'kr-news-kpop', 'kr-news-semiconductor', 'kr-sentiment', 'market-read', 'divergence'].includes(r.name),
    );
    const aiSeconds = aiSteps.reduce((s, r) => s + (r.seconds ?? 0), 0);
    const translations = api.requests.filter((r) => r.toolName?.startsWith('write_translate_')).length;
    const newArticles = measured.reports.find((r) => r.name === 'ingest:news_store')?.rows ?? 0;
    console.log(`measured run: ${wall.toFixed(3)} s wall (AI steps ${aiSeconds.toFixed(3)} s) ${wall <= 5 ? '≤' : '>'} 5 s target`);
    console.log(`  ${newArticles} new articles, ${translations} translated; ${describe(measured)}`);
    console.log(
      `  at most ${api.maxConcurrent} calls in flight (ANTHROPIC_CONCURRENCY ${claude.anthropic.concurrency}); ${api.violations.length} request check failures`,
    );

    const measuredCalls = api.requests.length;
    api.reset();
    t0 = performance.now();
    const rerun = await runPipeline(koreaPipeline, { ...params, now, recompute: true }, claude, quiet);
    console.log(
      `immediate rerun (--recompute): ${((performance.now() - t0) / 1000).toFixed(3)} s wall; ${describe(rerun)}; ${api.requests.length} requests reached the API`,
    );
    console.log(
      `\npeak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB (this process: upstream world, fake API, pipeline, DuckDB)`,
    );
    const source = 'AI and news issue';
    return [
      {
        figure: `news-and-analyst run (${ARTICLES} articles in the feeds, ${LATENCY_MS} ms per model call): wall`,
        value: measured.manifest ? wall : null,
        unit: 's',
        target: { on: 'value', op: '<=', limit: 5, source },
      },
      { figure: 'news-and-analyst run: requests to the model API', value: measuredCalls, unit: '' },
      {
        figure: 'immediate rerun: requests to the model API',
        value: rerun.manifest ? api.requests.length : null,
        unit: '',
        target: { on: 'value', op: '=', limit: 0, source },
      },
    ];
  } finally {
    await api.close();
    await world.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
