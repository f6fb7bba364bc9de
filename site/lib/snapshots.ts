/**
 * Build-time access to the published snapshots for the site: the live version of a service as the
 * proxy serves it, through the snapshot reader (latest.json and the manifest checked, every file's
 * sha256 verified), read from disk at build time and never bundled: large data stays out of
 * Vite's module graph.
 */
import { loadSettings } from '../../lib/config.ts';
import { loadLatest, type LoadedSnapshot } from '../../snapshots/reader.ts';

/**
 * The verified live snapshot of a service under the configured SNAPSHOTS_DIR, or null when the
 * service has never been published; throws when no version of it verifies.
 */
export function latestSnapshot(service: string): Promise<LoadedSnapshot | null> {
  return loadLatest(loadSettings().snapshotsDir, service);
}

export function humanBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let v = bytes / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(1)} ${units[i]}`;
}
