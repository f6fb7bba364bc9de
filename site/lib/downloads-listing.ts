/**
 * The downloads page's data: the downloads index the downloads step wrote for the rendered
 * version (`<SITE_DOWNLOADS_DIR>/<version>/downloads.json`, shape in the issue 14 architecture:
 * DownloadsIndex), checked against a schema so a malformed index fails the build with its
 * version named, and the other versions kept beside it (past versions, newest first).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { downloadsIndexPath, siteEnv, snapshot } from './data.ts';

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
  // the version folder's name, never the path: build errors may end up in logs others read
  if (!parsed.success)
    throw new Error(`downloads.json of version ${basename(dirname(path))} is malformed: ${z.prettifyError(parsed.error)}`);
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
  if (!downloadsDir || !existsSync(downloadsDir)) return { current: null, past: [] };
  const { version } = await snapshot();
  const currentPath = await downloadsIndexPath();
  const current = currentPath ? readDownloadsIndex(currentPath) : null;
  const past = readdirSync(downloadsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== version && existsSync(join(downloadsDir, d.name, 'downloads.json')))
    .map((d) => readDownloadsIndex(join(downloadsDir, d.name, 'downloads.json')))
    .map((index) => ({ version: index.version, as_of: index.as_of, datasets: index.datasets.length }))
    .sort((a, b) => b.version.localeCompare(a.version));
  return { current, past };
}
