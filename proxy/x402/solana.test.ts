/**
 * Solana `exact` payments verified in-process (solana.ts) behind the paywall, over HTTP on
 * loopback: the official @x402/svm client pays (it reads the mint and the latest blockhash from a
 * loopback Solana JSON-RPC node), and every refusal names its reason.
 */
import { createHash } from 'node:crypto';
import { getBase58Decoder } from '@solana/kit';
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalDecimal, DEMO_PAY_TO, DEMO_SOLANA_FEE_PAYER, SOLANA, toAtomicUnits } from './networks.ts';
import type { Paywall } from './paywall.ts';
import { verifyReceipt } from './receipts.ts';
import { endpoint, json, localPaywall, paidApp, serveOnLoopback, type ServedApp } from './testing.ts';
import {
  chainPaymentHeader,
  fakeSolanaRpc,
  SOLANA_PAYER,
  solanaPayerSigner,
  solanaTransfer,
  type FakeSolanaRpc,
} from './testing/chains.ts';

const price = canonicalDecimal(endpoint('korea', 'fx-rate').priceUsd!);
const amount = BigInt(toAtomicUnits(price, 6));

describe('Solana payments in SETTLEMENT=local', () => {
  let server: ServedApp;
  let rpc: FakeSolanaRpc;
  let paywall: Paywall;
  const served = { count: 0 };
  beforeAll(async () => {
    rpc = await fakeSolanaRpc();
    paywall = localPaywall({ settings: { settlement: 'local', payTo: { evm: null, solana: null, xrpl: null }, trustProxy: false } });
    server = await serveOnLoopback(paidApp(paywall, { service: 'korea', served }));
  });
  afterAll(async () => {
    await server.close();
    await rpc.close();
  });

  it('the demo fee payer is derived like the demo pay-to addresses (nobody holds its key)', () => {
    expect(getBase58Decoder().decode(createHash('sha256').update('kr-x402 demo fee payer solana').digest())).toBe(DEMO_SOLANA_FEE_PAYER);
  });

  it('the official @x402/svm client pays: 200 with a receipt naming the payer', async () => {
    const res0 = await fetch(`${server.url}/api/v1/fx-rate`);
    const offer = (await json(res0)).accepts.find((a: { network: string }) => a.network === 'solana');
    expect(offer.extra).toEqual({ feePayer: DEMO_SOLANA_FEE_PAYER });
    const client = new x402Client().register(SOLANA.caip2, new ExactSvmScheme(await solanaPayerSigner(), { rpcUrl: rpc.url }));
    const res = await wrapFetchWithPayment(fetch, client)(`${server.url}/api/v1/fx-rate`);
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.receipt).toMatchObject({
      network: 'solana',
      payer: SOLANA_PAYER,
      merchant: DEMO_PAY_TO.solana,
      amount: price,
      currency: 'USDC',
    });
    expect(body.receipt.tx_hash).toMatch(/^local:0x[0-9a-f]{64}$/);
    expect(verifyReceipt(body.receipt, paywall.signer.public_key)).toMatchObject({ ok: true });
    expect(decodePaymentResponseHeader(res.headers.get('PAYMENT-RESPONSE')!)).toMatchObject({
      success: true,
      network: SOLANA.caip2,
      payer: SOLANA_PAYER,
    });
    expect(rpc.count({ rpcMethod: 'getLatestBlockhash' })).toBe(1);
  });
});
