/**
 * A recorded upstream on 127.0.0.1 for adapter tests: node:http on port 0, routes by method,
 * path and (for JSON-RPC) the RPC method, and a log of every request so tests can count calls
 * and check what was asked. Nothing leaves the machine.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
  /** Parsed JSON body, or the raw text when it is not JSON, or null. */
  body: unknown;
  rpcMethod: string | null;
  rpcParams: unknown[];
  rpcId: number | string | null;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as is (an HTML error page, a truncated body...). */
  text?: string;
  /** Wait before answering (for timeouts and concurrency checks). */
  delayMs?: number;
  /** Drop the connection without answering (a network error for the client). */
  destroy?: boolean;
}

export type Handler = (req: RecordedRequest) => Reply | Promise<Reply>;

export interface Route {
  method: 'GET' | 'POST';
  path: string;
  /** JSON-RPC method to match on a POST. */
  rpcMethod?: string;
  /** A handler, one reply, or a sequence of replies (the last one repeats). */
  reply: Handler | Reply | Reply[];
}

export interface Loopback {
  /** http://127.0.0.1:<port> */
  url: string;
  requests: RecordedRequest[];
  /** Requests matching a JSON-RPC method, or a path for plain HTTP. */
  count(match: { rpcMethod?: string; path?: string }): number;
  /** Clears the request log (between two runs of one test). */
  reset(): void;
  close(): Promise<void>;
}

/** A JSON-RPC success answer to `req`. */
export function rpcResult(req: RecordedRequest, result: unknown): Reply {
  return { json: { jsonrpc: '2.0', id: req.rpcId, result } };
}

/** A JSON-RPC error answer to `req` (HTTP 200, as nodes send them). */
export function rpcError(req: RecordedRequest, code: number, message: string): Reply {
  return { json: { jsonrpc: '2.0', id: req.rpcId, error: { code, message } } };
}

/** A recorded error body (fixture), with the request's id put back in. */
export function recordedRpcError(req: RecordedRequest, body: { error: { code: number; message: string } }): Reply {
  return rpcError(req, body.error.code, body.error.message);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startLoopback(routes: Route[]): Promise<Loopback> {
  const requests: RecordedRequest[] = [];
  const sequences = new Map<Route, number>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const raw = await readBody(req);
    let body: unknown = raw === '' ? null : raw;
    try {
      if (raw) body = JSON.parse(raw);
    } catch {
      /* keep the text */
    }
    const rpc = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      body,
      rpcMethod: typeof rpc?.method === 'string' ? rpc.method : null,
      rpcParams: Array.isArray(rpc?.params) ? rpc.params : [],
      rpcId: typeof rpc?.id === 'number' || typeof rpc?.id === 'string' ? rpc.id : null,
    };
    requests.push(recorded);

    const route = routes.find(
      (r) => r.method === recorded.method && r.path === recorded.path && (r.rpcMethod === undefined || r.rpcMethod === recorded.rpcMethod),
    );
    let reply: Reply;
    if (!route) {
      reply = recorded.rpcMethod
        ? rpcError(recorded, -32601, `the method ${recorded.rpcMethod} does not exist/is not available`)
        : { status: 404, json: { error: 'not found' } };
    } else if (typeof route.reply === 'function') {
      reply = await route.reply(recorded);
    } else if (Array.isArray(route.reply)) {
      const i = sequences.get(route) ?? 0;
      sequences.set(route, i + 1);
      reply = route.reply[Math.min(i, route.reply.length - 1)]!;
    } else {
      reply = route.reply;
    }
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    if (reply.destroy) {
      req.socket.destroy();
      return;
    }
    const payload = reply.json !== undefined ? JSON.stringify(reply.json) : (reply.text ?? '');
    res.writeHead(reply.status ?? 200, {
      'content-type': reply.json !== undefined ? 'application/json' : 'text/html; charset=utf-8',
      ...reply.headers,
    });
    res.end(payload);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`loopback handler failed: ${err instanceof Error ? err.message : String(err)}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('loopback server has no TCP address');

  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    count: ({ rpcMethod, path }) =>
      requests.filter((r) => (rpcMethod === undefined || r.rpcMethod === rpcMethod) && (path === undefined || r.path === path)).length,
    reset: () => {
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
