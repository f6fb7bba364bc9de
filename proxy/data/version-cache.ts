/**
 * What the analytics handlers keep per snapshot version: in-memory tables loaded once (the
 * services index, category details) and the last point lookups of the large tables (a paid
 * precheck and its handler read the same row).
 *
 * Only the newest two versions are kept: a request still answering from the previous version
 * while a new one lands does not rebuild it, and older ones are dropped.
 */
import type { LoadedSnapshot } from '../../snapshots/reader.ts';
import type { DuckRow } from './duck.ts';

/** Versions kept in memory: the one served and the one before it (requests still in flight). */
const VERSIONS_KEPT = 2;
/** Point lookups remembered per version. */
const LOOKUPS_KEPT = 512;

interface VersionEntry {
  tables: Map<string, Promise<unknown>>;
  lookups: Map<string, Promise<DuckRow | null>>;
}

const versions = new Map<string, VersionEntry>();

function versionEntry(snapshot: LoadedSnapshot): VersionEntry {
  let entry = versions.get(snapshot.version);
  if (!entry) {
    entry = { tables: new Map(), lookups: new Map() };
    versions.set(snapshot.version, entry);
    while (versions.size > VERSIONS_KEPT) versions.delete(versions.keys().next().value!);
  }
  return entry;
}

/** Loads an in-memory table once per version; a failed load is forgotten so the next request retries. */
export function perVersion<T>(snapshot: LoadedSnapshot, key: string, load: () => Promise<T>): Promise<T> {
  const { tables } = versionEntry(snapshot);
  let loading = tables.get(key) as Promise<T> | undefined;
  if (!loading) {
    loading = load();
    tables.set(key, loading);
    loading.catch(() => tables.delete(key));
  }
  return loading;
}

/** One row of a large table by its key, remembered briefly (LRU) for the handler after a precheck. */
export function lookup(snapshot: LoadedSnapshot, key: string, run: () => Promise<DuckRow | null>): Promise<DuckRow | null> {
  const { lookups } = versionEntry(snapshot);
  const hit = lookups.get(key);
  if (hit) {
    lookups.delete(key);
    lookups.set(key, hit);
    return hit;
  }
  const pending = run();
  lookups.set(key, pending);
  pending.catch(() => lookups.delete(key));
  while (lookups.size > LOOKUPS_KEPT) lookups.delete(lookups.keys().next().value!);
  return pending;
}

/** Forgets every cached version (tests). */
export function clearVersionCache(): void {
  versions.clear();
}
