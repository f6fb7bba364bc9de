import { describe, expect, it } from 'vitest';
import { MemoryNonceStore, nonceKeyText, type NonceKey } from './nonce-store.ts';

const key: NonceKey = {
  network: 'eip155:8453',
  asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  from: '0xAbC0000000000000000000000000000000000001',
  nonce: `0x${'aa'.repeat(32)}`,
};

describe('MemoryNonceStore', () => {
  it('reserve → in_flight for others → release → reservable again', async () => {
    const store = new MemoryNonceStore({ now: () => 1000 });
    expect(await store.reserve(key, 1300)).toBe('reserved');
    expect(await store.reserve(key, 1300)).toBe('in_flight');
    await store.release(key);
    expect(await store.reserve(key, 1300)).toBe('reserved');
  });

  it('markUsed keeps the key taken; release does not undo a used key', async () => {
    const store = new MemoryNonceStore({ now: () => 1000 });
    await store.reserve(key, 1300);
    await store.markUsed(key, 1300);
    await store.release(key);
    expect(await store.reserve(key, 1300)).toBe('used');
  });

  it('keys are case-insensitive (EVM hex) and include network and asset', async () => {
    const store = new MemoryNonceStore({ now: () => 1000 });
    await store.reserve(key, 1300);
    expect(await store.reserve({ ...key, from: key.from.toLowerCase(), nonce: key.nonce.toUpperCase().replace('0X', '0x') }, 1300)).toBe(
      'in_flight',
    );
    expect(await store.reserve({ ...key, network: 'eip155:137' }, 1300)).toBe('reserved');
    expect(nonceKeyText(key)).toBe(nonceKeyText({ ...key, asset: key.asset.toLowerCase() }));
  });

  it('keeps entries until validBefore + margin, then prunes them', async () => {
    let now = 1000;
    const store = new MemoryNonceStore({ now: () => now, marginSeconds: 600 });
    await store.reserve(key, 1300);
    await store.markUsed(key, 1300);
    now = 1900;
    expect(await store.reserve(key, 1300)).toBe('used');
    now = 1901;
    expect(store.prune()).toBe(1);
    expect(store.size).toBe(0);
  });

  it('fifty concurrent reservations of one key: exactly one wins', async () => {
    const store = new MemoryNonceStore();
    const results = await Promise.all(Array.from({ length: 50 }, () => store.reserve(key, Math.floor(Date.now() / 1000) + 300)));
    expect(results.filter((r) => r === 'reserved')).toHaveLength(1);
    expect(results.filter((r) => r === 'in_flight')).toHaveLength(49);
  });
});
