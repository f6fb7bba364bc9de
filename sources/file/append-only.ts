/**
 * The append-only file import of the payments (`--source file:DIR`, the transactions table): DIR
 * holds `transactions.csv|parquet` and any number of `transactions-<label>.csv|parquet` (for example
 * `transactions-20261124T1000Z.parquet`); each run imports the files it has not imported before and
 * appends their payments, so dropping a new file into DIR and running again adds it.
 *
 * What the warehouse keeps:
 *   import_ledger        one row per imported file: directory, name, sha256, size and modification
 *                        time, the run (batch) that imported it, its segment and its counts
 *   <warehouse>/analytics-payments/<table>-<batch>-<sha256 prefix>.parquet
 *                        the file's good rows as Parquet with the raw table's columns (a clean
 *                        Parquet file with exactly those columns is copied as it is)
 *   file_payment_keys    the 64-bit key hash(chain, tx_hash) of every payment loaded, so a new file's
 *                        repeats of earlier payments are found without reading the earlier payments
 * The raw table is then a TEMP view over every segment (read_parquet of the list),
 * `new_<raw table>` (new_x402_transactions) a view over this run's segments only: what the run adds,
 * and `<raw table>_by_import` the raw table with the `import_batch` (the ledger's batch) of each
 * row's segment, for steps that read only what runs after a given one imported.
 *
 * Rules:
 * - A file is known by name. One whose size and modification time match its ledger row is not
 *   read again; otherwise its sha256 decides: the same bytes are the same file, other bytes are a
 *   changed file, which is refused (imports are append-only: new payments go in a new file).
 *   A file with another name but the bytes of an imported file is skipped as a copy.
 * - A payment (chain, tx_hash) repeated from an earlier file is a reject of the later file
 *   ('tx_hash: duplicate within chain'), as a repeat within one file is: the first one loads.
 * - Files import in name order, `transactions` first, each in its own transaction with its ledger
 *   row, so a failure keeps every file imported before it; the files after a failed one wait for
 *   the next run. A segment written by a run that died before its commit is removed.
 * - The warehouse mirrors one directory: a run from another directory starts a new payment history
 *   (the ledger, keys and segments of the old one are removed) and says so on the run log.
 */
import { copyFileSync, existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { queryJson, sqlString } from '../../lib/duckdb.ts';
import type { IngestContext } from '../contract.ts';
import type { RawTable } from '../raw-tables.ts';
import {
  createSegmentViews,
  dropSegmentViews,
  insertLedgerRow,
  LEDGER_DDL,
  nextBatch,
  readLedger,
  removeUncommitted,
  segmentsDirOf,
  segmentsView,
  sha256OfFile,
} from '../segments.ts';

/** Keys loaded before: `keys` has a column `key` (the hash of the unique columns), `rows` the unique columns. */
export interface SeenKeys {
  keys: string;
  rows: string;
}

export interface LoadedFile {
  format: 'csv' | 'parquet';
  loaded: number;
  rejected: number;
  /**
   * The file's rows are the raw table's as they are (Parquet, every column under its own name,
   * nothing rejected or changed, numbers and times in types a plain cast turns into the raw ones).
   */
  identity: boolean;
  ignored: string[];
  notes: string[];
}

export interface AppendTable {
  name: string;
  raw: RawTable;
  unique?: { columns: readonly string[]; reason: string };
}

/** The one-file import of analytics-files.ts that this module drives. */
export interface FileImport {
  /** Validates `path` into the relation `table.raw.name`, rejects into import_rejects; inside the caller's transaction. */
  load(c: DuckDBConnection, path: string, table: AppendTable, seen?: SeenKeys): Promise<LoadedFile>;
  dropScratch(c: DuckDBConnection): Promise<void>;
  /** An error naming the file. */
  fileError(path: string, err: unknown): Error;
}

export { SEGMENTS_DIR } from '../segments.ts';

const KEYS = `CREATE TABLE IF NOT EXISTS file_payment_keys (key UBIGINT)`;
/** Where one file is validated before it is appended. */
const STAGING = 'import_new';

interface Candidate {
  name: string;
  path: string;
  bytes: number;
  mtimeMs: number;
}

/** The files of DIR for `name`, in import order: `<name>.<ext>` first, then `<name>-<label>.<ext>` by name. */
export function appendFiles(dir: string, name: string): { files: Candidate[]; problems: string[] } {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new Error(
      `${dir}: directory not found (--source file:DIR reads services, transactions and optionally funding and exchange_wallets as .csv or .parquet)`,
    );
  }
  const pattern = new RegExp(`^(${name}(?:-[A-Za-z0-9._-]+)?)\\.(csv|parquet)$`);
  const byStem = new Map<string, string[]>();
  for (const entry of readdirSync(dir)) {
    const m = pattern.exec(entry);
    if (!m) continue;
    byStem.set(m[1]!, [...(byStem.get(m[1]!) ?? []), entry]);
  }
  const problems: string[] = [];
  const files: Candidate[] = [];
  const stems = [...byStem.keys()].sort((a, b) => (a === name ? -1 : b === name ? 1 : a < b ? -1 : a > b ? 1 : 0));
  for (const stem of stems) {
    const entries = byStem.get(stem)!.sort();
    if (entries.length > 1) {
      problems.push(`${entries.map((e) => join(dir, e)).join(' and ')}: both present; keep one ${stem} file, .csv or .parquet`);
      continue;
    }
    const path = join(dir, entries[0]!);
    const st = statSync(path);
    if (!st.isFile()) continue;
    files.push({ name: entries[0]!, path, bytes: st.size, mtimeMs: st.mtimeMs });
  }
  return { files, problems };
}

const columnsOf = (table: AppendTable) => table.raw.columns.map(([c]) => c).filter((c) => c !== 'source');

/**
 * Imports DIR's new files for an append-only table and (re)creates its raw table as a view over
 * every imported file. Returns the payments the raw table holds. Throws, after the view is in
 * place over what is imported, when a file could not be imported (changed, unreadable, both .csv
 * and .parquet present).
 */
export async function importAppendOnly(ctx: IngestContext, dir: string, table: AppendTable, files: FileImport): Promise<number> {
  const c = ctx.connection;
  if (!ctx.warehouseDir) {
    throw new Error(
      `${table.name}: the file import keeps imported payments beside the warehouse file (WAREHOUSE_DIR); an in-memory warehouse has no directory for them`,
    );
  }
  const segmentsDir = segmentsDirOf(ctx.warehouseDir);
  const tableName = sqlString(table.raw.name);
  const absolute = resolve(dir);
  await c.run(LEDGER_DDL);
  await c.run(KEYS);
  await dropSegmentViews(c, table.raw); // and the copy a warehouse of an older version kept
  // the report lists this run's files; the rejects of files imported before stay with them
  await c.run(`DELETE FROM import_files WHERE table_name = ${tableName}`);
  await c.run(`DELETE FROM import_rejects WHERE starts_with(file, ${sqlString(join(absolute, table.name))})
    AND file NOT IN (SELECT dir || '/' || file_name FROM import_ledger)`);

  const { files: found, problems } = appendFiles(absolute, table.name);
  let ledger = await readLedger(c, table.raw.name);
  const previousDir = ledger[0]?.dir;
  if (previousDir !== undefined && previousDir !== absolute) {
    ctx.log(
      `${table.name}: this warehouse imported from another directory before (${ledger.length} files); ${absolute} starts a new payment history`,
    );
    await c.run('BEGIN TRANSACTION');
    await c.run(
      `DELETE FROM import_rejects WHERE file IN (SELECT dir || '/' || file_name FROM import_ledger WHERE table_name = ${tableName})`,
    );
    await c.run(`DELETE FROM import_ledger WHERE table_name = ${tableName}`);
    await c.run(`DELETE FROM file_payment_keys`);
    await c.run('COMMIT');
    ledger = [];
  }
  // segments of a run that died before its commit
  removeUncommitted(segmentsDir, table.name, new Set(ledger.map((l) => l.segment)));
  if (found.length === 0 && ledger.length === 0 && problems.length === 0) {
    throw new Error(
      `${join(absolute, table.name)}.csv or .parquet: not found (the ${table.name} file is required; later payments may come as ${table.name}-<label>.csv or .parquet)`,
    );
  }

  const byName = new Map(ledger.map((l) => [l.file_name, l]));
  const bySha = new Map(ledger.map((l) => [l.sha256, l]));
  const fresh: (Candidate & { sha256: string })[] = [];
  for (const f of found) {
    const before = byName.get(f.name);
    if (before && Number(before.bytes) === f.bytes && Number(before.mtime_ms) === f.mtimeMs) continue;
    const sha256 = await sha256OfFile(f.path);
    if (before) {
      if (before.sha256 !== sha256) {
        problems.push(
          `${f.path}: changed since it was imported (${before.imported_at}; sha256 ${before.sha256.slice(0, 12)}… then, ${sha256.slice(0, 12)}… now): ` +
            `imports are append-only, so it was not read again; put new payments in a new ${table.name}-<label> file ` +
            `(a new directory starts a new payment history)`,
        );
      }
      continue;
    }
    const copy = bySha.get(sha256) ?? fresh.find((x) => x.sha256 === sha256);
    if (copy) {
      ctx.log(`${f.path}: the same bytes as ${'file_name' in copy ? copy.file_name : copy.name}, imported already: skipped`);
      continue;
    }
    fresh.push({ ...f, sha256 });
  }

  const batch = await nextBatch(c);
  const segments = ledger.map((l) => join(segmentsDir, l.segment));
  const added: string[] = [];
  let loadedNow = 0;
  const staging: AppendTable = { ...table, raw: { ...table.raw, name: STAGING } };
  for (const f of fresh) {
    const segmentName = `${table.name}-${String(batch).padStart(6, '0')}-${f.sha256.slice(0, 16)}.parquet`;
    const segment = join(segmentsDir, segmentName);
    await c.run(`CREATE OR REPLACE TEMP VIEW import_earlier AS ${segmentsView(table.raw, segments, 'file')}`);
    await c.run(`DROP VIEW IF EXISTS temp.${STAGING}`);
    await c.run('BEGIN TRANSACTION');
    try {
      const seen = segments.length > 0 ? { keys: 'file_payment_keys', rows: 'import_earlier' } : undefined;
      const loaded = await files.load(c, f.path, staging, seen);
      const columns = columnsOf(table).join(', ');
      if (loaded.identity && loaded.ignored.length === 0) copyFileSync(f.path, segment);
      else await c.run(`COPY (SELECT ${columns} FROM ${STAGING}) TO ${sqlString(segment)} (FORMAT parquet, COMPRESSION zstd)`);
      const key = (table.unique?.columns ?? []).join(', ');
      if (key) await c.run(`INSERT INTO file_payment_keys SELECT hash(${key}) FROM read_parquet(${sqlString(segment)})`);
      await insertLedgerRow(c, {
        dir: absolute,
        fileName: f.name,
        table: table.raw.name,
        sha256: f.sha256,
        bytes: f.bytes,
        mtimeMs: f.mtimeMs,
        batch,
        segment: segmentName,
        read: loaded.loaded + loaded.rejected,
        loaded: loaded.loaded,
        rejected: loaded.rejected,
        importedAt: ctx.now,
      });
      await c.run(
        `INSERT INTO import_files VALUES (${sqlString(f.path)}, ${tableName}, ${sqlString(loaded.format)},
          ${loaded.loaded + loaded.rejected}, ${loaded.loaded}, ${loaded.rejected}, ${sqlList(loaded.ignored)}, ${sqlList(loaded.notes)})`,
      );
      await c.run(`DROP VIEW IF EXISTS temp.${STAGING}`);
      await c.run(`DROP TABLE IF EXISTS ${STAGING}`);
      await files.dropScratch(c);
      await c.run('COMMIT');
      segments.push(segment);
      added.push(segment);
      loadedNow += loaded.loaded;
      ctx.log(
        `${f.path}: ${loaded.loaded} rows loaded, ${loaded.rejected} rejected (see import_rejects)${loaded.notes.length ? '; ' + loaded.notes.join('; ') : ''}`,
      );
    } catch (err) {
      await c.run('ROLLBACK').catch(() => undefined);
      rmSync(segment, { force: true });
      const later = fresh.slice(fresh.indexOf(f) + 1).map((x) => x.name);
      problems.push(files.fileError(f.path, err).message + (later.length ? ` (not imported yet, after it: ${later.join(', ')})` : ''));
      break;
    }
  }
  await c.run(`DROP VIEW IF EXISTS temp.import_earlier`);

  if (segments.length > 0 || problems.length === 0) {
    const all = [
      ...ledger.map((l) => ({ batch: Number(l.batch), path: join(segmentsDir, l.segment) })),
      ...added.map((path) => ({ batch, path })),
    ];
    await createSegmentViews(c, table.raw, 'file', all, added);
  }
  const [total] = await queryJson(
    c,
    `SELECT coalesce(sum(rows_loaded), 0)::BIGINT AS n FROM import_ledger WHERE table_name = ${tableName}`,
  );
  const payments = Number(total?.n ?? 0);
  ctx.log(
    `${table.name}: ${fresh.length === 0 ? 'no new file' : `${added.length} new file(s), ${loadedNow} payments added`}; ` +
      `${segments.length} file(s) imported in all, ${payments} payments`,
  );
  if (problems.length > 0) throw new Error(problems.join('; '));
  return payments;
}

/** A VARCHAR[] literal of `values` (the import's report columns). */
export function sqlList(values: readonly string[]): string {
  return `[${values.map(sqlString).join(', ')}]::VARCHAR[]`;
}
