/**
 * A crypto worker thread (crypto-pool.ts): checks EIP-3009 signatures against its own payer-key
 * cache and signs receipt texts with the key it was given in workerData.
 *
 * Requests come in lists; those that queued up while it was busy are taken together
 * (receiveMessageOnPort), in chunks of at most BATCH per kind, receipts first (their requests are
 * further along): a chunk shares its modular inversions, about 60 µs saved per request. Each chunk
 * is answered by one message, a list of { id, result } / { id, error }.
 */
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { WorkerReply, WorkerRequest } from './crypto-pool.ts';
import { checkAuthorizationSigners, PayerKeyCache } from './eip3009.ts';
import { ReceiptSigner } from './receipts.ts';
import { generatorTable } from './secp256k1-tables.ts';

const BATCH = 8;
/**
 * How much nicer than the process this thread runs (nice values stop at 19). The event loop (HTTP
 * parsing, the nonce store, answers) gets the CPU first when the machine is busy, and the crypto
 * queue absorbs the wait: under the proxy bench's load this gave ~10 % more paid requests per
 * second and shorter stalls. On Linux a thread's priority is set through its thread id
 * (/proc/thread-self); elsewhere the worker keeps the process's priority.
 */
const NICER_BY = 10;
try {
  const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  // relative to the thread's current value (the process's), so a server started with `nice` keeps its place
  if (Number.isInteger(tid) && tid > 0) setPriority(tid, Math.min(19, getPriority(tid) + NICER_BY));
} catch {
  /* not Linux, or not allowed: run at the process's priority */
}
const port = parentPort!;
const signer = ReceiptSigner.fromPrivateKeyHex(bytesToHex((workerData as { key: Uint8Array }).key), 'crypto worker receipt key');
const cache = new PayerKeyCache();
generatorTable();

type Sign = Extract<WorkerRequest, { op: 'sign' }>;
type Verify = Extract<WorkerRequest, { op: 'verify' }>;

function answer<T extends WorkerRequest>(requests: T[], run: (chunk: T[]) => unknown[]): void {
  for (let i = 0; i < requests.length; i += BATCH) {
    const chunk = requests.slice(i, i + BATCH);
    let replies: WorkerReply[];
    try {
      const results = run(chunk);
      replies = chunk.map((r, j) => ({ id: r.id, result: results[j] }));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      replies = chunk.map((r) => ({ id: r.id, error: message }));
    }
    port.postMessage(replies);
  }
}

port.on('message', (first: WorkerRequest[]) => {
  const signs: Sign[] = [];
  const verifies: Verify[] = [];
  for (let list: WorkerRequest[] | undefined = first; list; list = receiveMessageOnPort(port)?.message as WorkerRequest[] | undefined) {
    for (const request of list) {
      if (request.op === 'sign') signs.push(request);
      else verifies.push(request);
    }
  }
  answer(signs, (chunk) => signer.signTexts(chunk.map((r) => r.text)));
  answer(verifies, (chunk) => checkAuthorizationSigners(chunk, cache));
});
