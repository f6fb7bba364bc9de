import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PaymentRequiredBody } from '../catalog/schemas.ts';
import type { EndpointDecl } from '../catalog/types.ts';
import { SECP256K1_HALF_N, signAuthorization, type ExactEvmPayload } from './eip3009.ts';
import { FacilitatorClient } from './facilitator.ts';
import { SPEC_NOW, SPEC_V1_X_PAYMENT, SPEC_V2_PAYMENT_SIGNATURE } from './testing/spec-examples.ts';
import { BASE, BASE_SEPOLIA, POLYGON, type EvmNetwork } from './networks.ts';
import { MemoryNonceStore } from './nonce-store.ts';
import type { Paywall, PaywallOptions } from './paywall.ts';
import { signExactEvm } from './client/payer.ts';
import { ReceiptSigner, verifyReceipt } from './receipts.ts';
import {
  decodeHeader,
  endpoint,
  fakeFacilitator,
  localPaywall,
  MERCHANT,
  PAYER,
  PAYER_KEY,
  json,
  paidApp,
  serveOnLoopback,
  type FakeFacilitator,
} from './testing/paywall.ts';
import { solanaPayerSigner, SOLANA_PAYER, solanaTransfer, xrplPayment } from './testing/chains.ts';
import { encodeBase64Json, MAX_PAYMENT_HEADER_BYTES } from './wire.ts';

const SOLANA_PAY_TO = 'FD7YVyJ5dai6ykGCduUm7HoaNCBTQjShWcmRhCcAD2hx';
const XRPL_PAY_TO = 'rU8Pz7RT7pGRGzpoNbBGuJ1Xa5heLg77H1';
const RLUSD_ISSUE = { currency: '524C555344000000000000000000000000000000', issuer: 'rMxCKbEDwqr76QuheSUMdEGf4B9xJ8m5De' };
const HOST = 'http://127.0.0.1:4020';
const PRICES = { 'fx-rate': '0.001', 'kimchi-premium': '0.001', 'arbitrage-scanner': '0.01', 'wash.check': '0.05' };
const priced = (decl: EndpointDecl): EndpointDecl => ({ ...decl, priceUsd: PRICES[decl.id as keyof typeof PRICES] ?? decl.priceUsd });
const fx = priced(endpoint('korea', 'fx-rate'));
const signer = ReceiptSigner.random();

function setup(overrides: Partial<PaywallOptions> = {}) {
  const served = { count: 0 };
  const paywall = localPaywall({ signer, ...overrides });
  const app = paidApp(paywall, { service: 'korea', served, prices: PRICES });
  return { paywall, app, served };
}

interface PayOptions {
  network?: EvmNetwork;
  /** Sign over this network's domain instead (wrong chain / wrong domain). */
  signOn?: EvmNetwork;
  amount?: string;
  to?: string;
  version?: 1 | 2;
  now?: number;
  validAfter?: string;
  validBefore?: string;
  mutate?: (p: ExactEvmPayload) => ExactEvmPayload;
  decl?: EndpointDecl;
  path?: string;
}

function paymentFor(paywall: Paywall, o: PayOptions = {}): Record<string, string> {
  const network = o.network ?? BASE;
  const decl = o.decl ?? fx;
  const offer = paywall.offers(decl, o.path ?? decl.path, `${HOST}${o.path ?? decl.path}`).find((x) => x.network === network)!;
  let payload = signExactEvm(
    { network, payTo: o.to ?? offer.v2.payTo, amount: o.amount ?? offer.v2.amount, maxTimeoutSeconds: offer.v2.maxTimeoutSeconds },
    PAYER_KEY,
    o.now !== undefined ? { now: o.now } : {},
  );
  if (o.validAfter || o.validBefore || o.signOn) {
    const authorization = {
      ...payload.authorization,
      ...(o.validAfter ? { validAfter: o.validAfter } : {}),
      ...(o.validBefore ? { validBefore: o.validBefore } : {}),
    };
    payload = { authorization, signature: signAuthorization(o.signOn ?? network, authorization, PAYER_KEY) };
  }
  if (o.mutate) payload = o.mutate(payload);
  if ((o.version ?? 1) === 1) return { 'X-PAYMENT': encodeBase64Json({ x402Version: 1, scheme: 'exact', network: network.name, payload }) };
  return { 'PAYMENT-SIGNATURE': encodeBase64Json({ x402Version: 2, accepted: offer.v2, payload }) };
}

const get = (app: ReturnType<typeof setup>['app'], path: string, headers: Record<string, string> = {}) =>
  app.request(`${HOST}${path}`, { headers });

describe('paywall, SETTLEMENT=local', () => {
  it('no payment: 402 with the v1 body and the v2 PAYMENT-REQUIRED header, both listing every network', async () => {
    const { app, served } = setup();
    const res = await get(app, '/api/v1/fx-rate');
    expect(res.status).toBe(402);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = await json(res);
    expect(PaymentRequiredBody.safeParse(body).success).toBe(true);
    expect(body).toMatchObject({ x402Version: 1, reason: 'payment_required' });
    expect(body.accepts.map((a: { network: string; maxAmountRequired: string }) => [a.network, a.maxAmountRequired])).toEqual([
      ['base', '1000'],
      ['polygon', '1000'],
      ['solana', '1000'],
    ]);
    expect(body.accepts[0]).toMatchObject({
      payTo: MERCHANT,
      resource: `${HOST}/api/v1/fx-rate`,
      mimeType: 'application/json',
      extra: { name: 'USD Coin', version: '2' },
    });
    const v2 = decodeHeader(res.headers.get('PAYMENT-REQUIRED'));
    expect(v2).toMatchObject({ x402Version: 2, resource: { url: `${HOST}/api/v1/fx-rate` } });
    expect((v2.accepts as Array<{ network: string }>).map((a) => a.network)).toEqual([
      'eip155:8453',
      'eip155:137',
      'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    ]);
    expect(served.count).toBe(0);
  });

  it('the XRPL variant offers RLUSD on xrpl only', async () => {
    const { app } = setup();
    const body = await json(await get(app, '/api/v1/xrpl/fx-rate'));
    expect(body.accepts).toHaveLength(1);
    expect(body.accepts[0]).toMatchObject({ network: 'xrpl', payTo: 'rU8Pz7RT7pGRGzpoNbBGuJ1Xa5heLg77H1', extra: { value: '0.001' } });
  });

  it('v1 payment on base: 200 with the data, a verifiable receipt in body and X-Receipt, and X-PAYMENT-RESPONSE', async () => {
    const { app, paywall, served } = setup();
    const headers = paymentFor(paywall);
    const res = await get(app, '/api/v1/fx-rate', headers);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const body = await json(res);
    expect(body).toMatchObject({ endpoint: 'fx-rate', value: 42 });
    const receipt = body.receipt;
    expect(receipt).toMatchObject({
      endpoint: '/api/v1/fx-rate',
      amount: '0.001',
      currency: 'USDC',
      network: 'base',
      payer: PAYER,
      merchant: MERCHANT,
      settlement: 'local',
      tx_hash: expect.stringMatching(/^local:0x[0-9a-f]{64}$/),
    });
    expect(decodeHeader(res.headers.get('X-Receipt'))).toEqual(receipt);
    expect(verifyReceipt(receipt, paywall.signer.public_key)).toMatchObject({ ok: true });
    expect(decodeHeader(res.headers.get('X-PAYMENT-RESPONSE'))).toEqual({
      success: true,
      transaction: receipt.tx_hash,
      network: 'base',
      payer: PAYER,
      extensions: { 'offer-receipt': expect.objectContaining({ info: { receipt: expect.objectContaining({ format: 'eip712' }) } }) },
    });
    expect(res.headers.get('PAYMENT-RESPONSE')).toBeNull();
    expect(served.count).toBe(1);

    const replay = await get(app, '/api/v1/fx-rate', headers);
    expect(replay.status).toBe(402);
    const again = await json(replay);
    expect(again).toMatchObject({ reason: 'nonce_used', payer: PAYER });
    expect(again.error).toMatch(/already used for a response; sign a new payment with a fresh nonce/);
    // the same authorization cannot buy another endpoint of the same price either
    const other = await get(app, '/api/v1/kimchi-premium', headers);
    expect((await json(other)).reason).toBe('nonce_used');
    expect(served.count).toBe(1);
  });

  it('v2 payment on polygon: PAYMENT-RESPONSE with the CAIP-2 network', async () => {
    const { app, paywall } = setup();
    const res = await get(app, '/api/v1/fx-rate', paymentFor(paywall, { network: POLYGON, version: 2 }));
    expect(res.status).toBe(200);
    expect(decodeHeader(res.headers.get('PAYMENT-RESPONSE'))).toMatchObject({ success: true, network: 'eip155:137', payer: PAYER });
    expect(res.headers.get('X-PAYMENT-RESPONSE')).toBeNull();
    expect((await json(res)).receipt.network).toBe('polygon');
  });

  const now = Math.floor(Date.now() / 1000);
  const highS = (p: ExactEvmPayload): ExactEvmPayload => {
    const sig = Buffer.from(p.signature.slice(2), 'hex');
    const s = BigInt(`0x${sig.subarray(32, 64).toString('hex')}`);
    sig.set(Buffer.from((SECP256K1_HALF_N * 2n + 1n - s).toString(16).padStart(64, '0'), 'hex'), 32);
    sig[64] = sig[64] === 27 ? 28 : 27;
    return { ...p, signature: `0x${sig.toString('hex')}` };
  };
  const wrongDomain = (n: EvmNetwork): EvmNetwork => ({
    ...n,
    caip2: `${n.caip2}-x`,
    usdc: { ...n.usdc, eip712: { name: 'USDC', version: '2' } },
  });
  const cases: Array<[string, (n: EvmNetwork) => PayOptions, string, RegExp]> = [
    ['high-s', () => ({ mutate: highS }), 'invalid_signature', /high-s/],
    ['wrong v', () => ({ mutate: (p) => ({ ...p, signature: `${p.signature.slice(0, -2)}1d` }) }), 'invalid_signature', /v is 29/],
    [
      'wrong domain',
      (n) => ({ signOn: wrongDomain(n) }),
      'invalid_signature',
      /signature recovers 0x[0-9a-fA-F]{40}, authorization.from is/,
    ],
    ['wrong chain', (n) => ({ signOn: n === BASE ? POLYGON : BASE }), 'invalid_signature', /signature recovers/],
    ['underpayment', () => ({ amount: '999' }), 'amount_mismatch', /999 atomic USDC, less than the price of 1000/],
    ['wrong payTo', () => ({ to: PAYER }), 'recipient_mismatch', /authorization.to is/],
    ['expired', () => ({ validBefore: String(now - 10) }), 'expired', /authorization expired/],
    ['not yet valid', () => ({ validAfter: String(now + 3600) }), 'not_yet_valid', /valid only after/],
  ];
  describe.each([BASE, POLYGON])('tampered payments on $name (v1 and v2)', (network) => {
    it.each(cases)('%s → 402 %s, nothing served', async (_name, make, reason, message) => {
      for (const version of [1, 2] as const) {
        const { app, paywall, served } = setup();
        const res = await get(app, '/api/v1/fx-rate', paymentFor(paywall, { network, version, ...make(network) }));
        expect(res.status).toBe(402);
        const body = await json(res);
        expect(body.reason).toBe(reason);
        expect(body.error).toMatch(message);
        expect(decodeHeader(res.headers.get('PAYMENT-REQUIRED')).error).toMatch(new RegExp(`^${reason}: `));
        expect(served.count).toBe(0);
      }
    });
  });

  // a header that is no payment payload is 400 (the x402 HTTP transport's "Invalid Payment"); a payload that fails a check, 402
  it.each([
    ['X-PAYMENT', '%%%not-base64%%%', 400, 'malformed_payload'],
    ['X-PAYMENT', Buffer.from('{"x402Version": 1, "scheme": ').toString('base64'), 400, 'malformed_payload'],
    ['PAYMENT-SIGNATURE', 'A'.repeat(MAX_PAYMENT_HEADER_BYTES + 100), 400, 'header_too_large'],
    ['X-PAYMENT', encodeBase64Json({ x402Version: 99, scheme: 'exact', network: 'base', payload: {} }), 402, 'invalid_x402_version'],
    ['X-PAYMENT', encodeBase64Json({ x402Version: 1, scheme: 'upto', network: 'base', payload: {} }), 402, 'invalid_scheme'],
    ['X-PAYMENT', encodeBase64Json({ x402Version: 1, scheme: 'exact', network: 'avalanche', payload: {} }), 402, 'unsupported_network'],
  ])('%s %s… → %s %s', async (header, value, status, reason) => {
    const { app, served } = setup();
    const res = await get(app, '/api/v1/fx-rate', { [header]: value });
    expect(res.status).toBe(status);
    expect((await json(res)).reason).toBe(reason);
    expect(decodeHeader(res.headers.get('PAYMENT-REQUIRED')).error).toMatch(new RegExp(`^${reason}: `));
    expect(served.count).toBe(0);
  });

  it('Solana and XRPL payments are verified in local mode too: a payload that is no transaction is refused as such', async () => {
    const { app } = setup({
      settings: { settlement: 'local', payTo: { evm: MERCHANT, solana: SOLANA_PAY_TO, xrpl: XRPL_PAY_TO }, trustProxy: false },
    });
    const sol = await get(app, '/api/v1/fx-rate', {
      'X-PAYMENT': encodeBase64Json({ x402Version: 1, scheme: 'exact', network: 'solana', payload: { transaction: 'AAAA' } }),
    });
    const solBody = await json(sol);
    expect(solBody.reason).toBe('malformed_payload');
    expect(solBody.error).toMatch(/solana transaction could not be decoded/);
    const xrpl = await get(app, '/api/v1/xrpl/fx-rate', {
      'PAYMENT-SIGNATURE': encodeBase64Json({
        x402Version: 2,
        accepted: {
          scheme: 'exact',
          network: 'xrpl:0',
          amount: '0.001',
          asset: '524C555344000000000000000000000000000000',
          payTo: XRPL_PAY_TO,
          extra: { issuer: 'rMxCKbEDwqr76QuheSUMdEGf4B9xJ8m5De' },
        },
        payload: { signedTxBlob: 'ABCD' },
      }),
    });
    expect((await json(xrpl)).reason).toBe('malformed_payload');
  });

  it.each([
    ['404', '?status=404', 404],
    ['503', '?status=503', 503],
    ['a throwing handler', '?throw=1', 500],
  ])('%s from the handler: passed through, nothing settled, and the payment stays usable', async (_name, query, status) => {
    const { app, paywall, served } = setup();
    const headers = paymentFor(paywall);
    const res = await get(app, `/api/v1/fx-rate${query}`, headers);
    expect(res.status).toBe(status);
    expect(res.headers.get('X-PAYMENT-RESPONSE')).toBeNull();
    expect(res.headers.get('X-Receipt')).toBeNull();
    expect(served.count).toBe(1);
    const retry = await get(app, '/api/v1/fx-rate', headers);
    expect(retry.status).toBe(200);
  });

  it("the spec's own payment headers pay a Base Sepolia paywall (clock set inside their window); v1 then v2 is one payment", async () => {
    const { app } = setup({
      settings: {
        settlement: 'local',
        payTo: { evm: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C', solana: null, xrpl: null },
        trustProxy: false,
      },
      networksFor: () => [BASE_SEPOLIA],
      now: () => new Date(SPEC_NOW * 1000),
      // the store must share the verifier's clock, or it would prune the 2025 payment at once
      nonceStore: new MemoryNonceStore({ now: () => SPEC_NOW }),
    });
    const paid = await get(app, '/api/v1/arbitrage-scanner', { 'X-PAYMENT': SPEC_V1_X_PAYMENT }); // 0.01 USD = 10000
    expect(paid.status).toBe(200);
    expect((await json(paid)).receipt).toMatchObject({
      payer: '0x857b06519E91e3A54538791bDbb0E22373e36b66',
      network: 'base-sepolia',
      amount: '0.01',
    });
    // the spec's v2 example names its own resource (api.example.com/premium-data): refused as paying for another resource
    const foreign = await get(app, '/api/v1/arbitrage-scanner', { 'PAYMENT-SIGNATURE': SPEC_V2_PAYMENT_SIGNATURE });
    expect((await json(foreign)).reason).toBe('resource_mismatch');
    const { resource: _, ...unlabelled } = decodeHeader(SPEC_V2_PAYMENT_SIGNATURE);
    const again = await get(app, '/api/v1/arbitrage-scanner', { 'PAYMENT-SIGNATURE': encodeBase64Json(unlabelled) });
    expect((await json(again)).reason).toBe('nonce_used');
  });

  it('analytics POST endpoints are paid the same way', async () => {
    const served = { count: 0 };
    const paywall = localPaywall({ service: 'analytics', signer });
    const app = paidApp(paywall, { service: 'analytics', served, prices: PRICES });
    const check = priced(endpoint('analytics', 'wash.check'));
    const unpaid = await app.request(`${HOST}/api/v1/wash/check`, { method: 'POST' });
    expect((await json(unpaid)).accepts.map((a: { network: string }) => a.network)).toEqual(['base', 'solana']);
    const res = await app.request(`${HOST}/api/v1/wash/check`, { method: 'POST', headers: paymentFor(paywall, { decl: check }) });
    expect(res.status).toBe(200);
    expect((await json(res)).receipt.amount).toBe('0.05');
  });
});

describe('paywall, SETTLEMENT=facilitator', () => {
  let fake: FakeFacilitator;
  beforeAll(async () => {
    fake = await fakeFacilitator();
    fake.timeoutDelayMs = 1500;
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    fake.verify = 'ok';
    fake.settle = 'ok';
    fake.loopback.reset();
  });
  const facilitatorSetup = () =>
    setup({
      settings: { settlement: 'facilitator', payTo: { evm: MERCHANT, solana: SOLANA_PAY_TO, xrpl: XRPL_PAY_TO }, trustProxy: false },
      facilitator: new FacilitatorClient({ url: fake.url, timeoutMs: 400 }),
    });

  it('EVM: own checks, then /verify, serve, /settle; the receipt carries the transaction', async () => {
    const { app, paywall } = facilitatorSetup();
    const res = await get(app, '/api/v1/fx-rate', paymentFor(paywall, { version: 2 }));
    expect(res.status).toBe(200);
    const receipt = (await json(res)).receipt;
    expect(receipt).toMatchObject({ settlement: 'facilitator', tx_hash: `0x${'ab'.repeat(32)}`, payer: PAYER });
    expect(fake.loopback.requests.map((r) => r.path)).toEqual(['/verify', '/settle']);
    const sent = fake.loopback.requests[1]!.body as { x402Version: number; paymentRequirements: { network: string; amount: string } };
    expect(sent).toMatchObject({ x402Version: 2, paymentRequirements: { network: 'eip155:8453', amount: '1000' } });
    expect(decodeHeader(res.headers.get('PAYMENT-RESPONSE'))).toMatchObject({ success: true, transaction: `0x${'ab'.repeat(32)}` });
  });

  it('our own checks still run first: an underpayment never reaches the facilitator', async () => {
    const { app, paywall } = facilitatorSetup();
    const res = await get(app, '/api/v1/fx-rate', paymentFor(paywall, { amount: '1' }));
    expect((await json(res)).reason).toBe('amount_mismatch');
    expect(fake.loopback.requests).toHaveLength(0);
  });

  it.each([
    ['refuse', 'facilitator_rejected', /insufficient_funds \(balance 0 < 1000\)/],
    ['timeout', 'facilitator_unavailable', /did not answer within 400 ms/],
    ['http500', 'facilitator_unavailable', /answered HTTP 500/],
  ] as const)('/verify %s → 402 %s, nothing served', async (behaviour, reason, message) => {
    fake.verify = behaviour;
    const { app, paywall, served } = facilitatorSetup();
    const res = await get(app, '/api/v1/fx-rate', paymentFor(paywall));
    const body = await json(res);
    expect([res.status, body.reason]).toEqual([402, reason]);
    expect(body.error).toMatch(message);
    expect(served.count).toBe(0);
  });

  it.each([
    ['refuse', 'settlement_failed', /invalid_exact_evm_transaction_failed \(execution reverted\). Nothing was served/],
    ['timeout', 'facilitator_unavailable', /did not answer within 400 ms. Nothing was served. .*SAME payment header/],
    ['http500', 'facilitator_unavailable', /answered HTTP 500/],
    ['not_json', 'facilitator_unavailable', /not JSON/],
  ] as const)('/settle %s → 402 %s, the data is withheld, and the same payment can be retried', async (behaviour, reason, message) => {
    fake.settle = behaviour;
    const { app, paywall, served } = facilitatorSetup();
    const headers = paymentFor(paywall);
    const res = await get(app, '/api/v1/fx-rate', headers);
    const text = await res.text();
    const body = JSON.parse(text);
    expect([res.status, body.reason]).toEqual([402, reason]);
    expect(body.error).toMatch(message);
    expect(text).not.toContain('"value":42');
    expect(served.count).toBe(1);
    expect(decodeHeader(res.headers.get('X-PAYMENT-RESPONSE'))).toMatchObject({
      success: false,
      transaction: '',
      network: 'base',
      errorReason: reason,
    });
    fake.settle = 'ok';
    const retry = await get(app, '/api/v1/fx-rate', headers);
    expect(retry.status).toBe(200);
  });

  it('/settle settlement_pending, confirmed on the one retry → served with that transaction', async () => {
    fake.settle = 'pending_once';
    const { app, paywall, served } = facilitatorSetup();
    const res = await get(app, '/api/v1/fx-rate', paymentFor(paywall, { version: 2 }));
    expect(res.status).toBe(200);
    expect(served.count).toBe(1);
    expect(fake.loopback.requests.map((r) => r.path)).toEqual(['/verify', '/settle', '/settle']);
    expect((await json(res)).receipt.tx_hash).toBe(`0x${'ab'.repeat(32)}`);
  });

  it('/settle settlement_pending twice → 402 settlement_pending with the hash; the payment is held, never settled again', async () => {
    fake.settle = 'pending';
    const { app, paywall, served } = facilitatorSetup();
    const headers = paymentFor(paywall, { version: 2 });
    const res = await get(app, '/api/v1/fx-rate', headers);
    const text = await res.text();
    const body = JSON.parse(text);
    expect([res.status, body.reason, body.facilitator_reason]).toEqual([402, 'settlement_pending', 'settlement_pending']);
    expect(body.error).toMatch(/broadcast transaction 0xcdcd.*Nothing was served.*will not be settled again/);
    expect(text).not.toContain('"value":42');
    expect(served.count).toBe(1);
    expect(decodeHeader(res.headers.get('PAYMENT-RESPONSE'))).toMatchObject({
      success: false,
      transaction: `0x${'cd'.repeat(32)}`,
      errorReason: 'settlement_pending',
    });
    expect(fake.loopback.requests.map((r) => r.path)).toEqual(['/verify', '/settle', '/settle']);
    // the same payment again, even once the facilitator is healthy: refused before any facilitator call
    fake.settle = 'ok';
    fake.loopback.reset();
    const retry = await get(app, '/api/v1/fx-rate', headers);
    expect([retry.status, (await json(retry)).reason]).toEqual([402, 'nonce_used']);
    expect(fake.loopback.requests).toHaveLength(0);
    expect(served.count).toBe(1);
  });

  it('Solana: verified and settled by the facilitator; init() puts the fee payer into the requirements', async () => {
    const { app, paywall } = facilitatorSetup();
    expect(await paywall.init()).toEqual([
      `facilitator ${fake.url} does not list "exact" on polygon (eip155:137) in /supported; payments there will likely be refused`,
      `facilitator ${fake.url} does not list "exact" on xrpl (xrpl:0) in /supported; payments there will likely be refused`,
    ]);
    const unpaid = await json(await get(app, '/api/v1/fx-rate'));
    expect(unpaid.accepts.find((a: { network: string }) => a.network === 'solana')).toMatchObject({
      payTo: SOLANA_PAY_TO,
      extra: { feePayer: 'CKPKJWNdJEqa81x7CkZ14BVPiY6y16Sxs7owznqtWYp5' },
    });
    // checked in-process first (solana.ts), against the facilitator's fee payer, then /verify and /settle
    const transaction = await solanaTransfer({
      signer: await solanaPayerSigner(),
      payTo: SOLANA_PAY_TO,
      amount: 1000n,
      feePayer: 'CKPKJWNdJEqa81x7CkZ14BVPiY6y16Sxs7owznqtWYp5',
    });
    const headers = {
      'X-PAYMENT': encodeBase64Json({ x402Version: 1, scheme: 'exact', network: 'solana', payload: { transaction } }),
    };
    const res = await get(app, '/api/v1/fx-rate', headers);
    expect(res.status).toBe(200);
    expect((await json(res)).receipt).toMatchObject({
      network: 'solana',
      currency: 'USDC',
      settlement: 'facilitator',
      payer: SOLANA_PAYER,
    });
    expect((await json(await get(app, '/api/v1/fx-rate', headers))).reason).toBe('nonce_used');
    const bad = await get(app, '/api/v1/fx-rate', {
      'X-PAYMENT': encodeBase64Json({ x402Version: 1, scheme: 'exact', network: 'solana', payload: { tx: 1 } }),
    });
    expect((await json(bad)).reason).toBe('malformed_payload');
  });

  it('XRPL variant: RLUSD paid with PAYMENT-SIGNATURE, verified and settled by the facilitator', async () => {
    const { app, paywall } = facilitatorSetup();
    const [offer] = paywall.offers(fx, '/api/v1/xrpl/fx-rate', `${HOST}/api/v1/xrpl/fx-rate`);
    const res = await get(app, '/api/v1/xrpl/fx-rate', {
      'PAYMENT-SIGNATURE': encodeBase64Json({
        x402Version: 2,
        accepted: offer!.v2,
        payload: { signedTxBlob: xrplPayment({ Destination: XRPL_PAY_TO, Amount: { ...RLUSD_ISSUE, value: '0.001' } }).blob },
      }),
    });
    expect(res.status).toBe(200);
    expect((await json(res)).receipt).toMatchObject({
      endpoint: '/api/v1/xrpl/fx-rate',
      currency: 'RLUSD',
      amount: '0.001',
      network: 'xrpl',
      merchant: XRPL_PAY_TO,
    });
    expect(decodeHeader(res.headers.get('PAYMENT-RESPONSE'))).toMatchObject({ success: true, network: 'xrpl:0' });
    const wrongIssuer = await get(app, '/api/v1/xrpl/fx-rate', {
      'PAYMENT-SIGNATURE': encodeBase64Json({
        x402Version: 2,
        accepted: { ...offer!.v2, extra: { ...offer!.v2.extra, issuer: 'rEvil' } },
        payload: { signedTxBlob: '12' },
      }),
    });
    expect((await json(wrongIssuer)).reason).toBe('requirements_mismatch');
  });
});

describe('concurrency', () => {
  it('fifty concurrent requests over HTTP with one payment: exactly one 200', async () => {
    const { app, paywall, served } = setup();
    const server = await serveOnLoopback(app);
    try {
      const headers = paymentFor(paywall);
      const responses = await Promise.all(Array.from({ length: 50 }, () => fetch(`${server.url}/api/v1/fx-rate`, { headers })));
      const statuses = responses.map((r) => r.status);
      const bodies = await Promise.all(responses.map((r) => json(r)));
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 402)).toHaveLength(49);
      expect(bodies.filter((b) => b.reason === 'nonce_used')).toHaveLength(49);
      expect(served.count).toBe(1);
    } finally {
      await server.close();
    }
  });
});
