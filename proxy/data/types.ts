/**
 * The contract between the endpoint call (proxy/endpoint-call.ts, behind the HTTP routes and MCP
 * tools) and the per-service data handlers (proxy/data/korea.ts, proxy/data/analytics.ts).
 *
 * The endpoint call validates the request against the endpoint's zod schemas first (422 on failure),
 * asks for payment on paid endpoints, then calls the endpoint's handler with the parsed values and
 * the snapshot version it is serving. A handler never sees unvalidated input, never talks to an
 * upstream, and reads only the snapshot it is given.
 */
import type { EndpointDecl } from '../../catalog/types.ts';
import type { ServedResult } from '../../payments/gate.ts';
import type { LoadedSnapshot } from '../../snapshots/reader.ts';

export interface DataRequest {
  endpoint: EndpointDecl;
  /** Parsed query (the endpoint's `query` zod schema output, defaults applied); {} when none. */
  query: Record<string, unknown>;
  /** Parsed path parameters; {} when none. */
  params: Record<string, unknown>;
  /** Parsed JSON body (POST); undefined when none. */
  body: Record<string, unknown> | undefined;
  /** The snapshot version to answer from (one version per request, even if a newer one lands meanwhile). */
  snapshot: LoadedSnapshot;
  /** Request time (tests pass a fixed clock). */
  now: Date;
}

/** A handler's answer: the shape the paywall wraps (payments/gate.ts ServedResult: 200, 404 before payment, 503 never invented data). */
export type DataResult = ServedResult;

/**
 * A free endpoint's download that is a file's bytes (EndpointDecl.downloadFormats: the published
 * Parquet file itself). Only the free path answers with one; the paywall serves JSON.
 */
export interface FileResult {
  status: 200;
  file: Uint8Array<ArrayBuffer>;
  contentType: string;
}

/** What a free endpoint answers: its data as JSON or text, or a download's bytes. */
export type FreeResult = DataResult | FileResult;

export interface DataHandler {
  /**
   * Cheap existence check run BEFORE payment for paid endpoints, so nobody pays for a 404:
   * returns the 404/503 result, or null when the handler will be able to answer.
   */
  precheck?(req: DataRequest): Promise<DataResult | null> | DataResult | null;
  handle(req: DataRequest): Promise<DataResult>;
  /** Free endpoints with a binary download: its bytes when the request asks for it (?format=parquet), else null (handle answers). */
  file?(req: DataRequest): Promise<FileResult | null>;
}

/** Handlers by endpoint id (catalog EndpointDecl.id) for one service. */
export type DataHandlers = Record<string, DataHandler>;

export const notFound = (message: string): DataResult => ({ status: 404, body: { error: 'not_found', message } });
export const notAvailable = (message: string): DataResult => ({ status: 503, body: { error: 'not_available', message } });
