/**
 * npm run demo-world -- --out DIR [korea|analytics|all] [--seed N] [--now ISO] [--scale N] [--format parquet|csv]
 *
 * Writes the demo world to files. The analytics part uses the file-import layout of the analytics
 * pipeline (`services`, `transactions`, `funding`, and `probes`: what the prober saw), so
 * `--source file:DIR` reads it back; the
 * planted ground truth goes to `DIR/truth/`, beside the data and never inside it. The korea part
 * writes one file per raw table under `DIR/korea/`. A `world.json` records the parameters.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { currentMinute, parseIntFlag, parseTimeFlag, splitArgs, UsageError } from '../../lib/args.ts';
import { appendRows, queryJson, sqlString, type Row } from '../../lib/duckdb.ts';
import { DEMO_TRUTH_TABLES, RAW_TABLES, type RawTable } from '../raw-tables.ts';
import { koreaWorld } from './korea/world.ts';
import { DEFAULT_SEED, type WorldOptions } from './world.ts';
import { x402World } from './analytics/world.ts';

const USAGE = 'usage: npm run demo-world -- --out DIR [korea|analytics|all] [--seed N] [--now ISO] [--scale N] [--format parquet|csv]';

interface ExportArgs extends WorldOptions {
  out: string;
  parts: ('korea' | 'analytics')[];
  format: 'parquet' | 'csv';
}

export function parseExportArgs(argv: readonly string[]): ExportArgs {
  const { positional, flags } = splitArgs(argv, ['out', 'seed', 'now', 'scale', 'format'], USAGE);
  const out = flags.get('out');
  if (!out) throw new UsageError(`--out DIR is required\n${USAGE}`);
  if (positional.length > 1) throw new UsageError(`name at most one part: korea, analytics or all\n${USAGE}`);
  const which = positional[0] ?? 'all';
  if (which !== 'korea' && which !== 'analytics' && which !== 'all') {
    throw new UsageError(`unknown part "${which}": expected korea, analytics or all\n${USAGE}`);
  }
  const format = flags.get('format') ?? 'parquet';
  if (format !== 'parquet' && format !== 'csv') throw new UsageError(`--format must be parquet or csv, got "${format}"`);
  const nowText = flags.get('now');
  return {
    out: resolve(out),
    parts: which === 'all' ? ['korea', 'analytics'] : [which],
    format,
    seed: parseIntFlag(flags, 'seed', DEFAULT_SEED, 0, 2 ** 32 - 1),
    scale: parseIntFlag(flags, 'scale', 1, 1, 1000),
    now: nowText === undefined ? currentMinute() : parseTimeFlag('now', nowText),
  };
}

/** Writes the world; returns the written files with their row counts. */
export async function exportWorld(args: ExportArgs): Promise<{ file: string; rows: number }[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const written: { file: string; rows: number }[] = [];
  const options = args.format === 'parquet' ? '(FORMAT parquet, COMPRESSION zstd)' : '(FORMAT csv, HEADER true)';
  const save = async (table: RawTable, rows: Iterable<Row>, dir: string, name: string) => {
    // Timestamps leave as ISO 8601 with offset, the import format's convention; `source` is
    // dropped: the files are the researcher's data now, and the import marks rows 'file'.
    const columns = table.columns
      .filter(([c]) => c !== 'source')
      .map(([c, type]) => (type === 'TIMESTAMP' ? `strftime(${c}, '%Y-%m-%dT%H:%M:%S.%g+00:00') AS ${c}` : c))
      .join(', ');
    await appendRows(connection, table, rows, { tableName: 'world_rows', create: true });
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${name}.${args.format}`);
    const [copied] = await queryJson(connection, `COPY (SELECT ${columns} FROM world_rows) TO ${sqlString(file)} ${options}`);
    written.push({ file, rows: Number(copied?.Count ?? 0) });
  };
  try {
    mkdirSync(args.out, { recursive: true });
    if (args.parts.includes('analytics')) {
      const world = x402World(args);
      await save(RAW_TABLES.x402_services, world.services, args.out, 'services');
      await save(RAW_TABLES.x402_transactions, world.transactions, args.out, 'transactions');
      await save(RAW_TABLES.wallet_funding, world.funding, args.out, 'funding');
      await save(RAW_TABLES.x402_probes, world.probes, args.out, 'probes');
      rmSync(join(args.out, 'truth'), { recursive: true, force: true });
      await save(DEMO_TRUTH_TABLES.demo_truth_buyers, world.truthBuyers, join(args.out, 'truth'), 'buyers');
      await save(DEMO_TRUTH_TABLES.demo_truth_pairs, world.truthPairs, join(args.out, 'truth'), 'pairs');
      await save(DEMO_TRUTH_TABLES.demo_truth_services, world.truthServices, join(args.out, 'truth'), 'services');
    }
    if (args.parts.includes('korea')) {
      const world = koreaWorld(args);
      for (const [name, rows] of Object.entries(world) as [keyof typeof world, Row[]][]) {
        await save(RAW_TABLES[name], rows, join(args.out, 'korea'), name);
      }
    }
    writeFileSync(
      join(args.out, 'world.json'),
      JSON.stringify(
        {
          generator: 'demo world',
          notice: 'Synthetic data from the seeded demo world: realistic shapes, not real market activity.',
          seed: args.seed,
          now: args.now.toISOString(),
          scale: args.scale,
          format: args.format,
          files: written.map((w) => ({ file: w.file.slice(args.out.length + 1), rows: w.rows })),
          truth_note:
            'truth/ holds the planted label of every buyer and pair and the planted health of every listing (dead, flaky, slow, unsignable, moved_payout, decoy, price_trap); it is for evaluation only.',
        },
        null,
        2,
      ) + '\n',
    );
    return written;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

if (process.argv[1]?.endsWith('sources/demo/cli.ts')) {
  try {
    const args = parseExportArgs(process.argv.slice(2));
    const t0 = performance.now();
    const written = await exportWorld(args);
    for (const w of written) console.log(`${w.rows.toLocaleString('en-US').padStart(12)}  ${w.file}`);
    console.log(
      `demo world (seed ${args.seed}, now ${args.now.toISOString()}, scale ${args.scale}) written in ${((performance.now() - t0) / 1000).toFixed(1)}s`,
    );
  } catch (err) {
    console.error((err as Error).message);
    process.exit(err instanceof UsageError ? 2 : 1);
  }
}
