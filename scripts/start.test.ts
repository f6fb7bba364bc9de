import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startScript } from '../lib/testing/script.ts';

const root = mkdtempSync(join(tmpdir(), 'start-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('npm start', () => {
  it('runs the demo pipelines, builds the site and has both /health endpoints answering 200 within 90 s', async () => {
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
        90_000,
        'both service URLs',
      );
      expect(Object.keys(urls).sort()).toEqual(['analytics', 'korea']);
      const statuses: Record<string, number> = {};
      while (Date.now() - t0 < 90_000) {
        for (const [service, url] of Object.entries(urls)) {
          statuses[service] = (await fetch(`${url}/health`)).status;
        }
        if (statuses.korea === 200 && statuses.analytics === 200) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      const seconds = (Date.now() - t0) / 1000;
      expect(statuses).toEqual({ korea: 200, analytics: 200 });
      expect(seconds).toBeLessThan(90);
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
  }, 120_000);
});
