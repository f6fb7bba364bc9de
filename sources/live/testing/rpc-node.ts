/**
 * A recorded JSON-RPC node served on loopback for the indexer tests: before each test a fresh
 * loopback server with `routes()`, an upstream client pointed at `url(server)`, the JSON-RPC client
 * over it and a fresh warehouse with its directory (testContext); after each, all closed. The tests read them through
 * the returned object (its fields are the current test's).
 */
import { afterEach, beforeEach } from 'vitest';
import { createUpstream, type Upstream } from '../http.ts';
import { createJsonRpc, type JsonRpcClient } from '../json-rpc.ts';
import { testContext, type TestContext } from './context.ts';
import { startLoopback, type Loopback, type Route } from '../../../lib/testing/loopback.ts';

export interface RpcNode {
  server: Loopback;
  upstream: Upstream;
  rpc: JsonRpcClient;
  t: TestContext;
}

export function useRpcNode(options: { name: string; routes: () => Route[]; url: (server: Loopback) => string }): RpcNode {
  const node = {} as RpcNode;
  beforeEach(async () => {
    node.server = await startLoopback(options.routes());
    node.upstream = createUpstream({ name: options.name, baseUrl: options.url(node.server), sleep: async () => {} });
    node.rpc = createJsonRpc(node.upstream);
    node.t = await testContext({ warehouseDir: true });
  });
  afterEach(async () => {
    await node.upstream.close();
    await node.server.close();
    node.t.close();
  });
  return node;
}
