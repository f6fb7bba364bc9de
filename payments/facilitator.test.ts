import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopback, type Loopback } from '../lib/testing/loopback.ts';
import { FacilitatorClient, solanaFeePayer } from './facilitator.ts';
import { fakeFacilitator, type FakeFacilitator } from './testing/paywall.ts';

const payload = { x402Version: 2, accepted: { scheme: 'exact', network: 'eip155:8453' }, payload: { authorization: { from: '0xabc' } } };
const requirements = { scheme: 'exact', network: 'eip155:8453', amount: '1000' };

describe('FacilitatorClient against a fake facilitator on loopback', () => {
  let fake: FakeFacilitator;
  let client: FacilitatorClient;
  beforeAll(async () => {
    fake = await fakeFacilitator();
    fake.timeoutDelayMs = 1500;
    client = new FacilitatorClient({ url: `${fake.url}/`, timeoutMs: 500 });
  });
  afterAll(() => fake.close());

  it('sends {x402Version, paymentPayload, paymentRequirements} and reads a success', async () => {
    fake.verify = 'ok';
    fake.settle = 'ok';
    fake.loopback.reset();
    expect(await client.verify(2, payload, requirements)).toEqual({ ok: true, payer: '0xabc' });
    expect(await client.settle(2, payload, requirements)).toEqual({
      ok: true,
      transaction: `0x${'ab'.repeat(32)}`,
      payer: '0xabc',
      network: 'eip155:8453',
    });
    expect(fake.loopback.requests[0]!.body).toEqual({ x402Version: 2, paymentPayload: payload, paymentRequirements: requirements });
    expect(fake.loopback.requests[0]!.path).toBe('/verify'); // trailing slash of the URL ignored
  });

  it('a refusal carries the facilitator reason and message', async () => {
    fake.verify = 'refuse';
    fake.settle = 'refuse';
    expect(await client.verify(2, payload, requirements)).toMatchObject({
      ok: false,
      kind: 'refused',
      code: 'insufficient_funds',
      message: 'facilitator /verify refused the payment: insufficient_funds (balance 0 < 1000)',
    });
    expect(await client.settle(2, payload, requirements)).toMatchObject({
      ok: false,
      kind: 'refused',
      code: 'invalid_exact_evm_transaction_failed',
    });
  });

  it.each([
    ['timeout', 'timeout', /did not answer within 500 ms/],
    ['http500', 'http_500', /answered HTTP 500/],
    ['not_json', 'http_502', /not JSON: <html>Bad gateway<\/html>/],
  ] as const)('%s → unavailable (%s)', async (behaviour, code, message) => {
    fake.verify = behaviour;
    fake.settle = behaviour;
    const v = await client.verify(2, payload, requirements);
    const s = await client.settle(2, payload, requirements);
    for (const r of [v, s]) {
      expect(r).toMatchObject({ ok: false, kind: 'unavailable', code });
      expect(!r.ok && r.message).toMatch(message);
    }
  });

  it('an unreachable facilitator → network_error', async () => {
    const dead = new FacilitatorClient({ url: 'http://127.0.0.1:1', timeoutMs: 500 });
    expect(await dead.verify(1, payload, requirements)).toMatchObject({ ok: false, kind: 'unavailable', code: 'network_error' });
  });

  it('/supported gives the kinds and the Solana fee payer', async () => {
    const s = await client.supported();
    expect(s.ok && s.kinds.map((k) => k.network)).toEqual(['eip155:8453', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp']);
    expect(solanaFeePayer(s, 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp')).toBe('CKPKJWNdJEqa81x7CkZ14BVPiY6y16Sxs7owznqtWYp5');
  });
});

describe('FacilitatorClient edge answers', () => {
  let lb: Loopback;
  beforeAll(async () => {
    lb = await startLoopback([
      { method: 'POST', path: '/old/verify', reply: { status: 308, headers: { location: '/new/verify' }, text: '' } },
      { method: 'POST', path: '/new/verify', reply: { json: { isValid: true, payer: '0xdef' } } },
      { method: 'POST', path: '/bad/verify', reply: { status: 400, json: { isValid: false, invalidReason: 'invalid_payload' } } },
      { method: 'POST', path: '/bad/settle', reply: { json: { success: true, transaction: '' } } },
      { method: 'POST', path: '/odd/verify', reply: { json: { hello: 'world' } } },
      {
        method: 'POST',
        path: '/pending/settle',
        reply: {
          status: 500,
          json: { success: false, errorReason: 'settlement_pending', transaction: `0x${'cd'.repeat(32)}`, payer: '0xdef' },
        },
      },
      {
        method: 'POST',
        path: '/hashfail/settle',
        reply: { json: { success: false, errorReason: 'receipt_timeout', transaction: '0x12' } },
      },
    ]);
  });
  afterAll(() => lb.close());

  it('follows a 308 redirect (x402.org/facilitator does this)', async () => {
    expect(await new FacilitatorClient({ url: `${lb.url}/old` }).verify(2, payload, requirements)).toEqual({ ok: true, payer: '0xdef' });
  });

  it('a failed /settle that names a transaction is pending (never "nothing moved"), whatever its status or reason', async () => {
    expect(await new FacilitatorClient({ url: `${lb.url}/pending` }).settle(2, payload, requirements)).toMatchObject({
      ok: false,
      kind: 'pending',
      code: 'settlement_pending',
      transaction: `0x${'cd'.repeat(32)}`,
      payer: '0xdef',
    });
    expect(await new FacilitatorClient({ url: `${lb.url}/hashfail` }).settle(2, payload, requirements)).toMatchObject({
      kind: 'pending',
      code: 'receipt_timeout',
      transaction: '0x12',
    });
  });

  it('a 400 with a verdict is a refusal; success without a transaction or a body without a verdict is not trusted', async () => {
    const c = new FacilitatorClient({ url: `${lb.url}/bad` });
    expect(await c.verify(2, payload, requirements)).toMatchObject({ ok: false, kind: 'refused', code: 'invalid_payload' });
    expect(await c.settle(2, payload, requirements)).toMatchObject({ ok: false, kind: 'unavailable', code: 'bad_response' });
    expect(await new FacilitatorClient({ url: `${lb.url}/odd` }).verify(2, payload, requirements)).toMatchObject({
      ok: false,
      kind: 'unavailable',
      code: 'bad_response',
    });
  });
});
