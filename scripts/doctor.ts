/**
 * `npm run doctor`: checks a production configuration before it takes money (deploy/README.md).
 * Reads the same settings the services read (the environment, e.g. `set -a; . /etc/kr-x402/env`)
 * and prints one line per check; each problem is one line saying what is wrong and how to fix it.
 * Exit 0 when nothing is wrong, 1 when something is, 2 when the settings do not even parse.
 *
 * Checks: settlement through a facilitator; the facilitator reachable, its `/supported` covering
 * every network offered, and its clock within 30 s of ours (its `Date` header); a pay-to address
 * for every network offered; the receipt key present and readable by this user only; Redis
 * persistent (or the LMDB nonce store's directory writable); room on the disks the services write;
 * the public URLs `https://`; TRUST_PROXY set behind a reverse proxy and unset when exposed directly.
 * Secrets are never printed: the messages name settings, not values.
 */
import { accessSync, constants, existsSync, mkdirSync, statSync, statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { loadSettings, type Settings } from '../lib/config.ts';
import type { FacilitatorClient } from '../payments/facilitator.ts';
import { facilitatorRoutes } from '../payments/facilitators.ts';
import { persistenceRefusal, redisClient, redisPersistence, whenReady } from '../payments/nonce-store-redis.ts';
import { payToFor, payToTable } from '../payments/networks.ts';
import { offeredNetworks } from '../payments/wire.ts';
import type { ServiceName } from '../catalog/types.ts';

/** Free space below this on a disk the services write is a problem. */
export const MIN_FREE_BYTES = 2 * 1024 ** 3;
/** A facilitator clock further than this from ours is a problem (payment authorizations carry validAfter/validBefore times). */
export const MAX_CLOCK_SKEW_SECONDS = 30;

export interface DoctorReport {
  /** What was checked and found right. */
  ok: string[];
  /** One line each: what is wrong, then how to fix it. */
  problems: string[];
}

export interface DoctorOptions {
  /** Our clock (tests). */
  now?: () => Date;
  /** Free bytes on the disk holding a path (tests). */
  freeBytes?: (path: string) => number;
}

const SERVICES: readonly ServiceName[] = ['korea', 'analytics'];

/** The nearest existing directory of a path (a data directory may not exist before the first run). */
function existing(path: string): string {
  let p = path;
  while (!existsSync(p) && dirname(p) !== p) p = dirname(p);
  return p;
}

function freeBytesOf(path: string): number {
  const s = statfsSync(existing(path));
  return s.bavail * s.bsize;
}

const isLoopbackHost = (host: string) => ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host);

export async function doctor(settings: Settings, options: DoctorOptions = {}): Promise<DoctorReport> {
  const report: DoctorReport = { ok: [], problems: [] };
  const ok = (line: string) => report.ok.push(line);
  const problem = (line: string) => report.problems.push(line);
  const now = options.now ?? (() => new Date());

  // ---- settlement and pay-to addresses
  const networks = [
    ...new Map(SERVICES.flatMap((s) => [false, true].flatMap((x) => offeredNetworks(s, x))).map((n) => [n.name, n])).values(),
  ];
  if (settings.settlement !== 'facilitator') {
    problem('SETTLEMENT is local: payments are checked but no funds move; set SETTLEMENT=facilitator with FACILITATOR_URL to take money');
  } else {
    ok('SETTLEMENT=facilitator');
  }
  const table = payToTable({ settlement: 'facilitator', payTo: settings.payTo });
  const offered = networks.filter((n) => payToFor(table, n));
  const missing = networks.filter((n) => !payToFor(table, n));
  if (offered.length === 0) {
    problem('no pay-to address is set, so no network is offered: set PAY_TO_EVM, PAY_TO_SOLANA and/or PAY_TO_XRPL to wallets you control');
  } else {
    ok(`pay-to set for ${offered.map((n) => n.name).join(', ')}`);
    for (const family of ['evm', 'solana', 'xrpl'] as const) {
      const names = missing.filter((n) => n.kind === family).map((n) => n.name);
      if (names.length) ok(`not offered (no PAY_TO_${family.toUpperCase()}): ${names.join(', ')}`);
    }
  }

  // ---- the facilitators (one per network, FACILITATOR_URL_<NETWORK> before FACILITATOR_URL):
  // reachable with their credentials, covering the networks routed to them, their clock
  if (settings.settlement === 'facilitator') {
    // the Date of each answer, as the client's own fetch sees it (the calls carry the credentials)
    const dates = new Map<string, string>();
    const recording: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const date = res.headers.get('date');
      if (date) dates.set(String(input instanceof Request ? input.url : input), date);
      return res;
    };
    const routes = facilitatorRoutes(settings, { fetch: recording });
    const byClient = new Map<FacilitatorClient, typeof offered>();
    for (const n of offered) {
      const client = routes?.for(n.name) ?? null;
      if (!client) problem(`${n.name} is offered but has no facilitator: set FACILITATOR_URL_${n.name.toUpperCase()} or FACILITATOR_URL`);
      else byClient.set(client, [...(byClient.get(client) ?? []), n]);
    }
    for (const [client, nets] of byClient) {
      const names = nets.map((n) => n.name);
      const setting = nets.every((n) => settings.facilitators.byNetwork[n.name as keyof typeof settings.facilitators.byNetwork])
        ? names.map((n) => `FACILITATOR_URL_${n.toUpperCase()}`).join(', ')
        : 'FACILITATOR_URL';
      const supported = await client.supported();
      if (!supported.ok) {
        problem(
          `the facilitator of ${names.join(', ')} (${setting}) does not answer /supported (${supported.code}: ${supported.message}); check the URL, its credentials and the network path to it`,
        );
        continue;
      }
      for (const n of nets) {
        const listed = supported.kinds.some((k) => k.scheme === 'exact' && (k.network === n.caip2 || k.network === n.name));
        if (listed) ok(`facilitator (${setting}) supports exact on ${n.name}`);
        else
          problem(
            `the facilitator's /supported (${setting}) does not list exact on ${n.name}, which is offered (PAY_TO_${n.kind.toUpperCase()} is set): use a facilitator that settles ${n.name}, or unset PAY_TO_${n.kind.toUpperCase()}`,
          );
      }
      const date = [...dates].find(([url]) => url.startsWith(client.url))?.[1];
      const theirs = date ? Date.parse(date) : Number.NaN;
      if (!Number.isFinite(theirs)) {
        problem(
          `the facilitator (${setting}) sends no Date header, so the clock cannot be compared: check this host runs NTP (timedatectl)`,
        );
      } else {
        const skew = Math.abs(now().getTime() - theirs) / 1000;
        if (skew > MAX_CLOCK_SKEW_SECONDS)
          problem(
            `this host's clock is ${Math.round(skew)} s away from the facilitator's (${setting}; more than ${MAX_CLOCK_SKEW_SECONDS} s): payment validity windows will be judged wrongly; enable NTP (timedatectl set-ntp true)`,
          );
        else ok(`clock within ${Math.round(skew)} s of the facilitator's (${setting})`);
      }
    }
  }

  // ---- the receipt key
  if (settings.receiptSigningKey) ok('receipt key from RECEIPT_SIGNING_KEY');
  else {
    const path = `${settings.keysDir}/receipt-signing.key`;
    if (!existsSync(path)) {
      problem(
        `no receipt key in KEYS_DIR (${path}): start the service once to generate it (mode 0600), or set RECEIPT_SIGNING_KEY; back the key up, receipts are checked against it`,
      );
    } else {
      const mode = statSync(path).mode & 0o777;
      if (mode & 0o077)
        problem(
          `the receipt key file in KEYS_DIR is readable by others (mode ${mode.toString(8)}): chmod 600 it and chown it to the service user`,
        );
      else ok('receipt key present, readable by its owner only');
    }
  }

  // ---- single use of payments: Redis persistent, or the LMDB directory writable
  if (settings.redisUrl) {
    const redis = redisClient(settings.redisUrl.reveal());
    try {
      await whenReady(redis);
      const p = await redisPersistence(redis);
      if (p.durable) ok(`Redis persists its data (${p.how})`);
      else if (settings.nonceStoreAllowVolatile)
        ok(`Redis persistence not confirmed, accepted by NONCE_STORE_ALLOW_VOLATILE=1 (${p.reason})`);
      else problem(persistenceRefusal(p));
    } catch (err) {
      problem(`REDIS_URL does not answer (${(err as Error).message.split('\n')[0]}): start Redis (deploy/redis.conf) or fix the URL`);
    } finally {
      redis.disconnect();
    }
  } else {
    try {
      mkdirSync(settings.nonceDbDir, { recursive: true });
      accessSync(settings.nonceDbDir, constants.W_OK);
      ok('nonce store: LMDB in NONCE_DB_DIR, writable (one host only; set REDIS_URL to share it between instances)');
    } catch {
      problem('NONCE_DB_DIR is not writable by this user: single use of payments could not be recorded; fix its owner or set REDIS_URL');
    }
  }

  // ---- disk room
  const free = options.freeBytes ?? freeBytesOf;
  for (const [setting, path] of [
    ['SNAPSHOTS_DIR', settings.snapshotsDir],
    ['WAREHOUSE_DIR', settings.warehouseDir],
    ['NONCE_DB_DIR', settings.nonceDbDir],
  ] as const) {
    const bytes = free(path);
    if (bytes < MIN_FREE_BYTES)
      problem(
        `${setting} has ${(bytes / 1024 ** 3).toFixed(1)} GiB free, less than ${MIN_FREE_BYTES / 1024 ** 3} GiB: free space or move it to a larger disk`,
      );
    else ok(`${setting}: ${(bytes / 1024 ** 3).toFixed(1)} GiB free`);
  }

  // ---- public URLs and the reverse proxy
  for (const service of SERVICES) {
    const setting = service === 'korea' ? 'KOREA_PUBLIC_URL' : 'ANALYTICS_PUBLIC_URL';
    const url = settings.publicUrl[service];
    if (!url)
      problem(
        `${setting} is not set: 402s, receipts and the x402 manifest would name the address a request arrived at; set it to the https:// origin clients use`,
      );
    else if (!url.startsWith('https://'))
      problem(
        `${setting} is ${url}, not https://: buyers pay for an http:// resource; serve it over TLS (deploy/Caddyfile) and set the https:// origin`,
      );
    else ok(`${setting} ${url}`);
  }
  const behindProxy = isLoopbackHost(settings.host);
  if (behindProxy && !settings.trustProxy) {
    problem(
      "HOST is a loopback address (behind a reverse proxy) but TRUST_PROXY is off: every client would share the proxy's address for the free-tier limit; set TRUST_PROXY=1",
    );
  } else if (!behindProxy && settings.trustProxy) {
    problem(
      `HOST is ${settings.host} (reachable directly) and TRUST_PROXY=1: any client can send X-Forwarded-For and escape the free-tier limit; bind HOST=127.0.0.1 behind the proxy, or unset TRUST_PROXY`,
    );
  } else ok(behindProxy ? 'behind a reverse proxy with TRUST_PROXY=1' : 'exposed directly, TRUST_PROXY off');

  return report;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  let settings: Settings;
  try {
    settings = loadSettings();
  } catch (err) {
    console.error(`doctor: ${(err as Error).message}`);
    process.exit(2);
  }
  const report = await doctor(settings);
  for (const line of report.ok) console.log(`ok       ${line}`);
  for (const line of report.problems) console.log(`PROBLEM  ${line}`);
  console.log(report.problems.length ? `\n${report.problems.length} problem(s): fix them before taking money` : '\nready to take money');
  process.exit(report.problems.length ? 1 : 0);
}
