/**
 * The Bazaar discovery extension (x402 `extensions.bazaar`, x402-foundation/x402
 * specs/extensions/bazaar.md) of every paid route, from the catalog: facilitator catalogues read it
 * from the 402 (and from the payment that echoes it) to index the route with its input and output.
 *
 *   info.input   {type: 'http', method, queryParams (this request's, else the defaults) | bodyType + body (example), pathParams (this request's)}
 *   info.output  {type: 'json', format: the media type}
 *   schema       JSON Schema 2020-12 of `info`: the endpoint's own zod schemas for query, path and body, and the
 *                200 body (receipt included) as the schema of `output.example`, the place @x402/extensions puts it
 *   routeTemplate  '/api/v1/services/:id/wash-detail' on templated paths, so every id maps to one catalogue entry
 *
 * The service name and tags go on the 402's `resource` (bazaarServiceMetadata), where the spec and
 * the facilitators read them (x402-foundation/x402#2112: ignored under extensions.bazaar).
 *
 * Built once per endpoint and path variant and kept; a request with path parameters gets a shallow
 * copy with its own `pathParams`. The output schema goes without its descriptions: the extension
 * travels base64-encoded in the PAYMENT-REQUIRED header, and clients refuse response headers over
 * 16 KB (Node's default http.maxHeaderSize); the full descriptions are in /openapi.json.
 */
import { SERVICE_INFO, xrplPath } from '../catalog/index.ts';
import { jsonSchemaOf, successBodyJsonSchema, type JsonObject, type JsonValue } from '../catalog/openapi.ts';
import type { EndpointDecl } from '../catalog/types.ts';

const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

export interface BazaarExtension {
  info: { input: JsonObject; output: JsonObject };
  schema: JsonObject;
  routeTemplate?: string;
}

/**
 * Service metadata for the 402's `resource`: the service's one name (its catalog title, which
 * catalog/index.ts keeps within the spec's 32 printable ASCII characters) and the endpoint's own
 * tags from its declaration (at most 5 of 32), so fx-rate is not tagged news.
 */
export function bazaarServiceMetadata(endpoint: EndpointDecl): { serviceName: string; tags: string[] } {
  return { serviceName: SERVICE_INFO[endpoint.service].title, tags: [...(endpoint.tags ?? [])] };
}

// ------------------------------------------------------------------ schema pieces

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A copy of a JSON Schema without its `description` keywords. A property that happens to be
 * named "description" (inside `properties`) stays: only the keyword goes.
 */
export function withoutDescriptions(schema: JsonValue, isPropertyMap = false): JsonValue {
  if (Array.isArray(schema)) return schema.map((item) => withoutDescriptions(item));
  if (!isObject(schema)) return schema;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'description' && !isPropertyMap) continue;
    out[key] = withoutDescriptions(value, !isPropertyMap && (key === 'properties' || key === 'patternProperties' || key === '$defs'));
  }
  return out;
}

/**
 * An example value of a JSON Schema as the catalog describes it: a default, a declared example, the
 * first enum value or const; objects from their required properties. undefined when nothing says.
 */
export function exampleOf(schema: JsonValue | undefined): JsonValue | undefined {
  if (!isObject(schema)) return undefined;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (schema.type === 'object' && isObject(schema.properties)) {
    const out: JsonObject = {};
    const required = Array.isArray(schema.required) ? schema.required : [];
    for (const [name, property] of Object.entries(schema.properties)) {
      // an optional property shows only a value the catalog gives it, not an arbitrary filter
      const value = required.includes(name) ? exampleOf(property) : declaredValue(property);
      if (value !== undefined) out[name] = value;
      else if (required.includes(name)) return undefined;
    }
    return out;
  }
  return undefined;
}

function declaredValue(schema: JsonValue | undefined): JsonValue | undefined {
  if (!isObject(schema)) return undefined;
  if (schema.default !== undefined) return schema.default;
  return Array.isArray(schema.examples) ? schema.examples[0] : undefined;
}

/** The object form the spec's `schema` uses for a parameter group: `{type: 'object', properties, required}`. */
function objectSchema(json: JsonObject): JsonObject {
  const { $schema: _dialect, ...rest } = json;
  return { ...rest, type: 'object' };
}

/** Hono ':id' segments as a regular expression with one capture per parameter. */
function templatePattern(template: string): { names: string[]; pattern: RegExp } {
  const names: string[] = [];
  const escaped = template
    .split(/(:[A-Za-z_][A-Za-z0-9_]*)/)
    .map((part) => {
      if (part.startsWith(':')) {
        names.push(part.slice(1));
        return '([^/]+)';
      }
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  return { names, pattern: new RegExp(`^${escaped}$`) };
}

// ------------------------------------------------------------------ the extension

interface Prepared {
  extension: BazaarExtension;
  /** The v1 equivalent, `accepts[].outputSchema` (the spec's backwards-compatibility table): output is the 200 body's schema. */
  v1: { input: JsonObject; output: JsonObject };
  /** Templated paths: how to read the request's path parameters. */
  template: { names: string[]; pattern: RegExp } | null;
}

function prepare(endpoint: EndpointDecl, xrpl: boolean): Prepared {
  const method = endpoint.method;
  const input: JsonObject = { type: 'http', method };
  const inputProperties: JsonObject = {
    type: { type: 'string', const: 'http' },
    method: { type: 'string', enum: [method] },
  };
  const required: JsonValue[] = ['type', 'method'];

  if (endpoint.query) {
    const query = objectSchema(jsonSchemaOf(endpoint.query));
    inputProperties.queryParams = query;
    const example = exampleOf(query);
    if (example !== undefined) input.queryParams = example;
  } else if (method === 'GET') {
    // the spec's query form always names its parameters; an endpoint without any takes none
    inputProperties.queryParams = { type: 'object', properties: {}, additionalProperties: false };
    input.queryParams = {};
  }
  if (endpoint.body) {
    const body = objectSchema(jsonSchemaOf(endpoint.body));
    inputProperties.bodyType = { type: 'string', enum: ['json'] };
    inputProperties.body = body;
    input.bodyType = 'json';
    input.body = exampleOf(body) ?? {};
    required.push('bodyType', 'body');
  }
  if (endpoint.pathParams) inputProperties.pathParams = objectSchema(jsonSchemaOf(endpoint.pathParams));

  const mimeType = endpoint.contentType ?? 'application/json';
  const output: JsonObject = { type: mimeType === 'application/json' ? 'json' : 'text', format: mimeType };
  const outputSchema = withoutDescriptions(successBodyJsonSchema(endpoint)) as JsonObject;

  const path = xrpl ? xrplPath(endpoint.path) : endpoint.path;
  const extension: BazaarExtension = {
    info: { input, output },
    schema: {
      $schema: JSON_SCHEMA_DIALECT,
      type: 'object',
      properties: {
        input: { type: 'object', properties: inputProperties, required, additionalProperties: false },
        output: {
          type: 'object',
          properties: { type: { type: 'string' }, format: { type: 'string' }, example: outputSchema },
          required: ['type'],
        },
      },
      required: ['input'],
    },
  };
  const templated = endpoint.pathParams !== undefined;
  if (templated) extension.routeTemplate = path;
  const v1 = { input: { ...input, discoverable: true }, output: outputSchema };
  return { extension, v1, template: templated ? templatePattern(path) : null };
}

const prepared = new WeakMap<EndpointDecl, { plain?: Prepared; xrpl?: Prepared }>();

function preparedFor(endpoint: EndpointDecl, xrpl: boolean): Prepared {
  let slots = prepared.get(endpoint);
  if (!slots) {
    slots = {};
    prepared.set(endpoint, slots);
  }
  const key = xrpl ? 'xrpl' : 'plain';
  slots[key] ??= prepare(endpoint, xrpl);
  return slots[key];
}

/** The path parameters of `path` as the endpoint's schema parses them (numbers as numbers), or null. */
function pathParamsOf(endpoint: EndpointDecl, template: NonNullable<Prepared['template']>, path: string): JsonObject | null {
  const match = template.pattern.exec(path);
  if (!match || !endpoint.pathParams) return null;
  const raw: Record<string, string> = {};
  try {
    template.names.forEach((name, i) => {
      raw[name] = decodeURIComponent(match[i + 1] ?? '');
    });
  } catch {
    return null;
  }
  const parsed = endpoint.pathParams.safeParse(raw);
  return parsed.success ? (JSON.parse(JSON.stringify(parsed.data)) as JsonObject) : null;
}

/** The request's validated query as JSON (defaults applied), for `input.queryParams`; undefined without one. */
function queryEcho(endpoint: EndpointDecl, query: Record<string, unknown> | undefined): JsonObject | undefined {
  if (!endpoint.query || query === undefined) return undefined;
  return JSON.parse(JSON.stringify(query)) as JsonObject;
}

/**
 * `{bazaar: ...}` for a paid endpoint called at `path` (the request's path, for the concrete
 * `pathParams` of templated routes) with `query` (the request's validated query, echoed as
 * `queryParams` in place of the defaults), ready to merge into PaymentRequired.extensions.
 */
export function bazaarFor(
  endpoint: EndpointDecl,
  xrpl: boolean,
  path?: string,
  query?: Record<string, unknown>,
): { bazaar: BazaarExtension } {
  const { extension, template } = preparedFor(endpoint, xrpl);
  const pathParams = template && path !== undefined ? pathParamsOf(endpoint, template, path) : null;
  const queryParams = queryEcho(endpoint, query);
  if (!pathParams && !queryParams) return { bazaar: extension };
  const input = { ...extension.info.input, ...(queryParams ? { queryParams } : {}), ...(pathParams ? { pathParams } : {}) };
  return { bazaar: { ...extension, info: { ...extension.info, input } } };
}

/**
 * The v1 `outputSchema` of a paid endpoint's requirements: the same input description as the
 * Bazaar extension (method, the request's query or the defaults, JSON body example), which v1
 * indexers read from `accepts[].outputSchema.input`, and the 200 body's JSON Schema as `output`.
 */
export function bazaarV1OutputSchema(endpoint: EndpointDecl, xrpl: boolean, query?: Record<string, unknown>): Record<string, unknown> {
  const { v1 } = preparedFor(endpoint, xrpl);
  const queryParams = queryEcho(endpoint, query);
  return queryParams ? { ...v1, input: { ...v1.input, queryParams } } : v1;
}

/**
 * `{bazaar: ...}` for a paid MCP tool (the spec's `input.type: 'mcp'` form), for the
 * PaymentRequired an unpaid tool call returns.
 */
export function bazaarForTool(tool: { name: string; description: string; endpoint: EndpointDecl; inputSchema: JsonObject }): {
  bazaar: BazaarExtension;
} {
  const outputSchema = withoutDescriptions(successBodyJsonSchema(tool.endpoint)) as JsonObject;
  return {
    bazaar: {
      info: {
        input: {
          type: 'mcp',
          toolName: tool.name,
          description: tool.description,
          transport: 'streamable-http',
          inputSchema: tool.inputSchema,
        },
        output: { type: 'json', format: 'application/json' },
      },
      schema: {
        $schema: JSON_SCHEMA_DIALECT,
        type: 'object',
        properties: {
          input: {
            type: 'object',
            properties: {
              type: { type: 'string', const: 'mcp' },
              toolName: { type: 'string', const: tool.name },
              description: { type: 'string' },
              transport: { type: 'string', enum: ['streamable-http'] },
              inputSchema: { type: 'object' },
            },
            required: ['type', 'toolName', 'inputSchema'],
            additionalProperties: false,
          },
          output: {
            type: 'object',
            properties: { type: { type: 'string' }, format: { type: 'string' }, example: outputSchema },
            required: ['type'],
          },
        },
        required: ['input'],
      },
    },
  };
}
