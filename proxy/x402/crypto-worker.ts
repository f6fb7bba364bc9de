/**
 * A crypto worker thread (crypto-pool.ts, run by piscina): checks EIP-3009 signatures and signs
 * receipt texts with the key it was given in workerData. One exported function per task name.
 */
import { workerData } from 'node:worker_threads';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { CryptoWorkerData, VerifyTask } from './crypto-pool.ts';
import { checkAuthorizationSigner, type SignerCheck } from './eip3009.ts';
import { ReceiptSigner } from './receipts.ts';

const signer = ReceiptSigner.fromPrivateKeyHex(bytesToHex((workerData as CryptoWorkerData).key), 'crypto worker receipt key');

export function verify(task: VerifyTask): SignerCheck {
  return checkAuthorizationSigner(task.separator, task.authorization, task.signature);
}

export function sign(text: string): string {
  return signer.signText(text);
}
