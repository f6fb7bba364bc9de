/**
 * Test support: both services' apps as proxy/serve.ts builds them (createServiceApp) over the
 * demo snapshots a test was given (pipelines/testing/shared-demo.ts, demo-snapshots.ts: the proxy never runs
 * pipeline code, so the test passes them in), with test payments, at a fixed clock. For tests that
 * read documents and answers through the app, not through HTTP.
 */
import { rmSync } from 'node:fs';
import type { Hono } from 'hono';
import type { ServiceName } from '../../catalog/types.ts';
import type { Settings } from '../../lib/config.ts';
import { SnapshotReader } from '../../snapshots/reader.ts';
import { createServiceApp } from '../serve.ts';
import { ReceiptSigner } from '../../payments/receipts.ts';
import { testPaymentParts } from '../../payments/testing/paywall.ts';

export interface DemoApps {
  settings: Settings;
  root: string;
  app(service: ServiceName): Hono;
  close(): void;
}

/**
 * `published`: what sharedDemoSnapshots or publishDemoSnapshots returned (its root is removed by
 * close(); the shared snapshots are not in it); `salt` names the wash pattern salt.
 */
export async function demoApps(published: { root: string; settings: Settings }, now: string, salt: string): Promise<DemoApps> {
  const { root, settings } = published;
  const clock = () => new Date(now);
  const readers: SnapshotReader[] = [];
  const apps = new Map<ServiceName, Hono>();
  for (const service of ['korea', 'analytics'] as const) {
    const reader = new SnapshotReader(settings.snapshotsDir, service);
    readers.push(reader);
    await reader.refresh();
    const parts = { ...testPaymentParts({ signer: ReceiptSigner.random(), now: clock }), washPatternSalt: salt };
    apps.set(service, await createServiceApp(service, reader, settings, parts, { now: clock }));
  }
  return {
    settings,
    root,
    app: (service) => apps.get(service)!,
    close() {
      for (const r of readers) r.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
