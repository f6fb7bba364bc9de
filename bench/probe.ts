/**
 * npm run bench -- probe: one prober round over 50,000 endpoints on 100 loopback hosts (issue 31),
 * through the live probe step (sources/live/analytics/probes.ts) in a process of its own, against
 * a fleet of real HTTP servers in another (bench/probe-fleet-child.ts) that counts what the
 * sellers would see.
 *
 * Figures and targets: the round's wall time (<= 10 minutes; baseline: the least time the per-host
 * limit allows, targets / (hosts x 2 per second)), sockets open at once at the fleet (<= 64),
 * requests per host in any second (<= 2), the prober's RSS over the last tenth of the targets
 * against the second tenth (medians of one-second samples: RSS saws with every garbage collection;
 * <= 1.1x), and payment headers sent (0).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { RowInput } from './table.ts';

const ENDPOINTS = Number(process.env.BENCH_PROBE_ENDPOINTS ?? 50_000);
const HOSTS = Number(process.env.BENCH_PROBE_HOSTS ?? 100);
const CONCURRENCY = 64;
const PER_HOST = 2;
const SOURCE = 'issue 31';

interface ProbeChild {
  targets: number;
  rows: number;
  offers: number;
  seconds: number;
  maxInFlight: number;
  deferred: number;
  rssWarmMb: number;
  rssEndMb: number;
  rssMaxMb: number;
  maxRssMb: number;
  rssByTenth: (number | null)[];
  heapUsedMb: number;
}
interface FleetStats {
  maxPerHostPerSecond: number;
  maxOpenConnections: number;
  requests: number;
  paymentHeaders: number;
}

/** The lines a child prints, one at a time. */
function lines(stream: NodeJS.ReadableStream): () => Promise<string> {
  const it = createInterface({ input: stream })[Symbol.asyncIterator]();
  return async () => {
    const next = await it.next();
    if (next.done) throw new Error('the child ended without an answer');
    return next.value;
  };
}

export async function benchProbe(): Promise<RowInput[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-probe-'));
  const fleet = spawn(process.execPath, ['--import', 'tsx', 'bench/probe-fleet-child.ts', String(HOSTS)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  try {
    const fleetLine = lines(fleet.stdout);
    const { ports } = JSON.parse(await fleetLine()) as { ports: number[] };
    const urls: string[] = [];
    for (let i = 0; i < ENDPOINTS; i++) urls.push(`http://127.0.0.1:${ports[i % ports.length]}/r/${i}`);
    const file = join(dir, 'targets.txt');
    writeFileSync(file, `${urls.join('\n')}\n`);
    console.log(
      `probing ${ENDPOINTS.toLocaleString('en-US')} endpoints on ${HOSTS} loopback hosts (${CONCURRENCY} in flight, ${PER_HOST}/s per host)...`,
    );
    const prober = spawn(process.execPath, ['--import', 'tsx', 'bench/probe-child.ts', file, String(CONCURRENCY)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const round = JSON.parse(await lines(prober.stdout)()) as ProbeChild;
    fleet.stdin.write('stats\n');
    const seen = JSON.parse(await fleetLine()) as FleetStats;
    const floor = ENDPOINTS / (HOSTS * PER_HOST);
    console.log(
      `  ${round.rows} probes (${round.offers} offers, ${round.deferred} deferred) in ${round.seconds.toFixed(1)} s (floor ${floor.toFixed(0)} s); ` +
        `fleet: ${seen.requests} requests, at most ${seen.maxOpenConnections} connections open, ${seen.maxPerHostPerSecond} per host per second, ` +
        `${seen.paymentHeaders} payment headers; prober RSS (medians) ${round.rssWarmMb.toFixed(0)} MiB after warm-up, ${round.rssEndMb.toFixed(0)} MiB at the end, peak ${round.maxRssMb.toFixed(0)} MiB`,
    );
    console.log(
      `  prober RSS at each tenth of the targets (MiB): ${round.rssByTenth.join(', ')}; heap used at the end ${round.heapUsedMb} MiB`,
    );
    const n = ENDPOINTS.toLocaleString('en-US');
    return [
      {
        figure: `probe round, ${n} endpoints on ${HOSTS} loopback hosts (baseline: the least time ${PER_HOST}/s per host allows)`,
        value: round.seconds,
        unit: 's',
        baseline: floor,
        target: { on: 'value', op: '<=', limit: 600, source: SOURCE },
      },
      {
        figure: 'probe round: endpoints with a result',
        value: round.rows,
        unit: '',
        target: { on: 'value', op: '=', limit: ENDPOINTS, source: SOURCE },
      },
      {
        figure: 'probe round: sockets open at once (fleet side)',
        value: seen.maxOpenConnections,
        unit: '',
        target: { on: 'value', op: '<=', limit: 64, source: SOURCE },
      },
      {
        figure: 'probe round: requests per host in any second',
        value: seen.maxPerHostPerSecond,
        unit: '',
        target: { on: 'value', op: '<=', limit: PER_HOST, source: SOURCE },
      },
      {
        figure:
          'probe round: prober RSS, median over the last tenth of the targets (baseline: median over the second tenth, after warm-up)',
        value: round.rssEndMb,
        unit: 'MiB',
        baseline: round.rssWarmMb,
        target: { on: 'ratio', op: '<=', limit: 1.1, source: SOURCE },
      },
      {
        figure: 'probe round: payment headers sent',
        value: seen.paymentHeaders,
        unit: '',
        target: { on: 'value', op: '=', limit: 0, source: SOURCE },
      },
    ];
  } finally {
    fleet.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}
