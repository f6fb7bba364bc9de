/**
 * The HTTP headers of a POST /mcp checked before the MCP server reads it, as the 2026-07-28
 * revision of the transport asks of every server (and 2025-06-18 clients never notice: they send
 * supported versions and none of the SEP-2243 headers):
 * - an `MCP-Protocol-Version` the server does not speak: HTTP 400 with JSON-RPC -32022
 *   (UnsupportedProtocolVersion) whose data lists the versions it does speak, so the client can
 *   retry with one of them (the v1 SDK's own answer is a -32000 with the list in its message);
 * - `Mcp-Method` / `Mcp-Name` headers that disagree with the body's method and its tool (or
 *   prompt, or resource URI): HTTP 400 with JSON-RPC -32020 (HeaderMismatch), since a gateway may
 *   have routed or authorised the request by its headers.
 * The codes and the error data are those of the SDK v2 (@modelcontextprotocol/server 2.4).
 */
import type { MiddlewareHandler } from 'hono';

export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
export const HEADER_MISMATCH = -32020;

export interface McpHeaderCheckOptions {
  /** The protocol versions the MCP server speaks (the SDK's SUPPORTED_PROTOCOL_VERSIONS, loaded with it). */
  supportedVersions: () => Promise<readonly string[]>;
}

type JsonRpcId = string | number | null;

function badRequest(id: JsonRpcId, code: number, message: string, data?: unknown): Response {
  return Response.json(
    { jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } },
    { status: 400, headers: { 'Cache-Control': 'no-store' } },
  );
}

/** The single JSON-RPC message of a request's body (read from a copy), or null (not JSON, a batch, or not an object). */
export async function mcpMessageOf(request: Request): Promise<{ id?: unknown; method?: unknown; params?: Record<string, unknown> } | null> {
  try {
    const parsed = (await request.clone().json()) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as { method?: unknown }) : null;
  } catch {
    return null;
  }
}

/** What `Mcp-Name` names for a method: the tool or prompt name, the resource URI. */
function nameOf(method: unknown, params: Record<string, unknown> | undefined): unknown {
  if (method === 'tools/call' || method === 'prompts/get') return params?.name;
  if (method === 'resources/read') return params?.uri;
  return undefined;
}

export function mcpHeaderCheck(options: McpHeaderCheckOptions): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method !== 'POST') return next();
    const version = c.req.header('mcp-protocol-version');
    const method = c.req.header('mcp-method');
    const name = c.req.header('mcp-name');
    if (version === undefined && method === undefined && name === undefined) return next();
    const message = await mcpMessageOf(c.req.raw);
    const id: JsonRpcId = typeof message?.id === 'string' || typeof message?.id === 'number' ? message.id : null;
    const supported = version === undefined ? [] : [...(await options.supportedVersions())];
    if (version !== undefined && !supported.includes(version)) {
      return badRequest(
        id,
        UNSUPPORTED_PROTOCOL_VERSION,
        `Unsupported protocol version: ${version}; this server speaks ${supported.join(', ')}`,
        {
          supported,
          requested: version,
        },
      );
    }
    if (message === null) return next(); // a batch or a body that is not JSON: the MCP server answers it
    if (method !== undefined && method !== message.method) {
      return badRequest(id, HEADER_MISMATCH, `The Mcp-Method header says ${method} but the body's method is ${String(message.method)}`);
    }
    if (name !== undefined && name !== nameOf(message.method, message.params)) {
      const named = nameOf(message.method, message.params);
      return badRequest(
        id,
        HEADER_MISMATCH,
        `The Mcp-Name header says ${name} but the body names ${named === undefined ? 'nothing' : String(named)} (${String(message.method)})`,
      );
    }
    return next();
  };
}
