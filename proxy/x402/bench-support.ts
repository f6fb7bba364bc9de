/**
 * What the proxy bench needs from the payment code: the crypto ceiling (how many paid requests
 * per second one core could verify and receipt at most) and fresh valid payment headers for a
 * paid load.
 */
import { hexToBytes } from '@noble/hashes/utils.js';
import type { EndpointDecl } from '../../catalog/types.ts';
import { addressOfPrivateKey, PayerKeyCache, verifyExactEvm } from './eip3009.ts';
import { BASE, findNetwork, type EvmNetwork, type PayToTable } from './networks.ts';
import { signExactEvm } from './payer.ts';
import { ReceiptSigner } from './receipts.ts';
import { buildOffers, encodeBase64Json } from './wire.ts';

/**
 * A well-known test key (Anvil/Hardhat account #1, never funded on mainnet by this project) so bench
 * payers are recognisable in logs; it only ever signs for SETTLEMENT=local demo runs.
 */
export const BENCH_PAYER_KEY = '59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';

export interface CryptoCeiling {
  /**
   * One EIP-3009 verification plus one receipt signature, per second, on one core, for a payer
   * seen before (its public key cached: the usual case, and the bench's single payer).
   */
  perSecond: number;
  /** The same for a first-time payer (full public-key recovery). */
  coldPerSecond: number;
  iterations: number;
  elapsedMs: number;
  /** The parts measured separately, per second. */
  verifyPerSecond: number;
  coldVerifyPerSecond: number;
  receiptPerSecond: number;
}

/**
 * Runs "verify one EIP-3009 payment + sign one receipt" in a loop for about `ms` milliseconds
 * (after a short warm-up) and reports the rate, then the parts and the first-time-payer case for
 * about ms/4 each. Synchronous: it occupies the calling thread (about 2.25 × ms in all).
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
  for (let i = 0; i < 20; i++) {
    once();
    onceCold();
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
  return {
    perSecond: Math.round(both.perSecond),
    coldPerSecond: Math.round(bothCold.perSecond),
    iterations: both.n,
    elapsedMs: Math.round(both.elapsed),
    verifyPerSecond: Math.round(verifyWarm.perSecond),
    coldVerifyPerSecond: Math.round(verifyCold.perSecond),
    receiptPerSecond: Math.round(receipt.perSecond),
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

/**
 * A fresh, valid payment header (new random nonce) for one paid request to `endpoint`. One
 * secp256k1 signature per call (well under a millisecond).
 */
export function freshPaymentHeader(options: PaymentHeaderOptions): { name: 'X-PAYMENT' | 'PAYMENT-SIGNATURE'; value: string; payer: string } {
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
  const key = hexToBytes((options.payerKey ?? BENCH_PAYER_KEY).replace(/^0x/, ''));
  const payload = signExactEvm(
    { network, payTo: offer.v2.payTo, amount: offer.v2.amount, maxTimeoutSeconds: offer.v2.maxTimeoutSeconds },
    key,
    options.now !== undefined ? { now: options.now } : {},
  );
  const payer = addressOfPrivateKey(key);
  if ((options.version ?? 1) === 1) {
    return { name: 'X-PAYMENT', value: encodeBase64Json({ x402Version: 1, scheme: 'exact', network: network.name, payload }), payer };
  }
  return { name: 'PAYMENT-SIGNATURE', value: encodeBase64Json({ x402Version: 2, accepted: offer.v2, payload }), payer };
}
