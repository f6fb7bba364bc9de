/**
 * One call of a catalog endpoint, whichever transport carried it: an HTTP route (service-app.ts)
 * and an MCP tool (mcp.ts) each build an EndpointRequest and send back the EndpointAnswer, so both
 * get the same checks in the same order:
 *
 *   limit (analytics free tier) → validate (422) → built-ins → snapshot (503 when none) →
 *   precheck (404 before any payment is asked) → pay (paid endpoints) → handle → cache headers
 *   (Cache-Control / ETag); each a named stage below, run in that order by `execute`.
 *
 * Handlers read one snapshot version per request; an endpoint whose data is not in the snapshot
 * answers 503 with the reason, never invented data, and a paid endpoint never serves without a
 * verified, unused payment. Nothing a client sends makes a 500.
 */
import { SERVICE_INFO } from '../catalog/index.ts';
import { DOWNLOAD_MEDIA_TYPES, type EndpointDecl, type ServiceName } from '../catalog/types.ts';
import type { Settings } from '../lib/config.ts';
import type { SnapshotSourceStatus } from '../snapshots/pull.ts';
import type { LoadedSnapshot, SnapshotReader } from '../snapshots/reader.ts';
import { notAvailable, type DataHandler, type DataHandlers, type DataRequest, type DataResult, type FreeResult } from './data/types.ts';
import { llmsTxt, wellKnownX402 } from './discovery.ts';
import { docsPageCache } from './docs-page.ts';
import { healthDocument, type StoreHealth } from './health.ts';
import { freeTierMemoryLimit, rateLimitedBody, rateLimitHeaders, type RateLimitStore } from './rate-limit.ts';
import { etagMatches, ResponseCache, serialize, type CachedBody } from './response-cache.ts';
import { rootDocument } from './root-document.ts';
import { parseRequest, type ParsedRequest, type RawRequest } from '../catalog/request.ts';
import type { GateAnswer, PaymentGate } from '../payments/gate.ts';
import { payToByNetworkName } from '../payments/networks.ts';
import { publicOriginOf } from '../payments/wire.ts';

/** One call of an endpoint. */
export interface EndpointRequest {
  endpoint: EndpointDecl;
  /** true on the /api/v1/xrpl/... variant (RLUSD on xrpl). */
  xrpl: boolean;
  /**
   * The full URL called, query string included. Over HTTP the URL the request arrived at (the
   * paywall turns it into the public resource URL, see wire.ts resourceUrlOf); for an MCP tool
   * the endpoint's URL with the tool's path arguments (its other arguments are in `raw` only).
   */
  url: string;
  /**
   * 'http': `url` is exactly what the client asked for, so a repeat of it can be answered from
   * the URL cache of the snapshot version. 'mcp': it is not, and the URL cache is not used.
   */
  via: 'http' | 'mcp';
  /** A request header by name, case-insensitive. An MCP tool call has one: its payment, as PAYMENT-SIGNATURE. */
  header: (name: string) => string | undefined;
  /** The client's address as the free-tier limiter keys it. */
  ip: string;
  /** Path parameters, first query values and the JSON body, as received. */
  raw: RawRequest;
}

/** What to send back. */
/** An answer ready to send (payments/gate.ts); a free download's body is its bytes. */
export type EndpointAnswer = Omit<GateAnswer, 'body'> & { body: string | Uint8Array<ArrayBuffer> | null };

export interface EndpointCallOptions {
  service: ServiceName;
  reader: SnapshotReader;
  settings: Settings;
  /** Data handlers by endpoint id (proxy/data handlersFor). */
  handlers: DataHandlers;
  /** The x402 paywall. Without one, paid endpoints answer 503 (never data without payment). */
  payments?: PaymentGate;
  /**
   * Free-tier limiter for endpoints declared rateLimited, FREE_TIER_LIMIT (default 60) per hour per
   * IP: proxy/stores.ts builds it from the settings (Redis with REDIS_URL); null = no limit
   * (FREE_TIER_LIMIT=0); default: one in memory for this app, from the settings.
   */
  rateLimit?: RateLimitStore | null;
  /** What /health reports about the nonce and rate-limit stores (proxy/stores.ts). */
  stores?: () => StoreHealth;
  /** What /health reports about the snapshot source the process follows (SNAPSHOTS_PULL_URL, snapshots/pull.ts). */
  snapshotSource?: () => SnapshotSourceStatus;
  /** Clock for tests. */
  now?: () => Date;
}

export type EndpointCall = (request: EndpointRequest) => Promise<EndpointAnswer>;

const NO_STORE = { 'Cache-Control': 'no-store' };

/** Retry-After of the 503 answered while every kept snapshot version is damaged (a pipeline run publishes a good one). */
const DAMAGED_RETRY_AFTER_SECONDS = 60;
/** Damaged versions one request moves past before giving up (each move drops a version for good). */
const MAX_DAMAGED_VERSIONS = 3;

/** What onGoodFiles read, and from which version; no version when every kept one is damaged. */
type OnGoodFiles<T> = { snap: LoadedSnapshot; value: T } | { snap: null; value: DataResult };

/** An answer with a JSON body. */
function jsonAnswer(status: number, headers: Record<string, string>, value: unknown): EndpointAnswer {
  return { status, headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify(value), json: value };
}

/** Stage "cache headers" of a paid answer: a paid 200 is `private, no-store` and names the version that answered. */
function paidCacheHeaders(paid: EndpointAnswer, servedFrom: LoadedSnapshot | null): EndpointAnswer {
  const answer: EndpointAnswer = { ...paid, headers: { ...paid.headers } };
  answer.headers['Cache-Control'] = paid.status === 200 ? 'private, no-store' : (paid.headers['Cache-Control'] ?? 'no-store');
  if (servedFrom) answer.headers['X-Snapshot-Version'] = servedFrom.version;
  return answer;
}

/** An answer and, for a free data answer, its key in the response cache. */
interface Outcome {
  answer: EndpointAnswer;
  cacheKey?: string;
}

export function endpointCall(options: EndpointCallOptions): EndpointCall {
  const { service, reader, settings, handlers } = options;
  const now = options.now ?? (() => new Date());
  const limiter = options.rateLimit !== undefined ? options.rateLimit : freeTierMemoryLimit(settings.freeTierLimit);
  /** Serialized free data answers by endpoint and parsed input, for the snapshot version served. */
  const cache = new ResponseCache();
  /**
   * Free data answers by exact request URL for the snapshot version served: a repeat request
   * skips validation and the handler (the answer cannot differ within one version). Rate
   * limiting still applies.
   */
  const byUrl = new ResponseCache(5000);

  const rootJson = () => rootDocument(service, reader, settings);
  const docsPage = docsPageCache();
  const handled = new Set(Object.keys(handlers));

  /** Answers computed by the app itself for the built-in endpoints. */
  const builtIn = (endpoint: EndpointDecl, baseUrl: string): DataResult | null => {
    switch (endpoint.id) {
      case 'root':
        return { status: 200, body: rootJson() };
      case 'health': {
        const doc = healthDocument(service, reader, settings, now(), options.stores?.(), options.snapshotSource?.());
        return { status: 200, body: doc as unknown as Record<string, unknown> };
      }
      case 'llms-txt':
        return { status: 200, body: llmsTxt(service, baseUrl), contentType: 'text/plain; charset=utf-8' };
      case 'docs':
        return {
          status: 200,
          body: docsPage({ service, baseUrl, snapshot: reader.current(), handled, now: now() }),
          contentType: 'text/html; charset=utf-8',
        };
      case 'well-known-x402': {
        if (!options.payments)
          return notAvailable('The x402 paywall is not configured in this process, so there is no receipt signer to publish.');
        const { signer, payTo } = options.payments;
        const generatedAt = reader.current()?.manifest.generated_at;
        return {
          status: 200,
          body: wellKnownX402({
            service,
            baseUrl,
            signer,
            payTo: payToByNetworkName(payTo, SERVICE_INFO[service].networks),
            settlementMode: settings.settlement,
            ...(generatedAt ? { lastUpdated: new Date(generatedAt).toISOString() } : {}),
          }),
        };
      }
      default:
        return null;
    }
  };

  /** A 200 with Cache-Control and ETag (304 when If-None-Match names it), or the error as JSON. */
  const finish = (
    endpoint: EndpointDecl,
    result: FreeResult,
    snap: LoadedSnapshot | null,
    cacheKey: string | null,
    ifNoneMatch?: string,
  ): Outcome => {
    if (result.status !== 200) {
      const headers: Record<string, string> = { ...NO_STORE };
      if (result.status === 503 && result.retryAfterSeconds !== undefined) headers['Retry-After'] = String(result.retryAfterSeconds);
      return { answer: jsonAnswer(result.status, headers, result.body) };
    }
    let cached = snap && cacheKey ? cache.get(snap.version, cacheKey) : undefined;
    if (!cached) {
      cached = serialize(result);
      if (snap && cacheKey) cache.set(snap.version, cacheKey, cached);
    }
    const key = cacheKey ?? undefined;
    return { answer: cachedAnswer(endpoint, cached, snap, ifNoneMatch, {}), ...(key ? { cacheKey: key } : {}) };
  };

  /** A cached 200 (or 304) after the rate-limit headers in `headers`. */
  const cachedAnswer = (
    endpoint: EndpointDecl,
    cached: CachedBody,
    snap: LoadedSnapshot | null,
    ifNoneMatch: string | undefined,
    headers: Record<string, string>,
  ): EndpointAnswer => {
    headers['Cache-Control'] = `public, max-age=${endpoint.cacheTtlSeconds}`;
    headers.ETag = cached.etag;
    if (snap) headers['X-Snapshot-Version'] = snap.version;
    if (etagMatches(ifNoneMatch, cached.etag)) return { status: 304, headers, body: null };
    headers['Content-Type'] = cached.contentType;
    // a download (?format=csv, parquet) is saved as <dataset>.<format>
    const download = endpoint.downloadFormats?.find((f) => DOWNLOAD_MEDIA_TYPES[f] === cached.contentType);
    if (download && endpoint.dataset) headers['Content-Disposition'] = `attachment; filename="${endpoint.dataset}.${download}"`;
    return { status: 200, headers, body: cached.text };
  };

  /**
   * 503 while no snapshot version can be served because the ones kept are damaged: with
   * Retry-After (the next published version is served as soon as it lands), nothing charged.
   */
  const damagedAnswer = (): DataResult => ({
    status: 503,
    body: {
      error: 'not_available',
      message: `No ${service} snapshot can be served right now: ${reader.lastError?.message ?? 'the snapshot files are damaged'}. Nothing was charged; retry later.`,
    },
    retryAfterSeconds: DAMAGED_RETRY_AFTER_SECONDS,
  });

  /**
   * Runs `read` on `first`. When it throws, the reader hashes that version again: if a file (or
   * the manifest) no longer matches, the version is dropped and `read` runs again on the version
   * the reader serves instead, or the answer is the damaged 503 when none is left. A failure on
   * files that still match is thrown on: it is not the data's.
   */
  const onGoodFiles = async <T>(first: LoadedSnapshot, read: (snap: LoadedSnapshot) => Promise<T>): Promise<OnGoodFiles<T>> => {
    let snap = first;
    for (let attempt = 1; ; attempt++) {
      try {
        return { snap, value: await read(snap) };
      } catch (err) {
        if (attempt > MAX_DAMAGED_VERSIONS || !(await reader.checkAfterReadError(snap))) throw err;
        const next = reader.current();
        // the server log keeps the read error itself
        console.error(
          `${service}: reading snapshot ${snap.version} failed and the version is damaged (${(err as Error).message}); ` +
            (next ? `answering from ${next.version}` : 'no good version is left: 503'),
        );
        if (!next || next.version === snap.version) return { snap: null, value: damagedAnswer() };
        snap = next;
      }
    }
  };

  /** Counts one free-tier request; the 429 when over the limit, else null (headers filled in). */
  const limit = async (ip: string, headers: Record<string, string>): Promise<EndpointAnswer | null> => {
    if (!limiter) return null; // FREE_TIER_LIMIT=0: no limit, no RateLimit headers
    const decision = await limiter.hit(`${service}:${ip}`);
    Object.assign(headers, rateLimitHeaders(decision));
    if (!decision.allowed) return jsonAnswer(429, { ...headers, ...NO_STORE }, rateLimitedBody(decision));
    return null;
  };

  // ---- the stages of one call, in order (execute below runs them; docs/architecture.md draws them)

  /** Stage "built-ins": the documents the app computes itself (root, health, llms.txt, docs, /.well-known/x402); null for data endpoints. */
  const builtInStage = (endpoint: EndpointDecl, request: EndpointRequest, ifNoneMatch: string | undefined): Outcome | null => {
    const own = builtIn(endpoint, publicOriginOf(request.url, request.header, settings.trustProxy, settings.publicUrl[service]));
    if (!own) return null;
    const out = finish(endpoint, own, null, null, ifNoneMatch);
    if (endpoint.id === 'health') {
      out.answer.headers['Cache-Control'] = 'no-store';
      if ((own.body as { status?: string }).status === 'no_data') out.answer.status = 503;
    }
    return out;
  };

  /** Stage "snapshot": the version to answer from and the endpoint's handler, or the 503 saying why there is none. */
  const snapshotStage = (endpoint: EndpointDecl): { snap: LoadedSnapshot; handler: DataHandler } | Outcome => {
    const snap = reader.current();
    if (!snap) {
      const none = reader.damagedVersions().length
        ? damagedAnswer()
        : notAvailable(`No ${service} snapshot is published yet; run the pipeline (npm run pipeline -- ${service}).`);
      return finish(endpoint, none, null, null);
    }
    const handler = handlers[endpoint.id];
    if (!handler) {
      const why =
        endpoint.dataset && !snap.datasets.has(endpoint.dataset)
          ? `The "${endpoint.dataset}" dataset is not computed by this build's pipeline yet.`
          : 'This endpoint is not served by this build yet.';
      return finish(endpoint, notAvailable(why), snap, null);
    }
    return { snap, handler };
  };

  /** A data endpoint's request on a snapshot version, once validated and past its precheck. */
  interface Checked {
    endpoint: EndpointDecl;
    handler: DataHandler;
    input: ParsedRequest;
    /** The version the precheck passed on (a damaged one moves the request to a good one). */
    snap: LoadedSnapshot;
    /**
     * The answer on `s`: the precheck again first when a damaged version moved the request to `s`,
     * then `handle` (the handler's answer, unless the caller has it already; a free one may be a file).
     */
    answerOn: (s: LoadedSnapshot, handle?: () => Promise<FreeResult>) => Promise<FreeResult>;
  }

  /** Stage "precheck": the handler's 404 or 503 before any payment is asked; it reads files too, so a damaged one moves the request to a good version. */
  const precheckStage = async (
    endpoint: EndpointDecl,
    found: { snap: LoadedSnapshot; handler: DataHandler },
    input: ParsedRequest,
  ): Promise<Checked | Outcome> => {
    const { handler } = found;
    const requestOn = (s: LoadedSnapshot): DataRequest => ({ endpoint, ...input, snapshot: s, now: now() });
    const precheckOn = async (s: LoadedSnapshot): Promise<DataResult | null> => (await handler.precheck?.(requestOn(s))) ?? null;
    const checked = await onGoodFiles(found.snap, precheckOn);
    if (!checked.snap) return finish(endpoint, checked.value, null, null);
    if (checked.value) return finish(endpoint, checked.value, checked.snap, null);
    const checkedOn = checked.snap;
    return {
      endpoint,
      handler,
      input,
      snap: checkedOn,
      answerOn: async (s, handle = () => handler.handle(requestOn(s))) =>
        (s !== checkedOn ? await precheckOn(s) : null) ?? (await handle()),
    };
  };

  /** A free handler's answer: the download's bytes when the request asks for a file, else its data. */
  const freeAnswer = async (handler: DataHandler, req: DataRequest): Promise<FreeResult> =>
    (await handler.file?.(req)) ?? handler.handle(req);

  /** Stage "handle" (free endpoints): the handler's answer, or the cached serialization of it for this version and input. */
  const handleStage = async (c: Checked, ifNoneMatch: string | undefined): Promise<Outcome> => {
    const key = `${c.endpoint.id}|${JSON.stringify(c.input)}`;
    const read = await onGoodFiles(c.snap, (s) =>
      c.answerOn(s, async () =>
        cache.get(s.version, key)
          ? ({ status: 200, body: '' } as const)
          : await freeAnswer(c.handler, { endpoint: c.endpoint, ...c.input, snapshot: s, now: now() }),
      ),
    );
    return finish(c.endpoint, read.value, read.snap, read.snap ? key : null, ifNoneMatch);
  };

  /**
   * Stage "pay" (paid endpoints), around stage "handle": never data without a verified, unused
   * payment. The paywall calls serve() after the payment is verified and reserved and settles only
   * on a 200: a damaged file moves the answer to a good version, or makes it a 503 that releases
   * the payment for a retry. The version that answered is the one X-Snapshot-Version names.
   */
  const payStage = async (c: Checked, request: EndpointRequest): Promise<Outcome> => {
    if (!options.payments) {
      const why =
        'Paid endpoints are not open in this process: the x402 paywall is not configured, and no paid data is served without a verified payment.';
      return { answer: jsonAnswer(503, NO_STORE, notAvailable(why).body) };
    }
    let servedFrom: LoadedSnapshot | null = c.snap;
    const serve = async (): Promise<DataResult> => {
      const read = await onGoodFiles(c.snap, c.answerOn);
      servedFrom = read.snap;
      return 'file' in read.value ? notAvailable('A paid endpoint answers JSON; this one answered a file.') : read.value;
    };
    const paid = await options.payments.handle(request, serve, c.input);
    return { answer: paidCacheHeaders(paid, paid.status === 200 ? servedFrom : null) };
  };

  /** The whole answer to one call of an endpoint, for HTTP and MCP alike: the stages in order. */
  const execute = async (request: EndpointRequest): Promise<Outcome> => {
    const { endpoint } = request;
    const ifNoneMatch = request.header('if-none-match');
    const headers: Record<string, string> = {};
    // stage "limit": the free tier counts every request to a limited endpoint, valid or not
    if (endpoint.rateLimited) {
      const limited = await limit(request.ip, headers);
      if (limited) return { answer: limited };
    }
    const withLimit = (o: Outcome): Outcome => ({ ...o, answer: { ...o.answer, headers: { ...headers, ...o.answer.headers } } });
    // stage "validate": 422 with every problem
    const parsed = parseRequest(endpoint, request.raw);
    if (!parsed.ok) return withLimit({ answer: jsonAnswer(422, NO_STORE, { detail: parsed.detail }) });
    const own = builtInStage(endpoint, request, ifNoneMatch);
    if (own) return withLimit(own);
    const found = snapshotStage(endpoint);
    if ('answer' in found) return withLimit(found);
    const checked = await precheckStage(endpoint, found, parsed.value);
    if ('answer' in checked) return withLimit(checked);
    // stage "cache headers" is finish() (free) and paidCacheHeaders (paid)
    return withLimit(endpoint.access === 'free' ? await handleStage(checked, ifNoneMatch) : await payStage(checked, request));
  };

  /** Free data endpoints, whose answer depends on the URL and the snapshot version only. */
  const byUrlCacheable = (endpoint: EndpointDecl) => endpoint.access === 'free' && endpoint.dataset !== null;

  return async (request) => {
    const { endpoint } = request;
    const snap = request.via === 'http' && byUrlCacheable(endpoint) ? reader.current() : null;
    if (snap) {
      const hit = byUrl.get(snap.version, request.url);
      if (hit) {
        const headers: Record<string, string> = {};
        if (endpoint.rateLimited) {
          const limited = await limit(request.ip, headers);
          if (limited) return limited;
        }
        return cachedAnswer(endpoint, hit, snap, request.header('if-none-match'), headers);
      }
    }
    const { answer, cacheKey } = await execute(request);
    if (snap && cacheKey && (answer.status === 200 || answer.status === 304) && answer.headers['X-Snapshot-Version'] === snap.version) {
      const cached = cache.get(snap.version, cacheKey);
      if (cached) byUrl.set(snap.version, request.url, cached);
    }
    return answer;
  };
}
