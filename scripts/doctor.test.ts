/**
 * `npm run doctor` (scripts/doctor.ts) on a good production configuration and on each bad one:
 * a loopback facilitator answering /supported with its Date header, a real Redis (with and without
 * an append-only file), a receipt key file on disk. Each bad configuration is named in exactly one
 * problem line that says how to fix it; the command itself exits 1 and prints no secret.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../lib/config.ts';
import { startLoopback, type Loopback } from '../lib/testing/loopback.ts';
import { startRedis, type TestRedis } from '../proxy/testing/redis.ts';
import { doctor, MIN_FREE_BYTES } from './doctor.ts';

const NOW = new Date('2026-12-08T03:00:00Z');
const KEY = 'ab'.repeat(32);
let facilitator: Loopback;
let skewSeconds = 0;
let kinds: Array<{ x402Version: number; scheme: string; network: string; extra?: Record<string, unknown> }>;
let durable: TestRedis;
let volatile: TestRedis;
let root: string;

const ALL_KINDS = [
  { x402Version: 2, scheme: 'exact', network: 'eip155:8453' },
  { x402Version: 2, scheme: 'exact', network: 'eip155:137' },
  {
    x402Version: 2,
    scheme: 'exact',
    network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    extra: { feePayer: 'CayDU1nDxjnfS98a7FYCHLNuhBnTfH2vTNvahtTtx2cd' },
  },
  { x402Version: 2, scheme: 'exact', network: 'xrpl:0' },
];

beforeAll(async () => {
  facilitator = await startLoopback([
    {
      method: 'GET',
      path: '/supported',
      reply: () => ({
        headers: { date: new Date(NOW.getTime() + skewSeconds * 1000).toUTCString() },
        json: { kinds, extensions: [], signers: {} },
      }),
    },
  ]);
  durable = await startRedis({ appendonly: true });
  volatile = await startRedis();
  root = mkdtempSync(join(tmpdir(), 'doctor-'));
  writeFileSync(join(root, 'receipt-signing.key'), `${KEY}\n`, { mode: 0o600 });
}, 60_000);
afterAll(async () => {
  await facilitator.close();
  await durable.close();
  await volatile.close();
  rmSync(root, { recursive: true, force: true });
});

/** A production configuration, with `over` replacing settings (undefined removes one). */
function env(over: Record<string, string | undefined> = {}): Record<string, string> {
  const base: Record<string, string | undefined> = {
    SETTLEMENT: 'facilitator',
    FACILITATOR_URL: facilitator.url,
    PAY_TO_EVM: '0x1111111111111111111111111111111111111111',
    PAY_TO_SOLANA: 'So11111111111111111111111111111111111111112',
    KEYS_DIR: root,
    SNAPSHOTS_DIR: join(root, 'snapshots'),
    WAREHOUSE_DIR: join(root, 'warehouse'),
    NONCE_DB_DIR: join(root, 'nonces'),
    REDIS_URL: durable.url,
    KOREA_PUBLIC_URL: 'https://korea.example.com',
    ANALYTICS_PUBLIC_URL: 'https://analytics.example.com',
    HOST: '127.0.0.1',
    TRUST_PROXY: '1',
    ...over,
  };
  return Object.fromEntries(Object.entries(base).filter((e): e is [string, string] => e[1] !== undefined));
}

async function problemsOf(over: Record<string, string | undefined> = {}, free = 100 * 1024 ** 3): Promise<string[]> {
  const report = await doctor(loadSettings(env(over)), { now: () => NOW, freeBytes: () => free });
  return report.problems;
}

describe('npm run doctor', () => {
  it('finds nothing wrong with a good configuration', async () => {
    kinds = ALL_KINDS;
    skewSeconds = 3;
    const report = await doctor(loadSettings(env()), { now: () => NOW, freeBytes: () => 100 * 1024 ** 3 });
    expect(report.problems).toEqual([]);
    expect(report.ok).toContain('Redis persists its data (appendonly yes)');
    expect(report.ok.some((l) => l.startsWith('facilitator (FACILITATOR_URL) supports exact on base'))).toBe(true);
  });

  it.each([
    ['local settlement', { SETTLEMENT: 'local' }, /^SETTLEMENT is local: .*set SETTLEMENT=facilitator/],
    ['no pay-to address in local mode', { SETTLEMENT: 'local', PAY_TO_EVM: undefined, PAY_TO_SOLANA: undefined }, /^SETTLEMENT is local/],
    [
      'a facilitator that does not answer',
      { FACILITATOR_URL: 'http://127.0.0.1:9' },
      /^the facilitator of .* \(FACILITATOR_URL\) does not answer \/supported/,
    ],
    ['a Redis without an append-only file', { REDIS_URL: 'volatile' }, /^REDIS_URL: this Redis runs with appendonly no.*appendonly yes/],
    ['a Redis that does not answer', { REDIS_URL: 'redis://127.0.0.1:9' }, /^REDIS_URL does not answer/],
    ['no public URL', { KOREA_PUBLIC_URL: undefined }, /^KOREA_PUBLIC_URL is not set: .*https:\/\//],
    [
      'an http public URL',
      { ANALYTICS_PUBLIC_URL: 'http://analytics.example.com' },
      /^ANALYTICS_PUBLIC_URL is http:\/\/analytics\.example\.com, not https:\/\//,
    ],
    ['behind a proxy without TRUST_PROXY', { TRUST_PROXY: undefined }, /^HOST is a loopback address .* set TRUST_PROXY=1/],
    ['exposed directly with TRUST_PROXY', { HOST: '0.0.0.0' }, /^HOST is 0\.0\.0\.0 .* unset TRUST_PROXY/],
    ['no receipt key', { KEYS_DIR: join(tmpdir(), 'doctor-no-keys') }, /^no receipt key in KEYS_DIR .*RECEIPT_SIGNING_KEY/],
  ] as Array<[string, Record<string, string | undefined>, RegExp]>)('names %s, with its fix', async (what, over, message) => {
    kinds = ALL_KINDS;
    skewSeconds = 0;
    const resolved = over.REDIS_URL === 'volatile' ? { ...over, REDIS_URL: volatile.url } : over;
    const problems = await problemsOf(resolved);
    // local mode without a pay-to address has two: no funds move, and nothing is offered
    expect(problems).toHaveLength(what.includes('no pay-to') ? 2 : 1);
    expect(problems[0]).toMatch(message);
  });

  it('names a network offered that the facilitator does not settle', async () => {
    kinds = ALL_KINDS.filter((k) => !k.network.startsWith('solana'));
    skewSeconds = 0;
    expect(await problemsOf()).toEqual([expect.stringMatching(/does not list exact on solana, which is offered \(PAY_TO_SOLANA is set\)/)]);
  });

  it('checks each network against its own facilitator: a Solana facilitator that does not answer is named by its setting', async () => {
    kinds = ALL_KINDS;
    skewSeconds = 0;
    expect(await problemsOf({ FACILITATOR_URL_SOLANA: 'http://127.0.0.1:9' })).toEqual([
      expect.stringMatching(/^the facilitator of solana \(FACILITATOR_URL_SOLANA\) does not answer \/supported/),
    ]);
  });

  it('names a clock further than 30 s from the facilitator', async () => {
    kinds = ALL_KINDS;
    skewSeconds = -95;
    expect(await problemsOf()).toEqual([expect.stringMatching(/clock is 95 s away from the facilitator's \(FACILITATOR_URL; .*NTP/)]);
  });

  it('names a receipt key others can read', async () => {
    kinds = ALL_KINDS;
    skewSeconds = 0;
    const dir = mkdtempSync(join(tmpdir(), 'doctor-keys-'));
    try {
      writeFileSync(join(dir, 'receipt-signing.key'), `${KEY}\n`);
      chmodSync(join(dir, 'receipt-signing.key'), 0o644);
      expect(await problemsOf({ KEYS_DIR: dir })).toEqual([expect.stringMatching(/readable by others \(mode 644\): chmod 600/)]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names a disk short of room', async () => {
    kinds = ALL_KINDS;
    skewSeconds = 0;
    const problems = await problemsOf({}, MIN_FREE_BYTES / 4);
    expect(problems.map((p) => p.split(' ')[0])).toEqual(['SNAPSHOTS_DIR', 'WAREHOUSE_DIR', 'NONCE_DB_DIR']);
  });

  it('as a command: exit 1 with one line per problem, no secret printed; exit 2 when the settings do not parse', () => {
    kinds = ALL_KINDS;
    const run = (over: Record<string, string | undefined>) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'scripts/doctor.ts'], {
        env: { PATH: process.env.PATH, ...env({ ...over, RECEIPT_SIGNING_KEY: KEY }) },
        encoding: 'utf8',
        timeout: 60_000,
      });
    const bad = run({ KOREA_PUBLIC_URL: 'http://korea.example.com' });
    expect(bad.status).toBe(1);
    expect(bad.stdout).toMatch(/^PROBLEM {2}KOREA_PUBLIC_URL is http:/m);
    expect(bad.stdout).not.toContain(KEY);
    const broken = run({ PAY_TO_EVM: 'not-an-address' });
    expect(broken.status).toBe(2);
    expect(broken.stderr).toMatch(/PAY_TO_EVM must be an EVM address/);
  }, 120_000);
});
