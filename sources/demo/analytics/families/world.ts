import { Rng } from '../../random.ts';
import { Builder, type BuiltWorld, DAY, HISTORY_DAYS, HOUR, organicUse } from '../challenge/builder.ts';
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

export type FamilyWorld = BuiltWorld;

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

  return b.rows({ title: 'Family-world', world: 'family-world', exchange: 'family-exchange', difficulty: 'family' });
}
