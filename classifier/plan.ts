/**
 * The classifier is a list of named SQL steps, each reading the raw tables or earlier steps by
 * name. classify() runs every step over the whole world, as TEMP tables (or views) named `wc_*`.
 * Separate statements plan much faster than one 35-CTE statement. The scope and per-call prefix
 * options let the same list run over the payments and funding of one check, under a prefix of
 * its own (the on-request wash check: classifier/on-request.ts, proxy/data/wash-check.ts).
 */
import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * Which payments and funding the steps see: the warehouse's raw tables (`all`), or relations the
 * caller names (`address`: an on-request check names relations holding only the payments and
 * funding edges around one address, with the raw tables' columns; see classifier/on-request.ts).
 */
export type Scope = { kind: 'all' } | { kind: 'address'; relations: ScopeRelations };

export interface ScopeRelations {
  /** (buyer, seller_address, chain, amount, time), as x402_transactions. */
  payments: string;
  /** (address, funder, time, amount), as wallet_funding. */
  funding: string;
  /** (seller_address, chain, price_amount): the listed prices, as x402_services. */
  services: string;
}

export interface StepContext {
  now: Date;
  /**
   * Read payments and funding strictly before `now` instead of up to it: the day state, computed
   * from everything before the start of a UTC day (docs/wash-methodology.md, "Day state").
   */
  before?: boolean;
  scope: Scope;
  /**
   * A relation (pk, time) of every payment up to `now`, pk as attribution.ts keys pairs: the day
   * slices read it instead of hashing the payments' addresses again. Whole-world runs only.
   */
  paymentKeys?: string;
}

export interface SqlStep {
  /** Relation name other steps use (prefix `wc_` keeps them apart from warehouse tables). */
  name: string;
  sql: string;
  /** Read more than once or expensive to recompute: a TEMP table; otherwise a TEMP view. */
  materialize: boolean;
}

export const step = (name: string, sql: string, materialize = true): SqlStep => ({ name, sql, materialize });

/** A TIMESTAMP literal of an instant (DuckDB TIMESTAMP holds UTC here). */
export function timestampSql(at: Date): string {
  if (!Number.isFinite(at.getTime())) throw new Error('classify: `now` must be a valid Date');
  return `TIMESTAMP '${at.toISOString().replace('T', ' ').replace('Z', '')}'`;
}

/** The last instant the steps read, as a TIMESTAMP expression: `now`, or the microsecond before it. */
export function cutoffSql(ctx: Pick<StepContext, 'now' | 'before'>): string {
  const at = timestampSql(ctx.now);
  return ctx.before ? `(${at} - INTERVAL 1 MICROSECOND)` : at;
}

export interface StepTiming {
  name: string;
  seconds: number;
}

export interface RunOptions {
  /** Replaces the `wc_` prefix of every step name and reference (e.g. `wc7f3a_`). */
  prefix?: string;
  /** Statement parameters (only passed to the steps that use them). */
  params?: Record<string, string>;
  /** release[i]: TEMP tables to drop once step i has run (see releasePlan). */
  release?: readonly (readonly string[])[];
}

/**
 * For each step, the materialized steps that nothing after it reads (directly or through a
 * view), nor any statement in `later` (SQL run after the steps): a whole-world run drops them
 * there, so a ten-million-payment run holds only the tables still ahead of it in memory.
 */
export function releasePlan(steps: readonly SqlStep[], later: readonly string[]): string[][] {
  const refs = (sql: string, upTo: number) => steps.slice(0, upTo).filter((s) => new RegExp(`\\b${s.name}\\b`).test(sql));
  // the materialized tables each step reads, through views
  const reads: Set<string>[] = [];
  steps.forEach((s, i) => {
    const set = new Set<string>();
    for (const r of refs(s.sql, i)) {
      if (r.materialize) set.add(r.name);
      else for (const t of reads[steps.indexOf(r)]!) set.add(t);
    }
    reads.push(set);
  });
  const kept = new Set<string>();
  for (const sql of later) {
    for (const r of refs(sql, steps.length)) {
      if (r.materialize) kept.add(r.name);
      else for (const t of reads[steps.indexOf(r)]!) kept.add(t);
    }
  }
  const lastRead = new Map<string, number>();
  steps.forEach((s, i) => {
    if (s.materialize) lastRead.set(s.name, i);
    for (const t of reads[i]!) lastRead.set(t, i);
  });
  return steps.map((_, i) => [...lastRead].filter(([name, last]) => last === i && !kept.has(name)).map(([name]) => name));
}

/** Renames `wc_` relations to `prefix` in SQL (step names and references alike). */
export function withPrefix(sql: string, prefix = 'wc_'): string {
  return prefix === 'wc_' ? sql : sql.replace(/\bwc_/g, prefix);
}

/** Runs steps as TEMP tables/views on the connection; returns each step's wall time. */
export async function runSteps(connection: DuckDBConnection, steps: readonly SqlStep[], options: RunOptions = {}): Promise<StepTiming[]> {
  const timings: StepTiming[] = [];
  for (const s of steps) {
    const t0 = performance.now();
    const sql = withPrefix(`CREATE OR REPLACE TEMP ${s.materialize ? 'TABLE' : 'VIEW'} ${s.name} AS ${s.sql}`, options.prefix);
    const params = options.params && Object.keys(options.params).some((k) => sql.includes(`$${k}`)) ? options.params : undefined;
    try {
      await (params ? connection.run(sql, params) : connection.run(sql));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      throw new Error(`wash classifier step ${s.name} failed: ${message}`);
    }
    const released = options.release?.[steps.indexOf(s)] ?? [];
    if (released.length > 0) {
      await connection.run(withPrefix(released.map((name) => `DROP TABLE IF EXISTS temp.${name}`).join(';\n'), options.prefix));
    }
    timings.push({ name: s.name, seconds: (performance.now() - t0) / 1000 });
  }
  return timings;
}

/**
 * Runs all steps as one multi-statement script: one round trip, for small scoped runs where the
 * per-statement overhead is most of the time. A failure names the statement DuckDB choked on.
 */
export async function runStepsBatch(connection: DuckDBConnection, steps: readonly SqlStep[], prefix?: string): Promise<void> {
  const script = steps.map((s) => `CREATE OR REPLACE TEMP ${s.materialize ? 'TABLE' : 'VIEW'} ${s.name} AS ${s.sql}`).join(';\n');
  try {
    await connection.run(withPrefix(script, prefix));
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new Error(`wash classifier steps failed: ${message}`);
  }
}

/** Drops the TEMP relations of `steps` (later steps first: views depend on earlier ones), in one statement. */
export async function dropSteps(connection: DuckDBConnection, steps: readonly SqlStep[], prefix?: string): Promise<void> {
  const script = [...steps]
    .reverse()
    .map((s) => `DROP ${s.materialize ? 'TABLE' : 'VIEW'} IF EXISTS temp.${s.name}`)
    .join(';\n');
  await connection.run(withPrefix(script, prefix));
}

/**
 * The steps as one statement ending in `select` (over the steps' names): each step a CTE,
 * materialized when the step is. For small scoped runs: one statement plans and runs in a
 * fraction of the time of as many CREATE statements (no catalog writes, nothing to drop after).
 */
export function stepsAsQuery(steps: readonly SqlStep[], select: string, prefix?: string): string {
  const ctes = steps.map((s) => `${s.name} AS ${s.materialize ? 'MATERIALIZED ' : ''}(\n${s.sql}\n)`);
  return withPrefix(`WITH ${ctes.join(',\n')}\n${select}`, prefix);
}
