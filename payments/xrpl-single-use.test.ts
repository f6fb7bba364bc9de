/**
 * XRPL single use on (Account, Sequence) or (Account, TicketSequence), as the ledger applies at
 * most one transaction per account sequence or ticket (issue 27, finding 1: keyed on the
 * transaction hash, the same Payment re-signed with another Fee, LastLedgerSequence or InvoiceID
 * bought a second answer). Through the production wiring (processParts and createServiceApp from
 * proxy/serve.ts over the demo korea snapshot, real HTTP on loopback), with Payments signed by the
 * `xrpl` library, in every nonce store: memory, LMDB in a temp directory, Redis on a free port.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings, type Settings } from '../lib/config.ts';
import { sharedDemoSnapshots } from '../pipelines/testing/shared-demo.ts';
import { SnapshotReader } from '../snapshots/reader.ts';
import { createServiceApp, processParts, type ProcessParts } from '../proxy/serve.ts';
import { memoryStores } from '../proxy/stores.ts';
import { redisInstalled, startRedis, type TestRedis } from '../proxy/testing/redis.ts';
import { decodeHeader, json, type LooseJson, serveOnLoopback, type ServedApp } from './testing/paywall.ts';
import { chainPaymentHeader, XRPL_PAYER_WALLET, xrplPayment } from './testing/chains.ts';

let root: string;
let base: Record<string, string>;

beforeAll(async () => {
  const shared = await sharedDemoSnapshots('xrpl-single-use-');
  root = shared.root;
  // the run's shared demo snapshots (read-only); keys, nonces and site in the test's own root
  base = {
    SITE_BUILD: 'off',
    SNAPSHOTS_DIR: shared.settings.snapshotsDir,
    WAREHOUSE_DIR: shared.settings.warehouseDir,
    KEYS_DIR: join(root, 'k'),
    NONCE_DB_DIR: join(root, 'nonces'),
    SITE_DIR: join(root, 'site'),
    CRYPTO_WORKERS: '0',
  };
}, 240_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The korea service as `npm run serve` builds it, with the nonce store `kind` asks for. */
async function startKorea(settings: Settings, kind: 'memory' | 'lmdb' | 'redis'): Promise<ServedApp & { parts: ProcessParts }> {
  let parts = processParts(settings);
  if (kind === 'memory') {
    await parts.stores?.close();
    const stores = memoryStores();
    parts = { ...parts, nonceStore: stores.nonceStore, rateLimit: stores.rateLimit, stores };
  }
  expect(parts.stores?.health().nonce_store).toBe(kind);
  const reader = new SnapshotReader(settings.snapshotsDir, 'korea');
  await reader.refresh();
  const served = await serveOnLoopback(await createServiceApp('korea', reader, settings, parts));
  return {
    ...served,
    parts,
    close: async () => {
      await served.close();
      reader.close();
      await parts.stores?.close();
    },
  };
}

/** Sends one Payment (fields over xrplPayment's defaults) to an XRPL variant path, priced as that path's 402 says. */
async function pay(
  server: ServedApp,
  path: string,
  fields: Record<string, unknown>,
): Promise<{ status: number; reason?: string; body: LooseJson }> {
  const unpaid = await fetch(`${server.url}${path}`);
  expect(unpaid.status).toBe(402);
  const [accepted] = (decodeHeader(unpaid.headers.get('PAYMENT-REQUIRED')) as { accepts: Array<Record<string, unknown>> }).accepts;
  const amount = { currency: accepted!.asset, issuer: (accepted!.extra as { issuer: string }).issuer, value: accepted!.amount };
  const { blob } = xrplPayment({ Amount: amount, ...fields });
  const res = await fetch(`${server.url}${path}`, {
    headers: { 'PAYMENT-SIGNATURE': chainPaymentHeader(accepted!, { signedTxBlob: blob }) },
  });
  const body = await json(res);
  return { status: res.status, reason: body.reason, body };
}

const installed = redisInstalled();
if (!installed) console.warn('SKIPPED: /usr/bin/redis-server is not installed; the Redis case of XRPL single use is untested');

describe.each(['memory', 'lmdb', 'redis'] as const)('XRPL single use in the %s nonce store', (kind) => {
  let server: ServedApp & { parts: ProcessParts };
  let redis: TestRedis | null = null;
  beforeAll(async () => {
    if (kind === 'redis' && !installed) return;
    const env = { ...base, NONCE_DB_DIR: join(root, `nonces-${kind}`) };
    if (kind === 'redis') redis = await startRedis({ appendonly: true }); // the server refuses a Redis without persistence
    server = await startKorea(loadSettings(redis ? { ...env, REDIS_URL: redis.url } : env), kind);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await redis?.close();
  });

  it.skipIf(kind === 'redis' && !installed)(
    'the same Account and Sequence re-signed with another Fee, LastLedgerSequence or an InvoiceID is refused, on this endpoint and others; other Sequences are served',
    async () => {
      const first = await pay(server, '/api/v1/xrpl/fx-rate', { Sequence: 40, Fee: '12' });
      expect(first.status).toBe(200);
      expect(first.body.receipt.payer).toBe(XRPL_PAYER_WALLET.classicAddress);

      const twins: Array<[string, Record<string, unknown>]> = [
        ['/api/v1/xrpl/fx-rate', { Sequence: 40, Fee: '15' }],
        ['/api/v1/xrpl/kimchi-premium?symbol=ETH', { Sequence: 40, LastLedgerSequence: 95_000_500 }],
        ['/api/v1/xrpl/kr-prices', { Sequence: 40, InvoiceID: 'AB'.repeat(32) }],
      ];
      for (const [path, fields] of twins) {
        const twin = await pay(server, path, fields);
        expect({ path, status: twin.status, reason: twin.reason }).toEqual({ path, status: 402, reason: 'nonce_used' });
        expect(twin.body.error).toMatch(`a Payment from ${XRPL_PAYER_WALLET.classicAddress} with Sequence 40 `);
        expect(twin.body.error).toMatch(/ was already used for a response; /);
        expect(twin.body).not.toHaveProperty('receipt');
      }
      // other Sequences of the same account are other payments
      expect((await pay(server, '/api/v1/xrpl/fx-rate', { Sequence: 41 })).status).toBe(200);
      expect((await pay(server, '/api/v1/xrpl/kimchi-premium', { Sequence: 42 })).status).toBe(200);
    },
  );

  it.skipIf(kind === 'redis' && !installed)('a TicketSequence used twice is refused; other tickets and sequences are served', async () => {
    expect((await pay(server, '/api/v1/xrpl/fx-rate', { Sequence: 0, TicketSequence: 900 })).status).toBe(200);
    const again = await pay(server, '/api/v1/xrpl/stablecoin-premium', { Sequence: 0, TicketSequence: 900, Fee: '20' });
    expect(again).toMatchObject({ status: 402, reason: 'nonce_used' });
    expect(again.body.error).toMatch(/with TicketSequence 900 .* was already used for a response; /);
    // a ticket number is not a Sequence number: Sequence 900 is another slot of the account
    expect((await pay(server, '/api/v1/xrpl/fx-rate', { Sequence: 900 })).status).toBe(200);
    expect((await pay(server, '/api/v1/xrpl/fx-rate', { Sequence: 0, TicketSequence: 901 })).status).toBe(200);
  });
});
