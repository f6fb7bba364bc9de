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
 * Every paid handler has a precheck, so nobody pays for a 404 (symbol not listed, no global
 * price) or a 503 (dataset missing from the snapshot). The AI and news endpoints are not here.
 */
import type { LoadedDataset, LoadedSnapshot } from '../../snapshots/reader.ts';
import { queryRows } from './duck.ts';
import { notAvailable, notFound, type DataHandler, type DataHandlers, type DataRequest, type DataResult } from './types.ts';

type Doc = Record<string, unknown>;

function missing(snapshot: LoadedSnapshot, dataset: string): DataResult {
  return notAvailable(
    `The "${dataset}" dataset is not in snapshot ${snapshot.version}: the pipeline has not computed it yet. Try again after the next update.`,
  );
}

function datasetOf(req: DataRequest, dataset: string): LoadedDataset | DataResult {
  return req.snapshot.datasets.get(dataset) ?? missing(req.snapshot, dataset);
}

function documentOf(req: DataRequest, dataset: string): Doc | DataResult {
  const loaded = req.snapshot.datasets.get(dataset);
  if (!loaded || typeof loaded.document !== 'object' || loaded.document === null) return missing(req.snapshot, dataset);
  return loaded.document as Doc;
}

const isResult = (value: unknown): value is DataResult =>
  typeof value === 'object' && value !== null && 'status' in value && typeof (value as { status: unknown }).status === 'number';

const ok = (body: Doc): DataResult => ({ status: 200, body });

/** An endpoint that serves its dataset's document as published. */
function documentHandler(dataset: string): DataHandler {
  return {
    precheck(req) {
      const doc = documentOf(req, dataset);
      return isResult(doc) ? doc : null;
    },
    async handle(req) {
      const doc = documentOf(req, dataset);
      return isResult(doc) ? doc : ok(doc);
    },
  };
}

const symbolOf = (req: DataRequest): string => String(req.query.symbol ?? 'BTC').toUpperCase();

// ------------------------------------------------------------------ kimchi-premium

function kimchiEntry(req: DataRequest): { doc: Doc; entry: Doc } | DataResult {
  const doc = documentOf(req, 'kimchi-premium');
  if (isResult(doc)) return doc;
  const symbol = symbolOf(req);
  const entry = (doc.by_symbol as Record<string, Doc> | undefined)?.[symbol];
  if (entry) return { doc, entry };
  if (((doc.no_global_price as string[] | undefined) ?? []).includes(symbol)) {
    const hint = symbol === 'USDT' || symbol === 'USDC' ? ' Its premium against the official USD/KRW rate is at /api/v1/stablecoin-premium.' : '';
    return notFound(
      `${symbol} trades on a Korean exchange but has no global reference price (no Binance or OKX market), so it has no kimchi premium.${hint}`,
    );
  }
  return notFound(`No Korean exchange (Upbit, Bithumb) lists ${symbol}; /api/v1/symbols lists every symbol with a KRW market.`);
}

const kimchiPremium: DataHandler = {
  precheck(req) {
    const found = kimchiEntry(req);
    return isResult(found) ? found : null;
  },
  async handle(req) {
    const found = kimchiEntry(req);
    if (isResult(found)) return found;
    const { doc, entry } = found;
    return ok({
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
      unavailable_exchanges: doc.unavailable_exchanges,
    });
  },
};

// ------------------------------------------------------------------ kr-prices

interface PriceRow {
  symbol: string;
  exchange: string;
  price_krw: number;
  change_24h_pct: number;
  volume_24h_krw: number;
  as_of: string;
}

/** The kr-prices table of one snapshot version, read once (it holds one row per market). */
const priceTables = new WeakMap<LoadedDataset, Promise<PriceRow[]>>();

function pricesOf(dataset: LoadedDataset): Promise<PriceRow[]> {
  let rows = priceTables.get(dataset);
  if (!rows) {
    rows = queryRows(
      `SELECT symbol, exchange, price_krw, change_24h_pct, volume_24h_krw, strftime(as_of, '%Y-%m-%dT%H:%M:%SZ') AS as_of
         FROM read_parquet($path)
        ORDER BY symbol, list_position(['upbit', 'bithumb'], exchange)`,
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
    return notFound(`No Korean exchange (Upbit, Bithumb) lists ${symbol}; /api/v1/symbols lists every symbol with a KRW market.`);
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
      })),
    });
  },
};

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

export const koreaHandlers: DataHandlers = {
  symbols: documentHandler('symbols'),
  stats,
  'kimchi-premium': kimchiPremium,
  'stablecoin-premium': documentHandler('stablecoin-premium'),
  'kr-prices': krPrices,
  'fx-rate': documentHandler('fx-rate'),
  'arbitrage-scanner': documentHandler('arbitrage-scanner'),
  'exchange-alerts': documentHandler('exchange-alerts'),
  'market-movers': documentHandler('market-movers'),
  'krw-macro-stress': documentHandler('krw-macro-stress'),
};
