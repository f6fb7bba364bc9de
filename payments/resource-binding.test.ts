/**
 * What a paid request's 402 names and what a payment may claim, over real loopback HTTP through
 * createServiceApp as proxy/serve.ts builds it (demo snapshots, SETTLEMENT=local):
 *
 * - an unknown query parameter is a 422 that names it and lists the allowed ones, before any 402
 *   (issue 27, finding 10: `?unknown_param=<10,000 chars>` made a 20 KB PAYMENT-REQUIRED header that
 *   Node clients refuse), on paid and free data endpoints; the service's own documents ignore it;
 * - no valid input grows the header: the 402's resource carries the validated parameters, not the
 *   query string as typed (a repeated key, padding, escapes);
 * - a payment whose `resource.url` names another resource is refused and stays unspent
 *   (conformance check RS-SEC-003); an MCP tool's own `mcp://tool/<name>` is its resource;
 * - a header that is no payment payload at all answers 400, the x402 HTTP transport's "Invalid
 *   Payment" (RS-NEG-001/002), and a payload that fails a check 402.
 */
import { rmSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findEndpoint } from '../catalog/index.ts';
import type { Settings } from '../lib/config.ts';
import { sharedDemoSnapshots } from '../pipelines/testing/shared-demo.ts';
import { SnapshotReader } from '../snapshots/reader.ts';
import { createServiceApp } from '../proxy/serve.ts';
import { freshPaymentHeader } from './testing/bench-support.ts';
import { payToTable } from './networks.ts';
import { decodeHeader, json, serveOnLoopback, testPaymentParts, type LooseJson, type ServedApp } from './testing/paywall.ts';
import { encodeBase64Json } from './wire.ts';

const NOW = '2026-11-20T09:00:30Z';
const nowSeconds = Math.floor(new Date(NOW).getTime() / 1000);
let settings: Settings;
let root: string;
const readers: SnapshotReader[] = [];
const servers: ServedApp[] = [];
let korea: string;
let analytics: string;

beforeAll(async () => {
  ({ root, settings } = await sharedDemoSnapshots('resource-binding-test-'));
  for (const service of ['korea', 'analytics'] as const) {
    const reader = new SnapshotReader(settings.snapshotsDir, service);
    readers.push(reader);
    await reader.refresh();
    const now = () => new Date(NOW);
    const app = await createServiceApp(service, reader, settings, { ...testPaymentParts({ now }), washPatternSalt: 'salt' }, { now });
    servers.push(await serveOnLoopback(app));
  }
  [korea, analytics] = servers.map((s) => s.url) as [string, string];
}, 240_000);
afterAll(async () => {
  for (const s of servers) await s.close();
  for (const r of readers) r.close();
  rmSync(root, { recursive: true, force: true });
});

/** A fresh v2 payment for a korea endpoint, its decoded payload changed by `edit`. */
function payment(id: string, edit: (payload: LooseJson) => void = () => {}): Record<string, string> {
  const header = freshPaymentHeader({ endpoint: findEndpoint('korea', id)!, payTo: payToTable(settings), version: 2, now: nowSeconds });
  const payload = decodeHeader(header.value);
  edit(payload);
  return { 'PAYMENT-SIGNATURE': encodeBase64Json(payload) };
}

const requiredOf = (res: Response) => decodeHeader(res.headers.get('payment-required')) as LooseJson;

describe('an unknown query parameter', () => {
  it('is a 422 naming it and what the endpoint takes, before any 402, and spends nothing', async () => {
    const long = 'x'.repeat(10_000);
    const paid = payment('kimchi-premium');
    const res = await fetch(`${korea}/api/v1/kimchi-premium?symbol=BTC&unknown_param=${long}`, { headers: paid });
    expect(res.status).toBe(422);
    expect(res.headers.get('payment-required')).toBeNull();
    const { detail } = await json(res);
    expect(detail).toEqual([
      {
        loc: ['query', 'unknown_param'],
        msg: 'Unknown query parameter "unknown_param"; this endpoint takes symbol',
        type: 'extra_forbidden',
        input: `${'x'.repeat(200)}…`,
        ctx: { allowed: ['symbol'] },
      },
    ]);
    // the payment sent along was not used
    expect((await fetch(`${korea}/api/v1/kimchi-premium?symbol=BTC`, { headers: paid })).status).toBe(200);
  });

  it('is refused the same way on XRPL variants, endpoints without parameters and free data endpoints; not by the documents', async () => {
    const variant = await fetch(`${korea}/api/v1/xrpl/fx-rate?pair=USDKRW`);
    expect(variant.status).toBe(422);
    expect((await json(variant)).detail[0].msg).toBe('Unknown query parameter "pair"; this endpoint takes no query parameters');

    const typo = await fetch(`${analytics}/api/v1/services?serach=weather`);
    expect(typo.status).toBe(422);
    const [item] = (await json(typo)).detail;
    expect(item).toMatchObject({ loc: ['query', 'serach'], type: 'extra_forbidden', input: 'weather' });
    expect(item.msg).toMatch(/^Unknown query parameter "serach"; this endpoint takes search, category, chain, /);
    expect((await fetch(`${korea}/api/v1/symbols?${'q'.repeat(5000)}=1`)).status).toBe(422);
    expect((await fetch(`${analytics}/api/v1/services?search=weather`)).status).toBe(200);
    // the service's own documents take no parameters and ignore them (a tracking or cache-busting one on a link)
    for (const path of ['/health?probe=1', '/llms.txt?utm_source=feed', '/.well-known/x402?v=2']) {
      expect((await fetch(`${korea}${path}`)).status, path).toBe(200);
    }
  });
});

describe('the 402 names the validated parameters, never the query string as typed', () => {
  it.each([
    [
      'a repeated key with a long second value',
      `/api/v1/kimchi-premium?symbol=BTC&symbol=${'x'.repeat(10_000)}`,
      '/api/v1/kimchi-premium?symbol=BTC',
    ],
    ['a padded value', `/api/v1/kimchi-premium?symbol=${'%20'.repeat(3000)}eth`, '/api/v1/kimchi-premium?symbol=ETH'],
    ['leading zeros', `/api/v1/kr-news/kpop?limit=${'0'.repeat(8000)}5`, '/api/v1/kr-news/kpop?limit=5'],
    ['escaped letters', '/api/v1/xrpl/kr-prices?exchange=%55%50%42%49%54&symbol=%62tc', '/api/v1/xrpl/kr-prices?exchange=upbit&symbol=BTC'],
  ])('%s', async (_name, asked, named) => {
    const res = await fetch(`${korea}${asked}`);
    expect(res.status).toBe(402);
    const required = requiredOf(res);
    expect(required.resource.url).toBe(`${korea}${named}`);
    expect(new Set((await json(res)).accepts.map((a: LooseJson) => a.resource))).toEqual(new Set([`${korea}${named}`]));
    // the same size as the 402 of the plain request
    const plain = await fetch(`${korea}${named}`);
    expect(res.headers.get('payment-required')!.length).toBe(plain.headers.get('payment-required')!.length);
  });
});

describe('a payment that names another resource', () => {
  it.each([
    ['another server', 'https://cross-resource-probe.example/other'],
    ['another endpoint of this server', () => `${korea}/api/v1/fx-rate`],
    ['other parameters', () => `${korea}/api/v1/kimchi-premium?symbol=ETH`],
    ['an unknown parameter', () => `${korea}/api/v1/kimchi-premium?symbol=BTC&x=1`],
    ['the XRPL variant', () => `${korea}/api/v1/xrpl/kimchi-premium?symbol=BTC`],
    ['not a URL', 'kimchi-premium'],
  ])('is refused: %s (resource.url), and stays unspent', async (_name, claimed) => {
    const url = typeof claimed === 'string' ? claimed : claimed();
    const paid = payment('kimchi-premium', (p) => {
      p.resource = { url };
    });
    const res = await fetch(`${korea}/api/v1/kimchi-premium?symbol=BTC`, { headers: paid });
    expect(res.status).toBe(402);
    const body = await json(res);
    expect(body.reason).toBe('resource_mismatch');
    expect(body.error).toContain(`but this request is for ${korea}/api/v1/kimchi-premium?symbol=BTC`);
    expect(body).not.toHaveProperty('receipt');
    expect(requiredOf(res).error).toMatch(/^resource_mismatch: /);

    // the same payment naming this resource (spelt as the client likes) is served: nothing was spent
    const relabelled = decodeHeader(paid['PAYMENT-SIGNATURE']!) as LooseJson;
    relabelled.resource = { url: `${korea}/api/v1/kimchi-premium?symbol=btc` };
    const ok = await fetch(`${korea}/api/v1/kimchi-premium?symbol=BTC`, { headers: { 'PAYMENT-SIGNATURE': encodeBase64Json(relabelled) } });
    expect(ok.status).toBe(200);
  });

  it('is refused when a client copied a foreign resource into `accepted`', async () => {
    const res = await fetch(`${korea}/api/v1/fx-rate`, {
      headers: payment('fx-rate', (p) => {
        p.accepted.resource = 'https://cross-resource-probe.example/other';
      }),
    });
    expect((await json(res)).reason).toBe('resource_mismatch');
  });

  it('an MCP tool call is for the tool its 402 names', async () => {
    const c = new Client({ name: 'test', version: '1.0.0' });
    await c.connect(new StreamableHTTPClientTransport(new URL(`${korea}/mcp`)));
    try {
      const unpaid = await c.callTool({ name: 'get_fx_rate', arguments: {} });
      const resource = (unpaid.structuredContent as LooseJson).resource;
      expect(resource.url).toBe('mcp://tool/get_fx_rate');
      const foreign = payment('fx-rate', (p) => {
        p.resource = { url: 'mcp://tool/get_kimchi_premium' };
      });
      const refused = await c.callTool({
        name: 'get_fx_rate',
        arguments: {},
        _meta: { 'x402/payment': decodeHeader(foreign['PAYMENT-SIGNATURE']!) },
      });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.structuredContent)).toContain('resource_mismatch');
      const own = decodeHeader(foreign['PAYMENT-SIGNATURE']!) as LooseJson;
      own.resource = resource;
      const paid = await c.callTool({ name: 'get_fx_rate', arguments: {}, _meta: { 'x402/payment': own } });
      expect(paid.isError).toBeFalsy();
      expect((paid.structuredContent as LooseJson).receipt).toBeTruthy();
    } finally {
      await c.close();
    }
  });
});

describe('a payment header that is no payment payload', () => {
  it('answers 400 with the offer still attached; a payload of an unknown version is a failed payment, 402', async () => {
    const cases: Array<[string, number, string]> = [
      ['!!!not-base64!!!', 400, 'malformed_payload'],
      [Buffer.from('{not valid json').toString('base64'), 400, 'malformed_payload'],
      [Buffer.from('[1, 2]').toString('base64'), 400, 'malformed_payload'],
      [encodeBase64Json({ x402Version: 2, payload: {} }), 400, 'malformed_payload'],
      [
        encodeBase64Json({ x402Version: 2, accepted: { scheme: 'exact', network: 'eip155:8453' }, payload: {}, resource: 7 }),
        400,
        'malformed_payload',
      ],
      [encodeBase64Json({ x402Version: 99, payload: {} }), 402, 'invalid_x402_version'],
    ];
    for (const [value, status, reason] of cases) {
      const res = await fetch(`${korea}/api/v1/fx-rate`, { headers: { 'PAYMENT-SIGNATURE': value } });
      expect({ value, status: res.status }).toEqual({ value, status });
      const body = await json(res);
      expect(body.reason).toBe(reason);
      expect(body.accepts.length).toBeGreaterThan(0);
      expect(requiredOf(res)).toMatchObject({ x402Version: 2, error: expect.stringMatching(new RegExp(`^${reason}: `)) });
    }
  });
});
