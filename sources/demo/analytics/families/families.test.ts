/**
 * The family world (issue 46): at least 24 wash and 12 honest families, each planted as its
 * registry says (every instance draws its own parameters from the family's ranges), truth that
 * matches the family's kind, the same rows for the same seed, and a family's rows independent of
 * the other families planted with it.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { WASH_LABELS } from '../../../../catalog/categories.ts';
import { BACKGROUND, FAMILIES, familyWorld } from './world.ts';

const NOW = new Date('2026-08-05T12:00:00Z');
const digest = (rows: unknown[]): string => createHash('sha256').update(JSON.stringify(rows)).digest('hex');

describe('the family world', () => {
  const world = familyWorld({ seed: 1, now: NOW });
  const byFamily = new Map<string, Array<{ address: string; label: string; group: string | null }>>();
  for (const [address, label, pattern, , group] of world.truthBuyers as Array<[string, string, string, string, string | null]>) {
    if (!byFamily.has(pattern)) byFamily.set(pattern, []);
    byFamily.get(pattern)!.push({ address, label, group });
  }

  it('has at least 24 wash and 12 honest families, each saying what it sits against and what it is', () => {
    const defs = Object.entries(FAMILIES);
    expect(defs.filter(([, d]) => d.kind === 'wash').length).toBeGreaterThanOrEqual(24);
    expect(defs.filter(([, d]) => d.kind === 'honest').length).toBeGreaterThanOrEqual(12);
    for (const [name, d] of defs) {
      expect(d.about.length, name).toBeGreaterThan(40);
      expect(WASH_LABELS, name).toContain(d.label);
      expect(d.label === 'suspected_wash', name).toBe(d.kind === 'wash');
      for (const [p, spec] of Object.entries(d.params)) expect(spec.range[0], `${name}.${p}`).toBeLessThanOrEqual(spec.range[1]);
    }
  });

  it('plants every family with paying buyers of its true label, instance by instance, with parameters inside its ranges', () => {
    for (const [name, def] of Object.entries(FAMILIES)) {
      const buyers = byFamily.get(name) ?? [];
      expect(buyers.length, name).toBeGreaterThanOrEqual(20);
      for (const b of buyers) expect(b.label, `${name} ${b.address}`).toBe(def.label);
      const groups = world.groups.filter((g) => g.pattern === name);
      expect(groups.length, name).toBe(def.instances);
      for (const g of groups) {
        for (const [p, spec] of Object.entries(def.params)) {
          const v = g.params[p]!;
          expect(v, `${g.groupId}.${p}`).toBeGreaterThanOrEqual(spec.range[0]);
          expect(v, `${g.groupId}.${p}`).toBeLessThanOrEqual(spec.range[1]);
        }
      }
      // instances differ: parameters are drawn per instance
      if (groups.length > 1 && Object.keys(def.params).length > 0) {
        expect(new Set(groups.map((g) => JSON.stringify(g.params))).size, name).toBeGreaterThan(1);
      }
    }
    expect((byFamily.get(BACKGROUND) ?? []).length).toBeGreaterThan(1000);
    // wash wallets are wash on every pair, camouflage included
    const wash = new Set(
      Object.entries(FAMILIES)
        .filter(([, d]) => d.kind === 'wash')
        .map(([n]) => n),
    );
    const washBuyers = new Set([...byFamily].filter(([f]) => wash.has(f)).flatMap(([, bs]) => bs.map((b) => b.address)));
    for (const [address, , , label] of world.truthPairs as Array<[string, string, string, string]>) {
      if (washBuyers.has(address)) expect(label, address).toBe('suspected_wash');
    }
  });

  it('gives the same rows for the same seed, and other rows for another', () => {
    const again = familyWorld({ seed: 1, now: NOW });
    expect(digest(again.transactions)).toBe(digest(world.transactions));
    expect(digest(again.funding)).toBe(digest(world.funding));
    expect(digest(again.truthBuyers)).toBe(digest(world.truthBuyers));
    expect(digest(familyWorld({ seed: 2, now: NOW }).transactions)).not.toBe(digest(world.transactions));
  });

  it("keeps a family's rows whichever other families are planted with it", () => {
    const name = 'late_topup';
    const alone = familyWorld({ seed: 1, now: NOW, only: [name] });
    const mine = (w: typeof world) => new Set((w.truthBuyers as string[][]).filter((b) => b[2] === name).map((b) => b[0]));
    expect(mine(alone)).toEqual(mine(world));
    const rows = (w: typeof world) => (w.transactions as unknown[][]).filter((t) => mine(w).has(String(t[2]))).map((t) => t.slice(2, 6));
    expect(digest(rows(alone))).toBe(digest(rows(world)));
    expect(() => familyWorld({ seed: 1, now: NOW, only: ['no_such_family'] })).toThrow(/unknown family no_such_family/);
  });
});
