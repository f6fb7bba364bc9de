import { randomBytes } from 'node:crypto';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SPEC_NOW, SPEC_PAYMENT } from './testing/spec-examples.ts';
import { BASE, BASE_SEPOLIA, computeDomainSeparator, type EvmNetwork } from './networks.ts';
import { verifyReceipt as verifyReceiptNatively } from './receipts.ts';
import {
  addressOfPrivateKey,
  addressOfPublicKey,
  loadSecp256k1,
  nobleSecp256k1,
  randomPrivateKey,
  recoverAddress,
  SECP256K1_HALF_N,
  SECP256K1_N,
  secp256k1,
  signDigest,
  type Secp256k1,
} from './secp256k1.ts';
import { degenerateCase } from './testing/paywall.ts';

const native = secp256k1;
const backends: Array<[string, Secp256k1]> = [
  ['libsecp256k1', native],
  ['@noble/curves', nobleSecp256k1],
];
const hex = (b: Uint8Array) => `0x${bytesToHex(b)}`;
const scalarBytes = (v: bigint) => hexToBytes(v.toString(16).padStart(64, '0'));

describe('backend', () => {
  it.runIf(process.platform === 'linux' && process.arch === 'x64')(
    'loads the native libsecp256k1 binding from the linux-x64 prebuild',
    () => {
      expect(secp256k1.backend).toBe('libsecp256k1');
    },
  );

  it('falls back to @noble/curves with one warning line when the binding does not load', () => {
    const warnings: string[] = [];
    const curve = loadSecp256k1(
      () => {
        throw new Error('No native build was found for platform=test\nsecond line');
      },
      (line) => warnings.push(line),
    );
    expect(curve.backend).toBe('@noble/curves');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /native libsecp256k1 binding did not load \(No native build was found for platform=test\); using @noble\/curves/,
    );
    expect(warnings[0]).not.toContain('\n');
  });
});

describe.each(backends)('%s: known vectors', (_name, curve) => {
  it('addresses of the Anvil keys #0 and #1, and of private key 1', () => {
    expect(addressOfPrivateKey(hexToBytes('ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'), curve)).toBe(
      '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    );
    expect(addressOfPrivateKey(hexToBytes('59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'), curve)).toBe(
      '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    );
    expect(addressOfPrivateKey(scalarBytes(1n), curve)).toBe('0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf');
  });

  it('public keys: compressed and uncompressed, converted both ways; a point off the curve throws', () => {
    const key = scalarBytes(1n);
    const G = '0x0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
    expect(hex(curve.publicKey(key, true))).toBe(G);
    const uncompressed = curve.publicKey(key, false);
    expect(hex(uncompressed)).toBe(
      '0x0479be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8',
    );
    expect(hex(curve.convert(uncompressed, true))).toBe(G);
    expect(curve.convert(hexToBytes(G.slice(2)), false)).toEqual(uncompressed);
    expect(addressOfPublicKey(hexToBytes(G.slice(2)), curve)).toBe('0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf');
    const off = hexToBytes(`02${5n.toString(16).padStart(64, '0')}`); // x = 5 is no x coordinate
    expect(() => curve.convert(off, false)).toThrow();
  });

  it('private keys: 1 and n - 1 are keys; 0, n and 2^256 - 1 are not', () => {
    expect(curve.isPrivateKey(scalarBytes(1n))).toBe(true);
    expect(curve.isPrivateKey(scalarBytes(SECP256K1_N - 1n))).toBe(true);
    expect(curve.isPrivateKey(scalarBytes(0n))).toBe(false);
    expect(curve.isPrivateKey(scalarBytes(SECP256K1_N))).toBe(false);
    expect(curve.isPrivateKey(new Uint8Array(32).fill(0xff))).toBe(false);
    expect(curve.isPrivateKey(new Uint8Array(31).fill(1))).toBe(false);
    expect(curve.isPrivateKey(randomPrivateKey(curve))).toBe(true);
  });

  it('the x402 specification\'s payment recovers its payer over the pinned domain, and 0xED07… over the "USD Coin" one', async () => {
    const { authorizationDigest } = await import('./eip3009.ts');
    const sig = hexToBytes(SPEC_PAYMENT.signature.slice(2));
    const digest = authorizationDigest(BASE_SEPOLIA, SPEC_PAYMENT.authorization);
    expect(hex(digest)).toBe('0xf256992871671abcb27ff92885a7afa46218724e5fc0bac35d050115aa1d22e6');
    expect(recoverAddress(digest, sig, curve)).toBe('0x857b06519E91e3A54538791bDbb0E22373e36b66');
    const wrong = computeDomainSeparator({ name: 'USD Coin', version: '2', chainId: 84532, verifyingContract: BASE_SEPOLIA.usdc.address });
    expect(recoverAddress(authorizationDigest(BASE_SEPOLIA, SPEC_PAYMENT.authorization, wrong), sig, curve)).toBe(
      '0xED07B31Fa76779c7A25BA712fB1bFBECefa2ad7e',
    );
  });

  it("RFC 6979 signatures equal the wallets' (Anvil key #0 on Base Sepolia and Base)", async () => {
    const { authorizationDigest } = await import('./eip3009.ts');
    const key = hexToBytes('ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
    const auth = {
      from: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      value: '10000',
      validAfter: '1740000000',
      validBefore: '1740000300',
      nonce: `0x${'01'.repeat(32)}`,
    };
    const sign = (network: EvmNetwork) => hex(signDigest(authorizationDigest(network, auth), key, { deterministic: true }, curve));
    expect(sign(BASE_SEPOLIA)).toBe(
      '0x8b4b5b0522bb74b73e535242f8377baff3750690b35ce42b093f16a354b3c810651454a5b2542a9c3611364e9653b77b728021f03c6042b1a48ef1f0ffbabc241b',
    );
    expect(sign(BASE)).toBe(
      '0x6c820d1bcf58975e09836c7ccfd9ffa1ed1252ab31fca4a644b1e439da9ff01f57977e331afc7c38516865cba2ec4c9dbc7c7eb9b94381693fea589af99d31881b',
    );
  });

  it('a signature whose R is a small multiple of the key (key 1) recovers that key', () => {
    const c = degenerateCase();
    expect(recoverAddress(c.digest, hexToBytes(c.signature.slice(2)), curve)).toBe('0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf');
  });

  it('recovers nothing for r or s zero or not below n, r no x coordinate, v not 27/28, or wrong lengths', () => {
    const digest = randomBytes(32);
    const good = signDigest(digest, randomPrivateKey(curve), {}, curve);
    const withR = (r: bigint) => Uint8Array.from([...scalarBytes(r), ...good.subarray(32)]);
    const withS = (s: bigint) => Uint8Array.from([...good.subarray(0, 32), ...scalarBytes(s), good[64]!]);
    for (const sig of [withR(0n), withR(SECP256K1_N), withR(5n), withS(0n), withS(SECP256K1_N)]) {
      expect(recoverAddress(digest, sig, curve)).toBeNull();
    }
    expect(recoverAddress(digest, Uint8Array.from([...good.subarray(0, 64), 1]), curve)).toBeNull();
    expect(recoverAddress(digest, good.subarray(0, 64), curve)).toBeNull();
    expect(recoverAddress(digest.subarray(0, 31), good, curve)).toBeNull();
    expect(() => signDigest(digest.subarray(0, 31), randomPrivateKey(curve), {}, curve)).toThrow(/32-byte digest/);
  });
});

describe('libsecp256k1 and @noble/curves against each other', () => {
  it("each recovers the other's signatures; RFC 6979 signatures are identical; all low s, v 27/28", () => {
    for (let i = 0; i < 40; i++) {
      const key = randomPrivateKey();
      const digest = randomBytes(32);
      const address = addressOfPrivateKey(key, native);
      expect(addressOfPrivateKey(key, nobleSecp256k1)).toBe(address);
      expect(native.publicKey(key, true)).toEqual(nobleSecp256k1.publicKey(key, true));
      const fromNative = signDigest(digest, key, {}, native);
      const fromNoble = signDigest(digest, key, {}, nobleSecp256k1);
      for (const sig of [fromNative, fromNoble]) {
        expect(BigInt(hex(sig.subarray(32, 64))) <= SECP256K1_HALF_N).toBe(true);
        expect([27, 28]).toContain(sig[64]);
        expect(recoverAddress(digest, sig, native)).toBe(address);
        expect(recoverAddress(digest, sig, nobleSecp256k1)).toBe(address);
      }
      expect(signDigest(digest, key, { deterministic: true }, native)).toEqual(
        signDigest(digest, key, { deterministic: true }, nobleSecp256k1),
      );
      // a tampered signature recovers the same (wrong) key, or nothing, on both
      const tampered = Uint8Array.from(fromNative);
      tampered[7]! ^= 1;
      expect(recoverAddress(digest, tampered, native)).toBe(recoverAddress(digest, tampered, nobleSecp256k1));
      expect(recoverAddress(digest, tampered, native)).not.toBe(address);
    }
  });

  it('hedged signatures differ from one another and from RFC 6979, and all verify', () => {
    for (const [, curve] of backends) {
      const key = randomPrivateKey(curve);
      const digest = randomBytes(32);
      const a = signDigest(digest, key, {}, curve);
      const b = signDigest(digest, key, {}, curve);
      const d = signDigest(digest, key, { deterministic: true }, curve);
      expect(a).not.toEqual(b);
      expect(a).not.toEqual(d);
      for (const sig of [a, b, d]) expect(recoverAddress(digest, sig, curve)).toBe(addressOfPrivateKey(key, curve));
    }
  });
});

describe('the payment code on the fallback (native binding forced missing)', () => {
  afterEach(() => {
    vi.doUnmock('node:module');
    vi.resetModules();
    vi.restoreAllMocks();
  });

  it('warns once, verifies payments and signs receipts that verify, with every check intact', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    vi.resetModules();
    vi.doMock('node:module', async (importOriginal) => {
      const original = await importOriginal<typeof import('node:module')>();
      return {
        ...original,
        createRequire: (from: string | URL) => {
          const require = original.createRequire(from);
          return Object.assign((id: string) => {
            if (id === 'secp256k1/bindings') throw new Error('No native build was found (forced by the test)');
            return require(id);
          }, require);
        },
      };
    });
    const fallback = await import('./secp256k1.ts');
    const eip3009 = await import('./eip3009.ts');
    const receipts = await import('./receipts.ts');
    expect(fallback.secp256k1.backend).toBe('@noble/curves');
    expect(warn.mock.calls.map((c) => String(c[0])).filter((l) => l.includes('libsecp256k1'))).toHaveLength(1);

    const requirement = { network: BASE_SEPOLIA, payTo: SPEC_PAYMENT.authorization.to, amount: '10000' };
    expect(eip3009.verifyExactEvm(SPEC_PAYMENT, requirement, { now: SPEC_NOW })).toMatchObject({
      ok: true,
      payer: SPEC_PAYMENT.authorization.from,
    });
    const sig = SPEC_PAYMENT.signature;
    const s = BigInt(`0x${sig.slice(66, 130)}`);
    const highS = `${sig.slice(0, 66)}${(SECP256K1_N - s).toString(16).padStart(64, '0')}${sig.endsWith('1b') ? '1c' : '1b'}`;
    expect(eip3009.verifyExactEvm({ ...SPEC_PAYMENT, signature: highS }, requirement, { now: SPEC_NOW })).toMatchObject({
      reason: 'invalid_signature',
      message: expect.stringMatching(/high-s/),
    });
    expect(eip3009.verifyExactEvm({ ...SPEC_PAYMENT, signature: `${sig.slice(0, -2)}01` }, requirement, { now: SPEC_NOW })).toMatchObject({
      reason: 'invalid_signature',
    });
    expect(eip3009.verifyExactEvm(SPEC_PAYMENT, { ...requirement, amount: '10001' }, { now: SPEC_NOW })).toMatchObject({
      reason: 'amount_mismatch',
    });

    const fields = {
      id: 'r1',
      endpoint: '/api/v1/fx-rate',
      amount: '0.001',
      currency: 'USDC',
      network: 'base',
      tx_hash: 'local:0x01',
      payer: SPEC_PAYMENT.authorization.from,
      merchant: SPEC_PAYMENT.authorization.to,
      issued_at: '2026-01-01T00:00:00.000Z',
    };
    const onFallback = receipts.ReceiptSigner.random();
    const receipt = onFallback.sign(fields, 'local');
    expect(receipts.verifyReceipt(receipt, onFallback.info.public_key)).toEqual({ ok: true, address: onFallback.info.address });
    // and the native code verifies what the fallback signed
    expect(verifyReceiptNatively(receipt, onFallback.info.address)).toMatchObject({ ok: true });
    expect(
      recoverAddress(receipts.personalMessageHash(receipts.receiptSigningText(fields)), hexToBytes(receipt.signature.slice(2)), native),
    ).toBe(onFallback.info.address);
  });
});
