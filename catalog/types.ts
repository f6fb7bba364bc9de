/**
 * One declaration per endpoint. The Hono routes and their 422 validation, the 402 payment
 * requirements, the OpenAPI document, /docs, /llms.txt, /.well-known/x402, the MCP tools and the
 * site's download list are all derived from these declarations; nothing else lists endpoints or
 * prices.
 */
import type { z } from 'zod';

export type ServiceName = 'korea' | 'analytics';
export const SERVICES: readonly ServiceName[] = ['korea', 'analytics'];

export type HttpMethod = 'GET' | 'POST';

/** A download of a free endpoint's data besides its JSON answer, with its media type. */
export const DOWNLOAD_MEDIA_TYPES = { csv: 'text/csv; charset=utf-8', parquet: 'application/vnd.apache.parquet' } as const;
export type DownloadFormat = keyof typeof DOWNLOAD_MEDIA_TYPES;

export interface EndpointDecl {
  service: ServiceName;
  /** Stable id, unique within the service, e.g. 'kimchi-premium', 'services.detail'. */
  id: string;
  method: HttpMethod;
  /** Path in Hono syntax, e.g. '/api/v1/services/:id'. */
  path: string;
  /** One line for lists (llms.txt, OpenAPI summary). */
  summary: string;
  /** What the endpoint returns and how it is computed; OpenAPI description. */
  description: string;
  access: 'free' | 'paid';
  /** USD per call as a decimal string ('0.001'); paid endpoints only. */
  priceUsd?: string;
  /** Cache-Control max-age and ETag lifetime. */
  cacheTtlSeconds: number;
  /** Query parameters (zod object; drives 422 validation, OpenAPI and the MCP tool input). */
  query?: z.ZodObject;
  /** Path parameters. */
  pathParams?: z.ZodObject;
  /** JSON request body (POST). */
  body?: z.ZodObject;
  /** The 200 response body. */
  response: z.ZodType;
  /** The snapshot dataset the endpoint reads (null: computed by the proxy itself, e.g. /health). */
  dataset: string | null;
  /** Korea paid endpoints are served again under /api/v1/xrpl/... settled in RLUSD. */
  xrplVariant?: boolean;
  /** MCP tool serving the same data, if any. */
  mcpTool?: { name: string; description: string };
  /** Free endpoints of the analytics service count against the 60/hour/IP free tier. */
  rateLimited?: boolean;
  /** Response media type; JSON unless stated. */
  contentType?: 'application/json' | 'text/plain' | 'text/html';
  /** Besides the JSON answer, the same rows as these downloads, chosen with `?format=` (which the query declares). */
  downloadFormats?: readonly DownloadFormat[];
  /** Topical tags for discovery catalogues (the 402's `resource.tags`): paid endpoints, at most 5 of 32 characters. */
  tags?: readonly string[];
}

/**
 * A paid endpoint as a service's catalog file writes it: the price once, in `priceUsd`, and a
 * description without the price line, which the file's `paid()` adds from the price.
 */
export interface PaidEndpointInput extends Omit<EndpointDecl, 'service' | 'access' | 'priceUsd' | 'xrplVariant'> {
  priceUsd: string;
  /** What this endpoint is about, for discovery catalogues (Bazaar): at most 5 lowercase slugs. */
  tags: readonly string[];
}

/**
 * A table column's type as DuckDB reads it back from the Parquet file (`DESCRIBE`), e.g.
 * 'INTEGER', 'VARCHAR', 'JSON', 'VARCHAR[]', 'TIMESTAMP'.
 */
export type ColumnType = string;
/** A table's columns in file order: name → type. */
export type TableColumns = Readonly<Record<string, ColumnType>>;

/**
 * A dataset's shape, the contract between the pipeline step that writes it, the snapshot writer
 * that checks it before publishing (snapshots/writer.ts: a mismatch fails the dataset and keeps the
 * last good one) and everything that reads it (handlers, MCP tools, the site, the downloads).
 * A table declares its columns; a document its zod schema (which the readers' types come from).
 */
export type DatasetShape<S extends z.ZodType = z.ZodType> = { kind: 'table'; columns: TableColumns } | { kind: 'document'; document: S };

/** A table's shape: its columns in file order. */
export const table = <const C extends TableColumns>(columns: C): { kind: 'table'; columns: C } => ({ kind: 'table', columns });
/** A document's shape: the zod schema its JSON must parse with. */
export const document = <S extends z.ZodType>(schema: S): { kind: 'document'; document: S } => ({ kind: 'document', document: schema });

/**
 * A dataset of a service's snapshot: what a pipeline step produces and endpoints read.
 * `updateEverySeconds` is the schedule the pipeline is expected to keep; a dataset older than
 * `staleAfterSeconds` shows as stale in /health.
 */
export type DatasetDecl = DatasetShape & {
  service: ServiceName;
  name: string;
  description: string;
  updateEverySeconds: number;
  staleAfterSeconds: number;
  /** License of the published file. */
  license: 'CC0-1.0' | 'proprietary';
  /** Free datasets are published on the static site for download. */
  publicDownload: boolean;
  /**
   * Rests on the wash classifier's labels, whose cohort evidence is of the start of the UTC day
   * (docs/wash-methodology.md, "Day state and hourly labels"): its manifest entry carries
   * `cohort_state_as_of`.
   */
  cohortState?: boolean;
};
