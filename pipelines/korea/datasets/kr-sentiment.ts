/**
 * kr-sentiment: the mood of the Korean crypto market in English, from the exchange figures and
 * the Korean crypto-market news of the last 24 hours. The indicators, the headlines and the inputs
 * are facts published as they are; the deep model (or the rules) writes sentiment, score, summary
 * and drivers.
 *
 * Rules: score = 0.7 market score (market-facts.ts) + 0.3 mean lexicon sentiment of the news;
 * bullish at 0.15 or more, bearish at -0.15 or less.
 */
import { z } from 'zod';
import { KOREA_RESPONSES } from '../../../catalog/korea.ts';
import type { AnalystTask } from '../../analyst/index.ts';
import type { StoredArticle } from './kr-news.ts';
import { marketScore, type MarketFacts } from '../market-facts.ts';

export const SENTIMENT_THRESHOLD = 0.15;
export const NEWS_WINDOW_HOURS = 24;
export const HEADLINES_LIMIT = 8;
/** The newest articles of the set the model reads (the count and the lexicon tone are over the whole set). */
export const PROMPT_ARTICLES = 50;

const Body = KOREA_RESPONSES.KrSentimentBody.shape;
const SentimentAnswer = z.strictObject({
  sentiment: Body.sentiment,
  sentiment_score: Body.sentiment_score,
  summary: Body.summary,
  key_drivers: Body.key_drivers,
});
export type SentimentAnswer = z.infer<typeof SentimentAnswer>;

export interface SentimentInput {
  market: MarketFacts;
  /** The run's article set: every Korean crypto-market article of the last 24 hours, newest first (run-picture.ts). */
  news: StoredArticle[];
}

export function newsScore(news: readonly StoredArticle[]): number | null {
  const scores = news.map((a) => a.sentiment).filter((s): s is number => s !== null);
  return scores.length ? Math.round((scores.reduce((a, b) => a + b, 0) / scores.length) * 100) / 100 : null;
}

const signed = (n: number) => `${n > 0 ? '+' : ''}${n.toFixed(2)} %`;

export function rulesSentiment(input: SentimentInput): SentimentAnswer {
  const { market: f, news } = input;
  const m = marketScore(f);
  const n = newsScore(news);
  const score = Math.round(Math.max(-1, Math.min(1, 0.7 * m + 0.3 * (n ?? 0))) * 100) / 100;
  const sentiment = score >= SENTIMENT_THRESHOLD ? 'bullish' : score <= -SENTIMENT_THRESHOLD ? 'bearish' : 'neutral';
  const btc = f.majors.find((x) => x.symbol === 'BTC');
  const usdt = f.usdt_premium_pct.upbit ?? f.usdt_premium_pct.bithumb;
  const drivers: string[] = [`Breadth: ${f.breadth.advancers} up, ${f.breadth.decliners} down on Upbit`];
  if (btc?.upbit_premium_pct !== null && btc?.upbit_premium_pct !== undefined)
    drivers.push(`BTC kimchi premium ${signed(btc.upbit_premium_pct)}`);
  if (usdt !== null) drivers.push(`USDT premium ${signed(usdt)}`);
  if (btc?.change_24h_pct !== null && btc?.change_24h_pct !== undefined) drivers.push(`BTC ${signed(btc.change_24h_pct)} over 24 hours`);
  drivers.push(
    n === null
      ? 'No scored Korean crypto news in the last 24 hours'
      : `Korean crypto news tone ${n.toFixed(2)} (lexicon, ${news.length} articles)`,
  );
  const headline = news.find((a) => a.title_en)?.title_en;
  const summary =
    `The Korean crypto market reads ${sentiment} (rules score ${score.toFixed(2)} on a -1 to +1 scale: 70 % exchange figures, 30 % news tone). ` +
    `${f.breadth.advancers} Upbit markets rose and ${f.breadth.decliners} fell over 24 hours` +
    (btc?.upbit_premium_pct !== null && btc?.upbit_premium_pct !== undefined
      ? `; BTC trades at a ${signed(btc.upbit_premium_pct)} premium on Upbit`
      : '') +
    (usdt !== null ? ` and USDT at ${signed(usdt)}` : '') +
    '. ' +
    (news.length
      ? `${news.length} Korean crypto articles in the last 24 hours have a lexicon tone of ${n === null ? 'n/a' : n.toFixed(2)}${headline ? `; the latest English headline: "${headline}".` : '.'}`
      : 'No Korean crypto-market article was published in the last 24 hours.');
  return { sentiment, sentiment_score: score, summary, key_drivers: drivers.slice(0, 6) };
}

export const sentimentTask: AnalystTask<SentimentInput, SentimentAnswer> = {
  name: 'kr-sentiment',
  tier: 'deep',
  promptVersion: 2,
  description: 'Record the sentiment of the Korean crypto market: label, score, summary paragraph and key drivers.',
  instructions:
    'Judge the mood of the Korean crypto market from the exchange figures in the facts and the Korean crypto news of the last 24 hours (the untrusted texts). ' +
    'sentiment: bullish, bearish or neutral; sentiment_score: -1 (very bearish) to +1 (very bullish); summary: one English paragraph that cites the figures and news it rests on; ' +
    'key_drivers: the main drivers, one short phrase each.',
  output: SentimentAnswer,
  facts: ({ market, news }) => ({
    exchange_figures: {
      majors: market.majors,
      usdt_premium_pct: market.usdt_premium_pct,
      breadth: market.breadth,
      volume_24h_krw: market.volume_24h_krw,
      movers: market.movers,
      alerts: market.alerts.slice(0, 8).map((a) => a.message),
      macro: market.macro,
    },
    news_articles_24h: news.length,
    news: news
      .slice(0, PROMPT_ARTICLES)
      .map((a, i) => ({ id: `n${i + 1}`, published_at: a.published_at, publisher: a.source_en, lexicon_sentiment: a.sentiment })),
    news_lexicon_score: newsScore(news),
  }),
  untrusted: ({ news }) =>
    news
      .slice(0, PROMPT_ARTICLES)
      .map((a, i) => ({ id: `n${i + 1}`, source: a.source_en, title: a.title_en ?? a.title_kr, body: a.summary_en ?? a.body_kr })),
  rules: rulesSentiment,
  maxTokens: 1200,
};
