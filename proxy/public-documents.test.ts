/**
 * What a new user reads, through the apps proxy/serve.ts builds (createServiceApp over the demo
 * snapshots `npm run pipeline -- all` publishes): no drafting notes in the service's own documents,
 * one service name, the analytics /docs with its CC0 license and only its own networks, the
 * manifest's next update from the schedule table, and trailing slashes redirected to the
 * canonical path.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Cron } from 'croner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICE_INFO } from '../catalog/index.ts';
import type { ServiceName } from '../catalog/types.ts';
import { readLatestPointer, SnapshotReader } from '../snapshots/reader.ts';
import { sharedDemoSnapshots } from '../pipelines/testing/shared-demo.ts';
import { createServiceApp } from './serve.ts';
import { demoApps, type DemoApps } from './testing/demo-apps.ts';
import { ReceiptSigner } from '../payments/receipts.ts';
import { testPaymentParts, type LooseJson } from '../payments/testing/paywall.ts';

const NOW = '2026-11-20T09:00:30Z';
const ORIGIN = 'http://127.0.0.1:9';
let demo: DemoApps;
beforeAll(async () => {
  demo = await demoApps(await sharedDemoSnapshots('public-documents-test-'), NOW, 'public-documents-test-salt');
}, 240_000);
afterAll(() => demo?.close());

const get = (service: ServiceName, path: string, init?: RequestInit) => demo.app(service).request(`${ORIGIN}${path}`, init);
const html = { headers: { Accept: 'text/html' } };

describe("the service's own documents", () => {
  const documents: Array<[ServiceName, string, RequestInit?]> = [
    ['korea', '/'],
    ['korea', '/', html],
    ['korea', '/llms.txt'],
    ['korea', '/docs'],
    ['korea', '/openapi.json'],
    ['korea', '/.well-known/x402'],
    ['analytics', '/llms.txt'],
    ['analytics', '/docs'],
    ['analytics', '/openapi.json'],
  ];
  it.each(documents)('%s %s says only the prices charged, with no drafting notes', async (service, path, init) => {
    const res = await get(service, path, init);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toMatch(/prose listing|older (prose )?listing|formal description's price/i);
    expect(text).not.toContain('0.002');
  });

  it('each service has one name: root document, OpenAPI, /docs and the landing say the catalog title', async () => {
    for (const [service, rootPath] of [['korea', '/']] as const) {
      const title = SERVICE_INFO[service].title;
      expect(((await (await get(service, rootPath)).json()) as LooseJson).name).toBe(title);
      expect(((await (await get(service, '/openapi.json')).json()) as LooseJson).info.title).toBe(title);
      expect(await (await get(service, '/docs')).text()).toContain(`<h1>${title}: API reference</h1>`);
    }
    expect(await (await get('korea', '/', html)).text()).toContain(`<title>${SERVICE_INFO.korea.title}`);
  });
});

describe('stale data in prose', () => {
  it('the korea landing and /docs say when stale data is of as people read a time, not as raw ISO 8601', async () => {
    const reader = new SnapshotReader(demo.settings.snapshotsDir, 'korea');
    await reader.refresh();
    const later = () => new Date('2026-12-20T09:00:00Z'); // a month on: every dataset stale
    const app = await createServiceApp(
      'korea',
      reader,
      demo.settings,
      { ...testPaymentParts({ signer: ReceiptSigner.random(), now: later }), washPatternSalt: 'public-documents-test-salt' },
      { now: later },
    );
    for (const [path, init] of [
      ['/', html],
      ['/docs', {}],
    ] as const) {
      const page = await (await app.request(`${ORIGIN}${path}`, init)).text();
      expect(page, path).toContain('The data is of 2026-11-20 09:00 UTC');
      // no ISO time in the landing's text (attributes such as datetime= may carry one; /docs has JSON examples)
      if (path === '/') expect(page.replace(/<[^>]*>/g, ' '), path).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d/);
    }
    reader.close();
  });
});

describe('analytics /docs', () => {
  it('names the CC0 license of its free data and only the networks analytics accepts', async () => {
    const page = await (await get('analytics', '/docs')).text();
    const freshness = /License: (.*?)\.<\/p>/.exec(page)?.[1] ?? '';
    expect(freshness).toContain('https://creativecommons.org/publicdomain/zero/1.0/');
    expect(freshness).not.toMatch(/proprietary/i);
    const howToPay = /<section id="how-to-pay".*?<\/section>/s.exec(page)?.[0] ?? '';
    expect(howToPay).toContain('--network base|solana');
    expect(howToPay).toContain('PAYER_PRIVATE_KEY');
    expect(howToPay).toContain('SOLANA_PAYER_KEY');
    expect(howToPay).not.toMatch(/polygon|xrpl|XRPL_PAYER_SEED/i);
  });

  it('korea /docs still lists its four networks and their keys', async () => {
    const howToPay = /<section id="how-to-pay".*?<\/section>/s.exec(await (await get('korea', '/docs')).text())?.[0] ?? '';
    expect(howToPay).toContain('--network base|polygon|solana|xrpl');
    expect(howToPay).toContain('XRPL_PAYER_SEED');
  });
});

describe('next_expected_update', () => {
  it.each([
    ['analytics', '*/15 * * * *'],
    ['korea', '* * * * *'],
  ] as const)('%s demo data: the next slot of the demo schedule table (%s)', (service, cron) => {
    const pointer = readLatestPointer(demo.settings.snapshotsDir, service)!;
    const manifest = JSON.parse(
      readFileSync(join(demo.settings.snapshotsDir, service, pointer.version, 'manifest.json'), 'utf8'),
    ) as LooseJson;
    const generated = new Date(manifest.generated_at);
    const next = new Cron(cron, { timezone: 'UTC', paused: true }).nextRun(generated)!;
    expect(manifest.next_expected_update).toBe(next.toISOString());
  });
});

describe('trailing slashes', () => {
  const redirects: Array<[ServiceName, string, string, string?]> = [
    ['analytics', '/api/v1/services/968/', '/api/v1/services/968'],
    ['analytics', '/api/v1/trends/', '/api/v1/trends'],
    ['analytics', '/api/v1/services/?page_size=2', '/api/v1/services?page_size=2'],
    ['analytics', '/api/v1/services/968/wash-detail/', '/api/v1/services/968/wash-detail'],
    ['analytics', '/api/v1/wash/check/', '/api/v1/wash/check', 'POST'],
    ['analytics', '/docs/', '/docs'],
    ['analytics', '/health//', '/health'],
    ['korea', '/api/v1/kimchi-premium/?symbol=ETH', '/api/v1/kimchi-premium?symbol=ETH'],
    ['korea', '/api/v1/xrpl/fx-rate/', '/api/v1/xrpl/fx-rate'],
    ['korea', '/llms.txt/', '/llms.txt'],
    ['korea', '/.well-known/x402/', '/.well-known/x402'],
  ];
  it.each(redirects)('%s %s redirects 308 to %s', async (service, path, canonical, method = 'GET') => {
    const res = await get(service, path, { method, redirect: 'manual' });
    expect(res.status).toBe(308);
    expect(res.headers.get('location')).toBe(canonical);
  });

  it('a path no route answers stays 404 with or without the slash', async () => {
    expect((await get('analytics', '/api/v1/nothing-here/')).status).toBe(404);
    expect((await get('korea', '/api/v1/nothing-here/')).status).toBe(404);
  });
});
