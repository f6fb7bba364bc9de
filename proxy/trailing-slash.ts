/**
 * Trailing slashes: `/api/v1/services/968/` answers 308 to `/api/v1/services/968` (the query kept,
 * the method too: 308 repeats a POST), for every path a route of the service answers without the
 * slash. One canonical URL per resource, so caches, receipts and the 402's resource agree. The
 * site's folder pages (`/trends/`) are canonical with their slash and never match: only the
 * routes named here redirect.
 */
import type { MiddlewareHandler } from 'hono';
import { endpointsOf, xrplPath } from '../catalog/index.ts';
import type { ServiceName } from '../catalog/types.ts';

/** Routes outside the catalog that serviceApp adds: the OpenAPI document, the HTML reference, MCP (and analytics' JSON root beside its site). */
const EXTRA_ROUTES = ['/openapi.json', '/docs', '/mcp'];

/** A Hono path ('/api/v1/services/:id') as a whole-path pattern; a parameter is one non-empty segment. */
function routePattern(path: string): RegExp {
  const source = path
    .split(/(:[A-Za-z_][A-Za-z0-9_]*)/)
    .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}

export function trailingSlashRedirect(service: ServiceName): MiddlewareHandler {
  const paths = endpointsOf(service).flatMap((e) => (e.xrplVariant ? [e.path, xrplPath(e.path)] : [e.path]));
  const extra = service === 'analytics' ? [...EXTRA_ROUTES, '/api/v1'] : EXTRA_ROUTES;
  const patterns = [...new Set([...paths, ...extra])].filter((p) => p !== '/').map(routePattern);
  return async (c, next) => {
    if (c.req.path.length < 2 || !c.req.path.endsWith('/')) return next();
    // the path as sent (still percent-encoded), so the Location names the same resource
    const { pathname, search } = new URL(c.req.url);
    const canonical = pathname.replace(/\/+$/, '');
    if (!canonical || !patterns.some((p) => p.test(canonical))) return next();
    c.header('Cache-Control', 'public, max-age=3600');
    return c.redirect(`${canonical}${search}`, 308);
  };
}
