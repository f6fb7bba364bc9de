/**
 * The downloads page's data: the downloads index the downloads step wrote for the rendered
 * version (`<SITE_DOWNLOADS_DIR>/<version>/downloads.json`, shape in the issue 14 architecture:
 * DownloadsIndex), checked against a schema so a malformed index fails the build with its
 * version named, and the other versions kept beside it (past versions, newest first).
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { downloadsIndexPath, siteEnv, snapshot } from './data.ts';
import { type DownloadsIndex, readDownloadsIndex } from './downloads.ts';

export type { DownloadsIndex };

export interface DownloadsPageData {
  current: DownloadsIndex | null;
  /** Other versions whose downloads are kept, newest first. */
  past: Array<{ version: string; as_of: string; datasets: number }>;
}

/** The downloads of the rendered version and the past versions beside it. */
export async function downloadsPageData(): Promise<DownloadsPageData> {
  const { downloadsDir } = siteEnv();
  if (!downloadsDir || !existsSync(downloadsDir)) return { current: null, past: [] };
  const { version } = await snapshot();
  const currentPath = await downloadsIndexPath();
  const current = currentPath ? readDownloadsIndex(dirname(currentPath)) : null;
  const past = readdirSync(downloadsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== version && existsSync(join(downloadsDir, d.name, 'downloads.json')))
    .map((d) => readDownloadsIndex(join(downloadsDir, d.name)))
    .map((index) => ({ version: index.version, as_of: index.as_of, datasets: index.datasets.length }))
    .sort((a, b) => b.version.localeCompare(a.version));
  return { current, past };
}
