/**
 * 405 for a declared path called with a method it does not take (RFC 9110 §15.5.6): a GET on the
 * POST-only /api/v1/wash/check says "use POST" (with `Allow: POST`) instead of a 404 that reads as
 * "no such endpoint". Discovery probes (x402scan tries one method, then another) and people with
 * curl learn the right method from the answer. OPTIONS without a CORS preflight gets 204 with
 * `Allow`. Registered after every real route, so a declared method never reaches it.
 */
import type { Hono } from 'hono';
import { endpointsOf, xrplPath } from '../catalog/index.ts';
import type { ServiceName } from '../catalog/types.ts';

/** Methods per path: the catalog's endpoints (and XRPL variants) and the documents every service app serves. */
export function declaredMethods(service: ServiceName): Map<string, Set<string>> {
  const byPath = new Map<string, Set<string>>();
  const add = (path: string, method: string) => {
    const methods = byPath.get(path) ?? new Set<string>();
    methods.add(method);
    // Hono answers HEAD with the GET route
    if (method === 'GET') methods.add('HEAD');
    byPath.set(path, methods);
  };
  for (const endpoint of endpointsOf(service)) {
    add(endpoint.path, endpoint.method);
    if (endpoint.xrplVariant) add(xrplPath(endpoint.path), endpoint.method);
  }
  add('/openapi.json', 'GET');
  add('/docs', 'GET');
  // GET and DELETE on /mcp have their own 405 (mcp.ts); this covers the other methods
  add('/mcp', 'POST');
  return byPath;
}

/** The `Allow` header value: the declared methods in a stable order. */
export function allowHeader(methods: ReadonlySet<string>): string {
  return ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => methods.has(m)).join(', ');
}

/** Adds the 405 answer for every declared path of the service. Call after the real routes. */
export function answerWrongMethods(app: Hono, service: ServiceName): void {
  for (const [path, methods] of declaredMethods(service)) {
    const allow = allowHeader(methods);
    app.all(path, (c) => {
      c.header('Allow', allow);
      c.header('Cache-Control', 'no-store');
      if (c.req.method === 'OPTIONS') return c.body(null, 204);
      return c.json(
        {
          error: 'method_not_allowed',
          message: `${c.req.method} is not allowed on ${c.req.path}; this endpoint takes ${allow.replace(', HEAD', '')}.`,
          allow: allow.split(', '),
        },
        405,
      );
    });
  }
}
