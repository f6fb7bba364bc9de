/**
 * divergence: the global vs Korean price gap of each of the 25 divergence symbols, one document
 * for both tiers (the proxy slices it by symbol):
 *
 *   light  global price, Korean prices at the official rate, divergence per exchange and their
 *          mean (from this run's kimchi-premium), and a one to two sentence summary: one call of
 *          the fast model writes the summaries of all 25 symbols;
 *   deep   plus Korean news signals of the last 24 hours (articles that mention the token or the
 *          market in general, their top English keywords and lexicon sentiment: computed, not
 *          written by a model) and a structured analysis: one call of the deep model per symbol.
 *
 * A symbol without a global reference price is listed under `unavailable` with the reason (the
 * endpoint answers 404 for it before any payment is asked).
 */
import { z } from 'zod';
import { DIVERGENCE_SYMBOLS, KOREA_RESPONSES, type KoreanExchange } from '../../../catalog/korea.ts';
import type { AnalystTask } from '../../analyst/index.ts';
import { mostFrequent, type StoredArticle } from './kr-news.ts';
import type { MarketAlert } from '../market-facts.ts';
import { roundPrice } from '../sql.ts';

const Light = KOREA_RESPONSES.DivergenceBody.shape;
const Deep = KOREA_RESPONSES.DivergenceDeepBody.shape;

export const NEWS_SIGNAL_HOURS = 24;
export const TOP_KEYWORDS = 5;
/** Articles quoted to the deep model per symbol. */
export const DEEP_ARTICLES = 5;

export interface DivergenceFacts {
  symbol: string;
  korean_name: string | null;
  global_price_usd: number;
  global_source: string;
  fx_rate: number;
  exchanges: Array<{ exchange: KoreanExchange; price_krw: number; price_usd: number; divergence_pct: number }>;
  /** The symbol's Korea premium index (volume-weighted over the exchanges); the exchanges' mean when it has none. */
  divergence_pct: number | null;
  /** The market-wide reference: BTC's divergence (premium) on Upbit, or Bithumb. */
  market_divergence_pct: number | null;
}

export interface NewsSignals {
  window_hours: 24;
  /** The run's whole article set (run-picture.ts). */
  articles_in_window: number;
  article_count: number;
  top_keywords: string[];
  sentiment_score: number | null;
}

export interface DeepInput {
  facts: DivergenceFacts;
  news: NewsSignals;
  articles: StoredArticle[];
  alerts: MarketAlert[];
  usdt_premium_pct: number | null;
  market: { btc_global_price_usd: number | null; btc_change_24h_pct: number | null };
}

// Percentages keep fixed decimals; prices keep significant digits (roundPrice), so a price of
// 0.000014 USD is never published as 0.
const r4 = (n: number) => Math.round(n * 1e4) / 1e4;
const r2 = (n: number) => Math.round(n * 100) / 100;
const pct = (n: number) => `${n > 0 ? '+' : ''}${n.toFixed(2)} %`;

/** Divergence facts of every symbol with a global price, and the reason for each without one. */
export function divergenceFacts(
  kimchi: {
    fx_rate: number;
    by_symbol: Record<
      string,
      {
        symbol: string;
        korean_name: string | null;
        global_price_usd: number;
        global_source: string;
        exchanges: Array<{ exchange: KoreanExchange; price_krw: number; premium_pct: number }>;
        index?: { premium_pct: number } | null;
      }
    >;
    stale?: ReadonlyArray<{ symbol: string; exchange: string; reason: string }>;
  },
  listedAnywhere: ReadonlySet<string>,
): { facts: DivergenceFacts[]; unavailable: Record<string, string> } {
  const btc = kimchi.by_symbol.BTC?.exchanges;
  const market = btc?.find((e) => e.exchange === 'upbit')?.premium_pct ?? btc?.find((e) => e.exchange === 'bithumb')?.premium_pct ?? null;
  const facts: DivergenceFacts[] = [];
  const unavailable: Record<string, string> = {};
  for (const symbol of DIVERGENCE_SYMBOLS) {
    const entry = kimchi.by_symbol[symbol];
    const stale = (kimchi.stale ?? []).filter((x) => x.symbol === symbol);
    if (!entry && stale.length) {
      unavailable[symbol] = `${symbol} has no current premium in this run: ${stale.map((x) => `${x.exchange}: ${x.reason}`).join('; ')}`;
      continue;
    }
    if (!entry) {
      unavailable[symbol] = listedAnywhere.has(symbol)
        ? `${symbol} has no global reference price (no Binance or OKX USDT market) in this run`
        : `${symbol} has no KRW market on a Korean exchange we read and no global reference price in this run`;
      continue;
    }
    const exchanges = entry.exchanges.map((e) => ({
      exchange: e.exchange,
      price_krw: e.price_krw,
      price_usd: roundPrice(e.price_krw / kimchi.fx_rate),
      divergence_pct: r4(e.premium_pct),
    }));
    facts.push({
      symbol,
      korean_name: entry.korean_name,
      global_price_usd: entry.global_price_usd,
      global_source: entry.global_source,
      fx_rate: kimchi.fx_rate,
      exchanges,
      divergence_pct:
        entry.index?.premium_pct !== undefined
          ? r4(entry.index.premium_pct)
          : exchanges.length
            ? r4(exchanges.reduce((a, e) => a + e.divergence_pct, 0) / exchanges.length)
            : null,
      market_divergence_pct: market === null ? null : r4(market),
    });
  }
  return { facts, unavailable };
}

const ASCII_WORD = (symbol: string) => new RegExp(`(?<![A-Za-z0-9])${symbol}(?![A-Za-z0-9])`);

/** Whether a Korean article names the token (its Korean name, or the ticker as a word). */
export function mentions(article: Pick<StoredArticle, 'title_kr' | 'body_kr'>, symbol: string, koreanName: string | null): boolean {
  const text = `${article.title_kr} ${article.body_kr}`;
  return (koreanName !== null && koreanName.length >= 2 && text.includes(koreanName)) || ASCII_WORD(symbol).test(text);
}

/**
 * News signals of one symbol: the crypto articles of the window that mention it, plus those that
 * mention none of the 25 symbols (news about the market in general).
 */
export function newsSignals(
  symbol: string,
  koreanName: string | null,
  articles: readonly StoredArticle[],
  names: ReadonlyMap<string, string | null>,
): { signals: NewsSignals; related: StoredArticle[] } {
  const related = articles.filter((a) => mentions(a, symbol, koreanName) || ![...names].some(([other, name]) => mentions(a, other, name)));
  const scores = related.map((a) => a.sentiment).filter((s): s is number => s !== null);
  return {
    related,
    signals: {
      window_hours: 24,
      articles_in_window: articles.length,
      article_count: related.length,
      top_keywords: mostFrequent(
        related.map((a) => a.keywords),
        TOP_KEYWORDS,
      ),
      sentiment_score: scores.length ? r2(scores.reduce((a, b) => a + b, 0) / scores.length) : null,
    },
  };
}

// ------------------------------------------------------------------ light: one summary per symbol

const LightItem = z.strictObject({ symbol: Light.symbol, summary: Light.summary });
const LightAnswer = z.strictObject({ summaries: z.array(LightItem).min(1).max(DIVERGENCE_SYMBOLS.length) });
type LightAnswer = { summaries: Array<{ symbol: string; summary: string }> };

export function rulesLightSummary(f: DivergenceFacts): string {
  if (f.exchanges.length === 0) {
    return `${f.symbol} has no KRW market on a Korean exchange we read, so there is no Korean price to compare with its global price of $${f.global_price_usd} (${f.global_source}).`;
  }
  const per = f.exchanges.map((e) => `${EXCHANGE_NAME[e.exchange]} ${pct(e.divergence_pct)}`).join(', ');
  const against =
    f.market_divergence_pct === null || f.symbol === 'BTC'
      ? ''
      : ` That is ${Math.abs(f.divergence_pct! - f.market_divergence_pct).toFixed(2)} points ${f.divergence_pct! >= f.market_divergence_pct ? 'above' : 'below'} the market-wide BTC premium of ${pct(f.market_divergence_pct)}.`;
  return `${f.symbol} trades ${pct(f.divergence_pct!)} against its global price in Korea, volume-weighted (${per}), at ${f.fx_rate} KRW per USD.${against}`;
}

export const lightTask: AnalystTask<{ symbols: DivergenceFacts[] }, LightAnswer> = {
  name: 'divergence-light',
  tier: 'fast',
  promptVersion: 1,
  description: 'Record a one to two sentence summary of the global vs Korean price divergence of each symbol.',
  instructions:
    'For each symbol in the facts, in the same order, write a one to two sentence English summary of how its Korean price (Upbit, Bithumb, converted at the official rate) ' +
    'diverges from its global price, citing the divergence in percent and comparing it with the market-wide BTC premium (market_divergence_pct).',
  output: LightAnswer as z.ZodType<LightAnswer>,
  facts: (input) => ({ symbols: input.symbols }),
  rules: (input) => ({ summaries: input.symbols.map((f) => ({ symbol: f.symbol, summary: rulesLightSummary(f) })) }),
  verify: (answer, input) => {
    const got = answer.summaries.map((s) => s.symbol).join(',');
    const want = input.symbols.map((f) => f.symbol).join(',');
    return got === want ? null : `expected one summary per symbol in the order ${want}; got ${got}`;
  },
  maxTokens: 4000,
};

// ------------------------------------------------------------------ deep: one analysis per symbol

const DeepAnswer = Deep.analysis.omit({ model: true }).strict();
export type DeepAnswer = z.infer<typeof DeepAnswer>;

export function rulesDeepAnalysis(input: DeepInput): DeepAnswer {
  const { facts: f, news } = input;
  const drivers: string[] = [];
  if (f.divergence_pct !== null) {
    drivers.push(`The Korean price is ${pct(f.divergence_pct)} against the global price on average.`);
    if (f.market_divergence_pct !== null && f.symbol !== 'BTC') {
      const diff = f.divergence_pct - f.market_divergence_pct;
      drivers.push(
        `${Math.abs(diff).toFixed(2)} points ${diff >= 0 ? 'above' : 'below'} the market-wide BTC premium of ${pct(f.market_divergence_pct)}.`,
      );
    }
  } else {
    drivers.push(`${f.symbol} has no KRW market on a Korean exchange we read.`);
  }
  if (input.usdt_premium_pct !== null)
    drivers.push(`USDT trades at ${pct(input.usdt_premium_pct)} against the official rate, part of every KRW premium.`);
  for (const a of input.alerts.slice(0, 2)) drivers.push(a.message);
  if (news.article_count > 0) {
    drivers.push(
      `${news.article_count} Korean articles in 24 hours${news.top_keywords.length ? ` (${news.top_keywords.slice(0, 3).join(', ')})` : ''}, lexicon tone ${news.sentiment_score === null ? 'n/a' : news.sentiment_score.toFixed(2)}.`,
    );
  }
  const btc = input.market.btc_global_price_usd;
  const globalContext =
    `Globally ${f.symbol} trades at $${f.global_price_usd} on ${f.global_source}` +
    (btc !== null && f.symbol !== 'BTC' ? `, with BTC at $${btc}` : '') +
    (input.market.btc_change_24h_pct !== null ? `; BTC moved ${pct(input.market.btc_change_24h_pct)} on Upbit over 24 hours` : '') +
    '.';
  return {
    korean_market_drivers: drivers.slice(0, 5),
    global_context: globalContext,
    action_suggestion: deepAction(input),
    confidence: deepConfidence(input),
  };
}

const EXCHANGE_NAME: Record<KoreanExchange, string> = { upbit: 'Upbit', bithumb: 'Bithumb', coinone: 'Coinone', korbit: 'Korbit' };

/**
 * The rules' confidence (docs/ai.md): from how far the inputs agree and how much there is. A point
 * when the exchanges (two or more) price the token within 0.5 points of each other; a point for 5 or more
 * articles about it or the market (half for 2-4); a point when the news tone agrees with where the
 * gap stands against the market-wide premium (both above, both below, or both about level: within
 * 0.2). High from 2.5 points, medium from 1.5, else low; no Korean price is low.
 */
export function deepConfidence(input: DeepInput): 'low' | 'medium' | 'high' {
  const { facts: f, news } = input;
  if (f.exchanges.length === 0 || f.divergence_pct === null) return 'low';
  let points = 0;
  const gaps = f.exchanges.map((e) => e.divergence_pct);
  if (gaps.length >= 2 && Math.max(...gaps) - Math.min(...gaps) <= 0.5) points += 1;
  points += news.article_count >= 5 ? 1 : news.article_count >= 2 ? 0.5 : 0;
  const rel = f.market_divergence_pct === null ? null : f.divergence_pct - f.market_divergence_pct;
  const tone = news.sentiment_score;
  if (rel !== null && tone !== null) {
    const level = (x: number) => (Math.abs(x) < 0.2 ? 0 : Math.sign(x));
    if (level(rel) === level(tone)) points += 1;
  }
  return points >= 2.5 ? 'high' : points >= 1.5 ? 'medium' : 'low';
}

/** What to watch for this token: its own gap, the exchange that prices it higher, its alert and its news. */
export function deepAction(input: DeepInput): string {
  const { facts: f, news } = input;
  const tail = ' Informational, not financial advice.';
  const gap = f.divergence_pct;
  if (gap === null) return `Watch for a Korean listing of ${f.symbol}; until then there is no Korean price to compare.${tail}`;
  const parts: string[] = [];
  const market = f.market_divergence_pct;
  const [hi, lo] = [...f.exchanges].sort((x, y) => y.divergence_pct - x.divergence_pct);
  const spread = hi && lo ? hi.divergence_pct - lo.divergence_pct : 0;
  if (market !== null && f.symbol !== 'BTC' && Math.abs(gap - market) >= 1) {
    parts.push(`Watch whether ${f.symbol}'s ${pct(gap)} Korean premium moves back toward the market-wide ${pct(market)}`);
  } else if (market !== null && f.symbol !== 'BTC') {
    parts.push(`${f.symbol} trades in line with the market-wide premium (${pct(gap)} against ${pct(market)}); watch for it to break away`);
  } else {
    parts.push(`Watch ${f.symbol}'s ${pct(gap)} premium against the USDT premium, which sets the market-wide level`);
  }
  if (hi && lo && spread >= 0.3) {
    parts.push(`${EXCHANGE_NAME[hi.exchange]} prices it ${spread.toFixed(2)} points above ${EXCHANGE_NAME[lo.exchange]}`);
  }
  const alert = input.alerts[0];
  if (alert) parts.push(`an exchange alert is open: ${alert.message.replace(/\.$/, '')}`);
  if (news.top_keywords.length) parts.push(`its Korean news is about ${news.top_keywords.slice(0, 2).join(' and ')}`);
  let text = `${parts.join('; ')}.`;
  if (text.length + tail.length > 400) text = `${parts.slice(0, 2).join('; ')}.`;
  return `${text}${tail}`;
}

export const deepTask: AnalystTask<DeepInput, DeepAnswer> = {
  name: 'divergence-deep',
  tier: 'deep',
  promptVersion: 1,
  description: "Record the structured analysis of one symbol's global vs Korean price divergence.",
  instructions:
    'Analyse the divergence between the global price of the symbol and its Korean prices (facts), with the Korean news signals of the last 24 hours and the articles in the untrusted texts. ' +
    'korean_market_drivers: what drives the Korean price (premium vs the market-wide BTC premium, USDT premium, alerts, news), one sentence each with figures; ' +
    'global_context: what the global market is doing, from the facts; action_suggestion: what to watch next, informational, not financial advice; ' +
    'confidence: low, medium or high, lower when data is missing or thin.',
  output: DeepAnswer,
  facts: (input) => ({
    divergence: input.facts,
    news_signals: input.news,
    alerts: input.alerts.map((a) => ({ type: a.type, severity: a.severity, message: a.message })),
    usdt_premium_pct: input.usdt_premium_pct,
    market: input.market,
  }),
  // The Korean text, as published: the same whether or not this run has translated it yet.
  untrusted: (input) =>
    input.articles.slice(0, DEEP_ARTICLES).map((a, i) => ({ id: `n${i + 1}`, source: a.source_kr, title: a.title_kr, body: a.body_kr })),
  rules: rulesDeepAnalysis,
  maxTokens: 1500,
};

export type { LightAnswer };
