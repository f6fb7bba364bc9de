import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { describe, expect, it } from 'vitest';
import { degenerateCase } from './testing.ts';
import { baseMultiplySecret, buildTable, ecdsaCheck, ecdsaCheckAll, ecdsaSignAll, generatorTable, N, P, type EcdsaCheckInput } from './secp256k1-tables.ts';

const G = secp256k1.Point.BASE;
const big = (b: Uint8Array) => BigInt(`0x${Buffer.from(b).toString('hex')}`);
const randomScalar = () => (big(randomBytes(40)) % (N - 1n)) + 1n;

function keyPair() {
  const secret = secp256k1.utils.randomSecretKey();
  const point = secp256k1.Point.fromBytes(secp256k1.getPublicKey(secret, false));
  return { secret, point, affine: point.toAffine() };
}

/** noble's signature of a digest as (r, s, recovery). */
function nobleSign(digest: Uint8Array, secret: Uint8Array) {
  const sig = secp256k1.sign(digest, secret, { prehash: false, format: 'recovered' });
  return { r: big(sig.subarray(1, 33)), s: big(sig.subarray(33, 65)), recovery: sig[0]! };
}

/** What the recovery path decides: (r, s, v) over z recovers exactly `point`. */
function recovers(z: Uint8Array, r: bigint, s: bigint, recovery: number, point: ReturnType<typeof secp256k1.Point.fromBytes>): boolean {
  try {
    const sig = new secp256k1.Signature(r, s).addRecoveryBit(recovery);
    return sig.recoverPublicKey(z).equals(point);
  } catch {
    return false;
  }
}

describe('fixed-base tables', () => {
  it('every table entry is j·2^(wW)·Q, for several windows', () => {
    const { point, affine } = keyPair();
    for (const W of [2, 4, 5, 8]) {
      const t = buildTable(affine.x, affine.y, W);
      const half = 2 ** (W - 1);
      expect(t.windows).toBe(Math.ceil(256 / W) + 1);
      expect(t.xs).toHaveLength(t.windows * half);
      for (const [w, j] of [
        [0, 1],
        [0, half],
        [1, 2],
        [t.windows - 1, half],
        [Math.floor(t.windows / 2), Math.max(1, half - 1)],
      ] as const) {
        const expected = point.multiply((BigInt(j) << BigInt(w * W)) % N).toAffine();
        expect({ x: t.xs[w * half + j - 1], y: t.ys[w * half + j - 1] }).toEqual(expected);
      }
    }
  });

  it('k·G with blinding and decoys equals noble, edge scalars included', () => {
    for (const k of [1n, 2n, N - 1n, N >> 1n, ...Array.from({ length: 20 }, randomScalar)]) {
      expect(baseMultiplySecret(k)).toEqual(G.multiply(k).toAffine());
    }
    expect(generatorTable().windows).toBe(Math.ceil(384 / generatorTable().W) + 1);
  });
});

describe('ECDSA check against a known key', () => {
  it('accepts exactly what recovery accepts: random keys and digests, tampered r, s, v, digest and key', () => {
    const keys = Array.from({ length: 6 }, keyPair);
    const tables = keys.map((k) => buildTable(k.affine.x, k.affine.y, 4));
    const cases: Array<EcdsaCheckInput & { digest: Uint8Array; point: (typeof keys)[number]['point'] }> = [];
    for (let i = 0; i < 60; i++) {
      const signer = i % keys.length;
      const digest = randomBytes(32);
      const { r, s, recovery } = nobleSign(digest, keys[signer]!.secret);
      const z = big(digest);
      const base = { digest, z, r, s, recovery, key: tables[signer]!, point: keys[signer]!.point };
      const other = (signer + 1) % keys.length;
      const otherDigest = randomBytes(32);
      cases.push(
        base,
        { ...base, recovery: 1 - recovery },
        { ...base, r: (r % (N - 1n)) + 1n },
        { ...base, s: (s % (N - 1n)) + 1n },
        { ...base, s: N - s },
        { ...base, digest: otherDigest, z: big(otherDigest) },
        { ...base, key: tables[other]!, point: keys[other]!.point },
      );
    }
    // one batch, in a shuffled order, then one by one: same verdicts as recovery
    const order = cases.map((_, i) => i).sort(() => Math.random() - 0.5);
    const batch = ecdsaCheckAll(order.map((i) => cases[i]!));
    order.forEach((i, j) => {
      const c = cases[i]!;
      const expected = recovers(c.digest, c.r, c.s, c.recovery, c.point);
      expect(batch[j], `case ${i}`).toBe(expected);
      expect(ecdsaCheck(c.z, c.r, c.s, c.recovery, c.key)).toBe(expected);
    });
    expect(batch.filter(Boolean)).toHaveLength(cases.length / 7); // only the untampered signature of each group
  });

  it('degenerate arithmetic (the accumulator meets the added point) answers false, for the caller to recover', () => {
    const c = degenerateCase();
    const table = buildTable(G.x, G.y, 4);
    expect(ecdsaCheck(c.z, c.r, c.s, c.recovery, table)).toBe(false);
    expect(recovers(c.digest, c.r, c.s, c.recovery, G)).toBe(true); // yet the signature is valid for Q = G
  });

  it('a digest of zero mod n and a key of small order multiples are handled (no throw, recovery decides)', () => {
    const { point, affine } = keyPair();
    const table = buildTable(affine.x, affine.y, 4);
    expect(ecdsaCheck(N, 1n, 1n, 0, table)).toBe(recovers(new Uint8Array(32), 1n, 1n, 0, point));
    expect(ecdsaCheck(0n, 5n, 7n, 1, table)).toBe(false);
  });
});

describe('ECDSA signing', () => {
  it('signatures verify with noble, are low-s, and v recovers the signer; batches too', () => {
    const { secret, point } = keyPair();
    const d = big(secret);
    const digests = Array.from({ length: 25 }, () => randomBytes(32));
    const sigs = [...ecdsaSignAll(digests.slice(0, 9), d, secret), ...digests.slice(9).map((z) => ecdsaSignAll([z], d, secret)[0]!)];
    sigs.forEach(({ r, s, recovery }, i) => {
      expect(s <= N >> 1n).toBe(true);
      expect(r > 0n && r < N && s > 0n).toBe(true);
      const compact = new secp256k1.Signature(r, s).toBytes('compact');
      expect(secp256k1.verify(compact, digests[i]!, point.toBytes(true), { prehash: false })).toBe(true);
      expect(recovers(digests[i]!, r, s, recovery, point)).toBe(true);
    });
    // a fresh nonce every time: the same digest signed twice gives two different signatures
    const [a, b] = ecdsaSignAll([digests[0]!, digests[0]!], d, secret);
    expect(a!.r).not.toBe(b!.r);
    expect(P > N).toBe(true);
  });
});

