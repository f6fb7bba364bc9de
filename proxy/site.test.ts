/**
 * The public site in step with the data, through the production wiring: `npm run pipeline --
 * analytics` (runCli) builds the site for the new version before latest.json names it, and the
 * analytics service (createServiceApp, as `npm start` serves it) answers `/` from the build of
 * the version its API serves. A failed site build leaves the previous version, pages and API live.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findDataset } from '../catalog/datasets.ts';
import { loadSettings, type Settings } from '../lib/config.ts';
import { siteBuildDir, siteDownloadDir } from '../lib/site-paths.ts';
import { parseArgs, runCli } from '../pipelines/cli.ts';
import { LineProgress } from '../pipelines/progress.ts';
import { copyOfSharedDemo } from '../pipelines/testing/shared-demo.ts';
import { readLatestPointer, SnapshotReader } from '../snapshots/reader.ts';
import { createServiceApp, processParts } from './serve.ts';
import { serveOnLoopback, type ServedApp } from '../payments/testing/paywall.ts';

const quiet = { progress: new LineProgress(() => {}), out: () => {} };
let root: string;
let settings: Settings;
let reader: SnapshotReader;
let served: ServedApp;
let first: string;

const liveVersion = () => readLatestPointer(settings.snapshotsDir, 'analytics')!.version;
const publish = (now: string, s: Settings = settings) => runCli(parseArgs(['analytics', '--now', now]), s, quiet);

beforeAll(async () => {
  // a copy of the run's shared demo publish (analytics at 09:00, its site built): this test publishes into it
  ({ root, settings } = await copyOfSharedDemo('site-publish-test-', {
    services: ['analytics'],
    env: { SITE_BUILD: 'on', CRYPTO_WORKERS: '0' },
  }));
  first = liveVersion();
  reader = new SnapshotReader(settings.snapshotsDir, 'analytics');
  await reader.refresh();
  const app = await createServiceApp('analytics', reader, settings, processParts(settings), { siteDir: settings.siteDir });
  served = await serveOnLoopback(app);
}, 240_000);

afterAll(async () => {
  await served?.close();
  reader?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('a site build per snapshot version', () => {
  it('builds the pages and downloads of the published version under SITE_DIR, beside the snapshots', () => {
    expect(settings.siteDir).toBe(join(root, 'site'));
    expect(existsSync(join(siteBuildDir(settings.siteDir, first), 'index.html'))).toBe(true);
    expect(existsSync(join(siteDownloadDir(settings.siteDir, first), 'downloads.json'))).toBe(true);
    const latest = JSON.parse(readFileSync(join(siteBuildDir(settings.siteDir, first), 'data', 'latest.json'), 'utf8'));
    expect(latest).toMatchObject({ version: first, downloads: `/data/${first}/downloads.json` });
  });

  it('serves / and the pages from the build of the version the API serves', async () => {
    const page = await fetch(`${served.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.headers.get('x-snapshot-version')).toBe(first);
    const api = await fetch(`${served.url}/api/v1/landing-stats`);
    expect(api.status).toBe(200);
    expect(api.headers.get('x-snapshot-version')).toBe(first);
    // the JSON routes are not shadowed by the site
    const health = await fetch(`${served.url}/health`);
    expect(health.headers.get('content-type')).toMatch(/json/);
    expect(health.headers.get('cache-control')).toBe('no-store'); // the site's page caching stays on pages
    expect(page.headers.get('cache-control')).toBe('public, max-age=60');
    expect((await fetch(`${served.url}/api/v1`)).headers.get('content-type')).toMatch(/json/);
  });

  it('serves the page of a service at /services/<id>, and the services index gzipped', async () => {
    const list = (await (await fetch(`${served.url}/api/v1/services?page_size=1`)).json()) as {
      services: Array<{ id: number; name: string }>;
    };
    const one = list.services[0]!;
    const page = await fetch(`${served.url}/services/${one.id}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('x-snapshot-version')).toBe(first);
    expect(await page.text()).toContain(one.name.replace(/&/g, '&amp;').slice(0, 20));
    expect((await fetch(`${served.url}/services/99999999`)).status).toBe(404);
    // one canonical URL: a trailing slash answers 308 to the page and to the API path, the query kept
    for (const [path, canonical] of [
      [`/services/${one.id}/`, `/services/${one.id}`],
      [`/services/${one.id}/?from=list`, `/services/${one.id}?from=list`],
      [`/api/v1/services/${one.id}/`, `/api/v1/services/${one.id}`],
      ['/api/v1/', '/api/v1'],
    ] as const) {
      const moved = await fetch(`${served.url}${path}`, { redirect: 'manual' });
      expect(moved.status, path).toBe(308);
      expect(moved.headers.get('location'), path).toBe(canonical);
    }
    expect((await fetch(`${served.url}/services/99999999/`, { redirect: 'manual' })).status).toBe(404);
    // folder pages keep their slash
    expect((await fetch(`${served.url}/trends/`, { redirect: 'manual' })).status).toBe(200);
    const index = await fetch(`${served.url}/services/index.json`, { headers: { 'Accept-Encoding': 'gzip' } });
    expect(index.status).toBe(200);
    expect(index.headers.get('content-encoding')).toBe('gzip');
  });

  it('serves the downloads of a kept version at /data/<version>/<file>, immutable', async () => {
    const files = readdirSync(siteDownloadDir(settings.siteDir, first)).filter((f) => f !== 'downloads.json');
    expect(files.length).toBeGreaterThan(0);
    const res = await fetch(`${served.url}/data/${first}/${files[0]}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toMatch(/immutable/);
    // an encoded slash never reaches the file server (request-target.ts)
    expect((await fetch(`${served.url}/data/${first}/..%2Fmanifest.json`)).status).toBe(400);
    expect((await fetch(`${served.url}/data/20990101T000000000Z-00000000/${files[0]}`)).status).toBe(404);
  });

  it('answers an unknown page with the 404 page, and unknown API paths with JSON', async () => {
    const page = await fetch(`${served.url}/no/such/page`);
    expect(page.status).toBe(404);
    if (existsSync(join(siteBuildDir(settings.siteDir, first), '404.html'))) {
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
    }
    const api = await fetch(`${served.url}/api/v1/no-such-endpoint`);
    expect(api.status).toBe(404);
    expect(api.headers.get('content-type')).toMatch(/json/);
  });

  it('keeps the previous version, its pages and its API live when the new site build fails', async () => {
    // SITE_DIR is a file: the build cannot write, the publish must not go live
    const blocked = join(root, 'blocked-site');
    writeFileSync(blocked, 'not a folder');
    const broken = loadSettings({ ...envOf(settings), SITE_DIR: blocked });
    const { exitCode, results } = await publish('2026-11-20T10:00:00Z', broken);
    expect(exitCode).toBe(3);
    expect(results[0]!.error).toMatch(/site build/);
    expect(results[0]!.reports.find((r) => r.name === 'site')?.status).toBe('failed');
    expect(liveVersion()).toBe(first);
    const versions = readdirSync(join(settings.snapshotsDir, 'analytics')).filter((n) => /^\d{8}T/.test(n));
    expect(versions).toEqual([first]); // the unpublished version's folder is gone
    await reader.refresh();
    expect((await fetch(`${served.url}/`)).headers.get('x-snapshot-version')).toBe(first);
  }, 120_000);

  it('switches pages and API together: the old build stays until the new version goes live', async () => {
    const { exitCode } = await publish('2026-11-20T11:00:00Z');
    expect(exitCode).toBe(0);
    const second = liveVersion();
    expect(second).not.toBe(first);
    expect(existsSync(join(siteBuildDir(settings.siteDir, second), 'index.html'))).toBe(true);
    // before the reader notices, both still answer the first version
    expect((await fetch(`${served.url}/`)).headers.get('x-snapshot-version')).toBe(first);
    expect((await fetch(`${served.url}/api/v1/landing-stats`)).headers.get('x-snapshot-version')).toBe(first);
    await reader.refresh();
    expect((await fetch(`${served.url}/`)).headers.get('x-snapshot-version')).toBe(second);
    expect((await fetch(`${served.url}/api/v1/landing-stats`)).headers.get('x-snapshot-version')).toBe(second);
    // the first version's downloads stay reachable as a past version
    expect(existsSync(siteDownloadDir(settings.siteDir, first))).toBe(true);
  }, 120_000);
});

/** The environment a Settings object was made from (the folders this test chose). */
function envOf(s: Settings): NodeJS.ProcessEnv {
  return {
    SNAPSHOTS_DIR: s.snapshotsDir,
    WAREHOUSE_DIR: s.warehouseDir,
    KEYS_DIR: s.keysDir,
    CRYPTO_WORKERS: '0',
  };
}

describe('stale data shows as stale on the pages', () => {
  /** The analytics app as `npm start` builds it, with its clock at `now`. */
  const appAt = (now: Date) =>
    createServiceApp('analytics', reader, settings, processParts(settings, { now: () => now }), {
      siteDir: settings.siteDir,
      now: () => now,
    });
  const asOf = () => Date.parse(reader.current()!.manifest.datasets[0]!.as_of);

  it('serves the pages as built while every dataset is fresh', async () => {
    const app = await appAt(new Date(asOf() + 60_000));
    const page = await app.request('/');
    expect(page.status).toBe(200);
    expect(await page.text()).not.toContain('data-testid="stale-banner"');
  });

  it('puts a banner naming the stale datasets and their age on every page once they are older than they may get', async () => {
    // analytics datasets are stale after 3 update intervals of an hour (catalog/datasets.ts)
    const app = await appAt(new Date(asOf() + 4 * 3600_000 + 5 * 60_000));
    for (const path of ['/', '/categories', '/methodology']) {
      const page = await app.request(path);
      expect(page.status, path).toBe(200);
      expect(page.headers.get('content-length'), path).toBeNull(); // the file's length no longer holds
      const html = await page.text();
      const banner = /<main id="main"><p class="notice" role="status" data-testid="stale-banner">(.*?)<\/p>/.exec(html);
      expect(banner, path).not.toBeNull();
      // the first six in the manifest's order, each with its age; the rest counted
      expect(banner![1]).toMatch(
        /^<strong>Stale data:<\/strong> no newer version has updated ([a-z-]+ \(4 h 5 min old\), ){5}[a-z-]+ \(4 h 5 min old\) and/,
      );
      const since = new Date(asOf()).toISOString();
      // each dataset past its own limit counts
      const age = 4 * 3600 + 5 * 60;
      const stale = reader.current()!.manifest.datasets.filter((d) => findDataset('analytics', d.name)!.staleAfterSeconds < age);
      expect(stale.length).toBeGreaterThan(6);
      const more = stale.length - 6;
      expect(banner![1]).toContain(
        `and ${more} more. Some figures describe <time datetime="${since}">${since.slice(0, 10)} ${since.slice(11, 16)} UTC</time>.`,
      );
      expect(banner![1]).toMatch(/href="\/health"/);
    }
    const head = await app.request('/', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    // /health says the same, dataset by dataset, with 200 and `degraded`
    const health = await app.request('/health');
    expect(health.status).toBe(200);
    const body = (await health.json()) as { status: string; degraded: Array<{ dataset: string; state: string; reason: string }> };
    expect(body.status).toBe('degraded');
    expect(body.degraded.find((d) => d.dataset === 'landing-stats')).toEqual(
      expect.objectContaining({ state: 'stale', reason: 'no run has updated it for 4 h 5 min; it is stale after 3 h' }),
    );
  });
});
