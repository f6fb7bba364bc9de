/**
 * Every price the korea datasets publish keeps its significant digits: the demo world has tokens
 * priced far below one USD (SHIB, PEPE, BONK at 1e-5), so one korea run through the pipeline
 * command (runCli) publishes them, and each published price is held against the input it comes
 * from in the same run's warehouse (raw tables kr_tickers, global_prices, fx_rates, candles_1m).
 * It reads a copy of the test run's shared demo publish, warehouse and snapshot of one run.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Settings } from '../../lib/config.ts';
import { queryJson } from '../../lib/duckdb.ts';
import { loadLatest, parquetSql, type LoadedSnapshot } from '../../snapshots/reader.ts';
import { copyOfSharedDemo } from '../testing/shared-demo.ts';
import { openWarehouse } from '../warehouse.ts';

/** At least 4 significant digits: the published price is within half a unit of the 4th digit of the exact one. */
const FOUR_DIGITS = 5e-4;

let root: string;
let snap: LoadedSnapshot;
const krw = new Map<string, number>(); // 'upbit BTC' → price_krw
const usd = new Map<string, number>(); // 'BTC' → global price_usd
const closes = new Map<string, number>(); // 'upbit BTC 2026-11-20T08:59:00Z' → close_krw
let fxRate = 0;
let krPrices: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  // a copy of the run's shared demo publish (runCli all --now DEMO_NOW): the warehouse is opened for writing
  let settings: Settings;
  ({ root, settings } = await copyOfSharedDemo('korea-price-digits-', { services: ['korea'] }));
  snap = (await loadLatest(settings.snapshotsDir, 'korea'))!;
  const wh = await openWarehouse(settings.warehouseDir, 'korea');
  try {
    const c = wh.connection;
    for (const r of await queryJson(c, 'SELECT exchange, symbol, price_krw FROM kr_tickers'))
      krw.set(`${r.exchange} ${r.symbol}`, Number(r.price_krw));
    // the reference is Binance's where it quotes the symbol (the premiums' global price), else OKX's
    for (const r of await queryJson(c, "SELECT symbol, price_usd FROM global_prices ORDER BY venue = 'binance'"))
      usd.set(String(r.symbol), Number(r.price_usd));
    for (const r of await queryJson(
      c,
      `SELECT exchange, symbol, strftime(minute, '%Y-%m-%dT%H:%M:%SZ') AS minute, close_krw FROM candles_1m`,
    )) {
      closes.set(`${r.exchange} ${r.symbol} ${r.minute}`, Number(r.close_krw));
    }
    fxRate = Number((await queryJson(c, 'SELECT rate FROM fx_rates'))[0]!.rate);
    krPrices = await queryJson(c, `SELECT symbol, exchange, price_krw FROM ${parquetSql(snap.datasets.get('kr-prices')!)}`);
  } finally {
    wh.close();
  }
}, 120_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

const doc = <T>(name: string): T => snap.datasets.get(name)!.document as T;

/** Every (what, published, exact) pair checked, so a failure names the dataset, symbol and field. */
const checked: string[] = [];
function keepsDigits(what: string, published: number, exact: number | undefined): void {
  expect(exact, `${what}: no input price`).toBeDefined();
  expect(exact!, what).toBeGreaterThan(0);
  expect(published, `${what}: published ${published} for a positive price ${exact}`).toBeGreaterThan(0);
  expect(Math.abs(published / exact! - 1), `${what}: published ${published}, exact ${exact}`).toBeLessThan(FOUR_DIGITS);
  checked.push(what);
}

describe('prices in the korea datasets keep at least 4 significant digits (demo world with tokens at 1e-5 USD)', () => {
  it('the demo world has low-priced tokens, so the check means something', () => {
    const low = [...usd].filter(([, p]) => p < 1e-3).map(([s]) => s);
    expect(low).toEqual(expect.arrayContaining(['SHIB', 'PEPE', 'BONK']));
    expect([...krw].filter(([, p]) => p < 1).length).toBeGreaterThan(3);
  });

  it('kr-prices, fx-rate, kimchi-premium, stablecoin-premium: every price as its input', () => {
    expect(krPrices.length).toBeGreaterThan(300);
    for (const r of krPrices) keepsDigits(`kr-prices ${r.exchange} ${r.symbol}`, Number(r.price_krw), krw.get(`${r.exchange} ${r.symbol}`));
    keepsDigits('fx-rate', doc<{ rate: number }>('fx-rate').rate, fxRate);

    type Kimchi = {
      fx_rate: number;
      by_symbol: Record<
        string,
        { global_price_usd: number; exchanges: Array<{ exchange: string; price_krw: number; usdt_krw: number | null }> }
      >;
    };
    const kimchi = doc<Kimchi>('kimchi-premium');
    keepsDigits('kimchi-premium fx_rate', kimchi.fx_rate, fxRate);
    for (const [symbol, entry] of Object.entries(kimchi.by_symbol)) {
      keepsDigits(`kimchi-premium ${symbol} global_price_usd`, entry.global_price_usd, usd.get(symbol));
      for (const e of entry.exchanges) {
        keepsDigits(`kimchi-premium ${symbol} ${e.exchange} price_krw`, e.price_krw, krw.get(`${e.exchange} ${symbol}`));
        if (e.usdt_krw !== null) keepsDigits(`kimchi-premium ${symbol} ${e.exchange} usdt_krw`, e.usdt_krw, krw.get(`${e.exchange} USDT`));
      }
    }
    expect(Object.keys(kimchi.by_symbol)).toEqual(expect.arrayContaining(['SHIB', 'PEPE', 'BONK']));

    const stable = doc<{ premiums: Array<{ stablecoin: string; exchange: string; price_krw: number }> }>('stablecoin-premium');
    for (const p of stable.premiums)
      keepsDigits(`stablecoin-premium ${p.exchange} ${p.stablecoin}`, p.price_krw, krw.get(`${p.exchange} ${p.stablecoin}`));
  });

  it('arbitrage-scanner and market-movers: every price as its input', () => {
    type Token = { symbol: string; global_price_usd: number | null; upbit_krw: number | null; bithumb_krw: number | null };
    const scanner = doc<{ tokens: Token[]; exchange_gaps: Array<{ symbol: string; upbit_krw: number; bithumb_krw: number }> }>(
      'arbitrage-scanner',
    );
    for (const t of scanner.tokens) {
      if (t.global_price_usd !== null) keepsDigits(`arbitrage-scanner ${t.symbol} global_price_usd`, t.global_price_usd, usd.get(t.symbol));
      if (t.upbit_krw !== null) keepsDigits(`arbitrage-scanner ${t.symbol} upbit_krw`, t.upbit_krw, krw.get(`upbit ${t.symbol}`));
      if (t.bithumb_krw !== null) keepsDigits(`arbitrage-scanner ${t.symbol} bithumb_krw`, t.bithumb_krw, krw.get(`bithumb ${t.symbol}`));
    }
    for (const g of scanner.exchange_gaps) {
      keepsDigits(`arbitrage-scanner gap ${g.symbol} upbit_krw`, g.upbit_krw, krw.get(`upbit ${g.symbol}`));
      keepsDigits(`arbitrage-scanner gap ${g.symbol} bithumb_krw`, g.bithumb_krw, krw.get(`bithumb ${g.symbol}`));
    }

    type Mover = { exchange: string; symbol: string; minute: string; prev_minute: string; prev_price_krw: number; price_krw: number };
    const movers = doc<{
      movers_1m: Mover[];
      top_volume: Array<{ symbol: string; exchanges: Array<{ exchange: string; price_krw: number }> }>;
    }>('market-movers');
    for (const m of movers.movers_1m) {
      keepsDigits(`market-movers ${m.exchange} ${m.symbol} price_krw`, m.price_krw, closes.get(`${m.exchange} ${m.symbol} ${m.minute}`));
      keepsDigits(
        `market-movers ${m.exchange} ${m.symbol} prev_price_krw`,
        m.prev_price_krw,
        closes.get(`${m.exchange} ${m.symbol} ${m.prev_minute}`),
      );
    }
    for (const t of movers.top_volume) {
      for (const e of t.exchanges)
        keepsDigits(`market-movers top ${e.exchange} ${t.symbol}`, e.price_krw, krw.get(`${e.exchange} ${t.symbol}`));
    }
  });

  it('divergence: the global price, the Korean prices and the Korean prices in USD (SHIB was published as 0)', () => {
    type Entry = {
      global_price_usd: number;
      fx_rate: number;
      exchanges: Array<{ exchange: string; price_krw: number; price_usd: number }>;
    };
    const divergence = doc<{ by_symbol: Record<string, Entry> }>('divergence');
    expect(Object.keys(divergence.by_symbol)).toContain('SHIB');
    for (const [symbol, entry] of Object.entries(divergence.by_symbol)) {
      keepsDigits(`divergence ${symbol} global_price_usd`, entry.global_price_usd, usd.get(symbol));
      keepsDigits(`divergence ${symbol} fx_rate`, entry.fx_rate, fxRate);
      for (const e of entry.exchanges) {
        const exact = krw.get(`${e.exchange} ${symbol}`);
        keepsDigits(`divergence ${symbol} ${e.exchange} price_krw`, e.price_krw, exact);
        keepsDigits(`divergence ${symbol} ${e.exchange} price_usd`, e.price_usd, exact === undefined ? undefined : exact / fxRate);
      }
    }
  });

  it('no price-named field of any korea document is zero or negative', () => {
    const isPrice = (key: string) => /(^|_)(price|rate|usdkrw)(_|$)|_(krw|usd)$/.test(key) && !/volume|pct|share|change|ratio/.test(key);
    const bad: string[] = [];
    let seen = 0;
    const walk = (value: unknown, path: string) => {
      if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${path}[${i}]`));
      else if (value !== null && typeof value === 'object') {
        for (const [k, v] of Object.entries(value)) {
          if (typeof v === 'number' && isPrice(k)) {
            seen++;
            if (!(v > 0)) bad.push(`${path}.${k} = ${v}`);
          } else walk(v, `${path}.${k}`);
        }
      }
    };
    for (const [name, loaded] of snap.datasets) if (loaded.document) walk(loaded.document, name);
    expect(bad).toEqual([]);
    expect(seen).toBeGreaterThan(1000);
    expect(checked.length).toBeGreaterThan(1000);
  });
});
