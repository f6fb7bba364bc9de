/**
 * OpenAPI 3.1.0 document of a service, generated from the catalog: parameters and bodies from the
 * zod schemas (as JSON Schema 2020-12, the dialect OpenAPI 3.1 uses), prices and datasets as
 * x- extensions, and the XRPL variant paths of the korea paid endpoints.
 */
import { z } from 'zod';
import { SERVICE_INFO, endpointsOf, refusesUnknownQuery, xrplPath } from './index.ts';
import { SYMBOL_LOOKUP_ENDPOINT_IDS } from './korea.ts';
import {
  NotFoundBody,
  PaymentRequiredBody,
  PaymentRequiredV2,
  RateLimitedBody,
  Receipt,
  SettlementResponse,
  ValidationErrorBody,
  withReceipt,
} from './schemas.ts';
import { DOWNLOAD_MEDIA_TYPES, type DownloadFormat, type EndpointDecl, type ServiceName } from './types.ts';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export interface OpenApiDocument extends JsonObject {
  openapi: '3.1.0';
  info: JsonObject;
  servers: JsonObject[];
  paths: { [path: string]: JsonObject };
  components: JsonObject;
}

export interface OpenApiOptions {
  /** Absolute base URL the service is reached at, e.g. 'http://127.0.0.1:4020'. */
  baseUrl: string;
}

export const OPENAPI_VERSION = '3.1.0';
export const API_VERSION = '0.1.0';

// ------------------------------------------------------------------ zod → JSON Schema

/** Drop noise zod adds that says nothing to API users: safe-integer bounds, date-time regexes. */
function tidy(schema: Record<string, unknown>): void {
  if (schema.maximum === Number.MAX_SAFE_INTEGER) delete schema.maximum;
  if (schema.minimum === Number.MIN_SAFE_INTEGER) delete schema.minimum;
  if (schema.format === 'date-time' || schema.format === 'date') delete schema.pattern;
}

/** A zod schema as JSON Schema of what the client sends or receives (defaults and bounds shown). */
export function jsonSchemaOf(schema: z.ZodType): JsonObject {
  const generated = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    // 'input': query strings and bodies as the client writes them; for responses it leaves
    // objects open (no additionalProperties: false), so adding a field is not a breaking change.
    io: 'input',
    unrepresentable: 'any',
    override: (ctx) => tidy(ctx.jsonSchema as Record<string, unknown>),
  });
  const json: JsonObject = JSON.parse(JSON.stringify(generated));
  delete json.$schema;
  return json;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parametersOf(schema: z.ZodObject, location: 'query' | 'path'): JsonObject[] {
  const json = jsonSchemaOf(schema);
  const properties = isObject(json.properties) ? json.properties : {};
  const required = Array.isArray(json.required) ? json.required : [];
  return Object.entries(properties).map(([name, property]) => {
    const propertySchema: JsonObject = isObject(property) ? { ...property } : {};
    const description = typeof propertySchema.description === 'string' ? propertySchema.description : '';
    delete propertySchema.description;
    return {
      name,
      in: location,
      required: location === 'path' || required.includes(name),
      description,
      schema: propertySchema,
    };
  });
}

// ------------------------------------------------------------------ operations

/** Hono ':id' → OpenAPI '{id}'. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

const ref = (name: string): JsonObject => ({ $ref: `#/components/responses/${name}` });
const schemaRef = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });

/** A header carrying base64 JSON: the decoded value's schema as JSON Schema 2020-12 content keywords. */
function base64JsonHeader(description: string, schemaName: string): JsonObject {
  return {
    description,
    schema: { type: 'string', contentEncoding: 'base64', contentMediaType: 'application/json', contentSchema: schemaRef(schemaName) },
  };
}

/** The 200 body schema of the document: a paid one names the shared Receipt component instead of repeating it. */
function documentedBodySchema(endpoint: EndpointDecl): JsonObject {
  const schema = structuredClone(successBodyJsonSchema(endpoint));
  const properties = schema.properties;
  if (endpoint.access === 'paid' && isObject(properties) && properties.receipt !== undefined) properties.receipt = schemaRef('Receipt');
  return schema;
}

function mediaType(endpoint: EndpointDecl): string {
  return endpoint.contentType ?? 'application/json';
}

/** The zod schema of a 200 body: the declared response, plus the signed `receipt` on paid endpoints. */
export function successBodySchema(endpoint: EndpointDecl): z.ZodType {
  return endpoint.access === 'paid' && endpoint.response instanceof z.ZodObject ? withReceipt(endpoint.response) : endpoint.response;
}

/**
 * JSON Schema of a 200 body, computed once per endpoint: the OpenAPI document, the Bazaar
 * extension of the 402 and the MCP tools' outputSchema all describe the same answer.
 */
export function successBodyJsonSchema(endpoint: EndpointDecl): JsonObject {
  let cached = successSchemas.get(endpoint);
  if (!cached) {
    cached = jsonSchemaOf(successBodySchema(endpoint));
    successSchemas.set(endpoint, cached);
  }
  return cached;
}
const successSchemas = new WeakMap<EndpointDecl, JsonObject>();

const DOWNLOAD_NAMES: Record<DownloadFormat, string> = { csv: 'CSV', parquet: 'Parquet' };

function successResponse(endpoint: EndpointDecl): JsonObject {
  const headers: JsonObject = {
    'Cache-Control': {
      description: endpoint.cacheTtlSeconds > 0 ? `public, max-age=${endpoint.cacheTtlSeconds}` : 'no-store',
      schema: { type: 'string' },
    },
  };
  if (endpoint.access === 'paid') {
    headers['X-Receipt'] = base64JsonHeader("The same signed receipt as the body's `receipt`, as base64 JSON.", 'Receipt');
    headers['X-PAYMENT-RESPONSE'] = base64JsonHeader(
      'Settlement result (base64 JSON), when paid with X-PAYMENT (x402 v1).',
      'SettlementResponse',
    );
    headers['PAYMENT-RESPONSE'] = base64JsonHeader(
      'Settlement result (base64 JSON), when paid with PAYMENT-SIGNATURE (x402 v2).',
      'SettlementResponse',
    );
  }
  const content: JsonObject = { [mediaType(endpoint)]: { schema: documentedBodySchema(endpoint) } };
  let description = endpoint.access === 'paid' ? 'The data, with a signed receipt of the payment.' : 'The data.';
  // a download of the same data (?format=csv, parquet) is another media type of the same 200
  const formats = endpoint.downloadFormats ?? [];
  for (const format of formats) {
    const media = DOWNLOAD_MEDIA_TYPES[format].split(';')[0]!;
    content[media] = { schema: { type: 'string', contentMediaType: media, description: `The same data, with ?format=${format}.` } };
  }
  if (formats.length) description = `The data as JSON; ${formats.map((f) => `?format=${f} gives it as ${DOWNLOAD_NAMES[f]}`).join(', ')}.`;
  if (endpoint.service === 'korea' && endpoint.id === 'root') {
    // the root is JSON by the specification; a browser asking for HTML first gets the landing page
    content['text/html'] = { schema: { type: 'string', description: 'The landing page for people, when Accept prefers text/html.' } };
    headers.Vary = { description: 'Accept: the JSON document and the HTML landing page share the URL.', schema: { type: 'string' } };
    description = 'The root document as JSON; the HTML landing page instead when Accept prefers text/html (a browser).';
  }
  return { description, headers, content };
}

function responsesOf(endpoint: EndpointDecl): JsonObject {
  const responses: JsonObject = { '200': successResponse(endpoint) };
  if (endpoint.id === 'health') {
    responses['503'] = {
      description: 'No snapshot published yet; the body is the same health document with status no_data.',
      content: { 'application/json': { schema: jsonSchemaOf(endpoint.response) } },
    };
  }
  if (endpoint.pathParams || (endpoint.service === 'korea' && SYMBOL_LOOKUP_ENDPOINT_IDS.includes(endpoint.id))) {
    responses['404'] = ref('NotFound');
  }
  if (endpoint.access === 'paid') responses['402'] = ref('PaymentRequired');
  if (endpoint.query || endpoint.pathParams || endpoint.body || refusesUnknownQuery(endpoint)) responses['422'] = ref('ValidationError');
  if (endpoint.rateLimited) responses['429'] = ref('RateLimited');
  return responses;
}

function operationOf(endpoint: EndpointDecl, variant: 'standard' | 'xrpl'): JsonObject {
  const parameters = [
    ...(endpoint.pathParams ? parametersOf(endpoint.pathParams, 'path') : []),
    ...(endpoint.query ? parametersOf(endpoint.query, 'query') : []),
  ];
  const xrpl = variant === 'xrpl';
  const operation: JsonObject = {
    operationId: xrpl ? `${endpoint.id}.xrpl` : endpoint.id,
    summary: xrpl ? `${endpoint.summary} (XRPL, RLUSD)` : endpoint.summary,
    description: xrpl
      ? `XRPL variant of ${endpoint.path}: the same data at the same price, settled in RLUSD on XRPL; send the payment in the PAYMENT-SIGNATURE header.\n\n${endpoint.description}`
      : endpoint.description,
    tags: [xrpl ? 'paid (XRPL)' : endpoint.access],
    responses: responsesOf(endpoint),
    'x-dataset': endpoint.dataset,
    'x-cache-ttl-seconds': endpoint.cacheTtlSeconds,
  };
  if (parameters.length > 0) operation.parameters = parameters;
  if (endpoint.body) {
    operation.requestBody = {
      required: true,
      content: { 'application/json': { schema: jsonSchemaOf(endpoint.body) } },
    };
  }
  if (endpoint.priceUsd !== undefined) {
    operation['x-price-usd'] = endpoint.priceUsd;
    operation['x-payment-info'] = { protocols: ['x402'], pricingMode: 'fixed', price: endpoint.priceUsd };
    operation.security = [{ [xrpl ? 'x402Xrpl' : 'x402']: [] }];
  } else {
    // stated, not left out: no authentication and no payment (an empty list overrides any global requirement)
    operation.security = [];
  }
  if (xrpl) operation['x-network'] = 'xrpl';
  if (endpoint.mcpTool && !xrpl) operation['x-mcp-tool'] = endpoint.mcpTool.name;
  if (endpoint.rateLimited) operation['x-rate-limit'] = { requests: 60, window_seconds: 3600, per: 'ip' };
  return operation;
}

// ------------------------------------------------------------------ document

function infoDescription(service: ServiceName): string {
  const info = SERVICE_INFO[service];
  const networks = info.networks
    .map((n) => `${n.network} (${n.caip2}, ${n.asset}${n.xrplVariantsOnly ? ', /api/v1/xrpl/... paths only' : ''})`)
    .join('; ');
  return [
    info.description,
    `Payment: a paid endpoint called without payment answers 402 with the x402 payment requirements (body \`{x402Version, error, accepts}\` and the PAYMENT-REQUIRED header). ` +
      `Pay one of them and repeat the request with the X-PAYMENT header (x402 v1) or PAYMENT-SIGNATURE (x402 v2, and XRPL). Networks: ${networks}.`,
    'Every paid 200 carries a receipt signed with secp256k1 (`receipt` in the body, base64 JSON in X-Receipt); the signer key is published in /.well-known/x402 under receipt_signer.public_key.',
    'Invalid parameters answer 422 with `detail`: [{loc, msg, type, input?, ctx?}], and so does a query parameter a data endpoint does not declare (`type` extra_forbidden, before any 402).',
  ].join('\n\n');
}

const RESPONSES: { [name: string]: JsonObject } = {
  PaymentRequired: {
    description:
      'Payment required: no valid payment was sent, or the payment was refused (`reason` names why). The body lists the accepted payments (x402 v1); ' +
      'the PAYMENT-REQUIRED header carries the v2 requirements as base64 JSON, with the Bazaar discovery extension.',
    headers: {
      'PAYMENT-REQUIRED': base64JsonHeader('Payment requirements, base64 JSON (x402 v2).', 'PaymentRequiredV2'),
      'Cache-Control': { description: 'no-store', schema: { type: 'string' } },
    },
    content: { 'application/json': { schema: schemaRef('PaymentRequiredBody') } },
  },
  ValidationError: {
    description: 'A parameter or the body failed validation.',
    content: { 'application/json': { schema: schemaRef('ValidationErrorBody') } },
  },
  NotFound: {
    description: 'Nothing found for the path parameter or symbol; checked before payment is asked.',
    content: { 'application/json': { schema: schemaRef('NotFoundBody') } },
  },
  RateLimited: {
    description: 'Free-tier limit exceeded: 60 requests per hour per IP address.',
    headers: { 'Retry-After': { description: 'Seconds until the next request is allowed.', schema: { type: 'integer' } } },
    content: { 'application/json': { schema: schemaRef('RateLimitedBody') } },
  },
};

const SCHEMAS = {
  PaymentRequiredBody,
  PaymentRequiredV2,
  SettlementResponse,
  ValidationErrorBody,
  NotFoundBody,
  RateLimitedBody,
  Receipt,
} as const;

/** Every `$ref` target named in a value. */
function refsIn(value: JsonValue, into: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const item of value) refsIn(item, into);
  else if (isObject(value))
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string') into.add(item);
      else refsIn(item, into);
    }
  return into;
}

/** The components the operations use, and only those (a korea document has no rate-limited response, for one). */
function componentsOf(securitySchemes: JsonObject, paths: { [path: string]: JsonObject }): JsonObject {
  const responses: JsonObject = {};
  const operationRefs = refsIn(paths, new Set());
  for (const [name, response] of Object.entries(RESPONSES)) {
    if (operationRefs.has(`#/components/responses/${name}`)) responses[name] = structuredClone(response);
  }
  const used = refsIn([paths, responses], new Set());
  const schemas: JsonObject = {};
  // schemas refer to one another only through headers and responses above, so one pass finds them all
  for (const [name, schema] of Object.entries(SCHEMAS)) if (used.has(`#/components/schemas/${name}`)) schemas[name] = jsonSchemaOf(schema);
  return { securitySchemes, schemas, responses };
}

export function openApiDocument(service: ServiceName, options: OpenApiOptions): OpenApiDocument {
  const info = SERVICE_INFO[service];
  const paths: { [path: string]: JsonObject } = {};
  const add = (path: string, method: string, operation: JsonObject) => {
    const item = paths[path] ?? {};
    item[method] = operation;
    paths[path] = item;
  };
  for (const endpoint of endpointsOf(service)) {
    const method = endpoint.method.toLowerCase();
    add(openApiPath(endpoint.path), method, operationOf(endpoint, 'standard'));
    if (endpoint.xrplVariant) add(openApiPath(xrplPath(endpoint.path)), method, operationOf(endpoint, 'xrpl'));
  }

  const securitySchemes: JsonObject = {
    x402: {
      type: 'apiKey',
      in: 'header',
      name: 'X-PAYMENT',
      description:
        'x402 payment: base64 JSON of a signed payment payload (x402 v1). PAYMENT-SIGNATURE (x402 v2) is accepted too. Not an API key: a new payment per call.',
    },
  };
  if (endpointsOf(service).some((e) => e.xrplVariant)) {
    securitySchemes.x402Xrpl = {
      type: 'apiKey',
      in: 'header',
      name: 'PAYMENT-SIGNATURE',
      description: 'x402 payment on XRPL in RLUSD, for the /api/v1/xrpl/... paths.',
    };
  }

  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: info.title,
      version: API_VERSION,
      description: infoDescription(service),
      ...(service === 'analytics' ? { license: { name: 'Free data: CC0-1.0 (public domain)', identifier: 'CC0-1.0' } } : {}),
    },
    servers: [{ url: options.baseUrl.replace(/\/+$/, '') }],
    tags: [
      { name: 'free', description: 'No payment, no authentication.' },
      { name: 'paid', description: 'Paid per call with x402.' },
      ...(service === 'korea' ? [{ name: 'paid (XRPL)', description: 'The paid endpoints again, settled in RLUSD on XRPL.' }] : []),
    ],
    paths,
    components: componentsOf(securitySchemes, paths),
  };
}
