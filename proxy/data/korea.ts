/**
 * Data handlers of the korea market endpoints (catalog/korea.ts), answered from one snapshot
 * version. The pipeline publishes each answer already computed; a handler only picks it:
 *
 * - kimchi-premium slices the one document of all symbols by `symbol`;
 * - kr-prices filters the kr-prices table (a few hundred rows, read once per version) by symbol
 *   and exchange;
 * - stats adds every dataset's age and carry-over state from the manifest at request time;
 * - the others serve their document as published.
 *
 * - the divergence endpoints slice the divergence document by symbol: the light tier leaves out
 *   the news signals and the analysis;
 * - the news endpoints take the newest `limit` articles of their topic's document, and the summary
 *   variants add the summary the pipeline wrote for exactly those articles.
 *
 * Every paid handler has a precheck, so nobody pays for a 404 (symbol not listed, no global
 * price) or a 503 (dataset missing from the snapshot; for kimchi-premium, no current premium
 * because the symbol's inputs were too far apart in time).
 */
import {
  decodeHistoryCursor,
  encodeHistoryCursor,
  KOREAN_EXCHANGES,
  type KoreaDocuments,
  PREMIUM_ARCHIVE,
  type PremiumInterval,
  type PremiumWindow,
} from '../../catalog/korea.ts';
import { EXECUTABLE, routesSql } from '../../catalog/korea-executable.ts';
import { absenceReason, type LoadedDataset, type LoadedSnapshot, parquetSql } from '../../snapshots/reader.ts';
import { sqlList, sqlString } from '../../lib/duckdb.ts';
import { queryRows } from './duck.ts';
import { kimchiPremiumDaily } from './kimchi-premium-daily.ts';
import { notAvailable, notFound, type DataHandler, type DataHandlers, type DataRequest, type DataResult } from './types.ts';

type Doc = Record<string, unknown>;

function missing(snapshot: LoadedSnapshot, dataset: string): DataResult {
  return notAvailable(
    `The "${dataset}" dataset is not in snapshot ${snapshot.version}: ${absenceReason(snapshot, dataset)}. Try again after the next update.`,
  );
}

function datasetOf(req: DataRequest, dataset: string): LoadedDataset | DataResult {
  return req.snapshot.datasets.get(dataset) ?? missing(req.snapshot, dataset);
}

/**
 * A dataset's document, typed by its catalog schema (KOREA_DATASET_SHAPES): the writer published
 * it only after it parsed with that schema.
 */
function documentOf<N extends keyof KoreaDocuments>(req: DataRequest, dataset: N): KoreaDocuments[N] | DataResult {
  const loaded = req.snapshot.datasets.get(dataset);
  if (!loaded || typeof loaded.document !== 'object' || loaded.document === null) return missing(req.snapshot, dataset);
  return loaded.document as KoreaDocuments[N];
}

const isResult = (value: unknown): value is DataResult =>
  typeof value === 'object' && value !== null && 'status' in value && typeof (value as { status: unknown }).status === 'number';

const ok = (body: Doc): DataResult => ({ status: 200, body });

/**
 * A handler that finds what it answers from first (in the precheck too, so a 404 or 503 costs no
 * payment), then answers from it.
 */
function sliceHandler<T>(
  find: (req: DataRequest) => T | DataResult,
  answer: (found: T, req: DataRequest) => Doc | DataResult,
): DataHandler {
  return {
    precheck(req) {
      const found = find(req);
      return isResult(found) ? found : null;
    },
    async handle(req) {
      const found = find(req);
      if (isResult(found)) return found;
      const body = answer(found, req);
      return isResult(body) ? body : ok(body);
    },
  };
}

/** An endpoint that serves its dataset's document as published. */
function documentHandler(dataset: keyof KoreaDocuments): DataHandler {
  return sliceHandler(
    (req) => documentOf(req, dataset),
    (doc) => doc,
  );
}

const symbolOf = (req: DataRequest): string => String(req.query.symbol ?? 'BTC').toUpperCase();

// ------------------------------------------------------------------ kimchi-premium

type KimchiDocument = KoreaDocuments['kimchi-premium'];

function kimchiEntry(req: DataRequest): { doc: KimchiDocument; entry: KimchiDocument['by_symbol'][string] } | DataResult {
  const doc = documentOf(req, 'kimchi-premium');
  if (isResult(doc)) return doc;
  const symbol = symbolOf(req);
  const entry = doc.by_symbol[symbol];
  if (entry) return { doc, entry };
  // Listed and priced, but the inputs of its premium are too far apart in time: no premium to sell.
  const stale = doc.stale.filter((s) => s.symbol === symbol);
  if (stale.length) {
    return notAvailable(
      `No current kimchi premium for ${symbol} in snapshot ${req.snapshot.version}: ${stale.map((s) => `${s.exchange}: ${s.reason}`).join('; ')}. Try again after the next update.`,
    );
  }
  if (doc.no_global_price.includes(symbol)) {
    const hint =
      symbol === 'USDT' || symbol === 'USDC' ? ' Its premium against the official USD/KRW rate is at /api/v1/stablecoin-premium.' : '';
    return notFound(
      `${symbol} trades on a Korean exchange but has no global reference price (no Binance or OKX market), so it has no kimchi premium.${hint}`,
    );
  }
  return notFound(
    `No Korean exchange (Upbit, Bithumb, Coinone, Korbit) lists ${symbol}; /api/v1/symbols lists every symbol with a KRW market.`,
  );
}

const kimchiPremium: DataHandler = sliceHandler(kimchiEntry, ({ doc, entry }) => ({
  source: doc.source,
  as_of: doc.as_of,
  symbol: entry.symbol,
  korean_name: entry.korean_name,
  fx_rate: doc.fx_rate,
  fx_source: doc.fx_source,
  fx_as_of: doc.fx_as_of,
  global_price_usd: entry.global_price_usd,
  global_source: entry.global_source,
  exchanges: entry.exchanges,
  index: entry.index,
  korea_index: doc.korea_index,
  // an exchange down for the whole run, or whose price for this symbol was too far in time from the other inputs
  unavailable_exchanges: [...doc.unavailable_exchanges, ...entry.stale_exchanges],
}));

// ------------------------------------------------------------------ kr-prices

interface PriceRow {
  symbol: string;
  exchange: string;
  price_krw: number;
  change_24h_pct: number;
  volume_24h_krw: number;
  as_of: string;
  last_trade_at: string | null;
  trade_age_seconds: number | null;
  stale: boolean;
}

/** The kr-prices table of one snapshot version, read once (it holds one row per market). */
const priceTables = new WeakMap<LoadedDataset, Promise<PriceRow[]>>();

function pricesOf(dataset: LoadedDataset): Promise<PriceRow[]> {
  let rows = priceTables.get(dataset);
  if (!rows) {
    rows = queryRows(
      `SELECT symbol, exchange, price_krw, change_24h_pct, volume_24h_krw, strftime(as_of, '%Y-%m-%dT%H:%M:%SZ') AS as_of,
              strftime(last_trade_at, '%Y-%m-%dT%H:%M:%SZ') AS last_trade_at, trade_age_seconds::INTEGER AS trade_age_seconds, stale
         FROM read_parquet($path)
        ORDER BY symbol, list_position(${sqlList(KOREAN_EXCHANGES)}, exchange)`,
      { path: dataset.path },
    ).then((r) => r as unknown as PriceRow[]);
    priceTables.set(dataset, rows);
    rows.catch(() => priceTables.delete(dataset));
  }
  return rows;
}

async function pricesFor(req: DataRequest): Promise<{ dataset: LoadedDataset; prices: PriceRow[] } | DataResult> {
  const dataset = datasetOf(req, 'kr-prices');
  if (isResult(dataset)) return dataset;
  const symbol = symbolOf(req);
  const exchange = String(req.query.exchange ?? 'all');
  const listed = (await pricesOf(dataset)).filter((r) => r.symbol === symbol);
  if (listed.length === 0) {
    return notFound(
      `No Korean exchange (Upbit, Bithumb, Coinone, Korbit) lists ${symbol}; /api/v1/symbols lists every symbol with a KRW market.`,
    );
  }
  const prices = exchange === 'all' ? listed : listed.filter((r) => r.exchange === exchange);
  if (prices.length === 0) {
    return notFound(`${symbol} has no KRW market on ${exchange}; it trades on ${listed.map((r) => r.exchange).join(' and ')}.`);
  }
  return { dataset, prices };
}

const krPrices: DataHandler = {
  async precheck(req) {
    const found = await pricesFor(req);
    return isResult(found) ? found : null;
  },
  async handle(req) {
    const found = await pricesFor(req);
    if (isResult(found)) return found;
    return ok({
      source: found.dataset.entry.source,
      as_of: found.dataset.entry.as_of,
      symbol: symbolOf(req),
      exchange: String(req.query.exchange ?? 'all'),
      prices: found.prices.map((r) => ({
        exchange: r.exchange,
        symbol: r.symbol,
        price_krw: r.price_krw,
        change_24h_pct: r.change_24h_pct,
        volume_24h_krw: r.volume_24h_krw,
        as_of: r.as_of,
        last_trade_at: r.last_trade_at,
        trade_age_seconds: r.trade_age_seconds,
        stale: r.stale,
      })),
    });
  },
};

// ------------------------------------------------------------------ the premium archive

const DAY_MS = 86_400_000;
/** A time as DuckDB TIMESTAMP text (UTC, no zone): what the archive's t is compared with. */
const tsText = (d: Date): string => d.toISOString().replace('T', ' ').replace('Z', '');
const isoSecond = (d: Date): string => `${d.toISOString().slice(0, 19)}Z`;
/** How long an interval is kept, in words, from PREMIUM_ARCHIVE.keepDays. */
const keptText = (interval: PremiumInterval): string => {
  const days = PREMIUM_ARCHIVE.keepDays[interval];
  return days === null ? 'for ever' : days % 365 === 0 ? `${days / 365} years` : `${days} days`;
};

/** Whether the archive dataset holds a row of `symbol` (the parts of its bucket and the deltas). */
async function holdsSymbol(data: LoadedDataset, symbol: string): Promise<boolean> {
  const rows = await queryRows(`SELECT 1 AS x FROM ${parquetSql(data, [symbol])} WHERE symbol = $symbol LIMIT 1`, { symbol });
  return rows.length > 0;
}

/**
 * The archive datasets a request reads, present (else the 503) and, when `check`, holding the
 * symbol (else the 404): the precheck checks before payment; the answer, on the same version, need
 * not ask again.
 */
async function archiveFor(req: DataRequest, intervals: readonly PremiumInterval[], check: boolean): Promise<LoadedDataset[] | DataResult> {
  const found: LoadedDataset[] = [];
  for (const interval of intervals) {
    const data = datasetOf(req, `kimchi-premium-${interval}`);
    if (isResult(data)) return data;
    found.push(data);
  }
  if (!check) return found;
  const symbol = symbolOf(req);
  for (const data of found) if (await holdsSymbol(data, symbol)) return found;
  return notFound(
    `The kimchi premium archive has no point of ${symbol}: no Korean exchange listed it with a global reference price while it was recording. /api/v1/symbols lists the symbols traded now.`,
  );
}

const historyIntervals = (req: DataRequest): PremiumInterval[] => {
  const interval = req.query.interval as PremiumInterval;
  return interval === '1m' ? ['1m'] : [interval, '1m'];
};

const premiumHistory: DataHandler = {
  async precheck(req) {
    const found = await archiveFor(req, historyIntervals(req), true);
    return isResult(found) ? found : null;
  },
  async handle(req) {
    const found = await archiveFor(req, historyIntervals(req), false);
    if (isResult(found)) return found;
    const data = found[0]!;
    const interval = req.query.interval as PremiumInterval;
    const symbol = symbolOf(req);
    const to = req.query.to ? new Date(String(req.query.to)) : new Date(Math.floor(req.now.getTime() / 1000) * 1000);
    const asked = req.query.from
      ? new Date(String(req.query.from))
      : new Date(to.getTime() - PREMIUM_ARCHIVE.defaultSpanDays[interval] * DAY_MS);
    // what the archive keeps of this interval, counted back from the data's time: older points may
    // still sit in the published parts until they are next written whole, and are not served
    const keep = PREMIUM_ARCHIVE.keepDays[interval];
    const oldest = keep === null ? null : Date.parse(data.entry.as_of) - keep * DAY_MS;
    const from = oldest !== null && asked.getTime() < oldest ? new Date(oldest) : asked;
    const limit = Number(req.query.limit ?? PREMIUM_ARCHIVE.pageMax);
    const cursor = req.query.cursor ? decodeHistoryCursor(String(req.query.cursor)) : null;
    const after = cursor ? 'AND (t > $ct::TIMESTAMP OR (t = $ct::TIMESTAMP AND exchange > $ce))' : '';
    // The parts and delta files hold a symbol's rows sorted by time, then exchange, and each delta only
    // rows newer than everything before it (pipelines/korea/archive.ts): read in file order, without a
    // sort (a third of the time). The order is checked, and the page asked again sorted if it ever is not.
    const where = `symbol = $symbol AND t >= $from::TIMESTAMP AND t < $to::TIMESTAMP ${after}`;
    const values = {
      symbol,
      from: tsText(from),
      to: tsText(to),
      ...(cursor ? { ct: tsText(new Date(cursor.t)), ce: cursor.exchange } : {}),
    };
    const select = (order: string) =>
      queryRows(
        `SELECT epoch_ms(t)::DOUBLE AS t_ms, exchange, premium_pct, min_pct, max_pct, last_pct, samples
           FROM ${parquetSql(data, [symbol])} WHERE ${where} ${order} LIMIT ${limit + 1}`,
        values,
      );
    let raw = await select('');
    const sorted = raw.every(
      (r, i) =>
        i === 0 ||
        Number(r.t_ms) > Number(raw[i - 1]!.t_ms) ||
        (r.t_ms === raw[i - 1]!.t_ms && String(r.exchange) > String(raw[i - 1]!.exchange)),
    );
    if (!sorted) raw = await select('ORDER BY t, exchange');
    const rows = raw.map((r) => ({
      t: `${new Date(Number(r.t_ms)).toISOString().slice(0, 19)}Z`,
      exchange: r.exchange,
      premium_pct: r.premium_pct,
      min_pct: r.min_pct,
      max_pct: r.max_pct,
      last_pct: r.last_pct,
      samples: r.samples,
    }));
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return ok({
      source: data.entry.source,
      as_of: data.entry.as_of,
      symbol,
      interval,
      from: isoSecond(from),
      to: isoSecond(to),
      count: page.length,
      points: page,
      next_cursor: rows.length > limit && last ? encodeHistoryCursor(String(last.t), String(last.exchange)) : null,
      kept: keptText(interval),
    });
  },
};

const statsIntervals = (req: DataRequest): PremiumInterval[] => {
  const series = PREMIUM_ARCHIVE.windows[req.query.window as PremiumWindow].series;
  return series === '1m' ? ['1m'] : ['1m', series];
};

const premiumStats: DataHandler = {
  async precheck(req) {
    const found = await archiveFor(req, statsIntervals(req), true);
    return isResult(found) ? found : null;
  },
  async handle(req) {
    const found = await archiveFor(req, statsIntervals(req), false);
    if (isResult(found)) return found;
    const [minutes, series = minutes] = found as [LoadedDataset, LoadedDataset?];
    const window = req.query.window as PremiumWindow;
    const { hours, series: seriesInterval } = PREMIUM_ARCHIVE.windows[window];
    const symbol = symbolOf(req);
    // the window ends at the archive's newest minute (the run that published it); the current premium
    // is each exchange's newest minute within the hour before it, none when the exchange has gone quiet
    const to = new Date(minutes!.entry.as_of);
    const from = new Date(to.getTime() - hours * 3_600_000);
    const expected = seriesInterval === '1m' ? hours * 60 : hours;
    const rows = await queryRows(
      `WITH cur AS (
         SELECT exchange, arg_max(last_pct, t) AS current_pct, strftime(max(t), '%Y-%m-%dT%H:%M:%SZ') AS current_at
           FROM ${parquetSql(minutes!, [symbol])}
          WHERE symbol = $symbol AND t > $to::TIMESTAMP - INTERVAL 1 HOUR AND t <= $to::TIMESTAMP
          GROUP BY exchange
       ),
       pts AS (
         SELECT exchange, premium_pct AS p FROM ${parquetSql(series!, [symbol])}
          WHERE symbol = $symbol AND t > $from::TIMESTAMP AND t <= $to::TIMESTAMP
       ),
       agg AS (
         SELECT p.exchange, count(*)::INTEGER AS samples, avg(p.p) AS mean, stddev_samp(p.p) AS stdev, min(p.p) AS min, max(p.p) AS max,
                count(*) FILTER (WHERE p.p < c.current_pct)::INTEGER AS below
           FROM pts p LEFT JOIN cur c USING (exchange) GROUP BY p.exchange
       )
       SELECT coalesce(a.exchange, c.exchange) AS exchange, c.current_pct, c.current_at, coalesce(a.samples, 0) AS samples,
              a.mean, a.stdev, a.min, a.max, coalesce(a.below, 0) AS below
         FROM agg a FULL JOIN cur c USING (exchange)`,
      { symbol, from: tsText(from), to: tsText(to) },
    );
    if (rows.length === 0) return notFound(`The kimchi premium archive has no point of ${symbol} in the ${window} window.`);
    const round = (x: unknown, digits = 4): number | null => (x === null || x === undefined ? null : Number(Number(x).toFixed(digits)));
    const rank = (e: string) => (e === 'upbit' ? 0 : e === 'bithumb' ? 1 : 2);
    const exchanges = rows
      .map((r) => {
        const samples = Number(r.samples);
        const cur = r.current_pct === null ? null : Number(r.current_pct);
        const stdev = r.stdev === null ? null : Number(r.stdev);
        return {
          exchange: String(r.exchange),
          current_pct: round(cur),
          current_at: r.current_at === null ? null : String(r.current_at),
          percentile: cur === null || samples === 0 ? null : round((100 * Number(r.below)) / samples, 2),
          mean: round(r.mean),
          stdev: round(stdev),
          zscore: cur === null || stdev === null || stdev === 0 || r.mean === null ? null : round((cur - Number(r.mean)) / stdev, 3),
          min: round(r.min),
          max: round(r.max),
          samples,
          coverage_pct: round(Math.min(100, (100 * samples) / expected), 2)!,
        };
      })
      .sort((a, b) => rank(a.exchange) - rank(b.exchange) || (a.exchange < b.exchange ? -1 : 1));
    return ok({
      source: series!.entry.source,
      as_of: series!.entry.as_of,
      symbol,
      window,
      series_interval: seriesInterval,
      from: isoSecond(from),
      to: isoSecond(to),
      exchanges,
    });
  },
};

// ------------------------------------------------------------------ divergence

type DivergenceDocument = KoreaDocuments['divergence'];

function divergenceEntry(req: DataRequest): { doc: DivergenceDocument; entry: DivergenceDocument['by_symbol'][string] } | DataResult {
  const doc = documentOf(req, 'divergence');
  if (isResult(doc)) return doc;
  const symbol = symbolOf(req);
  const entry = doc.by_symbol[symbol];
  if (entry) return { doc, entry };
  const reason = doc.unavailable[symbol];
  return notFound(
    `No divergence for ${symbol} in this snapshot: ${reason ?? 'it was not computed'}. /api/v1/symbols lists which of the 25 symbols Korean exchanges list.`,
  );
}

function divergenceHandler(tier: 'light' | 'deep'): DataHandler {
  return sliceHandler(divergenceEntry, ({ doc, entry }) => ({
    source: doc.source,
    as_of: doc.as_of,
    symbol: entry.symbol,
    global_price_usd: entry.global_price_usd,
    global_source: entry.global_source,
    fx_rate: entry.fx_rate,
    exchanges: entry.exchanges,
    divergence_pct: entry.divergence_pct,
    summary: entry.summary,
    analyst: doc.analyst,
    model: doc.model,
    ...(tier === 'deep' ? { news_signals: entry.news_signals, analysis: entry.analysis } : {}),
  }));
}

// ------------------------------------------------------------------ news

function newsHandler(dataset: 'kr-news-kpop' | 'kr-news-semiconductor', withSummary: boolean): DataHandler {
  return sliceHandler(
    (req) => documentOf(req, dataset),
    (doc, req) => {
      const limit = Number(req.query.limit ?? 5);
      const articles = doc.articles.slice(0, limit);
      const body: Doc = {
        source: doc.source,
        as_of: doc.as_of,
        topic: doc.topic,
        count: articles.length,
        articles,
        analyst: doc.analyst,
        model: doc.model,
      };
      if (!withSummary) return body;
      const summary = doc.summaries[String(articles.length)];
      if (!summary)
        return notAvailable(
          `The summary of the newest ${articles.length} articles is not in snapshot ${req.snapshot.version}. Try again after the next update.`,
        );
      return { ...body, ...summary };
    },
  );
}

// ------------------------------------------------------------------ stats

const stats: DataHandler = {
  async handle(req) {
    const doc = documentOf(req, 'stats');
    if (isResult(doc)) return doc;
    const { manifest } = req.snapshot;
    const now = req.now.getTime();
    return ok({
      source: doc.source,
      as_of: doc.as_of,
      coverage: doc.coverage,
      datasets: manifest.datasets.map((d) => ({
        name: d.name,
        as_of: d.as_of,
        age_seconds: Math.max(0, Math.floor((now - Date.parse(d.as_of)) / 1000)),
        rows: d.rows,
        source: d.source,
        produced_in: d.produced_in,
        carried_over_reason: d.carried_over?.reason ?? null,
      })),
      snapshot: { version: req.snapshot.version, generated_at: manifest.generated_at },
    });
  },
};

// ------------------------------------------------------------------ arbitrage/executable

type ExecutableDocument = KoreaDocuments['arbitrage-executable'];

/** The run's executable document and its books, holding the symbol (else the 404 before payment). */
function executableFor(req: DataRequest): { doc: ExecutableDocument; books: LoadedDataset } | DataResult {
  const doc = documentOf(req, 'arbitrage-executable');
  if (isResult(doc)) return doc;
  const books = datasetOf(req, 'order-books');
  if (isResult(books)) return books;
  const symbol = symbolOf(req);
  if (!doc.symbols.includes(symbol)) {
    return notFound(
      `No order books of ${symbol} in snapshot ${req.snapshot.version}: the books of the most traded symbols are read each run (${doc.symbols.join(', ')}). /api/v1/kimchi-premium has the quoted premium of every symbol.`,
    );
  }
  return { doc, books };
}

/** The run's wallets as a relation for executableSql (exchange, symbol, deposit_open, withdraw_open, withdrawal_fee). */
function walletsSql(doc: ExecutableDocument, symbol: string): string {
  const rows = doc.wallets
    .filter((w) => w.symbol === symbol)
    .map(
      (w) =>
        `(${sqlString(w.exchange)}, ${sqlString(w.symbol)}, ${w.deposit_open ?? 'NULL'}::BOOLEAN, ${w.withdraw_open ?? 'NULL'}::BOOLEAN, ${w.withdrawal_fee ?? 'NULL'}::DOUBLE)`,
    );
  return rows.length
    ? `(SELECT * FROM (VALUES ${rows.join(', ')}) v(exchange, symbol, deposit_open, withdraw_open, withdrawal_fee))`
    : `(SELECT NULL::VARCHAR AS exchange, NULL::VARCHAR AS symbol, NULL::BOOLEAN AS deposit_open, NULL::BOOLEAN AS withdraw_open, NULL::DOUBLE AS withdrawal_fee WHERE false)`;
}

const arbitrageExecutable: DataHandler = {
  precheck(req) {
    const found = executableFor(req);
    return isResult(found) ? found : null;
  },
  async handle(req) {
    const found = executableFor(req);
    if (isResult(found)) return found;
    const { doc, books } = found;
    const symbol = symbolOf(req);
    const size = Number(req.query.size_usd ?? EXECUTABLE.scannerSizeUsd);
    // the same walk the pipeline publishes the standard sizes with, over the band it published
    const routes = (await queryRows(
      `SELECT * EXCLUDE (symbol) FROM ${routesSql({
        band: `(SELECT * EXCLUDE (as_of) FROM ${parquetSql(books)} WHERE symbol = $symbol)`,
        wallets: walletsSql(doc, symbol),
        sizesUsd: [size],
      })} ORDER BY list_position(${sqlList(KOREAN_EXCHANGES)}, exchange), direction`,
      { symbol },
    )) as unknown as ExecutableDocument['routes'];
    const open = routes.filter((r) => r.fillable && r.net_pct !== null && r.transfer_open !== false);
    const best = open.reduce<(typeof routes)[number] | null>((a, r) => (a === null || r.net_pct! > a.net_pct! ? r : a), null);
    return ok({
      source: doc.source,
      as_of: doc.as_of,
      symbol,
      size_usd: size,
      fx_rate: doc.fx_rate,
      fx_source: doc.fx_source,
      fx_as_of: doc.fx_as_of,
      band_pct: doc.band_pct,
      global_venue: doc.global_venue,
      fees: doc.fees,
      unavailable: doc.unavailable,
      books_as_of: doc.books.filter((b) => b.symbol === symbol).map((b) => ({ exchange: b.exchange, as_of: b.as_of })),
      routes,
      best,
    });
  },
};

export const koreaHandlers: DataHandlers = {
  symbols: documentHandler('symbols'),
  stats,
  'kimchi-premium-daily': kimchiPremiumDaily,
  'kimchi-premium': kimchiPremium,
  'stablecoin-premium': documentHandler('stablecoin-premium'),
  'kr-prices': krPrices,
  'kimchi-premium-history': premiumHistory,
  'kimchi-premium-stats': premiumStats,
  'fx-rate': documentHandler('fx-rate'),
  'arbitrage-scanner': documentHandler('arbitrage-scanner'),
  'arbitrage-executable': arbitrageExecutable,
  'exchange-alerts': documentHandler('exchange-alerts'),
  'market-movers': documentHandler('market-movers'),
  'krw-macro-stress': documentHandler('krw-macro-stress'),
  'kr-sentiment': documentHandler('kr-sentiment'),
  'market-read': documentHandler('market-read'),
  'global-vs-korea-divergence': divergenceHandler('light'),
  'global-vs-korea-divergence-deep': divergenceHandler('deep'),
  'kr-news-kpop': newsHandler('kr-news-kpop', false),
  'kr-news-kpop-summary': newsHandler('kr-news-kpop', true),
  'kr-news-semiconductor': newsHandler('kr-news-semiconductor', false),
  'kr-news-semiconductor-summary': newsHandler('kr-news-semiconductor', true),
};
