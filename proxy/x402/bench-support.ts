/**
 * What the proxy bench needs from the payment code: the crypto ceiling (how many paid requests
 * per second one core could verify and receipt at most) and fresh valid payment headers for a
 * paid load.
 */
import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hexToBytes } from '@noble/hashes/utils.js';
import type { EndpointDecl } from '../../catalog/types.ts';
import { addressOfPrivateKey, authorizationDigest, PayerKeyCache, signAuthorization, verifyExactEvm } from './eip3009.ts';
import { BASE, findNetwork, type EvmNetwork, type PayToTable } from './networks.ts';
import { signExactEvm } from './payer.ts';
import { personalMessageHash, ReceiptSigner, receiptSigningText } from './receipts.ts';
import { buildOffers, encodeBase64Json, type PaymentOffer } from './wire.ts';

/**
 * A well-known test key (Anvil/Hardhat account #1, never funded on mainnet by this project) so bench
 * payers are recognisable in logs; it only ever signs for SETTLEMENT=local demo runs.
 */
export const BENCH_PAYER_KEY = '59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';

export interface CryptoCeiling {
  /**
   * The crypto of one paid request, per second, on one core, one request at a time, with the
   * server's own code: the EIP-3009 signature check for a payer seen before (its public key cached:
   * the usual case, and the bench's single payer) plus one receipt signature.
   */
  perSecond: number;
  /** The same for a first-time payer: one signature recovery plus one receipt signature. */
  coldPerSecond: number;
  iterations: number;
  elapsedMs: number;
  /** The parts measured separately, per second. */
  verifyPerSecond: number;
  coldVerifyPerSecond: number;
  receiptPerSecond: number;
  /**
   * For comparison, @noble/curves' stock calls for the same work on one core: secp256k1.verify
   * against the payer's public key plus secp256k1.sign (what the server did before its fixed-base
   * tables), and recoverPublicKey plus sign.
   */
  nobleVerifySignPerSecond: number;
  nobleRecoverSignPerSecond: number;
}

/**
 * Runs "verify one EIP-3009 payment + sign one receipt" in a loop for about `ms` milliseconds
 * (after a short warm-up) and reports the rate, then the parts, the first-time-payer case and the
 * stock-library figures for about ms/4 each. Synchronous: it occupies the calling thread (about
 * 2.75 × ms in all).
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
  const warm = new PayerKeyCache();
  const verify = (payerKeys: PayerKeyCache | null) => {
    const v = verifyExactEvm(payload, requirement, { now, payerKeys });
    if (!v.ok) throw new Error(`bench payment failed to verify: ${v.message}`);
  };
  const once = () => {
    verify(warm);
    signer.sign(fields, 'local');
  };
  const onceCold = () => {
    verify(null);
    signer.sign(fields, 'local');
  };
  // stock @noble/curves on the same digests and key
  const digest = authorizationDigest(BASE, payload.authorization);
  const sig = hexToBytes(payload.signature.slice(2));
  const compact = sig.subarray(0, 64);
  const payerPublicKey = secp256k1.getPublicKey(payerKey, false);
  const receiptKey = secp256k1.utils.randomSecretKey();
  const receiptDigest = personalMessageHash(receiptSigningText(fields));
  const nobleVerifySign = () => {
    if (!secp256k1.verify(compact, digest, payerPublicKey, { prehash: false })) throw new Error('bench payment failed noble verify');
    secp256k1.sign(receiptDigest, receiptKey, { prehash: false, format: 'recovered' });
  };
  const nobleRecoverSign = () => {
    secp256k1.Signature.fromBytes(compact, 'compact').addRecoveryBit(sig[64]! - 27).recoverPublicKey(digest);
    secp256k1.sign(receiptDigest, receiptKey, { prehash: false, format: 'recovered' });
  };
  // warm-up: builds the generator table and the payer's tables (the payer turns hot), and lets the JIT settle
  for (let i = 0; i < 80; i++) once();
  for (let i = 0; i < 10; i++) {
    onceCold();
    nobleVerifySign();
    nobleRecoverSign();
  }

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
  const bothCold = rate(onceCold, part);
  const verifyWarm = rate(() => verify(warm), part);
  const verifyCold = rate(() => verify(null), part);
  const receipt = rate(() => signer.sign(fields, 'local'), part);
  const nobleVerify = rate(nobleVerifySign, part);
  const nobleRecover = rate(nobleRecoverSign, part);
  return {
    perSecond: Math.round(both.perSecond),
    coldPerSecond: Math.round(bothCold.perSecond),
    iterations: both.n,
    elapsedMs: Math.round(both.elapsed),
    verifyPerSecond: Math.round(verifyWarm.perSecond),
    coldVerifyPerSecond: Math.round(verifyCold.perSecond),
    receiptPerSecond: Math.round(receipt.perSecond),
    nobleVerifySignPerSecond: Math.round(nobleVerify.perSecond),
    nobleRecoverSignPerSecond: Math.round(nobleRecover.perSecond),
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
  const id = JSON.stringify([options.endpoint.id, options.endpoint.priceUsd, options.endpoint.method, options.payTo, options.network, options.resourceUrl, keyHex]);
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
 * secp256k1 signature per call (about half a millisecond).
 */
export function freshPaymentHeader(options: PaymentHeaderOptions): { name: 'X-PAYMENT' | 'PAYMENT-SIGNATURE'; value: string; payer: string } {
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
