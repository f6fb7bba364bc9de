/**
 * The secp256k1 operations the proxy needs, and nothing else: recover the signer of a 32-byte
 * digest (an EIP-3009 payment, a receipt), sign a digest with a key (receipts; the paying client),
 * and the public key and address of a private key.
 *
 * Backed by libsecp256k1 through the native binding of the `secp256k1` package (a linux-x64
 * prebuild ships with it, so nothing is compiled at install): audited, constant-time signing with
 * a blinded context. The binding is loaded explicitly (`secp256k1/bindings`): the package's own
 * entry falls back silently to a pure-JS implementation when it is missing, and so would hide it.
 * Where the binding cannot load, the same operations run on @noble/curves, after one warning line;
 * `secp256k1.backend` says which is in use.
 *
 * Signatures are 65 bytes r‖s‖v, low s, v = 27 + recovery id (Ethereum's ecrecover layout).
 */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { secp256k1 as noble } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

export type Secp256k1Backend = 'libsecp256k1' | '@noble/curves';

/** The curve order n. */
export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
/** Half the order: a signature with s above it is the malleated twin of a low-s one. */
export const SECP256K1_HALF_N = SECP256K1_N >> 1n;

export interface Secp256k1 {
  readonly backend: Secp256k1Backend;
  /**
   * The uncompressed public key (65 bytes) that signed `digest` with the compact r‖s and recovery
   * id 0 or 1; null when there is none (r or s zero or not below n, r not the x of a curve point).
   */
  recover(digest: Uint8Array, compact: Uint8Array, recovery: number): Uint8Array | null;
  /**
   * A low-s signature of `digest` (compact r‖s and recovery id 0 or 1). The nonce is RFC 6979's;
   * with `entropy` (32 bytes) it is hedged with it as well (RFC 6979 §3.6).
   */
  sign(digest: Uint8Array, privateKey: Uint8Array, entropy: Uint8Array | null): { compact: Uint8Array; recovery: number };
  /** The public key of a private key, compressed (33 bytes) or not (65). Throws on an invalid key. */
  publicKey(privateKey: Uint8Array, compressed: boolean): Uint8Array;
  /** A public key (33 or 65 bytes) in the other encoding. Throws when it is not a point of the curve. */
  convert(publicKey: Uint8Array, compressed: boolean): Uint8Array;
  /** 32 bytes in [1, n − 1]. */
  isPrivateKey(privateKey: Uint8Array): boolean;
}

/** What this module uses of the `secp256k1` package's native binding. */
type NativeBinding = Pick<
  typeof import('secp256k1'),
  'contextRandomize' | 'ecdsaRecover' | 'ecdsaSign' | 'privateKeyVerify' | 'publicKeyConvert' | 'publicKeyCreate'
>;

const require = createRequire(import.meta.url);

/** libsecp256k1 through `binding`, with its context blinded by fresh randomness. */
export function nativeSecp256k1(binding: NativeBinding): Secp256k1 {
  binding.contextRandomize(randomBytes(32));
  return {
    backend: 'libsecp256k1',
    recover(digest, compact, recovery) {
      try {
        return binding.ecdsaRecover(compact, recovery, digest, false);
      } catch {
        return null;
      }
    },
    sign(digest, privateKey, entropy) {
      const { signature, recid } = binding.ecdsaSign(digest, privateKey, entropy ? { data: entropy } : {});
      return { compact: signature, recovery: recid };
    },
    publicKey: (privateKey, compressed) => binding.publicKeyCreate(privateKey, compressed),
    convert: (publicKey, compressed) => binding.publicKeyConvert(publicKey, compressed),
    isPrivateKey: (privateKey) => privateKey.length === 32 && binding.privateKeyVerify(privateKey),
  };
}

/** The same operations on @noble/curves (pure JS, for where the native binding is missing). */
export const nobleSecp256k1: Secp256k1 = {
  backend: '@noble/curves',
  recover(digest, compact, recovery) {
    try {
      return noble.Signature.fromBytes(compact, 'compact').addRecoveryBit(recovery).recoverPublicKey(digest).toBytes(false);
    } catch {
      return null;
    }
  },
  sign(digest, privateKey, entropy) {
    // 'recovered' puts the recovery id first
    const sig = noble.sign(digest, privateKey, { prehash: false, lowS: true, format: 'recovered', extraEntropy: entropy ?? false });
    return { compact: sig.subarray(1, 65), recovery: sig[0]! };
  },
  publicKey: (privateKey, compressed) => noble.getPublicKey(privateKey, compressed),
  convert: (publicKey, compressed) => noble.Point.fromBytes(publicKey).toBytes(compressed),
  isPrivateKey: (privateKey) => privateKey.length === 32 && noble.utils.isValidSecretKey(privateKey),
};

/**
 * libsecp256k1 when `loadBinding` (default: the installed native binding) works, else @noble/curves
 * after one warning line through `warn`.
 */
export function loadSecp256k1(
  loadBinding: () => NativeBinding = () => require('secp256k1/bindings') as NativeBinding,
  warn: (line: string) => void = (line) => console.warn(line),
): Secp256k1 {
  try {
    return nativeSecp256k1(loadBinding());
  } catch (err) {
    const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
    warn(`secp256k1: the native libsecp256k1 binding did not load (${why}); using @noble/curves (pure JS, slower) instead`);
    return nobleSecp256k1;
  }
}

/** The process's secp256k1, chosen once at load. */
export const secp256k1: Secp256k1 = loadSecp256k1();

// ------------------------------------------------------------------ addresses

/** Recent checksummed forms (a payer pays many times; each form costs a keccak). */
const checksums = new Map<string, string>();

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

/** The EVM address (EIP-55) of a public key, compressed or not: the last 20 bytes of keccak256(x ‖ y). */
export function addressOfPublicKey(publicKey: Uint8Array, curve: Secp256k1 = secp256k1): string {
  const uncompressed = publicKey.length === 65 && publicKey[0] === 4 ? publicKey : curve.convert(publicKey, false);
  return toChecksumAddress(`0x${bytesToHex(keccak_256(uncompressed.subarray(1)).subarray(12))}`);
}

export function addressOfPrivateKey(privateKey: Uint8Array, curve: Secp256k1 = secp256k1): string {
  return addressOfPublicKey(curve.publicKey(privateKey, false), curve);
}

// ------------------------------------------------------------------ signatures r‖s‖v

/**
 * The address that signed `digest` with `signature` (65 bytes r‖s‖v, v 27 or 28; the caller checks
 * v and low s), or null when the signature recovers no key.
 */
export function recoverAddress(digest: Uint8Array, signature: Uint8Array, curve: Secp256k1 = secp256k1): string | null {
  if (digest.length !== 32 || signature.length !== 65) return null;
  const v = signature[64]!;
  if (v !== 27 && v !== 28) return null;
  const key = curve.recover(digest, signature.subarray(0, 64), v - 27);
  return key ? addressOfPublicKey(key, curve) : null;
}

/**
 * The 65-byte r‖s‖v signature (low s, v 27 or 28) of a 32-byte digest. Hedged by default (fresh
 * randomness on top of RFC 6979, so two signatures of one digest differ; both verify);
 * `deterministic` gives plain RFC 6979, the signature wallets make.
 */
export function signDigest(
  digest: Uint8Array,
  privateKey: Uint8Array,
  options: { deterministic?: boolean } = {},
  curve: Secp256k1 = secp256k1,
): Uint8Array {
  if (digest.length !== 32) throw new Error('signDigest: expected a 32-byte digest');
  // a recovery id of 2 or 3 (R.x at least n, probability about 2^-128) has no v; a hedged nonce is redrawn
  for (let attempt = 0; attempt < 4; attempt++) {
    const { compact, recovery } = curve.sign(digest, privateKey, options.deterministic ? null : randomBytes(32));
    if (recovery <= 1) {
      const out = new Uint8Array(65);
      out.set(compact, 0);
      out[64] = 27 + recovery;
      return out;
    }
    if (options.deterministic) break;
  }
  throw new Error('signDigest: no signature with a recovery id of 0 or 1');
}

/** A fresh random private key. */
export function randomPrivateKey(curve: Secp256k1 = secp256k1): Uint8Array {
  for (;;) {
    const key = randomBytes(32);
    if (curve.isPrivateKey(key)) return new Uint8Array(key);
  }
}
