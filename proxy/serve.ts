/**
 * npm run serve: both services on their ports (KOREA_PORT, ANALYTICS_PORT), reading the latest
 * snapshots read-only and swapping in newer versions as the pipelines publish them.
 *
 * With SNAPSHOTS_PULL_URL the pipelines publish elsewhere (GitHub Actions) and this process
 * follows that source: one SnapshotFollower per service (snapshots/pull.ts) pulls each new
 * version into SNAPSHOTS_DIR with the writer's atomic publish, then refreshes the service's
 * reader, which verifies and serves it as it would a local publish. In this process rather than
 * a separate one: /health reports the follower's last check and problem with nothing to share
 * between processes, the swap happens as soon as a pull ends, and there is one thing to deploy.
 * The downloads stream to disk, so serving is not held up (`npm run pull-snapshots` does the same
 * pull once, e.g. to fill a new host before its first start).
 */
import { serve, type ServerType } from '@hono/node-server';
import type { Hono } from 'hono';
import { SERVICES, type ServiceName } from '../catalog/types.ts';
import { loadSettings, type Settings } from '../lib/config.ts';
import { patternSalt } from '../lib/wash-ids.ts';
import { SnapshotFollower } from '../snapshots/pull.ts';
import { SnapshotReader, type LoadedSnapshot } from '../snapshots/reader.ts';
import { warmAnalytics } from './data/analytics.ts';
import { closeSnapshotDuck } from './data/duck.ts';
import { handlersFor } from './data/index.ts';
import type { RateLimitStore } from './rate-limit.ts';
import { serviceApp } from './service-app.ts';
import { buildStores, type Stores } from './stores.ts';
import { sharedCrypto } from '../payments/crypto-pool.ts';
import { facilitatorRoutes } from '../payments/facilitators.ts';
import { createPaywall, type PaymentParts } from '../payments/paywall.ts';
import { ReceiptSigner } from '../payments/receipts.ts';

/** What the services of one process share, built once (processParts) and handed to each app. */
export interface ProcessParts extends PaymentParts {
  /** Salt of the wash check's anonymous pattern ids. */
  washPatternSalt: string;
  /** The free-tier limiter both services count in (default: one in memory per app); null = no limit (FREE_TIER_LIMIT=0). */
  rateLimit?: RateLimitStore | null;
  /** The stores behind nonceStore and rateLimit (proxy/stores.ts): /health reports them, stopServices closes them. */
  stores?: Stores;
}

/**
 * The process's parts from the settings: the receipt signer (RECEIPT_SIGNING_KEY, or the key file
 * in KEYS_DIR), the payment crypto on CRYPTO_WORKERS worker threads (default "auto": inline up
 * to 2 cores, one per core above; 0 = on the event loop), one nonce store for both services (paid to
 * the same addresses, so one payment must buy one response, not one from each) and the free-tier
 * limiter, both durable or shared as the settings say (proxy/stores.ts: LMDB in NONCE_DB_DIR, or
 * Redis with REDIS_URL), the facilitator of each network with its credentials (SETTLEMENT=facilitator:
 * FACILITATOR_URL, FACILITATOR_URL_<NETWORK>, payments/facilitators.ts) and the wash pattern salt.
 * `now`: the nonce store's clock (tests with a fixed clock).
 */
export function processParts(settings: Settings, options: { now?: () => Date } = {}): ProcessParts {
  const signer = ReceiptSigner.load(settings).signer;
  const stores = buildStores(settings, options.now ? { now: options.now } : {});
  return {
    signer,
    crypto: sharedCrypto(signer, settings.cryptoWorkers),
    nonceStore: stores.nonceStore,
    rateLimit: stores.rateLimit,
    stores,
    facilitator: facilitatorRoutes(settings),
    washPatternSalt: patternSalt(settings.washPatternSalt), // WASH_PATTERN_SALT, else a random salt per process
  };
}

/**
 * The app of one service with its x402 paywall (settlement from SETTLEMENT). Facilitator problems
 * at start-up (e.g. /supported unreachable) are printed, not fatal: the 402s still go out and a
 * payment is refused with the reason. Credentials a facilitator refuses (401, 403) or that cannot
 * be used throw, naming the settings: a bad key stops the start, not the first paid call.
 */
export async function createServiceApp(
  service: ServiceName,
  reader: SnapshotReader,
  settings: Settings,
  parts: ProcessParts,
  options: { siteDir?: string; now?: () => Date; follower?: SnapshotFollower | null } = {},
): Promise<Hono> {
  const { signer, crypto, nonceStore, facilitator } = parts;
  const paywall = createPaywall({
    service,
    settings,
    signer,
    crypto,
    nonceStore,
    facilitator,
    ...(options.now ? { now: options.now } : {}),
  });
  for (const p of await paywall.init()) console.error(`${service}: payments: ${p}`);
  await parts.stores?.ready();
  return serviceApp({
    service,
    reader,
    settings,
    payments: paywall,
    handlers: handlersFor(service, { patternSalt: parts.washPatternSalt }),
    ...(parts.rateLimit !== undefined ? { rateLimit: parts.rateLimit } : {}),
    ...(parts.stores ? { stores: parts.stores.health } : {}),
    ...(options.siteDir ? { siteDir: options.siteDir } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.follower ? { snapshotSource: () => options.follower!.status() } : {}),
  });
}

/** Loads what the first requests of a new snapshot version would otherwise wait for. */
/** Warm-ups not yet settled: stopServices waits for them before closing the DuckDB they query. */
const warming = new Set<Promise<void>>();

function warm(service: ServiceName, snapshot: LoadedSnapshot): void {
  if (service !== 'analytics') return;
  const done = warmAnalytics(snapshot)
    .catch((err: Error) => console.error(`analytics: warming snapshot ${snapshot.version} failed: ${err.message}`))
    .finally(() => warming.delete(done));
  warming.add(done);
}

export interface RunningService {
  service: ServiceName;
  url: string;
  reader: SnapshotReader;
  server: ServerType;
  /** The process's stores, shared by every service (closed once by stopServices). */
  stores: Stores | null;
  /** Pulls the service's snapshots from SNAPSHOTS_PULL_URL; null when it is not set. */
  follower: SnapshotFollower | null;
}

/** The follower of `service`'s snapshots at SNAPSHOTS_PULL_URL (null when unset); a new version refreshes `reader` at once. */
function followerOf(service: ServiceName, settings: Settings, reader: SnapshotReader): SnapshotFollower | null {
  const pull = settings.snapshotsPull;
  if (!pull) return null;
  return new SnapshotFollower({
    root: settings.snapshotsDir,
    service,
    source: { url: pull.url, token: pull.token?.reveal() ?? null },
    retention: settings.snapshotRetention,
    timeoutMs: pull.timeoutMs,
    intervalMs: pull.intervalMs,
    log: (line) => console.log(line),
    onPublished: () => void reader.refresh(),
  });
}

/** The nonce store would not keep single use across its own restart; the message says how to fix or override it. */
export class StoreRefusedError extends Error {
  override readonly name = 'StoreRefusedError';
}

/**
 * Refuses a Redis that does not persist its data (REDIS_URL without appendonly yes): after a
 * Redis restart every used payment would buy an answer again. NONCE_STORE_ALLOW_VOLATILE=1 runs
 * anyway, with a warning. A Redis that does not answer yet is not refused here: its store stays
 * closed (paid 503) until it connects and says it persists (nonce-store-redis.ts).
 */
export async function checkStores(stores: Stores, settings: Pick<Settings, 'nonceStoreAllowVolatile'>): Promise<void> {
  await stores.ready();
  const volatile = await stores.volatility();
  if (!volatile) return;
  if (!settings.nonceStoreAllowVolatile) throw new StoreRefusedError(volatile);
  console.error(`warning (NONCE_STORE_ALLOW_VOLATILE=1, running anyway): ${volatile}`);
}

/** The store check of startServices on its own, for commands that do a long job before serving (npm start): refuse early. */
export async function preflightStores(settings: Settings): Promise<void> {
  if (!settings.redisUrl) return;
  const stores = buildStores(settings);
  try {
    await checkStores(stores, settings);
  } finally {
    await stores.close();
  }
}

export async function startServices(settings: Settings): Promise<RunningService[]> {
  const running: RunningService[] = [];
  const parts = processParts(settings); // one receipt key, crypto pool and nonce store for both services
  if (parts.stores) {
    try {
      await checkStores(parts.stores, settings);
    } catch (err) {
      await parts.stores.close();
      throw err;
    }
  }
  for (const service of SERVICES) {
    const reader = new SnapshotReader(settings.snapshotsDir, service, {
      onChange: (s) => {
        console.log(`${service}: serving snapshot ${s.version}${s.fallbackReason ? ` (fallback: ${s.fallbackReason})` : ''}`);
        warm(service, s);
      },
      onError: (e) => console.error(`${service}: snapshot not loaded: ${e.message}`),
    });
    await reader.refresh();
    reader.watch();
    // the first pull runs in the background: the service answers (from what is here, or 503 with
    // /health saying the pull is under way) while a large version downloads
    const follower = followerOf(service, settings, reader);
    follower?.start();
    const app = await createServiceApp(service, reader, settings, parts, { siteDir: settings.siteDir, follower });
    const port = service === 'korea' ? settings.koreaPort : settings.analyticsPort;
    const server = await new Promise<ServerType>((resolveServer, reject) => {
      const s = serve({ fetch: app.fetch, port, hostname: settings.host }, () => resolveServer(s));
      s.once('error', (err: NodeJS.ErrnoException) =>
        reject(
          err.code === 'EADDRINUSE'
            ? new Error(`${service}: port ${port} is already in use (set ${service === 'korea' ? 'KOREA_PORT' : 'ANALYTICS_PORT'})`)
            : err,
        ),
      );
    });
    const address = server.address();
    const actualPort = typeof address === 'object' && address ? address.port : port;
    running.push({ service, url: `http://${settings.host}:${actualPort}`, reader, server, stores: parts.stores ?? null, follower });
  }
  return running;
}

export async function stopServices(running: readonly RunningService[]): Promise<void> {
  await Promise.all(
    running.map(
      (r) =>
        new Promise<void>((done) => {
          r.reader.close();
          r.server.close(() => done());
        }),
    ),
  );
  // a pull cut here changes nothing: its temporary directory is removed and latest.json stays
  await Promise.all(running.map((r) => r.follower?.close()));
  // a snapshot that loaded just before the stop may still be warming: its running statements are
  // interrupted by the close, the warm-up settles, and a second close ends what it opened since
  await closeSnapshotDuck();
  await Promise.allSettled([...warming]);
  await closeSnapshotDuck();
  for (const stores of new Set(running.map((r) => r.stores))) await stores?.close();
}

async function main(): Promise<void> {
  const settings = loadSettings();
  const running = await startServices(settings);
  for (const r of running) {
    console.log(`${r.service.padEnd(9)} ${r.url}  (health ${r.url}/health)`);
  }
  const shutdown = () => {
    void stopServices(running).then(() => process.exit(0));
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

if (process.argv[1]?.endsWith('proxy/serve.ts')) {
  main().catch((err: Error) => {
    console.error(err.message);
    process.exit(1);
  });
}
