/**
 * JSON-RPC 2.0 over an `Upstream` (Base and Solana RPC). Errors inside a 200 answer become a
 * `JsonRpcError` with the code and message, so a caller can react to the ones it understands
 * (range too large: split the range; method not found: use a fallback). Rate-limit errors that
 * providers send inside a 200 are retried here with the upstream's backoff.
 */
import { z, type ZodType } from 'zod';
import { UpstreamError, type Upstream } from './http.ts';

export class JsonRpcError extends Error {
  constructor(
    readonly upstream: string,
    readonly method: string,
    readonly code: number,
    readonly rpcMessage: string,
  ) {
    super(`${upstream}: ${method} failed with JSON-RPC error ${code}: ${rpcMessage}`);
    this.name = 'JsonRpcError';
  }
}

export interface JsonRpcClient {
  readonly name: string;
  call<T>(method: string, params: readonly unknown[], schema: ZodType<T>): Promise<T>;
}

const Envelope = z.object({
  jsonrpc: z.string().optional(),
  id: z.union([z.number(), z.string(), z.null()]).optional(),
  result: z.unknown().optional(),
  error: z
    .object({
      code: z.number(),
      message: z.string(),
      data: z.unknown().optional(),
    })
    .optional(),
});

/** "Slow down" errors some providers (Infura, QuickNode, public Solana RPC) send inside a 200. */
export function isRateLimitError(err: unknown): boolean {
  return (
    err instanceof JsonRpcError &&
    (err.code === 429 || /rate limit|too many requests|request count exceeded|exceeded .*capacity|throughput/i.test(err.rpcMessage))
  );
}

/** The method is not served by this node (e.g. eth_getBlockReceipts on some providers). */
export function isMethodUnavailable(err: unknown): boolean {
  return (
    err instanceof JsonRpcError &&
    (err.code === -32601 || /method not found|not supported|unsupported method|does not exist|not available/i.test(err.rpcMessage))
  );
}

export function createJsonRpc(upstream: Upstream): JsonRpcClient {
  let nextId = 1;
  return {
    name: upstream.name,
    async call<T>(method: string, params: readonly unknown[], schema: ZodType<T>): Promise<T> {
      for (let attempt = 0; ; attempt++) {
        const id = nextId++;
        const envelope = await upstream.postJson('', { jsonrpc: '2.0', id, method, params }, Envelope);
        if (envelope.error) {
          const err = new JsonRpcError(upstream.name, method, envelope.error.code, envelope.error.message);
          if (isRateLimitError(err) && attempt < upstream.retries) {
            await upstream.sleep(upstream.retryDelayMs(attempt));
            continue;
          }
          throw err;
        }
        if (!('result' in envelope)) {
          throw new UpstreamError(
            upstream.name,
            upstream.shownBaseUrl,
            `${upstream.name}: ${method} at ${upstream.shownBaseUrl} answered with neither result nor error`,
          );
        }
        // Parsed under a `result` key so a failure names the field as the wire has it (result[3].blockNumber).
        return upstream.parse(z.object({ result: schema }), { result: envelope.result }, `${method} at ${upstream.shownBaseUrl}`).result;
      }
    },
  };
}
