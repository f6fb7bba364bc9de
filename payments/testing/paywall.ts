/**
 * Test support for the payment code: well-known test keys, the parts a process builds once
 * (receipt signer, crypto, nonce store, facilitator client) made for a test, a tiny Hono app that
 * hands its requests to the paywall as the endpoint call does, a loopback server for it, and a
 * fake facilitator whose answers a test chooses (success, refusal, timeout, HTTP 500).
 */
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hexToBytes } from '@noble/hashes/utils.js';
import { Hono } from 'hono';
import { findEndpoint, paidEndpoints, xrplPath } from '../../catalog/index.ts';
import type { EndpointDecl, ServiceName } from '../../catalog/types.ts';
import { startLoopback, type Loopback, type RecordedRequest, type Reply } from '../../lib/testing/loopback.ts';
import type { Settings } from '../../lib/config.ts';
import { freshPaymentHeader } from './bench-support.ts';
import { inlineCrypto } from '../crypto-pool.ts';
import { payToTable } from '../networks.ts';
import { addressOfPrivateKey } from '../eip3009.ts';
import { MemoryNonceStore } from '../nonce-store.ts';
import { createPaywall, type PaymentParts, type Paywall, type PaywallOptions } from '../paywall.ts';
import { ReceiptSigner } from '../receipts.ts';

/** Anvil / Hardhat account #0: public test key, used as the payer in tests. */
export const PAYER_KEY_HEX = 'ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
export const PAYER_KEY = hexToBytes(PAYER_KEY_HEX);
export const PAYER = addressOfPrivateKey(PAYER_KEY);
/** Anvil account #1's address: the merchant (pay-to) in tests. */
export const MERCHANT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

/**
 * A valid signature (r, s low, recovery; digest = z as 32 bytes) by the secret key 1 (Q = G) with
 * u1 = u2 = m: an edge case of ECDSA verification (the two halves of u1·G + u2·Q are the same
 * point, so adding them is a doubling), kept as a vector every backend must accept.
 */
export function degenerateCase(): { m: bigint; r: bigint; s: bigint; z: bigint; digest: Uint8Array; recovery: number; signature: string } {
  const G = secp256k1.Point.BASE;
  const { n: N } = secp256k1.Point.CURVE();
  for (let m = 2n; m < 64n; m++) {
    const R = G.multiply(2n * m).toAffine();
    const r = R.x % N;
    const s = (r * secp256k1.Point.Fn.inv(m)) % N;
    if (s > N >> 1n) continue;
    const z = (m * s) % N;
    const recovery = Number(R.y & 1n);
    const hex = (v: bigint) => v.toString(16).padStart(64, '0');
    return { m, r, s, z, digest: hexToBytes(hex(z)), recovery, signature: `0x${hex(r)}${hex(s)}${(27 + recovery).toString(16)}` };
  }
  throw new Error('no degenerate case found');
}

/** SETTLEMENT=local paying MERCHANT on EVM only, no proxy headers trusted: the tests' usual settings. */
export const LOCAL_SETTINGS: PaywallOptions['settings'] = {
  settlement: 'local',
  payTo: { evm: MERCHANT, solana: null, xrpl: null },
  trustProxy: false,
};

/**
 * The parts proxy/serve.ts builds once per process, for one test: a fresh receipt key (or
 * `signer`), crypto inline on the test's thread, its own nonce store on the test's clock (`now`,
 * if given), no facilitator; `overrides` replace any of them.
 */
export function testPaymentParts(options: { signer?: ReceiptSigner; now?: () => Date } & Partial<PaymentParts> = {}): PaymentParts {
  const { now, ...overrides } = options;
  const signer = overrides.signer ?? ReceiptSigner.random();
  return {
    signer,
    crypto: inlineCrypto(signer),
    nonceStore: new MemoryNonceStore(now ? { now: () => Math.floor(now().getTime() / 1000) } : {}),
    facilitator: null,
    ...overrides,
  };
}

/** A korea paywall with LOCAL_SETTINGS and testPaymentParts(); `options` override any of them. */
export function localPaywall(options: Partial<PaywallOptions> = {}): Paywall {
  const parts = testPaymentParts(options.signer ? { signer: options.signer } : {});
  return createPaywall({ service: 'korea', settings: LOCAL_SETTINGS, ...parts, ...options });
}

export function endpoint(service: ServiceName, id: string): EndpointDecl {
  const e = findEndpoint(service, id);
  if (!e) throw new Error(`no ${service} endpoint ${id}`);
  return e;
}

export interface PaidAppOptions {
  service: ServiceName;
  /** Counts serve() calls, so tests can check nothing was served. */
  served?: { count: number };
  /** Price overrides by endpoint id, so tests do not depend on catalog prices. */
  prices?: Record<string, string>;
}

/**
 * A Hono app with every paid endpoint of the service (and its XRPL variant) behind `paywall`, and
 * /.well-known/x402 with the receipt signer. The handler answers {endpoint, source: 'demo', value: 42};
 * `?status=404|503` makes it answer that status and `?throw=1` makes it throw. Every request
 * header reaches the paywall, as from the service app.
 */
export function paidApp(paywall: Paywall, options: PaidAppOptions): Hono {
  const app = new Hono();
  app.get('/.well-known/x402', (c) => c.json({ version: 1, resources: [], receipt_signer: paywall.signer }));
  const routes: Array<{ decl: EndpointDecl; path: string }> = paidEndpoints(options.service)
    .map((decl) => (options.prices?.[decl.id] ? { ...decl, priceUsd: options.prices[decl.id] } : decl))
    .flatMap((decl) => [{ decl, path: decl.path }, ...(decl.xrplVariant ? [{ decl, path: xrplPath(decl.path) }] : [])]);
  for (const { decl, path } of routes) {
    const method = decl.method === 'POST' ? app.post.bind(app) : app.get.bind(app);
    const xrpl = path !== decl.path;
    method(path, async (c) => {
      const request = { endpoint: decl, xrpl, url: c.req.url, header: (name: string) => c.req.header(name) };
      const answer = await paywall.handle(request, async () => {
        if (options.served) options.served.count++;
        if (c.req.query('throw')) throw new Error('handler exploded');
        const status = Number(c.req.query('status') ?? 200);
        if (status === 404) return { status: 404, body: { error: 'not_found', message: 'No such thing' } };
        if (status === 503) return { status: 503, body: { error: 'not_available', message: 'Dataset missing' } };
        return { status: 200, body: { endpoint: decl.id, source: 'demo', value: 42 } };
      });
      return new Response(answer.body, { status: answer.status, headers: answer.headers });
    });
  }
  app.onError((err, c) => c.json({ error: 'internal_error', message: err.message }, 500));
  return app;
}

/**
 * A paid POST of `body` (JSON) to an endpoint of a service app (createServiceApp), with a fresh
 * EIP-3009 payment header for that endpoint made at `nowSeconds`, as a paying client sends it.
 */
export function paidPost(
  app: Hono,
  settings: Settings,
  endpoint: EndpointDecl,
  body: unknown,
  nowSeconds: number,
): Response | Promise<Response> {
  const header = freshPaymentHeader({
    endpoint,
    payTo: payToTable(settings),
    now: nowSeconds,
    resourceUrl: `http://localhost${endpoint.path}`,
  });
  return app.request(endpoint.path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', [header.name]: header.value },
    body: JSON.stringify(body),
  });
}

/** A paid GET of `path` (an endpoint's path with its parameters filled in) with a fresh payment header for that resource. */
export function paidGet(
  app: Hono,
  settings: Settings,
  endpoint: EndpointDecl,
  path: string,
  nowSeconds: number,
): Response | Promise<Response> {
  const header = freshPaymentHeader({ endpoint, payTo: payToTable(settings), now: nowSeconds, resourceUrl: `http://localhost${path}` });
  return app.request(path, { headers: { [header.name]: header.value } });
}

export interface ServedApp {
  url: string;
  close(): Promise<void>;
}

/** Serves a Hono app on 127.0.0.1 with a free port. */
export async function serveOnLoopback(app: Hono): Promise<ServedApp> {
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/**
 * pending: /settle says `settlement_pending` with a transaction hash every time; pending_once: the
 * first /settle after it is set says so, the next ones succeed (a broadcast confirmed on the retry).
 */
export type FacilitatorBehaviour = 'ok' | 'refuse' | 'timeout' | 'http500' | 'not_json' | 'pending' | 'pending_once';

export interface FakeFacilitator {
  url: string;
  loopback: Loopback;
  /** What /verify and /settle do next (changeable between requests). */
  verify: FacilitatorBehaviour;
  settle: FacilitatorBehaviour;
  /** Delay of a 'timeout' answer, ms. */
  timeoutDelayMs: number;
  close(): Promise<void>;
}

/**
 * A facilitator on loopback answering like the reference one; `verify` / `settle` pick the behaviour.
 * `authorize` checks each request's credentials first: a reason refuses it with 401, null lets it through.
 * `networks`: the kinds /supported lists (default Base and Solana).
 */
export async function fakeFacilitator(
  options: { feePayer?: string; authorize?: (req: RecordedRequest) => string | null; networks?: readonly string[] } = {},
): Promise<FakeFacilitator> {
  const state = { verify: 'ok' as FacilitatorBehaviour, settle: 'ok' as FacilitatorBehaviour, timeoutDelayMs: 3000 };
  const payerOf = (req: RecordedRequest): string => {
    const p = (req.body as { paymentPayload?: { payload?: { authorization?: { from?: string } } } })?.paymentPayload;
    return p?.payload?.authorization?.from ?? 'SoLPayer1111111111111111111111111111111111';
  };
  const networkOf = (req: RecordedRequest): string => {
    const b = req.body as { paymentRequirements?: { network?: string } };
    return b?.paymentRequirements?.network ?? '';
  };
  let pendingAnswered = false;
  const answer = (behaviour: FacilitatorBehaviour, good: Reply, refused: Reply, pending: Reply = refused): Reply => {
    switch (behaviour) {
      case 'ok':
        return good;
      case 'pending':
        return pending;
      case 'pending_once':
        if (pendingAnswered) return good;
        pendingAnswered = true;
        return pending;
      case 'refuse':
        return refused;
      case 'timeout':
        return { ...good, delayMs: state.timeoutDelayMs };
      case 'http500':
        return { status: 500, json: { error: 'internal error' } };
      case 'not_json':
        return { status: 502, text: '<html>Bad gateway</html>' };
    }
  };
  const guarded =
    (reply: (req: RecordedRequest) => Reply) =>
    (req: RecordedRequest): Reply => {
      const refused = options.authorize?.(req) ?? null;
      return refused === null ? reply(req) : { status: 401, json: { error: 'unauthorized', message: refused } };
    };
  const kinds = (options.networks ?? ['eip155:8453', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp']).map((network) =>
    network.startsWith('solana:')
      ? {
          x402Version: 2,
          scheme: 'exact',
          network,
          extra: { feePayer: options.feePayer ?? 'CKPKJWNdJEqa81x7CkZ14BVPiY6y16Sxs7owznqtWYp5' },
        }
      : { x402Version: 2, scheme: 'exact', network },
  );
  const loopback = await startLoopback([
    {
      method: 'POST',
      path: '/verify',
      reply: guarded((req) =>
        answer(
          state.verify,
          { json: { isValid: true, payer: payerOf(req) } },
          { json: { isValid: false, invalidReason: 'insufficient_funds', invalidMessage: 'balance 0 < 1000', payer: payerOf(req) } },
        ),
      ),
    },
    {
      method: 'POST',
      path: '/settle',
      reply: guarded((req) =>
        answer(
          state.settle,
          { json: { success: true, transaction: `0x${'ab'.repeat(32)}`, network: networkOf(req), payer: payerOf(req) } },
          {
            json: {
              success: false,
              errorReason: 'invalid_exact_evm_transaction_failed',
              errorMessage: 'execution reverted',
              transaction: '',
              network: networkOf(req),
              payer: payerOf(req),
            },
          },
          {
            json: {
              success: false,
              errorReason: 'settlement_pending',
              errorMessage: 'transaction broadcast, receipt not seen within 10 s',
              transaction: `0x${'cd'.repeat(32)}`,
              network: networkOf(req),
              payer: payerOf(req),
            },
          },
        ),
      ),
    },
    {
      method: 'GET',
      path: '/supported',
      reply: guarded(() => ({ json: { kinds, extensions: [], signers: {} } })),
    },
  ]);
  const fake: FakeFacilitator = {
    url: loopback.url,
    loopback,
    get verify() {
      return state.verify;
    },
    set verify(v) {
      state.verify = v;
    },
    get settle() {
      return state.settle;
    },
    set settle(v) {
      state.settle = v;
      pendingAnswered = false;
    },
    get timeoutDelayMs() {
      return state.timeoutDelayMs;
    },
    set timeoutDelayMs(v) {
      state.timeoutDelayMs = v;
    },
    close: () => loopback.close(),
  };
  return fake;
}

/** Decodes a base64 JSON header value (tests). */
export function decodeHeader(value: string | null): Record<string, unknown> {
  if (!value) throw new Error('header missing');
  return JSON.parse(Buffer.from(value, 'base64').toString('utf8')) as Record<string, unknown>;
}

/** A response body as loosely typed JSON: tests read fields they assert on right away. */
export type LooseJson = any;
export const json = (res: Response): Promise<LooseJson> => res.json() as Promise<LooseJson>;
