import { describe, expect, it } from 'vitest';
import type { Row } from '../../../../lib/duckdb.ts';
import { challengeMain, evaluateChallenge } from '../../../../pipelines/analytics/eval-wash-challenge.ts';
import { targetsTable } from '../../../../pipelines/analytics/eval-wash.ts';
import {
  CHALLENGE_GROUPS,
  CHALLENGE_PARAMETERS,
  CHALLENGE_PATTERNS,
  type ChallengePattern,
  disjoint,
  ISSUE_29_CROWDS,
  ISSUE_29_WASH,
  OTHER_PAIR_LABELS,
  type ParameterSpec,
  SPLITS,
} from './regimes.ts';
import { type ChallengeWorld, challengeWorld, type PlantedGroup } from './world.ts';

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
    expect(list.length).toBeGreaterThan(60);
    // issue 29's classes and crowds are in the table, each with several parameters, and planted
    for (const pattern of [...ISSUE_29_WASH, ...ISSUE_29_CROWDS]) {
      expect(list.filter(([p]) => p === pattern).length, pattern).toBeGreaterThanOrEqual(4);
      expect(CHALLENGE_GROUPS[pattern], pattern).toBeGreaterThanOrEqual(2);
    }
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
    // issue 29's patterns too: the same wallets and funding for the same seed, others for another
    const members = (w: ChallengeWorld, pattern: string) => w.truthBuyers.filter((r) => r[2] === pattern).map((r) => String(r[0]));
    for (const pattern of [...ISSUE_29_WASH, ...ISSUE_29_CROWDS]) {
      expect(members(b, pattern), pattern).toEqual(members(a, pattern));
      expect(members(a, pattern).length, pattern).toBeGreaterThan(0);
      expect(members(c, pattern), pattern).not.toEqual(members(a, pattern));
    }
  });

  it('generates worlds whose crowds start before any popular service was listed (seeds 13 in, 27 ood)', () => {
    // these seeds ask for a service listed before the first listing; the pick must not loop forever
    expect(challengeWorld({ seed: 13, split: 'in', now: NOW }).truthBuyers.length).toBeGreaterThan(2000);
    expect(challengeWorld({ seed: 27, split: 'ood', now: NOW }).truthBuyers.length).toBeGreaterThan(2000);
  }, 30_000);

  it.each(SPLITS)('plants every pattern with its label in the truth tables (split %s)', (split) => {
    const w = world(1, split);
    const buyerLabel = new Map(w.truthBuyers.map((r) => [String(r[0]), String(r[1])]));
    const buyerPattern = new Map(w.truthBuyers.map((r) => [String(r[0]), r[2] as ChallengePattern]));
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
      const pattern = buyerPattern.get(key.split('|')[0]!)!;
      expect([buyer, ...(OTHER_PAIR_LABELS[pattern] ?? [])], key).toContain(label);
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

  it.each(SPLITS)("plants issue 29's wash classes and honest crowds as described (split %s)", (split) => {
    const w = world(1, split);
    const HOUR = 3_600_000;
    const exchanges = w.exchanges.map((r) => String(r[0]));
    const large = exchanges[0]!;
    // funding rows are ordered by time: the first row of an address is its first funding
    const fundings = new Map<string, Array<{ funder: string; amount: number; time: number }>>();
    for (const f of w.funding) {
      const list = fundings.get(String(f[0])) ?? [];
      list.push({ funder: String(f[1]), amount: Number(f[2]), time: (f[3] as Date).getTime() });
      fundings.set(String(f[0]), list);
    }
    const first = (a: string) => fundings.get(a)![0]!;
    const paymentsOf = new Map<string, Row[]>();
    for (const t of w.transactions) paymentsOf.set(String(t[2]), [...(paymentsOf.get(String(t[2])) ?? []), t]);
    const buyersOfSeller = new Map<string, Set<string>>();
    for (const t of w.transactions) buyersOfSeller.set(String(t[3]), (buyersOfSeller.get(String(t[3])) ?? new Set()).add(String(t[2])));
    const members = (g: PlantedGroup) => w.truthBuyers.filter((r) => r[4] === g.groupId).map((r) => String(r[0]));
    const groups = (pattern: ChallengePattern) => w.groups.filter((g) => g.pattern === pattern);
    /** The funders an address reaches within `hops` transfers up its funding (first funders of each step first). */
    const ancestors = (a: string, hops: number): Set<string> => {
      const out = new Set<string>();
      let level = [a];
      for (let h = 0; h < hops; h++) {
        level = level.flatMap((x) => (fundings.get(x) ?? []).map((f) => f.funder)).filter((x) => !out.has(x));
        for (const x of level) out.add(x);
      }
      return out;
    };
    const spread = (xs: number[]) => Math.max(...xs) - Math.min(...xs);

    // the large exchange funds a good share of the organic background, and every burst wallet
    const organic = w.truthBuyers.filter((r) => r[2] === 'organic').map((r) => String(r[0]));
    expect(organic.filter((a) => first(a).funder === large).length / organic.length).toBeGreaterThan(0.4);
    for (const g of groups('exchange_burst')) {
      const m = members(g);
      expect(m.length).toBe(g.wallets);
      // fresh wallets: one near-equal withdrawal each from the large exchange, all within the burst
      for (const a of m) expect(fundings.get(a)!.map((f) => f.funder)).toEqual([large]);
      const amounts = m.map((a) => first(a).amount);
      const mean = amounts.reduce((x, y) => x + y, 0) / amounts.length;
      expect(spread(amounts) / mean).toBeLessThanOrEqual(2 * g.params.amountSpread! + 1e-4);
      expect(spread(m.map((a) => first(a).time)) / HOUR).toBeLessThanOrEqual(g.params.burstHours!);
      // the sellers the wallets pay (honest sprinkles apart) number g.params.sellers, and the burst is most of each one's buyers
      const sellers = new Map<string, number>();
      for (const a of m) for (const s of new Set(paymentsOf.get(a)!.map((t) => String(t[3])))) sellers.set(s, (sellers.get(s) ?? 0) + 1);
      const farm = [...sellers].filter(([, n]) => n >= m.length / (2 * g.params.sellers!)).map(([s]) => s);
      expect(farm.length).toBe(g.params.sellers);
      for (const s of farm) {
        const buyers = [...buyersOfSeller.get(s)!];
        expect(buyers.filter((b) => m.includes(b)).length / buyers.length, s).toBeGreaterThan(0.5);
      }
    }

    for (const g of groups('operator_many_sellers')) {
      const m = members(g);
      const hops = g.params.hops!;
      // one root within `hops` of every member (the exchange that funded it apart)
      const roots = m.map((a) => ancestors(a, hops)).reduce((x, y) => new Set([...x].filter((r) => y.has(r))));
      const root = [...roots].filter((r) => !exchanges.includes(r));
      expect(root.length).toBeGreaterThan(0);
      // the sellers the members pay that the same root funded within `hops`: exactly the operator's
      const paid = new Map<string, number>();
      for (const a of m) for (const s of new Set(paymentsOf.get(a)!.map((t) => String(t[3])))) paid.set(s, (paid.get(s) ?? 0) + 1);
      const sellers = [...paid.keys()].filter((s) => root.some((r) => ancestors(s, hops).has(r)));
      expect(sellers.length).toBe(g.params.sellers);
      // and each seller sweeps its takings back to the root: a funding cycle
      for (const s of sellers)
        expect(
          root.some((r) => (fundings.get(r) ?? []).some((f) => f.funder === s)),
          s,
        ).toBe(true);
      // no seller gets every member; most members (those with more than a call or two) pay two or more of them
      if (g.params.sellerShare! < 0.6) for (const s of sellers) expect(paid.get(s)!).toBeLessThan(m.length);
      const spreadOver = (a: string) =>
        new Set(
          paymentsOf
            .get(a)!
            .map((t) => String(t[3]))
            .filter((s) => sellers.includes(s)),
        ).size;
      expect(m.filter((a) => spreadOver(a) >= 2).length / m.length).toBeGreaterThan(0.7);
      // and the operator's services have organic buyers too
      for (const s of sellers)
        expect(
          [...buyersOfSeller.get(s)!].some((b) => organic.includes(b)),
          s,
        ).toBe(true);
    }

    for (const g of groups('dev_event')) {
      const m = members(g);
      // one organisation funds every attendee the same amount; all start within the window, each calling its services
      expect(new Set(m.map((a) => first(a).funder)).size).toBe(1);
      expect(new Set(m.map((a) => first(a).amount)).size).toBe(1);
      const starts = m.map((a) => (paymentsOf.get(a)![0]![5] as Date).getTime());
      expect(spread(starts) / 60_000).toBeLessThanOrEqual(g.params.startWindowMinutes!);
      expect(spread(starts)).toBeLessThanOrEqual(HOUR);
      for (const a of m) expect(new Set(paymentsOf.get(a)!.map((t) => String(t[6]))).size).toBe(g.params.servicesPerAttendee);
    }

    for (const g of groups('onboarding')) {
      const m = members(g);
      // one paymaster, the same small grant to every sign-up
      expect(new Set(m.map((a) => first(a).funder)).size).toBe(1);
      expect(new Set(m.map((a) => first(a).amount))).toEqual(new Set([Math.round(g.params.grantUsd! * 100) / 100]));
      expect(first(m[0]!).amount).toBeLessThanOrEqual(3);
    }

    for (const g of groups('viral_api')) {
      const m = members(g);
      // one service at one price, paid by wallets with many different funders
      const viral = String(paymentsOf.get(m[0]!)![0]![6]);
      const calls = w.transactions.filter((t) => m.includes(String(t[2])) && t[6] === viral);
      expect(new Set(calls.map((t) => String(t[2]))).size).toBe(m.length);
      expect(new Set(calls.map((t) => Number(t[4]))).size).toBe(1);
      expect(new Set(m.map((a) => first(a).funder)).size).toBeGreaterThan(m.length / 3);
    }

    for (const g of groups('ci_fleet')) {
      const m = members(g);
      // one treasury funds the fleet; the company's seller (the one every wallet pays) sweeps its takings to it
      const treasury = new Set(m.map((a) => first(a).funder));
      expect(treasury.size).toBe(1);
      const common = m
        .map((a) => new Set(paymentsOf.get(a)!.map((t) => String(t[3]))))
        .reduce((x, y) => new Set([...x].filter((s) => y.has(s))));
      const company = [...common].find((s) => (fundings.get([...treasury][0]!) ?? []).some((f) => f.funder === s));
      expect(company).toBeDefined();
    }

    for (const g of groups('research_crawler')) {
      const m = members(g);
      expect(m.length).toBe(g.wallets);
      // each crawl pays a service once: no service paid more than crawls times, and a large share paid
      const calls = m.flatMap((a) => paymentsOf.get(a)!);
      const perService = new Map<string, number>();
      for (const t of calls) perService.set(String(t[6]), (perService.get(String(t[6])) ?? 0) + 1);
      expect(Math.max(...perService.values())).toBeLessThanOrEqual(g.params.crawls!);
      const firstCrawl = Math.min(...calls.map((t) => (t[5] as Date).getTime()));
      const listed = w.services.filter((s) => (s[7] as Date).getTime() < firstCrawl).length;
      expect(perService.size).toBeGreaterThanOrEqual(Math.floor(g.params.coverage! * listed) - 1);
    }

    for (const g of groups('payroll')) {
      const m = members(g);
      // one payer, identical amounts, each payday's payments within its window
      expect(new Set(m.map((a) => first(a).funder)).size).toBe(1);
      const pay = m.flatMap((a) => fundings.get(a)!);
      expect(new Set(pay.map((f) => f.amount)).size).toBe(1);
      const byDay = new Map<number, number[]>();
      for (const f of pay) byDay.set(Math.floor(f.time / 86_400_000), [...(byDay.get(Math.floor(f.time / 86_400_000)) ?? []), f.time]);
      expect(byDay.size).toBe(g.params.paydays);
      for (const times of byDay.values()) {
        expect(times.length).toBeGreaterThanOrEqual(m.length);
        expect(spread(times) / 60_000).toBeLessThanOrEqual(g.params.payWindowMinutes! + 1e-6);
      }
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
    // whether this seed meets a target changes with the classifier (issue 29's classes are missed today), so the MISSED marking is checked on the table itself
    const [, missed, met] = targetsTable([
      { name: 'suspected_wash recall', value: 0.63, target: '>= 0.95', met: false },
      { name: 'suspected_wash precision', value: 0.99, target: '>= 0.97', met: true },
    ]);
    expect(missed).toMatch(/0\.630 +target >= 0\.95 +MISSED$/);
    expect(met).toMatch(/0\.990 +target >= 0\.97 +met$/);
  }, 60_000);
});
