/**
 * Partitioned (multi-file) table datasets: how a row's key picks its part, the part files' names,
 * and the digest that stands for all parts in the manifest entry. Shared by the writer (which
 * computes the bucket in DuckDB SQL) and the readers (which compute it here, in JavaScript), so
 * both sides agree by construction; the tests check they do.
 *
 * The bucket function is portable on purpose, so anyone holding the files can find a key's part
 * without this code (a researcher in Python, MotherDuck, Spark, BigQuery):
 *
 *   bucket(key) = (the first 8 hex digits of md5(UTF-8 bytes of key), read as an unsigned
 *                  32-bit integer) mod buckets
 *
 *   DuckDB    ('0x' || left(md5(key), 8))::UBIGINT % 256
 *   Python    int(hashlib.md5(key.encode()).hexdigest()[:8], 16) % 256
 *   Spark     pmod(conv(substr(md5(key), 1, 8), 16, 10), 256)
 *   BigQuery  MOD(CAST(CONCAT('0x', SUBSTR(TO_HEX(MD5(key)), 1, 8)) AS INT64), 256)
 *
 * DuckDB's own hash() is not used: its values change between DuckDB versions and no other engine
 * computes it. Keys are the column's text exactly as stored (addresses are lowercase 0x hex).
 *
 * An append-only table (rows are only ever added, as the payments are) may also carry delta files
 * beside its parts: `delta-000001.parquet`, `delta-000002.parquet`, …, each holding the rows one
 * run added, of every bucket, sorted as the parts are. A key's rows are then those of its
 * bucket's part plus those of every delta file; a run that rewrites the whole table (a rebuild, or
 * when the deltas grow too many or too large) folds them back into the parts.
 *
 * A keyed table (one row per key: a buyer's label, its profile) may carry delta files too, under the
 * rule "the newest row of a key wins" (`delta_rule: "newest-wins"` in the manifest): a delta file
 * holds the rows one run changed or added, and a key's row is the one in the newest delta file that
 * has the key, else its part's. Rows are never deleted this way (a run that would drop a key writes
 * the table whole). The merged table (what a download holds) in DuckDB, for parts and deltas
 * listed oldest first:
 *
 *   SELECT * EXCLUDE (f) FROM read_parquet([parts..., deltas...], filename = 'f')
 *    QUALIFY row_number() OVER (PARTITION BY key ORDER BY f LIKE '%/delta-%' DESC, f DESC) = 1
 *
 * (delta names sort by their number; the reader, snapshots/reader.ts parquetSql, ranks by position).
 */
import { createHash } from 'node:crypto';

/** The manifest's name for the bucket function above. */
export const PARTITION_SCHEME = 'md5-hex8-mod';

/** Most buckets a dataset may have (part names carry four digits). */
export const MAX_BUCKETS = 4096;

export interface PartFile {
  bucket: number;
  file: string;
  sha256: string;
}

/** The bucket of `key` among `buckets` (module comment). */
export function bucketOf(key: string, buckets: number): number {
  return Number.parseInt(createHash('md5').update(key, 'utf8').digest('hex').slice(0, 8), 16) % buckets;
}

/** The same bucket in DuckDB SQL, for the expression `keySql` (a VARCHAR). */
export function bucketSql(keySql: string, buckets: number): string {
  return `(('0x' || left(md5(${keySql}), 8))::UBIGINT % ${buckets})::INTEGER`;
}

/** The file of a bucket's part inside the dataset's directory: `part-0017.parquet`. */
export function partFileName(bucket: number): string {
  return `part-${String(bucket).padStart(4, '0')}.parquet`;
}

export const PART_FILE_PATTERN = /^part-\d{4}\.parquet$/;

/** The file of the `seq`-th delta of an append-only partitioned table: `delta-000003.parquet`. */
export function deltaFileName(seq: number): string {
  return `delta-${String(seq).padStart(6, '0')}.parquet`;
}

export const DELTA_FILE_PATTERN = /^delta-\d{6}\.parquet$/;

/**
 * How a partitioned table's delta files combine with its parts (module comment): `append` adds
 * their rows (the payment tables), `newest-wins` replaces a key's row (one row per key).
 */
export const DELTA_RULES = ['append', 'newest-wins'] as const;
export type DeltaRule = (typeof DELTA_RULES)[number];

/**
 * The sha256 a partitioned dataset's entry carries: over the lines "<file>:<sha256>\n" of its parts
 * and delta files, in file-name order. It changes when any part's bytes change, so the version's content hash
 * (over every entry's sha256) and every reader of the entry's sha256 keep working.
 */
export function partsDigest(parts: readonly Pick<PartFile, 'file' | 'sha256'>[]): string {
  const hash = createHash('sha256');
  for (const p of [...parts].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))) hash.update(`${p.file}:${p.sha256}\n`);
  return hash.digest('hex');
}

/**
 * The bucket count of a table of `rows` rows written with at most `maxBuckets` buckets and about
 * `rowsPerBucket` rows a part: the fewest buckets, a power of two, whose parts hold at most
 * `rowsPerBucket` rows on average, and never more than `maxBuckets`. A function of the row count
 * alone, so a table written whole and one extended by delta files get the same count for the same
 * rows; a power of two changes only when the table doubles or halves.
 */
export function bucketsFor(rows: number, maxBuckets: number, rowsPerBucket: number): number {
  let buckets = 1;
  while (buckets < maxBuckets && rows > buckets * rowsPerBucket) buckets *= 2;
  return Math.min(buckets, maxBuckets);
}

export function assertBuckets(buckets: number, what: string): void {
  if (!Number.isInteger(buckets) || buckets < 1 || buckets > MAX_BUCKETS) {
    throw new Error(`${what}: buckets must be an integer from 1 to ${MAX_BUCKETS}, got ${buckets}`);
  }
}
