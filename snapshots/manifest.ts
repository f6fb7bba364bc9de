/**
 * The snapshot format: the contract between the pipelines (writers) and the site and proxy
 * (readers). A snapshot version is an immutable directory `<root>/<service>/<version>/` holding
 * one file per dataset and `manifest.json`; `<root>/<service>/latest.json` names the newest
 * complete version. The manifest is the truth about what each file holds.
 */
import type { DataSource as SourceKind } from '../catalog/schemas.ts';

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
  /** Datasets with AI fields: who wrote them (the Claude models, or the offline rules analyst). */
  ai?: DatasetAi;
}

/** Who wrote a dataset's AI fields. */
export interface DatasetAi {
  analyst: 'claude' | 'rules';
  /** Claude models that wrote it, e.g. ['claude-haiku-4-5']; empty for the rules analyst. */
  models: string[];
}

/** What the run's analyst did and cost (korea runs). */
export interface AiUsage {
  analyst: 'claude' | 'rules';
  /** The two model settings (null for the rules analyst). */
  models: { fast: string; deep: string } | null;
  /** Model calls made (a retry of a malformed answer counts; the SDK's transport retries do not). */
  calls: number;
  /** Answers served from the warehouse cache instead of a call. */
  cache_hits: number;
  /** Answers written by the rules analyst. */
  rules_answers: number;
  input_tokens: number;
  output_tokens: number;
  /** Cost of this run's calls (USD). */
  usd: number;
  /** Cost of every call of the run's UTC day, this run included (USD). */
  spent_today_usd: number;
  daily_budget_usd: number | null;
  /** True once a call was refused because the daily budget was reached. */
  budget_reached: boolean;
  /** Tasks that ended without a valid answer (budget, malformed twice, API error, a rules answer failing its check). */
  failures: number;
  /** How the cost was priced, e.g. when a model's price is not known and an upper bound was used. */
  price_note: string | null;
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
  /** What the run's analyst did and cost; absent when the run wrote no AI field. */
  ai?: AiUsage;
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
