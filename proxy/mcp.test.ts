/**
 * The MCP servers as a strict client meets them: the SDK's own Client over streamable HTTP on a
 * loopback port, against the app proxy/serve.ts builds over demo snapshots. The Client checks every
 * structuredContent against the tool's outputSchema (error results included), so each call here
 * that does not throw passed that check.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { validateDiscoveryExtension } from '@x402/extensions/bazaar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findEndpoint, mcpTools } from '../catalog/index.ts';
import type { ServiceName } from '../catalog/types.ts';
import { loadSettings, type Settings } from '../lib/config.ts';
import { sharedDemoSnapshots } from '../pipelines/testing/shared-demo.ts';
import { SnapshotReader } from '../snapshots/reader.ts';
import { createServiceApp } from './serve.ts';
import { freshPaymentHeader } from '../payments/testing/bench-support.ts';
import { FacilitatorClient } from '../payments/facilitator.ts';
import { payToTable } from '../payments/networks.ts';
import { ReceiptSigner, verifyReceipt } from '../payments/receipts.ts';
import { fakeFacilitator, type LooseJson, type ServedApp, serveOnLoopback, testPaymentParts } from '../payments/testing/paywall.ts';

const NOW = '2026-11-20T09:00:30Z';
const nowSeconds = Math.floor(new Date(NOW).getTime() / 1000);
const signer = ReceiptSigner.random();
let settings: Settings;
let root: string;
const readers: SnapshotReader[] = [];
const served = new Map<ServiceName, ServedApp>();
const clients: Client[] = [];

beforeAll(async () => {
  ({ root, settings } = await sharedDemoSnapshots('mcp-test-'));
  const now = () => new Date(NOW);
  for (const service of ['korea', 'analytics'] as const) {
    const reader = new SnapshotReader(settings.snapshotsDir, service);
    readers.push(reader);
    await reader.refresh();
    const app = await createServiceApp(
      service,
      reader,
      settings,
      { ...testPaymentParts({ signer, now }), washPatternSalt: 'mcp-test-salt' },
      { now },
    );
    served.set(service, await serveOnLoopback(app));
  }
}, 240_000);
afterAll(async () => {
  for (const c of clients) await c.close();
  for (const s of served.values()) await s.close();
  for (const r of readers) r.close();
  rmSync(root, { recursive: true, force: true });
});

async function client(service: ServiceName, base = served.get(service)!.url): Promise<Client> {
  const c = new Client({ name: 'strict-test-client', version: '1.0.0' });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  clients.push(c);
  return c;
}

/** The text of a tool result, or of the error the SDK raised for the call. */
async function callText(c: Client, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; text: string }> {
  try {
    const result = await c.callTool({ name, arguments: args });
    const content = result.content as Array<{ type: string; text?: string }>;
    return { isError: result.isError === true, text: content.map((p) => p.text ?? '').join('\n') };
  } catch (err) {
    return { isError: true, text: err instanceof Error ? err.message : String(err) };
  }
}

describe('MCP tools', () => {
  it.each(['korea', 'analytics'] as const)('%s: every tool declares an object outputSchema and a closed inputSchema', async (service) => {
    const c = await client(service);
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      mcpTools(service)
        .map((t) => t.name)
        .sort(),
    );
    for (const tool of tools) {
      expect(tool.outputSchema, tool.name).toBeDefined();
      expect(tool.outputSchema!.type, tool.name).toBe('object');
      const anyOf = (tool.outputSchema as LooseJson).anyOf as LooseJson[];
      const paid = mcpTools(service).find((t) => t.name === tool.name)!.endpoint.access === 'paid';
      expect(anyOf.length, tool.name).toBe(paid ? 2 : 1);
      if (paid) expect(anyOf[0].properties.receipt, `${tool.name}: the paid body has its receipt`).toBeDefined();
      expect((tool.inputSchema as LooseJson).additionalProperties, tool.name).toBe(false);
    }
  });

  it.each(['korea', 'analytics'] as const)(
    '%s: every tool called with its defaults passes the strict client (data, or the PaymentRequired of a paid tool)',
    async (service) => {
      const c = await client(service);
      const args: Record<string, Record<string, unknown>> = { x402_get_service: { id: 1 }, x402_preflight: { id: 1 } };
      for (const tool of mcpTools(service)) {
        const result = await c.callTool({ name: tool.name, arguments: args[tool.name] ?? {} });
        const structured = result.structuredContent as LooseJson;
        if (tool.endpoint.access === 'free') {
          if (result.isError) {
            // a 404 for an id the demo snapshot lacks: text only, nothing to validate
            expect(structured, tool.name).toBeUndefined();
            continue;
          }
          expect(tool.endpoint.response.safeParse(structured).success, tool.name).toBe(true);
        } else {
          expect(result.isError, tool.name).toBe(true);
          expect(structured.x402Version, tool.name).toBe(2);
          expect(structured.accepts.length, tool.name).toBeGreaterThan(0);
          expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toEqual(structured);
          const bazaar = structured.extensions.bazaar;
          expect(bazaar.info.input).toMatchObject({ type: 'mcp', toolName: tool.name, transport: 'streamable-http' });
          expect(validateDiscoveryExtension(bazaar).errors ?? [], tool.name).toEqual([]);
        }
      }
    },
  );

  it('a tool given an argument it does not take says so', async () => {
    const c = await client('analytics');
    const wash = await callText(c, 'x402_check_wash', { address: `0x${'1'.repeat(40)}` });
    expect(wash.isError).toBe(true);
    expect(wash.text).toMatch(/x402_check_wash does not take "address"; it takes no arguments/);
    const search = await callText(c, 'x402_search_services', { serach: 'weather' });
    expect(search.isError).toBe(true);
    expect(search.text).toMatch(/does not take "serach"; it takes .*search/);
    // the arguments it does take still work
    expect((await callText(c, 'x402_search_services', { search: 'weather', page_size: 2 })).isError).toBe(false);
  });

  it('an error other than payment is text only and passes the strict client', async () => {
    const c = await client('analytics');
    const result = await c.callTool({ name: 'x402_get_service', arguments: { id: 987654321 } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(/404/);
  });

  it('a paid call with _meta["x402/payment"] answers the data, its receipt and _meta["x402/payment-response"]', async () => {
    const c = await client('korea');
    const unpaid = await c.callTool({ name: 'get_kimchi_premium', arguments: { symbol: 'ETH' } });
    expect(unpaid.isError).toBe(true);
    const required = unpaid.structuredContent as LooseJson;
    expect(required.resource.url).toBe('mcp://tool/get_kimchi_premium');

    const endpoint = findEndpoint('korea', 'kimchi-premium')!;
    const header = freshPaymentHeader({
      endpoint,
      payTo: payToTable(settings),
      version: 2,
      now: nowSeconds,
      resourceUrl: 'mcp://tool/get_kimchi_premium',
    });
    // as an x402 client sends it: the signed payload plus the resource and extensions it was offered
    const payment = {
      ...JSON.parse(Buffer.from(header.value, 'base64').toString('utf8')),
      resource: required.resource,
      extensions: required.extensions,
    };
    const paid = await c.callTool({ name: 'get_kimchi_premium', arguments: { symbol: 'ETH' }, _meta: { 'x402/payment': payment } });
    expect(paid.isError).toBeFalsy();
    const body = paid.structuredContent as LooseJson;
    expect(body.symbol).toBe('ETH');
    expect(verifyReceipt(body.receipt, signer.info.public_key).ok).toBe(true);
    expect(paid._meta?.['x402/payment-response']).toMatchObject({ success: true, network: 'eip155:8453', payer: header.payer });

    // the same payment again buys nothing
    const again = await c.callTool({ name: 'get_kimchi_premium', arguments: { symbol: 'ETH' }, _meta: { 'x402/payment': payment } });
    expect(again.isError).toBe(true);
    expect((again.structuredContent as LooseJson).error).toMatch(/nonce_used/);
  });

  it.each([
    ['get_krw_macro_stress', 'krw-macro-stress', {}],
    ['get_kr_news_semiconductor_summary', 'kr-news-semiconductor-summary', { limit: 3 }],
    ['get_kr_news_kpop', 'kr-news-kpop', { limit: 2 }],
  ] as const)('issue 32: %s is paid like its endpoint and answers its body', async (name, id, args) => {
    const c = await client('korea');
    const unpaid = await c.callTool({ name, arguments: args });
    expect(unpaid.isError).toBe(true);
    const required = unpaid.structuredContent as LooseJson;
    const endpoint = findEndpoint('korea', id)!;
    expect(required.accepts[0].amount).toBe(String(Math.round(Number(endpoint.priceUsd) * 1e6)));
    const header = freshPaymentHeader({
      endpoint,
      payTo: payToTable(settings),
      version: 2,
      now: nowSeconds,
      resourceUrl: `mcp://tool/${name}`,
    });
    const payment = {
      ...JSON.parse(Buffer.from(header.value, 'base64').toString('utf8')),
      resource: required.resource,
      extensions: required.extensions,
    };
    const paid = await c.callTool({ name, arguments: args, _meta: { 'x402/payment': payment } });
    expect(paid.isError).toBeFalsy();
    const body = paid.structuredContent as LooseJson;
    expect(endpoint.response.safeParse(body).success).toBe(true);
    expect(verifyReceipt(body.receipt, signer.info.public_key).ok).toBe(true);
    if ('limit' in args) expect(body.articles.length).toBeLessThanOrEqual(args.limit);
  });

  it('a refused settlement answers the PaymentRequired with the settlement response in _meta', async () => {
    const facilitator = await fakeFacilitator();
    const reader = new SnapshotReader(settings.snapshotsDir, 'korea');
    readers.push(reader);
    await reader.refresh();
    const s = loadSettings({
      SNAPSHOTS_DIR: settings.snapshotsDir,
      WAREHOUSE_DIR: settings.warehouseDir,
      KEYS_DIR: join(root, 'keys'),
      SETTLEMENT: 'facilitator',
      FACILITATOR_URL: facilitator.url,
      PAY_TO_EVM: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    });
    const now = () => new Date(NOW);
    const app = await createServiceApp(
      'korea',
      reader,
      s,
      {
        ...testPaymentParts({ signer, now }),
        facilitator: new FacilitatorClient({ url: facilitator.url, timeoutMs: 2000 }),
        washPatternSalt: 'x',
      },
      { now },
    );
    const server = await serveOnLoopback(app);
    try {
      facilitator.settle = 'refuse';
      const c = await client('korea', server.url);
      const header = freshPaymentHeader({
        endpoint: findEndpoint('korea', 'fx-rate')!,
        payTo: payToTable(s),
        version: 2,
        now: nowSeconds,
        resourceUrl: 'mcp://tool/get_fx_rate',
      });
      const payment = JSON.parse(Buffer.from(header.value, 'base64').toString('utf8'));
      const result = await c.callTool({ name: 'get_fx_rate', arguments: {}, _meta: { 'x402/payment': payment } });
      expect(result.isError).toBe(true);
      expect((result.structuredContent as LooseJson).x402Version).toBe(2);
      expect((result.structuredContent as LooseJson).error).toMatch(/settlement_failed/);
      expect(result._meta?.['x402/payment-response']).toMatchObject({ success: false, payer: header.payer });
    } finally {
      await server.close();
      await facilitator.close();
    }
  });
});
