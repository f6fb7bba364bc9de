/**
 * The live analytics run's cost (`npm run bench -- live`): one `--source live` analytics run (the
 * ingest steps as liveIngestSteps makes them, then every prepare and dataset step) against a
 * synthetic Base chain and Solana node served on 127.0.0.1, without the politeness pauses: what
 * the indexers and the pipeline cost in CPU and wall time, not how long a public RPC makes us wait.
 *
 * The chain: BENCH_LIVE_BLOCKS blocks (default 5,000, one run's worth), each with 20 EIP-3009
 * settlements (18 sent by registered Coinbase relayers, 2 by a wallet no registry names to a listed
 * payTo) and 40 plain USDC transfers; logs carry blockTimestamp, as current Base nodes send it.
 * The catalog lists 600 Base payTos and 100 Solana payTos (whose token accounts the Solana indexer
 * walks; they have no history). Run alone, it prints one JSON line per run:
 * `npx tsx bench/live-analytics.ts [runs]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FACILITATOR_REGISTRY } from '../catalog/facilitators.ts';
import { loadSettings } from '../lib/config.ts';
import { rpcResult, startLoopback, type RecordedRequest } from '../lib/testing/loopback.ts';
import { analyticsPipeline } from '../pipelines/analytics/index.ts';
import { runPipeline } from '../pipelines/runner.ts';
import { liveIngestSteps } from '../sources/live/analytics/index.ts';
import type { RowInput } from './table.ts';

const USDC = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';
const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const AUTHORIZATION_USED = '0x98de503528ee59b575ef0c0a2576a82497bfc029a5685b209e9ec333479b10a5';
const START = 40_000_000;
const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z

const hex = (n: number | bigint) => `0x${n.toString(16)}`;
const word = (n: number | bigint) => `0x${n.toString(16).padStart(64, '0')}`;
const addr = (kind: number, i: number) => `0x${kind.toString(16).padStart(4, '0')}${i.toString(16).padStart(36, '0')}`;
const topicOf = (a: string) => `0x${a.slice(2).padStart(64, '0')}`;
const SOLANA_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** A 44-character base58 string (a 32-byte Solana address with a high first byte): distinct per i. */
const solanaAddress = (i: number) => {
  let s = '';
  let n = i + 1;
  for (let k = 0; k < 43; k++) {
    s += SOLANA_ALPHABET[(n + k * 7) % 58];
    n = Math.floor(n / 58) + k;
  }
  return `5${s}`;
};

interface Chain {
  logs(from: number, to: number): unknown[];
  receipts(block: number): unknown[];
}

function syntheticChain(blocks: number): Chain {
  const relayers = FACILITATOR_REGISTRY.relayers.filter((r) => r.chain === 'base' && r.facilitator === 'coinbase').map((r) => r.address);
  const unknownSender = addr(0xdead, 1);
  const txOf = (block: number, i: number) => word((BigInt(block) << 16n) | BigInt(i));
  const logs = (block: number): unknown[] => {
    const out: unknown[] = [];
    let logIndex = 0;
    const base = { address: USDC, blockNumber: hex(block), blockTimestamp: hex(T0 + 2 * (block - START)), removed: false };
    for (let i = 0; i < 20; i++) {
      const buyer = addr(0xb0b, (block * 20 + i) % 50_000);
      const seller = addr(0x5e11, (block + i) % 600);
      const tx = txOf(block, i);
      out.push({
        ...base,
        topics: [AUTHORIZATION_USED, topicOf(buyer), word(block * 100 + i)],
        data: '0x',
        transactionHash: tx,
        logIndex: hex(logIndex++),
      });
      out.push({
        ...base,
        topics: [TRANSFER, topicOf(buyer), topicOf(seller)],
        data: word(1000 + i),
        transactionHash: tx,
        logIndex: hex(logIndex++),
      });
    }
    for (let i = 20; i < 60; i++) {
      out.push({
        ...base,
        topics: [TRANSFER, topicOf(addr(0xa11, i)), topicOf(addr(0xb11, block % 997))],
        data: word(5_000_000),
        transactionHash: txOf(block, i),
        logIndex: hex(logIndex++),
      });
    }
    return out;
  };
  return {
    logs(from, to) {
      const out: unknown[] = [];
      for (let b = Math.max(from, START); b <= Math.min(to, START + blocks - 1); b++) out.push(...logs(b));
      return out;
    },
    receipts(block) {
      return Array.from({ length: 60 }, (_, i) => ({
        transactionHash: txOf(block, i),
        from: i < 18 ? relayers[(block + i) % relayers.length]! : i < 20 ? unknownSender : addr(0xa11, i),
        blockNumber: hex(block),
      }));
    },
  };
}

function catalogItems(): unknown[] {
  const item = (resource: string, network: string, payTo: string) => ({
    resource,
    type: 'http',
    x402Version: 2,
    accepts: [
      {
        scheme: 'exact',
        network,
        amount: '1000',
        asset: network.startsWith('solana') ? 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' : USDC,
        payTo,
        maxTimeoutSeconds: 60,
      },
    ],
    lastUpdated: '2026-01-01T00:00:00Z',
  });
  return [
    ...Array.from({ length: 600 }, (_, i) => item(`https://seller-${i}.bench.test/api`, 'eip155:8453', addr(0x5e11, i))),
    ...Array.from({ length: 100 }, (_, i) =>
      item(`https://sol-${i}.bench.test/api`, 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', solanaAddress(i)),
    ),
  ];
}

export interface LiveRunFigures {
  seconds: number;
  cpuSeconds: number;
  transactionsStepSeconds: number;
  settlements: number;
  requests: number;
  ok: boolean;
}

/** One live analytics run over the synthetic upstreams, in a fresh warehouse. */
export async function liveAnalyticsRun(blocks = Number(process.env.BENCH_LIVE_BLOCKS) || 5_000): Promise<LiveRunFigures> {
  const chain = syntheticChain(blocks);
  const items = catalogItems();
  const finalized = START + blocks - 1;
  const server = await startLoopback([
    {
      method: 'GET',
      path: '/d/discovery/resources',
      reply: (req) => {
        const offset = Number(req.query.offset ?? 0);
        const limit = Number(req.query.limit ?? 100);
        return { json: { x402Version: 2, items: items.slice(offset, offset + limit), pagination: { offset, limit, total: items.length } } };
      },
    },
    {
      method: 'POST',
      path: '/base',
      rpcMethod: 'eth_getLogs',
      reply: (req: RecordedRequest) => {
        const f = (req.rpcParams[0] ?? {}) as { fromBlock: string; toBlock: string; topics?: unknown[] };
        // funding lookups (by recipient) find nothing: the bench measures the settlements
        if (Array.isArray(f.topics) && f.topics[2] != null) return rpcResult(req, []);
        return rpcResult(req, chain.logs(Number(BigInt(f.fromBlock)), Number(BigInt(f.toBlock))));
      },
    },
    {
      method: 'POST',
      path: '/base',
      rpcMethod: 'eth_getBlockByNumber',
      reply: (req) => {
        const tag = req.rpcParams[0];
        const n = tag === 'finalized' || tag === 'latest' ? finalized : Number(BigInt(String(tag)));
        return rpcResult(req, { number: hex(n), timestamp: hex(T0 + 2 * (n - START)), hash: word(n) });
      },
    },
    {
      method: 'POST',
      path: '/base',
      rpcMethod: 'eth_getBlockReceipts',
      reply: (req) => rpcResult(req, chain.receipts(Number(BigInt(String(req.rpcParams[0]))))),
    },
    { method: 'POST', path: '/solana', rpcMethod: 'getSignaturesForAddress', reply: (req) => rpcResult(req, []) },
  ]);
  const root = mkdtempSync(join(tmpdir(), 'bench-live-'));
  try {
    const settings = loadSettings({
      SITE_BUILD: 'off',
      PROBES: 'off',
      SNAPSHOTS_DIR: join(root, 'snapshots'),
      WAREHOUSE_DIR: join(root, 'warehouse'),
      X402_DISCOVERY_URL: `${server.url}/d`,
      BASE_RPC_URL: `${server.url}/base`,
      SOLANA_RPC_URL: `${server.url}/solana`,
    });
    const steps = liveIngestSteps(settings, {
      discovery: { pageSize: 1000 },
      evm: { startBlock: START, maxBlocksPerRun: blocks, initialLogRange: 500 },
      upstream: { sleep: async () => {}, minIntervalMs: 0, concurrency: 4 },
    });
    const pipeline = { ...analyticsPipeline, ingestSteps: () => steps };
    const quiet = { start() {}, finish() {}, note() {}, close() {} };
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const result = await runPipeline(
      pipeline,
      { source: { kind: 'live' }, now: new Date((T0 + 2 * blocks + 3600) * 1000), seed: 0, scale: 1 },
      settings,
      quiet,
    );
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const step = result.reports.find((r) => r.name === 'ingest:x402_transactions');
    return {
      seconds,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      transactionsStepSeconds: step?.seconds ?? Number.NaN,
      settlements: step?.rows ?? 0,
      requests: server.requests.length,
      ok: result.ok,
    };
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}

/** The rows of `npm run bench -- live`: the median of three runs. */
export async function benchLiveAnalytics(): Promise<RowInput[]> {
  const runs: LiveRunFigures[] = [];
  for (let i = 0; i < 3; i++) {
    runs.push(await liveAnalyticsRun());
    console.log(JSON.stringify(runs.at(-1)));
  }
  const median = (f: (r: LiveRunFigures) => number) => runs.map(f).sort((a, b) => a - b)[1]!;
  const blocks = Number(process.env.BENCH_LIVE_BLOCKS) || 5_000;
  return [
    {
      figure: `live analytics run, ${blocks.toLocaleString('en-US')} Base blocks (${(blocks * 20).toLocaleString('en-US')} settlements), wall`,
      value: median((r) => r.seconds),
      unit: 's',
    },
    { figure: 'live analytics run, CPU', value: median((r) => r.cpuSeconds), unit: 's' },
    { figure: 'live analytics run, ingest:x402_transactions step', value: median((r) => r.transactionsStepSeconds), unit: 's' },
    {
      figure: 'live analytics runs with a step not ok (of 3)',
      value: runs.filter((r) => !r.ok).length,
      unit: '',
      target: { on: 'value', op: '=', limit: 0, source: 'every run publishes' },
    },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const n = Number(process.argv[2] ?? 1);
  for (let i = 0; i < n; i++) console.log(JSON.stringify(await liveAnalyticsRun()));
  process.exit(0);
}
