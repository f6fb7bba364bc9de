/**
 * Random paths that can be read at any instant without simulating from the epoch minute by minute:
 * a daily mean-reverting walk (sequential from the epoch, cheap per day), refined into hours and
 * minutes by Brownian bridges whose noise is seeded by (seed, name, day or hour).
 */

import { Rng } from '../random.ts';

/** Standard normal from two uniforms (Box-Muller, cosine branch). */
export function gaussian(rng: Rng): number {
  let u = rng.next();
  while (u === 0) u = rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

/**
 * Daily Ornstein-Uhlenbeck walk x[0..days] around 0. It starts in its stationary distribution, so
 * the level at any date is realistic without burn-in; `stationarySd` bounds how far it wanders.
 */
export function ouWalk(rng: Rng, days: number, dailySd: number, stationarySd: number): Float64Array {
  const walk = new Float64Array(days + 1);
  const reversion = Math.min(0.5, (dailySd * dailySd) / (2 * stationarySd * stationarySd));
  walk[0] = gaussian(rng) * stationarySd;
  const keep = 1 - reversion;
  for (let d = 0; d < days; d += 2) {
    // Both normals of one Box-Muller draw.
    let u = rng.next();
    while (u === 0) u = rng.next();
    const radius = dailySd * Math.sqrt(-2 * Math.log(u));
    const angle = 2 * Math.PI * rng.next();
    walk[d + 1] = walk[d]! * keep + radius * Math.cos(angle);
    if (d + 2 <= days) walk[d + 2] = walk[d + 1]! * keep + radius * Math.sin(angle);
  }
  return walk;
}

/**
 * Brownian bridge from `from` to `to` in `steps` equal steps, written to out[offset..offset+steps].
 * `totalSd` is the standard deviation of a free walk over the whole span.
 */
export function fillBridge(rng: Rng, from: number, to: number, steps: number, totalSd: number, out: Float64Array): void {
  const stepSd = totalSd / Math.sqrt(steps);
  let walk = 0;
  out[0] = 0;
  for (let k = 1; k <= steps; k += 2) {
    // Both normals of one Box-Muller draw.
    let u = rng.next();
    while (u === 0) u = rng.next();
    const radius = stepSd * Math.sqrt(-2 * Math.log(u));
    const angle = 2 * Math.PI * rng.next();
    walk += radius * Math.cos(angle);
    out[k] = walk;
    if (k + 1 <= steps) {
      walk += radius * Math.sin(angle);
      out[k + 1] = walk;
    }
  }
  const end = out[steps]!;
  for (let k = 0; k <= steps; k++) {
    const f = k / steps;
    out[k] = from + (to - from) * f + out[k]! - end * f;
  }
}

/**
 * Values at minute boundaries m0..m1 (inclusive) of a component whose day-start values are `daily`
 * (daily[d] = value at 00:00 UTC of day d). Day -> 24 hour points -> 60 minute points, each level a
 * bridge seeded by its own name, so a minute's value never depends on the window asked for.
 */
export function minutePath(seed: number, name: string, daily: Float64Array, dailySd: number, m0: number, m1: number): Float64Array {
  const out = new Float64Array(m1 - m0 + 1);
  const hours = new Float64Array(25);
  const minutes = new Float64Array(61);
  const hourSd = dailySd / Math.sqrt(24);
  let bridgedDay = -1;
  for (let hour = Math.floor(m0 / 60); hour <= Math.floor(m1 / 60); hour++) {
    const day = Math.floor(hour / 24);
    if (day !== bridgedDay) {
      fillBridge(Rng.stream(seed, `${name}:d${day}`), daily[day]!, daily[day + 1]!, 24, dailySd, hours);
      bridgedDay = day;
    }
    const h = hour - day * 24;
    fillBridge(Rng.stream(seed, `${name}:h${hour}`), hours[h]!, hours[h + 1]!, 60, hourSd, minutes);
    const first = Math.max(m0, hour * 60);
    const last = Math.min(m1, hour * 60 + 59);
    for (let m = first; m <= last; m++) out[m - m0] = minutes[m - hour * 60]!;
  }
  return out;
}

/** Linear interpolation of a daily series at minute boundaries m0..m1 (1440 minutes a day). */
export function interpolateDaily(daily: Float64Array, m0: number, m1: number): Float64Array {
  const out = new Float64Array(m1 - m0 + 1);
  for (let m = m0; m <= m1; m++) {
    const day = Math.floor(m / 1440);
    const f = (m - day * 1440) / 1440;
    out[m - m0] = daily[day]! + (daily[day + 1]! - daily[day]!) * f;
  }
  return out;
}

/** Keep a value inside [lo, hi] by mirroring at the edges (a walk bounces off them). */
export function reflect(value: number, lo: number, hi: number): number {
  let v = value;
  for (let i = 0; i < 4 && (v < lo || v > hi); i++) {
    if (v < lo) v = lo + (lo - v);
    if (v > hi) v = hi - (v - hi);
  }
  return Math.min(hi, Math.max(lo, v));
}
