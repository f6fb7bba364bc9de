/**
 * The payment-identifier extension (payment-identifier.ts) against the x402 reference's own
 * helpers (@x402/extensions): the declaration, the ids its clients generate, and what is refused.
 */
import {
  appendPaymentIdentifierToExtensions,
  declarePaymentIdentifierExtension,
  generatePaymentId,
  isValidPaymentId,
  validatePaymentIdentifier,
} from '@x402/extensions/payment-identifier';
import { describe, expect, it } from 'vitest';
import {
  MAX_REPLAY_BYTES,
  paymentIdentifierDeclaration,
  paymentIdentifierOf,
  replayFor,
  replayText,
  requestFingerprint,
} from './payment-identifier.ts';

describe('payment-identifier', () => {
  it('declares what @x402/extensions declares, and its validator accepts the declaration', () => {
    expect(paymentIdentifierDeclaration()).toEqual(JSON.parse(JSON.stringify(declarePaymentIdentifierExtension(false))));
    expect(validatePaymentIdentifier(paymentIdentifierDeclaration())).toEqual({ valid: true });
  });

  it('reads the id a reference client appends, and no id when there is none', () => {
    const id = generatePaymentId();
    const extensions = appendPaymentIdentifierToExtensions({ 'payment-identifier': paymentIdentifierDeclaration() }, id);
    expect(paymentIdentifierOf({ extensions })).toEqual({ ok: true, id });
    expect(paymentIdentifierOf({})).toEqual({ ok: true, id: null });
    expect(paymentIdentifierOf({ extensions: { other: {} } })).toEqual({ ok: true, id: null });
    expect(paymentIdentifierOf({ extensions: { 'payment-identifier': { info: { required: false } } } })).toEqual({ ok: true, id: null });
  });

  it.each([
    ['too short', 'abc', /16 to 128 characters/],
    ['too long', 'a'.repeat(129), /16 to 128 characters/],
    ['other characters', 'pay_0123456789abcdef!', /including others/],
    ['a number', 12345678901234567, /must be a string/],
  ])('refuses an id that is %s, as the reference does', (_what, id, message) => {
    const got = paymentIdentifierOf({ extensions: { 'payment-identifier': { info: { required: false, id } } } });
    expect(got).toMatchObject({ ok: false, reason: 'malformed_payload', message: expect.stringMatching(message) });
    expect(typeof id === 'string' && isValidPaymentId(id)).toBe(false);
  });

  it('refuses extensions of the wrong shape', () => {
    expect(paymentIdentifierOf({ extensions: [] })).toMatchObject({ ok: false, reason: 'malformed_payload' });
    expect(paymentIdentifierOf({ extensions: { 'payment-identifier': 'x' } })).toMatchObject({ ok: false, reason: 'malformed_payload' });
  });

  it('gives a kept answer back only for the same id and request, and keeps nothing over 1 MB', () => {
    const request = requestFingerprint('GET', '/api/v1/fx-rate', { query: {} });
    const answer = { status: 200, headers: { 'X-Receipt': 'r' }, body: '{"a":1}' };
    const text = replayText('pay_0123456789abcdef', request, answer)!;
    expect(replayFor(text, 'pay_0123456789abcdef', request)).toEqual({ found: true, answer });
    expect(replayFor(text, 'pay_fedcba9876543210', request)).toMatchObject({
      found: false,
      why: expect.stringMatching(/another payment-identifier/),
    });
    expect(replayFor(text, 'pay_0123456789abcdef', requestFingerprint('GET', '/api/v1/kr-prices', { query: {} }))).toMatchObject({
      found: false,
      why: expect.stringMatching(/another request/),
    });
    expect(replayFor(null, 'pay_0123456789abcdef', request)).toMatchObject({ found: false, why: expect.stringMatching(/larger than/) });
    expect(replayText('pay_0123456789abcdef', request, { ...answer, body: 'x'.repeat(MAX_REPLAY_BYTES) })).toBeNull();
  });
});
