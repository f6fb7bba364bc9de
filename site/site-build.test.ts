/**
 * Reads the demo analytics snapshot the test run publishes once (pipelines/testing/shared-demo.ts:
 * runCli, whose publish builds the site for the version, as production does) and checks the pages against the
 * snapshot's own files: the home headline against landing-stats, the services index against the
 * services table, a service page against its service-detail row.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, sqlString, type Database } from '../lib/duckdb.ts';
import { siteBuildDir } from '../lib/site-paths.ts';
import { sharedDemo } from '../pipelines/testing/shared-demo.ts';
import { readLatestPointer } from '../snapshots/reader.ts';
import { formatInt, formatPct } from './lib/format.ts';
import { escapeHtml } from './lib/html.ts';

let root: string;
let out: string;
let snapshotDir: string;
let version: string;
let db: Database;

beforeAll(async () => {
  // the run's shared demo publish (read-only), whose analytics publish built the site for its version
  const settings = await sharedDemo();
  root = settings.root;
  version = readLatestPointer(settings.snapshotsDir, 'analytics')!.version;
  snapshotDir = join(settings.snapshotsDir, 'analytics', version);
  // the publish built the site for this version, as production does
  out = siteBuildDir(settings.siteDir, version);
  db = await openDatabase(':memory:');
}, 300_000);

afterAll(() => {
  db?.close();
});

const page = (path: string) => readFileSync(join(out, path), 'utf8');
const doc = <T>(name: string) => JSON.parse(readFileSync(join(snapshotDir, `${name}.json`), 'utf8')) as T;
/** The text of the element carrying data-testid (first match). */
function byTestId(html: string, id: string): string {
  const m = new RegExp(`data-testid="${id}"[^>]*>([^<]*)<`).exec(html);
  if (!m) throw new Error(`no data-testid="${id}"`);
  return m[1]!.trim();
}

describe('site build for a demo snapshot', () => {
  it('home shows the landing statistics as headline figures and three build-time charts', () => {
    const html = page('index.html');
    const stats = doc<{
      stats: { services_indexed: number; transactions_analyzed: number; active_buyers: number; real_volume_pct: number };
    }>('landing-stats').stats;
    expect(byTestId(html, 'services-indexed')).toBe(formatInt(stats.services_indexed));
    expect(byTestId(html, 'transactions-analyzed')).toBe(formatInt(stats.transactions_analyzed));
    expect(byTestId(html, 'active-buyers')).toBe(formatInt(stats.active_buyers));
    expect(byTestId(html, 'real-volume-pct')).toBe(formatPct(stats.real_volume_pct));
    for (const chart of ['chart-labels', 'chart-categories', 'chart-new-services']) {
      const figure = new RegExp(`<figure class="chart" data-testid="${chart}">.*?<figcaption>`, 's').exec(html)?.[0] ?? '';
      expect(figure).toMatch(/<svg(?=[^>]*role="img")(?=[^>]*aria-label="[^"]+")/);
    }
    expect(html).toContain('href="/docs"');
    expect(html).toContain('href="/api/v1"');
  });

  it('every page says how fresh the data is, that it is demo, the license and the version', () => {
    for (const path of ['index.html', 'services/index.html', 'categories/index.html', '404.html']) {
      const html = page(path);
      expect(html).toContain('data-testid="freshness"');
      expect(html).toMatch(/Data as of <time datetime="2026-11-20T09:00:00.000Z">/);
      expect(byTestId(html, 'source')).toBe('Demo data (synthetic)');
      expect(html).toContain('data-testid="notice"');
      expect(html).toContain('CC0 1.0');
      expect(byTestId(html, 'version')).toBe(version);
      expect(html).not.toContain(root);
      expect(html).toMatch(/<html lang="en">/);
      expect(html).toContain('<main id="main">');
    }
  });

  it('the services index holds every service as column arrays, and each has its page', async () => {
    const index = JSON.parse(page('services/index.json')) as { count: number; columns: { id: number[]; name: string[]; tx_24h: number[] } };
    const rows = (
      await db.connection.runAndReadAll(
        `SELECT id, name, tx_24h FROM read_parquet(${sqlString(join(snapshotDir, 'services.parquet'))}) ORDER BY id`,
      )
    ).getRowObjectsJson() as { id: number; name: string; tx_24h: number }[];
    expect(index.count).toBe(rows.length);
    expect([...index.columns.id].sort((a, b) => a - b)).toEqual(rows.map((r) => r.id));
    const byId = new Map(rows.map((r) => [r.id, r]));
    index.columns.id.forEach((id, i) => {
      expect(index.columns.name[i]).toBe(byId.get(id)!.name);
      expect(index.columns.tx_24h[i]).toBe(byId.get(id)!.tx_24h);
    });
    // rows come busiest first, as the table opens
    expect(index.columns.tx_24h).toEqual([...index.columns.tx_24h].sort((a, b) => b - a));
    for (const { id } of rows) expect(existsSync(join(out, 'services', `${id}.html`))).toBe(true);
    expect(JSON.stringify(index)).not.toContain('search_text');
    // without JavaScript the page lists the busiest services
    const list = page('services/index.html');
    expect(byTestId(list, 'services-total')).toBe(formatInt(rows.length));
    expect(list).toContain(`href="/services/${index.columns.id[0]}"`);
    // the service list says which chains are indexed, and that arbitrum (no facilitator) is not
    expect(list).toMatch(/<tr data-chain="base" data-indexed="true"[ >]/);
    expect(list).toMatch(/<tr data-chain="arbitrum" data-indexed="false"[ >]/);
    expect(list).toContain('no facilitator is known to settle x402 on Arbitrum');
  });

  it('a service page shows its statistics, top buyers, 30-day chart and the paid endpoints about it', async () => {
    const [row] = (
      await db.connection.runAndReadAll(
        `SELECT id, service::VARCHAR AS service, top_buyers::VARCHAR AS top_buyers FROM read_parquet(${sqlString(join(snapshotDir, 'service-detail.parquet'))})
          WHERE json_array_length(top_buyers) >= 3 ORDER BY id LIMIT 1`,
      )
    ).getRowObjectsJson() as { id: number; service: string; top_buyers: string }[];
    const service = JSON.parse(row!.service) as { name: string; tx_total: number };
    const buyers = JSON.parse(row!.top_buyers) as { address: string; label?: string }[];
    const html = page(`services/${row!.id}.html`);
    expect(byTestId(html, 'tx-total')).toBe(formatInt(service.tx_total));
    const table = /data-testid="top-buyers".*?<\/table>/s.exec(html)![0];
    for (const b of buyers) expect(table).toContain(b.address);
    expect((table.match(/<tr>/g) ?? []).length).toBe(buyers.length + 1);
    if (buyers.some((b) => b.label)) expect(table).toContain('Label');
    expect(html).toMatch(/data-testid="chart-service-tx"[^>]*>\s*<svg(?=[^>]*role="img")/);
    expect(html).toContain(`/api/v1/services/${row!.id}/wash-detail`);
    expect(html).toContain(`/api/v1/services/${row!.id}/transactions`);
    expect(html).toContain('$0.005');
    expect(html).toContain('data-testid="label-distribution"');
  });

  it('a service page shows its trust grade, the evidence it rests on and the 7-day latency chart, as service-health publishes them', async () => {
    const rows = (
      await db.connection.runAndReadAll(
        `SELECT service_id, grade, evidence::VARCHAR AS evidence, flags::VARCHAR AS flags FROM read_parquet(${sqlString(join(snapshotDir, 'service-health.parquet'))})
          WHERE grade IS NOT NULL ORDER BY grade DESC, service_id LIMIT 1`,
      )
    ).getRowObjectsJson() as { service_id: number; grade: string; evidence: string; flags: string }[];
    const h = rows[0]!;
    const html = page(`services/${h.service_id}.html`);
    const gradeLine = /data-testid="trust-grade">(.*?)<\/p>/s.exec(html)![1]!;
    expect(gradeLine).toContain(`grade ${h.grade}`);
    const evidence = /data-testid="trust-evidence">(.*?)<\/ul>/s.exec(html)![1]!;
    for (const line of JSON.parse(h.evidence) as string[]) expect(evidence).toContain(escapeHtml(line));
    for (const flag of JSON.parse(h.flags) as string[]) expect(gradeLine).toContain(flag.replace('_', ' '));
    expect(html).toMatch(/data-testid="chart-service-latency"[^>]*>\s*<svg(?=[^>]*role="img")/);
  });

  it("a service whose seller an operator runs names the operator and links its other services; a lone seller's page has no operator section", async () => {
    const ops = (
      await db.connection.runAndReadAll(
        `SELECT operator_id, service_ids::VARCHAR AS ids FROM read_parquet(${sqlString(join(snapshotDir, 'operators.parquet'))})
          ORDER BY json_array_length(service_ids) DESC, operator_id`,
      )
    ).getRowObjectsJson() as { operator_id: string; ids: string }[];
    expect(ops.length).toBeGreaterThan(0);
    const ids = JSON.parse(ops[0]!.ids) as number[];
    const html = page(`services/${ids[0]}.html`);
    const section = /data-testid="service-operator".*?<\/section>/s.exec(html)![0];
    expect(section).toContain(ops[0]!.operator_id);
    for (const other of ids.slice(1, 20)) expect(section).toContain(`href="/services/${other}"`);
    const listed = new Set(ops.flatMap((o) => JSON.parse(o.ids) as number[]));
    const index = JSON.parse(page('services/index.json')) as { columns: { id: number[] } };
    const lone = index.columns.id.find((id) => !listed.has(id))!;
    expect(page(`services/${lone}.html`)).not.toContain('data-testid="service-operator"');
  });

  it('each category has a page with its chart and top services; the 404 points to /api/v1', () => {
    const categories = doc<{ categories: { slug: string; title: string; services_count: number }[] }>('categories').categories;
    expect(categories.length).toBe(33);
    for (const c of categories) {
      const html = page(`categories/${c.slug}/index.html`);
      expect(byTestId(html, 'category-title')).toBe(c.title.replaceAll('&', '&amp;'));
      expect(byTestId(html, 'services-count')).toBe(formatInt(c.services_count));
      expect(html).toContain('data-testid="chart-category-volume"');
    }
    expect(page('404.html')).toContain('href="/api/v1"');
    expect(existsSync(join(out, 'favicon.svg'))).toBe(true);
  });
});
