/**
 * The AI products of the korea pipeline: kr-news-kpop, kr-news-semiconductor, kr-sentiment,
 * market-read and divergence. They run after the market datasets (whose documents they read) and
 * are due on their own cadence (news 5 minutes, market read and divergence 15, sentiment 60).
 *
 * Model calls take hundreds of milliseconds each, so the products of a run are computed together:
 * the first AI step starts every due product at once (translations of new articles, market read,
 * the divergence summaries and the 25 deep analyses), the news summaries and the sentiment start
 * as soon as the translations are done, and each step then waits for its own product and writes
 * it. The analyst bounds how many calls are in flight (ANTHROPIC_CONCURRENCY).
 */
import type { DatasetAi } from '../../../snapshots/manifest.ts';
import type { PipelineContext, PrepareStep } from '../../runner.ts';
import type { KoreaInput } from '../plausibility-bounds.ts';
import type { KoreaDatasetStep } from '../sql.ts';
import { queryJson } from '../../../lib/duckdb.ts';
import { deepTask, divergenceFacts, lightTask, newsSignals, type DeepInput } from './divergence.ts';
import { newsDocument } from './kr-news.ts';
import { runArticles } from '../run-picture.ts';
import { HEADLINES_LIMIT, NEWS_WINDOW_HOURS, newsScore, sentimentTask } from './kr-sentiment.ts';
import { marketFacts, premiumsOf, type MarketFacts } from '../market-facts.ts';
import { marketReadTask } from './market-read.ts';
import { translatePending, type TranslationReport } from '../news-translation.ts';

type Product = 'kr-news-kpop' | 'kr-news-semiconductor' | 'kr-sentiment' | 'market-read' | 'divergence';
export const AI_PRODUCTS: readonly Product[] = ['kr-news-kpop', 'kr-news-semiconductor', 'kr-sentiment', 'market-read', 'divergence'];
const READS_NEWS: readonly Product[] = ['kr-news-kpop', 'kr-news-semiconductor', 'kr-sentiment'];
/**
 * The guarded inputs of each product: the market facts (market-facts.ts) read the run's market
 * documents (a refused one is carried over: the last good) and, for breadth and volumes, the
 * Korean tickers themselves.
 */
const READS: Record<Product, readonly KoreaInput[]> = {
  'kr-news-kpop': [],
  'kr-news-semiconductor': [],
  'kr-sentiment': ['krPrices'],
  'market-read': ['krPrices'],
  divergence: ['krPrices'],
};

export interface ProductDocument {
  doc: Record<string, unknown>;
  ai: DatasetAi;
}

class AiRun {
  private translations: Promise<TranslationReport> | null = null;
  private facts: Promise<MarketFacts> | null = null;
  private readonly products = new Map<Product, Promise<ProductDocument>>();
  private started = false;

  constructor(private readonly ctx: PipelineContext) {}

  /** Starts every due product; called by the first AI step of the run (idempotent). */
  startDue(): void {
    if (this.started) return;
    this.started = true;
    for (const product of AI_PRODUCTS) if (this.ctx.isDue(product)) this.get(product);
  }

  /** Starts translating the new articles when a product that reads news is due; false when none is. */
  startTranslations(): boolean {
    if (!READS_NEWS.some((p) => this.ctx.isDue(p))) return false;
    this.translated().catch(() => {}); // awaited (and reported) by the products that read news
    return true;
  }

  get(product: Product): Promise<ProductDocument> {
    let p = this.products.get(product);
    if (!p) {
      p = this.compute(product);
      p.catch(() => {}); // awaited (and reported) by the product's step
      this.products.set(product, p);
    }
    return p;
  }

  private translated(): Promise<TranslationReport> {
    this.translations ??= translatePending(this.ctx).then((report) => {
      const parts = [`${report.translated} translated`];
      if (report.rejected) parts.push(`${report.rejected} left out (no translation passed the checks)`);
      if (report.deferred) parts.push(`${report.deferred} left for a later run`);
      if (report.unavailable) parts.push(`${report.unavailable} without English (no model)`);
      this.ctx.log(`news: ${parts.join(', ')}`);
      return report;
    });
    return this.translations;
  }

  private market(): Promise<MarketFacts> {
    this.facts ??= marketFacts(this.ctx);
    return this.facts;
  }

  private ai(models: Array<string | null>): DatasetAi {
    return {
      analyst: this.ctx.analyst.kind,
      models: [...new Set(models.filter((m): m is string => m !== null))].sort(),
    };
  }

  private async compute(product: Product): Promise<ProductDocument> {
    if (READS_NEWS.includes(product)) await this.translated();
    switch (product) {
      case 'kr-news-kpop':
      case 'kr-news-semiconductor': {
        const { doc, models } = await newsDocument(this.ctx, product === 'kr-news-kpop' ? 'kpop' : 'semiconductor');
        return { doc, ai: this.ai(models) };
      }
      case 'kr-sentiment':
        return this.sentiment();
      case 'market-read':
        return this.marketRead();
      case 'divergence':
        return this.divergence();
    }
  }

  private stamp(): { source: string; as_of: string } {
    return { source: this.ctx.sourceKind, as_of: this.ctx.now.toISOString() };
  }

  private async sentiment(): Promise<ProductDocument> {
    const market = await this.requireMarket('kr-sentiment');
    // the run's whole article set (run-picture.ts): the count and tone every product of the run reports
    const news = await runArticles(this.ctx);
    const answer = await this.ctx.analyst.run(sentimentTask, { market, news });
    const btc = market.majors.find((m) => m.symbol === 'BTC');
    return {
      ai: this.ai([answer.model]),
      doc: {
        ...this.stamp(),
        ...answer.value,
        indicators: {
          btc_kimchi_premium_pct: btc?.upbit_premium_pct ?? null,
          usdt_premium_pct: market.usdt_premium_pct.upbit,
          advancers: market.breadth.advancers,
          decliners: market.breadth.decliners,
          volume_24h_krw: market.volume_24h_krw.total,
        },
        headlines: news.slice(0, HEADLINES_LIMIT).map((a) => ({
          title_en: a.title_en,
          title_kr: a.title_kr,
          source_en: a.source_en,
          published_at: a.published_at,
          sentiment_score: a.sentiment,
        })),
        inputs: {
          datasets: market.datasets,
          exchanges: market.exchanges,
          news_articles: news.length,
          news_window_hours: NEWS_WINDOW_HOURS,
          news_sentiment_score: newsScore(news),
        },
        analyst: answer.analyst,
        model: answer.model,
      },
    };
  }

  private async requireMarket(product: Product): Promise<MarketFacts> {
    const market = await this.market();
    if (!market.fx || market.majors.length === 0) {
      const stale = premiumsOf(this.ctx)?.stale?.[0];
      const why = stale
        ? `the inputs of the premiums are too far apart in time, e.g. ${stale.symbol} on ${stale.exchange}: ${stale.reason}`
        : 'Korean prices, global prices or the FX rate are missing';
      throw new Error(`${product}: this run has no kimchi-premium figures (${why}); the last good version stays live`);
    }
    return market;
  }

  private async marketRead(): Promise<ProductDocument> {
    const market = await this.requireMarket('market-read');
    const answer = await this.ctx.analyst.run(marketReadTask, market);
    return {
      ai: this.ai([answer.model]),
      doc: { ...this.stamp(), ...answer.value, alerts: market.alerts, analyst: answer.analyst, model: answer.model },
    };
  }

  private async divergence(): Promise<ProductDocument> {
    const market = await this.requireMarket('divergence');
    const kimchi = premiumsOf(this.ctx)!;
    const listed = new Set((await queryJson(this.ctx.connection, 'SELECT DISTINCT symbol FROM kr_markets')).map((r) => String(r.symbol)));
    const { facts, unavailable } = divergenceFacts(kimchi, listed);
    if (facts.length === 0) {
      const why = Object.values(unavailable).find((r) => r.includes('no current premium'));
      throw new Error(
        `divergence: none of the 25 symbols has a ${why ? `current premium in this run (${why})` : 'global reference price in this run'}; the last good version stays live`,
      );
    }
    const news = await runArticles(this.ctx);
    const names = new Map(facts.map((f) => [f.symbol, f.korean_name]));
    const btc = market.majors.find((m) => m.symbol === 'BTC');
    const deepInputs: DeepInput[] = facts.map((f) => {
      const { signals, related } = newsSignals(f.symbol, f.korean_name, news, names);
      return {
        facts: f,
        news: signals,
        articles: related,
        alerts: market.alerts.filter((a) => a.symbol === f.symbol),
        usdt_premium_pct: market.usdt_premium_pct.upbit ?? market.usdt_premium_pct.bithumb,
        market: { btc_global_price_usd: btc?.global_price_usd ?? null, btc_change_24h_pct: btc?.change_24h_pct ?? null },
      };
    });
    const [light, ...deep] = await Promise.all([
      this.ctx.analyst.run(lightTask, { symbols: facts }),
      ...deepInputs.map((input) => this.ctx.analyst.run(deepTask, input)),
    ]);
    const bySymbol: Record<string, unknown> = {};
    facts.forEach((f, i) => {
      const analysis = deep[i]!;
      bySymbol[f.symbol] = {
        symbol: f.symbol,
        global_price_usd: f.global_price_usd,
        global_source: f.global_source,
        fx_rate: f.fx_rate,
        exchanges: f.exchanges,
        divergence_pct: f.divergence_pct,
        summary: light!.value.summaries[i]!.summary,
        news_signals: deepInputs[i]!.news,
        analysis: { ...analysis.value, model: analysis.model },
      };
    });
    return {
      ai: this.ai([light!.model, ...deep.map((d) => d.model)]),
      doc: { ...this.stamp(), analyst: light!.analyst, model: light!.model, by_symbol: bySymbol, unavailable },
    };
  }
}

const runs = new WeakMap<PipelineContext, AiRun>();

function aiRunOf(ctx: PipelineContext): AiRun {
  let run = runs.get(ctx);
  if (!run) {
    run = new AiRun(ctx);
    runs.set(ctx, run);
  }
  return run;
}

/**
 * The last ingest step: starts translating the articles the news store just received, so the
 * model calls overlap the market datasets' SQL; the products that read news wait for them.
 */
export const newsTranslationStep: PrepareStep = {
  name: 'news_translations',
  tables: [],
  async run(ctx) {
    const started = aiRunOf(ctx).startTranslations();
    ctx.log(
      started ? 'news: translating the new articles in the background' : 'news: no product that reads news is due; translations wait',
    );
    return 0;
  },
};

function productStep(product: Product): KoreaDatasetStep {
  return {
    dataset: product,
    reads: READS[product],
    cadence: true,
    async run(ctx) {
      const run = aiRunOf(ctx);
      run.startDue();
      const { doc, ai } = await run.get(product);
      return ctx.writer.writeDocument(product, doc, ctx.meta(product, String(doc.as_of), ai));
    },
  };
}

export const aiProductSteps: KoreaDatasetStep[] = AI_PRODUCTS.map(productStep);
