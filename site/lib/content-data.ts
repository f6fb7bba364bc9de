/**
 * Build-time data of the content pages (trends, wash report, downloads): the analytics snapshot
 * version the build renders (SITE_SNAPSHOTS_DIR + SITE_VERSION, or the live version when
 * SITE_VERSION is unset), verified through snapshots/reader.ts, and the downloads index the
 * downloads step wrote for it (SITE_DOWNLOADS_DIR/<version>/downloads.json) with the other
 * versions kept beside it. Loaded once per build and memoized.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ANALYTICS_RESPONSES } from '../../catalog/analytics.ts';
import { CATEGORIES } from '../../catalog/categories.ts';
import { loadSettings } from '../../lib/config.ts';
import { type LoadedSnapshot, loadVersion, readLatestPointer } from '../../snapshots/reader.ts';

export interface SiteEnv {
  snapshotsDir: string;
  version: string | null;
  downloadsDir: string | null;
}

export function siteEnv(env: NodeJS.ProcessEnv = process.env): SiteEnv {
  return {
    snapshotsDir: env.SITE_SNAPSHOTS_DIR ?? loadSettings().snapshotsDir,
    version: env.SITE_VERSION || null,
    downloadsDir: env.SITE_DOWNLOADS_DIR || null,
  };
}

let snapshotPromise: Promise<LoadedSnapshot | null> | null = null;

/** The snapshot this build renders; null when the analytics service has never been published. */
export function renderedSnapshot(): Promise<LoadedSnapshot | null> {
  snapshotPromise ??= (async () => {
    const { snapshotsDir, version } = siteEnv();
    if (version) return loadVersion(snapshotsDir, 'analytics', version);
    const pointer = readLatestPointer(snapshotsDir, 'analytics');
    return pointer ? loadVersion(snapshotsDir, 'analytics', pointer.version, pointer.manifest_sha256) : null;
  })();
  return snapshotPromise;
}

function document<T extends z.ZodType>(snapshot: LoadedSnapshot, name: string, schema: T): z.infer<T> {
  const loaded = snapshot.datasets.get(name);
  if (!loaded || loaded.document === undefined) throw new Error(`analytics snapshot ${snapshot.version} has no ${name} document`);
  const parsed = schema.safeParse(loaded.document);
  if (!parsed.success) {
    throw new Error(`analytics snapshot ${snapshot.version}: ${name} does not match its catalog schema: ${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
}

export type TrendsDocument = z.infer<typeof ANALYTICS_RESPONSES.TrendsBody>;
export type WashReportDocument = z.infer<typeof ANALYTICS_RESPONSES.WashReportBody>;

export async function trendsDocument(): Promise<TrendsDocument | null> {
  const snapshot = await renderedSnapshot();
  return snapshot ? document(snapshot, 'trends', ANALYTICS_RESPONSES.TrendsBody) : null;
}

export async function washReportDocument(): Promise<WashReportDocument | null> {
  const snapshot = await renderedSnapshot();
  return snapshot ? document(snapshot, 'wash-report', ANALYTICS_RESPONSES.WashReportBody) : null;
}

export interface Freshness {
  version: string;
  source: string;
  as_of: string;
  generated_at: string;
  next_expected_update: string;
  notice: string | null;
}

export async function snapshotFreshness(): Promise<Freshness | null> {
  const snapshot = await renderedSnapshot();
  if (!snapshot) return null;
  const m = snapshot.manifest;
  const asOf = m.datasets.map((d) => d.as_of).sort();
  const sources = [...new Set(m.datasets.map((d) => d.source))];
  return {
    version: m.version,
    source: sources.join(', '),
    as_of: asOf.at(-1) ?? m.generated_at,
    generated_at: m.generated_at,
    next_expected_update: m.next_expected_update,
    notice: m.notice ?? null,
  };
}

// ------------------------------------------------------------------ downloads

/** downloads.json as the downloads step writes it (architecture: DownloadsIndex). */
export const DownloadsIndexSchema = z.object({
  version: z.string(),
  generated_at: z.string(),
  as_of: z.string(),
  source: z.enum(['demo', 'live', 'file']),
  license: z.object({ id: z.literal('CC0-1.0'), name: z.string(), url: z.string() }),
  datasets: z.array(
    z.object({
      name: z.string(),
      description: z.string(),
      kind: z.string(),
      rows: z.number().int().min(0),
      as_of: z.string(),
      columns: z.array(z.object({ name: z.string(), type: z.string(), description: z.string().optional() })),
      files: z.array(
        z.object({
          format: z.enum(['json', 'csv', 'parquet']),
          file: z.string(),
          bytes: z.number().int().min(0),
          sha256: z.string().regex(/^[0-9a-f]{64}$/),
        }),
      ),
    }),
  ),
});
export type DownloadsIndex = z.infer<typeof DownloadsIndexSchema>;

function readDownloadsIndex(path: string): DownloadsIndex {
  const parsed = DownloadsIndexSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  if (!parsed.success) throw new Error(`downloads.json of ${path.split('/').at(-2)} is malformed: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

export interface DownloadsPageData {
  current: DownloadsIndex | null;
  /** Other versions whose downloads are kept, newest first. */
  past: Array<{ version: string; as_of: string; datasets: number }>;
}

/** The downloads of the rendered version and the past versions beside it. */
export async function downloadsPageData(): Promise<DownloadsPageData> {
  const { downloadsDir } = siteEnv();
  const snapshot = await renderedSnapshot();
  if (!downloadsDir || !snapshot || !existsSync(downloadsDir)) return { current: null, past: [] };
  const currentPath = join(downloadsDir, snapshot.version, 'downloads.json');
  const current = existsSync(currentPath) ? readDownloadsIndex(currentPath) : null;
  const past = readdirSync(downloadsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== snapshot.version && existsSync(join(downloadsDir, d.name, 'downloads.json')))
    .map((d) => readDownloadsIndex(join(downloadsDir, d.name, 'downloads.json')))
    .map((index) => ({ version: index.version, as_of: index.as_of, datasets: index.datasets.length }))
    .sort((a, b) => b.version.localeCompare(a.version));
  return { current, past };
}

// ------------------------------------------------------------------ words and numbers on the pages

const CATEGORY_TITLES: ReadonlyMap<string, string> = new Map(CATEGORIES.map((c) => [c.slug, c.title]));

export function categoryTitle(slug: string): string {
  return CATEGORY_TITLES.get(slug) ?? slug;
}

export const formatCount = (n: number): string => n.toLocaleString('en-US');
export const formatUsdc = (n: number): string =>
  n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: n !== 0 && Math.abs(n) < 1 ? 4 : 2 });
export const formatPct = (n: number): string => `${n.toLocaleString('en-US', { maximumFractionDigits: 2 })}%`;
/** A change in percent with its sign, e.g. +100%, -12.5%. */
export const formatChange = (n: number): string => `${n > 0 ? '+' : ''}${formatPct(n)}`;
export const formatPrice = (n: number | null): string =>
  n === null ? 'unknown' : `$${n.toLocaleString('en-US', { maximumFractionDigits: 6 })}`;

/** The footer line of every page: when the data is from, when the next update is due, which version. */
export function freshnessLine(f: Freshness): string {
  return `Data as of ${f.as_of} · built ${f.generated_at} · next update expected ${f.next_expected_update} · ${f.source} data · snapshot ${f.version}`;
}

export const LICENSE_LINE = 'Free datasets: CC0 1.0 public-domain dedication. Paid slices are sold per call through x402.';
