import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { queryJson } from '../../../lib/duckdb.ts';
import { createUpstream } from '../http.ts';
import { testContext, type TestContext } from '../testing/context.ts';
import { startLoopback, type Loopback, type RecordedRequest, type Reply } from '../../../lib/testing/loopback.ts';
import { fixture } from '../testing/fixtures.ts';
import { categoryFromMetadata, crawlDiscovery, discoveryEndpoint, parseLastUpdated, writeDiscoveredServices } from './x402-discovery.ts';

type Page = { items: unknown[]; pagination?: { limit?: number; offset?: number; total?: number } };
const PAGES: Page[] = [0, 1, 2].map((i) => fixture<Page>(`discovery-page-${i}.json`));

/** Serves the recorded pages by offset, as the bazaar does. */
function byOffset(pages: Page[], edit: (page: Page) => Page = (p) => p) {
  return (req: RecordedRequest): Reply => {
    const offset = Number(req.query.offset ?? 0);
    const page = pages.find((p) => p.pagination?.offset === offset);
    return { json: edit(page ?? { items: [], pagination: { limit: 4, offset, total: 10 } }) };
  };
}

const noSleep = { sleep: async () => {} };
let server: Loopback | null = null;
let t: TestContext;
beforeEach(async () => {
  t = await testContext();
});
afterEach(async () => {
  await server?.close();
  server = null;
  t.warehouse.close();
});

describe('crawlDiscovery', () => {
  it('pages until pagination.total and reads mixed v1/v2 items', async () => {
    server = await startLoopback([{ method: 'GET', path: '/discovery/resources', reply: byOffset(PAGES) }]);
    const up = createUpstream({ name: 'x402-discovery', baseUrl: server.url, ...noSleep });
    const crawl = await crawlDiscovery(up, '/discovery/resources', { pageSize: 4, maxPages: 50 });
    await up.close();

    expect(server.requests.map((r) => r.query)).toEqual([
      { type: 'http', limit: '4', offset: '0' },
      { type: 'http', limit: '4', offset: '4' },
      { type: 'http', limit: '4', offset: '8' },
    ]);
    expect(crawl.counts).toMatchObject({
      stoppedAtMaxPages: false,
      pages: 3,
      items: 10,
      services: 8,
      invalidItems: 1, // no `resource`
      invalidAccepts: 1, // no `payTo`
      duplicates: 1, // the headlines item again on the last page
      unsupportedNetworks: { 'base-sepolia': 1, 'eip155:43114': 1 },
    });
    expect(crawl.problems).toEqual([expect.stringMatching(/^item at offset 6: resource: /)]);

    const byKey = new Map(crawl.services.map((s) => [`${s.chain} ${s.resource_url}`, s]));
    // v1: network name, maxAmountRequired in atomic units, checksummed payTo, description in accepts.
    expect(byKey.get('base https://api.weatherly.xyz/v1/forecast')).toEqual({
      chain: 'base',
      seller_address: '0x8d1b0e5f3f5d2e3a9ae46fe0b0b8f9a7a6e1c2d3',
      resource_url: 'https://api.weatherly.xyz/v1/forecast',
      name: 'Hourly forecast for any city',
      description: 'Hourly forecast for any city',
      category: 'weather',
      price_amount: 0.01,
      last_updated: new Date(1772323200 * 1000),
      method: 'GET', // v1 accepts[].outputSchema.input.method: how the prober calls it
    });
    // CDP's mixed shape: CAIP-2 network with maxAmountRequired; long top-level description; ISO lastUpdated.
    expect(byKey.get('base https://x402.newsapi.dev/headlines')).toMatchObject({
      name: 'x402.newsapi.dev/headlines',
      description: expect.stringMatching(/^Top headlines by country/),
      category: null,
      price_amount: 0.005,
      last_updated: new Date('2026-02-27T09:15:04.005Z'),
    });
    // v2 Solana with `amount`; lastUpdated in milliseconds; metadata name and an aliased category; no declared method.
    expect(byKey.get('solana https://sol.pricefeed.io/api/price/SOL')).toMatchObject({
      method: null,
      seller_address: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin', // base58 keeps its case
      name: 'SOL price feed',
      category: 'financial_data',
      price_amount: 0.001,
      last_updated: new Date(1772300000123),
    });
    // One item accepting on Base and Solana (and Avalanche, not indexed) is two services.
    expect(byKey.get('base https://scrape.agentkit.run/v2/extract')?.price_amount).toBe(0.02);
    expect(byKey.get('solana https://scrape.agentkit.run/v2/extract')?.seller_address).toBe('CKPKJWNdJEqa81x7CkZ14BVPiY6y16Sxs7owznqtWYp5');
    // A price in another asset is unknown, not a wrong USD figure; null metadata and lastUpdated are fine.
    expect(byKey.get('base https://memes.onchain.fun/api/generate')).toMatchObject({
      price_amount: null,
      last_updated: null,
      category: null,
    });
    expect(byKey.get('polygon https://signals.quantbot.ai/v1/momentum')).toMatchObject({
      price_amount: 0.25,
      category: 'trading_signals',
      seller_address: '0x49ad644555c7bdf3ea4fc022a4940ae5589b230b',
      last_updated: new Date(1772390000 * 1000),
    });
    expect(byKey.get('arbitrum https://arb.gasoracle.net/estimate')).toMatchObject({
      price_amount: 0.0015,
      category: null, // 'misc gadgets' is not one of the 33
      description: 'Gas price estimates for Arbitrum', // from metadata when nothing else has one
      name: 'arb.gasoracle.net/estimate',
    });
  });

  it('stops on an empty page when the upstream gives no total', async () => {
    const withoutTotal = (p: Page): Page => ({ items: p.items });
    server = await startLoopback([{ method: 'GET', path: '/discovery/resources', reply: byOffset(PAGES, withoutTotal) }]);
    const up = createUpstream({ name: 'x402-discovery', baseUrl: server.url, ...noSleep });
    const crawl = await crawlDiscovery(up, '/discovery/resources', { pageSize: 4, maxPages: 50 });
    await up.close();
    expect(server.requests.map((r) => r.query.offset)).toEqual(['0', '4', '8', '10']);
    expect(crawl.counts.services).toBe(8);
  });

  it('stops at maxPages and says so', async () => {
    server = await startLoopback([{ method: 'GET', path: '/discovery/resources', reply: byOffset(PAGES) }]);
    const up = createUpstream({ name: 'x402-discovery', baseUrl: server.url, ...noSleep });
    const crawl = await crawlDiscovery(up, '/discovery/resources', { pageSize: 4, maxPages: 2 });
    await up.close();
    expect(server.requests).toHaveLength(2);
    expect(crawl.counts).toMatchObject({ pages: 2, stoppedAtMaxPages: true });
  });

  it('fails the crawl loudly when a page envelope is not the bazaar shape', async () => {
    server = await startLoopback([
      { method: 'GET', path: '/discovery/resources', reply: { json: fixture('discovery-bad-envelope.json') } },
    ]);
    const up = createUpstream({ name: 'x402-discovery', baseUrl: server.url, ...noSleep });
    await expect(crawlDiscovery(up, '/discovery/resources', { pageSize: 4, maxPages: 50 })).rejects.toThrow(
      /^x402-discovery: unexpected response from GET http:\/\/127\.0\.0\.1:\d+\/discovery\/resources\?type=http&limit=4&offset=0: items: .*; pagination\.total: /,
    );
    await up.close();
  });
});

describe('writeDiscoveredServices', () => {
  it('keeps first_seen stable across runs and stamps new services with their own first crawl', async () => {
    const pagesRun2 = structuredClone(PAGES);
    pagesRun2[2]!.items.push({
      resource: 'https://new.service.dev/api',
      type: 'http',
      x402Version: 2,
      accepts: [
        {
          scheme: 'exact',
          network: 'base',
          amount: '30000',
          payTo: '0x1111111111111111111111111111111111111111',
          asset: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
        },
      ],
    });
    pagesRun2.forEach((p) => (p.pagination!.total = 11));
    let run = 1;
    server = await startLoopback([
      { method: 'GET', path: '/discovery/resources', reply: (req) => byOffset(run === 1 ? PAGES : pagesRun2)(req) },
    ]);
    const first = new Date('2026-03-01T00:00:00Z');
    const second = new Date('2026-03-01T01:00:00Z');
    const c = t.warehouse.connection;

    const up = createUpstream({ name: 'x402-discovery', baseUrl: server.url, ...noSleep });
    const crawl1 = await crawlDiscovery(up, '/discovery/resources', { pageSize: 4, maxPages: 50 });
    expect(await writeDiscoveredServices(c, crawl1.services, first)).toBe(8);
    run = 2;
    const crawl2 = await crawlDiscovery(up, '/discovery/resources', { pageSize: 4, maxPages: 50 });
    expect(await writeDiscoveredServices(c, crawl2.services, second)).toBe(9);
    await up.close();

    const rows = await queryJson(
      c,
      `SELECT chain, resource_url, strftime(first_seen, '%Y-%m-%dT%H:%M:%SZ') AS first_seen, source FROM x402_services ORDER BY chain, resource_url`,
    );
    expect(rows).toHaveLength(9);
    expect(rows.filter((r) => r.first_seen === '2026-03-01T00:00:00Z')).toHaveLength(8);
    expect(rows.find((r) => r.resource_url === 'https://new.service.dev/api')).toMatchObject({ first_seen: '2026-03-01T01:00:00Z' });
    expect(new Set(rows.map((r) => r.source))).toEqual(new Set(['live']));
    const [seen] = await queryJson(c, `SELECT count(*)::INTEGER AS n, count(DISTINCT last_seen)::INTEGER AS runs FROM discovery_seen`);
    expect(seen).toEqual({ n: 9, runs: 1 }); // every key was seen by the second run
  });
});

describe('parsing helpers', () => {
  it('reads lastUpdated as seconds, milliseconds, numeric strings or ISO', () => {
    expect(parseLastUpdated(1772323200)?.toISOString()).toBe('2026-03-01T00:00:00.000Z');
    expect(parseLastUpdated(1772323200000)?.toISOString()).toBe('2026-03-01T00:00:00.000Z');
    expect(parseLastUpdated('1772323200')?.toISOString()).toBe('2026-03-01T00:00:00.000Z');
    expect(parseLastUpdated('2025-08-09T01:07:04.005Z')?.toISOString()).toBe('2025-08-09T01:07:04.005Z');
    expect(parseLastUpdated('yesterday')).toBeNull();
    expect(parseLastUpdated(null)).toBeNull();
  });

  it('maps metadata categories to the 33 slugs only', () => {
    expect(categoryFromMetadata({ category: 'defi_data' })).toBe('defi_data');
    expect(categoryFromMetadata({ category: 'Maps and location' })).toBe('maps_location');
    expect(categoryFromMetadata({ category: 'AI-Inference' })).toBe('ai_inference');
    expect(categoryFromMetadata({ category: 'finance' })).toBe('financial_data');
    expect(categoryFromMetadata({ category: 'Utility' })).toBeNull();
    expect(categoryFromMetadata({ category: 3 })).toBeNull();
    expect(categoryFromMetadata(undefined)).toBeNull();
  });

  it('takes either the facilitator root or the endpoint as X402_DISCOVERY_URL', () => {
    expect(discoveryEndpoint('https://api.cdp.coinbase.com/platform/v2/x402')).toEqual({
      baseUrl: 'https://api.cdp.coinbase.com/platform/v2/x402',
      path: '/discovery/resources',
    });
    expect(discoveryEndpoint('https://facilitator.payai.network/discovery/resources')).toEqual({
      baseUrl: 'https://facilitator.payai.network/discovery/resources',
      path: '',
    });
  });
});
