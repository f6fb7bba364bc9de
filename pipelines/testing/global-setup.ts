/**
 * The vitest global setup (vitest.config.ts): an empty folder for the demo snapshots the tests of
 * one run share (pipelines/testing/shared-demo.ts publishes into it when a test first asks, so a
 * run of files that never ask costs nothing), removed at the end of the run. At the end it also
 * checks that no test wrote into the shared files: they are read-only by contract.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { changedSinceListing } from './shared-demo-listing.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder of the run's shared demo snapshots (see pipelines/testing/shared-demo.ts). */
    sharedDemoDir: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'shared-demo-'));
  project.provide('sharedDemoDir', dir);
  return () => {
    const changed = changedSinceListing(dir);
    rmSync(dir, { recursive: true, force: true });
    if (changed.length > 0) {
      process.exitCode = 1; // an error in a global teardown is only logged
      throw new Error(
        `a test wrote into the shared demo snapshots, which are read-only (copy them with copyOfSharedDemo instead): ${changed.slice(0, 10).join(', ')}`,
      );
    }
  };
}
