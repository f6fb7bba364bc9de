/**
 * The snapshot format: the contract between the pipelines (writers) and the site and proxy
 * (readers). A snapshot version is an immutable directory `<root>/<service>/<version>/` holding
 * one file per dataset and `manifest.json`; `<root>/<service>/latest.json` names the newest
 * complete version. The manifest is the truth about what each file holds.
 */
import type { SourceKind } from '../sources/raw-tables.ts';

export const FORMAT_VERSION = 1;

export interface ColumnSchema {
  name: string;
  type: string;
}

export interface DatasetEntry {
  name: string;
  kind: 'table' | 'document';
  /** File name inside the version directory. */
  file: string;
  format: 'parquet' | 'json';
  rows: number;
  bytes: number;
  sha256: string;
  /** Columns of a table; top-level fields (with JSON types) of a document. */
  schema: ColumnSchema[];
  /** Where the data came from: the synthetic demo world, live upstreams, or a researcher's files. */
  source: SourceKind;
  /** The time the data describes (the newest observation), ISO 8601 UTC. */
  as_of: string;
  license: string;
  description: string;
  /** Version that computed this file; differs from the snapshot's own version when carried over. */
  produced_in: string;
  /** Set when this run failed to recompute the dataset and kept the last good file. */
  carried_over?: { reason: string; failed_at: string };
}

export interface SnapshotManifest {
  format_version: number;
  service: string;
  version: string;
  generated_at: string;
  code_version: string;
  license: { id: string; name: string; url: string | null; note: string };
  next_expected_update: string;
  /** Demo data is synthetic; say so where a user sees it. */
  notice: string | null;
  datasets: DatasetEntry[];
}

/** `<root>/<service>/latest.json`: the pointer replaced by atomic rename. */
export interface LatestPointer {
  format_version: number;
  service: string;
  version: string;
  manifest_sha256: string;
  generated_at: string;
}

export const LICENSES = {
  'CC0-1.0': {
    id: 'CC0-1.0',
    name: 'Creative Commons Zero v1.0 Universal (public-domain dedication)',
    url: 'https://creativecommons.org/publicdomain/zero/1.0/',
  },
  proprietary: {
    id: 'proprietary',
    name: 'Proprietary: paid access per call; redistribution of paid slices is not licensed',
    url: null,
  },
} as const;

export const VERSION_PATTERN = /^\d{8}T\d{9}Z-[0-9a-f]{8}$/;
