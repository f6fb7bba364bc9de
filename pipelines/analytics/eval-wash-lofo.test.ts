/**
 * The leave-one-family-out fit (eval-wash-lofo.ts) on a small table of evidence candidates written
 * the way a world's run writes them, and the published record: the model the classifier uses is the
 * one the record fitted on every family, and the record covers issue 46's families.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WASH_MODEL } from '../../catalog/wash-model.ts';
import { sqlString } from '../../lib/duckdb.ts';
import { WashLofoSchema } from '../../site/lib/methodology.ts';
import washLofoJson from '../../site/data/wash-lofo.json' with { type: 'json' };
import { FAMILIES } from '../../sources/demo/analytics/families/world.ts';
import { openWarehouse } from '../warehouse.ts';
import { learnedLofo } from './eval-wash-learned.ts';
import { type FitData, fitData, fitModel, ModelScores } from './eval-wash-lofo.ts';

/** Three families of 20 buyers, each in one coordinated group that lives for its operator. */
const GROUPS = [
  { family: 'wash_big', label: 'suspected_wash', dominance: 0.9 },
  { family: 'wash_mid', label: 'suspected_wash', dominance: 0.6 },
  // honest, close below the wash: the fit must draw the line between 0.45 and 0.6
  { family: 'honest_mid', label: 'organic_user', dominance: 0.45 },
];

let dir: string;
let data: FitData;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lofo-test-'));
  const w = await openWarehouse(':memory:', 'analytics', {});
  const rows = GROUPS.flatMap((g, gi) =>
    Array.from({ length: 20 }, (_, i) => {
      const bk = gi * 100 + i + 1;
      return `(1, ${bk}::UBIGINT, ${bk}::UBIGINT, 'funding_burst', 20, ${g.dominance}, 5.0, 0.9, 0.9, false, false, false, NULL::DOUBLE, false, '${g.family}', '${g.label}')`;
    }),
  );
  await w.connection.run(`CREATE TABLE c AS SELECT * FROM (VALUES ${rows.join(', ')})
      t(seed, pk, bk, kind, wallets, dominance, span_days, life, op_share, periodic, diversified, agent_like, trail_cover, vanity_operator, family, label);
    COPY (SELECT * EXCLUDE (family, label) FROM c) TO ${sqlString(join(dir, 'candidates-1.parquet'))} (FORMAT parquet);
    COPY (SELECT seed, bk, family, label FROM c) TO ${sqlString(join(dir, 'truth-1.parquet'))} (FORMAT parquet)`);
  w.close();
  data = await fitData(dir);
});

afterAll(() => {
  data?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the fit', () => {
  it('draws the line between the honest family and the wash it must catch, at the strict edge', async () => {
    const scores = new ModelScores(data);
    const all = await fitModel(scores, data.families, null);
    expect(all.cohortDominance).toBe(0.5);
    const [rates] = await scores.rates([all]);
    expect(Object.fromEntries(rates!)).toEqual({ wash_big: 1, wash_mid: 1, honest_mid: 0 });
  });

  it('judges a held-out family by thresholds fitted without it: a wash family nobody showed it is missed', async () => {
    const scores = new ModelScores(data);
    const withoutMid = await fitModel(scores, data.families, 'wash_mid');
    // only the 0.9 cohort needs catching, so the fit stays as strict as that allows
    expect(withoutMid.cohortDominance).toBe(0.8);
    const [rates] = await scores.rates([withoutMid]);
    expect(rates!.get('wash_mid')).toBe(0);
    expect(rates!.get('wash_big')).toBe(1);
    const withoutHonest = await fitModel(scores, data.families, 'honest_mid');
    const [r2] = await scores.rates([withoutHonest]);
    expect(r2!.get('honest_mid')).toBe(0);
  });

  it('scores a learned scorer the same way, with its feature weights', async () => {
    const r = await learnedLofo(data, data.families, { rounds: 20 });
    expect([...r.lofo.keys()].sort()).toEqual(['honest_mid', 'wash_big', 'wash_mid']);
    for (const v of r.lofo.values()) expect(v).toBeGreaterThanOrEqual(0);
    // the only feature that differs between the families carries the weight
    expect(r.importance[0]!.feature).toBe('group_dominance');
    expect(r.importance.reduce((s, x) => s + x.weight, 0)).toBeCloseTo(1, 6);
  });
});

describe('site/data/wash-lofo.json', () => {
  const lofo = WashLofoSchema.parse(washLofoJson);

  it('fitted the thresholds the classifier uses (catalog/wash-model.json)', () => {
    expect(lofo.model).toEqual(WASH_MODEL.thresholds);
  });

  it("scores every family of the family world, at least issue 46's 24 wash and 12 honest", () => {
    const names = new Set(lofo.families.map((f) => f.family));
    for (const name of Object.keys(FAMILIES)) expect(names.has(name), name).toBe(true);
    const fw = lofo.families.filter((f) => f.family in FAMILIES);
    expect(fw.filter((f) => f.kind === 'wash').length).toBeGreaterThanOrEqual(24);
    expect(fw.filter((f) => f.kind === 'honest').length).toBeGreaterThanOrEqual(12);
    // the macro figures are the families' own
    const wash = lofo.families.filter((f) => f.kind === 'wash');
    expect(lofo.macro.washRecall).toBeCloseTo(wash.reduce((s, f) => s + f.lofo, 0) / wash.length, 9);
  });
});
