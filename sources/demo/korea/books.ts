/**
 * The demo world's order books and wallet statuses for the executable premium: books of the most
 * traded symbols on every Korean exchange that quotes them (KRW) and on Binance (USDT), around
 * each venue's last price, deeper where more trades; wallet statuses where the exchanges publish
 * them without a key (Bithumb, Coinone, Korbit), most open, a few suspended, each with a
 * withdrawal fee of a few dollars in coins. Synthetic (source 'demo'); the live adapters read the
 * real ones (sources/live/korea/books-wallets.md, coinone-korbit.md).
 */
import type { Row } from '../../../lib/duckdb.ts';
import { Rng } from '../random.ts';

/** Symbols with books each run: the most traded by Korean KRW volume, stablecoins aside. */
export const DEMO_BOOK_SYMBOLS = 10;
const LEVELS = 15;
const SOURCE = 'demo';

export interface BookInput {
  exchange: string;
  symbol: string;
  /** Last price in the quote currency. */
  price: number;
  /** 24-hour turnover in the quote currency. */
  volume: number;
  quote: 'KRW' | 'USDT';
}

/** order_books rows of one venue's book (raw-tables.ts order_books): 15 levels a side, best first. */
export function demoBookRows(seed: number, minute: number, b: BookInput, at: Date): Row[] {
  const rng = Rng.stream(seed, `korea:book:${b.exchange}:${b.symbol}:${minute}`);
  const binance = b.exchange === 'binance';
  // a deep book has a tight spread and small steps; every level holds about this much
  const levelValue = b.volume / (binance ? 4000 : 900);
  const halfSpread = b.price * (binance ? 0.00005 : 0.0003) * (1 + rng.next());
  const step = b.price * (binance ? 0.0004 : 0.0012);
  const rows: Row[] = [];
  for (const side of ['bid', 'ask'] as const) {
    for (let level = 1; level <= LEVELS; level++) {
      const offset = halfSpread + (level - 1) * step;
      const price = side === 'bid' ? b.price - offset : b.price + offset;
      const qty = (levelValue * (0.5 + rng.next()) * (1 + 0.2 * (level - 1))) / price;
      rows.push([b.exchange, b.symbol, side, level, roundSig(price), roundSig(qty), b.quote, at, SOURCE]);
    }
  }
  return rows;
}

/**
 * wallet_status rows of one (exchange, symbol): one network, deposits and withdrawals open unless
 * a suspension lands on it (about 1 in 12 each, stable over the day), and a withdrawal fee worth
 * 1 to 8 USD in coins at `priceUsd`.
 */
export function demoWalletRow(seed: number, day: number, exchange: string, symbol: string, priceUsd: number, at: Date): Row {
  const rng = Rng.stream(seed, `korea:wallet:${exchange}:${symbol}:${day}`);
  const depositOpen = rng.next() >= 1 / 12;
  const withdrawOpen = rng.next() >= 1 / 12;
  const feeUsd = 1 + 7 * rng.next();
  return [exchange, symbol, null, depositOpen, withdrawOpen, roundSig(feeUsd / priceUsd), at, SOURCE];
}

function roundSig(x: number): number {
  return Number(x.toPrecision(8));
}
