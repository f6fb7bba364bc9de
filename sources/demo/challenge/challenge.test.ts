import { describe, expect, it } from 'vitest';
import { challengeMain, evaluateChallenge } from '../../../pipelines/analytics/eval-wash-challenge.ts';
import { targetsTable } from '../../../pipelines/analytics/eval-wash.ts';
import {
  CHALLENGE_GROUPS,
  CHALLENGE_PARAMETERS,
  CHALLENGE_PATTERNS,
  type ChallengePattern,
  disjoint,
  type ParameterSpec,
  SPLITS,
} from './regimes.ts';
import { type ChallengeWorld, challengeWorld } from './world.ts';

const NOW = new Date('2026-08-05T12:00:00Z');
const worlds = new Map<string, ChallengeWorld>();
function world(seed: number, split: (typeof SPLITS)[number]): ChallengeWorld {
  const key = `${seed}:${split}`;
  if (!worlds.has(key)) worlds.set(key, challengeWorld({ seed, split, now: NOW }));
  return worlds.get(key)!;
}

const specs = (): Array<[string, string, ParameterSpec]> =>
  Object.entries(CHALLENGE_PARAMETERS).flatMap(([pattern, params]) =>
    Object.entries(params as Record<string, ParameterSpec>).map(([name, spec]): [string, string, ParameterSpec] => [pattern, name, spec]),
  );

describe('challenge world regimes', () => {
  it('puts every ood range wholly outside its in range', () => {
    const list = specs();
    expect(list.length).toBeGreaterThan(30);
    for (const [pattern, name, spec] of list) {
      expect(spec.in[0] <= spec.in[1] && spec.ood[0] <= spec.ood[1], `${pattern}.${name} ranges ordered`).toBe(true);
      expect(disjoint(spec.in, spec.ood), `${pattern}.${name}: in ${spec.in} vs ood ${spec.ood}`).toBe(true);
    }
  });

  it.each(SPLITS)('draws every planted group of split %s from that split’s ranges', (split) => {
    const w = world(1, split);
    for (const pattern of Object.keys(CHALLENGE_GROUPS) as Array<keyof typeof CHALLENGE_GROUPS>) {
      const groups = w.groups.filter((g) => g.pattern === pattern);
      expect(groups.length, pattern).toBe(CHALLENGE_GROUPS[pattern]);
      for (const g of groups) {
        for (const [name, spec] of Object.entries(CHALLENGE_PARAMETERS[pattern] as Record<string, ParameterSpec>)) {
          const v = g.params[name]!;
          const [lo, hi] = spec[split];
          expect(v >= lo && v <= hi, `${g.groupId}.${name} = ${v} in [${lo}, ${hi}]`).toBe(true);
          if (spec.integer) expect(Number.isInteger(v)).toBe(true);
        }
      }
    }
  });
});

describe('challenge world generator', () => {
  it('is deterministic per seed and split, and differs across seeds and splits', () => {
    const a = world(7, 'in');
    const b = challengeWorld({ seed: 7, split: 'in', now: NOW });
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    const c = world(8, 'in');
    expect(JSON.stringify(c.transactions.slice(0, 50))).not.toBe(JSON.stringify(a.transactions.slice(0, 50)));
    expect(world(1, 'ood').transactions.length).not.toBe(world(1, 'in').transactions.length);
  });

  it.each(SPLITS)('plants every pattern with its label in the truth tables (split %s)', (split) => {
    const w = world(1, split);
    const buyerLabel = new Map(w.truthBuyers.map((r) => [String(r[0]), String(r[1])]));
    for (const [pattern, { label }] of Object.entries(CHALLENGE_PATTERNS) as Array<[ChallengePattern, { label: string }]>) {
      const rows = w.truthBuyers.filter((r) => r[2] === pattern);
      expect(rows.length, pattern).toBeGreaterThan(0);
      for (const r of rows) expect(r[1], `${pattern} ${r[0]}`).toBe(label);
    }
    // planted cohorts: every wallet of a group is in the truth table under the group's id
    for (const g of w.groups) {
      expect(
        w.truthBuyers.filter((r) => r[4] === g.groupId || (r[4] === null && g.wallets === 1 && r[2] === g.pattern)).length,
      ).toBeGreaterThanOrEqual(g.wallets);
    }
    // every payment's pair has a truth row, every truth pair has payments, and labels follow the buyer
    const pairs = new Map(w.truthPairs.map((r) => [`${r[0]}|${r[1]}|${r[2]}`, String(r[3])]));
    const paid = new Set(w.transactions.map((t) => `${t[2]}|${t[3]}|${t[1]}`));
    expect(paid.size).toBe(pairs.size);
    for (const key of paid) expect(pairs.has(key), key).toBe(true);
    for (const [key, label] of pairs) {
      const buyer = buyerLabel.get(key.split('|')[0]!);
      expect(buyer, key).toBeDefined();
      if (buyer !== 'developer') expect(label, key).toBe(buyer);
      else expect(['developer', 'organic_user']).toContain(label);
    }
  });

  it('plants the structures the patterns name', () => {
    const w = world(1, 'ood');
    const exchanges = new Set(w.exchanges.map((r) => String(r[0])));
    const truth = (pattern: string) => w.truthBuyers.filter((r) => r[2] === pattern);
    const firstFunder = new Map<string, string>();
    for (const f of w.funding) if (!firstFunder.has(String(f[0]))) firstFunder.set(String(f[0]), String(f[1]));

    // vanity cohorts: one shared prefix per group, every wallet funded from an exchange
    for (const g of w.groups.filter((x) => x.pattern === 'vanity_exchange')) {
      const members = truth('vanity_exchange')
        .filter((r) => r[4] === g.groupId)
        .map((r) => String(r[0]));
      const prefix = members[0]!.slice(0, 2 + g.params.prefixChars!);
      for (const m of members) {
        expect(m.startsWith(prefix)).toBe(true);
        expect(exchanges.has(firstFunder.get(m)!)).toBe(true);
      }
    }
    // round trips: each buyer receives money back from the seller it pays, directly or via relays
    const sellerOf = new Map(w.transactions.map((t) => [String(t[2]), String(t[3])]));
    const fundersOf = new Map<string, string[]>();
    for (const f of w.funding) fundersOf.set(String(f[0]), [...(fundersOf.get(String(f[0])) ?? []), String(f[1])]);
    const reaches = (from: string, to: string, depth: number): boolean =>
      depth >= 0 && (fundersOf.get(to) ?? []).some((f) => f === from || reaches(from, f, depth - 1));
    for (const r of truth('round_trip')) {
      const buyer = String(r[0]);
      expect(reaches(sellerOf.get(buyer)!, buyer, 3), buyer).toBe(true);
    }
    // spread sybils: one shared funder per cohort, starts spread over days
    for (const g of w.groups.filter((x) => x.pattern === 'sybil_spread')) {
      const members = truth('sybil_spread')
        .filter((r) => r[4] === g.groupId)
        .map((r) => String(r[0]));
      expect(new Set(members.map((m) => firstFunder.get(m))).size).toBe(1);
      const starts = w.transactions.filter((t) => members.includes(String(t[2]))).map((t) => (t[5] as Date).getTime());
      expect((Math.max(...starts) - Math.min(...starts)) / 86_400_000).toBeGreaterThan(g.params.startSpreadDays! / 2);
    }
  });
});

describe('eval:wash --challenge', () => {
  it('scores every planted pattern of a split and reports each target', async () => {
    const e = await evaluateChallenge({ seed: 2, split: 'in', now: NOW, threads: 1 });
    const w = challengeWorld({ seed: 2, split: 'in', now: NOW });
    expect(e.transactions).toBe(w.transactions.length);
    expect(e.patterns.map((p) => p.pattern).sort()).toEqual(Object.keys(CHALLENGE_PATTERNS).sort());
    expect(e.patterns.reduce((s, p) => s + p.wallets, 0)).toBe(w.truthBuyers.length);
    const names = e.targets.map((t) => t.name);
    for (const n of ['suspected_wash precision', 'suspected_wash recall', 'organic users flagged as wash', 'hackathon flagged as wash']) {
      expect(names).toContain(n);
    }
    for (const t of e.targets)
      expect(t.met).toBe(t.target.startsWith('>=') ? t.value >= Number(t.target.slice(3)) : t.value <= Number(t.target.slice(3)));
  }, 60_000);

  it('rejects an unknown split, exits 0 as a measurement, and marks a missed target MISSED', async () => {
    await expect(challengeMain(['--challenge', '--split', 'out'])).rejects.toThrow(/--split must be in, ood or both/);
    const log = console.log;
    const printed: string[] = [];
    console.log = (...args: unknown[]) => void printed.push(args.join(' '));
    try {
      expect(await challengeMain(['--challenge', '--split', 'in', '--seed', '3'])).toBe(0);
    } finally {
      console.log = log;
    }
    expect(printed.join('\n')).toMatch(/targets \(issue 15\)\n {2}suspected_wash precision +\d\.\d{3} +target >= 0\.97 +(met|MISSED)/);
    // the current classifier meets every target on this seed, so the MISSED marking is checked on the table itself
    const [, missed, met] = targetsTable([
      { name: 'suspected_wash recall', value: 0.63, target: '>= 0.95', met: false },
      { name: 'suspected_wash precision', value: 0.99, target: '>= 0.97', met: true },
    ]);
    expect(missed).toMatch(/0\.630 +target >= 0\.95 +MISSED$/);
    expect(met).toMatch(/0\.990 +target >= 0\.97 +met$/);
  }, 60_000);
});
