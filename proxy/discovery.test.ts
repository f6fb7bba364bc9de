import { extractDiscoveryInfo, isValidRouteTemplate, validateDiscoveryExtension } from '@x402/extensions/bazaar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointsOf, findEndpoint, paidEndpoints, SERVICE_INFO, xrplPath } from '../catalog/index.ts';
import { successBodyJsonSchema } from '../catalog/openapi.ts';
import type { EndpointDecl, ServiceName } from '../catalog/types.ts';
import { sharedDemoSnapshots } from '../pipelines/testing/shared-demo.ts';
import { demoApps, type DemoApps } from './testing/demo-apps.ts';
import { withoutDescriptions } from '../payments/bazaar.ts';
import { decodeHeader, type LooseJson } from '../payments/testing/paywall.ts';

const NOW = '2026-11-20T09:00:30Z';
const ORIGIN = 'http://127.0.0.1:9';
let demo: DemoApps;
beforeAll(async () => {
  demo = await demoApps(await sharedDemoSnapshots('discovery-test-'), NOW, 'discovery-test-salt');
}, 240_000);
afterAll(() => demo?.close());

const app = (service: ServiceName) => demo.app(service);
const get = async (service: ServiceName, path: string, init?: RequestInit) => app(service).request(`${ORIGIN}${path}`, init);

/** Concrete values for the analytics path parameters, read from the free endpoints of the snapshot served. */
async function pathValues(): Promise<Record<string, string>> {
  const list = (await (await get('analytics', '/api/v1/services?page_size=1')).json()) as LooseJson;
  const id = String(list.services[0].id);
  const detail = (await (await get('analytics', `/api/v1/services/${id}`)).json()) as LooseJson;
  const address: string | undefined = detail.top_buyers[0]?.address;
  const categories = (await (await get('analytics', '/api/v1/categories')).json()) as LooseJson;
  expect(address, 'a buyer address in the service detail').toBeTruthy();
  return { id, address: address!, slug: String(categories.categories[0].slug) };
}

function fill(path: string, values: Record<string, string>): string {
  return path.replace(/:([A-Za-z_]+)/g, (_m, name: string) => encodeURIComponent(values[name] ?? ''));
}

const WASH_BODY = JSON.stringify({ address: `0x${'2'.repeat(40)}` });
const requestInit = (e: EndpointDecl): RequestInit =>
  e.method === 'POST' ? { method: 'POST', body: WASH_BODY, headers: { 'Content-Type': 'application/json' } } : {};

describe('Bazaar discovery extension', () => {
  it.each(['korea', 'analytics'] as const)(
    '%s: every paid route (XRPL variants too) declares a Bazaar extension the reference package validates and extracts',
    async (service) => {
      const values = service === 'analytics' ? await pathValues() : {};
      let checked = 0;
      for (const e of paidEndpoints(service)) {
        for (const template of e.xrplVariant ? [e.path, xrplPath(e.path)] : [e.path]) {
          const path = fill(template, values);
          const res = await get(service, path, requestInit(e));
          expect(res.status, path).toBe(402);
          const header = res.headers.get('payment-required');
          // the challenge travels in a header, and the reference client echoes its extensions in the
          // payment header (at most MAX_PAYMENT_HEADER_BYTES, 14 KB): keep it well under that
          expect(header!.length, `${path}: PAYMENT-REQUIRED size`).toBeLessThan(12_000);
          const required = decodeHeader(header) as LooseJson;
          const bazaar = required.extensions?.bazaar;
          expect(bazaar, path).toBeTruthy();
          const verdict = validateDiscoveryExtension(bazaar);
          expect(verdict.errors ?? [], path).toEqual([]);
          expect(bazaar.info.input).toMatchObject({ type: 'http', method: e.method });
          expect(bazaar.info.output.type).toBe('json');
          if (e.method === 'POST') expect(bazaar.info.input).toMatchObject({ bodyType: 'json', body: { address: expect.any(String) } });

          // a client echoes resource and extensions in its payment; a facilitator extracts from that
          const payload = {
            x402Version: 2,
            resource: required.resource,
            accepted: required.accepts[0],
            payload: {},
            extensions: required.extensions,
          };
          const found = extractDiscoveryInfo(payload as never, required.accepts[0]);
          expect(found, path).not.toBeNull();
          expect('method' in found! && found.method).toBe(e.method);
          // the service's one name and the endpoint's own tags, as the catalog declares them
          expect(found!.serviceName).toBe(SERVICE_INFO[service].title);
          expect(found!.tags).toEqual([...e.tags!]);
          if (template.includes(':')) {
            expect(bazaar.routeTemplate).toBe(template);
            expect(isValidRouteTemplate(bazaar.routeTemplate)).toBe(true);
            // every id of a templated route maps to one catalogue entry
            expect(found!.resourceUrl).toBe(`${ORIGIN}${template}`);
            const name = Object.keys(bazaar.info.input.pathParams)[0]!;
            expect(String(bazaar.info.input.pathParams[name])).toBe(values[name]);
          } else {
            expect(bazaar.routeTemplate).toBeUndefined();
            expect(found!.resourceUrl).toBe(`${ORIGIN}${template}`);
          }
          // the v1 body carries the same input description in accepts[].outputSchema
          const v1 = (await res.json()) as LooseJson;
          const v1Found = extractDiscoveryInfo(
            { x402Version: 1, scheme: 'exact', network: v1.accepts[0].network, payload: {} } as never,
            v1.accepts[0],
          );
          expect(v1Found?.discoveryInfo.input, `${path} (v1)`).toMatchObject(
            e.method === 'POST'
              ? { method: 'POST', bodyType: 'json', body: bazaar.info.input.body }
              : { method: 'GET', queryParams: bazaar.info.input.queryParams },
          );
          checked++;
        }
      }
      // korea: 19 paid endpoints (the spec's 16, issue 32's archive two and executable premium) and their XRPL variants
      expect(checked).toBe(service === 'korea' ? 38 : 6);
    },
  );

  it("echoes the request's query in the extension and the v1 outputSchema, whose output is the 200 body's schema", async () => {
    const endpoint = findEndpoint('korea', 'kimchi-premium')!;
    const res = await get('korea', '/api/v1/kimchi-premium?symbol=eth');
    expect(res.status).toBe(402);
    const bazaar = (decodeHeader(res.headers.get('payment-required')) as LooseJson).extensions.bazaar;
    expect(bazaar.info.input.queryParams).toEqual({ symbol: 'ETH' });
    expect(validateDiscoveryExtension(bazaar).errors ?? []).toEqual([]);
    const v1 = (await res.json()) as LooseJson;
    expect(v1.accepts.length).toBeGreaterThan(0);
    for (const offer of v1.accepts) {
      expect(offer.outputSchema.input.queryParams).toEqual({ symbol: 'ETH' });
      expect(offer.outputSchema.output).toEqual(withoutDescriptions(successBodyJsonSchema(endpoint)));
    }
  });

  it('the extension of a templated route carries the parameters of the request it answers', async () => {
    const values = await pathValues();
    const res = await get('analytics', `/api/v1/services/${values.id}/transactions`);
    const bazaar = (decodeHeader(res.headers.get('payment-required')) as LooseJson).extensions.bazaar;
    expect(bazaar.info.input.pathParams).toEqual({ id: Number(values.id) });
    expect(validateDiscoveryExtension(bazaar).valid).toBe(true);
  });
});

describe('/.well-known/x402', () => {
  it.each(['korea', 'analytics'] as const)('%s: every resource is an absolute URL that answers 402 to a client', async (service) => {
    const manifest = (await (await get(service, '/.well-known/x402')).json()) as LooseJson;
    expect(manifest.version).toBe(1);
    expect(manifest.resources.length).toBeGreaterThan(0);
    const items = new Map<string, LooseJson>(manifest.items.map((item: LooseJson) => [item.resource.url, item]));
    for (const url of manifest.resources as string[]) {
      expect(() => new URL(url), url).not.toThrow();
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:9\/[^\s:]*$/);
      const item = items.get(url);
      expect(item, `${url} is described in items`).toBeTruthy();
      const init: RequestInit =
        item.input.method === 'POST'
          ? { method: 'POST', body: JSON.stringify(item.input.body), headers: { 'Content-Type': 'application/json' } }
          : {};
      const res = await app(service).request(url, init);
      expect(res.status, url).toBe(402);
    }
    // Bazaar's lastUpdated is an ISO-8601 string (x402-foundation/x402 #3067): the served snapshot's generation time
    const health = (await (await get(service, '/health')).json()) as LooseJson;
    for (const item of manifest.items as LooseJson[]) {
      expect(item.lastUpdated, item.resource.url).toBe(new Date(health.snapshot.generated_at).toISOString());
    }
    expect(JSON.stringify(manifest)).not.toContain('$ref');
  });

  it('analytics: templated and POST resources are described the way the discovery drafts expect', async () => {
    const manifest = (await (await get('analytics', '/.well-known/x402')).json()) as LooseJson;
    expect(manifest.resources).toEqual([`${ORIGIN}/api/v1/wash/check`]);
    expect(manifest.x402Version).toBe(2);
    const paid = paidEndpoints('analytics');
    expect(manifest.items).toHaveLength(paid.length);
    const detail = manifest.items.find((i: LooseJson) => i.input.routeTemplate === '/api/v1/services/:id/wash-detail');
    expect(detail).toMatchObject({
      type: 'http',
      resource: { url: `${ORIGIN}/api/v1/services/:id/wash-detail`, serviceName: SERVICE_INFO.analytics.title },
      input: { method: 'GET', pathParams: { id: { type: 'integer', minimum: 1 } } },
    });
    const check = manifest.items.find((i: LooseJson) => i.resource.url === `${ORIGIN}/api/v1/wash/check`);
    expect(check.input).toMatchObject({ method: 'POST', bodyType: 'json', body: { address: expect.stringMatching(/^0x/) } });
    expect(check.input.routeTemplate).toBeUndefined();
  });
});

describe('405 for a declared path with the wrong method', () => {
  it('GET on the POST-only wash check answers 405 with Allow: POST and a JSON error', async () => {
    const res = await get('analytics', '/api/v1/wash/check');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const body = (await res.json()) as LooseJson;
    expect(body.error).toBe('method_not_allowed');
    expect(body.message).toMatch(/POST/);
  });

  it.each(['korea', 'analytics'] as const)('%s: every declared path answers a wrong method with 405 and its Allow', async (service) => {
    const paths = endpointsOf(service).flatMap((e) => [
      { path: e.path, method: e.method },
      ...(e.xrplVariant ? [{ path: xrplPath(e.path), method: e.method }] : []),
    ]);
    for (const { path, method } of paths) {
      const url = fill(path, { id: '1', slug: 'ai_inference', address: `0x${'1'.repeat(40)}` });
      for (const wrong of method === 'GET' ? ['POST', 'PUT', 'DELETE'] : ['GET', 'PATCH']) {
        const res = await get(service, url, { method: wrong });
        expect(res.status, `${wrong} ${url}`).toBe(405);
        expect(res.headers.get('allow'), url).toBe(method === 'GET' ? 'GET, HEAD' : 'POST');
      }
    }
    expect((await get(service, '/openapi.json', { method: 'POST' })).status).toBe(405);
    for (const method of ['GET', 'PUT']) {
      const mcp = await get(service, '/mcp', { method });
      expect(mcp.status, `${method} /mcp`).toBe(405);
      expect(mcp.headers.get('allow')).toBe('POST');
    }
    const options = await get(service, '/api/v1/wash/check', { method: 'OPTIONS' });
    expect(options.status).toBe(service === 'analytics' ? 204 : 404);
    if (service === 'analytics') expect(options.headers.get('allow')).toBe('POST');
    // an undeclared path is still a 404
    expect((await get(service, '/api/v1/no-such-thing', { method: 'POST' })).status).toBe(404);
  });

  it('a paid endpoint called with the wrong method asks for no payment', async () => {
    const res = await get('korea', '/api/v1/kimchi-premium', { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('payment-required')).toBeNull();
  });
});
