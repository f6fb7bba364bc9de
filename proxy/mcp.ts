/**
 * The MCP server of a service at /mcp: stateless streamable HTTP (a fresh server and transport per
 * request, JSON responses), one tool per catalog endpoint that declares `mcpTool`, with the
 * endpoint's own zod schema as the tool input. A tool call is an endpoint call like an HTTP
 * request (endpoint-call.ts): the same validation messages, the same 404s, the same free-tier limit
 * and the same paywall.
 *
 * Paid tools follow the x402 MCP transport (tool-result binding): an unpaid call returns
 * `isError: true` with the PaymentRequired object in `structuredContent` (and as JSON text, with
 * the Bazaar extension in its MCP form); the client repeats the call with the payment payload in
 * `params._meta["x402/payment"]`; the paid result carries `_meta["x402/payment-response"]` and the
 * signed receipt. Every tool declares an `outputSchema` that covers what its structuredContent can
 * hold (toolOutput), and takes only the arguments it declares (toolInput).
 */
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { type McpToolDecl, mcpTools } from '../catalog/index.ts';
import { jsonSchemaOf, successBodyJsonSchema, successBodySchema } from '../catalog/openapi.ts';
import { PaymentRequiredV2 } from '../catalog/schemas.ts';
import type { EndpointDecl, ServiceName } from '../catalog/types.ts';
import { bazaarForTool } from '../payments/bazaar.ts';
import { CORS_EXPOSE } from './cors.ts';
import type { EndpointAnswer, EndpointCall } from './endpoint-call.ts';
import { type McpHostCheckOptions, mcpHostCheck } from './mcp-dns-rebinding.ts';
import { mcpHeaderCheck, mcpMessageOf } from './mcp-headers.ts';
import type { RawRequest } from '../catalog/request.ts';

export interface McpOptions {
  service: ServiceName;
  call: EndpointCall;
  /** The client's address as the free-tier limiter keys it. */
  ipOf: (c: Context) => string;
  /** Which Host and Origin /mcp answers (mcp-dns-rebinding.ts). */
  hostCheck: McpHostCheckOptions;
  /** Where clients reach the service (its public URL setting, else the request): the origin of the tools' endpoint URLs. */
  baseUrlOf: (c: Context) => string;
}

function decodeBase64Json(value: string | undefined): unknown {
  if (!value) return undefined;
  try {
    return JSON.parse(Buffer.from(value, 'base64').toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** Splits the flat tool arguments into the path / query / body parts the endpoint declares. */
function rawFromArgs(endpoint: EndpointDecl, args: Record<string, unknown>): RawRequest {
  const params: Record<string, string> = {};
  const query: Record<string, string> = {};
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined) continue;
    if (endpoint.pathParams?.shape && key in endpoint.pathParams.shape) params[key] = String(value);
    else if (endpoint.body?.shape && key in endpoint.body.shape) body[key] = value;
    else if (endpoint.query?.shape && key in endpoint.query.shape) query[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return endpoint.body ? { params, query, body } : { params, query };
}

/**
 * The tool's input: its arguments as one strict object, so an argument the tool does not take is
 * refused by name instead of silently dropped (a wallet address given to the aggregate wash report
 * would otherwise answer as if it had been read).
 */
function toolInput(tool: McpToolDecl): z.ZodObject {
  const names = Object.keys(tool.input.shape);
  const takes = names.length ? `it takes ${names.join(', ')}` : 'it takes no arguments';
  return z.strictObject(tool.input.shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `${tool.name} does not take ${issue.keys.map((k) => `"${k}"`).join(', ')}; ${takes}.`
        : undefined,
  });
}

/**
 * The tool's outputSchema: what its structuredContent holds. A free tool returns the endpoint's
 * 200 body; a paid tool the body with its `receipt`, or, unpaid, the x402 PaymentRequired (the x402
 * MCP transport puts it in the structuredContent of an isError result, and strict clients such as
 * the SDK's Client validate that against the outputSchema too). MCP wants an object schema at the
 * root, so the alternatives are an `anyOf` under `type: object`; the server-side check parses the
 * same alternatives with the catalog's zod schemas. Error results other than 402 carry text only.
 */
function toolOutput(tool: McpToolDecl): z.ZodType {
  const { endpoint } = tool;
  const paid = endpoint.access === 'paid';
  const alternatives = paid ? z.union([successBodySchema(endpoint), PaymentRequiredV2]) : successBodySchema(endpoint);
  const anyOf = [successBodyJsonSchema(endpoint), ...(paid ? [jsonSchemaOf(PaymentRequiredV2)] : [])];
  return z
    .looseObject({})
    .superRefine((value, ctx) => {
      const parsed = alternatives.safeParse(value);
      if (!parsed.success) ctx.addIssue({ code: 'custom', message: `${tool.name} produced a result its output schema does not describe` });
    })
    .meta({ anyOf });
}

function toolResult(tool: McpToolDecl, answer: EndpointAnswer) {
  const { endpoint } = tool;
  const toolName = tool.name;
  // a tool answers text: a download's bytes (an endpoint's ?format=parquet) as base64
  const text = answer.body instanceof Uint8Array ? Buffer.from(answer.body).toString('base64') : (answer.body ?? '');
  if (answer.status === 200) {
    let structured: Record<string, unknown> | undefined;
    try {
      const parsed = JSON.parse(text) as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) structured = parsed as Record<string, unknown>;
    } catch {
      structured = undefined;
    }
    const paymentResponse = decodeBase64Json(answer.headers['PAYMENT-RESPONSE'] ?? answer.headers['X-PAYMENT-RESPONSE']);
    return {
      content: [{ type: 'text' as const, text }],
      ...(structured ? { structuredContent: structured } : {}),
      ...(paymentResponse ? { _meta: { 'x402/payment-response': paymentResponse } } : {}),
    };
  }
  if (answer.status === 402) {
    // v2 PaymentRequired (from the PAYMENT-REQUIRED header), pointed at the tool as its resource
    const v2 = decodeBase64Json(answer.headers['PAYMENT-REQUIRED']) as Record<string, unknown> | undefined;
    // the Bazaar extension of a tool is the spec's MCP form: tool name and input schema instead of method and query
    const required = v2
      ? {
          ...v2,
          resource: { ...((v2.resource as object | undefined) ?? {}), url: `mcp://tool/${toolName}` },
          extensions: {
            ...((v2.extensions as object | undefined) ?? {}),
            ...bazaarForTool({ ...tool, inputSchema: jsonSchemaOf(tool.input) }),
          },
        }
      : (answer.json as Record<string, unknown>);
    // a refused or failed settlement has a settlement response too (x402 MCP transport, "Settlement failure")
    const settlement = decodeBase64Json(answer.headers['PAYMENT-RESPONSE'] ?? answer.headers['X-PAYMENT-RESPONSE']);
    return {
      isError: true,
      content: [{ type: 'text' as const, text: JSON.stringify(required) }],
      structuredContent: required,
      ...(settlement ? { _meta: { 'x402/payment-response': settlement } } : {}),
    };
  }
  // no structuredContent: it would not match the outputSchema, and the text says everything
  return {
    isError: true,
    content: [{ type: 'text' as const, text: `${endpoint.method} ${endpoint.path} answered ${answer.status}: ${text}` }],
  };
}

// The SDK (about 60 modules with its JSON Schema converter) is loaded at the first POST /mcp: at
// every start it would delay the APIs by about 0.3 s.
let mcpSdk: Promise<
  [
    typeof import('@modelcontextprotocol/sdk/server/mcp.js'),
    typeof import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    typeof import('@modelcontextprotocol/sdk/types.js'),
  ]
> | null = null;
const loadMcpSdk = () =>
  (mcpSdk ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]));

/**
 * The cache hint of a tools/list result (SEP-2549, 2026-07-28 revision): the list changes only
 * with a deploy and is the same for every caller. 2025 clients ignore the two fields.
 */
export const TOOLS_LIST_CACHE = { ttlMs: 300_000, cacheScope: 'public' } as const;

/** A tools/list answer with TOOLS_LIST_CACHE in its result; any other answer as it is. */
async function withToolsListCache(res: Response): Promise<Response> {
  if (res.status !== 200 || !res.headers.get('content-type')?.includes('application/json')) return res;
  const body = (await res.json()) as { result?: Record<string, unknown> };
  if (body.result && Array.isArray(body.result.tools)) Object.assign(body.result, TOOLS_LIST_CACHE);
  const headers = new Headers(res.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify(body), { status: res.status, statusText: res.statusText, headers });
}

export function mountMcp(app: Hono, options: McpOptions): void {
  // schemas built once: a stateless server is built per request
  const tools = mcpTools(options.service).map((tool) => ({ ...tool, inputSchema: toolInput(tool), outputSchema: toolOutput(tool) }));
  const build = (McpServer: Awaited<ReturnType<typeof loadMcpSdk>>[0]['McpServer'], ip: string, origin: string) => {
    const server = new McpServer({ name: `${options.service}-data`, version: '0.1.0' }, { capabilities: { tools: {} } });
    for (const tool of tools) {
      const { endpoint } = tool;
      server.registerTool(
        tool.name,
        {
          title: endpoint.summary,
          description: tool.description,
          inputSchema: tool.inputSchema,
          outputSchema: tool.outputSchema,
          annotations: { readOnlyHint: true, openWorldHint: false },
        },
        async (args: Record<string, unknown>, extra: { _meta?: Record<string, unknown> }) => {
          const payment = extra._meta?.['x402/payment'];
          const encoded = payment === undefined ? undefined : Buffer.from(JSON.stringify(payment)).toString('base64');
          const path = endpoint.path.replace(/:([A-Za-z_]+)/g, (_m, name: string) => encodeURIComponent(String(args[name] ?? '')));
          const answer = await options.call({
            endpoint,
            xrpl: false,
            url: `${origin}${path}`,
            via: 'mcp',
            header: (name) => (name.toLowerCase() === 'payment-signature' ? encoded : undefined),
            ip,
            raw: rawFromArgs(endpoint, args),
          });
          return toolResult(tool, answer);
        },
      );
    }
    return server;
  };

  // every method: a refused Host or Origin learns nothing, not even which methods exist
  app.use('/mcp', mcpHostCheck(options.hostCheck));
  app.use('/mcp', mcpHeaderCheck({ supportedVersions: async () => (await loadMcpSdk())[2].SUPPORTED_PROTOCOL_VERSIONS }));

  // a stateless server has nothing to stream on GET; answer it instead of holding an empty SSE stream open
  app.get('/mcp', (c) => {
    c.header('Allow', 'POST');
    return c.json({ error: 'method_not_allowed', message: 'POST JSON-RPC messages to /mcp (streamable HTTP, stateless).' }, 405);
  });
  app.delete('/mcp', (c) => {
    c.header('Allow', 'POST');
    return c.json({ error: 'method_not_allowed', message: 'This MCP server is stateless; there is no session to end.' }, 405);
  });
  app.post('/mcp', async (c) => {
    const [{ McpServer }, { WebStandardStreamableHTTPServerTransport }] = await loadMcpSdk();
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    const listsTools = (await mcpMessageOf(c.req.raw))?.method === 'tools/list';
    const server = build(McpServer, options.ipOf(c), options.baseUrlOf(c));
    await server.connect(transport);
    try {
      const answered = await transport.handleRequest(c.req.raw);
      const res = listsTools ? await withToolsListCache(answered) : answered;
      // the transport builds its own Response: give browser MCP clients the CORS headers too
      const headers = new Headers(res.headers);
      headers.set('Access-Control-Allow-Origin', '*');
      headers.set('Access-Control-Expose-Headers', CORS_EXPOSE);
      return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
    } finally {
      void server.close();
    }
  });
}
