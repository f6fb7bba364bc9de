/**
 * `exact` on Solana, verified in-process: the payload is `{transaction: base64}`, a versioned
 * transaction the payer (transfer authority) has signed and the fee payer has not. Every check of
 * the scheme's static layout path (x402 specs/schemes/exact/scheme_exact_svm.md §2.1, §3.1) runs
 * here with @solana/kit's decoders and the @solana-program/* instruction parsers:
 *
 *   3 to 7 instructions: SetComputeUnitLimit (≤ 200,000 units), SetComputeUnitPrice (≤ 5 lamports
 *   per compute unit), TransferChecked of spl-token or token-2022, then only Lighthouse or Memo
 *   instructions;
 *   mint = the offer's asset, through the token program that owns it (USDC: spl-token; a
 *   token-2022 transfer naming it could never move it), decimals = the token's, destination = the
 *   associated token account of (payTo, mint, token program), amount = the offer's amount exactly;
 *   fee payer (account 0) = the offered `extra.feePayer`, never the authority, never the source
 *   (neither its address nor its own token account of the mint, which a delegate could sign for),
 *   never in any instruction's accounts nor invoked as a program; no address lookup tables
 *   (accounts that cannot be seen offline); no signer beyond the fee payer and the authority;
 *   the authority's ed25519 signature over the message bytes is valid (the fee payer's slot may be
 *   empty: the facilitator signs it at /settle).
 *
 * What no offline check can see (balances, the blockhash's age) is left to the chain in
 * facilitator mode; in local mode nothing is submitted and no funds move. The replay key is the
 * SHA-256 of the message bytes: the same transfer signed again is the same message.
 */
import { createHash } from 'node:crypto';
import {
  COMPUTE_BUDGET_PROGRAM_ADDRESS,
  parseSetComputeUnitLimitInstruction,
  parseSetComputeUnitPriceInstruction,
} from '@solana-program/compute-budget';
import { findAssociatedTokenPda, parseTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import {
  type Address,
  decompileTransactionMessage,
  getAddressEncoder,
  getBase58Decoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  verifySignature,
} from '@solana/kit';
import type { SolanaNetwork } from './networks.ts';
import { reject, type Rejection } from './reasons.ts';

/** Token-2022's program id (TransferChecked has the same layout in both token programs). */
export const TOKEN_2022_PROGRAM_ADDRESS = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
/** Phantom and Solflare add Lighthouse assertion instructions; the scheme allows them after the transfer. */
export const LIGHTHOUSE_PROGRAM_ADDRESS = 'L2TExMFKdjpN9kozasaurPirfHy9P8sbXoAN1qA3S95';
export const MEMO_PROGRAM_ADDRESS = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
/** The reference facilitator's cap on the static path: 5 lamports per compute unit. */
export const MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS = 5_000_000n;
/**
 * Cap on SetComputeUnitLimit. The fee payer pays limit × price: at the price cap, Solana's maximum
 * of 1.4M units would cost it 0.007 SOL per payment, 200,000 units at most 0.001 SOL. The x402
 * reference (@x402/svm 2.27) sets no default cap on the exact static path (`maxComputeUnits` is
 * opt-in) and caps its smart-wallet path and `upto` at 400,000; its client asks for 20,000 (a
 * transfer and a memo use about that). 200,000 is tighter than the reference's cap, ten times what
 * its client asks, and what Solana grants an instruction when no limit is set
 * (docs/x402-protocol.md, "Solana exact").
 */
export const MAX_COMPUTE_UNIT_LIMIT = 200_000;

const SET_COMPUTE_UNIT_LIMIT = 2;
const SET_COMPUTE_UNIT_PRICE = 3;
const TRANSFER_CHECKED = 12;

export interface SolanaRequirement {
  network: SolanaNetwork;
  /** Mint. */
  asset: string;
  payTo: string;
  /** Atomic units. */
  amount: string;
  /** The fee payer the offer named (`extra.feePayer`); null when none was offered. */
  feePayer: string | null;
}

export interface SolanaVerified {
  ok: true;
  /** The transfer authority (owner of the source account), base58. */
  payer: string;
  /** SHA-256 of the message bytes, 0x hex: the replay key. */
  messageHash: string;
  /** The payer's signature, base58 (the transaction id on chain is the fee payer's signature, added at settlement). */
  payerSignature: string;
}

interface Instruction {
  programAddress: string;
  accounts?: ReadonlyArray<{ address: string }>;
  data?: Uint8Array;
}

const base64 = getBase64Encoder();
const base58 = getBase58Decoder();
const addressBytes = getAddressEncoder();
const transactionDecoder = getTransactionDecoder();
const messageDecoder = getCompiledTransactionMessageDecoder();

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Verifies an `exact` Solana payload against the offer; never throws. */
export async function verifyExactSolana(payload: unknown, want: SolanaRequirement): Promise<SolanaVerified | Rejection> {
  const text = typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>).transaction : undefined;
  if (typeof text !== 'string' || !BASE64.test(text) || text.length % 4 !== 0) {
    return reject('malformed_payload', 'solana payload must be {"transaction": "<base64 partially-signed versioned transaction>"}');
  }

  // ---- decode: wire transaction → message → instructions with their accounts
  let transaction: ReturnType<typeof transactionDecoder.decode>;
  let compiled: ReturnType<typeof messageDecoder.decode>;
  let instructions: readonly Instruction[];
  try {
    const bytes = base64.encode(text);
    transaction = transactionDecoder.decode(bytes);
    compiled = messageDecoder.decode(transaction.messageBytes);
    if ((compiled as { addressTableLookups?: readonly unknown[] }).addressTableLookups?.length) {
      return reject(
        'invalid_transaction',
        'the transaction loads accounts from address lookup tables, which cannot be resolved without the chain; put every account in the message',
      );
    }
    instructions = decompileTransactionMessage(compiled).instructions as unknown as readonly Instruction[];
  } catch (err) {
    return reject('malformed_payload', `solana transaction could not be decoded (${err instanceof Error ? err.message : String(err)})`);
  }

  // ---- layout: compute limit, compute price, TransferChecked, then Lighthouse / Memo only
  if (instructions.length < 3 || instructions.length > 7) {
    return reject(
      'invalid_transaction',
      `the transaction has ${instructions.length} instructions; exact takes 3 to 7: SetComputeUnitLimit, SetComputeUnitPrice, TransferChecked, then up to 4 Lighthouse or Memo instructions`,
    );
  }
  const [limitIx, priceIx, transferIx] = instructions as [Instruction, Instruction, Instruction];
  if (limitIx.programAddress !== COMPUTE_BUDGET_PROGRAM_ADDRESS || limitIx.data?.[0] !== SET_COMPUTE_UNIT_LIMIT) {
    return reject('invalid_transaction', 'instruction 1 must be ComputeBudget SetComputeUnitLimit');
  }
  if (priceIx.programAddress !== COMPUTE_BUDGET_PROGRAM_ADDRESS || priceIx.data?.[0] !== SET_COMPUTE_UNIT_PRICE) {
    return reject('invalid_transaction', 'instruction 2 must be ComputeBudget SetComputeUnitPrice');
  }
  let units: number;
  let microLamports: bigint;
  try {
    units = parseSetComputeUnitLimitInstruction(limitIx as unknown as Parameters<typeof parseSetComputeUnitLimitInstruction>[0]).data.units;
    microLamports = BigInt(
      parseSetComputeUnitPriceInstruction(priceIx as unknown as Parameters<typeof parseSetComputeUnitPriceInstruction>[0]).data
        .microLamports,
    );
  } catch {
    return reject('invalid_transaction', 'the compute budget instructions could not be parsed');
  }
  if (units > MAX_COMPUTE_UNIT_LIMIT) {
    return reject(
      'compute_limit_too_high',
      `compute unit limit is ${units}; at most ${MAX_COMPUTE_UNIT_LIMIT} is accepted (a transfer with a memo needs about 20,000)`,
    );
  }
  if (microLamports > MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS) {
    return reject(
      'compute_price_too_high',
      `compute unit price is ${microLamports} micro-lamports; at most ${MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS} (5 lamports per compute unit) is accepted`,
    );
  }
  const tokenProgram = transferIx.programAddress;
  if (tokenProgram !== TOKEN_PROGRAM_ADDRESS && tokenProgram !== TOKEN_2022_PROGRAM_ADDRESS) {
    return reject('invalid_transaction', `instruction 3 must be TransferChecked of spl-token or token-2022, not a call to ${tokenProgram}`);
  }
  if (transferIx.data?.[0] !== TRANSFER_CHECKED || transferIx.data.length !== 10 || transferIx.accounts?.length !== 4) {
    return reject(
      'invalid_transaction',
      'instruction 3 must be TransferChecked (discriminator 12) with source, mint, destination and one authority',
    );
  }
  const transfer = parseTransferCheckedInstruction(transferIx as unknown as Parameters<typeof parseTransferCheckedInstruction>[0]);
  for (const [i, ix] of instructions.slice(3).entries()) {
    if (ix.programAddress !== LIGHTHOUSE_PROGRAM_ADDRESS && ix.programAddress !== MEMO_PROGRAM_ADDRESS) {
      return reject(
        'invalid_transaction',
        `instruction ${i + 4} calls ${ix.programAddress}; only Lighthouse or Memo may follow the transfer`,
      );
    }
  }

  const source = transfer.accounts.source.address as string;
  const mint = transfer.accounts.mint.address as string;
  const destination = transfer.accounts.destination.address as string;
  const payer = transfer.accounts.authority.address as string;

  // ---- fee payer isolation
  const feePayer = compiled.staticAccounts[0] as string | undefined;
  if (!want.feePayer) {
    return reject('invalid_fee_payer', 'this offer names no fee payer (extra.feePayer), so no Solana payment can be checked against it');
  }
  if (feePayer !== want.feePayer) {
    return reject('invalid_fee_payer', `the transaction's fee payer is ${feePayer}, the offer's extra.feePayer is ${want.feePayer}`, {
      payer,
    });
  }
  if (payer === feePayer || source === feePayer) {
    return reject(
      'invalid_fee_payer',
      `the fee payer ${feePayer} is the transfer's ${payer === feePayer ? 'authority' : 'source'}; it may only pay the network fee`,
      {
        payer,
      },
    );
  }
  for (const [i, ix] of instructions.entries()) {
    if (ix.programAddress === feePayer || ix.accounts?.some((a) => a.address === feePayer)) {
      return reject(
        'invalid_fee_payer',
        `instruction ${i + 1} uses the fee payer ${feePayer}; the fee payer may only pay the network fee`,
        { payer },
      );
    }
  }

  // ---- what is paid, to whom
  if (mint !== want.asset) {
    return reject('asset_mismatch', `the transfer moves mint ${mint}, this endpoint takes ${want.network.usdc.symbol} (${want.asset})`, {
      payer,
    });
  }
  if (transfer.data.decimals !== want.network.usdc.decimals) {
    return reject(
      'asset_mismatch',
      `TransferChecked states ${transfer.data.decimals} decimals, ${want.network.usdc.symbol} has ${want.network.usdc.decimals}`,
      {
        payer,
      },
    );
  }
  if (tokenProgram !== want.network.usdc.tokenProgram) {
    return reject(
      'asset_mismatch',
      `the transfer calls token program ${tokenProgram}, but ${want.network.usdc.symbol} (${want.asset}) belongs to ${want.network.usdc.tokenProgram}, the only program that can move it`,
      { payer },
    );
  }
  // The fee payer's own token account of the mint is never a source: a delegate it approved could
  // otherwise sign a transfer of the fee payer's funds as its "payment".
  const feePayerAccount = await associatedTokenAccount(feePayer, want.asset, tokenProgram);
  if (feePayerAccount === null) {
    return reject('invalid_fee_payer', `no token account can be derived for the fee payer ${feePayer}`, { payer });
  }
  if (source === feePayerAccount) {
    return reject(
      'invalid_fee_payer',
      `the transfer draws on ${source}, the fee payer's own ${want.network.usdc.symbol} account; the fee payer may only pay the network fee`,
      { payer },
    );
  }
  const expected = await associatedTokenAccount(want.payTo, want.asset, tokenProgram);
  if (expected === null) {
    return reject('recipient_mismatch', `no associated token account can be derived for the pay-to ${want.payTo}`, { payer });
  }
  if (destination !== expected) {
    return reject(
      'recipient_mismatch',
      `the transfer goes to token account ${destination}; this endpoint is paid to ${expected}, the associated token account of ${want.payTo}`,
      { payer },
    );
  }
  if (transfer.data.amount !== BigInt(want.amount)) {
    return reject(
      'amount_mismatch',
      `the transfer moves ${transfer.data.amount} atomic units, this endpoint costs exactly ${want.amount}`,
      { payer },
    );
  }

  const messageBytes = transaction.messageBytes as unknown as Uint8Array;
  // ---- signatures: exactly the fee payer and the authority sign; the authority's must verify
  if (compiled.header.numSignerAccounts !== 2 || compiled.staticAccounts[1] !== payer) {
    return reject(
      'invalid_transaction',
      `the transaction needs ${compiled.header.numSignerAccounts} signatures; exact takes two: the fee payer first, then the transfer authority`,
      { payer },
    );
  }
  const signature = (transaction.signatures as Record<string, Uint8Array | null>)[payer];
  if (!signature || signature.length !== 64) {
    return reject('invalid_signature', `the transfer authority ${payer} has not signed the transaction`, { payer });
  }
  if (!(await ed25519Valid(payer, signature, messageBytes))) {
    return reject('invalid_signature', `the signature of ${payer} does not verify over the transaction message`, { payer });
  }

  return {
    ok: true,
    payer,
    messageHash: `0x${createHash('sha256').update(messageBytes).digest('hex')}`,
    payerSignature: base58.decode(signature),
  };
}

/**
 * Associated token accounts by (owner, mint, program), derived once: the owners asked for are the
 * offer's pay-to and fee payer, so the map stays as small as the configuration. Null when the
 * owner is no address.
 */
const ataCache = new Map<string, Promise<string | null>>();

function associatedTokenAccount(owner: string, mint: string, tokenProgram: string): Promise<string | null> {
  const key = `${owner}|${mint}|${tokenProgram}`;
  let ata = ataCache.get(key);
  if (!ata) {
    if (ataCache.size >= 64) ataCache.clear();
    ata = findAssociatedTokenPda({ owner: owner as Address, mint: mint as Address, tokenProgram: tokenProgram as Address }).then(
      ([address]) => address as string,
      () => null,
    );
    ataCache.set(key, ata);
  }
  return ata;
}

async function ed25519Valid(address: string, signature: Uint8Array, message: Uint8Array): Promise<boolean> {
  try {
    const key = await crypto.subtle.importKey('raw', addressBytes.encode(address as Address) as Uint8Array<ArrayBuffer>, 'Ed25519', false, [
      'verify',
    ]);
    return await verifySignature(key, signature as unknown as Parameters<typeof verifySignature>[1], message);
  } catch {
    return false;
  }
}
