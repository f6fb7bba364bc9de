/**
 * ingest:x402_transactions: settlements chain by chain as the facilitator registry covers them
 * (Base by the EVM indexer, Solana by the Solana indexer), appended to the payments as one new
 * segment. A chain that fails still lets the others' history be published; the step then fails.
 */
import type { IngestContext } from '../../../contract.ts';
import { queryJson } from '../../../../lib/duckdb.ts';
import { skipsText } from '../../../indexing.ts';
import { chainCoverage } from '../../../../catalog/facilitators.ts';
import { RAW_TABLES } from '../../../raw-tables.ts';
import { firstLine, withUpstream } from '../../http.ts';
import { createJsonRpc } from '../../json-rpc.ts';
import { DEFAULT_EVM_OPTIONS, evmSkips, indexEvmSettlements, type EvmIndexRun } from '../evm-indexer.ts';
import { notIndexedReason } from '../facilitators.ts';
import { type AnalyticsIngestStep, appendOrKeep, MissingSettingError, PURPOSE } from '../ingest-kit.ts';
import { appendLiveSegment, indexerPositions, LIVE_TRANSACTIONS } from '../segments.ts';
import { DEFAULT_SOLANA_OPTIONS, indexSolanaSettlements, solanaSkips, type SolanaIndexRun } from '../solana-indexer.ts';
import { listedPayees } from '../x402-discovery.ts';
import { registryCandidates } from '../candidates.ts';

export const transactionsStep: AnalyticsIngestStep = (kit) => ({
  name: 'ingest:x402_transactions',
  tables: [RAW_TABLES.x402_transactions.name],
  async run(ctx: IngestContext) {
    const registry = await kit.registry(ctx);
    const problems: string[] = [];
    let indexed = 0;
    let unknown = 0;
    const before = await indexerPositions(ctx.connection, LIVE_TRANSACTIONS);
    // Chain by chain from the facilitator registry: a chain is read only when a facilitator is
    // registered on it and the live source has a reader for it; every other chain says why not.
    for (const coverage of chainCoverage(registry.registry)) {
      const { chain } = coverage;
      const setting = registry.registry.chains[chain].live_rpc_setting;
      if (!coverage.indexed || setting === null) {
        ctx.log(notIndexedReason(chain, registry.relayers) ?? `${chain}: ${coverage.note}`);
        continue;
      }
      const url = kit.settings.upstreams[setting];
      if (!url) {
        if (PURPOSE[setting]) problems.push(new MissingSettingError(setting, PURPOSE[setting]).message);
        else ctx.log(`${chain}: ${setting} is not set; ${chain} settlements are not indexed this run`);
        continue;
      }
      // a settlement to a payTo any listing has named counts whatever its sender
      const payees = await listedPayees(ctx.connection, chain);
      try {
        let run: EvmIndexRun | SolanaIndexRun;
        if (chain === 'solana') {
          run = await withUpstream(kit.client('solana', 'solana-rpc', url), ctx.log, (up) =>
            indexSolanaSettlements(
              ctx.connection,
              createJsonRpc(up),
              {
                ...DEFAULT_SOLANA_OPTIONS,
                registry: registry.relayers,
                registryVersion: registry.version,
                payees: [...payees],
                ...kit.options.solana,
              },
              ctx.log,
            ),
          );
        } else {
          run = await withUpstream(kit.client('base', `${chain}-rpc`, url), ctx.log, (up) =>
            indexEvmSettlements(
              ctx.connection,
              createJsonRpc(up),
              { ...DEFAULT_EVM_OPTIONS, registry: registry.relayers, registryVersion: registry.version, payees, ...kit.options.evm, chain },
              ctx.log,
            ),
          );
        }
        indexed += run.settlements;
        unknown += run.unknownFacilitator;
        ctx.indexing?.indexed(run.settlements, run.unknownFacilitator);
        for (const [kind, reason, n] of 'relayers' in run ? solanaSkips(run) : evmSkips(run)) {
          ctx.indexing?.skip(kind, `${chain}.${reason}`, n);
        }
      } catch (err) {
        problems.push(firstLine(err));
      }
    }
    // senders the registry does not name that settle to listed payTos often: candidates for it
    const candidates = await registryCandidates(ctx.connection, registry.relayers, kit.options.candidateMinSettlements);
    if (ctx.indexing) ctx.indexing.candidates = candidates;
    for (const c of candidates.slice(0, 5)) {
      ctx.log(
        `registry candidate: ${c.chain} ${c.sender} settled ${c.settlements} payments to ${c.payees} listed payTo(s) ` +
          `(${c.first_time} to ${c.last_time}) and is in no facilitator's relayer list`,
      );
    }
    // History indexed so far is still worth publishing when one chain failed this run; the step
    // still fails so the run's summary and exit code say so.
    const { rows } = await appendOrKeep(ctx, () => appendLiveSegment(ctx, LIVE_TRANSACTIONS, before, kit.run), LIVE_TRANSACTIONS);
    if (problems.length) throw new Error(problems.join('; '));
    const [kept] = await queryJson(ctx.connection, `SELECT count(*)::BIGINT AS n FROM ${RAW_TABLES.x402_transactions.name}`);
    if (Number(kept?.n ?? 0) === 0)
      ctx.indexing?.note('no payment indexed yet: the services are published without payments, totals are zero');
    const skipped = ctx.indexing ? ctx.indexing.skippedSettlements : 0;
    const reasons = skipped > 0 && ctx.indexing ? ` (${skipsText(ctx.indexing.summary().skipped, 'settlement')})` : '';
    const notX402 = ctx.indexing
      ? Object.entries(ctx.indexing.summary().skipped)
          .filter(([key]) => key.startsWith('log.'))
          .reduce((a, [, n]) => a + n, 0)
      : 0;
    const detail =
      `${indexed} settlements (${unknown} by a sender the registry does not name), ${skipped} in scope skipped${reasons}, ` +
      `${notX402} logs not x402 (by reason in the manifest's indexing)` +
      (candidates.length ? `; ${candidates.length} registry candidate(s)` : '') +
      (Number(kept?.n ?? 0) === 0 ? '; no payment indexed yet' : '');
    return { rows, detail };
  },
});
