/**
 * Only facilitator-settled x402 payments count (issue 15, "Live data honesty"), on the recorded
 * Base node served on loopback: a transferWithAuthorization sent by a wallet that is not a
 * registered facilitator is not counted, the same transaction is counted once its sender is
 * registered, and a chain with no facilitator in the registry is not read at all and says so.
 */
import { describe, expect, it } from 'vitest';
import { FACILITATOR_REGISTRY, chainCoverage, parseFacilitatorRegistry, relayersOf } from '../../../catalog/facilitators.ts';
import { loadSettings } from '../../../lib/config.ts';
import { queryJson } from '../../../lib/duckdb.ts';
import { liveIngestSteps } from './index.ts';
import { DEFAULT_EVM_OPTIONS, indexEvmSettlements, TRANSFER_TOPIC, type EvmIndexerOptions } from './evm-indexer.ts';
import { fixture } from '../testing/fixtures.ts';
import { registryCandidates } from './candidates.ts';
import { DEFAULT_SOLANA_OPTIONS, indexSolanaSettlements } from './solana-indexer.ts';
import { baseFixtureIndex, evmNodeRoutes } from '../testing/evm-node.ts';
import { useRpcNode } from '../testing/rpc-node.ts';
import { rowsOf } from '../../contract.ts';

const fx = baseFixtureIndex();
const RPC_PATH = '/rpc';

const node = useRpcNode({
  name: 'base-rpc',
  routes: () => evmNodeRoutes(RPC_PATH, { finalized: fx.firstFinalized, maxResults: 100, receipts: true }),
  url: (server) => server.url + RPC_PATH,
});

const options: EvmIndexerOptions = { ...DEFAULT_EVM_OPTIONS, startBlock: fx.startBlock, maxBlocksPerRun: 1000, initialLogRange: 64 };

/** The payTo of the recorded transaction's Transfer (its topic 2). */
function sellerOf(tx: string): string {
  const logs = fixture<Array<{ transactionHash: string; topics: string[] }>>('base-usdc-logs.json');
  const transfer = logs.find((l) => l.transactionHash === tx && l.topics[0] === TRANSFER_TOPIC);
  if (!transfer) throw new Error(`no Transfer in ${tx}`);
  return `0x${transfer.topics[2]!.slice(-40)}`.toLowerCase();
}

async function countedTxs(): Promise<string[]> {
  const rows = await queryJson(node.t.warehouse.connection, `SELECT DISTINCT tx_hash FROM live_evm_settlements ORDER BY tx_hash`);
  return rows.map((r) => String(r.tx_hash));
}

/** The shipped registry with one more relayer: the fixture's non-facilitator sender, registered on Base. */
function registryWithSender() {
  return parseFacilitatorRegistry(
    {
      ...FACILITATOR_REGISTRY,
      facilitators: { ...FACILITATOR_REGISTRY.facilitators, example: { name: 'Example', docs_url: 'https://example.com/' } },
      relayers: [
        ...FACILITATOR_REGISTRY.relayers,
        {
          facilitator: 'example',
          chain: 'base',
          address: fx.notFacilitator,
          first_seen: '2026-01-01',
          source: 'https://example.com/relayers',
        },
      ],
    },
    'test registry',
  );
}

describe('facilitator scope', () => {
  it('does not count a transferWithAuthorization sent by a wallet that is not a registered facilitator', async () => {
    const log: string[] = [];
    const run = await indexEvmSettlements(node.t.warehouse.connection, node.rpc, options, (m) => log.push(m));
    const counted = await countedTxs();
    // Block S+1 holds two EIP-3009 settlements: A sent by Coinbase's relayer, B by an unregistered wallet.
    expect(counted).toContain(fx.txs.A);
    expect(counted).not.toContain(fx.txs.B);
    expect(run.notIndexed).toBeNull();
    expect(run.skipped.notInScope).toBe(1);
    expect(run.unknownFacilitator).toBe(0);
    expect(log.at(-1)).toMatch(/not x402: 1 EIP-3009 transfers out of scope/);
  });

  it('counts a transferWithAuthorization to a listed payTo whatever its sender: facilitator "unknown", the sender kept', async () => {
    const payee = sellerOf(fx.txs.B);
    const log: string[] = [];
    const run = await indexEvmSettlements(node.t.warehouse.connection, node.rpc, { ...options, payees: new Set([payee]) }, (m) =>
      log.push(m),
    );
    expect(await countedTxs()).toContain(fx.txs.B);
    expect(run.skipped.notInScope).toBe(0);
    expect(run.unknownFacilitator).toBe(1);
    const [b] = await queryJson(
      node.t.warehouse.connection,
      `SELECT facilitator, relayer, seller_address FROM live_evm_settlements WHERE tx_hash = $tx`,
      { tx: fx.txs.B },
    );
    expect(b).toEqual({ facilitator: 'unknown', relayer: fx.notFacilitator, seller_address: payee });
    expect(log.at(-1)).toMatch(/1 by a sender the registry does not name/);

    // a candidate for the registry once it settled more than the threshold; never one the registry names
    const relayers = relayersOf(FACILITATOR_REGISTRY);
    expect(await registryCandidates(node.t.warehouse.connection, relayers)).toEqual([]);
    expect(await registryCandidates(node.t.warehouse.connection, relayers, 0)).toEqual([
      {
        chain: 'base',
        sender: fx.notFacilitator,
        settlements: 1,
        payees: 1,
        first_time: expect.any(String),
        last_time: expect.any(String),
      },
    ]);
    expect(await registryCandidates(node.t.warehouse.connection, relayersOf(registryWithSender()), 0)).toEqual([]);
  });

  it('counts the same transaction once its sender is registered for that chain', async () => {
    const run = await indexEvmSettlements(node.t.warehouse.connection, node.rpc, {
      ...options,
      registry: relayersOf(registryWithSender()),
    });
    const counted = await countedTxs();
    expect(counted).toContain(fx.txs.A);
    expect(counted).toContain(fx.txs.B);
    expect(run.skipped.notInScope).toBe(0);
    const [b] = await queryJson(node.t.warehouse.connection, `SELECT facilitator, relayer FROM live_evm_settlements WHERE tx_hash = $tx`, {
      tx: fx.txs.B,
    });
    expect(b).toEqual({ facilitator: 'example', relayer: fx.notFacilitator });
  });

  it('registers a relayer for one chain only: the same sender on another chain is not a facilitator there', () => {
    const registry = registryWithSender();
    const onBase = relayersOf(registry).filter((r) => r.address === fx.notFacilitator);
    expect(onBase.map((r) => r.chain)).toEqual(['base']);
  });

  it('does not read a chain with no registered facilitator, and logs why', async () => {
    const log: string[] = [];
    const run = await indexEvmSettlements(node.t.warehouse.connection, node.rpc, { ...options, chain: 'arbitrum' }, (m) => log.push(m));
    expect(run.notIndexed).toMatch(/^arbitrum: not indexed: no facilitator relayer is registered for arbitrum/);
    expect(log).toEqual([run.notIndexed]);
    expect(node.server.requests).toHaveLength(0); // the node is never asked
    expect(run).toMatchObject({ fromBlock: null, toBlock: null, finalized: null, settlements: 0 });
    expect(await countedTxs()).toEqual([]);

    // The same holds for Solana with a registry that has no Solana relayer.
    const noSolana = relayersOf(FACILITATOR_REGISTRY).filter((r) => r.chain !== 'solana');
    const solanaLog: string[] = [];
    const solana = await indexSolanaSettlements(
      node.t.warehouse.connection,
      node.rpc,
      { ...DEFAULT_SOLANA_OPTIONS, registry: noSolana },
      (m) => solanaLog.push(m),
    );
    expect(solana.notIndexed).toMatch(/^solana: not indexed/);
    expect(solanaLog).toEqual([solana.notIndexed]);
    expect(node.server.requests).toHaveLength(0);
  });

  it('the live transactions step reads only the covered chains and names each chain it leaves out', async () => {
    const settings = loadSettings({ BASE_RPC_URL: node.server.url + RPC_PATH });
    const step = liveIngestSteps(settings, {
      evm: { startBlock: fx.startBlock, initialLogRange: 64 },
      upstream: { sleep: async () => {} },
    }).find((s) => s.name === 'ingest:x402_transactions')!;
    const rows = rowsOf(await step.run(node.t.at(new Date('2026-03-02T01:00:00Z'))));
    expect(rows).toBeGreaterThan(0);
    expect(node.t.logs).toContain(
      'arbitrum: not indexed: no facilitator relayer is registered for arbitrum in the facilitator registry, so no transfer there counts as an x402 payment',
    );
    expect(node.t.logs.some((l) => l.startsWith('polygon: Not indexed:'))).toBe(true);
    expect(node.t.logs).toContain('solana: SOLANA_RPC_URL is not set; solana settlements are not indexed this run');
    const chains = await queryJson(node.t.warehouse.connection, `SELECT DISTINCT chain FROM x402_transactions ORDER BY chain`);
    expect(chains).toEqual([{ chain: 'base' }]);
  });
});

describe('the facilitator registry file', () => {
  it('gives every relayer a facilitator, a chain and a source URL, and covers every chain with a note', () => {
    expect(FACILITATOR_REGISTRY.relayers.length).toBeGreaterThan(40);
    for (const r of FACILITATOR_REGISTRY.relayers) {
      expect(FACILITATOR_REGISTRY.facilitators[r.facilitator]).toBeDefined();
      expect(r.source).toMatch(/^https:\/\//);
    }
    expect(chainCoverage().map((c) => [c.chain, c.indexed, c.facilitators])).toEqual([
      ['base', true, ['Coinbase (CDP)', 'PayAI', 'x402.rs']],
      ['solana', true, ['Coinbase (CDP)', 'PayAI']],
      ['polygon', false, ['x402.rs']],
      ['arbitrum', false, []],
    ]);
  });

  it('refuses an entry without a source, an unknown facilitator or a malformed address, naming it', () => {
    const base = FACILITATOR_REGISTRY;
    const entry = base.relayers[0]!;
    const withRelayer = (r: Record<string, unknown>) => ({ ...base, relayers: [r] });
    const { source: _source, ...noSource } = entry;
    expect(() => parseFacilitatorRegistry(withRelayer(noSource), 'x')).toThrow(/relayers\.0\.source/);
    expect(() => parseFacilitatorRegistry(withRelayer({ ...entry, facilitator: 'nobody' }), 'x')).toThrow(
      /relayers\.0\.facilitator: unknown facilitator 'nobody'/,
    );
    expect(() => parseFacilitatorRegistry(withRelayer({ ...entry, address: '0xABC' }), 'x')).toThrow(/relayers\.0\.address/);
    expect(() => parseFacilitatorRegistry(withRelayer({ ...entry, chain: 'solana' }), 'x')).toThrow(/base58/);
    expect(() => parseFacilitatorRegistry({ ...base, relayers: [entry, entry] }, 'x')).toThrow(/listed twice on base/);
  });
});
