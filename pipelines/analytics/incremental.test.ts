/**
 * Issue 17: an incremental run (payments added to the warehouse by a new file, the run after it)
 * and a run over the same payments from scratch publish the same datasets. Driven through the
 * pipeline command's own entry (runCli) on the file source, as a user runs it.
 */
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

const NOW = '2026-11-20T09:00:00Z';
const quiet = { progress: new LineProgress(() => {}), out: () => {} };
const temps: string[] = [];
const temp = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
};
let db: Database;
afterAll(() => {
  db?.close();
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

function settingsIn(root: string): Settings {
  return loadSettings({ SITE_BUILD: 'off', SNAPSHOTS_DIR: join(root, 'snapshots'), WAREHOUSE_DIR: join(root, 'warehouse') });
}

async function run(dir: string, settings: Settings, now = NOW): Promise<SnapshotManifest> {
  const { exitCode, results } = await runCli(parseArgs(['analytics', '--source', `file:${dir}`, '--now', now]), settings, quiet);
  expect(results[0]!.reports.filter((r) => r.status !== 'ok').map((r) => `${r.name}: ${r.detail}`)).toEqual([]);
  expect(exitCode).toBe(0);
  return results[0]!.manifest!;
}

/** A dataset's rows in a canonical order (tables) or its document. */
async function contentOf(settings: Settings, manifest: SnapshotManifest, name: string): Promise<unknown> {
  const entry = manifest.datasets.find((d) => d.name === name)!;
  // a partitioned table (the per-address ones) is a directory of parts
  const path = join(settings.snapshotsDir, 'analytics', manifest.version, entry.file, entry.partitions ? '*.parquet' : '');
  if (entry.format === 'json') return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  const columns = entry.schema.map((c) => `"${c.name}"`).join(', ');
  return queryJson(db.connection, `SELECT ${columns} FROM read_parquet(${sqlString(path)}) ORDER BY ALL`);
}

describe('analytics: an incremental run and a run from scratch over the same payments (issue 17)', () => {
  const world = { older: '', newer: '', cut: '' };
  beforeAll(async () => {
    db = await openDatabase(':memory:');
    const exported = temp('incremental-world-');
    await exportWorld(parseExportArgs(['analytics', '--out', exported, '--now', NOW, '--format', 'parquet']));
    // the newest 1 % of the payments arrive as a second file
    world.older = temp('incremental-older-');
    world.newer = join(temp('incremental-newer-'), 'transactions-20261120T0800Z.parquet');
    const all = sqlString(join(exported, 'transactions.parquet'));
    const [cut] = await queryJson(db.connection, `SELECT quantile_disc(time, 0.99)::VARCHAR AS t FROM read_parquet(${all})`);
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
    const second = await run(incrementalDir, incremental);

    // from scratch: both files in one directory, one run on a new warehouse
    const scratchRoot = temp('scratch-run-');
    const scratchDir = join(scratchRoot, 'input');
    mkdirSync(scratchDir);
    for (const f of ['services.parquet', 'funding.parquet', 'transactions.parquet'])
      copyFileSync(join(world.older, f), join(scratchDir, f));
    copyFileSync(world.newer, join(scratchDir, 'transactions-20261120T0800Z.parquet'));
    const scratch = settingsIn(scratchRoot);
    const whole = await run(scratchDir, scratch);

    // the second run saw the new payments
    const count = (m: SnapshotManifest) => m.datasets.find((d) => d.name === 'wash-payments-by-buyer')!.rows;
    expect(count(second)).toBeGreaterThan(count(first));
    expect(second.datasets.map((d) => d.name)).toEqual(whole.datasets.map((d) => d.name));
    const differentBytes: string[] = [];
    for (const entry of second.datasets) {
      const other = whole.datasets.find((d) => d.name === entry.name)!;
      expect({ name: entry.name, rows: entry.rows, schema: entry.schema }).toEqual({
        name: other.name,
        rows: other.rows,
        schema: other.schema,
      });
      if (entry.sha256 === other.sha256) continue;
      differentBytes.push(entry.name);
      expect({ name: entry.name, content: await contentOf(incremental, second, entry.name) }).toEqual({
        name: entry.name,
        content: await contentOf(scratch, whole, entry.name),
      });
    }
    // the datasets are written from sorted queries: the same rows are the same bytes
    expect(differentBytes).toEqual([]);
  }, 600_000);
});
