/**
 * One picture per korea run: every product a run computes reads one price snapshot (kr_tickers
 * after the plausibility check), one FX rate (premiums.ts FX_SQL, the newest official USD/KRW)
 * and one article set (the Korean crypto-market articles published in the 24 hours before the
 * run, all of them: runArticles). The prepare step `run_picture` names the three and the runner
 * stamps every dataset the run writes with them (manifest `inputs`), so a reader can tell which
 * datasets of a version rest on the same picture: a dataset kept from an earlier run (its cadence
 * said it was not due) carries that run's.
 *
 *   prices    "<newest price time>, <n> prices, #<digest>"
 *   fx        "<rate> KRW per USD, <provider>, <its time>"
 *   articles  "<n> crypto articles published <from> to <to>, #<digest>"
 * Digests: the first 12 hex digits of SHA-256 over the rows (sorted), so equal inputs name alike.
 */
import { createHash } from 'node:crypto';
import { queryJson } from '../../lib/duckdb.ts';
import type { PipelineContext, PrepareStep } from '../runner.ts';
import { articlesOf, type StoredArticle } from './datasets/kr-news.ts';
import { FX_SQL } from './premiums.ts';
import { ensureRawTables, isoSql } from './sql.ts';

/** The article set: crypto-market articles of this many hours before the run (all of them, up to `max`). */
export const RUN_ARTICLES = { hours: 24, max: 2000 } as const;

const articleSets = new WeakMap<PipelineContext, Promise<StoredArticle[]>>();

const readArticles = (ctx: PipelineContext) =>
  articlesOf(ctx, 'crypto', { limit: RUN_ARTICLES.max, sinceHours: RUN_ARTICLES.hours, publishable: false });

/**
 * The run's article set, newest first: read once, when the first product asks (after this run's
 * translations, which only add English to the same articles), shared by every product that reads news.
 */
export function runArticles(ctx: PipelineContext): Promise<StoredArticle[]> {
  let set = articleSets.get(ctx);
  if (!set) {
    set = readArticles(ctx);
    articleSets.set(ctx, set);
  }
  return set;
}

const digest = (lines: readonly string[]): string =>
  createHash('sha256')
    .update([...lines].sort().join('\n'))
    .digest('hex')
    .slice(0, 12);

/** The run's three inputs, named (the module comment). */
export async function runPicture(ctx: PipelineContext): Promise<{ prices: string; fx: string; articles: string }> {
  const c = ctx.connection;
  await ensureRawTables(c);
  const prices = await queryJson(
    c,
    `SELECT exchange || '|' || symbol || '|' || price_krw || '|' || ${isoSql('as_of')} AS line, ${isoSql('as_of')} AS as_of
       FROM kr_tickers WHERE price_krw > 0`,
  );
  const newest = prices.reduce((a, r) => (String(r.as_of) > a ? String(r.as_of) : a), '');
  const [fx] = await queryJson(c, `SELECT rate, provider, ${isoSql('as_of')} AS as_of FROM ${FX_SQL}`);
  // the same articles runArticles reads (the store takes no article during the run); their English may come later
  const articles = await readArticles(ctx);
  const from = new Date(ctx.now.getTime() - RUN_ARTICLES.hours * 3_600_000).toISOString();
  return {
    prices: prices.length ? `${newest}, ${prices.length} prices, #${digest(prices.map((r) => String(r.line)))}` : 'none',
    fx: fx ? `${Number(fx.rate)} KRW per USD, ${String(fx.provider)}, ${String(fx.as_of)}` : 'none',
    articles: `${articles.length} crypto articles published ${from.slice(0, 19)}Z to ${ctx.now.toISOString().slice(0, 19)}Z, #${digest(articles.map((a) => a.id))}`,
  };
}

export const runPictureStep: PrepareStep = {
  name: 'run_picture',
  tables: [],
  async run(ctx) {
    const picture = await runPicture(ctx);
    ctx.setRunInputs(picture);
    return { rows: 3, detail: `prices ${picture.prices}; fx ${picture.fx}; articles ${picture.articles}` };
  },
};
