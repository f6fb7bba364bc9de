/**
 * x402 settlements on Solana from plain RPC (docs/x402-indexing.md, "Settlement mechanics" and "Solana"):
 * for each facilitator relayer, `getSignaturesForAddress` (finalized) → `getTransaction`
 * (jsonParsed); every spl-token `transfer` / `transferChecked` of USDC in a successful transaction
 * whose fee payer is that relayer is a settlement. Buyer and seller are the owners of the source and
 * destination token accounts (from pre/postTokenBalances), keyed by (signature, instruction).
 *
 * Resumable per relayer: `solana_checkpoint` holds the last signature processed, and each batch of
 * transactions lands with the checkpoint that covers it.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { z } from 'zod';
import { queryJson, type Row } from '../../../lib/duckdb.ts';
import type { RawTable } from '../../raw-tables.ts';
import { USDC, usdcToUsd } from './chains.ts';
import { notIndexedReason, REGISTRY_VERSION, RELAYERS, relayerLookup, relayersOn, type Relayer } from './facilitators.ts';
import type { JsonRpcClient } from '../json-rpc.ts';
import { inTransaction, loadScratch } from '../scratch.ts';

export interface SolanaIndexerOptions {
  /** Signatures per getSignaturesForAddress page (the RPC allows up to 1000). */
  pageSize: number;
  /** Pages listed per relayer per run; more new signatures than this leaves a gap (logged). */
  maxPagesPerRelayer: number;
  /** Transactions fetched per relayer per run; the rest wait for the next run. */
  maxTransactionsPerRelayer: number;
  /** Transactions fetched and committed together. */
  batchSize: number;
  registry: readonly Relayer[];
}

export const DEFAULT_SOLANA_OPTIONS: SolanaIndexerOptions = {
  pageSize: 1000,
  maxPagesPerRelayer: 10,
  maxTransactionsPerRelayer: 2_000,
  batchSize: 50,
  registry: RELAYERS,
};

// ---------------------------------------------------------------- wire schemas

const SignatureInfo = z.object({
  signature: z.string().min(1),
  slot: z.number(),
  err: z.unknown().nullable().optional(),
  blockTime: z.number().nullable().optional(),
});
const SignaturesSchema = z.array(SignatureInfo);

const AccountKey = z.union([
  z.string(), // encoding:'json' shape, tolerated
  z.object({ pubkey: z.string(), signer: z.boolean().optional(), writable: z.boolean().optional() }),
]);
const Instruction = z.object({
  program: z.string().optional(),
  programId: z.string(),
  parsed: z.unknown().optional(),
});
const TokenBalance = z.object({
  accountIndex: z.number(),
  mint: z.string(),
  owner: z.string().optional().nullable(),
});
const TransactionSchema = z
  .object({
    slot: z.number(),
    blockTime: z.number().nullable().optional(),
    meta: z
      .object({
        err: z.unknown().nullable().optional(),
        preTokenBalances: z.array(TokenBalance).nullable().optional(),
        postTokenBalances: z.array(TokenBalance).nullable().optional(),
        innerInstructions: z
          .array(z.object({ index: z.number(), instructions: z.array(Instruction) }))
          .nullable()
          .optional(),
      })
      .nullable(),
    transaction: z.object({
      signatures: z.array(z.string()),
      message: z.object({ accountKeys: z.array(AccountKey), instructions: z.array(Instruction) }),
    }),
  })
  .nullable();
export type SolanaTransaction = NonNullable<z.infer<typeof TransactionSchema>>;

const TransferChecked = z.object({
  type: z.literal('transferChecked'),
  info: z.object({
    source: z.string(),
    destination: z.string(),
    mint: z.string(),
    authority: z.string().optional(),
    multisigAuthority: z.string().optional(),
    tokenAmount: z.object({ amount: z.string().regex(/^\d+$/) }),
  }),
});
const Transfer = z.object({
  type: z.literal('transfer'),
  info: z.object({
    source: z.string(),
    destination: z.string(),
    authority: z.string().optional(),
    multisigAuthority: z.string().optional(),
    amount: z.string().regex(/^\d+$/),
  }),
});
const TokenProgramInstruction = z.union([TransferChecked, Transfer]);

const TOKEN_PROGRAMS = new Set(['spl-token', 'spl-token-2022']);

// ---------------------------------------------------------------- decoding

export interface SolanaTransfer {
  /** "3" for the 4th top-level instruction, "3.1" for the 2nd inner instruction under it. */
  instruction: string;
  buyer: string;
  seller: string;
  atomic: bigint;
}

export interface SolanaDecodeCounts {
  failed: number;
  notRelayerPaid: number;
  otherMint: number;
  unknownOwner: number;
  relayerPayer: number;
}

/** The fee payer: the first account key. */
export function feePayerOf(tx: SolanaTransaction): string | null {
  const key = tx.transaction.message.accountKeys[0];
  return key === undefined ? null : typeof key === 'string' ? key : key.pubkey;
}

/** USDC transfers in one transaction, with token accounts resolved to their owners. */
export function usdcTransfers(tx: SolanaTransaction, counts: SolanaDecodeCounts): SolanaTransfer[] {
  const usdc = USDC.solana;
  const keys = tx.transaction.message.accountKeys.map((k) => (typeof k === 'string' ? k : k.pubkey));
  const owners = new Map<string, { owner: string | null; mint: string }>();
  for (const b of [...(tx.meta?.preTokenBalances ?? []), ...(tx.meta?.postTokenBalances ?? [])]) {
    const account = keys[b.accountIndex];
    if (account && !owners.get(account)?.owner) owners.set(account, { owner: b.owner ?? null, mint: b.mint });
  }
  const out: SolanaTransfer[] = [];
  const consider = (ix: z.infer<typeof Instruction>, id: string) => {
    if (!ix.program || !TOKEN_PROGRAMS.has(ix.program)) return;
    const parsed = TokenProgramInstruction.safeParse(ix.parsed);
    if (!parsed.success) return; // other token instructions (createAccount, closeAccount...)
    const { info } = parsed.data;
    const mint =
      parsed.data.type === 'transferChecked'
        ? parsed.data.info.mint
        : (owners.get(info.source)?.mint ?? owners.get(info.destination)?.mint);
    if (mint !== usdc) {
      counts.otherMint++;
      return;
    }
    const buyer = owners.get(info.source)?.owner ?? info.authority ?? info.multisigAuthority ?? null;
    const seller = owners.get(info.destination)?.owner ?? null;
    if (!buyer || !seller) {
      counts.unknownOwner++;
      return;
    }
    const atomic = BigInt(parsed.data.type === 'transferChecked' ? parsed.data.info.tokenAmount.amount : parsed.data.info.amount);
    out.push({ instruction: id, buyer, seller, atomic });
  };
  tx.transaction.message.instructions.forEach((ix, i) => consider(ix, String(i)));
  for (const inner of tx.meta?.innerInstructions ?? []) {
    inner.instructions.forEach((ix, j) => consider(ix, `${inner.index}.${j}`));
  }
  return out;
}

// ---------------------------------------------------------------- warehouse tables

export const SOLANA_TABLES_DDL = [
  `CREATE TABLE IF NOT EXISTS solana_checkpoint (
     relayer VARCHAR PRIMARY KEY, last_signature VARCHAR NOT NULL, last_slot BIGINT NOT NULL, updated_at TIMESTAMP NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS live_solana_settlements (
     signature VARCHAR NOT NULL, instruction VARCHAR NOT NULL, slot BIGINT NOT NULL, block_time TIMESTAMP NOT NULL,
     buyer VARCHAR NOT NULL, seller_address VARCHAR NOT NULL, amount DOUBLE NOT NULL, amount_atomic VARCHAR NOT NULL,
     relayer VARCHAR NOT NULL, facilitator VARCHAR NOT NULL, is_self_pay BOOLEAN NOT NULL, registry_version VARCHAR NOT NULL,
     PRIMARY KEY (signature, instruction))`,
];

export async function ensureSolanaTables(connection: DuckDBConnection): Promise<void> {
  for (const ddl of SOLANA_TABLES_DDL) await connection.run(ddl);
}

const SETTLEMENT_SCRATCH: RawTable = {
  name: 'solana_settlements_batch',
  service: 'analytics',
  description: 'Settlements of one batch of transactions (scratch).',
  columns: [
    ['signature', 'VARCHAR'],
    ['instruction', 'VARCHAR'],
    ['slot', 'BIGINT'],
    ['block_time', 'TIMESTAMP'],
    ['buyer', 'VARCHAR'],
    ['seller_address', 'VARCHAR'],
    ['amount', 'DOUBLE'],
    ['amount_atomic', 'VARCHAR'],
    ['relayer', 'VARCHAR'],
    ['facilitator', 'VARCHAR'],
    ['is_self_pay', 'BOOLEAN'],
    ['registry_version', 'VARCHAR'],
  ],
};

// ---------------------------------------------------------------- indexing

export interface SolanaIndexRun {
  /** Why Solana was not read (no facilitator relayer registered on it); null when it was. */
  notIndexed: string | null;
  relayers: number;
  signatureRequests: number;
  transactionRequests: number;
  signatures: number;
  settlements: number;
  inserted: number;
  /** Relayers with more new signatures than one run lists: those in between are never indexed. */
  gaps: string[];
  skipped: SolanaDecodeCounts & { missing: number };
}

async function listNewSignatures(
  rpc: JsonRpcClient,
  relayer: string,
  until: string | null,
  options: SolanaIndexerOptions,
  run: SolanaIndexRun,
): Promise<z.infer<typeof SignatureInfo>[]> {
  const listed: z.infer<typeof SignatureInfo>[] = [];
  let before: string | undefined;
  let reachedEnd = false;
  for (let page = 0; page < options.maxPagesPerRelayer; page++) {
    run.signatureRequests++;
    const sigs = await rpc.call(
      'getSignaturesForAddress',
      [relayer, { limit: options.pageSize, commitment: 'finalized', ...(before ? { before } : {}), ...(until ? { until } : {}) }],
      SignaturesSchema,
    );
    listed.push(...sigs);
    if (sigs.length < options.pageSize) {
      reachedEnd = true; // reached `until` or the relayer's first transaction
      break;
    }
    // A fresh relayer (no checkpoint) starts from its newest transactions only.
    if (!until && listed.length >= options.maxTransactionsPerRelayer) break;
    before = sigs.at(-1)!.signature;
  }
  if (until && !reachedEnd) run.gaps.push(relayer);
  return listed.reverse(); // oldest first, so the checkpoint can advance in order
}

/** One pass over every Solana relayer of the registry. */
export async function indexSolanaSettlements(
  connection: DuckDBConnection,
  rpc: JsonRpcClient,
  options: SolanaIndexerOptions,
  log: (message: string) => void = () => {},
): Promise<SolanaIndexRun> {
  await ensureSolanaTables(connection);
  const lookup = relayerLookup('solana', options.registry);
  const relayers = relayersOn('solana', options.registry);
  const run: SolanaIndexRun = {
    notIndexed: notIndexedReason('solana', options.registry),
    relayers: relayers.length,
    signatureRequests: 0,
    transactionRequests: 0,
    signatures: 0,
    settlements: 0,
    inserted: 0,
    gaps: [],
    skipped: { failed: 0, notRelayerPaid: 0, otherMint: 0, unknownOwner: 0, relayerPayer: 0, missing: 0 },
  };
  if (run.notIndexed) {
    log(run.notIndexed);
    return run;
  }
  for (const relayer of relayers) {
    const [cp] = await queryJson(connection, `SELECT last_signature FROM solana_checkpoint WHERE relayer = $relayer`, {
      relayer: relayer.address,
    });
    const until = cp ? String(cp.last_signature) : null;
    const listed = await listNewSignatures(rpc, relayer.address, until, options, run);
    // Fresh relayer: its newest N; resuming: the oldest N after the checkpoint, the rest next run.
    const todo = until ? listed.slice(0, options.maxTransactionsPerRelayer) : listed.slice(-options.maxTransactionsPerRelayer);
    run.signatures += todo.length;
    for (let i = 0; i < todo.length; i += options.batchSize) {
      const batch = todo.slice(i, i + options.batchSize);
      const txs = await Promise.all(
        batch.map(async (s) => {
          if (s.err != null) return null; // failed: moved nothing, no need to fetch it
          run.transactionRequests++;
          return rpc.call(
            'getTransaction',
            [s.signature, { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0, commitment: 'finalized' }],
            TransactionSchema,
          );
        }),
      );
      const rows: Row[] = [];
      batch.forEach((s, k) => {
        const tx = txs[k];
        if (s.err != null || (tx && tx.meta?.err != null)) {
          run.skipped.failed++;
          return;
        }
        if (!tx) {
          run.skipped.missing++;
          return;
        }
        const blockTime = tx.blockTime ?? s.blockTime ?? null;
        if (blockTime === null) {
          run.skipped.missing++;
          return;
        }
        const time = new Date(blockTime * 1000);
        const payer = feePayerOf(tx);
        const active = payer ? lookup.at(payer, time) : null;
        if (!active) {
          run.skipped.notRelayerPaid++; // the relayer appears in the tx but did not pay for it
          return;
        }
        for (const t of usdcTransfers(tx, run.skipped)) {
          if (lookup.byAddress(t.buyer)) {
            run.skipped.relayerPayer++;
            continue;
          }
          rows.push([
            s.signature,
            t.instruction,
            tx.slot,
            time,
            t.buyer,
            t.seller,
            usdcToUsd(t.atomic),
            t.atomic.toString(),
            active.address,
            active.facilitator,
            t.buyer === t.seller,
            REGISTRY_VERSION,
          ]);
        }
      });
      run.settlements += rows.length;
      const last = batch.at(-1)!;
      await loadScratch(connection, SETTLEMENT_SCRATCH, rows);
      run.inserted += await inTransaction(connection, async () => {
        const [before] = await queryJson(connection, `SELECT count(*)::BIGINT AS n FROM live_solana_settlements`);
        await connection.run(`INSERT OR IGNORE INTO live_solana_settlements SELECT * FROM ${SETTLEMENT_SCRATCH.name}`);
        const [after] = await queryJson(connection, `SELECT count(*)::BIGINT AS n FROM live_solana_settlements`);
        await connection.run(
          `INSERT INTO solana_checkpoint VALUES ($relayer, $sig, $slot, now()::TIMESTAMP)
           ON CONFLICT (relayer) DO UPDATE SET last_signature = excluded.last_signature, last_slot = excluded.last_slot,
             updated_at = excluded.updated_at`,
          { relayer: relayer.address, sig: last.signature, slot: last.slot },
        );
        return Number(after?.n ?? 0) - Number(before?.n ?? 0);
      });
    }
  }
  await connection.run(`DROP TABLE IF EXISTS ${SETTLEMENT_SCRATCH.name}`);
  if (run.gaps.length) {
    log(
      `solana: more new signatures than one run lists for ${run.gaps.length} relayer(s); older ones in between are skipped: ${run.gaps.join(', ')}`,
    );
  }
  log(
    `solana: ${run.relayers} relayers, ${run.signatures} signatures, ${run.settlements} settlements (${run.inserted} new); ` +
      `skipped ${run.skipped.failed} failed, ${run.skipped.notRelayerPaid} not paid by a relayer, ${run.skipped.relayerPayer} paid by a relayer; ` +
      `${run.signatureRequests} getSignaturesForAddress, ${run.transactionRequests} getTransaction`,
  );
  return run;
}
