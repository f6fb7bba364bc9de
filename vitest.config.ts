import { configDefaults, defineConfig } from 'vitest/config';
import LongestFirst from './vitest.sequencer.ts';

/**
 * Test files that assert wall-clock timings of child processes or timers (npm start serving
 * within 25 s, the scheduler's 1 s slots): they run after the others, side by side, instead of
 * beside a pipeline-heavy file on the same 2 cores.
 */
const TIMING = ['scripts/start.test.ts', 'pipelines/schedule.test.ts'];
/**
 * Folders of small test files that share one process per worker (`isolate: false`) instead of a
 * fresh one each: the imports of a fresh process cost about 1 s per file (the 65 small files of
 * these folders ran in 158 s isolated, 102-115 s sharing). A file that keeps module state or
 * drives a client that does goes into ISOLATED.
 */
const SHARED_PROCESS = [
  'bench/*.test.ts',
  'catalog/*.test.ts',
  'lib/*.test.ts',
  'payments/**/*.test.ts',
  'proxy/**/*.test.ts',
  'pipelines/korea/text/*.test.ts',
  'sources/live/**/*.test.ts',
  'site/lib/*.test.ts',
];
/**
 * Files of those folders that keep a process of their own: the official @x402/svm client against
 * a loopback Solana node (failed once after other files in the same process), and files that run
 * pipelines, child processes or fault injection, which were never run sharing one.
 */
const ISOLATED = [
  'payments/chains-service.test.ts',
  'payments/official-client.test.ts',
  'payments/solana.test.ts',
  'proxy/nonce-store-faults.test.ts',
  'proxy/redis-persistence.test.ts',
  'proxy/serve-stop.test.ts',
  'proxy/snapshot-pull.test.ts',
  'proxy/site.test.ts',
  'proxy/snapshot-planted.test.ts',
  'proxy/stores.test.ts',
  'sources/live/analytics/live-runs.test.ts',
  'sources/live/analytics/real-payloads.test.ts',
  'sources/live/analytics/segments.test.ts',
  'sources/live/korea/documented-payloads.test.ts',
  'sources/live/korea/korea-live.test.ts',
];
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
    // the longest files first, across projects (vitest.sequencer.ts)
    sequence: { sequencer: LongestFirst },
    // the demo snapshots the read-only tests share (pipelines/testing/shared-demo.ts)
    globalSetup: ['pipelines/testing/global-setup.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: SHARED_PROCESS,
          exclude: [...EXCLUDE, ...ISOLATED, ...TIMING],
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['**/*.test.ts'],
          exclude: [...EXCLUDE, ...TIMING, ...SHARED_PROCESS],
          sequence: { groupOrder: 0 },
        },
      },
      { extends: true, test: { name: 'isolated', include: ISOLATED, exclude: EXCLUDE, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'timing', include: TIMING, exclude: EXCLUDE, sequence: { groupOrder: 1 } } },
    ],
  },
});
