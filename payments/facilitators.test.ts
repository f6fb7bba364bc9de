/**
 * Facilitator credentials and routing (facilitators.ts): the settings that configure them, a CDP
 * JWT per call checked by a loopback facilitator the way CDP checks it (signature against the
 * throwaway key's public half, the call's method, host and path in `uris`, the time window), a
 * wrong key refused with the settings named and the secret never shown, the token reused until
 * shortly before it expires, and a fixed header for other facilitators.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICE_NETWORKS } from '../catalog/networks.ts';
import { FACILITATOR_NETWORKS, loadSettings, Secret } from '../lib/config.ts';
import type { FacilitatorClient } from './facilitator.ts';
import { cdpJwtCredentials, facilitatorRoutes } from './facilitators.ts';
import { checkCdpJwt, jwtClaims, throwawayCdpKey } from './testing/cdp-jwt.ts';
import { fakeFacilitator, type FakeFacilitator } from './testing/paywall.ts';

const payload = { x402Version: 2, accepted: { scheme: 'exact', network: 'eip155:8453' }, payload: { authorization: { from: '0xabc' } } };
const requirements = { scheme: 'exact', network: 'eip155:8453', amount: '1000' };
const PAY_TO_EVM = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const PAY_TO_SOLANA = 'FD7YVyJ5dai6ykGCduUm7HoaNCBTQjShWcmRhCcAD2hx';

const key = throwawayCdpKey('ed25519');
const other = throwawayCdpKey('ed25519');

/** The client of the settings' default facilitator, as proxy/serve.ts builds it. */
function clientFor(env: Record<string, string>, now?: () => number): FacilitatorClient {
  const settings = loadSettings({ SETTLEMENT: 'facilitator', PAY_TO_EVM, FACILITATOR_TIMEOUT_MS: '2000', ...env });
  return facilitatorRoutes(settings, now ? { now } : {})!.for('base')!;
}

describe('facilitator settings', () => {
  it('per-network settings exist for exactly the networks the services offer', () => {
    const offered = new Set(Object.values(SERVICE_NETWORKS).flatMap((networks) => networks.map((n) => n.network)));
    expect(new Set(Object.keys(FACILITATOR_NETWORKS))).toEqual(offered);
    for (const n of Object.values(SERVICE_NETWORKS).flat()) {
      expect(FACILITATOR_NETWORKS[n.network as keyof typeof FACILITATOR_NETWORKS]).toBe(n.settlement.kind);
    }
  });

  it("Coinbase's facilitator authenticates with the CDP key by default; the key never shows", () => {
    const s = loadSettings({
      SETTLEMENT: 'facilitator',
      PAY_TO_EVM,
      FACILITATOR_URL: 'https://api.cdp.coinbase.com/platform/v2/x402',
      CDP_API_KEY_ID: key.apiKeyId,
      CDP_API_KEY_SECRET: key.apiKeySecret,
    });
    expect(s.facilitators.fallback).toMatchObject({
      auth: { kind: 'cdp', apiKeyId: key.apiKeyId },
      credentials: 'CDP_API_KEY_ID and CDP_API_KEY_SECRET',
    });
    const shown = `${JSON.stringify(s)} ${String(s.facilitators.fallback?.auth.kind === 'cdp' && s.facilitators.fallback.auth.apiKeySecret)}`;
    expect(shown).not.toContain(key.apiKeySecret.slice(0, 20));
  });

  it('per-network facilitators, each with its own credentials; the default serves the rest', () => {
    const s = loadSettings({
      SETTLEMENT: 'facilitator',
      PAY_TO_EVM,
      PAY_TO_SOLANA,
      FACILITATOR_URL: 'https://facilitator.example/x402',
      FACILITATOR_URL_BASE: 'https://api.cdp.coinbase.com/platform/v2/x402',
      FACILITATOR_URL_SOLANA: 'https://solana-facilitator.example',
      FACILITATOR_AUTH_SOLANA: 'Authorization: Bearer solana-token-123',
      CDP_API_KEY_ID: key.apiKeyId,
      CDP_API_KEY_SECRET: key.apiKeySecret,
    });
    expect(s.facilitators.fallback).toMatchObject({ url: 'https://facilitator.example/x402', auth: { kind: 'none' } });
    expect(s.facilitators.byNetwork.base).toMatchObject({ auth: { kind: 'cdp' } });
    expect(s.facilitators.byNetwork.solana).toMatchObject({
      auth: { kind: 'header', name: 'Authorization' },
      credentials: 'FACILITATOR_AUTH_SOLANA',
    });
    expect(JSON.stringify(s)).not.toContain('solana-token-123');
    const routes = facilitatorRoutes(s)!;
    expect(['base', 'polygon', 'solana', 'xrpl'].map((n) => routes.for(n)?.url)).toEqual([
      'https://api.cdp.coinbase.com/platform/v2/x402',
      'https://facilitator.example/x402',
      'https://solana-facilitator.example',
      'https://facilitator.example/x402',
    ]);
    expect(routes.all()).toHaveLength(3);
  });

  it('SETTLEMENT=local builds no facilitator, whatever is set', () => {
    const s = loadSettings({ FACILITATOR_URL: 'https://api.cdp.coinbase.com/platform/v2/x402' });
    expect(s.facilitators).toEqual({ fallback: null, byNetwork: {} });
    expect(facilitatorRoutes(s)).toBeNull();
  });

  const facilitatorMode = { SETTLEMENT: 'facilitator', PAY_TO_EVM };
  const cdpUrl = 'https://api.cdp.coinbase.com/platform/v2/x402';
  const damaged = Buffer.from(key.apiKeySecret, 'base64');
  damaged[40] = damaged[40]! ^ 1;
  it.each([
    [
      { FACILITATOR_URL: cdpUrl },
      /FACILITATOR_URL is Coinbase's facilitator \(api\.cdp\.coinbase\.com\), which needs a CDP Secret API key: set CDP_API_KEY_ID and CDP_API_KEY_SECRET/,
    ],
    [
      { FACILITATOR_URL: cdpUrl, CDP_API_KEY_ID: key.apiKeyId },
      /CDP_API_KEY_ID and CDP_API_KEY_SECRET go together: CDP_API_KEY_SECRET is not set/,
    ],
    [{ FACILITATOR_URL: 'http://f', FACILITATOR_AUTH: 'cdp' }, /FACILITATOR_AUTH=cdp needs a CDP Secret API key/],
    [
      { FACILITATOR_URL: cdpUrl, CDP_API_KEY_ID: 'k', CDP_API_KEY_SECRET: 'not-a-key' },
      /^CDP_API_KEY_SECRET must be a CDP API key secret: an Ed25519 key/,
    ],
    [
      { FACILITATOR_URL: cdpUrl, CDP_API_KEY_ID: 'k', CDP_API_KEY_SECRET: damaged.toString('base64') },
      /^CDP_API_KEY_SECRET must be a whole CDP API key secret/,
    ],
    [
      {
        FACILITATOR_URL: cdpUrl,
        CDP_API_KEY_ID: 'k',
        CDP_API_KEY_SECRET: '-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----',
      },
      /^CDP_API_KEY_SECRET must be a CDP API key secret: this PEM block is not an EC P-256/,
    ],
    [
      { FACILITATOR_URL: 'http://f', FACILITATOR_AUTH: 'Bearer abc' },
      /^FACILITATOR_AUTH must be "none", "cdp", or one header line "Name: value"/,
    ],
    [
      { FACILITATOR_URL: 'http://f', FACILITATOR_AUTH: 'Content-Type: text/plain' },
      /FACILITATOR_AUTH must name a header the facilitator client does not set itself/,
    ],
    [
      { FACILITATOR_URL: 'http://f', FACILITATOR_AUTH_SOLANA: 'X-API-Key: k' },
      /FACILITATOR_AUTH_SOLANA is set but FACILITATOR_URL_SOLANA is not/,
    ],
    [
      { FACILITATOR_URL_BASE: 'http://f' },
      /needs a facilitator for polygon \(offered because PAY_TO_EVM is set\): set FACILITATOR_URL \(every network\) or FACILITATOR_URL_POLYGON/,
    ],
    [{ FACILITATOR_URL: 'http://f', FACILITATOR_URL_SOLANA: 'ftp://f' }, /FACILITATOR_URL_SOLANA must be an http:\/\/ or https:\/\/ URL/],
  ])('refuses %j with a message naming the setting', (env, message) => {
    let thrown = '';
    try {
      loadSettings({ ...facilitatorMode, ...env });
    } catch (err) {
      thrown = (err as Error).message;
    }
    expect(thrown).toMatch(message);
    expect(thrown.split('\n')).toHaveLength(1);
    for (const secret of ['not-a-key', damaged.toString('base64'), 'Bearer abc', 'AAAA']) expect(thrown).not.toContain(secret);
  });
});

describe('CDP JWT per call against a loopback facilitator that checks it', () => {
  let fake: FakeFacilitator;
  let refusals: string[];
  beforeAll(async () => {
    refusals = [];
    fake = await fakeFacilitator({
      authorize: (req) => {
        const why = checkCdpJwt(req, key, new URL(fake.url).host);
        if (why) refusals.push(why);
        return why;
      },
    });
  });
  afterAll(() => fake.close());

  it('verify, settle and supported each carry a JWT for their own method and path, signed by the key', async () => {
    fake.loopback.reset();
    const client = clientFor({
      FACILITATOR_URL: fake.url,
      FACILITATOR_AUTH: 'cdp',
      CDP_API_KEY_ID: key.apiKeyId,
      CDP_API_KEY_SECRET: key.apiKeySecret,
    });
    expect(await client.supported()).toMatchObject({ ok: true });
    expect(await client.verify(2, payload, requirements)).toEqual({ ok: true, payer: '0xabc' });
    expect(await client.settle(2, payload, requirements)).toMatchObject({ ok: true, transaction: `0x${'ab'.repeat(32)}` });
    expect(refusals).toEqual([]);
    const host = new URL(fake.url).host;
    expect(fake.loopback.requests.map((r) => jwtClaims(r.headers.authorization as string).uris)).toEqual([
      [`GET ${host}/supported`],
      [`POST ${host}/verify`],
      [`POST ${host}/settle`],
    ]);
  });

  it('the path of the facilitator URL is part of the signed path', async () => {
    let seen: unknown;
    const client = facilitatorRoutes(
      loadSettings({
        SETTLEMENT: 'facilitator',
        PAY_TO_EVM,
        FACILITATOR_URL: 'https://api.cdp.coinbase.com/platform/v2/x402/',
        CDP_API_KEY_ID: key.apiKeyId,
        CDP_API_KEY_SECRET: key.apiKeySecret,
      }),
      {
        fetch: async (_url, init) => {
          seen = jwtClaims(new Headers(init?.headers).get('authorization')!).uris;
          return new Response(JSON.stringify({ isValid: true, payer: '0xabc' }), { status: 200 });
        },
      },
    )!.for('base')!;
    await client.verify(2, payload, requirements);
    expect(seen).toEqual(['POST api.cdp.coinbase.com/platform/v2/x402/verify']);
  });

  it('an ECDSA key in the PEM form the CDP portal gives works too', async () => {
    const ec = throwawayCdpKey('ec');
    const ecFake = await fakeFacilitator({ authorize: (req) => checkCdpJwt(req, ec, new URL(ecFake.url).host) });
    try {
      const client = clientFor({
        FACILITATOR_URL: ecFake.url,
        FACILITATOR_AUTH: 'cdp',
        CDP_API_KEY_ID: ec.apiKeyId,
        CDP_API_KEY_SECRET: ec.apiKeySecret.replace(/\n/g, '\\n'), // one line, newlines escaped, as in an env file
      });
      expect(await client.verify(2, payload, requirements)).toEqual({ ok: true, payer: '0xabc' });
    } finally {
      await ecFake.close();
    }
  });

  it('a wrong key is refused (401): unauthorized, naming the settings, never the secret', async () => {
    const client = clientFor({
      FACILITATOR_URL: fake.url,
      FACILITATOR_AUTH: 'cdp',
      CDP_API_KEY_ID: key.apiKeyId,
      CDP_API_KEY_SECRET: other.apiKeySecret,
    });
    const results = [
      await client.supported(),
      await client.verify(2, payload, requirements),
      await client.settle(2, payload, requirements),
    ];
    for (const r of results) {
      expect(r).toMatchObject({ ok: false, kind: 'unavailable', code: 'unauthorized' });
      expect(!r.ok && r.message).toMatch(
        /answered HTTP 401: it refused the credentials of CDP_API_KEY_ID and CDP_API_KEY_SECRET; check them \(.*bad signature/,
      );
      expect(!r.ok && r.message).not.toContain(other.apiKeySecret.slice(0, 16));
    }
    expect(refusals.at(-1)).toBe('bad signature');
  });

  it('no credentials where the facilitator wants them: unauthorized, naming the auth setting', async () => {
    const client = clientFor({ FACILITATOR_URL: fake.url });
    expect(await client.supported()).toMatchObject({
      code: 'unauthorized',
      message: expect.stringMatching(/it asks for credentials; set FACILITATOR_AUTH/),
    });
  });
});

describe('CDP JWT reuse', () => {
  it('one token per endpoint, reused until 30 s before it expires, then signed anew', async () => {
    let clock = 1_000_000;
    const credentials = cdpJwtCredentials(
      'http://127.0.0.1:9/x402',
      { apiKeyId: key.apiKeyId, apiKeySecret: new Secret(key.apiKeySecret) },
      'CDP_API_KEY_ID and CDP_API_KEY_SECRET',
      () => clock,
    );
    const first = await credentials.headers('/verify');
    const settle = await credentials.headers('/settle');
    expect(first.reused).toBe(false);
    expect(settle.headers.Authorization).not.toBe(first.headers.Authorization);
    clock += 89_000;
    expect(await credentials.headers('/verify')).toEqual({ headers: first.headers, reused: true });
    clock += 2_000;
    const renewed = await credentials.headers('/verify');
    expect(renewed.reused).toBe(false);
    expect(renewed.headers.Authorization).not.toBe(first.headers.Authorization);
  });

  it('a facilitator that refuses a token it saw before gets one retry with a fresh token, then a fresh token every call', async () => {
    const seen = new Set<string>();
    const fake = await fakeFacilitator({
      authorize: (req) => {
        const token = String(req.headers.authorization);
        if (seen.has(token)) return 'token replayed';
        seen.add(token);
        return checkCdpJwt(req, key, new URL(fake.url).host);
      },
    });
    try {
      const client = clientFor({
        FACILITATOR_URL: fake.url,
        FACILITATOR_AUTH: 'cdp',
        CDP_API_KEY_ID: key.apiKeyId,
        CDP_API_KEY_SECRET: key.apiKeySecret,
      });
      for (let i = 0; i < 3; i++) expect(await client.verify(2, payload, requirements)).toEqual({ ok: true, payer: '0xabc' });
      // first call fresh, second reused → 401 → fresh, third fresh
      expect(fake.loopback.requests.map((r) => r.path)).toEqual(['/verify', '/verify', '/verify', '/verify']);
    } finally {
      await fake.close();
    }
  });
});

describe('a fixed header for other facilitators', () => {
  it('sends the header line of FACILITATOR_AUTH on every call; a wrong token is refused naming the setting', async () => {
    const fake = await fakeFacilitator({ authorize: (req) => (req.headers['x-api-key'] === 'right-key' ? null : 'bad api key') });
    try {
      const good = clientFor({ FACILITATOR_URL: fake.url, FACILITATOR_AUTH: 'X-API-Key: right-key' });
      expect(await good.verify(2, payload, requirements)).toEqual({ ok: true, payer: '0xabc' });
      expect(await good.supported()).toMatchObject({ ok: true });
      const bad = clientFor({ FACILITATOR_URL: fake.url, FACILITATOR_AUTH: 'X-API-Key: wrong-key' });
      const refused = await bad.verify(2, payload, requirements);
      expect(refused).toMatchObject({
        code: 'unauthorized',
        message: expect.stringMatching(/refused the credentials of FACILITATOR_AUTH/),
      });
      expect(!refused.ok && refused.message).not.toContain('wrong-key');
    } finally {
      await fake.close();
    }
  });
});
