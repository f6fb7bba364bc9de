/**
 * x402 settlements on Solana from plain RPC (docs/x402-indexing.md, "Settlement mechanics" and "Solana"):
 * for each facilitator relayer, `getSignaturesForAddress` (finalized) → `getTransaction`
 * (jsonParsed); every spl-token `transfer` / `transferChecked` of USDC in a successful transaction
 * whose fee payer is that relayer is a settlement. Buyer and seller are the owners of the source and
 * destination token accounts (from pre/postTokenBalances), keyed by (signature, instruction).
 *
 * Settlements a relayer the registry does not name paid for are found from the other side: for
 * every payTo a listing has named (discovery_payees), its USDC token account (the associated token
 * account, derived with @solana-program/token) is walked the same way, and a USDC transfer to the
 * payTo in a successful transaction whose fee payer is neither a registered relayer (the relayer
 * walk has those) nor the payer itself (x402 on Solana is a sponsored transferChecked: the
 * facilitator pays the fee, the buyer signs the transfer) is a settlement with facilitator
 * "unknown", the fee payer kept as its relayer (docs/x402-indexing.md, "Which transfers count").
 *
 * Resumable per walked address (relayer or payTo token account): `solana_checkpoint` holds the
 * last signature processed, and each batch of transactions lands with the checkpoint that covers it.
 */
import { address as solanaAddress } from '@solana/kit';
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import type { DuckDBConnection } from '@duckdb/node-api';
import { z } from 'zod';
import { queryJson, type Row } from '../../../lib/duckdb.ts';
import type { RawTable } from '../../raw-tables.ts';
import { USDC, usdcToUsd } from './chains.ts';
import { notIndexedReason, REGISTRY_VERSION, RELAYERS, relayerLookup, relayersOn, type Relayer } from './facilitators.ts';
import type { JsonRpcClient } from '../json-rpc.ts';
import type { SkipKind } from '../../indexing.ts';
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
  /** The version of the registry in use, kept on every row. */
  registryVersion: string;
  /** The payTos listings have named on Solana: their USDC token accounts are walked too. */
  payees: readonly string[];
  /** Payee token accounts walked per run (never walked first, then the longest unwalked). */
  maxPayeesPerRun: number;
}

export const DEFAULT_SOLANA_OPTIONS: SolanaIndexerOptions = {
  pageSize: 1000,
  maxPagesPerRelayer: 10,
  maxTransactionsPerRelayer: 2_000,
  batchSize: 50,
  registry: RELAYERS,
  registryVersion: REGISTRY_VERSION,
  payees: [],
  maxPayeesPerRun: 200,
};

/** The facilitator of a settlement whose fee payer the registry does not name. */
const UNKNOWN_FACILITATOR = 'unknown';

/** The USDC token account (associated token account) of a Solana wallet. */
export async function usdcAccountOf(owner: string): Promise<string> {
  const [ata] = await findAssociatedTokenPda({
    owner: solanaAddress(owner),
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
    mint: solanaAddress(USDC.solana),
  });
  return ata;
}

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
  /** Listed payTos whose token accounts were walked this run. */
  payees: number;
  /** Settlements whose fee payer the registry does not name (facilitator "unknown"). */
  unknownFacilitator: number;
  signatureRequests: number;
  transactionRequests: number;
  signatures: number;
  settlements: number;
  inserted: number;
  /** Relayers with more new signatures than one run lists: those in between are never indexed. */
  gaps: string[];
  skipped: SolanaDecodeCounts & {
    missing: number;
    /** Paid for by a registered relayer before its first-seen date, to a payTo no listing names. */
    beforeRelayerFirstSeen: number;
    /** A transfer to a listed payTo whose payer paid its own fee: a direct transfer, not a facilitated x402 payment. */
    notSponsored: number;
    /** Listed payTos that are not Solana addresses (no token account derives from them): not walked. */
    invalidPayee: number;
  };
}

/** A Solana run's skips by kind and reason, as the run's indexing tally counts them (sources/indexing.ts). */
export function solanaSkips(run: SolanaIndexRun): Array<[SkipKind, string, number]> {
  const s = run.skipped;
  return [
    ['settlement', 'before_relayer_first_seen', s.beforeRelayerFirstSeen],
    ['log', 'relayer_transfer', s.relayerPayer],
    ['settlement', 'unknown_owner', s.unknownOwner],
    ['settlement', 'missing_transaction', s.missing],
    ['log', 'failed_transaction', s.failed],
    ['log', 'not_relayer_paid', s.notRelayerPaid],
    ['log', 'not_sponsored', s.notSponsored],
    ['log', 'other_mint', s.otherMint],
    ['listing', 'invalid_payee', s.invalidPayee],
  ];
}

async function listNewSignatures(
  rpc: JsonRpcClient,
  relayer: string, // the walked address: a relayer or a payTo's token account
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

/** Where a walk stands: the address it lists and what a transaction found there may yield. */
type Walk = { kind: 'relayer'; address: string } | { kind: 'payee'; address: string; payee: string };

/**
 * One pass over every Solana relayer of the registry, then over the token accounts of the listed
 * payTos (at most maxPayeesPerRun, those never walked first).
 */
export async function indexSolanaSettlements(
  connection: DuckDBConnection,
  rpc: JsonRpcClient,
  options: SolanaIndexerOptions,
  log: (message: string) => void = () => {},
): Promise<SolanaIndexRun> {
  await ensureSolanaTables(connection);
  const lookup = relayerLookup('solana', options.registry);
  const relayers = relayersOn('solana', options.registry);
  const listed = new Set(options.payees);
  const run: SolanaIndexRun = {
    notIndexed: notIndexedReason('solana', options.registry),
    relayers: relayers.length,
    payees: 0,
    unknownFacilitator: 0,
    signatureRequests: 0,
    transactionRequests: 0,
    signatures: 0,
    settlements: 0,
    inserted: 0,
    gaps: [],
    skipped: {
      failed: 0,
      notRelayerPaid: 0,
      otherMint: 0,
      unknownOwner: 0,
      relayerPayer: 0,
      missing: 0,
      beforeRelayerFirstSeen: 0,
      notSponsored: 0,
      invalidPayee: 0,
    },
  };
  if (run.notIndexed) {
    log(run.notIndexed);
    return run;
  }

  /** The settlement rows one transaction yields on a walk (counting what it skips). */
  const rowsOf = (walk: Walk, signature: string, tx: SolanaTransaction, time: Date): Row[] => {
    const payer = feePayerOf(tx);
    const active = payer ? lookup.at(payer, time) : null;
    const registered = payer ? lookup.byAddress(payer) !== null : false;
    const row = (t: SolanaTransfer, relayer: string, facilitator: string): Row => [
      signature,
      t.instruction,
      tx.slot,
      time,
      t.buyer,
      t.seller,
      usdcToUsd(t.atomic),
      t.atomic.toString(),
      relayer,
      facilitator,
      t.buyer === t.seller,
      options.registryVersion,
    ];
    const rows: Row[] = [];
    if (walk.kind === 'relayer') {
      if (!active && !registered) {
        run.skipped.notRelayerPaid++; // the relayer appears in the tx but did not pay for it
        return rows;
      }
      for (const t of usdcTransfers(tx, run.skipped)) {
        if (lookup.byAddress(t.buyer)) {
          run.skipped.relayerPayer++;
        } else if (active) {
          rows.push(row(t, active.address, active.facilitator));
        } else if (listed.has(t.seller)) {
          run.unknownFacilitator++; // a registered relayer before its first-seen date, to a listed payTo: a payment, facilitator unknown
          rows.push(row(t, payer!, UNKNOWN_FACILITATOR));
        } else {
          run.skipped.beforeRelayerFirstSeen++;
        }
      }
      return rows;
    }
    // a payTo's token account: what a registered relayer paid for is the relayer walk's
    if (!payer || registered) return rows;
    for (const t of usdcTransfers(tx, run.skipped)) {
      if (t.seller !== walk.payee) continue; // the payee paying someone else
      if (t.buyer === payer) {
        run.skipped.notSponsored++;
        continue;
      }
      run.unknownFacilitator++;
      rows.push(row(t, payer, UNKNOWN_FACILITATOR));
    }
    return rows;
  };

  const walkOne = async (walk: Walk) => {
    const [cp] = await queryJson(connection, `SELECT last_signature FROM solana_checkpoint WHERE relayer = $relayer`, {
      relayer: walk.address,
    });
    const until = cp ? String(cp.last_signature) : null;
    const found = await listNewSignatures(rpc, walk.address, until, options, run);
    // Fresh address: its newest N; resuming: the oldest N after the checkpoint, the rest next run.
    const todo = until ? found.slice(0, options.maxTransactionsPerRelayer) : found.slice(-options.maxTransactionsPerRelayer);
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
        rows.push(...rowsOf(walk, s.signature, tx, new Date(blockTime * 1000)));
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
          { relayer: walk.address, sig: last.signature, slot: last.slot },
        );
        return Number(after?.n ?? 0) - Number(before?.n ?? 0);
      });
    }
  };

  for (const relayer of relayers) await walkOne({ kind: 'relayer', address: relayer.address });
  for (const walk of await payeeWalks(connection, options, run)) {
    run.payees++;
    await walkOne(walk);
  }
  await connection.run(`DROP TABLE IF EXISTS ${SETTLEMENT_SCRATCH.name}`);
  if (run.gaps.length) {
    log(
      `solana: more new signatures than one run lists for ${run.gaps.length} address(es); older ones in between are skipped: ${run.gaps.join(', ')}`,
    );
  }
  log(
    `solana: ${run.relayers} relayers and ${run.payees} listed payTos walked, ${run.signatures} signatures, ${run.settlements} settlements ` +
      `(${run.inserted} new, ${run.unknownFacilitator} paid for by a fee payer the registry does not name); ` +
      `skipped ${run.skipped.failed} failed, ${run.skipped.notRelayerPaid} not paid by a relayer, ${run.skipped.relayerPayer} paid by a relayer, ` +
      `${run.skipped.beforeRelayerFirstSeen} before the relayer's first-seen date, ${run.skipped.notSponsored} not sponsored; ` +
      `${run.signatureRequests} getSignaturesForAddress, ${run.transactionRequests} getTransaction`,
  );
  return run;
}

/** The payees to walk this run: their token accounts, never walked first, then the longest unwalked, at most maxPayeesPerRun. */
async function payeeWalks(connection: DuckDBConnection, options: SolanaIndexerOptions, run: SolanaIndexRun): Promise<Walk[]> {
  if (options.payees.length === 0 || options.maxPayeesPerRun <= 0) return [];
  const walks: Walk[] = [];
  for (const payee of [...new Set(options.payees)].sort()) {
    try {
      walks.push({ kind: 'payee', address: await usdcAccountOf(payee), payee });
    } catch {
      run.skipped.invalidPayee++; // not a Solana address: discovery keeps what listings say; nothing to walk
    }
  }
  const walked = new Map(
    (await queryJson(connection, 'SELECT relayer, epoch_ms(updated_at) AS at FROM solana_checkpoint')).map((r) => [
      String(r.relayer),
      Number(r.at),
    ]),
  );
  const at = (w: Walk) => walked.get(w.address) ?? -1;
  return walks.sort((a, b) => at(a) - at(b)).slice(0, options.maxPayeesPerRun);
}
