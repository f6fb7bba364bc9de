/**
 * Test support: two published versions of a service hold the same datasets, read as users read
 * them (tables through the snapshot reader, which merges parts and delta files; documents as JSON).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { expect } from 'vitest';
import { queryJson } from '../../lib/duckdb.ts';
import type { SnapshotManifest } from '../manifest.ts';
import { loadVersion, parquetSql } from '../reader.ts';

/** A published version: its snapshot root and manifest. */
export interface Published {
  snapshotsDir: string;
  manifest: SnapshotManifest;
}

/** A dataset's rows in a canonical order (tables, merged as the reader merges them) or its document. */
export async function datasetContent(connection: DuckDBConnection, at: Published, name: string): Promise<unknown> {
  const { snapshotsDir, manifest } = at;
  const entry = manifest.datasets.find((d) => d.name === name)!;
  if (entry.format === 'json') {
    return JSON.parse(readFileSync(join(snapshotsDir, manifest.service, manifest.version, entry.file), 'utf8')) as unknown;
  }
  const version = await loadVersion(snapshotsDir, manifest.service, manifest.version);
  const columns = entry.schema.map((c) => `"${c.name}"`).join(', ');
  return queryJson(connection, `SELECT ${columns} FROM ${parquetSql(version.datasets.get(name)!)} ORDER BY ALL`);
}

/**
 * Every dataset of `a` has the name, rows, columns and content of `b`'s; returns the names whose
 * files differ in bytes (the same content in other files, such as a table with delta files).
 */
export async function expectSameContent(connection: DuckDBConnection, a: Published, b: Published): Promise<string[]> {
  expect(a.manifest.datasets.map((d) => d.name)).toEqual(b.manifest.datasets.map((d) => d.name));
  const differentBytes: string[] = [];
  for (const entry of a.manifest.datasets) {
    const other = b.manifest.datasets.find((d) => d.name === entry.name)!;
    expect({ name: entry.name, rows: entry.rows, schema: entry.schema }).toEqual({
      name: other.name,
      rows: other.rows,
      schema: other.schema,
    });
    if (entry.sha256 === other.sha256) continue;
    differentBytes.push(entry.name);
    expect({ name: entry.name, content: await datasetContent(connection, a, entry.name) }).toEqual({
      name: entry.name,
      content: await datasetContent(connection, b, entry.name),
    });
  }
  return differentBytes;
}
