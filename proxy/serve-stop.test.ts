/**
 * Stopping the proxy right after it starts (a deploy's quick restart, a SIGTERM during start-up)
 * must not crash it: the analytics snapshot warms up on load with DuckDB statements still running
 * when stopServices closes DuckDB, and closing a connection under a running statement ended the
 * process with a segmentation fault (within 20 start-stop cycles every time on the old code). A
 * crash here ends the test worker, which fails the run. Through startServices and stopServices,
 * what `npm run serve` and its SIGINT/SIGTERM handler call.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Settings } from '../lib/config.ts';
import { sharedDemoSnapshots } from '../pipelines/testing/shared-demo.ts';
import { startServices, stopServices } from './serve.ts';

let root: string;
let settings: Settings;

beforeAll(async () => {
  ({ root, settings } = await sharedDemoSnapshots('serve-stop-test-', { env: { KOREA_PORT: '0', ANALYTICS_PORT: '0' } }));
}, 600_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

it('stops cleanly however soon after the start, and serves again after', async () => {
  for (let i = 0; i < 20; i++) {
    const running = await startServices(settings);
    await stopServices(running);
  }
  // a start after those stops opens DuckDB again and answers from the snapshot
  const running = await startServices(settings);
  try {
    const analytics = running.find((r) => r.service === 'analytics')!;
    const res = await fetch(`${analytics.url}/api/v1/services?page_size=1`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { services: unknown[] };
    expect(body.services).toHaveLength(1);
  } finally {
    await stopServices(running);
  }
}, 120_000);
