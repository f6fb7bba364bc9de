/**
 * A crypto worker thread (crypto-pool.ts, run by piscina): checks EIP-3009 signatures and signs
 * receipt texts and EIP-712 receipt digests with the key it was given in workerData, a batch of tasks per call and one answer
 * per task (what a task throws comes back as its error, so the others are still answered).
 */
import { workerData } from 'node:worker_threads';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { CryptoAnswer, CryptoTask, CryptoWorkerData } from './crypto-pool.ts';
import { checkAuthorizationSigner } from './eip3009.ts';
import { ReceiptSigner } from './receipts.ts';

const signer = ReceiptSigner.fromPrivateKeyHex(bytesToHex((workerData as CryptoWorkerData).key), 'crypto worker receipt key');

export default function run(tasks: CryptoTask[]): CryptoAnswer[] {
  return tasks.map((task) => {
    try {
      if (task.op === 'sign') return { result: signer.signText(task.text) };
      if (task.op === 'sign-digest') return { result: signer.signDigest(task.digest) };
      return { result: checkAuthorizationSigner(task.separator, task.authorization, task.signature) };
    } catch (err) {
      return { error: err instanceof Error ? err.message : String(err) };
    }
  });
}
