/** ingest:wallet_funding: how each buyer wallet was first funded on Base, appended to the funding as one new segment. */
import type { IngestContext } from '../../../contract.ts';
import { RAW_TABLES } from '../../../raw-tables.ts';
import { withUpstream } from '../../http.ts';
import { createJsonRpc } from '../../json-rpc.ts';
import { DEFAULT_FUNDING_OPTIONS, indexEvmFunding } from '../evm-indexer.ts';
import { type AnalyticsIngestStep, appendOrKeep } from '../ingest-kit.ts';
import { appendLiveSegment, LIVE_FUNDING } from '../segments.ts';

export const fundingStep: AnalyticsIngestStep = (kit) => ({
  name: 'ingest:wallet_funding',
  tables: [RAW_TABLES.wallet_funding.name],
  async run(ctx: IngestContext) {
    const baseUrl = kit.required('BASE_RPC_URL');
    await withUpstream(kit.client('base', 'base-rpc', baseUrl), ctx.log, (up) =>
      indexEvmFunding(
        ctx.connection,
        createJsonRpc(up),
        { ...DEFAULT_FUNDING_OPTIONS, ...kit.options.funding, chain: 'base' },
        ctx.now,
        ctx.log,
      ),
    );
    return (await appendOrKeep(ctx, () => appendLiveSegment(ctx, LIVE_FUNDING, new Map(), kit.run), LIVE_FUNDING)).rows;
  },
});
