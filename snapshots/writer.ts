/**
 * Writes a snapshot version and publishes it atomically.
 *
 * Files go to a hidden temporary directory; after every file and the manifest are written and
 * fsynced the directory is renamed to its version name, every checksum is read back, and only then
 * is `latest.json` replaced by an atomic rename. A crash at any point leaves `latest.json` naming
 * the previous complete version; leftovers of a crashed run are removed by the next publish.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  copyFileSync,
  existsSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { DataSource } from '../catalog/schemas.ts';
import { queryJson, sqlString } from '../lib/duckdb.ts';
import { pidAlive } from '../lib/pid.ts';
import type {
  AiUsage,
  IndexingReport,
  ColumnSchema,
  DatasetAi,
  DatasetEntry,
  DatasetPart,
  DatasetPartitions,
  KeptVersion,
  LatestPointer,
  SnapshotManifest,
} from './manifest.ts';
import {
  datasetFiles,
  FORMAT_VERSION,
  LICENSES,
  MAX_MANIFEST_BYTES,
  MAX_TEXT_CHARS,
  SnapshotManifest as ManifestSchema,
  VERSION_PATTERN,
} from './manifest.ts';
import { writeNewFile } from '../lib/new-file.ts';
import { describeIssues } from '../lib/zod-issues.ts';
import {
  assertBuckets,
  bucketsFor,
  bucketSql,
  deltaFileName,
  PARTITION_SCHEME,
  partFileName,
  partsDigest,
  type DeltaRule,
} from './partitions.ts';
import { readLatestPointer, sha256File } from './reader.ts';
import { readRegularFileSync } from './regular-file.ts';
import { columnsProblem, declaredDataset, documentProblem } from './shape.ts';

export type PublishStage =
  | 'begin'
  | `dataset:${string}`
  | 'manifest-written'
  | 'directory-renamed'
  | 'verified'
  | 'before-live-done'
  | 'pointer-written'
  | 'published'
  | 'retention-done';

export interface WriterOptions {
  root: string;
  service: string;
  codeVersion: string;
  /** Wall-clock time of this run (the manifest's generated_at); defaults to the real clock. */
  generatedAt?: Date;
  /** Old versions kept besides the live one. */
  retention?: number;
  /**
   * Runs once the version's files are verified and before latest.json names it (the analytics
   * site build, so pages and API switch together). A throw leaves the previous version live and
   * removes the new one.
   */
  beforeLive?: (versionDir: string, manifest: SnapshotManifest) => Promise<void>;
  /** Called after each step; awaited, so a test can stop the process at a chosen point. */
  onStage?: (stage: PublishStage) => void | Promise<void>;
}

export interface DatasetMeta {
  source: DataSource;
  asOf: Date | string;
  license: keyof typeof LICENSES;
  description: string;
  /** Who wrote the dataset's AI fields, for datasets that have some. */
  ai?: DatasetAi;
  /** Datasets resting on the wash labels: when their cohort evidence was taken (the day state). */
  cohortStateAsOf?: Date | string;
  /** The inputs of the run that computed it, by name (korea: prices, fx, articles). */
  inputs?: Record<string, string>;
}

/** How writeTable spreads a table over parts (snapshots/partitions.ts). */
export interface PartitionBy {
  /** The VARCHAR column of the query's output whose value picks the part (e.g. an address). */
  key: string;
  /** Number of buckets, 1 to 4096; a lookup reads one bucket's part. The most, with `rowsPerBucket`. */
  buckets: number;
  /**
   * Fewer buckets for fewer rows: the table gets bucketsFor(its rows, buckets, rowsPerBucket)
   * (snapshots/partitions.ts), so a small table is a few parts, not `buckets` nearly empty ones.
   * The manifest gives the count used; readers take it from there.
   */
  rowsPerBucket?: number;
  /**
   * The order of rows within each part, as an ORDER BY list over the query's columns (e.g.
   * 'buyer, seller_address, time'); the query then needs no ORDER BY of its own, and the rows
   * are sorted once, by bucket and this. Without it each part keeps the query's order, which
   * costs a second sort (by bucket, keeping that order).
   */
  orderBy?: string;
  /**
   * How later delta files combine with the parts (snapshots/partitions.ts): `append` (default)
   * adds rows; `newest-wins` replaces a key's row, for a table with one row per key. Recorded in
   * the manifest entry, so readers merge the files the same way.
   */
  deltaRule?: DeltaRule;
}

export interface WriteTableOptions {
  /** Parquet row-group size (default 122880); smaller groups make point lookups cheaper. */
  rowGroupSize?: number;
  /** Write one file per non-empty bucket of `key` instead of one file. */
  partitionBy?: PartitionBy;
  /**
   * Buckets whose rows the caller knows are unchanged since the previous version (a run that
   * touched only some keys): their parts are hard-linked from the previous version, keeping their
   * sha256, and the query's rows of those buckets are not written. Ignored, and every bucket
   * written, when the previous version does not hold this dataset with the same key and buckets.
   */
  keepBuckets?: (bucket: number) => boolean;
}

export function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function isoOf(value: Date | string): string {
  const d = typeof value === 'string' ? new Date(value) : value;
  if (Number.isNaN(d.getTime())) throw new Error(`invalid as_of time: ${String(value)}`);
  return d.toISOString();
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/**
 * A dataset whose content is not the shape its catalog declaration gives (catalog/datasets.ts):
 * nothing of it is written; the runner then keeps the last good version of it.
 */
export class DatasetShapeError extends Error {
  override name = 'DatasetShapeError';
}

/** `20261121T010203456Z` from a date. */
function stamp(d: Date): string {
  return d.toISOString().replace(/[-:.]/g, '');
}

export class SnapshotWriter {
  readonly serviceDir: string;
  readonly tmpDir: string;
  private readonly entries = new Map<string, DatasetEntry>();
  /** Datasets whose previous file this version reuses (kept or carried over): their produced_in stays. */
  private readonly reused = new Set<string>();
  private readonly generatedAt: Date;
  private readonly previous: SnapshotManifest | null;
  private readonly previousPointer: LatestPointer | null;
  private finished = false;

  private constructor(private readonly options: WriterOptions) {
    this.serviceDir = join(options.root, options.service);
    mkdirSync(this.serviceDir, { recursive: true });
    this.generatedAt = options.generatedAt ?? new Date();
    this.tmpDir = newVersionTmpDir(this.serviceDir);
    const pointer = readLatestPointer(options.root, options.service);
    this.previousPointer = pointer;
    this.previous = pointer ? readManifestOrNull(join(this.serviceDir, pointer.version, 'manifest.json')) : null;
  }

  static async begin(options: WriterOptions): Promise<SnapshotWriter> {
    const writer = new SnapshotWriter(options);
    await writer.stage('begin');
    return writer;
  }

  /** The manifest of the version live before this run (for carry-over and comparisons). */
  get previousManifest(): SnapshotManifest | null {
    return this.previous;
  }

  /**
   * The live version's file of the single-file dataset `name`, when it is there with the bytes its
   * manifest names (size and sha256), for a step that carries rows over from it; else null.
   */
  async previousFile(name: string): Promise<string | null> {
    const entry = this.previous?.datasets.find((d) => d.name === name);
    if (!this.previous || !entry || entry.partitions) return null;
    const path = join(this.serviceDir, this.previous.version, entry.file);
    try {
      if (statSync(path).size !== entry.bytes) return null;
    } catch {
      return null;
    }
    return (await sha256File(path)) === entry.sha256 ? path : null;
  }

  /**
   * The live version's files of dataset `name` (parts and deltas of a partitioned one), absolute
   * paths, when every one is there with the size its manifest names; else null. Sizes only: a step
   * reading a few facts from them (the newest time) need not hash them all, and the reader checks
   * every sha256 when it loads the version.
   */
  previousPaths(name: string): string[] | null {
    const entry = this.previous?.datasets.find((d) => d.name === name);
    if (!this.previous || !entry) return null;
    const files = datasetFiles(entry).map((f) => ({ path: join(this.serviceDir, this.previous!.version, f.file), bytes: f.bytes }));
    try {
      if (files.some((f) => statSync(f.path).size !== f.bytes)) return null;
    } catch {
      return null;
    }
    return files.map((f) => f.path);
  }

  datasetNames(): string[] {
    return [...this.entries.keys()];
  }

  entry(name: string): DatasetEntry | undefined {
    return this.entries.get(name);
  }

  private async stage(stage: PublishStage): Promise<void> {
    await this.options.onStage?.(stage);
  }

  private assertOpen(name: string): void {
    if (this.finished) throw new Error(`snapshot writer already finished; cannot write ${name}`);
    if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) {
      throw new Error(`dataset name "${name}" must be lowercase letters, digits and dashes`);
    }
    if (this.entries.has(name)) throw new Error(`dataset "${name}" written twice in one snapshot`);
  }

  /**
   * Writes a query's rows to `<name>.parquet` (zstd). The query must order its rows for the file
   * to be byte-for-byte reproducible. `rowGroupSize` (default 122880) trades file size for
   * point-lookup speed: a reader filtering on the sort key reads only the matching groups, so
   * tables the proxy looks up by key use small groups. zstd level 1: on the analytics tables
   * (hashes, addresses, JSON) it wrote 5 % smaller files than DuckDB's default level, a third faster.
   */
  async writeTable(
    connection: DuckDBConnection,
    name: string,
    query: string,
    meta: DatasetMeta,
    options: WriteTableOptions = {},
  ): Promise<DatasetEntry> {
    this.assertOpen(name);
    const rowGroupSize = options.rowGroupSize ?? 122_880;
    if (!Number.isInteger(rowGroupSize) || rowGroupSize < 1) throw new Error(`writeTable ${name}: rowGroupSize must be a positive integer`);
    if (options.partitionBy)
      return this.writePartitioned(connection, name, query, meta, rowGroupSize, options.partitionBy, options.keepBuckets);
    if (options.keepBuckets) throw new Error(`writeTable ${name}: keepBuckets needs partitionBy`);
    const file = `${name}.parquet`;
    const path = join(this.tmpDir, file);
    const copied = await queryJson(connection, `COPY (${query}) TO ${sqlString(path)} (${parquetOptions(rowGroupSize)})`);
    const rows = Number(copied[0]?.Count ?? 0);
    fsyncPath(path);
    const schema = await parquetSchema(connection, path);
    return this.record(name, 'table', file, schema, meta, { rows, bytes: statSync(path).size, sha256: await sha256File(path) });
  }

  /**
   * writeTable with `partitionBy`. The query's rows go once into a temporary table with their
   * bucket, sorted by bucket then `orderBy` (or, without it, the query's own order, which the row
   * ids of a first temporary table keep), so each bucket's COPY reads only its own row groups and
   * writes its rows in order.
   * Measured at 10M payments (a payments table by buyer, 2 cores, bench/partitions.ts): one sorted
   * file 10.1 to 10.8 s; 256 parts with `orderBy` 13.0 to 14.4 s (the md5 buckets of 10M keys are
   * 2 s of it, the 256 COPY statements about 4 s). DuckDB's COPY ... PARTITION_BY was faster
   * at 1M (1.4 s vs 2.7 s) but wrote several files per bucket and did not keep the rows' order
   * within them, even on one thread, so its parts would be neither sorted nor reproducible.
   */
  private async writePartitioned(
    connection: DuckDBConnection,
    name: string,
    query: string,
    meta: DatasetMeta,
    rowGroupSize: number,
    by: PartitionBy,
    keepBuckets: WriteTableOptions['keepBuckets'],
  ): Promise<DatasetEntry> {
    assertBuckets(by.buckets, `writeTable ${name}`);
    const buckets = await this.bucketCount(connection, name, query, by);
    const [order] = await queryJson(connection, "SELECT current_setting('preserve_insertion_order') AS kept");
    if (order?.kept !== true)
      throw new Error(`writeTable ${name}: partitioned writes need DuckDB's preserve_insertion_order (its default)`);
    const dir = join(this.tmpDir, name);
    mkdirSync(dir);
    const parts = new Map<number, DatasetPart>();

    // the previous version's parts of the buckets the caller says are unchanged, by hard link
    const previous = this.previous?.datasets.find((d) => d.name === name);
    const compatible =
      previous?.partitions?.key === by.key &&
      previous.partitions.buckets === buckets &&
      previous.partitions.scheme === PARTITION_SCHEME &&
      // a kept part alone would lose its bucket's rows in the delta files
      !previous.partitions.deltas;
    const kept = new Set<number>();
    if (keepBuckets && compatible && this.previous) {
      const from = join(this.serviceDir, this.previous.version, previous.file);
      const previousParts = new Map(previous.partitions!.parts.map((p) => [p.bucket, p]));
      for (let bucket = 0; bucket < buckets; bucket++) {
        if (!keepBuckets(bucket)) continue;
        const part = previousParts.get(bucket);
        if (part && !existsSync(join(from, part.file))) continue; // gone: write it again
        kept.add(bucket);
        if (!part) continue; // empty then, empty now
        linkOrCopy(join(from, part.file), join(dir, part.file));
        parts.set(bucket, part);
      }
    }

    const table = `snapshot_parts_${randomBytes(4).toString('hex')}`;
    const keyed = `SELECT *, ${bucketSql(quoteIdentifier(by.key), buckets)} AS snapshot_bucket FROM (${query})`;
    const written = kept.size === 0 ? keyed : `SELECT * FROM (${keyed}) WHERE snapshot_bucket NOT IN (${[...kept].join(', ')})`;
    try {
      // clustered by bucket, so each bucket's COPY below reads only its own row groups
      if (by.orderBy) {
        await connection.run(`CREATE TEMP TABLE ${table} AS SELECT * FROM (${written}) ORDER BY snapshot_bucket, ${by.orderBy}`);
      } else {
        await connection.run(`CREATE TEMP TABLE ${table}_q AS ${written}`);
        await connection.run(`CREATE TEMP TABLE ${table} AS SELECT * FROM ${table}_q ORDER BY snapshot_bucket, rowid`);
        await connection.run(`DROP TABLE ${table}_q`);
      }
      const filled = await queryJson(connection, `SELECT DISTINCT snapshot_bucket AS b FROM ${table} ORDER BY b`);
      const targets = filled.map((r) => Number(r.b));
      // an empty table still gets one (empty) part, so its schema can be read
      if (targets.length === 0 && parts.size === 0) targets.push(-1);
      for (const bucket of targets) {
        const file = partFileName(Math.max(0, bucket));
        const path = join(dir, file);
        const copied = await queryJson(
          connection,
          `COPY (SELECT * EXCLUDE (snapshot_bucket) FROM ${table} WHERE snapshot_bucket = ${bucket}) TO ${sqlString(path)} (${parquetOptions(rowGroupSize)})`,
        );
        fsyncPath(path);
        parts.set(Math.max(0, bucket), {
          bucket: Math.max(0, bucket),
          file,
          rows: Number(copied[0]?.Count ?? 0),
          bytes: statSync(path).size,
          sha256: await sha256File(path),
        });
      }
    } finally {
      await connection.run(`DROP TABLE IF EXISTS ${table}_q; DROP TABLE IF EXISTS ${table}`);
    }
    fsyncPath(dir);
    const list = [...parts.values()].sort((a, b) => a.bucket - b.bucket);
    const partitions: DatasetPartitions = {
      key: by.key,
      scheme: PARTITION_SCHEME,
      buckets,
      ...(by.deltaRule === 'newest-wins' ? { delta_rule: by.deltaRule } : {}),
      parts: list,
    };
    const schema = await parquetSchema(connection, join(dir, list[0]!.file));
    if (!schema.some((c) => c.name === by.key)) throw new Error(`writeTable ${name}: the query has no column "${by.key}" to partition by`);
    return this.record(name, 'table', name, schema, meta, {
      rows: list.reduce((a, p) => a + p.rows, 0),
      bytes: list.reduce((a, p) => a + p.bytes, 0),
      sha256: partsDigest(list),
      partitions,
    });
  }

  /** The table's bucket count: `by.buckets`, or with `rowsPerBucket` the count its rows call for (one count(*) of the query). */
  private async bucketCount(connection: DuckDBConnection, name: string, query: string, by: PartitionBy): Promise<number> {
    if (by.rowsPerBucket === undefined) return by.buckets;
    if (!Number.isInteger(by.rowsPerBucket) || by.rowsPerBucket < 1) {
      throw new Error(`writeTable ${name}: rowsPerBucket must be a positive integer, got ${by.rowsPerBucket}`);
    }
    const [counted] = await queryJson(connection, `SELECT count(*)::BIGINT AS n FROM (${query})`);
    return bucketsFor(Number(counted?.n ?? 0), by.buckets, by.rowsPerBucket);
  }

  /**
   * Appends rows to a partitioned table: the previous version's parts and delta files are
   * hard-linked into this version (keeping their sha256) and `query`'s rows, sorted by
   * `by.orderBy`, become one more delta file (none when the query has no row). The caller vouches
   * that `query` is exactly what the table gained since the previous version (`append`), or every
   * row that changed or is new since it (`newest-wins`: one row per key; snapshots/partitions.ts).
   * Returns null, writing nothing, when the previous version cannot take the append: it has no such
   * dataset, or another key, bucket count, scheme or delta rule (with `rowsPerBucket`: the bucket
   * count the table's rows after the append call for), a file of it is missing, or the new rows'
   * columns differ from its; the caller then writes the whole table (writeTable).
   */
  async appendTable(
    connection: DuckDBConnection,
    name: string,
    query: string,
    meta: DatasetMeta,
    options: {
      partitionBy: PartitionBy;
      rowGroupSize?: number;
      /** newest-wins: the merged table's rows the caller expects (the table's count when written whole); null when they differ. */
      expectRows?: number;
      /**
       * Fold the previous delta files and the new rows into one delta file (by the table's rule),
       * instead of adding one more: keeps a point read to its part and one delta, at the cost of
       * reading the deltas, not the parts.
       */
      mergeDeltas?: boolean;
    },
  ): Promise<DatasetEntry | null> {
    this.assertOpen(name);
    const by = options.partitionBy;
    const previous = this.previous?.datasets.find((d) => d.name === name);
    const p = previous?.partitions;
    const rule = by.deltaRule ?? 'append';
    const sameBuckets = by.rowsPerBucket !== undefined || p?.buckets === by.buckets; // with rowsPerBucket: checked once the rows are known
    if (!this.previous || !previous || !p || p.key !== by.key || !sameBuckets || p.scheme !== PARTITION_SCHEME) return null;
    if ((p.delta_rule ?? 'append') !== rule) return null;
    const from = join(this.serviceDir, this.previous.version);
    if (!datasetFiles(previous).every((f) => existsSync(join(from, f.file)))) return null;
    const dir = join(this.tmpDir, name);
    mkdirSync(dir);
    try {
      const earlierDeltas = p.deltas ?? [];
      const last = earlierDeltas.at(-1);
      const file = deltaFileName(last ? Number(/\d+/.exec(last.file)![0]) + 1 : 1);
      const path = join(dir, file);
      // folded: the earlier deltas' rows with the new ones (newest-wins: each key's newest row), as one file
      const folded = options.mergeDeltas && earlierDeltas.length > 0;
      const deltas = folded ? [] : [...earlierDeltas];
      let rowsOf = query;
      if (folded) {
        const files = earlierDeltas.map((d) => join(from, previous.file, d.file));
        const rank = `CASE snapshot_file ${files.map((f, i) => `WHEN ${sqlString(f)} THEN ${i + 1}`).join(' ')} END`;
        const ranked = `SELECT * EXCLUDE (snapshot_file), ${rank} AS snapshot_rank
                          FROM read_parquet([${files.map(sqlString).join(', ')}], filename = 'snapshot_file')
                        UNION ALL BY NAME SELECT *, ${files.length + 1} AS snapshot_rank FROM (${query})`;
        rowsOf =
          rule === 'newest-wins'
            ? `SELECT * EXCLUDE (snapshot_rank) FROM (${ranked})
                QUALIFY row_number() OVER (PARTITION BY ${quoteIdentifier(p.key)} ORDER BY snapshot_rank DESC) = 1`
            : `SELECT * EXCLUDE (snapshot_rank) FROM (${ranked})`;
      }
      const ordered = by.orderBy ? `SELECT * FROM (${rowsOf}) ORDER BY ${by.orderBy}` : rowsOf;
      const copied = await queryJson(
        connection,
        `COPY (${ordered}) TO ${sqlString(path)} (${parquetOptions(options.rowGroupSize ?? 122_880)})`,
      );
      const rows = Number(copied[0]?.Count ?? 0);
      const schema = await parquetSchema(connection, path);
      if (JSON.stringify(schema) !== JSON.stringify(previous.schema)) {
        rmSync(dir, { recursive: true, force: true });
        return null;
      }
      if (rows === 0) {
        rmSync(path);
      } else {
        fsyncPath(path);
        deltas.push({ file, rows, bytes: statSync(path).size, sha256: await sha256File(path) });
      }
      const linked = folded ? p.parts : [...p.parts, ...earlierDeltas];
      for (const f of linked) linkOrCopy(join(from, previous.file, f.file), join(dir, f.file));
      fsyncPath(dir);
      const partitions: DatasetPartitions = {
        key: p.key,
        scheme: p.scheme,
        buckets: p.buckets,
        ...(p.delta_rule ? { delta_rule: p.delta_rule } : {}),
        parts: p.parts,
        ...(deltas.length ? { deltas } : {}),
      };
      const files = [...p.parts, ...deltas];
      // newest-wins: the merged table has a row more for each new row's key no earlier file holds
      let merged = files.reduce((a, x) => a + x.rows, 0);
      if (rule === 'newest-wins') {
        merged = previous.rows;
        if (rows > 0) {
          const key = quoteIdentifier(p.key);
          // every file of the previous version: its parts and deltas (folded or not)
          const earlier = [...p.parts, ...earlierDeltas].map((f) => sqlString(join(from, previous.file, f.file))).join(', ');
          const [count] = await queryJson(
            connection,
            `SELECT count(DISTINCT d.${key})::BIGINT AS keys,
                    count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM read_parquet([${earlier}]) e WHERE e.${key} = d.${key}))::BIGINT AS fresh
               FROM read_parquet(${sqlString(path)}) d`,
          );
          if (Number(count?.keys) !== rows) throw new Error(`appendTable ${name}: a newest-wins delta must hold one row per ${p.key}`);
          merged += Number(count?.fresh ?? 0);
        }
        if (options.expectRows !== undefined && merged !== options.expectRows) {
          // a key the merged table would keep and the table no longer has: a delta cannot delete it
          rmSync(dir, { recursive: true, force: true });
          return null;
        }
      }
      // the table's rows now call for another bucket count: written whole, as a run from scratch would
      if (by.rowsPerBucket !== undefined && bucketsFor(merged, by.buckets, by.rowsPerBucket) !== p.buckets) {
        rmSync(dir, { recursive: true, force: true });
        return null;
      }
      return this.record(name, 'table', name, previous.schema, meta, {
        rows: merged,
        bytes: files.reduce((a, x) => a + x.bytes, 0),
        sha256: partsDigest(files),
        partitions,
      });
    } catch (err) {
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }

  /** Writes a JSON document to `<name>.json`. Rows = array length, or 1 for an object. */
  async writeDocument(name: string, document: unknown, meta: DatasetMeta): Promise<DatasetEntry> {
    this.assertOpen(name);
    this.checkDocument(name, document);
    const file = `${name}.json`;
    const text = JSON.stringify(document);
    if (text === undefined) throw new Error(`dataset "${name}": document is not JSON-serializable`);
    const path = join(this.tmpDir, file);
    writeNewFile(path, text);
    const rows = Array.isArray(document) ? document.length : 1;
    const schema: ColumnSchema[] =
      document && typeof document === 'object' && !Array.isArray(document)
        ? Object.entries(document as Record<string, unknown>).map(([k, v]) => ({ name: k, type: jsonType(v) }))
        : [{ name: '(root)', type: jsonType(document) }];
    return this.record(name, 'document', file, schema, meta, { rows, bytes: statSync(path).size, sha256: await sha256File(path) });
  }

  /**
   * Keeps the previous version's file for a dataset this run could not recompute, marked as
   * carried over with the reason. Returns null when there is no previous good version.
   */
  async carryOver(name: string, reason: string): Promise<DatasetEntry | null> {
    // the reason is served as it is on /health: an error's text can be any length
    const short = reason.length > MAX_TEXT_CHARS ? `${reason.slice(0, MAX_TEXT_CHARS - 1)}…` : reason;
    return this.reuse(name, { reason: short, failed_at: this.generatedAt.toISOString() });
  }

  /**
   * Keeps the previous version's file for a dataset that is not due in this run (its cadence):
   * the same entry, still fresh, produced_in naming the version that computed it. Returns null
   * when there is no previous version of it.
   */
  async keep(name: string): Promise<DatasetEntry | null> {
    return this.reuse(name, null);
  }

  private async reuse(name: string, carried: DatasetEntry['carried_over'] | null): Promise<DatasetEntry | null> {
    this.assertOpen(name);
    const prev = this.previous?.datasets.find((d) => d.name === name);
    if (!this.previous || !prev) return null;
    const from = join(this.serviceDir, this.previous.version);
    const files = datasetFiles(prev);
    if (!files.every((f) => existsSync(join(from, f.file)))) return null;
    // written by code whose shape of it was another: recomputed (kept) or left out (carried over), never served as it is
    if (this.previousShapeProblem(prev, from) !== null) return null;
    if (prev.partitions) mkdirSync(join(this.tmpDir, prev.file));
    for (const f of files) linkOrCopy(join(from, f.file), join(this.tmpDir, f.file));
    const { carried_over: _previousFailure, ...rest } = prev;
    const entry: DatasetEntry = carried ? { ...rest, carried_over: carried } : rest;
    this.entries.set(name, entry);
    this.reused.add(name);
    await this.stage(`dataset:${name}`);
    return entry;
  }

  /**
   * A document this run wrote or kept, read back (steps that build on another dataset of the
   * same run, e.g. the market read on the macro stress score). Undefined when it has none.
   */
  readDocument(name: string): unknown {
    const entry = this.entries.get(name);
    if (!entry || entry.kind !== 'document') return undefined;
    return JSON.parse(readFileSync(join(this.tmpDir, entry.file), 'utf8')) as unknown;
  }

  /** Throws DatasetShapeError unless the document parses with its declared schema. */
  private checkDocument(name: string, document: unknown): void {
    const decl = declaredDataset(this.options.service, name);
    const problem = decl ? documentProblem(decl, document) : null;
    if (problem) throw new DatasetShapeError(`dataset "${name}" ${problem}`);
  }

  /**
   * Throws DatasetShapeError unless a table's Parquet columns are its declared columns, in order and
   * of the same types; its files are removed first, so nothing of it is published.
   */
  private checkColumns(name: string, file: string, schema: ColumnSchema[]): void {
    const decl = declaredDataset(this.options.service, name);
    const problem = decl ? columnsProblem(decl, schema) : null;
    if (problem === null) return;
    rmSync(join(this.tmpDir, file), { recursive: true, force: true });
    throw new DatasetShapeError(`dataset "${name}" ${problem}`);
  }

  /** Why the previous version's file of a dataset may not be reused (its shape is not the declared one), or null. */
  private previousShapeProblem(prev: DatasetEntry, from: string): string | null {
    const decl = declaredDataset(this.options.service, prev.name);
    if (!decl) return null;
    if (prev.kind === 'table') return columnsProblem(decl, prev.schema);
    try {
      return documentProblem(decl, JSON.parse(readFileSync(join(from, prev.file), 'utf8')));
    } catch (err) {
      return `cannot be read: ${(err as Error).message}`;
    }
  }

  private async record(
    name: string,
    kind: DatasetEntry['kind'],
    file: string,
    schema: ColumnSchema[],
    meta: DatasetMeta,
    content: { rows: number; bytes: number; sha256: string; partitions?: DatasetPartitions },
  ): Promise<DatasetEntry> {
    if (kind === 'table') this.checkColumns(name, file, schema);
    const entry: DatasetEntry = {
      name,
      kind,
      file,
      format: kind === 'table' ? 'parquet' : 'json',
      rows: content.rows,
      bytes: content.bytes,
      sha256: content.sha256,
      schema,
      source: meta.source,
      as_of: isoOf(meta.asOf),
      license: meta.license,
      description: meta.description,
      produced_in: '', // filled with the version name at publish
      ...(meta.ai ? { ai: meta.ai } : {}),
      ...(meta.cohortStateAsOf ? { cohort_state_as_of: isoOf(meta.cohortStateAsOf) } : {}),
      ...(meta.inputs ? { inputs: meta.inputs } : {}),
      ...(content.partitions ? { partitions: content.partitions } : {}),
    };
    this.entries.set(name, entry);
    await this.stage(`dataset:${name}`);
    return entry;
  }

  /**
   * Finishes the version and makes it live. Returns the manifest. Throws (leaving the previous
   * version live) if nothing was written or a file fails its read-back check.
   */
  async publish(options: {
    nextExpectedUpdate: Date;
    notice?: string | null;
    ai?: AiUsage | null;
    indexing?: IndexingReport | null;
  }): Promise<SnapshotManifest> {
    if (this.finished) throw new Error('snapshot writer already finished');
    if (this.entries.size === 0) {
      this.abort();
      throw new Error(`no dataset was written for ${this.options.service}; nothing to publish`);
    }
    this.finished = true;
    const datasets = [...this.entries.values()].sort((a, b) => a.name.localeCompare(b.name));
    const contentHash = createHash('sha256');
    for (const d of datasets) contentHash.update(`${d.name}:${d.sha256}\n`);
    let version = `${stamp(this.generatedAt)}-${contentHash.digest('hex').slice(0, 8)}`;
    if (existsSync(join(this.serviceDir, version))) {
      version = `${stamp(new Date(this.generatedAt.getTime() + 1))}-${version.slice(-8)}`;
    }
    if (!VERSION_PATTERN.test(version)) throw new Error(`internal: bad version name ${version}`);
    for (const d of datasets) if (!this.reused.has(d.name)) d.produced_in = version;

    const anyFree = datasets.some((d) => d.license === 'CC0-1.0');
    const allFree = datasets.every((d) => d.license === 'CC0-1.0');
    const license = allFree ? LICENSES['CC0-1.0'] : LICENSES.proprietary;
    const manifest: SnapshotManifest = {
      format_version: FORMAT_VERSION,
      service: this.options.service,
      version,
      generated_at: this.generatedAt.toISOString(),
      code_version: this.options.codeVersion,
      license: {
        ...license,
        note: anyFree
          ? 'Datasets marked CC0-1.0 are dedicated to the public domain; the others are proprietary, served through the API (free endpoints as the catalog marks them, the rest paid per call).'
          : 'Sold per call through x402; see each dataset license.',
      },
      next_expected_update: options.nextExpectedUpdate.toISOString(),
      notice: options.notice ?? null,
      ...(options.ai ? { ai: options.ai } : {}),
      ...(options.indexing ? { indexing: options.indexing } : {}),
      datasets,
    };
    try {
      const manifestText = JSON.stringify(manifest, null, 2) + '\n';
      assertReadable(manifest, manifestText);
      writeNewFile(join(this.tmpDir, 'manifest.json'), manifestText);
      fsyncPath(this.tmpDir);
      await this.stage('manifest-written');

      await makeVersionLive({
        serviceDir: this.serviceDir,
        tmpDir: this.tmpDir,
        manifest,
        previousPointer: this.previousPointer,
        retention: this.options.retention ?? 5,
        ...(this.options.beforeLive ? { beforeLive: this.options.beforeLive } : {}),
        onStage: (stage) => this.stage(stage),
      });
    } catch (err) {
      rmSync(this.tmpDir, { recursive: true, force: true });
      throw err;
    }
    applyRetention(this.serviceDir, version, this.options.retention ?? 5);
    await this.stage('retention-done');
    return manifest;
  }

  /** Drops the unfinished version (nothing was made live). */
  abort(): void {
    this.finished = true;
    rmSync(this.tmpDir, { recursive: true, force: true });
  }
}

/** What makeVersionLive needs: a complete version in a temporary directory of the service's folder. */
export interface VersionToPublish {
  serviceDir: string;
  /** `<serviceDir>/.tmp-<pid>-<random>`: every file the manifest names, and manifest.json, written and fsynced. */
  tmpDir: string;
  manifest: SnapshotManifest;
  /** latest.json as it was before this publish (its version and `kept` list are kept beside the new one). */
  previousPointer: LatestPointer | null;
  retention: number;
  beforeLive?: WriterOptions['beforeLive'];
  onStage?: (stage: PublishStage) => void | Promise<void>;
}

/**
 * The publish of a written version, shared by the writer and the snapshot follower (pull.ts): the
 * temporary directory is renamed to its version name, every file is read back against its sha256
 * in the manifest, and only then is latest.json replaced by an atomic rename. Throws, with
 * latest.json still naming the previous version, on any failure (retention is the caller's next
 * step: applyRetention). Returns the pointer written.
 */
export async function makeVersionLive(v: VersionToPublish): Promise<LatestPointer> {
  const { manifest, serviceDir } = v;
  const version = manifest.version;
  const finalDir = join(serviceDir, version);
  renameSync(v.tmpDir, finalDir);
  fsyncPath(serviceDir);
  await v.onStage?.('directory-renamed');

  for (const d of manifest.datasets) {
    for (const f of datasetFiles(d)) {
      const actual = await sha256File(join(finalDir, f.file));
      if (actual !== f.sha256) {
        throw new Error(`read-back check failed for ${f.file}: sha256 ${actual}, manifest says ${f.sha256}`);
      }
    }
  }
  await v.onStage?.('verified');
  if (v.beforeLive) {
    try {
      await v.beforeLive(finalDir, manifest);
    } catch (err) {
      rmSync(finalDir, { recursive: true, force: true });
      throw err;
    }
    await v.onStage?.('before-live-done');
  }

  const pointer: LatestPointer = {
    format_version: FORMAT_VERSION,
    service: manifest.service,
    version,
    manifest_sha256: await sha256File(join(finalDir, 'manifest.json')),
    generated_at: manifest.generated_at,
    kept: keptVersions(serviceDir, v.previousPointer, version, v.retention),
  };
  // a new file of an unguessable name, renamed over latest.json (which replaces whatever is
  // there, a link included, and never writes through it)
  const pointerTmp = join(serviceDir, `.latest.json.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  writeNewFile(pointerTmp, JSON.stringify(pointer, null, 2) + '\n');
  await v.onStage?.('pointer-written');
  renameSync(pointerTmp, join(serviceDir, 'latest.json'));
  fsyncPath(serviceDir);
  await v.onStage?.('published');
  return pointer;
}

/**
 * The older versions retention keeps beside `live`, each with the manifest sha256 a pointer gave
 * for it: the previous pointer's own version and its `kept` list, newest first.
 */
function keptVersions(serviceDir: string, previous: LatestPointer | null, live: string, retention: number): KeptVersion[] {
  if (!previous) return [];
  const known = [{ version: previous.version, manifest_sha256: previous.manifest_sha256 }, ...(previous.kept ?? [])];
  return known
    .filter((k, i) => k.version !== live && known.findIndex((o) => o.version === k.version) === i)
    .filter((k) => existsSync(join(serviceDir, k.version, 'manifest.json')))
    .sort((a, b) => (a.version < b.version ? 1 : -1))
    .slice(0, retention);
}

/** A new temporary directory for a version being written in `serviceDir` (applyRetention removes it if its process dies). */
export function newVersionTmpDir(serviceDir: string): string {
  const dir = join(serviceDir, `.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  mkdirSync(dir);
  return dir;
}

/**
 * Keeps the live version plus the `retention` newest others; removes leftovers of crashed
 * publishes (temporary directories whose process is gone).
 */
export function applyRetention(serviceDir: string, live: string, retention: number): void {
  const names = readdirSync(serviceDir);
  const versions = names
    .filter((n) => VERSION_PATTERN.test(n) && n !== live)
    .sort()
    .reverse();
  for (const old of versions.slice(retention)) {
    rmSync(join(serviceDir, old), { recursive: true, force: true });
  }
  for (const n of names) {
    const m = /^\.(?:tmp-|latest\.json\.tmp-)(\d+)/.exec(n);
    if (m && Number(m[1]) !== process.pid && !pidAlive(Number(m[1]))) {
      rmSync(join(serviceDir, n), { recursive: true, force: true });
    }
  }
}

function parquetOptions(rowGroupSize: number): string {
  return `FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 1, ROW_GROUP_SIZE ${rowGroupSize}`;
}

async function parquetSchema(connection: DuckDBConnection, path: string): Promise<ColumnSchema[]> {
  const described = await queryJson(connection, `DESCRIBE SELECT * FROM read_parquet(${sqlString(path)})`);
  return described.map((c) => ({ name: String(c.column_name), type: String(c.column_type) }));
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A previous version's file into this one: a hard link (versions are immutable, so sharing the inode is safe), else a copy. */
export function linkOrCopy(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
  }
}

function readManifestOrNull(path: string): SnapshotManifest | null {
  try {
    return JSON.parse(readRegularFileSync(path, 'manifest.json', MAX_MANIFEST_BYTES).bytes.toString('utf8')) as SnapshotManifest;
  } catch {
    return null;
  }
}

/** Throws, before anything is published, when readers would refuse the manifest: the snapshot format, its size cap. */
function assertReadable(manifest: SnapshotManifest, text: string): void {
  const checked = ManifestSchema.safeParse(manifest);
  if (!checked.success) {
    throw new Error(`the manifest of ${manifest.version} does not match the snapshot format: ${describeIssues(checked.error.issues)}`);
  }
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_MANIFEST_BYTES) {
    throw new Error(`the manifest of ${manifest.version} is ${bytes} bytes, more than the ${MAX_MANIFEST_BYTES} a reader reads`);
  }
}
