/**
 * The MCP server of a service at /mcp: stateless streamable HTTP (a fresh server and transport per
 * request, JSON responses), one tool per catalog endpoint that declares `mcpTool`, with the
 * endpoint's own zod schema as the tool input. A tool call is an endpoint call like an HTTP
 * request (endpoint-call.ts): the same validation messages, the same 404s, the same free-tier limit
 * and the same paywall.
 *
 * Paid tools follow the x402 MCP transport: an unpaid call returns `isError: true` with the
 * PaymentRequired object in `structuredContent` (and as JSON text); the client repeats the call
 * with the payment payload in `params._meta["x402/payment"]`; the paid result carries
 * `_meta["x402/payment-response"]` and the signed receipt.
 */
import type { Context, Hono } from 'hono';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { mcpTools } from '../catalog/index.ts';
import type { EndpointDecl, ServiceName } from '../catalog/types.ts';
import { CORS_EXPOSE } from './cors.ts';
import type { EndpointAnswer, EndpointCall } from './endpoint-call.ts';
import type { RawRequest } from './validation.ts';

export interface McpOptions {
  service: ServiceName;
  call: EndpointCall;
  /** The client's address as the free-tier limiter keys it. */
  ipOf: (c: Context) => string;
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

function toolResult(endpoint: EndpointDecl, toolName: string, answer: EndpointAnswer) {
  const text = answer.body ?? '';
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
    const required = v2
      ? { ...v2, resource: { ...((v2.resource as object | undefined) ?? {}), url: `mcp://tool/${toolName}` } }
      : (answer.json as Record<string, unknown>);
    return { isError: true, content: [{ type: 'text' as const, text: JSON.stringify(required) }], structuredContent: required };
  }
  return {
    isError: true,
    content: [{ type: 'text' as const, text: `${endpoint.method} ${endpoint.path} answered ${answer.status}: ${text}` }],
    structuredContent: {
      status: answer.status,
      ...(typeof answer.json === 'object' && answer.json ? (answer.json as object) : { message: text }),
    },
  };
}

export function mountMcp(app: Hono, options: McpOptions): void {
  const tools = mcpTools(options.service);
  const build = (ip: string, origin: string) => {
    const server = new McpServer({ name: `${options.service}-data`, version: '0.1.0' }, { capabilities: { tools: {} } });
    for (const tool of tools) {
      const { endpoint } = tool;
      server.registerTool(
        tool.name,
        {
          title: endpoint.summary,
          description: tool.description,
          inputSchema: tool.input.shape,
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
          return toolResult(endpoint, tool.name, answer);
        },
      );
    }
    return server;
  };

  // a stateless server has nothing to stream on GET; answer it instead of holding an empty SSE stream open
  app.get('/mcp', (c) =>
    c.json({ error: 'method_not_allowed', message: 'POST JSON-RPC messages to /mcp (streamable HTTP, stateless).' }, 405),
  );
  app.delete('/mcp', (c) =>
    c.json({ error: 'method_not_allowed', message: 'This MCP server is stateless; there is no session to end.' }, 405),
  );
  app.post('/mcp', async (c) => {
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    const url = new URL(c.req.url);
    const server = build(options.ipOf(c), url.origin);
    await server.connect(transport);
    try {
      const res = await transport.handleRequest(c.req.raw);
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
