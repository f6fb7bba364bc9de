/**
 * The request target as the client sent it, checked before any routing: one spelling per
 * resource, so no other spelling can reach a paid handler, a cached answer or a receipt under a
 * name the router, the paywall and the URL cache read differently (the path bypasses fixed in the
 * x402 reference in 2026: x402-foundation/x402 #3036, #3044, #3055).
 *
 * Refused with 400 (`bad_request_target`, naming what is wrong; nothing routed, nothing cached):
 * - the absolute form (`GET http://host/path HTTP/1.1`): it would let the client, not the Host
 *   header, name the origin the 402's `resource.url` and the receipt bind to. This is an origin
 *   server: clients send the path (origin form);
 * - a path that is not canonical: a backslash, an empty segment (`//`), a dot segment (`/./`,
 *   `/../`, also percent-encoded), an encoded `/` or `\` (`%2F`, `%5C`), a percent-encoded
 *   unreserved character (`%66x-rate` for `fx-rate`, RFC 3986 §6.2.2.2 says these are never to be
 *   encoded), or a malformed escape.
 *
 * The raw target exists only under @hono/node-server (`c.env.incoming.url`), which is what serves
 * users; `app.request()` in tests hands Hono an already parsed URL, which has nothing to check.
 */
import type { MiddlewareHandler } from 'hono';

/** Characters RFC 3986 calls unreserved: percent-encoding one of them is a second spelling of the same path. */
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/** What is wrong with a raw request target, or null when it is the one canonical spelling. */
export function requestTargetProblem(target: string): string | null {
  if (target === '*') return null; // OPTIONS * (answered by the router as any unknown path)
  if (!target.startsWith('/')) {
    return 'The request target must be a path (origin form, "/api/v1/..."), not a full URL; send the host in the Host header';
  }
  const q = target.indexOf('?');
  const path = q < 0 ? target : target.slice(0, q);
  if (path.includes('\\')) return 'The path contains a backslash';
  if (path.includes('//')) return 'The path contains an empty segment ("//")';
  for (const m of path.matchAll(/%(..)?/g)) {
    const hex = m[1];
    if (!hex || !/^[0-9A-Fa-f]{2}$/.test(hex)) return 'The path contains a malformed percent-escape';
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    if (char === '/' || char === '\\') return `The path contains an encoded "${char}" (%${hex}); send the path as it is`;
    if (UNRESERVED.test(char)) return `The path percent-encodes "${char}" (%${hex}), which is never encoded; send it as it is`;
  }
  for (const segment of path.split('/')) {
    if (segment === '.' || segment === '..') return `The path contains a dot segment ("${segment}")`;
  }
  return null;
}

interface NodeEnv {
  incoming?: { url?: string };
}

export function canonicalRequestTarget(): MiddlewareHandler {
  return async (c, next) => {
    const raw = (c.env as NodeEnv | undefined)?.incoming?.url;
    const problem = raw === undefined ? null : requestTargetProblem(raw);
    if (problem === null) return next();
    c.header('Cache-Control', 'no-store');
    return c.json({ error: 'bad_request_target', message: `${problem}.` }, 400);
  };
}
