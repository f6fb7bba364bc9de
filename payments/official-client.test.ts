/**
 * The official x402 client (@x402/fetch 2.27 + @x402/evm exact schemes + a viem account) pays a
 * tiny Hono app guarded by our paywall, over real HTTP on loopback:
 * - v2: it reads PAYMENT-REQUIRED, signs, sends PAYMENT-SIGNATURE, reads PAYMENT-RESPONSE (base, polygon);
 * - v1: with the PAYMENT-REQUIRED header stripped (a v1-only server as the client sees it), it
 *   reads the JSON body, sends X-PAYMENT, reads X-PAYMENT-RESPONSE.
 * Solana with the official @x402/svm client is in solana.test.ts (against a loopback Solana
 * JSON-RPC node); XRPL, which has no client in @x402 2.27, in xrpl.test.ts.
 */
import { ExactEvmScheme, registerExactEvmScheme } from '@x402/evm/exact/client';
import { ExactEvmSchemeV1 } from '@x402/evm/exact/v1/client';
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client, x402HTTPClient } from '@x402/fetch';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Paywall } from './paywall.ts';
import { verifyReceipt } from './receipts.ts';
import { canonicalDecimal } from './networks.ts';
import {
  endpoint,
  json,
  localPaywall,
  MERCHANT,
  PAYER,
  PAYER_KEY_HEX,
  paidApp,
  serveOnLoopback,
  type ServedApp,
} from './testing/paywall.ts';

const priceOf = (id: string) => canonicalDecimal(endpoint('korea', id).priceUsd!);

const account = privateKeyToAccount(`0x${PAYER_KEY_HEX}`);

/** What the client sees from a server that only speaks v1: no PAYMENT-REQUIRED header on the 402. */
const v1OnlyServer: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  if (res.status !== 402) return res;
  const headers = new Headers(res.headers);
  headers.delete('PAYMENT-REQUIRED');
  return new Response(await res.text(), { status: 402, headers });
};

describe('the official x402 client pays our paywall', () => {
  let server: ServedApp;
  let paywall: Paywall;
  const served = { count: 0 };
  beforeAll(async () => {
    paywall = localPaywall();
    server = await serveOnLoopback(paidApp(paywall, { service: 'korea', served }));
  });
  afterAll(() => server.close());

  it('v2 (PAYMENT-REQUIRED → PAYMENT-SIGNATURE → PAYMENT-RESPONSE) on base', async () => {
    const client = registerExactEvmScheme(new x402Client(), { signer: account });
    const pay = wrapFetchWithPayment(fetch, client);
    const res = await pay(`${server.url}/api/v1/kimchi-premium?symbol=BTC`);
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ endpoint: 'kimchi-premium', value: 42 });
    expect(body.receipt).toMatchObject({
      network: 'base',
      payer: PAYER,
      merchant: MERCHANT,
      amount: priceOf('kimchi-premium'),
      endpoint: '/api/v1/kimchi-premium',
    });
    expect(verifyReceipt(body.receipt, paywall.signer.public_key)).toMatchObject({ ok: true });
    const settle = new x402HTTPClient(client).getPaymentSettleResponse((name) => res.headers.get(name));
    expect(settle).toMatchObject({ success: true, network: 'eip155:8453', payer: PAYER, transaction: body.receipt.tx_hash });
    expect(res.headers.get('X-PAYMENT-RESPONSE')).toBeNull();
  });

  it('v2 on polygon when the client registers only eip155:137', async () => {
    const client = new x402Client().register('eip155:137', new ExactEvmScheme(account));
    const res = await wrapFetchWithPayment(fetch, client)(`${server.url}/api/v1/arbitrage-scanner`);
    expect(res.status).toBe(200);
    expect((await json(res)).receipt).toMatchObject({ network: 'polygon', amount: priceOf('arbitrage-scanner') });
    expect(decodePaymentResponseHeader(res.headers.get('PAYMENT-RESPONSE')!)).toMatchObject({ success: true, network: 'eip155:137' });
  });

  it('v1 (JSON body → X-PAYMENT → X-PAYMENT-RESPONSE) on base and polygon', async () => {
    for (const name of ['base', 'polygon']) {
      const price = priceOf('kr-sentiment');
      const client = new x402Client().registerV1(name, new ExactEvmSchemeV1(account));
      const res = await wrapFetchWithPayment(v1OnlyServer, client)(`${server.url}/api/v1/kr-sentiment`);
      expect(res.status).toBe(200);
      const body = await json(res);
      expect(body.receipt).toMatchObject({ network: name, amount: price, payer: PAYER });
      expect(decodePaymentResponseHeader(res.headers.get('X-PAYMENT-RESPONSE')!)).toMatchObject({
        success: true,
        network: name,
        payer: PAYER,
      });
      expect(res.headers.get('PAYMENT-RESPONSE')).toBeNull();
    }
  });

  it('a refused payment reaches the client as a 402 with our reason in the v2 header', async () => {
    // The client signs exactly what it is offered, so a refusal is provoked by replaying its own payment.
    let firstPayment: string | null = null;
    const recording: typeof fetch = async (input, init) => {
      const req = new Request(input, init);
      firstPayment ??= req.headers.get('PAYMENT-SIGNATURE');
      return fetch(req);
    };
    const client = registerExactEvmScheme(new x402Client(), { signer: account });
    expect((await wrapFetchWithPayment(recording, client)(`${server.url}/api/v1/fx-rate`)).status).toBe(200);
    const replay = await fetch(`${server.url}/api/v1/fx-rate`, { headers: { 'PAYMENT-SIGNATURE': firstPayment! } });
    expect(replay.status).toBe(402);
    const required = new x402HTTPClient(client).getPaymentRequiredResponse((name) => replay.headers.get(name));
    expect(required.error).toMatch(/^nonce_used: /);
  });

  it('served exactly once per successful payment', () => {
    expect(served.count).toBe(5);
  });
});
