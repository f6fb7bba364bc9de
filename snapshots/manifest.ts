/**
 * The snapshot format: the contract between the pipelines (writers) and the site and proxy
 * (readers). A snapshot version is an immutable directory `<root>/<service>/<version>/` holding
 * one file per dataset and `manifest.json`; `<root>/<service>/latest.json` names the newest
 * complete version. The manifest is the truth about what each file holds.
 *
 * A large table may be partitioned instead (snapshots/partitions.ts): its entry's `file` names a
 * directory `<version>/<name>/` holding one Parquet file per non-empty bucket of a key column,
 * `part-0000.parquet` to `part-4095.parquet`, each sorted as the dataset's query orders its rows;
 * `partitions` says the key, the bucket function and count, and lists every part with its own
 * rows, bytes and sha256. An append-only table may also list `deltas`: files `delta-000001.parquet`,
 * … in the same directory, each the rows one run added (of any bucket), sorted as the parts are;
 * a key's rows are its bucket's part plus every delta. The entry's `rows` and `bytes` are the
 * sums over parts and deltas and its `sha256` their digest (partsDigest), so readers of those
 * fields, and the version's content hash, work for either shape. Single-file entries are unchanged: a manifest written before partitions
 * existed reads as before.
 */
import { z } from 'zod';
import { describeIssues } from '../lib/zod-issues.ts';
import { IndexingReport as IndexingReportSchema, type DataSource as SourceKind } from '../catalog/schemas.ts';
import {
  DELTA_FILE_PATTERN,
  DELTA_RULES,
  MAX_BUCKETS,
  PART_FILE_PATTERN,
  PARTITION_SCHEME,
  partFileName,
  partsDigest,
} from './partitions.ts';

export const FORMAT_VERSION = 1;

export const VERSION_PATTERN = /^\d{8}T\d{9}Z-[0-9a-f]{8}$/;

/**
 * The largest manifest.json and latest.json a reader reads: a bigger file is refused from its size,
 * before a byte of it is read or parsed. The largest real manifest is the analytics one: 29 KB
 * for the demo (16 datasets, 19 parts: a table gets the bucket count of its rows), at most about
 * 330 KB at any scale with all 5 partitioned tables at 256 full buckets and 8 delta files each;
 * 16 MiB leaves room for 50 times that (even every partitioned table at the 4,096-bucket maximum
 * is about 5 MB). A pointer is a few hundred bytes plus about 130 per kept version.
 */
export const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;
export const MAX_POINTER_BYTES = 1024 * 1024;

/**
 * The longest free text a manifest field may hold (the notice, a description, a carried-over
 * reason), in characters: these are served as they are on /health, / and the pages. The writer
 * shortens a carried-over reason to fit; the demo's longest text is 156 characters.
 */
export const MAX_TEXT_CHARS = 2000;
/** Names, times, ids and the like. */
const MAX_SHORT_CHARS = 200;

/*
 * The files are checked against these schemas when they are read (snapshots/reader.ts), and the
 * types below are inferred from them, so the format has one description. Fields are listed in
 * the order the writer writes them.
 */

/** Checked first, so a file of another format says so before anything else. */
const FORMAT = z.literal(FORMAT_VERSION, {
  // the value is echoed, but only its start: this message reaches /health
  error: (issue) => `snapshot format ${String(JSON.stringify(issue.input)).slice(0, 40)}, this code reads format ${FORMAT_VERSION}`,
});
const SHA256 = z.string().regex(/^[0-9a-f]{64}$/, { error: 'expected 64 lowercase hex digits' });
const COUNT = z.number().int().min(0);
const VERSION = z.string().regex(VERSION_PATTERN, { error: 'expected a version like 20261120T120000000Z-1a2b3c4d' });
/** The kinds of source the pipelines read: every SourceKind, nothing else. */
const SOURCE = z.enum({ demo: 'demo', live: 'live', file: 'file' } satisfies { [K in SourceKind]: K });
const DATASET_NAME = /^[a-z0-9][a-z0-9-]*$/;
/** Free text, at most MAX_TEXT_CHARS. */
const TEXT = z.string().max(MAX_TEXT_CHARS, { error: `expected at most ${MAX_TEXT_CHARS} characters` });
/** A name, time or id, at most MAX_SHORT_CHARS. */
const SHORT = z.string().max(MAX_SHORT_CHARS, { error: `expected at most ${MAX_SHORT_CHARS} characters` });

export const ColumnSchema = z.object({
  name: SHORT,
  /** A DuckDB type; nested ones (STRUCT, MAP) can be long. */
  type: TEXT,
});
export type ColumnSchema = z.infer<typeof ColumnSchema>;

/** Who wrote a dataset's AI fields. */
export const DatasetAi = z.object({
  analyst: z.enum(['claude', 'rules']),
  /** Claude models that wrote it, e.g. ['claude-haiku-4-5']; empty for the rules analyst. */
  models: z.array(SHORT),
});
export type DatasetAi = z.infer<typeof DatasetAi>;

/** One part of a partitioned dataset: the file (inside the dataset's directory) holding one bucket's rows. */
export const DatasetPart = z.object({
  bucket: COUNT,
  file: z.string().regex(PART_FILE_PATTERN, { error: 'expected a part file name like part-0017.parquet' }),
  rows: COUNT,
  bytes: COUNT,
  sha256: SHA256,
});
export type DatasetPart = z.infer<typeof DatasetPart>;

/** A delta file of an append-only partitioned table: the rows one run added, of every bucket. */
export const DatasetDelta = z.object({
  file: z.string().regex(DELTA_FILE_PATTERN, { error: 'expected a delta file name like delta-000003.parquet' }),
  rows: COUNT,
  bytes: COUNT,
  sha256: SHA256,
});
export type DatasetDelta = z.infer<typeof DatasetDelta>;

/** How a partitioned dataset's rows are spread over its parts (snapshots/partitions.ts). */
export const DatasetPartitions = z.object({
  /** The column whose value picks the part (a VARCHAR column, e.g. an address). */
  key: SHORT.min(1),
  /** The bucket function: the first 8 hex digits of md5(key) as an integer, mod `buckets`. */
  scheme: z.literal(PARTITION_SCHEME),
  buckets: z.number().int().min(1).max(MAX_BUCKETS),
  /** Every non-empty bucket's part, by bucket (an empty table has bucket 0's empty part). */
  parts: z.array(DatasetPart).min(1),
  /**
   * How the delta files combine with the parts (snapshots/partitions.ts): absent or `append`, a
   * key's rows are its part's plus every delta's; `newest-wins` (one row per key), a key's row is
   * the one in the newest delta holding it, else its part's.
   */
  delta_rule: z.enum(DELTA_RULES).optional(),
  /** Rows written since the parts were, oldest first (delta_rule says how they combine). */
  deltas: z.array(DatasetDelta).optional(),
});
export type DatasetPartitions = z.infer<typeof DatasetPartitions>;

export const DatasetEntry = z
  .object({
    name: SHORT.regex(DATASET_NAME, { error: 'expected lowercase letters, digits and dashes' }),
    kind: z.enum(['table', 'document']),
    /** File name inside the version directory; for a partitioned table, its directory's name. */
    file: SHORT.regex(/^[a-z0-9][a-z0-9-]*(\.(parquet|json))?$/, {
      error: 'expected a file name like prices.parquet, or a directory name like buyers',
    }),
    format: z.enum(['parquet', 'json']),
    rows: COUNT,
    bytes: COUNT,
    sha256: SHA256,
    /** Columns of a table; top-level fields (with JSON types) of a document. */
    schema: z.array(ColumnSchema),
    /** Where the data came from: the synthetic demo world, live upstreams, or a researcher's files. */
    source: SOURCE,
    /** The time the data describes (the newest observation), ISO 8601 UTC. */
    as_of: SHORT,
    license: SHORT,
    description: TEXT,
    /** Version that computed this file; differs from the snapshot's own version when carried over. */
    produced_in: VERSION,
    /** Set when this run failed to recompute the dataset and kept the last good file. */
    carried_over: z.object({ reason: TEXT, failed_at: SHORT }).optional(),
    /** Datasets with AI fields: who wrote them (the Claude models, or the offline rules analyst). */
    ai: DatasetAi.optional(),
    /**
     * Datasets resting on the wash labels: the start of the UTC day whose day state gave the
     * labels their cohort evidence (a cohort's new members count from the next day).
     */
    cohort_state_as_of: SHORT.optional(),
    /**
     * The inputs of the run that computed this file, each named by its time, size and a digest
     * (korea: `prices`, `fx`, `articles`): two datasets with the same inputs rest on one picture of
     * the market (pipelines/korea/run-picture.ts).
     */
    inputs: z.record(SHORT, SHORT).optional(),
    /** A partitioned table: its parts (the module comment). Absent for a single file. */
    partitions: DatasetPartitions.optional(),
  })
  .superRefine((entry, ctx) => {
    const problem = partitionProblem(entry);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, path: ['partitions'] });
  });
export type DatasetEntry = z.infer<typeof DatasetEntry>;

/** A data file of a dataset, relative to the version directory, with what the manifest says of it. */
export interface DatasetFile {
  file: string;
  bytes: number;
  sha256: string;
}

/**
 * The files a dataset entry vouches for: its one file, or every part of a partitioned table
 * (`<directory>/<part file>`, by bucket) followed by its delta files, oldest first. What the writer's read-back and the reader's checks hash.
 */
export function datasetFiles(entry: DatasetEntry): DatasetFile[] {
  if (!entry.partitions) return [{ file: entry.file, bytes: entry.bytes, sha256: entry.sha256 }];
  return [...entry.partitions.parts, ...(entry.partitions.deltas ?? [])].map((p) => ({
    file: `${entry.file}/${p.file}`,
    bytes: p.bytes,
    sha256: p.sha256,
  }));
}

/** What is inconsistent between an entry's `file`, its totals and its parts; null when nothing. */
function partitionProblem(entry: {
  file: string;
  kind: string;
  format: string;
  rows: number;
  bytes: number;
  sha256: string;
  partitions?: DatasetPartitions | undefined;
}): string | null {
  const directory = !/\.(parquet|json)$/.test(entry.file);
  const p = entry.partitions;
  if (!p) return directory ? `${entry.file} names a directory but the entry lists no parts` : null;
  if (!directory) return `${entry.file} is a file name but the entry lists parts (a partitioned dataset's file is its directory)`;
  if (entry.kind !== 'table' || entry.format !== 'parquet') return 'only Parquet tables can be partitioned';
  for (let i = 0; i < p.parts.length; i++) {
    const part = p.parts[i]!;
    if (part.bucket >= p.buckets) return `part ${part.file} has bucket ${part.bucket}, not below ${p.buckets}`;
    if (part.file !== partFileName(part.bucket))
      return `bucket ${part.bucket}'s part must be ${partFileName(part.bucket)}, not ${part.file}`;
    if (i > 0 && part.bucket <= p.parts[i - 1]!.bucket) return 'parts must be listed by bucket, each bucket once';
  }
  const deltas = p.deltas ?? [];
  for (let i = 1; i < deltas.length; i++) {
    if (deltas[i]!.file <= deltas[i - 1]!.file) return 'delta files must be listed oldest first, each once';
  }
  const files = [...p.parts, ...deltas];
  const rows = files.reduce((a, x) => a + x.rows, 0);
  const bytes = files.reduce((a, x) => a + x.bytes, 0);
  if (p.delta_rule === 'newest-wins') {
    if (bytes !== entry.bytes) return `the parts${deltas.length ? ' and deltas' : ''} hold ${bytes} bytes, the entry says ${entry.bytes}`;
    // the entry counts the merged table's rows: every part's (the keys of parts are disjoint), and
    // at most every delta row more (a delta row of a key already there replaces it)
    const partRows = p.parts.reduce((a, x) => a + x.rows, 0);
    if (entry.rows < partRows || entry.rows > rows) {
      return `the entry says ${entry.rows} rows; its parts hold ${partRows} keys and its deltas at most ${rows - partRows} more`;
    }
  } else if (rows !== entry.rows || bytes !== entry.bytes) {
    return `the parts${deltas.length ? ' and deltas' : ''} hold ${rows} rows in ${bytes} bytes, the entry says ${entry.rows} rows in ${entry.bytes} bytes`;
  }
  if (partsDigest(files) !== entry.sha256) return "the entry's sha256 is not the digest of its parts' sha256";
  return null;
}

/** What the run's analyst did and cost (korea runs). */
export const AiUsage = z.object({
  analyst: z.enum(['claude', 'rules']),
  /** The two model settings (null for the rules analyst). */
  models: z.object({ fast: SHORT, deep: SHORT }).nullable(),
  /** Model calls made (a retry of a malformed answer counts; the SDK's transport retries do not). */
  calls: COUNT,
  /** Answers served from the warehouse cache instead of a call. */
  cache_hits: COUNT,
  /** Answers written by the rules analyst. */
  rules_answers: COUNT,
  input_tokens: COUNT,
  output_tokens: COUNT,
  /** Cost of this run's calls (USD). */
  usd: z.number().min(0),
  /** Cost of every call of the run's UTC day, this run included (USD). */
  spent_today_usd: z.number().min(0),
  daily_budget_usd: z.number().positive().nullable(),
  /** True once a call was refused because the daily budget was reached. */
  budget_reached: z.boolean(),
  /** Tasks that ended without a valid answer (budget, malformed twice, API error, a rules answer failing its check). */
  failures: COUNT,
  /** How the cost was priced, e.g. when a model's price is not known and an upper bound was used. */
  price_note: TEXT.nullable(),
});
export type AiUsage = z.infer<typeof AiUsage>;

/**
 * What a live run indexed and skipped, by reason (sources/indexing.ts, docs/x402-indexing.md,
 * "Never silent"), described once in catalog/schemas.ts for /health and the OpenAPI document.
 */
export const IndexingReport = IndexingReportSchema;
export type IndexingReport = z.infer<typeof IndexingReport>;

export const SnapshotManifest = z.object({
  format_version: FORMAT,
  service: SHORT,
  version: VERSION,
  generated_at: SHORT,
  code_version: SHORT,
  license: z.object({ id: SHORT, name: TEXT, url: TEXT.nullable(), note: TEXT }),
  next_expected_update: SHORT,
  /** Demo data is synthetic; say so where a user sees it. */
  notice: TEXT.nullable(),
  /** What the run's analyst did and cost; absent when the run wrote no AI field. */
  ai: AiUsage.optional(),
  /** What the run indexed and skipped (live analytics runs); absent when the run indexed nothing live. */
  indexing: IndexingReport.optional(),
  datasets: z.array(DatasetEntry),
});
export type SnapshotManifest = z.infer<typeof SnapshotManifest>;

/** An older version the writer kept, with the sha256 of its manifest.json bytes. */
export const KeptVersion = z.object({ version: VERSION, manifest_sha256: SHA256 });
export type KeptVersion = z.infer<typeof KeptVersion>;

/**
 * `<root>/<service>/latest.json`: the pointer replaced by atomic rename. `manifest_sha256` is the
 * sha256 of the version's manifest.json bytes; every pointer the writer has published carries it.
 * `kept` gives the same for the older versions kept beside it (newest first), so a reader falling
 * back to one of them checks its manifest too; pointers written before it have none.
 */
export const LatestPointer = z.object({
  format_version: FORMAT,
  service: SHORT,
  version: VERSION,
  manifest_sha256: SHA256,
  generated_at: SHORT,
  kept: z.array(KeptVersion).optional(),
});
export type LatestPointer = z.infer<typeof LatestPointer>;

/** `file` parsed as JSON and checked against `schema`; throws one line naming the file and each wrong field. */
export function parseSnapshotFile<T extends z.ZodType>(schema: T, file: string, text: string): z.output<T> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`${file} is not JSON: ${(err as Error).message}`);
  }
  const result = schema.safeParse(json);
  if (result.success) return result.data;
  throw new Error(`${file} does not match the snapshot format: ${describeIssues(result.error.issues)}`);
}

export const LICENSES = {
  'CC0-1.0': {
    id: 'CC0-1.0',
    name: 'Creative Commons Zero v1.0 Universal (public-domain dedication)',
    url: 'https://creativecommons.org/publicdomain/zero/1.0/',
  },
  proprietary: {
    id: 'proprietary',
    name: 'Proprietary: paid access per call; redistribution of paid slices is not licensed',
    url: null,
  },
} as const;
