/**
 * In-process verification of an x402 `exact` EVM payload: an EIP-3009 TransferWithAuthorization
 * signed over the pinned EIP-712 domain of the network's USDC (research §2.2, §2.5 items 4-8).
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
 *   ECRecover rule; @noble/curves v2 recovers high-s signatures happily, so it is checked here), and
 *   the signer recovered over the PINNED domain equals `from` (invalid_signature). A wrong domain
 *   name, version, chain or contract gives a different digest and so a different signer. For a
 *   payer seen before, the check is a full ECDSA verification against its cached public key
 *   (PayerKeyCache, with fixed-base tables from secp256k1-tables.ts), which gives the same verdict
 *   as recovery about eight times faster; anything it does not accept goes through recovery.
 *   Longer signatures are smart-wallet (ERC-1271 / ERC-6492) signatures: only a facilitator can check
 *   them on chain, so they are refused unless `allowSmartWallet` (facilitator mode).
 * The chain state (balance, nonce already used on chain, paused or blacklisted token) is the
 * facilitator's to check; the in-process replay store is nonce-store.ts.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { domainSeparator, type EvmNetwork } from './networks.ts';
import { reject, type Rejection } from './reasons.ts';
import { buildTable, ecdsaCheckAll, type EcdsaCheckInput, type PointTable } from './secp256k1-tables.ts';

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

/** Half the secp256k1 order: FiatToken rejects s above it. */
export const SECP256K1_HALF_N = secp256k1.Point.CURVE().n >> 1n;
const N = secp256k1.Point.CURVE().n;

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

/** EIP-55 checksummed form of an address (input in any case). */
export function toChecksumAddress(address: string): string {
  const lower = address.slice(2).toLowerCase();
  const known = checksums.get(lower);
  if (known !== undefined) return known;
  const hash = bytesToHex(keccak_256(utf8ToBytes(lower)));
  let out = '0x';
  for (let i = 0; i < 40; i++) out += parseInt(hash[i]!, 16) >= 8 ? lower[i]!.toUpperCase() : lower[i]!;
  if (checksums.size >= 4096) checksums.clear();
  checksums.set(lower, out);
  return out;
}

/** Recent checksummed forms (a payer pays many times; each form costs a keccak). */
const checksums = new Map<string, string>();

export function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** The EVM address of a public key (compressed or uncompressed bytes, or a curve point). */
export function addressOfPublicKey(publicKey: Uint8Array): string {
  const uncompressed = publicKey.length === 65 ? publicKey : secp256k1.Point.fromBytes(publicKey).toBytes(false);
  return toChecksumAddress(`0x${bytesToHex(keccak_256(uncompressed.subarray(1)).subarray(12))}`);
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
    return reject('malformed_payload', 'payload is a Permit2 authorization; this service takes EIP-3009 transferWithAuthorization on USDC only');
  }
  const { signature, authorization } = payload;
  if (typeof signature !== 'string' || !HEX.test(signature)) {
    return reject('malformed_payload', `payload.signature must be 0x-prefixed hex bytes, got ${describe(signature)}`);
  }
  if (!isRecord(authorization)) return reject('malformed_payload', 'payload.authorization must be an object {from, to, value, validAfter, validBefore, nonce}');
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
export function authorizationDigest(network: EvmNetwork, a: EvmAuthorization, separator: Uint8Array = domainSeparator(network)): Uint8Array {
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

type CurvePoint = ReturnType<typeof secp256k1.Point.fromBytes>;

interface ParsedSignature {
  r: bigint;
  s: bigint;
  /** 0 or 1 (v - 27). */
  recovery: number;
  hex: string;
}

const SIGNATURE_65 = /^0x[0-9a-fA-F]{130}$/;

/** Checks length, v in {27, 28}, r and s in range and s low, like FiatToken's ECRecover. */
function parseSignature(signatureHex: string): { ok: true; sig: ParsedSignature } | Rejection {
  if (!SIGNATURE_65.test(signatureHex)) {
    const bytes = HEX.test(signatureHex) ? (signatureHex.length - 2) / 2 : NaN;
    return reject('invalid_signature', `signature is ${Number.isNaN(bytes) ? 'not hex bytes' : `${bytes} bytes`}; an EOA signature is 65 bytes r‖s‖v`);
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
  return { ok: true, sig: { r, s, recovery: v - 27, hex: signatureHex } };
}

function recoverPoint(digest: Uint8Array, sig: ParsedSignature): CurvePoint | null {
  try {
    return secp256k1.Signature.fromBytes(hexToBytes(sig.hex.slice(2, 130)), 'compact').addRecoveryBit(sig.recovery).recoverPublicKey(digest);
  } catch {
    return null;
  }
}

/** A payer key known to be the key of its address, with its precomputed table(s). */
export interface KnownPayer {
  readonly x: bigint;
  readonly y: bigint;
  /** Window-4 table (about 50 KB), built at the payer's second payment (a one-time payer costs only its recovery). */
  table: PointTable | null;
  /** Window-8 table (about 420 KB) once the payer is hot; null otherwise. */
  hot: PointTable | null;
  uses: number;
  lastUse: number;
}

/** Window of every cached payer's table: 65 additions per check, about 50 KB, built in about 3 ms. */
export const PAYER_TABLE_WINDOW = 4;
/** Window of a hot payer's table: 33 additions per check, about 420 KB, built in about 25 ms. */
export const HOT_PAYER_TABLE_WINDOW = 8;

/**
 * Public keys of recent payers (pay-per-call clients pay many times from one address), each with a
 * precomputed table of its multiples, so that checking a signature against a known key is a
 * fixed-base computation (secp256k1-tables.ts) instead of a public-key recovery: about 0.25 ms
 * instead of 2 ms. Every check is still a full ECDSA verification; only the key is remembered.
 *
 * Two tiers: up to `capacity` payers with a window-4 table (about 50 KB each, 26 MB at 512; built
 * at a payer's second payment, about 3 ms), and the `hotCapacity` most recently used payers among
 * those that paid at least `hotAfter` times with a window-8 table as well (about 420 KB each):
 * another third off the check, worth its 25 ms build only for a payer that keeps paying. Both
 * least-recently-used.
 */
export class PayerKeyCache {
  readonly #keys = new Map<string, KnownPayer>();
  readonly #hot = new Map<string, KnownPayer>();
  #clock = 0;
  constructor(
    readonly capacity = 512,
    readonly hotCapacity = 16,
    readonly hotAfter = 64,
  ) {}

  get(address: string): KnownPayer | undefined {
    const k = address.toLowerCase();
    const entry = this.#keys.get(k);
    if (entry) {
      this.#keys.delete(k);
      this.#keys.set(k, entry);
    }
    return entry;
  }

  /** The table to check `entry`'s signatures with (built now at the payer's second payment). */
  tableFor(entry: KnownPayer): PointTable {
    if (entry.hot) return entry.hot;
    entry.table ??= buildTable(entry.x, entry.y, PAYER_TABLE_WINDOW);
    return entry.table;
  }

  /**
   * Counts a signature of `address` that checked out against its cached key, and promotes a payer
   * that got hot (its hot table is used from its next payment on). Failed checks do not count, so
   * forged payments in a payer's name cannot make tables get built.
   */
  verified(address: string, entry: KnownPayer): void {
    entry.uses++;
    entry.lastUse = ++this.#clock;
    const k = address.toLowerCase();
    if (entry.hot) {
      this.#hot.delete(k);
      this.#hot.set(k, entry);
    } else if (this.hotCapacity > 0 && entry.uses >= this.hotAfter && this.#makeRoom()) {
      entry.hot = buildTable(entry.x, entry.y, HOT_PAYER_TABLE_WINDOW);
      this.#hot.set(k, entry);
    }
  }

  /**
   * Room for one more hot table: a free slot, or the least recently used hot payer if it has been
   * idle for a while (hotCapacity × hotAfter checks), so that more hot payers than slots do not
   * rebuild tables in turn.
   */
  #makeRoom(): boolean {
    if (this.#hot.size < this.hotCapacity) return true;
    const [oldest, entry] = this.#hot.entries().next().value!;
    if (this.#clock - entry.lastUse <= this.hotCapacity * this.hotAfter) return false;
    entry.hot = null;
    entry.uses = 0;
    this.#hot.delete(oldest);
    return true;
  }

  /** Stores `point` as the key of `address` — only if it really is that address's key (a wrong entry would let forged signatures pass). */
  remember(address: string, point: CurvePoint): void {
    if (this.capacity <= 0) return;
    if (!sameAddress(addressOfPublicKey(point.toBytes(false)), address)) return;
    const { x, y } = point.toAffine();
    const k = address.toLowerCase();
    this.#keys.set(k, { x, y, table: null, hot: null, uses: 0, lastUse: this.#clock });
    if (this.#keys.size > this.capacity) {
      const oldest = this.#keys.keys().next().value!;
      this.#keys.delete(oldest);
      this.#hot.delete(oldest);
    }
  }

  get size(): number {
    return this.#keys.size;
  }

  /** How many payers have a hot (window-8) table. */
  get hotSize(): number {
    return this.#hot.size;
  }
}

export const payerKeys = new PayerKeyCache();

export type SignerCheck = { ok: true } | { ok: false; recovered: string | null } | Rejection;

export interface SignerQuestion {
  digest: Uint8Array;
  signature: string;
  expected: string;
}

/**
 * Is `expected` the signer? With a cached key for `expected`, a full ECDSA verification against it
 * (ecdsaCheckAll: x(R) = r and the parity v names, i.e. exactly what ecrecover rebuilds); otherwise,
 * or if that check fails, public-key recovery, remembering the key when it matches. On a mismatch
 * the recovered address is returned for the message. Several questions at once share the
 * modular inversions of their checks.
 */
export function checkSigners(questions: readonly SignerQuestion[], cache: PayerKeyCache | null = payerKeys): SignerCheck[] {
  const out: SignerCheck[] = new Array(questions.length);
  const parsed: Array<ParsedSignature | null> = questions.map((q, i) => {
    const p = parseSignature(q.signature);
    if (!p.ok) out[i] = p;
    return p.ok ? p.sig : null;
  });
  const fast: EcdsaCheckInput[] = [];
  const fastIndex: number[] = [];
  const known: Array<KnownPayer | undefined> = questions.map((q, i) => {
    const sig = parsed[i];
    if (!sig || !cache) return undefined;
    const entry = cache.get(q.expected);
    if (entry) {
      fast.push({ z: BigInt(`0x${bytesToHex(q.digest)}`), r: sig.r, s: sig.s, recovery: sig.recovery, key: cache.tableFor(entry) });
      fastIndex.push(i);
    }
    return entry;
  });
  const passed = ecdsaCheckAll(fast);
  fastIndex.forEach((i, j) => {
    if (!passed[j]) return;
    out[i] = { ok: true };
    cache!.verified(questions[i]!.expected, known[i]!);
  });
  questions.forEach((q, i) => {
    const sig = parsed[i];
    if (out[i] !== undefined || !sig) return;
    const point = recoverPoint(q.digest, sig);
    if (!point) {
      out[i] = { ok: false, recovered: null };
      return;
    }
    const address = addressOfPublicKey(point.toBytes(false));
    if (!sameAddress(address, q.expected)) {
      out[i] = { ok: false, recovered: address };
      return;
    }
    if (!known[i]) cache?.remember(q.expected, point);
    out[i] = { ok: true };
  });
  return out;
}

export function checkSigner(digest: Uint8Array, signatureHex: string, expected: string, cache: PayerKeyCache | null = payerKeys): SignerCheck {
  return checkSigners([{ digest, signature: signatureHex, expected }], cache)[0]!;
}

/** An EIP-3009 authorization with its signature, over the EIP-712 domain `separator`. */
export interface AuthorizationQuestion {
  separator: Uint8Array;
  authorization: EvmAuthorization;
  signature: string;
}

/** checkSigners for EIP-3009 authorizations: is authorization.from the signer (what a crypto worker runs)? */
export function checkAuthorizationSigners(questions: readonly AuthorizationQuestion[], cache: PayerKeyCache | null = payerKeys): SignerCheck[] {
  return checkSigners(
    questions.map((q) => ({ digest: authorizationDigestWith(q.separator, q.authorization), signature: q.signature, expected: q.authorization.from })),
    cache,
  );
}

export function checkAuthorizationSigner(separator: Uint8Array, a: EvmAuthorization, signatureHex: string, cache: PayerKeyCache | null = payerKeys): SignerCheck {
  return checkAuthorizationSigners([{ separator, authorization: a, signature: signatureHex }], cache)[0]!;
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
  /** Known payer keys (default: the process-wide cache; null = always recover). */
  payerKeys?: PayerKeyCache | null;
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
  const cache = options.payerKeys === undefined ? payerKeys : options.payerKeys;
  return signatureVerdict(requirement.network, pre, checkSigner(authorizationDigest(requirement.network, pre.authorization), pre.signature, pre.authorization.from, cache));
}

/**
 * Every check of verifyExactEvm but the signature's: shape, recipient, amount, time window, and
 * signature length (a smart-wallet signature is passed on as verified in facilitator mode). A
 * 'pending' result still needs checkSigner / checkAuthorizationSigner and signatureVerdict.
 */
export function precheckExactEvm(payload: unknown, requirement: ExactEvmRequirement, options: EvmVerifyOptions): EvmVerified | EvmSignaturePending | Rejection {
  const parsed = parseExactEvmPayload(payload);
  if (!parsed.ok) return parsed;
  const { authorization: a, signature } = parsed.value;
  const payer = toChecksumAddress(a.from);
  const { network } = requirement;

  if (!sameAddress(a.to, requirement.payTo)) {
    return reject('recipient_mismatch', `authorization.to is ${a.to}, but this endpoint is paid to ${requirement.payTo} on ${network.name}`, { payer });
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
    return reject('not_yet_valid', `authorization is valid only after ${a.validAfter} (${isoOf(validAfter)}); server time is ${now} (${isoOf(now)})`, { payer });
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

/** Signs an authorization for `network` with a private key (32 bytes); returns the 65-byte r‖s‖v hex. */
export function signAuthorization(network: EvmNetwork, a: EvmAuthorization, privateKey: Uint8Array, separator?: Uint8Array): string {
  const digest = authorizationDigest(network, a, separator);
  const sig = secp256k1.sign(digest, privateKey, { prehash: false, format: 'recovered' });
  // noble's 'recovered' format puts the recovery byte first; Ethereum wants r ‖ s ‖ v with v = 27 + recovery.
  const out = new Uint8Array(65);
  out.set(sig.subarray(1, 65), 0);
  out[64] = 27 + sig[0]!;
  return `0x${bytesToHex(out)}`;
}

export function addressOfPrivateKey(privateKey: Uint8Array): string {
  return addressOfPublicKey(secp256k1.getPublicKey(privateKey, false));
}
