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
 * - markUsed() writes the 'used' mark at once, so a repeat of a served payment reads 'used' (not
 *   'in flight') right away, in this process and in every other one on the directory. Without a
 *   replay answer to keep it does not wait for the flush: the durable reservation already blocks
 *   the key until the same expiry if the machine crashes first, and the write rides in the same
 *   batched commit as the other requests' reservations, so a paid request still costs one flushed
 *   commit. With a replay answer it waits for the flush, so the kept answer survives a crash.
 * - A reservation found after a restart belongs to a request that was served or died mid-flight
 *   (crash, kill -9). Nobody can tell whether its data went out, so it stays taken ('in_flight',
 *   then 'used' once older than IN_FLIGHT_SECONDS) until its validBefore + margin; it is never
 *   handed out again. The payer signs a new payment; the worst case is one unserved authorization
 *   that expires unused (it moved no funds in local mode and was never settled in facilitator mode,
 *   because /settle runs only after serve() and marks the key used).
 * - Expired entries (pruneAfter < now) are compacted away once a minute, in one write transaction,
 *   by any process; an expired entry is also simply overwritten by the next reserve() of its key.
 *
 * Faults (a full disk, a file system remounted read-only, a directory that cannot be opened) never
 * take the process down: every call fails with StoreUnavailableError (the paywall answers 503 and
 * serves nothing), `fault` says why for /health, and the store retries on the next call and on a
 * probe every few seconds, so service resumes without a restart once the disk is writable again.
 * Nothing about single use is kept in memory: what was reserved or used before the fault is still
 * on disk and still refused after it.
 */
import { accessSync, closeSync, constants, mkdirSync, openSync, rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { open, type Database, type RootDatabase, type RootDatabaseOptionsWithPath } from 'lmdb';
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
 * serve and settle all have shorter time limits), so it was left by a crash, or by a request whose
 * 'used' mark was lost (the disk failed right after serving). Either way it reads as 'used'.
 */
const IN_FLIGHT_SECONDS = 120;

/** A write (commit, flush) not done by then counts as failed: lmdb-js leaves some failures unsettled (a transaction that cannot begin). */
const WRITE_DEADLINE_MS = 10_000;

/** How long close() waits for lmdb-js to finish pending writes. */
const CLOSE_WAIT_MS = 3000;

/** At most one log line per this many ms for a fault already logged (a nearly full disk flaps). */
const LOG_EVERY_MS = 10_000;

/** Free space below which the store refuses to write (a commit of ours needs a few 4 KiB pages). */
const MIN_FREE_BYTES = 1024 * 1024;

/** Free space above which it is checked only every FREE_CHECK_MS (filling 64 MiB in 100 ms is not a disk filling up, it is a flood). */
const SPARE_FREE_BYTES = 64 * 1024 * 1024;
const FREE_CHECK_MS = 100;

/** Seconds between attempts to write again while the store is faulty (besides every paid request's own attempt). */
const PROBE_EVERY_SECONDS = 5;

export interface LmdbNonceStoreOptions {
  /** Seconds kept after validBefore (default 600, as MemoryNonceStore). */
  marginSeconds?: number;
  /** Clock in unix seconds (tests). */
  now?: () => number;
  /** Seconds between compactions (default 60; 0 = only when prune() is called). */
  compactEverySeconds?: number;
}

interface PendingWrite {
  /** Date.now() when the write was asked for. */
  since: number;
  reject: (err: StoreUnavailableError) => void;
  /** Given up by the watchdog and not settled since: lmdb-js's writer is stuck on it. */
  stuck?: boolean;
}

/**
 * lmdb-js's own 'exit' listener (it closes every environment as the process exits), found the
 * first time a store opens: see LmdbNonceStore.close for when it is taken off.
 */
let lmdbExitHook: NodeJS.ExitListener | null = null;

interface Opened {
  root: RootDatabase;
  db: Database<Entry, string>;
  /** A tiny database the probe writes to: a write that reaches the disk without touching any payment. */
  probe: Database<number, string>;
}

export class LmdbNonceStore implements NonceStore {
  readonly #dir: string;
  readonly #margin: number;
  readonly #now: () => number;
  readonly #timer: NodeJS.Timeout | null;
  #opened: Opened | null = null;
  #closed = false;
  /** Why the store cannot be used right now, in words fit for /health (no paths); null = healthy. */
  #fault: string | null = null;
  #probeTimer: NodeJS.Timeout | null = null;
  /** Writes not yet settled, for the watchdog. */
  readonly #pending = new Set<PendingWrite>();
  #watchdog: NodeJS.Timeout | null = null;
  /** Writes given up by the watchdog that lmdb-js has not settled since (its writer is stuck). */
  #stuck = 0;
  /** Free bytes on the database's file system at the last check (#writable), and when (Date.now()). */
  #freeBytes = Number.POSITIVE_INFINITY;
  #freeCheckedAt = 0;
  /** The fault last logged (null once "writable again" was logged) and when. */
  #loggedReason: string | null = null;
  #loggedAt = 0;

  /**
   * Opens (or creates) the store in `dir`; several processes may open the same directory at once.
   * A directory that cannot be opened (read-only file system, no permission) does not throw: the
   * store starts faulty and opens on a later call.
   */
  constructor(dir: string, options: LmdbNonceStoreOptions = {}) {
    this.#dir = dir;
    this.#margin = options.marginSeconds ?? 600;
    this.#now = options.now ?? (() => Math.floor(Date.now() / 1000));
    try {
      this.#open();
    } catch (err) {
      this.#failed(err);
    }
    const every = options.compactEverySeconds ?? 60;
    this.#timer =
      every > 0
        ? setInterval(() => {
            if (this.#fault) return; // the probe is on it; a compaction would only fail the same way
            void this.prune().catch((err: Error) => console.error(`nonce store: compaction failed: ${err.message}`));
          }, every * 1000)
        : null;
    this.#timer?.unref();
  }

  /** Why the store cannot vouch for single use right now (for /health: no file system path), or null. */
  get fault(): string | null {
    return this.#closed ? 'the nonce database is closed' : this.#fault;
  }

  async reserve(key: NonceKey, expiresAt: number): Promise<ReserveResult> {
    const text = nonceKeyText(key);
    const now = this.#now();
    const pruneAfter = expiresAt + this.#margin;
    const { root, db } = this.#writable();
    const committed = this.#settle(
      db.transaction((): ReserveResult => {
        const existing = db.get(text);
        if (existing && existing.p >= now) return existing.s === 'u' || now - (existing.t ?? 0) > IN_FLIGHT_SECONDS ? 'used' : 'in_flight';
        db.putSync(text, { s: 'r', p: pruneAfter, t: now }); // inside the transaction: part of it, no promise of its own
        return 'reserved';
      }),
    );
    const flushing = flushOf(root);
    const result = await committed;
    if (result !== 'reserved') return result;
    await this.#settle(flushing);
    this.#recovered(); // a reservation reached the disk: the disk is writable
    return result;
  }

  async release(key: NonceKey): Promise<void> {
    const text = nonceKeyText(key);
    const { db } = this.#writable();
    await this.#settle(
      db.transaction(() => {
        if (db.get(text)?.s === 'r') db.removeSync(text); // inside the transaction: part of it
      }),
    );
  }

  async markUsed(key: NonceKey, expiresAt: number, replay?: string): Promise<void> {
    const entry: Entry = { s: 'u', p: expiresAt + this.#margin, ...(replay !== undefined ? { r: replay } : {}) };
    const { root, db } = this.#writable();
    const committed = this.#settle(db.put(nonceKeyText(key), entry));
    // Without a replay answer, committed (visible to every process) is enough: the durable
    // reservation already blocks the key if a crash loses this write before the flush.
    const flushing = replay !== undefined ? flushOf(root) : null;
    await committed;
    if (flushing) await this.#settle(flushing);
    this.#recovered();
  }

  async replayOf(key: NonceKey): Promise<string | null> {
    const entry = this.#read(key);
    return entry?.s === 'u' && entry.p >= this.#now() ? (entry.r ?? null) : null;
  }

  /** Entries currently held, expired ones not yet compacted included (tests, bench). */
  get size(): number {
    return this.#usable().db.getCount();
  }

  /** Drops every entry past its prune time in one transaction; returns how many were dropped. */
  async prune(now: number = this.#now()): Promise<number> {
    if (this.#closed) return 0;
    const { db } = this.#writable();
    return this.#settle(
      db.transaction(() => {
        let dropped = 0;
        for (const { key, value } of db.getRange()) {
          if (value.p < now) {
            db.removeSync(key); // inside the transaction: part of it
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
    if (this.#probeTimer) clearInterval(this.#probeTimer);
    if (this.#watchdog) clearInterval(this.#watchdog);
    const opened = this.#opened;
    this.#opened = null;
    if (!opened) return;
    // lmdb-js's close waits for the last batch's flush, which never comes when that commit failed
    // (full disk): a shutdown must not hang on it, and a failure there must not reject
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CLOSE_WAIT_MS);
    });
    let closed = false;
    await Promise.race([
      opened.root.close().then(
        () => {
          closed = true;
        },
        () => {},
      ),
      gaveUp,
    ]);
    clearTimeout(timer);
    // lmdb-js's writer stuck on a transaction that never began (a file system gone read-only on a
    // disk error) holds a lock its 'exit' listener waits for, so the process would hang in
    // process.exit. Without that listener the process exits as after a crash, which LMDB is built
    // to survive: every committed write is on disk, an uncommitted one never counted.
    if (!closed && (this.#stuck > 0 || this.#fault !== null) && lmdbExitHook) {
      process.removeListener('exit', lmdbExitHook);
      lmdbExitHook = null;
    }
  }

  #open(): Opened {
    mkdirSync(this.#dir, { recursive: true });
    // eventTurnBatching off: with it on, lmdb-js starts each batch with a write whose promise it
    // keeps to itself, so a failed commit (full disk) rejects a promise nobody can handle and
    // crashes the process. Off, every write's promise is one of ours; writes still batch until
    // the next setImmediate (the high txnStartThreshold keeps lmdb-js from starting early).
    const options: RootDatabaseOptionsWithPath & { txnStartThreshold: number } = {
      path: this.#dir,
      compression: false,
      eventTurnBatching: false,
      txnStartThreshold: 1_000_000,
    };
    const listening = new Set(process.listeners('exit'));
    const root = open(options);
    lmdbExitHook ??= process.listeners('exit').find((l) => !listening.has(l)) ?? null;
    try {
      const opened = { root, db: root.openDB<Entry, string>({ name: 'nonces' }), probe: root.openDB<number, string>({ name: 'probe' }) };
      this.#opened = opened;
      return opened;
    } catch (err) {
      void root.close().catch(() => {});
      throw err;
    }
  }

  /** The open database, opening it if an earlier attempt failed; StoreUnavailableError when it cannot be. */
  #usable(): Opened {
    if (this.#closed) throw new StoreUnavailableError('the nonce database is closed');
    // a write lmdb-js never finished blocks every later one: fail at once rather than make each
    // paid request wait out the deadline; the probe keeps trying, and the store opens again when
    // the stuck write settles
    if (this.#stuck > 0) throw new StoreUnavailableError(`the nonce database cannot be used: ${this.#fault ?? GENERIC_FAULT}`);
    if (this.#opened) return this.#opened;
    try {
      return this.#open();
    } catch (err) {
      throw this.#failed(err);
    }
  }

  /**
   * The open database for a write, refused while its disk has less than MIN_FREE_BYTES left: a
   * write that fails in the kernel (ENOSPC) takes lmdb-js through an error path that overruns a
   * heap buffer (liblmdb's mdb_page_flush in lmdb 3.5.6 formats its message into malloc(100) with
   * iovec lengths it never set), which can abort the process later. Refusing before LMDB writes
   * keeps a full disk a clean 503. statfs costs about 2 µs, so it runs at most every
   * FREE_CHECK_MS while the disk has room to spare, and before every write when it is low.
   */
  #writable(): Opened {
    const opened = this.#usable();
    const now = Date.now();
    if (this.#freeBytes < SPARE_FREE_BYTES || now - this.#freeCheckedAt >= FREE_CHECK_MS) {
      this.#freeBytes = freeBytes(this.#dir);
      this.#freeCheckedAt = now;
    }
    if (this.#freeBytes < MIN_FREE_BYTES) {
      this.#noteFault(FULL, `${this.#freeBytes} bytes free, at least ${MIN_FREE_BYTES} kept free for LMDB's writes`);
      throw new StoreUnavailableError(`the nonce database cannot be written: ${FULL}`);
    }
    return opened;
  }

  #read(key: NonceKey): Entry | undefined {
    const { db } = this.#usable();
    try {
      return db.get(nonceKeyText(key));
    } catch (err) {
      throw new StoreUnavailableError(`the nonce database could not be read: ${errorText(err)}`, { cause: err });
    }
  }

  /**
   * Waits for one lmdb-js write promise: its value, or StoreUnavailableError when the commit failed
   * or did not finish within WRITE_DEADLINE_MS (the watchdog checks once a second: one timer for
   * all writes, not one per write, on the paid path).
   */
  #settle<T>(write: PromiseLike<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const pending: PendingWrite = { since: Date.now(), reject };
      this.#pending.add(pending);
      this.#watch();
      const unstuck = () => {
        if (pending.stuck) this.#stuck--;
        pending.stuck = false;
      };
      write.then(
        (value) => {
          this.#pending.delete(pending);
          unstuck();
          resolve(value);
        },
        (err: unknown) => {
          this.#pending.delete(pending);
          unstuck();
          // lmdb-js rejects each write of a failed commit with "Commit failed" and keeps the cause
          // in a second promise, `commitError`, that rejects too: handled here for every write
          // (also one already given up by the watchdog), and read for the reason /health gives.
          const commitError = (err as { commitError?: PromiseLike<unknown> } | null)?.commitError;
          commitError?.then(undefined, (cause: unknown) => this.#noteFault(faultReason(cause, this.#dir), errorText(cause)));
          reject(this.#failed(err));
        },
      );
    });
  }

  /** Starts the watchdog for writes that never settle (lmdb-js leaves a transaction that cannot begin unsettled). */
  #watch(): void {
    if (this.#watchdog) return;
    this.#watchdog = setInterval(() => {
      const cutoff = Date.now() - WRITE_DEADLINE_MS;
      for (const p of this.#pending) {
        if (p.since > cutoff) continue;
        this.#pending.delete(p);
        p.stuck = true;
        this.#stuck++;
        p.reject(this.#failed(new Error(`the nonce database did not finish a write within ${WRITE_DEADLINE_MS / 1000} s`)));
      }
    }, 1000);
    this.#watchdog.unref();
  }

  /** Records why the store is unusable (logged once per fault), starts the probe, and returns the error to throw. */
  #failed(err: unknown): StoreUnavailableError {
    // a failed commit's cause arrives through commitError (#settle), which records the fault; this
    // only marks the store faulty in the meantime, without a log line of its own
    if ((err as { commitError?: unknown } | null)?.commitError) this.#fault ??= GENERIC_FAULT;
    else this.#noteFault(faultReason(err, this.#dir), errorText(err));
    if (err instanceof StoreUnavailableError) return err;
    return new StoreUnavailableError(`the nonce database could not be written: ${errorText(err)}`, { cause: err });
  }

  #noteFault(reason: string, detail: string): void {
    if (this.#closed) return;
    // a generic reason never replaces a specific one learnt from commitError
    if (this.#fault && reason === GENERIC_FAULT) return;
    // On a nearly full disk some commits still fit, so the store can flap between faulty and
    // writable: one line per reason, then at most one every LOG_EVERY_MS.
    if (this.#fault !== reason && (reason !== this.#loggedReason || Date.now() - this.#loggedAt > LOG_EVERY_MS)) {
      console.error(`nonce store: ${reason} (${detail}); paid endpoints answer 503 until it is writable again`);
      this.#loggedReason = reason;
      this.#loggedAt = Date.now();
    }
    this.#fault = reason;
    if (!this.#probeTimer) {
      this.#probeTimer = setInterval(() => void this.#probe(), PROBE_EVERY_SECONDS * 1000);
      this.#probeTimer.unref();
    }
  }

  #recovered(): void {
    if (this.#fault === null) return;
    this.#fault = null;
    if (this.#probeTimer) clearInterval(this.#probeTimer);
    this.#probeTimer = null;
    if (this.#loggedReason !== null) console.error('nonce store: writable again; paid endpoints are open');
    this.#loggedReason = null;
  }

  /** One small write, so /health clears the fault without waiting for a paid request. */
  async #probe(): Promise<void> {
    try {
      const { probe } = this.#writable();
      await this.#settle(probe.put('probe', this.#now()));
      this.#recovered();
    } catch {
      // still faulty: #failed recorded why
    }
  }
}

const GENERIC_FAULT = 'the nonce database cannot be written';

/** The reason /health gives for a failed write or open: what is wrong, in words, never a path. */
function faultReason(err: unknown, dir: string): string {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = e?.code;
  const message = typeof e?.message === 'string' ? e.message : '';
  const is = (errno: number, name: string, text: RegExp) => code === errno || code === name || text.test(message);
  if (is(28, 'ENOSPC', /no space left/i) || diskFull(dir)) return FULL;
  if (is(122, 'EDQUOT', /quota exceeded/i)) return 'the disk quota of the nonce database is exhausted';
  // a file system remounted read-only after a disk error may fail the commit with EIO, or never
  // settle it (the write deadline): access(2) tells what state it is in now
  if (is(30, 'EROFS', /read-only file system/i) || readOnly(dir)) return 'the file system holding the nonce database is read-only';
  if (is(13, 'EACCES', /permission denied/i) || is(1, 'EPERM', /not permitted/i))
    return 'the nonce database is not writable (permission denied)';
  // LMDB reports a short write (what a full disk also causes) as EIO
  if (is(5, 'EIO', /input\/output error/i)) return 'the disk holding the nonce database reports write errors';
  if (/did not finish a write/.test(message)) return 'the nonce database does not finish its writes (disk too slow or failing)';
  return GENERIC_FAULT;
}

const FULL = 'the disk holding the nonce database is full';

/**
 * Whether the file system holding `dir` refuses writes as read-only now: asked only after a write
 * failed. access(2) does not see ext4's emergency read-only state after a disk error (the mount
 * still says rw), so an empty file is created and removed: EROFS either way means read-only.
 */
function readOnly(dir: string): boolean {
  const probe = join(dir, '.write-probe');
  try {
    accessSync(dir, constants.W_OK);
    closeSync(openSync(probe, 'w'));
    rmSync(probe, { force: true });
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EROFS';
  }
}

/** Whether the file system holding `dir` has (almost) no room left: asked only after a write failed. */
function diskFull(dir: string): boolean {
  return freeBytes(dir) < MIN_FREE_BYTES;
}

/** Bytes an unprivileged process may still write on the file system holding `dir` (infinite when statfs fails: the write itself will tell). */
function freeBytes(dir: string): number {
  try {
    const fs = statfsSync(dir);
    return fs.bavail * fs.bsize;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/**
 * The flush of the batch just written. `.then` is called at once: lmdb-js's `flushed` reads the
 * current batch's flush promise when asked, and a later batch's may never settle (its commit
 * failed). Marked handled: awaited only when the commit succeeded.
 */
function flushOf(root: RootDatabase): Promise<void> {
  const flushing = root.flushed.then(() => {});
  flushing.catch(() => {});
  return flushing;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
