/**
 * In-process verification of an x402 `exact` EVM payload: an EIP-3009 TransferWithAuthorization
 * signed over the pinned EIP-712 domain of the network's USDC.
 *
 * What is checked, each with its own named reason:
 * - shape: addresses 0x+40 hex, nonce 0x+64 hex, value/validAfter/validBefore decimal integers < 2^256
 *   (malformed_payload);
 * - `to` == payTo, case-insensitive (recipient_mismatch);
 * - `value` == price EXACTLY (amount_mismatch). Underpayment obviously fails; overpayment fails too,
 *   as in the x402 v2 spec ("exactly matches") and the current reference facilitator: a client
 *   that signs more than asked is broken, and refusing costs it nothing, while taking it would;
 * - time: validAfter <= now + clock skew (not_yet_valid); validBefore > now + 6 s, the reference's
 *   settlement buffer (expired); validBefore <= now + maxValiditySeconds (validity_too_long: keeps the
 *   replay store bounded);
 * - signature: 65 bytes r‖s‖v, v in {27, 28}, s in the low half of the curve order (FiatToken's
 *   ECRecover rule; libsecp256k1 and @noble/curves both recover high-s signatures happily, so it is
 *   checked here), and the signer recovered over the PINNED domain (secp256k1.ts) equals `from`
 *   (invalid_signature). A wrong domain name, version, chain or contract gives a different digest
 *   and so a different signer. Longer signatures are smart-wallet (ERC-1271 / ERC-6492) signatures:
 *   only a facilitator can check them on chain, so they are refused unless `allowSmartWallet`
 *   (facilitator mode).
 * The chain state (balance, nonce already used on chain, paused or blacklisted token) is the
 * facilitator's to check; the in-process replay store is nonce-store.ts.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { domainSeparator, type EvmNetwork } from './networks.ts';
import { reject, type Rejection } from './reasons.ts';
import { recoverAddress, SECP256K1_HALF_N, SECP256K1_N as N, signDigest, toChecksumAddress } from './secp256k1.ts';

export { addressOfPrivateKey, addressOfPublicKey, SECP256K1_HALF_N, toChecksumAddress } from './secp256k1.ts';

export interface EvmAuthorization {
  from: string;
  to: string;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: string;
}

export interface ExactEvmPayload {
  signature: string;
  authorization: EvmAuthorization;
}

export const TRANSFER_WITH_AUTHORIZATION_TYPEHASH = keccak_256(
  utf8ToBytes('TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)'),
);

/** The reference's buffer: an authorization must stay valid at least this long for settlement. */
export const SETTLEMENT_BUFFER_SECONDS = 6;
export const DEFAULT_CLOCK_SKEW_SECONDS = 5;
export const DEFAULT_MAX_VALIDITY_SECONDS = 86_400;

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const UINT = /^(0|[1-9]\d{0,77})$/;
const HEX = /^0x(?:[0-9a-fA-F]{2})+$/;
const MAX_UINT256 = (1n << 256n) - 1n;

// ------------------------------------------------------------------ addresses

export function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

// ------------------------------------------------------------------ payload shape

type Shape<T> = { ok: true; value: T } | Rejection;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks the JSON shape of an exact-EVM `payload` ({signature, authorization}); every field by name. */
export function parseExactEvmPayload(payload: unknown): Shape<ExactEvmPayload> {
  if (!isRecord(payload)) return reject('malformed_payload', 'payload must be an object {signature, authorization}');
  if ('permit2Authorization' in payload) {
    return reject(
      'malformed_payload',
      'payload is a Permit2 authorization; this service takes EIP-3009 transferWithAuthorization on USDC only',
    );
  }
  const { signature, authorization } = payload;
  if (typeof signature !== 'string' || !HEX.test(signature)) {
    return reject('malformed_payload', `payload.signature must be 0x-prefixed hex bytes, got ${describe(signature)}`);
  }
  if (!isRecord(authorization))
    return reject('malformed_payload', 'payload.authorization must be an object {from, to, value, validAfter, validBefore, nonce}');
  const a = authorization;
  for (const field of ['from', 'to'] as const) {
    if (typeof a[field] !== 'string' || !ADDRESS.test(a[field] as string)) {
      return reject('malformed_payload', `authorization.${field} must be an address (0x + 40 hex digits), got ${describe(a[field])}`);
    }
  }
  for (const field of ['value', 'validAfter', 'validBefore'] as const) {
    const v = a[field];
    if (typeof v !== 'string' || !UINT.test(v) || BigInt(v) > MAX_UINT256) {
      return reject('malformed_payload', `authorization.${field} must be a decimal integer string below 2^256, got ${describe(v)}`);
    }
  }
  if (typeof a.nonce !== 'string' || !BYTES32.test(a.nonce)) {
    return reject('malformed_payload', `authorization.nonce must be 32 bytes as 0x + 64 hex digits, got ${describe(a.nonce)}`);
  }
  return {
    ok: true,
    value: {
      signature,
      authorization: {
        from: a.from as string,
        to: a.to as string,
        value: a.value as string,
        validAfter: a.validAfter as string,
        validBefore: a.validBefore as string,
        nonce: a.nonce as string,
      },
    },
  };
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

// ------------------------------------------------------------------ digest and recovery

function word(hex: string): Uint8Array {
  return hexToBytes(hex.slice(2).toLowerCase().padStart(64, '0'));
}

function uintWord(decimal: string): Uint8Array {
  return hexToBytes(BigInt(decimal).toString(16).padStart(64, '0'));
}

/** keccak256(TYPEHASH ‖ from ‖ to ‖ value ‖ validAfter ‖ validBefore ‖ nonce). */
export function authorizationStructHash(a: EvmAuthorization): Uint8Array {
  const buf = new Uint8Array(32 * 7);
  buf.set(TRANSFER_WITH_AUTHORIZATION_TYPEHASH, 0);
  buf.set(word(a.from), 32);
  buf.set(word(a.to), 64);
  buf.set(uintWord(a.value), 96);
  buf.set(uintWord(a.validAfter), 128);
  buf.set(uintWord(a.validBefore), 160);
  buf.set(hexToBytes(a.nonce.slice(2)), 192);
  return keccak_256(buf);
}

/** The EIP-712 digest keccak256(0x1901 ‖ domainSeparator ‖ structHash); `separator` defaults to the network's pinned one. */
export function authorizationDigest(
  network: EvmNetwork,
  a: EvmAuthorization,
  separator: Uint8Array = domainSeparator(network),
): Uint8Array {
  return authorizationDigestWith(separator, a);
}

function authorizationDigestWith(separator: Uint8Array, a: EvmAuthorization): Uint8Array {
  const buf = new Uint8Array(66);
  buf[0] = 0x19;
  buf[1] = 0x01;
  buf.set(separator, 2);
  buf.set(authorizationStructHash(a), 34);
  return keccak_256(buf);
}

const SIGNATURE_65 = /^0x[0-9a-fA-F]{130}$/;

/** Checks length, v in {27, 28}, r and s in range and s low, like FiatToken's ECRecover; gives the bytes r‖s‖v. */
function parseSignature(signatureHex: string): { ok: true; bytes: Uint8Array } | Rejection {
  if (!SIGNATURE_65.test(signatureHex)) {
    const bytes = HEX.test(signatureHex) ? (signatureHex.length - 2) / 2 : NaN;
    return reject(
      'invalid_signature',
      `signature is ${Number.isNaN(bytes) ? 'not hex bytes' : `${bytes} bytes`}; an EOA signature is 65 bytes r‖s‖v`,
    );
  }
  const v = parseInt(signatureHex.slice(130, 132), 16);
  if (v !== 27 && v !== 28) {
    return reject('invalid_signature', `signature v is ${v}; it must be 27 or 28${v <= 1 ? ' (add 27 to a 0/1 recovery id)' : ''}`);
  }
  const r = BigInt(`0x${signatureHex.slice(2, 66)}`);
  const s = BigInt(`0x${signatureHex.slice(66, 130)}`);
  if (r === 0n || r >= N || s === 0n || s >= N) return reject('invalid_signature', 'signature r or s is zero or not below the curve order');
  if (s > SECP256K1_HALF_N) {
    return reject(
      'invalid_signature',
      'signature s is in the upper half of the curve order (a malleated "high-s" signature); the USDC contract rejects it. Use s\' = n - s and flip v',
    );
  }
  return { ok: true, bytes: hexToBytes(signatureHex.slice(2)) };
}

export type SignerCheck = { ok: true } | { ok: false; recovered: string | null } | Rejection;

/**
 * Is `expected` the signer of `digest`? The signature's shape is checked first (parseSignature),
 * then the signer is recovered (libsecp256k1, secp256k1.ts) and compared; on a mismatch the
 * recovered address is returned for the message.
 */
export function checkSigner(digest: Uint8Array, signatureHex: string, expected: string): SignerCheck {
  const parsed = parseSignature(signatureHex);
  if (!parsed.ok) return parsed;
  const address = recoverAddress(digest, parsed.bytes);
  if (address === null) return { ok: false, recovered: null };
  return sameAddress(address, expected) ? { ok: true } : { ok: false, recovered: address };
}

/** checkSigner for an EIP-3009 authorization over the EIP-712 domain `separator`: is authorization.from the signer (what a crypto worker runs)? */
export function checkAuthorizationSigner(separator: Uint8Array, a: EvmAuthorization, signatureHex: string): SignerCheck {
  return checkSigner(authorizationDigestWith(separator, a), signatureHex, a.from);
}

// ------------------------------------------------------------------ the verifier

export interface ExactEvmRequirement {
  network: EvmNetwork;
  payTo: string;
  /** Price in atomic units. */
  amount: string;
}

export interface EvmVerifyOptions {
  /** Unix seconds. */
  now: number;
  clockSkewSeconds?: number;
  maxValiditySeconds?: number;
  /** Facilitator mode: pass signatures longer than 65 bytes on for the facilitator to check on chain. */
  allowSmartWallet?: boolean;
}

export interface EvmVerified {
  ok: true;
  payer: string;
  authorization: EvmAuthorization;
  /** 'eoa' = recovered and checked here; 'smart_wallet' = shape checked here, signature left to the facilitator. */
  signatureKind: 'eoa' | 'smart_wallet';
  /** Unix seconds; the replay store keeps the nonce at least until then. */
  validBefore: number;
}

/** A payment that passed every check but the signature's (precheckExactEvm); the signature is 65 bytes. */
export interface EvmSignaturePending {
  ok: true;
  signatureKind: 'pending';
  payer: string;
  authorization: EvmAuthorization;
  signature: string;
  validBefore: number;
}

/** Verifies a decoded exact-EVM `payload` against what the endpoint asks for. */
export function verifyExactEvm(payload: unknown, requirement: ExactEvmRequirement, options: EvmVerifyOptions): EvmVerified | Rejection {
  const pre = precheckExactEvm(payload, requirement, options);
  if (!pre.ok || pre.signatureKind !== 'pending') return pre;
  return signatureVerdict(
    requirement.network,
    pre,
    checkSigner(authorizationDigest(requirement.network, pre.authorization), pre.signature, pre.authorization.from),
  );
}

/**
 * Every check of verifyExactEvm but the signature's: shape, recipient, amount, time window, and
 * signature length (a smart-wallet signature is passed on as verified in facilitator mode). A
 * 'pending' result still needs checkSigner / checkAuthorizationSigner and signatureVerdict.
 */
export function precheckExactEvm(
  payload: unknown,
  requirement: ExactEvmRequirement,
  options: EvmVerifyOptions,
): EvmVerified | EvmSignaturePending | Rejection {
  const parsed = parseExactEvmPayload(payload);
  if (!parsed.ok) return parsed;
  const { authorization: a, signature } = parsed.value;
  const payer = toChecksumAddress(a.from);
  const { network } = requirement;

  if (!sameAddress(a.to, requirement.payTo)) {
    return reject(
      'recipient_mismatch',
      `authorization.to is ${a.to}, but this endpoint is paid to ${requirement.payTo} on ${network.name}`,
      { payer },
    );
  }
  const value = BigInt(a.value);
  const price = BigInt(requirement.amount);
  if (value !== price) {
    const which = value < price ? 'less than' : 'more than';
    return reject(
      'amount_mismatch',
      `authorization.value is ${a.value} atomic USDC, ${which} the price of ${requirement.amount} (exact amount required; overpayment is refused too)`,
      { payer },
    );
  }
  const skew = options.clockSkewSeconds ?? DEFAULT_CLOCK_SKEW_SECONDS;
  const validAfter = BigInt(a.validAfter);
  const validBefore = BigInt(a.validBefore);
  const now = BigInt(Math.floor(options.now));
  if (validAfter > now + BigInt(skew)) {
    return reject(
      'not_yet_valid',
      `authorization is valid only after ${a.validAfter} (${isoOf(validAfter)}); server time is ${now} (${isoOf(now)})`,
      { payer },
    );
  }
  if (validBefore < now + BigInt(SETTLEMENT_BUFFER_SECONDS)) {
    return reject(
      'expired',
      `authorization expired: validBefore is ${a.validBefore} (${isoOf(validBefore)}), server time is ${now} (${isoOf(now)}); it must stay valid at least ${SETTLEMENT_BUFFER_SECONDS} s more for settlement`,
      { payer },
    );
  }
  const maxValidity = options.maxValiditySeconds ?? DEFAULT_MAX_VALIDITY_SECONDS;
  if (validBefore > now + BigInt(maxValidity)) {
    return reject(
      'validity_too_long',
      `authorization.validBefore is ${a.validBefore}, more than ${maxValidity} s after server time ${now}; sign a shorter window (validBefore = now + maxTimeoutSeconds)`,
      { payer },
    );
  }

  const sigBytes = (signature.length - 2) / 2;
  if (sigBytes !== 65) {
    if (sigBytes > 65 && options.allowSmartWallet) {
      return { ok: true, payer, authorization: a, signatureKind: 'smart_wallet', validBefore: Number(validBefore) };
    }
    return reject(
      sigBytes > 65 ? 'unsupported_signature' : 'invalid_signature',
      sigBytes > 65
        ? `signature is ${sigBytes} bytes: a smart-wallet (ERC-1271 / ERC-6492) signature, which only a facilitator can check on chain; SETTLEMENT=local verifies 65-byte EOA signatures only`
        : `signature is ${sigBytes} bytes; an EOA signature is 65 bytes r‖s‖v`,
      { payer },
    );
  }
  return { ok: true, signatureKind: 'pending', payer, authorization: a, signature, validBefore: Number(validBefore) };
}

/** The verdict on a prechecked payment given what checkSigner said about its signature. */
export function signatureVerdict(network: EvmNetwork, pending: EvmSignaturePending, signer: SignerCheck): EvmVerified | Rejection {
  const { payer } = pending;
  if ('reason' in signer) return { ...signer, payer };
  if (!signer.ok) {
    const d = network.usdc.eip712;
    return reject(
      'invalid_signature',
      `signature recovers ${signer.recovered ?? 'no public key'}, authorization.from is ${payer}. The signature must be EIP-712 TransferWithAuthorization over ` +
        `the domain {name: "${d.name}", version: "${d.version}", chainId: ${network.chainId}, verifyingContract: ${network.usdc.address}} ` +
        `(USDC on ${network.name}); a different domain, chain or field value gives a different signer`,
      { payer },
    );
  }
  return { ok: true, payer, authorization: pending.authorization, signatureKind: 'eoa', validBefore: pending.validBefore };
}

function isoOf(seconds: bigint): string {
  const ms = Number(seconds) * 1000;
  return Number.isFinite(ms) && Math.abs(ms) < 8.64e15 ? new Date(ms).toISOString() : 'far future';
}

// ------------------------------------------------------------------ signing (clients, tests, bench)

/** Signs an authorization for `network` with a private key (32 bytes); returns the 65-byte r‖s‖v hex (RFC 6979, as wallets sign). */
export function signAuthorization(network: EvmNetwork, a: EvmAuthorization, privateKey: Uint8Array, separator?: Uint8Array): string {
  return `0x${bytesToHex(signDigest(authorizationDigest(network, a, separator), privateKey, { deterministic: true }))}`;
}
