import { describe, expect, it } from 'vitest';
import { queryJson } from '../../../lib/duckdb.ts';
import { relayersOn } from './facilitators.ts';
import { DEFAULT_SOLANA_OPTIONS, indexSolanaSettlements, usdcAccountOf, type SolanaIndexerOptions } from './solana-indexer.ts';
import { fixture } from '../testing/fixtures.ts';
import { useRpcNode } from '../testing/rpc-node.ts';
import { solanaFixtureIndex, solanaNodeRoutes, type SolanaNodeState } from '../testing/solana-node.ts';

const fx = solanaFixtureIndex();
const RELAYER_COUNT = relayersOn('solana').length;

let state: SolanaNodeState;
const node = useRpcNode({
  name: 'solana-rpc',
  routes: () => {
    state = { visible: 5 };
    return solanaNodeRoutes('/', state);
  },
  url: (server) => `${server.url}/?api-key=0f9e8d7c-6b5a-4321-9876-abcdef012345`,
});

const options: SolanaIndexerOptions = { ...DEFAULT_SOLANA_OPTIONS };
const rows = () =>
  queryJson(
    node.t.warehouse.connection,
    `SELECT signature, instruction, buyer, seller_address, amount, facilitator, relayer FROM live_solana_settlements ORDER BY slot, instruction`,
  );
const checkpoint = async () => {
  const [row] = await queryJson(node.t.warehouse.connection, `SELECT last_signature FROM solana_checkpoint WHERE relayer = $r`, {
    r: fx.relayer,
  });
  return row?.last_signature ?? null;
};

describe('indexSolanaSettlements', () => {
  it('keeps USDC transfers of successful relayer-paid transactions, owners from token balances', async () => {
    const run = await indexSolanaSettlements(node.t.warehouse.connection, node.rpc, options);
    expect(run).toMatchObject({
      relayers: RELAYER_COUNT,
      signatureRequests: RELAYER_COUNT,
      transactionRequests: 4,
      settlements: 2,
      inserted: 2,
    });
    expect(run.skipped).toMatchObject({ failed: 1, relayerPayer: 1, notRelayerPaid: 1 });
    // The failed signature is never fetched.
    const fetched = node.server.requests.filter((r) => r.rpcMethod === 'getTransaction').map((r) => r.rpcParams[0]);
    expect(fetched).not.toContain(fx.signatures.failed);
    expect(node.server.requests.find((r) => r.rpcMethod === 'getTransaction')!.rpcParams[1]).toEqual({
      encoding: 'jsonParsed',
      maxSupportedTransactionVersion: 0,
      commitment: 'finalized',
    });
    expect(await rows()).toEqual([
      {
        signature: fx.signatures.settlement,
        instruction: '2',
        buyer: fx.buyers[0],
        seller_address: fx.sellers[0],
        amount: 0.01,
        facilitator: 'coinbase',
        relayer: fx.relayer,
      },
      // A plain `transfer` inside a CPI: the mint comes from the token balances.
      {
        signature: fx.signatures.innerTransfer,
        instruction: '1.0',
        buyer: fx.buyers[1],
        seller_address: fx.sellers[1],
        amount: 0.05,
        facilitator: 'coinbase',
        relayer: fx.relayer,
      },
    ]);
    expect(await checkpoint()).toBe(fx.signatures.notRelayerPaid); // the newest signature seen
  });

  it('resumes after the checkpoint and re-runs without duplicates', async () => {
    await indexSolanaSettlements(node.t.warehouse.connection, node.rpc, options);
    node.server.reset();
    state.visible = 6;
    const run = await indexSolanaSettlements(node.t.warehouse.connection, node.rpc, options);
    const ask = node.server.requests.find((r) => r.rpcMethod === 'getSignaturesForAddress' && r.rpcParams[0] === fx.relayer)!;
    expect(ask.rpcParams[1]).toMatchObject({ until: fx.signatures.notRelayerPaid, commitment: 'finalized' });
    expect(run).toMatchObject({ transactionRequests: 1, settlements: 1, inserted: 1 });
    expect((await rows()).map((r) => r.signature)).toEqual([fx.signatures.settlement, fx.signatures.innerTransfer, fx.signatures.later]);
    expect(await checkpoint()).toBe(fx.signatures.later);

    // Checkpoint lost after the rows were written: the same transactions come again, no new rows.
    await node.t.warehouse.connection.run('DELETE FROM solana_checkpoint');
    const again = await indexSolanaSettlements(node.t.warehouse.connection, node.rpc, options);
    expect(again).toMatchObject({ settlements: 3, inserted: 0 });
    expect(await rows()).toHaveLength(3);
  });

  it('pages signatures with `before` and advances the checkpoint in bounded steps, oldest first', async () => {
    const paged = await indexSolanaSettlements(node.t.warehouse.connection, node.rpc, { ...options, pageSize: 2 });
    const asks = node.server.requests.filter((r) => r.rpcMethod === 'getSignaturesForAddress' && r.rpcParams[0] === fx.relayer);
    // Newest first: [later-hidden] notRelayerPaid, failed | innerTransfer, relayerSweep | settlement.
    expect(asks.map((r) => (r.rpcParams[1] as { before?: string }).before ?? null)).toEqual([
      null,
      fx.signatures.failed,
      fx.signatures.relayerSweep,
    ]);
    expect(paged.settlements).toBe(2);

    // Back to the first settlement, then at most 2 transactions per run.
    await node.t.warehouse.connection.run(`UPDATE solana_checkpoint SET last_signature = $s`, { s: fx.signatures.settlement });
    state.visible = 6;
    const bounded = { ...options, maxTransactionsPerRelayer: 2 };
    await indexSolanaSettlements(node.t.warehouse.connection, node.rpc, bounded);
    expect(await checkpoint()).toBe(fx.signatures.innerTransfer); // sweep, inner transfer
    await indexSolanaSettlements(node.t.warehouse.connection, node.rpc, bounded);
    expect(await checkpoint()).toBe(fx.signatures.notRelayerPaid); // failed, not relayer-paid
    await indexSolanaSettlements(node.t.warehouse.connection, node.rpc, bounded);
    expect(await checkpoint()).toBe(fx.signatures.later);
    expect(await rows()).toHaveLength(3);
  });

  it("walks a listed payTo's USDC account: a sponsored transfer whose fee payer no registry names is a settlement, facilitator unknown", async () => {
    // the recorded settlement as three transactions to the same payTo: paid for by the registered
    // relayer (the relayer walk's), by a wallet no registry names, and by the buyer itself
    type Tx = { transaction: { message: { accountKeys: Array<{ pubkey: string }> } }; slot: number };
    const recorded = fixture<Record<string, Tx>>('solana-transactions.json')[fx.signatures.settlement]!;
    const payer = 'Fg6PaFpoGXkYsidMpWTK6W2BeZ7FEfcYkg476zPFsLnS';
    // a payTo with a real 32-byte address (the fixture's sellers are placeholders no token account derives from)
    const payee = 'HN7cABqLq46Es1jh92dQQisAq662SmxELLLsHHe4YWrH';
    type Balance = { accountIndex: number; owner: string };
    const paidBy = (feePayer: string, slot: number) => {
      const tx = structuredClone(recorded) as Tx & { meta: { preTokenBalances: Balance[]; postTokenBalances: Balance[] } };
      tx.transaction.message.accountKeys[0]!.pubkey = feePayer;
      tx.slot = slot;
      for (const b of [...tx.meta.preTokenBalances, ...tx.meta.postTokenBalances]) if (b.accountIndex === 2) b.owner = payee;
      return tx;
    };
    const account = await usdcAccountOf(payee);
    state.transactions = { unknownPaid: paidBy(payer, recorded.slot + 2), selfPaid: paidBy(fx.buyers[0]!, recorded.slot + 1) };
    state.histories = {
      [account]: [
        { signature: 'unknownPaid', slot: recorded.slot + 2 },
        { signature: 'selfPaid', slot: recorded.slot + 1 },
        { signature: fx.signatures.settlement, slot: recorded.slot }, // paid for by the registered relayer: the relayer walk has it
      ],
    };
    const run = await indexSolanaSettlements(node.t.warehouse.connection, node.rpc, {
      ...options,
      payees: [payee, 'not-an-address'],
    });
    expect(run).toMatchObject({ payees: 1, unknownFacilitator: 1 });
    expect(run.skipped).toMatchObject({ notSponsored: 1, invalidPayee: 1 });
    const bySignature = (a: unknown[], b: unknown[]) => String(a[0]).localeCompare(String(b[0]));
    expect((await rows()).map((r) => [r.signature, r.seller_address, r.facilitator, r.relayer]).sort(bySignature)).toEqual(
      [
        [fx.signatures.settlement, fx.sellers[0], 'coinbase', fx.relayer],
        [fx.signatures.innerTransfer, fx.sellers[1], 'coinbase', fx.relayer],
        ['unknownPaid', payee, 'unknown', payer],
      ].sort(bySignature),
    );
    // the payTo's account has its own checkpoint: the next run asks only for what is newer
    node.server.reset();
    await indexSolanaSettlements(node.t.warehouse.connection, node.rpc, { ...options, payees: [payee] });
    const ask = node.server.requests.find((r) => r.rpcMethod === 'getSignaturesForAddress' && r.rpcParams[0] === account)!;
    expect(ask.rpcParams[1]).toMatchObject({ until: 'unknownPaid' });
  });
});
