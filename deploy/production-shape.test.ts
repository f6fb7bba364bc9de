/**
 * The production shape of deploy/, on loopback: the environment of deploy/env.template (only
 * directories, ports, the public URLs and the upstreams pointed at this machine), live pipelines
 * of both services against upstreams serving recorded payloads, the proxy started as its systemd
 * unit starts it (`node --import tsx proxy/serve.ts`, a process of its own), a persistent Redis and
 * a facilitator that needs a key (each call a CDP JWT it checks: signature, method and path, expiry). One paid call per network with `npm run pay`'s code, the proxy restarted, and the
 * same payment sent again is refused: single use outlives the process.
 *
 * The pipelines run through the pipeline command at the payloads' recorded times (the scheduler
 * runs the same command at the current minute, which recorded payloads cannot answer for).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../lib/config.ts';
import { templateEnv } from './template-env.ts';
import { startLoopback, type Loopback, type RecordedRequest, type Reply } from '../lib/testing/loopback.ts';
import { fakeSolanaRpc, fakeXrplRpc, SOLANA_PAYER_KEY_BASE58, XRPL_PAYER_SEED } from '../payments/testing/chains.ts';
import { checkCdpJwt, throwawayCdpKey } from '../payments/testing/cdp-jwt.ts';
import { fakeFacilitator, PAYER_KEY_HEX, type FakeFacilitator } from '../payments/testing/paywall.ts';
import { parseArgs, runCli } from '../pipelines/cli.ts';
import { LineProgress } from '../pipelines/progress.ts';
import { freePort, startRedis, type TestRedis } from '../proxy/testing/redis.ts';
import { pay } from '../scripts/pay.ts';
import { evmNodeRoutes, baseFixtureIndex } from '../sources/live/testing/evm-node.ts';
import { fixture } from '../sources/live/testing/fixtures.ts';
import { KOREA_FIXTURE_NOW, startKoreaUpstreams, type KoreaUpstreamWorld } from '../sources/live/testing/korea-upstreams.ts';

const SOLANA_FEE_PAYER = 'CayDU1nDxjnfS98a7FYCHLNuhBnTfH2vTNvahtTtx2cd';
const cdpKey = throwawayCdpKey();
/** Why the facilitator refused a call's credentials, each time it did. */
const refusals: string[] = [];

let root: string;
let redis: TestRedis;
let facilitator: FakeFacilitator;
let korea: KoreaUpstreamWorld;
let analytics: Loopback;
let solanaRpc: Loopback;
let xrplRpc: Loopback;
let env: Record<string, string>;
let proxy: ChildProcess | null = null;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'production-shape-'));
  redis = await startRedis({ appendonly: true });
  // a facilitator that needs a key, as Coinbase's does: every call must carry a valid CDP JWT for its method and path
  facilitator = await fakeFacilitator({
    feePayer: SOLANA_FEE_PAYER,
    authorize: (req) => {
      const refused = checkCdpJwt(req, cdpKey, new URL(facilitator.url).host);
      if (refused) refusals.push(refused);
      return refused;
    },
  });
  korea = await startKoreaUpstreams();
  type Page = { items: unknown[]; pagination?: { offset?: number } };
  const pages = [0, 1, 2].map((i) => fixture<Page>(`discovery-page-${i}.json`));
  const fx = baseFixtureIndex();
  analytics = await startLoopback([
    {
      method: 'GET',
      path: '/facilitator/discovery/resources',
      reply: (req: RecordedRequest): Reply => ({
        json: pages.find((p) => p.pagination?.offset === Number(req.query.offset)) ?? { items: [] },
      }),
    },
    ...evmNodeRoutes('/base', { finalized: fx.firstFinalized, maxResults: 100, receipts: true }),
  ]);
  solanaRpc = await fakeSolanaRpc();
  xrplRpc = await fakeXrplRpc();
  const [koreaPort, analyticsPort] = [await freePort(), await freePort()];
  env = {
    ...templateEnv(),
    // this machine's directories, ports and upstreams instead of the host's
    SNAPSHOTS_DIR: join(root, 'snapshots'),
    WAREHOUSE_DIR: join(root, 'warehouse'),
    KEYS_DIR: join(root, 'keys'),
    NONCE_DB_DIR: join(root, 'nonces'),
    SITE_DIR: join(root, 'site'),
    BACKUP_URL: join(root, 'backups'),
    SITE_BUILD: 'off', // the site build has its own tests; here it only costs a minute
    PROBES: 'off', // the recorded catalog names public hosts
    KOREA_PORT: String(koreaPort),
    ANALYTICS_PORT: String(analyticsPort),
    KOREA_PUBLIC_URL: `http://127.0.0.1:${koreaPort}`,
    ANALYTICS_PUBLIC_URL: `http://127.0.0.1:${analyticsPort}`,
    REDIS_URL: redis.url,
    FACILITATOR_URL: facilitator.url,
    FACILITATOR_AUTH: 'cdp',
    CDP_API_KEY_ID: cdpKey.apiKeyId,
    CDP_API_KEY_SECRET: cdpKey.apiKeySecret,
    PAY_TO_EVM: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    PAY_TO_SOLANA: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin',
    PAY_TO_XRPL: 'rU8Pz7RT7pGRGzpoNbBGuJ1Xa5heLg77H1',
    XRPL_RPC_URL: xrplRpc.url,
    ...korea.env,
    X402_DISCOVERY_URL: `${analytics.url}/facilitator`,
    BASE_RPC_URL: `${analytics.url}/base`,
    CRYPTO_WORKERS: '0',
  };
}, 120_000);

afterAll(async () => {
  proxy?.kill('SIGKILL');
  await Promise.all([redis?.close(), facilitator?.close(), korea?.close(), analytics?.close(), solanaRpc?.close(), xrplRpc?.close()]);
  rmSync(root, { recursive: true, force: true });
});

/** The proxy as its unit starts it; resolves once both services answer /health. */
async function startProxy(): Promise<void> {
  proxy = spawn(process.execPath, ['--import', 'tsx', 'proxy/serve.ts'], { env: { PATH: process.env.PATH, ...env }, stdio: 'pipe' });
  let output = '';
  proxy.stdout?.on('data', (d) => (output += d));
  proxy.stderr?.on('data', (d) => (output += d));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const up = await Promise.all(
      [env.KOREA_PUBLIC_URL, env.ANALYTICS_PUBLIC_URL].map((u) =>
        fetch(`${u}/health`)
          .then((r) => r.status === 200)
          .catch(() => false),
      ),
    );
    if (up.every(Boolean)) return;
    if (proxy.exitCode !== null || Date.now() > deadline) throw new Error(`the proxy did not come up: ${output.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function stopProxy(): Promise<void> {
  const p = proxy!;
  const exited = new Promise((resolve) => p.once('exit', resolve));
  p.kill('SIGTERM');
  await exited;
  proxy = null;
}

/** One `npm run pay` call; returns its exit code, the body printed and the payment header it sent. */
async function payOnce(
  url: string,
  args: string[],
  keys: Record<string, string>,
): Promise<{ code: number; body: string; header: [string, string] | null; log: string }> {
  const out: string[] = [];
  const err: string[] = [];
  let header: [string, string] | null = null;
  const code = await pay([url, ...args], keys, {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    fetch: (input, init) => {
      const h = new Headers(init?.headers);
      for (const name of ['PAYMENT-SIGNATURE', 'X-PAYMENT']) {
        const v = h.get(name);
        if (v) header = [name, v];
      }
      return fetch(input, init);
    },
  });
  return { code, body: out.join('\n'), header, log: err.join('\n') };
}

describe('the production shape, from deploy/env.template', () => {
  it('publishes live snapshots of both services, takes one paid call per network, and refuses a payment used before a restart', async () => {
    // the settings parse as the services parse them
    expect(loadSettings(env)).toMatchObject({ settlement: 'facilitator', trustProxy: true });

    for (const [service, now] of [
      ['korea', KOREA_FIXTURE_NOW.toISOString()],
      ['analytics', '2026-03-02T01:02:00Z'],
    ] as const) {
      const { exitCode, results } = await runCli(parseArgs([service, '--source', 'live', '--now', now]), loadSettings(env), {
        progress: new LineProgress(() => {}),
        out: () => {},
      });
      expect(results[0]!.manifest, service).not.toBeNull();
      expect([0, 1], `${service} exit ${exitCode}`).toContain(exitCode);
    }

    await startProxy();
    const koreaUrl = env.KOREA_PUBLIC_URL!;
    const analyticsUrl = env.ANALYTICS_PUBLIC_URL!;
    const evm = { PAYER_PRIVATE_KEY: `0x${PAYER_KEY_HEX}` };
    const calls = [
      ['base', `${analyticsUrl}/api/v1/categories/ai_inference/full-history`, ['--network', 'base'], evm],
      ['polygon', `${koreaUrl}/api/v1/fx-rate`, ['--network', 'polygon'], evm],
      [
        'solana',
        `${koreaUrl}/api/v1/fx-rate`,
        ['--network', 'solana'],
        { SOLANA_PAYER_KEY: SOLANA_PAYER_KEY_BASE58, SOLANA_RPC_URL: solanaRpc.url },
      ],
      ['xrpl', `${koreaUrl}/api/v1/xrpl/fx-rate`, ['--network', 'xrpl'], { XRPL_PAYER_SEED, XRPL_RPC_URL: xrplRpc.url }],
    ] as const;
    const paid: Array<{ url: string; header: [string, string] }> = [];
    for (const [network, url, args, keys] of calls) {
      const result = await payOnce(url, [...args], { ...keys });
      expect(result.code, `${network}: ${result.log}`).toBe(0);
      expect((JSON.parse(result.body) as { receipt: { network: string } }).receipt.network).toBe(network);
      paid.push({ url, header: result.header! });
    }

    // each payment was verified and settled by the facilitator, every call with a CDP JWT it accepted
    const settled = facilitator.loopback.requests.filter((r) => r.path === '/settle');
    expect(settled).toHaveLength(calls.length);
    expect(facilitator.loopback.requests.every((r) => r.headers.authorization?.startsWith('Bearer '))).toBe(true);
    expect(refusals).toEqual([]);

    // a restart: every payment already used stays used
    await stopProxy();
    await startProxy();
    for (const { url, header } of paid) {
      const again = await fetch(url, { headers: { [header[0]]: header[1] } });
      expect(again.status, url).toBe(402);
      expect(JSON.stringify(await again.json()), url).toMatch(/already|used|replay|duplicate/i);
    }
    await stopProxy();
  }, 400_000);
});
