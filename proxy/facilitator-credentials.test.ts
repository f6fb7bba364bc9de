/**
 * Facilitator credentials through the wiring `npm run serve` uses: settings → processParts →
 * createServiceApp → a paid call verified and settled by loopback facilitators that check every
 * CDP JWT (payments/testing/cdp-jwt.ts), a facilitator per network, and a wrong key stopping the
 * start with a message naming the settings, never the secret.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findEndpoint } from '../catalog/index.ts';
import { loadSettings, type Settings } from '../lib/config.ts';
import { payToTable } from '../payments/networks.ts';
import { freshPaymentHeader } from '../payments/testing/bench-support.ts';
import { checkCdpJwt, jwtClaims, throwawayCdpKey } from '../payments/testing/cdp-jwt.ts';
import { fakeFacilitator, type FakeFacilitator } from '../payments/testing/paywall.ts';
import { sharedDemoSnapshots } from '../pipelines/testing/shared-demo.ts';
import { SnapshotReader } from '../snapshots/reader.ts';
import { createServiceApp, processParts } from './serve.ts';

const NOW = '2026-11-20T09:00:30Z';
const nowSeconds = Math.floor(new Date(NOW).getTime() / 1000);
const now = () => new Date(NOW);
const PAY_TO_EVM = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const key = throwawayCdpKey('ed25519');
const wrongKey = throwawayCdpKey('ed25519');

let shared: Settings;
let root: string;
let cdp: FakeFacilitator;
let bearer: FakeFacilitator;
const readers: SnapshotReader[] = [];
/** On: the CDP facilitator refuses every key (as after a revocation). */
const revoked = { on: false };

beforeAll(async () => {
  ({ root, settings: shared } = await sharedDemoSnapshots('facilitator-credentials-test-'));
  // Base's facilitator checks CDP JWTs (the JWT's clock is the real one); Polygon's a bearer token
  cdp = await fakeFacilitator({
    authorize: (req) => (revoked.on ? 'key revoked' : checkCdpJwt(req, key, new URL(cdp.url).host)),
    networks: ['eip155:8453'],
  });
  bearer = await fakeFacilitator({
    authorize: (req) => (req.headers.authorization === 'Bearer polygon-token' ? null : 'bad token'),
    networks: ['eip155:137'],
  });
}, 240_000);
afterAll(async () => {
  for (const r of readers) r.close();
  await Promise.all([cdp?.close(), bearer?.close()]);
  rmSync(root, { recursive: true, force: true });
});

function settingsWith(env: Record<string, string>): Settings {
  return loadSettings({
    SNAPSHOTS_DIR: shared.snapshotsDir,
    WAREHOUSE_DIR: shared.warehouseDir,
    KEYS_DIR: join(root, 'keys'),
    NONCE_DB_DIR: join(root, `nonces-${Math.random().toString(36).slice(2)}`),
    CRYPTO_WORKERS: '0',
    SETTLEMENT: 'facilitator',
    PAY_TO_EVM,
    ...env,
  });
}

/** The korea app as `npm run serve` builds it from the settings (its /supported calls included). */
async function start(s: Settings) {
  const parts = processParts(s, { now });
  const reader = new SnapshotReader(s.snapshotsDir, 'korea');
  readers.push(reader);
  await reader.refresh();
  try {
    return { parts, app: await createServiceApp('korea', reader, s, parts, { now }) };
  } catch (err) {
    await parts.stores?.close();
    throw err;
  }
}

function paidFx(s: Settings, network: 'base' | 'polygon') {
  const endpoint = findEndpoint('korea', 'fx-rate')!;
  const header = freshPaymentHeader({
    endpoint,
    payTo: payToTable(s),
    network,
    version: 2,
    now: nowSeconds,
    resourceUrl: `http://localhost${endpoint.path}`,
  });
  return { path: endpoint.path, headers: { [header.name]: header.value } };
}

const routed = (env: Record<string, string> = {}) =>
  settingsWith({
    FACILITATOR_URL_BASE: cdp.url,
    FACILITATOR_AUTH_BASE: 'cdp',
    CDP_API_KEY_ID: key.apiKeyId,
    CDP_API_KEY_SECRET: key.apiKeySecret,
    FACILITATOR_URL_POLYGON: bearer.url,
    FACILITATOR_AUTH_POLYGON: 'Authorization: Bearer polygon-token',
    ...env,
  });

describe('facilitator credentials, as npm run serve wires them', () => {
  it('a paid call on Base verifies and settles through the JWT-checking facilitator; Polygon goes to its own', async () => {
    cdp.loopback.reset();
    bearer.loopback.reset();
    const s = routed();
    const { parts, app } = await start(s);
    try {
      for (const network of ['base', 'polygon'] as const) {
        const paid = paidFx(s, network);
        const res = await app.request(paid.path, { headers: paid.headers });
        expect(res.status, network).toBe(200);
        expect(((await res.json()) as { receipt: { network: string; settlement: string } }).receipt).toMatchObject({
          network,
          settlement: 'facilitator',
        });
      }
      const host = new URL(cdp.url).host;
      expect(cdp.loopback.requests.map((r) => [r.path, jwtClaims(String(r.headers.authorization)).uris])).toEqual([
        ['/supported', [`GET ${host}/supported`]],
        ['/verify', [`POST ${host}/verify`]],
        ['/settle', [`POST ${host}/settle`]],
      ]);
      expect(bearer.loopback.requests.map((r) => r.path)).toEqual(['/supported', '/verify', '/settle']);
      expect(bearer.loopback.requests.every((r) => r.headers.authorization === 'Bearer polygon-token')).toBe(true);
      // /health and the discovery document say nothing of the credentials
      const health = await (await app.request('/health')).text();
      const wellKnown = await (await app.request('/.well-known/x402')).text();
      for (const text of [health, wellKnown]) {
        expect(text).not.toContain(key.apiKeySecret.slice(0, 16));
        expect(text).not.toContain('polygon-token');
      }
    } finally {
      await parts.stores?.close();
    }
  });

  it('a wrong key stops the start: the facilitator refuses /supported (401) and the message names the settings, not the secret', async () => {
    const s = routed({ CDP_API_KEY_SECRET: wrongKey.apiKeySecret });
    const failed = await start(s).then(
      () => null,
      (err: Error) => err.message,
    );
    expect(failed).toMatch(
      /^facilitator http:\/\/127\.0\.0\.1:\d+\/supported answered HTTP 401: it refused the credentials of CDP_API_KEY_ID and CDP_API_KEY_SECRET; check them/,
    );
    expect(failed?.split('\n')).toHaveLength(1);
    expect(failed).not.toContain(wrongKey.apiKeySecret.slice(0, 16));
  });

  it('a wrong bearer token stops the start naming FACILITATOR_AUTH_POLYGON', async () => {
    const failed = await start(routed({ FACILITATOR_AUTH_POLYGON: 'Authorization: Bearer stale-token' })).then(
      () => null,
      (err: Error) => err.message,
    );
    expect(failed).toMatch(/answered HTTP 401: it refused the credentials of FACILITATOR_AUTH_POLYGON; check them/);
    expect(failed).not.toContain('stale-token');
  });

  it('a key that is not a CDP key stops the settings, naming CDP_API_KEY_SECRET only', () => {
    expect(() => routed({ CDP_API_KEY_SECRET: 'c2hvcnQ=' })).toThrow(
      /^CDP_API_KEY_SECRET must be a CDP API key secret: an Ed25519 key .* \(the value given, 8 characters long, is not shown\)$/,
    );
  });

  it('a key revoked after the start: the paid call is refused (402, facilitator_unavailable naming the settings) and the payment stays unused', async () => {
    cdp.loopback.reset();
    const s = routed();
    const { parts, app } = await start(s);
    try {
      const paid = paidFx(s, 'base');
      revoked.on = true;
      let refused: Response;
      try {
        refused = await app.request(paid.path, { headers: paid.headers });
      } finally {
        revoked.on = false;
      }
      const body = (await refused.json()) as { reason: string; error: string; facilitator_reason: string };
      expect([refused.status, body.reason, body.facilitator_reason]).toEqual([402, 'facilitator_unavailable', 'unauthorized']);
      expect(body.error).toMatch(/refused the credentials of CDP_API_KEY_ID and CDP_API_KEY_SECRET/);
      expect(JSON.stringify(body)).not.toContain(key.apiKeySecret.slice(0, 16));
      // the same payment once the facilitator takes the key again: served
      const again = await app.request(paid.path, { headers: paid.headers });
      expect(again.status).toBe(200);
    } finally {
      await parts.stores?.close();
    }
  });
});
