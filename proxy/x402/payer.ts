/**
 * The paying side of `exact` on EVM: picks an offer from a 402, checks it against the pinned token
 * table (a server cannot make the payer sign for another token or domain), signs an EIP-3009
 * authorization and encodes the payment header. Used by scripts/pay.ts, the tests and the bench.
 */
import { randomBytes } from 'node:crypto';
import { bytesToHex } from '@noble/hashes/utils.js';
import { addressOfPrivateKey, signAuthorization, type ExactEvmPayload } from './eip3009.ts';
import { findNetwork, fromAtomicUnits, type EvmNetwork } from './networks.ts';
import { decodeBase64Json, encodeBase64Json, type PaymentRequirementsV1, type PaymentRequirementsV2, type ResourceInfo } from './wire.ts';

/** What a 402 offers, read from the v2 header when present, else from the v1 body. */
export type Challenge =
  | {
      version: 2;
      resource: ResourceInfo | null;
      accepts: PaymentRequirementsV2[];
      error: string | null;
      extensions: Record<string, unknown>;
    }
  | { version: 1; accepts: PaymentRequirementsV1[]; error: string | null };

export function readChallenge(paymentRequiredHeader: string | null, body: unknown): Challenge {
  if (paymentRequiredHeader) {
    const decoded = decodeBase64Json(paymentRequiredHeader, 'PAYMENT-REQUIRED header');
    if (!decoded.ok) throw new Error(decoded.message);
    const v = decoded.value;
    if (v.x402Version !== 2 || !Array.isArray(v.accepts))
      throw new Error('PAYMENT-REQUIRED header is not an x402 v2 PaymentRequired object');
    return {
      version: 2,
      resource: (v.resource as ResourceInfo | undefined) ?? null,
      accepts: v.accepts as PaymentRequirementsV2[],
      error: typeof v.error === 'string' ? v.error : null,
      extensions: (v.extensions as Record<string, unknown> | undefined) ?? {},
    };
  }
  const b = body as Record<string, unknown> | null;
  if (!b || b.x402Version !== 1 || !Array.isArray(b.accepts))
    throw new Error('the 402 has neither a PAYMENT-REQUIRED header nor an x402 v1 body');
  return { version: 1, accepts: b.accepts as PaymentRequirementsV1[], error: typeof b.error === 'string' ? b.error : null };
}

export interface ChosenOffer {
  network: EvmNetwork;
  payTo: string;
  /** Atomic units. */
  amount: string;
  maxTimeoutSeconds: number;
  /** The requirement object as the server sent it (echoed as `accepted` in v2). */
  requirement: PaymentRequirementsV1 | PaymentRequirementsV2;
}

/**
 * The offer for `networkName` ('base', 'polygon', ...), checked: scheme exact, the asset is the
 * pinned USDC of that network, and extra.name/version equal the pinned EIP-712 domain.
 */
export function chooseEvmOffer(challenge: Challenge, networkName: string): ChosenOffer {
  const network = findNetwork(networkName);
  if (!network || network.kind !== 'evm')
    throw new Error(`"${networkName}" is not an EVM network this client can pay on (base, polygon, base-sepolia)`);
  const entries = challenge.accepts as Array<PaymentRequirementsV1 | PaymentRequirementsV2>;
  const entry = entries.find((r) => r.scheme === 'exact' && (r.network === network.name || r.network === network.caip2));
  if (!entry) {
    const offered = entries.map((r) => r.network).join(', ') || 'nothing';
    throw new Error(`the server does not offer ${network.name}; it offers: ${offered}`);
  }
  if (entry.asset.toLowerCase() !== network.usdc.address.toLowerCase()) {
    throw new Error(
      `the server asks for asset ${entry.asset} on ${network.name}, which is not USDC (${network.usdc.address}); refusing to sign`,
    );
  }
  const extra = entry.extra ?? {};
  if (extra.name !== network.usdc.eip712.name || extra.version !== network.usdc.eip712.version) {
    throw new Error(
      `the server's EIP-712 domain for USDC on ${network.name} is ${JSON.stringify({ name: extra.name, version: extra.version })}, ` +
        `the real one is ${JSON.stringify(network.usdc.eip712)}; refusing to sign`,
    );
  }
  const amount = 'amount' in entry ? entry.amount : entry.maxAmountRequired;
  if (!/^\d+$/.test(amount)) throw new Error(`the server's amount "${amount}" is not an integer of atomic units`);
  return { network, payTo: entry.payTo, amount, maxTimeoutSeconds: entry.maxTimeoutSeconds, requirement: entry };
}

export function offerUsd(offer: ChosenOffer): string {
  return fromAtomicUnits(offer.amount, offer.network.usdc.decimals);
}

export interface SignOptions {
  /** Unix seconds (default: now). */
  now?: number;
  /** 32-byte nonce as 0x hex (default: random). */
  nonce?: string;
  /** Seconds before now for validAfter (default 600, tolerating clock skew as the reference client does). */
  validAfterSlack?: number;
}

/** Signs an EIP-3009 authorization paying `offer`. */
export function signExactEvm(
  offer: Pick<ChosenOffer, 'network' | 'payTo' | 'amount' | 'maxTimeoutSeconds'>,
  privateKey: Uint8Array,
  options: SignOptions = {},
): ExactEvmPayload {
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const authorization = {
    from: addressOfPrivateKey(privateKey),
    to: offer.payTo,
    value: offer.amount,
    validAfter: String(Math.max(0, now - (options.validAfterSlack ?? 600))),
    validBefore: String(now + offer.maxTimeoutSeconds),
    nonce: options.nonce ?? `0x${bytesToHex(randomBytes(32))}`,
  };
  return { signature: signAuthorization(offer.network, authorization, privateKey), authorization };
}

/** The payment header for a chosen offer, in the challenge's version. */
export function paymentHeader(
  challenge: Challenge,
  offer: ChosenOffer,
  payload: ExactEvmPayload,
): { name: 'X-PAYMENT' | 'PAYMENT-SIGNATURE'; value: string } {
  if (challenge.version === 1) {
    return { name: 'X-PAYMENT', value: encodeBase64Json({ x402Version: 1, scheme: 'exact', network: offer.network.name, payload }) };
  }
  return {
    name: 'PAYMENT-SIGNATURE',
    value: encodeBase64Json({
      x402Version: 2,
      ...(challenge.resource ? { resource: challenge.resource } : {}),
      accepted: offer.requirement,
      payload,
      ...(Object.keys(challenge.extensions).length ? { extensions: challenge.extensions } : {}),
    }),
  };
}
