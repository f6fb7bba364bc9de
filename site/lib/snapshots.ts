/**
 * Build-time access to the published snapshots for the site: read from disk at build time, never
 * bundled (see research/site-stack.md: large data must stay out of Vite's module graph).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { SnapshotManifest } from '../../snapshots/manifest.ts';

export function snapshotsDir(): string {
  return resolve(process.env.SNAPSHOTS_DIR || 'snapshots/store');
}

export interface SiteSnapshot {
  service: string;
  manifest: SnapshotManifest;
  dir: string;
}

export function latestSnapshot(service: string): SiteSnapshot | null {
  const root = snapshotsDir();
  const pointerPath = join(root, service, 'latest.json');
  if (!existsSync(pointerPath)) return null;
  const { version } = JSON.parse(readFileSync(pointerPath, 'utf8')) as { version: string };
  const dir = join(root, service, version);
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as SnapshotManifest;
  return { service, manifest, dir };
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
