/**
 * Where the paywall's public-key crypto runs: the EIP-3009 signature check and the receipt
 * signature (libsecp256k1, secp256k1.ts), with the keccak hashing around them about 0.3 ms of CPU
 * per paid request.
 *
 * - inlineCrypto(signer): on the calling thread (CRYPTO_WORKERS=0; tests).
 * - CryptoWorkerPool.start(signer, size): on `size` worker threads (piscina), so that the event
 *   loop keeps parsing and answering while the workers check and sign; on the proxy bench this
 *   carried 1.3-1.7x the paid requests per second of inline crypto when a core was free, and no
 *   more than inline under contention (handing work to a thread costs about 0.2 ms of CPU). Each worker has
 *   the receipt key, handed over in workerData at start and never logged. Workers run 10 nicer than
 *   the process (Linux), so a busy server answers first while the crypto waits its turn. A task a
 *   worker could not run (the worker died or did not start) is done on the calling thread; after
 *   three such failures in a row the pool says so once and does all the crypto there.
 *
 * Only the crypto moves: the nonce reservation, settlement and everything else stay on the main
 * thread, so a payment is still reserved atomically after its signature checked out.
 *
 * CRYPTO_WORKERS (read by proxy/serve.ts): unset or "auto" = os.availableParallelism() when
 * that is more than 2, else inline (on 2 cores the workers cost more CPU per paid request than
 * they save, lib/config.ts); 0 = inline; n = n workers.
 */
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { checkAuthorizationSigner, type EvmAuthorization, type SignerCheck } from './eip3009.ts';
import { receiptSignerKeyForWorkers, type ReceiptSigner } from './receipts.ts';

export interface PaymentCrypto {
  /** 0 when the crypto runs on the calling thread. */
  readonly workers: number;
  /** Address of the receipt key this instance signs with. */
  readonly signerAddress: string;
  /** checkSigner for an EIP-3009 authorization over the domain `separator`: is authorization.from the signer? */
  checkAuthorization(separator: Uint8Array, authorization: EvmAuthorization, signature: string): SignerCheck | Promise<SignerCheck>;
  /** The receipt signature (0x + r‖s‖v) of a receipt signing text. */
  signReceiptText(text: string): string | Promise<string>;
  /** The receipt key's signature (0x + r‖s‖v) of a 32-byte digest (EIP-712 offers and receipts, offer-receipt.ts). */
  signReceiptDigest(digest: Uint8Array): string | Promise<string>;
  close(): Promise<void>;
}

/** The crypto on the calling thread. */
export function inlineCrypto(signer: ReceiptSigner): PaymentCrypto {
  return {
    workers: 0,
    signerAddress: signer.info.address,
    checkAuthorization: (separator, authorization, signature) => checkAuthorizationSigner(separator, authorization, signature),
    signReceiptText: (text) => signer.signText(text),
    signReceiptDigest: (digest) => signer.signDigest(digest),
    close: async () => {},
  };
}

/** One piece of work for a worker. */
export type CryptoTask =
  | { op: 'verify'; separator: Uint8Array; authorization: EvmAuthorization; signature: string }
  | { op: 'sign'; text: string }
  | { op: 'sign-digest'; digest: Uint8Array };
/** A worker's answer to one task: what the inline code returns, or the message of what it threw. */
export type CryptoAnswer = { result: SignerCheck | string } | { error: string };
export interface CryptoWorkerData {
  /** The receipt key. */
  key: Uint8Array;
}

interface Pending {
  task: CryptoTask;
  resolve: (value: never) => void;
  reject: (err: Error) => void;
}

const WORKER_ENTRY = new URL('./crypto-worker.mjs', import.meta.url);
/**
 * Batches handed to one worker at a time: one it works on, one at hand for when it is done. A task
 * goes out at once while a worker has room; the tasks that arrive while all are full wait here and
 * go out together (up to MAX_BATCH) when one frees up, receipts first (their requests are further
 * along). Under load that makes one message each way per batch instead of per task: posting
 * every task on its own cost the event loop about 60 µs more per paid request (of about 400 µs).
 */
const BATCHES_PER_WORKER = 2;
const MAX_BATCH = 16;
/** How much nicer than the process the workers run (Linux; nice values stop at 19). */
const NICER_BY = 10;
/** Failures in a row (no answer from any worker in between) after which the pool gives up on threads. */
const MAX_FAILURES_IN_A_ROW = 3;

export class CryptoWorkerPool implements PaymentCrypto {
  readonly signerAddress: string;
  readonly #size: number;
  readonly #piscina: Piscina<CryptoTask[], CryptoAnswer[]>;
  readonly #inline: PaymentCrypto;
  readonly #signs: Pending[] = [];
  readonly #verifies: Pending[] = [];
  /** Batches handed to piscina and not answered yet. */
  readonly #inFlight = new Set<Pending[]>();
  #failuresInARow = 0;
  /** Set when the workers keep failing: the crypto then runs on the calling thread. */
  #gaveUp = false;
  #closed = false;

  private constructor(signer: ReceiptSigner, size: number, entry: URL) {
    this.signerAddress = signer.info.address;
    this.#size = size;
    this.#inline = inlineCrypto(signer);
    const workerData: CryptoWorkerData = { key: receiptSignerKeyForWorkers(signer) };
    this.#piscina = new Piscina({
      filename: entry.protocol === 'file:' ? fileURLToPath(entry) : entry.href,
      minThreads: size,
      maxThreads: size,
      concurrentTasksPerWorker: BATCHES_PER_WORKER,
      idleTimeout: Number.POSITIVE_INFINITY,
      niceIncrement: NICER_BY,
      // per-task timing histograms cost the event loop time on every batch, and nothing reads them
      recordTiming: false,
      workerData,
    });
    // A worker that dies holding a batch rejects it (handled in #send). One that dies before taking
    // any is not replaced, and what is queued for it would wait forever: count it as a failure too.
    this.#piscina.on('error', (err: unknown) => this.#failed(err));
  }

  /** Starts `size` (>= 1) workers; they take requests at once (queued while they start). `entry` replaces the worker script (tests). */
  static start(signer: ReceiptSigner, size: number, options: { entry?: URL } = {}): CryptoWorkerPool {
    if (!Number.isInteger(size) || size < 1) throw new Error(`CryptoWorkerPool: size must be a positive integer, got ${size}`);
    return new CryptoWorkerPool(signer, size, options.entry ?? WORKER_ENTRY);
  }

  /** Worker threads in use (0 after falling back to the calling thread). */
  get workers(): number {
    return this.#gaveUp ? 0 : this.#size;
  }

  #runInline(pending: Pending): void {
    const { task } = pending;
    try {
      pending.resolve(
        (task.op === 'sign'
          ? this.#inline.signReceiptText(task.text)
          : task.op === 'sign-digest'
            ? this.#inline.signReceiptDigest(task.digest)
            : this.#inline.checkAuthorization(task.separator, task.authorization, task.signature)) as never,
      );
    } catch (err) {
      pending.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  #run<T>(task: CryptoTask): Promise<T> {
    if (this.#closed) return Promise.reject(new Error('crypto worker pool is closed'));
    return new Promise<T>((resolve, reject) => {
      const pending: Pending = { task, resolve: resolve as (value: never) => void, reject };
      if (this.#gaveUp) return this.#runInline(pending);
      (task.op === 'verify' ? this.#verifies : this.#signs).push(pending);
      this.#pump();
    });
  }

  /** Hands the waiting tasks to piscina while the workers have room, receipts first. */
  #pump(): void {
    let room = this.#size * BATCHES_PER_WORKER - this.#inFlight.size;
    while (room > 0 && this.#signs.length + this.#verifies.length > 0) {
      const size = Math.min(MAX_BATCH, Math.ceil((this.#signs.length + this.#verifies.length) / room));
      const batch = this.#signs.splice(0, size);
      if (batch.length < size) batch.push(...this.#verifies.splice(0, size - batch.length));
      void this.#send(batch);
      room--;
    }
  }

  async #send(batch: Pending[]): Promise<void> {
    this.#inFlight.add(batch);
    let answers: CryptoAnswer[];
    try {
      answers = await this.#piscina.run(batch.map((p) => p.task));
    } catch (err) {
      if (!this.#inFlight.delete(batch)) return; // already done on the calling thread
      if (this.#closed) {
        for (const p of batch) p.reject(new Error('crypto worker pool is closed'));
        return;
      }
      this.#failed(err);
      for (const p of batch) this.#runInline(p);
      this.#pump();
      return;
    }
    if (!this.#inFlight.delete(batch)) return;
    this.#failuresInARow = 0;
    batch.forEach((p, i) => {
      const answer = answers[i]!;
      if ('error' in answer) p.reject(new Error(`crypto worker: ${answer.error}`));
      else p.resolve(answer.result as never);
    });
    this.#pump();
  }

  /**
   * A worker died or did not start: the batch it held runs on the calling thread, and everything
   * (what the workers hold and what waits included) after three such failures in a row.
   */
  #failed(err: unknown): void {
    if (this.#gaveUp || this.#closed) return;
    const message = err instanceof Error ? err.message : String(err);
    if (++this.#failuresInARow < MAX_FAILURES_IN_A_ROW) {
      console.error(`x402: a crypto worker failed (${message}); its tasks run on the event loop`);
      return;
    }
    this.#gaveUp = true;
    console.error(
      `x402: crypto workers keep failing (${message}); checking signatures and signing receipts on the event loop instead (set CRYPTO_WORKERS=0 to do so from the start)`,
    );
    const held = [...[...this.#inFlight].flat(), ...this.#signs.splice(0), ...this.#verifies.splice(0)];
    this.#inFlight.clear();
    for (const pending of held) this.#runInline(pending);
    void this.#piscina.destroy();
  }

  checkAuthorization(separator: Uint8Array, authorization: EvmAuthorization, signature: string): Promise<SignerCheck> {
    return this.#run({ op: 'verify', separator, authorization, signature });
  }

  signReceiptText(text: string): Promise<string> {
    return this.#run({ op: 'sign', text });
  }

  signReceiptDigest(digest: Uint8Array): Promise<string> {
    return this.#run({ op: 'sign-digest', digest });
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const p of [...[...this.#inFlight].flat(), ...this.#signs.splice(0), ...this.#verifies.splice(0)])
      p.reject(new Error('crypto worker pool is closed'));
    this.#inFlight.clear();
    if (!this.#gaveUp) await this.#piscina.destroy();
  }

  /** Never show the pool's internals (its workerData holds the receipt key). */
  toJSON(): { workers: number; signerAddress: string } {
    return { workers: this.workers, signerAddress: this.signerAddress };
  }
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `CryptoWorkerPool(${this.workers} workers, ${this.signerAddress})`;
  }
}

const shared = new Map<ReceiptSigner, Map<number, PaymentCrypto>>();

/**
 * The crypto for `signer` with `workers` threads (0 = inline), one per signer, size and process,
 * so that the paywalls of both services share the workers.
 */
export function sharedCrypto(signer: ReceiptSigner, workers: number): PaymentCrypto {
  let bySize = shared.get(signer);
  if (!bySize) shared.set(signer, (bySize = new Map()));
  let crypto = bySize.get(workers);
  if (!crypto) {
    crypto = workers > 0 ? CryptoWorkerPool.start(signer, workers) : inlineCrypto(signer);
    bySize.set(workers, crypto);
  }
  return crypto;
}
