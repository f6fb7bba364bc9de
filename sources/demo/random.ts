/**
 * Seeded randomness for the demo world. Everything the simulator draws comes from here, so the same
 * seed gives the same world byte for byte (no Math.random, no wall clock).
 */

/** 32-bit FNV-1a of a string: turns a stream name into a seed component. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** sfc32: small, fast, good enough statistically for simulation; fully deterministic. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number, stream = '') {
    this.a = (seed >>> 0) ^ 0x9e3779b9;
    this.b = hash32(stream) ^ 0x243f6a88;
    this.c = Math.imul(seed >>> 0, 0x85ebca6b) ^ 0xb7e15162;
    this.d = 1;
    for (let i = 0; i < 15; i++) this.next();
  }

  /** A new independent stream derived from this seed and a name (stable under code changes elsewhere). */
  static stream(seed: number, name: string): Rng {
    return new Rng(seed, name);
  }

  /** Uniform float in [0, 1). */
  next(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t / 4294967296;
  }

  /** Uniform float in [lo, hi). */
  uniform(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next();
  }

  /** Uniform integer in [lo, hi] inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('Rng.pick: empty list');
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** Pick by weights (need not sum to 1). */
  weighted<T>(items: readonly T[], weights: readonly number[]): T {
    let total = 0;
    for (const w of weights) total += w;
    let x = this.next() * total;
    for (let i = 0; i < items.length; i++) {
      x -= weights[i]!;
      if (x < 0) return items[i]!;
    }
    return items[items.length - 1]!;
  }

  /** Standard normal (Box-Muller). */
  normal(mean = 0, sd = 1): number {
    let u = 0;
    while (u === 0) u = this.next();
    const v = this.next();
    return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  logNormal(mu: number, sigma: number): number {
    return Math.exp(this.normal(mu, sigma));
  }

  exponential(mean: number): number {
    let u = 0;
    while (u === 0) u = this.next();
    return -Math.log(u) * mean;
  }

  poisson(lambda: number): number {
    if (lambda > 50) return Math.max(0, Math.round(this.normal(lambda, Math.sqrt(lambda))));
    const l = Math.exp(-lambda);
    let k = 0;
    let p = 1;
    do {
      k++;
      p *= this.next();
    } while (p > l);
    return k - 1;
  }

  /** Zipf-like rank in [0, n): rank r has weight 1 / (r + 1)^s. Uses inverse-CDF on a cached table. */
  zipf(n: number, s = 1.1): number {
    const key = `${n}:${s}`;
    let cdf = zipfCache.get(key);
    if (!cdf) {
      cdf = new Float64Array(n);
      let acc = 0;
      for (let r = 0; r < n; r++) {
        acc += 1 / Math.pow(r + 1, s);
        cdf[r] = acc;
      }
      for (let r = 0; r < n; r++) cdf[r]! /= acc;
      zipfCache.set(key, cdf);
    }
    const x = this.next();
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Lowercase hex string of `n` nibbles. */
  hex(n: number): string {
    return this.chars(HEX_CODES, n);
  }

  /** Base58 string of `n` characters (Solana-style addresses). */
  base58(n: number): string {
    return this.chars(B58_CODES, n);
  }

  /**
   * `n` characters drawn from an alphabet, built as one flat string: appending a character at a
   * time makes rope strings, and holding hundreds of thousands of them (transaction hashes) costs
   * most of a large run in garbage collection.
   */
  private chars(alphabet: readonly number[], n: number): string {
    const codes = new Array<number>(n);
    for (let i = 0; i < n; i++) codes[i] = alphabet[Math.floor(this.next() * alphabet.length)]!;
    return String.fromCharCode(...codes);
  }

  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
    return items;
  }
}

const HEX_CODES = Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
const B58_CODES = Array.from('123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz', (c) => c.charCodeAt(0));
const zipfCache = new Map<string, Float64Array>();

/** An EVM address (lowercase hex). */
export function evmAddress(rng: Rng, prefix = '', suffix = ''): string {
  return '0x' + prefix + rng.hex(40 - prefix.length - suffix.length) + suffix;
}

/** A Solana-style base58 address (44 chars). */
export function solanaAddress(rng: Rng, prefix = '', suffix = ''): string {
  return prefix + rng.base58(44 - prefix.length - suffix.length) + suffix;
}

/** A 32-byte transaction hash: hex for EVM, base58 (88 chars) signature for Solana. */
export function txHash(rng: Rng, chain: string): string {
  return chain === 'solana' ? rng.base58(88) : '0x' + rng.hex(64);
}
