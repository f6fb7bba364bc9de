/**
 * The official x402 client (@x402/fetch + @x402/evm + a viem account) pays the real service apps,
 * served over HTTP on loopback from demo snapshots with SETTLEMENT=local: korea on the v2 header
 * path (PAYMENT-REQUIRED → PAYMENT-SIGNATURE) and the v1 body path (X-PAYMENT), analytics on a
 * paid GET and the POST wash check. Every answer is checked against the catalog's response schema
 * and its receipt against the published /.well-known/x402 key.
 */
import { rmSync } from 'node:fs';
import { serve, type ServerType } from '@hono/node-server';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { ExactEvmSchemeV1 } from '@x402/evm/exact/v1/client';
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findEndpoint } from '../catalog/index.ts';
import type { Settings } from '../lib/config.ts';
import { sharedDemoSnapshots } from '../pipelines/testing/shared-demo.ts';
import { SnapshotReader } from '../snapshots/reader.ts';
import { createServiceApp, processParts } from './serve.ts';
import { verifyReceipt } from '../payments/receipts.ts';

const account = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');

let root: string;
let settings: Settings;
const servers: Array<{ server: ServerType; reader: SnapshotReader }> = [];
const urls: Record<'korea' | 'analytics', string> = { korea: '', analytics: '' };

/** A v1-only server as the client sees it: the 402 without the v2 header. */
const v1Only: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  if (res.status !== 402) return res;
  const headers = new Headers(res.headers);
  headers.delete('PAYMENT-REQUIRED');
  return new Response(await res.text(), { status: 402, headers });
};

beforeAll(async () => {
  ({ root, settings } = await sharedDemoSnapshots('official-client-'));
  const parts = processParts(settings);
  for (const service of ['korea', 'analytics'] as const) {
    const reader = new SnapshotReader(settings.snapshotsDir, service);
    await reader.refresh();
    const app = await createServiceApp(service, reader, settings, parts);
    const server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    const address = server.address();
    urls[service] = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    servers.push({ server, reader });
  }
}, 240_000);

afterAll(async () => {
  for (const { server, reader } of servers) {
    reader.close();
    await new Promise<void>((r) => server.close(() => r()));
  }
  rmSync(root, { recursive: true, force: true });
});

async function signerOf(service: 'korea' | 'analytics'): Promise<string> {
  const manifest = (await (await fetch(`${urls[service]}/.well-known/x402`)).json()) as { receipt_signer: { public_key: string } };
  return manifest.receipt_signer.public_key;
}

describe('the official x402 client pays our proxy', () => {
  it('korea, v2 header path on base', async () => {
    const pay = wrapFetchWithPayment(fetch, registerExactEvmScheme(new x402Client(), { signer: account }));
    const res = await pay(`${urls.korea}/api/v1/kimchi-premium?symbol=XRP`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { symbol: string; receipt: Record<string, string> };
    expect(body.symbol).toBe('XRP');
    expect(findEndpoint('korea', 'kimchi-premium')!.response.safeParse(body).success).toBe(true);
    expect(body.receipt).toMatchObject({ network: 'base', payer: account.address, amount: '0.001', endpoint: '/api/v1/kimchi-premium' });
    expect(verifyReceipt(body.receipt, await signerOf('korea'))).toMatchObject({ ok: true });
    expect(decodePaymentResponseHeader(res.headers.get('PAYMENT-RESPONSE')!)).toMatchObject({ success: true, network: 'eip155:8453' });
  });

  it('korea, parameters spelt loosely: the 402 names them validated, and the payment echoing that resource is served', async () => {
    const pay = wrapFetchWithPayment(fetch, registerExactEvmScheme(new x402Client(), { signer: account }));
    const res = await pay(`${urls.korea}/api/v1/kr-prices?symbol=%20eth&exchange=UPBIT`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { symbol: string; exchange: string; receipt: Record<string, string> };
    expect(findEndpoint('korea', 'kr-prices')!.response.safeParse(body).success).toBe(true);
    expect(body.receipt).toMatchObject({ network: 'base', endpoint: '/api/v1/kr-prices' });
  });

  it('korea, v1 body path on polygon', async () => {
    const client = new x402Client().registerV1('polygon', new ExactEvmSchemeV1(account));
    const res = await wrapFetchWithPayment(v1Only, client)(`${urls.korea}/api/v1/market-movers`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { receipt: Record<string, string> };
    expect(findEndpoint('korea', 'market-movers')!.response.safeParse(body).success).toBe(true);
    expect(body.receipt).toMatchObject({ network: 'polygon', amount: '0.01' });
    expect(decodePaymentResponseHeader(res.headers.get('X-PAYMENT-RESPONSE')!)).toMatchObject({ success: true, network: 'polygon' });
  });

  it('analytics, a paid GET and the POST wash check on base', async () => {
    const pay = wrapFetchWithPayment(fetch, registerExactEvmScheme(new x402Client(), { signer: account }));
    const history = await pay(`${urls.analytics}/api/v1/categories/ai_inference/full-history`);
    expect(history.status).toBe(200);
    expect(findEndpoint('analytics', 'categories.full-history')!.response.safeParse(await history.json()).success).toBe(true);

    const check = await pay(`${urls.analytics}/api/v1/wash/check`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ address: account.address }),
    });
    expect(check.status).toBe(200);
    const body = (await check.json()) as { address: string; label: string; receipt: Record<string, string> };
    expect(body.label).toBe('unlabeled'); // the paying test wallet never bought anything in the demo world
    expect(body.receipt.amount).toBe('0.05');
    expect(verifyReceipt(body.receipt, await signerOf('analytics'))).toMatchObject({ ok: true });
  });
});
