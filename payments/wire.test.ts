import { describe, expect, it } from 'vitest';
import { PaymentRequiredBody } from '../catalog/schemas.ts';
import {
  SPEC_PAYMENT,
  SPEC_V1_X_PAYMENT,
  SPEC_V1_X_PAYMENT_RESPONSE_FAILURE,
  SPEC_V1_X_PAYMENT_RESPONSE_SUCCESS,
  SPEC_V2_PAYMENT_REQUIRED,
  SPEC_V2_PAYMENT_RESPONSE_FAILURE,
  SPEC_V2_PAYMENT_RESPONSE_SUCCESS,
  SPEC_V2_PAYMENT_SIGNATURE,
} from './testing/spec-examples.ts';
import { BASE, BASE_SEPOLIA, payToTable, POLYGON, SOLANA, XRPL } from './networks.ts';
import { readChallenge } from './client/payer.ts';
import {
  buildOffers,
  decodeBase64Json,
  decodePayment,
  encodeBase64Json,
  matchOffer,
  MAX_PAYMENT_HEADER_BYTES,
  offeredNetworks,
  paymentRequiredV1Body,
  paymentRequiredV2,
  resourceUrlOf,
  settlementHeader,
  type DecodedPayment,
} from './wire.ts';

const headers = (h: Record<string, string>) => (name: string) => h[name] ?? h[name.toLowerCase()] ?? null;
const local = payToTable({ settlement: 'local', payTo: { evm: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C', solana: null, xrpl: null } });
const offerInput = {
  priceUsd: '0.01',
  method: 'GET' as const,
  description: 'Access to premium market data',
  mimeType: 'application/json',
  resourceUrl: 'https://api.example.com/premium-data',
  payTo: local,
};

describe('the spec header examples decode', () => {
  it('v1 X-PAYMENT', () => {
    const d = decodePayment(headers({ 'X-PAYMENT': SPEC_V1_X_PAYMENT }));
    expect(d).toMatchObject({
      ok: true,
      payment: { version: 1, header: 'X-PAYMENT', scheme: 'exact', network: 'base-sepolia', payload: SPEC_PAYMENT },
    });
  });

  it('v2 PAYMENT-SIGNATURE', () => {
    const d = decodePayment(headers({ 'PAYMENT-SIGNATURE': SPEC_V2_PAYMENT_SIGNATURE }));
    expect(d).toMatchObject({
      ok: true,
      payment: { version: 2, header: 'PAYMENT-SIGNATURE', scheme: 'exact', network: 'eip155:84532', payload: SPEC_PAYMENT },
    });
  });

  it('v2 PAYMENT-REQUIRED reads as a challenge and its requirement equals ours for the same price', () => {
    const challenge = readChallenge(SPEC_V2_PAYMENT_REQUIRED, {});
    expect(challenge.version).toBe(2);
    const [ours] = buildOffers({ ...offerInput, networks: [BASE_SEPOLIA] });
    expect({ ...challenge.accepts[0], maxTimeoutSeconds: 300 }).toEqual(ours!.v2);
  });

  it('settlement responses (v1 and v2, success and failure)', () => {
    for (const h of [
      SPEC_V1_X_PAYMENT_RESPONSE_SUCCESS,
      SPEC_V1_X_PAYMENT_RESPONSE_FAILURE,
      SPEC_V2_PAYMENT_RESPONSE_SUCCESS,
      SPEC_V2_PAYMENT_RESPONSE_FAILURE,
    ]) {
      expect(decodeBase64Json(h, 'header')).toMatchObject({ ok: true, value: { success: expect.any(Boolean) } });
    }
    const ours = settlementHeader(1, BASE_SEPOLIA, {
      success: true,
      transaction: '0x1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef',
      payer: '0x857b06519E91e3A54538791bDbb0E22373e36b66',
    });
    expect(ours).toEqual({ name: 'X-PAYMENT-RESPONSE', value: SPEC_V1_X_PAYMENT_RESPONSE_SUCCESS });
    const ours2 = settlementHeader(2, BASE_SEPOLIA, {
      success: true,
      transaction: '0x1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef',
      payer: '0x857b06519E91e3A54538791bDbb0E22373e36b66',
    });
    expect(ours2).toEqual({ name: 'PAYMENT-RESPONSE', value: SPEC_V2_PAYMENT_RESPONSE_SUCCESS });
  });
});

describe('strict decoding', () => {
  const bad = (value: string, header = 'X-PAYMENT') => decodePayment(headers({ [header]: value }));

  it('no header → null (payment required)', () => {
    expect(decodePayment(headers({}))).toBeNull();
    expect(decodePayment(headers({ 'X-PAYMENT': '' }))).toBeNull();
  });

  it.each([
    ['not base64!', /not standard base64/],
    ['eyJ4NDAyVmVyc2lvbiI6MX0', /missing = padding/],
    ['eyJ4-_', /base64url/],
    [Buffer.from('{"x402Version":1,').toString('base64'), /base64 but not JSON/],
    [Buffer.from([0xff, 0xfe, 0xfd]).toString('base64'), /not UTF-8/],
    [Buffer.from('[1,2]').toString('base64'), /must be a JSON object, got an array/],
    [Buffer.from('"text"').toString('base64'), /must be a JSON object, got string/],
    [encodeBase64Json({ x402Version: 1, scheme: 'exact', network: 'base' }), /has no "payload"/],
    [encodeBase64Json({ x402Version: 2, payload: {} }), /needs "accepted"/],
    [encodeBase64Json({ x402Version: 1, network: 'base', payload: {} }), /needs a "scheme"/],
  ])('%s → malformed_payload', (value, message) => {
    const r = bad(value);
    expect(r).toMatchObject({ ok: false, reason: 'malformed_payload' });
    expect(r && !r.ok && r.message).toMatch(message);
  });

  it('wrong x402Version → invalid_x402_version', () => {
    expect(bad(encodeBase64Json({ x402Version: 3, payload: {} }))).toMatchObject({ ok: false, reason: 'invalid_x402_version' });
  });

  it(`header over ${MAX_PAYMENT_HEADER_BYTES} bytes → header_too_large, before any decoding`, () => {
    const r = bad('A'.repeat(MAX_PAYMENT_HEADER_BYTES + 4), 'PAYMENT-SIGNATURE');
    expect(r).toMatchObject({ ok: false, reason: 'header_too_large' });
  });

  it('either header takes either version; PAYMENT-SIGNATURE wins when both are sent', () => {
    expect(decodePayment(headers({ 'PAYMENT-SIGNATURE': SPEC_V1_X_PAYMENT }))).toMatchObject({
      ok: true,
      payment: { version: 1, header: 'PAYMENT-SIGNATURE' },
    });
    expect(decodePayment(headers({ 'X-PAYMENT': SPEC_V2_PAYMENT_SIGNATURE }))).toMatchObject({
      ok: true,
      payment: { version: 2, header: 'X-PAYMENT' },
    });
    expect(decodePayment(headers({ 'X-PAYMENT': 'garbage', 'PAYMENT-SIGNATURE': SPEC_V2_PAYMENT_SIGNATURE }))).toMatchObject({
      ok: true,
      payment: { version: 2 },
    });
  });
});

describe('offers and matching', () => {
  const offers = buildOffers({ ...offerInput, networks: [BASE, POLYGON, SOLANA] });
  const v2 = (accepted: Record<string, unknown>): DecodedPayment => ({
    version: 2,
    header: 'PAYMENT-SIGNATURE',
    scheme: String(accepted.scheme),
    network: String(accepted.network),
    accepted,
    payload: {},
    raw: {},
    resources: [],
  });

  it('one offer per configured network, both shapes, amounts from the decimal price', () => {
    expect(offers.map((o) => [o.v1.network, o.v2.network, o.v2.amount, o.v1.maxAmountRequired])).toEqual([
      ['base', 'eip155:8453', '10000', '10000'],
      ['polygon', 'eip155:137', '10000', '10000'],
      ['solana', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', '10000', '10000'],
    ]);
    expect(offers[0]!.v2.extra).toEqual({ name: 'USD Coin', version: '2' });
    const noSolana = buildOffers({ ...offerInput, networks: [BASE, SOLANA], payTo: { ...local, solana: null } });
    expect(noSolana.map((o) => o.network.name)).toEqual(['base']);
  });

  it('the XRPL offer is RLUSD by issuer with a decimal amount; xrpl only on the XRPL variants', () => {
    const [x] = buildOffers({ ...offerInput, networks: [XRPL] });
    expect(x!.v2).toMatchObject({
      network: 'xrpl:0',
      asset: '524C555344000000000000000000000000000000',
      amount: '0.01',
      extra: { areFeesSponsored: false, issuer: 'rMxCKbEDwqr76QuheSUMdEGf4B9xJ8m5De' },
    });
    expect(x!.v1.maxAmountRequired).toBe('10000');
    expect(offeredNetworks('korea', false).map((n) => n.name)).toEqual(['base', 'polygon', 'solana']);
    expect(offeredNetworks('korea', true).map((n) => n.name)).toEqual(['xrpl']);
    expect(offeredNetworks('analytics', false).map((n) => n.name)).toEqual(['base', 'solana']);
  });

  it('the 402 body satisfies the catalog schema and the v2 header has the spec shape', () => {
    const body = paymentRequiredV1Body(offers, 'payment_required', 'pay');
    expect(PaymentRequiredBody.safeParse(body).success).toBe(true);
    const v2h = paymentRequiredV2(
      offers,
      { url: offerInput.resourceUrl, description: 'd', mimeType: 'application/json' },
      'amount_mismatch',
      'too little',
    );
    expect(v2h).toMatchObject({
      x402Version: 2,
      error: 'amount_mismatch: too little',
      resource: { url: offerInput.resourceUrl },
      accepts: offers.map((o) => o.v2),
    });
  });

  it('matches v1 by network name or CAIP-2 id; names the reason otherwise', () => {
    const v1 = (scheme: string, network: string): DecodedPayment => ({
      version: 1,
      header: 'X-PAYMENT',
      scheme,
      network,
      accepted: null,
      payload: {},
      raw: {},
      resources: [],
    });
    expect(matchOffer(v1('exact', 'polygon'), offers)).toMatchObject({ ok: true, offer: { network: { name: 'polygon' } } });
    expect(matchOffer(v1('exact', 'eip155:8453'), offers)).toMatchObject({ ok: true, offer: { network: { name: 'base' } } });
    expect(matchOffer(v1('upto', 'base'), offers)).toMatchObject({ ok: false, reason: 'invalid_scheme' });
    const r = matchOffer(v1('exact', 'avalanche'), offers);
    expect(r).toMatchObject({ ok: false, reason: 'unsupported_network' });
    expect(!r.ok && r.message).toContain('offered: base (eip155:8453), polygon (eip155:137), solana');
  });

  it('matches v2 on amount, payTo, asset and the EIP-712 domain', () => {
    const good = offers[0]!.v2;
    expect(matchOffer(v2({ ...good, payTo: good.payTo.toLowerCase(), maxTimeoutSeconds: 60 }), offers)).toMatchObject({ ok: true });
    expect(matchOffer(v2({ ...good, amount: '9999' }), offers)).toMatchObject({ ok: false, reason: 'amount_mismatch' });
    expect(matchOffer(v2({ ...good, payTo: POLYGON.usdc.address }), offers)).toMatchObject({ ok: false, reason: 'recipient_mismatch' });
    expect(matchOffer(v2({ ...good, asset: POLYGON.usdc.address }), offers)).toMatchObject({ ok: false, reason: 'requirements_mismatch' });
    expect(matchOffer(v2({ ...good, extra: { name: 'USDC', version: '2' } }), offers)).toMatchObject({
      ok: false,
      reason: 'requirements_mismatch',
    });
    expect(matchOffer(v2({ ...good, network: 'eip155:1' }), offers)).toMatchObject({ ok: false, reason: 'unsupported_network' });
  });
});

describe('resource URL', () => {
  const h = headers({ 'X-Forwarded-Proto': 'https, http', 'X-Forwarded-Host': 'api.example.com' });
  it('ignores X-Forwarded-* unless TRUST_PROXY', () => {
    expect(resourceUrlOf('http://127.0.0.1:4020/api/v1/fx-rate?x=1', h, false)).toBe('http://127.0.0.1:4020/api/v1/fx-rate?x=1');
    expect(resourceUrlOf('http://127.0.0.1:4020/api/v1/fx-rate?x=1', h, true)).toBe('https://api.example.com/api/v1/fx-rate?x=1');
  });
  it('ignores malformed forwarded values', () => {
    const evil = headers({ 'X-Forwarded-Proto': 'javascript', 'X-Forwarded-Host': 'evil.com/path?' });
    expect(resourceUrlOf('http://127.0.0.1:4020/a', evil, true)).toBe('http://127.0.0.1:4020/a');
  });
});
