/**
 * stats (free): coverage per exchange and the as_of of every dataset in this snapshot; the proxy
 * adds the live snapshot version and ages at request time.
 */
import type { DatasetStep } from '../runner.ts';
import { queryJson } from '../warehouse.ts';

export const statsStep: DatasetStep = {
  dataset: 'stats',
  async run(ctx) {
    const coverage = await queryJson(
      ctx.connection,
      `SELECT exchange, count(DISTINCT symbol)::INTEGER AS tokens,
              strftime(max(observed_at), '%Y-%m-%dT%H:%M:%SZ') AS as_of
         FROM kr_markets GROUP BY exchange ORDER BY exchange`,
    );
    if (coverage.length === 0) throw new Error('kr_markets is empty: no coverage to report');
    const [total] = await queryJson(ctx.connection, `SELECT count(DISTINCT symbol)::INTEGER AS n FROM kr_markets`);
    const asOf = coverage.reduce((m, r) => (String(r.as_of) > m ? String(r.as_of) : m), '');
    const doc = {
      coverage: {
        tokens_total: Number(total?.n ?? 0),
        exchanges: coverage.map((r) => ({ exchange: String(r.exchange), tokens: Number(r.tokens) })),
      },
      datasets: ctx.writer
        .datasetNames()
        .sort()
        .map((name) => ctx.writer.entry(name)!)
        .map((e) => ({ name: e.name, as_of: e.as_of, rows: e.rows, source: e.source })),
      as_of: asOf,
      source: ctx.sourceKind,
    };
    return ctx.writer.writeDocument('stats', doc, ctx.meta('stats', asOf));
  },
};
