/**
 * Signed receipts for paid responses.
 *
 * Signed text: the nine fields pipe-joined in this order
 *   id|endpoint|amount|currency|network|tx_hash|payer|merchant|issued_at
 * Signature: EIP-191 personal_sign over that text, i.e. secp256k1 ECDSA over
 *   keccak256("\x19Ethereum Signed Message:\n" + byteLength(text) + text),
 * encoded 0x + r‖s‖v (65 bytes, v 27/28, low s). Chosen so that anyone can check a receipt with
 * the tools they already have (viem `verifyMessage`, ethers `verifyMessage`, `cast wallet verify`):
 * recover the address and compare it with `receipt_signer.address` in /.well-known/x402, or the
 * recovered key with `receipt_signer.public_key` (compressed, 0x + 66 hex).
 *
 * The signature is made by libsecp256k1 (secp256k1.ts) with a hedged nonce: RFC 6979 plus fresh
 * randomness, so two receipts of the same text carry different signatures; both verify.
 *
 * Settlement is stated, never implied: `settlement` is 'local' (SETTLEMENT=local, nothing moved
 * on chain; tx_hash is "local:<nonce>", which is not a transaction) or 'facilitator' (tx_hash is
 * the settlement transaction the facilitator reported).
 *
 * Key: RECEIPT_SIGNING_KEY, or a key generated once and kept in KEYS_DIR/receipt-signing.key (mode
 * 0600, directory 0700, with a .gitignore of "*"), so the published public key stays the same across
 * restarts. The private key is never logged, printed or put in an error message.
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import type { Secret } from '../lib/config.ts';
import { sameAddress } from './eip3009.ts';
import { addressOfPublicKey, randomPrivateKey, recoverAddress, SECP256K1_HALF_N, secp256k1, signDigest } from './secp256k1.ts';

export const RECEIPT_FIELDS = ['id', 'endpoint', 'amount', 'currency', 'network', 'tx_hash', 'payer', 'merchant', 'issued_at'] as const;
export type ReceiptField = (typeof RECEIPT_FIELDS)[number];
export type ReceiptFields = Record<ReceiptField, string>;

export const RECEIPT_SIGNATURE_SCHEME = 'eip191-secp256k1';

export interface ReceiptSignerInfo {
  /** Compressed secp256k1 public key, 0x + 66 hex. */
  public_key: string;
  /** EVM address of the key (EIP-55). */
  address: string;
}

export interface Receipt extends ReceiptFields {
  /** 'local' = verified in-process, no funds moved; 'facilitator' = settled on chain by the facilitator. */
  settlement: 'local' | 'facilitator';
  /** 0x + r‖s‖v over the pipe-joined fields (EIP-191 personal_sign). */
  signature: string;
  signature_scheme: typeof RECEIPT_SIGNATURE_SCHEME;
  signer: ReceiptSignerInfo;
}

/** The exact text that is signed. A field containing "|" would make the text ambiguous, so it is refused. */
export function receiptSigningText(fields: ReceiptFields): string {
  for (const name of RECEIPT_FIELDS) {
    const value = fields[name];
    if (typeof value !== 'string') throw new Error(`receipt field ${name} must be a string`);
    if (value.includes('|')) throw new Error(`receipt field ${name} contains "|", which the signed text uses as separator`);
  }
  return RECEIPT_FIELDS.map((name) => fields[name]).join('|');
}

/** keccak256 of the EIP-191 personal message. */
export function personalMessageHash(text: string): Uint8Array {
  const body = utf8ToBytes(text);
  const prefix = utf8ToBytes(`\x19Ethereum Signed Message:\n${body.length}`);
  const buf = new Uint8Array(prefix.length + body.length);
  buf.set(prefix, 0);
  buf.set(body, prefix.length);
  return keccak_256(buf);
}

function parsePrivateKey(hex: string, where: string): Uint8Array {
  const clean = hex.trim().replace(/^0x/, '');
  if (!/^[0-9a-fA-F]{64}$/.test(clean)) throw new Error(`${where}: not a 32-byte hex private key (value not shown)`);
  const key = hexToBytes(clean);
  if (!secp256k1.isPrivateKey(key)) throw new Error(`${where}: not a valid secp256k1 private key, out of range (value not shown)`);
  return key;
}

export class ReceiptSigner {
  readonly #key: Uint8Array;
  readonly info: ReceiptSignerInfo;

  private constructor(key: Uint8Array) {
    this.#key = key;
    signerKeys.set(this, key);
    const compressed = secp256k1.publicKey(key, true);
    this.info = { public_key: `0x${bytesToHex(compressed)}`, address: addressOfPublicKey(compressed) };
  }

  /** From a hex private key (RECEIPT_SIGNING_KEY). */
  static fromPrivateKeyHex(hex: string, where = 'RECEIPT_SIGNING_KEY'): ReceiptSigner {
    return new ReceiptSigner(parsePrivateKey(hex, where));
  }

  /** A fresh random key (tests). */
  static random(): ReceiptSigner {
    return new ReceiptSigner(randomPrivateKey());
  }

  /**
   * RECEIPT_SIGNING_KEY when set; otherwise the key in `${keysDir}/receipt-signing.key`, created
   * on first use. Two processes starting together end up with the same key: the file is created
   * by an atomic link, and the loser reads the winner's.
   */
  static load(settings: { receiptSigningKey: Secret | null; keysDir: string }): {
    signer: ReceiptSigner;
    source: 'setting' | 'file' | 'generated';
    path: string | null;
  } {
    if (settings.receiptSigningKey) {
      return { signer: ReceiptSigner.fromPrivateKeyHex(settings.receiptSigningKey.reveal()), source: 'setting', path: null };
    }
    const path = join(settings.keysDir, 'receipt-signing.key');
    if (existsSync(path)) return { signer: readKeyFile(path), source: 'file', path };
    mkdirSync(settings.keysDir, { recursive: true, mode: 0o700 });
    const ignore = join(settings.keysDir, '.gitignore');
    if (!existsSync(ignore)) writeFileSync(ignore, '# private keys: never commit\n*\n', { mode: 0o600 });
    const key = randomPrivateKey();
    const temp = join(settings.keysDir, `.receipt-signing.key.${process.pid}.${randomUUID()}`);
    writeFileSync(temp, `${bytesToHex(key)}\n`, { mode: 0o600, flag: 'wx' });
    try {
      linkSync(temp, path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      unlinkSync(temp);
      return { signer: readKeyFile(path), source: 'file', path };
    }
    unlinkSync(temp);
    return { signer: new ReceiptSigner(key), source: 'generated', path };
  }

  /** Signs the nine fields; returns the full receipt. */
  sign(fields: ReceiptFields, settlement: 'local' | 'facilitator'): Receipt {
    return assembleReceipt(fields, settlement, this.signText(receiptSigningText(fields)), this.info);
  }

  /** The EIP-191 signature (0x + r‖s‖v hex, low s, v 27/28) of a receipt's signing text. */
  signText(text: string): string {
    return `0x${bytesToHex(signDigest(personalMessageHash(text), this.#key))}`;
  }

  /** The signature (0x + r‖s‖v hex, low s, v 27/28) of a 32-byte digest: the EIP-712 offer-receipt artifacts (offer-receipt.ts). */
  signDigest(digest: Uint8Array): string {
    return `0x${bytesToHex(signDigest(digest, this.#key))}`;
  }

  /** signText for several texts. */
  signTexts(texts: readonly string[]): string[] {
    return texts.map((text) => this.signText(text));
  }

  /** Never reveal the key through inspection or JSON. */
  toJSON(): ReceiptSignerInfo {
    return this.info;
  }
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `ReceiptSigner(${this.info.address})`;
  }
}

/** The full receipt from its fields and the signature of their signing text. */
export function assembleReceipt(
  fields: ReceiptFields,
  settlement: 'local' | 'facilitator',
  signature: string,
  signer: ReceiptSignerInfo,
): Receipt {
  return { ...fields, settlement, signature, signature_scheme: RECEIPT_SIGNATURE_SCHEME, signer };
}

/** Private keys by signer, for the crypto workers (crypto-pool.ts) only: never logged or serialized. */
const signerKeys = new WeakMap<ReceiptSigner, Uint8Array>();

/** The secret key bytes of `signer`, to hand to a crypto worker at start. */
export function receiptSignerKeyForWorkers(signer: ReceiptSigner): Uint8Array {
  return signerKeys.get(signer)!;
}

function readKeyFile(path: string): ReceiptSigner {
  const mode = statSync(path).mode & 0o777;
  if (mode & 0o077) {
    // Tighten rather than refuse: the key is ours, and a restart must not change the published key.
    chmodSync(path, 0o600);
    console.warn(`receipts: ${path} was readable by others (mode ${mode.toString(8)}); set to 0600`);
  }
  return ReceiptSigner.fromPrivateKeyHex(readFileSync(path, 'utf8'), path);
}

// ------------------------------------------------------------------ verification

export type ReceiptCheck = { ok: true; address: string } | { ok: false; reason: string };

const PUBLIC_KEY = /^(0x)?(0[23][0-9a-fA-F]{64}|04[0-9a-fA-F]{128})$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** The address a receipt's signature recovers to (null with a reason when it does not parse). */
export function recoverReceiptSigner(receipt: unknown): ReceiptCheck {
  if (typeof receipt !== 'object' || receipt === null) return { ok: false, reason: 'receipt is not a JSON object' };
  const r = receipt as Record<string, unknown>;
  for (const name of RECEIPT_FIELDS) {
    if (typeof r[name] !== 'string') return { ok: false, reason: `receipt field "${name}" is missing or not a string` };
  }
  if (typeof r.signature !== 'string' || !/^0x[0-9a-fA-F]{130}$/.test(r.signature)) {
    return { ok: false, reason: 'receipt signature must be 0x + 130 hex digits (r‖s‖v)' };
  }
  let text: string;
  try {
    text = receiptSigningText(r as unknown as ReceiptFields);
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
  const bytes = hexToBytes(r.signature.slice(2));
  const v = bytes[64]!;
  if (v !== 27 && v !== 28) return { ok: false, reason: `receipt signature v is ${v}; expected 27 or 28` };
  const s = BigInt(`0x${bytesToHex(bytes.subarray(32, 64))}`);
  if (s > SECP256K1_HALF_N)
    return { ok: false, reason: 'receipt signature has a high s value (malleated); the signer only produces low-s signatures' };
  const address = recoverAddress(personalMessageHash(text), bytes);
  return address === null ? { ok: false, reason: 'receipt signature does not recover to a public key' } : { ok: true, address };
}

/**
 * Checks a receipt against the published signer: a compressed/uncompressed public key (hex) or an
 * EVM address. Any change to any of the nine fields changes the recovered signer.
 */
export function verifyReceipt(receipt: unknown, publicKeyOrAddress: string): ReceiptCheck {
  const expected = expectedAddress(publicKeyOrAddress);
  if (!expected.ok) return expected;
  const recovered = recoverReceiptSigner(receipt);
  if (!recovered.ok) return recovered;
  if (!sameAddress(recovered.address, expected.address)) {
    return {
      ok: false,
      reason: `signature recovers ${recovered.address}, but the published receipt signer is ${expected.address}: the receipt was altered or signed by another key`,
    };
  }
  return recovered;
}

function expectedAddress(publicKeyOrAddress: string): ReceiptCheck {
  const text = publicKeyOrAddress.trim();
  if (ADDRESS.test(text)) return { ok: true, address: text };
  if (PUBLIC_KEY.test(text)) {
    try {
      return { ok: true, address: addressOfPublicKey(hexToBytes(text.replace(/^0x/, ''))) };
    } catch {
      return { ok: false, reason: `"${text}" is not a point on secp256k1` };
    }
  }
  return { ok: false, reason: `"${text}" is neither a secp256k1 public key (hex, compressed 02/03 or uncompressed 04) nor an EVM address` };
}
