/**
 * The free (CC0) analytics datasets as downloads researchers can load without cleaning: for every
 * free dataset of one snapshot version `<name>.parquet` (zstd), `<name>.csv` and `<name>.json`,
 * and `downloads.json` (DownloadsIndex) saying what each file holds: rows, column types and
 * descriptions, bytes and sha256.
 *
 * The snapshot files are shaped for the API (JSON text columns, ISO strings, the services list's
 * filter helpers). The downloads are typed instead, all in DuckDB SQL:
 *   - timestamps are TIMESTAMPTZ (instants in UTC: Parquet marks them isAdjustedToUTC, so pandas,
 *     polars and Spark read them as UTC), dates are DATE;
 *   - nested values are LIST / STRUCT / MAP, typed from the catalog's response schema of the
 *     endpoint that serves the dataset (the catalog is the contract; a field it does not declare
 *     is not published);
 *   - columns that exist only for the API's filtering and sorting are left out;
 *   - the Parquet file carries dataset, description, license, source, as_of, snapshot version and
 *     column descriptions in its key-value metadata.
 * The JSON download of a table is an array of row objects with the same typed values, timestamps
 * written as the API writes them (2026-11-20T09:00:00+00:00); the JSON download of a document is
 * the published document, byte for byte. The CSV download has a header row of the column names,
 * timestamps in ISO 8601 with Z (2026-11-20T09:00:00Z) and nested values as JSON text.
 */
import {
  copyFileSync,
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import { ANALYTICS_RESPONSES, OperatorsRow, ServiceHealthRow } from '../../catalog/analytics.ts';
import { jsonSchemaOf, type JsonObject, type JsonValue } from '../../catalog/openapi.ts';
import { openDatabase, queryJson, sqlString } from '../../lib/duckdb.ts';
import type { DatasetEntry } from '../../snapshots/manifest.ts';
import { LICENSES, parquetSql, sha256File, type LoadedDataset, type LoadedSnapshot } from '../../snapshots/reader.ts';

export const DOWNLOADS_INDEX_FILE = 'downloads.json';
const FREE_LICENSE = LICENSES['CC0-1.0'];

// ------------------------------------------------------------------ the index (downloads.json)

export const DownloadColumn = z.object({
  name: z.string(),
  /** DuckDB type as read back from the Parquet file, e.g. TIMESTAMP WITH TIME ZONE, MAP(VARCHAR, DOUBLE). */
  type: z.string(),
  description: z.string().optional(),
});
export type DownloadColumn = z.infer<typeof DownloadColumn>;

export const DownloadFile = z.object({
  format: z.enum(['json', 'csv', 'parquet']),
  /** File name inside the version's downloads folder (linked as /data/<version>/<file>). */
  file: z.string(),
  bytes: z.number().int().min(0),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type DownloadFile = z.infer<typeof DownloadFile>;

export const DownloadDataset = z.object({
  name: z.string(),
  description: z.string(),
  /** As in the snapshot: a table, or a JSON document (whose Parquet and CSV hold the rows described by `columns`). */
  kind: z.enum(['table', 'document']),
  /** Rows of the Parquet and CSV files. */
  rows: z.number().int().min(0),
  as_of: z.string(),
  columns: z.array(DownloadColumn),
  files: z.array(DownloadFile),
});
export type DownloadDataset = z.infer<typeof DownloadDataset>;

export const DownloadsIndex = z.object({
  /** The analytics snapshot version the files were made from. */
  version: z.string(),
  /** When that snapshot was published (the files are a function of it, so rebuilding gives the same index). */
  generated_at: z.string(),
  /** The newest as_of of the datasets. */
  as_of: z.string(),
  source: z.enum(['demo', 'live', 'file']),
  /** Set when the data is synthetic (demo); say so wherever the downloads are shown. */
  notice: z.string().nullable(),
  license: z.object({ id: z.literal('CC0-1.0'), name: z.string(), url: z.string() }),
  datasets: z.array(DownloadDataset),
});
export type DownloadsIndex = z.infer<typeof DownloadsIndex>;

/**
 * `downloads.json` of a version's downloads folder, checked against DownloadsIndex. A malformed
 * index fails naming the version folder, never the path: build errors end up in logs others read.
 */
export function readDownloadsIndex(dir: string): DownloadsIndex {
  const parsed = DownloadsIndex.safeParse(JSON.parse(readFileSync(join(dir, DOWNLOADS_INDEX_FILE), 'utf8')));
  if (!parsed.success) throw new Error(`downloads.json of version ${basename(dir)} is malformed: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

// ------------------------------------------------------------------ typed shapes from the catalog

/** A value's DuckDB type, as a tree so SQL can be generated for each level. */
type Shape =
  | { kind: 'scalar'; type: string }
  | { kind: 'list'; of: Shape }
  | { kind: 'struct'; fields: Field[] }
  | { kind: 'map'; value: Shape };
interface Field {
  name: string;
  shape: Shape;
  description?: string;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The schema without its null alternative (`anyOf [T, null]` or `type: [T, 'null']`). */
function nonNull(schema: JsonObject): JsonObject {
  if (Array.isArray(schema.anyOf)) {
    const options = schema.anyOf.filter((o): o is JsonObject => isObject(o) && o.type !== 'null');
    if (options.length === 1) return { ...options[0]! };
  }
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((t) => t !== 'null');
    if (types.length === 1) return { ...schema, type: types[0]! };
  }
  return schema;
}

/** JSON Schema (as the catalog's OpenAPI document gives it) → DuckDB shape; unknown forms fail loudly. */
function shapeOf(schema: JsonObject, where: string): Shape {
  const s = nonNull(schema);
  switch (s.type) {
    case 'string':
      if (s.format === 'date-time') return { kind: 'scalar', type: 'TIMESTAMPTZ' };
      if (s.format === 'date') return { kind: 'scalar', type: 'DATE' };
      return { kind: 'scalar', type: 'VARCHAR' };
    case 'integer':
      return { kind: 'scalar', type: 'BIGINT' };
    case 'number':
      return { kind: 'scalar', type: 'DOUBLE' };
    case 'boolean':
      return { kind: 'scalar', type: 'BOOLEAN' };
    case 'array':
      if (!isObject(s.items)) throw new Error(`${where}: an array without an item schema`);
      return { kind: 'list', of: shapeOf(s.items, `${where}[]`) };
    case 'object':
      if (isObject(s.properties)) return { kind: 'struct', fields: fieldsOf(s, where) };
      // a record (label → fraction): keys vary by row, so a MAP rather than a STRUCT of every possible key
      if (isObject(s.additionalProperties)) return { kind: 'map', value: shapeOf(s.additionalProperties, `${where}{}`) };
      throw new Error(`${where}: an object with neither properties nor a value schema`);
    default:
      throw new Error(`${where}: JSON Schema type ${JSON.stringify(s.type)} has no DuckDB type here`);
  }
}

function descriptionOf(schema: JsonObject): string | undefined {
  const d = schema.description ?? nonNull(schema).description;
  return typeof d === 'string' ? d : undefined;
}

function fieldsOf(schema: JsonObject, where: string): Field[] {
  if (!isObject(schema.properties)) throw new Error(`${where}: expected an object schema`);
  return Object.entries(schema.properties).map(([name, property]) => {
    if (!isObject(property)) throw new Error(`${where}.${name}: expected a schema`);
    return { name, shape: shapeOf(property, `${where}.${name}`), description: descriptionOf(property) };
  });
}

/** The fields of the object at `path` in a response schema; `items` steps into an array's element. */
function catalogFields(body: z.ZodType, path: readonly string[], where: string): Field[] {
  let schema: JsonObject = jsonSchemaOf(body);
  for (const step of path) {
    const next = step === 'items' ? nonNull(schema).items : isObject(schema.properties) ? schema.properties[step] : undefined;
    if (!isObject(next)) throw new Error(`${where}: the catalog schema has no "${step}"`);
    schema = nonNull(next);
  }
  return fieldsOf(schema, where);
}

const ident = (name: string): string => `"${name.replaceAll('"', '""')}"`;

function sqlType(shape: Shape): string {
  switch (shape.kind) {
    case 'scalar':
      return shape.type;
    case 'list':
      return `${sqlType(shape.of)}[]`;
    case 'map':
      return `MAP(VARCHAR, ${sqlType(shape.value)})`;
    case 'struct':
      return `STRUCT(${shape.fields.map((f) => `${ident(f.name)} ${sqlType(f.shape)}`).join(', ')})`;
  }
}

/** The JSON text of a JSON value parsed into `shape` (from_json casts ISO strings to DATE/TIMESTAMPTZ). */
const fromJsonSql = (json: string, shape: Shape): string => `from_json(${json}, ${sqlString(JSON.stringify(sqlType(shape)))})`;

const hasTimestamp = (shape: Shape): boolean =>
  shape.kind === 'scalar'
    ? shape.type === 'TIMESTAMPTZ'
    : shape.kind === 'list'
      ? hasTimestamp(shape.of)
      : shape.kind === 'map'
        ? hasTimestamp(shape.value)
        : shape.fields.some((f) => hasTimestamp(f.shape));

/** A TIMESTAMPTZ as the API writes it: '2026-11-20T09:00:00+00:00'. */
const apiTimestampSql = (expr: string): string => `strftime(${expr}, '%Y-%m-%dT%H:%M:%S+00:00')`;

/** A TIMESTAMPTZ as ISO 8601 in UTC with Z, the fraction only when there is one: '2026-11-20T09:00:00Z'. */
const isoZSql = (expr: string): string =>
  `(CASE WHEN microsecond(${expr}) % 1000000 = 0 THEN strftime(${expr}, '%Y-%m-%dT%H:%M:%SZ') ELSE strftime(${expr}, '%Y-%m-%dT%H:%M:%S.%fZ') END)`;

/**
 * `expr` with every TIMESTAMPTZ inside it written as text by `written`: DuckDB's own text
 * ('2026-11-20 09:00:00+00') is not ISO 8601, and COPY's TIMESTAMPFORMAT reaches only top-level
 * columns.
 */
function timestampsAsText(shape: Shape, expr: string, written: (expr: string) => string, depth = 0): string {
  if (!hasTimestamp(shape)) return expr;
  const v = `v${depth}`;
  switch (shape.kind) {
    case 'scalar':
      return written(expr);
    case 'list':
      return `list_transform(${expr}, ${v} -> ${timestampsAsText(shape.of, v, written, depth + 1)})`;
    case 'map':
      return `map_from_entries(list_transform(map_entries(${expr}), ${v} -> struct_pack(key := ${v}.key, value := ${timestampsAsText(shape.value, `${v}.value`, written, depth + 1)})))`;
    case 'struct':
      return `(CASE WHEN ${expr} IS NULL THEN NULL ELSE struct_pack(${shape.fields
        .map((f) => `${ident(f.name)} := ${timestampsAsText(f.shape, `(${expr}).${ident(f.name)}`, written, depth + 1)}`)
        .join(', ')}) END)`;
  }
}

/** A header field as CSV writes it: quoted only when it must be. */
const csvField = (name: string): string => (/[",\r\n]/.test(name) ? `"${name.replaceAll('"', '""')}"` : name);

/** A column of the JSON download of a table: timestamps as the API writes them. */
const jsonColumnSql = (shape: Shape, expr: string): string => timestampsAsText(shape, expr, apiTimestampSql);

/**
 * A column of the CSV download, text every CSV reader takes as it is: timestamps ISO 8601 with Z,
 * nested values (lists, structs, maps) as JSON text (a map as a JSON object). DuckDB's own CSV
 * text of nested values ({suspected_wash=1.0}, [{'date': 2026-10-29}]) is no format anyone parses.
 */
function csvColumnSql(shape: Shape, expr: string): string {
  if (shape.kind !== 'scalar') return `to_json(${timestampsAsText(shape, expr, isoZSql)})::VARCHAR`;
  return timestampsAsText(shape, expr, isoZSql);
}

// ------------------------------------------------------------------ what each free dataset becomes

const R = ANALYTICS_RESPONSES;
/** Every document starts with the data stamp; in the downloads it lives in the metadata and downloads.json instead. */
const STAMP = ['source', 'as_of'];

interface TablePlan {
  kind: 'table';
  /** The response schema (and the path in it) whose fields describe the table's columns. */
  body: z.ZodType;
  at: readonly string[];
  /** Columns of the snapshot file that exist only for the API's filtering and sorting. */
  omit: readonly string[];
  /** Descriptions of columns the response schema does not have. */
  descriptions: Record<string, string>;
}

interface DocumentPlan {
  kind: 'document';
  body: z.ZodType;
  /** Where the rows are in the document: the object at `at` is one row, or each element of the array at `at`. */
  at: readonly string[];
  rows: 'one' | 'each';
}

type Plan = TablePlan | DocumentPlan;

/**
 * One entry per free dataset; a free dataset without one stops the build, so nothing is published
 * untyped. Documents: a researcher wants rows, not one cell of JSON. `categories` is a list of
 * records, so it becomes one row per category; the other documents are one observation of the
 * market (landing-stats' `stats`, trends, wash-report), so they become one row whose columns are
 * the document's fields, lists of records as LIST(STRUCT) columns a query can unnest.
 */
const PLANS: Record<string, Plan> = {
  services: {
    kind: 'table',
    body: R.ServiceDetailBody,
    at: ['service'],
    // active = tx_24h > 0, price_bucket = the list filter's bucket of price_amount, name_sort and
    // search_text = lower-cased copies of the text: all derived, kept for the API only.
    // is_placeholder stays: it is the index's judgement, which the list hides by default.
    omit: ['active', 'price_bucket', 'name_sort', 'search_text'],
    descriptions: {
      category_source: "'listed' when the service declared its category, 'assigned' when the index classified it.",
      is_placeholder:
        'The index flags the listing as a placeholder or test (category test_dummy, test-like names, URLs on localhost, example.com or ngrok); the API hides these by default.',
      tx_prev_24h: 'Transactions in the 24 hours before the last 24 hours.',
      volume_prev_24h: 'Volume in the 24 hours before the last 24 hours (USDC).',
      tx_30d: 'Transactions in the last 30 days.',
      volume_30d: 'Volume in the last 30 days (USDC).',
    },
  },
  'service-detail': {
    kind: 'table',
    body: R.ServiceDetailBody,
    at: [],
    // `service` repeats the services row of the same id (the API answers one service at a time);
    // a researcher joins on id instead, and the file is a fifth smaller
    omit: ['service'],
    descriptions: { id: 'Service identifier: join with services.id for the service itself.' },
  },
  'category-detail': {
    kind: 'table',
    body: R.CategoryDetailBody,
    at: [],
    omit: [],
    descriptions: { slug: 'Category slug, as in categories.' },
  },
  'landing-stats': { kind: 'document', body: R.LandingStatsBody, at: ['stats'], rows: 'one' },
  categories: { kind: 'document', body: R.CategoriesBody, at: ['categories', 'items'], rows: 'each' },
  trends: { kind: 'document', body: R.TrendsBody, at: [], rows: 'one' },
  'wash-report': { kind: 'document', body: R.WashReportBody, at: [], rows: 'one' },
  operators: { kind: 'table', body: OperatorsRow, at: [], omit: [], descriptions: {} },
  'service-health': { kind: 'table', body: ServiceHealthRow, at: [], omit: [], descriptions: {} },
};

/** The typed SELECT of a dataset and the shape of each column it yields. */
interface TypedSelect {
  sql: string;
  columns: Field[];
}

async function tableSelect(
  connection: Parameters<typeof queryJson>[0],
  name: string,
  plan: TablePlan,
  data: LoadedDataset,
): Promise<TypedSelect> {
  const catalog = new Map(catalogFields(plan.body, plan.at, name).map((f) => [f.name, f]));
  // one file, or every part of a partitioned table
  const source = parquetSql(data);
  const stored = await queryJson(connection, `DESCRIBE SELECT * FROM ${source}`);
  const columns: Field[] = [];
  const select: string[] = [];
  for (const row of stored) {
    const column = String(row.column_name);
    const type = String(row.column_type);
    if (plan.omit.includes(column)) continue;
    const declared = catalog.get(column);
    const description = plan.descriptions[column] ?? declared?.description;
    const typed =
      declared && (type === 'JSON' || (type === 'VARCHAR' && declared.shape.kind === 'scalar' && declared.shape.type !== 'VARCHAR'));
    if (type === 'JSON' && !declared) {
      throw new Error(`downloads: ${name}.${column} is JSON text and the catalog response schema does not declare its shape`);
    }
    if (typed) {
      select.push(
        `${type === 'JSON' ? fromJsonSql(ident(column), declared.shape) : `CAST(${ident(column)} AS ${sqlType(declared.shape)})`} AS ${ident(column)}`,
      );
      columns.push({ name: column, shape: declared.shape, description });
    } else {
      select.push(ident(column));
      columns.push({ name: column, shape: { kind: 'scalar', type }, description });
    }
  }
  return { sql: `SELECT ${select.join(', ')} FROM ${source}`, columns };
}

function documentSelect(name: string, plan: DocumentPlan, path: string): TypedSelect {
  const rowPath = plan.rows === 'each' ? plan.at.slice(0, -1) : plan.at;
  const columns = catalogFields(plan.body, plan.at, name).filter((f) => !(rowPath.length === 0 && STAMP.includes(f.name)));
  const row: Shape = { kind: 'struct', fields: columns };
  const json = rowPath.length === 0 ? 'content::JSON' : `json_extract(content::JSON, ${sqlString(`$.${rowPath.join('.')}`)})`;
  const source = `read_text(${sqlString(path)})`;
  const sql =
    plan.rows === 'one'
      ? `SELECT unnest(${fromJsonSql(json, row)}) FROM ${source}`
      : `SELECT unnest(r) FROM (SELECT unnest(${fromJsonSql(json, { kind: 'list', of: row })}) AS r FROM ${source})`;
  return { sql, columns };
}

// ------------------------------------------------------------------ writing

function sourceOf(datasets: DatasetEntry[]): DownloadsIndex['source'] {
  const kinds = new Set(datasets.map((d) => d.source));
  if (kinds.size !== 1) throw new Error(`downloads: the free datasets come from more than one kind of source (${[...kinds].join(', ')})`);
  return datasets[0]!.source;
}

async function fileEntry(dir: string, format: DownloadFile['format'], file: string): Promise<DownloadFile> {
  const path = join(dir, file);
  return { format, file, bytes: statSync(path).size, sha256: await sha256File(path) };
}

/**
 * Writes the downloads of every free (CC0) dataset of `snapshot` into `dir` (created; replaced if
 * it exists) and returns the index it wrote as `dir/downloads.json`. Everything is written into a
 * sibling folder first and renamed into place, so `dir` is never seen half written.
 */
export async function writeDownloads(snapshot: LoadedSnapshot, dir: string): Promise<DownloadsIndex> {
  const free = snapshot.manifest.datasets.filter((d) => d.license === FREE_LICENSE.id);
  if (free.length === 0) throw new Error(`downloads: snapshot ${snapshot.version} has no free (${FREE_LICENSE.id}) dataset`);
  const missing = free.filter((d) => !(d.name in PLANS)).map((d) => d.name);
  if (missing.length > 0)
    throw new Error(`downloads: no download plan for the free dataset(s) ${missing.join(', ')} (site/lib/downloads.ts PLANS)`);

  mkdirSync(dirname(dir), { recursive: true });
  const staging = mkdtempSync(join(dirname(dir), `.${basename(dir)}.partial-`));
  const db = await openDatabase(':memory:');
  try {
    const c = db.connection;
    // TIMESTAMPTZ renders in the session's zone in CSV; UTC for every reader wherever this runs
    await c.run(`SET TimeZone = 'UTC'`);
    const pending: Promise<DownloadDataset>[] = [];
    for (const entry of free) {
      const plan = PLANS[entry.name]!;
      const loaded = snapshot.datasets.get(entry.name);
      if (!loaded) throw new Error(`downloads: ${entry.name} is in the manifest but not loaded`);
      const typed = plan.kind === 'table' ? await tableSelect(c, entry.name, plan, loaded) : documentSelect(entry.name, plan, loaded.path);
      await c.run(`CREATE OR REPLACE TEMP TABLE download AS ${typed.sql}`);
      const [counted] = await queryJson(c, 'SELECT count(*)::BIGINT AS n FROM download');
      const rows = Number(counted?.n ?? 0);

      const descriptions = Object.fromEntries(typed.columns.filter((f) => f.description).map((f) => [f.name, f.description]));
      const metadata: Record<string, string> = {
        dataset: entry.name,
        description: entry.description,
        license: FREE_LICENSE.id,
        license_name: FREE_LICENSE.name,
        license_url: FREE_LICENSE.url,
        source: entry.source,
        as_of: entry.as_of,
        snapshot_version: snapshot.version,
        generated_at: snapshot.manifest.generated_at,
        column_descriptions: JSON.stringify(descriptions),
        ...(snapshot.manifest.notice ? { notice: snapshot.manifest.notice } : {}),
      };
      const kv = Object.entries(metadata)
        .map(([k, v]) => `${k}: ${sqlString(v)}`)
        .join(', ');
      const out = (ext: string) => sqlString(join(staging, `${entry.name}.${ext}`));
      await c.run(`COPY download TO ${out('parquet')} (FORMAT parquet, COMPRESSION zstd, KV_METADATA {${kv}})`);
      const csvSelect = typed.columns.map((f) => `${csvColumnSql(f.shape, ident(f.name))} AS ${ident(f.name)}`).join(', ');
      // text quoted, so an empty text ("") is told from a null (an empty cell)
      const texts = typed.columns.filter((f) => f.shape.kind === 'scalar' && f.shape.type === 'VARCHAR').map((f) => ident(f.name));
      const quote = texts.length > 0 ? `, FORCE_QUOTE (${texts.join(', ')})` : '';
      // the header row written here: FORCE_QUOTE would quote those names in DuckDB's own header too
      const body = join(staging, `.${entry.name}.csv.rows`);
      await c.run(`COPY (SELECT ${csvSelect} FROM download) TO ${sqlString(body)} (FORMAT csv, HEADER false${quote})`);
      writeFileSync(join(staging, `${entry.name}.csv`), `${typed.columns.map((f) => csvField(f.name)).join(',')}\n`);
      await pipeline(createReadStream(body), createWriteStream(join(staging, `${entry.name}.csv`), { flags: 'a' }));
      rmSync(body);
      if (entry.kind === 'document') {
        copyFileSync(loaded.path, join(staging, `${entry.name}.json`));
      } else {
        const select = typed.columns.map((f) => `${jsonColumnSql(f.shape, ident(f.name))} AS ${ident(f.name)}`).join(', ');
        await c.run(`COPY (SELECT ${select} FROM download) TO ${out('json')} (FORMAT json, ARRAY true)`);
      }
      await c.run('DROP TABLE download');

      const stored = await queryJson(c, `DESCRIBE SELECT * FROM read_parquet(${out('parquet')})`);
      const columns: DownloadColumn[] = stored.map((r) => {
        const name = String(r.column_name);
        const description = descriptions[name];
        return { name, type: String(r.column_type), ...(description ? { description } : {}) };
      });
      // hashed while DuckDB writes the next dataset (DuckDB works off the main thread)
      const dataset = Promise.all(
        (['parquet', 'csv', 'json'] as const).map((format) => fileEntry(staging, format, `${entry.name}.${format}`)),
      ).then((files) => ({ name: entry.name, description: entry.description, kind: entry.kind, rows, as_of: entry.as_of, columns, files }));
      // awaited below; should a later dataset fail first, this rejection is not left unhandled
      dataset.catch(() => {});
      pending.push(dataset);
    }
    const datasets = await Promise.all(pending);
    const index: DownloadsIndex = {
      version: snapshot.version,
      generated_at: snapshot.manifest.generated_at,
      as_of: free
        .map((d) => d.as_of)
        .sort()
        .at(-1)!,
      source: sourceOf(free),
      notice: snapshot.manifest.notice,
      license: { id: FREE_LICENSE.id, name: FREE_LICENSE.name, url: FREE_LICENSE.url },
      datasets,
    };
    writeFileSync(join(staging, DOWNLOADS_INDEX_FILE), JSON.stringify(index, null, 2) + '\n');
    publish(staging, dir);
    return index;
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw err;
  } finally {
    db.close();
  }
}

/**
 * Moves the finished `staging` folder to `dir`. A folder already there (the same version built
 * again) is moved aside first and removed after: rename cannot replace a non-empty folder, and
 * readers may see no folder for that instant but never a half-written one.
 */
function publish(staging: string, dir: string): void {
  if (!existsSync(dir)) {
    renameSync(staging, dir);
    return;
  }
  const aside = `${staging}.old`;
  renameSync(dir, aside);
  renameSync(staging, dir);
  rmSync(aside, { recursive: true, force: true });
}
