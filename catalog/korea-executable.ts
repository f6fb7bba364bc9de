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
 * One row per (symbol, Korean exchange, direction, size): symbol, exchange, direction, size_usd,
 * buy_on, sell_on, quoted_premium_pct (Korean mid against Binance's mid at the official rate),
 * fillable, max_size_usd, buy_avg_price_usd, sell_avg_price_usd, fees_pct (both takers),
 * withdrawal_fee (coins), withdrawal_fee_usd, withdrawal_fee_known, withdraw_open, deposit_open,
 * transfer_open (both open; false when either is closed; null when either is unknown), net_pct.
 * Percentages are rounded to 4 decimals, prices to 8 significant digits.
 */
export function executableSql(o: ExecutableSqlOptions): string {
  const band = EXECUTABLE.bandPct / 100;
  const g = `'${EXECUTABLE.globalVenue}'`;
  const only = o.symbol ? `AND symbol = ${o.symbol}` : '';
  const sig = (x: string) => `(CASE WHEN (${x}) > 0 THEN round(${x}, (7 - floor(log10(${x})))::INTEGER) END)`;
  return `(
  WITH lv AS (SELECT exchange, symbol, side, level, price, qty,
                     CASE WHEN quote = 'KRW' THEN price / (${o.fxRate}) ELSE price END AS p
                FROM ${o.levels} WHERE price > 0 AND qty > 0 ${only}),
       mid AS (SELECT exchange, symbol, max(p) FILTER (WHERE side = 'bid') AS bid, min(p) FILTER (WHERE side = 'ask') AS ask
                 FROM lv GROUP BY ALL),
       books AS (SELECT exchange, symbol, (bid + ask) / 2 AS mid FROM mid WHERE bid < ask),
       band AS (SELECT lv.*, sum(lv.p * lv.qty) OVER w - lv.p * lv.qty AS usd_before, sum(lv.qty) OVER w - lv.qty AS qty_before
                  FROM lv JOIN books b USING (exchange, symbol)
                 WHERE (lv.side = 'ask' AND lv.p <= b.mid * (1 + ${band})) OR (lv.side = 'bid' AND lv.p >= b.mid * (1 - ${band}))
                WINDOW w AS (PARTITION BY lv.exchange, lv.symbol, lv.side ORDER BY lv.level ROWS UNBOUNDED PRECEDING)),
       depth AS (SELECT exchange, symbol, side, sum(p * qty) AS usd, sum(qty) AS qty FROM band GROUP BY ALL),
       routes AS (SELECT k.symbol, k.exchange, d.direction, s.size_usd,
                         CASE d.direction WHEN 'buy_global_sell_korea' THEN ${g} ELSE k.exchange END AS buy_on,
                         CASE d.direction WHEN 'buy_global_sell_korea' THEN k.exchange ELSE ${g} END AS sell_on,
                         (k.mid / gb.mid - 1) AS quoted
                    FROM books k JOIN books gb ON gb.symbol = k.symbol AND gb.exchange = ${g}
                   CROSS JOIN (SELECT unnest(${JSON.stringify(EXECUTABLE.directions).replaceAll('"', "'")}) AS direction) d
                   CROSS JOIN (SELECT unnest([${o.sizesUsd.map((s) => `${Number(s)}::DOUBLE`).join(', ')}]) AS size_usd) s
                   WHERE k.exchange <> ${g}),
       bought AS (SELECT r.*, coalesce((SELECT sum(least(c.qty, greatest(0, (r.size_usd - c.usd_before) / c.p))) FROM band c
                                         WHERE c.exchange = r.buy_on AND c.symbol = r.symbol AND c.side = 'ask'), 0) AS qty_bought,
                         wo.withdraw_open, wo.withdrawal_fee, wd.deposit_open
                    FROM routes r
                    LEFT JOIN ${o.wallets} wo ON wo.exchange = r.buy_on AND wo.symbol = r.symbol
                    LEFT JOIN ${o.wallets} wd ON wd.exchange = r.sell_on AND wd.symbol = r.symbol),
       moved AS (SELECT b.*, greatest(0, b.qty_bought * (1 - ${feeSql('b.buy_on')}) - coalesce(b.withdrawal_fee, 0)) AS qty_moved,
                        (SELECT usd FROM depth d WHERE d.exchange = b.buy_on AND d.symbol = b.symbol AND d.side = 'ask') AS ask_usd,
                        (SELECT usd FROM depth d WHERE d.exchange = b.sell_on AND d.symbol = b.symbol AND d.side = 'bid') AS bid_usd,
                        (SELECT qty FROM depth d WHERE d.exchange = b.sell_on AND d.symbol = b.symbol AND d.side = 'bid') AS bid_qty
                   FROM bought b),
       sold AS (SELECT m.*, coalesce((SELECT sum(c.p * least(c.qty, greatest(0, m.qty_moved - c.qty_before))) FROM band c
                                       WHERE c.exchange = m.sell_on AND c.symbol = m.symbol AND c.side = 'bid'), 0) AS proceeds,
                       coalesce(m.size_usd <= m.ask_usd AND m.qty_moved <= m.bid_qty, false) AS fillable
                  FROM moved m)
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
