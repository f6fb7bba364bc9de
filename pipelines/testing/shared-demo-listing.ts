/**
 * Test support: what the shared demo snapshots held when they were published (every path with its
 * size and mtime), so the global setup can tell at the end of a run whether a test wrote into them.
 */
import { existsSync, lstatSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The published files, below the shared folder. */
export const SHARED_DEMO_CONTENT = 'demo';
const LISTING = 'listing.json';

function listing(root: string): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const path of readdirSync(root, { recursive: true, encoding: 'utf8' })) {
    const s = lstatSync(join(root, path));
    entries[path] = s.isDirectory() ? 'dir' : `${s.isSymbolicLink() ? 'link' : 'file'}:${s.size}:${s.mtimeMs}`;
  }
  return entries;
}

/** Records what `dir`'s published content holds now (called once the publish is complete). */
export function writeListing(dir: string): void {
  writeFileSync(join(dir, LISTING), JSON.stringify(listing(join(dir, SHARED_DEMO_CONTENT))));
}

/** The paths added, removed or changed since writeListing (none when nothing was published). */
export function changedSinceListing(dir: string): string[] {
  const file = join(dir, LISTING);
  if (!existsSync(file)) return [];
  const before = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  const now = listing(join(dir, SHARED_DEMO_CONTENT));
  const paths = new Set([...Object.keys(before), ...Object.keys(now)]);
  return [...paths].filter((p) => before[p] !== now[p]).sort();
}
