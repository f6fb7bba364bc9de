/**
 * A second process for the LMDB nonce store tests: opens the store in argv[2], prints "ready",
 * waits for "go" on stdin, then reserves keys 0..argv[3]-1 (nonce "k<i>") one after the other, so
 * its write transactions interleave with the other process's, and prints the results as one JSON line: proves that two processes on one directory get one 'reserved' per key.
 */
import { createInterface } from 'node:readline';
import { LmdbNonceStore } from '../nonce-store-lmdb.ts';

const [dir, count] = process.argv.slice(2);
const store = new LmdbNonceStore(dir!, { compactEverySeconds: 0 });
const expiresAt = Math.floor(Date.now() / 1000) + 300;
process.stdout.write('ready\n');
createInterface({ input: process.stdin }).once('line', () => {
  void (async () => {
    const keys = Array.from({ length: Number(count) }, (_, i) => ({
      network: 'eip155:8453',
      asset: 'usdc',
      from: '0xpayer',
      nonce: `k${i}`,
    }));
    const results: string[] = [];
    for (const k of keys) results.push(await store.reserve(k, expiresAt));
    process.stdout.write(`${JSON.stringify(results)}\n`);
    await store.close();
    process.exit(0);
  })();
});
