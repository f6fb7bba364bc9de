/**
 * Registry candidates (docs/x402-indexing.md, "A registry that stays current"): senders the
 * facilitator registry does not name that settled x402 payments to listed payTos more than a
 * threshold, over the whole kept history. They are reported (run log, manifest `indexing`,
 * /health), never added: a reviewed edit of catalog/facilitators.json, or of the registry behind
 * FACILITATOR_REGISTRY_URL, adds a relayer.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { queryJson } from '../../../lib/duckdb.ts';
import { MAX_CANDIDATES, type RegistryCandidate } from '../../indexing.ts';
import { ensureEvmTables, UNKNOWN_FACILITATOR } from './evm-indexer.ts';
import type { Relayer } from './facilitators.ts';
import { ensureSolanaTables } from './solana-indexer.ts';

/** More settlements than this by one unknown sender make it a candidate. */
export const CANDIDATE_MIN_SETTLEMENTS = 10;

export async function registryCandidates(
  connection: DuckDBConnection,
  registry: readonly Relayer[],
  minSettlements: number = CANDIDATE_MIN_SETTLEMENTS,
): Promise<RegistryCandidate[]> {
  await ensureEvmTables(connection);
  await ensureSolanaTables(connection);
  const rows = await queryJson(
    connection,
    `SELECT chain, relayer AS sender, count(*)::INTEGER AS settlements, count(DISTINCT seller_address)::INTEGER AS payees,
            strftime(min(block_time), '%Y-%m-%dT%H:%M:%SZ') AS first_time, strftime(max(block_time), '%Y-%m-%dT%H:%M:%SZ') AS last_time
       FROM (SELECT chain, relayer, seller_address, block_time FROM live_evm_settlements WHERE facilitator = $unknown
             UNION ALL SELECT 'solana', relayer, seller_address, block_time FROM live_solana_settlements WHERE facilitator = $unknown)
      GROUP BY chain, relayer HAVING count(*) > $min
      ORDER BY settlements DESC, chain, sender LIMIT $limit`,
    { unknown: UNKNOWN_FACILITATOR, min: minSettlements, limit: MAX_CANDIDATES + registry.length },
  );
  // a registered relayer seen before its first-seen date is not a candidate: it is in the registry already
  const known = new Set(registry.map((r) => `${r.chain}:${r.address}`));
  return rows
    .map(
      (r): RegistryCandidate => ({
        chain: String(r.chain),
        sender: String(r.sender),
        settlements: Number(r.settlements),
        payees: Number(r.payees),
        first_time: String(r.first_time),
        last_time: String(r.last_time),
      }),
    )
    .filter((c) => !known.has(`${c.chain}:${c.sender}`))
    .slice(0, MAX_CANDIDATES);
}
