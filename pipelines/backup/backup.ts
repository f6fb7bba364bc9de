/**
 * Backs up what a service's warehouse cannot recompute (durable.ts) to the BACKUP_URL target, and
 * restores it into a missing warehouse (docs/backup.md).
 *
 * A backup: `tables/<table>.parquet` (DuckDB COPY, zstd) for each durable table the warehouse
 * has, `files/<path>` for the payment segments the ledger names (copied as they are; a segment the
 * previous backup already holds is linked, not copied: segments never change)
 * and the scheduler's state, and `manifest.json`: format, service, id, time, code version, and per
 * file its sha256, bytes, and per table its rows and CREATE statement. Drafted and committed whole
 * (target.ts); the newest BACKUP_RETENTION are kept.
 *
 * A restore reads the newest backup, checks every sha256 before it creates anything, refuses a
 * backup in a newer format than this code reads, builds the warehouse under a temporary name
 * (each table from its own CREATE statement, so keys and constraints come back; row counts
 * checked) and renames it into place last: a warehouse file is whole or absent. A backup that
 * fails its checks is skipped for the next older one, saying why; when none is whole the run stops.
 */
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, createReadStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { ServiceName } from '../../catalog/types.ts';
import { codeVersion, type Settings } from '../../lib/config.ts';
import { openDatabase, queryJson, sqlString, type Database } from '../../lib/duckdb.ts';
import { replaceFile } from '../../lib/new-file.ts';
import { DURABLE, SCHEDULE_STATE_FILE } from './durable.ts';
import { backupTargetOf, newBackupId, type BackupTarget } from './target.ts';

/** The backup format this code writes and the newest it reads. */
export const BACKUP_FORMAT = 1;

// a manifest names files under the backup and tables by plain names: a restore writes nowhere else
const fileName = z
  .string()
  .regex(/^(tables|files)\/[A-Za-z0-9._/-]+$/)
  .refine((n) => !n.split('/').includes('..'), 'a path inside the backup');
const FileEntry = z.object({ name: fileName, bytes: z.number().int().nonnegative(), sha256: z.string().regex(/^[0-9a-f]{64}$/) });
const TableEntry = FileEntry.extend({
  table: z.string().regex(/^[a-z_][a-z0-9_]*$/),
  rows: z.number().int().nonnegative(),
  create: z.string(),
}).refine(
  (t) => t.create.startsWith(`CREATE TABLE ${t.table}(`) && t.create.indexOf(';') >= t.create.length - 1,
  'create: one CREATE TABLE statement of the table',
);

const BackupManifest = z.object({
  format: z.number().int().positive(),
  service: z.enum(['korea', 'analytics']),
  id: z.string(),
  created_at: z.string(),
  code_version: z.string(),
  tables: z.array(TableEntry),
  files: z.array(FileEntry),
});
export type BackupManifest = z.infer<typeof BackupManifest>;

export const MANIFEST = 'manifest.json';

/** Drafts older than this that never committed are from a killed writer. */
const ABANDONED_MS = 60 * 60_000;

export async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export const warehouseFileOf = (settings: Settings, service: ServiceName): string => join(settings.warehouseDir, `${service}.duckdb`);

function targetOf(settings: Settings): BackupTarget {
  if (!settings.backupUrl) throw new Error('BACKUP_URL is not set: there is no backup target (README "Settings")');
  return backupTargetOf(settings.backupUrl);
}

/** A committed backup's manifest, parsed, or why it cannot be read. */
function readManifest(target: BackupTarget, service: ServiceName, id: string): BackupManifest | string {
  const path = target.read(service, id, MANIFEST);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    return `its ${MANIFEST} cannot be read: ${(err as Error).message}`;
  }
  // the format first: a newer manifest may not match this code's schema at all
  const format = (json as { format?: unknown } | null)?.format;
  if (typeof format === 'number' && format > BACKUP_FORMAT) {
    const by = (json as { code_version?: unknown }).code_version;
    return `NEWER: it is in backup format ${format}, written by code version ${String(by)}; this code (${codeVersion()}) reads format ${BACKUP_FORMAT} at most`;
  }
  const parsed = BackupManifest.safeParse(json);
  if (!parsed.success)
    return `its ${MANIFEST} is not a backup manifest: ${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`;
  if (parsed.data.service !== service || parsed.data.id !== id) return `its ${MANIFEST} names ${parsed.data.service}/${parsed.data.id}`;
  return parsed.data;
}

export interface BackupRun {
  id: string;
  tables: number;
  rows: number;
  files: number;
  /** Files linked from the previous backup rather than copied. */
  reused: number;
  bytes: number;
  /** Old backups removed by the retention. */
  removed: string[];
}

/** Backs up the service's warehouse (closed: no run may hold it) to BACKUP_URL. */
export async function backupWarehouse(settings: Settings, service: ServiceName, now = new Date()): Promise<BackupRun> {
  const target = targetOf(settings);
  const path = warehouseFileOf(settings, service);
  if (!existsSync(path)) throw new Error(`${path} does not exist: nothing to back up`);
  const id = newBackupId(now);
  const draft = target.begin(service, id);
  const previousId = target.list(service).at(-1);
  const previous = previousId ? readManifest(target, service, previousId) : null;
  const previousFiles = new Map(typeof previous === 'object' && previous ? previous.files.map((f) => [f.name, f]) : []);
  let db: Database | null = null;
  try {
    db = await openDatabase(path, { access_mode: 'READ_ONLY' });
    const c = db.connection;
    const part = DURABLE[service];
    const present = new Map(
      (await queryJson(c, `SELECT table_name, sql FROM duckdb_tables() WHERE NOT temporary AND schema_name = 'main'`)).map((r) => [
        String(r.table_name),
        String(r.sql),
      ]),
    );
    const tables: BackupManifest['tables'] = [];
    for (const { name } of part.tables) {
      const create = present.get(name);
      if (create === undefined) continue; // this warehouse never made it (a source or feature it did not use)
      const file = `tables/${name}.parquet`;
      const local = draft.pathFor(file);
      await c.run(`COPY (SELECT * FROM ${name}) TO ${sqlString(local)} (FORMAT parquet, COMPRESSION zstd)`);
      const [n] = await queryJson(c, `SELECT count(*)::BIGINT AS n FROM read_parquet(${sqlString(local)})`);
      tables.push({ table: name, name: file, rows: Number(n?.n ?? 0), create, bytes: statSync(local).size, sha256: await sha256Of(local) });
    }
    const files: BackupManifest['files'] = [];
    let reused = 0;
    if (part.ledgerFiles && present.has(part.ledgerFiles.ledgerTable)) {
      const { dir, ledgerTable } = part.ledgerFiles;
      const ledger = await queryJson(
        c,
        `SELECT DISTINCT segment, sha256, dir FROM ${ledgerTable} WHERE segment IS NOT NULL ORDER BY segment`,
      );
      for (const row of ledger) {
        const segment = String(row.segment);
        const name = `files/${dir}/${segment}`;
        const source = join(settings.warehouseDir, dir, segment);
        if (!existsSync(source)) throw new Error(`${ledgerTable} names ${segment}, which is not in ${join(settings.warehouseDir, dir)}`);
        // a segment never changes once committed and its name is never used again: the previous backup's copy is this one
        const before = previousFiles.get(name);
        if (before?.bytes === statSync(source).size && draft.reuse(name, previousId!)) {
          reused++;
          files.push(before);
          continue;
        }
        const local = draft.pathFor(name);
        copyFileSync(source, local);
        const sha = await sha256Of(local);
        // a live segment's ledger sha256 is the segment's own (a file import's is its source file's)
        if (String(row.dir).startsWith('live:') && sha !== String(row.sha256)) {
          throw new Error(`${join(dir, segment)} does not match its ${ledgerTable} sha256 (the warehouse's copy is damaged)`);
        }
        files.push({ name, bytes: statSync(local).size, sha256: sha });
      }
    }
    const state = join(settings.warehouseDir, SCHEDULE_STATE_FILE);
    if (existsSync(state)) {
      const name = `files/${SCHEDULE_STATE_FILE}`;
      const local = draft.pathFor(name);
      copyFileSync(state, local);
      files.push({ name, bytes: statSync(local).size, sha256: await sha256Of(local) });
    }
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      service,
      id,
      created_at: now.toISOString(),
      code_version: codeVersion(),
      tables,
      files,
    };
    writeFileSync(draft.pathFor(MANIFEST), JSON.stringify(manifest, null, 2) + '\n');
    db.close();
    db = null;
    draft.commit();
    replaceFile(lastBackupFileOf(settings, service), `${JSON.stringify({ id, created_at: manifest.created_at, where: target.where })}\n`);
    const ids = target.list(service);
    const removed = ids.slice(0, Math.max(0, ids.length - settings.backupRetention));
    for (const old of removed) target.remove(service, old);
    target.removeAbandoned(service, ABANDONED_MS);
    return {
      id,
      tables: tables.length,
      rows: tables.reduce((a, t) => a + t.rows, 0),
      files: files.length,
      reused,
      bytes: [...tables, ...files].reduce((a, f) => a + f.bytes, 0),
      removed,
    };
  } catch (err) {
    db?.close();
    draft.abort();
    throw err;
  }
}

/** Beside the warehouse (and lost with it): the service's last backup, for BACKUP_EVERY_MINUTES. */
const lastBackupFileOf = (settings: Settings, service: ServiceName): string => join(settings.warehouseDir, `${service}.last-backup.json`);

/** Why an automatic backup is not due (BACKUP_EVERY_MINUTES), or null when it is. */
export function backupNotDue(settings: Settings, service: ServiceName, now = new Date()): string | null {
  if (settings.backupEveryMinutes === 0 || !settings.backupUrl) return null;
  let last: { id?: unknown; created_at?: unknown; where?: unknown };
  try {
    last = JSON.parse(readFileSync(lastBackupFileOf(settings, service), 'utf8'));
  } catch {
    return null; // none yet, or unreadable: back up
  }
  const at = Date.parse(String(last.created_at));
  if (last.where !== settings.backupUrl || Number.isNaN(at)) return null;
  const minutes = (now.getTime() - at) / 60_000;
  if (minutes < 0 || minutes >= settings.backupEveryMinutes) return null;
  return `not due: the last backup, ${String(last.id)}, is ${Math.floor(minutes)} minutes old (BACKUP_EVERY_MINUTES=${settings.backupEveryMinutes})`;
}

/** No backup could be restored: the run must not start a fresh warehouse over a history it could not read. */
export class RestoreRefused extends Error {}

/** Checks every file of a backup against its manifest; null when whole, else what is wrong. */
async function verify(target: BackupTarget, service: ServiceName, m: BackupManifest): Promise<string | null> {
  for (const f of [...m.tables, ...m.files]) {
    const path = target.read(service, m.id, f.name);
    if (!existsSync(path)) return `${f.name} is missing`;
    const sha = await sha256Of(path);
    if (sha !== f.sha256)
      return `${f.name} does not match its sha256 in ${MANIFEST} (${f.bytes} bytes expected, ${statSync(path).size} found)`;
  }
  return null;
}

export interface RestoreRun {
  id: string;
  created_at: string;
  code_version: string;
  tables: number;
  rows: number;
  files: number;
  /** Newer backups skipped, each with why. */
  skipped: string[];
}

/**
 * Restores the service's warehouse from the newest whole backup (or `id`). Refuses when a
 * warehouse is there, and throws RestoreRefused when no backup is whole or one is newer than this
 * code reads. Returns null when the target holds no backup of the service.
 */
export async function restoreWarehouse(
  settings: Settings,
  service: ServiceName,
  options: { id?: string } = {},
): Promise<RestoreRun | null> {
  const target = targetOf(settings);
  const path = warehouseFileOf(settings, service);
  if (existsSync(path)) throw new Error(`${path} exists: a restore writes only a missing warehouse (move it aside first)`);
  const ids = target.list(service);
  if (options.id && !ids.includes(options.id)) {
    throw new RestoreRefused(`no backup ${options.id} of ${service} at ${target.where} (there are: ${ids.join(', ') || 'none'})`);
  }
  if (ids.length === 0) return null;
  const candidates = options.id ? [options.id] : [...ids].reverse();
  const skipped: string[] = [];
  for (const id of candidates) {
    const m = readManifest(target, service, id);
    if (typeof m === 'string' && m.startsWith('NEWER: ')) {
      // never fall back past a newer backup: what it holds would be lost for good by the next backups
      throw new RestoreRefused(
        `backup ${id} of ${service} at ${target.where} cannot be read by this code: ${m.slice(7)}. ` +
          'Run the pipelines with that code version or newer; nothing was restored.',
      );
    }
    const problem = typeof m === 'string' ? m : await verify(target, service, m);
    if (problem !== null || typeof m === 'string') {
      skipped.push(`${id}: ${problem}`);
      continue;
    }
    const done = await restoreFrom(settings, target, service, m);
    return { ...done, skipped };
  }
  throw new RestoreRefused(
    `no whole backup of ${service} at ${target.where}: ${skipped.join('; ')}. Nothing was restored and the run did not start, ` +
      'so that a fresh warehouse does not replace the history at the next backups. Restore one by hand ' +
      `(npm run restore -- ${service} --backup ID), or start a fresh warehouse with BACKUP_URL unset for one run.`,
  );
}

async function restoreFrom(
  settings: Settings,
  target: BackupTarget,
  service: ServiceName,
  m: BackupManifest,
): Promise<Omit<RestoreRun, 'skipped'>> {
  mkdirSync(settings.warehouseDir, { recursive: true });
  const path = warehouseFileOf(settings, service);
  const building = `${path}.restoring-${randomBytes(4).toString('hex')}`;
  // the segments first (a file no ledger names yet is harmless: removed as uncommitted, or named once the warehouse is in place)
  for (const f of m.files) {
    if (!f.name.startsWith('files/')) continue;
    const relative = f.name.slice('files/'.length);
    const local = join(settings.warehouseDir, relative);
    if (relative === SCHEDULE_STATE_FILE && existsSync(local)) continue; // the scheduler's own is newer
    if (existsSync(local) && (await sha256Of(local)) === f.sha256) continue;
    mkdirSync(join(local, '..'), { recursive: true });
    const tmp = `${local}.restoring-${randomBytes(4).toString('hex')}`;
    copyFileSync(target.read(service, m.id, f.name), tmp);
    renameSync(tmp, local);
  }
  let db: Database | null = null;
  try {
    db = await openDatabase(building);
    const c = db.connection;
    let rows = 0;
    for (const t of m.tables) {
      await c.run(t.create);
      await c.run(`INSERT INTO ${t.table} SELECT * FROM read_parquet(${sqlString(target.read(service, m.id, t.name))})`);
      const [n] = await queryJson(c, `SELECT count(*)::BIGINT AS n FROM ${t.table}`);
      if (Number(n?.n ?? -1) !== t.rows) throw new Error(`${t.table}: ${String(n?.n)} rows restored, the backup says ${t.rows}`);
      rows += t.rows;
    }
    await c.run('CHECKPOINT');
    db.close();
    db = null;
    rmSync(`${path}.wal`, { force: true }); // a log left by a lost warehouse must not be replayed onto this one
    renameSync(building, path);
    return { id: m.id, created_at: m.created_at, code_version: m.code_version, tables: m.tables.length, rows, files: m.files.length };
  } catch (err) {
    db?.close();
    throw err;
  } finally {
    rmSync(building, { force: true });
    rmSync(`${building}.wal`, { force: true });
  }
}

/** Whether the service's warehouse is missing or holds no table (a lost cache, a first run). */
export async function warehouseMissing(settings: Settings, service: ServiceName): Promise<boolean> {
  const path = warehouseFileOf(settings, service);
  if (!existsSync(path)) return true;
  let db: Database;
  try {
    db = await openDatabase(path, { access_mode: 'READ_ONLY' });
  } catch {
    return false; // there but not readable now (another run holds it): the run itself says why
  }
  try {
    const [n] = await queryJson(db.connection, `SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE NOT temporary`);
    return Number(n?.n ?? 0) === 0;
  } finally {
    db.close();
  }
}

/** Restores the warehouse when BACKUP_URL is set and the warehouse is missing or empty; null when nothing was to do. */
export async function restoreIfMissing(settings: Settings, service: ServiceName): Promise<RestoreRun | 'no backup' | null> {
  if (!settings.backupUrl || !(await warehouseMissing(settings, service))) return null;
  if (targetOf(settings).list(service).length === 0) return 'no backup';
  const path = warehouseFileOf(settings, service);
  if (existsSync(path)) {
    // an empty warehouse (a run that made nothing): set aside, never deleted
    renameSync(path, `${path}.empty-${Date.now()}`);
    if (existsSync(`${path}.wal`)) renameSync(`${path}.wal`, `${path}.empty-${Date.now()}.wal`);
  }
  return (await restoreWarehouse(settings, service)) ?? 'no backup';
}

/**
 * The scheduler's state (schedule-state.json) from the newest backup of either service that holds
 * it whole, when the state file is missing; returns the backup it came from, or null.
 */
export async function restoreScheduleState(settings: Settings): Promise<string | null> {
  const local = join(settings.warehouseDir, SCHEDULE_STATE_FILE);
  if (!settings.backupUrl || existsSync(local)) return null;
  const target = targetOf(settings);
  const name = `files/${SCHEDULE_STATE_FILE}`;
  const found: { at: string; path: string; from: string }[] = [];
  for (const service of ['korea', 'analytics'] as const) {
    for (const id of target.list(service).reverse()) {
      const m = readManifest(target, service, id);
      const entry = typeof m === 'object' ? m.files.find((f) => f.name === name) : undefined;
      const path = target.read(service, id, name);
      if (typeof m !== 'object' || !entry || !existsSync(path) || (await sha256Of(path)) !== entry.sha256) continue;
      found.push({ at: m.created_at, path, from: `${service}/${id}` });
      break;
    }
  }
  const newest = found.sort((a, b) => a.at.localeCompare(b.at)).at(-1);
  if (!newest) return null;
  mkdirSync(settings.warehouseDir, { recursive: true });
  const tmp = `${local}.restoring-${randomBytes(4).toString('hex')}`;
  copyFileSync(newest.path, tmp);
  renameSync(tmp, local);
  return newest.from;
}

/** One line for the run table: what a backup wrote. */
export function backupLine(run: BackupRun, where: string): string {
  const mib = (run.bytes / 2 ** 20).toFixed(1);
  return (
    `${run.id} at ${where}: ${run.tables} tables (${run.rows} rows), ${run.files} files` +
    (run.reused ? ` (${run.reused} linked from the previous backup)` : '') +
    `, ${mib} MiB` +
    (run.removed.length ? `; removed ${run.removed.length} past BACKUP_RETENTION` : '')
  );
}

/** One line for the run table: what a restore read. */
export function restoreLine(run: RestoreRun, where: string): string {
  return (
    `the warehouse was missing: restored backup ${run.id} (${run.created_at}, code ${run.code_version}) from ${where}: ` +
    `${run.tables} tables, ${run.rows} rows, ${run.files} files` +
    (run.skipped.length ? `; skipped ${run.skipped.join('; ')}` : '')
  );
}
