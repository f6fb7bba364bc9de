import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = mkdtempSync(join(tmpdir(), 'start-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('npm start', () => {
  it('runs the demo pipelines, builds the site and has both /health endpoints answering 200 within 90 s', async () => {
    const t0 = Date.now();
    const proc = spawn(join(process.cwd(), 'node_modules/.bin/tsx'), ['scripts/start.ts'], {
      env: {
        ...process.env,
        SNAPSHOTS_DIR: join(root, 'snapshots'),
        WAREHOUSE_DIR: join(root, 'warehouse'),
        KOREA_PORT: '0',
        ANALYTICS_PORT: '0',
        DEMO_REFRESH: 'off',
        CI: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    try {
      const urls: Record<string, string> = {};
      while (Date.now() - t0 < 90_000 && !(urls.korea && urls.analytics)) {
        for (const m of stdout.matchAll(/^\s+(korea|analytics)\s+(http:\/\/[\d.]+:\d+)/gm)) urls[m[1]!] = m[2]!;
        if (proc.exitCode !== null) throw new Error(`npm start exited ${proc.exitCode}: ${stderr}`);
        await new Promise((r) => setTimeout(r, 200));
      }
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
      expect(stdout).toMatch(/^step\s+rows\s+seconds\s+status$/m);

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
      proc.kill('SIGTERM');
      await new Promise((r) => proc.once('exit', r));
    }
  }, 120_000);
});
