/**
 * Single use of a payment. The chain refuses a nonce twice only at settlement, and in local mode
 * nothing settles at all, so concurrent requests carrying one payment could all pass /verify
 * (docs/x402-protocol.md, "Replay and nonce reservation"; x402-foundation/x402#3060, #1805). The paywall therefore RESERVES the
 * payment's key atomically before serving, RELEASES it if nothing was served or settled, and MARKS
 * it USED after a successful settlement. Entries stay until the authorization's validBefore plus a
 * margin (after that the chain would refuse it anyway) and are then pruned.
 *
 * The interface is async so a durable or shared store can stand in for the in-process one:
 * nonce-store-lmdb.ts (the default: on disk, so a restart or a crash never forgets a used payment,
 * and shared by every process that opens the same directory) and nonce-store-redis.ts (REDIS_URL:
 * shared by proxy instances on several machines). proxy/stores.ts picks one from the settings.
 * This MemoryNonceStore forgets everything on restart: tests and the bench's baseline only.
 */

export interface NonceKey {
  /** CAIP-2 network id. */
  network: string;
  /** Token contract / mint / currency code. */
  asset: string;
  /** Payer. */
  from: string;
  /** EIP-3009 nonce; for Solana a hash of the signed transaction; for XRPL `sequence:<n>` or `ticket:<n>` (with `from` the Account: one slot of the account, as the ledger applies it once). */
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

/**
 * The store could not be asked (Redis down or too slow, the database directory unwritable). The
 * paywall answers 503 and serves nothing: without the store it cannot tell a fresh payment from a
 * replayed one, so it fails closed.
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
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
