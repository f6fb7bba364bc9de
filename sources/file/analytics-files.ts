/**
 * The file import of the analytics pipeline (`--source file:DIR`): researchers bring their own
 * x402 data as CSV or Parquet and the pipeline runs on it as on the demo world.
 *
 * DIR holds `services`, `transactions` and optionally `funding` and `exchange_wallets`, each as
 * `<name>.csv` (UTF-8, comma-separated, a header row, RFC 4180 double quotes) or `<name>.parquet`.
 * Column names match case-insensitively; other columns are ignored and listed in the report.
 *
 * | file | required columns | optional columns (may be absent or empty) |
 * |---|---|---|
 * | services | chain, seller_address, resource_url, first_seen | name, description, category, price_amount |
 * | transactions | tx_hash, chain, buyer, seller_address, amount, time | resource_url, facilitator |
 * | funding | address, funder, amount, time | |
 * | exchange_wallets | address | name |
 * | probes | resource_url, probed_at, outcome | method, status, ttfb_ms, total_ms, redirects, error, x402_version, offers, bazaar |
 *
 * - chain: base | solana | polygon | arbitrum (case-insensitive). Addresses: EVM `0x` + 40 hex
 *   (stored lowercase), Solana base58 of 32–44 characters (case kept). Funding has no chain
 *   column, so its addresses may be either kind.
 * - time, first_seen: ISO 8601 `YYYY-MM-DDTHH:MM:SS[.fraction]` with `Z` or an offset (`±HH`,
 *   `±HHMM`, `±HH:MM`; `T` may be a space, as RFC 3339 allows), converted to UTC; or a date
 *   `YYYY-MM-DD` (midnight UTC). A Parquet DATE or TIMESTAMP column is taken as UTC.
 * - amount, price_amount: a decimal number (exponent allowed: CSV writers print 1e-05), not
 *   negative. price_amount may be empty (unknown price). A Parquet number column is used as is.
 * - category: empty (the pipeline assigns one) or one of the 33 slugs of catalog/categories.ts.
 * - Leading and trailing spaces are trimmed; an empty value is a missing one (NULL). tx_hash is
 *   kept as given; a facilitator that is an EVM address is lowercased, other values are kept.
 * - A (chain, tx_hash), in services a (chain, resource_url), in exchange_wallets an address seen
 *   again is a reject; the first row in file order loads.
 * - exchange_wallets lists exchange (CEX) hot wallets: the classifier does not take wallets funded
 *   by the same exchange for one operator's cohort. Without the file the list is empty.
 * - probes are unpaid probes of the resources (x402_probes in raw-tables.ts, what the demo export
 *   writes): outcome one of the prober's outcomes; status, redirects, x402_version whole numbers;
 *   ttfb_ms, total_ms decimals; offers a JSON array; bazaar true/false/1/0. Without the file no
 *   service has a trust grade (not enough evidence).
 *
 * Every row that cannot be loaded is written to `import_rejects(file, line, reason, value)` with
 * one of REJECT_REASONS; nothing is dropped silently and a bad row never stops the run. `line` is
 * the physical line of the row's start in a CSV (header = 1; quoted fields spanning lines and
 * blank lines are counted) and the 1-based row number in a Parquet file. A CSV line opening a
 * quote that no well-formed record closes is rejected alone; if the file's data rows are not all
 * loaded or rejected, the step fails naming the file and the counts. A file that cannot be
 * read at all (missing required columns, unreadable, both .csv and .parquet present) fails its
 * step with a message naming the file; a missing funding or exchange_wallets file leaves its table
 * empty.
 * `import_files` keeps the per-file counts that importReport() returns. Validation is set-based
 * DuckDB SQL, one pass over the file; rejects are the exception path. A CSV is parsed once into
 * the raw table. A Parquet file is read in place: the raw table is a TEMP view over the file (for
 * this run) that skips the rows in import_rejects and normalises only the columns where some
 * value needs it, so ten million clean payments are validated in one scan and never copied.
 */
import { closeSync, existsSync, mkdtempSync, openSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { ANALYTICS_CHAINS, CATEGORY_SLUGS } from '../../catalog/categories.ts';
import { createTableSql, queryJson, sqlString } from '../../lib/duckdb.ts';
import type { IngestContext, IngestStep } from '../contract.ts';
import { PROBE_OUTCOMES, RAW_TABLES, type RawTable } from '../raw-tables.ts';
import { importAppendOnly, sqlList, type FileImport, type LoadedFile, type SeenKeys } from './append-only.ts';

// ------------------------------------------------------------------------------ file layout

type ColumnKind =
  | 'chain' // one of ANALYTICS_CHAINS
  | 'chainAddress' // an address valid for the row's chain
  | 'anyAddress' // EVM or Solana (funding rows carry no chain)
  | 'facilitator'
  | 'text'
  | 'category'
  | 'amount' // decimal, not negative
  | 'count' // integer, not negative
  | 'flag' // true or false (1 or 0)
  | 'json' // JSON text
  | 'outcome' // one of the prober's outcomes (sources/live/analytics/prober.ts)
  | 'time';

interface FileColumn {
  name: string;
  kind: ColumnKind;
  /** Required columns must be in the file and non-empty in every row; optional ones may be absent. */
  required: boolean;
}

interface FileTable {
  /** File name without extension. */
  name: 'services' | 'transactions' | 'funding' | 'exchange_wallets' | 'probes';
  raw: RawTable;
  /** A missing optional file leaves its raw table empty. */
  optional: boolean;
  /** What an empty table means for the run, added to the note of a missing optional file. */
  whenAbsent?: string;
  /** In raw-table order (the raw table adds `source`). */
  columns: readonly FileColumn[];
  /** Later rows repeating these values (after normalising) are rejected; the first one loads. */
  unique?: { columns: readonly string[]; reason: string };
  /**
   * Imported once per file and kept (appendOnly.ts): DIR may hold `<name>.<ext>` and any number of
   * `<name>-<label>.<ext>`; each run imports the files not imported before and appends their rows.
   */
  appendOnly?: boolean;
}

const col = (name: string, kind: ColumnKind, required = true): FileColumn => ({ name, kind, required });

const FILE_TABLES: readonly FileTable[] = [
  {
    name: 'services',
    raw: RAW_TABLES.x402_services,
    optional: false,
    columns: [
      col('chain', 'chain'),
      col('seller_address', 'chainAddress'),
      col('resource_url', 'text'),
      col('name', 'text', false),
      col('description', 'text', false),
      col('category', 'category', false),
      col('price_amount', 'amount', false),
      col('first_seen', 'time'),
    ],
    // the service registry and the services index key a service by (chain, resource_url)
    unique: { columns: ['chain', 'resource_url'], reason: 'resource_url: duplicate within chain' },
  },
  {
    name: 'transactions',
    raw: RAW_TABLES.x402_transactions,
    optional: false,
    columns: [
      col('tx_hash', 'text'), // kept as given: lowercasing every hash costs more than a rare mixed-case file is worth
      col('chain', 'chain'),
      col('buyer', 'chainAddress'),
      col('seller_address', 'chainAddress'),
      col('amount', 'amount'),
      col('time', 'time'),
      col('resource_url', 'text', false),
      col('facilitator', 'facilitator', false),
    ],
    unique: { columns: ['chain', 'tx_hash'], reason: 'tx_hash: duplicate within chain' },
    appendOnly: true,
  },
  {
    name: 'funding',
    raw: RAW_TABLES.wallet_funding,
    optional: true,
    columns: [col('address', 'anyAddress'), col('funder', 'anyAddress'), col('amount', 'amount'), col('time', 'time')],
  },
  {
    name: 'exchange_wallets',
    raw: RAW_TABLES.exchange_wallets,
    optional: true,
    whenAbsent: 'no exchange-wallet labels for this source: wallets funded by a shared exchange may cluster together',
    columns: [col('address', 'anyAddress'), col('name', 'text', false)],
    unique: { columns: ['address'], reason: 'address: duplicate' },
  },
  {
    name: 'probes',
    raw: RAW_TABLES.x402_probes,
    optional: true,
    whenAbsent: 'no probes for this source: every service without a trust grade (not enough evidence)',
    columns: [
      col('resource_url', 'text'),
      col('probed_at', 'time'),
      col('method', 'text', false),
      col('outcome', 'outcome'),
      col('status', 'count', false),
      col('ttfb_ms', 'amount', false),
      col('total_ms', 'amount', false),
      col('redirects', 'count', false),
      col('error', 'text', false),
      col('x402_version', 'count', false),
      col('offers', 'json', false),
      col('bazaar', 'flag', false),
    ],
  },
];

// Regular expressions (RE2, matched against the whole trimmed value).
const EVM_ADDRESS = '0x[0-9a-fA-F]{40}';
const EVM_ADDRESS_LOWER = '0x[0-9a-f]{40}';
const SOLANA_ADDRESS = '[1-9A-HJ-NP-Za-km-z]{32,44}';
const DECIMAL = '[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+)?';
const ISO_DATE = '[0-9]{4}-[0-9]{2}-[0-9]{2}';
const ISO_OFFSET = '[+-](0[0-9]|1[0-4])(:?[0-5][0-9])?';
const ISO_TIMESTAMP = `${ISO_DATE}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|${ISO_OFFSET})`;
const ISO_TIMESTAMP_ANY_CASE = `${ISO_DATE}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?([Zz]|${ISO_OFFSET})`;

/** Reasons a CSV row is not even parsed (DuckDB's reader error types). */
const READER_REASONS: Readonly<Record<string, string>> = {
  'TOO MANY COLUMNS': 'row: too many fields',
  'MISSING COLUMNS': 'row: too few fields',
  'UNQUOTED VALUE': 'row: malformed quoting',
  'INVALID ENCODING': 'row: not UTF-8',
  'LINE SIZE OVER MAXIMUM': 'row: line too long',
};
const READER_OTHER = 'row: unreadable';

const reason = {
  missing: (c: string) => `${c}: missing`,
  unknownChain: 'chain: unknown chain',
  addressForChain: (c: string) => `${c}: malformed address for chain`,
  address: (c: string) => `${c}: malformed address`,
  notDecimal: (c: string) => `${c}: not a decimal number`,
  negative: (c: string) => `${c}: negative`,
  time: (c: string) => `${c}: not ISO 8601 with Z or offset, or a date`,
  category: 'category: not one of the 33 categories',
  notCount: (c: string) => `${c}: not a whole number of at least 0`,
  notFlag: (c: string) => `${c}: not true, false, 1 or 0`,
  notJson: (c: string) => `${c}: not JSON`,
  outcome: 'outcome: not one of the prober outcomes',
};

/** Every reason `import_rejects` can hold, for documentation and tests. */
export const REJECT_REASONS: readonly string[] = [
  ...Object.values(READER_REASONS),
  READER_OTHER,
  ...new Set(
    FILE_TABLES.flatMap((table) => [
      ...table.columns.flatMap((c) => {
        const out = c.required ? [reason.missing(c.name)] : [];
        if (c.kind === 'chain') out.push(reason.unknownChain);
        if (c.kind === 'chainAddress') out.push(reason.addressForChain(c.name));
        if (c.kind === 'anyAddress') out.push(reason.address(c.name));
        if (c.kind === 'amount') out.push(reason.notDecimal(c.name), reason.negative(c.name));
        if (c.kind === 'time') out.push(reason.time(c.name));
        if (c.kind === 'category') out.push(reason.category);
        if (c.kind === 'count') out.push(reason.notCount(c.name));
        if (c.kind === 'flag') out.push(reason.notFlag(c.name));
        if (c.kind === 'json') out.push(reason.notJson(c.name));
        if (c.kind === 'outcome') out.push(reason.outcome);
        return out;
      }),
      ...(table.unique ? [table.unique.reason] : []),
    ]),
  ),
];

// --------------------------------------------------------------------------------- the steps

/** One ingest step per raw table, reading DIR/<name>.csv or DIR/<name>.parquet. */
export function fileIngestSteps(dir: string): IngestStep[] {
  return FILE_TABLES.map((table) => ({
    name: `ingest:${table.raw.name}`,
    tables: [table.raw.name],
    run: (ctx: IngestContext) => importTable(ctx, dir, table),
  }));
}

/** Reports the import's rejected rows (with line numbers) on the run's log; returns how many there are. */
export const importReportStep: IngestStep = {
  name: 'ingest:import_report',
  tables: [],
  async run(ctx) {
    let rejected = 0;
    for (const file of await importReport(ctx.connection)) {
      rejected += file.rows_rejected;
      if (file.rows_rejected === 0) continue;
      ctx.log(`${file.file}: ${file.rows_rejected} of ${file.rows_read} rows rejected`);
      for (const r of file.first_rejects) ctx.log(`  line ${r.line}: ${r.reason}${r.value ? ` (${r.value})` : ''}`);
      if (file.rows_rejected > file.first_rejects.length) ctx.log(`  … all of them are in the warehouse table import_rejects`);
    }
    return rejected;
  },
};

export interface ImportReject {
  line: number;
  reason: string;
  value: string | null;
}

export interface ImportFileReport {
  file: string;
  table: string;
  /** NULL when an optional file was absent. */
  format: 'csv' | 'parquet' | null;
  rows_read: number;
  rows_loaded: number;
  rows_rejected: number;
  /** Columns of the file that the import does not know and did not read. */
  ignored_columns: string[];
  notes: string[];
  /** Up to 20, in line order; all of them are in the warehouse table import_rejects. */
  first_rejects: ImportReject[];
}

const REPORT_TABLES = {
  files: `CREATE TABLE IF NOT EXISTS import_files (file VARCHAR, table_name VARCHAR, format VARCHAR,
    rows_read BIGINT, rows_loaded BIGINT, rows_rejected BIGINT, ignored_columns VARCHAR[], notes VARCHAR[])`,
  rejects: `CREATE TABLE IF NOT EXISTS import_rejects (file VARCHAR, line BIGINT, reason VARCHAR, value VARCHAR)`,
};

/** Per-file counts and the first rejects of the last file import, in table order. */
export async function importReport(connection: DuckDBConnection): Promise<ImportFileReport[]> {
  const [exists] = await queryJson(
    connection,
    `SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE NOT temporary AND table_name IN ('import_files', 'import_rejects')`,
  );
  if (Number(exists?.n ?? 0) < 2) return [];
  const files = await queryJson(connection, `SELECT * FROM import_files`);
  const rejects = await queryJson(
    connection,
    `SELECT file, line, reason, value FROM (
       SELECT *, row_number() OVER (PARTITION BY file ORDER BY line, reason) AS k FROM import_rejects
     ) WHERE k <= 20 ORDER BY file, line, reason`,
  );
  const order = (tableName: unknown) => FILE_TABLES.findIndex((t) => t.raw.name === tableName);
  return files
    .sort((a, b) => order(a.table_name) - order(b.table_name))
    .map((f) => ({
      file: String(f.file),
      table: String(f.table_name),
      format: f.format === 'csv' || f.format === 'parquet' ? f.format : null,
      rows_read: Number(f.rows_read),
      rows_loaded: Number(f.rows_loaded),
      rows_rejected: Number(f.rows_rejected),
      ignored_columns: stringList(f.ignored_columns),
      notes: stringList(f.notes),
      first_rejects: rejects
        .filter((r) => r.file === f.file)
        .map((r) => ({ line: Number(r.line), reason: String(r.reason), value: r.value === null ? null : String(r.value) })),
    }));
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

// ------------------------------------------------------------------------------- one table

interface SourceFile {
  path: string;
  format: 'csv' | 'parquet';
  /** The file's columns with their DuckDB types (all VARCHAR for CSV). */
  columns: { name: string; type: string }[];
}

/** Where a bad row's position, reason and value wait in the raw table until they move to import_bad. */
const SCRATCH_COLUMNS: RawTable['columns'] = [
  ['import_pos', 'BIGINT'],
  ['import_reason', 'VARCHAR'],
  ['import_value', 'VARCHAR'],
];

const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

async function importTable(ctx: IngestContext, dir: string, table: FileTable): Promise<number> {
  const c = ctx.connection;
  for (const sql of Object.values(REPORT_TABLES)) await c.run(sql);
  if (table.appendOnly) return importAppendOnly(ctx, dir, table, fileImport);
  // this table's report is replaced whatever happens next, so a failed import leaves no stale one
  await c.run(`DELETE FROM import_rejects WHERE file IN (SELECT file FROM import_files WHERE table_name = ${sqlString(table.raw.name)})`);
  await c.run(`DELETE FROM import_files WHERE table_name = ${sqlString(table.raw.name)}`);

  const path = locateFile(dir, table);
  if (path === null) {
    const note = `no ${table.name}.csv or ${table.name}.parquet (optional): ${table.raw.name} is empty${table.whenAbsent ? `; ${table.whenAbsent}` : ''}`;
    await c.run(createTableSql(table.raw));
    await c.run(
      `INSERT INTO import_files VALUES (${sqlString(join(dir, table.name))}, ${sqlString(table.raw.name)}, NULL, 0, 0, 0, [], ${sqlList([note])})`,
    );
    ctx.log(`${dir}: ${note}`);
    return 0;
  }
  await c.run(`DROP VIEW IF EXISTS temp.${table.raw.name}`);
  await c.run('BEGIN TRANSACTION');
  try {
    const loaded = await loadFile(c, path, table);
    await c.run(
      `INSERT INTO import_files VALUES (${sqlString(path)}, ${sqlString(table.raw.name)}, ${sqlString(loaded.format)},
        ${loaded.loaded + loaded.rejected}, ${loaded.loaded}, ${loaded.rejected}, ${sqlList(loaded.ignored)}, ${sqlList(loaded.notes)})`,
    );
    await dropScratch(c);
    await c.run('COMMIT');
    ctx.log(
      `${path}: ${loaded.loaded} rows loaded, ${loaded.rejected} rejected (see import_rejects)${loaded.notes.length ? '; ' + loaded.notes.join('; ') : ''}`,
    );
    return loaded.loaded;
  } catch (err) {
    await c.run('ROLLBACK').catch(() => undefined);
    throw fileError(path, err);
  }
}

function fileError(path: string, err: unknown): Error {
  const message = err instanceof Error ? err.message : String(err);
  return new Error(message.startsWith(path) ? message : `${path}: ${firstLine(message)}`);
}

/**
 * Validates one file into the relation `table.raw.name` (a TEMP view over a Parquet file, a table
 * parsed from a CSV), its rejects into import_rejects. With `seen`, rows whose unique key is
 * already in that relation (payments of files imported before) are rejects too. Runs inside the
 * caller's transaction.
 */
async function loadFile(c: DuckDBConnection, path: string, table: FileTable, seen?: SeenKeys): Promise<LoadedFile> {
  const source = await describeSource(c, path);
  const { present, ignored, absentOptional } = matchColumns(source, table);
  const notes: string[] = [];
  if (ignored.length > 0) notes.push(`ignored extra column(s): ${ignored.join(', ')}`);
  if (absentOptional.length > 0) notes.push(`optional column(s) absent, loaded as NULL: ${absentOptional.join(', ')}`);
  await dropScratch(c);
  const counts =
    source.format === 'parquet'
      ? await parquetView(c, path, source, table, present, judgedSql(source, table, present), seen)
      : { ...(await csvTable(c, source, table, present, seen)), identity: false };
  return { format: source.format, ignored, notes, ...counts };
}

/** The one-file import, as the append-only import (append-only.ts) uses it. */
const fileImport: FileImport = {
  load: async (c, path, table, seen) => loadFile(c, path, table as FileTable, seen),
  dropScratch: (c) => dropScratch(c),
  fileError,
};

interface ImportCounts {
  loaded: number;
  rejected: number;
}

/**
 * A CSV is parsed once into the raw table: every row is written with, for the bad ones, its
 * position and reason in three scratch columns; then the bad rows move to import_bad and the
 * scratch columns are dropped. Writing each row once is what keeps a large import fast.
 */
async function csvTable(
  c: DuckDBConnection,
  source: SourceFile,
  table: FileTable,
  present: Map<string, { name: string; type: string }>,
  seen?: SeenKeys,
): Promise<ImportCounts> {
  const path = source.path;
  const layout = scanCsvLines(path, source.columns.length);
  const repairDir = layout.malformed.length > 0 ? mkdtempSync(join(tmpdir(), 'csv-import-')) : null;
  try {
    // a line that opens a quote no well-formed record closes is rejected on its own and read as a
    // blank line: DuckDB's parallel reader would otherwise drop the rest of its chunk (thousands of
    // good rows) behind one "unterminated quote" error
    const parsePath = repairDir ? writeWithoutLines(path, join(repairDir, 'repaired.csv'), layout.malformed) : path;
    return await parseCsv(c, path, table, judgedSql({ ...source, path: parsePath }, table, present), layout, seen);
  } finally {
    if (repairDir) rmSync(repairDir, { recursive: true, force: true });
  }
}

async function parseCsv(
  c: DuckDBConnection,
  path: string,
  table: FileTable,
  judged: string,
  layout: CsvLayout,
  seen?: SeenKeys,
): Promise<ImportCounts> {
  // (CREATE TABLE AS rather than INSERT into an empty table: DuckDB's batch CTAS path measured cheaper)
  const raw = table.raw.name;
  const declared = [...table.raw.columns, ...SCRATCH_COLUMNS].map(([name, type]) => `CAST(${name} AS ${type}) AS ${name}`);
  const [inserted] = await queryJson(
    c,
    `CREATE OR REPLACE TABLE ${raw} AS
     SELECT ${declared.join(', ')}
       FROM (SELECT *, 'file' AS source, CASE WHEN reason IS NOT NULL THEN pos END AS import_pos,
                    reason AS import_reason, reject_value AS import_value
               FROM (${judged}))`,
  );
  const returned = Number(inserted?.Count ?? 0);
  const [errors] = await queryJson(c, `SELECT count(DISTINCT line)::BIGINT AS n FROM import_csv_errors`);
  const readerRejects = Number(errors?.n ?? 0);
  // every data row of the file is loaded or rejected: anything else is a reader fault, and a
  // partial import must not pass for a complete one
  if (returned + readerRejects !== layout.records) {
    throw new Error(
      `${path}: ${layout.records} data rows in the file but ${returned} read and ${readerRejects} unreadable: ` +
        `${layout.records - returned - readerRejects} rows unaccounted for, nothing imported`,
    );
  }
  await c.run(`CREATE TEMP TABLE import_bad AS
    SELECT import_pos AS pos, import_reason AS reason, import_value AS reject_value FROM ${raw} WHERE import_reason IS NOT NULL`);
  await c.run(`DELETE FROM ${raw} WHERE import_reason IS NOT NULL`);
  for (const [name] of SCRATCH_COLUMNS) await c.run(`ALTER TABLE ${raw} DROP COLUMN ${name}`);
  if (table.unique) await removeDuplicates(c, table, table.unique, judged);
  if (table.unique && seen) await removeSeen(c, table, table.unique, judged, seen);
  await csvRejects(c, path, layout);
  const [counts] = await queryJson(
    c,
    `SELECT (SELECT count(*) FROM ${raw})::BIGINT AS loaded, (SELECT count(*) FROM import_bad)::BIGINT AS rejected`,
  );
  return {
    loaded: Number(counts?.loaded ?? 0),
    rejected: Number(counts?.rejected ?? 0) + readerRejects + layout.malformed.length,
  };
}

/**
 * A Parquet file is read in place: one pass over it counts the rows, the bad ones, the repeated
 * keys and the columns whose values the import would change (trimmed, lowercased, converted);
 * the raw table is then a TEMP view over the file that reads the good rows (the file's rows
 * minus its rows in import_rejects) and normalises only the columns that need it. A clean file
 * of ten million payments is thus validated in one scan and never copied; only the rare bad or
 * repeated rows cost further scans, to list them in import_rejects.
 */
async function parquetView(
  c: DuckDBConnection,
  path: string,
  source: SourceFile,
  table: FileTable,
  present: Map<string, { name: string; type: string }>,
  judged: string,
  seen?: SeenKeys,
): Promise<ImportCounts & { identity: boolean }> {
  const typeOf = new Map<string, string>(table.raw.columns);
  const columns = table.columns.map((k) => ({ k, found: present.get(k.name), type: typeOf.get(k.name)! }));
  // text columns whose value as the file has it may differ from the value loaded
  const compared = columns.filter((x) => x.found && x.type === 'VARCHAR');
  const unique = table.unique;
  const [scan] = await queryJson(
    c,
    `SELECT count(*)::BIGINT AS rows_read,
            count(reason)::BIGINT AS rejected,
            ${unique ? `count(DISTINCT hash(${unique.columns.join(', ')})) FILTER (WHERE reason IS NULL)::BIGINT` : 'NULL::BIGINT'} AS distinct_keys,
            -- one bit per compared column, set when the import changes a good row's value
            ${compared.length === 0 ? '0' : `coalesce(bit_or(CASE WHEN reason IS NULL THEN ${compared.map((x, i) => `((raw_${x.k.name} IS DISTINCT FROM ${x.k.name})::INTEGER << ${i})`).join(' | ')} END), 0)`} AS changes
       FROM (${judged})`,
  );
  const rowsRead = Number(scan?.rows_read ?? 0);
  let rejected = Number(scan?.rejected ?? 0);
  if (rejected > 0) {
    await c.run(
      `INSERT INTO import_rejects SELECT ${sqlString(path)}, pos, reason, reject_value FROM (${judged}) WHERE reason IS NOT NULL`,
    );
  }
  // fewer distinct key hashes than good rows: repeats (or, once in billions of runs, a hash collision)
  if (unique && Number(scan?.distinct_keys ?? 0) < rowsRead - rejected) {
    rejected += await parquetDuplicates(c, path, unique, judged);
  }
  if (unique && seen) rejected += await parquetSeen(c, path, unique, judged, seen);
  const changed = Number(scan?.changes ?? 0);
  const changes = new Set(compared.filter((_, i) => (changed & (1 << i)) !== 0).map((x) => x.k.name));
  // the file's rows are the raw table's as they are, up to a plain cast to the raw type: same
  // names, nothing rejected or changed, numbers and times in types the view casts as the import
  // does (a TIMESTAMPTZ is converted, not cast: not plain)
  const plainCast = (k: FileColumn, found: { type: string }, type: string) =>
    found.type === type ||
    (k.kind === 'amount' && NUMERIC_TYPE.test(found.type)) ||
    (k.kind === 'count' && INTEGER_TYPE.test(found.type)) ||
    (k.kind === 'time' && TIMESTAMP_TYPE.test(found.type));
  const identity =
    rejected === 0 &&
    changes.size === 0 &&
    columns.every(({ k, found, type }) => found !== undefined && found.name === k.name && plainCast(k, found, type));
  const chain = columns.find((x) => x.k.kind === 'chain');
  const chainValue = chain ? viewValueSql(chain.k, chain.found, changes.has(chain.k.name), 'NULL') : 'NULL';
  const projection = columns.map(
    ({ k, found, type }) => `CAST(${viewValueSql(k, found, changes.has(k.name), chainValue)} AS ${type}) AS ${k.name}`,
  );
  await c.run(`CREATE TEMP VIEW ${table.raw.name} AS
    SELECT ${projection.join(',\n           ')}, 'file' AS source
      FROM ${parquetReader(path)}
     ${rejected > 0 ? `WHERE file_row_number + 1 NOT IN (SELECT line FROM import_rejects WHERE file = ${sqlString(path)})` : ''}`);
  return { loaded: rowsRead - rejected, rejected, identity };
}

/**
 * Good rows of a Parquet file whose key an earlier file loaded: rejects (the earlier row stays).
 * Candidates by the 64-bit key, confirmed on the key's columns. Returns how many.
 */
async function parquetSeen(
  c: DuckDBConnection,
  path: string,
  unique: NonNullable<FileTable['unique']>,
  judged: string,
  seen: SeenKeys,
): Promise<number> {
  const key = unique.columns.join(', ');
  const repeats = await seenRepeats(c, `SELECT ${key} FROM (${judged}) WHERE reason IS NULL`, unique, seen);
  if (repeats === 0) return 0;
  const [inserted] = await queryJson(
    c,
    `INSERT INTO import_rejects
     SELECT ${sqlString(path)}, pos, ${sqlString(unique.reason)}, left(${unique.columns[unique.columns.length - 1]!}, 200)
       FROM (${judged}) SEMI JOIN import_seen USING (${key})
      WHERE reason IS NULL AND pos NOT IN (SELECT line FROM import_rejects WHERE file = ${sqlString(path)})`,
  );
  return Number(inserted?.Count ?? 0);
}

/** The same for a CSV parsed into the raw table: the repeats move to import_bad with their positions. */
async function removeSeen(
  c: DuckDBConnection,
  table: FileTable,
  unique: NonNullable<FileTable['unique']>,
  judged: string,
  seen: SeenKeys,
): Promise<void> {
  const key = unique.columns.join(', ');
  const raw = table.raw.name;
  if ((await seenRepeats(c, `SELECT ${key} FROM ${raw}`, unique, seen)) === 0) return;
  await c.run(`INSERT INTO import_bad
    SELECT pos, ${sqlString(unique.reason)}, left(${unique.columns[unique.columns.length - 1]!}, 200)
      FROM (${judged}) SEMI JOIN import_seen USING (${key})
     WHERE reason IS NULL AND pos NOT IN (SELECT pos FROM import_bad)`);
  await c.run(`DELETE FROM ${raw} USING import_seen s WHERE ${unique.columns.map((k) => `${raw}.${k} = s.${k}`).join(' AND ')}`);
}

/**
 * import_seen: the keys of `rows` that `seen` holds. The probe reads only the earlier rows' 64-bit
 * keys (a few hundred ms for a hundred million); only when some match are the earlier rows read,
 * to confirm on the key's columns.
 */
async function seenRepeats(c: DuckDBConnection, rows: string, unique: NonNullable<FileTable['unique']>, seen: SeenKeys): Promise<number> {
  const key = unique.columns.join(', ');
  await c.run(`CREATE OR REPLACE TEMP TABLE import_seen AS
    SELECT DISTINCT ${key} FROM (${rows}) WHERE hash(${key}) IN (SELECT key FROM ${seen.keys})`);
  const [candidates] = await queryJson(c, `SELECT count(*)::BIGINT AS n FROM import_seen`);
  if (Number(candidates?.n ?? 0) === 0) return 0;
  await c.run(`CREATE OR REPLACE TEMP TABLE import_seen AS
    SELECT ${key} FROM import_seen
    INTERSECT SELECT ${key} FROM ${seen.rows} WHERE hash(${key}) IN (SELECT hash(${key}) FROM import_seen)`);
  const [n] = await queryJson(c, `SELECT count(*)::BIGINT AS n FROM import_seen`);
  return Number(n?.n ?? 0);
}

/** Repeated keys among a Parquet file's good rows: every copy after the first in file order becomes a reject. */
async function parquetDuplicates(
  c: DuckDBConnection,
  path: string,
  unique: NonNullable<FileTable['unique']>,
  judged: string,
): Promise<number> {
  const key = unique.columns.join(', ');
  await c.run(`CREATE TEMP TABLE import_dup_keys AS
    SELECT hash(${key}) AS h FROM (${judged}) WHERE reason IS NULL GROUP BY h HAVING count(*) > 1`);
  const [inserted] = await queryJson(
    c,
    `INSERT INTO import_rejects
     SELECT ${sqlString(path)}, pos, ${sqlString(unique.reason)}, left(${unique.columns[unique.columns.length - 1]!}, 200)
       FROM (SELECT pos, ${key}, row_number() OVER (PARTITION BY ${key} ORDER BY pos) AS k
               FROM (${judged}) WHERE reason IS NULL AND hash(${key}) IN (SELECT h FROM import_dup_keys))
      WHERE k > 1`,
  );
  return Number(inserted?.Count ?? 0);
}

function firstLine(message: string): string {
  return message.split('\n')[0]!;
}

function locateFile(dir: string, table: FileTable): string | null {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new Error(
      `${dir}: directory not found (--source file:DIR reads services, transactions and optionally funding and exchange_wallets as .csv or .parquet)`,
    );
  }
  const found = (['csv', 'parquet'] as const).map((ext) => join(dir, `${table.name}.${ext}`)).filter((p) => existsSync(p));
  if (found.length > 1) {
    throw new Error(`${found.join(' and ')}: both present; keep one ${table.name} file, .csv or .parquet`);
  }
  if (found.length === 0) {
    if (table.optional) return null;
    throw new Error(`${join(dir, table.name)}.csv or .parquet: not found (the ${table.name} file is required)`);
  }
  return found[0]!;
}

async function describeSource(c: DuckDBConnection, path: string): Promise<SourceFile> {
  if (path.endsWith('.csv')) return { path, format: 'csv', columns: readCsvHeader(path).map((name) => ({ name, type: 'VARCHAR' })) };
  try {
    const rows = await queryJson(c, `DESCRIBE SELECT * FROM read_parquet(${sqlString(path)}, binary_as_string = true)`);
    return { path, format: 'parquet', columns: rows.map((r) => ({ name: String(r.column_name), type: String(r.column_type) })) };
  } catch (err) {
    throw new Error(`${path}: cannot read as Parquet: ${firstLine(err instanceof Error ? err.message : String(err))}`);
  }
}

/**
 * The header row of a CSV, read here rather than by DuckDB's sniffer: the sniffer gives up on a
 * file whose sample has a malformed row, and a bad row must be a reject, not a failed import.
 */
function readCsvHeader(path: string): string[] {
  const limit = 1 << 20;
  const buffer = Buffer.alloc(limit);
  let size: number;
  try {
    const fd = openSync(path, 'r');
    try {
      size = readSync(fd, buffer, 0, limit, 0);
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    throw new Error(`${path}: cannot read: ${firstLine(err instanceof Error ? err.message : String(err))}`);
  }
  const end = buffer.subarray(0, size).indexOf(0x0a);
  if (end < 0 && size === limit) throw new Error(`${path}: no header row (first line longer than 1 MiB)`);
  const line = buffer
    .subarray(0, end < 0 ? size : end)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .replace(/\r$/, '');
  if (line.trim() === '') throw new Error(`${path}: empty header row (the first line must name the columns)`);
  const names: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') (field += '"'), i++;
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') names.push(field), (field = '');
    else field += ch;
  }
  names.push(field);
  // DuckDB names an unnamed column this way too; a repeated name would make the reader ambiguous
  const seen = new Set<string>();
  return names.map((n, i) => {
    const name = n.trim() === '' ? `column${i}` : n;
    const key = name.trim().toLowerCase();
    if (seen.has(key)) throw new Error(`${path}: column "${name.trim()}" appears twice in the header`);
    seen.add(key);
    return name;
  });
}

function matchColumns(source: SourceFile, table: FileTable) {
  const byName = new Map<string, string>();
  for (const { name } of source.columns) {
    const key = name.trim().toLowerCase();
    if (!byName.has(key)) byName.set(key, name);
  }
  const present = new Map<string, { name: string; type: string }>();
  for (const k of table.columns) {
    const actual = byName.get(k.name);
    if (actual !== undefined) present.set(k.name, source.columns.find((s) => s.name === actual)!);
  }
  const missing = table.columns.filter((k) => k.required && !present.has(k.name)).map((k) => k.name);
  if (missing.length > 0) {
    const expected = table.columns.map((k) => (k.required ? k.name : `${k.name} (optional)`)).join(', ');
    throw new Error(
      `${source.path}: missing required column(s) ${missing.join(', ')}; expected ${expected}; found ${source.columns.map((s) => s.name).join(', ') || 'none'}`,
    );
  }
  const known = new Set(table.columns.map((k) => k.name));
  return {
    present,
    ignored: source.columns.map((s) => s.name).filter((n) => !known.has(n.trim().toLowerCase())),
    absentOptional: table.columns.filter((k) => !present.has(k.name)).map((k) => k.name),
  };
}

function parquetReader(path: string): string {
  return `read_parquet(${sqlString(path)}, binary_as_string = true, file_row_number = true)`;
}

function csvReader(source: SourceFile): string {
  const columns = source.columns.map((s) => `${sqlString(s.name)}: 'VARCHAR'`).join(', ');
  // Fixed dialect (no sniffing): the documented format is RFC 4180. Rows DuckDB cannot parse go to
  // import_csv_errors instead of failing the read.
  return `read_csv(${sqlString(source.path)}, columns = {${columns}}, header = true, auto_detect = false,
    delim = ',', quote = '"', escape = '"', store_rejects = true,
    rejects_table = 'import_csv_errors', rejects_scan = 'import_csv_scans')`;
}

// ----------------------------------------------------------------------------- validation SQL

const NUMERIC_TYPE =
  /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|FLOAT|DOUBLE|DECIMAL\(\d+,\d+\))$/;
const TIMESTAMP_TYPE = /^(DATE|TIMESTAMP|TIMESTAMP_S|TIMESTAMP_MS|TIMESTAMP_NS)$/;
const INTEGER_TYPE = /^(TINYINT|SMALLINT|INTEGER|BIGINT|UTINYINT|USMALLINT|UINTEGER)$/;
const TIMESTAMPTZ_TYPE = 'TIMESTAMP WITH TIME ZONE';

interface ColumnSql {
  /** Expressions the source scan adds for this column. */
  select: string[];
  /** The value as written into the raw table, computed once per row as v_<name>. */
  value: string;
  /** [condition, reason] in order; a condition is only reached when the earlier ones were false. */
  checks: [string, string][];
  /** The value as the file has it, for import_rejects (evaluated for rejected rows only). */
  text: string;
  /** True when the row has a value (an optional column's checks apply only then). */
  present: string;
  /** A text column's value exactly as the file has it (VARCHAR), to tell whether the import changes it. */
  raw?: string;
}

/** trim() copies every string; most values have nothing to trim, so only those that do pay for it. */
function trimmed(value: string): string {
  return `CASE WHEN ${value} LIKE ' %' OR ${value} LIKE '% ' THEN trim(${value}) ELSE ${value} END`;
}

/**
 * SQL for one column of the file (`found` undefined when an optional column is absent). Values are
 * read as trimmed text (t_<name>, NULL when empty), except numbers and times that a Parquet file
 * stores natively (x_<name>), which are used as they are.
 */
function columnSql(k: FileColumn, found: { name: string; type: string } | undefined): ColumnSql {
  const t = `t_${k.name}`;
  const v = `v_${k.name}`;
  if (!found) return { select: [`NULL::VARCHAR AS ${t}`], value: `NULL`, checks: [], text: t, present: 'false' };
  const id = quoteIdent(found.name);
  const x = `x_${k.name}`;
  // a column the Parquet file stores natively: its value as it is, checked where it must be
  const native = (value: string, checks: [string, string][] = []): ColumnSql => ({
    select: [`${id} AS ${x}`],
    value,
    checks: [...(k.required ? ([[`${x} IS NULL`, reason.missing(k.name)]] as [string, string][]) : []), ...checks],
    text: `CAST(${x} AS VARCHAR)`,
    present: `${x} IS NOT NULL`,
  });
  if (k.kind === 'amount' && NUMERIC_TYPE.test(found.type)) {
    return native(`CAST(${x} AS DOUBLE)`, [
      [`isnan(${v}) OR isinf(${v})`, reason.notDecimal(k.name)],
      [`${v} < 0`, reason.negative(k.name)],
    ]);
  }
  if (k.kind === 'count' && INTEGER_TYPE.test(found.type)) return native(`CAST(${x} AS BIGINT)`, [[`${v} < 0`, reason.notCount(k.name)]]);
  if (k.kind === 'flag' && found.type === 'BOOLEAN') return native(x);
  if (k.kind === 'time' && (TIMESTAMP_TYPE.test(found.type) || found.type === TIMESTAMPTZ_TYPE)) {
    // a TIMESTAMPTZ is an instant: epoch_us gives it in UTC whatever the session time zone
    return native(found.type === TIMESTAMPTZ_TYPE ? `make_timestamp(epoch_us(${x}))` : `CAST(${x} AS TIMESTAMP)`);
  }
  const asText = textOf(found);
  const select = [`nullif(${trimmed(asText)}, '') AS ${t}`, `${asText} AS r_${k.name}`];
  const missing: [string, string][] = k.required ? [[`${t} IS NULL`, reason.missing(k.name)]] : [];
  const text = (value: string, checks: [string, string][] = []): ColumnSql => ({
    select,
    value,
    checks: [...missing, ...checks],
    text: t,
    present: `${t} IS NOT NULL`,
    raw: `r_${k.name}`,
  });
  switch (k.kind) {
    case 'chain':
      return text(`lower(${t})`, [[`${v} NOT IN (${ANALYTICS_CHAINS.map(sqlString).join(', ')})`, reason.unknownChain]]);
    // The value is NULL when the address is malformed. Most EVM addresses arrive lowercase
    // already: one regexp proves that, and only the others pay for a second one and lower().
    case 'chainAddress':
      return text(
        `CASE
          WHEN v_chain = 'solana' THEN CASE WHEN regexp_full_match(${t}, '${SOLANA_ADDRESS}') THEN ${t} END
          WHEN regexp_full_match(${t}, '${EVM_ADDRESS_LOWER}') THEN ${t}
          WHEN regexp_full_match(${t}, '${EVM_ADDRESS}') THEN lower(${t})
        END`,
        [[`${v} IS NULL`, reason.addressForChain(k.name)]],
      );
    case 'anyAddress':
      return text(
        `CASE
          WHEN regexp_full_match(${t}, '${EVM_ADDRESS_LOWER}') THEN ${t}
          WHEN regexp_full_match(${t}, '${EVM_ADDRESS}') THEN lower(${t})
          WHEN regexp_full_match(${t}, '${SOLANA_ADDRESS}') THEN ${t}
        END`,
        [[`${v} IS NULL`, reason.address(k.name)]],
      );
    case 'facilitator':
      // an EVM relayer address is lowercased like every EVM address; names stay as given
      return text(`CASE WHEN length(${t}) = 42 AND starts_with(${t}, '0x') THEN lower(${t}) ELSE ${t} END`);
    case 'text':
      return text(t);
    case 'category':
      return text(`lower(${t})`, [[`${v} NOT IN (${CATEGORY_SLUGS.map(sqlString).join(', ')})`, reason.category]]);
    case 'amount':
      return text(`try_cast(${t} AS DOUBLE)`, [
        // try_cast alone would take 'nan', 'inf' and '1_000'
        [`${v} IS NULL OR NOT regexp_full_match(${t}, '${DECIMAL}')`, reason.notDecimal(k.name)],
        [`${v} < 0`, reason.negative(k.name)],
      ]);
    case 'count':
      return text(`CASE WHEN regexp_full_match(${t}, '[0-9]{1,18}') THEN CAST(${t} AS BIGINT) END`, [
        [`${v} IS NULL`, reason.notCount(k.name)],
      ]);
    case 'flag':
      return text(`CASE WHEN lower(${t}) IN ('true', '1') THEN true WHEN lower(${t}) IN ('false', '0') THEN false END`, [
        [`${v} IS NULL`, reason.notFlag(k.name)],
      ]);
    case 'json':
      return text(t, [[`NOT coalesce(json_valid(${t}), false)`, reason.notJson(k.name)]]);
    case 'outcome':
      return text(`lower(${t})`, [[`${v} NOT IN (${PROBE_OUTCOMES.map(sqlString).join(', ')})`, reason.outcome]]);
    case 'time':
      // The offset is required, so the TIMESTAMPTZ cast is exact whatever the session time zone;
      // epoch_us then gives the UTC instant. A date alone is midnight UTC.
      // DuckDB's cast wants an upper-case T and Z, which RFC 3339 leaves optional: upper() only then.
      return text(
        `CASE
          WHEN regexp_full_match(${t}, '${ISO_TIMESTAMP}') THEN make_timestamp(epoch_us(try_cast(${t} AS TIMESTAMPTZ)))
          WHEN regexp_full_match(${t}, '${ISO_TIMESTAMP_ANY_CASE}') THEN make_timestamp(epoch_us(try_cast(upper(${t}) AS TIMESTAMPTZ)))
          WHEN regexp_full_match(${t}, '${ISO_DATE}') THEN CAST(try_cast(${t} AS DATE) AS TIMESTAMP)
        END`,
        [[`${v} IS NULL`, reason.time(k.name)]],
      );
  }
}

/** A column of the file as text, exactly as the file has it. */
function textOf(found: { name: string; type: string }): string {
  const id = quoteIdent(found.name);
  return found.type === 'VARCHAR' ? id : `CAST(${id} AS VARCHAR)`;
}

/**
 * A column's value in the raw-table view of a Parquet file, for rows that passed every check:
 * the file's value as it is when the import changes no row of it (the usual case, and free), else
 * the normalisation that validation applied, without the checks (the view reads good rows only).
 * `chain` is the chain column's own view value (an address is lowercased unless on Solana).
 */
function viewValueSql(k: FileColumn, found: { name: string; type: string } | undefined, changes: boolean, chain: string): string {
  if (!found) return 'NULL';
  const id = quoteIdent(found.name);
  if (k.kind === 'amount' && NUMERIC_TYPE.test(found.type)) return id;
  if (k.kind === 'count' && INTEGER_TYPE.test(found.type)) return id;
  if (k.kind === 'flag' && found.type === 'BOOLEAN') return id;
  if (k.kind === 'time' && found.type === TIMESTAMPTZ_TYPE) return `make_timestamp(epoch_us(${id}))`;
  if (k.kind === 'time' && TIMESTAMP_TYPE.test(found.type)) return id;
  const asText = textOf(found);
  if (!changes && k.kind !== 'amount' && k.kind !== 'time' && k.kind !== 'count' && k.kind !== 'flag') return asText;
  const t = `nullif(${trimmed(asText)}, '')`;
  switch (k.kind) {
    case 'chain':
    case 'category':
      return `lower(${t})`;
    case 'chainAddress':
      return `CASE WHEN ${chain} = 'solana' THEN ${t} ELSE lower(${t}) END`;
    case 'anyAddress':
      // base58 has no 0: a value starting 0x is an EVM address
      return `CASE WHEN starts_with(${t}, '0x') THEN lower(${t}) ELSE ${t} END`;
    case 'facilitator':
      return `CASE WHEN length(${t}) = 42 AND starts_with(${t}, '0x') THEN lower(${t}) ELSE ${t} END`;
    case 'text':
      return t;
    case 'amount':
      return `CAST(${t} AS DOUBLE)`;
    case 'count':
      return `CAST(${t} AS BIGINT)`;
    case 'flag':
      return `lower(${t}) IN ('true', '1')`;
    case 'json':
      return t;
    case 'outcome':
      return `lower(${t})`;
    case 'time':
      // validated: a date (midnight UTC) or ISO 8601 with Z or an offset, any case
      return `CASE WHEN length(${t}) = 10 THEN CAST(CAST(${t} AS DATE) AS TIMESTAMP) ELSE make_timestamp(epoch_us(CAST(upper(${t}) AS TIMESTAMPTZ))) END`;
  }
}

/**
 * One row per data row of the file: its position (`pos`: the data row number), the normalised
 * values under the raw-table column names, and the first reason it cannot be loaded (NULL for a
 * good row) with the offending value as the file has it.
 */
function judgedSql(source: SourceFile, table: FileTable, present: Map<string, { name: string; type: string }>): string {
  const columns = table.columns.map((k) => ({ k, sql: columnSql(k, present.get(k.name)) }));
  const chainColumn = columns.find((c) => c.k.kind === 'chain');
  const others = columns.filter((c) => c !== chainColumn);
  // chain first: the address checks depend on it
  const ordered = chainColumn ? [chainColumn, ...others] : others;
  const checks = ordered.flatMap((c) =>
    // an optional column's checks apply only to the values that are there
    c.sql.checks.map(([when, why]) => ({ when: c.k.required ? when : `${c.sql.present} AND (${when})`, why, text: c.sql.text })),
  );
  const position = source.format === 'csv' ? 'row_number() OVER () AS pos' : 'file_row_number + 1 AS pos';
  const reader = source.format === 'csv' ? csvReader(source) : parquetReader(source.path);
  return `WITH source AS (
      SELECT ${[position, ...columns.flatMap((c) => c.sql.select)].join(',\n        ')}
      FROM ${reader}
    ),
    chained AS (
      -- the chain first, once per row: addresses are read by it
      SELECT *${chainColumn ? `, ${chainColumn.sql.value} AS v_chain` : ''} FROM source
    ),
    parsed AS (
      SELECT *, ${others.map((c) => `${c.sql.value} AS v_${c.k.name}`).join(',\n        ')}
      FROM chained
    ),
    judged AS (
      SELECT *,
        CASE ${checks.map((c, i) => `WHEN ${c.when} THEN ${i + 1}`).join('\n          ')} END AS failed
      FROM parsed
    )
    SELECT pos,
      ${[...columns.map((c) => `v_${c.k.name} AS ${c.k.name}`), ...columns.flatMap((c) => (c.sql.raw ? [`${c.sql.raw} AS raw_${c.k.name}`] : []))].join(', ')},
      [${checks.map((c) => sqlString(c.why)).join(', ')}][failed] AS reason,
      left(CASE failed ${checks.map((c, i) => `WHEN ${i + 1} THEN ${c.text}`).join(' ')} END, 200) AS reject_value
    FROM judged`;
}

/**
 * Repeats of a key among the loaded rows: the first in file order stays, the others become
 * rejects. Grouping on a 64-bit hash of the raw table first keeps this cheap when, as usual, there
 * are no repeats; only then is the file read again for the repeats' positions.
 */
async function removeDuplicates(
  c: DuckDBConnection,
  table: FileTable,
  unique: NonNullable<FileTable['unique']>,
  judged: string,
): Promise<void> {
  const key = unique.columns.join(', ');
  const raw = table.raw.name;
  await c.run(`CREATE TEMP TABLE import_dup_keys AS SELECT hash(${key}) AS h FROM ${raw} GROUP BY h HAVING count(*) > 1`);
  const [found] = await queryJson(c, `SELECT count(*)::BIGINT AS n FROM import_dup_keys`);
  if (Number(found?.n ?? 0) === 0) return;
  const columns = table.columns.map((k) => k.name).join(', ');
  await c.run(`CREATE TEMP TABLE import_dup_rows AS
    SELECT *, row_number() OVER (PARTITION BY ${key} ORDER BY pos) AS k
      FROM (${judged})
     WHERE reason IS NULL AND hash(${key}) IN (SELECT h FROM import_dup_keys)`);
  await c.run(`INSERT INTO import_bad
    SELECT pos, ${sqlString(unique.reason)}, left(${unique.columns[unique.columns.length - 1]!}, 200) FROM import_dup_rows WHERE k > 1`);
  // every copy goes, then the first comes back: no reliance on the raw table's row order
  await c.run(`DELETE FROM ${raw} USING (SELECT DISTINCT ${key} FROM import_dup_rows WHERE k > 1) d
    WHERE ${unique.columns.map((k) => `${raw}.${k} = d.${k}`).join(' AND ')}`);
  await c.run(`INSERT INTO ${raw} SELECT ${columns}, 'file' FROM import_dup_rows d
    WHERE k = 1 AND EXISTS (SELECT 1 FROM import_dup_rows r WHERE r.k > 1 AND ${unique.columns.map((k) => `r.${k} = d.${k}`).join(' AND ')})`);
}

// ------------------------------------------------------------------------- CSV line numbers

/** A physical line that matters to the mapping from rows to lines: it opens or closes a quoted value, or is blank. */
interface LineMark {
  pl: number;
  odd: boolean;
  blank: boolean;
  /** Byte offsets of the line in the file, without its line break. */
  start: number;
  end: number;
}

interface CsvLayout {
  /** Physical lines, the header included. */
  lines: number;
  /** Odd-quote and blank lines of the file as parsed (a malformed line reads as blank). */
  marks: LineMark[];
  /** Lines that open a quote no well-formed record closes: rejected before parsing. */
  malformed: { line: number; start: number; end: number; value: string }[];
  /** Data records the reader must account for, each returned as a row or reported as unreadable. */
  records: number;
}

/** A quoted value may span lines, but not more than this many: past it, the opening quote is stray. */
const MAX_RECORD_LINES = 1000;
/** DuckDB's reader refuses a record over 2 MB anyway. */
const MAX_RECORD_BYTES = 2_000_000;

/**
 * One pass over the CSV's bytes finds the few lines that matter: blank ones (the reader skips
 * them) and those with an odd number of double quotes, which open or close a quoted value (RFC
 * 4180 escapes a quote by doubling it, so quotes inside a value come in pairs). An odd line and
 * the next one open and close a record spanning lines when that span is one well-formed record
 * of the header's field count; otherwise the opening line is malformed (a stray quote) and is
 * rejected on its own, so the rows after it still load.
 *
 * Native Buffer.indexOf over 8 MB chunks rather than a DuckDB scan of the file as lines: that
 * scan (latin-1, numbered lines) measured 3 to 7 s on a million rows, this pass a fraction of it.
 */
function scanCsvLines(path: string, fieldCount: number): CsvLayout {
  const marks: LineMark[] = [];
  const fd = openSync(path, 'r');
  try {
    const chunk = Buffer.allocUnsafe(8 << 20);
    let offset = 0; // file offset of chunk[0]
    let line = 1;
    let lineStart = 0;
    let quotes = 0;
    let previous = -1; // the byte before chunk[0]
    for (;;) {
      const size = readSync(fd, chunk, 0, chunk.length, offset);
      if (size === 0) break;
      let i = 0;
      let quote = chunk.indexOf(0x22, 0);
      for (;;) {
        const newline = chunk.indexOf(0x0a, i);
        const end = newline === -1 || newline >= size ? size : newline;
        while (quote !== -1 && quote < end) {
          quotes++;
          quote = chunk.indexOf(0x22, quote + 1);
        }
        if (end === size) break;
        const length = offset + end - lineStart;
        const blank = length === 0 || (length === 1 && (end > 0 ? chunk[end - 1] : previous) === 0x0d);
        if (quotes % 2 === 1 || blank) marks.push({ pl: line, odd: quotes % 2 === 1, blank, start: lineStart, end: offset + end });
        line++;
        lineStart = offset + end + 1;
        quotes = 0;
        i = end + 1;
      }
      previous = chunk[size - 1]!;
      offset += size;
    }
    // a last line without a line break
    const lines = lineStart < offset ? line : line - 1;
    if (lineStart < offset && quotes % 2 === 1) marks.push({ pl: line, odd: true, blank: false, start: lineStart, end: offset });

    const read = (start: number, end: number) => {
      const bytes = Buffer.alloc(end - start);
      readSync(fd, bytes, 0, bytes.length, start);
      return bytes.toString('latin1'); // quotes, commas and line breaks are the same bytes in UTF-8
    };
    const odd = marks.filter((m) => m.odd && m.pl > 1); // a header is one line
    const malformed: CsvLayout['malformed'] = [];
    const spans: [number, number][] = [];
    for (let k = 0; k < odd.length; ) {
      const open = odd[k]!;
      const close = odd[k + 1];
      if (
        close &&
        close.pl - open.pl < MAX_RECORD_LINES &&
        close.end - open.start <= MAX_RECORD_BYTES &&
        wellFormedFields(read(open.start, close.end)) === fieldCount
      ) {
        spans.push([open.pl, close.pl]);
        k += 2;
      } else {
        const end = Math.min(open.end, open.start + 800);
        const value = Buffer.from(read(open.start, end), 'latin1').toString('utf8').replace(/\r$/, '').slice(0, 200);
        malformed.push({ line: open.pl, start: open.start, end: open.end, value });
        k += 1;
      }
    }
    const malformedLines = new Set(malformed.map((m) => m.line));
    const parsed = marks.map((m) => (malformedLines.has(m.pl) ? { ...m, odd: false, blank: true } : m));
    const continued = spans.reduce((n, [s, e]) => n + e - s, 0);
    let blankOutside = 0;
    let span = 0;
    for (const m of parsed) {
      if (!m.blank || m.pl === 1) continue;
      while (span < spans.length && spans[span]![1] < m.pl) span++;
      const inside = span < spans.length && spans[span]![0] < m.pl && m.pl <= spans[span]![1];
      if (!inside) blankOutside++;
    }
    return { lines, marks: parsed, malformed, records: Math.max(0, lines - 1 - continued - blankOutside) };
  } finally {
    closeSync(fd);
  }
}

/**
 * The number of fields of one CSV record (RFC 4180: a quote opens a field, a doubled quote inside
 * it is a quote, the closing quote is followed by a comma or the end), or -1 when it is not well formed.
 */
function wellFormedFields(record: string): number {
  const text = record.endsWith('\r') ? record.slice(0, -1) : record;
  let fields = 1;
  let i = 0;
  while (i <= text.length) {
    if (text[i] === '"') {
      i++;
      for (;;) {
        const q = text.indexOf('"', i);
        if (q === -1) return -1;
        if (text[q + 1] === '"') i = q + 2;
        else {
          i = q + 1;
          break;
        }
      }
      if (i < text.length && text[i] !== ',') return -1;
    } else {
      const comma = text.indexOf(',', i);
      const end = comma === -1 ? text.length : comma;
      if (text.slice(i, end).includes('"')) return -1;
      i = end;
    }
    if (i >= text.length) return fields;
    fields++;
    i++; // the comma
  }
  return fields;
}

/** A copy of the file with the given lines emptied (their line breaks kept, so line numbers hold). */
function writeWithoutLines(path: string, target: string, lines: readonly { start: number; end: number }[]): string {
  const from = openSync(path, 'r');
  const to = openSync(target, 'w');
  try {
    const chunk = Buffer.allocUnsafe(8 << 20);
    const copy = (start: number, end: number) => {
      for (let at = start; at < end; ) {
        const size = readSync(from, chunk, 0, Math.min(chunk.length, end - at), at);
        if (size === 0) break;
        writeSync(to, chunk, 0, size);
        at += size;
      }
    };
    let at = 0;
    for (const l of lines) {
      copy(at, l.start);
      at = l.end;
    }
    copy(at, statSync(path).size);
  } finally {
    closeSync(from);
    closeSync(to);
  }
  return target;
}

/**
 * Writes the CSV's rejects (rows that failed a check, rows DuckDB's reader could not parse, lines
 * rejected before parsing) with their physical line numbers, which DuckDB does not give: data rows
 * are known by position (`pos`, the n-th row the reader returned), reader errors by a record
 * number that counts blank lines but counts a quoted field spanning lines as one line. Positions,
 * record numbers and physical lines differ only by counts over the marked lines of the scan
 * (ASOF joins), which parseCsv has already checked add up.
 */
async function csvRejects(c: DuckDBConnection, path: string, layout: CsvLayout): Promise<void> {
  if (layout.malformed.length > 0) {
    await c.run(
      `INSERT INTO import_rejects VALUES ${layout.malformed
        .map((m) => `(${sqlString(path)}, ${m.line}, ${sqlString(READER_REASONS['UNQUOTED VALUE']!)}, ${sqlString(m.value)})`)
        .join(', ')}`,
    );
  }
  const [counts] = await queryJson(
    c,
    `SELECT (SELECT count(*) FROM import_bad)::BIGINT AS checked, (SELECT count(*) FROM import_csv_errors)::BIGINT AS reader`,
  );
  if (Number(counts?.checked ?? 0) === 0 && Number(counts?.reader ?? 0) === 0) return;

  await c.run(`CREATE TEMP TABLE import_csv_reader_rejects AS
    SELECT line AS record, min(error_type) AS error_type, left(trim(min(csv_line), E'\\r\\n '), 200) AS csv_line
      FROM import_csv_errors GROUP BY line`);
  const marks = layout.marks.filter((m) => m.pl > 1).map((m) => `{'pl': ${m.pl}, 'odd': ${m.odd}, 'blank': ${m.blank}}`);
  await c.run(`CREATE TEMP TABLE import_csv_lines AS
    SELECT ${layout.lines}::BIGINT AS lines, [${marks.join(', ')}]::STRUCT(pl BIGINT, odd BOOLEAN, blank BOOLEAN)[] AS marks`);
  const mapping = `
    marks AS (SELECT unnest(marks, recursive := true) FROM import_csv_lines),
    odd AS (SELECT pl, row_number() OVER (ORDER BY pl) AS k FROM marks WHERE odd),
    -- continuation lines s..e, and the record number of the line that opens them
    ranges AS (
      SELECT s, e, s - 1 - coalesce(sum(e - s + 1) OVER (ORDER BY s ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS opening_record,
             sum(e - s + 1) OVER (ORDER BY s) AS continued
        FROM (SELECT o.pl + 1 AS s, c.pl AS e FROM odd o JOIN odd c ON c.k = o.k + 1 WHERE o.k % 2 = 1)
    ),
    blank_records AS (
      SELECT m.pl - coalesce(r.continued, 0) AS record
        FROM marks m ASOF LEFT JOIN ranges r ON m.pl > r.e
       WHERE m.blank AND NOT EXISTS (SELECT 1 FROM ranges x WHERE m.pl BETWEEN x.s AND x.e)
    ),
    -- records the reader did not return: blank lines and its own rejects
    skipped AS (
      SELECT record, record - row_number() OVER (ORDER BY record) - 1 AS returned_before
        FROM (SELECT record FROM blank_records UNION SELECT record FROM import_csv_reader_rejects)
    )`;
  const readerReason = `CASE error_type ${Object.entries(READER_REASONS)
    .map(([type, why]) => `WHEN ${sqlString(type)} THEN ${sqlString(why)}`)
    .join(' ')} ELSE ${sqlString(READER_OTHER)} END`;
  await c.run(`INSERT INTO import_rejects
    WITH ${mapping},
    bad_records AS (
      SELECT b.pos + 1 + coalesce(k.n, 0) AS record, b.reason, b.reject_value AS value
        FROM import_bad b
        -- skipped records with no row between them share returned_before: take the last of them
        ASOF LEFT JOIN (
          SELECT returned_before, max(n) AS n
            FROM (SELECT returned_before, row_number() OVER (ORDER BY record) AS n FROM skipped) GROUP BY returned_before
        ) k ON b.pos > k.returned_before
      UNION ALL
      SELECT record, ${readerReason}, csv_line FROM import_csv_reader_rejects
    )
    SELECT ${sqlString(path)}, b.record + coalesce(r.continued, 0), b.reason, b.value
      FROM bad_records b ASOF LEFT JOIN ranges r ON b.record > r.opening_record`);
}

async function dropScratch(c: DuckDBConnection): Promise<void> {
  for (const name of [
    'import_bad',
    'import_dup_keys',
    'import_dup_rows',
    'import_csv_errors',
    'import_csv_scans',
    'import_csv_reader_rejects',
    'import_csv_lines',
    'import_seen',
  ]) {
    await c.run(`DROP TABLE IF EXISTS temp.${name}`);
  }
}
