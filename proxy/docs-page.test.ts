/**
 * /docs of both services and the korea landing page, through the app proxy/serve.ts builds
 * (createServiceApp over a demo korea snapshot), read as a browser reads them (linkedom): every
 * operation with its price, schema and example, Markdown rendered, unavailable products marked
 * in agreement with the 503 the endpoint answers, and korea `/` negotiated between HTML and JSON.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { parseHTML } from 'linkedom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointsOf, paidEndpoints, xrplPath } from '../catalog/index.ts';
import { openApiDocument } from '../catalog/openapi.ts';
import type { ServiceName } from '../catalog/types.ts';
import { loadSettings, type Settings } from '../lib/config.ts';
import { koreaPipeline } from '../pipelines/korea/index.ts';
import { LineProgress } from '../pipelines/progress.ts';
import { runPipeline } from '../pipelines/runner.ts';
import { type LoadedSnapshot, SnapshotReader } from '../snapshots/reader.ts';
import { closeSnapshotDuck } from './data/duck.ts';
import { operationAnchor } from './docs-page.ts';
import { createServiceApp } from './serve.ts';
import { ReceiptSigner } from '../payments/receipts.ts';
import { decodeHeader, testPaymentParts } from '../payments/testing/paywall.ts';

const NOW = new Date('2026-11-20T09:00:30Z');
const ORIGIN = 'http://127.0.0.1:9';
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
let root: string;
let settings: Settings;
const readers: SnapshotReader[] = [];
let korea: Hono;
let koreaEdited: Hono;
let analyticsEmpty: Hono;

/** The demo snapshot as a failing run would leave it: one dataset missing, one carried over. */
class EditedReader extends SnapshotReader {
  override current(): LoadedSnapshot | null {
    const snap = super.current();
    if (!snap) return null;
    const datasets = new Map(snap.datasets);
    datasets.delete('market-read');
    const manifest = {
      ...snap.manifest,
      datasets: snap.manifest.datasets
        .filter((d) => d.name !== 'market-read')
        .map((d) => (d.name === 'fx-rate' ? { ...d, carried_over: { reason: 'fx: HTTP 503', failed_at: '2026-11-20T09:00:00Z' } } : d)),
    };
    return { ...snap, datasets, manifest };
  }
}

async function app(service: ServiceName, reader: SnapshotReader): Promise<Hono> {
  const now = () => NOW;
  return createServiceApp(
    service,
    reader,
    settings,
    { ...testPaymentParts({ signer: ReceiptSigner.random(), now }), washPatternSalt: 'docs-test' },
    { now },
  );
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'docs-page-test-'));
  settings = loadSettings({ SNAPSHOTS_DIR: join(root, 'snapshots'), WAREHOUSE_DIR: join(root, 'warehouse'), KEYS_DIR: join(root, 'keys') });
  const result = await runPipeline(
    koreaPipeline,
    { source: { kind: 'demo' }, now: new Date('2026-11-20T09:00:00Z'), seed: 7, scale: 1 },
    settings,
    new LineProgress(() => {}),
  );
  expect(result.reports.filter((r) => r.status !== 'ok')).toEqual([]);
  const reader = new SnapshotReader(settings.snapshotsDir, 'korea');
  const edited = new EditedReader(settings.snapshotsDir, 'korea');
  const empty = new SnapshotReader(join(root, 'no-snapshots'), 'analytics');
  for (const r of [reader, edited, empty]) {
    readers.push(r);
    await r.refresh();
  }
  korea = await app('korea', reader);
  koreaEdited = await app('korea', edited);
  analyticsEmpty = await app('analytics', empty);
}, 180_000);

afterAll(async () => {
  for (const r of readers) r.close();
  await closeSnapshotDuck();
  rmSync(root, { recursive: true, force: true });
});

async function page(target: Hono, path: string, accept = BROWSER_ACCEPT) {
  const res = await target.request(`${ORIGIN}${path}`, { headers: { Accept: accept } });
  const html = await res.text();
  return { res, html, document: parseHTML(html).document };
}

/** Every operation of the OpenAPI document, as /docs anchors it. */
function operationIds(service: ServiceName): string[] {
  const doc = openApiDocument(service, { baseUrl: ORIGIN });
  return Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => String((op as { operationId: string }).operationId)));
}

describe('/docs', () => {
  it.each(['korea', 'analytics'] as const)(
    '%s: every operation has its section with parameters, a response schema, an example and a try-it form',
    async (service) => {
      const { res, html, document } = await page(service === 'korea' ? korea : analyticsEmpty, '/docs');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
      const ids = operationIds(service);
      expect(document.querySelectorAll('section.op')).toHaveLength(ids.length);
      for (const id of ids) {
        const section = document.getElementById(operationAnchor(id));
        expect(section, id).not.toBeNull();
        expect(section!.querySelector('table, p')?.textContent, id).toBeTruthy();
        const schema = section!.querySelector('details.response-schema');
        expect(schema?.querySelector('.type')?.textContent, `${id}: response schema`).toBeTruthy();
        const example = section!.querySelector('pre.example')?.textContent ?? '';
        expect(example.length, `${id}: example`).toBeGreaterThan(1);
        expect(section!.querySelector('.example-label')?.textContent, id).toMatch(/Example|real document/);
        // every input of the try-it form has its label
        const form = section!.querySelector('form.try');
        expect(form, `${id}: try-it`).not.toBeNull();
        for (const input of form!.querySelectorAll('input, select, textarea')) {
          expect(
            document.querySelector(`label[for="${input.getAttribute('id')}"]`),
            `${id}: label of ${input.getAttribute('name')}`,
          ).not.toBeNull();
        }
        // the table of contents links to it
        expect(document.querySelector(`nav.toc a[href="#${operationAnchor(id)}"]`), id).not.toBeNull();
      }
      // valid HTML: ids are unique, no inline event handlers, no file system path
      const allIds = [...document.querySelectorAll('[id]')].map((e) => e.getAttribute('id'));
      expect(new Set(allIds).size).toBe(allIds.length);
      expect(html).not.toMatch(/\son[a-z]+=/i);
      expect(html).not.toContain(root);
      expect(html).not.toMatch(/\/(home|tmp|work|usr)\//);
    },
  );

  it('korea: the XRPL variant of every paid endpoint shows its price and RLUSD, none of them "free"', async () => {
    const { document } = await page(korea, '/docs');
    const paid = paidEndpoints('korea');
    expect(paid.length).toBeGreaterThan(10);
    for (const e of paid) {
      const section = document.getElementById(operationAnchor(`${e.id}.xrpl`))!;
      expect(section.querySelector('h3')!.textContent).toContain(xrplPath(e.path));
      const badges = section.querySelector('p')!.textContent!;
      expect(badges).toContain(`${e.priceUsd} USD per call`);
      expect(badges).toContain('RLUSD on XRPL');
      expect(section.querySelector('.badge.free')).toBeNull();
      expect(section.querySelector('form.try')!.getAttribute('data-price')).toBe(e.priceUsd);
      const standard = document.getElementById(operationAnchor(e.id))!;
      expect(standard.querySelector('p')!.textContent).toContain(`${e.priceUsd} USD per call`);
      expect(standard.querySelector('p')!.textContent).toContain('USDC on base, polygon, solana');
    }
    for (const e of endpointsOf('korea').filter((x) => x.access === 'free')) {
      expect(document.getElementById(operationAnchor(e.id))!.querySelector('.badge.free'), e.id).not.toBeNull();
    }
    // the root is documented as JSON and, for browsers, HTML
    const rootTypes = [...document.getElementById(operationAnchor('root'))!.querySelectorAll('details.response-schema summary code')];
    expect(rootTypes.map((c) => c.textContent)).toEqual(['application/json', 'text/html']);
  });

  it('korea: descriptions are rendered Markdown, not literal backticks; the example of a paid answer is labelled as generated', async () => {
    const { document } = await page(korea, '/docs');
    const kimchi = document.getElementById(operationAnchor('kimchi-premium'))!;
    const codes = [...kimchi.querySelectorAll('.desc code')].map((c) => c.textContent);
    expect(codes).toContain('symbol');
    expect(kimchi.querySelector('.example-label')!.textContent).toMatch(/generated from the schema/);
    const example = JSON.parse(kimchi.querySelector('pre.example')!.textContent!) as Record<string, unknown>;
    expect(example).toHaveProperty('receipt');
    expect(JSON.stringify(example)).not.toContain('property1');
    // the parameters table: name, in, type, required, default, description
    const row = [...kimchi.querySelectorAll('tbody tr')].find((tr) => tr.querySelector('td')?.textContent === 'symbol')!;
    const cells = [...row.querySelectorAll('td')].map((td) => td.textContent);
    expect(cells.slice(0, 5)).toEqual(['symbol', 'query', expect.stringMatching(/string/), 'no', '"BTC"']);
    // the nested fields of the response are there, with types
    const fields = [...kimchi.querySelectorAll('details.response-schema code')].map((c) => c.textContent);
    expect(fields).toEqual(expect.arrayContaining(['source', 'as_of', 'receipt', 'signature']));
    // examples are shown as sent (the real llms.txt is Markdown text); everything else is rendered
    for (const raw of [...document.querySelectorAll('script, pre')]) raw.remove();
    expect(document.body.textContent).not.toContain('`');
  });

  it('korea: a product whose dataset is missing is marked unavailable, and it does answer 503; a carried-over one is marked stale', async () => {
    const { document } = await page(koreaEdited, '/docs');
    for (const id of ['market-read', 'market-read.xrpl']) {
      const section = document.getElementById(operationAnchor(id))!;
      expect(section.getAttribute('data-state')).toBe('unavailable');
      expect(section.querySelector('.badge.unavailable')?.textContent).toBe('unavailable');
      expect(section.querySelector('.state-note')!.textContent).toMatch(/answers 503.*"market-read" dataset is not in the snapshot/);
      expect(document.querySelector(`nav.toc a[href="#${operationAnchor(id)}"]`)!.closest('li')!.textContent).toContain('(unavailable)');
    }
    expect(document.getElementById(operationAnchor('fx-rate'))!.getAttribute('data-state')).toBe('stale');
    expect(document.getElementById(operationAnchor('fx-rate'))!.textContent).toContain('fx: HTTP 503');
    const marked = [...document.querySelectorAll('section.op[data-state="unavailable"]')].map((s) => s.getAttribute('id'));
    expect(marked.sort()).toEqual([operationAnchor('market-read'), operationAnchor('market-read.xrpl')].sort());
    // what the page says is what the endpoint does: 503 before any payment is asked
    const res = await koreaEdited.request(`${ORIGIN}/api/v1/market-read`);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: string }).error).toBe('not_available');

    // on the complete snapshot nothing is unavailable, and the freshness line says demo
    const full = await page(korea, '/docs');
    expect(full.document.querySelectorAll('section.op[data-state="unavailable"]')).toHaveLength(0);
    expect(full.document.querySelector('.freshness')!.textContent).toMatch(/demo data Data as of 2026-11-20 .*next update/);
  });

  it('analytics without a snapshot: every product reading a dataset is marked unavailable', async () => {
    const { document } = await page(analyticsEmpty, '/docs');
    const withData = endpointsOf('analytics').filter((e) => e.dataset !== null);
    for (const e of withData) expect(document.getElementById(operationAnchor(e.id))!.getAttribute('data-state'), e.id).toBe('unavailable');
    expect(document.getElementById(operationAnchor('health'))!.getAttribute('data-state')).toBe('available');
    expect(document.querySelector('.freshness')!.textContent).toMatch(/No snapshot is published yet/);
    // the pay command a reader can run as it is: the one callable paid endpoint is a POST with a body
    expect(document.getElementById('how-to-pay')!.textContent).toContain(
      `npm run pay -- ${ORIGIN}/api/v1/wash/check --method POST --data '{"address":"0x${'1'.repeat(40)}"}'`,
    );
  });

  it('the 402 the try-it form meets carries the decodable PAYMENT-REQUIRED header the page script reads', async () => {
    const { html } = await page(korea, '/docs');
    expect(html).toContain("r.headers.get('PAYMENT-REQUIRED')");
    const res = await korea.request(`${ORIGIN}${xrplPath('/api/v1/fx-rate')}`);
    expect(res.status).toBe(402);
    const required = decodeHeader(res.headers.get('payment-required')) as {
      accepts: Array<{ network: string; payTo: string; amount: string }>;
    };
    expect(required.accepts.map((a) => a.network)).toEqual(['xrpl:0']);
    // the page's network table names every network a 402 offers
    const networks = JSON.parse(parseHTML(html).document.getElementById('x402-networks')!.textContent!) as Record<
      string,
      { asset: string }
    >;
    expect(networks[required.accepts[0]!.network]?.asset).toBe('RLUSD');
  });
});

describe('korea /', () => {
  it('gives a browser the landing page: what is sold with prices, free endpoints, freshness, how to pay and the documents', async () => {
    const { res, html, document } = await page(korea, '/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(res.headers.get('vary')).toMatch(/Accept/);
    for (const e of paidEndpoints('korea')) {
      const link = document.querySelector(`a[href="/docs#${operationAnchor(e.id)}"]`);
      expect(link, e.id).not.toBeNull();
      const row = link!.closest('tr')!;
      expect(row.querySelector('td.num')!.textContent).toBe(e.priceUsd);
    }
    expect(document.querySelectorAll('h3').length).toBeGreaterThanOrEqual(4);
    for (const e of endpointsOf('korea').filter((x) => x.access === 'free'))
      expect(document.querySelector(`a[href="${e.path}"]`), e.path).not.toBeNull();
    for (const href of ['/docs', '/openapi.json', '/.well-known/x402', '/llms.txt'])
      expect(document.querySelector(`a[href="${href}"]`), href).not.toBeNull();
    expect(html).toContain(`${ORIGIN}/mcp`);
    expect(html).toContain('npm run pay -- ');
    expect(document.querySelector('#freshness')!.parentElement!.textContent).toMatch(/demo data .*as of 2026-11-20.*next update/);
    expect(html).not.toContain(root);
  });

  it.each([
    ['application/json', 'JSON'],
    ['*/*', 'JSON'],
    [undefined, 'JSON'],
    ['application/json, text/html;q=0.5', 'JSON'],
    ['text/html', 'HTML'],
  ])('Accept %s gets %s, with Vary: Accept', async (accept, kind) => {
    const res = await korea.request(`${ORIGIN}/`, accept ? { headers: { Accept: accept } } : {});
    expect(res.status).toBe(200);
    expect(res.headers.get('vary')).toMatch(/Accept/);
    if (kind === 'JSON') {
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      expect(((await res.json()) as { docs: { reference: string } }).docs.reference).toBe('/docs');
    } else {
      expect(await res.text()).toMatch(/^<!doctype html>/);
    }
  });

  it('marks an unavailable product on the landing page too', async () => {
    const { document } = await page(koreaEdited, '/');
    const row = document.querySelector(`a[href="/docs#${operationAnchor('market-read')}"]`)!.closest('tr')!;
    expect(row.textContent).toContain('unavailable');
    const fx = document.querySelector(`a[href="/docs#${operationAnchor('fx-rate')}"]`)!.closest('tr')!;
    expect(fx.textContent).toContain('stale');
  });
});
