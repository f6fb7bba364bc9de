/**
 * What a live run indexed and what it skipped, by reason (docs/x402-indexing.md, "Never silent"):
 * the ingest steps count into one tally per run (IngestContext.indexing), and the runner writes it
 * into the snapshot manifest's `indexing`, which /health serves. Nothing a step drops is only a
 * number in a log line.
 *
 * A skip has a kind and a reason, kept as `<kind>.<reason>`:
 *  - `settlement`: a payment in scope (sent by a registered relayer, or paid to a listed payTo)
 *    that was not indexed. These are the skips that matter: their share of the run's settlements
 *    in scope is `skip_share`, and above SKIP_SHARE_DEGRADED (1 %) it degrades /health.
 *  - `log`: a chain event that is not an x402 settlement (a plain transfer, an EIP-3009 transfer
 *    neither sent by a relayer nor paid to a listed payTo, a failed transaction).
 *  - `listing`: a discovery item or offer that could not be listed.
 */

import { SKIP_SHARE_DEGRADED } from '../catalog/facilitators.ts';

export { SKIP_SHARE_DEGRADED };

export type SkipKind = 'settlement' | 'log' | 'listing';

/** The facilitator registry a run used (sources/live/analytics/registry-source.ts). */
export interface RegistryUsed {
  version: string;
  origin: 'pinned' | 'url';
  taken_at: string;
  /** 'catalog/facilitators.json' or the URL without credentials or query. */
  source: string;
  /** Why FACILITATOR_REGISTRY_URL was not used; null when it was, or is not set. */
  problem: string | null;
}

/** A sender the registry does not know that settled to listed payTos often: a candidate for the registry. */
export interface RegistryCandidate {
  chain: string;
  sender: string;
  settlements: number;
  payees: number;
  first_time: string;
  last_time: string;
}

/** The tally as the manifest keeps it (snapshots/manifest.ts, IndexingReport). */
export interface IndexingSummary {
  registry: RegistryUsed | null;
  /** Settlements indexed this run (new or already kept). */
  settlements: number;
  /** Of those, sent by a wallet the registry does not name (facilitator "unknown", the sender kept). */
  unknown_facilitator: number;
  /** `<kind>.<reason>` → count, every skip of the run. */
  skipped: Record<string, number>;
  /** The `settlement.*` skips together. */
  skipped_settlements: number;
  /** skipped_settlements / (settlements + skipped_settlements); 0 when there were none. */
  skip_share: number;
  candidates: RegistryCandidate[];
  /** What the run has to say about its indexing (no payment yet, a chain not read...). */
  notes: string[];
}

/** At most this many candidates are kept (the most frequent first). */
export const MAX_CANDIDATES = 50;

export class IndexingTally {
  settlements = 0;
  unknownFacilitator = 0;
  registry: RegistryUsed | null = null;
  candidates: RegistryCandidate[] = [];
  readonly notes: string[] = [];
  private readonly skips = new Map<string, number>();
  private used = false;

  /** Counts `n` skips of one kind and reason (nothing for 0). */
  skip(kind: SkipKind, reason: string, n = 1): void {
    this.used = true;
    if (n <= 0) return;
    const key = `${kind}.${reason}`;
    this.skips.set(key, (this.skips.get(key) ?? 0) + n);
  }

  /** Counts indexed settlements, `unknown` of them by a sender the registry does not name. */
  indexed(n: number, unknown = 0): void {
    this.used = true;
    this.settlements += n;
    this.unknownFacilitator += unknown;
  }

  note(text: string): void {
    this.used = true;
    this.notes.push(text);
  }

  /** True once a step counted or noted something (a run of a source that does not index has nothing to say). */
  get touched(): boolean {
    return this.used || this.registry !== null;
  }

  get skippedSettlements(): number {
    let n = 0;
    for (const [key, count] of this.skips) if (key.startsWith('settlement.')) n += count;
    return n;
  }

  summary(): IndexingSummary {
    const skipped = this.skippedSettlements;
    const scope = this.settlements + skipped;
    return {
      registry: this.registry,
      settlements: this.settlements,
      unknown_facilitator: this.unknownFacilitator,
      skipped: Object.fromEntries([...this.skips].sort(([a], [b]) => a.localeCompare(b))),
      skipped_settlements: skipped,
      skip_share: scope === 0 ? 0 : skipped / scope,
      candidates: this.candidates.slice(0, MAX_CANDIDATES),
      notes: this.notes.slice(0, 20),
    };
  }
}

/** The skips of a summary in words, e.g. "12 settlement.before_relayer_first_seen, 3 listing.invalid_accepts". */
export function skipsText(skipped: Record<string, number>, kind?: SkipKind): string {
  const parts = Object.entries(skipped)
    .filter(([key, n]) => n > 0 && (!kind || key.startsWith(`${kind}.`)))
    .sort(([, a], [, b]) => b - a)
    .map(([key, n]) => `${n} ${key}`);
  return parts.length ? parts.join(', ') : 'none';
}
