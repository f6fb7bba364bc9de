/**
 * XRPL `exact` payments (RLUSD) verified in-process (xrpl.ts) behind the paywall on the
 * /api/v1/xrpl/... variants, over HTTP on loopback: a Payment signed with the `xrpl` library is
 * accepted once, and every refusal names its reason. With XRPL_RPC_URL (a loopback JSON-RPC
 * server) LastLedgerSequence is held to the open ledger's window.
 */
import { ECDSA, Wallet } from 'xrpl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PAY_TO, XRPL } from './networks.ts';
import type { Paywall } from './paywall.ts';
import { verifyReceipt } from './receipts.ts';
import { decodeHeader, json, localPaywall, paidApp, serveOnLoopback, type ServedApp } from './testing/paywall.ts';
import { chainPaymentHeader, fakeXrplRpc, XRPL_PAYER_WALLET, xrplPayment } from './testing/chains.ts';
import { compareDecimal, TF_FULLY_CANONICAL_SIG, TF_PARTIAL_PAYMENT } from './xrpl.ts';

const PRICES = { 'fx-rate': '0.01' };
const PATH = '/api/v1/xrpl/fx-rate';
/** A valid classic address that is neither the pay-to nor the issuer. */
const OTHER = Wallet.fromSeed('sEd7rBGm5kxzauRTAV2hbsNz7N45X91').classicAddress;
const RLUSD = (value: string, issuer = XRPL.rlusd.issuer, currency = XRPL.rlusd.currency) => ({ currency, issuer, value });

async function start(paywall: Paywall, served: { count: number }) {
  return serveOnLoopback(paidApp(paywall, { service: 'korea', served, prices: PRICES }));
}

async function payWith(server: ServedApp, blob: string, served: { count: number }) {
  const res0 = await fetch(`${server.url}${PATH}`);
  const accepted = (decodeHeader(res0.headers.get('PAYMENT-REQUIRED')) as { accepts: Array<Record<string, unknown>> }).accepts[0]!;
  const before = served.count;
  const res = await fetch(`${server.url}${PATH}`, {
    headers: { 'PAYMENT-SIGNATURE': chainPaymentHeader(accepted, { signedTxBlob: blob }) },
  });
  const body = await json(res);
  if (res.status !== 200) expect(served.count, 'nothing is served on a refusal').toBe(before);
  return { status: res.status, reason: body.reason as string, error: body.error as string, body, headers: res.headers };
}

describe('XRPL payments in SETTLEMENT=local (no XRPL server)', () => {
  let server: ServedApp;
  let paywall: Paywall;
  const served = { count: 0 };
  beforeAll(async () => {
    paywall = localPaywall({ settings: { settlement: 'local', payTo: { evm: null, solana: null, xrpl: null }, trustProxy: false } });
    server = await start(paywall, served);
  });
  afterAll(() => server.close());

  it('a Payment signed with the xrpl library buys one response; its replay is refused', async () => {
    const { blob, hash } = xrplPayment();
    const paid = await payWith(server, blob, served);
    expect(paid.status).toBe(200);
    expect(paid.body.receipt).toMatchObject({
      network: 'xrpl',
      currency: 'RLUSD',
      amount: '0.01',
      payer: XRPL_PAYER_WALLET.classicAddress,
      merchant: DEMO_PAY_TO.xrpl,
      tx_hash: `local:${hash}`,
      endpoint: PATH,
    });
    expect(verifyReceipt(paid.body.receipt, paywall.signer.public_key)).toMatchObject({ ok: true });
    expect(decodeHeader(paid.headers.get('PAYMENT-RESPONSE'))).toMatchObject({
      success: true,
      network: 'xrpl:0',
      payer: XRPL_PAYER_WALLET.classicAddress,
    });
    expect(await payWith(server, blob, served)).toMatchObject({ status: 402, reason: 'nonce_used' });
  });

  it('"0.010", a same-issue SendMax and a fresh secp256k1 wallet are all accepted', async () => {
    expect((await payWith(server, xrplPayment({ Amount: RLUSD('0.010'), Sequence: 8 }).blob, served)).status).toBe(200);
    expect((await payWith(server, xrplPayment({ SendMax: RLUSD('0.0101'), Sequence: 10 }).blob, served)).status).toBe(200);
    const fresh = Wallet.generate(ECDSA.secp256k1);
    const paid = await payWith(server, xrplPayment({ Flags: TF_FULLY_CANONICAL_SIG }, fresh).blob, served);
    expect(paid.status).toBe(200);
    expect(paid.body.receipt.payer).toBe(fresh.classicAddress);
  });

  it.each([
    ['tfPartialPayment', { Flags: TF_PARTIAL_PAYMENT }, 'partial_payment', /tfPartialPayment/],
    ['Paths', { Paths: [[{ currency: 'USD', issuer: XRPL.rlusd.issuer }]] }, 'path_payment', /Paths/],
    // the xrpl library signs DeliverMin only together with tfPartialPayment, which is refused first
    ['DeliverMin', { DeliverMin: RLUSD('0.005'), Flags: TF_PARTIAL_PAYMENT }, 'partial_payment', /tfPartialPayment/],
    ['SendMax in XRP', { SendMax: '1000000' }, 'path_payment', /cross-currency/],
    ['SendMax below the amount', { SendMax: RLUSD('0.005') }, 'path_payment', /below the amount/],
    ['wrong issuer', { Amount: RLUSD('0.01', OTHER) }, 'asset_mismatch', new RegExp(`issued by ${OTHER}`)],
    ['wrong currency', { Amount: RLUSD('0.01', XRPL.rlusd.issuer, 'USD') }, 'asset_mismatch', /currency USD/],
    ['XRP instead of RLUSD', { Amount: '10000' }, 'asset_mismatch', /moves XRP/],
    ['value 0.0099 vs 0.01', { Amount: RLUSD('0.0099') }, 'amount_mismatch', /delivers 0.0099 RLUSD, this endpoint costs exactly 0.01/],
    ['value 0.011 vs 0.01', { Amount: RLUSD('0.011') }, 'amount_mismatch', /0.011/],
    ['wrong destination', { Destination: OTHER }, 'recipient_mismatch', new RegExp(`goes to ${OTHER}`)],
    [
      'not a Payment',
      { TransactionType: 'AccountSet', Destination: undefined, Amount: undefined },
      'invalid_transaction',
      /AccountSet, not a Payment/,
    ],
    ['Memos', { Memos: [{ Memo: { MemoData: 'ABCD' } }] }, 'invalid_transaction', /carries Memos/],
    ['no LastLedgerSequence', { LastLedgerSequence: undefined }, 'invalid_transaction', /no LastLedgerSequence/],
    ['NetworkID', { NetworkID: 1025 }, 'invalid_transaction', /NetworkID/],
  ] as const)('%s → 402 %s', async (_name, overrides, reason, message) => {
    const res = await payWith(server, xrplPayment(overrides as Record<string, unknown>).blob, served);
    expect(res).toMatchObject({ status: 402, reason });
    expect(res.error).toMatch(message);
  });

  it('a tampered blob (bad signature), a blob signed by another key and a multi-signed shape are refused', async () => {
    const { blob } = xrplPayment({ Sequence: 20 });
    // Sequence 20 = 0x14 is encoded as 2400000014: make it 21 without re-signing
    const tampered = blob.replace('2400000014', '2400000015');
    expect(tampered).not.toBe(blob);
    expect(await payWith(server, tampered, served)).toMatchObject({ status: 402, reason: 'invalid_signature' });
    const other = Wallet.generate();
    const stolen = xrplPayment({ Account: XRPL_PAYER_WALLET.classicAddress }, other).blob;
    const res = await payWith(server, stolen, served);
    expect(res).toMatchObject({ status: 402, reason: 'invalid_signature' });
    expect(res.error).toMatch(`signed by the key of ${other.classicAddress}`);
    expect(await payWith(server, 'zz', served)).toMatchObject({ status: 402, reason: 'malformed_payload' });
    expect(await payWith(server, 'ABCDEF', served)).toMatchObject({ status: 402, reason: 'malformed_payload' });
  });

  it('decimal comparison is exact and never a float', () => {
    expect(compareDecimal('0.010', '0.01')).toBe(0);
    expect(compareDecimal('1e-2', '0.01')).toBe(0);
    expect(compareDecimal('0.1', '0.10000000000000001')).toBe(-1);
    expect(compareDecimal('0.0099', '0.01')).toBe(-1);
    expect(compareDecimal('abc', '0.01')).toBeNull();
  });
});

describe('XRPL payments with XRPL_RPC_URL: LastLedgerSequence within the open ledger window', () => {
  it('accepts inside the window, refuses a passed one, one too far ahead, and an unreachable server', async () => {
    const rpc = await fakeXrplRpc({ current: 95_000_000, sequence: 7 });
    const served = { count: 0 };
    const paywall = localPaywall({
      settings: {
        settlement: 'local',
        payTo: { evm: null, solana: null, xrpl: null },
        trustProxy: false,
        upstreams: { XRPL_RPC_URL: rpc.url },
      },
    });
    const server = await start(paywall, served);
    try {
      // maxTimeoutSeconds 300 → at most ceil(300 / 5) + 2 = 62 ledgers ahead
      expect((await payWith(server, xrplPayment({ LastLedgerSequence: 95_000_062 }).blob, served)).status).toBe(200);
      expect(await payWith(server, xrplPayment({ LastLedgerSequence: 95_000_063, Sequence: 8 }).blob, served)).toMatchObject({
        status: 402,
        reason: 'validity_too_long',
      });
      expect(await payWith(server, xrplPayment({ LastLedgerSequence: 94_999_999, Sequence: 9 }).blob, served)).toMatchObject({
        status: 402,
        reason: 'expired',
      });
      expect(rpc.count({ rpcMethod: 'ledger_current' })).toBeGreaterThanOrEqual(1);
    } finally {
      await server.close();
      await rpc.close();
    }
    const down = localPaywall({
      settings: {
        settlement: 'local',
        payTo: { evm: null, solana: null, xrpl: null },
        trustProxy: false,
        upstreams: { XRPL_RPC_URL: rpc.url },
      },
    });
    const server2 = await start(down, served);
    try {
      expect(await payWith(server2, xrplPayment({ Sequence: 30 }).blob, served)).toMatchObject({
        status: 402,
        reason: 'ledger_unavailable',
      });
    } finally {
      await server2.close();
    }
  });
});
