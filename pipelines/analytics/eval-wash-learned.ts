/**
 * The learned scorer issue 46 asks the rules to be compared with: gradient-boosted trees
 * (ml-xgboost: XGBoost compiled to WebAssembly) over the same evidence the verdict reads, trained on
 * the families and scored leave-one-family-out exactly as the fitted thresholds are
 * (docs/wash-methodology.md §9.2). It decides nothing in production: `npm run eval:wash -- --lofo
 * --learned` prints both side by side so the choice between them rests on figures.
 *
 * One row per buyer with evidence candidates (EVIDENCE_CANDIDATES_SQL, what the fit reads), its
 * features the largest over its pairs; a buyer without candidates is flagged by neither scorer. Both
 * sides are scored the same way here, from the candidates: a family's rate is its buyers flagged
 * over its buyers, all seeds together (the rules' side is ModelScores, the fit's own scoring).
 */
import { createRequire } from 'node:module';
import { queryJson } from '../../lib/duckdb.ts';
import type { DuckDBConnection } from '@duckdb/node-api';

/** What the forest reads of the fit's tables (eval-wash-lofo.ts FitData: fit_candidates, fit_truth). */
interface FitTables {
  connection: DuckDBConnection;
}

interface Booster {
  train(x: number[][], y: number[]): void;
  predict(x: number[][]): number[];
  free(): void;
}
type BoosterClass = new (options: Record<string, string | number>) => Booster;

/** The library exports a promise of the class (its WebAssembly loads first); it has no type declarations. */
async function loadBooster(): Promise<BoosterClass> {
  // its CommonJS build resolves its .wasm beside itself; the ES build does not
  return (await createRequire(import.meta.url)('ml-xgboost')) as BoosterClass;
}

export const LEARNED_ABOUT =
  'gradient-boosted trees (XGBoost via ml-xgboost: 100 rounds, depth 4, eta 0.1, subsample 0.8) over 15 evidence features per buyer, trained on up to 300 buyers of every other family, flagged at p >= 0.5';

/** The features, in the order the forest sees them. */
export const LEARNED_FEATURES = [
  'trail_cover',
  'trail_wallets_log',
  'trail_dominance',
  'trail_span_days',
  'trail_life',
  'group_wallets_log',
  'group_dominance',
  'group_span_days',
  'group_life',
  'coordination_kinds',
  'op_share',
  'periodic',
  'diversified',
  'agent_like',
  'vanity_operator',
] as const;

const FEATURES_SQL = `SELECT c.seed, c.bk, any_value(t.family) AS family, any_value(t.label) = 'suspected_wash' AS wash,
       coalesce(max(c.trail_cover), 0) AS trail_cover,
       coalesce(ln(1 + max(c.wallets) FILTER (WHERE c.kind = 'money_trail')), 0) AS trail_wallets_log,
       coalesce(max(c.dominance) FILTER (WHERE c.kind = 'money_trail'), 0) AS trail_dominance,
       coalesce(max(c.span_days) FILTER (WHERE c.kind = 'money_trail'), 0) AS trail_span_days,
       coalesce(max(c.life) FILTER (WHERE c.kind = 'money_trail'), 0) AS trail_life,
       coalesce(ln(1 + max(c.wallets) FILTER (WHERE c.kind <> 'money_trail')), 0) AS group_wallets_log,
       coalesce(max(c.dominance) FILTER (WHERE c.kind <> 'money_trail'), 0) AS group_dominance,
       coalesce(max(c.span_days) FILTER (WHERE c.kind <> 'money_trail'), 0) AS group_span_days,
       coalesce(max(c.life) FILTER (WHERE c.kind <> 'money_trail'), 0) AS group_life,
       count(DISTINCT c.kind) FILTER (WHERE c.kind <> 'money_trail') AS coordination_kinds,
       coalesce(max(c.op_share), 0) AS op_share,
       bool_or(c.periodic)::INTEGER AS periodic,
       bool_or(c.diversified)::INTEGER AS diversified,
       bool_or(c.agent_like)::INTEGER AS agent_like,
       bool_or(c.vanity_operator)::INTEGER AS vanity_operator,
       -- a stable draw for the per-family training sample
       hash(c.seed, c.bk) AS draw
  FROM fit_candidates c JOIN fit_truth t ON t.seed = c.seed AND t.bk = c.bk
 GROUP BY c.seed, c.bk`;

interface Row {
  family: string;
  wash: boolean;
  x: number[];
  draw: bigint;
}

export interface LearnedOptions {
  /** Training buyers per family at most (families weigh alike, whatever their size). */
  perFamily?: number;
  /** Boosting rounds. */
  rounds?: number;
  maxDepth?: number;
  /** A buyer is flagged when the boosted probability of wash reaches this. */
  threshold?: number;
  seed?: number;
  log?: (line: string) => void;
}

type Settings = Required<Omit<LearnedOptions, 'log'>>;

export interface LearnedResult {
  options: Settings;
  /** Per family: its recall (wash) or flagged share (honest) with the trees trained without it. */
  lofo: Map<string, number>;
  /**
   * The trees trained on every family: each feature's weight, by permutation (how much the balanced
   * accuracy on the training sample drops when that feature's column is shuffled), summing to 1.
   */
  importance: Array<{ feature: string; weight: number }>;
}

/** The training sample without `heldOut`: each family's first `perFamily` buyers by a stable draw. */
function sample(rows: readonly Row[], heldOut: string | null, perFamily: number): Row[] {
  const byFamily = new Map<string, Row[]>();
  for (const r of rows) {
    if (r.family === heldOut) continue;
    const list = byFamily.get(r.family) ?? [];
    list.push(r);
    byFamily.set(r.family, list);
  }
  const out: Row[] = [];
  for (const list of byFamily.values())
    out.push(...[...list].sort((a, b) => (a.draw < b.draw ? -1 : a.draw > b.draw ? 1 : 0)).slice(0, perFamily));
  return out;
}

function train(Boost: BoosterClass, rows: readonly Row[], o: Settings): Booster {
  const booster = new Boost({
    booster: 'gbtree',
    objective: 'binary:logistic',
    max_depth: o.maxDepth,
    eta: 0.1,
    min_child_weight: 1,
    subsample: 0.8,
    colsample_bytree: 1,
    silent: 1,
    seed: o.seed,
    iterations: o.rounds,
  });
  booster.train(
    rows.map((r) => r.x),
    rows.map((r) => (r.wash ? 1 : 0)),
  );
  return booster;
}

/** Mean of the wash rows' recall and the honest rows' specificity. */
function balancedAccuracy(p: readonly number[], rows: readonly Row[], threshold: number): number {
  let tp = 0;
  let pos = 0;
  let tn = 0;
  let neg = 0;
  rows.forEach((r, i) => {
    const flagged = p[i]! >= threshold;
    if (r.wash) {
      pos++;
      if (flagged) tp++;
    } else {
      neg++;
      if (!flagged) tn++;
    }
  });
  return (tp / Math.max(1, pos) + tn / Math.max(1, neg)) / 2;
}

/** Leave-one-family-out with boosted trees: one model per family, trained on every other family. */
export async function learnedLofo(
  data: FitTables,
  families: ReadonlyArray<{ family: string }>,
  options: LearnedOptions = {},
): Promise<LearnedResult> {
  const o: Settings = {
    perFamily: options.perFamily ?? 300,
    rounds: options.rounds ?? 100,
    maxDepth: options.maxDepth ?? 4,
    threshold: options.threshold ?? 0.5,
    seed: options.seed ?? 46,
  };
  const log = options.log ?? (() => {});
  const Boost = await loadBooster();
  const raw = await queryJson(data.connection, FEATURES_SQL);
  const rows: Row[] = raw.map((r) => ({
    family: String(r.family),
    wash: Boolean(r.wash),
    x: LEARNED_FEATURES.map((f) => Number(r[f] ?? 0)),
    draw: BigInt(String(r.draw)),
  }));
  // buyers per family (with or without candidates): the rates' denominators
  const sizes = new Map(
    (await queryJson(data.connection, 'SELECT family, count(*) AS n FROM fit_truth GROUP BY family')).map((r) => [
      String(r.family),
      Number(r.n),
    ]),
  );
  const lofo = new Map<string, number>();
  const t0 = performance.now();
  for (const [i, f] of families.entries()) {
    const mine = rows.filter((r) => r.family === f.family);
    let flagged = 0;
    if (mine.length > 0) {
      const booster = train(Boost, sample(rows, f.family, o.perFamily), o);
      try {
        flagged = booster.predict(mine.map((r) => r.x)).filter((v) => v >= o.threshold).length;
      } finally {
        booster.free();
      }
    }
    lofo.set(f.family, flagged / Math.max(1, sizes.get(f.family) ?? 0));
    if ((i + 1) % 20 === 0 || i + 1 === families.length)
      log(`boosted trees: trained without ${i + 1} of ${families.length} families (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }
  // weights of the model trained on every family, by permutation over its training sample
  const all = sample(rows, null, o.perFamily);
  const booster = train(Boost, all, o);
  try {
    const base = balancedAccuracy(booster.predict(all.map((r) => r.x)), all, o.threshold);
    const drops = LEARNED_FEATURES.map((_, j) => {
      // a fixed derangement: each row takes the feature of the row half the sample away
      const shifted = all.map((r, i) => {
        const x = [...r.x];
        x[j] = all[(i + Math.floor(all.length / 2)) % all.length]!.x[j]!;
        return x;
      });
      return Math.max(0, base - balancedAccuracy(booster.predict(shifted), all, o.threshold));
    });
    const total = drops.reduce((s, d) => s + d, 0) || 1;
    const importance = LEARNED_FEATURES.map((feature, j) => ({ feature, weight: drops[j]! / total })).sort((a, b) => b.weight - a.weight);
    return { options: o, lofo, importance };
  } finally {
    booster.free();
  }
}
