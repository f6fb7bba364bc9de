/**
 * The methodology page's model and the evaluation record it shows: every constant of the
 * classifier is in the model with its value, and site/data/wash-eval.json is what
 * `npm run eval:wash -- --seed 1 --held-out 4 --write site/data/wash-eval.json` writes today (so a
 * change to the classifier, its thresholds or the demo world that moves the scores fails here until
 * the file is rewritten).
 */
import { describe, expect, it } from 'vitest';
import { RULE_CONFIDENCE, THRESHOLDS } from '../catalog/wash-rules.ts';
import { evaluateWash, washEvalRecord } from '../pipelines/analytics/eval-wash.ts';
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
  });
});

describe('site/data/wash-eval.json', () => {
  it('is what eval:wash writes for the same seeds today', async () => {
    const recorded = WashEvalRecordSchema.parse(washEvalJson);
    const results = [];
    for (const r of recorded.runs) results.push(await evaluateWash({ seed: r.seed, scale: r.scale, now: new Date(r.now) }));
    const heldOut = new Set(recorded.runs.filter((r) => r.held_out).map((r) => r.seed));
    // through JSON, as the file went: the comparison sees exactly what --write would write
    expect(JSON.parse(JSON.stringify(washEvalRecord(results, heldOut)))).toEqual(washEvalJson);
  }, 120_000);
});
