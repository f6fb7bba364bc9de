/**
 * The demo world: a deterministic, seeded simulator that feeds the pipelines when there is no
 * network. Same (seed, now, scale), same rows, in the same order, byte for byte.
 */

export interface WorldOptions {
  /** PRNG seed. */
  seed: number;
  /** The simulated wall clock: "now" of the run (UTC). Nothing reads the real clock. */
  now: Date;
  /** Size multiplier (1 = the default demo; the benchmarks use larger values). */
  scale: number;
}

export const DEFAULT_SEED = 42;
