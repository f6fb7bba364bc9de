/**
 * GET /api/v1/kimchi-premium/daily, the free daily preview, through the korea app proxy/serve.ts
 * builds over the shared demo snapshot: 200 with no payment, a JSON answer its catalog schema
 * takes, CSV and Parquet downloads with the same rows, one day delayed, every day naming its
 * exchanges; nothing else readable through it; and the landing page's charts of it.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseHTML } from 'linkedom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findEndpoint } from '../catalog/index.ts';
import { dailyPreviewThrough, KIMCHI_PREMIUM_DAILY, KOREAN_EXCHANGES } from '../catalog/korea.ts';
import { openDatabase, queryJson, sqlString } from '../lib/duckdb.ts';
import { DEMO_NOW } from '../pipelines/testing/demo-snapshots.ts';
import { sharedDemoSnapshots } from '../pipelines/testing/shared-demo.ts';
import { loadLatest } from '../snapshots/reader.ts';
import { kimchiPremiumDaily, type PremiumDay } from './data/kimchi-premium-daily.ts';
import { demoApps, type DemoApps } from './testing/demo-apps.ts';

const NOW = '2026-11-20T09:00:30Z';
const ORIGIN = 'http://127.0.0.1:9';
const PATH = '/api/v1/kimchi-premium/daily';
const endpoint = findEndpoint('korea', 'kimchi-premium-daily')!;

type Day = PremiumDay;
interface Preview {
  source: string;
  as_of: string;
  license: string;
  delayed_days: number;
  through: string;
  market: Day[];
  symbols: Array<{ symbol: string; rank: number; days: Day[] }>;
}

let demo: DemoApps;
let preview: Preview;
beforeAll(async () => {
  demo = await demoApps(await sharedDemoSnapshots('kimchi-premium-daily-test-'), NOW, 'kimchi-premium-daily-test-salt');
  preview = (await (await get(PATH)).json()) as Preview;
}, 300_000);
afterAll(() => demo?.close());

const get = (path: string, init?: RequestInit) => demo.app('korea').request(`${ORIGIN}${path}`, init);

/** The preview as one row per series and day, the way the downloads hold it. */
const rowsOfJson = (p: Preview) => [
  ...p.market.map((d) => ({ symbol: 'ALL', rank: null as number | null, ...d })),
  ...p.symbols.flatMap((s) => s.days.map((d) => ({ symbol: s.symbol, rank: s.rank as number | null, ...d }))),
];

/** A CSV line's fields (RFC 4180: quoted fields, doubled quotes). */
function csvFields(line: string): string[] {
  const fields: string[] = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] === '"') {
      let value = '';
      i++;
      for (;;) {
        const q = line.indexOf('"', i);
        value += line.slice(i, q);
        i = q + 1;
        if (line[i] === '"') {
          value += '"';
          i++;
        } else break;
      }
      fields.push(value);
      i++; // the comma
    } else {
      const comma = line.indexOf(',', i);
      const end = comma === -1 ? line.length : comma;
      fields.push(line.slice(i, end));
      i = end + 1;
    }
  }
  return fields;
}

describe('GET /api/v1/kimchi-premium/daily', () => {
  it('is free: 200 with no payment, the catalog schema, CC0, source demo', async () => {
    const res = await get(PATH);
    expect(res.status).toBe(200);
    expect(res.headers.get('payment-required')).toBeNull();
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.headers.get('cache-control')).toBe(`public, max-age=${endpoint.cacheTtlSeconds}`);
    expect(endpoint).toMatchObject({ access: 'free', dataset: 'kimchi-premium-daily' });
    const parsed = endpoint.response.safeParse(preview);
    expect(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues.slice(0, 3))).toBe(true);
    expect(preview).toMatchObject({ source: 'demo', license: 'CC0-1.0', delayed_days: 1 });
    expect(Date.parse(preview.as_of)).toBe(Date.parse(DEMO_NOW));
    // a second request naming the answer it has gets 304
    const again = await get(PATH, { headers: { 'If-None-Match': res.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });

  it('is one day delayed: the newest day is the day before yesterday, which closed 24 hours before as_of', () => {
    expect(preview.through).toBe('2026-11-18');
    expect(preview.through).toBe(dailyPreviewThrough(preview.as_of));
    const days = [...preview.market, ...preview.symbols.flatMap((s) => s.days)].map((d) => d.day);
    expect(days.reduce((a, b) => (b > a ? b : a))).toBe(preview.through);
    for (const day of days) expect(Date.parse(`${day}T00:00:00Z`) + 2 * 86_400_000).toBeLessThanOrEqual(Date.parse(preview.as_of));
    expect(preview.market.at(-1)!.day).toBe(preview.through);
    expect(preview.market.length).toBeLessThanOrEqual(KIMCHI_PREMIUM_DAILY.keepDays);
  });

  it('gives the market-wide index and the 20 largest symbols, every day naming the Korean exchanges it rests on', () => {
    expect(preview.market.length).toBeGreaterThan(80); // the demo world's 90-day backfill
    expect(preview.symbols.map((s) => s.rank)).toEqual(Array.from({ length: KIMCHI_PREMIUM_DAILY.symbols }, (_, i) => i + 1));
    expect(preview.symbols.map((s) => s.symbol)).not.toContain('USDT');
    for (const d of rowsOfJson(preview)) {
      expect(d.exchanges.length, `${d.symbol} ${d.day}`).toBeGreaterThan(0);
      for (const e of d.exchanges) expect(KOREAN_EXCHANGES).toContain(e);
      expect(d.min_pct).toBeLessThanOrEqual(d.premium_pct);
      expect(d.max_pct).toBeGreaterThanOrEqual(d.premium_pct);
    }
    for (const s of preview.symbols) expect(s.days.map((d) => d.day)).toEqual([...s.days.map((d) => d.day)].sort());
  });

  it('downloads the same rows as CSV', async () => {
    const res = await get(`${PATH}?format=csv`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="kimchi-premium-daily.csv"');
    const [header, ...lines] = (await res.text()).trimEnd().split('\n');
    expect(header).toBe('symbol,rank,day,premium_pct,min_pct,max_pct,samples,exchanges,source');
    const rows = lines.map((l) => {
      const [symbol, rank, day, premium, min, max, samples, exchanges, source] = csvFields(l);
      expect(source).toBe('demo');
      return {
        symbol,
        rank: rank === '' ? null : Number(rank),
        day,
        premium_pct: Number(premium),
        min_pct: Number(min),
        max_pct: Number(max),
        samples: Number(samples),
        exchanges: JSON.parse(exchanges!) as string[],
      };
    });
    expect(rows).toEqual(rowsOfJson(preview));
  });

  it('downloads the published Parquet file itself, which DuckDB reads to the same rows', async () => {
    const res = await get(`${PATH}?format=parquet`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.apache.parquet');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="kimchi-premium-daily.parquet"');
    const bytes = Buffer.from(await res.arrayBuffer());
    const published = demo.settings.snapshotsDir;
    const latest = JSON.parse(readFileSync(join(published, 'korea', 'latest.json'), 'utf8')) as { version: string };
    const manifest = JSON.parse(readFileSync(join(published, 'korea', latest.version, 'manifest.json'), 'utf8')) as {
      datasets: Array<{ name: string; sha256: string }>;
    };
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(manifest.datasets.find((d) => d.name === 'kimchi-premium-daily')!.sha256);
    const file = join(demo.root, 'daily.parquet');
    writeFileSync(file, bytes);
    const db = await openDatabase(':memory:', { threads: '1' });
    try {
      const rows = await queryJson(
        db.connection,
        `SELECT symbol, rank, strftime(day, '%Y-%m-%d') AS day, premium_pct, min_pct, max_pct, samples, exchanges
           FROM read_parquet(${sqlString(file)})`,
      );
      expect(rows).toEqual(rowsOfJson(preview));
    } finally {
      db.close();
    }
  });

  it('serves nothing but the preview: other parameters and formats are refused, the paid archive still asks for payment', async () => {
    for (const query of ['?format=xml', '?symbol=BTC', '?interval=1m', '?format=parquet&symbol=BTC']) {
      const res = await get(`${PATH}${query}`);
      expect(res.status, query).toBe(422);
    }
    expect((await get('/api/v1/kimchi-premium/history?symbol=BTC&interval=1d')).status).toBe(402);
  });

  it('answers 503 from a snapshot without the dataset, and reads no file', async () => {
    const snapshot = (await loadLatest(demo.settings.snapshotsDir, 'korea'))!;
    const without = { ...snapshot, datasets: new Map([...snapshot.datasets].filter(([name]) => name !== 'kimchi-premium-daily')) };
    const request = { endpoint, query: { format: 'json' }, params: {}, body: undefined, snapshot: without, now: new Date(NOW) };
    const result = await kimchiPremiumDaily.precheck!(request);
    expect(result).toMatchObject({ status: 503, body: { error: 'not_available' } });
    expect(await kimchiPremiumDaily.file!({ ...request, query: { format: 'parquet' } })).toBeNull();
  });
});

describe('the korea landing page', () => {
  let html: string;
  let document: ReturnType<typeof parseHTML>['document'];
  beforeAll(async () => {
    const res = await get('/', { headers: { Accept: 'text/html' } });
    expect(res.status).toBe(200);
    html = await res.text();
    document = parseHTML(html).document;
  });

  it('charts the daily index and the 20 symbols, each with a name, axis labels and a table of its figures', () => {
    const section = document.getElementById('preview')!.closest('section')!;
    expect(section.textContent).toContain('one day delayed, CC0');
    expect(section.textContent).toContain('Synthetic demo data');
    const charts = [...section.querySelectorAll('svg[role="img"]')];
    expect(charts).toHaveLength(3); // the market line, the newest day's bars, the small multiples
    for (const svg of charts) {
      expect(svg.getAttribute('aria-label')!.length).toBeGreaterThan(40);
      expect(svg.querySelector('title')!.textContent).toBe(svg.getAttribute('aria-label'));
    }
    expect(charts[0]!.getAttribute('aria-label')).toContain(`to ${preview.through}`);
    expect(charts[0]!.textContent).toContain('Korea premium index (%)');
    expect(charts[0]!.textContent).toContain('UTC day');
    expect(charts[1]!.textContent).toContain(`Korea premium index on ${preview.through} (%)`);
    for (const s of preview.symbols) {
      expect(charts[1]!.getAttribute('aria-label')).toContain(s.symbol);
      expect(charts[2]!.textContent).toContain(s.symbol);
    }
    // the text alternatives: each figure's caption and table
    const tables = [...section.querySelectorAll('figure table')];
    expect(tables).toHaveLength(2);
    expect(tables[0]!.querySelectorAll('tbody tr')).toHaveLength(30);
    expect(tables[0]!.querySelector('tbody tr')!.textContent).toContain(preview.through);
    expect(tables[1]!.querySelectorAll('tbody tr')).toHaveLength(KIMCHI_PREMIUM_DAILY.symbols);
    expect(section.querySelector('figcaption')!.textContent).toMatch(/on Upbit, Bithumb, Coinone, Korbit/);
  });

  it('links the JSON, CSV and Parquet downloads, and says only the prices charged', () => {
    const section = document.getElementById('preview')!.closest('section')!;
    for (const href of [PATH, `${PATH}?format=csv`, `${PATH}?format=parquet`]) {
      expect(section.querySelector(`a[href="${href}"]`), href).not.toBeNull();
    }
    expect(document.querySelector('nav.toc a[href="#preview"]')).not.toBeNull();
    // no coordinate or figure reads as the price the old listing had
    expect(html).not.toContain('0.002');
  });
});
