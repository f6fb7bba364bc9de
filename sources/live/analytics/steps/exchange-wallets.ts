/** ingest:exchange_wallets: empty for live data (no exchange-wallet list yet), said in the run's notes. */
import type { IngestContext } from '../../../contract.ts';
import { createTableSql } from '../../../../lib/duckdb.ts';
import { RAW_TABLES } from '../../../raw-tables.ts';
import type { AnalyticsIngestStep } from '../ingest-kit.ts';

export const exchangeWalletsStep: AnalyticsIngestStep = (kit) => ({
  name: 'ingest:exchange_wallets',
  tables: [RAW_TABLES.exchange_wallets.name],
  async run(ctx: IngestContext) {
    await ctx.connection.run(createTableSql(RAW_TABLES.exchange_wallets));
    ctx.log('no exchange-wallet labels for this source: wallets funded by a shared exchange may cluster together');
    return 0;
  },
});
