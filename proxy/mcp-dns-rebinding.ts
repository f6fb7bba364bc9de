/**
 * DNS-rebinding protection of /mcp (MCP transport spec, "Security Warning"; advisory
 * GHSA-w48q-cv73-mx4w): a web page whose host name an attacker points at 127.0.0.1 can make a
 * browser POST to a local server, which sees that name in Host and the page's origin in Origin.
 * /mcp answers only requests addressed to one of its host names (localhost, 127.0.0.1, [::1] and
 * MCP_ALLOWED_HOSTS) and, when an Origin is sent, coming from a page of one of them; anything else
 * gets 403 with a JSON-RPC error before the MCP server reads the body.
 *
 * The checks are those of the SDK v2 Hono middleware (`hostHeaderValidation`, `originValidation`
 * of @modelcontextprotocol/hono): host names compared without the port, a request without Origin
 * passes (MCP clients other than browsers send none). The v1 SDK this project runs on has only its
 * transport's deprecated `allowedHosts` (exact `host:port` strings, unknown before a port-0 listen,
 * and blind to X-Forwarded-Host), so the same rules are written here, on the request as the paywall
 * reads it: behind TRUST_PROXY the host is the one the proxy says it was called by.
 */
import type { MiddlewareHandler } from 'hono';
import { resourceUrlOf } from '../payments/wire.ts';

/** The names a loopback server is reached by: always accepted. */
export const LOCALHOST_NAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

export interface McpHostCheckOptions {
  /** Host names accepted besides LOCALHOST_NAMES (MCP_ALLOWED_HOSTS), or 'any' for no check. */
  allowedHosts: readonly string[] | 'any';
  trustProxy: boolean;
}

/** JSON-RPC error -32000 ("server error"), the code the SDKs answer a refused Host or Origin with. */
function refused(message: string): Response {
  return Response.json(
    { jsonrpc: '2.0', error: { code: -32000, message }, id: null },
    { status: 403, headers: { 'Cache-Control': 'no-store' } },
  );
}

/** The host name of an Origin header (`http://localhost:4020` → localhost), or null if it names none. */
function originHostName(origin: string): string | null {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.hostname : null;
  } catch {
    return null;
  }
}

export function mcpHostCheck(options: McpHostCheckOptions): MiddlewareHandler {
  if (options.allowedHosts === 'any') return async (_c, next) => next();
  const allowed = new Set([...LOCALHOST_NAMES, ...options.allowedHosts]);
  const names = [...allowed].join(', ');
  return async (c, next) => {
    const host = new URL(resourceUrlOf(c.req.url, (name) => c.req.header(name), options.trustProxy)).hostname;
    if (!allowed.has(host)) return refused(`Host "${host}" is not a name of this MCP server; it answers under ${names}`);
    const origin = c.req.header('origin');
    if (origin !== undefined) {
      const originHost = originHostName(origin);
      if (originHost === null || !allowed.has(originHost)) {
        return refused(`Origin "${origin}" may not call this MCP server; pages of ${names} may`);
      }
    }
    return next();
  };
}
