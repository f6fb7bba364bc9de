/**
 * The Hono app of one service, built from the catalog: one route per declared endpoint (korea
 * paid endpoints a second one under /api/v1/xrpl/...), the MCP server at /mcp, the static site
 * (analytics), CORS and the OpenAPI document. Every endpoint route hands the request to the
 * endpoint call (endpoint-call.ts), which MCP tools call too, and sends its answer; this file is
 * only the HTTP side of that.
 */
import type { Context } from 'hono';
import { Hono } from 'hono';
import { accepts } from 'hono/accepts';
import type { StatusCode } from 'hono/utils/http-status';
import { getConnInfo } from '@hono/node-server/conninfo';
import { endpointsOf, xrplPath } from '../catalog/index.ts';
import { openApiDocument } from '../catalog/openapi.ts';
import type { EndpointDecl } from '../catalog/types.ts';
import { CORS_EXPOSE, CORS_PREFLIGHT } from './cors.ts';
import { docsPageCache } from './docs-page.ts';
import { dailyPreviewSectionHtml } from './korea-daily-charts.ts';
import { koreaLandingHtml } from './korea-landing.ts';
import { endpointCall, type EndpointAnswer, type EndpointCallOptions, type EndpointRequest } from './endpoint-call.ts';
import { mountMcp } from './mcp.ts';
import { canonicalRequestTarget } from './request-target.ts';
import { answerWrongMethods } from './method-not-allowed.ts';
import { clientIp } from './rate-limit.ts';
import { publicOriginOf } from '../payments/wire.ts';
import { rootDocument } from './root-document.ts';
import { mountSite, type MountedSite } from './site.ts';
import { trailingSlashRedirect } from './trailing-slash.ts';
import { firstQueryValues, type RawRequest } from '../catalog/request.ts';

export interface ServiceAppOptions extends EndpointCallOptions {
  /**
   * SITE_DIR (analytics): the site build of the version the API serves is served at /, downloads at
   * /data/<version>/; without a complete build for that version / answers the JSON root document.
   */
  siteDir?: string;
}

/** Largest JSON body accepted (POST /api/v1/wash/check carries one address). */
const MAX_BODY_BYTES = 16 * 1024;

/** A body over MAX_BODY_BYTES: refused with 413 before anything else is checked. */
class BodyTooLarge {
  constructor(readonly message: string) {}
}

/**
 * The request body as text, read as a stream and abandoned at MAX_BODY_BYTES + 1 bytes whatever
 * Content-Length or Transfer-Encoding say: a chunked body of any size costs at most that much
 * memory, and the 413 goes out at once (@hono/node-server then drains the rest for a moment and
 * closes the connection).
 */
async function readBodyText(c: Context): Promise<string | BodyTooLarge> {
  const declared = c.req.header('content-length');
  if (declared !== undefined && Number(declared) > MAX_BODY_BYTES) {
    return new BodyTooLarge(`Request body is ${declared} bytes; at most ${MAX_BODY_BYTES} are accepted`);
  }
  const stream = c.req.raw.body;
  if (!stream) return '';
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      void reader.cancel().catch(() => {});
      return new BodyTooLarge(`Request body is larger than ${MAX_BODY_BYTES} bytes; at most ${MAX_BODY_BYTES} are accepted`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

async function readJsonBody(c: Context): Promise<Pick<RawRequest, 'body' | 'bodyError'> | BodyTooLarge> {
  const text = await readBodyText(c);
  if (text instanceof BodyTooLarge) return text;
  if (text.trim() === '') return { body: undefined };
  const type = c.req.header('content-type') ?? '';
  if (type && !/application\/json|\+json/i.test(type)) {
    return { bodyError: `Expected Content-Type: application/json, got "${type}"` };
  }
  try {
    return { body: JSON.parse(text) as unknown };
  } catch (err) {
    return { bodyError: `Body is not valid JSON: ${(err as Error).message}` };
  }
}

/** Payment headers, which a HEAD request never carries to the paywall (see HttpRequest). */
const PAYMENT_HEADERS = new Set(['payment-signature', 'x-payment']);

/**
 * An HTTP request as the endpoint call reads it. The client's ip and the raw input are worked
 * out when first read: a repeat of a URL the URL cache holds needs neither (or only the ip).
 */
class HttpRequest implements EndpointRequest {
  readonly via = 'http';
  readonly url: string;
  #raw: RawRequest | undefined;

  constructor(
    readonly endpoint: EndpointDecl,
    readonly xrpl: boolean,
    private readonly c: Context,
    private readonly body: Pick<RawRequest, 'body' | 'bodyError'> | null,
    private readonly ipOf: (c: Context) => string,
  ) {
    this.url = c.req.url;
    // HEAD has no body to deliver, so it must not spend a payment: a HEAD on a paid endpoint is
    // answered as the unpaid GET (402 with PAYMENT-REQUIRED: what a client probing the price wants).
    if (c.req.method === 'HEAD') this.header = (name) => (PAYMENT_HEADERS.has(name.toLowerCase()) ? undefined : c.req.header(name));
  }

  readonly header: (name: string) => string | undefined = (name) => this.c.req.header(name);

  get ip(): string {
    return this.ipOf(this.c);
  }

  get raw(): RawRequest {
    this.#raw ??= { query: firstQueryValues(this.url), params: this.c.req.param() as Record<string, string>, ...this.body };
    return this.#raw;
  }
}

/** The answer as the Response Hono sends. */
function send(c: Context, answer: EndpointAnswer): Response {
  for (const name in answer.headers) c.header(name, answer.headers[name]);
  return c.newResponse(answer.body, answer.status as StatusCode);
}

export function serviceApp(options: ServiceAppOptions): Hono {
  const { service, reader, settings } = options;
  const call = endpointCall(options);
  const app = new Hono();

  // CORS by hand rather than hono/cors: headers set before the handler runs go into the response as
  // it is built, so @hono/node-server keeps its fast path (hono/cors edits the finished Response,
  // which costs a full Response materialisation on every request).
  app.use('*', async (c, next) => {
    if (c.req.method === 'OPTIONS' && c.req.header('access-control-request-method')) {
      return new Response(null, { status: 204, headers: CORS_PREFLIGHT });
    }
    c.header('Access-Control-Allow-Origin', '*');
    c.header('Access-Control-Expose-Headers', CORS_EXPOSE);
    await next();
  });

  // before any route: one spelling per resource (request-target.ts)
  app.use('*', canonicalRequestTarget());
  app.use('*', trailingSlashRedirect(service));

  app.get('/openapi.json', (c) => {
    c.header('Cache-Control', 'public, max-age=300');
    return c.json(openApiDocument(service, { baseUrl: baseUrlOf(c) }));
  });

  let site: MountedSite | null = null;
  if (options.siteDir && service === 'analytics') {
    app.get('/api/v1', (c) => c.json(rootDocument(service, reader, settings)));
    site = mountSite(app, {
      siteDir: options.siteDir,
      reader,
      siteBuild: settings.siteBuild,
      ...(options.now ? { now: options.now } : {}),
    });
  }

  /** Where clients reach this service: its public URL setting, else the request (forwarded headers with TRUST_PROXY). */
  const baseUrlOf = (c: Context): string =>
    publicOriginOf(c.req.url, (name) => c.req.header(name), settings.trustProxy, settings.publicUrl[service]);

  const ipOf = (c: Context): string => {
    let socketIp: string | undefined;
    try {
      socketIp = getConnInfo(c).remote.address;
    } catch {
      socketIp = undefined; // app.request() in tests has no socket
    }
    return clientIp(socketIp, c.req.header('x-forwarded-for'), settings.trustProxy);
  };

  // korea's / is the JSON root document by the specification; a browser gets the landing page
  // instead, and caches keep the two apart (Vary: Accept)
  if (service === 'korea') {
    const handled = new Set(Object.keys(options.handlers));
    app.get('/', async (c, next) => {
      c.header('Vary', 'Accept');
      if (accepts(c, { header: 'Accept', supports: ['application/json', 'text/html'], default: 'application/json' }) !== 'text/html')
        return next();
      c.header('Cache-Control', 'public, max-age=300');
      const now = options.now?.() ?? new Date();
      const snapshot = reader.current();
      // the free daily preview's charts, built once per snapshot version
      const dailyPreview = snapshot ? await dailyPreviewSectionHtml(snapshot) : null;
      return c.html(koreaLandingHtml({ baseUrl: baseUrlOf(c), snapshot, handled, settlement: settings.settlement, now, dailyPreview }));
    });
  }

  const route = (endpoint: EndpointDecl, xrpl: boolean) => async (c: Context) => {
    const body = endpoint.body ? await readJsonBody(c) : null;
    if (body instanceof BodyTooLarge) {
      // close the connection: the rest of the body is not worth reading
      c.header('Connection', 'close');
      c.header('Cache-Control', 'no-store');
      return c.json({ error: 'payload_too_large', message: body.message }, 413);
    }
    return send(c, await call(new HttpRequest(endpoint, xrpl, c, body, ipOf)));
  };

  // MCP results can be paid data: no cache may keep them (the transport sets no Cache-Control)
  app.use('/mcp', async (c, next) => {
    await next();
    if (!c.res.headers.has('Cache-Control')) c.res.headers.set('Cache-Control', 'no-store');
  });

  mountMcp(app, {
    service,
    call,
    ipOf,
    baseUrlOf,
    hostCheck: { allowedHosts: settings.mcpAllowedHosts, trustProxy: settings.trustProxy },
  });

  for (const endpoint of endpointsOf(service)) {
    const register = endpoint.method === 'POST' ? app.post.bind(app) : app.get.bind(app);
    register(endpoint.path, route(endpoint, false));
    if (endpoint.xrplVariant) register(xrplPath(endpoint.path), route(endpoint, true));
  }

  // the HTML reference exists for both services; korea declares it in the catalog
  if (!endpointsOf(service).some((e) => e.id === 'docs')) {
    const docsPage = docsPageCache();
    const handled = new Set(Object.keys(options.handlers));
    app.get('/docs', (c) => {
      c.header('Cache-Control', 'public, max-age=300');
      const now = options.now?.() ?? new Date();
      return c.html(docsPage({ service, baseUrl: baseUrlOf(c), snapshot: reader.current(), handled, now }));
    });
  }

  answerWrongMethods(app, service);
  app.notFound(
    async (c) =>
      (await site?.notFound(c)) ??
      c.json({ error: 'not_found', message: `No endpoint ${c.req.method} ${c.req.path}; see / for the list.` }, 404),
  );
  app.onError((err, c) => {
    console.error(`${service}: ${c.req.method} ${c.req.path} failed: ${err.message}`);
    return c.json({ error: 'internal_error', message: 'The server failed to answer this request; it has been logged.' }, 500);
  });
  return app;
}
