/**
 * The order test files start in: the longest first, whatever their project, so the two workers
 * finish together instead of one running a long file alone at the end (longest-processing-time
 * scheduling). Vitest's own order runs the projects one after another and, without the results
 * cache of an earlier run (a clean clone in CI has none), the larger files first.
 *
 * LONGEST holds the files over about 10 s on the 2-core machine, longest first, as measured by
 * `npx vitest run --reporter=json --outputFile=<file>` (each file's endTime - startTime); the
 * others follow in vitest's order. Groups (`sequence.groupOrder`) still run one after the other.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const LONGEST = [
  'site/browser.test.ts',
  'pipelines/analytics/incremental.test.ts',
  'pipelines/pipeline.test.ts',
  'snapshots/snapshots.test.ts',
  'pipelines/korea/datasets/ai-products.test.ts',
  'proxy/site.test.ts',
  'sources/file/analytics-files.test.ts',
  'sources/live/analytics/segments.test.ts',
  'pipelines/analytics/labels.test.ts',
  'sources/demo/analytics/world.test.ts',
  'sources/demo/korea/world.test.ts',
  'lib/typecheck.test.ts',
  'sources/demo/analytics/challenge/challenge.test.ts',
  'site/content-pages.test.ts',
  'pipelines/analytics/datasets/datasets.test.ts',
  'site/methodology.test.ts',
  'sources/live/korea/documented-payloads.test.ts',
  'proxy/redis-persistence.test.ts',
  'pipelines/korea/formulas.test.ts',
  'scripts/pay.test.ts',
  'sources/live/korea/korea-live.test.ts',
  'site/check.test.ts',
  'proxy/snapshot-planted.test.ts',
  'proxy/serve-stop.test.ts',
  'proxy/nonce-store-faults.test.ts',
  'sources/demo/cli.test.ts',
];

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const rank = (spec: TestSpecification): number => {
      const i = LONGEST.indexOf(relative(this.ctx.config.root, spec.moduleId));
      return i < 0 ? LONGEST.length : i;
    };
    const position = new Map(base.map((spec, i) => [spec, i]));
    return [...base].sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
        rank(a) - rank(b) ||
        position.get(a)! - position.get(b)!,
    );
  }
}
