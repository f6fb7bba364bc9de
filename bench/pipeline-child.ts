/**
 * One pipeline run for a benchmark, in its own process so its peak RSS is its own.
 * usage: node --import tsx bench/pipeline-child.ts <korea|analytics> <pipeline args...>
 * Prints one JSON line on stdout: {seconds, cpuSeconds, maxRssMb, ok, error, reports, notes}
 * (notes: the run log's notes, e.g. which tables were appended to or written whole, and why).
 */
import { loadSettings } from '../lib/config.ts';
import { parseArgs, PIPELINES } from '../pipelines/cli.ts';
import type { ProgressSink } from '../pipelines/progress.ts';
import { runPipeline } from '../pipelines/runner.ts';

const args = parseArgs(process.argv.slice(2));
const service = args.services[0]!;
const t0 = performance.now();
const u0 = process.cpuUsage();
const notes: string[] = [];
const progress: ProgressSink = { start() {}, finish() {}, note: (message) => notes.push(message), close() {} };
const result = await runPipeline(PIPELINES[service], args, loadSettings(), progress);
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(u0);
process.stdout.write(
  JSON.stringify({
    seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    ok: result.ok,
    error: result.error,
    reports: result.reports.map((r) => ({ name: r.name, status: r.status, rows: r.rows, seconds: r.seconds, detail: r.detail })),
    notes,
  }) + '\n',
);
