/**
 * Server side of the proxy bench, in its own process so the load generator does not share its
 * event loop: `bare <file>` serves the file's bytes from a bare Hono route; `service <service>`
 * serves a service app over $SNAPSHOTS_DIR (SETTLEMENT=local; the paywall's crypto on CRYPTO_WORKERS
 * worker threads; the nonce store from the settings, LMDB in NONCE_DB_DIR or Redis with REDIS_URL,
 * or in memory with BENCH_NONCE_STORE=memory for the same-run baseline). Prints "listening <port>" when ready, and "cpu <µs>" (process CPU time, all
 * threads) for each "cpu" line on stdin.
 */
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { ServiceName } from '../catalog/types.ts';
import { loadSettings } from '../lib/config.ts';
import { createServiceApp, processParts } from '../proxy/serve.ts';
import { memoryStores } from '../proxy/stores.ts';
import { SnapshotReader } from '../snapshots/reader.ts';

async function main(): Promise<void> {
  const [mode, arg] = process.argv.slice(2);
  let fetch: (req: Request) => Response | Promise<Response>;
  if (mode === 'bare') {
    const bytes = readFileSync(arg!, 'utf8');
    const app = new Hono();
    app.get('*', (c) => {
      c.header('Content-Type', 'application/json');
      return c.body(bytes);
    });
    fetch = app.fetch;
  } else if (mode === 'service') {
    const settings = loadSettings();
    const reader = new SnapshotReader(settings.snapshotsDir, arg!);
    await reader.refresh();
    let parts = processParts(settings);
    if (process.env.BENCH_NONCE_STORE === 'memory') {
      await parts.stores?.close();
      const stores = memoryStores();
      parts = { ...parts, nonceStore: stores.nonceStore, rateLimit: stores.rateLimit, stores };
    }
    const app = await createServiceApp(arg as ServiceName, reader, settings, parts);
    fetch = app.fetch;
  } else {
    throw new Error('usage: proxy-child.ts bare <file> | service <korea|analytics>');
  }
  const server = serve({ fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
    process.stdout.write(`listening ${info.port}\n`);
  });
  // "cpu" on stdin → "cpu <µs>": CPU time of the whole process so far, every thread included
  createInterface({ input: process.stdin }).on('line', (line) => {
    if (line.trim() !== 'cpu') return;
    const { user, system } = process.cpuUsage();
    process.stdout.write(`cpu ${user + system}\n`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

main().catch((err: Error) => {
  console.error(err.message);
  process.exit(1);
});
