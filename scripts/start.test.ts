import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startScript } from '../lib/testing/script.ts';
import { ADDRESS_PARTITIONS } from '../pipelines/analytics/datasets/sql.ts';
import type { SnapshotManifest } from '../snapshots/manifest.ts';
import { bucketsFor } from '../snapshots/partitions.ts';
import { readLatestPointer } from '../snapshots/reader.ts';

const root = mkdtempSync(join(tmpdir(), 'start-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * Both /health 200 within this many seconds of the start. The aim is 15 s on a quiet 2-core
 * machine: there analytics answered after 11.7 to 13.2 s (korea 5.2 to 6.2 s; 12.5 to 14.9 s with
 * tsx's transform cache off), and after 17.1 to 17.9 s beside another pipeline run using about one
 * core; the code before the bucket rule and the lazy imports took 19.5 to 24.3 s quiet and 26.4 s
 * beside that run, so this bound holds on a busy machine, and the bucket check below fails that code.
 */
const BOTH_HEALTHY_SECONDS = 25;

describe('npm start', () => {
  it('serves korea, then analytics, as soon as their data is published, and the site after them', async () => {
    const t0 = Date.now();
    const start = startScript(['scripts/start.ts'], {
      SNAPSHOTS_DIR: join(root, 'snapshots'),
      WAREHOUSE_DIR: join(root, 'warehouse'),
      KOREA_PORT: '0',
      ANALYTICS_PORT: '0',
      DEMO_REFRESH: 'off',
    });
    try {
      const urls: Record<string, string> = {};
      await start.waitFor(
        () => {
          for (const m of start.stdout().matchAll(/^\s+(korea|analytics)\s+(http:\/\/[\d.]+:\d+)/gm)) urls[m[1]!] = m[2]!;
          return Boolean(urls.korea && urls.analytics);
        },
        30_000,
        'both service URLs',
      );
      expect(Object.keys(urls).sort()).toEqual(['analytics', 'korea']);
      // the servers answer before any data: /health says there is none yet
      const healthyAt: Record<string, number> = {};
      let siteWhileBuilding: { status: number; text: string } | null = null;
      while (Date.now() - t0 < 90_000 && !(healthyAt.korea && healthyAt.analytics)) {
        for (const [service, url] of Object.entries(urls)) {
          if (healthyAt[service]) continue;
          const status = (await fetch(`${url}/health`)).status;
          expect([200, 503], `${service} /health`).toContain(status);
          if (status === 200) healthyAt[service] = (Date.now() - t0) / 1000;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      // the site takes longer than the data: `/` says it is being built meanwhile
      if (!/site for \S+: \d+ pages/.test(start.stdout())) {
        const res = await fetch(`${urls.analytics}/`);
        siteWhileBuilding = { status: res.status, text: await res.text() };
      }
      console.log(`npm start: korea /health 200 after ${healthyAt.korea}s, analytics after ${healthyAt.analytics}s`);
      expect(healthyAt.korea, 'korea /health 200').toBeGreaterThan(0);
      expect(healthyAt.analytics, 'analytics /health 200').toBeGreaterThan(0);
      expect(healthyAt.korea!).toBeLessThanOrEqual(healthyAt.analytics!);
      expect(Math.max(healthyAt.korea!, healthyAt.analytics!)).toBeLessThan(BOTH_HEALTHY_SECONDS);
      expect(siteWhileBuilding, 'the site was still being built when both APIs were served').not.toBeNull();
      expect(siteWhileBuilding!.status).toBe(503);
      expect(siteWhileBuilding!.text).toContain('The site is being built');

      // the per-address tables get the bucket count of their rows: the demo's 3,600 buyers are one
      // part and its 268k payments 8, where 256 parts each (1,206 files) cost about 7 s of the start
      const snapshots = join(root, 'snapshots');
      const live = readLatestPointer(snapshots, 'analytics')!;
      const manifest = JSON.parse(readFileSync(join(snapshots, 'analytics', live.version, 'manifest.json'), 'utf8')) as SnapshotManifest;
      const partitioned = manifest.datasets.filter((d) => d.partitions);
      expect(partitioned.map((d) => d.name).sort()).toEqual(Object.keys(ADDRESS_PARTITIONS).sort());
      for (const d of partitioned) {
        const by = ADDRESS_PARTITIONS[d.name as keyof typeof ADDRESS_PARTITIONS];
        expect(d.partitions!.buckets, d.name).toBe(bucketsFor(d.rows, by.buckets, by.rowsPerBucket));
      }
      expect(partitioned.reduce((n, d) => n + d.partitions!.parts.length, 0)).toBeLessThan(30);

      await start.waitFor(() => /site for \S+: \d+ pages/.test(start.stdout()), 90_000, 'the site build');
      expect(start.stdout()).toMatch(/^step\s+rows\s+seconds\s+status$/m);

      const health = (await (await fetch(`${urls.korea}/health`)).json()) as { status: string; snapshot: { notice: string } };
      expect(health.status).toBe('ok');
      expect(health.snapshot.notice).toMatch(/demo world/);
      const site = await fetch(`${urls.analytics}/`);
      expect(site.status).toBe(200);
      const html = await site.text();
      expect(html).toContain('x402 Service Analytics');
      // the pages belong to the version the API serves
      const api = await fetch(`${urls.analytics}/api/v1/landing-stats`);
      expect(site.headers.get('x-snapshot-version')).toBe(api.headers.get('x-snapshot-version'));
      const downloads = await (await fetch(`${urls.analytics}/downloads/`)).text();
      expect(downloads).toMatch(/href="\/data\/[^"]+\/services\.parquet"/);
      const href = /href="(\/data\/[^"]+\/services\.parquet)"/.exec(downloads)![1]!;
      const parquet = await fetch(`${urls.analytics}${href}`);
      expect(parquet.status).toBe(200);
      expect(
        Buffer.from(await parquet.arrayBuffer())
          .subarray(0, 4)
          .toString(),
      ).toBe('PAR1');
      const symbols = await fetch(`${urls.korea}/api/v1/symbols`);
      expect(symbols.status).toBe(200);
    } finally {
      await start.stop();
    }
  }, 180_000);
});
