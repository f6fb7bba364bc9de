/**
 * The HTTP side of paid endpoints over real loopback HTTP, through createServiceApp as proxy/serve.ts
 * builds it: a request body is refused at 16 KB however it is sent (413, nothing buffered), HEAD
 * never spends a payment, receipts and 402s name the canonical endpoint, Cache-Control and CORS
 * on every payment answer, and the payment-identifier and offer-receipt extensions checked with
 * the x402 reference's own @x402/extensions.
 */
import { request as httpRequest } from 'node:http';
import { rmSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  decodeSignedOffers,
  extractOffersFromPaymentRequired,
  extractReceiptFromResponse,
  findAcceptsObjectFromSignedOffer,
  verifyOfferSignatureEIP712,
  verifyReceiptMatchesOffer,
  verifyReceiptSignatureEIP712,
  type EIP712SignedOffer,
  type EIP712SignedReceipt,
} from '@x402/extensions/offer-receipt';
import {
  appendPaymentIdentifierToExtensions,
  declarePaymentIdentifierExtension,
  generatePaymentId,
} from '@x402/extensions/payment-identifier';
import type { PaymentRequired } from '@x402/core/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findEndpoint } from '../catalog/index.ts';
import type { Settings } from '../lib/config.ts';
import { sharedDemoSnapshots } from '../pipelines/testing/shared-demo.ts';
import { SnapshotReader } from '../snapshots/reader.ts';
import { createServiceApp } from './serve.ts';
import { freshPaymentHeader } from '../payments/testing/bench-support.ts';
import { payToTable } from '../payments/networks.ts';
import { ReceiptSigner, verifyReceipt } from '../payments/receipts.ts';
import { decodeHeader, serveOnLoopback, testPaymentParts, type LooseJson, type ServedApp } from '../payments/testing/paywall.ts';

const NOW = '2026-11-20T09:00:30Z';
const nowSeconds = Math.floor(new Date(NOW).getTime() / 1000);
const signer = ReceiptSigner.random();
let settings: Settings;
let root: string;
const readers: SnapshotReader[] = [];
const servers: ServedApp[] = [];

beforeAll(async () => {
  ({ root, settings } = await sharedDemoSnapshots('service-app-http-test-'));
}, 240_000);
afterAll(async () => {
  for (const s of servers) await s.close();
  for (const r of readers) r.close();
  rmSync(root, { recursive: true, force: true });
});

/** The service on a loopback port, as proxy/serve.ts builds it, with the test's receipt key and clock. */
async function serveService(service: 'korea' | 'analytics'): Promise<ServedApp> {
  const reader = new SnapshotReader(settings.snapshotsDir, service);
  readers.push(reader);
  await reader.refresh();
  const now = () => new Date(NOW);
  const app = await createServiceApp(service, reader, settings, { ...testPaymentParts({ signer, now }), washPatternSalt: 'salt' }, { now });
  const served = await serveOnLoopback(app);
  servers.push(served);
  return served;
}

function pay(service: 'korea' | 'analytics', id: string, version: 1 | 2 = 2) {
  const endpoint = findEndpoint(service, id)!;
  return freshPaymentHeader({
    endpoint,
    payTo: payToTable(settings),
    version,
    now: nowSeconds,
    resourceUrl: `http://localhost${endpoint.path}`,
  });
}

/** A v2 payment header with `extensions` put into its payload (what an x402 client echoes from the 402). */
function withExtensions(value: string, extensions: Record<string, unknown> | undefined): string {
  const payload = JSON.parse(Buffer.from(value, 'base64').toString('utf8')) as Record<string, unknown>;
  if (extensions === undefined) delete payload.extensions;
  else payload.extensions = extensions;
  return Buffer.from(JSON.stringify(payload)).toString('base64');
}

const paymentRequiredOf = (res: Response) => decodeHeader(res.headers.get('payment-required')) as unknown as PaymentRequired;

const PAYMENT_HEADERS = ['PAYMENT-REQUIRED', 'PAYMENT-RESPONSE', 'X-PAYMENT-RESPONSE', 'X-Receipt'];
function expectExposed(res: Response) {
  const exposed = (res.headers.get('access-control-expose-headers') ?? '').split(/,\s*/);
  for (const h of PAYMENT_HEADERS) expect(exposed, res.url).toContain(h);
}

/**
 * POSTs a chunked body, `first` then `total` bytes of JSON whitespace, from a loopback client that writes as
 * fast as the server takes it, and stops writing once the answer arrives. Reports the answer,
 * how much had been sent when it came, and the process's peak RSS growth meanwhile.
 */
async function postChunked(base: string, path: string, total: number, first = '') {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 2);
  const started = performance.now();
  try {
    return await new Promise<{ status: number; body: string; sentWhenAnswered: number; ms: number; rssGrowth: number }>(
      (resolve, reject) => {
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        let sent = 0;
        let answered = false;
        const req = httpRequest(`${base}${path}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
        });
        req.on('response', (res) => {
          answered = true;
          const sentWhenAnswered = sent;
          const ms = performance.now() - started;
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => {
            body += d;
          });
          res.on('end', () => {
            req.destroy();
            peak = Math.max(peak, process.memoryUsage().rss);
            resolve({ status: res.statusCode ?? 0, body, sentWhenAnswered, ms, rssGrowth: peak - before });
          });
        });
        // once answered, the server may close the connection while the client still writes
        req.on('error', (err) => {
          if (!answered) reject(err);
        });
        if (first) req.write(first);
        const pump = () => {
          while (!answered && sent < total) {
            sent += chunk.length;
            if (!req.write(chunk)) {
              req.once('drain', pump);
              return;
            }
          }
          if (!answered) req.end();
        };
        pump();
      },
    );
  } finally {
    clearInterval(sampler);
  }
}

describe('request bodies', () => {
  it('refuses a 64 MB chunked body with 413 after reading 16 KB, without buffering it, and keeps answering', async () => {
    const { url } = await serveService('analytics');
    const result = await postChunked(url, '/api/v1/wash/check', 64 * 1024 * 1024);
    expect(result.status).toBe(413);
    expect(JSON.parse(result.body)).toMatchObject({ error: 'payload_too_large', message: expect.stringMatching(/16384 bytes/) });
    // answered long before the body was through: the server stopped reading at 16 KB
    expect(result.sentWhenAnswered).toBeLessThan(4 * 1024 * 1024);
    expect(result.rssGrowth).toBeLessThan(16 * 1024 * 1024);
    expect(result.ms).toBeLessThan(2000);
    const after = await fetch(`${url}/openapi.json`);
    expect(after.status).toBe(200);
  }, 60_000);

  it('answers 413 the same way when Content-Length says the body is too large', async () => {
    const { url } = await serveService('analytics');
    const res = await fetch(`${url}/api/v1/wash/check`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ address: `0x${'2'.repeat(40)}`, pad: ' '.repeat(20_000) }),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: 'payload_too_large' });
    expectExposed(res);
  });

  it('still takes a small chunked body (402 for the unpaid wash check)', async () => {
    const { url } = await serveService('analytics');
    const res = await postChunked(url, '/api/v1/wash/check', 0, JSON.stringify({ address: `0x${'2'.repeat(40)}` }));
    expect(res.status).toBe(402);
  });
});

describe('HEAD on a paid endpoint', () => {
  it('answers the unpaid 402 (headers only) and never spends the payment it carries', async () => {
    const { url } = await serveService('korea');
    const header = pay('korea', 'fx-rate');
    const head = await fetch(`${url}/api/v1/fx-rate`, { method: 'HEAD', headers: { [header.name]: header.value } });
    expect(head.status).toBe(402);
    expect(head.headers.get('payment-required')).toBeTruthy();
    expect(head.headers.get('x-receipt')).toBeNull();
    expect(head.headers.get('cache-control')).toBe('no-store');
    expect(await head.text()).toBe('');
    const get = await fetch(`${url}/api/v1/fx-rate`, { headers: { [header.name]: header.value } });
    expect(get.status).toBe(200);
    expect(((await get.json()) as LooseJson).receipt).toBeTruthy();
  });
});

/** A GET with the request target exactly as given (fetch would resolve dot segments and absolute URLs first). */
function rawGet(base: string, target: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, path: target, method: 'GET', headers: { Host: `${hostname}:${port}` } });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        body += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('one spelling per resource (x402 path-bypass fixes)', () => {
  it('refuses absolute-form targets and re-encoded paths with 400 before routing, paid or free', async () => {
    const { url } = await serveService('korea');
    const host = new URL(url).host;
    for (const target of [
      'http://evil.example/api/v1/fx-rate',
      `http://${host}/api/v1/fx-rate`,
      '/api/v1/fx-rat%65',
      '/api/v1/fx%2Drate',
      '/api%2Fv1/fx-rate',
      '/api/v1%5Cfx-rate',
      '//api/v1/fx-rate',
      '/api/v1/./fx-rate',
      '/api/v1/xrpl/../fx-rate',
      '/api/v1/%2e%2e/v1/fx-rate',
      '/api/v1/fx-rate%zz',
      '/api/v1/symbol%73',
    ]) {
      const res = await rawGet(url, target);
      expect(res.status, target).toBe(400);
      expect(JSON.parse(res.body), target).toMatchObject({ error: 'bad_request_target' });
    }
    // a raw backslash never gets this far: the HTTP adapter refuses the target itself (400, no body)
    expect((await rawGet(url, '/api/v1\\fx-rate')).status).toBe(400);
    // the canonical spellings, and an escape that is needed, still route
    expect((await rawGet(url, '/api/v1/fx-rate')).status).toBe(402);
    expect((await rawGet(url, '/api/v1/symbols')).status).toBe(200);
    expect((await rawGet(url, '/api/v1/kimchi-premium?symbol=%42TC')).status).toBe(402);
  });

  it('the canonical path is paid and receipted under its one name; a payment sent to a second spelling spends nothing', async () => {
    const { url } = await serveService('korea');
    const header = pay('korea', 'fx-rate');
    const refused = await new Promise<number>((resolve, reject) => {
      const { hostname, port } = new URL(url);
      const req = httpRequest({ host: hostname, port, path: '/api/v1/fx-rat%65', headers: { [header.name]: header.value } });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(refused).toBe(400);
    const res = await fetch(`${url}/api/v1/fx-rate`, { headers: { [header.name]: header.value } });
    expect(res.status).toBe(200);
    const receipt = ((await res.json()) as LooseJson).receipt;
    expect(receipt.endpoint).toBe('/api/v1/fx-rate');
    expect(verifyReceipt(receipt, signer.info.address)).toMatchObject({ ok: true });
    const standard = extractReceiptFromResponse(res) as EIP712SignedReceipt;
    expect(standard.payload.resourceUrl).toBe(`${url}/api/v1/fx-rate`);
  });

  it('the XRPL variant and path parameters: a needed escape is decoded, validated and re-encoded in the 402 and receipt', async () => {
    const korea = await serveService('korea');
    expect((await rawGet(korea.url, '/api/v1/xrpl/fx-rat%65')).status).toBe(400);
    const variant = await fetch(`${korea.url}/api/v1/xrpl/fx-rate`);
    expect(variant.status).toBe(402);
    expect(paymentRequiredOf(variant).resource.url).toBe(`${korea.url}/api/v1/xrpl/fx-rate`);

    const analytics = await serveService('analytics');
    expect((await rawGet(analytics.url, '/api/v1/categories/ai%5Finference/full-history')).status).toBe(400);
    const path = '/api/v1/categories/ai_inference/full-history';
    const unpaid = await fetch(`${analytics.url}${path}`);
    expect(unpaid.status).toBe(402);
    expect(paymentRequiredOf(unpaid).resource.url).toBe(`${analytics.url}${path}`);
    const header = pay('analytics', 'categories.full-history');
    const res = await fetch(`${analytics.url}${path}`, { headers: { [header.name]: header.value } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as LooseJson).receipt.endpoint).toBe(path);
    // a category with a character that must be escaped still reaches validation (422 unknown category, not a routing 400)
    const escaped = await rawGet(analytics.url, '/api/v1/categories/ai%20inference/full-history');
    expect(escaped.status).toBe(422);
  });
});

describe('Cache-Control and CORS on payment answers', () => {
  it('402s, paid 200s and preflights carry no-store and expose the payment headers', async () => {
    const { url } = await serveService('korea');
    const unpaid = await fetch(`${url}/api/v1/fx-rate`, { headers: { Origin: 'https://example.org' } });
    expect(unpaid.status).toBe(402);
    expect(unpaid.headers.get('cache-control')).toBe('no-store');
    expectExposed(unpaid);

    const header = pay('korea', 'fx-rate', 1);
    const paid = await fetch(`${url}/api/v1/fx-rate`, { headers: { [header.name]: header.value, Origin: 'https://example.org' } });
    expect(paid.status).toBe(200);
    expect(paid.headers.get('cache-control')).toMatch(/no-store/);
    expectExposed(paid);

    const replay = await fetch(`${url}/api/v1/fx-rate`, { headers: { [header.name]: header.value } });
    expect(replay.status).toBe(402);
    expect(replay.headers.get('cache-control')).toBe('no-store');
    expectExposed(replay);

    const preflight = await fetch(`${url}/api/v1/fx-rate`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://example.org',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'PAYMENT-SIGNATURE',
      },
    });
    expect(preflight.status).toBe(204);
    expectExposed(preflight);
  });

  it('MCP answers (paid tool results included) are no-store', async () => {
    const { url } = await serveService('korea');
    const cacheControl: Array<string | null> = [];
    const c = new Client({ name: 'test', version: '1.0.0' });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        fetch: async (input, init) => {
          const res = await fetch(input, init);
          if (init?.method === 'POST' && res.status === 200) cacheControl.push(res.headers.get('cache-control'));
          return res;
        },
      }),
    );
    const header = pay('korea', 'fx-rate');
    const payload = JSON.parse(Buffer.from(header.value, 'base64').toString('utf8')) as Record<string, unknown>;
    const paid = await c.callTool({ name: 'get_fx_rate', arguments: {}, _meta: { 'x402/payment': payload } });
    expect(paid.isError).toBeFalsy();
    await c.close();
    expect(cacheControl.length).toBeGreaterThan(0);
    expect(cacheControl.every((v) => v === 'no-store')).toBe(true);
  });
});

describe('payment-identifier extension', () => {
  it('is declared in the 402 exactly as @x402/extensions declares it (not required)', async () => {
    const { url } = await serveService('korea');
    const res = await fetch(`${url}/api/v1/fx-rate`);
    expect(paymentRequiredOf(res).extensions?.['payment-identifier']).toEqual(
      JSON.parse(JSON.stringify(declarePaymentIdentifierExtension(false))),
    );
  });

  it('a retry with the same payment and id gets the same answer; another or no id gets 402 nonce_used', async () => {
    const { url } = await serveService('korea');
    const declared = paymentRequiredOf(await fetch(`${url}/api/v1/fx-rate`)).extensions ?? {};
    const id = generatePaymentId();
    const extensions = appendPaymentIdentifierToExtensions(structuredClone(declared), id);
    const plain = pay('korea', 'fx-rate');
    const value = withExtensions(plain.value, extensions);
    const send = (v: string) => fetch(`${url}/api/v1/fx-rate`, { headers: { 'PAYMENT-SIGNATURE': v } });

    const first = await send(value);
    expect(first.status).toBe(200);
    const firstBody = await first.text();
    const retry = await send(value);
    expect(retry.status).toBe(200);
    expect(await retry.text()).toBe(firstBody);
    for (const h of ['x-receipt', 'payment-response', 'content-type']) expect(retry.headers.get(h), h).toBe(first.headers.get(h));
    expect(retry.headers.get('cache-control')).toMatch(/no-store/);

    const otherId = withExtensions(plain.value, appendPaymentIdentifierToExtensions(structuredClone(declared), generatePaymentId()));
    for (const v of [otherId, withExtensions(plain.value, undefined)]) {
      const res = await send(v);
      expect(res.status).toBe(402);
      expect(((await res.json()) as LooseJson).reason).toBe('nonce_used');
    }
  });

  it('refuses a malformed id with a clear 402, and serves a concurrent retry at most once', async () => {
    const { url } = await serveService('korea');
    const send = (v: string) => fetch(`${url}/api/v1/fx-rate`, { headers: { 'PAYMENT-SIGNATURE': v } });
    const short = withExtensions(pay('korea', 'fx-rate').value, { 'payment-identifier': { info: { required: false, id: 'too-short' } } });
    const bad = await send(short);
    expect(bad.status).toBe(402);
    expect(await bad.json()).toMatchObject({ reason: 'malformed_payload', error: expect.stringMatching(/16 to 128 characters/) });

    const value = withExtensions(pay('korea', 'fx-rate').value, {
      'payment-identifier': { info: { required: false, id: generatePaymentId() } },
    });
    const answers = await Promise.all([send(value), send(value), send(value)]);
    const receipts = new Set<string | null>();
    for (const res of answers) {
      if (res.status === 200) receipts.add(res.headers.get('x-receipt'));
      else expect(((await res.json()) as LooseJson).error).toMatch(/retry in a moment with the same payment and payment-identifier/);
    }
    expect(receipts.size).toBe(1); // one payment, one receipt, however many answers carried it
    const later = await send(value);
    expect(later.status).toBe(200);
    expect(receipts.has(later.headers.get('x-receipt'))).toBe(true);
  });
});

describe('offer-receipt extension', () => {
  it('the paid answer carries an EIP-712 receipt that @x402/extensions verifies as signed by the receipt key', async () => {
    const { url } = await serveService('korea');
    for (const version of [1, 2] as const) {
      const header = pay('korea', 'fx-rate', version);
      const res = await fetch(`${url}/api/v1/fx-rate`, { headers: { [header.name]: header.value } });
      expect(res.status).toBe(200);
      const receipt = extractReceiptFromResponse(res);
      expect(receipt?.format).toBe('eip712');
      const verified = await verifyReceiptSignatureEIP712(receipt as EIP712SignedReceipt);
      expect(verified.signer.toLowerCase()).toBe(signer.info.address.toLowerCase());
      expect(verified.payload).toEqual({
        version: 1,
        network: 'eip155:8453',
        resourceUrl: `${url}/api/v1/fx-rate`,
        payer: header.payer,
        issuedAt: nowSeconds,
        transaction: '', // local settlement moved nothing on chain
      });
      // the pipe-joined receipt is still there
      expect(verifyReceipt(((await res.json()) as LooseJson).receipt, signer.info.public_key)).toMatchObject({ ok: true });
    }
  });

  it('the 402 carries signed offers that match its accepts and the receipt that follows', async () => {
    const { url } = await serveService('korea');
    const required = paymentRequiredOf(await fetch(`${url}/api/v1/fx-rate`));
    const offers = extractOffersFromPaymentRequired(required);
    expect(offers).toHaveLength(required.accepts.length);
    for (const offer of offers) {
      const verified = await verifyOfferSignatureEIP712(offer as EIP712SignedOffer);
      expect(verified.signer.toLowerCase()).toBe(signer.info.address.toLowerCase());
      expect(verified.payload.validUntil).toBeGreaterThan(nowSeconds);
    }
    const [base] = decodeSignedOffers(offers).filter((o) => o.network === 'eip155:8453');
    expect(findAcceptsObjectFromSignedOffer(base!, required.accepts)).toBe(required.accepts[base!.acceptIndex!]);
    // the same offers again (signed once, cached)
    expect(extractOffersFromPaymentRequired(paymentRequiredOf(await fetch(`${url}/api/v1/fx-rate`)))).toEqual(offers);

    const header = pay('korea', 'fx-rate');
    const res = await fetch(`${url}/api/v1/fx-rate`, { headers: { [header.name]: header.value } });
    const receipt = extractReceiptFromResponse(res)!;
    expect(verifyReceiptMatchesOffer(receipt, base!, [header.payer], Number.MAX_SAFE_INTEGER)).toBe(true);
  });
});
