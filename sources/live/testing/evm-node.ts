/**
 * A Base JSON-RPC node for tests, answering from the recorded fixtures: eth_getLogs filters the
 * recorded USDC logs the way a node does (address, topic OR-lists, block range) and refuses a
 * query with more than `maxResults` logs with the recorded -32005 error; eth_getBlockReceipts,
 * eth_getTransactionByHash and eth_getBlockByNumber (including 'finalized') answer from the
 * recorded blocks. `state` changes the chain head between runs.
 */
import { recordedRpcError, rpcResult, type RecordedRequest, type Route } from '../../../lib/testing/loopback.ts';
import { fixture } from './fixtures.ts';

interface RecordedLog {
  address: string;
  topics: string[];
  blockNumber: string;
  logIndex: string;
  [field: string]: unknown;
}

export interface EvmNodeState {
  finalized: number;
  /** A header for a block the files do not hold (the real payloads hold only their own blocks); default: none (null). */
  headerOf?: (block: number) => { number: string; timestamp: string; hash: string };
  /** Refuse eth_getLogs answers larger than this (the provider's result cap). */
  maxResults: number;
  /** Serve eth_getBlockReceipts (some providers do not). */
  receipts: boolean;
}

export interface BaseFixtureIndex {
  startBlock: number;
  firstFinalized: number;
  secondFinalized: number;
  relayers: Record<'coinbase' | 'coinbaseLate' | 'payai' | 'x402rs', string>;
  notFacilitator: string;
  buyers: Record<'1' | '2' | '3' | '4' | '5', string>;
  sellers: Record<'1' | '2' | '3', string>;
  relayerFeeWallet: string;
  funders: Record<'B1' | 'B1later' | 'B2' | 'B3after', string>;
  txs: Record<'A' | 'B' | 'C' | 'D' | 'E' | 'F' | 'G' | 'H' | 'I' | 'J', string>;
}

export const baseFixtureIndex = (): BaseFixtureIndex => fixture<BaseFixtureIndex>('base-fixture-index.json');

const num = (hex: unknown) => (typeof hex === 'string' ? Number(BigInt(hex)) : NaN);

function topicMatches(filter: unknown, topic: string | undefined): boolean {
  if (filter === null || filter === undefined) return true;
  if (topic === undefined) return false;
  const wanted = Array.isArray(filter) ? filter : [filter];
  return wanted.some((w) => typeof w === 'string' && w.toLowerCase() === topic.toLowerCase());
}

/** The files a node answers from (under sources/live/analytics/fixtures). */
export interface EvmNodeFiles {
  logs: string;
  receipts: string;
  transactions: string;
  blocks: string;
}

/** The recorded-format fixtures the indexer tests were written on. */
export const FIXTURE_FILES: EvmNodeFiles = {
  logs: 'base-usdc-logs.json',
  receipts: 'base-block-receipts.json',
  transactions: 'base-transactions.json',
  blocks: 'base-blocks.json',
};

/** Real recorded Base payloads (fixtures/real/SOURCES.md). */
export const REAL_FILES: EvmNodeFiles = {
  logs: 'real/base-logs.json',
  receipts: 'real/base-receipts.json',
  transactions: 'real/base-transactions.json',
  blocks: 'real/base-blocks.json',
};

export function evmNodeRoutes(path: string, state: EvmNodeState, files: EvmNodeFiles = FIXTURE_FILES): Route[] {
  const logs = fixture<RecordedLog[]>(files.logs);
  const receipts = fixture<Record<string, unknown[]>>(files.receipts);
  const transactions = fixture<Record<string, unknown>>(files.transactions);
  const blocks = fixture<Record<string, { number: string }>>(files.blocks);
  const tooMany = fixture<{ error: { code: number; message: string } }>('rpc-error-too-many-results.json');

  const getLogs = (req: RecordedRequest) => {
    const filter = (req.rpcParams[0] ?? {}) as { address?: string; topics?: unknown[]; fromBlock?: string; toBlock?: string };
    const from = num(filter.fromBlock);
    const to = Math.min(num(filter.toBlock), state.finalized);
    const found = logs.filter((l) => {
      const b = num(l.blockNumber);
      if (b < from || b > to) return false;
      if (filter.address && filter.address.toLowerCase() !== l.address.toLowerCase()) return false;
      return (filter.topics ?? []).every((f, i) => topicMatches(f, l.topics[i]));
    });
    if (found.length > state.maxResults) return recordedRpcError(req, tooMany);
    return rpcResult(req, found);
  };

  const blockByNumber = (req: RecordedRequest) => {
    const tag = req.rpcParams[0];
    const n = tag === 'finalized' || tag === 'latest' ? state.finalized : num(tag);
    return rpcResult(req, blocks[`0x${n.toString(16)}`] ?? state.headerOf?.(n) ?? null);
  };

  const routes: Route[] = [
    { method: 'POST', path, rpcMethod: 'eth_getLogs', reply: getLogs },
    { method: 'POST', path, rpcMethod: 'eth_getBlockByNumber', reply: blockByNumber },
    {
      method: 'POST',
      path,
      rpcMethod: 'eth_getTransactionByHash',
      reply: (req) => rpcResult(req, transactions[String(req.rpcParams[0]).toLowerCase()] ?? null),
    },
  ];
  routes.push({
    method: 'POST',
    path,
    rpcMethod: 'eth_getBlockReceipts',
    reply: (req) =>
      state.receipts
        ? rpcResult(req, receipts[`0x${num(req.rpcParams[0]).toString(16)}`] ?? [])
        : {
            json: {
              jsonrpc: '2.0',
              id: req.rpcId,
              error: { code: -32601, message: 'the method eth_getBlockReceipts does not exist/is not available' },
            },
          },
  });
  return routes;
}
