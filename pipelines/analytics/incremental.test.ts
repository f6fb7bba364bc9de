/**
 * Issue 17: an incremental run (payments added to the warehouse by a new file, the run after it)
 * and a run over the same payments from scratch publish the same datasets. Driven through the
 * pipeline command's own entry (runCli) on the file source, as a user runs it.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings, type Settings } from '../../lib/config.ts';
import { openDatabase, queryJson, sqlString, type Database } from '../../lib/duckdb.ts';
import { exportWorld, parseExportArgs } from '../../sources/demo/cli.ts';
import type { SnapshotManifest } from '../../snapshots/manifest.ts';
import { parseArgs, runCli } from '../cli.ts';
import { LineProgress } from '../progress.ts';
import { findEndpoint } from '../../catalog/index.ts';
import { createServiceApp } from '../../proxy/serve.ts';
import { closeSnapshotDuck } from '../../proxy/data/duck.ts';
import { ReceiptSigner } from '../../payments/receipts.ts';
import { paidGet, paidPost, testPaymentParts } from '../../payments/testing/paywall.ts';
import { SnapshotReader } from '../../snapshots/reader.ts';
import { expectSameContent } from '../../snapshots/testing/same-content.ts';

const NOW = '2026-11-20T09:00:00Z';
const quiet = { progress: new LineProgress(() => {}), out: () => {} };
const temps: string[] = [];
const temp = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
};
let db: Database;
afterAll(async () => {
  await closeSnapshotDuck();
  db?.close();
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

function settingsIn(root: string): Settings {
  return loadSettings({ SITE_BUILD: 'off', SNAPSHOTS_DIR: join(root, 'snapshots'), WAREHOUSE_DIR: join(root, 'warehouse') });
}

async function run(dir: string, settings: Settings, now = NOW, extra: string[] = [], notes?: string[]): Promise<SnapshotManifest> {
  const progress = new LineProgress((line) => notes?.push(line));
  const { exitCode, results } = await runCli(parseArgs(['analytics', '--source', `file:${dir}`, '--now', now, ...extra]), settings, {
    ...quiet,
    progress,
  });
  expect(results[0]!.reports.filter((r) => r.status !== 'ok').map((r) => `${r.name}: ${r.detail}`)).toEqual([]);
  expect(results[0]!.error).toBeNull();
  expect(exitCode).toBe(0);
  return results[0]!.manifest!;
}

describe('analytics: an incremental run and a run from scratch over the same payments (issue 17)', () => {
  const world = { older: '', newer: '', cut: '' };
  beforeAll(async () => {
    db = await openDatabase(':memory:');
    const exported = temp('incremental-world-');
    await exportWorld(parseExportArgs(['analytics', '--out', exported, '--now', NOW, '--format', 'parquet']));
    // the newest 1 % of the payments arrive as a second file, or the newer half of NOW's day when
    // 1 % reaches back into the day before (the cut must fall on NOW's day: see the first test)
    world.older = temp('incremental-older-');
    world.newer = join(temp('incremental-newer-'), 'transactions-20261120T0800Z.parquet');
    const all = sqlString(join(exported, 'transactions.parquet'));
    const [cut] = await queryJson(
      db.connection,
      `SELECT greatest(quantile_disc(time, 0.99),
                       (SELECT quantile_disc(time, 0.5) FROM read_parquet(${all}) WHERE time >= ${sqlString(NOW.slice(0, 10))}))::VARCHAR AS t
         FROM read_parquet(${all})`,
    );
    world.cut = String(cut!.t); // the export writes times as ISO 8601 text
    const at = sqlString(String(cut!.t));
    await db.connection.run(
      `COPY (SELECT * FROM read_parquet(${all}) WHERE time <= ${at}) TO ${sqlString(join(world.older, 'transactions.parquet'))} (FORMAT parquet)`,
    );
    await db.connection.run(`COPY (SELECT * FROM read_parquet(${all}) WHERE time > ${at}) TO ${sqlString(world.newer)} (FORMAT parquet)`);
    for (const f of ['services.parquet', 'funding.parquet']) copyFileSync(join(exported, f), join(world.older, f));
  }, 120_000);

  it('publishes the same datasets, file for file', async () => {
    // incremental: a run when the older payments were all there were, then the newer file dropped
    // into the directory and a run at the later time
    const incrementalRoot = temp('incremental-run-');
    const incrementalDir = join(incrementalRoot, 'input');
    mkdirSync(incrementalDir);
    for (const f of ['services.parquet', 'funding.parquet', 'transactions.parquet'])
      copyFileSync(join(world.older, f), join(incrementalDir, f));
    const incremental = settingsIn(incrementalRoot);
    const first = await run(incrementalDir, incremental, world.cut);
    copyFileSync(world.newer, join(incrementalDir, 'transactions-20261120T0800Z.parquet'));
    const notes: string[] = [];
    const second = await run(incrementalDir, incremental, NOW, [], notes);
    // the cut is on the day of NOW: the second run keeps the day state and labels only the buyers
    // whose payments of the day changed (pipelines/analytics/labels.ts)
    expect(world.cut.slice(0, 10)).toBe(NOW.slice(0, 10));
    expect(notes.filter((n) => /classify: day state/.test(n))).toEqual([]);
    expect(notes.some((n) => /prepare:classify ok .*day state of 2026-11-20 kept/.test(n))).toBe(true);
    // the first run's payments keep their attribution; only the new file's are attributed
    expect(notes.some((n) => n.endsWith('analytics: attribution: 1 import run(s) kept, 1 attributed'))).toBe(true);
    // the tables by service rewrite only the rows of the services the new payments touched
    for (const name of BY_SERVICE) {
      const line = notes.find((n) => n.includes(`analytics: ${name}: rows of `));
      expect(line, name).toMatch(/rows of \d+ service\(s\) rewritten, the rest from the live version$/);
      expect(Number(/rows of (\d+)/.exec(line!)![1])).toBeGreaterThan(0);
      expect(Number(/rows of (\d+)/.exec(line!)![1])).toBeLessThan(first.datasets.find((d) => d.name === 'services')!.rows);
    }

    // from scratch: both files in one directory, one run on a new warehouse
    const scratchRoot = temp('scratch-run-');
    const scratchDir = join(scratchRoot, 'input');
    mkdirSync(scratchDir);
    for (const f of ['services.parquet', 'funding.parquet', 'transactions.parquet'])
      copyFileSync(join(world.older, f), join(scratchDir, f));
    copyFileSync(world.newer, join(scratchDir, 'transactions-20261120T0800Z.parquet'));
    const scratch = settingsIn(scratchRoot);
    const whole = await run(scratchDir, scratch);

    // the second run saw the new payments: the label-bearing tables carry delta files
    const count = (m: SnapshotManifest) => m.datasets.find((d) => d.name === 'transactions')!.rows;
    expect(count(second)).toBeGreaterThan(count(first));
    const withDeltas = (m: SnapshotManifest) => m.datasets.filter((d) => d.partitions?.deltas).map((d) => d.name);
    expect(withDeltas(first)).toEqual([]);
    expect(withDeltas(second).sort()).toEqual([...KEYED].sort());
    // the label-bearing tables: the first run's parts, and one delta of the rows of the buyers
    // labelled again (those that paid since), whose newest row wins
    const relabelled = Number(/classify: (\d+) buyers labelled/.exec(notes.join('\n'))?.[1]);
    expect(relabelled).toBeGreaterThan(0);
    for (const name of KEYED) {
      const before = first.datasets.find((d) => d.name === name)!;
      const after = second.datasets.find((d) => d.name === name)!;
      expect(after.partitions!.delta_rule).toBe('newest-wins');
      expect(after.partitions!.parts).toEqual(before.partitions!.parts);
      expect(after.partitions!.deltas!.map((d) => [d.file, d.rows])).toEqual([['delta-000001.parquet', relabelled]]);
      expect(after.rows).toBeGreaterThan(before.rows); // new buyers
      expect(after.rows).toBeLessThan(before.rows + relabelled); // and buyers already there, whose row the delta replaces
    }
    expect(second.datasets.map((d) => d.name)).toEqual(whole.datasets.map((d) => d.name));
    await expectSameDatasets(incremental, second, scratch, whole, KEYED);
    state.incremental = { settings: incremental, dir: incrementalDir, manifest: second };
    state.scratch = { settings: scratch, manifest: whole };
  }, 600_000);

  it('answers the paid wash check and buyer profiles the same from the delta files as from tables written whole', async () => {
    const { incremental, scratch } = state;
    expect(incremental && scratch).toBeTruthy();
    const buyers = await queryJson(
      db.connection,
      `SELECT DISTINCT buyer AS a FROM read_parquet(${sqlString(world.newer)}) WHERE buyer IS NOT NULL ORDER BY hash(buyer) LIMIT 25`,
    );
    const sellers = await queryJson(
      db.connection,
      `SELECT DISTINCT seller_address AS a FROM read_parquet(${sqlString(world.newer)}) WHERE seller_address IS NOT NULL ORDER BY hash(seller_address) LIMIT 10`,
    );
    // and buyers that did not pay since: their profiles are the parts' rows, the others the delta's
    const older = await queryJson(
      db.connection,
      `SELECT DISTINCT buyer AS a FROM read_parquet(${sqlString(join(world.older, 'transactions.parquet'))})
        WHERE buyer IS NOT NULL AND buyer NOT IN (SELECT buyer FROM read_parquet(${sqlString(world.newer)}) WHERE buyer IS NOT NULL)
        ORDER BY hash(buyer) LIMIT 10`,
    );
    const addresses = [...buyers, ...sellers].map((r) => String(r.a));
    const a = await washCheckApp(incremental!.settings);
    const b = await washCheckApp(scratch!.settings);
    try {
      for (const address of addresses) expect({ address, body: await a.check(address) }).toEqual({ address, body: await b.check(address) });
      // the paid buyer profile, read from the parts and the delta that replaces rows, as from a table written whole
      for (const address of [...buyers, ...older].map((r) => String(r.a))) {
        const profile = await a.profile(address);
        expect(profile.status, address).toBe(200);
        expect({ address, body: profile.body }).toEqual({ address, body: (await b.profile(address)).body });
      }
    } finally {
      a.close();
      b.close();
    }
  }, 240_000);

  it('a run killed once it kept its labels leaves the previous version live; the next run publishes what a run from scratch does', async () => {
    const { scratch } = state;
    expect(scratch).toBeTruthy();
    const root = temp('killed-run-');
    const dir = join(root, 'input');
    mkdirSync(dir);
    for (const f of ['services.parquet', 'funding.parquet', 'transactions.parquet']) copyFileSync(join(world.older, f), join(dir, f));
    const settings = settingsIn(root);
    const first = await run(dir, settings, world.cut);
    copyFileSync(world.newer, join(dir, 'transactions-20261120T0800Z.parquet'));
    // the pipeline command, killed the moment its classify step is done: the day's label files and
    // the warehouse row naming them are written, nothing is published
    // node itself runs the command (the tsx launcher would leave its child, the run, alive)
    const child = spawn(process.execPath, ['--import', 'tsx', 'pipelines/cli.ts', 'analytics', '--source', `file:${dir}`, '--now', NOW], {
      env: { ...process.env, SITE_BUILD: 'off', SNAPSHOTS_DIR: settings.snapshotsDir, WAREHOUSE_DIR: settings.warehouseDir },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let log = '';
    const exit = await new Promise<NodeJS.Signals | number | null>((resolve) => {
      child.stderr!.on('data', (chunk: Buffer) => {
        log += chunk.toString();
        if (/analytics\/prepare:classify ok/.test(log)) child.kill('SIGKILL');
      });
      child.on('exit', (code, signal) => resolve(signal ?? code));
    });
    expect(exit).toBe('SIGKILL');
    expect(log).toMatch(/day state of 2026-11-20 kept/);
    const latest = JSON.parse(readFileSync(join(settings.snapshotsDir, 'analytics', 'latest.json'), 'utf8')) as { version: string };
    expect(latest.version).toBe(first.version);
    const notes: string[] = [];
    const next = await run(dir, settings, NOW, [], notes);
    // the killed run's labels moved on, the live version did not: the labelled tables are written whole
    for (const name of KEYED) {
      expect(
        notes.some((n) =>
          n.endsWith(`analytics: ${name}: written whole (the live version was written from other labels than this run started from)`),
        ),
      ).toBe(true);
    }
    await expectSameDatasets(settings, next, scratch!.settings, scratch!.manifest, []);
  }, 600_000);

  it('--rebuild writes every dataset whole: the same bytes as the run from scratch', async () => {
    const { incremental, scratch } = state;
    expect(incremental && scratch).toBeTruthy();
    const rebuilt = await run(incremental!.dir, incremental!.settings, NOW, ['--rebuild']);
    expect(rebuilt.datasets.filter((d) => d.partitions?.deltas)).toEqual([]);
    await expectSameDatasets(incremental!.settings, rebuilt, scratch!.settings, scratch!.manifest, []);
  }, 600_000);

  it('writes the tables with delta files whole when the run cannot extend them, and says why', async () => {
    const { incremental } = state;
    expect(incremental).toBeTruthy();
    const notes: string[] = [];
    // a run at an earlier time than the live version's: its tables hold payments after that time
    const earlier = await run(incremental!.dir, incremental!.settings, world.cut, [], notes);
    expect(earlier.datasets.filter((d) => d.partitions?.deltas)).toEqual([]);
    // (the day state is rebuilt for the earlier time, so the labelled tables start again too)
    expect(
      notes
        .filter((n) => n.includes('written whole'))
        .map((n) => n.replace(/^\S+ /, ''))
        .sort(),
    ).toEqual([...[...KEYED, ...BY_SERVICE].map((name) => `analytics: ${name}: written whole (a new day state)`)].sort());

    // that run's import runs hold payments after its time, so its rollups summed the payments, not
    // the runs' kept totals; a run from scratch over the older file alone at the same time sums
    // the kept totals: the two publish the same bytes
    const TOTALS = "rollups: all-time totals per service and buyer from the import runs' kept totals";
    expect(notes.some((n) => n.endsWith(TOTALS))).toBe(false);
    const root = temp('at-cut-');
    const dir = join(root, 'input');
    mkdirSync(dir);
    for (const f of ['services.parquet', 'funding.parquet', 'transactions.parquet']) copyFileSync(join(world.older, f), join(dir, f));
    const cutNotes: string[] = [];
    const cutSettings = settingsIn(root);
    const atCut = await run(dir, cutSettings, world.cut, [], cutNotes);
    expect(cutNotes.some((n) => n.endsWith(TOTALS))).toBe(true);
    await expectSameDatasets(incremental!.settings, earlier, cutSettings, atCut, []);
  }, 600_000);
});

/** The label-bearing tables runs update with delta files whose newest row of a key wins (keyed.ts). */
const KEYED = ['buyer-profiles', 'buyers'];
/** The tables by service whose untouched services' rows runs take from the live version (by-service.ts). */
const BY_SERVICE = ['service-detail', 'wash-detail'];

const state: {
  incremental?: { settings: Settings; dir: string; manifest: SnapshotManifest };
  scratch?: { settings: Settings; manifest: SnapshotManifest };
} = {};

/**
 * Every dataset of `a` has the same name, rows and columns as `b`'s, and the same bytes, except
 * `deltas` (tables with delta files), whose rows must be the same.
 */
async function expectSameDatasets(
  settingsA: Settings,
  a: SnapshotManifest,
  settingsB: Settings,
  b: SnapshotManifest,
  deltas: readonly string[],
): Promise<void> {
  const differentBytes = await expectSameContent(
    db.connection,
    { snapshotsDir: settingsA.snapshotsDir, manifest: a },
    { snapshotsDir: settingsB.snapshotsDir, manifest: b },
  );
  // the datasets are written from sorted queries: the same rows are the same bytes (the tables
  // with delta files hold the same rows in other files)
  expect(differentBytes.sort()).toEqual([...deltas].sort());
}

/** The analytics proxy over a snapshot root, and its paid wash check as a client calls it. */
async function washCheckApp(settings: Settings) {
  const now = () => new Date(NOW);
  const reader = new SnapshotReader(settings.snapshotsDir, 'analytics');
  await reader.refresh();
  const app = await createServiceApp(
    'analytics',
    reader,
    settings,
    { ...testPaymentParts({ signer: ReceiptSigner.random(), now }), washPatternSalt: 'incremental-test-salt' },
    { now },
  );
  const endpoint = findEndpoint('analytics', 'wash.check')!;
  return {
    async check(address: string): Promise<unknown> {
      const res = await paidPost(app, settings, endpoint, { address }, Math.floor(now().getTime() / 1000));
      expect(res.status, address).toBe(200);
      // the payment's receipt differs per call and the basis names the snapshot version; the answer is the rest
      const { receipt, ...answer } = (await res.json()) as { receipt: unknown; basis: string };
      expect(receipt).toBeTruthy();
      return { ...answer, basis: answer.basis.replace(/\(snapshot \w+-\w+\)/, '(snapshot)') };
    },
    async profile(address: string): Promise<{ status: number; body: unknown }> {
      const endpoint = findEndpoint('analytics', 'buyers.profile')!;
      const res = await paidGet(app, settings, endpoint, `/api/v1/buyers/${address}/profile`, Math.floor(now().getTime() / 1000));
      const { receipt, ...body } = (await res.json()) as { receipt?: unknown };
      return { status: res.status, body };
    },
    close: () => reader.close(),
  };
}
