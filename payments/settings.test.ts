import { describe, expect, it } from 'vitest';
import { loadSettings, payerPrivateKey } from '../lib/config.ts';

describe('payment settings', () => {
  it('defaults: local settlement, nothing configured, keys next to the snapshots, no proxy trust', () => {
    const s = loadSettings({ SNAPSHOTS_DIR: '/srv/data/store' });
    expect(s.payTo).toEqual({ evm: null, solana: null, xrpl: null });
    expect(s.receiptSigningKey).toBeNull();
    expect(s.keysDir).toBe('/srv/data/keys');
    expect(s.trustProxy).toBe(false);
    expect(s.facilitatorTimeoutMs).toBe(10_000);
    expect(loadSettings({ KEYS_DIR: '/etc/x402' }).keysDir).toBe('/etc/x402');
  });

  it('reads pay-to addresses, TRUST_PROXY and FACILITATOR_TIMEOUT_MS', () => {
    const s = loadSettings({
      PAY_TO_EVM: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      PAY_TO_SOLANA: 'FD7YVyJ5dai6ykGCduUm7HoaNCBTQjShWcmRhCcAD2hx',
      PAY_TO_XRPL: 'rU8Pz7RT7pGRGzpoNbBGuJ1Xa5heLg77H1',
      TRUST_PROXY: 'true',
      FACILITATOR_TIMEOUT_MS: '2500',
    });
    expect(s.payTo.evm).toBe('0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
    expect(s.payTo.xrpl).toBe('rU8Pz7RT7pGRGzpoNbBGuJ1Xa5heLg77H1');
    expect([s.trustProxy, s.facilitatorTimeoutMs]).toEqual([true, 2500]);
  });

  it.each([
    [{ PAY_TO_EVM: '0x1234' }, /PAY_TO_EVM must be an EVM address/],
    [{ PAY_TO_SOLANA: '0xabc' }, /PAY_TO_SOLANA must be a Solana base58 address/],
    [{ PAY_TO_XRPL: 'xrpl-me' }, /PAY_TO_XRPL must be an XRPL classic address/],
    [{ TRUST_PROXY: 'maybe' }, /TRUST_PROXY must be 1\/true\/yes or 0\/false\/no/],
    [{ SETTLEMENT: 'facilitator', FACILITATOR_URL: 'http://f' }, /moves real funds, so it needs your own pay-to address/],
  ])('rejects %j with a clear message', (env, message) => {
    expect(() => loadSettings(env)).toThrow(message);
  });

  it('facilitator mode with one configured network is fine', () => {
    expect(
      loadSettings({
        SETTLEMENT: 'facilitator',
        FACILITATOR_URL: 'http://f',
        PAY_TO_SOLANA: 'FD7YVyJ5dai6ykGCduUm7HoaNCBTQjShWcmRhCcAD2hx',
      }).settlement,
    ).toBe('facilitator');
  });

  it('PAYER_PRIVATE_KEY is read only on request and stays redacted', () => {
    expect(payerPrivateKey({})).toBeNull();
    const key = payerPrivateKey({ PAYER_PRIVATE_KEY: `0x${'11'.repeat(32)}` })!;
    expect(key.reveal()).toBe('11'.repeat(32));
    expect(`${key}`).toBe('[redacted]');
    expect('payerPrivateKey' in loadSettings({ PAYER_PRIVATE_KEY: `0x${'11'.repeat(32)}` })).toBe(false);
  });
});
