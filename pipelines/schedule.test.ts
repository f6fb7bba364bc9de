import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cron } from 'croner';
import { afterAll, describe, expect, it } from 'vitest';
import { DATASETS } from '../catalog/datasets.ts';
import { loadSettings } from '../lib/config.ts';
import { startScript } from '../lib/testing/script.ts';
import { loadVersion, readLatestPointer } from '../snapshots/reader.ts';
import { parseArgs, UsageError } from './cli.ts';
import { parseScheduleArgs, pipelineRunner, type RunOutcome, Scheduler, statePathOf } from './schedule.ts';
import { SCHEDULE_TABLES, type ScheduleEntry } from './schedule-table.ts';

const roots: string[] = [];
const tempRoot = (prefix: string) => {
  const root = mkdtempSync(join(tmpdir(), prefix));
  roots.push(root);
  return root;
};
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const quietLog = () => {};
const ok: RunOutcome = { status: 'ok', version: null, exitCode: 0, detail: null };

describe('the schedule table', () => {
  for (const [tableName, table] of Object.entries(SCHEDULE_TABLES)) {
    it(`${tableName}: every korea dataset is in exactly one korea group, every name is a catalog dataset, every cron parses`, () => {
      const korea = DATASETS.filter((d) => d.service === 'korea').map((d) => d.name);
      const grouped = table.filter((e) => e.service === 'korea').flatMap((e) => (e.datasets === 'all' ? korea : e.datasets));
      expect([...grouped].sort()).toEqual([...korea].sort());
      expect(table.find((e) => e.service === 'analytics')?.datasets).toBe('all');
      for (const e of table) expect(() => new Cron(e.cron, { timezone: 'UTC', paused: true })).not.toThrow();
    });
  }

  it('the workflow is triggered by exactly the production crons', () => {
    const workflow = readFileSync(join(process.cwd(), '.github/workflows/pipelines.yml'), 'utf8');
    const crons = [...workflow.matchAll(/^\s*-\s*cron:\s*['"]([^'"]+)['"]/gm)].map((m) => m[1]);
    expect(crons.sort()).toEqual(SCHEDULE_TABLES.production.map((e) => e.cron).sort());
    // and the job runs the scheduler in --once mode on that table, not its own list of commands
    expect(workflow).toMatch(/npm run schedule -- --once --table production/);
  });
});

describe('arguments', () => {
  it('--datasets names datasets of one service; a bad table or flag is refused before any slot', () => {
    expect(parseArgs(['korea', '--datasets', 'fx-rate,kr-prices']).datasets).toEqual(['fx-rate', 'kr-prices']);
    expect(() => parseArgs(['korea', '--datasets', 'fx-rate,services'])).toThrow(/unknown korea dataset "services"/);
    expect(() => parseArgs(['all', '--datasets', 'fx-rate'])).toThrow(UsageError);
    expect(parseScheduleArgs(['--once', '--seed', '7'])).toEqual({ table: 'production', once: true, pipelineFlags: ['--seed', '7'] });
    expect(() => parseScheduleArgs(['--table', 'hourly'])).toThrow(/--table must be production or demo/);
    expect(() => parseScheduleArgs(['--source', 'live', '--seed', '7'])).toThrow(UsageError);
  });
});

describe('Scheduler', () => {
  it('never runs one pipeline twice at once when a run is slower than its period; missed slots become one run', async () => {
    const every = (name: string, service: 'korea' | 'analytics'): ScheduleEntry => ({
      name,
      service,
      cron: '* * * * * *',
      datasets: 'all',
    });
    const running = new Map<string, number>();
    let maxPerLane = 0;
    let bothLanesAtOnce = false;
    const scheduler = new Scheduler(
      [every('k1', 'korea'), every('k2', 'korea'), every('a', 'analytics')],
      async (entry) => {
        running.set(entry.service, (running.get(entry.service) ?? 0) + 1);
        maxPerLane = Math.max(maxPerLane, ...running.values());
        if ((running.get('korea') ?? 0) > 0 && (running.get('analytics') ?? 0) > 0) bothLanesAtOnce = true;
        await sleep(2500); // a run 2.5 times longer than its 1 s period
        running.set(entry.service, running.get(entry.service)! - 1);
        return ok;
      },
      { log: quietLog, firstStart: 'wait' },
    );
    scheduler.start();
    await sleep(6200);
    await scheduler.stop();
    const runs = scheduler.records;
    expect(maxPerLane).toBe(1);
    expect(bothLanesAtOnce).toBe(true); // the two services are not serialised against each other
    // ~6 slots passed for each entry; a run takes 2.5 s, so each lane did 2 or 3 runs, not 12 or 18
    const korea = runs.filter((r) => r.entry !== 'a');
    const analytics = runs.filter((r) => r.entry === 'a');
    expect(analytics.length).toBeGreaterThanOrEqual(2);
    expect(analytics.length).toBeLessThanOrEqual(3);
    expect(korea.length).toBeGreaterThanOrEqual(2);
    expect(korea.length).toBeLessThanOrEqual(3);
    // the korea lane alternates its two entries instead of starving one
    expect(new Set(korea.slice(0, 2).map((r) => r.entry))).toEqual(new Set(['k1', 'k2']));
    // within an entry, runs never overlap in time
    for (const name of ['k1', 'k2', 'a']) {
      const mine = runs.filter((r) => r.entry === name);
      for (let i = 1; i < mine.length; i++) expect(mine[i]!.started.getTime()).toBeGreaterThanOrEqual(mine[i - 1]!.ended.getTime());
    }
  }, 15_000);

  it('runs a slot missed while asleep once, not once per slot, and remembers it across restarts', async () => {
    const root = tempRoot('schedule-state-');
    const statePath = join(root, 'schedule-state.json');
    let now = Date.parse('2026-11-20T09:00:30Z');
    const calls: string[] = [];
    const entries: ScheduleEntry[] = [
      { name: 'market', service: 'korea', cron: '*/5 * * * *', datasets: 'all' },
      { name: 'macro', service: 'korea', cron: '30 7 * * *', datasets: 'all' },
    ];
    const make = () =>
      new Scheduler(
        entries,
        async (entry) => {
          calls.push(entry.name);
          return ok;
        },
        { log: quietLog, now: () => now, statePath, firstStart: 'wait' },
      );
    const first = make();
    expect(await first.runDue()).toEqual([]); // first start waits for the next slot

    now = Date.parse('2026-11-21T11:02:00Z'); // the machine slept 26 hours: 300 market slots and one macro slot passed
    const caughtUp = await first.runDue();
    expect(caughtUp.map((r) => [r.entry, r.slot.toISOString()])).toEqual([
      ['macro', '2026-11-21T07:30:00.000Z'],
      ['market', '2026-11-21T11:00:00.000Z'],
    ]);
    expect(await first.runDue()).toEqual([]);

    // A new process (or the next GitHub Actions run) reads the saved slots: nothing is owed twice...
    expect(await make().runDue()).toEqual([]);
    // ...and what came due while it was down runs once.
    now = Date.parse('2026-11-21T11:17:00Z');
    expect((await make().runDue()).map((r) => [r.entry, r.slot.toISOString()])).toEqual([['market', '2026-11-21T11:15:00.000Z']]);
    expect(calls).toEqual(['macro', 'market', 'market']);
    expect(JSON.parse(readFileSync(statePath, 'utf8'))).toEqual({
      market: '2026-11-21T11:15:00.000Z',
      macro: '2026-11-21T07:30:00.000Z',
    });
  });

  it('saves its state without writing through a link planted at a temporary name', async () => {
    const root = tempRoot('schedule-link-');
    const statePath = join(root, 'schedule-state.json');
    const victim = join(root, 'victim.txt');
    writeFileSync(victim, 'untouched\n');
    symlinkSync(victim, `${statePath}.tmp-${process.pid}`);
    const entry: ScheduleEntry = { name: 'market', service: 'korea', cron: '*/5 * * * *', datasets: 'all' };
    const scheduler = new Scheduler([entry], async () => ok, {
      log: quietLog,
      now: () => Date.parse('2026-11-20T09:01:00Z'),
      statePath,
      firstStart: 'run',
    });
    expect((await scheduler.runDue()).map((r) => r.status)).toEqual(['ok']);
    expect(readFileSync(victim, 'utf8')).toBe('untouched\n');
    expect(lstatSync(statePath).isFile()).toBe(true);
    expect(JSON.parse(readFileSync(statePath, 'utf8'))).toEqual({ market: '2026-11-20T09:00:00.000Z' });
  });

  it('a stopped run leaves its slot owed for the next start', async () => {
    const root = tempRoot('schedule-stop-');
    const statePath = join(root, 'schedule-state.json');
    const entry: ScheduleEntry = { name: 'market', service: 'korea', cron: '*/5 * * * *', datasets: 'all' };
    let now = Date.parse('2026-11-20T09:01:00Z');
    const make = (run: (signal: AbortSignal) => Promise<RunOutcome>) =>
      new Scheduler([entry], (_, signal) => run(signal), { log: quietLog, now: () => now, statePath, firstStart: 'run' });
    expect((await make(async () => ok).runDue()).map((r) => r.slot.toISOString())).toEqual(['2026-11-20T09:00:00.000Z']);

    now = Date.parse('2026-11-20T09:06:00Z');
    const stopping = make(async (signal) => {
      await sleep(300);
      return signal.aborted ? { status: 'stopped', version: null, exitCode: 3, detail: 'stopped' } : ok;
    });
    const done = stopping.runDue();
    await sleep(50);
    await stopping.stop();
    expect((await done).map((r) => r.status)).toEqual(['stopped']);
    expect(JSON.parse(readFileSync(statePath, 'utf8'))).toEqual({ market: '2026-11-20T09:00:00.000Z' });
    const again = await make(async () => ok).runDue();
    expect(again.map((r) => [r.status, r.slot.toISOString()])).toEqual([['ok', '2026-11-20T09:05:00.000Z']]);
  });
});

describe('scheduled runs through runCli', () => {
  it('a group run recomputes its datasets and keeps the live version of the others; a stopped run publishes nothing', async () => {
    const root = tempRoot('schedule-runcli-');
    const settings = loadSettings({
      SITE_BUILD: 'off',
      SNAPSHOTS_DIR: join(root, 'snapshots'),
      WAREHOUSE_DIR: join(root, 'warehouse'),
      KEYS_DIR: join(root, 'keys'),
    });
    const run = pipelineRunner(settings, ['--source', 'demo']);
    const table = SCHEDULE_TABLES.production;
    const market = table.find((e) => e.name === 'korea-market')!;
    const news = table.find((e) => e.name === 'korea-news')!;
    const macro = table.find((e) => e.name === 'korea-macro')!;

    const first = await run(news, new AbortController().signal);
    // no live version yet: every dataset is computed, so the first snapshot is complete
    expect(first).toMatchObject({ status: 'ok', exitCode: 0 });
    const v1 = (await loadVersion(settings.snapshotsDir, 'korea', first.version!)).manifest;
    expect(v1.datasets.map((d) => d.name).sort()).toEqual(
      DATASETS.filter((d) => d.service === 'korea')
        .map((d) => d.name)
        .sort(),
    );

    const second = await run(market, new AbortController().signal);
    expect(second.status).toBe('ok');
    const pointer = readLatestPointer(settings.snapshotsDir, 'korea')!;
    expect(pointer.version).toBe(second.version);
    const v2 = (await loadVersion(settings.snapshotsDir, 'korea', second.version!, pointer.manifest_sha256)).manifest;
    const before = new Map(v1.datasets.map((d) => [d.name, d]));
    for (const d of v2.datasets) {
      if ((market.datasets as readonly string[]).includes(d.name)) {
        expect(d.produced_in, d.name).toBe(second.version);
        continue;
      }
      // kept: the same file, the same as_of, and produced_in still names the version that computed it
      expect([d.name, d.produced_in, d.sha256, d.as_of]).toEqual([
        d.name,
        first.version,
        before.get(d.name)!.sha256,
        before.get(d.name)!.as_of,
      ]);
      expect(d.carried_over).toBeUndefined();
    }
    expect(new Set(v2.datasets.map((d) => d.name))).toEqual(new Set(before.keys()));
    expect(news.datasets.length + market.datasets.length + macro.datasets.length).toBe(v2.datasets.length);

    const stop = new AbortController();
    stop.abort();
    const stopped = await run(macro, stop.signal);
    expect(stopped).toMatchObject({ status: 'stopped', version: null });
    expect(readLatestPointer(settings.snapshotsDir, 'korea')!.version).toBe(second.version);
  }, 60_000);
});

describe('npm run schedule', () => {
  it('stops on SIGTERM with exit 0, latest.json naming a complete version of each service', async () => {
    const root = tempRoot('schedule-sigterm-');
    const snapshotsDir = join(root, 'snapshots');
    const schedule = startScript(['pipelines/schedule.ts', '--table', 'demo'], {
      SNAPSHOTS_DIR: snapshotsDir,
      WAREHOUSE_DIR: join(root, 'warehouse'),
      KEYS_DIR: join(root, 'keys'),
      SITE_BUILD: 'off',
    });
    // first start with no saved state: every entry is due; stop once the first korea group is
    // published, while the korea lane goes on to its next group
    await schedule.waitFor(() => /schedule korea-market: ok .*version=\d{8}T/.test(schedule.stdout()), 150_000, 'korea-market run');
    const code = await schedule.stop();
    const stdout = schedule.stdout();
    expect(code, schedule.stderr()).toBe(0);
    expect(stdout).toMatch(/schedule: SIGTERM, stopping after the running step/);
    expect(stdout).toMatch(/schedule: stopped$/m);
    // one line per finished run, with its slot, times, duration and version
    expect(stdout).toMatch(/schedule korea-market: ok slot=\S+Z start=\S+Z end=\S+Z duration=\d+\.\d\ds version=\d{8}T\d{9}Z-[0-9a-f]{8}/);
    for (const service of ['korea', 'analytics']) {
      const pointer = readLatestPointer(snapshotsDir, service);
      if (!pointer) {
        expect(service).toBe('analytics'); // analytics may not have finished its first run in time
        continue;
      }
      const loaded = await loadVersion(snapshotsDir, service, pointer.version, pointer.manifest_sha256);
      expect(loaded.manifest.datasets.length).toBe(DATASETS.filter((d) => d.service === service).length);
    }
    // the korea lane's next group finished its step and stopped (or had just finished), and left no temporary directory
    expect(stdout).toMatch(/schedule korea-news: (stopped|ok) /);
    expect(readdirSync(join(snapshotsDir, 'korea')).filter((n) => n.startsWith('.'))).toEqual([]);
    const state = JSON.parse(
      readFileSync(statePathOf(loadSettings({ SNAPSHOTS_DIR: snapshotsDir, WAREHOUSE_DIR: join(root, 'warehouse') })), 'utf8'),
    );
    expect(state['korea-market']).toMatch(/Z$/);
  }, 200_000);
});
