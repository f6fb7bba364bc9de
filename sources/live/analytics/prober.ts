/**
 * The prober: asks every indexed x402 resource for its price without paying, and records what
 * came back (docs/x402-indexing.md, "Probing services").
 *
 * For each target it sends the request the listing declares (method, a minimal input) with no
 * payment header, ever, and records the status, time to first byte, total time, the kind of
 * failure (DNS, TLS, connect, timeout, a redirect to a private address or in a loop, a body over
 * the cap) and the 402's offer: x402 version, one entry per accepted network with asset, amount,
 * payTo and the EIP-712 domain an EVM client would sign with, and whether the offer carries Bazaar
 * metadata.
 *
 * Politeness and safety, all enforced here rather than trusted to the targets:
 *  - at most `concurrency` requests in flight (each on its own connection, closed after the
 *    answer: the sockets open never exceed it), and at most `perHostPerSecond` requests started
 *    per host in any second, counted at the moment a request is sent;
 *  - a 429 or 503 with Retry-After holds that host back for as long as it asks (up to
 *    `maxRetryAfterMs`; longer, and its remaining targets are recorded as deferred);
 *  - connect, headers and whole-request timeouts, and a body cap: a server that hangs, drips its
 *    headers (slowloris) or streams forever costs one slot for `totalTimeoutMs` at most;
 *  - every address a name resolves to, and every redirect target, is checked before connecting:
 *    private, loopback, link-local, CGNAT and other non-public ranges are refused (tests and
 *    loopback benches opt in to loopback only, `allowLoopback`); redirects are followed by hand, at most
 *    `maxRedirects`, and a loop is recorded as such;
 *  - a `User-Agent` that names the project and where to read about the prober.
 *
 * Scheduling is ours (a ready ring of hosts under one in-flight cap) because the per-host limit
 * must hold at send time: a per-host queue in front of a shared slot pool (p-queue's interval
 * counting, for one) counts a request when it is queued, so requests that waited for a slot can
 * leave in a burst.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, request } from 'undici';
import { z } from 'zod';
import type { AnalyticsChain } from '../../../catalog/categories.ts';
import { SETTLEMENT_NETWORKS } from '../../../catalog/networks.ts';
import type { ProbeOutcome } from '../../raw-tables.ts';
import { chainOfNetwork, normalizeAddress } from './chains.ts';

export const PROBE_USER_AGENT = 'x402-analytics-prober/1 (+https://github.com/; free price check, never pays)';

export { PROBE_OUTCOMES, type ProbeOutcome } from '../../raw-tables.ts';

/** The request a listing declares. */
export interface ProbeTarget {
  url: string;
  /** Default GET. */
  method?: string;
  /** A JSON body for POST-like methods (the listing's minimal input); sent with Content-Type application/json. */
  body?: string | null;
}

/** One accepted payment of an offer, normalized. */
export interface OfferAccept {
  scheme: string | null;
  network: string;
  /** The indexed chain of the network, or null for chains the index does not cover (and testnets). */
  chain: AnalyticsChain | null;
  asset: string | null;
  /** Atomic units as the offer states them (v2 `amount`, v1 `maxAmountRequired`). */
  amount: string | null;
  payTo: string;
  /** extra.name / extra.version: the EIP-712 domain an EVM client signs with. */
  eip712Name: string | null;
  eip712Version: string | null;
  /**
   * Whether a client can sign it: for EVM USDC, the domain must be present and be the token's own
   * (a wrong domain makes every signature fail verification); null where that cannot be judged
   * (non-EVM networks, tokens we do not pin).
   */
  signable: boolean | null;
}

export interface ParsedOffer {
  x402Version: number;
  /** Where the offer was read: the v2 PAYMENT-REQUIRED header or the v1 JSON body. */
  via: 'header' | 'body';
  accepts: OfferAccept[];
  /** The offer carries Bazaar discovery metadata (extensions.bazaar, or v1 outputSchema). */
  bazaar: boolean;
  /** The resource URL the offer names (v2 resource.url, v1 accepts[0].resource), if any. */
  resource: string | null;
}

export interface ProbeResult {
  url: string;
  method: string;
  /** When the request was sent (or would have been, for a deferred target). */
  probedAt: Date;
  outcome: ProbeOutcome;
  /** The final answer's status (after redirects), null when none came. */
  status: number | null;
  /** From sending the first request to the final answer's headers. */
  ttfbMs: number | null;
  /** From sending the first request to the end of the final body (or the failure). */
  totalMs: number | null;
  redirects: number;
  /** The failure's code or a short reason, never a body. */
  error: string | null;
  offer: ParsedOffer | null;
}

export interface ProberOptions {
  /** Requests in flight at once (= sockets open at most). Default 32, at most 64. */
  concurrency?: number;
  /** Requests started per host (host name and port) in any second. Default 2. */
  perHostPerSecond?: number;
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  /** Whole request, redirects and body included. Default 15 000. */
  totalTimeoutMs?: number;
  /** Body bytes read at most. Default 65 536. */
  maxBodyBytes?: number;
  maxRedirects?: number;
  /** A Retry-After longer than this defers the host's remaining targets. Default 60 000. */
  maxRetryAfterMs?: number;
  /**
   * Connect to loopback addresses (127.0.0.0/8, ::1): tests and loopback benches opt in. Private,
   * link-local and the other non-public ranges stay refused. Default false.
   */
  allowLoopback?: boolean;
  /** Stop starting probes after this long; the rest are recorded as deferred. Default: none. */
  deadlineMs?: number;
  userAgent?: string;
  /**
   * How a host name becomes addresses; default the system resolver (dns.lookup). Tests map names
   * as a hosts file would. Whatever it returns passes the same address check.
   */
  resolve?: (hostname: string) => Promise<LookupAddress[]>;
  /** Called with the number of targets done (probed or deferred) after each one. */
  onProgress?: (done: number) => void;
  /** Receives each result as it is made (results are not kept: memory stays flat over a large round). */
  onResult(result: ProbeResult): void | Promise<void>;
  /** Injectable clock for tests. */
  now?: () => number;
}

export interface ProbeRoundStats {
  targets: number;
  probed: number;
  deferred: number;
  byOutcome: Partial<Record<ProbeOutcome, number>>;
  /** Most requests in flight at once during the round. */
  maxInFlight: number;
  seconds: number;
}

const DEFAULTS = {
  concurrency: 32,
  perHostPerSecond: 2,
  connectTimeoutMs: 5_000,
  headersTimeoutMs: 10_000,
  totalTimeoutMs: 15_000,
  maxBodyBytes: 65_536,
  maxRedirects: 3,
  maxRetryAfterMs: 60_000,
} as const;
export const MAX_PROBE_CONCURRENCY = 64;
/**
 * The per-host limit counts starts within this window, a quarter second longer than the second it
 * promises: a request reaches the host some time after it is sent (connect, a busy event loop), and
 * with an exact second two sends a second apart could land closer. Measured with
 * `npm run bench -- probe`: a 1,000 ms window let a host see 3 requests within one second.
 */
const PACING_WINDOW_MS = 1_250;

// ------------------------------------------------------------------ address safety

/** Whether a probe may connect to an IP address: public unicast only, and loopback when allowed. */
export function isReachableAddress(address: string, allowLoopback = false): boolean {
  if (!ipaddr.isValid(address)) return false;
  const range = ipaddr.process(address).range();
  return range === 'unicast' || (allowLoopback && range === 'loopback');
}

class PrivateAddressError extends Error {
  readonly code = 'EPRIVATE';
}

/** A DNS lookup that refuses names resolving to any non-public address (checked before connecting, so no rebinding between check and use). */
function systemResolve(hostname: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => dnsLookup(hostname, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));
}

function guardedLookup(allowLoopback: boolean, resolveName: (hostname: string) => Promise<LookupAddress[]>): LookupFunction {
  return (hostname, options, callback) => {
    resolveName(hostname).then(
      (addresses) => answer(null, addresses),
      (err: NodeJS.ErrnoException) => answer(err, []),
    );
    function answer(err: NodeJS.ErrnoException | null, addresses: LookupAddress[]): void {
      if (err) return callback(err, '', 0);
      const list = addresses ?? [];
      const bad = list.find((a) => !isReachableAddress(a.address, allowLoopback));
      if (bad) return callback(new PrivateAddressError(`${hostname} resolves to a non-public address`), '', 0);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      const first = list[0];
      if (!first) return callback(Object.assign(new Error(`${hostname}: no address`), { code: 'ENOTFOUND' }), '', 0);
      callback(null, first.address, first.family);
    }
  };
}

/** The URL's host as an IP literal, if it is one (brackets stripped). */
function literalHost(url: URL): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return ipaddr.isValid(host) ? host : null;
}

// ------------------------------------------------------------------ offers

const Amount = z.union([z.string(), z.number()]).transform(String);
const AcceptWire = z.object({
  scheme: z.string().optional(),
  network: z.string().min(1),
  amount: Amount.optional().nullable(),
  maxAmountRequired: Amount.optional().nullable(),
  asset: z.string().optional().nullable(),
  payTo: z.string().min(1),
  resource: z.string().optional().nullable(),
  outputSchema: z.unknown().optional(),
  extra: z.record(z.string(), z.unknown()).optional().nullable(),
});
const OfferWire = z.object({
  x402Version: z.number().int(),
  accepts: z.array(z.unknown()).min(1),
  resource: z.object({ url: z.string().optional() }).partial().optional().nullable(),
  extensions: z.record(z.string(), z.unknown()).optional().nullable(),
});

/** The pinned EIP-712 domain of the USDC contract on each EVM network we know, by lower-case address. */
const PINNED_DOMAINS = new Map(
  SETTLEMENT_NETWORKS.flatMap((n) => (n.kind === 'evm' ? [[n.usdc.address.toLowerCase(), n.usdc.eip712] as const] : [])),
);

function signableOf(network: string, asset: string | null, name: string | null, version: string | null): boolean | null {
  if (!network.startsWith('eip155:') && !['base', 'polygon', 'arbitrum', 'base-sepolia', 'avalanche'].includes(network)) return null;
  if (!name || !version) return false; // no domain: an EIP-3009 signature cannot be made
  const pinned = asset ? PINNED_DOMAINS.get(asset.toLowerCase()) : undefined;
  if (!pinned) return null;
  return pinned.name === name && pinned.version === version;
}

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

function acceptOf(raw: unknown): OfferAccept | null {
  const parsed = AcceptWire.safeParse(raw);
  if (!parsed.success) return null;
  const a = parsed.data;
  const chain = chainOfNetwork(a.network);
  const name = text(a.extra?.name);
  const version = text(a.extra?.version);
  const asset = text(a.asset);
  return {
    scheme: text(a.scheme),
    network: a.network,
    chain,
    asset,
    amount: a.amount ?? a.maxAmountRequired ?? null,
    payTo: chain ? normalizeAddress(chain, a.payTo) : a.payTo.trim(),
    eip712Name: name,
    eip712Version: version,
    signable: signableOf(a.network, asset, name, version),
  };
}

/**
 * The offer of a 402: the v2 PAYMENT-REQUIRED header when present (base64 JSON), else the v1
 * JSON body. Returns 'invalid' when what is there does not decode into an offer, null when there
 * is none.
 */
export function parseOffer(header: string | null, body: string): ParsedOffer | 'invalid' | null {
  const read = (value: unknown, via: ParsedOffer['via']): ParsedOffer | 'invalid' => {
    const parsed = OfferWire.safeParse(value);
    if (!parsed.success) return 'invalid';
    const accepts = parsed.data.accepts.map(acceptOf).filter((a): a is OfferAccept => a !== null);
    if (accepts.length === 0) return 'invalid';
    const first = AcceptWire.safeParse(parsed.data.accepts[0]);
    const bazaar =
      parsed.data.extensions?.bazaar !== undefined ||
      (first.success && first.data.outputSchema !== undefined && first.data.outputSchema !== null);
    return {
      x402Version: parsed.data.x402Version,
      via,
      accepts,
      bazaar,
      resource: text(parsed.data.resource?.url) ?? (first.success ? text(first.data.resource) : null),
    };
  };
  if (header !== null) {
    const trimmed = header.trim();
    if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) return 'invalid';
    try {
      return read(JSON.parse(Buffer.from(trimmed, 'base64').toString('utf8')), 'header');
    } catch {
      return 'invalid';
    }
  }
  if (body.trim() === '') return null;
  try {
    const json: unknown = JSON.parse(body);
    if (typeof json !== 'object' || json === null || !('accepts' in json)) return null;
    return read(json, 'body');
  } catch {
    return null;
  }
}

// ------------------------------------------------------------------ one probe

function errorCode(err: unknown): string {
  const e = err as { code?: unknown; name?: unknown; cause?: { code?: unknown } };
  if (typeof e?.code === 'string') return e.code;
  if (typeof e?.cause?.code === 'string') return e.cause.code;
  if (typeof e?.name === 'string') return e.name;
  return 'error';
}

function outcomeOfError(code: string): ProbeOutcome {
  if (code === 'EPRIVATE') return 'private_address';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NODATA' || code === 'EAI_FAIL') return 'dns_error';
  if (/TIMEOUT|AbortError|TimeoutError|UND_ERR_ABORTED/i.test(code)) return 'timeout';
  if (/CERT|SSL|TLS|UNABLE_TO_VERIFY|SELF_SIGNED|ERR_TLS|EPROTO/i.test(code)) return 'tls_error';
  if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') return 'too_large';
  return 'connect_error';
}

/** Seconds or an HTTP date, as milliseconds from now; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number): number | null {
  if (value === null) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

interface ProbeEnv {
  agent: Agent;
  o: Required<Omit<ProberOptions, 'onResult' | 'onProgress' | 'now' | 'deadlineMs' | 'resolve'>>;
  now: () => number;
}

interface Answer {
  result: ProbeResult;
  /** How long the host asked us to wait (429 / 503 Retry-After), if it did. */
  retryAfterMs: number | null;
}

async function readCapped(body: AsyncIterable<Buffer>, cap: number): Promise<{ text: string; over: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > cap) return { text: '', over: true };
    chunks.push(chunk);
  }
  return { text: Buffer.concat(chunks).toString('utf8'), over: false };
}

async function probeOne(target: ProbeTarget, env: ProbeEnv): Promise<Answer> {
  const method = (target.method ?? 'GET').toUpperCase();
  const started = env.now();
  const base: ProbeResult = {
    url: target.url,
    method,
    probedAt: new Date(started),
    outcome: 'bad_url',
    status: null,
    ttfbMs: null,
    totalMs: null,
    redirects: 0,
    error: null,
    offer: null,
  };
  const finish = (patch: Partial<ProbeResult>, retryAfter: number | null = null): Answer => ({
    result: { ...base, totalMs: Math.round(env.now() - started), ...patch },
    retryAfterMs: retryAfter,
  });
  const signal = AbortSignal.timeout(env.o.totalTimeoutMs);
  const visited = new Set<string>();
  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    return finish({ totalMs: null, error: 'not a URL' });
  }
  let sendMethod = method;
  let sendBody = method === 'GET' || method === 'HEAD' ? null : (target.body ?? '{}');
  for (let hop = 0; ; hop++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return finish({ outcome: 'bad_url', redirects: hop, error: url.protocol });
    const literal = literalHost(url);
    if (literal && !isReachableAddress(literal, env.o.allowLoopback)) {
      return finish({ outcome: 'private_address', redirects: hop, error: `${hop ? 'redirect to ' : ''}a non-public address` });
    }
    visited.add(url.href);
    let res: Awaited<ReturnType<typeof request>>;
    try {
      res = await request(url, {
        method: sendMethod as 'GET',
        dispatcher: env.agent,
        signal,
        reset: true, // Connection: close: one socket per request, none idle
        headers: {
          'user-agent': env.o.userAgent,
          accept: 'application/json, */*;q=0.5',
          ...(sendBody !== null ? { 'content-type': 'application/json' } : {}),
        },
        body: sendBody,
        headersTimeout: env.o.headersTimeoutMs,
        bodyTimeout: env.o.headersTimeoutMs,
      });
    } catch (err) {
      const code = errorCode(err);
      return finish({ outcome: outcomeOfError(code), redirects: hop, error: code });
    }
    const ttfbMs = Math.round(env.now() - started);
    const status = res.statusCode;
    const header = (name: string): string | null => {
      const v = res.headers[name];
      return Array.isArray(v) ? (v[0] ?? null) : (v ?? null);
    };
    if (status >= 300 && status < 400 && header('location') !== null) {
      await res.body.dump({ limit: 4096 }).catch(() => undefined);
      let next: URL;
      try {
        next = new URL(header('location') as string, url);
      } catch {
        return finish({ outcome: 'http_error', status, ttfbMs, redirects: hop, error: 'unreadable Location' });
      }
      if (hop + 1 > env.o.maxRedirects || visited.has(next.href)) {
        return finish({ outcome: 'redirect_loop', status, ttfbMs, redirects: hop + 1, error: `${hop + 1} redirects` });
      }
      if (status === 303 || ((status === 301 || status === 302) && sendMethod === 'POST')) {
        sendMethod = 'GET';
        sendBody = null;
      }
      url = next;
      continue;
    }
    let body: { text: string; over: boolean };
    try {
      body = await readCapped(res.body, env.o.maxBodyBytes);
    } catch (err) {
      const code = errorCode(err);
      return finish({ outcome: outcomeOfError(code), status, ttfbMs, redirects: hop, error: code });
    }
    if (body.over) {
      res.body.destroy();
      return finish({ outcome: 'too_large', status, ttfbMs, redirects: hop, error: `body over ${env.o.maxBodyBytes} bytes` });
    }
    const retryAfter = status === 429 || status === 503 ? retryAfterMs(header('retry-after'), env.now()) : null;
    if (status === 402) {
      const offer = parseOffer(header('payment-required'), body.text);
      if (offer === 'invalid') return finish({ outcome: 'invalid_offer', status, ttfbMs, redirects: hop, error: 'offer does not decode' });
      if (offer === null) return finish({ outcome: 'no_offer', status, ttfbMs, redirects: hop });
      return finish({ outcome: 'offer', status, ttfbMs, redirects: hop, offer });
    }
    if (status === 429) return finish({ outcome: 'rate_limited', status, ttfbMs, redirects: hop }, retryAfter);
    if (status >= 200 && status < 300) return finish({ outcome: 'open', status, ttfbMs, redirects: hop });
    return finish({ outcome: 'http_error', status, ttfbMs, redirects: hop }, retryAfter);
  }
}

// ------------------------------------------------------------------ a round

/** The key the per-host limit counts by: host name and port. */
function hostKey(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || (u.protocol === 'https:' ? '443' : '80')}`;
  } catch {
    return '';
  }
}

interface HostLane {
  key: string;
  targets: ProbeTarget[];
  next: number;
  /** Send times of the last `perHostPerSecond` requests. */
  starts: number[];
  /** Not before this time (Retry-After). */
  holdUntil: number;
}

/**
 * Probes every target once, calling `onResult` for each (deferred ones included), and returns
 * the round's counts. Never throws for what a target does; resolves when every target has a result.
 */
export async function probeRound(targets: Iterable<ProbeTarget>, options: ProberOptions): Promise<ProbeRoundStats> {
  const now = options.now ?? (() => Date.now());
  const o = {
    ...DEFAULTS,
    allowLoopback: false,
    userAgent: PROBE_USER_AGENT,
    ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)),
  } as ProbeEnv['o'] & Pick<ProberOptions, 'deadlineMs' | 'resolve'>;
  const concurrency = Math.max(1, Math.min(MAX_PROBE_CONCURRENCY, o.concurrency));
  const agent = new Agent({
    connect: { timeout: o.connectTimeoutMs, lookup: guardedLookup(o.allowLoopback, o.resolve ?? systemResolve) },
    connections: null,
    pipelining: 0,
    maxRedirections: 0,
  } as ConstructorParameters<typeof Agent>[0]);
  const env: ProbeEnv = { agent, o, now };
  const startedAt = now();
  const stats: ProbeRoundStats = { targets: 0, probed: 0, deferred: 0, byOutcome: {}, maxInFlight: 0, seconds: 0 };

  const lanes = new Map<string, HostLane>();
  for (const t of targets) {
    stats.targets++;
    const key = hostKey(t.url);
    let lane = lanes.get(key);
    if (!lane) {
      lane = { key, targets: [], next: 0, starts: [], holdUntil: 0 };
      lanes.set(key, lane);
    }
    lane.targets.push(t);
  }
  const ring = [...lanes.values()];
  let inFlight = 0;
  let cursor = 0;
  const record = async (result: ProbeResult): Promise<void> => {
    stats.byOutcome[result.outcome] = (stats.byOutcome[result.outcome] ?? 0) + 1;
    if (result.outcome === 'deferred') stats.deferred++;
    else stats.probed++;
    await options.onResult(result);
    options.onProgress?.(stats.probed + stats.deferred);
  };
  const deferRest = async (lane: HostLane, reason: string): Promise<void> => {
    while (lane.next < lane.targets.length) {
      const t = lane.targets[lane.next++] as ProbeTarget;
      await record({
        url: t.url,
        method: (t.method ?? 'GET').toUpperCase(),
        probedAt: new Date(now()),
        outcome: 'deferred',
        status: null,
        ttfbMs: null,
        totalMs: null,
        redirects: 0,
        error: reason,
        offer: null,
      });
    }
  };

  try {
    await new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | null = null;
      let timerAt = Number.POSITIVE_INFINITY;
      let settled = false;
      const pump = async (): Promise<void> => {
        if (settled) return;
        const t = now();
        if (o.deadlineMs !== undefined && t - startedAt >= o.deadlineMs) {
          for (const lane of ring) await deferRest(lane, 'round deadline');
        }
        // the earliest time a waiting host may send again
        let wake = Number.POSITIVE_INFINITY;
        let scanned = 0;
        while (inFlight < concurrency && scanned < ring.length) {
          const lane = ring[cursor % ring.length] as HostLane;
          cursor++;
          scanned++;
          if (lane.next >= lane.targets.length) continue;
          while (lane.starts.length > 0 && t - (lane.starts[0] as number) >= PACING_WINDOW_MS) lane.starts.shift();
          const freeAt = Math.max(
            lane.holdUntil,
            lane.starts.length >= o.perHostPerSecond ? (lane.starts[0] as number) + PACING_WINDOW_MS : 0,
          );
          if (freeAt > t) {
            wake = Math.min(wake, freeAt);
            continue;
          }
          const target = lane.targets[lane.next++] as ProbeTarget;
          lane.starts.push(t);
          inFlight++;
          stats.maxInFlight = Math.max(stats.maxInFlight, inFlight);
          scanned = 0; // a slot was used: look around the ring again
          probeOne(target, env)
            .then(async ({ result, retryAfterMs: wait }) => {
              if (wait !== null) {
                if (wait > o.maxRetryAfterMs) {
                  lane.holdUntil = Number.POSITIVE_INFINITY;
                  await deferRest(lane, `Retry-After ${Math.round(wait / 1000)} s`);
                } else lane.holdUntil = Math.max(lane.holdUntil, now() + wait);
              }
              await record(result);
            })
            .catch(reject)
            .finally(() => {
              inFlight--;
              void pump();
            });
        }
        const pending = ring.some((l) => l.next < l.targets.length);
        if (!pending && inFlight === 0) {
          settled = true;
          resolve();
          return;
        }
        if (pending && inFlight < concurrency && Number.isFinite(wake) && wake < timerAt) {
          if (timer) clearTimeout(timer);
          timerAt = wake;
          timer = setTimeout(
            () => {
              timer = null;
              timerAt = Number.POSITIVE_INFINITY;
              void pump().catch(reject);
            },
            Math.max(1, wake - now()),
          );
        }
      };
      void pump().catch(reject);
    });
  } finally {
    await agent.close().catch(() => undefined);
  }
  stats.seconds = (now() - startedAt) / 1000;
  return stats;
}
