import { describe, expect, it } from 'vitest';
import { queryJson } from '../../../lib/duckdb.ts';
import {
  DEFAULT_EVM_OPTIONS,
  DEFAULT_FUNDING_OPTIONS,
  eip3009Transfers,
  indexEvmFunding,
  indexEvmSettlements,
  type EvmIndexerOptions,
  type RpcLog,
} from './evm-indexer.ts';
import { relayerLookup, RELAYERS } from './facilitators.ts';
import { baseFixtureIndex, evmNodeRoutes, type EvmNodeState } from '../testing/evm-node.ts';
import { useRpcNode } from '../testing/rpc-node.ts';

const fx = baseFixtureIndex();
const S = fx.startBlock;
const RPC_PATH = '/v2/Zx81kQ0pL2mN7vB4cR9tY6wE3'; // a key-like path, as provider URLs have

let state: EvmNodeState;
const node = useRpcNode({
  name: 'base-rpc',
  routes: () => {
    state = { finalized: fx.firstFinalized, maxResults: 10, receipts: true };
    return evmNodeRoutes(RPC_PATH, state);
  },
  url: (server) => server.url + RPC_PATH,
});

const options: EvmIndexerOptions = { ...DEFAULT_EVM_OPTIONS, startBlock: S, maxBlocksPerRun: 1000, initialLogRange: 16 };
const hexRange = (r: { rpcParams: unknown[] }) => {
  const f = r.rpcParams[0] as { fromBlock: string; toBlock: string };
  return [Number(f.fromBlock) - S, Number(f.toBlock) - S];
};
const logRequests = () => node.server.requests.filter((r) => r.rpcMethod === 'eth_getLogs');

async function settlements() {
  return queryJson(
    node.t.warehouse.connection,
    `SELECT tx_hash, log_index::INTEGER AS log_index, block_number::INTEGER - ${S} AS block, buyer, seller_address, amount,
            facilitator, relayer, is_self_pay, strftime(block_time, '%Y-%m-%dT%H:%M:%SZ') AS time
       FROM live_evm_settlements ORDER BY block_number, log_index`,
  );
}
async function checkpoint() {
  const [row] = await queryJson(node.t.warehouse.connection, `SELECT last_block FROM evm_checkpoint WHERE chain = 'base'`);
  return row ? Number(row.last_block) : null;
}

describe('indexEvmSettlements', () => {
  it('keeps only facilitator-sent EIP-3009 settlements, halving ranges the node refuses', async () => {
    const run = await indexEvmSettlements(node.t.warehouse.connection, node.rpc, options);

    // 18 logs in blocks S..S+15 and a 10-result cap: refused twice, then covered in three ranges.
    expect(logRequests().map(hexRange)).toEqual([
      [0, 15],
      [0, 7],
      [0, 3],
      [4, 11],
      [12, 15],
    ]);
    expect(run).toMatchObject({ fromBlock: S, toBlock: S + 15, finalized: S + 15, logRequests: 5, halvings: 2, logs: 18 });
    expect(run.skipped).toMatchObject({ notInScope: 1, relayerPayer: 1, noAuthorization: 2, removed: 2 });
    // Every filter asks for both events of USDC in one call.
    expect(logRequests()[0]!.rpcParams[0]).toMatchObject({
      address: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
      topics: [
        [
          '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
          '0x98de503528ee59b575ef0c0a2576a82497bfc029a5685b209e9ec333479b10a5',
        ],
      ],
    });
    // Senders from one eth_getBlockReceipts per block holding a candidate (A+B, C, D, G, H).
    expect(node.server.count({ rpcMethod: 'eth_getBlockReceipts' })).toBe(5);
    expect(node.server.count({ rpcMethod: 'eth_getTransactionByHash' })).toBe(0);
    // 'finalized' once, plus the one block whose logs carry no blockTimestamp (C).
    expect(node.server.count({ rpcMethod: 'eth_getBlockByNumber' })).toBe(2);
    expect(node.server.requests).toHaveLength(12);

    const rows = await settlements();
    expect(rows).toEqual([
      {
        tx_hash: fx.txs.A,
        log_index: 11,
        block: 1,
        buyer: fx.buyers[1],
        seller_address: fx.sellers[1],
        amount: 0.01,
        facilitator: 'coinbase',
        relayer: fx.relayers.coinbase,
        is_self_pay: false,
        time: '2026-03-02T00:00:02Z',
      },
      {
        tx_hash: fx.txs.C,
        log_index: 3,
        block: 3,
        buyer: fx.buyers[2],
        seller_address: fx.sellers[1],
        amount: 0.02,
        facilitator: 'payai',
        relayer: fx.relayers.payai,
        is_self_pay: false,
        time: '2026-03-02T00:00:06Z',
      },
      {
        tx_hash: fx.txs.C,
        log_index: 5,
        block: 3,
        buyer: fx.buyers[3],
        seller_address: fx.sellers[2],
        amount: 1,
        facilitator: 'payai',
        relayer: fx.relayers.payai,
        is_self_pay: false,
        time: '2026-03-02T00:00:06Z',
      },
      {
        tx_hash: fx.txs.G,
        log_index: 4,
        block: 9,
        buyer: fx.buyers[4],
        seller_address: fx.buyers[4],
        amount: 0.01,
        facilitator: 'x402rs',
        relayer: fx.relayers.x402rs,
        is_self_pay: true,
        time: '2026-03-02T00:00:18Z',
      },
      {
        tx_hash: fx.txs.H,
        log_index: 31,
        block: 12,
        buyer: fx.buyers[1],
        seller_address: fx.sellers[2],
        amount: 0.03,
        facilitator: 'coinbase',
        relayer: fx.relayers.coinbase,
        is_self_pay: false,
        time: '2026-03-02T00:00:24Z',
      },
    ]);
    expect(await checkpoint()).toBe(S + 15);
  });

  it('resumes from the checkpoint: only new finalized blocks are fetched', async () => {
    await indexEvmSettlements(node.t.warehouse.connection, node.rpc, options);
    node.server.reset();

    // Nothing new is finalized: one request, no logs.
    const idle = await indexEvmSettlements(node.t.warehouse.connection, node.rpc, options);
    expect(idle.fromBlock).toBeNull();
    expect(node.server.requests.map((r) => r.rpcMethod)).toEqual(['eth_getBlockByNumber']);
    node.server.reset();

    state.finalized = fx.secondFinalized;
    const run = await indexEvmSettlements(node.t.warehouse.connection, node.rpc, options);
    expect(logRequests().map(hexRange)).toEqual([[16, 31]]);
    expect(run).toMatchObject({ fromBlock: S + 16, toBlock: S + 31, settlements: 2, inserted: 2 });
    expect(node.server.count({ rpcMethod: 'eth_getBlockReceipts' })).toBe(2);
    expect(node.server.count({ rpcMethod: 'eth_getBlockByNumber' })).toBe(2); // finalized + J's block
    const rows = await settlements();
    expect(rows.map((r) => r.tx_hash)).toEqual([fx.txs.A, fx.txs.C, fx.txs.C, fx.txs.G, fx.txs.H, fx.txs.I, fx.txs.J]);
    // J was sent by a Coinbase relayer first seen 2025-12-16: attributed.
    expect(rows.at(-1)).toMatchObject({ relayer: fx.relayers.coinbaseLate, facilitator: 'coinbase', amount: 0.04 });
    expect(await checkpoint()).toBe(S + 31);
  });

  it('is idempotent: re-indexing covered blocks adds no rows and leaves the checkpoint at the head', async () => {
    state.finalized = fx.secondFinalized;
    state.maxResults = 1000;
    const first = await indexEvmSettlements(node.t.warehouse.connection, node.rpc, { ...options, initialLogRange: 1000 });
    expect(first).toMatchObject({ settlements: 7, inserted: 7, logRequests: 1 });
    const before = await settlements();

    // A crash after the rows were written but before the checkpoint: the same blocks come again.
    await node.t.warehouse.connection.run(`DELETE FROM evm_checkpoint`);
    const again = await indexEvmSettlements(node.t.warehouse.connection, node.rpc, { ...options, initialLogRange: 1000 });
    expect(again).toMatchObject({ fromBlock: S, toBlock: S + 31, settlements: 7, inserted: 0 });
    expect(await settlements()).toEqual(before);
    expect(await checkpoint()).toBe(S + 31);
    const [dupes] = await queryJson(
      node.t.warehouse.connection,
      `SELECT count(*)::INTEGER AS n FROM (SELECT chain, tx_hash, log_index FROM live_evm_settlements GROUP BY ALL HAVING count(*) > 1)`,
    );
    expect(dupes!.n).toBe(0);
  });

  it('bounds a run to maxBlocksPerRun and continues next run', async () => {
    state.maxResults = 1000;
    const run = await indexEvmSettlements(node.t.warehouse.connection, node.rpc, { ...options, maxBlocksPerRun: 8, initialLogRange: 100 });
    expect(run).toMatchObject({ fromBlock: S, toBlock: S + 7 });
    expect(await checkpoint()).toBe(S + 7);
    const next = await indexEvmSettlements(node.t.warehouse.connection, node.rpc, { ...options, maxBlocksPerRun: 8, initialLogRange: 100 });
    expect(next).toMatchObject({ fromBlock: S + 8, toBlock: S + 15 });
    expect((await settlements()).length).toBe(5);
  });

  it('falls back to eth_getTransactionByHash when the node has no eth_getBlockReceipts', async () => {
    state.receipts = false;
    await indexEvmSettlements(node.t.warehouse.connection, node.rpc, options);
    expect(node.server.count({ rpcMethod: 'eth_getBlockReceipts' })).toBe(1); // asked once, then remembered
    expect(node.server.count({ rpcMethod: 'eth_getTransactionByHash' })).toBe(6); // A, B, C, D, G, H
    expect((await settlements()).length).toBe(5);
  });

  it('starts maxBlocksPerRun behind finalized when no start block is configured', async () => {
    state.maxResults = 1000;
    const run = await indexEvmSettlements(node.t.warehouse.connection, node.rpc, { ...options, startBlock: null, maxBlocksPerRun: 4 });
    expect(run).toMatchObject({ fromBlock: S + 12, toBlock: S + 15, settlements: 1 });
  });

  it('fails with the node error when even one block is too large', async () => {
    state.maxResults = 1;
    await expect(indexEvmSettlements(node.t.warehouse.connection, node.rpc, options)).rejects.toThrow(
      /base-rpc: eth_getLogs refuses even the single block 33000001: .*query returned more than 10000 results/,
    );
    expect(await checkpoint()).toBe(S); // block S had no logs and was committed before the failure
  });
});

describe('indexEvmFunding', () => {
  it('finds the first inbound USDC before each buyer’s first payment, once per buyer', async () => {
    state.finalized = fx.secondFinalized;
    state.maxResults = 1000;
    await indexEvmSettlements(node.t.warehouse.connection, node.rpc, { ...options, initialLogRange: 1000 });
    node.server.reset();

    const funding = { ...DEFAULT_FUNDING_OPTIONS, lookbackBlocks: 2000, walletsPerQuery: 2, walletsPerRun: 10 };
    const run = await indexEvmFunding(node.t.warehouse.connection, node.rpc, funding, new Date('2026-03-02T01:00:00Z'));
    expect(run).toMatchObject({ walletsChecked: 5, walletsFunded: 3, deferred: 0, logRequests: 3, blockRequests: 1 });
    // Each batch asks for Transfers *to* its buyers (topic2 OR-list), nothing else.
    const filters = logRequests().map((r) => r.rpcParams[0] as { topics: [string, null, string[]] });
    expect(filters.map((f) => f.topics[2].length)).toEqual([2, 2, 1]); // 5 buyers, 2 per query
    for (const f of filters) {
      expect(f.topics[0]).toBe('0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef');
      expect(f.topics[1]).toBeNull();
    }
    expect(
      filters
        .flatMap((f) => f.topics[2])
        .map((topic) => `0x${topic.slice(-40)}`)
        .sort(),
    ).toEqual(Object.values(fx.buyers).sort());
    const rows = await queryJson(
      node.t.warehouse.connection,
      `SELECT address, funder, amount, block_number::INTEGER - ${S} AS block FROM live_wallet_funding ORDER BY block_number`,
    );
    expect(rows).toEqual([
      { address: fx.buyers[1], funder: fx.funders.B1, amount: 5, block: -1000 }, // not the later top-up at -200
      { address: fx.buyers[2], funder: fx.funders.B2, amount: 2.5, block: -400 },
      { address: fx.buyers[5], funder: fx.funders.B1, amount: 0.75, block: 17 },
    ]);
    // B3 was funded only after paying, B4 never in the window: looked up, not found, not asked again.
    const [checked] = await queryJson(
      node.t.warehouse.connection,
      `SELECT count(*)::INTEGER AS n, count(*) FILTER (WHERE NOT found)::INTEGER AS missing FROM live_funding_checked`,
    );
    expect(checked).toEqual({ n: 5, missing: 2 });

    node.server.reset();
    const again = await indexEvmFunding(node.t.warehouse.connection, node.rpc, funding, new Date('2026-03-02T02:00:00Z'));
    expect(again.walletsChecked).toBe(0);
    expect(node.server.requests).toHaveLength(0);
  });

  it('stays within its per-run bounds and picks up the rest next run', async () => {
    state.finalized = fx.secondFinalized;
    state.maxResults = 1000;
    await indexEvmSettlements(node.t.warehouse.connection, node.rpc, { ...options, initialLogRange: 1000 });
    const funding = { ...DEFAULT_FUNDING_OPTIONS, lookbackBlocks: 2000, walletsPerQuery: 2, walletsPerRun: 2 };
    const first = await indexEvmFunding(node.t.warehouse.connection, node.rpc, funding, new Date('2026-03-02T01:00:00Z'));
    expect(first.walletsChecked).toBe(2);
    const budgeted = await indexEvmFunding(
      node.t.warehouse.connection,
      node.rpc,
      { ...funding, walletsPerRun: 10, maxRequestsPerRun: 1 },
      new Date(),
    );
    expect(budgeted).toMatchObject({ walletsChecked: 2, deferred: 1, logRequests: 1 });
    const last = await indexEvmFunding(node.t.warehouse.connection, node.rpc, { ...funding, walletsPerRun: 10 }, new Date());
    expect(last.walletsChecked).toBe(1);
  });
});

describe('EIP-3009 matching and relayer dates', () => {
  const log = (tx: string, logIndex: number, topic0: string, a: string, b: string | null, value = 0n): RpcLog => ({
    address: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
    topics: [topic0, `0x${'0'.repeat(24)}${a.slice(2)}`, b ?? `0x${'ab'.repeat(32)}`],
    data: b ? `0x${value.toString(16).padStart(64, '0')}` : '0x',
    blockNumber: 1,
    blockTimestamp: null,
    transactionHash: tx,
    logIndex,
    removed: false,
  });
  const T = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
  const A = '0x98de503528ee59b575ef0c0a2576a82497bfc029a5685b209e9ec333479b10a5';
  const buyer = '0x' + '11'.repeat(20);
  const seller = '0x' + '22'.repeat(20);
  const pad = (x: string) => `0x${'0'.repeat(24)}${x.slice(2)}`;
  const tx = '0x' + 'cd'.repeat(32);

  it('lets one authorization cover one later transfer from its authorizer', () => {
    const { transfers, counts } = eip3009Transfers(
      [
        log(tx, 0, T, buyer, pad(seller), 5n), // before the authorization: not covered
        log(tx, 1, A, buyer, null),
        log(tx, 2, T, buyer, pad(seller), 10_000n),
        log(tx, 3, T, buyer, pad(seller), 7n), // second transfer, authorization already spent
      ],
      '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
    );
    expect(transfers.map((x) => [x.logIndex, x.atomic])).toEqual([[2, 10_000n]]);
    expect(counts.noAuthorization).toBe(2);
  });

  it('attributes a relayer only from its first-seen date', () => {
    const lookup = relayerLookup('base', RELAYERS);
    const late = '0x8F5CB67B49555E614892B7233CFDDEBFB746E531'; // checksummed input is fine
    expect(lookup.at(late, new Date('2025-12-15T23:59:59Z'))).toBeNull();
    expect(lookup.at(late, new Date('2025-12-16T00:00:00Z'))?.facilitator).toBe('coinbase');
    expect(lookup.byAddress('0x0000000000000000000000000000000000000001')).toBeNull();
  });
});
