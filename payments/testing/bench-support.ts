/**
 * What the proxy bench needs from the payment code: the crypto ceiling (how many paid requests
 * per second one core could verify and receipt at most) and fresh valid payment headers for a
 * paid load.
 */
import { randomBytes } from 'node:crypto';
import { hexToBytes } from '@noble/hashes/utils.js';
import type { EndpointDecl } from '../../catalog/types.ts';
import { addressOfPrivateKey, authorizationDigest, signAuthorization, verifyExactEvm } from '../eip3009.ts';
import { BASE, findNetwork, type EvmNetwork, type PayToTable } from '../networks.ts';
import { receiptDigest as standardReceiptDigest, receiptPayload } from '../offer-receipt.ts';
import { signExactEvm } from '../client/payer.ts';
import { personalMessageHash, ReceiptSigner, receiptSigningText } from '../receipts.ts';
import {
  nobleSecp256k1,
  randomPrivateKey,
  recoverAddress,
  secp256k1,
  signDigest,
  type Secp256k1,
  type Secp256k1Backend,
} from '../secp256k1.ts';
import { buildOffers, encodeBase64Json, type PaymentOffer } from '../wire.ts';

/**
 * A well-known test key (Anvil/Hardhat account #1, never funded on mainnet by this project) so bench
 * payers are recognisable in logs; it only ever signs for SETTLEMENT=local demo runs.
 */
export const BENCH_PAYER_KEY = '59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';

export interface CryptoCeiling {
  /** The secp256k1 backend the server's code runs on (secp256k1.ts). */
  backend: Secp256k1Backend;
  /**
   * The crypto of one paid request, per second, on one core, one request at a time, with the
   * server's own code: the EIP-3009 payment check (digest, signer recovery, every other check) plus
   * the two receipt signatures (pipe-joined and EIP-712). A first-time payer costs the same as a repeat one.
   */
  perSecond: number;
  iterations: number;
  elapsedMs: number;
  /** The two halves measured separately, per second. */
  verifyPerSecond: number;
  receiptPerSecond: number;
  /** The bare curve operations, per second: public-key recovery of a digest's signer, and a signature. */
  recoverPerSecond: number;
  signPerSecond: number;
  /**
   * The same on the pure-JS fallback (@noble/curves, what runs where the native binding does not
   * load): one payment recovery plus the two receipt signatures, and the bare operations.
   */
  fallbackPerSecond: number;
  fallbackRecoverPerSecond: number;
  fallbackSignPerSecond: number;
}

/**
 * Runs "verify one EIP-3009 payment + sign its receipts" (the pipe-joined one and the EIP-712
 * offer-receipt one, as the paywall does) in a loop for about `ms` milliseconds
 * (after a short warm-up) and reports the rate, then the parts and the fallback's figures for
 * about ms/4 each. Synchronous: it occupies the calling thread (about 2.5 × ms in all).
 */
export function cryptoCeiling(ms = 1000): CryptoCeiling {
  const payerKey = hexToBytes(BENCH_PAYER_KEY);
  const signer = ReceiptSigner.random();
  const payTo = '0x209693Bc6afc0C5328bA36FaF03C514EF312287C';
  const now = Math.floor(Date.now() / 1000);
  const payload = signExactEvm({ network: BASE, payTo, amount: '1000', maxTimeoutSeconds: 300 }, payerKey, { now });
  const requirement = { network: BASE, payTo, amount: '1000' };
  const fields = {
    id: 'bench',
    endpoint: '/api/v1/fx-rate',
    amount: '0.001',
    currency: 'USDC',
    network: 'base',
    tx_hash: `local:${payload.authorization.nonce}`,
    payer: payload.authorization.from,
    merchant: payTo,
    issued_at: new Date(now * 1000).toISOString(),
  };
  const verify = () => {
    const v = verifyExactEvm(payload, requirement, { now });
    if (!v.ok) throw new Error(`bench payment failed to verify: ${v.message}`);
  };
  const standard = receiptPayload({
    network: BASE.caip2,
    resourceUrl: 'http://127.0.0.1:4020/api/v1/fx-rate',
    payer: payload.authorization.from,
    issuedAt: now,
    transaction: '',
  });
  const receipt = () => {
    signer.sign(fields, 'local');
    signer.signDigest(standardReceiptDigest(standard));
  };
  const once = () => {
    verify();
    receipt();
  };
  // the bare operations, on the server's backend and on the fallback
  const digest = authorizationDigest(BASE, payload.authorization);
  const sig = hexToBytes(payload.signature.slice(2));
  const compact = sig.subarray(0, 64);
  const receiptKey = randomPrivateKey();
  const receiptText = receiptSigningText(fields);
  const receiptDigest = personalMessageHash(receiptText);
  const recoverWith = (curve: Secp256k1) => () => {
    if (!curve.recover(digest, compact, sig[64]! - 27)) throw new Error('bench payment failed to recover');
  };
  const signWith = (curve: Secp256k1) => () => curve.sign(receiptDigest, receiptKey, null);
  const fallbackOnce = () => {
    if (recoverAddress(authorizationDigest(BASE, payload.authorization), sig, nobleSecp256k1) !== payload.authorization.from) {
      throw new Error('bench payment failed to verify on the fallback');
    }
    signDigest(personalMessageHash(receiptText), receiptKey, {}, nobleSecp256k1);
    signDigest(standardReceiptDigest(standard), receiptKey, {}, nobleSecp256k1);
  };
  // warm-up: lets the JIT settle
  for (let i = 0; i < 200; i++) once();
  for (let i = 0; i < 10; i++) fallbackOnce();

  const rate = (fn: () => void, budgetMs: number) => {
    let n = 0;
    const start = performance.now();
    let elapsed = 0;
    while (elapsed < budgetMs) {
      fn();
      n++;
      elapsed = performance.now() - start;
    }
    return { n, elapsed, perSecond: (n * 1000) / elapsed };
  };
  const both = rate(once, ms);
  const part = Math.max(50, ms / 4);
  const perSecond = (fn: () => void) => Math.round(rate(fn, part).perSecond);
  return {
    backend: secp256k1.backend,
    perSecond: Math.round(both.perSecond),
    iterations: both.n,
    elapsedMs: Math.round(both.elapsed),
    verifyPerSecond: perSecond(verify),
    receiptPerSecond: perSecond(receipt),
    recoverPerSecond: perSecond(recoverWith(secp256k1)),
    signPerSecond: perSecond(signWith(secp256k1)),
    fallbackPerSecond: perSecond(fallbackOnce),
    fallbackRecoverPerSecond: perSecond(recoverWith(nobleSecp256k1)),
    fallbackSignPerSecond: perSecond(signWith(nobleSecp256k1)),
  };
}

export interface PaymentHeaderOptions {
  endpoint: EndpointDecl;
  /** Where the paywall is paid (paywall.payTo). */
  payTo: PayToTable;
  /** 'base' (default), 'polygon' or 'base-sepolia'. */
  network?: string;
  /** 1 → X-PAYMENT, 2 → PAYMENT-SIGNATURE (default 1). */
  version?: 1 | 2;
  /** Hex private key of the payer (default BENCH_PAYER_KEY). */
  payerKey?: string;
  /** Needed only for v2 (`accepted` echoes the offer, whose resource URL is not compared). */
  resourceUrl?: string;
  now?: number;
}

interface HeaderContext {
  network: EvmNetwork;
  offer: PaymentOffer;
  key: Uint8Array;
  payer: string;
}

/** What stays the same from one header to the next (offer, payer key and address), by options. */
const contexts = new Map<string, HeaderContext>();

function headerContext(options: PaymentHeaderOptions): HeaderContext {
  const keyHex = (options.payerKey ?? BENCH_PAYER_KEY).replace(/^0x/, '');
  const id = JSON.stringify([
    options.endpoint.id,
    options.endpoint.priceUsd,
    options.endpoint.method,
    options.payTo,
    options.network,
    options.resourceUrl,
    keyHex,
  ]);
  let context = contexts.get(id);
  if (context) return context;
  const found = findNetwork(options.network ?? 'base');
  if (!found || found.kind !== 'evm') throw new Error(`freshPaymentHeader: "${options.network}" is not an EVM network`);
  const network: EvmNetwork = found;
  if (!options.endpoint.priceUsd) throw new Error(`freshPaymentHeader: ${options.endpoint.id} is not a paid endpoint`);
  const [offer] = buildOffers({
    priceUsd: options.endpoint.priceUsd,
    method: options.endpoint.method,
    description: options.endpoint.summary,
    mimeType: 'application/json',
    resourceUrl: options.resourceUrl ?? 'http://127.0.0.1/',
    networks: [network],
    payTo: options.payTo,
  });
  if (!offer) throw new Error(`freshPaymentHeader: the paywall has no EVM pay-to address`);
  const key = hexToBytes(keyHex);
  context = { network, offer, key, payer: addressOfPrivateKey(key) };
  if (contexts.size >= 64) contexts.clear();
  contexts.set(id, context);
  return context;
}

/**
 * A fresh, valid payment header (new random nonce) for one paid request to `endpoint`. One
 * secp256k1 signature per call.
 */
export function freshPaymentHeader(options: PaymentHeaderOptions): {
  name: 'X-PAYMENT' | 'PAYMENT-SIGNATURE';
  value: string;
  payer: string;
} {
  const { network, offer, key, payer } = headerContext(options);
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const authorization = {
    from: payer,
    to: offer.v2.payTo,
    value: offer.v2.amount,
    validAfter: String(Math.max(0, now - 600)),
    validBefore: String(now + offer.v2.maxTimeoutSeconds),
    nonce: `0x${randomBytes(32).toString('hex')}`,
  };
  const payload = { signature: signAuthorization(network, authorization, key), authorization };
  if ((options.version ?? 1) === 1) {
    return { name: 'X-PAYMENT', value: encodeBase64Json({ x402Version: 1, scheme: 'exact', network: network.name, payload }), payer };
  }
  return { name: 'PAYMENT-SIGNATURE', value: encodeBase64Json({ x402Version: 2, accepted: offer.v2, payload }), payer };
}
