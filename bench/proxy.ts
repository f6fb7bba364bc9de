/**
 * npm run bench -- proxy
 *
 * Throughput and p99 latency at 32 keep-alive connections for:
 *   - a free endpoint (korea /api/v1/symbols) against a bare Hono route returning the same bytes;
 *   - a paid endpoint (korea /api/v1/fx-rate, SETTLEMENT=local) with a fresh, valid payment on
 *     every request (new nonce, full signature check, receipt signed), against the crypto ceiling:
 *     how many "one EIP-3009 signature recovery + one receipt signature" the same library does per
 *     second on one core.
 * The servers run in a child process; the load generator and the payment signing run here. Every
 * payment is generated before the timed window, so the generator's cost is not the server's.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { findEndpoint } from '../catalog/index.ts';
import { cryptoCeiling, freshPaymentHeader } from '../proxy/x402/bench-support.ts';
import { payToTable } from '../proxy/x402/networks.ts';
import { loadSettings } from '../lib/config.ts';
import { runLoad, type LoadResult } from './load.ts';

const CONNECTIONS = 32;
const DURATION_MS = 5000;
const WARMUP_MS = 1500;

interface Child {
  proc: ChildProcess;
  url: string;
}

async function startChild(args: string[], env: NodeJS.ProcessEnv): Promise<Child> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'bench/proxy-child.ts', ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const rl = createInterface({ input: proc.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`proxy child ${args.join(' ')} exited with ${code}`)));
    rl.on('line', (line) => {
      const m = /^listening (\d+)/.exec(line);
      if (m) resolve(Number(m[1]));
    });
  });
  return { proc, url: `http://127.0.0.1:${port}` };
}

function stop(child: Child): Promise<void> {
  return new Promise((resolve) => {
    child.proc.once('exit', () => resolve());
    child.proc.kill('SIGTERM');
  });
}

const row = (label: string, r: LoadResult) =>
  `  ${label.padEnd(44)} ${r.rps.toFixed(0).padStart(7)} req/s   p50 ${r.p50Ms.toFixed(2).padStart(6)} ms   p99 ${r.p99Ms.toFixed(2).padStart(6)} ms   ${r.requests} requests, ${r.errors} errors`;

export async function benchProxy(): Promise<void> {
  console.log(`proxy benchmark on ${process.version}, ${cpus().length} cores, ${CONNECTIONS} connections, ${DURATION_MS / 1000} s per run after ${WARMUP_MS / 1000} s warm-up`);
  const dir = mkdtempSync(join(tmpdir(), 'bench-proxy-'));
  const env = {
    ...process.env,
    SNAPSHOTS_DIR: join(dir, 's'),
    WAREHOUSE_DIR: join(dir, 'w'),
    KEYS_DIR: join(dir, 'keys'),
    SETTLEMENT: 'local',
    CI: '1',
  };
  const children: Child[] = [];
  try {
    const pipeline = spawnSync(process.execPath, ['--import', 'tsx', 'pipelines/cli.ts', 'korea'], { env, encoding: 'utf8' });
    if (pipeline.status !== 0) throw new Error(`korea demo pipeline failed:\n${pipeline.stdout}\n${pipeline.stderr}`);

    const service = await startChild(['service', 'korea'], env);
    children.push(service);
    const freePath = '/api/v1/symbols';
    const freeBytes = await (await fetch(`${service.url}${freePath}`)).text();
    const bytesFile = join(dir, 'free.json');
    writeFileSync(bytesFile, freeBytes);
    const bare = await startChild(['bare', bytesFile], env);
    children.push(bare);

    console.log(`\nfree endpoint GET ${freePath} (${freeBytes.length.toLocaleString('en-US')} bytes)`);
    const bareRun = await runLoad({ url: `${bare.url}${freePath}`, connections: CONNECTIONS, durationMs: DURATION_MS, warmupMs: WARMUP_MS });
    const freeRun = await runLoad({ url: `${service.url}${freePath}`, connections: CONNECTIONS, durationMs: DURATION_MS, warmupMs: WARMUP_MS });
    console.log(row('baseline: bare Hono route, same bytes', bareRun));
    console.log(row('service (validation, ETag, cache headers)', freeRun));
    console.log(`  free endpoint at ${((freeRun.rps / bareRun.rps) * 100).toFixed(1)} % of the bare route's throughput (target >= 70 %)`);
    await stop(bare);
    children.splice(children.indexOf(bare), 1);

    // paid: one fresh payment per request, signed before the window opens
    const endpoint = findEndpoint('korea', 'fx-rate')!;
    const paidPath = endpoint.path;
    const ceiling = cryptoCeiling(2000);
    console.log(`\npaid endpoint GET ${paidPath} (${endpoint.priceUsd} USD, SETTLEMENT=local, fresh payment per request)`);
    console.log(
      `  baseline: crypto ceiling, one core: ${ceiling.perSecond} verify+receipt per second ` +
        `(signature check alone ${ceiling.verifyPerSecond}/s, first-time payer with full recovery ${ceiling.coldPerSecond}/s, receipt signature alone ${ceiling.receiptPerSecond}/s)`,
    );
    const payTo = payToTable(loadSettings(env));
    const needed = Math.ceil(Math.max(ceiling.perSecond * 3, 2000) * ((DURATION_MS + WARMUP_MS) / 1000) + 1000);
    const t0 = performance.now();
    const headers = Array.from({ length: needed }, () => freshPaymentHeader({ endpoint, payTo }));
    console.log(`  (signed ${needed} payments for the run in ${((performance.now() - t0) / 1000).toFixed(1)} s, not timed)`);
    const paidRun = await runLoad({
      url: `${service.url}${paidPath}`,
      connections: CONNECTIONS,
      durationMs: DURATION_MS,
      warmupMs: WARMUP_MS,
      headers: (i) => {
        const h = headers[i];
        if (!h) throw new Error('bench ran out of pre-signed payments');
        return { [h.name]: h.value };
      },
    });
    console.log(row('service, paid, fresh payment per request', paidRun));
    console.log(
      `  paid endpoint at ${((paidRun.rps / ceiling.perSecond) * 100).toFixed(1)} % of the one-core crypto ceiling (target >= 70 %), ` +
        `p99 ${paidRun.p99Ms.toFixed(2)} ms (target < 20 ms); statuses ${JSON.stringify(paidRun.statuses)}`,
    );
  } finally {
    for (const c of children) await stop(c);
    rmSync(dir, { recursive: true, force: true });
  }
}
