import { mkdtempSync, readFileSync, statSync, writeFileSync, chmodSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { verifyMessage } from 'viem';
import { describe, expect, it, vi } from 'vitest';
import { loadSettings } from '../lib/config.ts';
import { SECP256K1_HALF_N } from './eip3009.ts';
import { personalMessageHash, RECEIPT_FIELDS, receiptSigningText, ReceiptSigner, verifyReceipt, type ReceiptFields } from './receipts.ts';

const fields: ReceiptFields = {
  id: '2b0c3c2e-8f59-4c39-9a38-8c1f0a7e2d11',
  endpoint: '/api/v1/kimchi-premium',
  amount: '0.001',
  currency: 'USDC',
  network: 'base',
  tx_hash: `local:0x${'42'.repeat(32)}`,
  payer: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  merchant: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  issued_at: '2026-11-20T12:00:00.000Z',
};
const KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';

describe('receipts', () => {
  const signer = ReceiptSigner.fromPrivateKeyHex(KEY);
  const receipt = signer.sign(fields, 'local');

  it('signs the nine fields pipe-joined, in order, and says how it was settled', () => {
    expect(receiptSigningText(fields)).toBe(RECEIPT_FIELDS.map((f) => fields[f]).join('|'));
    expect(receipt).toMatchObject({ ...fields, settlement: 'local', signature_scheme: 'eip191-secp256k1', signer: signer.info });
    expect(signer.info.public_key).toMatch(/^0x0[23][0-9a-f]{64}$/);
    expect(signer.info.address).toBe('0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
  });

  it('round trip: verifies against the public key (compressed or not) and the address', () => {
    expect(verifyReceipt(receipt, signer.info.public_key)).toEqual({ ok: true, address: signer.info.address });
    expect(verifyReceipt(receipt, signer.info.public_key.slice(2))).toMatchObject({ ok: true });
    expect(verifyReceipt(receipt, signer.info.address.toLowerCase())).toMatchObject({ ok: true });
  });

  it('anyone can check it with standard tools: viem verifyMessage over the text', async () => {
    expect(
      await verifyMessage({
        address: signer.info.address as `0x${string}`,
        message: receiptSigningText(fields),
        signature: receipt.signature as `0x${string}`,
      }),
    ).toBe(true);
  });

  it('verifies with the verification this module had before libsecp256k1 (@noble/curves recovery), low s, v 27/28', () => {
    const recovered = (r: { signature: string }, text: string) => {
      const bytes = Buffer.from(r.signature.slice(2), 'hex');
      expect(bytes[64] === 27 || bytes[64] === 28).toBe(true);
      expect(BigInt(`0x${bytes.subarray(32, 64).toString('hex')}`) <= SECP256K1_HALF_N).toBe(true);
      const point = secp256k1.Signature.fromBytes(bytes.subarray(0, 64), 'compact')
        .addRecoveryBit(bytes[64]! - 27)
        .recoverPublicKey(personalMessageHash(text));
      return `0x${Buffer.from(keccak_256(point.toBytes(false).subarray(1)).subarray(12)).toString('hex')}`;
    };
    for (let i = 0; i < 20; i++) {
      const f = { ...fields, id: `receipt-${i}` };
      expect(recovered(signer.sign(f, 'local'), receiptSigningText(f))).toBe(signer.info.address.toLowerCase());
    }
    // the published key is the key of the address
    expect(
      `0x${Buffer.from(secp256k1.Point.fromBytes(Buffer.from(signer.info.public_key.slice(2), 'hex')).toBytes(true)).toString('hex')}`,
    ).toBe(signer.info.public_key);
  });

  it('hedged nonce: the same text signed twice gives two different signatures, both valid', () => {
    const again = signer.sign(fields, 'local');
    expect(again.signature).not.toBe(receipt.signature);
    expect(verifyReceipt(again, signer.info.address)).toMatchObject({ ok: true });
  });

  it.each(RECEIPT_FIELDS)('tampering with %s is detected', (field) => {
    const tampered = { ...receipt, [field]: `${receipt[field]}x` };
    const r = verifyReceipt(tampered, signer.info.public_key);
    expect(r).toMatchObject({ ok: false });
    expect(!r.ok && r.reason).toMatch(/signature recovers 0x[0-9a-fA-F]{40}, but the published receipt signer is/);
  });

  it('refuses another key, a high-s twin, a bad v, missing fields and a bad expected key', () => {
    const other = ReceiptSigner.random();
    expect(verifyReceipt(other.sign(fields, 'local'), signer.info.public_key)).toMatchObject({ ok: false });
    const sig = Buffer.from(receipt.signature.slice(2), 'hex');
    const s = BigInt(`0x${sig.subarray(32, 64).toString('hex')}`);
    sig.set(Buffer.from((SECP256K1_HALF_N * 2n + 1n - s).toString(16).padStart(64, '0'), 'hex'), 32);
    sig[64] = sig[64] === 27 ? 28 : 27;
    expect(verifyReceipt({ ...receipt, signature: `0x${sig.toString('hex')}` }, signer.info.address)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/high s/),
    });
    expect(verifyReceipt({ ...receipt, signature: `${receipt.signature.slice(0, -2)}01` }, signer.info.address)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/v is 1/),
    });
    const { payer: _omit, ...partial } = receipt;
    expect(verifyReceipt(partial, signer.info.address)).toMatchObject({
      ok: false,
      reason: 'receipt field "payer" is missing or not a string',
    });
    expect(verifyReceipt(receipt, 'hello')).toMatchObject({ ok: false, reason: expect.stringMatching(/neither a secp256k1 public key/) });
  });

  it('refuses to sign a field containing the separator', () => {
    expect(() => signer.sign({ ...fields, endpoint: '/a|b' }, 'local')).toThrow(/contains "\|"/);
  });
});

describe('receipt signing key', () => {
  const secretHex = KEY.slice(2);

  it('generates a key once, mode 0600 in a 0700 dir ignored by git, and loads the same one after a restart', () => {
    const keysDir = join(mkdtempSync(join(tmpdir(), 'x402-keys-')), 'keys');
    const first = ReceiptSigner.load({ receiptSigningKey: null, keysDir });
    expect(first.source).toBe('generated');
    expect(statSync(first.path!).mode & 0o777).toBe(0o600);
    expect(statSync(keysDir).mode & 0o777).toBe(0o700);
    expect(readFileSync(join(keysDir, '.gitignore'), 'utf8')).toContain('*');
    const second = ReceiptSigner.load({ receiptSigningKey: null, keysDir });
    expect(second.source).toBe('file');
    expect(second.signer.info).toEqual(first.signer.info);
  });

  it('tightens a key file that others could read', () => {
    const keysDir = mkdtempSync(join(tmpdir(), 'x402-keys-'));
    const path = join(keysDir, 'receipt-signing.key');
    writeFileSync(path, `${secretHex}\n`);
    chmodSync(path, 0o644);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const loaded = ReceiptSigner.load({ receiptSigningKey: null, keysDir });
    expect(loaded.signer.info.address).toBe('0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(warn.mock.calls.flat().join(' ')).not.toContain(secretHex);
    warn.mockRestore();
  });

  it('RECEIPT_SIGNING_KEY wins over the file; the key never shows in settings, logs, JSON or errors', () => {
    const keysDir = mkdtempSync(join(tmpdir(), 'x402-keys-'));
    const settings = loadSettings({ RECEIPT_SIGNING_KEY: KEY, KEYS_DIR: keysDir });
    const loaded = ReceiptSigner.load(settings);
    expect(loaded.source).toBe('setting');
    expect(existsSync(join(keysDir, 'receipt-signing.key'))).toBe(false);
    for (const text of [
      inspect(settings, { depth: 5 }),
      JSON.stringify(settings),
      String(settings.receiptSigningKey),
      inspect(loaded.signer),
      JSON.stringify(loaded.signer),
    ]) {
      expect(text).not.toContain(secretHex);
    }
    const bad = `${secretHex.slice(0, -1)}z`;
    expect(() => loadSettings({ RECEIPT_SIGNING_KEY: bad })).toThrow(/RECEIPT_SIGNING_KEY must be a secp256k1 private key/);
    try {
      loadSettings({ RECEIPT_SIGNING_KEY: bad });
    } catch (err) {
      expect((err as Error).message).not.toContain(bad);
    }
    expect(() => ReceiptSigner.fromPrivateKeyHex('00'.repeat(32))).toThrow(/out of range \(value not shown\)/);
  });
});
