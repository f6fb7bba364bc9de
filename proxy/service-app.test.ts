/**
 * The integrated service apps (routes from the catalog + data handlers + x402 paywall + MCP),
 * built by proxy/serve.ts's createServiceApp over demo snapshots: the order of checks (429, 422,
 * 404 before 402), the payment round trip with a verified receipt, the resource a 402 names, the
 * XRPL variants, cache headers, discovery documents, MCP tools and the wash check's pattern ids.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointsOf, findEndpoint, mcpTools, paidEndpoints, xrplPath } from '../catalog/index.ts';
import { loadSettings, type Settings } from '../lib/config.ts';
import { sharedDemoSnapshots } from '../pipelines/testing/shared-demo.ts';
import { loadLatest, SnapshotReader } from '../snapshots/reader.ts';
import { createServiceApp, processParts, type ProcessParts } from './serve.ts';
import { freshPaymentHeader } from '../payments/testing/bench-support.ts';
import { payToTable } from '../payments/networks.ts';
import { FacilitatorClient } from '../payments/facilitator.ts';
import { fakeFacilitator, testPaymentParts } from '../payments/testing/paywall.ts';
import { xrplPayment } from '../payments/testing/chains.ts';
import { ReceiptSigner, verifyReceipt } from '../payments/receipts.ts';

const NOW = '2026-11-20T09:00:30Z';
let settings: Settings;
let root: string;
const readers: SnapshotReader[] = [];
const signer = ReceiptSigner.random();
const nowSeconds = Math.floor(new Date(NOW).getTime() / 1000);

beforeAll(async () => {
  ({ root, settings } = await sharedDemoSnapshots('service-app-test-'));
}, 240_000);
afterAll(() => {
  for (const r of readers) r.close();
  rmSync(root, { recursive: true, force: true });
});

/** The app as proxy/serve.ts builds it, with the test's receipt key and clock; `parts` override the process parts. */
async function appFor(service: 'korea' | 'analytics', s: Settings = settings, parts: Partial<ProcessParts> = {}): Promise<Hono> {
  const reader = new SnapshotReader(s.snapshotsDir, service);
  readers.push(reader);
  await reader.refresh();
  const now = () => new Date(NOW);
  return createServiceApp(
    service,
    reader,
    s,
    { ...testPaymentParts({ signer, now }), washPatternSalt: 'service-app-test-salt', ...parts },
    { now },
  );
}

const payTo = () => payToTable(settings);

function pay(service: 'korea' | 'analytics', id: string, version: 1 | 2 = 1) {
  const endpoint = findEndpoint(service, id)!;
  return freshPaymentHeader({ endpoint, payTo: payTo(), version, now: nowSeconds, resourceUrl: `http://localhost${endpoint.path}` });
}

describe('payments on every paid endpoint', () => {
  it.each(['korea', 'analytics'] as const)(
    '%s: every paid endpoint (and XRPL variant) answers 402 with accepts and the v2 header when unpaid',
    async (service) => {
      const app = await appFor(service);
      for (const e of paidEndpoints(service)) {
        const paths = e.xrplVariant ? [e.path, xrplPath(e.path)] : [e.path];
        for (const raw of paths) {
          const path = raw
            .replace(':id', '1')
            .replace(':slug', 'ai_inference')
            .replace(':address', '0x' + '1'.repeat(40));
          const init: RequestInit =
            e.method === 'POST'
              ? {
                  method: 'POST',
                  body: JSON.stringify({ address: '0x' + '2'.repeat(40) }),
                  headers: { 'Content-Type': 'application/json' },
                }
              : {};
          const res = await app.request(path, init);
          if (res.status === 404) continue; // the id/slug is not in this demo snapshot
          expect(res.status, path).toBe(402);
          const body = (await res.json()) as { x402Version: number; accepts: Array<{ network: string; maxAmountRequired: string }> };
          expect(body.x402Version).toBe(1);
          const networks = body.accepts.map((a) => a.network).sort();
          if (raw.startsWith('/api/v1/xrpl/')) expect(networks).toEqual(['xrpl']);
          else expect(networks).toEqual(service === 'korea' ? ['base', 'polygon', 'solana'] : ['base', 'solana']);
          expect(res.headers.get('payment-required')).toBeTruthy();
          expect(res.headers.get('cache-control')).toBe('no-store');
        }
      }
    },
  );

  it('korea: every paid endpoint answers 402 unpaid, then 200 with its catalog body and a receipt once paid', async () => {
    const app = await appFor('korea');
    const paths: Record<string, string> = {
      'kimchi-premium': '?symbol=ETH',
      'kimchi-premium-history': '?symbol=ETH&interval=1h',
      'kimchi-premium-stats': '?symbol=ETH&window=7d',
      'kr-prices': '?symbol=ETH',
      'global-vs-korea-divergence': '?symbol=XRP',
      'global-vs-korea-divergence-deep': '?symbol=SOL',
      'kr-news-kpop': '?limit=3',
      'kr-news-kpop-summary': '?limit=3',
      'kr-news-semiconductor': '?limit=10',
      'kr-news-semiconductor-summary': '?limit=1',
    };
    const paid = paidEndpoints('korea');
    // the spec's 16 and issue 32's: the premium history and its statistics, the executable premium
    expect(paid).toHaveLength(19);
    for (const e of paid) {
      const url = e.path + (paths[e.id] ?? '');
      expect((await app.request(url)).status, url).toBe(402);
      const header = pay('korea', e.id);
      const res = await app.request(url, { headers: { [header.name]: header.value } });
      expect(res.status, url).toBe(200);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body.receipt, url).toBeTruthy();
      const parsed = e.response.safeParse(body);
      expect(parsed.success, `${url}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues.slice(0, 2))}`).toBe(true);
      expect(body.source).toBe('demo');
      if (e.id.startsWith('kr-news')) expect((body.articles as unknown[]).length).toBe(Number((paths[e.id] ?? '?limit=5').split('=')[1]));
    }
  });

  it('korea: every XRPL variant offers RLUSD on xrpl and answers 200 once paid with a signed Payment (checked in-process, settled through a facilitator)', async () => {
    const facilitator = await fakeFacilitator();
    try {
      const s = loadSettings({
        SNAPSHOTS_DIR: settings.snapshotsDir,
        WAREHOUSE_DIR: settings.warehouseDir,
        KEYS_DIR: join(root, 'keys'),
        SETTLEMENT: 'facilitator',
        FACILITATOR_URL: facilitator.url,
        PAY_TO_EVM: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        PAY_TO_XRPL: 'rU8Pz7RT7pGRGzpoNbBGuJ1Xa5heLg77H1',
      });
      const app = await appFor('korea', s, { facilitator: new FacilitatorClient({ url: facilitator.url, timeoutMs: 2000 }) });
      let blob = 0;
      for (const e of paidEndpoints('korea')) {
        const url = xrplPath(e.path) + (e.query && 'limit' in e.query.shape ? '?limit=2' : '');
        const unpaid = await app.request(url);
        expect(unpaid.status, url).toBe(402);
        const required = JSON.parse(Buffer.from(unpaid.headers.get('payment-required')!, 'base64').toString('utf8')) as {
          accepts: Array<{ network: string; amount: string; asset: string; payTo: string; extra: { issuer: string } }>;
        };
        expect(required.accepts.map((a) => a.network)).toEqual(['xrpl:0']);
        const [offer] = required.accepts;
        const signed = xrplPayment({
          Destination: offer!.payTo,
          Amount: { currency: offer!.asset, issuer: offer!.extra.issuer, value: offer!.amount },
          Sequence: ++blob,
        });
        const payment = { x402Version: 2, accepted: offer, payload: { signedTxBlob: signed.blob } };
        const res = await app.request(url, { headers: { 'PAYMENT-SIGNATURE': Buffer.from(JSON.stringify(payment)).toString('base64') } });
        expect(res.status, url).toBe(200);
        const body = (await res.json()) as { receipt: { network: string; currency: string } };
        expect(body.receipt).toMatchObject({ network: 'xrpl', currency: 'RLUSD' });
        expect(e.response.safeParse(body).success, url).toBe(true);
      }
    } finally {
      await facilitator.close();
    }
  });

  it('SETTLEMENT=facilitator and /settle stays settlement_pending: nothing served, 402 with the hash; after a restart the payment is still spent', async () => {
    const facilitator = await fakeFacilitator();
    const now = () => new Date(NOW);
    const s = loadSettings({
      SNAPSHOTS_DIR: settings.snapshotsDir,
      WAREHOUSE_DIR: settings.warehouseDir,
      KEYS_DIR: join(root, 'keys'),
      NONCE_DB_DIR: join(root, 'nonces-settlement-pending'),
      SETTLEMENT: 'facilitator',
      FACILITATOR_URL: facilitator.url,
      PAY_TO_EVM: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      CRYPTO_WORKERS: '0',
    });
    // the process's parts as proxy/serve.ts builds them: the LMDB nonce store and the facilitator client from the settings
    const start = async () => {
      const parts = processParts(s, { now });
      const reader = new SnapshotReader(s.snapshotsDir, 'korea');
      readers.push(reader);
      await reader.refresh();
      return { parts, app: await createServiceApp('korea', reader, s, parts, { now }) };
    };
    try {
      const endpoint = findEndpoint('korea', 'fx-rate')!;
      const header = freshPaymentHeader({
        endpoint,
        payTo: payToTable(s),
        version: 2,
        now: nowSeconds,
        resourceUrl: `http://localhost${endpoint.path}`,
      });
      const first = await start();
      facilitator.settle = 'pending';
      const res = await first.app.request(endpoint.path, { headers: { [header.name]: header.value } });
      const text = await res.text();
      expect([res.status, (JSON.parse(text) as { reason: string }).reason]).toEqual([402, 'settlement_pending']);
      // the 402 body names the fields (its outputSchema), never a value of them
      expect(text).not.toMatch(/"rate":\d/);
      const settled = JSON.parse(Buffer.from(res.headers.get('payment-response')!, 'base64').toString('utf8')) as Record<string, unknown>;
      expect(settled).toMatchObject({ success: false, transaction: `0x${'cd'.repeat(32)}`, errorReason: 'settlement_pending' });
      expect(facilitator.loopback.requests.map((r) => r.path).filter((p) => p !== '/supported')).toEqual(['/verify', '/settle', '/settle']);
      await first.parts.stores?.close();

      // a restart over the same nonce store, the facilitator healthy again: refused before any facilitator call
      facilitator.settle = 'ok';
      facilitator.loopback.reset();
      const second = await start();
      const again = await second.app.request(endpoint.path, { headers: { [header.name]: header.value } });
      expect([again.status, ((await again.json()) as { reason: string }).reason]).toEqual([402, 'nonce_used']);
      expect(facilitator.loopback.requests.map((r) => r.path).filter((p) => p !== '/supported')).toEqual([]);
      await second.parts.stores?.close();
    } finally {
      await facilitator.close();
    }
  });

  it('serves paid data with a receipt that verifies against the manifest key, and refuses the replay', async () => {
    const app = await appFor('korea');
    const manifest = (await (await app.request('/.well-known/x402')).json()) as {
      receipt_signer: { public_key: string };
      resources: string[];
    };
    expect(manifest.resources.length).toBe(38); // 19 paid endpoints and their XRPL variants
    const header = pay('korea', 'kimchi-premium');
    const res = await app.request('/api/v1/kimchi-premium?symbol=eth', { headers: { [header.name]: header.value } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { symbol: string; receipt: Record<string, string> };
    expect(body.symbol).toBe('ETH');
    expect(findEndpoint('korea', 'kimchi-premium')!.response.safeParse(body).success).toBe(true);
    expect(verifyReceipt(body.receipt, manifest.receipt_signer.public_key)).toMatchObject({ ok: true });
    const headerReceipt = JSON.parse(Buffer.from(res.headers.get('x-receipt')!, 'base64').toString('utf8')) as Record<string, string>;
    expect(headerReceipt.signature).toBe(body.receipt.signature);
    expect(body.receipt.payer?.toLowerCase()).toBe(header.payer.toLowerCase());
    expect(res.headers.get('x-payment-response')).toBeTruthy();

    const replay = await app.request('/api/v1/kimchi-premium?symbol=eth', { headers: { [header.name]: header.value } });
    expect(replay.status).toBe(402);
    expect(((await replay.json()) as { reason?: string; error: string }).reason).toBe('nonce_used');
  });

  it('fifty concurrent requests carrying one payment get exactly one 200', async () => {
    const app = await appFor('korea');
    const header = pay('korea', 'fx-rate');
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => app.request('/api/v1/fx-rate', { headers: { [header.name]: header.value } })),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 402)).toHaveLength(49);
    const reasons = await Promise.all(
      answers.filter((r) => r.status === 402).map(async (r) => ((await r.json()) as { reason: string }).reason),
    );
    expect(new Set(reasons)).toEqual(new Set(reasons.filter((x) => x === 'nonce_used' || x === 'nonce_in_flight')));
  });

  it('accepts the v2 PAYMENT-SIGNATURE header and answers PAYMENT-RESPONSE', async () => {
    const app = await appFor('analytics');
    const header = pay('analytics', 'categories.full-history', 2);
    const res = await app.request('/api/v1/categories/ai_inference/full-history', { headers: { [header.name]: header.value } });
    expect(res.status).toBe(200);
    expect(res.headers.get('payment-response')).toBeTruthy();
    const body = (await res.json()) as { category: string; points: unknown[] };
    expect(body.category).toBe('ai_inference');
    expect(body.points.length).toBeGreaterThan(8000);
  });

  it('checks parameters (422) and existence (404) before asking for payment', async () => {
    const app = await appFor('korea');
    const bad = await app.request('/api/v1/kr-news/kpop?limit=11');
    expect(bad.status).toBe(422);
    const detail = ((await bad.json()) as { detail: Array<{ loc: string[]; type: string; input: unknown; ctx?: Record<string, unknown> }> })
      .detail;
    expect(detail[0]).toMatchObject({ loc: ['query', 'limit'], type: 'less_than_equal', input: '11', ctx: { le: 10 } });

    const notInt = await app.request('/api/v1/kr-news/kpop?limit=2.5');
    expect(((await notInt.json()) as { detail: Array<{ type: string }> }).detail[0]!.type).toBe('int_from_float');

    const size = await app.request('/api/v1/arbitrage/executable?symbol=BTC&size_usd=50');
    expect(size.status).toBe(422);
    expect(((await size.json()) as { detail: Array<{ loc: string[] }> }).detail[0]!.loc).toEqual(['query', 'size_usd']);
    const noBooks = await app.request('/api/v1/arbitrage/executable?symbol=NOPE1');
    expect(noBooks.status).toBe(404);

    const exchange = await app.request('/api/v1/kr-prices?exchange=gopax');
    expect(exchange.status).toBe(422);
    expect(((await exchange.json()) as { detail: Array<{ loc: string[]; type: string }> }).detail[0]).toMatchObject({
      loc: ['query', 'exchange'],
      type: 'enum',
    });

    const divergence = await app.request('/api/v1/global-vs-korea-divergence?symbol=PEPE');
    expect(divergence.status).toBe(422);

    const unknown = await app.request('/api/v1/kimchi-premium?symbol=NOPECOIN');
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: string }).error).toBe('not_found');
  });

  it('analytics preflight: 422 for a malformed id and 404 for an unknown one before payment, 402 unpaid, 200 with its body and receipt once paid, the replay refused', async () => {
    const app = await appFor('analytics');
    const bad = await app.request('/api/v1/services/abc/preflight');
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { detail: Array<{ loc: string[] }> }).detail[0]!.loc).toEqual(['path', 'id']);
    expect((await app.request('/api/v1/services/99999999/preflight')).status).toBe(404);
    expect((await app.request('/api/v1/services/1/preflight')).status).toBe(402);
    const header = pay('analytics', 'services.preflight');
    const res = await app.request('/api/v1/services/1/preflight', { headers: { [header.name]: header.value } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toMatch(/private|no-store/);
    const body = (await res.json()) as Record<string, unknown>;
    const parsed = findEndpoint('analytics', 'services.preflight')!.response.safeParse(body);
    expect(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues.slice(0, 2))).toBe(true);
    expect(body).toMatchObject({ service_id: 1, source: 'demo' });
    expect(body.receipt).toBeTruthy();
    const replay = await app.request('/api/v1/services/1/preflight', { headers: { [header.name]: header.value } });
    expect(replay.status).toBe(402);
  });

  it('analytics: malformed address, unknown sort key and oversized page get 422; unknown id 404', async () => {
    const app = await appFor('analytics');
    const address = await app.request('/api/v1/buyers/0x123/profile');
    expect(address.status).toBe(422);
    expect(((await address.json()) as { detail: Array<{ loc: string[] }> }).detail[0]!.loc).toEqual(['path', 'address']);
    const sort = await app.request('/api/v1/services?sort=popularity');
    expect(sort.status).toBe(422);
    const page = await app.request('/api/v1/services?page_size=500');
    expect(page.status).toBe(422);
    expect(((await page.json()) as { detail: Array<{ type: string }> }).detail[0]!.type).toBe('less_than_equal');
    const missing = await app.request('/api/v1/services/99999999/wash-detail');
    expect(missing.status).toBe(404);
    const body = await app.request('/api/v1/wash/check', {
      method: 'POST',
      body: '{not json',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(body.status).toBe(422);
    expect(((await body.json()) as { detail: Array<{ type: string }> }).detail[0]!.type).toBe('json_invalid');
  });

  it('nothing a client sends makes a 500', async () => {
    const app = await appFor('analytics');
    const probes = [
      '/api/v1/services?page=-1',
      '/api/v1/services?search=' + 'x'.repeat(5000),
      '/api/v1/services?min_real_pct=NaN',
      '/api/v1/services/%00',
      '/api/v1/categories/%ZZ',
      '/api/v1/services/1e400',
      '/api/v1/buyers/' + 'A'.repeat(200) + '/profile',
    ];
    for (const p of probes) {
      const res = await app.request(p);
      expect(res.status, p).toBeLessThan(500);
    }
    for (const header of ['not-base64!', Buffer.from('{"x402Version":1').toString('base64'), 'A'.repeat(20_000)]) {
      const res = await app.request('/api/v1/categories/ai_inference/full-history', { headers: { 'X-PAYMENT': header } });
      expect(res.status).toBe(400); // no payment payload at all: the x402 HTTP transport's "Invalid Payment"
      expect(((await res.json()) as { reason: string }).reason).toMatch(/malformed_payload|header_too_large/);
    }
  });
});

describe('the kimchi premium archive through the app', () => {
  const get = async (app: Hono, url: string) => {
    const header = pay('korea', url.includes('/stats') ? 'kimchi-premium-stats' : 'kimchi-premium-history');
    const res = await app.request(url, { headers: { [header.name]: header.value } });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  it('pages a history by next_cursor to exactly the points of one page, oldest first, within the range', async () => {
    const app = await appFor('korea');
    const query = '/api/v1/kimchi-premium/history?symbol=BTC&interval=1h&from=2026-11-10T00:00:00Z&to=2026-11-20T00:00:00Z';
    const whole = await get(app, `${query}&limit=2000`);
    expect(whole.status).toBe(200);
    expect(whole.body.next_cursor).toBeNull();
    const points = whole.body.points as Array<{ t: string; exchange: string; samples: number }>;
    // 10 days of closed hours on the four exchanges and the Korea index (the demo's archive holds 14 days of hours)
    expect(points).toHaveLength(10 * 24 * 5);
    expect(points.every((p) => p.t >= '2026-11-10T00:00:00Z' && p.t < '2026-11-20T00:00:00Z')).toBe(true);
    expect(points.map((p) => `${p.t}|${p.exchange}`)).toEqual(points.map((p) => `${p.t}|${p.exchange}`).sort());
    expect(points.every((p) => p.samples === 60)).toBe(true);
    const paged: unknown[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await get(app, `${query}&limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.count).toBe((page.body.points as unknown[]).length);
      paged.push(...(page.body.points as unknown[]));
      cursor = page.body.next_cursor as string | null;
      pages += 1;
    } while (cursor && pages < 20);
    expect(pages).toBe(12);
    expect(paged).toEqual(points);
  });

  it('answers stats that the archive files give when computed another way', async () => {
    const app = await appFor('korea');
    const { status, body } = await get(app, '/api/v1/kimchi-premium/stats?symbol=BTC&window=7d');
    expect(status).toBe(200);
    expect(body.series_interval).toBe('1h');
    const loaded = (await loadLatest(settings.snapshotsDir, 'korea'))!;
    const files = (n: string) =>
      `[${loaded.datasets
        .get(n)!
        .files.map((f) => `'${f}'`)
        .join(', ')}]`;
    const instance = await DuckDBInstance.create(':memory:');
    const c = await instance.connect();
    try {
      const reader = await c.runAndReadAll(
        `WITH cur AS (SELECT exchange, arg_max(last_pct, t) AS cur, max(t) AS last_t FROM read_parquet(${files('kimchi-premium-1m')}) WHERE symbol = 'BTC' GROUP BY exchange),
              newest AS (SELECT max(last_t) AS n_t FROM cur),
              pts AS (SELECT h.exchange, h.premium_pct AS p FROM read_parquet(${files('kimchi-premium-1h')}) h, newest
                       WHERE h.symbol = 'BTC' AND h.t > newest.n_t - INTERVAL 7 DAY AND h.t <= newest.n_t)
         SELECT pts.exchange, count(*) AS n, avg(p) AS mean, stddev_samp(p) AS sd, 100.0 * count(*) FILTER (WHERE p < cur.cur) / count(*) AS pct,
                (any_value(cur.cur) - avg(p)) / stddev_samp(p) AS z
           FROM pts JOIN cur USING (exchange) GROUP BY pts.exchange
          ORDER BY list_position(['upbit', 'bithumb', 'coinone', 'korbit', 'korea'], pts.exchange)`,
      );
      const expected = reader.getRowObjectsJson();
      expect(body.exchanges.map((e: Record<string, unknown>) => e.exchange)).toEqual(['upbit', 'bithumb', 'coinone', 'korbit', 'korea']);
      for (const [i, e] of (body.exchanges as Array<Record<string, number>>).entries()) {
        const x = expected[i]!;
        expect(e.samples).toBe(Number(x.n));
        expect(e.mean).toBeCloseTo(Number(x.mean), 3);
        expect(e.stdev).toBeCloseTo(Number(x.sd), 3);
        expect(e.percentile).toBeCloseTo(Number(x.pct), 1);
        expect(e.zscore).toBeCloseTo(Number(x.z), 2);
        expect(e.coverage_pct).toBeCloseTo(Math.min(100, (100 * Number(x.n)) / (7 * 24)), 1);
      }
    } finally {
      c.closeSync();
      instance.closeSync();
    }
  });

  it('refuses a bad range, interval, window or cursor (422) and an unknown symbol (404) before payment', async () => {
    const app = await appFor('korea');
    const status = async (url: string) => (await app.request(url)).status;
    expect(await status('/api/v1/kimchi-premium/history?interval=5m')).toBe(422);
    expect(await status('/api/v1/kimchi-premium/history?from=2026-11-20&to=2026-11-19')).toBe(422);
    expect(await status('/api/v1/kimchi-premium/history?from=yesterday')).toBe(422);
    expect(await status('/api/v1/kimchi-premium/history?cursor=bm90LWEtY3Vyc29y')).toBe(422);
    expect(await status('/api/v1/kimchi-premium/history?limit=2001')).toBe(422);
    expect(await status('/api/v1/kimchi-premium/stats?window=2d')).toBe(422);
    expect(await status('/api/v1/kimchi-premium/history?symbol=NOPECOIN')).toBe(404);
    expect(await status('/api/v1/kimchi-premium/stats?symbol=NOPECOIN')).toBe(404);
    expect(await status('/api/v1/xrpl/kimchi-premium/stats?symbol=NOPECOIN')).toBe(404);
    expect(await status('/api/v1/kimchi-premium/history?symbol=BTC')).toBe(402);
  });
});

describe('the resource a 402 asks payment for', () => {
  const forwarded = { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'data.example.org' };
  const trusting = (extra: Record<string, string> = {}) =>
    loadSettings({
      SNAPSHOTS_DIR: settings.snapshotsDir,
      WAREHOUSE_DIR: settings.warehouseDir,
      KEYS_DIR: join(root, 'keys'),
      TRUST_PROXY: '1',
      ...extra,
    });

  /** The resource URLs of an unpaid request's 402: every v1 `accepts[].resource` and the v2 PAYMENT-REQUIRED `resource.url`. */
  async function resources(app: Hono, url: string): Promise<{ v1: string[]; v2: string }> {
    const res = await app.request(url, { headers: forwarded });
    expect(res.status, url).toBe(402);
    const v1 = (await res.json()) as { accepts: Array<{ resource: string }> };
    const v2 = JSON.parse(Buffer.from(res.headers.get('payment-required')!, 'base64').toString('utf8')) as { resource: { url: string } };
    return { v1: [...new Set(v1.accepts.map((a) => a.resource))], v2: v2.resource.url };
  }

  it('is the public URL the client called with TRUST_PROXY: scheme and host from X-Forwarded-*, path and parameters as requested', async () => {
    const korea = await appFor('korea', trusting());
    for (const path of ['/api/v1/kimchi-premium?symbol=ETH', '/api/v1/xrpl/kr-news/kpop?limit=3']) {
      const url = `https://data.example.org${path}`;
      expect(await resources(korea, `http://127.0.0.1:4020${path}`)).toEqual({ v1: [url], v2: url });
    }
    const analytics = await appFor('analytics', trusting());
    const path = '/api/v1/categories/ai_inference/full-history';
    expect(await resources(analytics, `http://127.0.0.1:4021${path}`)).toEqual({
      v1: [`https://data.example.org${path}`],
      v2: `https://data.example.org${path}`,
    });
  });

  it('ignores X-Forwarded-* without TRUST_PROXY, and still keeps the query string', async () => {
    const app = await appFor('korea');
    const url = 'http://127.0.0.1:4020/api/v1/kimchi-premium?symbol=ETH';
    expect(await resources(app, url)).toEqual({ v1: [url], v2: url });
  });

  it("is the service's public URL when one is set, whatever the Host or forwarded headers say, and so are its documents' links", async () => {
    const publicSettings = trusting({
      KOREA_PUBLIC_URL: 'https://korea.example.com/',
      ANALYTICS_PUBLIC_URL: 'https://analytics.example.com',
    });
    const korea = await appFor('korea', publicSettings);
    const path = '/api/v1/kimchi-premium?symbol=ETH';
    // the forwarded headers say data.example.org: the setting wins
    expect(await resources(korea, `http://127.0.0.1:4020${path}`)).toEqual({
      v1: [`https://korea.example.com${path}`],
      v2: `https://korea.example.com${path}`,
    });
    const manifest = (await (await korea.request('http://127.0.0.1:4020/.well-known/x402', { headers: forwarded })).json()) as {
      resources: string[];
    };
    expect(manifest.resources.length).toBeGreaterThan(0);
    expect(manifest.resources.every((r) => r.startsWith('https://korea.example.com/'))).toBe(true);
    const openapi = (await (await korea.request('http://127.0.0.1:4020/openapi.json')).json()) as { servers: Array<{ url: string }> };
    expect(openapi.servers.map((x) => x.url)).toEqual(['https://korea.example.com']);
    const analytics = await appFor('analytics', publicSettings);
    const llms = await (await analytics.request('http://127.0.0.1:4021/llms.txt')).text();
    expect(llms).toContain('Base URL: https://analytics.example.com');
  });

  it('refuses a public URL with a path, a query or credentials, naming the setting', () => {
    for (const bad of [
      'https://korea.example.com/api',
      'https://korea.example.com/?x=1',
      'https://u:p@korea.example.com',
      'ftp://korea.example.com',
    ]) {
      expect(() => loadSettings({ KOREA_PUBLIC_URL: bad }), bad).toThrow(/KOREA_PUBLIC_URL must be/);
    }
  });
});

describe('the wash check through the app', () => {
  let truth: { sybils: string[]; honest: string };
  beforeAll(async () => {
    // the demo world's planted labels, kept in the warehouse beside (never inside) the snapshot
    const instance = await DuckDBInstance.create(join(settings.warehouseDir, 'analytics.duckdb'), { access_mode: 'READ_ONLY' });
    const c = await instance.connect();
    try {
      const rows = async (sql: string) => (await c.runAndReadAll(sql)).getRowObjectsJson().map((r) => String(r.address));
      const sybils = await rows(`SELECT address FROM demo_truth_buyers WHERE pattern = 'sybil_cohort' AND difficulty = 'easy'
        AND group_id = (SELECT min(group_id) FROM demo_truth_buyers WHERE pattern = 'sybil_cohort' AND difficulty = 'easy') ORDER BY address LIMIT 2`);
      const [honest] = await rows(
        `SELECT address FROM demo_truth_buyers WHERE label = 'organic_user' AND difficulty = 'easy' ORDER BY address LIMIT 1`,
      );
      truth = { sybils, honest: honest! };
    } finally {
      c.closeSync();
      instance.closeSync();
    }
    expect(truth.sybils).toHaveLength(2);
  });

  async function check(app: Hono, address: string) {
    const header = pay('analytics', 'wash.check');
    const res = await app.request('/api/v1/wash/check', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [header.name]: header.value },
      body: JSON.stringify({ address }),
    });
    expect(res.status, address).toBe(200);
    return (await res.json()) as {
      label: string;
      similar_patterns: Array<{ anonymous_id: string; pattern_type: string }>;
      receipt: unknown;
    };
  }
  const farmId = (body: { similar_patterns: Array<{ anonymous_id: string; pattern_type: string }> }) =>
    body.similar_patterns.find((p) => p.pattern_type === 'farm_cohort')?.anonymous_id;

  it('labels a planted sybil suspected_wash and an honest buyer not, with a receipt', async () => {
    const app = await appFor('analytics');
    const sybil = await check(app, truth.sybils[0]!);
    expect(sybil.label).toBe('suspected_wash');
    expect(sybil.receipt).toBeTruthy();
    expect((await check(app, truth.honest)).label).not.toBe('suspected_wash');
  });

  it('gives one cohort one anonymous id for one salt (WASH_PATTERN_SALT), and another id for another salt', async () => {
    const app = await appFor('analytics');
    const [a, b] = truth.sybils as [string, string];
    const id = farmId(await check(app, a));
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(farmId(await check(app, a))).toBe(id); // stable
    expect(farmId(await check(app, b))).toBe(id); // a sibling of the same farm
    const salted = await appFor('analytics', settings, { washPatternSalt: 'another-salt' });
    const other = farmId(await check(salted, a));
    expect(other).toMatch(/^[0-9a-f]{16}$/);
    expect(other).not.toBe(id);
    expect(farmId(await check(salted, b))).toBe(other);
  });

  it('answers 422 to a body that is not an address, before any payment', async () => {
    const app = await appFor('analytics');
    const res = await app.request('/api/v1/wash/check', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ address: "0x'; DROP TABLE x402_transactions; --" }),
    });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { detail: Array<{ loc: string[] }> }).detail[0]!.loc).toEqual(['body', 'address']);
  });
});

describe('free tier, caching and discovery', () => {
  it('limits free analytics endpoints to 60 per hour per IP with RateLimit headers and a JSON 429', async () => {
    const app = await appFor('analytics');
    let last: Response | null = null;
    for (let i = 0; i < 60; i++) {
      last = await app.request('/api/v1/trends');
      expect(last.status).toBe(200);
    }
    expect(last!.headers.get('ratelimit-remaining')).toBe('0');
    const limited = await app.request('/api/v1/trends');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await limited.json()) as { error: string; limit: number }).limit).toBe(60);
    // X-Forwarded-For is not trusted without TRUST_PROXY: a spoofed header does not reset the count
    const spoofed = await app.request('/api/v1/trends', { headers: { 'X-Forwarded-For': '203.0.113.9' } });
    expect(spoofed.status).toBe(429);
  });

  it('honours X-Forwarded-For only with TRUST_PROXY', async () => {
    const trusting = loadSettings({
      SNAPSHOTS_DIR: settings.snapshotsDir,
      WAREHOUSE_DIR: settings.warehouseDir,
      KEYS_DIR: join(root, 'keys'),
      TRUST_PROXY: '1',
    });
    const app = await appFor('analytics', trusting);
    for (let i = 0; i < 60; i++) await app.request('/api/v1/categories', { headers: { 'X-Forwarded-For': '198.51.100.1' } });
    expect((await app.request('/api/v1/categories', { headers: { 'X-Forwarded-For': '198.51.100.1' } })).status).toBe(429);
    expect((await app.request('/api/v1/categories', { headers: { 'X-Forwarded-For': '198.51.100.2' } })).status).toBe(200);
  });

  it('sends Cache-Control from the catalog TTL and an ETag that answers 304', async () => {
    const app = await appFor('korea');
    const res = await app.request('/api/v1/symbols');
    const ttl = findEndpoint('korea', 'symbols')!.cacheTtlSeconds;
    expect(res.headers.get('cache-control')).toBe(`public, max-age=${ttl}`);
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^W\/"/);
    const again = await app.request('/api/v1/symbols', { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
  });

  it('exposes the payment, receipt and rate-limit headers to browsers', async () => {
    const app = await appFor('analytics');
    const res = await app.request('/api/v1/trends', { headers: { Origin: 'https://example.org' } });
    const exposed = res.headers.get('access-control-expose-headers') ?? '';
    for (const h of [
      'PAYMENT-REQUIRED',
      'PAYMENT-RESPONSE',
      'X-PAYMENT-RESPONSE',
      'X-Receipt',
      'RateLimit-Remaining',
      'Retry-After',
      'ETag',
    ]) {
      expect(exposed).toContain(h);
    }
    const pre = await app.request('/api/v1/wash/check', {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://example.org',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'PAYMENT-SIGNATURE, Content-Type',
      },
    });
    expect(pre.headers.get('access-control-allow-headers')).toMatch(/PAYMENT-SIGNATURE/);
    expect(pre.headers.get('access-control-allow-headers')).toMatch(/Content-Type/);
  });

  it('generates /llms.txt, /docs and /.well-known/x402 from the catalog', async () => {
    for (const service of ['korea', 'analytics'] as const) {
      const app = await appFor(service);
      const llms = await app.request('/llms.txt');
      expect(llms.headers.get('content-type')).toMatch(/text\/plain/);
      const text = await llms.text();
      for (const e of endpointsOf(service)) expect(text, e.path).toContain(e.path);
      const docs = await (await app.request('/docs')).text();
      expect(docs).toMatch(/<form class="try"/);
      for (const e of paidEndpoints(service)) expect(docs).toContain(`${e.priceUsd} USD`);
      const manifest = (await (await app.request('http://127.0.0.1:9/.well-known/x402')).json()) as {
        version: number;
        resources: string[];
        receipt_signer: { public_key: string; address: string };
      };
      expect(manifest.version).toBe(1);
      expect(manifest.receipt_signer.public_key).toBe(signer.info.public_key);
      // templated paths are not callable URLs: they are described in `items` only (proxy/discovery.test.ts)
      const expected = paidEndpoints(service)
        .flatMap((e) => [e.path, ...(e.xrplVariant ? [xrplPath(e.path)] : [])])
        .filter((p) => !p.includes(':'));
      expect(manifest.resources).toEqual(expected.map((p) => `http://127.0.0.1:9${p}`));
    }
  });
});

describe('MCP', () => {
  async function client(app: Hono): Promise<Client> {
    const c = new Client({ name: 'test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), {
      fetch: async (url, init) => app.request(new Request(url, init)),
    });
    await c.connect(transport);
    return c;
  }

  it.each([
    ['korea', 21], // the spec's 13 and issue 32's eight (macro stress, four news products, the archive's two, the executable premium)
    ['analytics', 6], // the spec's 5 and issue 31's paid x402_preflight
  ] as const)('%s lists its %i tools with the catalog input schemas', async (service, n) => {
    const c = await client(await appFor(service));
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      mcpTools(service)
        .map((t) => t.name)
        .sort(),
    );
    expect(tools).toHaveLength(n);
    await c.close();
  });

  it('answers free tools with data and paid tools with an x402 PaymentRequired, then data once paid', async () => {
    const c = await client(await appFor('korea'));
    const symbols = await c.callTool({ name: 'get_available_symbols', arguments: {} });
    expect(symbols.isError).toBeFalsy();
    expect((symbols.structuredContent as { count: number }).count).toBeGreaterThan(100);

    const unpaid = await c.callTool({ name: 'get_fx_rate', arguments: {} });
    expect(unpaid.isError).toBe(true);
    const required = unpaid.structuredContent as { x402Version: number; accepts: unknown[]; resource: { url: string } };
    expect(required.x402Version).toBe(2);
    expect(required.resource.url).toBe('mcp://tool/get_fx_rate');

    const header = pay('korea', 'fx-rate', 2);
    const payload = JSON.parse(Buffer.from(header.value, 'base64').toString('utf8')) as unknown;
    const paid = await c.callTool({ name: 'get_fx_rate', arguments: {}, _meta: { 'x402/payment': payload } });
    expect(paid.isError).toBeFalsy();
    expect((paid.structuredContent as { pair: string }).pair).toBe('USDKRW');
    expect((paid.structuredContent as { receipt: unknown }).receipt).toBeTruthy();
    expect(paid._meta?.['x402/payment-response']).toBeTruthy();

    const invalid = await c.callTool({ name: 'get_kimchi_premium', arguments: { symbol: '$$$' } });
    expect(invalid.isError).toBe(true);
    await c.close();
  });

  it('the four AI tools answer when paid, with the rules analyst labelled', async () => {
    const c = await client(await appFor('korea'));
    const tools: Array<[string, string, Record<string, unknown>]> = [
      ['get_kr_sentiment', 'kr-sentiment', {}],
      ['get_market_read', 'market-read', {}],
      ['get_global_vs_korea_divergence', 'global-vs-korea-divergence', { symbol: 'BTC' }],
      ['get_global_vs_korea_divergence_deep', 'global-vs-korea-divergence-deep', { symbol: 'ETH' }],
    ];
    for (const [name, id, args] of tools) {
      const unpaid = await c.callTool({ name, arguments: args });
      expect(unpaid.isError, name).toBe(true);
      const header = pay('korea', id, 2);
      const payload = JSON.parse(Buffer.from(header.value, 'base64').toString('utf8')) as unknown;
      const paid = await c.callTool({ name, arguments: args, _meta: { 'x402/payment': payload } });
      expect(paid.isError, name).toBeFalsy();
      const body = paid.structuredContent as { analyst: string; model: string | null; receipt: unknown };
      expect(body).toMatchObject({ analyst: 'rules', model: null });
      expect(body.receipt).toBeTruthy();
      expect(findEndpoint('korea', id)!.response.safeParse(body).success, name).toBe(true);
    }
    await c.close();
  });

  it('analytics search tool takes the services list filters', async () => {
    const c = await client(await appFor('analytics'));
    const res = await c.callTool({ name: 'x402_search_services', arguments: { sort: 'volume_24h', page_size: 5 } });
    expect(res.isError).toBeFalsy();
    const body = res.structuredContent as { services: unknown[]; filters_applied: { sort: string; page_size: number } };
    expect(body.services.length).toBeLessThanOrEqual(5);
    expect(body.filters_applied).toMatchObject({ sort: 'volume_24h', page_size: 5 });
    await c.close();
  });
});
