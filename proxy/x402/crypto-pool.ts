/**
 * Where the paywall's public-key crypto runs: the EIP-3009 signature check and the receipt
 * signature, about 0.4 ms of CPU per paid request between them.
 *
 * - inlineCrypto(signer): on the calling thread (the default of createPaywall; tests).
 * - CryptoWorkerPool.start(signer, size): on `size` worker threads, so a server with several
 *   cores verifies and signs in parallel while its event loop keeps parsing and answering. Each
 *   worker has its own payer-key cache and generator table (about 2 MB, built at start) and the
 *   receipt key, handed over in workerData at start and never logged. Requests wait in the pool's
 *   queue (receipts first) and go to whichever worker has room, at most 8 in flight per worker;
 *   a worker checks or signs what it holds together, sharing the modular inversions. Workers run at
 *   a lower CPU priority than the event loop (crypto-worker.ts), so a busy server keeps parsing and
 *   answering while the crypto waits its turn. A worker
 *   that dies is replaced and its requests retried; if workers keep dying (three in a row without
 *   an answer in between) the pool says so once and does the crypto on the calling thread.
 *
 * Only the crypto moves: the nonce reservation, settlement and everything else stay on the main
 * thread, so a payment is still reserved atomically after its signature checked out.
 *
 * CRYPTO_WORKERS (read by proxy/payments.ts): unset or "auto" = os.availableParallelism() when
 * that is at least 2, else inline; 0 = inline; n = n workers. Each worker adds 50-80 MB RSS (its own heap and tables, and a 32 MB young generation).
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { checkAuthorizationSigner, PayerKeyCache, payerKeys, type EvmAuthorization, type SignerCheck } from './eip3009.ts';
import { receiptSignerKeyForWorkers, type ReceiptSigner } from './receipts.ts';
import { generatorTable } from './secp256k1-tables.ts';

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
export function inlineCrypto(signer: ReceiptSigner, cache: PayerKeyCache | null = payerKeys): PaymentCrypto {
  return {
    workers: 0,
    signerAddress: signer.info.address,
    checkAuthorization: (separator, authorization, signature) => checkAuthorizationSigner(separator, authorization, signature, cache),
    signReceiptText: (text) => signer.signText(text),
    close: async () => {},
  };
}

type WorkerTask = { op: 'verify'; separator: Uint8Array; authorization: EvmAuthorization; signature: string } | { op: 'sign'; text: string };
export type WorkerRequest = WorkerTask & { id: number };
export type WorkerReply = { id: number; result: unknown } | { id: number; error: string };

interface Task {
  request: WorkerRequest;
  resolve: (value: never) => void;
  reject: (err: Error) => void;
  attempts: number;
}

interface Slot {
  worker: Worker;
  inFlight: Map<number, Task>;
}

const WORKER_ENTRY = new URL('./crypto-worker.mjs', import.meta.url);
/**
 * Requests handed to one worker at a time. The rest wait in the pool's queue, so whichever worker
 * frees up first takes the next (a worker that the OS stalls does not hold a long private queue),
 * and receipts go out before new signature checks: their requests are further along.
 */
const IN_FLIGHT_PER_WORKER = 16;
/**
 * The crypto makes short-lived bigints only, a lot of them: at 8 MB a worker spent a tenth of its
 * time in young-generation collections; 32 MB halves that (measured under the proxy bench's load)
 * for about 25 MB more per worker.
 */
const YOUNG_GENERATION_MB = 32;

/** Worker deaths in a row (no answer from any worker in between) after which the pool gives up on threads. */
const MAX_FAILURES_IN_A_ROW = 3;

export class CryptoWorkerPool implements PaymentCrypto {
  readonly signerAddress: string;
  readonly #signer: ReceiptSigner;
  readonly #key: Uint8Array;
  readonly #entry: URL;
  readonly #slots: Slot[] = [];
  readonly #signs: Task[] = [];
  readonly #verifies: Task[] = [];
  #nextId = 1;
  #closing = false;
  #failuresInARow = 0;
  /** Set when the workers keep dying (e.g. cannot start): the crypto then runs on the calling thread. */
  #inline: PaymentCrypto | null = null;

  private constructor(signer: ReceiptSigner, size: number, entry: URL) {
    this.signerAddress = signer.info.address;
    this.#signer = signer;
    this.#key = receiptSignerKeyForWorkers(signer);
    this.#entry = entry;
    for (let i = 0; i < size; i++) this.#slots.push(this.#spawn());
  }

  /**
   * Starts `size` (>= 1) workers; they build their tables in the background and take requests at
   * once (queued meanwhile). `entry` replaces the worker script (tests).
   */
  static start(signer: ReceiptSigner, size: number, options: { entry?: URL } = {}): CryptoWorkerPool {
    if (!Number.isInteger(size) || size < 1) throw new Error(`CryptoWorkerPool: size must be a positive integer, got ${size}`);
    return new CryptoWorkerPool(signer, size, options.entry ?? WORKER_ENTRY);
  }

  /** Worker threads in use (0 after falling back to the calling thread). */
  get workers(): number {
    return this.#inline ? 0 : this.#slots.length;
  }

  #spawn(): Slot {
    const worker = new Worker(this.#entry, { workerData: { key: this.#key }, execArgv: [], resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
    const slot: Slot = { worker, inFlight: new Map() };
    worker.unref();
    worker.on('message', (replies: WorkerReply[]) => {
      this.#failuresInARow = 0;
      for (const reply of replies) {
        const task = slot.inFlight.get(reply.id);
        if (!task) continue;
        slot.inFlight.delete(reply.id);
        if ('error' in reply) task.reject(new Error(`crypto worker: ${reply.error}`));
        else task.resolve(reply.result as never);
      }
      this.#pump();
      if (slot.inFlight.size === 0) worker.unref();
    });
    let failed = false;
    const fail = (err: Error) => {
      if (failed) return;
      failed = true;
      const index = this.#slots.indexOf(slot);
      const held = [...slot.inFlight.values()];
      slot.inFlight.clear();
      if (index >= 0 && !this.#closing && !this.#inline) {
        if (++this.#failuresInARow >= MAX_FAILURES_IN_A_ROW) {
          this.#fallBack(err);
        } else {
          this.#slots[index] = this.#spawn();
          console.error(`x402: a crypto worker stopped (${err.message}); started a new one`);
        }
      }
      // what the worker held is tried once more elsewhere (a task that keeps killing workers is refused)
      for (const task of held) {
        if (this.#closing || (task.attempts >= 2 && !this.#inline)) task.reject(err);
        else (task.request.op === 'sign' ? this.#signs : this.#verifies).unshift(task);
      }
      this.#pump();
    };
    worker.once('error', (err) => fail(err));
    worker.once('exit', (code) => fail(new Error(`crypto worker exited with code ${code}`)));
    return slot;
  }

  /** The workers keep dying: stop them and do the crypto on the calling thread from now on. */
  #fallBack(err: Error): void {
    console.error(
      `x402: crypto workers keep stopping (${err.message}); checking signatures and signing receipts on the event loop instead (set CRYPTO_WORKERS=0 to do so from the start)`,
    );
    this.#inline = inlineCrypto(this.#signer, new PayerKeyCache());
    for (const slot of this.#slots) void slot.worker.terminate();
    this.#pump();
  }

  #runInline(task: Task): void {
    const inline = this.#inline!;
    const { request } = task;
    try {
      task.resolve(
        (request.op === 'sign' ? inline.signReceiptText(request.text) : inline.checkAuthorization(request.separator, request.authorization, request.signature)) as never,
      );
    } catch (err) {
      task.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** Hands queued tasks to the workers with room, least busy first. */
  #pump(): void {
    if (this.#inline) {
      for (const task of [...this.#signs.splice(0), ...this.#verifies.splice(0)]) this.#runInline(task);
      return;
    }
    while (this.#signs.length + this.#verifies.length > 0) {
      let slot: Slot | null = null;
      for (const s of this.#slots) if (s.inFlight.size < IN_FLIGHT_PER_WORKER && (!slot || s.inFlight.size < slot.inFlight.size)) slot = s;
      if (!slot) return;
      const room = IN_FLIGHT_PER_WORKER - slot.inFlight.size;
      const tasks = this.#signs.splice(0, room);
      if (tasks.length < room) tasks.push(...this.#verifies.splice(0, room - tasks.length));
      for (const task of tasks) {
        task.attempts++;
        slot.inFlight.set(task.request.id, task);
      }
      slot.worker.ref();
      slot.worker.postMessage(tasks.map((t) => t.request));
    }
  }

  #run<T>(work: WorkerTask): Promise<T> {
    if (this.#closing) return Promise.reject(new Error('crypto worker pool is closed'));
    return new Promise<T>((resolve, reject) => {
      const task: Task = { request: { ...work, id: this.#nextId++ }, resolve: resolve as (v: never) => void, reject, attempts: 0 };
      (work.op === 'sign' ? this.#signs : this.#verifies).push(task);
      this.#pump();
    });
  }

  checkAuthorization(separator: Uint8Array, authorization: EvmAuthorization, signature: string): Promise<SignerCheck> {
    return this.#run<SignerCheck>({ op: 'verify', separator, authorization, signature });
  }

  signReceiptText(text: string): Promise<string> {
    return this.#run<string>({ op: 'sign', text });
  }

  async close(): Promise<void> {
    this.#closing = true;
    for (const task of [...this.#signs.splice(0), ...this.#verifies.splice(0)]) task.reject(new Error('crypto worker pool is closed'));
    await Promise.all(this.#slots.map((s) => s.worker.terminate()));
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
    if (workers > 0) {
      crypto = CryptoWorkerPool.start(signer, workers);
    } else {
      generatorTable(); // build it now rather than in the first paid request
      crypto = inlineCrypto(signer);
    }
    bySize.set(workers, crypto);
  }
  return crypto;
}
