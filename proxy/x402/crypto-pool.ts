/**
 * Where the paywall's public-key crypto runs: the EIP-3009 signature check and the receipt
 * signature (libsecp256k1, secp256k1.ts), with the keccak hashing around them about 0.3 ms of CPU
 * per paid request.
 *
 * - inlineCrypto(signer): on the calling thread (the default of createPaywall; tests).
 * - CryptoWorkerPool.start(signer, size): on `size` worker threads (piscina), so that the event
 *   loop keeps parsing and answering while the workers check and sign; on the proxy bench this
 *   carries about twice the paid requests per second of inline crypto on two cores. Each worker has
 *   the receipt key, handed over in workerData at start and never logged. Workers run 10 nicer than
 *   the process (Linux), so a busy server answers first while the crypto waits its turn. A task a
 *   worker could not run (the worker died or did not start) is done on the calling thread; after
 *   three such failures in a row the pool says so once and does all the crypto there.
 *
 * Only the crypto moves: the nonce reservation, settlement and everything else stay on the main
 * thread, so a payment is still reserved atomically after its signature checked out.
 *
 * CRYPTO_WORKERS (read by proxy/payments.ts): unset or "auto" = os.availableParallelism() when
 * that is at least 2, else inline; 0 = inline; n = n workers.
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
  close(): Promise<void>;
}

/** The crypto on the calling thread. */
export function inlineCrypto(signer: ReceiptSigner): PaymentCrypto {
  return {
    workers: 0,
    signerAddress: signer.info.address,
    checkAuthorization: (separator, authorization, signature) => checkAuthorizationSigner(separator, authorization, signature),
    signReceiptText: (text) => signer.signText(text),
    close: async () => {},
  };
}

/** What a worker is asked (crypto-worker.ts exports one function per task name). */
export interface VerifyTask {
  separator: Uint8Array;
  authorization: EvmAuthorization;
  signature: string;
}
export interface CryptoWorkerData {
  /** The receipt key. */
  key: Uint8Array;
}

const WORKER_ENTRY = new URL('./crypto-worker.mjs', import.meta.url);
/**
 * Tasks handed to one worker at a time: the main thread is the busy one, so each worker holds a
 * few more to go on with while the event loop has not yet read its answers.
 */
const TASKS_PER_WORKER = 8;
/** How much nicer than the process the workers run (Linux; nice values stop at 19). */
const NICER_BY = 10;
/** Failures in a row (no answer from any worker in between) after which the pool gives up on threads. */
const MAX_FAILURES_IN_A_ROW = 3;

export class CryptoWorkerPool implements PaymentCrypto {
  readonly signerAddress: string;
  readonly #size: number;
  readonly #piscina: Piscina;
  readonly #inline: PaymentCrypto;
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
      concurrentTasksPerWorker: TASKS_PER_WORKER,
      idleTimeout: Number.POSITIVE_INFINITY,
      niceIncrement: NICER_BY,
      workerData,
    });
    // a worker that dies is replaced by piscina; its tasks reject and are handled in #run
    this.#piscina.on('error', () => {});
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

  async #run<T>(name: 'verify' | 'sign', task: unknown, inline: () => T | Promise<T>): Promise<T> {
    if (this.#closed) throw new Error('crypto worker pool is closed');
    if (this.#gaveUp) return inline();
    try {
      const result = (await this.#piscina.run(task, { name })) as T;
      this.#failuresInARow = 0;
      return result;
    } catch (err) {
      if (this.#closed) throw new Error('crypto worker pool is closed');
      const message = err instanceof Error ? err.message : String(err);
      if (++this.#failuresInARow >= MAX_FAILURES_IN_A_ROW && !this.#gaveUp) {
        this.#gaveUp = true;
        console.error(
          `x402: crypto workers keep failing (${message}); checking signatures and signing receipts on the event loop instead (set CRYPTO_WORKERS=0 to do so from the start)`,
        );
        void this.#piscina.destroy();
      } else if (!this.#gaveUp) {
        console.error(`x402: a crypto worker failed (${message}); this task runs on the event loop`);
      }
      return inline();
    }
  }

  checkAuthorization(separator: Uint8Array, authorization: EvmAuthorization, signature: string): Promise<SignerCheck> {
    const task: VerifyTask = { separator, authorization, signature };
    return this.#run('verify', task, () => this.#inline.checkAuthorization(separator, authorization, signature));
  }

  signReceiptText(text: string): Promise<string> {
    return this.#run('sign', text, () => this.#inline.signReceiptText(text));
  }

  async close(): Promise<void> {
    this.#closed = true;
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
