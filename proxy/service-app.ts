/**
 * The Hono app of one service, built from the catalog. Every declared endpoint gets one route
 * (korea paid endpoints a second one under /api/v1/xrpl/...), answered in this order:
 *
 *   rate limit (analytics free tier) → 422 validation → snapshot present → handler precheck (404
 *   before any payment is asked) → payment (paid endpoints) → handler → Cache-Control / ETag.
 *
 * Handlers read one snapshot version per request; an endpoint whose data is not in the snapshot
 * answers 503 with the reason, never invented data, and a paid endpoint never serves without a
 * verified, unused payment. Nothing a client sends makes a 500.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from 'hono';
import { Hono } from 'hono';
import { serveStatic } from '@hono/node-server/serve-static';
import { getConnInfo } from '@hono/node-server/conninfo';
import { endpointsOf, xrplPath } from '../catalog/index.ts';
import { openApiDocument } from '../catalog/openapi.ts';
import type { EndpointDecl, ServiceName } from '../catalog/types.ts';
import type { Settings } from '../lib/config.ts';
import type { LoadedSnapshot, SnapshotReader } from '../snapshots/reader.ts';
import { handlersFor } from './data/index.ts';
import { notAvailable, type DataHandlers, type DataRequest, type DataResult } from './data/types.ts';
import { docsHtml, llmsTxt, wellKnownX402, type ReceiptSignerInfo } from './discovery.ts';
import { healthDocument } from './health.ts';
import { CORS_EXPOSE, CORS_PREFLIGHT } from './cors.ts';
import { mountMcp } from './mcp.ts';
import { clientIp, MemoryRateLimitStore, rateLimitedBody, rateLimitHeaders, type RateLimitStore } from './rate-limit.ts';
import { rootDocument } from './root-document.ts';
import { firstQueryValues, parseRequest, type RawRequest } from './validation.ts';

/** What the paywall needs to run one paid request; see proxy/payments.ts. */
export interface PaidCall {
  endpoint: EndpointDecl;
  /** true on the /api/v1/xrpl/... variant (RLUSD on xrpl). */
  xrpl: boolean;
  /** Absolute URL of the resource being paid for (without the query string). */
  resourceUrl: string;
  /** The payment header values as received (X-PAYMENT or PAYMENT-SIGNATURE), if any. */
  paymentHeaders: { xPayment: string | undefined; paymentSignature: string | undefined };
  /** Produces the data; called only after the payment verified and its nonce was reserved. */
  serve: () => Promise<DataResult>;
}

export interface PaidAnswer {
  status: number;
  headers: Record<string, string>;
  /** Serialized body, ready to send. */
  body: string;
  /** The same before serialization (with `receipt` on a paid 200), for MCP. */
  json: unknown;
}

export interface PaymentGate {
  run(call: PaidCall): Promise<PaidAnswer>;
  /** For /.well-known/x402: the receipt signer and pay-to addresses. */
  discovery(): { signer: ReceiptSignerInfo; payTo: Readonly<Record<string, string>> };
}

/** One call of an endpoint, transport-neutral (HTTP route or MCP tool). */
export interface EndpointCall {
  raw: RawRequest;
  ip: string;
  baseUrl: string;
  resourceUrl: string;
  ifNoneMatch?: string;
  paymentHeaders: { xPayment: string | undefined; paymentSignature: string | undefined };
}

/** What to send back: status, headers and a body (a JSON value, or text already serialized). */
export interface Outcome {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  /** true when `body` is the serialized text to send as is. */
  serialized?: boolean;
  /** Key of the serialized free answer in the response cache. */
  cacheKey?: string;
}

export type Execute = (endpoint: EndpointDecl, xrpl: boolean, call: EndpointCall) => Promise<Outcome>;

export interface ServiceAppOptions {
  service: ServiceName;
  reader: SnapshotReader;
  settings: Settings;
  /** Static site directory served at / (analytics); falls back to the JSON root document. */
  siteDir?: string;
  /** Clock for tests. */
  now?: () => Date;
  /** The x402 paywall. Without one, paid endpoints answer 503 (never data without payment). */
  payments?: PaymentGate;
  /** Data handlers by endpoint id (default: proxy/data for the service). */
  handlers?: DataHandlers;
  /** Free-tier limiter (default: 60 per hour per IP in memory, for endpoints declared rateLimited). */
  rateLimit?: RateLimitStore;
}

/** Endpoints the app answers itself (no dataset behind them). */
const BUILT_IN = new Set(['root', 'health', 'well-known-x402', 'llms-txt', 'docs']);

const FREE_TIER = { limit: 60, windowSeconds: 3600 };

/** Largest JSON body accepted (POST /api/v1/wash/check carries one address). */
const MAX_BODY_BYTES = 16 * 1024;

interface CachedBody {
  text: string;
  etag: string;
  contentType: string;
}

/** Serialized free responses per snapshot version, so hot endpoints skip JSON.stringify and hashing. */
class ResponseCache {
  private version = '';
  private readonly entries = new Map<string, CachedBody>();
  constructor(private readonly maxEntries = 2000) {}

  get(version: string, key: string): CachedBody | undefined {
    if (version !== this.version) return undefined;
    return this.entries.get(key);
  }

  set(version: string, key: string, value: CachedBody): void {
    if (version !== this.version) {
      this.entries.clear();
      this.version = version;
    }
    if (this.entries.size >= this.maxEntries) {
      const first = this.entries.keys().next().value;
      if (first !== undefined) this.entries.delete(first);
    }
    this.entries.set(key, value);
  }
}

function serialize(result: Extract<DataResult, { status: 200 }>): CachedBody {
  const isText = typeof result.body === 'string';
  const text = isText ? (result.body as string) : JSON.stringify(result.body);
  const contentType = result.contentType ?? (isText ? 'text/plain; charset=utf-8' : 'application/json');
  const etag = `W/"${createHash('sha1').update(text).digest('base64url').slice(0, 22)}"`;
  return { text, etag, contentType };
}

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag === etag || tag.replace(/^W\//, '') === etag.replace(/^W\//, '');
  });
}

async function readJsonBody(c: Context): Promise<Pick<RawRequest, 'body' | 'bodyError'>> {
  const length = Number(c.req.header('content-length') ?? '0');
  if (length > MAX_BODY_BYTES) return { bodyError: `Request body is ${length} bytes; at most ${MAX_BODY_BYTES} are accepted` };
  const type = c.req.header('content-type') ?? '';
  const text = await c.req.text();
  if (text.length > MAX_BODY_BYTES) return { bodyError: `Request body is larger than ${MAX_BODY_BYTES} bytes` };
  if (text.trim() === '') return { body: undefined };
  if (type && !/application\/json|\+json/i.test(type)) {
    return { bodyError: `Expected Content-Type: application/json, got "${type}"` };
  }
  try {
    return { body: JSON.parse(text) as unknown };
  } catch (err) {
    return { bodyError: `Body is not valid JSON: ${(err as Error).message}` };
  }
}

export function serviceApp(options: ServiceAppOptions): Hono {
  const { service, reader, settings } = options;
  const now = options.now ?? (() => new Date());
  const handlers = options.handlers ?? handlersFor(service);
  const limiter = options.rateLimit ?? new MemoryRateLimitStore(FREE_TIER.limit, FREE_TIER.windowSeconds);
  const cache = new ResponseCache();
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

  const baseUrlOf = (c: Context) => new URL(c.req.url).origin;

  app.get('/openapi.json', (c) => {
    c.header('Cache-Control', 'public, max-age=300');
    return c.json(openApiDocument(service, { baseUrl: baseUrlOf(c) }));
  });

  const rootJson = () => rootDocument(service, reader, settings);
  if (options.siteDir && service === 'analytics') {
    const siteDir = options.siteDir;
    app.get('/api/v1', (c) => c.json(rootJson()));
    app.use('/*', async (c, next) => {
      if (c.req.path.startsWith('/api/') || c.req.path === '/mcp') return next();
      if (!existsSync(join(siteDir, 'index.html'))) return next();
      return serveStatic({ root: siteDir })(c, next);
    });
  }

  /** Answers computed by the app itself for the built-in endpoints. */
  const builtIn = (endpoint: EndpointDecl, baseUrl: string): DataResult | null => {
    switch (endpoint.id) {
      case 'root':
        return { status: 200, body: rootJson() };
      case 'health': {
        const doc = healthDocument(service, reader, settings, now());
        return { status: 200, body: doc as unknown as Record<string, unknown> };
      }
      case 'llms-txt':
        return { status: 200, body: llmsTxt(service, baseUrl), contentType: 'text/plain; charset=utf-8' };
      case 'docs':
        return { status: 200, body: docsHtml(service, baseUrl), contentType: 'text/html; charset=utf-8' };
      case 'well-known-x402': {
        if (!options.payments) return notAvailable('The x402 paywall is not configured in this process, so there is no receipt signer to publish.');
        const { signer, payTo } = options.payments.discovery();
        return { status: 200, body: wellKnownX402({ service, baseUrl, signer, payTo, settlementMode: settings.settlement }) };
      }
      default:
        return null;
    }
  };

  const finish = (endpoint: EndpointDecl, result: DataResult, snap: LoadedSnapshot | null, cacheKey: string | null, ifNoneMatch?: string): Outcome => {
    if (result.status !== 200) return { status: result.status, headers: { 'Cache-Control': 'no-store' }, body: result.body };
    let cached = snap && cacheKey ? cache.get(snap.version, cacheKey) : undefined;
    if (!cached) {
      cached = serialize(result);
      if (snap && cacheKey) cache.set(snap.version, cacheKey, cached);
    }
    const headers: Record<string, string> = { 'Cache-Control': `public, max-age=${endpoint.cacheTtlSeconds}`, ETag: cached.etag };
    if (snap) headers['X-Snapshot-Version'] = snap.version;
    const key = cacheKey ?? undefined;
    if (etagMatches(ifNoneMatch, cached.etag)) return { status: 304, headers, body: null, ...(key ? { cacheKey: key } : {}) };
    headers['Content-Type'] = cached.contentType;
    return { status: 200, headers, body: cached.text, serialized: true, ...(key ? { cacheKey: key } : {}) };
  };

  /** Counts one free-tier request; the 429 outcome when over the limit, else null (headers filled in). */
  const limit = (ip: string, headers: Record<string, string>): Outcome | null => {
    const decision = limiter.hit(`${service}:${ip}`, now().getTime());
    Object.assign(headers, rateLimitHeaders(decision));
    if (!decision.allowed) return { status: 429, headers: { ...headers, 'Cache-Control': 'no-store' }, body: rateLimitedBody(decision) };
    return null;
  };

  /**
   * Free data answers by exact request URL for the snapshot version being served: a repeat request
   * skips validation and the handler (the answer cannot differ within one version). Rate limiting
   * still applies.
   */
  const byUrl = new ResponseCache(5000);

  /** The whole answer to one call of an endpoint, for HTTP and MCP alike. */
  const execute = async (endpoint: EndpointDecl, xrpl: boolean, call: EndpointCall): Promise<Outcome> => {
    const headers: Record<string, string> = {};
    // 1. free-tier limit: every request to a limited endpoint counts, valid or not
    if (endpoint.rateLimited) {
      const limited = limit(call.ip, headers);
      if (limited) return limited;
    }
    const withLimit = (o: Outcome): Outcome => ({ ...o, headers: { ...headers, ...o.headers } });

    // 2. validation
    const parsed = parseRequest(endpoint, call.raw);
    if (!parsed.ok) return withLimit({ status: 422, headers: { 'Cache-Control': 'no-store' }, body: { detail: parsed.detail } });

    // 3. built-in documents
    const own = builtIn(endpoint, call.baseUrl);
    if (own) {
      const out = finish(endpoint, own, null, null, call.ifNoneMatch);
      if (endpoint.id === 'health') {
        out.headers['Cache-Control'] = 'no-store';
        if ((own.body as { status?: string }).status === 'no_data') out.status = 503;
      }
      return withLimit(out);
    }

    // 4. data from the snapshot
    const snap = reader.current();
    const handler = handlers[endpoint.id];
    if (!snap) return withLimit(finish(endpoint, notAvailable(`No ${service} snapshot is published yet; run the pipeline (npm run pipeline -- ${service}).`), null, null));
    if (!handler) {
      const why =
        endpoint.dataset && !snap.datasets.has(endpoint.dataset)
          ? `The "${endpoint.dataset}" dataset is not computed by this build's pipeline yet.`
          : 'This endpoint is not served by this build yet.';
      return withLimit(finish(endpoint, notAvailable(why), snap, null));
    }
    const req: DataRequest = { endpoint, ...parsed.value, snapshot: snap, now: now() };
    const pre = await handler.precheck?.(req);
    if (pre) return withLimit(finish(endpoint, pre, snap, null));

    if (endpoint.access === 'free') {
      const key = `${endpoint.id}|${JSON.stringify(parsed.value)}`;
      const result = cache.get(snap.version, key) ? ({ status: 200, body: '' } as const) : await handler.handle(req);
      return withLimit(finish(endpoint, result, snap, key, call.ifNoneMatch));
    }

    // 5. paid: never data without a verified, unused payment
    if (!options.payments) {
      return withLimit({
        status: 503,
        headers: { 'Cache-Control': 'no-store' },
        body: notAvailable('Paid endpoints are not open in this process: the x402 paywall is not configured, and no paid data is served without a verified payment.').body,
      });
    }
    const paid = await options.payments.run({
      endpoint,
      xrpl,
      resourceUrl: call.resourceUrl,
      paymentHeaders: call.paymentHeaders,
      serve: () => handler.handle(req),
    });
    const out: Outcome = { status: paid.status, headers: { ...paid.headers }, body: paid.body, serialized: true };
    out.headers['Cache-Control'] = paid.status === 200 ? 'private, no-store' : (paid.headers['Cache-Control'] ?? 'no-store');
    if (paid.status === 200) out.headers['X-Snapshot-Version'] = snap.version;
    return withLimit(out);
  };

  const ipOf = (c: Context): string => {
    let socketIp: string | undefined;
    try {
      socketIp = getConnInfo(c).remote.address;
    } catch {
      socketIp = undefined; // app.request() in tests has no socket
    }
    return clientIp(socketIp, c.req.header('x-forwarded-for'), settings.trustProxy);
  };

  const fastPath = (endpoint: EndpointDecl) => endpoint.access === 'free' && endpoint.dataset !== null;

  const route = (endpoint: EndpointDecl, xrpl: boolean) => async (c: Context) => {
    const snapNow = fastPath(endpoint) ? reader.current() : null;
    if (snapNow) {
      const hit = byUrl.get(snapNow.version, c.req.url);
      if (hit) {
        const headers: Record<string, string> = {};
        if (endpoint.rateLimited) {
          const limited = limit(ipOf(c), headers);
          if (limited) {
            for (const [k, v] of Object.entries(limited.headers)) c.header(k, v);
            return c.json(limited.body as object, 429);
          }
          for (const [k, v] of Object.entries(headers)) c.header(k, v);
        }
        c.header('Cache-Control', `public, max-age=${endpoint.cacheTtlSeconds}`);
        c.header('ETag', hit.etag);
        c.header('X-Snapshot-Version', snapNow.version);
        if (etagMatches(c.req.header('if-none-match'), hit.etag)) return c.body(null, 304);
        c.header('Content-Type', hit.contentType);
        return c.body(hit.text, 200);
      }
    }
    const raw: RawRequest = { query: firstQueryValues(c.req.url), params: c.req.param() as Record<string, string> };
    if (endpoint.body) Object.assign(raw, await readJsonBody(c));
    const url = new URL(c.req.url);
    const out = await execute(endpoint, xrpl, {
      raw,
      ip: ipOf(c),
      baseUrl: url.origin,
      resourceUrl: `${url.origin}${url.pathname}`,
      ifNoneMatch: c.req.header('if-none-match'),
      paymentHeaders: { xPayment: c.req.header('x-payment'), paymentSignature: c.req.header('payment-signature') },
    });
    if (snapNow && (out.status === 200 || out.status === 304) && out.headers.ETag && out.headers['X-Snapshot-Version'] === snapNow.version) {
      const cached = cache.get(snapNow.version, out.cacheKey ?? '');
      if (cached) byUrl.set(snapNow.version, c.req.url, cached);
    }
    for (const [k, v] of Object.entries(out.headers)) c.header(k, v);
    if (out.status === 304) return c.body(null, 304);
    if (out.serialized || typeof out.body === 'string') return c.body(out.body as string, out.status as 200);
    return c.json(out.body as object, out.status as 200);
  };

  mountMcp(app, { service, execute, ipOf });

  for (const endpoint of endpointsOf(service)) {
    const register = endpoint.method === 'POST' ? app.post.bind(app) : app.get.bind(app);
    register(endpoint.path, route(endpoint, false));
    if (endpoint.xrplVariant) register(xrplPath(endpoint.path), route(endpoint, true));
  }

  // the HTML reference exists for both services; korea declares it in the catalog
  if (!endpointsOf(service).some((e) => e.id === 'docs')) {
    app.get('/docs', (c) => {
      c.header('Cache-Control', 'public, max-age=300');
      return c.html(docsHtml(service, new URL(c.req.url).origin));
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
