/**
 * The family world (issue 46): an honest background (sellers with Zipf popularity, organic users
 * funded from five exchanges, one of them large) and every family of WASH_FAMILIES and
 * HONEST_FAMILIES planted `instances` times, each instance with its own draw of the family's
 * parameters. Same output tables as the challenge world (services, transactions, funding,
 * exchanges, demo_truth_buyers, demo_truth_pairs), so the pipeline, the file import and
 * `npm run eval:wash` read it as they read the others.
 *
 * Every family draws from a stream of its own (seed and family name): adding, removing or changing a
 * family never shifts another family's draws, and `only` plants a subset with the same rows for
 * the families it keeps.
 */
import type { Row } from '../../../../lib/duckdb.ts';
import { Rng } from '../../random.ts';
import { Builder, CHAIN, DAY, HISTORY_DAYS, HOUR, organicUse, type PlantedGroup, SOURCE } from '../challenge/builder.ts';
import type { FamilyContext, FamilyDef, FamilyParam, TruthLabel } from './family.ts';
import { HONEST_FAMILIES } from './honest.ts';
import { WASH_FAMILIES } from './wash.ts';

export const FAMILIES: Record<string, FamilyDef> = { ...WASH_FAMILIES, ...HONEST_FAMILIES };

/** The background's organic users' pattern name (scored like a family, but planted once, not drawn). */
export const BACKGROUND = 'background_organic';

export const FAMILY_BACKGROUND = {
  /** honest sellers, each with 1-4 services listed over the history */
  sellers: 150,
  /** organic users paying popular honest services */
  organicUsers: 1200,
} as const;

export interface FamilyWorldOptions {
  seed: number;
  now: Date;
  /** Plant only these families (default every family). */
  only?: readonly string[];
  /** Multiplies every family's instance count (default 1). */
  instanceScale?: number;
}

export interface FamilyWorld {
  services: Row[];
  transactions: Row[];
  funding: Row[];
  exchanges: Row[];
  truthBuyers: Row[];
  truthPairs: Row[];
  groups: PlantedGroup[];
}

export function drawFamilyParams(rng: Rng, params: Record<string, FamilyParam>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, spec] of Object.entries(params)) {
    const [lo, hi] = spec.range;
    out[name] = spec.integer ? rng.int(lo, hi) : rng.uniform(lo, hi);
  }
  return out;
}

export function familyWorld(opts: FamilyWorldOptions): FamilyWorld {
  const now = opts.now.getTime();
  if (!Number.isInteger(opts.seed)) throw new Error(`familyWorld: seed must be an integer, got ${opts.seed}`);
  if (!Number.isFinite(now)) throw new Error('familyWorld: now must be a valid Date');
  const unknown = (opts.only ?? []).filter((f) => !(f in FAMILIES));
  if (unknown.length > 0) throw new Error(`familyWorld: unknown famil${unknown.length === 1 ? 'y' : 'ies'} ${unknown.join(', ')}`);
  const b = new Builder(new Rng(opts.seed, 'x402-families:background'), now);

  for (let k = 0; k < FAMILY_BACKGROUND.sellers; k++) {
    const seller = b.address();
    const listed = now - b.rng.uniform(5, HISTORY_DAYS) * DAY;
    for (let j = b.rng.int(1, 4); j > 0; j--) b.service(seller, listed + b.rng.uniform(0, 30) * DAY, true);
  }
  const organic = (w: string) => b.plantBuyer(w, BACKGROUND, 'organic_user', null);
  for (let k = 0; k < FAMILY_BACKGROUND.organicUsers; k++) {
    const w = b.address();
    organic(w);
    const start = organicUse(b, w, null);
    b.withdraw(w, start - b.rng.uniform(0.5, 200) * HOUR);
  }

  // families pick popular services from the background's only: a family's own services never shift another's draws
  b.popularPool = [...b.honestServices];
  const scale = opts.instanceScale ?? 1;
  for (const [name, def] of Object.entries(FAMILIES)) {
    if (opts.only && !opts.only.includes(name)) continue;
    b.rng = new Rng(opts.seed, `x402-families:${name}`);
    const instances = Math.max(1, Math.round(def.instances * scale));
    for (let i = 0; i < instances; i++) {
      const q = drawFamilyParams(b.rng, def.params);
      const group = b.group(name, i, q, 0);
      const planted = b.groups[b.groups.length - 1]!;
      const ctx: FamilyContext = {
        b,
        family: name,
        group,
        label: def.label as TruthLabel,
        buyer: (address) => {
          b.plantBuyer(address, name, def.label, group);
          planted.wallets += 1;
        },
        organic,
      };
      def.plant(ctx, q);
    }
  }

  b.transactions.sort((x, y) => x.time - y.time || (x.hash < y.hash ? -1 : 1));
  b.funding.sort((x, y) => x.time - y.time || (String(x.row[0]) < String(y.row[0]) ? -1 : 1));
  const paying = new Set([...b.pairs.values()].map((p) => p.address));
  return {
    services: b.services.map((s, n) => [
      CHAIN,
      s.seller,
      s.url,
      `Family-world service ${n + 1} (demo)`,
      'Synthetic family-world listing (demo data, not a real service).',
      s.category,
      s.price,
      new Date(Math.floor(s.firstSeen)),
      SOURCE,
    ]),
    transactions: b.transactions.map((t) => t.row),
    funding: b.funding.map((f) => f.row),
    exchanges: b.exchanges.map((a, n) => [a, `family-exchange-${n + 1}`, SOURCE]),
    truthBuyers: [...b.buyers.entries()]
      .filter(([a]) => paying.has(a))
      .sort(([a], [c]) => (a < c ? -1 : 1))
      .map(([a, t]) => [a, t.label, t.pattern, 'family', t.group]),
    truthPairs: [...b.pairs.values()]
      .sort((x, y) => (x.address < y.address ? -1 : x.address > y.address ? 1 : x.seller < y.seller ? -1 : 1))
      .map((p) => [p.address, p.seller, CHAIN, p.label]),
    groups: b.groups,
  };
}
