import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', 'site/dist/**', 'site/.work/**', 'snapshots/store/**', 'snapshots/site/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // One test file per core. Vitest's default (cores - 1) is a single worker on the 2-core
    // machines this runs on, which left a core idle most of the run: ten pipeline and source
    // files took 198 s with one worker and 109-151 s with two.
    maxWorkers: '100%',
    // the demo snapshots the read-only tests share (pipelines/testing/shared-demo.ts)
    globalSetup: ['pipelines/testing/global-setup.ts'],
  },
});
