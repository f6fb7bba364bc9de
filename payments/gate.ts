/**
 * The paywall as the request path uses it (proxy/endpoint-call.ts, MCP tools): what it reads of a
 * request, what the handler it wraps returns, and the answer it gives. Defined here, below the
 * proxy, so payments/ needs nothing from the proxy.
 */
import type { EndpointDecl } from '../catalog/types.ts';
import type { ParsedRequest } from '../catalog/request.ts';
import type { PayToTable } from './networks.ts';
import type { ReceiptSignerInfo } from './receipts.ts';

/** An answer ready to send over HTTP or to hand to an MCP client. */
export interface GateAnswer {
  status: number;
  headers: Record<string, string>;
  /** The body, serialized and ready to send; null for a 304. */
  body: string | null;
  /**
   * The same before serialization, when the answer was built from a value (a paid 200 with its
   * `receipt`, an error object); absent for text served from the response cache. For MCP.
   */
  json?: unknown;
}

/**
 * What the wrapped handler served (the data handlers' DataResult, proxy/data/types.ts): a 200 is
 * paid for and receipted; anything else passes through unpaid.
 */
export type ServedResult =
  | { status: 200; body: Record<string, unknown> | string; contentType?: string }
  /** Unknown id / slug / symbol: JSON `{error: 'not_found', message}`. Checked before payment is asked. */
  | { status: 404; body: { error: 'not_found'; message: string } }
  /**
   * The dataset is missing from the snapshot (pipeline failed or not built): never invented data.
   * `retryAfterSeconds` when waiting helps (the snapshot files were found damaged): sent as Retry-After.
   */
  | { status: 503; body: { error: 'not_available'; message: string }; retryAfterSeconds?: number };

/** What the paywall reads of a request. */
export interface GatedRequest {
  endpoint: EndpointDecl;
  /** true on the /api/v1/xrpl/... variant (RLUSD on xrpl). */
  xrpl: boolean;
  /** The full URL called, query string included (for an MCP tool, the endpoint's URL with its path arguments). */
  url: string;
  /** A request header by name, case-insensitive (an MCP tool call's payment is its PAYMENT-SIGNATURE). */
  header: (name: string) => string | undefined;
  /** Which resource a payment may name: an MCP tool's 402 names the tool. */
  via?: 'http' | 'mcp';
}

export interface PaymentGate {
  /** The receipt signer, published in /.well-known/x402. */
  readonly signer: ReceiptSignerInfo;
  readonly payTo: PayToTable;
  /**
   * Asks for, verifies, reserves, settles and receipts the payment of one request around
   * `serve`, which is called only after the payment verified and its nonce was reserved.
   * `input` (the validated parameters) names the endpoint canonically in the receipt and the 402,
   * and tells a payment-identifier retry whether it asks for the same thing.
   */
  handle(request: GatedRequest, serve: () => Promise<ServedResult>, input?: ParsedRequest): Promise<GateAnswer>;
}
