/**
 * The downloads as a researcher meets them: a demo analytics snapshot built into a temporary
 * folder, its free datasets written by writeDownloads, then every file read back in DuckDB:
 * row counts as downloads.json states, typed columns (timestamps, dates, lists, structs, maps),
 * no API helper columns, the key-value metadata, and bytes and sha256 that match the files.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase, queryJson, sqlString } from '../../lib/duckdb.ts';
import { sharedDemoSnapshots } from '../../pipelines/testing/shared-demo.ts';
import { loadLatest, type LoadedSnapshot } from '../../snapshots/reader.ts';
import { DOWNLOADS_INDEX_FILE, type DownloadsIndex, readDownloadsIndex, writeDownloads } from './downloads.ts';

const FREE = [
  'categories',
  'category-detail',
  'landing-stats',
  'operators',
  'service-detail',
  'service-health',
  'services',
  'trends',
  'wash-report',
];

let root: string;
let snapshot: LoadedSnapshot;
let dir: string;
let index: DownloadsIndex;
let db: Database;

beforeAll(async () => {
  const published = await sharedDemoSnapshots('downloads-test-');
  root = published.root;
  const settings = published.settings;
  const loaded = await loadLatest(settings.snapshotsDir, 'analytics');
  if (!loaded) throw new Error('the demo run published no analytics snapshot');
  snapshot = loaded;
  dir = join(root, 'site', 'downloads', snapshot.version);
  index = await writeDownloads(snapshot, dir);
  db = await openDatabase(':memory:');
  await db.connection.run(`SET TimeZone = 'UTC'`);
}, 240_000);

afterAll(() => {
  db?.close();
  rmSync(root, { recursive: true, force: true });
});

const rowsOf = (sql: string) => queryJson(db.connection, sql);
const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
const parquet = (name: string) => `read_parquet(${sqlString(join(dir, `${name}.parquet`))})`;
const datasetOf = (name: string) => {
  const d = index.datasets.find((x) => x.name === name);
  if (!d) throw new Error(`downloads.json has no ${name}`);
  return d;
};
/** Column name → DuckDB type, as DuckDB reads the file back. */
async function typesOf(relation: string): Promise<Map<string, string>> {
  const rows = await rowsOf(`DESCRIBE SELECT * FROM ${relation}`);
  return new Map(rows.map((r) => [String(r.column_name), String(r.column_type)]));
}

describe('writeDownloads', () => {
  it('writes JSON, CSV and Parquet for every free dataset and nothing paid', () => {
    expect(index.datasets.map((d) => d.name).sort()).toEqual(FREE);
    const expected = [DOWNLOADS_INDEX_FILE, ...FREE.flatMap((n) => [`${n}.csv`, `${n}.json`, `${n}.parquet`])].sort();
    expect(readdirSync(dir).sort()).toEqual(expected);
    // the written index is the returned one, and checks against its schema
    expect(readDownloadsIndex(dir)).toEqual(index);
    expect(index).toMatchObject({ version: snapshot.version, source: 'demo', license: { id: 'CC0-1.0' } });
    expect(index.notice).toMatch(/demo/i);
    // nothing left beside the folder: the staging folder was renamed into place
    expect(readdirSync(join(root, 'site', 'downloads'))).toEqual([snapshot.version]);
  });

  it('states bytes and sha256 that match each file', () => {
    for (const d of index.datasets) {
      expect(d.files.map((f) => f.format).sort()).toEqual(['csv', 'json', 'parquet']);
      for (const f of d.files) {
        const bytes = readFileSync(join(dir, f.file));
        expect(f.bytes, f.file).toBe(statSync(join(dir, f.file)).size);
        expect(f.sha256, f.file).toBe(createHash('sha256').update(bytes).digest('hex'));
      }
    }
  });

  it('loads every Parquet and CSV file in DuckDB with the row count downloads.json states', async () => {
    for (const d of index.datasets) {
      const [p] = await rowsOf(`SELECT count(*)::INTEGER AS n FROM ${parquet(d.name)}`);
      const [c] = await rowsOf(`SELECT count(*)::INTEGER AS n FROM read_csv(${sqlString(join(dir, `${d.name}.csv`))})`);
      expect(p!.n, `${d.name}.parquet`).toBe(d.rows);
      expect(c!.n, `${d.name}.csv`).toBe(d.rows);
      if (d.kind === 'table') {
        const rows = JSON.parse(readFileSync(join(dir, `${d.name}.json`), 'utf8')) as unknown[];
        expect(rows, `${d.name}.json`).toHaveLength(d.rows);
        expect(d.rows).toBe(snapshot.datasets.get(d.name)!.entry.rows);
      }
    }
    // documents: one row per category, one row for the others
    expect(datasetOf('categories').rows).toBe(33);
    for (const name of ['landing-stats', 'trends', 'wash-report']) expect(datasetOf(name).rows).toBe(1);
  });

  it('types timestamps, dates and nested values, and says so in downloads.json', async () => {
    const services = await typesOf(parquet('services'));
    expect(services.get('first_seen')).toBe('TIMESTAMP WITH TIME ZONE');
    expect(services.get('last_tx_at')).toBe('TIMESTAMP WITH TIME ZONE');
    expect(services.get('label_distribution')).toBe('MAP(VARCHAR, DOUBLE)');
    const detail = await typesOf(parquet('service-detail'));
    expect(detail.get('daily_series')).toMatch(/^STRUCT\(date DATE, tx_count BIGINT, volume DOUBLE, .*\)\[\]$/);
    expect(detail.get('top_buyers')).toMatch(/^STRUCT\(address VARCHAR, "label" VARCHAR, .*\)\[\]$/);
    // the service itself is the services row of the same id, not repeated here
    expect([...detail.keys()]).toEqual(['id', 'daily_series', 'top_buyers']);
    expect((await typesOf(parquet('landing-stats'))).get('last_updated')).toBe('TIMESTAMP WITH TIME ZONE');
    expect((await typesOf(parquet('category-detail'))).get('top_services')).toContain('label_distribution MAP(VARCHAR, DOUBLE)');
    // nothing stays JSON text
    for (const d of index.datasets) {
      for (const [column, type] of await typesOf(parquet(d.name))) expect(type, `${d.name}.${column}`).not.toMatch(/JSON/);
      expect(new Map(d.columns.map((c) => [c.name, c.type]))).toEqual(await typesOf(parquet(d.name)));
    }
    // CSV: DuckDB reads the timestamps back as instants too
    expect((await typesOf(`read_csv(${sqlString(join(dir, 'services.csv'))})`)).get('first_seen')).toBe('TIMESTAMP WITH TIME ZONE');
  });

  it('keeps the values: typed cells equal the snapshot, lists and maps queryable', async () => {
    const stored = snapshot.datasets.get('services')!.path;
    const [mismatch] = await rowsOf(
      `SELECT count(*)::INTEGER AS n FROM ${parquet('services')} d JOIN read_parquet(${sqlString(stored)}) s USING (id)
        WHERE d.first_seen <> s.first_seen::TIMESTAMPTZ OR d.label_distribution <> from_json(s.label_distribution, '"MAP(VARCHAR, DOUBLE)"')`,
    );
    expect(mismatch!.n).toBe(0);
    const [busiest] = await rowsOf(
      `SELECT id, len(daily_series)::INTEGER AS days, daily_series[30].date = DATE '2026-11-20' AS ends_today,
              len(top_buyers)::INTEGER AS buyers, list_sum(list_transform(daily_series, d -> d.tx_count))::INTEGER AS tx_30d,
              top_buyers[1].label AS label
         FROM ${parquet('service-detail')} JOIN ${parquet('services')} s USING (id) ORDER BY s.tx_total DESC, id LIMIT 1`,
    );
    expect(busiest).toMatchObject({ days: 30, ends_today: true });
    expect(busiest!.buyers).toBeGreaterThan(0);
    expect(typeof busiest!.label).toBe('string');
    // the same numbers as the API's JSON text for that service
    const [storedDetail] = await rowsOf(
      `SELECT daily_series FROM read_parquet(${sqlString(snapshot.datasets.get('service-detail')!.path)}) WHERE id = ${Number(busiest!.id)}`,
    );
    const series = JSON.parse(String(storedDetail!.daily_series)) as Array<{ tx_count: number }>;
    expect(busiest!.tx_30d).toBe(series.reduce((sum, day) => sum + day.tx_count, 0));
    // the JSON download holds the same typed values, timestamps as the API writes them
    const json = JSON.parse(readFileSync(join(dir, 'services.json'), 'utf8')) as Array<Record<string, unknown>>;
    const first = json[0]!;
    expect(first.first_seen).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/);
    expect(typeof first.label_distribution).toBe('object');
    const detailJson = JSON.parse(readFileSync(join(dir, 'service-detail.json'), 'utf8')) as Array<{
      daily_series: Array<{ date: string }>;
    }>;
    expect(detailJson[0]!.daily_series).toHaveLength(30);
    expect(detailJson[0]!.daily_series[0]!.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    // documents are published as they are
    expect(readFileSync(join(dir, 'trends.json'))).toEqual(readFileSync(snapshot.datasets.get('trends')!.path));
  });

  it("reads every CSV back with DuckDB's CSV reader and a JSON parse of the nested columns: the Parquet's values", async () => {
    for (const d of index.datasets) {
      const csvPath = join(dir, `${d.name}.csv`);
      const nested = d.columns.filter((c) => /[[\]]$|^(STRUCT|MAP)\(/.test(c.type));
      // the header row names the columns, in order
      expect(readFileSync(csvPath, 'utf8').split('\n')[0], d.name).toBe(d.columns.map((c) => c.name).join(','));
      // "" is an empty text, an empty cell a null (DuckDB reads "" as null unless told)
      const csv = `read_csv(${sqlString(csvPath)}, allow_quoted_nulls = false)`;
      const raw = readFileSync(csvPath, 'utf8');
      // every nested cell is JSON text (a map a JSON object), every timestamp ISO 8601 with Z
      const cells = await rowsOf(`SELECT ${d.columns.map((c) => `${ident(c.name)}::VARCHAR AS ${ident(c.name)}`).join(', ')} FROM ${csv}`);
      for (const row of cells) {
        for (const c of nested) {
          const text = row[c.name];
          if (text === null) continue;
          const parsed = JSON.parse(String(text)) as unknown;
          if (c.type.startsWith('MAP('))
            expect(parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed), `${d.name}.${c.name}`).toBe(true);
        }
        for (const c of d.columns.filter((x) => x.type === 'TIMESTAMP WITH TIME ZONE')) {
          if (row[c.name] !== null) expect(Number.isNaN(Date.parse(String(row[c.name]))), `${d.name}.${c.name}`).toBe(false);
        }
      }
      expect(raw, d.name).not.toMatch(/\d{2}:\d{2}:\d{2}(\.\d+)?\+00\b/);
      expect(raw, d.name).not.toMatch(/\{[a-z_]+=|\[\{'/);
      // typed back (nested columns through their JSON), the rows equal the Parquet's, as multisets
      const typed = d.columns
        .map((c) => `CAST(${ident(c.name)}${nested.includes(c) ? '::JSON' : ''} AS ${c.type}) AS ${ident(c.name)}`)
        .join(', ');
      const [diff] = await rowsOf(
        `WITH c AS (SELECT ${typed} FROM ${csv}), p AS (SELECT * FROM ${parquet(d.name)})
         SELECT (SELECT count(*) FROM (SELECT * FROM p EXCEPT ALL SELECT * FROM c))::INTEGER AS only_parquet,
                (SELECT count(*) FROM (SELECT * FROM c EXCEPT ALL SELECT * FROM p))::INTEGER AS only_csv`,
      );
      expect(diff, d.name).toEqual({ only_parquet: 0, only_csv: 0 });
    }
  });

  it('leaves out the columns that exist only for the API: name_sort, search_text, active, price_bucket', async () => {
    for (const d of index.datasets) {
      const columns = [...(await typesOf(parquet(d.name))).keys()];
      for (const helper of ['name_sort', 'search_text', 'active', 'price_bucket']) expect(columns, d.name).not.toContain(helper);
    }
    const csvHeader = readFileSync(join(dir, 'services.csv'), 'utf8').split('\n')[0]!.split(',');
    expect(csvHeader).not.toContain('search_text');
    expect(csvHeader).toContain('is_placeholder');
  });

  it('puts license, source, as_of, dataset, version and description into the Parquet key-value metadata', async () => {
    for (const d of index.datasets) {
      const rows = await rowsOf(
        `SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata(${sqlString(join(dir, `${d.name}.parquet`))})`,
      );
      const kv = Object.fromEntries(rows.map((r) => [String(r.k), String(r.v)]));
      expect(kv, d.name).toMatchObject({
        dataset: d.name,
        description: d.description,
        license: 'CC0-1.0',
        license_url: 'https://creativecommons.org/publicdomain/zero/1.0/',
        source: 'demo',
        as_of: d.as_of,
        snapshot_version: snapshot.version,
      });
      expect(kv.notice).toMatch(/demo/i);
      const described = JSON.parse(kv.column_descriptions!) as Record<string, string>;
      for (const c of d.columns) if (c.description) expect(described[c.name]).toBe(c.description);
    }
    // the catalog's descriptions reach the columns
    const services = datasetOf('services').columns;
    expect(services.find((c) => c.name === 'first_seen')?.description).toBe('When the index first saw the service.');
    expect(services.find((c) => c.name === 'tx_30d')?.description).toBeDefined();
  });

  it('replaces a folder written before, and leaves none behind when it fails', async () => {
    const again = await writeDownloads(snapshot, dir);
    // same snapshot, same index and, file for file, the same bytes
    expect(again).toEqual(index);
    expect(readdirSync(join(root, 'site', 'downloads'))).toEqual([snapshot.version]);

    // a plan missing for a free dataset stops the build before anything is written
    const unplanned: LoadedSnapshot = {
      ...snapshot,
      manifest: {
        ...snapshot.manifest,
        datasets: [
          ...snapshot.manifest.datasets,
          { ...snapshot.manifest.datasets.find((d) => d.name === 'trends')!, name: 'new-free-thing' },
        ],
      },
    };
    const target = join(root, 'site', 'downloads', 'broken');
    await expect(writeDownloads(unplanned, target)).rejects.toThrow(/no download plan.*new-free-thing/);
    // a file that cannot be read half way through: the staging folder goes, no folder appears
    const datasets = new Map(snapshot.datasets);
    datasets.set('wash-report', { ...datasets.get('wash-report')!, path: join(root, 'gone.json') });
    await expect(writeDownloads({ ...snapshot, datasets }, target)).rejects.toThrow(/gone\.json/);
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(join(root, 'site', 'downloads'))).toEqual([snapshot.version]);
  });
});
