/**
 * npm run schedule -- [--table production|demo] [--once] [--source demo|live] [--seed N] [--scale N]
 *
 * Runs the pipelines on the declared table (pipelines/schedule-table.ts) in one process:
 *  - each entry's cron (croner, UTC) marks it due; runs go through runCli exactly as
 *    `npm run pipeline -- <service> --datasets ...` does, with the current minute as --now;
 *  - runs of one service queue behind each other (they share its warehouse and snapshot lineage),
 *    so one pipeline never runs twice at once; the two services run side by side;
 *  - slots missed while a run was busy or the machine slept collapse into one catch-up run;
 *  - the last completed slot of each entry is kept in $WAREHOUSE_DIR/schedule-state.json, so a
 *    restart (or the next GitHub Actions run with --once) runs what was missed, once;
 *  - SIGTERM or SIGINT stops cleanly: no new run starts, a running one finishes its step and is
 *    abandoned without publishing (the previous version stays live), then the process exits 0;
 *  - one log line per run: entry, slot, start, end, status, version published, duration.
 *
 * --once runs every entry that is due now (at most once each) and exits: what a cron trigger
 * (the GitHub Actions workflow) calls. Exit code: the worst run's (see pipelines/cli.ts), 0 if none was due.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Cron } from 'croner';
import type { ServiceName } from '../catalog/types.ts';
import { currentMinute, splitArgs, UsageError } from '../lib/args.ts';
import { loadSettings, type Settings } from '../lib/config.ts';
import { replaceFile } from '../lib/new-file.ts';
import { restoreScheduleState } from './backup/backup.ts';
import { parseArgs, runCli } from './cli.ts';
import { LineProgress } from './progress.ts';
import { STOPPED } from './runner.ts';
import { entryArgs, SCHEDULE_TABLES, type ScheduleEntry, type ScheduleTableName } from './schedule-table.ts';

export const SCHEDULE_USAGE = 'usage: npm run schedule -- [--table production|demo] [--once] [--source demo|live] [--seed N] [--scale N]';

export type RunStatus = 'ok' | 'partial' | 'failed' | 'refused' | 'stopped';

export interface RunOutcome {
  status: RunStatus;
  /** The snapshot version this run published, if any. */
  version: string | null;
  exitCode: number;
  detail: string | null;
}

export interface RunRecord extends RunOutcome {
  entry: string;
  slot: Date;
  started: Date;
  ended: Date;
}

/** Runs one entry; must stop between steps without publishing once `signal` aborts. */
export type EntryRunner = (entry: ScheduleEntry, signal: AbortSignal) => Promise<RunOutcome>;

export interface SchedulerOptions {
  /** One line per run start and per run end. */
  log?: (line: string) => void;
  /** The clock (tests move it); default Date.now. */
  now?: () => number;
  /** Where the last completed slot of each entry is kept; null = memory only. */
  statePath?: string | null;
  /**
   * What a first start (no saved slot for an entry) does: 'run' = the entry is due at once (a
   * fresh machine fills its snapshots), 'wait' = first run at the next slot (npm start, which has
   * just run every pipeline).
   */
  firstStart?: 'run' | 'wait';
  /** Longest sleep between clock checks, so a jump of the clock (suspend, NTP) is noticed. */
  maxSleepMs?: number;
  /** Called after each run (tests, the demo's own log). */
  onRun?: (record: RunRecord) => void;
}

type SavedState = Record<string, string>;

function readState(path: string | null): SavedState {
  if (!path) return {};
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (!parsed || typeof parsed !== 'object') return {};
    return Object.fromEntries(Object.entries(parsed).filter((kv): kv is [string, string] => typeof kv[1] === 'string'));
  } catch {
    return {}; // no state yet (or unreadable): every entry counts as never run
  }
}

function writeState(path: string, state: SavedState): void {
  mkdirSync(dirname(path), { recursive: true });
  replaceFile(path, JSON.stringify(state, null, 2) + '\n');
}

interface Slotted {
  entry: ScheduleEntry;
  cron: Cron;
  /** The newest slot already queued or run (slots up to it need no run). */
  accounted: number | null;
  /**
   * The run waiting for its lane, if any: one, however many slots passed. `since` (the oldest slot
   * owed) orders the lane's queue, so an entry's newer slots never push it behind the others;
   * `slot` (the newest) is what the run covers.
   */
  pending: { since: number; slot: number } | null;
  /**
   * When its last run started (0 before any): among entries owing the same slot, the one
   * that waited longest goes first. Two entries of one cron can be marked due a slot apart when a
   * tick straddles a second; with table order alone the first would then run twice in a row.
   */
  lastStarted: number;
}

export class Scheduler {
  private readonly slots: Slotted[];
  private readonly busy = new Map<ServiceName, Promise<void>>();
  private readonly controller = new AbortController();
  private readonly state: SavedState;
  private readonly log: (line: string) => void;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | null = null;
  private idleWaiters: (() => void)[] = [];
  readonly records: RunRecord[] = [];

  constructor(
    entries: readonly ScheduleEntry[],
    private readonly runEntry: EntryRunner,
    private readonly options: SchedulerOptions = {},
  ) {
    const names = new Set(entries.map((e) => e.name));
    if (names.size !== entries.length) throw new Error('schedule entries need distinct names');
    this.log = options.log ?? ((line) => process.stdout.write(line + '\n'));
    this.now = options.now ?? Date.now;
    this.state = readState(options.statePath ?? null);
    this.slots = entries.map((entry) => {
      // Croner throws on an invalid pattern here, before anything runs.
      const cron = new Cron(entry.cron, { timezone: 'UTC', paused: true });
      const saved = this.state[entry.name];
      const savedAt = saved ? Date.parse(saved) : Number.NaN;
      let accounted: number | null = Number.isNaN(savedAt) ? null : savedAt;
      if (accounted === null && options.firstStart === 'wait') accounted = this.latestSlot(cron) ?? this.now();
      return { entry, cron, accounted, pending: null, lastStarted: 0 };
    });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The newest slot at or before now. */
  private latestSlot(cron: Cron): number | null {
    const [previous] = cron.previousRuns(1, new Date(this.now() + 1));
    return previous ? previous.getTime() : null;
  }

  /** Marks every entry with a slot since the last one accounted for as due (once), then starts what its lane allows. */
  private collect(): void {
    for (const s of this.slots) {
      const latest = this.latestSlot(s.cron);
      if (latest === null) continue;
      if (s.accounted === null || latest > s.accounted) {
        s.pending = { since: s.pending?.since ?? latest, slot: latest };
        s.accounted = latest;
      }
    }
    this.pump();
  }

  private pump(): void {
    if (this.controller.signal.aborted) return;
    const lanes = new Set(this.slots.map((s) => s.entry.service));
    for (const lane of lanes) {
      if (this.busy.has(lane)) continue;
      // the oldest waiting slot of the lane first; then the entry that started longest ago; then table order
      const next = this.slots
        .filter((s) => s.entry.service === lane && s.pending !== null)
        .sort((a, b) => a.pending!.since - b.pending!.since || a.lastStarted - b.lastStarted)[0];
      if (!next) continue;
      const { slot } = next.pending!;
      next.pending = null;
      next.lastStarted = this.now();
      const running = this.runOne(next, slot).finally(() => {
        this.busy.delete(lane);
        this.pump();
        if (this.busy.size === 0) {
          for (const resolve of this.idleWaiters.splice(0)) resolve();
        }
      });
      this.busy.set(lane, running);
    }
  }

  private async runOne(s: Slotted, slot: number): Promise<void> {
    const started = new Date();
    const t0 = performance.now();
    this.log(`${started.toISOString()} schedule ${s.entry.name}: start (slot ${new Date(slot).toISOString()})`);
    let outcome: RunOutcome;
    try {
      outcome = await this.runEntry(s.entry, this.controller.signal);
    } catch (err) {
      outcome = { status: 'failed', version: null, exitCode: 1, detail: err instanceof Error ? err.message : String(err) };
    }
    const ended = new Date();
    const seconds = (performance.now() - t0) / 1000;
    const record: RunRecord = { ...outcome, entry: s.entry.name, slot: new Date(slot), started, ended };
    this.records.push(record);
    this.log(
      `${ended.toISOString()} schedule ${s.entry.name}: ${outcome.status}` +
        ` slot=${new Date(slot).toISOString()} start=${started.toISOString()} end=${ended.toISOString()}` +
        ` duration=${seconds.toFixed(2)}s version=${outcome.version ?? '-'}` +
        (outcome.detail ? ` (${outcome.detail})` : ''),
    );
    // A stopped run did not happen: its slot stays owed, and the next start runs it.
    if (outcome.status !== 'stopped' && this.options.statePath) {
      this.state[s.entry.name] = new Date(slot).toISOString();
      writeState(this.options.statePath, this.state);
    }
    this.options.onRun?.(record);
  }

  /** Runs on the table until stop(). */
  start(): void {
    const tick = () => {
      if (this.controller.signal.aborted) return;
      this.collect();
      const now = this.now();
      const next = Math.min(...this.slots.map((s) => s.cron.nextRun(new Date(now))?.getTime() ?? Number.POSITIVE_INFINITY));
      const wait = Math.max(0, Math.min(next - now, this.options.maxSleepMs ?? 60_000));
      // A few ms late so croner's "previous run" of that instant is the slot itself.
      this.timer = setTimeout(tick, wait + 5);
    };
    tick();
  }

  /** Runs every entry that is due now, each at most once, and resolves when all are done (--once). */
  async runDue(): Promise<RunRecord[]> {
    const before = this.records.length;
    this.collect();
    await this.idle();
    return this.records.slice(before);
  }

  private idle(): Promise<void> {
    if (this.busy.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Starts no new run, stops the running ones between steps (nothing half-published) and resolves when they are done. */
  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.controller.abort();
    await this.idle();
  }
}

// ------------------------------------------------------------------ the runCli wiring

/** The flags every scheduled run gets (source, demo world shape); --now is always the run's own minute. */
export interface ScheduleArgs {
  table: ScheduleTableName;
  once: boolean;
  /** Passed to every run: --source, --seed, --scale. */
  pipelineFlags: string[];
}

export function parseScheduleArgs(argv: readonly string[]): ScheduleArgs {
  const { positional, flags } = splitArgs(argv, ['table', 'source', 'seed', 'scale'], SCHEDULE_USAGE, ['once']);
  if (positional.length) throw new UsageError(`unexpected argument "${positional[0]}"\n${SCHEDULE_USAGE}`);
  const table = flags.get('table') ?? 'production';
  if (table !== 'production' && table !== 'demo') throw new UsageError(`--table must be production or demo, got "${table}"`);
  const pipelineFlags = ['source', 'seed', 'scale'].flatMap((f) => (flags.has(f) ? [`--${f}`, flags.get(f)!] : []));
  // Parse one run's arguments now, so a bad flag is refused before the first slot, not at it.
  parseArgs(['korea', ...pipelineFlags]);
  return { table, once: flags.has('once'), pipelineFlags };
}

const STATUS_OF_EXIT: Record<number, RunStatus> = { 0: 'ok', 1: 'partial', 2: 'refused', 3: 'failed' };

/** Runs an entry through runCli, as `npm run pipeline -- <service> --datasets ... --now <this minute>` would. */
export function pipelineRunner(settings: Settings, pipelineFlags: readonly string[], output: { verbose?: boolean } = {}): EntryRunner {
  return async (entry, signal) => {
    const args = parseArgs([...entryArgs(entry), ...pipelineFlags, '--now', currentMinute().toISOString()]);
    const quiet = (_: string) => {};
    const { results, exitCode } = await runCli(
      args,
      settings,
      output.verbose ? { progress: new LineProgress(), err: quiet } : { progress: new LineProgress(quiet), out: quiet, err: quiet },
      { signal },
    );
    const result = results[0];
    const stopped = result?.error === STOPPED || (signal.aborted && !result?.manifest);
    return {
      status: stopped ? 'stopped' : (STATUS_OF_EXIT[exitCode] ?? 'failed'),
      version: result?.manifest?.version ?? null,
      exitCode,
      detail: result?.error ?? (exitCode === 2 ? 'refused before any work (see npm run pipeline)' : null),
    };
  };
}

export function statePathOf(settings: Settings): string {
  return join(settings.warehouseDir, 'schedule-state.json');
}

async function main(): Promise<void> {
  let args: ScheduleArgs;
  let settings: Settings;
  try {
    args = parseScheduleArgs(process.argv.slice(2));
    settings = loadSettings();
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(2);
  }
  const table = SCHEDULE_TABLES[args.table];
  // a lost warehouse directory loses the slots too: take them from the newest backup (each run restores its warehouse)
  try {
    const from = await restoreScheduleState(settings);
    if (from) process.stdout.write(`${new Date().toISOString()} schedule: state restored from backup ${from}\n`);
  } catch (err) {
    process.stdout.write(`${new Date().toISOString()} schedule: state not restored (${(err as Error).message}); every entry is due\n`);
  }
  const scheduler = new Scheduler(table, pipelineRunner(settings, args.pipelineFlags, { verbose: args.once }), {
    statePath: statePathOf(settings),
    firstStart: 'run',
  });
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      // A second signal: leave now. The snapshot writer is atomic, so latest.json still names a complete version.
      process.stdout.write(`${new Date().toISOString()} schedule: ${signal} again, exiting without waiting\n`);
      process.exit(1);
    }
    stopping = true;
    process.stdout.write(`${new Date().toISOString()} schedule: ${signal}, stopping after the running step\n`);
    void scheduler.stop().then(() => {
      process.stdout.write(`${new Date().toISOString()} schedule: stopped\n`);
      process.exit(0);
    });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  if (args.once) {
    const records = await scheduler.runDue();
    if (records.length === 0) process.stdout.write(`${new Date().toISOString()} schedule: nothing due\n`);
    process.exit(stopping ? 0 : Math.max(0, ...records.map((r) => r.exitCode)));
  }
  process.stdout.write(
    `${new Date().toISOString()} schedule (${args.table}, UTC): ${table.map((e) => `${e.name} "${e.cron}"`).join(', ')}; SIGTERM or Ctrl-C stops\n`,
  );
  scheduler.start();
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('pipelines/schedule.ts')) {
  await main();
}
