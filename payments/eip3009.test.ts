import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { privateKeyToAccount } from 'viem/accounts';
import { recoverTypedDataAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import {
  addressOfPrivateKey,
  addressOfPublicKey,
  authorizationDigest,
  authorizationStructHash,
  checkAuthorizationSigner,
  checkSigner,
  SECP256K1_HALF_N,
  signAuthorization,
  verifyExactEvm,
  type EvmAuthorization,
} from './eip3009.ts';
import { SPEC_NOW, SPEC_PAYMENT, SPEC_SIGNATURE_HIGH_S } from './testing/spec-examples.ts';
import { BASE, BASE_SEPOLIA, computeDomainSeparator, domainSeparator, POLYGON, type EvmNetwork } from './networks.ts';
import { degenerateCase, MERCHANT, PAYER, PAYER_KEY, PAYER_KEY_HEX } from './testing/paywall.ts';

const hex = (b: Uint8Array) => `0x${bytesToHex(b)}`;

describe('EIP-3009 digest and recovery: known vectors', () => {
  it('vector A (the spec example) is a valid payment by 0x857b… on Base Sepolia', () => {
    expect(hex(authorizationStructHash(SPEC_PAYMENT.authorization))).toBe(
      '0x49ad644555c7bdf3ea4fc022a4940ae5589b230b1dde0065c5504fa19bbe39a4',
    );
    expect(hex(authorizationDigest(BASE_SEPOLIA, SPEC_PAYMENT.authorization))).toBe(
      '0xf256992871671abcb27ff92885a7afa46218724e5fc0bac35d050115aa1d22e6',
    );
    const r = verifyExactEvm(
      SPEC_PAYMENT,
      { network: BASE_SEPOLIA, payTo: SPEC_PAYMENT.authorization.to, amount: '10000' },
      { now: SPEC_NOW },
    );
    expect(r).toMatchObject({ ok: true, payer: '0x857b06519E91e3A54538791bDbb0E22373e36b66', signatureKind: 'eoa' });
  });

  it('vector A1: the "USD Coin" domain on Base Sepolia recovers 0xED07…, not the payer', () => {
    const wrong = computeDomainSeparator({ name: 'USD Coin', version: '2', chainId: 84532, verifyingContract: BASE_SEPOLIA.usdc.address });
    const wrongNet: EvmNetwork = {
      ...BASE_SEPOLIA,
      caip2: 'test:wrong-domain',
      usdc: { ...BASE_SEPOLIA.usdc, eip712: { name: 'USD Coin', version: '2' } },
    };
    expect(hex(authorizationDigest(wrongNet, SPEC_PAYMENT.authorization, wrong))).not.toBe(
      '0xf256992871671abcb27ff92885a7afa46218724e5fc0bac35d050115aa1d22e6',
    );
    const r = verifyExactEvm(SPEC_PAYMENT, { network: wrongNet, payTo: SPEC_PAYMENT.authorization.to, amount: '10000' }, { now: SPEC_NOW });
    expect(r).toMatchObject({ ok: false, reason: 'invalid_signature' });
    expect(!r.ok && r.message).toContain(
      'signature recovers 0xED07B31Fa76779c7A25BA712fB1bFBECefa2ad7e, authorization.from is 0x857b06519E91e3A54538791bDbb0E22373e36b66',
    );
  });

  it('vector A2: the high-s twin is refused although ecrecover would return the payer', () => {
    const r = verifyExactEvm(
      { ...SPEC_PAYMENT, signature: SPEC_SIGNATURE_HIGH_S },
      { network: BASE_SEPOLIA, payTo: SPEC_PAYMENT.authorization.to, amount: '10000' },
      { now: SPEC_NOW },
    );
    expect(r).toMatchObject({ ok: false, reason: 'invalid_signature' });
    expect(!r.ok && r.message).toMatch(/high-s/);
  });

  it('vector B: our signer reproduces the Anvil-key signatures on Base Sepolia and Base', () => {
    const auth: EvmAuthorization = {
      from: PAYER,
      to: MERCHANT,
      value: '10000',
      validAfter: '1740000000',
      validBefore: '1740000300',
      nonce: `0x${'01'.repeat(32)}`,
    };
    expect(hex(authorizationStructHash(auth))).toBe('0x22e3a1ed5b4a869f9106ad6038f75d4a787a6c193130b0438fcfed65b2955e8f');
    expect(signAuthorization(BASE_SEPOLIA, auth, PAYER_KEY)).toBe(
      '0x8b4b5b0522bb74b73e535242f8377baff3750690b35ce42b093f16a354b3c810651454a5b2542a9c3611364e9653b77b728021f03c6042b1a48ef1f0ffbabc241b',
    );
    expect(signAuthorization(BASE, auth, PAYER_KEY)).toBe(
      '0x6c820d1bcf58975e09836c7ccfd9ffa1ed1252ab31fca4a644b1e439da9ff01f57977e331afc7c38516865cba2ec4c9dbc7c7eb9b94381693fea589af99d31881b',
    );
  });

  it.each([BASE, POLYGON, BASE_SEPOLIA])('agrees with viem signTypedData / recoverTypedDataAddress on $name', async (network) => {
    const account = privateKeyToAccount(`0x${PAYER_KEY_HEX}`);
    const auth: EvmAuthorization = {
      from: PAYER,
      to: MERCHANT,
      value: '1000',
      validAfter: '0',
      validBefore: '1900000000',
      nonce: `0x${'ab'.repeat(32)}`,
    };
    const typed = {
      domain: {
        name: network.usdc.eip712.name,
        version: network.usdc.eip712.version,
        chainId: network.chainId,
        verifyingContract: network.usdc.address as `0x${string}`,
      },
      types: {
        TransferWithAuthorization: [
          { name: 'from', type: 'address' },
          { name: 'to', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'validAfter', type: 'uint256' },
          { name: 'validBefore', type: 'uint256' },
          { name: 'nonce', type: 'bytes32' },
        ],
      },
      primaryType: 'TransferWithAuthorization' as const,
      message: {
        from: auth.from as `0x${string}`,
        to: auth.to as `0x${string}`,
        value: 1000n,
        validAfter: 0n,
        validBefore: 1900000000n,
        nonce: auth.nonce as `0x${string}`,
      },
    };
    const viemSig = await account.signTypedData(typed);
    expect(signAuthorization(network, auth, PAYER_KEY)).toBe(viemSig);
    expect(await recoverTypedDataAddress({ ...typed, signature: viemSig })).toBe(PAYER);
  });
});

describe.each([{ network: BASE }, { network: POLYGON }])(
  'verifyExactEvm on $network.name: every rejection is named and explained',
  ({ network }) => {
    const now = 1_800_000_000;
    const base: EvmAuthorization = {
      from: PAYER,
      to: MERCHANT,
      value: '1000',
      validAfter: String(now - 600),
      validBefore: String(now + 300),
      nonce: `0x${'42'.repeat(32)}`,
    };
    const requirement = { network, payTo: MERCHANT, amount: '1000' };
    const signed = (a: Partial<EvmAuthorization> = {}, signOn: EvmNetwork = network) => {
      const authorization = { ...base, ...a };
      return { authorization, signature: signAuthorization(signOn, authorization, PAYER_KEY) };
    };
    const check = (payload: unknown, opts: { now?: number; allowSmartWallet?: boolean } = {}) =>
      verifyExactEvm(payload, requirement, { now: opts.now ?? now, ...(opts.allowSmartWallet ? { allowSmartWallet: true } : {}) });

    it('accepts a good payment (payTo compared case-insensitively)', () => {
      expect(check(signed())).toMatchObject({ ok: true, payer: PAYER, validBefore: now + 300 });
      expect(check(signed({ to: MERCHANT.toLowerCase() }))).toMatchObject({ ok: true });
    });

    it('high-s: refused', () => {
      const good = signed();
      const bytes = Buffer.from(good.signature.slice(2), 'hex');
      const n = SECP256K1_HALF_N * 2n + 1n;
      const s = BigInt(`0x${bytes.subarray(32, 64).toString('hex')}`);
      bytes.set(Buffer.from((n - s).toString(16).padStart(64, '0'), 'hex'), 32);
      bytes[64] = bytes[64] === 27 ? 28 : 27;
      const r = check({ ...good, signature: `0x${bytes.toString('hex')}` });
      expect(r).toMatchObject({ ok: false, reason: 'invalid_signature' });
      expect(!r.ok && r.message).toMatch(/upper half of the curve order/);
    });

    it('r or s zero or not below the curve order: refused before recovery', () => {
      const good = signed();
      const n = (SECP256K1_HALF_N * 2n + 1n).toString(16);
      for (const signature of [
        `0x${'00'.repeat(32)}${good.signature.slice(66)}`,
        `0x${n}${good.signature.slice(66)}`,
        `${good.signature.slice(0, 66)}${'00'.repeat(32)}${good.signature.slice(-2)}`,
      ]) {
        const r = check({ ...good, signature });
        expect(r).toMatchObject({ ok: false, reason: 'invalid_signature' });
        expect(!r.ok && r.message).toContain('signature r or s is zero or not below the curve order');
      }
    });

    it.each([0, 1, 29, 35])('v = %i: refused', (v) => {
      const good = signed();
      const r = check({ ...good, signature: good.signature.slice(0, -2) + v.toString(16).padStart(2, '0') });
      expect(r).toMatchObject({ ok: false, reason: 'invalid_signature' });
      expect(!r.ok && r.message).toContain(`signature v is ${v}; it must be 27 or 28`);
    });

    it('flipped v (27↔28): recovers someone else', () => {
      const good = signed();
      const last = good.signature.slice(-2) === '1b' ? '1c' : '1b';
      const r = check({ ...good, signature: good.signature.slice(0, -2) + last });
      expect(r).toMatchObject({ ok: false, reason: 'invalid_signature' });
      expect(!r.ok && r.message).toMatch(/^signature recovers 0x[0-9a-fA-F]{40}, authorization.from is/);
    });

    it('wrong domain (name "USDC"): refused as invalid_signature, naming the domain expected', () => {
      const fake: EvmNetwork = {
        ...network,
        caip2: `${network.caip2}-wrong`,
        usdc: { ...network.usdc, eip712: { name: 'USDC', version: '2' } },
      };
      const r = check(signed({}, fake));
      expect(r).toMatchObject({ ok: false, reason: 'invalid_signature' });
      expect(!r.ok && r.message).toContain(`name: "USD Coin", version: "2", chainId: ${network.chainId}`);
    });

    it('wrong chain (signed for the other network): refused', () => {
      const other = network === BASE ? POLYGON : BASE;
      expect(check(signed({}, other))).toMatchObject({ ok: false, reason: 'invalid_signature' });
    });

    it('underpayment and overpayment: amount_mismatch', () => {
      const under = check(signed({ value: '999' }));
      expect(under).toMatchObject({ ok: false, reason: 'amount_mismatch', payer: PAYER });
      expect(!under.ok && under.message).toContain('authorization.value is 999 atomic USDC, less than the price of 1000');
      expect(check(signed({ value: '1001' }))).toMatchObject({ ok: false, reason: 'amount_mismatch' });
    });

    it('wrong payTo: recipient_mismatch', () => {
      const r = check(signed({ to: PAYER }));
      expect(r).toMatchObject({ ok: false, reason: 'recipient_mismatch' });
      expect(!r.ok && r.message).toContain(`authorization.to is ${PAYER}, but this endpoint is paid to ${MERCHANT}`);
    });

    it('expired, expiring within the settlement buffer, not yet valid, too long', () => {
      expect(check(signed({ validBefore: String(now - 1) }))).toMatchObject({ ok: false, reason: 'expired' });
      expect(check(signed({ validBefore: String(now + 5) }))).toMatchObject({ ok: false, reason: 'expired' });
      expect(check(signed({ validBefore: String(now + 6) }))).toMatchObject({ ok: true });
      expect(check(signed({ validAfter: String(now + 60) }))).toMatchObject({ ok: false, reason: 'not_yet_valid' });
      expect(check(signed({ validAfter: String(now + 3) }))).toMatchObject({ ok: true }); // within the clock skew
      expect(check(signed({ validAfter: '0' }))).toMatchObject({ ok: true }); // what @x402/evm 2.27 sends
      expect(check(signed({ validBefore: String(now + 2 * 86_400) }))).toMatchObject({ ok: false, reason: 'validity_too_long' });
    });

    it('a field changed after signing: invalid_signature', () => {
      const good = signed();
      const tampered = { ...good, authorization: { ...good.authorization, nonce: `0x${'43'.repeat(32)}` } };
      expect(check(tampered)).toMatchObject({ ok: false, reason: 'invalid_signature' });
    });

    it.each([
      [null, /payload must be an object/],
      [{ signature: '0x12' }, /payload.authorization must be an object/],
      [{ signature: 'zz', authorization: base }, /payload.signature must be 0x-prefixed hex/],
      [{ signature: '0x00', authorization: { ...base, from: '0x1234' } }, /authorization.from must be an address/],
      [{ signature: '0x00', authorization: { ...base, value: 1000 } }, /authorization.value must be a decimal integer string/],
      [{ signature: '0x00', authorization: { ...base, value: '1e3' } }, /authorization.value must be a decimal/],
      [{ signature: '0x00', authorization: { ...base, nonce: '0x01' } }, /authorization.nonce must be 32 bytes/],
      [{ signature: '0x00', permit2Authorization: {} }, /Permit2/],
    ])('malformed payload %j: malformed_payload', (payload, message) => {
      const r = check(payload);
      expect(r).toMatchObject({ ok: false, reason: 'malformed_payload' });
      expect(!r.ok && r.message).toMatch(message);
    });

    it('smart-wallet signatures: refused in local mode, passed to the facilitator otherwise', () => {
      const long = { ...signed(), signature: `0x${'11'.repeat(200)}` };
      expect(check(long)).toMatchObject({ ok: false, reason: 'unsupported_signature' });
      expect(check(long, { allowSmartWallet: true })).toMatchObject({ ok: true, signatureKind: 'smart_wallet' });
      expect(check({ ...signed(), signature: `0x${'11'.repeat(64)}` })).toMatchObject({ ok: false, reason: 'invalid_signature' });
    });
  },
);

describe('checkSigner: libsecp256k1 recovery gives the verdicts of @noble/curves recovery', () => {
  /** The address @noble/curves recovers for (digest, r‖s‖v), or null: the recovery this module used before libsecp256k1. */
  const nobleRecovers = (digest: Uint8Array, sig: string): string | null => {
    const b = Buffer.from(sig.slice(2), 'hex');
    try {
      const point = secp256k1.Signature.fromBytes(b.subarray(0, 64), 'compact')
        .addRecoveryBit(b[64]! - 27)
        .recoverPublicKey(digest);
      return addressOfPublicKey(point.toBytes(false));
    } catch {
      return null;
    }
  };

  it("random keys, messages and tampering (r, s, v, digest, someone else's address)", () => {
    let accepted = 0;
    for (let i = 0; i < 30; i++) {
      const key = secp256k1.utils.randomSecretKey();
      const address = addressOfPrivateKey(key);
      const digest = randomBytes(32);
      const good = signDigest(digest, key);
      const other = addressOfPrivateKey(secp256k1.utils.randomSecretKey());
      const cases: Array<[Uint8Array, string, string]> = [
        [digest, good, address],
        [digest, flipV(good), address],
        [digest, flipByte(good, 5), address],
        [digest, flipByte(good, 40), address],
        [randomBytes(32), good, address],
        [digest, good, other],
      ];
      for (const [d, sig, expected] of cases) {
        const verdict = checkSigner(d, sig, expected);
        const recovered = nobleRecovers(d, sig);
        if (recovered !== null && recovered === expected) {
          expect(verdict).toEqual({ ok: true });
          accepted++;
        } else if ('reason' in verdict) {
          expect(verdict.message).toMatch(/upper half of the curve order/); // a flipped s byte may land high
        } else {
          expect(verdict).toEqual({ ok: false, recovered });
        }
      }
    }
    expect(accepted).toBe(30); // the untampered signature of each key, and nothing else
  });

  it('a valid signature whose R is a small multiple of the key (the key is G) passes', () => {
    const c = degenerateCase();
    const address = addressOfPublicKey(secp256k1.Point.BASE.toBytes(false));
    expect(address).toBe('0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf'); // the address of private key 1
    expect(checkSigner(c.digest, c.signature, address)).toEqual({ ok: true });
  });

  it('an r that is no x coordinate of the curve recovers nothing', () => {
    // x = 5 has no point on secp256k1 (5^3 + 7 = 132 is not a square mod p)
    const sig = `0x${5n.toString(16).padStart(64, '0')}${7n.toString(16).padStart(64, '0')}1b`;
    expect(nobleRecovers(new Uint8Array(32).fill(1), sig)).toBeNull();
    expect(checkSigner(new Uint8Array(32).fill(1), sig, PAYER)).toEqual({ ok: false, recovered: null });
  });

  it('checkAuthorizationSigner checks authorization.from over the given domain', () => {
    const a: EvmAuthorization = {
      from: PAYER,
      to: MERCHANT,
      value: '1000',
      validAfter: '0',
      validBefore: '1900000000',
      nonce: `0x${'cd'.repeat(32)}`,
    };
    const signature = signAuthorization(BASE, a, PAYER_KEY);
    expect(checkAuthorizationSigner(domainSeparator(BASE), a, signature)).toEqual({ ok: true });
    expect(checkAuthorizationSigner(domainSeparator(POLYGON), a, signature)).toMatchObject({
      ok: false,
      recovered: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
    });
  });
});

function signDigest(digest: Uint8Array, key: Uint8Array): string {
  const sig = secp256k1.sign(digest, key, { prehash: false, format: 'recovered' });
  return `0x${bytesToHex(sig.subarray(1))}${(27 + sig[0]!).toString(16)}`;
}
function flipV(sig: string): string {
  return sig.slice(0, -2) + (sig.endsWith('1b') ? '1c' : '1b');
}
function flipByte(sig: string, index: number): string {
  const b = Buffer.from(sig.slice(2), 'hex');
  b[index] = b[index]! ^ 0x01;
  return `0x${b.toString('hex')}`;
}
