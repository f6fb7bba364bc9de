/** Small timing helpers shared by the benchmarks that time handlers in-process. */

/** The p-th percentile (nearest rank) of `xs`; NaN when empty. */
export function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

/** Runs `calls` in order, `concurrency` at a time, and returns each call's milliseconds (in completion order). */
export async function timedCalls(calls: ReadonlyArray<() => Promise<unknown>>, concurrency = 2): Promise<number[]> {
  const times: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < calls.length) {
        const call = calls[next++]!;
        const t = performance.now();
        await call();
        times.push(performance.now() - t);
      }
    }),
  );
  return times;
}
