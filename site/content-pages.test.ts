/**
 * The content pages (trends, wash report, methodology, API, downloads) built by Astro for a demo
 * analytics snapshot in a temporary folder, read back with linkedom and compared with the
 * snapshot's documents, the classifier's constants, the catalog and the downloads index.
 * The site is built the way production builds it: by two analytics publishes (runCli; the first is
 * the test run's shared demo publish, copied), each of which writes the version's typed downloads
 * and pages before the version goes live.
 */
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseHTML } from 'linkedom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointsOf, mcpTools } from '../catalog/index.ts';
import { RULE_CONFIDENCE, THRESHOLDS } from '../catalog/wash-rules.ts';
import { WASH_LABELS } from '../catalog/categories.ts';
import type { Settings } from '../lib/config.ts';
import { parseArgs, runCli } from '../pipelines/cli.ts';
import { LineProgress } from '../pipelines/progress.ts';
import { copyOfSharedDemo } from '../pipelines/testing/shared-demo.ts';
import { readLatestPointer } from '../snapshots/reader.ts';
import { siteBuildDir, siteDownloadDir } from '../lib/site-paths.ts';
import { type DownloadsIndex, readDownloadsIndex } from './lib/downloads.ts';
import washEval from './data/wash-eval.json' with { type: 'json' };

const quiet = { progress: new LineProgress(() => {}), out: () => {} };

let root: string;
let out: string;
let version: string;
let snapshotDir: string;
let pastVersion: string;
let downloadsIndex: DownloadsIndex;
let siteDir: string;

function page(path: string): Document {
  const html = readFileSync(join(out, path, 'index.html'), 'utf8');
  return parseHTML(html).document as unknown as Document;
}

const text = (el: Element | null | undefined): string => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();

function snapshotDocument<T>(name: string): T {
  return JSON.parse(readFileSync(join(snapshotDir, `${name}.json`), 'utf8')) as T;
}

beforeAll(async () => {
  // A copy of the run's shared demo publish (analytics at 09:00, its site built before it went
  // live), then one more publish through the production path an hour later, which builds its site
  // and downloads before going live: the second version's downloads page lists the first as a past version.
  let settings: Settings;
  ({ root, settings } = await copyOfSharedDemo('site-content-test-', { services: ['analytics'], env: { SITE_BUILD: 'on' } }));
  pastVersion = readLatestPointer(settings.snapshotsDir, 'analytics')!.version;
  const { exitCode } = await runCli(parseArgs(['analytics', '--now', '2026-11-20T10:00:00Z']), settings, quiet);
  expect(exitCode).toBe(0);
  version = readLatestPointer(settings.snapshotsDir, 'analytics')!.version;
  snapshotDir = join(settings.snapshotsDir, 'analytics', version);
  out = siteBuildDir(settings.siteDir, version);
  siteDir = settings.siteDir;
  downloadsIndex = readDownloadsIndex(siteDownloadDir(settings.siteDir, version));
}, 300_000);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('every content page', () => {
  const pages = ['trends', 'wash-report', 'methodology', 'api', 'downloads'];
  it('names the snapshot version, says demo and carries no file system path', () => {
    for (const p of pages) {
      const html = readFileSync(join(out, p, 'index.html'), 'utf8');
      expect(html, p).not.toContain(root);
      expect(html, p).not.toContain(tmpdir());
      const doc = page(p);
      expect(text(doc.querySelector('[data-testid="version"]')), p).toBe(version);
      expect(doc.querySelector('[data-testid="source"]')?.getAttribute('data-source'), p).toBe('demo');
      expect(doc.querySelectorAll('h1').length, p).toBe(1);
    }
  });
});

describe('/trends/', () => {
  interface TrendsDoc {
    summary: { new_services_24h: number; new_services_prev_24h: number; total_tx_24h: number; active_buyers_24h: number };
    daily_new_services: Array<{ date: string; count: number }>;
    recent_new_services: Array<{ id: number; name: string }>;
    category_movers: Array<{ category: string; volume_change_pct: number | null; new: boolean }>;
    hot_services: Array<{ id: number; tx_24h: number; tx_change_pct: number | null; new: boolean }>;
  }
  it('shows the trends document: summary, daily chart and table, newest and hot services linked to their pages, movers', () => {
    const trends = snapshotDocument<TrendsDoc>('trends');
    const doc = page('trends');
    const row = (figure: string) => [...doc.querySelectorAll(`[data-figure="${figure}"] td`)].map(text);
    expect(row('new_services').slice(0, 2)).toEqual([
      trends.summary.new_services_24h.toLocaleString('en-US'),
      trends.summary.new_services_prev_24h.toLocaleString('en-US'),
    ]);
    const fromZero = trends.summary.new_services_prev_24h === 0 && trends.summary.new_services_24h > 0;
    expect(row('new_services')[2] === 'new').toBe(fromZero);
    expect(row('total_tx_24h')[0]).toBe(trends.summary.total_tx_24h.toLocaleString('en-US'));
    expect(row('active_buyers_24h')[0]).toBe(trends.summary.active_buyers_24h.toLocaleString('en-US'));

    const svg = doc.querySelector('[data-testid="daily-new-services-chart"] svg');
    expect(svg?.getAttribute('aria-label')).toBe('New services per day');
    expect(svg?.querySelectorAll('rect').length).toBeGreaterThanOrEqual(trends.daily_new_services.filter((d) => d.count > 0).length);
    const daily = [...doc.querySelectorAll('[data-testid="daily-new-services"] tbody tr')].map((tr) =>
      [...tr.querySelectorAll('td')].map(text),
    );
    expect(daily).toEqual(trends.daily_new_services.map((d) => [d.date, d.count.toLocaleString('en-US')]));

    const recent = [...doc.querySelectorAll('[data-testid="recent-new-services"] tbody tr')];
    expect(recent.map((tr) => Number(tr.getAttribute('data-service-id')))).toEqual(trends.recent_new_services.map((r) => r.id));
    for (const [i, tr] of recent.entries()) {
      const a = tr.querySelector('a');
      expect(a?.getAttribute('href')).toBe(`/services/${trends.recent_new_services[i]!.id}/`);
      expect(text(a)).toBe(trends.recent_new_services[i]!.name);
    }
    const hot = [...doc.querySelectorAll('[data-testid="hot-services"] tbody tr')];
    expect(hot.map((tr) => Number(tr.getAttribute('data-service-id')))).toEqual(trends.hot_services.map((h) => h.id));
    const movers = [...doc.querySelectorAll('[data-testid="category-movers"] tbody tr')];
    expect(movers.map((tr) => tr.getAttribute('data-category'))).toEqual(trends.category_movers.map((m) => m.category));
    expect(movers[0]?.querySelector('a')?.getAttribute('href')).toBe(`/categories/${trends.category_movers[0]!.category}/`);

    // growth from zero reads "new" (never a made-up +100%); every cell says something; no raw ISO time in prose
    const cells = (tr: Element) => [...tr.querySelectorAll('td')].map(text);
    for (const [i, tr] of movers.entries()) {
      const m = trends.category_movers[i]!;
      expect(cells(tr)[3] === 'new', m.category).toBe(m.volume_change_pct === null);
    }
    for (const [i, tr] of hot.entries())
      expect(cells(tr)[5] === 'new', String(trends.hot_services[i]!.id)).toBe(trends.hot_services[i]!.new);
    expect([...doc.querySelectorAll('main td')].filter((td) => text(td) === '').length).toBe(0);
    expect(text(doc.querySelector('main'))).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:/);
  });
});

describe('/wash-report/', () => {
  interface WashDoc {
    summary: { buyers_classified: number; suspected_wash_buyers: number };
    label_distribution: Array<{ label: string; buyers: number }>;
    patterns: Array<{ pattern_type: string; wallets: number }>;
    case_studies: Array<{ case_id: string; summary: string }>;
    by_category: Array<{ category: string }>;
  }
  it('shows the summary, label distribution, patterns, every case study and the wash share per category, without addresses', () => {
    const report = snapshotDocument<WashDoc>('wash-report');
    const doc = page('wash-report');
    expect(text(doc.querySelector('[data-figure="buyers_classified"] td'))).toBe(report.summary.buyers_classified.toLocaleString('en-US'));
    expect(text(doc.querySelector('[data-figure="suspected_wash_buyers"] td'))).toBe(
      report.summary.suspected_wash_buyers.toLocaleString('en-US'),
    );
    const labels = [...doc.querySelectorAll('[data-testid="label-distribution"] tbody tr')];
    expect(labels.map((tr) => [tr.getAttribute('data-label'), text(tr.querySelectorAll('td')[1])])).toEqual(
      report.label_distribution.map((l) => [l.label, l.buyers.toLocaleString('en-US')]),
    );
    expect(doc.querySelector('[data-testid="label-chart"] svg')).not.toBeNull();
    expect([...doc.querySelectorAll('[data-testid="patterns"] tbody tr')].map((tr) => tr.getAttribute('data-pattern'))).toEqual(
      report.patterns.map((p) => p.pattern_type),
    );
    const cases = [...doc.querySelectorAll('article.case')];
    expect(report.case_studies.length).toBeGreaterThan(0);
    expect(cases.map((c) => c.getAttribute('data-case-id'))).toEqual(report.case_studies.map((c) => c.case_id));
    expect(text(cases[0]?.querySelector('p'))).toBe(report.case_studies[0]!.summary);
    expect([...doc.querySelectorAll('[data-testid="by-category"] tbody tr')].map((tr) => tr.getAttribute('data-category'))).toEqual(
      report.by_category.map((c) => c.category),
    );
    // anonymised: no EVM address anywhere in the page's text
    expect(text(doc.querySelector('main'))).not.toMatch(/0x[0-9a-fA-F]{40}/);
  });
});

describe('/methodology/', () => {
  it('shows every THRESHOLDS constant with the value the classifier uses', () => {
    const doc = page('methodology');
    const keys = Object.keys(THRESHOLDS) as Array<keyof typeof THRESHOLDS>;
    const rows = doc.querySelectorAll('[data-threshold]');
    expect(rows.length).toBe(keys.length);
    for (const key of keys) {
      const tr = doc.querySelector(`[data-threshold="${key}"]`);
      expect(tr, key).not.toBeNull();
      expect(text(tr?.querySelector('code')), key).toBe(key);
      expect(text(tr?.querySelector('[data-value]')), key).toBe(String(THRESHOLDS[key]));
    }
  });

  it('shows every rule with its confidence and every label', () => {
    const doc = page('methodology');
    for (const [rule, confidence] of Object.entries(RULE_CONFIDENCE)) {
      expect(text(doc.querySelector(`[data-rule="${rule}"] [data-value]`)), rule).toBe(String(confidence));
    }
    expect([...doc.querySelectorAll('[data-testid="labels"] tbody tr')].map((tr) => tr.getAttribute('data-label'))).toEqual([
      ...WASH_LABELS,
    ]);
    expect(text(doc.querySelector('[data-testid="bands"]'))).toContain(`below ${THRESHOLDS.unlabeledBelow}`);
  });

  it('shows both recorded splits per target, label and pattern and says they were measured on planted demo data', () => {
    const doc = page('methodology');
    const measuredOn = text(doc.querySelector('[data-testid="measured-on"]'));
    expect(measuredOn).toContain('planted truth');
    expect(measuredOn).toContain('demo data');
    expect([...doc.querySelectorAll('[data-testid="evaluation-split"]')].map((s) => s.getAttribute('data-split'))).toEqual([
      'usual',
      'ood',
    ]);
    for (const split of washEval.splits) {
      const runs = [...doc.querySelectorAll(`[data-testid="evaluation-run"][data-split="${split.split}"]`)];
      expect(runs.map((r) => Number(r.getAttribute('data-seed')))).toEqual(split.runs.map((r) => r.seed));
      for (const [i, r] of split.runs.entries()) {
        const where = `${split.split} ${r.seed}`;
        for (const s of r.buyer) {
          const tr = runs[i]?.querySelector(`tr[data-label="${s.label}"]`);
          expect(text(tr?.querySelector('[data-precision]')), `${where} ${s.label}`).toBe(s.precision.toFixed(3));
          expect(text(tr?.querySelector('[data-recall]')), `${where} ${s.label}`).toBe(s.recall.toFixed(3));
        }
        for (const t of r.targets) {
          const tr = runs[i]?.querySelector(`tr[data-target="${t.name}"]`);
          expect(tr?.getAttribute('data-met'), `${where} ${t.name}`).toBe(String(t.met));
        }
        expect([...(runs[i]?.querySelectorAll('tr[data-pattern]') ?? [])].map((tr) => tr.getAttribute('data-pattern'))).toEqual(
          r.patterns.map((p) => p.pattern),
        );
      }
    }
  });
});

describe('/api/', () => {
  it('lists every analytics endpoint from the catalog with its price, the MCP tools and how to pay', () => {
    const doc = page('api');
    for (const e of endpointsOf('analytics')) {
      const tr = doc.querySelector(`[data-testid="${e.access}-endpoints"] tr[data-endpoint="${e.id}"]`);
      expect(tr, e.id).not.toBeNull();
      expect(text(tr?.querySelectorAll('td')[1]), e.id).toContain(e.path.replace(/:([a-z_]+)/g, '{$1}'));
      if (e.access === 'paid') expect(text(tr?.querySelectorAll('td')[3]), e.id).toBe(e.priceUsd);
    }
    expect([...doc.querySelectorAll('[data-testid="mcp-tools"] tbody tr')].map((tr) => tr.getAttribute('data-tool'))).toEqual(
      mcpTools('analytics').map((t) => t.name),
    );
    const pay = text(doc.querySelector('[data-testid="how-to-pay"]'));
    expect(pay).toContain('402');
    expect(pay).toContain('PAYMENT-SIGNATURE');
    expect(text(doc.querySelector('[data-testid="pay-example"]'))).toContain('npm run pay --');
    for (const href of ['/docs', '/openapi.json', '/.well-known/x402', '/llms.txt']) {
      expect(doc.querySelector(`main a[href="${href}"]`), href).not.toBeNull();
    }
  });
});

describe('/downloads/', () => {
  it("lists the version's datasets with rows, sizes, sha256, schema and examples, the CC0 dedication and past versions", () => {
    const index = downloadsIndex;
    const doc = page('downloads');
    const sections = [...doc.querySelectorAll('section[data-dataset]')];
    expect(sections.map((s) => s.getAttribute('data-dataset'))).toEqual(index.datasets.map((d) => d.name));
    for (const [i, d] of index.datasets.entries()) {
      const s = sections[i]!;
      expect(Number(s.getAttribute('data-rows'))).toBe(d.rows);
      const files = [...s.querySelectorAll('[data-testid="files"] tbody tr')];
      expect(files.map((tr) => tr.getAttribute('data-format'))).toEqual(['parquet', 'csv', 'json']);
      for (const f of d.files) {
        const tr = s.querySelector(`[data-testid="files"] tr[data-format="${f.format}"]`);
        expect(tr?.querySelector('a')?.getAttribute('href')).toBe(`/data/${version}/${f.file}`);
        expect(text(tr?.querySelector('.sha'))).toBe(f.sha256);
        expect(Number(tr?.querySelector('[data-bytes]')?.getAttribute('data-bytes'))).toBe(f.bytes);
        expect(text(tr?.querySelectorAll('td')[2])).toBe(d.rows.toLocaleString('en-US'));
      }
      expect([...s.querySelectorAll('[data-testid="schema"] tbody tr')].map((tr) => text(tr.querySelector('td')))).toEqual(
        d.columns.map((c) => c.name),
      );
      // the CSV header row as the file has it
      const csvFile = d.files.find((f) => f.format === 'csv')!.file;
      const header = readFileSync(join(siteDownloadDir(siteDir, version), csvFile), 'utf8').split('\n')[0];
      expect(text(s.querySelector('[data-testid="csv-header"]'))).toBe(header);
      const parquet = d.files.find((f) => f.format === 'parquet')!.file;
      expect(text(s.querySelector('[data-testid="duckdb-example"]'))).toContain(`'${parquet}'`);
      expect(text(s.querySelector('[data-testid="pandas-example"]'))).toContain(`pd.read_parquet('${parquet}')`);
    }
    expect(text(doc.querySelector('[data-testid="cc0"]'))).toContain('CC0-1.0');
    expect(text(doc.querySelector('[data-testid="csv-format"]'))).toMatch(/header row.*ISO 8601 in UTC with Z.*JSON text/);
    const past = [...doc.querySelectorAll('[data-testid="past-versions"] tbody tr')];
    expect(past.map((tr) => tr.getAttribute('data-version'))).toEqual([pastVersion]);
    expect(past[0]?.querySelector('a')?.getAttribute('href')).toBe(`/data/${pastVersion}/downloads.json`);
  });
});
