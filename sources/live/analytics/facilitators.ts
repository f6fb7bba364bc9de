/**
 * Relayer lookups for the live indexers over the facilitator registry (catalog/facilitators.json,
 * parsed by catalog/facilitators.ts; docs/x402-indexing.md, "Facilitator registry" and "Which
 * transfers count"). A settlement is attributed to a facilitator when a relayer registered for
 * that chain sent its transaction (Solana: paid its fee), on or after the relayer's first-seen
 * date; the indexers also count settlements to a listed payTo whatever their sender, with
 * facilitator "unknown". A chain with no registered relayer is not indexed at all.
 *
 * Frequent submitters are never added automatically: many are payout rails or bridges, not x402.
 */
import type { AnalyticsChain } from '../../../catalog/categories.ts';
import { RELAYERS, type Relayer } from '../../../catalog/facilitators.ts';

export { REGISTRY_VERSION, RELAYERS, type Relayer } from '../../../catalog/facilitators.ts';

export function relayersOn(chain: AnalyticsChain, registry: readonly Relayer[] = RELAYERS): Relayer[] {
  return registry.filter((x) => x.chain === chain);
}

/** Why a chain is not indexed, as one log line; null when the registry has a relayer on it. */
export function notIndexedReason(chain: AnalyticsChain, registry: readonly Relayer[] = RELAYERS): string | null {
  if (relayersOn(chain, registry).length > 0) return null;
  return `${chain}: not indexed: no facilitator relayer is registered for ${chain} in the facilitator registry, so no transfer there counts as an x402 payment`;
}

export interface RelayerLookup {
  /** The relayer with this address on the chain, whatever the date (for a first, cheap filter). */
  byAddress(address: string): Relayer | null;
  /** The relayer if it was active at `time` (on or after its first-seen UTC date). */
  at(address: string, time: Date): Relayer | null;
}

export function relayerLookup(chain: AnalyticsChain, registry: readonly Relayer[] = RELAYERS): RelayerLookup {
  const norm = (a: string) => (chain === 'solana' ? a : a.toLowerCase());
  const map = new Map(relayersOn(chain, registry).map((x) => [x.address, x]));
  return {
    byAddress: (address) => map.get(norm(address)) ?? null,
    at(address, time) {
      const relayer = map.get(norm(address));
      if (!relayer) return null;
      return time.getTime() >= Date.parse(`${relayer.firstSeen}T00:00:00Z`) ? relayer : null;
    },
  };
}
