/**
 * market-read: a signal (BULLISH, BEARISH, NEUTRAL) with a confidence, a short explanation and
 * its factors, written by the deep model from the market facts (or by the rules below), plus the
 * token-level alerts the facts hold (computed from the data, each naming its figure: the model
 * never writes an alert).
 *
 * Rules: score = 0.4 breadth + 0.3 clip(BTC 24h / 5 %) + 0.15 clip(USDT premium / 2 %)
 *              + 0.15 (50 - macro stress) / 50, in [-1, 1];
 * BULLISH at 0.2 or more, BEARISH at -0.2 or less; confidence 0.35 + 0.6 |score|, at most 0.9.
 */
import { z } from 'zod';
import { KOREA_RESPONSES } from '../../../catalog/korea.ts';
import type { AnalystTask } from '../../analyst/index.ts';
import { clip, marketSignals, type MarketFacts } from '../market-facts.ts';

export const SIGNAL_THRESHOLD = 0.2;

const Body = KOREA_RESPONSES.MarketReadBody.shape;
const MarketReadAnswer = z.strictObject({ signal: Body.signal, confidence: Body.confidence, summary: Body.summary, factors: Body.factors });
export type MarketReadAnswer = z.infer<typeof MarketReadAnswer>;

const signed = (n: number, unit = ' %') => `${n > 0 ? '+' : ''}${n.toFixed(2)}${unit}`;

export function marketReadScore(f: MarketFacts): number {
  const s = marketSignals(f);
  const macro = f.macro ? (50 - f.macro.score) / 50 : 0;
  return clip(0.4 * s.breadth + 0.3 * s.btc + 0.15 * s.usdt + 0.15 * macro);
}

export function rulesMarketRead(f: MarketFacts): MarketReadAnswer {
  const score = marketReadScore(f);
  const signal = score >= SIGNAL_THRESHOLD ? 'BULLISH' : score <= -SIGNAL_THRESHOLD ? 'BEARISH' : 'NEUTRAL';
  const factors: string[] = [];
  const btc = f.majors.find((m) => m.symbol === 'BTC');
  factors.push(`Upbit breadth: ${f.breadth.advancers} markets up and ${f.breadth.decliners} down over 24 hours.`);
  if (btc?.change_24h_pct !== null && btc?.change_24h_pct !== undefined)
    factors.push(`BTC moved ${signed(btc.change_24h_pct)} on Upbit over 24 hours.`);
  if (btc?.upbit_premium_pct !== null && btc?.upbit_premium_pct !== undefined)
    factors.push(`BTC kimchi premium on Upbit: ${signed(btc.upbit_premium_pct)}.`);
  const usdt = f.usdt_premium_pct.upbit ?? f.usdt_premium_pct.bithumb;
  if (usdt !== null) factors.push(`USDT premium: ${signed(usdt)} against the official rate.`);
  if (f.macro) factors.push(`KRW macro stress: ${f.macro.score.toFixed(1)} of 100 (${f.macro.regime.replace('_', '-')}).`);
  const critical = f.alerts.filter((a) => a.severity !== 'info').length;
  if (f.alerts.length) factors.push(`${f.alerts.length} token alerts, ${critical} of them warning or critical.`);
  const tone = signal === 'BULLISH' ? 'lean positive' : signal === 'BEARISH' ? 'lean negative' : 'are mixed';
  const summary =
    `Korean market figures ${tone} (rules score ${score.toFixed(2)} on a -1 to +1 scale, from breadth, BTC's 24-hour move, the USDT premium and macro stress). ` +
    `${f.breadth.advancers} Upbit markets rose and ${f.breadth.decliners} fell over 24 hours` +
    (btc?.change_24h_pct !== null && btc?.change_24h_pct !== undefined ? `, with BTC at ${signed(btc.change_24h_pct)}.` : '.') +
    (f.alerts.length ? ` The strongest alert: ${f.alerts[0]!.message}` : '');
  return {
    signal,
    confidence: Math.round(Math.min(0.9, 0.35 + 0.6 * Math.abs(score)) * 100) / 100,
    summary,
    factors: factors.slice(0, 8),
  };
}

export const marketReadTask: AnalystTask<MarketFacts, MarketReadAnswer> = {
  name: 'market-read',
  tier: 'deep',
  promptVersion: 1,
  description: 'Record the market read of the Korean crypto market: signal, confidence, summary and factors.',
  instructions:
    'Read the Korean crypto market from the facts (Upbit and Bithumb figures, premiums, breadth, movers, alerts, KRW macro stress). ' +
    'signal: BULLISH, BEARISH or NEUTRAL for the Korean market over the next hours; confidence: 0 to 1, lower when the figures disagree; ' +
    'summary: two to four sentences citing the figures that decide the signal; factors: the observations behind it, one short sentence each, with their numbers.',
  output: MarketReadAnswer,
  facts: (f) => f,
  rules: rulesMarketRead,
  maxTokens: 1200,
};
