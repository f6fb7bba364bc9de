/** symbols (free): tradeable KRW symbols with the exchanges that list them, and the divergence set. */
import { DIVERGENCE_SYMBOLS } from '../../../catalog/index.ts';
import {
  LISTING_EXCHANGES,
  countRows,
  ensureRawTables,
  exchangeRankSql,
  isoSql,
  missingInput,
  queryDocument,
  quote,
  type KoreaDatasetStep,
} from '../sql.ts';

export const symbolsStep: KoreaDatasetStep = {
  dataset: 'symbols',
  reads: [],
  async run(ctx) {
    const c = ctx.connection;
    await ensureRawTables(c);
    if ((await countRows(c, 'kr_markets')) === 0) {
      throw await missingInput(c, 'symbols', 'no market lists (kr_markets is empty)', LISTING_EXCHANGES);
    }
    const divergence = DIVERGENCE_SYMBOLS.map((s, i) => `(${quote(s)}, ${i + 1})`).join(', ');
    const body = await queryDocument(
      c,
      `WITH per_symbol AS (
         SELECT symbol,
                arg_min(korean_name, ${exchangeRankSql('exchange')}) AS korean_name,
                arg_min(english_name, ${exchangeRankSql('exchange')}) AS english_name,
                list(DISTINCT exchange ORDER BY ${exchangeRankSql('exchange')}) AS exchanges
           FROM kr_markets GROUP BY symbol)
       SELECT to_json(struct_pack(
         as_of := (SELECT ${isoSql('max(observed_at)')} FROM kr_markets),
         count := (SELECT count(*)::INTEGER FROM per_symbol),
         symbols := (SELECT list(struct_pack(symbol := symbol, korean_name := korean_name, english_name := english_name, exchanges := exchanges)
                                 ORDER BY symbol) FROM per_symbol),
         divergence_symbols := (SELECT list(struct_pack(symbol := d.symbol, listed := p.symbol IS NOT NULL) ORDER BY d.position)
                                  FROM (VALUES ${divergence}) d(symbol, position) LEFT JOIN per_symbol p ON p.symbol = d.symbol)
       )) AS doc`,
    );
    const doc = { ...body, source: ctx.sourceKind };
    return ctx.writer.writeDocument('symbols', doc, ctx.meta('symbols', String(body.as_of)));
  },
};
