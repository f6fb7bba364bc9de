import { describe, expect, it } from 'vitest';
import { endpointsOf, xrplPath } from './index.ts';
import { type JsonObject, type JsonValue, openApiDocument, openApiPath } from './openapi.ts';
import type { ServiceName } from './types.ts';

const BASE_URL = 'http://127.0.0.1:4020';

function obj(value: JsonValue | undefined, what: string): JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${what} is not an object`);
  return value;
}

function operation(service: ServiceName, path: string, method = 'get'): JsonObject {
  const doc = openApiDocument(service, { baseUrl: BASE_URL });
  return obj(obj(doc.paths[path], `path ${path}`)[method], `${method} ${path}`);
}

function parameter(op: JsonObject, name: string): JsonObject {
  const parameters = op.parameters;
  if (!Array.isArray(parameters)) throw new Error('no parameters');
  const found = parameters.map((p) => obj(p, 'parameter')).find((p) => p.name === name);
  if (!found) throw new Error(`no parameter ${name}`);
  return found;
}

describe.each(['korea', 'analytics'] as const)('%s OpenAPI document', (service) => {
  const doc = openApiDocument(service, { baseUrl: `${BASE_URL}/` });

  it('is OpenAPI 3.1.0, interface version 0.1.0', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('0.1.0');
    expect(typeof doc.info.title).toBe('string');
    expect(doc.servers).toEqual([{ url: BASE_URL }]);
  });

  it('has every endpoint, with {param} path syntax', () => {
    for (const e of endpointsOf(service)) {
      const path = openApiPath(e.path);
      expect(path).not.toContain(':');
      const item = obj(doc.paths[path], path);
      expect(item[e.method.toLowerCase()], `${e.method} ${path}`).toBeDefined();
    }
    if (service === 'analytics') {
      expect(doc.paths['/api/v1/services/{id}/wash-detail']).toBeDefined();
      expect(doc.paths['/api/v1/buyers/{address}/profile']).toBeDefined();
      expect(obj(doc.paths['/api/v1/wash/check'], 'wash check').post).toBeDefined();
    }
  });

  it('paid operations answer 402 and carry the catalog price', () => {
    for (const e of endpointsOf(service).filter((x) => x.access === 'paid')) {
      const paths = [openApiPath(e.path), ...(e.xrplVariant ? [openApiPath(xrplPath(e.path))] : [])];
      for (const path of paths) {
        const op = obj(obj(doc.paths[path], path)[e.method.toLowerCase()], path);
        const responses = obj(op.responses, 'responses');
        expect(responses['402'], path).toBeDefined();
        expect(op['x-price-usd'], path).toBe(e.priceUsd);
        expect(op['x-dataset'], path).toBe(e.dataset);
        expect(op.security, path).toBeDefined();
      }
    }
  });

  it('free operations have no 402 and no security requirement (an explicit empty list)', () => {
    for (const e of endpointsOf(service).filter((x) => x.access === 'free')) {
      const op = obj(obj(doc.paths[openApiPath(e.path)], e.path)[e.method.toLowerCase()], e.path);
      expect(obj(op.responses, 'responses')['402']).toBeUndefined();
      expect(op.security).toEqual([]);
      expect(op['x-price-usd']).toBeUndefined();
      expect(op['x-payment-info']).toBeUndefined();
    }
    expect(doc.security).toBeUndefined();
  });

  it('paid operations carry x-payment-info as x402scan reads it, and the 402 with both challenge forms', () => {
    for (const e of endpointsOf(service).filter((x) => x.access === 'paid')) {
      const op = obj(obj(doc.paths[openApiPath(e.path)], e.path)[e.method.toLowerCase()], e.path);
      expect(op['x-payment-info']).toEqual({ protocols: ['x402'], pricingMode: 'fixed', price: e.priceUsd });
      const ok = obj(obj(op.responses, 'responses')['200'], '200');
      const body = obj(obj(obj(ok.content, 'content')['application/json'], 'media').schema, 'schema');
      expect(obj(body.properties, 'properties').receipt).toEqual({ $ref: '#/components/schemas/Receipt' });
      expect(obj(obj(ok.headers, 'headers')['PAYMENT-RESPONSE'], 'header').schema).toMatchObject({
        contentSchema: { $ref: '#/components/schemas/SettlementResponse' },
      });
    }
    const components = obj(doc.components, 'components');
    const required = obj(obj(components.responses, 'responses').PaymentRequired, 'PaymentRequired');
    expect(obj(obj(required.content, 'content')['application/json'], 'media').schema).toEqual({
      $ref: '#/components/schemas/PaymentRequiredBody',
    });
    expect(obj(obj(required.headers, 'headers')['PAYMENT-REQUIRED'], 'header').schema).toEqual({
      type: 'string',
      contentEncoding: 'base64',
      contentMediaType: 'application/json',
      contentSchema: { $ref: '#/components/schemas/PaymentRequiredV2' },
    });
    const schemas = obj(components.schemas, 'schemas');
    for (const name of ['PaymentRequiredBody', 'PaymentRequiredV2', 'Receipt', 'SettlementResponse'])
      expect(schemas[name], name).toBeDefined();
  });

  it('operations with parameters or data answer 422, path-parameter ones 404, rate-limited ones 429', () => {
    for (const e of endpointsOf(service)) {
      const op = obj(obj(doc.paths[openApiPath(e.path)], e.path)[e.method.toLowerCase()], e.path);
      const responses = obj(op.responses, 'responses');
      // data endpoints refuse undeclared query parameters with 422, parameters or not
      expect(responses['422'] !== undefined, `${e.id} 422`).toBe(Boolean(e.query || e.pathParams || e.body || e.dataset !== null));
      if (e.pathParams) expect(responses['404'], `${e.id} 404`).toBeDefined();
      expect(responses['429'] !== undefined, `${e.id} 429`).toBe(e.rateLimited === true);
    }
  });

  it('is JSON: round-trips through JSON.stringify / JSON.parse unchanged', () => {
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
    expect(JSON.stringify(doc)).not.toContain('undefined');
  });

  it('is deterministic', () => {
    expect(JSON.stringify(openApiDocument(service, { baseUrl: BASE_URL }))).toBe(JSON.stringify(doc));
  });
});

describe('korea specifics', () => {
  const doc = openApiDocument('korea', { baseUrl: BASE_URL });

  it('says only the prices charged: each operation its own, no note about an older listing', () => {
    expect(doc.info.description).not.toMatch(/0\.002|listing/);
    const op = operation('korea', '/api/v1/kr-prices');
    expect(op.description).toContain(' Price: 0.001 USD per call, paid with x402');
    expect(op.description).not.toMatch(/0\.002|listing/);
  });

  it('limit shows its bounds and default', () => {
    for (const path of ['/api/v1/kr-news/kpop', '/api/v1/xrpl/kr-news/semiconductor-summary']) {
      const limit = parameter(operation('korea', path), 'limit');
      expect(limit.in).toBe('query');
      expect(limit.required).toBe(false);
      expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 10, default: 5 });
    }
  });

  it('symbol, exchange and divergence symbol show allowed values and defaults', () => {
    expect(parameter(operation('korea', '/api/v1/kr-prices'), 'exchange').schema).toMatchObject({
      enum: ['upbit', 'bithumb', 'coinone', 'korbit', 'all'],
      default: 'all',
    });
    expect(parameter(operation('korea', '/api/v1/kimchi-premium'), 'symbol').schema).toMatchObject({
      type: 'string',
      default: 'BTC',
      pattern: '^[A-Z0-9]{1,15}$',
    });
    const divergence = obj(parameter(operation('korea', '/api/v1/global-vs-korea-divergence'), 'symbol').schema, 'schema');
    expect(divergence.enum).toHaveLength(25);
    expect(divergence.default).toBe('BTC');
  });

  it('XRPL variants exist for every paid endpoint and no free one', () => {
    const xrplPaths = Object.keys(doc.paths).filter((p) => p.startsWith('/api/v1/xrpl/'));
    expect(xrplPaths).toHaveLength(19); // the spec's 16 and issue 32's archive two and executable premium
    expect(doc.paths['/api/v1/xrpl/symbols']).toBeUndefined();
    const op = operation('korea', '/api/v1/xrpl/kimchi-premium');
    expect(op['x-price-usd']).toBe('0.001');
    expect(op.security).toEqual([{ x402Xrpl: [] }]);
  });

  it('text endpoints declare their media type', () => {
    const llms = obj(obj(operation('korea', '/llms.txt').responses, 'responses')['200'], '200');
    expect(Object.keys(obj(llms.content, 'content'))).toEqual(['text/plain']);
    const docs = obj(obj(operation('korea', '/docs').responses, 'responses')['200'], '200');
    expect(Object.keys(obj(docs.content, 'content'))).toEqual(['text/html']);
  });

  it('paid 200 responses include the receipt', () => {
    const ok = obj(obj(operation('korea', '/api/v1/fx-rate').responses, 'responses')['200'], '200');
    const schema = obj(obj(obj(ok.content, 'content')['application/json'], 'media').schema, 'schema');
    const properties = obj(schema.properties, 'properties');
    expect(Object.keys(properties)).toEqual(expect.arrayContaining(['receipt', 'source', 'as_of', 'rate']));
  });
});

describe('analytics specifics', () => {
  it('services list parameters show bounds, defaults and enums', () => {
    const op = operation('analytics', '/api/v1/services');
    expect(parameter(op, 'page_size').schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 200, default: 50 });
    expect(parameter(op, 'page').schema).toMatchObject({ type: 'integer', minimum: 1, default: 1 });
    expect(obj(parameter(op, 'page').schema, 'page').maximum).toBeUndefined();
    expect(parameter(op, 'sort').schema).toMatchObject({ default: 'tx_24h' });
    expect(parameter(op, 'order').schema).toMatchObject({ enum: ['asc', 'desc'], default: 'desc' });
    expect(parameter(op, 'active_only').schema).toMatchObject({ type: 'boolean', default: false });
    expect(obj(parameter(op, 'category').schema, 'category').enum).toHaveLength(33);
    expect(parameter(op, 'min_real_pct').schema).toMatchObject({ minimum: 0, maximum: 100 });
  });

  it('path parameters are required', () => {
    const id = parameter(operation('analytics', '/api/v1/services/{id}'), 'id');
    expect(id).toMatchObject({ in: 'path', required: true });
    expect(id.schema).toMatchObject({ type: 'integer', minimum: 1 });
  });

  it('wash check takes a JSON body', () => {
    const op = operation('analytics', '/api/v1/wash/check', 'post');
    const body = obj(op.requestBody, 'requestBody');
    expect(body.required).toBe(true);
    const schema = obj(obj(obj(body.content, 'content')['application/json'], 'media').schema, 'schema');
    expect(schema.required).toEqual(['address']);
    expect(op['x-price-usd']).toBe('0.05');
    expect(op['x-dataset']).toBe('buyers');
  });

  it('no XRPL paths', () => {
    const doc = openApiDocument('analytics', { baseUrl: BASE_URL });
    expect(Object.keys(doc.paths).some((p) => p.includes('/xrpl/'))).toBe(false);
  });
});
