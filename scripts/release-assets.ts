/**
 * npm run release-assets -- --out DIR
 *
 * Gathers what the pipelines workflow attaches to the "snapshots" release: for each service with
 * a live snapshot, its manifest (`<service>-manifest.json`) and the files of its free datasets
 * (`<service>-<file>`; catalog publicDownload; a table with delta files as its merged table,
 * `<service>-<dataset>.parquet`). Paid datasets are sold per call and never written.
 * Each live version is verified (checksums) first, so a release never carries a damaged file.
 */
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { findDataset } from '../catalog/datasets.ts';
import type { ServiceName } from '../catalog/types.ts';
import { splitArgs, UsageError } from '../lib/args.ts';
import { loadSettings } from '../lib/config.ts';
import { openDatabase, sqlString, type Database } from '../lib/duckdb.ts';
import { loadVersion, parquetSql, readLatestPointer } from '../snapshots/reader.ts';

const USAGE = 'usage: npm run release-assets -- --out DIR';
const SERVICES: readonly ServiceName[] = ['korea', 'analytics'];

export async function writeReleaseAssets(snapshotsDir: string, outDir: string): Promise<string[]> {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const written: string[] = [];
  const copy = (from: string, name: string) => {
    copyFileSync(from, join(outDir, name));
    written.push(name);
  };
  let db: Database | undefined;
  try {
    for (const service of SERVICES) {
      const pointer = readLatestPointer(snapshotsDir, service);
      if (!pointer) continue;
      const live = await loadVersion(snapshotsDir, service, pointer.version, pointer.manifest_sha256);
      copy(join(live.dir, 'manifest.json'), `${service}-manifest.json`);
      for (const data of live.datasets.values()) {
        const { entry, path, files } = data;
        if (!findDataset(service, entry.name)?.publicDownload) continue;
        if (entry.partitions?.deltas) {
          // parts and delta files: the merged table as one file (a download is always the whole table)
          const name = `${service}-${entry.name}.parquet`;
          db ??= await openDatabase(':memory:');
          await db.connection.run(
            `COPY (SELECT * FROM ${parquetSql(data)}) TO ${sqlString(join(outDir, name))} (FORMAT parquet, COMPRESSION zstd)`,
          );
          written.push(name);
        } else if (entry.partitions) {
          // a partitioned table is a directory: each part as its own asset, named by dataset and part
          entry.partitions.parts.forEach((p, i) => copy(files[i]!, `${service}-${entry.name}-${p.file}`));
        } else {
          copy(path, `${service}-${entry.file}`);
        }
      }
    }
  } finally {
    db?.close();
  }
  return written;
}

async function main(): Promise<void> {
  const { flags, positional } = splitArgs(process.argv.slice(2), ['out'], USAGE);
  const out = flags.get('out');
  if (!out || positional.length) throw new UsageError(USAGE);
  const written = await writeReleaseAssets(loadSettings().snapshotsDir, resolve(out));
  process.stdout.write(`${written.length} release assets: ${written.join(', ')}\n`);
}

if (process.argv[1]?.endsWith('scripts/release-assets.ts')) {
  main().catch((err: Error) => {
    process.stderr.write(`${err instanceof UsageError ? err.message : `release-assets failed: ${err.message}`}\n`);
    process.exit(err instanceof UsageError ? 2 : 1);
  });
}
