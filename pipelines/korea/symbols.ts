/** symbols (free): tradeable KRW symbols with the exchanges that list them, and the divergence set. */
import { DIVERGENCE_SYMBOLS } from '../../catalog/index.ts';
import type { DatasetStep } from '../runner.ts';
import { queryJson } from '../warehouse.ts';

export const symbolsStep: DatasetStep = {
  dataset: 'symbols',
  async run(ctx) {
    const rows = await queryJson(
      ctx.connection,
      `SELECT symbol,
              min(korean_name) AS korean_name,
              min(english_name) AS english_name,
              list(exchange ORDER BY exchange) AS exchanges,
              strftime(max(observed_at), '%Y-%m-%dT%H:%M:%SZ') AS as_of,
              min(source) AS source
         FROM kr_markets
        GROUP BY symbol
        ORDER BY symbol`,
    );
    if (rows.length === 0) throw new Error('kr_markets is empty: no listed markets in this run');
    const asOf = rows.reduce((m, r) => (String(r.as_of) > m ? String(r.as_of) : m), '');
    const listed = new Set(rows.map((r) => String(r.symbol)));
    const doc = {
      count: rows.length,
      symbols: rows.map((r) => ({
        symbol: String(r.symbol),
        korean_name: String(r.korean_name),
        english_name: String(r.english_name),
        exchanges: r.exchanges as string[],
      })),
      divergence_symbols: DIVERGENCE_SYMBOLS.map((symbol) => ({ symbol, listed: listed.has(symbol) })),
      as_of: asOf,
      source: ctx.sourceKind,
    };
    return ctx.writer.writeDocument('symbols', doc, ctx.meta('symbols', asOf));
  },
};
