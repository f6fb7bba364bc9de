/**
 * Single use of a payment. The chain refuses a nonce twice only at settlement, and in local mode
 * nothing settles at all, so concurrent requests carrying one payment could all pass /verify
 * (docs/x402-protocol.md, "Replay and nonce reservation"; x402-foundation/x402#3060, #1805). The paywall therefore RESERVES the
 * payment's key atomically before serving, RELEASES it if nothing was served or settled, and MARKS
 * it USED after a successful settlement. Entries stay until the authorization's validBefore plus a
 * margin (after that the chain would refuse it anyway) and are then pruned.
 *
 * The interface is async so a shared store (Redis SET NX PX, PostgreSQL INSERT ... ON CONFLICT) can
 * replace the in-process one when several proxy instances serve one pay-to address.
 */

export interface NonceKey {
  /** CAIP-2 network id. */
  network: string;
  /** Token contract / mint / currency code. */
  asset: string;
  /** Payer. */
  from: string;
  /** EIP-3009 nonce, or a hash of the signed transaction for Solana / XRPL. */
  nonce: string;
}

export type ReserveResult = 'reserved' | 'in_flight' | 'used';

export interface NonceStore {
  /** Atomically claims the key until `expiresAt` (unix seconds); 'in_flight' / 'used' when someone has it. */
  reserve(key: NonceKey, expiresAt: number): Promise<ReserveResult>;
  /** Gives a reserved key back (nothing was served or settled). */
  release(key: NonceKey): Promise<void>;
  /**
   * The payment was settled: the key stays taken until `expiresAt` + margin. `replay`, when given,
   * is kept with it: the answer a retry of the same payment with the same payment-identifier gets
   * back instead of a second charge (serialized by the paywall; opaque to the store).
   */
  markUsed(key: NonceKey, expiresAt: number, replay?: string): Promise<void>;
  /** The `replay` text markUsed kept for a used key, or null (not used, expired, or kept without one). */
  replayOf(key: NonceKey): Promise<string | null>;
}

/** Keys are case-insensitive (EVM hex); one string per payment. */
export function nonceKeyText(key: NonceKey): string {
  return `${key.network}|${key.asset}|${key.from}|${key.nonce}`.toLowerCase();
}

interface Entry {
  state: 'reserved' | 'used';
  replay?: string;
  /** Unix seconds after which the entry may be pruned. */
  pruneAfter: number;
}

export interface MemoryNonceStoreOptions {
  /** Seconds kept after validBefore (default 600: covers clock differences with the chain). */
  marginSeconds?: number;
  /** Clock in unix seconds (tests). */
  now?: () => number;
}

/**
 * The in-process store. JavaScript runs one callback at a time, so check-and-set on a Map inside
 * one synchronous step is atomic: of fifty concurrent requests with one payment exactly one
 * reserves it.
 */
export class MemoryNonceStore implements NonceStore {
  readonly #entries = new Map<string, Entry>();
  readonly #margin: number;
  readonly #now: () => number;
  #nextPrune = 0;

  constructor(options: MemoryNonceStoreOptions = {}) {
    this.#margin = options.marginSeconds ?? 600;
    this.#now = options.now ?? (() => Math.floor(Date.now() / 1000));
  }

  async reserve(key: NonceKey, expiresAt: number): Promise<ReserveResult> {
    const now = this.#now();
    this.#maybePrune(now);
    const text = nonceKeyText(key);
    const existing = this.#entries.get(text);
    if (existing && existing.pruneAfter >= now) return existing.state === 'used' ? 'used' : 'in_flight';
    this.#entries.set(text, { state: 'reserved', pruneAfter: expiresAt + this.#margin });
    return 'reserved';
  }

  async release(key: NonceKey): Promise<void> {
    const text = nonceKeyText(key);
    if (this.#entries.get(text)?.state === 'reserved') this.#entries.delete(text);
  }

  async markUsed(key: NonceKey, expiresAt: number, replay?: string): Promise<void> {
    this.#entries.set(nonceKeyText(key), {
      state: 'used',
      pruneAfter: expiresAt + this.#margin,
      ...(replay !== undefined ? { replay } : {}),
    });
  }

  async replayOf(key: NonceKey): Promise<string | null> {
    const entry = this.#entries.get(nonceKeyText(key));
    return entry?.state === 'used' && entry.pruneAfter >= this.#now() ? (entry.replay ?? null) : null;
  }

  /** Entries currently held (tests, /health). */
  get size(): number {
    return this.#entries.size;
  }

  /** Drops every entry past its prune time; returns how many were dropped. */
  prune(now: number = this.#now()): number {
    let dropped = 0;
    for (const [text, entry] of this.#entries) {
      if (entry.pruneAfter < now) {
        this.#entries.delete(text);
        dropped++;
      }
    }
    return dropped;
  }

  // Prune at most once a minute, so reserve() stays O(1) on average.
  #maybePrune(now: number): void {
    if (now < this.#nextPrune) return;
    this.#nextPrune = now + 60;
    this.prune(now);
  }
}
