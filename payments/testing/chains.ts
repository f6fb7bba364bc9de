/**
 * Test support for Solana and XRPL payments: fixed test keys, a loopback Solana JSON-RPC server
 * answering what the official @x402/svm client asks (getAccountInfo of the mint, getLatestBlockhash)
 * in the JSON-RPC format a node uses, a loopback XRPL JSON-RPC server (ledger_current,
 * account_info, fee), a Solana transfer builder with every knob a refusal test turns, and an XRPL
 * Payment signer. Real encoders and real signatures throughout (@solana/kit, xrpl).
 */
import { createHash } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { findAssociatedTokenPda, getMintEncoder, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import {
  address,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createNoopSigner,
  createTransactionMessage,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  type Instruction,
  type KeyPairSigner,
  none,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Blockhash,
} from '@solana/kit';
import { type Payment, Wallet } from 'xrpl';
import { rpcResult, startLoopback, type Loopback } from '../../lib/testing/loopback.ts';
import { DEMO_PAY_TO, DEMO_SOLANA_FEE_PAYER, SOLANA, XRPL } from '../networks.ts';
import { MEMO_PROGRAM_ADDRESS } from '../solana.ts';

/** A fixed ed25519 seed (sha256 of a test string): the Solana payer of the tests. */
const SOLANA_SEED = createHash('sha256').update('kr-x402 test solana payer').digest();
/** 64-byte secret key (seed ‖ public key), as base58: what SOLANA_PAYER_KEY takes. */
export const SOLANA_PAYER_SECRET = new Uint8Array([...SOLANA_SEED, ...ed25519.getPublicKey(SOLANA_SEED)]);
export const SOLANA_PAYER_KEY_BASE58 = getBase58Decoder().decode(SOLANA_PAYER_SECRET);
export const SOLANA_PAYER = getBase58Decoder().decode(ed25519.getPublicKey(SOLANA_SEED));

export function solanaPayerSigner(): Promise<KeyPairSigner> {
  return createKeyPairSignerFromBytes(SOLANA_PAYER_SECRET);
}

/** A fixed XRPL test wallet (ed25519 family seed); its seed is what XRPL_PAYER_SEED takes. */
export const XRPL_PAYER_SEED = 'sEdTM1uX8pu2do5XvTnutH6HsouMaM2';
export const XRPL_PAYER_WALLET = Wallet.fromSeed(XRPL_PAYER_SEED);

/** A blockhash the fake RPC hands out (base58 of 32 bytes). */
export const TEST_BLOCKHASH = getBase58Decoder().decode(createHash('sha256').update('kr-x402 test blockhash').digest()) as Blockhash;

export interface FakeSolanaRpc extends Loopback {}

/**
 * A Solana JSON-RPC node on loopback: the USDC mint as an spl-token Mint account (6 decimals) and
 * a fixed latest blockhash; any other method gets the node's "method not found" error.
 */
export async function fakeSolanaRpc(options: { decimals?: number } = {}): Promise<FakeSolanaRpc> {
  const mintData = getMintEncoder().encode({
    mintAuthority: none(),
    supply: 1_000_000_000n,
    decimals: options.decimals ?? SOLANA.usdc.decimals,
    isInitialized: true,
    freezeAuthority: none(),
  });
  return startLoopback([
    {
      method: 'POST',
      path: '/',
      rpcMethod: 'getAccountInfo',
      reply: (req) =>
        rpcResult(req, {
          context: { apiVersion: '2.2.0', slot: 341_000_000 },
          value:
            req.rpcParams[0] === SOLANA.usdc.mint
              ? {
                  data: [Buffer.from(mintData).toString('base64'), 'base64'],
                  executable: false,
                  lamports: 1_461_600,
                  owner: TOKEN_PROGRAM_ADDRESS,
                  rentEpoch: 0,
                  space: mintData.length,
                }
              : null,
        }),
    },
    {
      method: 'POST',
      path: '/',
      rpcMethod: 'getLatestBlockhash',
      reply: (req) =>
        rpcResult(req, {
          context: { apiVersion: '2.2.0', slot: 341_000_000 },
          value: { blockhash: TEST_BLOCKHASH, lastValidBlockHeight: 319_000_150 },
        }),
    },
  ]);
}

/** An XRPL JSON-RPC server on loopback: ledger_current answers `ledger.current` (changeable), account_info a Sequence, fee 12 drops. */
export async function fakeXrplRpc(ledger = { current: 95_000_000, sequence: 7 }): Promise<Loopback & { ledger: typeof ledger }> {
  const loopback = await startLoopback([
    {
      method: 'POST',
      path: '/',
      rpcMethod: 'ledger_current',
      reply: () => ({ json: { result: { ledger_current_index: ledger.current, status: 'success' } } }),
    },
    {
      method: 'POST',
      path: '/',
      rpcMethod: 'account_info',
      reply: (req) => ({
        json: {
          result: {
            account_data: { Account: (req.rpcParams[0] as { account?: string })?.account, Sequence: ledger.sequence, Balance: '50000000' },
            ledger_current_index: ledger.current,
            status: 'success',
          },
        },
      }),
    },
    {
      method: 'POST',
      path: '/',
      rpcMethod: 'fee',
      reply: () => ({ json: { result: { drops: { base_fee: '10', open_ledger_fee: '12' }, status: 'success' } } }),
    },
  ]);
  return Object.assign(loopback, { ledger });
}

export interface SolanaTransferOptions {
  signer: KeyPairSigner;
  payTo: string;
  amount: bigint;
  feePayer?: string;
  mint?: string;
  decimals?: number;
  tokenProgram?: string;
  microLamports?: bigint;
  /** SetComputeUnitLimit (default 20,000, as the reference client). */
  units?: number;
  /** Who authorizes the transfer (default: the signer). The fee payer here makes the fee payer spend. */
  authority?: string;
  /** Draw on this token account instead of the signer's associated one (e.g. one it is a delegate of). */
  source?: string;
  /** Send to this token account instead of the ATA of payTo. */
  destination?: string;
  /** Instructions after the transfer (default: one Memo with a random nonce, as the reference client adds). */
  after?: Instruction[];
}

/** A partially signed `exact` transfer as the reference client builds it, with knobs; base64 wire transaction. */
export async function solanaTransfer(o: SolanaTransferOptions): Promise<string> {
  const mint = address(o.mint ?? SOLANA.usdc.mint);
  const tokenProgram = address(o.tokenProgram ?? TOKEN_PROGRAM_ADDRESS);
  const [source] = await findAssociatedTokenPda({ owner: o.signer.address, mint, tokenProgram });
  const [ata] = await findAssociatedTokenPda({ owner: address(o.payTo), mint, tokenProgram });
  const authority = o.authority ? createNoopSigner(address(o.authority)) : o.signer;
  const transfer = getTransferCheckedInstruction(
    {
      source: o.source ? address(o.source) : source,
      mint,
      destination: o.destination ? address(o.destination) : ata,
      authority,
      amount: o.amount,
      decimals: o.decimals ?? SOLANA.usdc.decimals,
    },
    { programAddress: tokenProgram },
  );
  const memo: Instruction = {
    programAddress: address(MEMO_PROGRAM_ADDRESS),
    data: new TextEncoder().encode(createHash('sha256').update(String(Math.random())).digest('hex').slice(0, 32)),
  };
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(address(o.feePayer ?? DEMO_SOLANA_FEE_PAYER), m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: TEST_BLOCKHASH, lastValidBlockHeight: 319_000_150n }, m),
    (m) =>
      appendTransactionMessageInstructions(
        [
          getSetComputeUnitLimitInstruction({ units: o.units ?? 20_000 }),
          getSetComputeUnitPriceInstruction({ microLamports: o.microLamports ?? 1n }),
          transfer,
          ...(o.after ?? [memo]),
        ],
        m,
      ),
  );
  return getBase64EncodedWireTransaction(await partiallySignTransactionMessageWithSigners(message));
}

/** An RLUSD Payment to the demo XRPL pay-to, signed by `wallet`; `overrides` change any field (undefined removes it). */
export function xrplPayment(overrides: Record<string, unknown> = {}, wallet: Wallet = XRPL_PAYER_WALLET): { blob: string; hash: string } {
  const tx: Record<string, unknown> = {
    TransactionType: 'Payment',
    Account: wallet.classicAddress,
    Destination: DEMO_PAY_TO.xrpl,
    Amount: { currency: XRPL.rlusd.currency, issuer: XRPL.rlusd.issuer, value: '0.01' },
    Fee: '12',
    Sequence: 7,
    LastLedgerSequence: 95_000_010,
    ...overrides,
  };
  for (const [k, v] of Object.entries(tx)) if (v === undefined) delete tx[k];
  const signed = wallet.sign(tx as unknown as Payment);
  return { blob: signed.tx_blob, hash: signed.hash };
}

/** A v2 PAYMENT-SIGNATURE header value carrying `payload` for `accepted`. */
export function chainPaymentHeader(accepted: Record<string, unknown>, payload: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify({ x402Version: 2, accepted, payload }), 'utf8').toString('base64');
}
