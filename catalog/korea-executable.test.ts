/**
 * The executable premium's SQL with worked numbers on hand-made books: an official rate of 1,000
 * KRW per USD, Binance BTC around 100 USDT, Upbit around 103,000 KRW (103 USD), Korbit a thin book
 * with its deposits closed.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryJson } from '../lib/duckdb.ts';
import { EXECUTABLE, executableSql } from './korea-executable.ts';

let instance: DuckDBInstance;
let c: DuckDBConnection;

const levels: Array<[string, string, number, number, number, string]> = [
  // exchange, side, level, price, qty, quote
  ['binance', 'ask', 1, 100.1, 50, 'USDT'],
  ['binance', 'ask', 2, 100.5, 100, 'USDT'],
  ['binance', 'ask', 3, 103, 1000, 'USDT'], // past the 2 % band around mid 100: never walked
  ['binance', 'bid', 1, 99.9, 50, 'USDT'],
  ['binance', 'bid', 2, 99.5, 100, 'USDT'],
  ['upbit', 'bid', 1, 102_900, 30, 'KRW'],
  ['upbit', 'bid', 2, 102_500, 100, 'KRW'],
  ['upbit', 'ask', 1, 103_100, 30, 'KRW'],
  ['upbit', 'ask', 2, 103_500, 100, 'KRW'],
  ['korbit', 'bid', 1, 102_800, 10, 'KRW'],
  ['korbit', 'ask', 1, 103_200, 10, 'KRW'],
];

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  c = await instance.connect();
  await c.run(`CREATE TABLE lv (exchange VARCHAR, symbol VARCHAR, side VARCHAR, level INTEGER, price DOUBLE, qty DOUBLE, quote VARCHAR)`);
  for (const [e, side, level, price, qty, quote] of levels) {
    await c.run(`INSERT INTO lv VALUES ('${e}', 'BTC', '${side}', ${level}, ${price}, ${qty}, '${quote}')`);
  }
  await c.run(`CREATE TABLE w (exchange VARCHAR, symbol VARCHAR, deposit_open BOOLEAN, withdraw_open BOOLEAN, withdrawal_fee DOUBLE)`);
  await c.run(`INSERT INTO w VALUES ('korbit', 'BTC', false, true, 0.5)`);
});
afterAll(() => {
  c.closeSync();
  instance.closeSync();
});

type Route = Record<string, number | string | boolean | null>;
async function routes(sizes: readonly number[] = EXECUTABLE.sizesUsd): Promise<Route[]> {
  return (await queryJson(
    c,
    `SELECT * FROM ${executableSql({ levels: 'lv', wallets: 'w', fxRate: '1000', sizesUsd: sizes })} ORDER BY exchange DESC, direction, size_usd`,
  )) as Route[];
}
const find = (rows: Route[], exchange: string, direction: string, size: number) =>
  rows.find((r) => r.exchange === exchange && r.direction === direction && r.size_usd === size)!;

describe('executableSql', () => {
  it('buy on Binance, sell on Upbit: both books walked, both takers and no withdrawal fee known', async () => {
    const rows = await routes();
    // 1,000 USD: 1,000 / 100.1 BTC, less 0.1 % Binance taker, sold at 102.9 less 0.05 % Upbit taker
    const small = (1000 / 100.1) * 0.999 * 102.9 * 0.9995;
    expect(find(rows, 'upbit', 'buy_global_sell_korea', 1000)).toMatchObject({
      buy_on: 'binance',
      sell_on: 'upbit',
      quoted_premium_pct: 3, // mid 103 against mid 100
      fillable: true,
      buy_avg_price_usd: 100.1,
      sell_avg_price_usd: 102.9,
      fees_pct: 0.15,
      withdrawal_fee: null,
      withdrawal_fee_known: false,
      transfer_open: null,
      net_pct: Math.round((small / 1000 - 1) * 1e6) / 1e4,
    });
    // 10,000 USD walks into the second level of both books
    const qty = 50 + (10000 - 5005) / 100.5;
    const moved = qty * 0.999;
    const proceeds = 30 * 102.9 + (moved - 30) * 102.5;
    const mid = find(rows, 'upbit', 'buy_global_sell_korea', 10000);
    expect(mid.fillable).toBe(true);
    expect(mid.net_pct).toBeCloseTo(((proceeds * 0.9995) / 10000 - 1) * 100, 3);
    expect(mid.buy_avg_price_usd).toBeCloseTo(10000 / qty, 4);
    // 100,000 USD: more than the 2 % band holds (Binance asks 15,055 USD, Upbit bids 13,337 USD): no figure
    expect(find(rows, 'upbit', 'buy_global_sell_korea', 100000)).toMatchObject({ fillable: false, net_pct: null, max_size_usd: 13337 });
  });

  it('the reverse route loses what the premium gives; wallets: closed deposits say false, unknown says null', async () => {
    const rows = await routes([1000]);
    const reverse = find(rows, 'upbit', 'buy_korea_sell_global', 1000);
    expect(reverse.net_pct).toBeCloseTo((((1000 / 103.1) * 0.9995 * 99.9 * 0.999) / 1000 - 1) * 100, 3);
    // into Korbit: its deposits are closed
    expect(find(rows, 'korbit', 'buy_global_sell_korea', 1000)).toMatchObject({ deposit_open: false, transfer_open: false });
    // out of Korbit: 0.5 BTC withdrawal fee (about 51.6 USD at its ask), Binance deposits unknown
    const out = find(rows, 'korbit', 'buy_korea_sell_global', 1000);
    expect(out).toMatchObject({
      withdraw_open: true,
      deposit_open: null,
      transfer_open: null,
      withdrawal_fee: 0.5,
      withdrawal_fee_known: true,
    });
    expect(out.withdrawal_fee_usd).toBeCloseTo((0.5 * 103.2) / 0.9985, 0);
    const bought = (1000 / 103.2) * (1 - 0.0015);
    expect(out.net_pct).toBeCloseTo((((bought - 0.5) * 99.9 * 0.999) / 1000 - 1) * 100, 3);
  });

  it('a symbol without a Binance book has no route; one symbol can be asked alone', async () => {
    await c.run(`INSERT INTO lv VALUES ('upbit', 'XYZ', 'bid', 1, 1000, 1, 'KRW'), ('upbit', 'XYZ', 'ask', 1, 1010, 1, 'KRW')`);
    const all = (await queryJson(
      c,
      `SELECT DISTINCT symbol FROM ${executableSql({ levels: 'lv', wallets: 'w', fxRate: '1000', sizesUsd: [1000] })}`,
    )) as Route[];
    expect(all).toEqual([{ symbol: 'BTC' }]);
    const one = await queryJson(
      c,
      `SELECT count(*)::INTEGER AS n FROM ${executableSql({ levels: 'lv', wallets: 'w', fxRate: '1000', sizesUsd: [500, 2500], symbol: "'BTC'" })}`,
    );
    expect(one).toEqual([{ n: 8 }]); // 2 exchanges x 2 directions x 2 sizes
  });
});
