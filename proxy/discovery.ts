/**
 * Discovery documents generated from the catalog: the `/.well-known/x402` manifest (x402scan
 * format plus the foundation draft's `items`) and `/llms.txt` (the `/docs` page is docs-page.ts).
 * Nothing here lists endpoints or prices by hand; everything reads the endpoint declarations, so
 * the documents agree with the code.
 */
import { endpointsOf, mcpTools, SERVICE_INFO, xrplPath } from '../catalog/index.ts';
import { jsonSchemaOf } from '../catalog/openapi.ts';
import type { EndpointDecl, ServiceName } from '../catalog/types.ts';
import { bazaarFor, bazaarServiceMetadata } from '../payments/bazaar.ts';
import type { ReceiptSignerInfo } from '../payments/receipts.ts';

export interface DiscoveryContext {
  service: ServiceName;
  /** Origin the client reached us at, e.g. http://127.0.0.1:4020. */
  baseUrl: string;
  signer: ReceiptSignerInfo;
  /** Pay-to address per network name ('base', 'polygon', 'solana', 'xrpl'). */
  payTo: Readonly<Record<string, string>>;
  settlementMode: 'local' | 'facilitator';
  /** When the served snapshot was generated (ISO-8601): each item's Bazaar `lastUpdated`, omitted when nothing is served yet. */
  lastUpdated?: string;
}

function paidResources(service: ServiceName): Array<{ endpoint: EndpointDecl; path: string; xrpl: boolean }> {
  return endpointsOf(service)
    .filter((e) => e.access === 'paid')
    .flatMap((e) => [
      { endpoint: e, path: e.path, xrpl: false },
      ...(e.xrplVariant ? [{ endpoint: e, path: xrplPath(e.path), xrpl: true }] : []),
    ]);
}

/** A path a client can call as it is: no `:param` segment left to fill in. */
const isCallable = (path: string) => !path.includes('/:');

/**
 * One entry of `items`, in the shape of the x402 foundation's well-known discovery draft
 * (x402-foundation/x402#2646): the resource (a templated one with its `:param` URL), how to call it
 * (method, routeTemplate, the path parameters to fill in with their JSON Schema, the query defaults,
 * the JSON body with an example) and what it returns. `accepts` is left to the live 402, which is
 * authoritative and carries the per-request resource URL.
 */
function discoveryItem(ctx: DiscoveryContext, endpoint: EndpointDecl, path: string, xrpl: boolean) {
  const { info } = bazaarFor(endpoint, xrpl).bazaar;
  const templated = !isCallable(path);
  const pathParams = endpoint.pathParams ? jsonSchemaOf(endpoint.pathParams).properties : undefined;
  const { type: _http, ...input } = info.input;
  return {
    resource: {
      url: `${ctx.baseUrl}${path}`,
      description: endpoint.summary,
      mimeType: endpoint.contentType ?? 'application/json',
      ...bazaarServiceMetadata(endpoint),
    },
    type: 'http' as const,
    x402Version: 2 as const,
    input: { ...input, ...(templated ? { routeTemplate: path, pathParams } : {}) },
    output: { mimeType: endpoint.contentType ?? 'application/json' },
    // Bazaar: an ISO-8601 string (x402-foundation/x402 #3067), the data behind the resource
    ...(ctx.lastUpdated ? { lastUpdated: ctx.lastUpdated } : {}),
    price_usd: endpoint.priceUsd ?? null,
    network: xrpl ? 'xrpl' : null,
  };
}

/**
 * `/.well-known/x402`: the x402scan format (`version` 1, `resources`) and, in the same document,
 * `x402Version` 2 with `items` as the foundation's discovery draft writes them (every reader ignores
 * the fields it does not know), plus what agents need to pay and verify.
 *
 * `resources` lists only absolute URLs a client can call as they are: every paid path without a
 * path parameter (a GET answers 402; the POST /api/v1/wash/check answers 402 to a POST with its
 * JSON body and 405 with `Allow: POST` to a GET, which tells a prober the method). A templated path
 * such as /api/v1/services/:id/wash-detail is not a URL until an id is filled in (and an unknown id
 * answers 404 before payment), so it is in `items` only, with its routeTemplate and parameters.
 */
export function wellKnownX402(ctx: DiscoveryContext) {
  const paid = paidResources(ctx.service);
  const resources = paid.filter(({ path }) => isCallable(path)).map(({ path }) => `${ctx.baseUrl}${path}`);
  const items = paid.map(({ endpoint, path, xrpl }) => discoveryItem(ctx, endpoint, path, xrpl));
  const networks = SERVICE_INFO[ctx.service].networks.map((n) => ({
    network: n.network,
    caip2: n.caip2,
    asset: n.asset,
    pay_to: ctx.payTo[n.network] ?? null,
    xrpl_variants_only: n.xrplVariantsOnly,
  }));
  return {
    version: 1 as const,
    resources,
    x402Version: 2 as const,
    items,
    instructions:
      `# ${SERVICE_INFO[ctx.service].title}\n\n` +
      'Call a resource without payment to get HTTP 402 with the v1 JSON body `{x402Version, error, accepts}` and the v2 ' +
      '`PAYMENT-REQUIRED` header. Pay one entry of `accepts` (scheme `exact`) and repeat the request with `X-PAYMENT` (v1) or ' +
      '`PAYMENT-SIGNATURE` (v2). A 200 carries the data and a signed `receipt` (also base64 JSON in the `X-Receipt` header): ' +
      'recover the signer from `signature` (EIP-191 personal_sign, so any verifyMessage works) over ' +
      '`id|endpoint|amount|currency|network|tx_hash|payer|merchant|issued_at` and compare it with `receipt_signer`. Rejected payments answer 402 with a named reason. ' +
      '`items` describes every paid resource: `input.method` (POST resources take the JSON `input.body`), and for templated paths ' +
      '`input.routeTemplate` with the `input.pathParams` to fill in. Full reference: ' +
      `${ctx.baseUrl}/docs, ${ctx.baseUrl}/openapi.json, ${ctx.baseUrl}/llms.txt.` +
      (ctx.settlementMode === 'local'
        ? '\n\nThis instance runs with SETTLEMENT=local: signatures are verified in full but no funds move (receipts say so).'
        : ''),
    networks,
    settlement_mode: ctx.settlementMode,
    receipt_signer: ctx.signer,
    openapi: `${ctx.baseUrl}/openapi.json`,
    mcp: `${ctx.baseUrl}/mcp`,
  };
}

function paramLines(endpoint: EndpointDecl): string[] {
  const lines: string[] = [];
  const add = (where: string, shape: Record<string, unknown> | undefined) => {
    for (const [name, schema] of Object.entries(shape ?? {})) {
      const description = (schema as { description?: string }).description ?? describeInner(schema);
      lines.push(`    - ${where} \`${name}\`${description ? `: ${description}` : ''}`);
    }
  };
  add('path', endpoint.pathParams?.shape);
  add('query', endpoint.query?.shape);
  add('body', endpoint.body?.shape);
  return lines;
}

/** zod preprocess wrappers keep the description on the inner schema. */
function describeInner(schema: unknown): string | undefined {
  let s = schema as { description?: string; _zod?: { def?: { out?: unknown; innerType?: unknown } } } | undefined;
  for (let i = 0; i < 4 && s; i++) {
    if (s.description) return s.description;
    const def = s._zod?.def;
    s = (def?.out ?? def?.innerType) as typeof s;
  }
  return undefined;
}

/** `/llms.txt`: the service for language models, from the catalog. */
export function llmsTxt(service: ServiceName, baseUrl: string): string {
  const info = SERVICE_INFO[service];
  const out: string[] = [`# ${info.title}`, '', `> ${info.description}`, ''];
  out.push(
    `Base URL: ${baseUrl}`,
    `OpenAPI 3.1 document: ${baseUrl}/openapi.json`,
    `x402 manifest: ${baseUrl}/.well-known/x402`,
    `MCP server (streamable HTTP): ${baseUrl}/mcp`,
    '',
  );
  const section = (title: string, list: EndpointDecl[]) => {
    if (list.length === 0) return;
    out.push(`## ${title}`, '');
    for (const e of list) {
      const price = e.priceUsd ? ` (${e.priceUsd} USD per call)` : '';
      out.push(`- ${e.method} ${e.path}${price}: ${e.summary}`);
      out.push(...paramLines(e));
      if (e.xrplVariant) out.push(`    - also ${e.method} ${xrplPath(e.path)} paid in RLUSD on xrpl`);
    }
    out.push('');
  };
  const all = endpointsOf(service);
  section(
    'Free endpoints',
    all.filter((e) => e.access === 'free'),
  );
  section(
    'Paid endpoints (x402)',
    all.filter((e) => e.access === 'paid'),
  );
  const tools = mcpTools(service);
  if (tools.length > 0) {
    out.push('## MCP tools', '');
    for (const t of tools)
      out.push(
        `- ${t.name}: ${t.description}${t.endpoint.access === 'paid' ? ` (paid, ${t.endpoint.priceUsd} USD, x402 payment in _meta["x402/payment"])` : ''}`,
      );
    out.push('');
  }
  out.push(
    '## How to pay',
    '',
    '1. Call a paid endpoint without payment: HTTP 402 with `accepts` (one entry per network: amount in atomic units, asset, payTo).',
    '2. Sign the transfer (EVM: an EIP-3009 TransferWithAuthorization for USDC) and repeat the request with the `X-PAYMENT` header (base64 JSON, x402 v1) or `PAYMENT-SIGNATURE` (x402 v2).',
    '3. A 200 carries the data and a signed receipt; a refused payment answers 402 with a reason such as invalid_signature, amount_mismatch, expired or nonce_used.',
    '',
    'Bad parameters answer 422 with a `detail` array (loc, msg, type, input, ctx), and so does a query parameter the endpoint does not declare. Unknown ids answer 404 before any payment is asked.',
    '',
  );
  return out.join('\n');
}
