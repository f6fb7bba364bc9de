/**
 * ingest:x402_transactions: settlements chain by chain as the facilitator registry covers them
 * (Base by the EVM indexer, Solana by the Solana indexer), appended to the payments as one new
 * segment. A chain that fails still lets the others' history be published; the step then fails.
 */
import type { IngestContext } from '../../../contract.ts';
import { chainCoverage } from '../../../../catalog/facilitators.ts';
import { RAW_TABLES } from '../../../raw-tables.ts';
import { firstLine, withUpstream } from '../../http.ts';
import { createJsonRpc } from '../../json-rpc.ts';
import { DEFAULT_EVM_OPTIONS, indexEvmSettlements } from '../evm-indexer.ts';
import { notIndexedReason } from '../facilitators.ts';
import { type AnalyticsIngestStep, appendOrKeep, MissingSettingError, PURPOSE } from '../ingest-kit.ts';
import { appendLiveSegment, indexerPositions, LIVE_TRANSACTIONS } from '../segments.ts';
import { DEFAULT_SOLANA_OPTIONS, indexSolanaSettlements } from '../solana-indexer.ts';

export const transactionsStep: AnalyticsIngestStep = (kit) => ({
  name: 'ingest:x402_transactions',
  tables: [RAW_TABLES.x402_transactions.name],
  async run(ctx: IngestContext) {
    const problems: string[] = [];
    const before = await indexerPositions(ctx.connection, LIVE_TRANSACTIONS);
    // Chain by chain from the facilitator registry: a chain is read only when a facilitator is
    // registered on it and the live source has a reader for it; every other chain says why not.
    for (const coverage of chainCoverage(kit.registry)) {
      const { chain } = coverage;
      const setting = kit.registry.chains[chain].live_rpc_setting;
      if (!coverage.indexed || setting === null) {
        ctx.log(notIndexedReason(chain, kit.relayers) ?? `${chain}: ${coverage.note}`);
        continue;
      }
      const url = kit.settings.upstreams[setting];
      if (!url) {
        if (PURPOSE[setting]) problems.push(new MissingSettingError(setting, PURPOSE[setting]).message);
        else ctx.log(`${chain}: ${setting} is not set; ${chain} settlements are not indexed this run`);
        continue;
      }
      try {
        if (chain === 'solana') {
          await withUpstream(kit.client('solana', 'solana-rpc', url), ctx.log, (up) =>
            indexSolanaSettlements(
              ctx.connection,
              createJsonRpc(up),
              { ...DEFAULT_SOLANA_OPTIONS, registry: kit.relayers, ...kit.options.solana },
              ctx.log,
            ),
          );
        } else {
          await withUpstream(kit.client('base', `${chain}-rpc`, url), ctx.log, (up) =>
            indexEvmSettlements(
              ctx.connection,
              createJsonRpc(up),
              { ...DEFAULT_EVM_OPTIONS, registry: kit.relayers, ...kit.options.evm, chain },
              ctx.log,
            ),
          );
        }
      } catch (err) {
        problems.push(firstLine(err));
      }
    }
    // History indexed so far is still worth publishing when one chain failed this run; the step
    // still fails so the run's summary and exit code say so.
    const { rows } = await appendOrKeep(ctx, () => appendLiveSegment(ctx, LIVE_TRANSACTIONS, before, kit.run), LIVE_TRANSACTIONS);
    if (problems.length) throw new Error(problems.join('; '));
    return rows;
  },
});
