/**
 * Solana and XRPL payments against the real korea service app (proxy/serve.ts createServiceApp
 * over demo snapshots, SETTLEMENT=local, HTTP on loopback): the official @x402/svm client pays a
 * paid endpoint (with a loopback Solana JSON-RPC node for the mint and the blockhash), a Payment
 * signed with the xrpl library pays its /api/v1/xrpl/... variant, and a replay of either is refused.
 * Solana transfers that would make the fee payer spend more than the network fee, or that could
 * never move USDC, are refused (issue 27): a compute-unit limit over the cap, a token-2022
 * transfer naming the classic USDC mint, a delegate-signed transfer from the fee payer's own
 * USDC account.
 */
import { rmSync } from 'node:fs';
import { serve, type ServerType } from '@hono/node-server';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedDemoSnapshots } from '../pipelines/testing/shared-demo.ts';
import { SnapshotReader } from '../snapshots/reader.ts';
import { createServiceApp } from '../proxy/serve.ts';
import { DEMO_PAY_TO, DEMO_SOLANA_FEE_PAYER, SOLANA } from './networks.ts';
import { verifyReceipt } from './receipts.ts';
import { decodeHeader, json, testPaymentParts } from './testing/paywall.ts';
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { address } from '@solana/kit';
import { MAX_COMPUTE_UNIT_LIMIT, TOKEN_2022_PROGRAM_ADDRESS } from './solana.ts';
import {
  chainPaymentHeader,
  fakeSolanaRpc,
  type FakeSolanaRpc,
  SOLANA_PAYER,
  solanaPayerSigner,
  solanaTransfer,
  type SolanaTransferOptions,
  XRPL_PAYER_WALLET,
  xrplPayment,
} from './testing/chains.ts';

let root: string;
let reader: SnapshotReader;
let server: ServerType;
let url = '';
let rpc: FakeSolanaRpc;
let publicKey = '';

beforeAll(async () => {
  const shared = await sharedDemoSnapshots('chains-service-');
  root = shared.root;
  const settings = shared.settings;
  reader = new SnapshotReader(settings.snapshotsDir, 'korea');
  await reader.refresh();
  const parts = { ...testPaymentParts(), washPatternSalt: 'chains-service-test' };
  publicKey = parts.signer.info.public_key;
  const app = await createServiceApp('korea', reader, settings, parts);
  server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const address = server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  rpc = await fakeSolanaRpc();
}, 240_000);

afterAll(async () => {
  await rpc?.close();
  reader?.close();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  rmSync(root, { recursive: true, force: true });
});

describe('the korea service takes Solana and XRPL payments in SETTLEMENT=local', () => {
  it('Solana: the official @x402/svm client pays kimchi-premium; the same transaction again is refused', async () => {
    const unpaid = await fetch(`${url}/api/v1/kimchi-premium?symbol=ETH`);
    expect(unpaid.status).toBe(402);
    const offer = (decodeHeader(unpaid.headers.get('PAYMENT-REQUIRED')) as { accepts: Array<Record<string, unknown>> }).accepts.find(
      (a) => a.network === SOLANA.caip2,
    );
    expect(offer).toMatchObject({ payTo: DEMO_PAY_TO.solana, extra: { feePayer: DEMO_SOLANA_FEE_PAYER } });

    let sent: string | null = null;
    const recording: typeof fetch = async (input, init) => {
      const req = new Request(input, init);
      sent ??= req.headers.get('PAYMENT-SIGNATURE');
      return fetch(req);
    };
    const client = new x402Client().register(
      SOLANA.caip2 as `${string}:${string}`,
      new ExactSvmScheme(await solanaPayerSigner(), { rpcUrl: rpc.url }),
    );
    const res = await wrapFetchWithPayment(recording, client)(`${url}/api/v1/kimchi-premium?symbol=ETH`);
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.symbol).toBe('ETH');
    expect(body.receipt).toMatchObject({ network: 'solana', payer: SOLANA_PAYER, merchant: DEMO_PAY_TO.solana, settlement: 'local' });
    expect(verifyReceipt(body.receipt, publicKey)).toMatchObject({ ok: true });

    const replay = await fetch(`${url}/api/v1/kimchi-premium?symbol=ETH`, { headers: { 'PAYMENT-SIGNATURE': sent! } });
    expect(replay.status).toBe(402);
    expect((await json(replay)).reason).toBe('nonce_used');
  });

  it('XRPL: a Payment signed with xrpl pays /api/v1/xrpl/kimchi-premium; partial payment and replay are refused', async () => {
    const unpaid = await fetch(`${url}/api/v1/xrpl/kimchi-premium?symbol=BTC`);
    const [accepted] = (decodeHeader(unpaid.headers.get('PAYMENT-REQUIRED')) as { accepts: Array<Record<string, unknown>> }).accepts;
    expect(accepted).toMatchObject({ network: 'xrpl:0', payTo: DEMO_PAY_TO.xrpl });
    const value = accepted!.amount as string;
    const amount = { currency: accepted!.asset as string, issuer: (accepted!.extra as { issuer: string }).issuer, value };
    const partial = xrplPayment({ Amount: amount, Flags: 0x00020000 });
    const refused = await fetch(`${url}/api/v1/xrpl/kimchi-premium?symbol=BTC`, {
      headers: { 'PAYMENT-SIGNATURE': chainPaymentHeader(accepted!, { signedTxBlob: partial.blob }) },
    });
    expect(refused.status).toBe(402);
    expect((await json(refused)).reason).toBe('partial_payment');

    const { blob, hash } = xrplPayment({ Amount: amount });
    const headers = { 'PAYMENT-SIGNATURE': chainPaymentHeader(accepted!, { signedTxBlob: blob }) };
    const res = await fetch(`${url}/api/v1/xrpl/kimchi-premium?symbol=BTC`, { headers });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.receipt).toMatchObject({
      network: 'xrpl',
      currency: 'RLUSD',
      amount: value,
      payer: XRPL_PAYER_WALLET.classicAddress,
      tx_hash: `local:${hash}`,
    });
    expect(verifyReceipt(body.receipt, publicKey)).toMatchObject({ ok: true });
    const replay = await fetch(`${url}/api/v1/xrpl/kimchi-premium?symbol=BTC`, { headers });
    expect((await json(replay)).reason).toBe('nonce_used');
  });
});

describe('the korea service refuses Solana transfers that make the fee payer spend or could never move USDC', () => {
  const path = '/api/v1/kimchi-premium?symbol=ETH';
  /** Sends a transfer built with @solana/kit for the offer's amount, `knobs` changed. */
  async function send(knobs: Partial<SolanaTransferOptions>): Promise<{ status: number; reason?: string; error?: string }> {
    const unpaid = await fetch(`${url}${path}`);
    const accepted = (decodeHeader(unpaid.headers.get('PAYMENT-REQUIRED')) as { accepts: Array<Record<string, unknown>> }).accepts.find(
      (a) => a.network === SOLANA.caip2,
    )!;
    const transaction = await solanaTransfer({
      signer: await solanaPayerSigner(),
      payTo: accepted.payTo as string,
      amount: BigInt(accepted.amount as string),
      ...knobs,
    });
    const res = await fetch(`${url}${path}`, { headers: { 'PAYMENT-SIGNATURE': chainPaymentHeader(accepted, { transaction }) } });
    const body = await json(res);
    if (res.status === 200) expect(body.receipt.payer).toBe(SOLANA_PAYER);
    else expect(body).not.toHaveProperty('receipt');
    return { status: res.status, reason: body.reason, error: body.error };
  }

  it(`a compute-unit limit over ${MAX_COMPUTE_UNIT_LIMIT} is refused (1.4M at the price cap would cost the fee payer 0.007 SOL); the cap itself is served`, async () => {
    for (const units of [1_400_000, MAX_COMPUTE_UNIT_LIMIT + 1]) {
      const res = await send({ units, microLamports: 5_000_000n });
      expect(res).toMatchObject({ status: 402, reason: 'compute_limit_too_high' });
      expect(res.error).toMatch(`compute unit limit is ${units}; at most ${MAX_COMPUTE_UNIT_LIMIT}`);
    }
    expect((await send({ units: MAX_COMPUTE_UNIT_LIMIT, microLamports: 5_000_000n })).status).toBe(200);
  });

  it('a token-2022 transfer naming the classic USDC mint is refused: only spl-token moves it', async () => {
    expect(SOLANA.usdc.tokenProgram).toBe(TOKEN_PROGRAM_ADDRESS);
    const res = await send({ tokenProgram: TOKEN_2022_PROGRAM_ADDRESS });
    expect(res).toMatchObject({ status: 402, reason: 'asset_mismatch' });
    expect(res.error).toMatch(`calls token program ${TOKEN_2022_PROGRAM_ADDRESS}`);
    expect((await send({ tokenProgram: TOKEN_PROGRAM_ADDRESS })).status).toBe(200);
  });

  it("a delegate-signed transfer from the fee payer's own USDC account is refused", async () => {
    const [feePayerUsdc] = await findAssociatedTokenPda({
      owner: address(DEMO_SOLANA_FEE_PAYER),
      mint: address(SOLANA.usdc.mint),
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    });
    // the payer signs as a delegate of the fee payer's account: the fee payer itself signs nothing but the fee
    const res = await send({ source: feePayerUsdc });
    expect(res).toMatchObject({ status: 402, reason: 'invalid_fee_payer' });
    expect(res.error).toMatch(`draws on ${feePayerUsdc}, the fee payer's own USDC account`);
  });
});
