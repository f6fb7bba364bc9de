/**
 * npm run pipeline -- <korea|analytics|all> [--source demo|live|file:DIR] [--now ISO] [--seed N] [--scale N]
 *   [--recompute] [--rebuild] [--datasets NAME,NAME]
 *
 * --rebuild recomputes everything from the warehouse and writes every dataset whole: the
 * tables that runs extend with delta files (buyers, buyer-profiles; snapshots/partitions.ts) are
 * written again as parts only. It implies --recompute.
 *
 * --datasets (one service only) computes just those datasets and keeps the live version of the
 * others: the scheduled groups of pipelines/schedule-table.ts (market every 5 minutes, news every 15, ...).
 *
 * Exit codes: 0 every dataset computed and published; 1 some dataset failed (the others were
 * published, the failed ones kept their last good version); 2 bad arguments or settings;
 * 3 nothing could be published (the previous snapshot stays live).
 *
 * With BACKUP_URL set, each service's run restores a missing warehouse first and backs up what it
 * cannot recompute after (pipelines/backup/, docs/backup.md): no whole backup to restore stops the
 * service's run (3); a backup that fails makes the exit code at least 1.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ServiceName } from '../catalog/types.ts';
import { currentMinute, parseIntFlag, parseTimeFlag, splitArgs, UsageError } from '../lib/args.ts';
import { loadSettings, type Settings } from '../lib/config.ts';
import { UnsupportedSourceError, type SourceSpec } from '../sources/contract.ts';
import { DEFAULT_SEED } from '../sources/demo/world.ts';
import { missingLiveSettings } from '../sources/live/required-settings.ts';
import { DATASETS } from '../catalog/datasets.ts';
import { analyticsPipeline } from './analytics/index.ts';
import { koreaPipeline } from './korea/index.ts';
import { usageLine } from './analyst/index.ts';
import { progressFor, summaryTable, type ProgressSink } from './progress.ts';
import { siteBuildStep } from './site-build.ts';
import { runPipeline, STOPPED, type RunParams, type RunResult, type ServicePipeline } from './runner.ts';
import { backupStep, restoreStep } from './backup/steps.ts';

export const PIPELINES: Record<ServiceName, ServicePipeline> = { korea: koreaPipeline, analytics: analyticsPipeline };

export const USAGE =
  'usage: npm run pipeline -- <korea|analytics|all> [--source demo|live|file:DIR] [--now ISO] [--seed N] [--scale N] [--recompute] [--rebuild] [--datasets NAME,NAME]';

export { UsageError };

export interface CliArgs extends RunParams {
  services: ServiceName[];
}

export function parseArgs(argv: readonly string[]): CliArgs {
  const { positional, flags } = splitArgs(argv, ['source', 'now', 'seed', 'scale', 'datasets'], USAGE, ['recompute', 'rebuild']);
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

  const nowText = flags.get('now');
  const now = nowText === undefined ? currentMinute() : parseTimeFlag('now', nowText);
  const seed = parseIntFlag(flags, 'seed', DEFAULT_SEED, 0, 2 ** 32 - 1);
  const scale = parseIntFlag(flags, 'scale', 1, 1, 1000);
  if (source.kind !== 'demo' && (flags.has('seed') || flags.has('scale'))) {
    throw new UsageError('--seed and --scale shape the demo world; they have no meaning with --source live or file:DIR');
  }
  const datasetsText = flags.get('datasets');
  const datasets = datasetsText === undefined ? undefined : parseDatasets(datasetsText, services);
  const rebuild = flags.has('rebuild');
  return {
    services,
    source,
    now,
    seed,
    scale,
    recompute: rebuild || flags.has('recompute'),
    ...(rebuild ? { rebuild } : {}),
    ...(datasets ? { datasets } : {}),
  };
}

function parseDatasets(text: string, services: readonly ServiceName[]): string[] {
  if (services.length !== 1) throw new UsageError('--datasets needs one pipeline (korea or analytics), not all');
  const service = services[0]!;
  const known = DATASETS.filter((d) => d.service === service).map((d) => d.name);
  const names = [...new Set(text.split(',').map((n) => n.trim()))];
  const unknown = names.filter((n) => !known.includes(n));
  if (names.length === 0 || unknown.length > 0) {
    throw new UsageError(`--datasets: unknown ${service} dataset ${unknown.map((n) => `"${n}"`).join(', ')}; known: ${known.join(', ')}`);
  }
  return names;
}

export interface CliOutput {
  /** Where progress goes (default: a board on a terminal, log lines otherwise, on stderr). */
  progress?: ProgressSink;
  /** Where the summary table goes (default: stdout). */
  out?: (text: string) => void;
  /** Where a refusal before any work goes (default: stderr). */
  err?: (text: string) => void;
}

/**
 * The one message refusing a live run that lacks required settings (sources/live/required-settings.ts),
 * or null when every service named can start.
 */
export function liveSettingsProblem(args: CliArgs, settings: Settings): string | null {
  if (args.source.kind !== 'live') return null;
  const missing = args.services.flatMap((service) => missingLiveSettings(settings, service).map((m) => ({ service, ...m })));
  if (missing.length === 0) return null;
  return [
    `--source live needs settings that are not set (nothing was run; see README "Settings"):`,
    ...missing.map((m) => `  ${m.setting} (${m.service}): ${m.purpose}`),
  ].join('\n');
}

export async function runCli(
  args: CliArgs,
  settings: Settings,
  output: CliOutput = {},
  control: {
    /** Stops the run between steps without publishing (pipelines/schedule.ts on SIGTERM); see runPipeline. */
    signal?: AbortSignal;
  } = {},
): Promise<{ results: RunResult[]; exitCode: number }> {
  const progress = output.progress ?? progressFor();
  const out = output.out ?? ((text: string) => process.stdout.write(text));
  const liveProblem = liveSettingsProblem(args, settings);
  if (liveProblem) {
    (output.err ?? ((text: string) => process.stderr.write(text)))(`${liveProblem}\n`);
    return { results: [], exitCode: 2 };
  }
  const results: RunResult[] = [];
  let usageError = false;
  try {
    for (const service of args.services) {
      if (control.signal?.aborted) break;
      progress.note(
        `${service}: source ${args.source.kind === 'file' ? `file:${args.source.dir}` : args.source.kind}, now ${args.now.toISOString()}` +
          (args.source.kind === 'demo' ? `, seed ${args.seed}, scale ${args.scale}` : '') +
          (args.datasets ? `, datasets ${args.datasets.join(',')}` : ''),
      );
      // a lost warehouse comes back from the newest whole backup before the run opens it (pipelines/backup/)
      const restore = await restoreStep(settings, service, progress);
      if (restore.status === 'failed') {
        results.push({ service, reports: [restore], manifest: null, ok: false, error: restore.detail, ai: null });
        continue;
      }
      let result: RunResult;
      try {
        const site = service === 'analytics' && settings.siteBuild ? { beforeLive: siteBuildStep(settings), beforeLiveName: 'site' } : {};
        result = await runPipeline(PIPELINES[service], args, settings, progress, { ...site, signal: control.signal });
      } catch (err) {
        if (err instanceof UnsupportedSourceError) usageError = true;
        result = { service, reports: [], manifest: null, ok: false, error: (err as Error).message, ai: null };
      }
      if (restore.status !== 'skipped') result.reports.unshift(restore);
      // after every run that opened the warehouse (not one refused or stopped before it), failed or not
      if (result.reports.length > 0 && result.error !== STOPPED) {
        const backup = await backupStep(settings, service, progress);
        if (backup) {
          result.reports.push(backup);
          if (backup.status === 'failed') result.ok = false;
        }
      }
      results.push(result);
    }
  } finally {
    progress.close();
  }
  // The analyst's work (calls, cache hits, tokens, dollars) is a row of the table, after its service's steps.
  const reports = results.flatMap((r) => [
    ...r.reports,
    ...(r.ai
      ? [{ service: r.service, name: 'analyst', status: 'ok' as const, rows: r.ai.calls, seconds: null, detail: usageLine(r.ai) }]
      : []),
  ]);
  if (reports.length) out('\n' + summaryTable(reports) + '\n');
  for (const r of results) {
    if (r.manifest) out(`${r.service}: published ${r.manifest.version} to ${settings.snapshotsDir}/${r.service}\n`);
    if (r.error) out(`${r.service}: FAILED: ${r.error}\n`);
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
