/**
 * The Hono app of one service, built from the catalog: /health, the root document, the free
 * document endpoints whose data is in the snapshot, and a clear 503 for every declared endpoint
 * whose data or payment flow this build does not serve yet (never invented data, never paid data
 * without payment).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { serveStatic } from '@hono/node-server/serve-static';
import { endpointsOf } from '../catalog/index.ts';
import { openApiDocument } from '../catalog/openapi.ts';
import type { EndpointDecl, ServiceName } from '../catalog/types.ts';
import type { Settings } from '../lib/config.ts';
import type { SnapshotReader } from '../snapshots/reader.ts';
import { healthDocument } from './health.ts';
import { rootDocument } from './root-document.ts';

export interface ServiceAppOptions {
  service: ServiceName;
  reader: SnapshotReader;
  settings: Settings;
  /** Static site directory served at / (analytics); falls back to the JSON root document. */
  siteDir?: string;
  /** Clock for tests. */
  now?: () => Date;
}

/** Endpoints answered by dedicated handlers rather than the generic dataset route. */
const DEDICATED_PATHS = new Set(['/', '/health']);

function notAvailable(endpoint: EndpointDecl, reason: string) {
  return {
    error: 'not_available',
    endpoint: `${endpoint.method} ${endpoint.path}`,
    message: reason,
  };
}

export function serviceApp(options: ServiceAppOptions): Hono {
  const { service, reader, settings } = options;
  const now = options.now ?? (() => new Date());
  const app = new Hono();

  app.use(
    '*',
    cors({
      origin: '*',
      allowMethods: ['GET', 'HEAD', 'POST', 'OPTIONS'],
      allowHeaders: ['Content-Type', 'X-PAYMENT', 'PAYMENT-SIGNATURE', 'Mcp-Protocol-Version', 'Mcp-Session-Id'],
      exposeHeaders: ['PAYMENT-REQUIRED', 'PAYMENT-RESPONSE', 'X-PAYMENT-RESPONSE', 'X-Receipt', 'ETag', 'Retry-After'],
      maxAge: 600,
    }),
  );

  app.get('/health', (c) => {
    const doc = healthDocument(service, reader, settings, now());
    c.header('Cache-Control', 'no-store');
    return c.json(doc, doc.status === 'no_data' ? 503 : 200);
  });

  app.get('/openapi.json', (c) => {
    c.header('Cache-Control', 'public, max-age=300');
    return c.json(openApiDocument(service, { baseUrl: new URL(c.req.url).origin }));
  });

  const rootJson = () => rootDocument(service, reader, settings);
  if (options.siteDir && service === 'analytics') {
    const siteDir = options.siteDir;
    app.get('/api/v1', (c) => c.json(rootJson()));
    app.use('/*', async (c, next) => {
      if (!existsSync(join(siteDir, 'index.html'))) return next();
      return serveStatic({ root: siteDir })(c, next);
    });
  }
  app.get('/', (c) => c.json(rootJson()));

  for (const endpoint of endpointsOf(service)) {
    if (DEDICATED_PATHS.has(endpoint.path)) continue;
    const method = endpoint.method === 'POST' ? app.post.bind(app) : app.get.bind(app);
    method(endpoint.path, (c) => {
      if (endpoint.access === 'paid') {
        return c.json(
          notAvailable(
            endpoint,
            'Paid endpoints are not open in this build: x402 payment verification is not enabled yet, and no paid data is served without a verified payment.',
          ),
          503,
        );
      }
      const snap = reader.current();
      const data = endpoint.dataset ? snap?.datasets.get(endpoint.dataset) : undefined;
      const simpleDocument = data?.document !== undefined && !endpoint.query && !endpoint.pathParams && !endpoint.body;
      if (!simpleDocument) {
        const why = !endpoint.dataset
          ? 'This endpoint is not served by this build yet.'
          : !snap
            ? `No ${service} snapshot is published yet.`
            : !data
              ? `The "${endpoint.dataset}" dataset is not computed by this build's pipeline yet.`
              : 'This endpoint is not served by this build yet.';
        return c.json(notAvailable(endpoint, why), 503);
      }
      c.header('Cache-Control', `public, max-age=${endpoint.cacheTtlSeconds}`);
      c.header('X-Snapshot-Version', snap!.version);
      return c.json(data!.document as object);
    });
  }

  app.notFound((c) =>
    c.json({ error: 'not_found', message: `No endpoint ${c.req.method} ${c.req.path}; see / for the list.` }, 404),
  );
  app.onError((err, c) => {
    console.error(`${service}: ${c.req.method} ${c.req.path} failed: ${err.message}`);
    return c.json({ error: 'internal_error', message: 'The server failed to answer this request; it has been logged.' }, 500);
  });
  return app;
}
