/**
 * x402 settlements on an EVM chain (Base) from plain JSON-RPC, the merona pattern
 * (docs/x402-indexing.md, "EVM" and "Which transfers count"):
 *
 *  1. eth_getLogs over finalized blocks for USDC `Transfer` and `AuthorizationUsed` (one call,
 *     topic0 OR-list), splitting a range in half when the node says it is too large;
 *  2. EIP-3009 rule: a Transfer counts when its `from` used an authorization earlier in the same
 *     transaction (transferWithAuthorization emits AuthorizationUsed, then Transfer);
 *  3. scope: the transfer is an x402 settlement when its transaction's sender (eth_getBlockReceipts,
 *     else eth_getTransactionByHash) is a facilitator relayer registered for that chain
 *     (catalog/facilitators.json) and active at that time, or when it pays a payTo a listing has
 *     named (discovery_payees), whatever the sender: then the facilitator is the registry's when it
 *     names the sender, else "unknown" with the sender kept (a relayer the pinned list lacks is a
 *     payment, not a skip). The payer must not be a relayer itself. A chain with no registered
 *     relayer is not read at all (no x402 is known to settle there: Arbitrum's EIP-3009 traffic is
 *     bridges and payouts);
 *  4. rows keyed by (chain, tx_hash, log_index) land in `live_evm_settlements` together with the
 *     checkpoint that covers them, so an interrupted or repeated run neither loses nor doubles rows.
 *
 * Funding (`indexEvmFunding`): the first inbound USDC transfer to each buyer in a bounded window
 * before its first payment, a few wallets per eth_getLogs (topic2 OR-list), a bounded number per run.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { z } from 'zod';
import type { AnalyticsChain } from '../../../catalog/categories.ts';
import { queryJson, type Row } from '../../../lib/duckdb.ts';
import type { RawTable } from '../../raw-tables.ts';
import { USDC, usdcToUsd } from './chains.ts';
import { notIndexedReason, REGISTRY_VERSION, RELAYERS, relayerLookup, type Relayer } from './facilitators.ts';
import { UpstreamError } from '../http.ts';
import { isMethodUnavailable, isRateLimitError, JsonRpcError, type JsonRpcClient } from '../json-rpc.ts';
import { inTransaction, loadScratch } from '../scratch.ts';
import type { SkipKind } from '../../indexing.ts';

export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
export const AUTHORIZATION_USED_TOPIC = '0x98de503528ee59b575ef0c0a2576a82497bfc029a5685b209e9ec333479b10a5';

export type EvmChain = Exclude<AnalyticsChain, 'solana'>;

/** The facilitator of a settlement whose sender the registry does not name (the sender is kept as its relayer). */
export const UNKNOWN_FACILITATOR = 'unknown';

export interface EvmIndexerOptions {
  chain: EvmChain;
  /** First block of a fresh index; null starts `maxBlocksPerRun` blocks behind finalized. Ignored once a checkpoint exists. */
  startBlock: number | null;
  /** Blocks indexed per run at most, so one run stays bounded. */
  maxBlocksPerRun: number;
  /** eth_getLogs range to try first (blocks); halved on "too many results", grown back after a success. */
  initialLogRange: number;
  registry: readonly Relayer[];
  /** The version of the registry in use, kept on every row. */
  registryVersion: string;
  /** The payTos listings have named on the chain (lowercase): a settlement to one counts whatever its sender. */
  payees: ReadonlySet<string>;
}

export const DEFAULT_EVM_OPTIONS: EvmIndexerOptions = {
  chain: 'base',
  startBlock: null,
  maxBlocksPerRun: 5_000,
  // Base USDC emits tens of logs per block; ~500 blocks stays under the common 10 000-result cap.
  initialLogRange: 500,
  registry: RELAYERS,
  registryVersion: REGISTRY_VERSION,
  payees: new Set(),
};

export interface EvmFundingOptions {
  chain: EvmChain;
  /** How far before a buyer's first payment to look for its funding (blocks; Base ≈ 43 200 a day). */
  lookbackBlocks: number;
  /** Buyers looked up per run. */
  walletsPerRun: number;
  /** Buyers per eth_getLogs (topic2 OR-list; providers cap list sizes). */
  walletsPerQuery: number;
  logRange: number;
  /** Hard cap on eth_getLogs calls for funding per run. */
  maxRequestsPerRun: number;
}

export const DEFAULT_FUNDING_OPTIONS: EvmFundingOptions = {
  chain: 'base',
  lookbackBlocks: 7 * 43_200,
  walletsPerRun: 200,
  walletsPerQuery: 20,
  logRange: 10_000,
  maxRequestsPerRun: 400,
};

// ---------------------------------------------------------------- wire schemas

const Hex = z.string().regex(/^0x[0-9a-fA-F]*$/, 'expected 0x-prefixed hex');
const Quantity = z
  .string()
  .regex(/^0x[0-9a-fA-F]+$/, 'expected a hex quantity')
  .transform((h) => Number(BigInt(h)));
const Topic = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'expected a 32-byte topic');

const LogSchema = z.object({
  address: Hex,
  topics: z.array(Topic),
  data: Hex,
  blockNumber: Quantity,
  blockTimestamp: Quantity.optional().nullable(), // only some nodes add it
  transactionHash: Topic,
  logIndex: Quantity,
  removed: z.boolean().optional(),
});
export type RpcLog = z.infer<typeof LogSchema>;
const LogsSchema = z.array(LogSchema);

const BlockHeaderSchema = z.object({ number: Quantity, timestamp: Quantity, hash: Hex.nullable().optional() });
const ReceiptsSchema = z.array(z.object({ transactionHash: Topic, from: Hex, blockNumber: Quantity })).nullable();
const TransactionSchema = z.object({ hash: Topic, from: Hex }).nullable();

// ---------------------------------------------------------------- warehouse tables

export const EVM_TABLES_DDL = [
  `CREATE TABLE IF NOT EXISTS evm_checkpoint (
     chain VARCHAR PRIMARY KEY, last_block BIGINT NOT NULL, updated_at TIMESTAMP NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS live_evm_settlements (
     chain VARCHAR NOT NULL, tx_hash VARCHAR NOT NULL, log_index BIGINT NOT NULL,
     block_number BIGINT NOT NULL, block_time TIMESTAMP NOT NULL,
     buyer VARCHAR NOT NULL, seller_address VARCHAR NOT NULL,
     amount DOUBLE NOT NULL, amount_atomic VARCHAR NOT NULL,
     relayer VARCHAR NOT NULL, facilitator VARCHAR NOT NULL, method VARCHAR NOT NULL,
     is_self_pay BOOLEAN NOT NULL, registry_version VARCHAR NOT NULL,
     PRIMARY KEY (chain, tx_hash, log_index))`,
  `CREATE TABLE IF NOT EXISTS live_wallet_funding (
     chain VARCHAR NOT NULL, address VARCHAR NOT NULL, funder VARCHAR NOT NULL,
     amount DOUBLE NOT NULL, time TIMESTAMP NOT NULL, block_number BIGINT NOT NULL,
     tx_hash VARCHAR NOT NULL, log_index BIGINT NOT NULL,
     PRIMARY KEY (chain, address))`,
  // Which buyers have been looked up, so a wallet without funding in its window is not rescanned every run.
  `CREATE TABLE IF NOT EXISTS live_funding_checked (
     chain VARCHAR NOT NULL, address VARCHAR NOT NULL, from_block BIGINT NOT NULL, to_block BIGINT NOT NULL,
     found BOOLEAN NOT NULL, checked_at TIMESTAMP NOT NULL,
     PRIMARY KEY (chain, address))`,
];

export async function ensureEvmTables(connection: DuckDBConnection): Promise<void> {
  for (const ddl of EVM_TABLES_DDL) await connection.run(ddl);
}

const SETTLEMENT_SCRATCH: RawTable = {
  name: 'evm_settlements_batch',
  service: 'analytics',
  description: 'Settlements of one eth_getLogs range (scratch).',
  columns: [
    ['chain', 'VARCHAR'],
    ['tx_hash', 'VARCHAR'],
    ['log_index', 'BIGINT'],
    ['block_number', 'BIGINT'],
    ['block_time', 'TIMESTAMP'],
    ['buyer', 'VARCHAR'],
    ['seller_address', 'VARCHAR'],
    ['amount', 'DOUBLE'],
    ['amount_atomic', 'VARCHAR'],
    ['relayer', 'VARCHAR'],
    ['facilitator', 'VARCHAR'],
    ['method', 'VARCHAR'],
    ['is_self_pay', 'BOOLEAN'],
    ['registry_version', 'VARCHAR'],
  ],
};

const FUNDING_SCRATCH: RawTable = {
  name: 'evm_funding_batch',
  service: 'analytics',
  description: 'Funding lookups of one batch of buyers (scratch).',
  columns: [
    ['chain', 'VARCHAR'],
    ['address', 'VARCHAR'],
    ['funder', 'VARCHAR'],
    ['amount', 'DOUBLE'],
    ['time', 'TIMESTAMP'],
    ['block_number', 'BIGINT'],
    ['tx_hash', 'VARCHAR'],
    ['log_index', 'BIGINT'],
  ],
};

const CHECKED_SCRATCH: RawTable = {
  name: 'evm_funding_checked_batch',
  service: 'analytics',
  description: 'Buyers looked up in one batch (scratch).',
  columns: [
    ['chain', 'VARCHAR'],
    ['address', 'VARCHAR'],
    ['from_block', 'BIGINT'],
    ['to_block', 'BIGINT'],
    ['found', 'BOOLEAN'],
    ['checked_at', 'TIMESTAMP'],
  ],
};

// ---------------------------------------------------------------- decoding

const hex = (n: number) => `0x${n.toString(16)}`;
const topicAddress = (topic: string) => `0x${topic.slice(-40)}`.toLowerCase();
const padTopic = (address: string) => `0x${address.slice(2).toLowerCase().padStart(64, '0')}`;

export interface Eip3009Transfer {
  txHash: string;
  logIndex: number;
  blockNumber: number;
  blockTimestamp: number | null;
  buyer: string;
  seller: string;
  atomic: bigint;
}

export interface CandidateCounts {
  logs: number;
  removed: number;
  /** Transfers without a matching authorization (plain transfers, Permit2 settlements). */
  noAuthorization: number;
  malformed: number;
}

/**
 * The Transfers that spend an EIP-3009 authorization: grouped per transaction, each
 * AuthorizationUsed(authorizer) lets one later Transfer from that authorizer count, so a batch
 * transaction with several settlements yields several rows and a stray transfer yields none.
 */
export function eip3009Transfers(logs: readonly RpcLog[], usdc: string): { transfers: Eip3009Transfer[]; counts: CandidateCounts } {
  const counts: CandidateCounts = { logs: logs.length, removed: 0, noAuthorization: 0, malformed: 0 };
  const byTx = new Map<string, RpcLog[]>();
  for (const log of logs) {
    if (log.removed) {
      counts.removed++; // reorged out; finalized ranges should not have any, but a node may say so
      continue;
    }
    if (log.address.toLowerCase() !== usdc) continue;
    const key = log.transactionHash.toLowerCase();
    const list = byTx.get(key);
    if (list) list.push(log);
    else byTx.set(key, [log]);
  }
  const transfers: Eip3009Transfer[] = [];
  for (const [txHash, txLogs] of byTx) {
    txLogs.sort((a, b) => a.logIndex - b.logIndex);
    const unspent = new Map<string, number>();
    for (const log of txLogs) {
      const topic0 = log.topics[0]?.toLowerCase();
      if (topic0 === AUTHORIZATION_USED_TOPIC) {
        if (log.topics.length !== 3) {
          counts.malformed++;
          continue;
        }
        const authorizer = topicAddress(log.topics[1]!);
        unspent.set(authorizer, (unspent.get(authorizer) ?? 0) + 1);
      } else if (topic0 === TRANSFER_TOPIC) {
        if (log.topics.length !== 3 || log.data.length !== 66) {
          counts.malformed++;
          continue;
        }
        const from = topicAddress(log.topics[1]!);
        const left = unspent.get(from) ?? 0;
        if (left === 0) {
          counts.noAuthorization++;
          continue;
        }
        unspent.set(from, left - 1);
        transfers.push({
          txHash,
          logIndex: log.logIndex,
          blockNumber: log.blockNumber,
          blockTimestamp: log.blockTimestamp ?? null,
          buyer: from,
          seller: topicAddress(log.topics[2]!),
          atomic: BigInt(log.data),
        });
      }
    }
  }
  return { transfers, counts };
}

/** "Your range is too big / returns too much": the node wants a smaller block range. */
export function isRangeTooLarge(err: unknown): boolean {
  if (err instanceof UpstreamError) return err.status === 413;
  if (!(err instanceof JsonRpcError) || isRateLimitError(err)) return false;
  return err.code === -32005 || /too many|more than \d+ results|range|limit exceeded|response size|too large|exceed/i.test(err.rpcMessage);
}

// ---------------------------------------------------------------- RPC helpers

interface RangeScan {
  requests: number;
  halvings: number;
}

/**
 * Calls eth_getLogs over [from, to] in consecutive ranges, halving a range the node refuses and
 * growing back after a success, handing each range's logs to `onRange` in block order.
 * `onRange` returns false to stop early. Throws when a single block is still too large.
 */
async function scanLogs(
  rpc: JsonRpcClient,
  filter: { address: string; topics: ReadonlyArray<string | readonly string[] | null> },
  from: number,
  to: number,
  initialRange: number,
  onRange: (logs: RpcLog[], rangeFrom: number, rangeTo: number) => Promise<boolean>,
  budget: { left: number } = { left: Number.POSITIVE_INFINITY },
): Promise<RangeScan & { completedTo: number }> {
  const stats = { requests: 0, halvings: 0, completedTo: from - 1 };
  let size = Math.max(1, initialRange);
  let start = from;
  while (start <= to) {
    if (budget.left <= 0) break;
    const end = Math.min(to, start + size - 1);
    let logs: RpcLog[];
    try {
      budget.left--;
      stats.requests++;
      logs = await rpc.call('eth_getLogs', [{ ...filter, fromBlock: hex(start), toBlock: hex(end) }], LogsSchema);
    } catch (err) {
      if (!isRangeTooLarge(err)) throw err;
      if (end === start) {
        throw new Error(`${rpc.name}: eth_getLogs refuses even the single block ${start}: ${(err as Error).message}`);
      }
      size = Math.max(1, Math.floor((end - start + 1) / 2));
      stats.halvings++;
      continue;
    }
    const keepGoing = await onRange(logs, start, end);
    stats.completedTo = end;
    start = end + 1;
    size = Math.min(initialRange, size * 2);
    if (!keepGoing) break;
  }
  return stats;
}

async function finalizedBlock(rpc: JsonRpcClient): Promise<number> {
  const block = await rpc.call('eth_getBlockByNumber', ['finalized', false], BlockHeaderSchema.nullable());
  if (!block) throw new Error(`${rpc.name}: the node returned no 'finalized' block`);
  return block.number;
}

/** Block timestamps (seconds) for blocks whose logs did not carry one. */
async function blockTimes(rpc: JsonRpcClient, blocks: Iterable<number>): Promise<Map<number, number>> {
  const unique = [...new Set(blocks)];
  const headers = await Promise.all(unique.map((b) => rpc.call('eth_getBlockByNumber', [hex(b), false], BlockHeaderSchema.nullable())));
  const times = new Map<number, number>();
  headers.forEach((h, i) => {
    if (!h) throw new Error(`${rpc.name}: block ${unique[i]} not found (is the node pruned?)`);
    times.set(unique[i]!, h.timestamp);
  });
  return times;
}

/** Senders per transaction, through eth_getBlockReceipts (one call per block) when the node has it. */
class SenderResolver {
  /** Unknown until the first call; a node without eth_getBlockReceipts is asked once per run. */
  private receipts: 'unknown' | 'available' | 'unavailable' = 'unknown';
  requests = { receipts: 0, transactions: 0 };
  constructor(private readonly rpc: JsonRpcClient) {}

  private async fromReceipts(block: number, txs: Set<string>, senders: Map<string, string>): Promise<void> {
    if (this.receipts === 'unavailable') return;
    try {
      this.requests.receipts++;
      const receipts = await this.rpc.call('eth_getBlockReceipts', [hex(block)], ReceiptsSchema);
      this.receipts = 'available';
      for (const r of receipts ?? []) {
        const tx = r.transactionHash.toLowerCase();
        if (txs.has(tx)) senders.set(tx, r.from.toLowerCase());
      }
    } catch (err) {
      if (!isMethodUnavailable(err)) throw err;
      this.receipts = 'unavailable';
    }
  }

  async senders(txsByBlock: Map<number, Set<string>>): Promise<Map<string, string>> {
    const senders = new Map<string, string>();
    const blocks = [...txsByBlock];
    // Probe with one block first so a node without the method costs one failed call, not one per block.
    const probe = this.receipts === 'unknown' && blocks.length > 0;
    if (probe) await this.fromReceipts(blocks[0]![0], blocks[0]![1], senders);
    const rest = probe ? blocks.slice(1) : blocks;
    await Promise.all(rest.map(([block, txs]) => this.fromReceipts(block, txs, senders)));
    const missing = blocks.flatMap(([, txs]) => [...txs].filter((tx) => !senders.has(tx)));
    await Promise.all(
      missing.map(async (tx) => {
        this.requests.transactions++;
        const t = await this.rpc.call('eth_getTransactionByHash', [tx], TransactionSchema);
        if (!t) throw new Error(`${this.rpc.name}: transaction ${tx} not found`);
        senders.set(tx, t.from.toLowerCase());
      }),
    );
    return senders;
  }
}

// ---------------------------------------------------------------- settlements

export interface EvmIndexRun {
  chain: EvmChain;
  /** Why the chain was not read (no facilitator relayer registered on it); null when it was. */
  notIndexed: string | null;
  /** Blocks covered this run; null when the index was already at the finalized block. */
  fromBlock: number | null;
  toBlock: number | null;
  /** The node's finalized block; null when the chain was not read. */
  finalized: number | null;
  logRequests: number;
  halvings: number;
  receiptRequests: number;
  transactionRequests: number;
  blockRequests: number;
  logs: number;
  settlements: number;
  /** New rows (a re-run over indexed blocks adds none). */
  inserted: number;
  /** Settlements to a listed payTo whose sender the registry does not name (facilitator "unknown"). */
  unknownFacilitator: number;
  skipped: Omit<CandidateCounts, 'logs'> & {
    /** EIP-3009 transfers neither sent by a registered relayer nor paid to a listed payTo: not x402 as far as anyone can tell. */
    notInScope: number;
    /** Sent by a registered relayer before its first-seen date, to a payTo no listing names. */
    beforeRelayerFirstSeen: number;
    /** In scope but paid by a relayer itself (a fee or top-up, not a buyer). */
    relayerPayer: number;
  };
}

/** An EVM run's skips by kind and reason, as the run's indexing tally counts them (sources/indexing.ts). */
export function evmSkips(run: EvmIndexRun): Array<[SkipKind, string, number]> {
  const s = run.skipped;
  return [
    ['settlement', 'before_relayer_first_seen', s.beforeRelayerFirstSeen],
    ['log', 'relayer_transfer', s.relayerPayer],
    ['log', 'no_authorization', s.noAuthorization],
    ['log', 'not_in_scope', s.notInScope],
    ['log', 'malformed', s.malformed],
    ['log', 'removed', s.removed],
  ];
}

async function checkpointOf(connection: DuckDBConnection, chain: string): Promise<number | null> {
  const [row] = await queryJson(connection, `SELECT last_block FROM evm_checkpoint WHERE chain = $chain`, { chain });
  return row ? Number(row.last_block) : null;
}

/**
 * Indexes finalized blocks after the checkpoint (at most `maxBlocksPerRun`), committing each
 * eth_getLogs range's settlements with the checkpoint that covers them.
 */
export async function indexEvmSettlements(
  connection: DuckDBConnection,
  rpc: JsonRpcClient,
  options: EvmIndexerOptions,
  log: (message: string) => void = () => {},
): Promise<EvmIndexRun> {
  const { chain } = options;
  const usdc = USDC[chain];
  const relayers = relayerLookup(chain, options.registry);
  await ensureEvmTables(connection);
  const run: EvmIndexRun = {
    chain,
    notIndexed: notIndexedReason(chain, options.registry),
    fromBlock: null,
    toBlock: null,
    finalized: null,
    logRequests: 0,
    halvings: 0,
    receiptRequests: 0,
    transactionRequests: 0,
    blockRequests: 0,
    logs: 0,
    settlements: 0,
    inserted: 0,
    unknownFacilitator: 0,
    skipped: { removed: 0, noAuthorization: 0, malformed: 0, notInScope: 0, beforeRelayerFirstSeen: 0, relayerPayer: 0 },
  };
  // Without a registered facilitator nothing on the chain can count, so the node is not even asked.
  if (run.notIndexed) {
    log(run.notIndexed);
    return run;
  }

  const finalized = await finalizedBlock(rpc);
  run.finalized = finalized;
  const checkpoint = await checkpointOf(connection, chain);
  const from = checkpoint !== null ? checkpoint + 1 : (options.startBlock ?? Math.max(0, finalized - options.maxBlocksPerRun + 1));
  const to = Math.min(finalized, from + options.maxBlocksPerRun - 1);
  if (from > to) {
    log(
      checkpoint !== null
        ? `${chain}: up to date at block ${checkpoint} (finalized ${finalized})`
        : `${chain}: nothing to index yet: start block ${from} is past the finalized block ${finalized}`,
    );
    return run;
  }
  run.fromBlock = from;
  const resolver = new SenderResolver(rpc);

  const scan = await scanLogs(
    rpc,
    { address: usdc, topics: [[TRANSFER_TOPIC, AUTHORIZATION_USED_TOPIC]] },
    from,
    to,
    options.initialLogRange,
    async (logs, _rangeFrom, rangeTo) => {
      const { transfers, counts } = eip3009Transfers(logs, usdc);
      run.logs += counts.logs;
      run.skipped.removed += counts.removed;
      run.skipped.noAuthorization += counts.noAuthorization;
      run.skipped.malformed += counts.malformed;

      const txsByBlock = new Map<number, Set<string>>();
      for (const t of transfers) {
        const set = txsByBlock.get(t.blockNumber) ?? new Set<string>();
        set.add(t.txHash);
        txsByBlock.set(t.blockNumber, set);
      }
      const senders = await resolver.senders(txsByBlock);
      // in scope: sent by a registered relayer (of any date: the date is checked below) or paid to a listed payTo
      const inScope = transfers.filter((t) => {
        if (relayers.byAddress(senders.get(t.txHash) ?? '') || options.payees.has(t.seller)) return true;
        run.skipped.notInScope++;
        return false;
      });
      const untimed = inScope.filter((t) => t.blockTimestamp === null).map((t) => t.blockNumber);
      run.blockRequests += new Set(untimed).size;
      const times = await blockTimes(rpc, untimed);

      const rows: Row[] = [];
      for (const t of inScope) {
        const sender = senders.get(t.txHash)!;
        const time = new Date((t.blockTimestamp ?? times.get(t.blockNumber)!) * 1000);
        const relayer = relayers.at(sender, time);
        const listed = options.payees.has(t.seller);
        if (!relayer && !listed) {
          run.skipped.beforeRelayerFirstSeen++; // a registered relayer before its first-seen date, to a payTo nobody listed
          continue;
        }
        // A relayer paying from its own balance is a fee or top-up, not a buyer (DefiLlama rule).
        if (relayers.byAddress(t.buyer)) {
          run.skipped.relayerPayer++;
          continue;
        }
        if (!relayer) run.unknownFacilitator++;
        rows.push([
          chain,
          t.txHash,
          t.logIndex,
          t.blockNumber,
          time,
          t.buyer,
          t.seller,
          usdcToUsd(t.atomic),
          t.atomic.toString(),
          sender, // the sender as it is, known or not: a candidate for the registry when unknown
          relayer?.facilitator ?? UNKNOWN_FACILITATOR,
          'eip3009',
          t.buyer === t.seller, // self-pay stays in, flagged: the wash classifier wants to see it
          options.registryVersion,
        ]);
      }
      run.settlements += rows.length;
      await loadScratch(connection, SETTLEMENT_SCRATCH, rows);
      run.inserted += await inTransaction(connection, async () => {
        const [before] = await queryJson(connection, `SELECT count(*)::BIGINT AS n FROM live_evm_settlements`);
        await connection.run(`INSERT OR IGNORE INTO live_evm_settlements SELECT * FROM ${SETTLEMENT_SCRATCH.name}`);
        const [after] = await queryJson(connection, `SELECT count(*)::BIGINT AS n FROM live_evm_settlements`);
        await connection.run(
          `INSERT INTO evm_checkpoint VALUES ($chain, $block, now()::TIMESTAMP)
           ON CONFLICT (chain) DO UPDATE SET last_block = excluded.last_block, updated_at = excluded.updated_at`,
          { chain, block: rangeTo },
        );
        return Number(after?.n ?? 0) - Number(before?.n ?? 0);
      });
      return true;
    },
  );
  await connection.run(`DROP TABLE IF EXISTS ${SETTLEMENT_SCRATCH.name}`);
  run.toBlock = scan.completedTo;
  run.logRequests = scan.requests;
  run.halvings = scan.halvings;
  run.receiptRequests = resolver.requests.receipts;
  run.transactionRequests = resolver.requests.transactions;
  log(
    `${chain}: blocks ${from}-${scan.completedTo} (finalized ${finalized}): ${run.logs} logs, ${run.settlements} settlements ` +
      `(${run.inserted} new, ${run.unknownFacilitator} by a sender the registry does not name); skipped ${run.skipped.beforeRelayerFirstSeen} ` +
      `sent by a relayer before its first-seen date, ${run.skipped.relayerPayer} paid by a relayer; not x402: ${run.skipped.notInScope} ` +
      `EIP-3009 transfers out of scope, ${run.skipped.noAuthorization} without authorization, ${run.skipped.removed} removed, ` +
      `${run.skipped.malformed} malformed; ${run.logRequests} eth_getLogs (${run.halvings} halvings)`,
  );
  return run;
}

// ---------------------------------------------------------------- funding

export interface EvmFundingRun {
  chain: EvmChain;
  walletsChecked: number;
  walletsFunded: number;
  logRequests: number;
  blockRequests: number;
  /** Buyers left for later runs because the request budget ran out. */
  deferred: number;
}

interface BuyerFirstPayment {
  address: string;
  block: number;
  logIndex: number;
}

/**
 * First inbound USDC transfer of buyers not looked up yet, within `lookbackBlocks` before their
 * first payment. Buyers are gasless under x402, so the first USDC funder (not the first ETH
 * funder) is the meaningful "funded by" (docs/x402-indexing.md, "Funding").
 */
export async function indexEvmFunding(
  connection: DuckDBConnection,
  rpc: JsonRpcClient,
  options: EvmFundingOptions,
  now: Date,
  log: (message: string) => void = () => {},
): Promise<EvmFundingRun> {
  const { chain } = options;
  const usdc = USDC[chain];
  await ensureEvmTables(connection);
  const pending = (
    await queryJson(
      connection,
      `SELECT buyer AS address,
              arg_min(block_number, (block_number, log_index)) AS block,
              arg_min(log_index, (block_number, log_index)) AS log_index
         FROM live_evm_settlements s
        WHERE chain = $chain
          AND NOT EXISTS (SELECT 1 FROM live_funding_checked c WHERE c.chain = s.chain AND c.address = s.buyer)
        GROUP BY buyer ORDER BY block, buyer LIMIT $limit`,
      { chain, limit: options.walletsPerRun },
    )
  ).map((r): BuyerFirstPayment => ({ address: String(r.address), block: Number(r.block), logIndex: Number(r.log_index) }));

  const run: EvmFundingRun = { chain, walletsChecked: 0, walletsFunded: 0, logRequests: 0, blockRequests: 0, deferred: 0 };
  const budget = { left: options.maxRequestsPerRun };
  for (let i = 0; i < pending.length; i += options.walletsPerQuery) {
    const batch = pending.slice(i, i + options.walletsPerQuery);
    if (budget.left <= 0) {
      run.deferred += pending.length - i;
      break;
    }
    const byAddress = new Map(batch.map((b) => [b.address, b]));
    const firstFunding = new Map<string, RpcLog>();
    const windowFrom = Math.max(0, Math.min(...batch.map((b) => b.block)) - options.lookbackBlocks);
    const windowTo = Math.max(...batch.map((b) => b.block));
    const scan = await scanLogs(
      rpc,
      { address: usdc, topics: [TRANSFER_TOPIC, null, batch.map((b) => padTopic(b.address))] },
      windowFrom,
      windowTo,
      options.logRange,
      async (logs) => {
        for (const l of [...logs].sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex)) {
          if (l.removed || l.topics.length !== 3 || l.topics[0]?.toLowerCase() !== TRANSFER_TOPIC) continue;
          const to = topicAddress(l.topics[2]!);
          const buyer = byAddress.get(to);
          if (!buyer || firstFunding.has(to)) continue;
          // Only money that arrived before the first payment funded it.
          if (l.blockNumber > buyer.block || (l.blockNumber === buyer.block && l.logIndex >= buyer.logIndex)) continue;
          firstFunding.set(to, l);
        }
        return firstFunding.size < batch.length; // ascending scan: the first hit per buyer is its earliest
      },
      budget,
    );
    run.logRequests += scan.requests;
    const finished = scan.completedTo >= windowTo || firstFunding.size === batch.length;
    if (!finished) {
      run.deferred += pending.length - i; // budget ran out mid-window: look these up next run
      break;
    }
    const untimed = [...firstFunding.values()].filter((l) => l.blockTimestamp == null).map((l) => l.blockNumber);
    run.blockRequests += new Set(untimed).size;
    const times = await blockTimes(rpc, untimed);
    const fundingRows: Row[] = [...firstFunding].map(([address, l]) => [
      chain,
      address,
      topicAddress(l.topics[1]!),
      usdcToUsd(BigInt(l.data)),
      new Date((l.blockTimestamp ?? times.get(l.blockNumber)!) * 1000),
      l.blockNumber,
      l.transactionHash.toLowerCase(),
      l.logIndex,
    ]);
    const checkedRows: Row[] = batch.map((b) => [chain, b.address, windowFrom, b.block, firstFunding.has(b.address), now]);
    await loadScratch(connection, FUNDING_SCRATCH, fundingRows);
    await loadScratch(connection, CHECKED_SCRATCH, checkedRows);
    await inTransaction(connection, async () => {
      await connection.run(`INSERT OR IGNORE INTO live_wallet_funding SELECT * FROM ${FUNDING_SCRATCH.name}`);
      await connection.run(`INSERT OR IGNORE INTO live_funding_checked SELECT * FROM ${CHECKED_SCRATCH.name}`);
    });
    run.walletsChecked += batch.length;
    run.walletsFunded += firstFunding.size;
  }
  await connection.run(`DROP TABLE IF EXISTS ${FUNDING_SCRATCH.name}`);
  await connection.run(`DROP TABLE IF EXISTS ${CHECKED_SCRATCH.name}`);
  log(
    `${chain}: funding looked up for ${run.walletsChecked} buyers (${run.walletsFunded} found, ${run.deferred} deferred) ` +
      `with ${run.logRequests} eth_getLogs`,
  );
  return run;
}
