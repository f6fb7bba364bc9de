/**
 * The executable premium (catalog/korea-executable.ts): what a trade of a size between a Korean
 * exchange and Binance returns after both order books, both taker fees and the withdrawal fee,
 * and whether the coins can move.
 *
 *   order-books           the levels within the band of each book read this run (table): the
 *                         paid endpoint walks them for any size asked
 *   arbitrage-executable  every route at the published sizes, the wallets, the books, the fees
 *                         and what is missing (document)
 *
 * Needs this run's books (order_books) with Binance's among them, and the official rate; wallet
 * statuses are optional (missing: null, named in `unavailable`).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { TRADING_FEES } from '../../../catalog/korea-fees.ts';
import { bandSql, EXECUTABLE, executableSql } from '../../../catalog/korea-executable.ts';
import { queryJson } from '../../../lib/duckdb.ts';
import { FX_FIELDS_SQL, FX_SQL, requirePremiumInputs } from '../premiums.ts';
import {
  countRows,
  exchangeRankSql,
  failureListSql,
  failuresSql,
  isoSql,
  missingInput,
  queryDocument,
  quote,
  runOf,
  type KoreaDatasetStep,
  type KoreaRun,
} from '../sql.ts';

/** Both datasets need Korean prices to be there (requirePremiumInputs) but read none of them. */
const PRICES_PRESENT = {
  inputs: ['krPrices'],
  why: 'the books carry their own prices: it only requires Korean prices to be there (requirePremiumInputs), and reads none',
} as const;

/** The newest book per (exchange, symbol): every level of the book with the newest as_of. */
export const BOOKS_SQL = `(SELECT * FROM order_books
   QUALIFY as_of = max(as_of) OVER (PARTITION BY exchange, symbol))`;

/** Per (exchange, symbol): deposits or withdrawals open on any network, the cheapest open network's fee. */
export const WALLETS_SQL = `(SELECT exchange, symbol, bool_or(deposit_enabled) AS deposit_open, bool_or(withdraw_enabled) AS withdraw_open,
          min(withdrawal_fee) FILTER (WHERE withdraw_enabled) AS withdrawal_fee
     FROM wallet_status GROUP BY ALL)`;

/** Wallet statuses no exchange publishes without an API key: named in every answer, never guessed. */
export const KEYED_WALLETS: ReadonlyArray<{ exchange: string; reason: string }> = [
  {
    exchange: 'upbit',
    reason: 'Upbit publishes wallet status and withdrawal fees only to API key holders (GET /v1/status/wallet, /v1/withdraws/chance)',
  },
  {
    exchange: 'binance',
    reason: 'Binance publishes wallet status and withdrawal fees only to API key holders (GET /sapi/v1/capital/config/getall)',
  },
];

/** The fees used, as a SQL list of structs. */
export const FEES_SQL = `[${Object.entries(TRADING_FEES)
  .map(
    ([e, f]) =>
      `struct_pack(exchange := ${quote(e)}, taker_pct := ${f.takerPct}::DOUBLE, source := ${quote(f.source)}, as_of := ${quote(f.asOf)})`,
  )
  .join(', ')}]`;

async function requireBooks(c: DuckDBConnection, dataset: string): Promise<void> {
  await requirePremiumInputs(c, dataset, { global: false });
  if ((await countRows(c, 'order_books', `exchange = ${quote(EXECUTABLE.globalVenue)}`)) === 0) {
    throw await missingInput(c, dataset, 'no Binance order book', ['books:binance']);
  }
  if ((await countRows(c, 'order_books', `exchange <> ${quote(EXECUTABLE.globalVenue)}`)) === 0) {
    throw await missingInput(c, dataset, 'no Korean order book', ['books:']);
  }
}

/** What is missing from this run's books and wallets, and what no exchange publishes without a key (SQL list). */
async function unavailableSql(c: DuckDBConnection): Promise<string> {
  const failures = await failuresSql(c);
  const keyed = KEYED_WALLETS.map((k) => `struct_pack(exchange := ${quote(k.exchange)}, reason := ${quote(k.reason)})`).join(', ');
  return `list_concat(
    coalesce((SELECT list(struct_pack(exchange := exchange, reason := reason) ORDER BY ${exchangeRankSql('exchange')}, exchange, reason)
                FROM (SELECT split_part(f.upstream, ':', 2) AS exchange, ${failureListSql('f')} AS reason
                        FROM ${failures} f WHERE starts_with(f.upstream, 'books:') OR starts_with(f.upstream, 'wallets:')
                       GROUP BY f.upstream)), []),
    [${keyed}])`;
}

export async function arbitrageExecutableDocument(c: DuckDBConnection, run: KoreaRun): Promise<Record<string, unknown>> {
  await requireBooks(c, 'arbitrage-executable');
  const routes = executableSql({
    levels: BOOKS_SQL,
    wallets: WALLETS_SQL,
    fxRate: `(SELECT rate FROM ${FX_SQL})`,
    sizesUsd: EXECUTABLE.sizesUsd,
  });
  const body = await queryDocument(
    c,
    `WITH r AS (SELECT * FROM ${routes})
     SELECT to_json(struct_pack(
       as_of := (SELECT ${isoSql('max(as_of)')} FROM ${BOOKS_SQL}),
       ${FX_FIELDS_SQL},
       band_pct := ${EXECUTABLE.bandPct},
       global_venue := ${quote(EXECUTABLE.globalVenue)},
       sizes_usd := [${EXECUTABLE.sizesUsd.join(', ')}],
       fees := ${FEES_SQL},
       symbols := coalesce((SELECT list(DISTINCT symbol ORDER BY symbol) FROM r), []),
       books := coalesce((SELECT list(struct_pack(exchange := exchange, symbol := symbol, as_of := ${isoSql('as_of')},
                                                  bid_levels := bids, ask_levels := asks) ORDER BY symbol, ${exchangeRankSql('exchange')})
                            FROM (SELECT exchange, symbol, max(as_of) AS as_of, count(*) FILTER (WHERE side = 'bid')::INTEGER AS bids,
                                         count(*) FILTER (WHERE side = 'ask')::INTEGER AS asks FROM ${BOOKS_SQL} GROUP BY ALL)), []),
       wallets := coalesce((SELECT list(struct_pack(exchange := exchange, symbol := symbol, deposit_open := deposit_open,
                                                    withdraw_open := withdraw_open, withdrawal_fee := withdrawal_fee)
                                        ORDER BY symbol, ${exchangeRankSql('exchange')})
                              FROM ${WALLETS_SQL} WHERE symbol IN (SELECT symbol FROM r)), []),
       unavailable := ${await unavailableSql(c)},
       routes := coalesce((SELECT list(r ORDER BY r.symbol, ${exchangeRankSql('r.exchange')}, r.direction, r.size_usd) FROM r), [])
     )) AS doc`,
  );
  return { source: run.sourceKind, ...body, as_of: body.as_of };
}

export const arbitrageExecutableStep: KoreaDatasetStep = {
  dataset: 'arbitrage-executable',
  // the books' USD prices at the run's rate
  reads: ['fx'],
  counts: PRICES_PRESENT,
  async run(ctx) {
    const doc = await arbitrageExecutableDocument(ctx.connection, runOf(ctx));
    return ctx.writer.writeDocument('arbitrage-executable', doc, ctx.meta('arbitrage-executable', String(doc.as_of)));
  },
};

/** The levels the endpoint walks (catalog/korea-executable.ts bandSql at the run's rate): within the band of each book's mid. */
export const orderBooksStep: KoreaDatasetStep = {
  dataset: 'order-books',
  // the band and the USD amounts at the run's rate
  reads: ['fx'],
  counts: PRICES_PRESENT,
  async run(ctx) {
    const c = ctx.connection;
    await requireBooks(c, 'order-books');
    const [row] = await queryJson(c, `SELECT ${isoSql('max(as_of)')} AS as_of FROM ${BOOKS_SQL}`);
    return ctx.writer.writeTable(
      c,
      'order-books',
      `SELECT b.exchange, b.symbol, b.side, b.level, b.price, b.qty, b.quote, b.p, b.usd_before, b.qty_before, b.mid, t.as_of
         FROM ${bandSql(BOOKS_SQL, `(SELECT rate FROM ${FX_SQL})`)} b
         JOIN (SELECT DISTINCT exchange, symbol, as_of FROM ${BOOKS_SQL}) t USING (exchange, symbol)
        ORDER BY b.symbol, ${exchangeRankSql('b.exchange')}, b.exchange, b.side, b.level`,
      ctx.meta('order-books', String(row!.as_of)),
    );
  },
};
