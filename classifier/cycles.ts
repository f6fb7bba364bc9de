/**
 * Payment rings (merona wash v3, Victor & Weintraud): wallets that are both buyers and sellers
 * and pay each other in a closed loop, each passing on about what it receives. SQL reduces the
 * payments to the edge list between dual-role wallets (tiny next to the pair table); Tarjan's
 * strongly connected components run here in TypeScript; the members' in/out balance is then
 * checked on aggregated flows.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlString } from '../lib/duckdb.ts';
import { THRESHOLDS as T } from '../catalog/wash-rules.ts';

export interface CycleMember {
  address: string;
  chain: string;
  /** Stable id of the component: chain and its smallest member address. */
  cycleId: string;
  size: number;
  inflow: number;
  outflow: number;
  /** Every member of the component passes on what it receives (the ring signature). */
  balanced: boolean;
  /** How much of what it handles this member passes on: min(in, out) / max(in, out), over all its payments. */
  passThrough: number;
}

interface Edge {
  from: string;
  to: string;
}

/**
 * Edges between wallets that both pay and get paid on the same chain, from a relation with
 * columns (buyer, seller_address, chain, volume, bk, sak) — the pair table in a batch run, an
 * aggregate of the raw payments in an on-demand check. The dual-role test runs on hash keys.
 */
export function dualRoleEdgesSql(pairs: string): string {
  return `WITH p AS (${pairs}),
dual AS (
  SELECT bk AS k, chain FROM p WHERE bk <> sak
  INTERSECT
  SELECT sak AS k, chain FROM p WHERE bk <> sak
)
SELECT p.buyer, p.seller_address, p.chain
  FROM p
  JOIN dual b ON b.k = p.bk AND b.chain = p.chain
  JOIN dual s ON s.k = p.sak AND s.chain = p.chain
 WHERE p.bk <> p.sak AND p.volume >= ${T.cycleMinEdgeVolume}`;
}

/** Tarjan's algorithm, iterative (rings can be long; recursion depth must not depend on data). */
export function stronglyConnected(edges: readonly Edge[]): string[][] {
  const adjacency = new Map<string, string[]>();
  for (const e of edges) {
    if (!adjacency.has(e.from)) adjacency.set(e.from, []);
    if (!adjacency.has(e.to)) adjacency.set(e.to, []);
    adjacency.get(e.from)!.push(e.to);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  for (const root of [...adjacency.keys()].sort()) {
    if (index.has(root)) continue;
    const work: Array<{ node: string; next: number }> = [{ node: root, next: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const out = adjacency.get(frame.node)!;
      if (frame.next < out.length) {
        const w = out[frame.next++]!;
        if (!index.has(w)) {
          index.set(w, counter);
          low.set(w, counter++);
          stack.push(w);
          onStack.add(w);
          work.push({ node: w, next: 0 });
        } else if (onStack.has(w)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(w)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        for (;;) {
          const w = stack.pop()!;
          onStack.delete(w);
          component.push(w);
          if (w === frame.node) break;
        }
        if (component.length > 1) components.push(component.sort());
      }
    }
  }
  return components;
}

const nodeKey = (chain: string, address: string): string => `${chain}\u0000${address}`;

/**
 * The members of non-trivial payment cycles among `pairs`, with their balance. `only` limits the
 * answer to the components holding one of those addresses (an on-demand check needs no other ring).
 */
export async function findCycles(connection: DuckDBConnection, pairs: string, only?: ReadonlySet<string>): Promise<CycleMember[]> {
  const reader = await connection.runAndReadAll(dualRoleEdgesSql(pairs));
  const edges: Edge[] = reader.getRowObjectsJson().map((r) => ({
    from: nodeKey(String(r.chain), String(r.buyer)),
    to: nodeKey(String(r.chain), String(r.seller_address)),
  }));
  if (edges.length === 0) return [];
  let components = stronglyConnected(edges);
  if (only !== undefined) components = components.filter((c) => c.some((k) => only.has(k.split('\u0000')[1]!)));
  if (components.length === 0) return [];

  const members = components.flatMap((c) => {
    const [chain, first] = c[0]!.split('\u0000') as [string, string];
    return c.map((k) => {
      const [, address] = k.split('\u0000') as [string, string];
      return { address, chain, cycleId: `${chain}:${first}`, size: c.length };
    });
  });
  const memberValues = members.map((m) => `(${sqlString(m.address)}, ${sqlString(m.chain)})`).join(', ');
  // Flows over all counterparties, not only ring members: a ring node passes on what it receives.
  const flows = await connection.runAndReadAll(`WITH p AS (${pairs}),
m AS (SELECT * FROM (VALUES ${memberValues}) t(address, chain)),
f AS (
  SELECT seller_address AS address, chain, volume AS inflow, 0.0 AS outflow FROM p WHERE buyer <> seller_address
  UNION ALL
  SELECT buyer AS address, chain, 0.0 AS inflow, volume AS outflow FROM p WHERE buyer <> seller_address
)
SELECT m.address, m.chain, coalesce(sum(f.inflow), 0) AS inflow, coalesce(sum(f.outflow), 0) AS outflow
  FROM m LEFT JOIN f ON f.address = m.address AND f.chain = m.chain
 GROUP BY ALL`);
  const flowOf = new Map<string, { inflow: number; outflow: number }>();
  for (const r of flows.getRowObjectsJson()) {
    flowOf.set(nodeKey(String(r.chain), String(r.address)), { inflow: Number(r.inflow), outflow: Number(r.outflow) });
  }
  const memberBalanced = (inflow: number, outflow: number): boolean =>
    Math.min(inflow, outflow) >= T.cycleMinFlow && Math.abs(inflow - outflow) / Math.max(inflow, outflow) <= T.cycleMaxBalance;
  const result: CycleMember[] = members.map((m) => {
    const f = flowOf.get(nodeKey(m.chain, m.address)) ?? { inflow: 0, outflow: 0 };
    const passThrough = Math.max(f.inflow, f.outflow) > 0 ? Math.min(f.inflow, f.outflow) / Math.max(f.inflow, f.outflow) : 0;
    return { ...m, inflow: f.inflow, outflow: f.outflow, balanced: memberBalanced(f.inflow, f.outflow), passThrough };
  });
  const allBalanced = new Map<string, boolean>();
  for (const m of result) allBalanced.set(m.cycleId, (allBalanced.get(m.cycleId) ?? true) && m.balanced);
  return result.map((m) => ({ ...m, balanced: allBalanced.get(m.cycleId)! }));
}

/** The cycle members as a relation (ak = hash(address), chain, cycle_id, cycle_size, balanced, pass_through). */
export function cyclesRelationSql(members: readonly CycleMember[]): string {
  if (members.length === 0) {
    return `SELECT NULL::UBIGINT AS ak, NULL::VARCHAR AS chain, NULL::VARCHAR AS cycle_id,
       NULL::INTEGER AS cycle_size, NULL::BOOLEAN AS balanced, NULL::DOUBLE AS pass_through WHERE false`;
  }
  const rows = members.map(
    (m) => `(${sqlString(m.address)}, ${sqlString(m.chain)}, ${sqlString(m.cycleId)}, ${m.size}, ${m.balanced}, ${m.passThrough})`,
  );
  return `SELECT hash(address) AS ak, chain, cycle_id, cycle_size::INTEGER AS cycle_size, balanced, pass_through::DOUBLE AS pass_through
  FROM (VALUES ${rows.join(',\n  ')}) t(address, chain, cycle_id, cycle_size, balanced, pass_through)`;
}
