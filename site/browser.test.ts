/**
 * The public pages in a real browser (Debian's Chromium driven by playwright-core), served the way
 * `npm start` serves them: both pipelines published through runCli (the analytics publish builds
 * the site), both services from createServiceApp on loopback. Every page renders with no console
 * error and no failed request, axe-core finds no serious or critical violation, and a screenshot
 * of each is kept in test-artifacts/site/. Downloads load in DuckDB with the row counts the page states.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Settings } from '../lib/config.ts';
import { openDatabase, queryJson, sqlString } from '../lib/duckdb.ts';
import { sharedDemoSnapshots } from '../pipelines/testing/shared-demo.ts';
import { createServiceApp, processParts } from '../proxy/serve.ts';
import { serveOnLoopback, type ServedApp } from '../payments/testing/paywall.ts';
import { SnapshotReader } from '../snapshots/reader.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = resolve('test-artifacts', 'site');

let root: string;
let settings: Settings;
let browser: Browser;
const readers: SnapshotReader[] = [];
const served: Record<'korea' | 'analytics', ServedApp> = {} as Record<'korea' | 'analytics', ServedApp>;

beforeAll(async () => {
  // the run's shared demo publish (read-only, its site built by the analytics publish); keys and nonces in root
  ({ root, settings } = await sharedDemoSnapshots('site-browser-test-', { site: true, env: { CRYPTO_WORKERS: '0' } }));
  const parts = processParts(settings);
  for (const service of ['korea', 'analytics'] as const) {
    const reader = new SnapshotReader(settings.snapshotsDir, service);
    readers.push(reader);
    await reader.refresh();
    served[service] = await serveOnLoopback(await createServiceApp(service, reader, settings, parts, { siteDir: settings.siteDir }));
  }
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  for (const s of Object.values(served)) await s.close();
  for (const r of readers) r.close();
  rmSync(root, { recursive: true, force: true });
});

interface Visit {
  page: Page;
  consoleErrors: string[];
  failedRequests: string[];
}

/** Opens a page, recording console errors and failed requests (network failures and 4xx/5xx answers). */
async function visit(url: string, width = 1280): Promise<Visit> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  page.on('close', () => void context.close());
  const consoleErrors: string[] = [];
  const failedRequests: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(e.message));
  page.on('requestfailed', (r) => failedRequests.push(`${r.url()} ${r.failure()?.errorText ?? ''}`));
  page.on('response', (r) => {
    if (r.status() >= 400) failedRequests.push(`${r.url()} ${r.status()}`);
  });
  const res = await page.goto(url, { waitUntil: 'networkidle' });
  expect(res?.status(), url).toBe(200);
  return { page, consoleErrors, failedRequests };
}

/** No console error, no failed request, no serious or critical axe violation; a screenshot kept. */
async function checkPage(name: string, v: Visit): Promise<void> {
  const axe = await new AxeBuilder({ page: v.page }).analyze();
  const serious = axe.violations
    .filter((x) => x.impact === 'serious' || x.impact === 'critical')
    .map(
      (x) =>
        `${x.id} (${x.impact}): ${x.help} at ${x.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 3)
          .join(', ')}`,
    );
  await v.page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
  expect(v.consoleErrors, `${name}: console errors`).toEqual([]);
  expect(v.failedRequests, `${name}: failed requests`).toEqual([]);
  expect(serious, `${name}: axe`).toEqual([]);
}

async function firstLink(page: Page, selector: string): Promise<string> {
  const href = await page.locator(selector).first().getAttribute('href');
  expect(href, selector).toBeTruthy();
  return href!;
}

describe('the public pages in Chromium', () => {
  it('has Chromium installed where the tests expect it', () => {
    expect(existsSync(CHROMIUM)).toBe(true);
  });

  it.each([
    ['home', '/'],
    ['services', '/services/'],
    ['categories', '/categories/'],
    ['trends', '/trends/'],
    ['wash-report', '/wash-report/'],
    ['methodology', '/methodology/'],
    ['api', '/api/'],
    ['downloads', '/downloads/'],
    ['analytics-docs', '/docs'],
  ])('%s (%s) renders cleanly', async (name, path) => {
    const v = await visit(`${served.analytics.url}${path}`);
    await checkPage(name, v);
    if (name !== 'analytics-docs') expect(await v.page.locator('footer').innerText()).toMatch(/as of/i);
    await v.page.close();
  });

  it('a service page and a category page render cleanly', async () => {
    const list = await visit(`${served.analytics.url}/services/`);
    const service = await list.page.evaluate(
      () => [...document.querySelectorAll('a')].map((a) => a.getAttribute('href') ?? '').find((h) => /^\/services\/\d+$/.test(h)) ?? '',
    );
    expect(service).toMatch(/^\/services\/\d+$/);
    await list.page.close();
    const v = await visit(`${served.analytics.url}${service}`);
    await checkPage('service', v);
    await v.page.close();
    const cats = await visit(`${served.analytics.url}/categories/`);
    const category = await firstLink(cats.page, 'a[href^="/categories/"][href$="/"]:not([href="/categories/"])');
    await cats.page.close();
    const c = await visit(`${served.analytics.url}${category}`);
    await checkPage('category', c);
    await c.page.close();
  });

  it('the services table searches, filters and sorts in the browser over the static index', async () => {
    const index = (await (await fetch(`${served.analytics.url}/services/index.json`)).json()) as Record<string, unknown>;
    expect(index).toBeTruthy();
    const api = (await (await fetch(`${served.analytics.url}/api/v1/services?page_size=1`)).json()) as { pagination: { total: number } };
    const v = await visit(`${served.analytics.url}/services/`);
    const { page } = v;
    const status = page.locator('#service-status');
    await page.waitForFunction(() => /services match/.test(document.querySelector('#service-status')?.textContent ?? ''));
    const matching = async () => Number(((await status.innerText()).match(/^([\d,]+) of/)?.[1] ?? 'NaN').replace(/,/g, ''));
    // the default view matches the API's default list (placeholders hidden)
    expect(await matching()).toBe(api.pagination.total);
    const rows = () => page.locator('#service-table tbody tr');
    expect(await rows().count()).toBeGreaterThan(0);

    // search: every visible row names the term
    const firstName = (await rows().first().locator('a').first().innerText()).trim();
    const term = firstName.split(/\s+/)[0]!.toLowerCase();
    await page.fill('input[name="q"]', term);
    await page.waitForFunction(
      (t) =>
        document.querySelector('#service-status')?.textContent?.includes('match') &&
        new URL(location.href).search.includes(encodeURIComponent(t)),
      term,
    );
    await page.waitForTimeout(300);
    const searched = await matching();
    expect(searched).toBeGreaterThan(0);
    expect(searched).toBeLessThanOrEqual(api.pagination.total);
    const apiSearched = (await (
      await fetch(`${served.analytics.url}/api/v1/services?page_size=1&search=${encodeURIComponent(term)}`)
    ).json()) as {
      pagination: { total: number };
    };
    expect(searched).toBe(apiSearched.pagination.total);
    await page.fill('input[name="q"]', '');

    // category filter: the count equals the API's for that category
    const category = await page.locator('select[name="category"] option').nth(1).getAttribute('value');
    await page.selectOption('select[name="category"]', category!);
    await page.waitForTimeout(300);
    const apiCategory = (await (await fetch(`${served.analytics.url}/api/v1/services?page_size=1&category=${category}`)).json()) as {
      pagination: { total: number };
    };
    expect(await matching()).toBe(apiCategory.pagination.total);
    await page.selectOption('select[name="category"]', '');

    // sorting: a click on a numeric column sorts the rows by it, descending, then ascending
    const header = page.locator('th:has(button[data-sort="tx_total"])');
    await page.click('button[data-sort="tx_total"]');
    await page.waitForTimeout(200);
    expect(await header.getAttribute('aria-sort')).toBe('descending');
    const column = await page.evaluate(() => {
      const th = [...document.querySelectorAll('#service-table thead th')];
      return th.findIndex((h) => h.querySelector('button[data-sort="tx_total"]'));
    });
    const values = async () =>
      (await rows().evaluateAll((trs, i) => trs.map((tr) => tr.children[i as number]?.textContent ?? ''), column)).map((t) =>
        Number(t.replace(/[^\d.]/g, '')),
      );
    const desc = await values();
    expect(desc).toEqual([...desc].sort((a, b) => b - a));
    await page.click('button[data-sort="tx_total"]');
    await page.waitForTimeout(200);
    expect(await header.getAttribute('aria-sort')).toBe('ascending');
    const asc = await values();
    expect(asc).toEqual([...asc].sort((a, b) => a - b));
    await checkPage('services-sorted', v);
    await page.close();
  });

  it('korea: the landing page and /docs render cleanly', async () => {
    const landing = await visit(`${served.korea.url}/`);
    await checkPage('korea-landing', landing);
    await landing.page.close();
    const docs = await visit(`${served.korea.url}/docs`);
    await checkPage('korea-docs', docs);
    await docs.page.close();
  });
});

describe('the layout at 1400 and 390 pixels wide', () => {
  /** Boxes of the elements matching `selector` inside `root`. */
  type Box = { x: number; y: number; width: number; height: number };
  const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

  // soft checks: one run tells every layout fault, not only the first
  it.each([1400, 390])(
    'at %i px: charts fill the column, no axis title on its ticks, no orphan card, dates on one line, korea with contents',
    async (width) => {
      const home = await visit(`${served.analytics.url}/`, width);
      await checkPage(`home-${width}`, home);
      const charts = await home.page.evaluate(() => {
        const column = document.querySelector('main')!.getBoundingClientRect();
        const style = getComputedStyle(document.querySelector('main')!);
        const inner = column.width - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        return [...document.querySelectorAll('figure.chart > svg, figure.chart figure > svg')].map(
          (svg) => svg.getBoundingClientRect().width / inner,
        );
      });
      expect(charts.length).toBeGreaterThan(0);
      for (const share of charts) expect.soft(share, 'chart width / column width').toBeGreaterThan(0.95);
      // the label chart's axis title sits clear of every tick label
      const labels = await home.page.evaluate(() => {
        const svg = document.querySelector('[data-testid="chart-labels"] svg')!;
        const texts = [...svg.querySelectorAll('text')];
        const title = texts.find((t) => t.textContent?.includes('share of 30-day volume'));
        const box = (e: Element) => {
          const r = e.getBoundingClientRect();
          return { x: r.x, y: r.y, width: r.width, height: r.height };
        };
        return { title: title ? box(title) : null, ticks: texts.filter((t) => /^\d+$/.test(t.textContent?.trim() ?? '')).map(box) };
      });
      expect(labels.title).not.toBeNull();
      expect(labels.ticks.length).toBeGreaterThan(3);
      for (const tick of labels.ticks) expect.soft(overlaps(labels.title!, tick), 'axis title over a tick label').toBe(false);
      await home.page.close();

      // headline cards of a category page (7): no last row of one
      const cats = await visit(`${served.analytics.url}/categories/`, width);
      const category = await firstLink(cats.page, 'a[href^="/categories/"][href$="/"]:not([href="/categories/"])');
      await cats.page.close();
      const cat = await visit(`${served.analytics.url}${category}`, width);
      await checkPage(`category-${width}`, cat);
      const rows = await cat.page.evaluate(() => {
        const tops = [...document.querySelectorAll('ul.figures > li')].map((li) => Math.round(li.getBoundingClientRect().top));
        return [...new Set(tops)].map((t) => tops.filter((x) => x === t).length);
      });
      if (rows.length > 1 && rows[0]! > 1) expect.soft(rows.at(-1), `cards per row: ${rows.join(', ')}`).toBeGreaterThan(1);
      await cat.page.close();

      // the services table: a first-seen date never wraps
      const services = await visit(`${served.analytics.url}/services/`, width);
      await services.page.waitForFunction(() => document.querySelectorAll('#service-table tbody td.date').length > 0);
      const wrapped = await services.page.evaluate(
        () =>
          [...document.querySelectorAll('#service-table tbody td.date')].filter((td) => {
            const range = document.createRange();
            range.selectNodeContents(td);
            return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1;
          }).length,
      );
      expect.soft(wrapped, 'first-seen dates on two lines').toBe(0);
      await checkPage(`services-${width}`, services);
      await services.page.close();

      // the korea landing: the contents sidebar of /docs beside the page (stacked on a phone)
      const korea = await visit(`${served.korea.url}/`, width);
      await checkPage(`korea-landing-${width}`, korea);
      const toc = await korea.page.evaluate(() => {
        const nav = document.querySelector('nav[aria-label="Contents"]');
        const main = document.querySelector('main')!.getBoundingClientRect();
        return {
          links: nav ? [...nav.querySelectorAll('a')].map((a) => a.getAttribute('href')) : [],
          mainWidth: main.width,
          navRight: nav?.getBoundingClientRect().right ?? 0,
          mainLeft: main.left,
        };
      });
      expect.soft(toc.links).toEqual(expect.arrayContaining(['#sells', '#free', '#freshness', '#pay', '/docs']));
      if (width >= 1400) expect.soft(toc.navRight).toBeLessThanOrEqual(toc.mainLeft);
      await korea.page.close();
    },
  );
});

describe('downloads a researcher can trust', () => {
  it('the services Parquet and CSV load in DuckDB with the row count the page states', async () => {
    const v = await visit(`${served.analytics.url}/downloads/`);
    const parquetHref = await firstLink(v.page, 'a[href$="/services.parquet"]');
    const csvHref = await firstLink(v.page, 'a[href$="/services.csv"]');
    const stated = Number(((await v.page.locator('section[data-dataset="services"]').getAttribute('data-rows')) ?? '').replace(/,/g, ''));
    await v.page.close();
    expect(stated).toBeGreaterThan(0);
    const dir = join(root, 'fetched');
    mkdirSync(dir, { recursive: true });
    for (const href of [parquetHref, csvHref]) {
      const res = await fetch(`${served.analytics.url}${href}`);
      expect(res.status, href).toBe(200);
      writeFileSync(join(dir, href.split('/').at(-1)!), Buffer.from(await res.arrayBuffer()));
    }
    const db = await openDatabase(':memory:');
    const parquet = sqlString(join(dir, 'services.parquet'));
    try {
      const count = async (from: string) => Number((await queryJson(db.connection, `SELECT count(*) AS n FROM ${from}`))[0]!.n);
      expect(await count(parquet)).toBe(stated);
      expect(await count(`read_csv(${sqlString(join(dir, 'services.csv'))})`)).toBe(stated);
      const types = await queryJson(db.connection, `SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM ${parquet})`);
      const typeOf = new Map(types.map((t) => [String(t.column_name), String(t.column_type)]));
      expect(typeOf.get('first_seen')).toMatch(/^TIMESTAMP/);
      expect(typeOf.has('name_sort')).toBe(false);
      expect(typeOf.has('search_text')).toBe(false);
      expect(typeOf.get('label_distribution')).toMatch(/^(MAP|STRUCT)/);
    } finally {
      db.close();
    }
  });
});
