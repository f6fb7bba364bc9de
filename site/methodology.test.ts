/**
 * The methodology page's model and the evaluation record it shows: every constant of the
 * classifier is in the model with its value, and site/data/wash-eval.json is what
 * `npm run eval:wash -- --seed 1 --held-out 4 --ood-seed 1 --write site/data/wash-eval.json` writes
 * today, both splits (so a change to the classifier, its thresholds, the demo world or the challenge
 * world that moves the scores fails here until the file is rewritten).
 */
import { describe, expect, it } from 'vitest';
import { RULE_CONFIDENCE, THRESHOLDS } from '../catalog/wash-rules.ts';
import { evaluateChallengeWorld, evaluateWash, TARGETS, washEvalRecord } from '../pipelines/analytics/eval-wash.ts';
import { ISSUE_29_CROWDS } from '../sources/demo/analytics/challenge/regimes.ts';
import washEvalJson from './data/wash-eval.json' with { type: 'json' };
import { methodologyModel, WashEvalRecordSchema } from './lib/methodology.ts';

describe('methodologyModel', () => {
  it('holds every threshold once with the value of THRESHOLDS and every rule with RULE_CONFIDENCE', () => {
    const model = methodologyModel();
    const rows = model.groups.flatMap((g) => g.thresholds);
    expect(rows.map((r) => r.key).sort()).toEqual(Object.keys(THRESHOLDS).sort());
    for (const r of rows) {
      expect(r.value, r.key).toBe(THRESHOLDS[r.key]);
      expect(r.valueText, r.key).toBe(String(THRESHOLDS[r.key]));
      expect(r.meaning.length, r.key).toBeGreaterThan(10);
    }
    expect(Object.fromEntries(model.rules.map((r) => [r.rule, r.confidence]))).toEqual(RULE_CONFIDENCE);
    // the conflicting organic rule sits below the unlabeled band, so it is published as unlabeled
    expect(model.rules.find((r) => r.rule === 'organic_conflicting')?.belowBand).toBe(true);
  });

  it('refuses an evaluation record of the wrong shape', () => {
    expect(() => methodologyModel({ measured_on: 'x', runs: [] })).toThrow();
    // one split alone is not the record the page shows
    const only = { ...washEvalJson, splits: washEvalJson.splits.slice(0, 1) };
    expect(() => methodologyModel(only)).toThrow();
  });
});

describe('site/data/wash-eval.json', () => {
  it("holds the usual and the out-of-distribution split, each run scored against issue 15's targets", () => {
    const recorded = WashEvalRecordSchema.parse(washEvalJson);
    expect(recorded.targets).toEqual(TARGETS);
    expect(recorded.splits.map((s) => [s.split, s.world])).toEqual([
      ['usual', 'demo'],
      ['ood', 'challenge'],
    ]);
    for (const split of recorded.splits) {
      for (const run of split.runs) {
        // the missed list is exactly the targets marked not met, and each mark agrees with its value
        expect(run.targets_missed.length).toBe(run.targets.filter((t) => !t.met).length);
        for (const t of run.targets)
          expect(t.met, t.name).toBe(
            t.target.startsWith('>=') ? t.value >= Number(t.target.slice(3)) : t.value <= Number(t.target.slice(3)),
          );
        expect(run.patterns.reduce((n, p) => n + p.wallets, 0)).toBe(run.buyer.reduce((n, s) => n + s.truth, 0));
      }
    }
    // the demo world plants issue 15's patterns, so its per-pattern rows name them
    const usualPatterns = recorded.splits[0]!.runs[0]!.patterns.map((p) => p.pattern);
    for (const p of ['sybil_spread', 'vanity_exchange', 'round_trip', 'hackathon', 'agent_fleet', 'heavy_single'])
      expect(usualPatterns).toContain(p);
    // issue 29: each honest crowd the challenge world plants is scored against its own target there,
    // and nowhere else (the demo world plants none)
    const crowdTargets = (run: (typeof recorded.splits)[number]['runs'][number]) =>
      run.targets.filter((t) => ISSUE_29_CROWDS.some((c) => t.name === `${c} flagged as wash`));
    for (const run of recorded.splits[1]!.runs) {
      expect(crowdTargets(run).map((t) => [t.name.split(' ')[0], t.target])).toEqual(
        ISSUE_29_CROWDS.map((c) => [c, `<= ${TARGETS.crowdAsWash}`]),
      );
    }
    for (const run of recorded.splits[0]!.runs) expect(crowdTargets(run)).toEqual([]);
  });

  it('is what eval:wash writes for the same seeds today', async () => {
    const recorded = WashEvalRecordSchema.parse(washEvalJson);
    const [usual, ood] = recorded.splits;
    const usualResults = [];
    for (const r of usual!.runs) usualResults.push(await evaluateWash({ seed: r.seed, scale: r.scale!, now: new Date(r.now) }));
    const oodResults = [];
    for (const r of ood!.runs) oodResults.push(await evaluateChallengeWorld({ seed: r.seed, split: 'ood', now: new Date(r.now) }));
    const heldOut = new Set(usual!.runs.filter((r) => r.held_out).map((r) => r.seed));
    // through JSON, as the file went: the comparison sees exactly what --write would write
    expect(JSON.parse(JSON.stringify(washEvalRecord(usualResults, heldOut, oodResults)))).toEqual(washEvalJson);
  }, 180_000);
});
