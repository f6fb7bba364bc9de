import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Test files that assert wall-clock timings of child processes or timers (npm start serving
 * within 25 s, the scheduler's 1 s slots): they run after the others, side by side, instead of
 * beside a pipeline-heavy file on the same 2 cores.
 */
const TIMING = ['scripts/start.test.ts', 'pipelines/schedule.test.ts'];
const EXCLUDE = [...configDefaults.exclude, 'site/dist/**', 'site/.work/**', 'snapshots/store/**', 'snapshots/site/**'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // One test file per core. Vitest's default (cores - 1) is a single worker on the 2-core
    // machines this runs on, which left a core idle most of the run: ten pipeline and source
    // files took 198 s with one worker and 109-151 s with two.
    maxWorkers: '100%',
    // the demo snapshots the read-only tests share (pipelines/testing/shared-demo.ts)
    globalSetup: ['pipelines/testing/global-setup.ts'],
    projects: [
      { extends: true, test: { name: 'suite', include: ['**/*.test.ts'], exclude: [...EXCLUDE, ...TIMING], sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'timing', include: TIMING, exclude: EXCLUDE, sequence: { groupOrder: 1 } } },
    ],
  },
});
