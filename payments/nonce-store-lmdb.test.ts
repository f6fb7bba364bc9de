/**
 * The LMDB nonce store (the default): single use within a process, across two processes opening
 * one directory, and across a restart; crash-left reservations stay taken; compaction.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { LmdbNonceStore } from './nonce-store-lmdb.ts';
import { StoreUnavailableError, type NonceKey } from './nonce-store.ts';

const key: NonceKey = {
  network: 'eip155:8453',
  asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  from: '0xAbC0000000000000000000000000000000000001',
  nonce: `0x${'aa'.repeat(32)}`,
};

const dirs: string[] = [];
function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'nonce-lmdb-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('LmdbNonceStore', () => {
  it('reserve → in_flight → release → reservable; markUsed keeps it used with its replay', async () => {
    const store = new LmdbNonceStore(freshDir(), { now: () => 1000 });
    expect(await store.reserve(key, 1300)).toBe('reserved');
    expect(await store.reserve(key, 1300)).toBe('in_flight');
    await store.release(key);
    expect(await store.reserve(key, 1300)).toBe('reserved');
    await store.markUsed(key, 1300, '{"answer":1}');
    await store.release(key); // a used key is never given back
    expect(await store.reserve({ ...key, from: key.from.toLowerCase() }, 1300)).toBe('used');
    expect(await store.replayOf(key)).toBe('{"answer":1}');
    expect(await store.replayOf({ ...key, nonce: `0x${'bb'.repeat(32)}` })).toBeNull();
    await store.close();
  });

  it('fifty concurrent reservations of one key: exactly one wins', async () => {
    const store = new LmdbNonceStore(freshDir());
    const results = await Promise.all(Array.from({ length: 50 }, () => store.reserve(key, Math.floor(Date.now() / 1000) + 300)));
    expect(results.filter((r) => r === 'reserved')).toHaveLength(1);
    expect(results.filter((r) => r === 'in_flight')).toHaveLength(49);
    await store.close();
  });

  it('a restart (the store opened again on the same directory) refuses a used payment and keeps a crash-left reservation taken', async () => {
    const dir = freshDir();
    const now = Math.floor(Date.now() / 1000);
    const first = new LmdbNonceStore(dir);
    expect(await first.reserve(key, now + 300)).toBe('reserved');
    await first.markUsed(key, now + 300, 'kept');
    const crashed = { ...key, nonce: `0x${'cc'.repeat(32)}` };
    expect(await first.reserve(crashed, now + 300)).toBe('reserved'); // never released nor marked: the process "died"
    await first.close();

    const second = new LmdbNonceStore(dir);
    expect(await second.reserve(key, now + 300)).toBe('used');
    expect(await second.replayOf(key)).toBe('kept');
    expect(await second.reserve(crashed, now + 300)).toBe('in_flight');
    await second.close();
  });

  it('two processes on one directory reserving the same 200 keys at once: exactly one reserved per key', async () => {
    const dir = freshDir();
    const count = 200;
    const children = [0, 1].map(() =>
      spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'testing', 'lmdb-reserve-child.ts'), dir, String(count)], {
        stdio: ['pipe', 'pipe', 'inherit'],
      }),
    );
    const lines = children.map((child) => {
      const rl = createInterface({ input: child.stdout! });
      const queue: string[] = [];
      const waiting: Array<(line: string) => void> = [];
      rl.on('line', (line) => (waiting.length ? waiting.shift()!(line) : queue.push(line)));
      return () => new Promise<string>((resolve) => (queue.length ? resolve(queue.shift()!) : waiting.push(resolve)));
    });
    expect(await Promise.all(lines.map((next) => next()))).toEqual(['ready', 'ready']);
    for (const child of children) child.stdin!.write('go\n');
    const [a, b] = (await Promise.all(lines.map((next) => next()))).map((line) => JSON.parse(line) as string[]);
    for (let i = 0; i < count; i++) {
      expect([a![i], b![i]].sort(), `key ${i}`).toEqual(['in_flight', 'reserved']);
    }
    // and this process, a third one on the directory, sees every key taken
    const store = new LmdbNonceStore(dir);
    expect(
      await store.reserve({ network: 'eip155:8453', asset: 'usdc', from: '0xpayer', nonce: 'k7' }, Math.floor(Date.now() / 1000) + 300),
    ).toBe('in_flight');
    await store.close();
  }, 60_000);

  it('compaction drops expired entries only; an expired key can be reserved again', async () => {
    let now = 1000;
    const store = new LmdbNonceStore(freshDir(), { now: () => now, marginSeconds: 600, compactEverySeconds: 0 });
    await store.reserve(key, 1300);
    await store.markUsed(key, 1300);
    const later = { ...key, nonce: `0x${'dd'.repeat(32)}` };
    await store.reserve(later, 5000);
    expect(store.size).toBe(2);
    now = 1900;
    expect(await store.reserve(key, 1300)).toBe('used'); // validBefore + margin not yet passed
    expect(await store.prune()).toBe(0);
    now = 1901;
    expect(await store.prune()).toBe(1);
    expect(store.size).toBe(1);
    // reserved 901 s ago: no request is in flight that long, so the reservation reads as used
    expect(await store.reserve(later, 5000)).toBe('used');
    await store.close();
  });

  it('markUsed without a replay answer marks the key used at once, for this process and another one on the directory', async () => {
    let now = 1000;
    const dir = freshDir();
    const store = new LmdbNonceStore(dir, { now: () => now, compactEverySeconds: 0 });
    expect(await store.reserve(key, 5000)).toBe('reserved');
    await store.markUsed(key, 5000);
    expect(await store.replayOf(key)).toBeNull();
    now = 1001; // a repeat one second later: already used, not "in flight" for IN_FLIGHT_SECONDS
    expect(await store.reserve(key, 5000)).toBe('used');
    const other = new LmdbNonceStore(dir, { now: () => now, compactEverySeconds: 0 });
    expect(await other.reserve(key, 5000)).toBe('used');
    // a reservation that was never marked (the process died mid-request) reads in_flight, then used
    const crashed = { ...key, nonce: `0x${'ee'.repeat(32)}` };
    expect(await store.reserve(crashed, 5000)).toBe('reserved');
    now = 1100;
    expect(await other.reserve(crashed, 5000)).toBe('in_flight');
    now = 1122; // reserved at 1001: more than IN_FLIGHT_SECONDS ago
    expect(await other.reserve(crashed, 5000)).toBe('used');
    await other.close();
    await store.close();
  });

  it('compacts by itself on a timer', async () => {
    let now = 1000;
    const store = new LmdbNonceStore(freshDir(), { now: () => now, marginSeconds: 0, compactEverySeconds: 0.05 });
    await store.reserve(key, 1100);
    await store.markUsed(key, 1100);
    expect(store.size).toBe(1);
    now = 1101;
    for (let i = 0; i < 50 && store.size > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(store.size).toBe(0);
    await store.close();
  });

  it('a closed store throws StoreUnavailableError (the paywall answers 503)', async () => {
    const store = new LmdbNonceStore(freshDir());
    await store.close();
    await expect(store.reserve(key, Math.floor(Date.now() / 1000) + 300)).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('a directory that cannot be opened does not throw at start: calls fail with StoreUnavailableError and the store opens once it can', async () => {
    const parent = freshDir();
    const blocked = join(parent, 'nonces');
    writeFileSync(blocked, 'a file where the directory should be');
    const errors: string[] = [];
    const log = vi.spyOn(console, 'error').mockImplementation((line: string) => void errors.push(line));
    try {
      const store = new LmdbNonceStore(blocked, { compactEverySeconds: 0 });
      expect(store.fault).toMatch(/nonce database/);
      expect(store.fault).not.toContain(parent); // /health shows it: no path
      await expect(store.reserve(key, Math.floor(Date.now() / 1000) + 300)).rejects.toBeInstanceOf(StoreUnavailableError);
      rmSync(blocked);
      expect(await store.reserve(key, Math.floor(Date.now() / 1000) + 300)).toBe('reserved');
      expect(store.fault).toBeNull();
      await store.close();
    } finally {
      log.mockRestore();
    }
    expect(errors.join('\n')).toMatch(/nonce store: .*paid endpoints answer 503/);
  });
});
