/**
 * The one-off repair of the premium archive (issue 47). Before each dataset step declared what it
 * reads, the archive steps and the daily preview were not refused with the inputs they read: a run
 * whose FX rate or prices the plausibility check refused still recorded its minute (with FX 1
 * KRW/USD, a premium of millions of percent), and rolled it into its hour and day.
 *
 * The runs' record says which minutes: a kept snapshot version whose kimchi-premium was refused
 * for an implausible input (it reads what the archive reads: the FX rate, the Korean and the
 * global prices) while kimchi-premium-1m was written in the same run names that minute (the 1m
 * dataset's as_of), unless a later version wrote the same minute again from accepted inputs. The
 * repair, once per warehouse (`prepare:archive_repair`, first in the run):
 *
 *   1. drops every point of those minutes from premium_1m (the minute is missing, as when an
 *      exchange is down);
 *   2. rolls their hours up again from the minutes left (an hour whose minutes are past the 7-day
 *      retention is dropped: nothing is left to tell its good minutes from the refused one), and
 *      their days from their hours;
 *   3. keeps every row it removed or replaced in premium_archive_dropped (with the version and the
 *      refusal), logs each minute, and records itself in premium_archive_repairs: the archive
 *      datasets published before it are then written whole at their next write (archive.ts), so
 *      no published file keeps a dropped point. The daily preview is written whole every run.
 *
 * Only the versions still kept (SNAPSHOT_RETENTION) can be read: a refused minute recorded before
 * the oldest of them is not found.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { queryJson, sqlString, tableExists } from '../../lib/duckdb.ts';
import { parseSnapshotFile, SnapshotManifest } from '../../snapshots/manifest.ts';
import { listVersions } from '../../snapshots/reader.ts';
import type { PipelineContext, PrepareStep } from '../runner.ts';
import { ARCHIVE_REPAIRS, archiveDataset, daysFromHoursSql, ensureArchive, hoursFromMinutesSql } from './archive.ts';
import { timestampSql } from './sql.ts';

/** Every archive row the repair removed or replaced, kept for the record. */
export const ARCHIVE_DROPPED = 'premium_archive_dropped';

/** The refusal a run recorded on kimchi-premium (its carried_over reason). */
const REFUSED = 'implausible input:';

/** A minute of the archive recorded from refused inputs, and the record that says so. */
export interface RefusedMinute {
  minute: string;
  version: string;
  reason: string;
}

/**
 * The minutes the kept versions (oldest first) show recorded from refused inputs: the newest
 * version that wrote each minute refused kimchi-premium for an implausible input.
 */
export function refusedMinutes(manifests: readonly SnapshotManifest[]): RefusedMinute[] {
  const last = new Map<string, RefusedMinute | null>();
  for (const m of manifests) {
    const minute = m.datasets.find((d) => d.name === archiveDataset('1m'));
    if (!minute || minute.produced_in !== m.version || minute.carried_over) continue;
    const reason = m.datasets.find((d) => d.name === 'kimchi-premium')?.carried_over?.reason;
    const at = new Date(minute.as_of).toISOString().replace(/\.000Z$/, 'Z');
    last.set(at, reason?.startsWith(REFUSED) ? { minute: at, version: m.version, reason } : null);
  }
  return [...last.values()].filter((r): r is RefusedMinute => r !== null).sort((a, b) => a.minute.localeCompare(b.minute));
}

/** The kept versions' manifests, oldest first (one that cannot be read is skipped, and said). */
function keptManifests(ctx: PipelineContext): SnapshotManifest[] {
  const root = ctx.settings.snapshotsDir;
  return listVersions(root, ctx.service)
    .reverse()
    .flatMap((version) => {
      const file = join(root, ctx.service, version, 'manifest.json');
      try {
        return [parseSnapshotFile(SnapshotManifest, file, readFileSync(file, 'utf8'))];
      } catch (err) {
        ctx.log(`archive repair: ${version} skipped: ${(err as Error).message.split('\n')[0]}`);
        return [];
      }
    });
}

async function ensureRecord(c: DuckDBConnection): Promise<void> {
  await c.run(`CREATE TABLE IF NOT EXISTS ${ARCHIVE_REPAIRS} (repaired_at TIMESTAMP, live_version VARCHAR, versions_read INTEGER,
    minutes INTEGER, points INTEGER, detail VARCHAR)`);
  await c.run(`CREATE TABLE IF NOT EXISTS ${ARCHIVE_DROPPED} (interval VARCHAR, t TIMESTAMP, exchange VARCHAR, symbol VARCHAR,
    premium_pct DOUBLE, min_pct DOUBLE, max_pct DOUBLE, last_pct DOUBLE, samples INTEGER, source VARCHAR,
    replaced BOOLEAN, version VARCHAR, reason VARCHAR)`);
}

/**
 * Replaces the rows of `table` in the periods `periods` (t, version, reason) with `rolledSql`'s,
 * keeping the old ones in premium_archive_dropped (replaced: whether a rolled row took its place).
 */
async function replacePeriods(c: DuckDBConnection, interval: '1h' | '1d', periods: string, rolledSql: string): Promise<void> {
  const table = `premium_${interval}`;
  await c.run(`CREATE OR REPLACE TEMP TABLE archive_repair_rolled AS ${rolledSql}`);
  await c.run(`INSERT INTO ${ARCHIVE_DROPPED}
    SELECT ${sqlString(interval)}, a.*, EXISTS (SELECT 1 FROM archive_repair_rolled r
                                              WHERE r.t = a.t AND r.exchange = a.exchange AND r.symbol = a.symbol),
           p.version, p.reason
      FROM ${table} a JOIN ${periods} p USING (t)`);
  await c.run(`DELETE FROM ${table} WHERE t IN (SELECT t FROM ${periods})`);
  await c.run(`INSERT INTO ${table} SELECT * FROM archive_repair_rolled ORDER BY t, exchange, symbol`);
  await c.run('DROP TABLE archive_repair_rolled');
}

/** Steps 1-3 of the module comment for `minutes`; returns the minute points dropped. */
export async function dropRefusedMinutes(c: DuckDBConnection, minutes: readonly RefusedMinute[]): Promise<number> {
  await ensureArchive(c);
  await ensureRecord(c);
  if (minutes.length === 0) return 0;
  const values = minutes.map((m) => `(${timestampSql(new Date(m.minute))}, ${sqlString(m.version)}, ${sqlString(m.reason)})`).join(', ');
  await c.run(`CREATE OR REPLACE TEMP TABLE archive_repair_minutes AS
    SELECT v.*, EXISTS (SELECT 1 FROM premium_1m p WHERE p.t = v.t) AS kept
      FROM (VALUES ${values}) v(t, version, reason)`);
  const [dropped] = await queryJson(
    c,
    `INSERT INTO ${ARCHIVE_DROPPED}
     SELECT '1m', p.*, false, m.version, m.reason FROM premium_1m p JOIN archive_repair_minutes m USING (t)`,
  );
  await c.run('DELETE FROM premium_1m WHERE t IN (SELECT t FROM archive_repair_minutes)');
  // an hour is rolled up again from its minutes while they are kept, else dropped; a day always from its hours
  await c.run(`CREATE OR REPLACE TEMP TABLE archive_repair_hours AS
    SELECT date_trunc('hour', t) AS t, bool_and(kept) AS kept, min(version) AS version, min(reason) AS reason
      FROM archive_repair_minutes GROUP BY ALL`);
  await replacePeriods(
    c,
    '1h',
    'archive_repair_hours',
    hoursFromMinutesSql(`date_trunc('hour', t) IN (SELECT t FROM archive_repair_hours WHERE kept)`),
  );
  await c.run(`CREATE OR REPLACE TEMP TABLE archive_repair_days AS
    SELECT date_trunc('day', t) AS t, min(version) AS version, min(reason) AS reason FROM archive_repair_hours GROUP BY ALL`);
  await replacePeriods(c, '1d', 'archive_repair_days', daysFromHoursSql(`date_trunc('day', t) IN (SELECT t FROM archive_repair_days)`));
  for (const t of ['archive_repair_minutes', 'archive_repair_hours', 'archive_repair_days']) await c.run(`DROP TABLE ${t}`);
  return Number(dropped?.Count ?? 0);
}

/** The repair's line in the run table. */
function detailOf(versions: number, minutes: readonly RefusedMinute[], points: number): string {
  if (minutes.length === 0) return `no minute recorded from a refused input in the ${versions} kept versions`;
  return (
    `dropped ${points} points of ${minutes.length} minute${minutes.length === 1 ? '' : 's'} recorded from refused inputs ` +
    `(${named(minutes.map((m) => m.minute))}), their hours and days rolled up again (${ARCHIVE_DROPPED})`
  );
}

/** The first few minutes, and how many more (the run table's line stays short). */
const named = (all: readonly string[], shown = 5): string =>
  all.length > shown ? `${all.slice(0, shown).join(', ')} and ${all.length - shown} more` : all.join(', ');

export const archiveRepairStep: PrepareStep = {
  name: 'archive_repair',
  tables: [],
  async run(ctx) {
    const c = ctx.connection;
    if (await tableExists(c, ARCHIVE_REPAIRS)) {
      const [done] = await queryJson(c, `SELECT strftime(repaired_at, '%Y-%m-%dT%H:%M:%SZ') AS at, detail FROM ${ARCHIVE_REPAIRS} LIMIT 1`);
      if (done) return { rows: 0, detail: `done once, ${String(done.at)}: ${String(done.detail)}` };
    }
    const manifests = keptManifests(ctx);
    const minutes = refusedMinutes(manifests);
    const live = ctx.writer.previousManifest?.version;
    // the drop and its record in one transaction: a repair stopped half-way leaves the archive as it was
    await c.run('BEGIN TRANSACTION');
    let points: number;
    try {
      points = await dropRefusedMinutes(c, minutes);
      await c.run(
        `INSERT INTO ${ARCHIVE_REPAIRS} VALUES ($at::TIMESTAMP, ${live ? sqlString(live) : 'NULL'}, $versions, $minutes, $points, $detail)`,
        {
          at: new Date().toISOString(),
          versions: manifests.length,
          minutes: minutes.length,
          points,
          detail: detailOf(manifests.length, minutes, points),
        },
      );
      await c.run('COMMIT');
    } catch (err) {
      await c.run('ROLLBACK');
      throw err;
    }
    for (const m of minutes) {
      ctx.log(`archive repair: dropped the points of ${m.minute}, recorded from refused inputs (${m.version}: ${m.reason.slice(0, 200)})`);
    }
    return { rows: points, detail: detailOf(manifests.length, minutes, points) };
  },
};
