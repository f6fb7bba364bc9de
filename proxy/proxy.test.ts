import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findEndpoint, paidEndpoints } from '../catalog/index.ts';
import { loadSettings, type Settings } from '../lib/config.ts';
import { sharedDemoSnapshots } from '../pipelines/testing/shared-demo.ts';
import { SnapshotReader } from '../snapshots/reader.ts';
import { handlersFor } from './data/index.ts';
import type { HealthDocument } from './health.ts';
import { serviceApp } from './service-app.ts';

let settings: Settings;
let root: string;
const readers: SnapshotReader[] = [];

beforeAll(async () => {
  ({ root, settings } = await sharedDemoSnapshots('proxy-test-'));
}, 180_000);
afterAll(() => {
  for (const r of readers) r.close();
  rmSync(root, { recursive: true, force: true });
});

async function appFor(service: 'korea' | 'analytics', now = '2026-11-20T09:00:30Z', s: Settings = settings) {
  const reader = new SnapshotReader(s.snapshotsDir, service);
  readers.push(reader);
  await reader.refresh();
  // no paywall: the paid endpoints must answer 503, never data
  return serviceApp({
    service,
    reader,
    settings: s,
    handlers: handlersFor(service, { patternSalt: 'proxy-test-salt' }),
    now: () => new Date(now),
  });
}

describe('/health', () => {
  it.each(['korea', 'analytics'] as const)('%s reports version, dataset ages and the modes', async (service) => {
    const app = await appFor(service);
    const res = await app.request('/health');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as HealthDocument;
    expect(body.service).toBe(service);
    expect(body.status).toBe('ok');
    expect(body.snapshot?.version).toMatch(/^\d{8}T\d{9}Z-[0-9a-f]{8}$/);
    expect(body.snapshot?.notice).toMatch(/Synthetic data/);
    expect(body.datasets.length).toBeGreaterThan(0);
    for (const d of body.datasets) {
      expect(d.stale).toBe(false);
      expect(d.source).toBe('demo');
      expect(d.age_seconds).toBeGreaterThanOrEqual(30);
    }
    expect(body.settlement.mode).toBe('local');
    expect(body.settlement.note).toMatch(/no funds move/);
    expect(body.ai.mode).toBe('rules');
  });

  it.each(['korea', 'analytics'] as const)('%s matches the response schema the catalog declares', async (service) => {
    const app = await appFor(service);
    const body: unknown = await (await app.request('/health')).json();
    const parsed = findEndpoint(service, 'health')!.response.safeParse(body);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  });

  it('marks datasets stale when they outlive their schedule', async () => {
    const app = await appFor('korea', '2026-11-21T09:00:00Z');
    const body = (await (await app.request('/health')).json()) as HealthDocument;
    expect(body.status).toBe('degraded');
    const prices = body.datasets.find((d) => d.name === 'kr-prices')!;
    expect(prices.stale).toBe(true);
    expect(prices.age_seconds).toBe(86_400);
    expect(body.problems.join('\n')).toMatch(/kr-prices: data is 86400s old/);
  });

  it('answers 503 no_data before anything is published', async () => {
    const empty = loadSettings({ SITE_BUILD: 'off', SNAPSHOTS_DIR: join(root, 'nothing-here'), WAREHOUSE_DIR: join(root, 'wh2') });
    const app = await appFor('korea', undefined, empty);
    const res = await app.request('/health');
    expect(res.status).toBe(503);
    const body = (await res.json()) as HealthDocument;
    expect(body.status).toBe('no_data');
    expect(body.problems[0]).toMatch(/npm run pipeline -- korea/);
  });

  it('shows the AI mode of the snapshot served (rules: its pipeline ran without a key), whatever key this process has', async () => {
    const withKey = loadSettings({ SITE_BUILD: 'off', SNAPSHOTS_DIR: settings.snapshotsDir, ANTHROPIC_API_KEY: 'sk-test' });
    const app = await appFor('korea', undefined, withKey);
    const body = (await (await app.request('/health')).json()) as HealthDocument;
    expect(body.ai).toMatchObject({ mode: 'rules', models: null });
    expect(body.ai.last_run).toMatchObject({ calls: 0, usd: 0 });
    expect(JSON.stringify(body)).not.toContain('sk-test');
  });
});

describe('korea root document and endpoints', () => {
  it('lists every endpoint with its price from the catalog', async () => {
    const app = await appFor('korea');
    const res = await app.request('/');
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      endpoints: { path: string; access: string; price_usd: string | null; xrpl_path?: string }[];
      snapshot: { version: string };
    };
    const paid = body.endpoints.filter((e) => e.access === 'paid');
    expect(paid).toHaveLength(19); // the spec's 16, issue 32's archive two and executable premium
    expect(paid.find((e) => e.path === '/api/v1/kimchi-premium')?.price_usd).toBe('0.001');
    expect(paid.find((e) => e.path === '/api/v1/market-read')?.price_usd).toBe('0.10');
    expect(paid.every((e) => e.xrpl_path?.startsWith('/api/v1/xrpl/'))).toBe(true);
    expect(body.snapshot.version).toBeTruthy();
  });

  it('answers / and the free documents with the shapes the catalog declares', async () => {
    const app = await appFor('korea');
    for (const [path, id] of [
      ['/', 'root'],
      ['/api/v1/symbols', 'symbols'],
      ['/api/v1/stats', 'stats'],
    ] as const) {
      const body: unknown = await (await app.request(path)).json();
      const parsed = findEndpoint('korea', id)!.response.safeParse(body);
      expect(parsed.success, `${path}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
    }
  });

  it('serves the free symbols document from the snapshot', async () => {
    const app = await appFor('korea');
    const res = await app.request('/api/v1/symbols');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-snapshot-version')).toMatch(/^\d{8}T/);
    expect(res.headers.get('cache-control')).toMatch(/max-age=\d+/);
    const body = (await res.json()) as { count: number; source: string };
    expect(body.count).toBeGreaterThan(180);
    expect(body.source).toBe('demo');
  });

  it('without a paywall configured, every paid endpoint answers 503 with a reason, never data', async () => {
    const app = await appFor('korea');
    for (const e of paidEndpoints('korea')) {
      const res = await app.request(e.path);
      expect(res.status, e.path).toBe(503);
      const body = (await res.json()) as { error: string; message: string };
      expect(body.error).toBe('not_available');
      expect(body.message).toMatch(/no paid data is served without a verified payment|is not computed by this build's pipeline yet/);
    }
  });

  it('serves the OpenAPI 3.1 document generated from the catalog', async () => {
    const app = await appFor('korea');
    const res = await app.request('http://127.0.0.1:4020/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; info: { version: string }; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('0.1.0');
    expect(Object.keys(doc.paths)).toContain('/api/v1/kimchi-premium');
  });

  it('answers unknown paths with a JSON 404', async () => {
    const app = await appFor('korea');
    const res = await app.request('/api/v1/nope');
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toBe('not_found');
  });

  it('allows x402 headers in CORS preflight from any origin', async () => {
    const app = await appFor('korea');
    const res = await app.request('/api/v1/kimchi-premium', {
      method: 'OPTIONS',
      headers: { Origin: 'https://example.org', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'X-PAYMENT' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-headers')).toMatch(/X-PAYMENT/);
  });
});

describe('analytics endpoints', () => {
  it('serves the free trends, landing-stats and categories documents in their declared shapes', async () => {
    const app = await appFor('analytics');
    for (const [path, id] of [
      ['/api/v1/trends', 'trends'],
      ['/api/v1/landing-stats', 'landing-stats'],
      ['/api/v1/categories', 'categories.list'],
    ] as const) {
      const res = await app.request(path);
      expect(res.status, path).toBe(200);
      const parsed = findEndpoint('analytics', id)!.response.safeParse(await res.json());
      expect(parsed.success, `${path}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
    }
  });

  it('serves the services list envelope with the spec defaults', async () => {
    const app = await appFor('analytics');
    const res = await app.request('/api/v1/services');
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      services: unknown[];
      pagination: { page: number; page_size: number; total: number };
      filters_applied: Record<string, unknown>;
    };
    expect(body.pagination.page).toBe(1);
    expect(body.pagination.page_size).toBe(50);
    expect(body.services.length).toBe(Math.min(50, body.pagination.total));
    expect(body.filters_applied).toMatchObject({
      sort: 'tx_24h',
      order: 'desc',
      active_only: false,
      show_placeholder: false,
      search: null,
      category: null,
    });
  });
});
