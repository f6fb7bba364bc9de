/**
 * The executable kimchi premium: what a trade of a given size between a Korean exchange and the
 * global venue (Binance) would actually return, after walking both order books, both taker fees
 * and the withdrawal fee, and whether the wallets let the coins move. One SQL builder for the
 * pipeline (the sizes every run publishes, and the arbitrage scanner's rows) and the paid
 * endpoint (any size asked), so both give the same number for the same books
 * (docs/upstreams-korea.md, "Executable premium").
 *
 * Per (symbol, Korean exchange, direction, size S in USD):
 *   buy_global_sell_korea: spend S on Binance's asks, pay its taker fee in coins, withdraw (its
 *     withdrawal fee in coins), sell what arrives into the Korean bids, pay that taker fee;
 *   buy_korea_sell_global: the same the other way.
 *   net_pct = proceeds after fees / S - 1 (> 0: the route pays).
 * Books are read within ±band_pct of each book's mid only: a size the band cannot fill is
 * `fillable: false` with no net figure, and `max_size_usd` is the least of the buy side's asks
 * and the sell side's bids inside the band. KRW prices are turned into USD at the official rate;
 * Binance's USDT is taken at 1 USD. A withdrawal fee or wallet status an exchange does not
 * publish without a key (Upbit, Binance) is unknown (null), never guessed: the net then leaves
 * that fee out and says so (`withdrawal_fee_known: false`).
 */
import { significantSql, sqlList } from '../lib/duckdb.ts';
import { TRADING_FEES, type FeeExchange } from './korea-fees.ts';

export const EXECUTABLE = {
  /** The sizes every run publishes, USD. */
  sizesUsd: [1_000, 10_000, 100_000] as const,
  /** The scanner's size. */
  scannerSizeUsd: 10_000,
  /** Books are walked within this many percent of their mid. */
  bandPct: 2,
  /** The global venue of every route. */
  globalVenue: 'binance' as const,
  /** Sizes the endpoint accepts, USD. */
  minSizeUsd: 100,
  maxSizeUsd: 1_000_000,
  directions: ['buy_global_sell_korea', 'buy_korea_sell_global'] as const,
} as const;

export type ExecutableDirection = (typeof EXECUTABLE.directions)[number];

/** The taker fee of an exchange as a fraction, in SQL (0 for an exchange the table does not know: none is traded here). */
const feeSql = (col: string): string =>
  `(CASE ${(Object.entries(TRADING_FEES) as Array<[FeeExchange, { takerPct: number }]>)
    .map(([e, f]) => `WHEN ${col} = '${e}' THEN ${f.takerPct / 100}::DOUBLE`)
    .join(' ')} ELSE NULL END)`;

export interface ExecutableSqlOptions {
  /** A relation with exchange, symbol, side ('bid' | 'ask'), level, price, qty, quote ('KRW' | 'USDT'). */
  levels: string;
  /**
   * A relation with exchange, symbol, deposit_open, withdraw_open (BOOLEAN, NULL unknown) and
   * withdrawal_fee (coins, NULL unknown): one row per (exchange, symbol) at most.
   */
  wallets: string;
  /** KRW per USD (SQL expression). */
  fxRate: string;
  sizesUsd: readonly number[];
  /** Only this symbol (a SQL string literal), or every symbol with books. */
  symbol?: string;
}

/**
 * The levels a walk may use, as a relation: every level within EXECUTABLE.bandPct of its book's
 * mid, with its price in USD (`p`; KRW at `fxRate`), the USD value and quantity of the better
 * levels before it (`usd_before`, `qty_before`) and the book's mid in USD. The pipeline publishes
 * exactly this (the order-books dataset); the endpoint walks it (routesSql) for any size.
 */
export function bandSql(levels: string, fxRate: string, symbol?: string): string {
  const band = EXECUTABLE.bandPct / 100;
  return `(
  WITH lv AS (SELECT exchange, symbol, side, level, price, qty, quote,
                     CASE WHEN quote = 'KRW' THEN price / (${fxRate}) ELSE price END AS p
                FROM ${levels} WHERE price > 0 AND qty > 0 ${symbol ? `AND symbol = ${symbol}` : ''}),
       books AS (SELECT exchange, symbol, (max(p) FILTER (WHERE side = 'bid') + min(p) FILTER (WHERE side = 'ask')) / 2 AS mid
                   FROM lv GROUP BY ALL HAVING max(p) FILTER (WHERE side = 'bid') < min(p) FILTER (WHERE side = 'ask'))
  SELECT lv.*, sum(lv.p * lv.qty) OVER w - lv.p * lv.qty AS usd_before, sum(lv.qty) OVER w - lv.qty AS qty_before, b.mid
    FROM lv JOIN books b USING (exchange, symbol)
   WHERE (lv.side = 'ask' AND lv.p <= b.mid * (1 + ${band})) OR (lv.side = 'bid' AND lv.p >= b.mid * (1 - ${band}))
  WINDOW w AS (PARTITION BY lv.exchange, lv.symbol, lv.side ORDER BY lv.level ROWS UNBOUNDED PRECEDING))`;
}

/** The levels, walked (bandSql then routesSql). */
export function executableSql(o: ExecutableSqlOptions): string {
  return routesSql({ band: bandSql(o.levels, o.fxRate, o.symbol), wallets: o.wallets, sizesUsd: o.sizesUsd });
}

/**
 * One row per (symbol, Korean exchange, direction, size) over a band (bandSql's columns): symbol,
 * exchange, direction, size_usd, buy_on, sell_on, quoted_premium_pct (Korean mid against Binance's
 * mid at the official rate), fillable, max_size_usd, buy_avg_price_usd, sell_avg_price_usd,
 * fees_pct (both takers), withdrawal_fee (coins), withdrawal_fee_usd, withdrawal_fee_known,
 * withdraw_open, deposit_open, transfer_open (both open; false when either is closed; null when
 * either is unknown), net_pct. Percentages are rounded to 4 decimals, prices to 8 significant digits.
 */
export function routesSql(o: { band: string; wallets: string; sizesUsd: readonly number[] }): string {
  const g = `'${EXECUTABLE.globalVenue}'`;
  const sig = (x: string) => significantSql(x, 8);
  return `(
  WITH band AS MATERIALIZED (SELECT * FROM ${o.band}),
       books AS (SELECT DISTINCT exchange, symbol, mid FROM band),
       depth AS (SELECT exchange, symbol, side, sum(p * qty) AS usd, sum(qty) AS qty FROM band GROUP BY ALL),
       routes AS (SELECT k.symbol, k.exchange, d.direction, s.size_usd,
                         CASE d.direction WHEN 'buy_global_sell_korea' THEN ${g} ELSE k.exchange END AS buy_on,
                         CASE d.direction WHEN 'buy_global_sell_korea' THEN k.exchange ELSE ${g} END AS sell_on,
                         (k.mid / gb.mid - 1) AS quoted
                    FROM books k JOIN books gb ON gb.symbol = k.symbol AND gb.exchange = ${g}
                   CROSS JOIN (SELECT unnest(${sqlList(EXECUTABLE.directions)}) AS direction) d
                   CROSS JOIN (SELECT unnest([${o.sizesUsd.map((s) => `${Number(s)}::DOUBLE`).join(', ')}]) AS size_usd) s
                   WHERE k.exchange <> ${g}),
       -- the asks walked for size_usd on the buying side (joins and sums, no correlated subquery)
       bought AS (SELECT r.symbol, r.exchange, r.direction, r.size_usd, r.buy_on, r.sell_on, r.quoted,
                         coalesce(sum(least(c.qty, greatest(0, (r.size_usd - c.usd_before) / c.p))), 0) AS qty_bought
                    FROM routes r LEFT JOIN band c ON c.exchange = r.buy_on AND c.symbol = r.symbol AND c.side = 'ask'
                   GROUP BY ALL),
       moved AS (SELECT b.*, wo.withdraw_open, wo.withdrawal_fee, wd.deposit_open,
                        greatest(0, b.qty_bought * (1 - ${feeSql('b.buy_on')}) - coalesce(wo.withdrawal_fee, 0)) AS qty_moved,
                        da.usd AS ask_usd, db.usd AS bid_usd, db.qty AS bid_qty
                   FROM bought b
                   LEFT JOIN ${o.wallets} wo ON wo.exchange = b.buy_on AND wo.symbol = b.symbol
                   LEFT JOIN ${o.wallets} wd ON wd.exchange = b.sell_on AND wd.symbol = b.symbol
                   LEFT JOIN depth da ON da.exchange = b.buy_on AND da.symbol = b.symbol AND da.side = 'ask'
                   LEFT JOIN depth db ON db.exchange = b.sell_on AND db.symbol = b.symbol AND db.side = 'bid'),
       -- the bids walked for what arrived on the selling side
       sold AS (SELECT m.*, coalesce(sum(c.p * least(c.qty, greatest(0, m.qty_moved - c.qty_before))), 0) AS proceeds,
                       coalesce(m.size_usd <= m.ask_usd AND m.qty_moved <= m.bid_qty, false) AS fillable
                  FROM moved m LEFT JOIN band c ON c.exchange = m.sell_on AND c.symbol = m.symbol AND c.side = 'bid'
                 GROUP BY ALL)
  SELECT symbol, exchange, direction, size_usd, buy_on, sell_on,
         round(100 * quoted, 4) AS quoted_premium_pct,
         fillable,
         round(least(coalesce(ask_usd, 0), coalesce(bid_usd, 0)), 2) AS max_size_usd,
         CASE WHEN fillable THEN ${sig('size_usd / qty_bought')} END AS buy_avg_price_usd,
         CASE WHEN fillable AND qty_moved > 0 THEN ${sig('proceeds / qty_moved')} END AS sell_avg_price_usd,
         round(100 * (${feeSql('buy_on')} + ${feeSql('sell_on')}), 4) AS fees_pct,
         withdrawal_fee,
         CASE WHEN withdrawal_fee IS NOT NULL AND qty_bought > 0 THEN round(withdrawal_fee * size_usd / qty_bought, 4) END AS withdrawal_fee_usd,
         withdrawal_fee IS NOT NULL AS withdrawal_fee_known,
         withdraw_open, deposit_open,
         CASE WHEN withdraw_open = false OR deposit_open = false THEN false
              WHEN withdraw_open AND deposit_open THEN true END AS transfer_open,
         CASE WHEN fillable THEN round(100 * (proceeds * (1 - ${feeSql('sell_on')}) / size_usd - 1), 4) END AS net_pct
    FROM sold)`;
}
