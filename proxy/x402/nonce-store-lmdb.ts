/**
 * The default nonce store: LMDB (the `lmdb` package) in NONCE_DB_DIR. Why LMDB: an embedded,
 * maintained, crash-safe B-tree with real ACID write transactions whose writer lock holds across
 * processes, so no log format or locking is written by hand, and reads are memory-mapped (no I/O on
 * the hot path).
 *
 * - reserve() runs check-and-set inside one LMDB write transaction. LMDB admits one writer at a
 *   time for the whole environment, across threads AND processes, so of any number of concurrent
 *   reserve() calls for one key, in this process or in another process opening the same directory,
 *   exactly one sees the key free and takes it.
 * - reserve() resolves only after that transaction is committed and flushed to disk (lmdb-js
 *   `flushed`): data is served only for a reservation that a restart, a crash of this process or
 *   of the machine cannot forget. lmdb-js batches the writes of one event-loop turn into one
 *   transaction, so concurrent requests share one flush.
 * - markUsed() writes only when it has a replay answer to keep (payment-identifier): the durable
 *   reservation already blocks the key until the same expiry, and one disk commit per paid request
 *   is what the paid endpoint's throughput pays for. A reservation older than IN_FLIGHT_SECONDS
 *   reads as 'used'.
 * - A reservation found after a restart belongs to a request that was served or died mid-flight
 *   (crash, kill -9). Nobody can tell whether its data went out, so it stays taken ('in_flight',
 *   then 'used') until its validBefore + margin; it is never handed out again. The payer signs a new
 *   payment; the worst case is one unserved authorization that expires unused (it moved no funds
 *   in local mode and was never settled in facilitator mode, because /settle runs only after
 *   serve() and marks the key used).
 * - Expired entries (pruneAfter < now) are compacted away once a minute, in one write transaction,
 *   by any process; an expired entry is also simply overwritten by the next reserve() of its key.
 */
import { mkdirSync } from 'node:fs';
import { open, type Database, type RootDatabase } from 'lmdb';
import { nonceKeyText, StoreUnavailableError, type NonceKey, type NonceStore, type ReserveResult } from './nonce-store.ts';

interface Entry {
  /** 'r' reserved, 'u' used. */
  s: 'r' | 'u';
  /** Unix seconds after which the entry may be dropped. */
  p: number;
  /** Unix seconds of the reservation (absent in entries written by markUsed). */
  t?: number;
  /** The replay answer kept with a used key (markUsed). */
  r?: string;
}

/**
 * A reservation older than this is no longer "in flight": no paid request runs this long (verify,
 * serve and settle all have shorter time limits), so it was either served, which a markUsed
 * without a replay answer does not record, or left by a crash. Either way it reads as 'used'.
 */
const IN_FLIGHT_SECONDS = 120;

export interface LmdbNonceStoreOptions {
  /** Seconds kept after validBefore (default 600, as MemoryNonceStore). */
  marginSeconds?: number;
  /** Clock in unix seconds (tests). */
  now?: () => number;
  /** Seconds between compactions (default 60; 0 = only when prune() is called). */
  compactEverySeconds?: number;
}

export class LmdbNonceStore implements NonceStore {
  readonly #root: RootDatabase;
  readonly #db: Database<Entry, string>;
  readonly #margin: number;
  readonly #now: () => number;
  readonly #timer: NodeJS.Timeout | null;
  #closed = false;

  /** Opens (or creates) the store in `dir`; several processes may open the same directory at once. */
  constructor(dir: string, options: LmdbNonceStoreOptions = {}) {
    this.#margin = options.marginSeconds ?? 600;
    this.#now = options.now ?? (() => Math.floor(Date.now() / 1000));
    try {
      mkdirSync(dir, { recursive: true });
      this.#root = open({ path: dir, compression: false });
      this.#db = this.#root.openDB<Entry, string>({ name: 'nonces' });
    } catch (err) {
      throw new Error(`nonce store: cannot open the LMDB database in NONCE_DB_DIR (${err instanceof Error ? err.message : String(err)})`);
    }
    const every = options.compactEverySeconds ?? 60;
    this.#timer =
      every > 0
        ? setInterval(() => {
            void this.prune().catch((err: Error) => console.error(`nonce store: compaction failed: ${err.message}`));
          }, every * 1000)
        : null;
    this.#timer?.unref();
  }

  async reserve(key: NonceKey, expiresAt: number): Promise<ReserveResult> {
    const text = nonceKeyText(key);
    const now = this.#now();
    const pruneAfter = expiresAt + this.#margin;
    const result = await this.#write(() =>
      this.#db.transaction((): ReserveResult => {
        const existing = this.#db.get(text);
        if (existing && existing.p >= now) return existing.s === 'u' || now - (existing.t ?? 0) > IN_FLIGHT_SECONDS ? 'used' : 'in_flight';
        void this.#db.put(text, { s: 'r', p: pruneAfter, t: now });
        return 'reserved';
      }),
    );
    if (result === 'reserved') await this.#write(() => this.#root.flushed);
    return result;
  }

  async release(key: NonceKey): Promise<void> {
    const text = nonceKeyText(key);
    await this.#write(() =>
      this.#db.transaction(() => {
        if (this.#db.get(text)?.s === 'r') void this.#db.remove(text);
      }),
    );
  }

  async markUsed(key: NonceKey, expiresAt: number, replay?: string): Promise<void> {
    // Without a replay answer to keep, the durable reservation already says everything: it blocks
    // the key until the same expiry, and once older than any request can take it reads as 'used'.
    // Skipping the write saves one disk commit per paid request.
    if (replay === undefined && !this.#closed) return;
    const entry: Entry = { s: 'u', p: expiresAt + this.#margin, ...(replay !== undefined ? { r: replay } : {}) };
    await this.#write(() => this.#db.put(nonceKeyText(key), entry));
    await this.#write(() => this.#root.flushed);
  }

  async replayOf(key: NonceKey): Promise<string | null> {
    const entry = this.#read(key);
    return entry?.s === 'u' && entry.p >= this.#now() ? (entry.r ?? null) : null;
  }

  /** Entries currently held, expired ones not yet compacted included (tests, bench). */
  get size(): number {
    return this.#db.getCount();
  }

  /** Drops every entry past its prune time in one transaction; returns how many were dropped. */
  async prune(now: number = this.#now()): Promise<number> {
    if (this.#closed) return 0;
    return this.#write(() =>
      this.#db.transaction(() => {
        let dropped = 0;
        for (const { key, value } of this.#db.getRange()) {
          if (value.p < now) {
            void this.#db.remove(key);
            dropped++;
          }
        }
        return dropped;
      }),
    );
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    await this.#root.close();
  }

  #read(key: NonceKey): Entry | undefined {
    try {
      return this.#db.get(nonceKeyText(key));
    } catch (err) {
      throw new StoreUnavailableError(`the nonce database could not be read: ${err instanceof Error ? err.message : String(err)}`, {
        cause: err,
      });
    }
  }

  /** A write that fails (disk full, directory gone, store closed) means the store cannot vouch for single use. */
  async #write<T>(op: () => PromiseLike<T>): Promise<T> {
    if (this.#closed) throw new StoreUnavailableError('the nonce database is closed');
    try {
      return await op();
    } catch (err) {
      throw new StoreUnavailableError(`the nonce database could not be written: ${err instanceof Error ? err.message : String(err)}`, {
        cause: err,
      });
    }
  }
}
