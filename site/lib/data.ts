/**
 * Build-time data of the site: one analytics snapshot version, loaded once per build and verified
 * (sha256 of every file) through snapshots/reader.ts. Which version: the build process sets
 * SITE_SNAPSHOTS_DIR and SITE_VERSION (the version being published may not be live yet); without
 * SITE_VERSION the live version named by latest.json is used (handy for `astro dev`).
 *
 * Documents are parsed JSON checked against the API's own response schemas (catalog/analytics.ts),
 * so a page shows what the API answers. Tables are read from Parquet with ONE DuckDB instance and
 * shaped in SQL (the services index is built as column arrays by DuckDB itself); every accessor is
 * memoized, so 30,000 service pages cost one query, not 30,000. Nothing here is bundled as data:
 * the files are read at build time from disk, outside Vite's module graph.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { z } from 'zod';
import {
  ANALYTICS_ENDPOINTS,
  ANALYTICS_RESPONSES,
  type ColumnOf,
  SERVICE_LIST_ITEM_COLUMNS,
  ServiceHealthRow,
  selectList,
} from '../../catalog/analytics.ts';
import { CATEGORIES, type CategorySlug } from '../../catalog/categories.ts';
import { loadSettings } from '../../lib/config.ts';
import { openDatabase } from '../../lib/duckdb.ts';
import type { SnapshotManifest } from '../../snapshots/manifest.ts';
import { loadVersion, parquetSql, readLatestPointer, type LoadedSnapshot } from '../../snapshots/reader.ts';

const SERVICE = 'analytics';

export type LandingStats = z.infer<typeof ANALYTICS_RESPONSES.LandingStatsBody>['stats'];
export type CategoryStats = z.infer<typeof ANALYTICS_RESPONSES.CategoriesBody>['categories'][number];
export type CategoryDetail = Omit<z.infer<typeof ANALYTICS_RESPONSES.CategoryDetailBody>, 'source' | 'as_of'>;
export type ServiceListItem = z.infer<typeof ANALYTICS_RESPONSES.ServiceListItem>;
export type Trends = z.infer<typeof ANALYTICS_RESPONSES.TrendsBody>;
export type WashReport = z.infer<typeof ANALYTICS_RESPONSES.WashReportBody>;
type ServiceDetailBody = z.infer<typeof ANALYTICS_RESPONSES.ServiceDetailBody>;
/** A top buyer; `label` is present once the service-detail dataset carries it. */
export type TopBuyer = ServiceDetailBody['top_buyers'][number] & { label?: string | null };
export interface ServiceDetail {
  service: ServiceDetailBody['service'];
  daily_series: ServiceDetailBody['daily_series'];
  top_buyers: TopBuyer[];
}
export type DataSource = 'demo' | 'live' | 'file';

/** A row of the services table: the API's list item plus the list columns the site filters on. */
export interface ServiceRow extends ServiceListItem {
  price_bucket: string;
  is_placeholder: boolean;
  active: boolean;
  tx_30d: number;
  volume_30d: number;
}

export interface Freshness {
  /** The newest `as_of` of the snapshot's datasets: the time the data describes. */
  as_of: string;
  generated_at: string;
  next_expected_update: string;
  version: string;
  source: DataSource;
  /** The manifest's notice (set for demo data: it says the data is synthetic). */
  notice: string | null;
  /** The day state the labels' cohort evidence is of (the start of a UTC day), when the snapshot says. */
  cohort_state_as_of: string | null;
}

/** A paid endpoint that sells more about one service, with its price. */
export interface ServiceOffer {
  id: string;
  method: string;
  /** Path with the service id filled in. */
  path: string;
  summary: string;
  priceUsd: string;
}

/** Where the build reads from (architecture: SITE_SNAPSHOTS_DIR, SITE_VERSION, SITE_DOWNLOADS_DIR). */
export interface SiteEnv {
  snapshotsRoot: string;
  /** null: the live version of latest.json. */
  version: string | null;
  /** `SITE_DIR/downloads`; null when the build has no downloads folder. */
  downloadsDir: string | null;
}

export function siteEnv(env: NodeJS.ProcessEnv = process.env): SiteEnv {
  const snapshotsRoot = env.SITE_SNAPSHOTS_DIR ? resolve(env.SITE_SNAPSHOTS_DIR) : loadSettings().snapshotsDir;
  return {
    snapshotsRoot,
    version: env.SITE_VERSION || null,
    downloadsDir: env.SITE_DOWNLOADS_DIR ? resolve(env.SITE_DOWNLOADS_DIR) : null,
  };
}

// ------------------------------------------------------------------ the snapshot, once per build

let snapshotPromise: Promise<LoadedSnapshot> | null = null;

async function loadSnapshot(): Promise<LoadedSnapshot> {
  const { snapshotsRoot, version } = siteEnv();
  const pointer = readLatestPointer(snapshotsRoot, SERVICE);
  const wanted = version ?? pointer?.version;
  if (!wanted) throw new Error('no analytics snapshot is published yet and SITE_VERSION is not set: run `npm run pipeline -- analytics`');
  // the pointer's manifest sha256 vouches for the manifest only when it names this version
  return loadVersion(snapshotsRoot, SERVICE, wanted, pointer?.version === wanted ? pointer.manifest_sha256 : undefined);
}

/** The verified snapshot this build renders. */
export function snapshot(): Promise<LoadedSnapshot> {
  snapshotPromise ??= loadSnapshot();
  return snapshotPromise;
}

export async function manifest(): Promise<SnapshotManifest> {
  return (await snapshot()).manifest;
}

export async function freshness(): Promise<Freshness> {
  const m = await manifest();
  const asOf = m.datasets
    .map((d) => d.as_of)
    .sort()
    .at(-1);
  return {
    as_of: asOf ?? m.generated_at,
    generated_at: m.generated_at,
    next_expected_update: m.next_expected_update,
    version: m.version,
    source: m.datasets[0]?.source ?? 'live',
    notice: m.notice,
    cohort_state_as_of: m.datasets.find((d) => d.cohort_state_as_of)?.cohort_state_as_of ?? null,
  };
}

async function documentOf<S extends z.ZodType>(name: string, schema: S): Promise<z.infer<S>> {
  const loaded = (await snapshot()).datasets.get(name);
  if (!loaded || loaded.document === undefined) throw new Error(`analytics snapshot has no ${name} document`);
  const parsed = schema.safeParse(loaded.document);
  if (!parsed.success) throw new Error(`${name}: does not match the API's response schema: ${parsed.error.message}`);
  return parsed.data;
}

function memo<T>(load: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | null = null;
  return () => {
    value ??= load();
    return value;
  };
}

// ------------------------------------------------------------------ documents

export const landingStats = memo(
  async (): Promise<LandingStats> => (await documentOf('landing-stats', ANALYTICS_RESPONSES.LandingStatsBody)).stats,
);

export const categories = memo(
  async (): Promise<CategoryStats[]> => (await documentOf('categories', ANALYTICS_RESPONSES.CategoriesBody)).categories,
);

export const trends = memo((): Promise<Trends> => documentOf('trends', ANALYTICS_RESPONSES.TrendsBody));

export const washReport = memo((): Promise<WashReport> => documentOf('wash-report', ANALYTICS_RESPONSES.WashReportBody));

// ------------------------------------------------------------------ tables (one DuckDB instance)

let duckPromise: Promise<{ instance: DuckDBInstance; connection: DuckDBConnection }> | null = null;

function duck(): Promise<DuckDBConnection> {
  duckPromise ??= openDatabase(':memory:', { threads: '2', autoinstall_known_extensions: 'false' });
  return duckPromise.then((d) => d.connection);
}

/** read_parquet over a table of the snapshot (its one file, or every part of a partitioned table). */
async function tableSource(name: string): Promise<string> {
  const loaded = (await snapshot()).datasets.get(name);
  if (!loaded || loaded.entry.kind !== 'table') throw new Error(`analytics snapshot has no ${name} table`);
  return parquetSql(loaded);
}

function parseJson<T>(text: unknown, what: string): T {
  if (typeof text !== 'string') throw new Error(`${what}: expected JSON text`);
  // The pipeline wrote these columns to the API's response shapes (checked by its own tests);
  // parsing 30,000 of them through zod again would cost the build more than it checks.
  return JSON.parse(text) as T;
}

/** What the site reads of the services table: the list item (label_distribution as JSON text) and the columns it filters on. */
const SERVICE_COLUMNS = selectList(
  'services',
  [...SERVICE_LIST_ITEM_COLUMNS, 'price_bucket', 'is_placeholder', 'active', 'tx_30d', 'volume_30d'],
  { jsonAsText: true },
);

/** Every service, by 24-hour transactions descending, then id. */
export const services = memo(async (): Promise<ServiceRow[]> => {
  const connection = await duck();
  const reader = await connection.runAndReadAll(`SELECT ${SERVICE_COLUMNS} FROM ${await tableSource('services')} ORDER BY tx_24h DESC, id`);
  return reader.getRowObjectsJson().map((row) => ({
    ...(row as unknown as Omit<ServiceRow, 'label_distribution'>),
    label_distribution: parseJson<ServiceRow['label_distribution']>(row.label_distribution, 'services.label_distribution'),
  }));
});

/**
 * The browser table's index as column arrays (one array per field, rows in tx_24h order), built
 * by DuckDB in one statement: compact (no repeated keys) and quick to scan in the browser.
 * Internal helper columns (name_sort, search_text) are not published.
 */
export const servicesIndexJson = memo(async (): Promise<string> => {
  const connection = await duck();
  const reader = await connection.runAndReadAll(
    `WITH s AS (SELECT * FROM ${await tableSource('services')} ORDER BY tx_24h DESC, id)
     SELECT to_json(struct_pack(
       count := count(*)::INTEGER,
       columns := struct_pack(
         id := list(id), name := list(name),
         description := list(left(description, 140)), url := list(resource_url),
         category := list(category), chain := list(chain), price := list(price_amount), price_bucket := list(price_bucket),
         tx_24h := list(tx_24h), volume_24h := list(round(volume_24h, 6)), tx_total := list(tx_total),
         real_volume_pct := list(real_volume_pct), wash_pct := list(wash_pct),
         first_seen := list(left(first_seen, 10)), placeholder := list(is_placeholder)
       )))::VARCHAR AS doc FROM s`,
  );
  const doc = reader.getRows()[0]?.[0];
  if (typeof doc !== 'string') throw new Error('services index: DuckDB returned no document');
  return doc;
});

/** Services per id with their detail columns as JSON text, parsed per page on demand. */
const serviceDetailTexts = memo(async (): Promise<Map<number, [string, string, string]>> => {
  const connection = await duck();
  const reader = await connection.runAndReadAll(
    `SELECT ${selectList('service-detail', ['id', 'service', 'daily_series', 'top_buyers'], { jsonAsText: true })}
       FROM ${await tableSource('service-detail')}`,
  );
  const byId = new Map<number, [string, string, string]>();
  for (const [id, service, daily, buyers] of reader.getRows()) {
    byId.set(Number(id), [String(service), String(daily), String(buyers)]);
  }
  return byId;
});

/** An operator of the free operators dataset (pipelines/analytics/datasets/operators.ts), as the service page shows it. */
export interface OperatorRow {
  operator_id: string;
  sellers: string[];
  service_ids: number[];
  buyer_count: number;
  volume: number;
  wash_volume_pct: number;
  evidence: string[];
}

/** Listed operators by seller address (empty for a snapshot without the dataset). */
export const operatorsBySeller = memo(async (): Promise<Map<string, OperatorRow>> => {
  const bySeller = new Map<string, OperatorRow>();
  if (!(await snapshot()).datasets.has('operators')) return bySeller;
  const connection = await duck();
  const reader = await connection.runAndReadAll(
    `SELECT to_json(struct_pack(${selectList('operators', ['operator_id', 'sellers', 'service_ids', 'buyer_count', 'volume', 'wash_volume_pct', 'evidence'])}))::VARCHAR
       FROM ${await tableSource('operators')}`,
  );
  for (const [text] of reader.getRows()) {
    const row = parseJson<OperatorRow>(text, 'operators row');
    for (const seller of row.sellers) bySeller.set(seller, row);
  }
  return bySeller;
});

/** A service's row of the free service-health dataset, as its page shows it (catalog: ServiceHealthRow). */
export type ServiceHealth = z.infer<typeof ServiceHealthRow>;

/** service-health rows by service id (empty for a snapshot without the dataset). */
export const serviceHealthById = memo(async (): Promise<Map<number, ServiceHealth>> => {
  const byId = new Map<number, ServiceHealth>();
  if (!(await snapshot()).datasets.has('service-health')) return byId;
  const connection = await duck();
  const columns = Object.keys(ServiceHealthRow.shape) as ColumnOf<'service-health'>[];
  const reader = await connection.runAndReadAll(
    `SELECT to_json(struct_pack(${selectList('service-health', columns)}))::VARCHAR FROM ${await tableSource('service-health')}`,
  );
  for (const [text] of reader.getRows()) {
    const row = parseJson<ServiceHealth>(text, 'service-health row');
    byId.set(row.service_id, row);
  }
  return byId;
});

/** Ids of every service with a detail page. */
export async function serviceIds(): Promise<number[]> {
  return [...(await serviceDetailTexts()).keys()].sort((a, b) => a - b);
}

export async function serviceDetail(id: number): Promise<ServiceDetail | null> {
  const texts = (await serviceDetailTexts()).get(id);
  if (!texts) return null;
  return {
    service: parseJson<ServiceDetail['service']>(texts[0], `service-detail ${id}.service`),
    daily_series: parseJson<ServiceDetail['daily_series']>(texts[1], `service-detail ${id}.daily_series`),
    top_buyers: parseJson<TopBuyer[]>(texts[2], `service-detail ${id}.top_buyers`),
  };
}

const categoryDetails = memo(async (): Promise<Map<string, CategoryDetail>> => {
  const connection = await duck();
  const reader = await connection.runAndReadAll(
    `SELECT ${selectList('category-detail', ['slug', 'category', 'daily_series', 'top_services'], { jsonAsText: true })}
       FROM ${await tableSource('category-detail')}`,
  );
  const bySlug = new Map<string, CategoryDetail>();
  for (const [slug, category, daily, top] of reader.getRows()) {
    bySlug.set(String(slug), {
      category: parseJson<CategoryDetail['category']>(category, `category-detail ${slug}.category`),
      daily_series: parseJson<CategoryDetail['daily_series']>(daily, `category-detail ${slug}.daily_series`),
      top_services: parseJson<CategoryDetail['top_services']>(top, `category-detail ${slug}.top_services`),
    });
  }
  return bySlug;
});

export async function categoryDetail(slug: string): Promise<CategoryDetail | null> {
  return (await categoryDetails()).get(slug) ?? null;
}

/** Every category's detail, in the order of categories() (24-hour volume descending). */
export async function allCategoryDetails(): Promise<CategoryDetail[]> {
  const details = await categoryDetails();
  return (await categories()).map((c) => details.get(c.slug)).filter((d): d is CategoryDetail => d !== undefined);
}

const CATEGORY_TITLES = new Map<string, string>(CATEGORIES.map((c) => [c.slug, c.title]));

/** A category's name in words (the slug when unknown). */
export function categoryTitle(slug: string): string {
  return CATEGORY_TITLES.get(slug as CategorySlug) ?? slug;
}

/** The paid endpoints about one service (catalog paths with `:id`), with their prices. */
export function serviceOffers(id: number): ServiceOffer[] {
  return ANALYTICS_ENDPOINTS.filter((e) => e.access === 'paid' && e.path.includes(':id') && e.priceUsd !== undefined).map((e) => ({
    id: e.id,
    method: e.method,
    path: e.path.replace(':id', String(id)),
    summary: e.summary,
    priceUsd: e.priceUsd ?? '',
  }));
}

/** `<SITE_DOWNLOADS_DIR>/<version>/downloads.json` of this build, when the build wrote one. */
export async function downloadsIndexPath(): Promise<string | null> {
  const { downloadsDir } = siteEnv();
  if (!downloadsDir) return null;
  const path = join(downloadsDir, (await snapshot()).version, 'downloads.json');
  return existsSync(path) ? path : null;
}
