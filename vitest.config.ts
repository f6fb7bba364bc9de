import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', 'site/dist/**', 'site/.work/**', 'snapshots/store/**', 'snapshots/site/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // the demo snapshots the read-only tests share (pipelines/testing/shared-demo.ts)
    globalSetup: ['pipelines/testing/global-setup.ts'],
  },
});
