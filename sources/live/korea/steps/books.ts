/**
 * ingest:order_books: the order books of the run's most traded symbols (by Korean 24-hour KRW
 * volume, stablecoins aside, with a Binance market) on every venue, and the wallet statuses the
 * exchanges publish without a key, for the executable premium (catalog/korea-executable.ts).
 *
 *   Upbit    GET /v1/orderbook?markets=...          1 request (every symbol at once)
 *   Bithumb  GET /v1/orderbook?markets=...          1 request
 *            GET /public/assetsstatus/multichain/ALL, GET /v2/fee/inout/ALL   wallets, 2 requests
 *   Coinone  GET /public/v2/orderbook/KRW/{symbol}  1 request a symbol; GET /public/v2/currencies
 *   Korbit   GET /v2/orderbook?symbol=...           1 request a symbol; GET /v2/currencies
 *   Binance  GET /api/v3/depth?symbol=...&limit=100 1 request a symbol (weight 5 each)
 *
 * With 5 symbols that is 21 requests a run, counted apart from the market budget (like the news):
 * each exchange's share stays far under its published per-second limit. A venue that fails loses
 * only its own rows, recorded as `books:<exchange>` or `wallets:<exchange>`; the step fails (after
 * writing the others) naming them. Upbit and Binance publish wallet status only to API key
 * holders: none is read (pipelines/korea/datasets/arbitrage-executable.ts says so in every answer).
 */
import type { Row } from '../../../../lib/duckdb.ts';
import { queryJson } from '../../../../lib/duckdb.ts';
import { firstLine, type Upstream } from '../../http.ts';
import { RAW_TABLES as T } from '../../../raw-tables.ts';
import { fetchBinanceOrderBook } from '../binance-book.ts';
import { bithumbWalletStatuses, fetchBithumbNetworkStatuses, fetchBithumbOrderBooks, fetchBithumbWithdrawalFees } from '../bithumb-book.ts';
import { withUpstream, type KoreaClient } from '../clients.ts';
import { coinoneWalletStatuses, fetchCoinoneCurrencies, fetchCoinoneOrderBook } from '../coinone.ts';
import type { OrderBook, WalletStatus } from '../exchange-book.ts';
import { type KoreaIngestStep, StepFeeds } from '../ingest-kit.ts';
import type { KoreaUpstreamName } from '../ingest-failures.ts';
import { fetchKorbitCurrencies, fetchKorbitOrderBook, korbitWalletStatuses } from '../korbit.ts';
import { RequestBudget } from '../request-budget.ts';
import { isUpbitBan, startUpbitCooloff, upbitCooloff } from '../upbit.ts';
import { fetchUpbitOrderBooks } from '../upbit-book.ts';

const SOURCE = 'live';

/** order_books rows of one book, best level first per side. */
export function bookRows(book: OrderBook, quote: 'KRW' | 'USDT'): Row[] {
  return (['bid', 'ask'] as const).flatMap((side) =>
    (side === 'bid' ? book.bids : book.asks).map((l, i) => [
      book.exchange,
      book.symbol,
      side,
      i + 1,
      l.price,
      l.qty,
      quote,
      book.asOf,
      SOURCE,
    ]),
  );
}

/** wallet_status rows. */
export function walletRows(statuses: readonly WalletStatus[], at: Date): Row[] {
  return statuses.map((s) => [s.exchange, s.symbol, s.network, s.depositEnabled, s.withdrawEnabled, s.withdrawalFee, at, SOURCE]);
}

/** The run's most traded symbols with a Binance price, stablecoins aside. */
async function bookSymbols(ctx: Parameters<ReturnType<KoreaIngestStep>['run']>[0], count: number): Promise<string[]> {
  const rows = await queryJson(
    ctx.connection,
    `SELECT t.symbol FROM kr_tickers t
      WHERE t.symbol NOT IN ('USDT', 'USDC') AND t.symbol IN (SELECT symbol FROM global_prices WHERE venue = 'binance')
      GROUP BY t.symbol ORDER BY sum(t.volume_24h_krw) DESC, t.symbol LIMIT ${count}`,
  );
  return rows.map((r) => String(r.symbol));
}

export const booksStep: KoreaIngestStep = (kit) =>
  kit.step(
    'ingest:order_books',
    [{ table: T.order_books }, { table: T.wallet_status }],
    [
      'books:upbit',
      'books:bithumb',
      'books:coinone',
      'books:korbit',
      'books:binance',
      'wallets:bithumb',
      'wallets:coinone',
      'wallets:korbit',
    ],
    async (ctx) => {
      const feeds = new StepFeeds(ctx);
      const symbols = await bookSymbols(ctx, kit.options.books.symbols);
      if (symbols.length === 0) {
        await feeds.failed('books:binance', 'books: no symbol with a Korean price and a Binance price in this run to read books of');
        return feeds.finish();
      }
      // apart from the market budget: its own allowance, each exchange far under its per-second limit
      const budget = new RequestBudget(kit.options.books.requests);
      const call = <V>(client: KoreaClient, work: (up: Upstream) => Promise<V>) => withUpstream(kit.client(client), budget, ctx.log, work);
      const each = async (fetch: (symbol: string) => Promise<OrderBook>) => {
        const got = await Promise.allSettled(symbols.map(fetch));
        const books = got.flatMap((g) => (g.status === 'fulfilled' ? [g.value] : []));
        const failed = got.flatMap((g, i) => (g.status === 'rejected' ? [`${symbols[i]}: ${firstLine(g.reason)}`] : []));
        return { books, failed };
      };
      // Upbit's ban (418) holds for its books too: no request until the cool-off ends, and a ban here starts one
      const cooling = await upbitCooloff(ctx.connection, ctx.now);
      const [upbit, bithumb, coinone, korbit, binance] = await Promise.all([
        cooling
          ? { books: [], failed: [cooling] }
          : call('upbit', (up) => fetchUpbitOrderBooks(up, symbols, { count: 30 })).then(
              (r) => ({ books: r.books, failed: r.skipped }),
              async (err) => {
                if (isUpbitBan(err)) await startUpbitCooloff(ctx.connection, ctx.now, firstLine(err));
                return { books: [], failed: [firstLine(err)] };
              },
            ),
        call('bithumb', (up) => fetchBithumbOrderBooks(up, symbols)).then(
          (r) => ({ books: r.books, failed: r.skipped }),
          (err) => ({ books: [], failed: [firstLine(err)] }),
        ),
        call('coinone', (up) => each((s) => fetchCoinoneOrderBook(up, s, { size: 15 }))),
        call('korbit', (up) => each((s) => fetchKorbitOrderBook(up, s))),
        call('binance', (up) => each((s) => fetchBinanceOrderBook(up, s, 100))),
      ]);
      const venues: Array<[string, { books: OrderBook[]; failed: string[] }, 'KRW' | 'USDT']> = [
        ['upbit', upbit, 'KRW'],
        ['bithumb', bithumb, 'KRW'],
        ['coinone', coinone, 'KRW'],
        ['korbit', korbit, 'KRW'],
        ['binance', binance, 'USDT'],
      ];
      const rows: Row[] = [];
      for (const [exchange, got, quote] of venues) {
        for (const book of got.books) rows.push(...bookRows(book, quote));
        // a symbol an exchange does not list is not a failure of the exchange: named in the notes
        if (got.books.length === 0 && got.failed.length) {
          // one message: the first symbol's error (it names the exchange), and how many more failed
          const more = got.failed.length > 1 ? ` (and ${got.failed.length - 1} more symbols)` : '';
          const first = got.failed[0]!.replace(/^[A-Z0-9]+: /, '');
          await feeds.failed(
            `books:${exchange}` as KoreaUpstreamName,
            `${first.startsWith(exchange) ? '' : `${exchange}: `}${first}${more}`,
          );
        } else if (got.failed.length) ctx.log(`books: ${exchange} has no book of ${got.failed.join('; ')}`);
      }
      feeds.write({ table: T.order_books, rows });

      const wallets: Row[] = [];
      const wallet = async (exchange: 'bithumb' | 'coinone' | 'korbit', read: () => Promise<WalletStatus[]>) => {
        try {
          wallets.push(
            ...walletRows(
              (await read()).filter((s) => symbols.includes(s.symbol)),
              ctx.now,
            ),
          );
        } catch (err) {
          await feeds.failed(`wallets:${exchange}`, firstLine(err));
        }
      };
      await Promise.all([
        wallet('bithumb', () =>
          call('bithumb', async (up) => {
            const [statuses, fees] = await Promise.all([fetchBithumbNetworkStatuses(up), fetchBithumbWithdrawalFees(up)]);
            return bithumbWalletStatuses(statuses.rows, fees.fees).statuses;
          }),
        ),
        wallet('coinone', () => call('coinone', async (up) => coinoneWalletStatuses((await fetchCoinoneCurrencies(up)).rows).statuses)),
        wallet('korbit', () => call('korbit', async (up) => korbitWalletStatuses((await fetchKorbitCurrencies(up)).rows).statuses)),
      ]);
      feeds.write({ table: T.wallet_status, rows: wallets });
      ctx.log(`books: ${symbols.join(', ')}: ${rows.length} levels, ${wallets.length} wallet statuses, ${budget.describe()}`);
      return feeds.finish();
    },
  );
