/**
 * `/docs` of both services: the API reference as one HTML page, generated from the OpenAPI
 * document (catalog/openapi.ts) so it says what /openapi.json says. For every operation: its
 * price (the XRPL variants included), whether the snapshot served can answer it, its parameters,
 * the response schema as a collapsible tree, an example response, and a try-it form that shows
 * the 402 decoded and how to pay. Everything but the try-it works without JavaScript.
 */
import { sample } from 'openapi-sampler';
import { endpointsOf, SERVICE_INFO } from '../catalog/index.ts';
import { SETTLEMENT_NETWORKS } from '../catalog/networks.ts';
import { type JsonObject, type JsonValue, type OpenApiDocument, openApiDocument } from '../catalog/openapi.ts';
import type { EndpointDecl, ServiceName } from '../catalog/types.ts';
import type { LoadedSnapshot } from '../snapshots/reader.ts';
import { schemeFor } from '../payments/schemes/index.ts';
import { llmsTxt } from './discovery.ts';
import { escapeHtml, freshnessHtml, markdownHtml, markdownInline, pageHtml, plainText } from './html-page.ts';
import { freshnessOf, type ProductState, productState } from './product-status.ts';

export interface DocsPageContext {
  service: ServiceName;
  /** Origin the client reached us at, e.g. http://127.0.0.1:4020. */
  baseUrl: string;
  /** The snapshot served (null before the first one): freshness and which products can answer. */
  snapshot: LoadedSnapshot | null;
  /** Endpoint ids this build has a data handler for. */
  handled: ReadonlySet<string>;
  now: Date;
}

// ------------------------------------------------------------------ JSON helpers

const isObject = (value: JsonValue | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const objectAt = (value: JsonObject, key: string): JsonObject | undefined => {
  const found = value[key];
  return isObject(found) ? found : undefined;
};
const stringAt = (value: JsonObject, key: string): string | undefined => {
  const found = value[key];
  return typeof found === 'string' ? found : undefined;
};

/** A local JSON pointer ('#/components/schemas/Receipt', '#/$defs/x') inside `root`. */
function pointerTarget(root: JsonObject, ref: string): JsonObject | undefined {
  if (!ref.startsWith('#/')) return undefined;
  let at: JsonValue | undefined = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    at = isObject(at) ? at[key] : undefined;
  }
  return isObject(at) ? at : undefined;
}

// ------------------------------------------------------------------ schema tree

/** Where `$ref`s point: the OpenAPI document, or the `$defs` of the schema being shown. */
interface SchemaScope {
  document: JsonObject;
  root: JsonObject;
  /** Refs already open on the way down: a recursive schema is shown once. */
  open: ReadonlySet<string>;
}

function resolved(schema: JsonObject, scope: SchemaScope): { schema: JsonObject; name?: string; scope: SchemaScope } {
  const ref = stringAt(schema, '$ref');
  if (!ref) return { schema, scope };
  const target = pointerTarget(ref.startsWith('#/$defs/') ? scope.root : scope.document, ref);
  const name = ref.split('/').pop();
  if (!target || scope.open.has(ref)) return { schema: {}, ...(name ? { name } : {}), scope };
  // a sibling description (3.1 allows it) wins over the target's own
  const merged = { ...target, ...Object.fromEntries(Object.entries(schema).filter(([k]) => k !== '$ref')) };
  return { schema: merged, ...(name ? { name } : {}), scope: { ...scope, open: new Set([...scope.open, ref]) } };
}

/** The branches of a union, null left out (it shows as "or null"). */
function unionOf(schema: JsonObject): { branches: JsonObject[]; nullable: boolean } | null {
  const list = schema.anyOf ?? schema.oneOf;
  if (!Array.isArray(list)) return null;
  const branches = list.filter(isObject);
  const nonNull = branches.filter((b) => b.type !== 'null');
  return { branches: nonNull, nullable: nonNull.length < branches.length };
}

/** The type of a schema in a few words: 'string (date-time)', 'array of object', 'integer or null'. */
function typeLabel(raw: JsonObject, scope: SchemaScope, depth = 0): string {
  const { schema, name } = resolved(raw, scope);
  if (depth > 4) return name ?? 'object';
  if ('const' in schema) return `constant ${JSON.stringify(schema.const)}`;
  const union = unionOf(schema);
  if (union) {
    const words = [...new Set(union.branches.map((b) => typeLabel(b, scope, depth + 1)))];
    if (union.nullable) words.push('null');
    return words.join(' or ') || 'any';
  }
  const types = Array.isArray(schema.type) ? schema.type.filter((t): t is string => typeof t === 'string') : [stringAt(schema, 'type')];
  const words = types.map((type) => {
    switch (type) {
      case 'array': {
        const items = objectAt(schema, 'items');
        return `array of ${items ? typeLabel(items, scope, depth + 1) : 'any'}`;
      }
      case 'object': {
        const extra = objectAt(schema, 'additionalProperties');
        if (!objectAt(schema, 'properties') && extra) return `map of ${typeLabel(extra, scope, depth + 1)}`;
        return name ?? 'object';
      }
      case 'string': {
        const format = stringAt(schema, 'format') ?? stringAt(schema, 'contentMediaType');
        return format ? `string (${format})` : 'string';
      }
      case undefined:
        return name ?? 'any';
      default:
        return type;
    }
  });
  return words.join(' or ');
}

/** Bounds, default and allowed values, in words. */
function constraintsOf(schema: JsonObject): string[] {
  const out: string[] = [];
  if (Array.isArray(schema.enum)) out.push(`one of ${schema.enum.map((v) => `\`${JSON.stringify(v)}\``).join(', ')}`);
  const bound = (key: string, words: string) => {
    const value = schema[key];
    if (typeof value === 'number') out.push(`${words} ${value}`);
  };
  bound('minimum', 'at least');
  bound('exclusiveMinimum', 'more than');
  bound('maximum', 'at most');
  bound('exclusiveMaximum', 'less than');
  bound('minLength', 'length at least');
  bound('maxLength', 'length at most');
  bound('minItems', 'items at least');
  bound('maxItems', 'items at most');
  if (typeof schema.pattern === 'string') out.push(`pattern \`${schema.pattern}\``);
  if (schema.default !== undefined) out.push(`default \`${JSON.stringify(schema.default)}\``);
  return out;
}

/** The fields below a schema: an object's properties, an array's items', a union's object branch. */
function fieldsOf(
  raw: JsonObject,
  scope: SchemaScope,
): { properties: [string, JsonObject][]; required: Set<string>; scope: SchemaScope } | null {
  const { schema, scope: inner } = resolved(raw, scope);
  const union = unionOf(schema);
  if (union) {
    // a nullable object shows its fields; a union of several objects shows the first one's (each is listed by type)
    for (const branch of union.branches) {
      const fields = fieldsOf(branch, inner);
      if (fields) return fields;
    }
    return null;
  }
  const items = objectAt(schema, 'items');
  if (items) return fieldsOf(items, inner);
  const properties = objectAt(schema, 'properties');
  if (properties) {
    const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
    return { properties: Object.entries(properties).filter((e): e is [string, JsonObject] => isObject(e[1])), required, scope: inner };
  }
  const extra = objectAt(schema, 'additionalProperties');
  if (extra) return fieldsOf(extra, inner);
  return null;
}

/** One field and, collapsible, the fields under it. */
function fieldHtml(name: string, raw: JsonObject, required: boolean, scope: SchemaScope, depth: number): string {
  const { schema } = resolved(raw, scope);
  const description = stringAt(schema, 'description');
  const notes = constraintsOf(schema);
  const children = depth < 10 ? fieldsOf(raw, scope) : null;
  const head =
    `<code>${escapeHtml(name)}</code> <span class="type">${escapeHtml(typeLabel(raw, scope))}</span>` +
    (required ? ' <span class="req">required</span>' : '');
  const text =
    (description ? `<div class="desc">${markdownInline(description)}</div>` : '') +
    (notes.length ? `<div class="desc">${markdownInline(notes.join('; '))}</div>` : '');
  const nested = children
    ? `<details><summary>${children.properties.length} field${children.properties.length === 1 ? '' : 's'}</summary>${fieldsHtml(children, depth + 1)}</details>`
    : '';
  return `<li>${head}${text}${nested}</li>`;
}

function fieldsHtml(fields: NonNullable<ReturnType<typeof fieldsOf>>, depth: number): string {
  return `<ul class="schema">${fields.properties
    .map(([name, schema]) => fieldHtml(name, schema, fields.required.has(name), fields.scope, depth))
    .join('')}</ul>`;
}

/** A schema as a readable tree: its type, then its fields (open one level; deeper ones collapsed). */
export function schemaHtml(schema: JsonObject, document: JsonObject): string {
  const scope: SchemaScope = { document, root: schema, open: new Set() };
  const fields = fieldsOf(schema, scope);
  const { schema: top } = resolved(schema, scope);
  const description = stringAt(top, 'description');
  return (
    `<p><span class="type">${escapeHtml(typeLabel(schema, scope))}</span>${description ? ` ${markdownInline(description)}` : ''}</p>` +
    (fields ? fieldsHtml(fields, 0) : '')
  );
}

// ------------------------------------------------------------------ examples

/**
 * The document as openapi-sampler should read it: an object with declared properties that also
 * allows others (a zod looseObject) would otherwise get made-up `property1`, `property2` fields.
 */
function forSampling<T extends JsonValue>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => forSampling(v)) as T;
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === 'additionalProperties' && isObject(value.properties)) continue;
    out[key] = forSampling(item);
  }
  return out as T;
}

/** A JSON example of a schema, made by openapi-sampler (`$defs` refs resolved against the schema itself). */
function sampleOf(schema: JsonObject, document: OpenApiDocument): JsonValue {
  const clean = forSampling(schema);
  const withDefs = isObject(clean.$defs) ? { ...document, $defs: clean.$defs } : document;
  return sample(clean as never, { skipReadOnly: true, quiet: true }, withDefs) as JsonValue;
}

const samplingDocuments = new WeakMap<OpenApiDocument, OpenApiDocument>();
function samplingDocument(document: OpenApiDocument): OpenApiDocument {
  let clean = samplingDocuments.get(document);
  if (!clean) {
    clean = forSampling(document);
    samplingDocuments.set(document, clean);
  }
  return clean;
}

interface Example {
  text: string;
  /** Shown above it: whether it is real output or made from the schema. */
  label: string;
}

function exampleOf(
  endpoint: EndpointDecl | undefined,
  media: JsonObject,
  mediaType: string,
  ctx: DocsPageContext,
  document: OpenApiDocument,
): Example {
  const given = media.example;
  if (given !== undefined) return { text: JSON.stringify(given, null, 2), label: 'Example response' };
  if (endpoint?.id === 'llms-txt') {
    const lines = llmsTxt(ctx.service, ctx.baseUrl).split('\n');
    return { text: `${lines.slice(0, 12).join('\n')}\n…`, label: 'The start of the real document this server serves' };
  }
  if (mediaType === 'text/html')
    return endpoint?.id === 'docs'
      ? { text: '<!doctype html>… (this page)', label: 'Example response' }
      : { text: '<!doctype html>…', label: `An HTML page: open ${endpoint?.path ?? 'it'} in a browser` };
  const schema = objectAt(media, 'schema') ?? {};
  return {
    text: JSON.stringify(sampleOf(schema, samplingDocument(document)), null, 2),
    label: 'Example generated from the schema (the values are placeholders, not data)',
  };
}

// ------------------------------------------------------------------ operations

/** The anchor of an operation on /docs: `op-kimchi-premium`, `op-kimchi-premium-xrpl` (the OpenAPI operationId, made URL-safe). */
export function operationAnchor(operationId: string): string {
  return `op-${operationId.replace(/[^A-Za-z0-9]+/g, '-')}`;
}

interface Operation {
  path: string;
  method: string;
  op: JsonObject;
  id: string;
  endpoint: EndpointDecl | undefined;
  xrpl: boolean;
  price: string | undefined;
  state: ProductState;
}

function operationsOf(document: OpenApiDocument, ctx: DocsPageContext): Operation[] {
  const byId = new Map(endpointsOf(ctx.service).map((e) => [e.id, e]));
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, value] of Object.entries(item)) {
      if (!isObject(value)) continue;
      const operationId = stringAt(value, 'operationId') ?? `${method}-${path}`;
      const xrpl = value['x-network'] === 'xrpl';
      const endpoint = byId.get(xrpl ? operationId.replace(/\.xrpl$/, '') : operationId);
      out.push({
        path,
        method,
        op: value,
        id: operationAnchor(operationId),
        endpoint,
        xrpl,
        price: stringAt(value, 'x-price-usd'),
        state: endpoint ? productState(endpoint, ctx.snapshot, ctx.handled, ctx.now) : { kind: 'available' },
      });
    }
  }
  return out;
}

function priceBadge(o: Operation, ctx: DocsPageContext): string {
  if (!o.price) return '<span class="badge free">free</span>';
  const assets = o.xrpl
    ? 'RLUSD on XRPL'
    : `USDC on ${SERVICE_INFO[ctx.service].networks
        .filter((n) => !n.xrplVariantsOnly)
        .map((n) => n.network)
        .join(', ')}`;
  return `<span class="badge price">${escapeHtml(o.price)} USD per call</span> <span class="type">${escapeHtml(assets)}</span>`;
}

function stateBadge(state: ProductState): string {
  if (state.kind === 'unavailable') return ' <span class="badge unavailable">unavailable</span>';
  if (state.kind === 'stale') return ' <span class="badge stale">stale data</span>';
  return '';
}

function stateNote(state: ProductState): string {
  if (state.kind === 'unavailable')
    return `<p class="state-note unavailable"><strong>Unavailable now:</strong> answers 503 (not_available). ${escapeHtml(state.reason)}</p>`;
  if (state.kind === 'stale') return `<p class="state-note stale"><strong>Stale data:</strong> ${escapeHtml(state.reason)}</p>`;
  return '';
}

interface Parameter {
  name: string;
  in: string;
  required: boolean;
  description: string;
  schema: JsonObject;
}

function parametersOf(op: JsonObject): Parameter[] {
  const list = Array.isArray(op.parameters) ? op.parameters.filter(isObject) : [];
  return list.map((p) => ({
    name: stringAt(p, 'name') ?? '',
    in: stringAt(p, 'in') ?? '',
    required: p.required === true,
    description: stringAt(p, 'description') ?? '',
    schema: objectAt(p, 'schema') ?? {},
  }));
}

function parametersTable(params: Parameter[], document: JsonObject): string {
  if (params.length === 0) return '<p>No parameters.</p>';
  const scope: SchemaScope = { document, root: {}, open: new Set() };
  const rows = params.map((p) => {
    // the default has its own column
    const { default: _shown, ...rest } = p.schema;
    const notes = constraintsOf(rest);
    return (
      `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${escapeHtml(p.in)}</td><td>${escapeHtml(typeLabel(p.schema, scope))}</td>` +
      `<td>${p.required ? 'yes' : 'no'}</td><td>${p.schema.default === undefined ? '' : `<code>${escapeHtml(JSON.stringify(p.schema.default))}</code>`}</td>` +
      `<td>${markdownInline(p.description)}${notes.length ? `<br><span class="type">${markdownInline(notes.join('; '))}</span>` : ''}</td></tr>`
    );
  });
  return (
    '<table><thead><tr><th scope="col">Name</th><th scope="col">In</th><th scope="col">Type</th><th scope="col">Required</th>' +
    `<th scope="col">Default</th><th scope="col">Description</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
  );
}

/** The try-it form: inputs for the parameters (and the body), sent by the page script. */
function tryItForm(o: Operation, params: Parameter[], document: OpenApiDocument): string {
  const callable = !o.path.includes('{');
  const method = o.method.toUpperCase();
  // without JavaScript a plain GET form still calls a path with no parameter to fill in
  const action = callable && method === 'GET' ? ` action="${escapeHtml(o.path)}" method="get"` : '';
  const fields = params.map((p) => {
    const fieldId = `${o.id}-${p.in}-${p.name}`;
    const label = `<label for="${fieldId}">${escapeHtml(p.name)} <span class="type">(${escapeHtml(p.in)}${p.required ? ', required' : ''})</span></label>`;
    const data = `id="${fieldId}" name="${escapeHtml(p.name)}" data-in="${escapeHtml(p.in)}"${p.required ? ' required' : ''}`;
    if (Array.isArray(p.schema.enum)) {
      const options = p.schema.enum.map((v) => `<option value="${escapeHtml(String(v))}">${escapeHtml(String(v))}</option>`).join('');
      return `<div class="field">${label}<select ${data}><option value="">(default${p.schema.default === undefined ? '' : `: ${escapeHtml(String(p.schema.default))}`})</option>${options}</select></div>`;
    }
    const numeric = p.schema.type === 'integer' || p.schema.type === 'number';
    const placeholder = p.schema.default === undefined ? '' : ` placeholder="${escapeHtml(String(p.schema.default))}"`;
    return `<div class="field">${label}<input ${data} type="${numeric ? 'number' : 'text'}"${placeholder}></div>`;
  });
  const bodySchema = objectAt(objectAt(objectAt(objectAt(o.op, 'requestBody') ?? {}, 'content') ?? {}, 'application/json') ?? {}, 'schema');
  if (bodySchema) {
    const bodyId = `${o.id}-body`;
    fields.push(
      `<div class="field"><label for="${bodyId}">JSON body</label><textarea id="${bodyId}" name="body" data-in="body" rows="3">${escapeHtml(
        JSON.stringify(sampleOf(bodySchema, samplingDocument(document)), null, 2),
      )}</textarea></div>`,
    );
  }
  return (
    `<form class="try"${action} data-method="${method}" data-path="${escapeHtml(o.path)}" data-price="${escapeHtml(o.price ?? '')}" aria-label="Try ${method} ${escapeHtml(o.path)}">` +
    `<h4>Try it</h4>${fields.join('')}<button type="submit">Send ${method} request</button>` +
    '<div class="try-out" role="status" aria-live="polite"></div></form>'
  );
}

function responsesHtml(o: Operation, ctx: DocsPageContext, document: OpenApiDocument): string {
  const responses = objectAt(o.op, 'responses') ?? {};
  const parts: string[] = [];
  const list: string[] = [];
  for (const [status, value] of Object.entries(responses)) {
    if (!isObject(value)) continue;
    const ref = stringAt(value, '$ref');
    const response = ref ? (pointerTarget(document, ref) ?? {}) : value;
    list.push(`<li><strong>${escapeHtml(status)}</strong> ${markdownInline(stringAt(response, 'description') ?? '')}</li>`);
  }
  const ok = objectAt(responses, '200');
  const content = ok ? objectAt(ok, 'content') : undefined;
  for (const [mediaType, media] of Object.entries(content ?? {})) {
    if (!isObject(media)) continue;
    const schema = objectAt(media, 'schema') ?? {};
    const example = exampleOf(o.endpoint, media, mediaType, ctx, document);
    parts.push(
      `<details class="response-schema"${o.xrpl ? '' : ' open'}><summary>Response schema (200, <code>${escapeHtml(mediaType)}</code>)</summary>${schemaHtml(schema, document)}</details>` +
        `<details class="response-example"><summary>Example response</summary><p class="example-label">${escapeHtml(example.label)}</p>` +
        `<pre class="example"><code>${escapeHtml(example.text)}</code></pre></details>`,
    );
  }
  return `<h4>Responses</h4><ul>${list.join('')}</ul>${parts.join('')}`;
}

function operationHtml(o: Operation, ctx: DocsPageContext, document: OpenApiDocument): string {
  const params = parametersOf(o.op);
  const summary = stringAt(o.op, 'summary') ?? '';
  const description = stringAt(o.op, 'description') ?? '';
  const mcp = stringAt(o.op, 'x-mcp-tool');
  const bodySchema = objectAt(objectAt(objectAt(objectAt(o.op, 'requestBody') ?? {}, 'content') ?? {}, 'application/json') ?? {}, 'schema');
  return (
    `<section class="op${o.state.kind === 'unavailable' ? ' is-unavailable' : ''}" id="${o.id}" aria-labelledby="${o.id}-title" data-state="${o.state.kind}">` +
    `<h3 id="${o.id}-title"><span class="method">${escapeHtml(o.method.toUpperCase())}</span><code>${escapeHtml(o.path)}</code></h3>` +
    `<p>${priceBadge(o, ctx)}${stateBadge(o.state)}${mcp ? ` <span class="type">MCP tool <code>${escapeHtml(mcp)}</code></span>` : ''}</p>` +
    stateNote(o.state) +
    `<p><strong>${markdownInline(summary)}</strong></p><div class="desc">${markdownHtml(description)}</div>` +
    `<h4>Parameters</h4>${parametersTable(params, document)}` +
    (bodySchema ? `<h4>Request body (<code>application/json</code>)</h4>${schemaHtml(bodySchema, document)}` : '') +
    responsesHtml(o, ctx, document) +
    tryItForm(o, params, document) +
    '</section>'
  );
}

// ------------------------------------------------------------------ page

const GROUPS: Array<{ tag: string; title: string }> = [
  { tag: 'free', title: 'Free endpoints' },
  { tag: 'paid', title: 'Paid endpoints (x402, USDC)' },
  { tag: 'paid (XRPL)', title: 'Paid endpoints on XRPL (x402, RLUSD)' },
];

const groupOf = (o: Operation): string => {
  const tags = Array.isArray(o.op.tags) ? o.op.tags : [];
  return typeof tags[0] === 'string' ? tags[0] : 'free';
};

/** `npm run pay` for one paid endpoint a reader can run as it is (a GET without path parameters, else the POST with its example body). */
function payCommand(ctx: DocsPageContext, document: OpenApiDocument): string {
  const callable = endpointsOf(ctx.service).filter((e) => e.access === 'paid' && !e.path.includes(':'));
  const endpoint = callable.find((e) => e.method === 'GET') ?? callable[0];
  if (!endpoint) return 'npm run pay -- <url>';
  const command = `npm run pay -- ${ctx.baseUrl}${endpoint.path}`;
  if (endpoint.method === 'GET') return command;
  const op = objectAt(document.paths[endpoint.path.replace(/:([A-Za-z_]+)/g, '{$1}')] ?? {}, endpoint.method.toLowerCase()) ?? {};
  const schema = objectAt(objectAt(objectAt(objectAt(op, 'requestBody') ?? {}, 'content') ?? {}, 'application/json') ?? {}, 'schema');
  const body = schema ? JSON.stringify(sampleOf(schema, samplingDocument(document))) : '{}';
  return `${command} --method ${endpoint.method} --data '${body}'`;
}

function howToPayHtml(ctx: DocsPageContext, document: OpenApiDocument): string {
  // only the networks this service accepts, and only their keys (analytics: base and solana)
  const networks = SERVICE_INFO[ctx.service].networks;
  // the variable `npm run pay` reads the payer's key from, per network's scheme
  const variables = [...new Set(networks.map((n) => schemeFor(n.settlement).describe(n.settlement).payerKeyVariable))].map(
    (v) => `<code>${v}</code>`,
  );
  const xrpl = networks.some((n) => n.settlement.kind === 'xrpl');
  const payerKeys = variables.length > 1 ? `${variables.slice(0, -1).join(', ')} or ${variables.at(-1)}` : (variables[0] ?? '');
  return (
    '<section id="how-to-pay" aria-labelledby="how-to-pay-title"><h2 id="how-to-pay-title">How to pay</h2>' +
    '<ol><li>Call a paid endpoint without payment. It answers <strong>402</strong> with the x402 payment requirements: the JSON body ' +
    '<code>{x402Version, error, accepts}</code> (x402 v1) and the <code>PAYMENT-REQUIRED</code> header (base64 JSON, x402 v2), one offer per network with ' +
    'the amount, asset and <code>payTo</code> address. The try-it forms below show it decoded.</li>' +
    `<li>Sign one offer with an x402 client and repeat the request with the <code>X-PAYMENT</code> (v1) or <code>PAYMENT-SIGNATURE</code> (v2${xrpl ? '; XRPL' : ''}) header. ` +
    `From this project: <code>${escapeHtml(payCommand(ctx, document))}</code> (add <code>--network ${networks.map((n) => n.network).join('|')}</code> and <code>--max-usd</code>; ` +
    `keys from ${payerKeys}).</li>` +
    '<li>A 200 carries the data and a signed <code>receipt</code>; verify it against <code>receipt_signer</code> in ' +
    '<a href="/.well-known/x402">/.well-known/x402</a>.</li>' +
    `<li>Agents: the MCP server at <code>${escapeHtml(ctx.baseUrl)}/mcp</code> (streamable HTTP) offers the same data as tools; a paid tool takes its payment in <code>_meta["x402/payment"]</code>.</li></ol></section>`
  );
}

/** The try-it script: sends the form's request and shows the answer; a 402 is decoded into its offers. */
const TRY_IT_SCRIPT = `(function(){
var networks=JSON.parse(document.getElementById('x402-networks').textContent);
function el(tag,text){var e=document.createElement(tag);if(text!==undefined)e.textContent=text;return e}
function decode(b64){var bin=atob(b64);var bytes=new Uint8Array(bin.length);for(var i=0;i<bin.length;i++)bytes[i]=bin.charCodeAt(i);return JSON.parse(new TextDecoder().decode(bytes))}
function human(offer){var n=networks[offer.network];if(!n)return offer.amount;if(n.decimals===null)return offer.amount+' '+n.asset;var a=String(offer.amount).padStart(n.decimals+1,'0');var whole=a.slice(0,a.length-n.decimals);var frac=a.slice(a.length-n.decimals).replace(/0+$/,'');return whole+(frac?'.'+frac:'')+' '+n.asset}
function compact(text){try{return JSON.stringify(JSON.parse(text))}catch(e){return text}}
function offers(out,header,url,price,method,body){var req;try{req=decode(header)}catch(e){out.appendChild(el('p','PAYMENT-REQUIRED header could not be decoded: '+e));return}
if(price)out.appendChild(el('p','Price: '+price+' USD per call.'));
if(req.error)out.appendChild(el('p','Reason: '+req.error));
var t=el('table');var cap=el('caption','Decoded PAYMENT-REQUIRED header: one offer per network');t.appendChild(cap);var head=el('tr');['Network','Amount','Asset','Pay to'].forEach(function(h){var th=el('th',h);th.scope='col';head.appendChild(th)});var thead=el('thead');thead.appendChild(head);t.appendChild(thead);var body=el('tbody');
(req.accepts||[]).forEach(function(o){var tr=el('tr');var n=networks[o.network];[(n?n.name+' ':'')+'('+o.network+')',human(o),o.asset,o.payTo].forEach(function(v){var td=el('td');td.appendChild(el('code',String(v)));tr.appendChild(td)});body.appendChild(tr)});t.appendChild(body);out.appendChild(t);
var how=el('p','To pay: run ');how.appendChild(el('code','npm run pay -- '+url+(method==='GET'?'':' --method '+method+" --data '"+compact(body)+"'")));how.appendChild(document.createTextNode(' (an x402 client signs one offer and repeats the request with the payment header), or call the MCP tool with the payment in _meta["x402/payment"]. See "How to pay" at the top.'));out.appendChild(how);
var d=el('details');d.appendChild(el('summary','Decoded header (JSON)'));d.appendChild(el('pre',JSON.stringify(req,null,2)));out.appendChild(d)}
document.querySelectorAll('form.try').forEach(function(f){f.addEventListener('submit',function(ev){ev.preventDefault();var path=f.dataset.path;var q=new URLSearchParams();var init={method:f.dataset.method,headers:{}};var missing=[];
f.querySelectorAll('[data-in]').forEach(function(i){var where=i.dataset.in;if(where==='body'){init.body=i.value;init.headers['Content-Type']='application/json';return}if(!i.value){if(where==='path')missing.push(i.name);return}if(where==='path')path=path.replace('{'+i.name+'}',encodeURIComponent(i.value));else q.set(i.name,i.value)});
var out=f.querySelector('.try-out');out.textContent='';if(missing.length){out.appendChild(el('p','Fill in: '+missing.join(', ')));return}
var url=path+(q.toString()?'?'+q:'');var abs=location.origin+url;out.appendChild(el('p','Sending '+init.method+' '+url+' …'));
fetch(url,init).then(function(r){return r.text().then(function(text){out.textContent='';out.appendChild(el('p','HTTP '+r.status+' '+r.statusText));var header=r.headers.get('PAYMENT-REQUIRED');if(r.status===402&&header){offers(out,header,abs,f.dataset.price,init.method,init.body||'')}var shown=text;try{shown=JSON.stringify(JSON.parse(text),null,2)}catch(e){}var d=el('details');if(r.status!==402)d.open=true;d.appendChild(el('summary','Response body'));d.appendChild(el('pre',shown.slice(0,20000)));out.appendChild(d)})}).catch(function(e){out.textContent='';out.appendChild(el('p','Request failed: '+e))})})});
})();`;

/** The x402 networks the try-it names when it decodes a 402: CAIP-2 id → name, asset and decimals (null: a decimal value). */
function networksJson(): string {
  const table: Record<string, { name: string; asset: string; decimals: number | null }> = {};
  for (const n of SETTLEMENT_NETWORKS) {
    const { asset, decimals } = schemeFor(n).describe(n);
    table[n.caip2] = { name: n.name, asset, decimals };
  }
  // inside <script type="application/json">: '<' escaped so no value can close the element
  return JSON.stringify(table).replace(/</g, '\\u003c');
}

/** The /docs page of a service. */
export function docsHtml(ctx: DocsPageContext): string {
  const document = openApiDocument(ctx.service, { baseUrl: ctx.baseUrl });
  const info = document.info;
  const title = stringAt(info, 'title') ?? SERVICE_INFO[ctx.service].title;
  const operations = operationsOf(document, ctx);
  const unavailable = operations.filter((o) => o.state.kind === 'unavailable').length;

  const toc = GROUPS.map((group) => {
    const members = operations.filter((o) => groupOf(o) === group.tag);
    if (members.length === 0) return '';
    const items = members
      .map(
        (o) =>
          `<li><a href="#${o.id}"><span class="method">${escapeHtml(o.method.toUpperCase())}</span>${escapeHtml(o.path)}</a>` +
          `${o.price ? ` <span class="price">${escapeHtml(o.price)} USD</span>` : ''}${o.state.kind === 'unavailable' ? ' <span class="unavailable">(unavailable)</span>' : ''}</li>`,
      )
      .join('');
    return `<h2>${escapeHtml(group.title)}</h2><ul>${items}</ul>`;
  }).join('');

  const sections = GROUPS.map((group) => {
    const members = operations.filter((o) => groupOf(o) === group.tag);
    if (members.length === 0) return '';
    const slug = `group-${group.tag.replace(/[^a-z]+/g, '-')}`;
    return `<section aria-labelledby="${slug}"><h2 id="${slug}">${escapeHtml(group.title)}</h2>${members.map((o) => operationHtml(o, ctx, document)).join('')}</section>`;
  }).join('');

  const body =
    `<header class="top"><p class="links"><a href="/">${escapeHtml(title)}</a></p><h1>${escapeHtml(title)}: API reference</h1>` +
    freshnessHtml(freshnessOf(ctx.snapshot)) +
    `<p class="links">Version ${escapeHtml(stringAt(info, 'version') ?? '')} · <a href="/openapi.json">OpenAPI 3.1 document</a> <a href="/llms.txt">llms.txt</a> ` +
    `<a href="/.well-known/x402">x402 manifest</a> <a href="/health">health</a> · MCP: <code>${escapeHtml(ctx.baseUrl)}/mcp</code></p></header>` +
    `<div class="layout"><nav class="toc" aria-label="Contents"><p><a href="#how-to-pay">How to pay</a></p>${toc}</nav><main>` +
    `<div class="desc">${markdownHtml(stringAt(info, 'description') ?? '')}</div>` +
    (unavailable > 0
      ? `<p class="state-note unavailable">${unavailable} operation${unavailable === 1 ? ' is' : 's are'} unavailable in the snapshot served (marked below); they answer 503 until the data is there.</p>`
      : '') +
    howToPayHtml(ctx, document) +
    sections +
    `</main></div><script type="application/json" id="x402-networks">${networksJson()}</script>`;

  return pageHtml({
    title: `${title}: API reference`,
    description: plainText(SERVICE_INFO[ctx.service].description),
    body,
    script: TRY_IT_SCRIPT,
  });
}

/**
 * The page for a snapshot version and origin, made once: the OpenAPI document, the samples and
 * the Markdown are the same for every request until either changes.
 */
export function docsPageCache(): (ctx: DocsPageContext) => string {
  let key = '';
  let page = '';
  return (ctx) => {
    // the hour is in the key because a dataset turns stale with time, not only with a new snapshot
    const next = `${ctx.service}|${ctx.baseUrl}|${ctx.snapshot?.version ?? 'none'}|${Math.floor(ctx.now.getTime() / 3_600_000)}`;
    if (next !== key) {
      page = docsHtml(ctx);
      key = next;
    }
    return page;
  };
}
