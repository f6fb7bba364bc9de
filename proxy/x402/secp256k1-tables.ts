/**
 * Fixed-base secp256k1 arithmetic for the paid path: precomputed affine multiples of a point
 * ("tables"), so that a multiplication by a 256-bit scalar is ~30 point additions and no doublings.
 *
 * Used for the two hot operations of a paid request:
 * - checking an EIP-3009 signature against a payer key seen before (eip3009.ts: R = u1·G + u2·Q with
 *   a table for G and one for the payer's Q);
 * - signing a receipt (receipts.ts: k·G with the G table, the scalar blinded as @noble/curves does).
 *
 * @noble/curves does the same with its `precompute()` tables, but through its generic projective
 * formulas (complete addition, 12M+2M·b3 per add) and a generic `%` reduction. Here the tables are
 * affine, additions are mixed Jacobian + affine (8M + 3S), and reductions use p = 2^256 − 2^32 − 977
 * (two folds and a conditional correction): about 2.5x faster per point operation, same results.
 * Every result that matters is an affine point compared with or returned as exact integers; the
 * tests check it against @noble/curves on random inputs.
 *
 * Degenerate additions (the accumulator equal to ± the added point) cannot be told apart cheaply in
 * mixed coordinates; they drive Z to 0, which then stays 0, and every caller treats a final Z = 0
 * as "no answer" (the verifier falls back to public-key recovery; the signer draws a new nonce). So a
 * degenerate case can cost time, never a wrong answer.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';

const CURVE = secp256k1.Point.CURVE();
export const P = CURVE.p;
export const N = CURVE.n;
const Fp = secp256k1.Point.Fp;
const Fn = secp256k1.Point.Fn;
const M256 = (1n << 256n) - 1n;
/** 2^256 mod p. */
const FOLD = (1n << 32n) + 977n;

/**
 * a mod p for |a| < 2^100·p² (products of loosely reduced values): two folds of the high half
 * (2^256 ≡ 2^32 + 977), then at most one correction.
 */
function red(a: bigint): bigint {
  let t = (a & M256) + (a >> 256n) * FOLD;
  t = (t & M256) + (t >> 256n) * FOLD;
  if (t >= P) return t - P;
  if (t < 0n) return t + P;
  return t;
}

/** A precomputed table: for window w and digit j in 1..2^(W-1), the affine point j·2^(wW)·Q at index w·2^(W-1) + j − 1. */
export interface PointTable {
  readonly W: number;
  readonly windows: number;
  readonly xs: bigint[];
  readonly ys: bigint[];
  /** The point itself (affine). */
  readonly x: bigint;
  readonly y: bigint;
}

/** Jacobian point (x = X/Z², y = Y/Z³); coordinates loosely reduced (|v| < 16p), Z = 0 only after a degenerate addition. */
interface Jac {
  X: bigint;
  Y: bigint;
  Z: bigint;
}

/** acc += (x2, y2) in place (madd-2004-hmv, 8M + 3S). acc must not be the point at infinity. */
function madd(acc: Jac, x2: bigint, y2: bigint): void {
  const { X: X1, Y: Y1, Z: Z1 } = acc;
  const zz = red(Z1 * Z1);
  const zzz = red(zz * Z1);
  const h = red(zz * x2) - X1;
  const r = red(zzz * y2) - Y1;
  const hh = red(h * h);
  const hhh = red(hh * h);
  const v = red(hh * X1);
  const X3 = red(r * r) - hhh - 2n * v;
  acc.Y = red(r * (v - X3)) - red(Y1 * hhh);
  acc.X = X3;
  acc.Z = red(Z1 * h);
}

/** 2·acc (dbl-2009-l, a = 0). */
function double(p: Jac): Jac {
  const a = red(p.X * p.X);
  const b = red(p.Y * p.Y);
  const c = red(b * b);
  const t = p.X + b;
  const d = 2n * (red(t * t) - a - c);
  const e = 3n * a;
  const f = red(e * e);
  const X3 = f - 2n * d;
  return { X: X3, Y: red(e * (d - X3)) - 8n * c, Z: red(2n * p.Y * p.Z) };
}

/** Affine form of Jacobian points, one field inversion for all (Montgomery's trick). Z must be non-zero. */
function normalizeAll(points: readonly Jac[], xs: bigint[], ys: bigint[], offset = 0): void {
  const n = points.length;
  if (n === 0) return;
  const prefix: bigint[] = new Array(n);
  let acc = 1n;
  for (let i = 0; i < n; i++) {
    acc = red(acc * points[i]!.Z);
    prefix[i] = acc;
  }
  let inv = Fp.inv(acc);
  for (let i = n - 1; i >= 0; i--) {
    const zi = i > 0 ? red(inv * prefix[i - 1]!) : inv;
    inv = red(inv * points[i]!.Z);
    const zi2 = red(zi * zi);
    xs[offset + i] = red(points[i]!.X * zi2);
    ys[offset + i] = red(points[i]!.Y * red(zi2 * zi));
  }
}

/** The table of the affine point (x, y) covering scalars below 2^bits with window W. */
export function buildTable(x: bigint, y: bigint, W: number, bits = 256): PointTable {
  if (!Number.isInteger(W) || W < 2 || W > 16) throw new Error(`table window ${W} out of range 2..16`);
  const windows = Math.ceil(bits / W) + 1;
  const half = 1 << (W - 1);
  // the window bases 2^(wW)·Q by doubling, made affine together
  const bases: Jac[] = [{ X: x, Y: y, Z: 1n }];
  let p: Jac = bases[0]!;
  for (let w = 1; w < windows; w++) {
    for (let i = 0; i < W; i++) p = double(p);
    bases.push(p);
  }
  const bx: bigint[] = new Array(windows);
  const by: bigint[] = new Array(windows);
  normalizeAll(bases, bx, by);
  // j·base for j = 1..half in each window: j = 1 is the base, j = 2 its double, then additions
  const all: Jac[] = new Array(windows * half);
  for (let w = 0; w < windows; w++) {
    const base: Jac = { X: bx[w]!, Y: by[w]!, Z: 1n };
    all[w * half] = base;
    if (half < 2) continue;
    let acc = double(base);
    all[w * half + 1] = acc;
    for (let j = 3; j <= half; j++) {
      acc = { ...acc };
      madd(acc, bx[w]!, by[w]!);
      all[w * half + j - 1] = acc;
    }
  }
  const xs: bigint[] = new Array(windows * half);
  const ys: bigint[] = new Array(windows * half);
  normalizeAll(all, xs, ys);
  return { W, windows, xs, ys, x, y };
}

/** Signed W-bit digits of k (little-endian windows), each in [−2^(W−1)+1, 2^(W−1)]; `windows` must cover k plus the final carry. */
function signedDigits(k: bigint, W: number, windows: number): Int32Array {
  const out = new Int32Array(windows);
  const mask = BigInt((1 << W) - 1);
  const full = 1 << W;
  const half = full >> 1;
  const shift = BigInt(W);
  let carry = 0;
  for (let w = 0; w < windows; w++) {
    if (k === 0n && carry === 0) break; // the remaining digits are 0
    let d = Number(k & mask) + carry;
    k >>= shift;
    if (d > half) {
      d -= full;
      carry = 1;
    } else {
      carry = 0;
    }
    out[w] = d;
  }
  if (k !== 0n || carry !== 0) throw new Error('scalar does not fit the table');
  return out;
}

/**
 * Adds k·Q to the accumulator (variable time: public scalars only). Returns the accumulator, or
 * null while it is still the point at infinity.
 */
function accumulate(acc: Jac | null, table: PointTable, k: bigint): Jac | null {
  if (k === 0n) return acc;
  const { W, windows, xs, ys } = table;
  const half = 1 << (W - 1);
  const digits = signedDigits(k, W, windows);
  for (let w = 0; w < windows; w++) {
    const d = digits[w]!;
    if (d === 0) continue;
    const i = w * half + (d < 0 ? -d : d) - 1;
    const x = xs[i]!;
    const y = d < 0 ? P - ys[i]! : ys[i]!;
    if (acc === null) acc = { X: x, Y: y, Z: 1n };
    else madd(acc, x, y);
  }
  return acc;
}

// ------------------------------------------------------------------ the generator table

/** Window of the generator table: 2^9 points per window, 40 windows (blinded 384-bit scalars), about 2.3 MB. */
export const G_WINDOW = 10;
/** Bits covered by the G table: 256-bit scalars plus the 128-bit blind of the signer. */
const G_BITS = 256 + 128;
let gTable: PointTable | null = null;

/** The generator's table, built on first use (about 0.15 s). */
export function generatorTable(): PointTable {
  gTable ??= buildTable(CURVE.Gx, CURVE.Gy, G_WINDOW, G_BITS);
  return gTable;
}

// ------------------------------------------------------------------ batch inversion

/** Inverses of non-zero values (mod p or mod n) with one modular inversion for all (Montgomery's trick). */
function invertAll(values: readonly bigint[], modulus: 'p' | 'n'): bigint[] {
  const n = values.length;
  const out: bigint[] = new Array(n);
  if (n === 0) return out;
  const mul = modulus === 'p' ? (a: bigint, b: bigint) => red(a * b) : (a: bigint, b: bigint) => (a * b) % N;
  const prefix: bigint[] = new Array(n);
  let acc = 1n;
  for (let i = 0; i < n; i++) {
    acc = mul(acc, values[i]!);
    prefix[i] = acc;
  }
  let inv = modulus === 'p' ? Fp.inv(acc) : Fn.inv(acc);
  for (let i = n - 1; i > 0; i--) {
    out[i] = mul(inv, prefix[i - 1]!);
    inv = mul(inv, values[i]!);
  }
  out[0] = inv;
  return out;
}

/** Affine forms of Jacobian points, null for a zero Z (degenerate), one inversion for all. */
function toAffineAll(points: readonly Jac[]): Array<{ x: bigint; y: bigint } | null> {
  const zs = points.map((p) => red(p.Z));
  const live: number[] = [];
  for (let i = 0; i < zs.length; i++) if (zs[i] !== 0n) live.push(i);
  const inverses = invertAll(live.map((i) => zs[i]!), 'p');
  const out: Array<{ x: bigint; y: bigint } | null> = new Array(points.length).fill(null);
  live.forEach((i, j) => {
    const zi = inverses[j]!;
    const zi2 = red(zi * zi);
    out[i] = { x: red(points[i]!.X * zi2), y: red(points[i]!.Y * red(zi2 * zi)) };
  });
  return out;
}

// ------------------------------------------------------------------ ECDSA

export interface EcdsaCheckInput {
  /** The digest as an integer (reduced mod n here). */
  z: bigint;
  r: bigint;
  s: bigint;
  /** 0 or 1: the parity of R's y. */
  recovery: number;
  key: PointTable;
}

/**
 * The ECDSA check against a known key: with w = s⁻¹ mod n, R = (z·w)·G + (r·w)·Q must be a finite
 * point with x(R) = r and the y parity `recovery` — exactly the point ecrecover rebuilds from (r, v),
 * so a true answer means ecrecover(digest, v, r, s) = Q. r and s must be in [1, n−1] (the caller
 * checks the range, low s and v). false also for degenerate arithmetic (the caller then recovers).
 * Several checks at once share their two modular inversions.
 */
export function ecdsaCheckAll(inputs: readonly EcdsaCheckInput[]): boolean[] {
  const ws = invertAll(
    inputs.map((c) => c.s),
    'n',
  );
  const g = generatorTable();
  const accs: Jac[] = [];
  const which: number[] = [];
  inputs.forEach((c, i) => {
    const w = ws[i]!;
    let acc = accumulate(null, g, ((c.z % N) * w) % N);
    acc = accumulate(acc, c.key, (c.r * w) % N);
    if (acc !== null) {
      accs.push(acc);
      which.push(i);
    }
  });
  const out: boolean[] = new Array(inputs.length).fill(false);
  toAffineAll(accs).forEach((R, j) => {
    const c = inputs[which[j]!]!;
    out[which[j]!] = R !== null && R.x === c.r && Number(R.y & 1n) === c.recovery;
  });
  return out;
}

export function ecdsaCheck(z: bigint, r: bigint, s: bigint, recovery: number, key: PointTable): boolean {
  return ecdsaCheckAll([{ z, r, s, recovery, key }])[0]!;
}

/**
 * k·G for a secret k in [1, n−1] (Jacobian), with @noble/curves' countermeasures: the scalar is
 * blinded (k + b·n with a random 128-bit b, top bits 10), every window costs one table scan and
 * one addition whatever its digit (a zero digit adds into a decoy accumulator), and the accumulator
 * starts from a random offset point that is subtracted at the end, so no step depends on where the
 * first non-zero digit is.
 */
function baseMultiplySecretJac(k: bigint, blind: Buffer = randomBytes(16)): Jac {
  const table = generatorTable();
  const { W, windows, xs, ys } = table;
  const half = 1 << (W - 1);
  blind[0] = (blind[0]! & 0x3f) | 0x80;
  const scalar = k + BigInt(`0x${blind.toString('hex')}`) * N;
  const digits = signedDigits(scalar, W, windows);
  const offset = offsetPoint();
  const acc: Jac = { X: offset.x, Y: offset.y, Z: 1n };
  const decoy: Jac = { X: offset.x, Y: offset.y, Z: 1n };
  for (let w = 0; w < windows; w++) {
    const d = digits[w]!;
    const idx = (d < 0 ? -d : d) - 1; // −1 for a zero digit: matches nothing below
    const start = w * half;
    let sel = 0;
    for (let i = 1; i < half; i++) sel = i === idx ? i : sel;
    const x = xs[start + sel]!;
    const y = ys[start + sel]!;
    const ny = P - y;
    if (d === 0) madd(decoy, x, y);
    else madd(acc, x, d < 0 ? ny : y);
  }
  madd(acc, offset.x, P - offset.y);
  return acc;
}

/** k·G (affine) for a secret k, see baseMultiplySecretJac; null in the negligible degenerate case. */
export function baseMultiplySecret(k: bigint): { x: bigint; y: bigint } | null {
  return toAffineAll([baseMultiplySecretJac(k)])[0]!;
}

let offset: { x: bigint; y: bigint } | null = null;
/** A random point of unknown discrete logarithm relative to the table entries (per process). */
function offsetPoint(): { x: bigint; y: bigint } {
  if (!offset) {
    const t = Fn.create(BigInt(`0x${randomBytes(48).toString('hex')}`)) || 1n;
    offset = secp256k1.Point.BASE.multiply(t).toAffine();
  }
  return offset;
}

export interface EcdsaSignature {
  r: bigint;
  s: bigint;
  /** 0 or 1 (v = 27 + recovery). */
  recovery: number;
}

/**
 * ECDSA signatures of 32-byte digests with the secret key `d` (bytes and value), low s. Several
 * at once share their two modular inversions.
 *
 * The nonce is hedged: k = HMAC-SHA512(d, digest ‖ 32 random bytes ‖ attempt) mod (n−1) + 1, so it
 * stays unpredictable and unique per signature even if the random source failed (then it is
 * deterministic in d and the digest, like RFC 6979). R = k·G through baseMultiplySecretJac
 * (blinded, decoy additions); k is inverted multiplied by a random factor b (s = (bk)⁻¹(bz + bdr)),
 * as @noble/curves does. A nonce whose R.x is at least n (probability about 2^-128) or that gives
 * s = 0 is redrawn, so v is always 27 or 28.
 */
export function ecdsaSignAll(digests: readonly Uint8Array[], d: bigint, dBytes: Uint8Array, attempt = 0): EcdsaSignature[] {
  if (d <= 0n || d >= N) throw new Error('ecdsaSign: secret key out of range');
  if (attempt >= 64) throw new Error('ecdsaSign: no usable nonce in 64 attempts');
  const zs = digests.map((digest) => {
    if (digest.length !== 32) throw new Error('ecdsaSign: expected a 32-byte digest');
    return BigInt(`0x${Buffer.from(digest.buffer, digest.byteOffset, 32).toString('hex')}`) % N;
  });
  // per signature, 96 random bytes: 32 for the nonce, 16 for the scalar blind, 48 for the inversion blind
  const random = randomBytes(96 * digests.length);
  const ks = digests.map((digest, i) => {
    const mac = createHmac('sha512', dBytes).update(digest).update(random.subarray(96 * i, 96 * i + 32)).update(Uint8Array.of(attempt)).digest('hex');
    return (BigInt(`0x${mac}`) % (N - 1n)) + 1n;
  });
  const Rs = toAffineAll(ks.map((k, i) => baseMultiplySecretJac(k, random.subarray(96 * i + 32, 96 * i + 48))));
  const bs = digests.map((_, i) => (BigInt(`0x${random.subarray(96 * i + 48, 96 * i + 96).toString('hex')}`) % (N - 1n)) + 1n);
  const ibks = invertAll(
    ks.map((k, i) => (bs[i]! * k) % N),
    'n',
  );
  const out: EcdsaSignature[] = new Array(digests.length);
  const redo: number[] = [];
  for (let i = 0; i < digests.length; i++) {
    const R = Rs[i]!;
    if (R === null || R.x >= N) {
      redo.push(i);
      continue;
    }
    const r = R.x;
    const b = bs[i]!;
    let s = (ibks[i]! * ((b * zs[i]! + ((b * d) % N) * r) % N)) % N;
    if (s === 0n) {
      redo.push(i);
      continue;
    }
    let recovery = Number(R.y & 1n);
    if (s > N >> 1n) {
      s = N - s;
      recovery ^= 1;
    }
    out[i] = { r, s, recovery };
  }
  if (redo.length) {
    const again = ecdsaSignAll(
      redo.map((i) => digests[i]!),
      d,
      dBytes,
      attempt + 1,
    );
    redo.forEach((i, j) => (out[i] = again[j]!));
  }
  return out;
}

export function ecdsaSign(digest: Uint8Array, d: bigint, dBytes: Uint8Array): EcdsaSignature {
  return ecdsaSignAll([digest], d, dBytes)[0]!;
}
