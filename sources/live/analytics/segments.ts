/**
 * The live source's payments and funding as segments (sources/segments.ts), as the file import
 * keeps its files: each run writes what the indexers added since the last segment as one new
 * Parquet segment of `x402_transactions` (and one of `wallet_funding`), and the raw tables are
 * views over the segments, so a run's steps can read only what it added (`new_<raw table>`,
 * `<raw table>_by_import`).
 *
 * Two checkpoints: the indexers commit their rows into the kept history (live_evm_settlements,
 * live_solana_settlements, live_wallet_funding) with their own checkpoints, range by range; a
 * segment is then cut from the history in one transaction that holds the Parquet file's ledger
 * row, the segment's keys and the segment marks (where each indexer stood when it was cut). A run
 * killed between the two leaves its indexed rows in the history above the marks: the next run's
 * segment takes them. A segment file without a committed ledger row is removed.
 *
 * What a cut reads: the history's rows at or after the marks (a block number per EVM chain, a
 * slot per Solana relayer; funding has no order, so its rows are all read, one per buyer), less
 * those whose key (a 64-bit hash of chain, transaction and log index or instruction) a segment
 * already holds: a payment indexed twice (a checkpoint moved back, an overlapping range) is not
 * added twice and is counted (the log; the ledger's rows_rejected when the run writes a segment).
 * An indexer's checkpoint found below its mark (reset by hand) lowers the bound to it, so what it
 * indexes again is compared with the keys.
 *
 * The indexers never change or delete a row of the history (they read finalized blocks and
 * slots, and insert by key), so a segment never needs rewriting. If the history's row count is
 * not the segments' plus the new rows (rows removed, or added below the marks, outside the
 * indexers; a row edited in place keeps the count and is not seen), or the
 * warehouse's segments came from files, the segments are written again from the whole history
 * under a new `dir` (`live:<id>`, a new payment history), which sends the pipeline's incremental
 * steps to their full paths; the log says why. A warehouse of an older version, with a history
 * and no segments, has it written once as its first segment (logged).
 */
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { queryJson, sqlString } from '../../../lib/duckdb.ts';
import type { IngestContext } from '../../contract.ts';
import { RAW_TABLES, type RawTable } from '../../raw-tables.ts';
import {
  createSegmentViews,
  insertLedgerRow,
  LEDGER_DDL,
  nextBatch,
  readLedger,
  removeUncommitted,
  segmentsDirOf,
  sha256OfFile,
  type LedgerRow,
} from '../../segments.ts';
import { ensureEvmTables } from './evm-indexer.ts';
import { ensureSolanaTables } from './solana-indexer.ts';

/** Where each part of a history stood (an indexer's checkpoint or a segment mark): part → block or slot. */
export type Positions = ReadonlyMap<string, number>;

export interface LiveTable {
  raw: RawTable;
  /** Segment file names start with it. */
  prefix: string;
  /** The keys of the rows in segments. */
  keys: string;
  ensure(c: DuckDBConnection): Promise<void>;
  /**
   * The history's rows with the raw table's columns (but `source`), `key`, `part`, `pos` (its
   * block or slot) and `k` (the order within a transaction), of the parts at or after their
   * bound, and every row of a part without one.
   */
  history(bounds: Positions): string;
  /** The history's row count. */
  count: string;
  /** Where each part's indexer stands: `part`, `pos`. */
  positions: string | null;
  /** The order of a segment's rows. */
  order: string;
}

const listOf = (values: readonly string[]) => values.map(sqlString).join(', ');

/** `(column = part AND position >= bound) OR ... OR column NOT IN (parts)` for the parts of `bounds` under `prefix`. */
function boundsWhere(bounds: Positions, prefix: string, column: string, position: string): string {
  const mine = [...bounds].filter(([p]) => p.startsWith(prefix)).map(([p, b]) => [p.slice(prefix.length), b] as const);
  if (mine.length === 0) return '';
  return `WHERE ${mine.map(([v, b]) => `(${column} = ${sqlString(v)} AND ${position} >= ${b})`).join(' OR ')}
      OR ${column} NOT IN (${listOf(mine.map(([v]) => v))})`;
}

export const LIVE_TRANSACTIONS: LiveTable = {
  raw: RAW_TABLES.x402_transactions,
  prefix: 'transactions',
  keys: 'live_payment_keys',
  async ensure(c) {
    await ensureEvmTables(c);
    await ensureSolanaTables(c);
  },
  history: (bounds) => `
    SELECT tx_hash, chain, buyer, seller_address, amount, block_time AS time, NULL::VARCHAR AS resource_url, facilitator,
           hash(chain, tx_hash, log_index::VARCHAR) AS key, 'evm:' || chain AS part, block_number AS pos, log_index::VARCHAR AS k
      FROM live_evm_settlements ${boundsWhere(bounds, 'evm:', 'chain', 'block_number')}
    UNION ALL
    SELECT signature, 'solana', buyer, seller_address, amount, block_time, NULL, facilitator,
           hash('solana', signature, instruction), 'solana:' || relayer, slot, instruction
      FROM live_solana_settlements ${boundsWhere(bounds, 'solana:', 'relayer', 'slot')}`,
  count: `SELECT (SELECT count(*) FROM live_evm_settlements) + (SELECT count(*) FROM live_solana_settlements) AS n`,
  positions: `SELECT 'evm:' || chain AS part, last_block AS pos FROM evm_checkpoint
    UNION ALL SELECT 'solana:' || relayer, last_slot FROM solana_checkpoint`,
  order: 'time, tx_hash, k',
};

export const LIVE_FUNDING: LiveTable = {
  raw: RAW_TABLES.wallet_funding,
  prefix: 'funding',
  keys: 'live_funding_keys',
  ensure: ensureEvmTables,
  history: () => `
    SELECT address, funder, amount, time, hash(chain, address) AS key, 'funding' AS part, block_number AS pos, address AS k
      FROM live_wallet_funding`,
  count: `SELECT count(*) AS n FROM live_wallet_funding`,
  positions: null,
  order: 'time, address',
};

const MARKS = `CREATE TABLE IF NOT EXISTS live_segment_marks (table_name VARCHAR, part VARCHAR, pos BIGINT)`;

/** Where the table's indexers stand now (their checkpoints). */
export async function indexerPositions(c: DuckDBConnection, table: LiveTable): Promise<Positions> {
  await table.ensure(c);
  if (!table.positions) return new Map();
  return new Map((await queryJson(c, table.positions)).map((r) => [String(r.part), Number(r.pos)]));
}

async function marksOf(c: DuckDBConnection, table: LiveTable): Promise<Positions> {
  const rows = await queryJson(c, `SELECT part, pos FROM live_segment_marks WHERE table_name = ${sqlString(table.raw.name)}`);
  return new Map(rows.map((r) => [String(r.part), Number(r.pos)]));
}

const count = async (c: DuckDBConnection, sql: string): Promise<number> => Number((await queryJson(c, sql))[0]?.n ?? 0);

export interface LiveSegmentRun {
  /** Rows in every segment. */
  rows: number;
  /** Rows this run's segment added (0: no segment). */
  added: number;
  /** Rows indexed again that a segment already held. */
  rejected: number;
}

interface Cut {
  added: number;
  rejected: number;
  segment: string | null;
  batch: number;
}

/**
 * Cuts the table's new segment from the history: the rows at or after `bounds` whose key no
 * segment holds (or, with `fresh`, every row of the history as the first segment of history
 * `dir`, the old ledger rows and keys gone), in one transaction with its ledger row, its keys and
 * the marks. Returns null, having changed nothing, when an extension does not add up.
 */
async function cut(
  ctx: IngestContext,
  table: LiveTable,
  o: { dir: string; bounds: Positions; fresh: boolean; segmented: number; segmentsDir: string; run: LiveRun },
): Promise<Cut | null> {
  const c = ctx.connection;
  const name = sqlString(table.raw.name);
  const columns = table.raw.columns.map(([col]) => col).filter((col) => col !== 'source');
  await c.run('BEGIN TRANSACTION');
  let segmentPath: string | null = null;
  try {
    // batches only grow, across payment histories too
    const batch = o.run.batch ?? (await nextBatch(c));
    if (o.fresh) {
      await c.run(`DELETE FROM import_ledger WHERE table_name = ${name}`);
      await c.run(`DELETE FROM ${table.keys}`);
    }
    await c.run(`CREATE OR REPLACE TEMP TABLE live_candidates AS ${table.history(o.fresh ? new Map() : o.bounds)}`);
    await c.run(`CREATE OR REPLACE TEMP TABLE live_seen AS
      SELECT key FROM ${table.keys} WHERE key IN (SELECT key FROM live_candidates)`);
    const bounds = [...o.bounds].map(([p, b]) => `(${sqlString(p)}, ${b})`);
    // at its bound, a part's rows may be the last segment's own (the block or slot it ended in)
    const rejected = bounds.length
      ? await count(
          c,
          `SELECT count(*)::BIGINT AS n FROM live_candidates n JOIN (VALUES ${bounds.join(', ')}) b(part, lb) USING (part)
            WHERE n.pos > b.lb AND n.key IN (SELECT key FROM live_seen)`,
        )
      : 0;
    await c.run(`CREATE OR REPLACE TEMP TABLE live_added AS
      SELECT * FROM live_candidates WHERE key NOT IN (SELECT key FROM live_seen)`);
    const added = await count(c, `SELECT count(*)::BIGINT AS n FROM live_added`);
    if (!o.fresh && (await count(c, table.count)) !== o.segmented + added) {
      await c.run('ROLLBACK');
      return null;
    }
    let segment: string | null = null;
    if (added > 0) {
      segment = `${table.prefix}-${String(batch).padStart(6, '0')}-${o.dir.replace(/^live:/, 'live-')}.parquet`;
      segmentPath = join(o.segmentsDir, segment);
      await c.run(
        `COPY (SELECT ${columns.join(', ')} FROM live_added ORDER BY ${table.order}) TO ${sqlString(segmentPath)} (FORMAT parquet, COMPRESSION zstd)`,
      );
      await c.run(`INSERT INTO ${table.keys} SELECT key FROM live_added`);
      const st = statSync(segmentPath);
      await insertLedgerRow(c, {
        dir: o.dir,
        fileName: o.fresh ? 'the kept history' : 'indexed since the last segment',
        table: table.raw.name,
        sha256: await sha256OfFile(segmentPath),
        bytes: st.size,
        mtimeMs: st.mtimeMs,
        batch,
        segment,
        read: added + rejected,
        loaded: added,
        rejected,
        importedAt: ctx.now,
      });
    }
    // the marks: where the indexers stood, so the next cut reads the history from there
    await c.run(`DELETE FROM live_segment_marks WHERE table_name = ${name}`);
    if (table.positions) await c.run(`INSERT INTO live_segment_marks SELECT ${name}, part, pos FROM (${table.positions})`);
    await c.run('COMMIT');
    if (segment) o.run.batch = batch;
    return { added, rejected, segment, batch };
  } catch (err) {
    await c.run('ROLLBACK').catch(() => undefined);
    if (segmentPath) removeUncommitted(o.segmentsDir, table.prefix, new Set((await readLedger(c, table.raw.name)).map((l) => l.segment)));
    throw err;
  } finally {
    for (const t of ['live_candidates', 'live_seen', 'live_added']) await c.run(`DROP TABLE IF EXISTS temp.${t}`);
  }
}

/** One run of the live source: its segments share one batch, as one file import's files do. */
export interface LiveRun {
  batch?: number;
}

const newHistoryId = () => `live:${randomBytes(6).toString('hex')}`;

/**
 * Adds what the indexers added since the last segment as a new segment of `table` and (re)creates
 * the raw table's views over the segments. `before`: where the indexers stood before this run
 * indexed (indexerPositions), so a checkpoint moved back is seen.
 */
export async function appendLiveSegment(ctx: IngestContext, table: LiveTable, before: Positions, run: LiveRun): Promise<LiveSegmentRun> {
  const c = ctx.connection;
  const name = table.raw.name;
  if (!ctx.warehouseDir) {
    throw new Error(
      `${name}: the live source keeps its payments as segments beside the warehouse file (WAREHOUSE_DIR); an in-memory warehouse has no directory for them`,
    );
  }
  const segmentsDir = segmentsDirOf(ctx.warehouseDir);
  await table.ensure(c);
  await c.run(LEDGER_DDL);
  await c.run(`CREATE TABLE IF NOT EXISTS ${table.keys} (key UBIGINT)`);
  await c.run(MARKS);

  let ledger = await readLedger(c, name);
  removeUncommitted(segmentsDir, table.prefix, new Set(ledger.map((l) => l.segment)));
  const history = await count(c, table.count);
  const dir = ledger[0]?.dir;
  let fresh: string | null = null;
  if (dir === undefined) {
    if (history > 0)
      fresh = `this warehouse kept its live ${name} as a table rebuilt every run; its history is written once as the first segment`;
  } else if (!dir.startsWith('live:')) {
    fresh = `this warehouse's ${name} came from ${dir} before; the live history starts a new payment history`;
  }

  // the bound of each part: its mark, or its checkpoint before this run when that is lower (moved back)
  const marks = await marksOf(c, table);
  const bounds = new Map<string, number>();
  for (const [part, mark] of marks) {
    const was = before.get(part);
    if (was === undefined) continue; // no checkpoint: the part is read whole
    if (was < mark) ctx.log(`${name}: ${part} moved back from ${mark} to ${was}: what it indexes again is checked against the segments`);
    bounds.set(part, Math.min(mark, was));
  }

  const segmented = ledger.reduce((n, l) => n + Number(l.rows_loaded), 0);
  let historyId = dir !== undefined && fresh === null ? dir : newHistoryId();
  let done = await cut(ctx, table, { dir: historyId, bounds, fresh: fresh !== null || dir === undefined, segmented, segmentsDir, run });
  if (done === null) {
    fresh =
      `the kept history (${history} rows) is not the segments (${segmented} rows) plus the rows indexed since: ` +
      `rows were removed, or added below the marks, outside the indexers; the segments are written again from the history as a new payment history`;
    historyId = newHistoryId();
    done = await cut(ctx, table, { dir: historyId, bounds, fresh: true, segmented, segmentsDir, run });
    if (done === null) throw new Error(`${name}: the segments could not be written again from the kept history`);
  }
  if (fresh) ctx.log(`${name}: ${fresh}`);

  ledger = await readLedger(c, name);
  // the old history's segments, now that no ledger row names them
  removeUncommitted(segmentsDir, table.prefix, new Set(ledger.map((l) => l.segment)));
  await createViews(c, table, segmentsDir, ledger, done.segment);
  const rows = ledger.reduce((n, l) => n + Number(l.rows_loaded), 0);
  ctx.log(
    `${name}: ${done.segment ? `segment ${done.segment}: ${done.added} rows added` : 'nothing new'}` +
      (done.rejected ? `, ${done.rejected} indexed again that a segment already holds (not added)` : '') +
      `; ${ledger.length} segment(s), ${rows} rows in all`,
  );
  return { rows, added: done.added, rejected: done.rejected };
}

async function createViews(
  c: DuckDBConnection,
  table: LiveTable,
  segmentsDir: string,
  ledger: readonly LedgerRow[],
  added: string | null,
): Promise<void> {
  const all = ledger.map((l) => ({ batch: Number(l.batch), path: join(segmentsDir, l.segment) }));
  await createSegmentViews(c, table.raw, 'live', all, added ? [join(segmentsDir, added)] : []);
}

/** The raw table's views over the segments committed so far (after a failed cut: what is known is still read). */
export async function viewsOverCommitted(ctx: IngestContext, table: LiveTable): Promise<number> {
  if (!ctx.warehouseDir) return 0;
  const ledger = await readLedger(ctx.connection, table.raw.name);
  await createViews(ctx.connection, table, segmentsDirOf(ctx.warehouseDir), ledger, null);
  return ledger.reduce((n, l) => n + Number(l.rows_loaded), 0);
}
