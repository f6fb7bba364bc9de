/**
 * npm run pipeline -- <korea|analytics|all> [--source demo|live|file:DIR] [--now ISO] [--seed N] [--scale N]
 *
 * Exit codes: 0 every dataset computed and published; 1 some dataset failed (the others were
 * published, the failed ones kept their last good version); 2 bad arguments or settings;
 * 3 nothing could be published (the previous snapshot stays live).
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ServiceName } from '../catalog/types.ts';
import { loadSettings, type Settings } from '../lib/config.ts';
import { DEFAULT_SEED } from '../sources/demo/world.ts';
import { analyticsPipeline } from './analytics/index.ts';
import { koreaPipeline } from './korea/index.ts';
import { UnsupportedSourceError } from './ingest.ts';
import { progressFor, summaryTable } from './progress.ts';
import { runPipeline, type RunParams, type RunResult, type ServicePipeline, type SourceSpec } from './runner.ts';

export const PIPELINES: Record<ServiceName, ServicePipeline> = { korea: koreaPipeline, analytics: analyticsPipeline };

export const USAGE =
  'usage: npm run pipeline -- <korea|analytics|all> [--source demo|live|file:DIR] [--now ISO] [--seed N] [--scale N]';

export class UsageError extends Error {}

export interface CliArgs extends RunParams {
  services: ServiceName[];
}

/** The run's default "now": the current minute, so two runs in one minute agree. */
export function currentMinute(): Date {
  const d = new Date();
  d.setUTCSeconds(0, 0);
  return d;
}

export function parseArgs(argv: readonly string[]): CliArgs {
  const positional: string[] = [];
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') throw new UsageError(USAGE);
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const [name, value] = eq > 0 ? [arg.slice(2, eq), arg.slice(eq + 1)] : [arg.slice(2), argv[++i]];
      if (!['source', 'now', 'seed', 'scale'].includes(name)) throw new UsageError(`unknown option --${name}\n${USAGE}`);
      if (value === undefined || value.startsWith('--')) throw new UsageError(`--${name} needs a value\n${USAGE}`);
      flags.set(name, value);
    } else positional.push(arg);
  }
  if (positional.length !== 1) throw new UsageError(`name one pipeline: korea, analytics or all\n${USAGE}`);
  const which = positional[0]!;
  if (which !== 'korea' && which !== 'analytics' && which !== 'all') {
    throw new UsageError(`unknown pipeline "${which}": expected korea, analytics or all\n${USAGE}`);
  }
  const services: ServiceName[] = which === 'all' ? ['korea', 'analytics'] : [which];

  const sourceText = flags.get('source') ?? 'demo';
  let source: SourceSpec;
  if (sourceText === 'demo') source = { kind: 'demo' };
  else if (sourceText === 'live') source = { kind: 'live' };
  else if (sourceText.startsWith('file:') && sourceText.length > 5) {
    const dir = resolve(sourceText.slice(5));
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`--source file:DIR: ${dir} is not a directory`);
    source = { kind: 'file', dir };
  } else throw new UsageError(`--source must be demo, live or file:DIR, got "${sourceText}"`);

  let now = currentMinute();
  const nowText = flags.get('now');
  if (nowText !== undefined) {
    // Require an explicit zone so a run never depends on the machine's local time.
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(nowText)) {
      throw new UsageError(`--now must be an ISO 8601 time with a zone, e.g. 2026-11-20T09:00:00Z; got "${nowText}"`);
    }
    now = new Date(nowText);
    if (Number.isNaN(now.getTime())) throw new UsageError(`--now: "${nowText}" is not a valid time`);
  }

  const intFlag = (name: string, fallback: number, min: number, max: number): number => {
    const text = flags.get(name);
    if (text === undefined) return fallback;
    const n = Number(text);
    if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got "${text}"`);
    }
    return n;
  };
  const seed = intFlag('seed', DEFAULT_SEED, 0, 2 ** 32 - 1);
  const scale = intFlag('scale', 1, 1, 1000);
  if (source.kind !== 'demo' && (flags.has('seed') || flags.has('scale'))) {
    throw new UsageError('--seed and --scale shape the demo world; they have no meaning with --source live or file:DIR');
  }
  return { services, source, now, seed, scale };
}

export async function runCli(args: CliArgs, settings: Settings): Promise<{ results: RunResult[]; exitCode: number }> {
  const progress = progressFor();
  const results: RunResult[] = [];
  let usageError = false;
  try {
    for (const service of args.services) {
      progress.note(
        `${service}: source ${args.source.kind === 'file' ? `file:${args.source.dir}` : args.source.kind}, now ${args.now.toISOString()}` +
          (args.source.kind === 'demo' ? `, seed ${args.seed}, scale ${args.scale}` : ''),
      );
      try {
        results.push(await runPipeline(PIPELINES[service], args, settings, progress));
      } catch (err) {
        if (err instanceof UnsupportedSourceError) usageError = true;
        results.push({ service, reports: [], manifest: null, ok: false, error: (err as Error).message });
      }
    }
  } finally {
    progress.close();
  }
  const reports = results.flatMap((r) => r.reports);
  if (reports.length) process.stdout.write('\n' + summaryTable(reports) + '\n');
  for (const r of results) {
    if (r.manifest) process.stdout.write(`${r.service}: published ${r.manifest.version} to ${settings.snapshotsDir}/${r.service}\n`);
    if (r.error) process.stdout.write(`${r.service}: FAILED: ${r.error}\n`);
  }
  const exitCode = usageError ? 2 : results.some((r) => !r.manifest) ? 3 : results.every((r) => r.ok) ? 0 : 1;
  return { results, exitCode };
}

async function main(): Promise<void> {
  let args: CliArgs;
  let settings: Settings;
  try {
    args = parseArgs(process.argv.slice(2));
    settings = loadSettings();
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(2);
  }
  const { exitCode } = await runCli(args, settings);
  process.exit(exitCode);
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('pipelines/cli.ts')) {
  await main();
}
