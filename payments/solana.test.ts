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
import { FacilitatorClient } from './facilitator.ts';
import {
  decodeHeader,
  endpoint,
  fakeFacilitator,
  json,
  localPaywall,
  paidApp,
  serveOnLoopback,
  type ServedApp,
} from './testing/paywall.ts';
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
    const client = new x402Client().register(
      SOLANA.caip2 as `${string}:${string}`,
      new ExactSvmScheme(await solanaPayerSigner(), { rpcUrl: rpc.url }),
    );
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

  /** The solana entry of the endpoint's v2 offer, as a client echoes it in `accepted`. */
  async function accepted(path = '/api/v1/fx-rate'): Promise<Record<string, unknown>> {
    const res = await fetch(`${server.url}${path}`);
    const required = decodeHeader(res.headers.get('PAYMENT-REQUIRED')) as { accepts: Array<Record<string, unknown>> };
    return required.accepts.find((a) => a.network === SOLANA.caip2)!;
  }

  async function payWith(transaction: string): Promise<{ status: number; reason: string; error: string }> {
    const before = served.count;
    const res = await fetch(`${server.url}/api/v1/fx-rate`, {
      headers: { 'PAYMENT-SIGNATURE': chainPaymentHeader(await accepted(), { transaction }) },
    });
    const body = await json(res);
    if (res.status !== 200) expect(served.count, 'nothing is served on a refusal').toBe(before);
    return { status: res.status, reason: body.reason, error: body.error };
  }

  const transfer = async (o: Partial<Parameters<typeof solanaTransfer>[0]> = {}) =>
    solanaTransfer({ signer: await solanaPayerSigner(), payTo: DEMO_PAY_TO.solana, amount, ...o });

  it('a transfer built by hand like the reference client is accepted once; its replay is refused', async () => {
    const tx = await transfer();
    expect((await payWith(tx)).status).toBe(200);
    expect(await payWith(tx)).toMatchObject({ status: 402, reason: 'nonce_used' });
  });

  it.each([
    ['wrong mint', { mint: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB' }, 'asset_mismatch', /mint Es9vMF/],
    ['wrong decimals', { decimals: 9 }, 'asset_mismatch', /9 decimals/],
    ['wrong destination', { destination: DEMO_SOLANA_FEE_PAYER.replace(/^C/, 'D') }, 'recipient_mismatch', /associated token account of/],
    ['destination the ATA of someone else', { payTo: SOLANA_PAYER }, 'recipient_mismatch', /token account/],
    ['one unit short', { amount: amount - 1n }, 'amount_mismatch', new RegExp(`moves ${amount - 1n} atomic units`)],
    ['one unit more', { amount: amount + 1n }, 'amount_mismatch', /costs exactly/],
    ['fee payer as authority', { authority: DEMO_SOLANA_FEE_PAYER }, 'invalid_fee_payer', /is the transfer's authority/],
    ['another fee payer', { feePayer: SOLANA_PAYER.replace(/^./, 'A') }, 'invalid_fee_payer', /extra.feePayer is/],
    ['compute price over the cap', { microLamports: 5_000_001n }, 'compute_price_too_high', /5000001 micro-lamports/],
    [
      'a program other than Lighthouse or Memo after the transfer',
      { after: [{ programAddress: SOLANA_PAYER as never }] },
      'invalid_transaction',
      /instruction 4/,
    ],
  ] as const)('%s → 402 %s', async (_name, knobs, reason, message) => {
    const res = await payWith(await transfer(knobs as never));
    expect(res).toMatchObject({ status: 402, reason });
    expect(res.error).toMatch(message);
  });

  it('the fee payer at the cap of 5 lamports per compute unit is accepted', async () => {
    expect((await payWith(await transfer({ microLamports: 5_000_000n }))).status).toBe(200);
  });

  it('a bad signature, a tampered message and an unsigned transfer are refused as invalid_signature', async () => {
    const bytes = Buffer.from(await transfer(), 'base64');
    const badSig = Buffer.from(bytes);
    badSig[1 + 64 + 5]! ^= 1; // second signature slot: the authority's
    expect(await payWith(badSig.toString('base64'))).toMatchObject({ status: 402, reason: 'invalid_signature' });
    // the byte before the last (the address-table count) is the memo's last: the message still decodes, the signature no longer covers it
    const tampered = Buffer.from(bytes);
    tampered[tampered.length - 2]! ^= 1;
    expect(await payWith(tampered.toString('base64'))).toMatchObject({ status: 402, reason: 'invalid_signature' });
    const unsigned = Buffer.from(bytes);
    unsigned.fill(0, 65, 129);
    expect(await payWith(unsigned.toString('base64'))).toMatchObject({ status: 402, reason: 'invalid_signature' });
  });

  it('not a transaction at all is malformed_payload, and nothing crashes', async () => {
    expect(await payWith('AAAA')).toMatchObject({ status: 402, reason: 'malformed_payload' });
    expect(await payWith(Buffer.from('hello world, no transaction').toString('base64'))).toMatchObject({
      status: 402,
      reason: 'malformed_payload',
    });
  });
});

describe('Solana payments in SETTLEMENT=facilitator', () => {
  it('are checked in-process first: a bad one never reaches /verify, a good one is verified and settled by the facilitator', async () => {
    const facilitator = await fakeFacilitator();
    const paywall = localPaywall({
      settings: { settlement: 'facilitator', payTo: { evm: null, solana: DEMO_PAY_TO.solana, xrpl: null }, trustProxy: false },
      facilitator: new FacilitatorClient({ url: facilitator.url, timeoutMs: 2000 }),
    });
    await paywall.init();
    const served = { count: 0 };
    const server = await serveOnLoopback(paidApp(paywall, { service: 'korea', served }));
    try {
      const res0 = await fetch(`${server.url}/api/v1/fx-rate`);
      const accepted = (decodeHeader(res0.headers.get('PAYMENT-REQUIRED')) as { accepts: Array<Record<string, unknown>> }).accepts[0]!;
      const feePayer = (accepted.extra as { feePayer: string }).feePayer;
      expect(feePayer).not.toBe(DEMO_SOLANA_FEE_PAYER);
      const send = async (transaction: string) =>
        fetch(`${server.url}/api/v1/fx-rate`, { headers: { 'PAYMENT-SIGNATURE': chainPaymentHeader(accepted, { transaction }) } });
      const signer = await solanaPayerSigner();
      const short = await send(await solanaTransfer({ signer, payTo: DEMO_PAY_TO.solana, amount: amount - 1n, feePayer }));
      expect((await json(short)).reason).toBe('amount_mismatch');
      const demoFeePayer = await send(await solanaTransfer({ signer, payTo: DEMO_PAY_TO.solana, amount }));
      expect((await json(demoFeePayer)).reason).toBe('invalid_fee_payer');
      expect(facilitator.loopback.count({ path: '/verify' })).toBe(0);
      const good = await send(await solanaTransfer({ signer, payTo: DEMO_PAY_TO.solana, amount, feePayer }));
      expect(good.status).toBe(200);
      expect((await json(good)).receipt).toMatchObject({ settlement: 'facilitator', payer: SOLANA_PAYER });
      expect(facilitator.loopback.requests.map((r) => r.path).filter((p) => p !== '/supported')).toEqual(['/verify', '/settle']);
      expect(served.count).toBe(1);
    } finally {
      await server.close();
      await facilitator.close();
    }
  });
});
