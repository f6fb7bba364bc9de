/**
 * A payment scheme per kind of network: what the server asks for (requirements), how it checks
 * a payment in process (verify), and how it names the network to people (describe). The paywall,
 * the offers (wire.ts), the pay-to table and the /docs page read these instead of branching on
 * the network kind; settlement is the same for every scheme (settle.ts: the facilitator's
 * /settle, or nothing to do in local mode).
 *
 * A new kind of network is one module beside evm.ts, svm.ts and xrpl.ts and one line in
 * index.ts (docs/architecture.md, "A new network").
 */
import type { SettlementNetwork } from '../../catalog/networks.ts';
import type { PaymentCrypto } from '../crypto-pool.ts';
import type { Rejection } from '../reasons.ts';

/** The requirement a payment is checked against: the v2 offer it matched. */
export interface SchemeRequirement<N extends SettlementNetwork = SettlementNetwork> {
  network: N;
  payTo: string;
  /** In the asset's units as the offer states them (atomic USDC, the RLUSD decimal value). */
  amount: string;
  asset: string;
  maxTimeoutSeconds: number;
  extra: Record<string, unknown>;
}

export interface VerifyContext {
  /** Unix seconds. */
  nowSeconds: number;
  settlement: 'local' | 'facilitator';
  /** Where signatures are checked (crypto-pool.ts). */
  crypto: PaymentCrypto;
  clockSkewSeconds?: number;
  /** The open ledger's index when XRPL_RPC_URL is set (xrpl.ts ledgerReader). */
  currentLedger?: () => Promise<number | null>;
}

/** A payment verified in process, as the paywall reserves, settles and receipts it. */
export interface Verified {
  ok: true;
  payer: string;
  /** With the network, asset and payer, the key that makes the payment single use (nonce-store.ts). */
  replayKey: string;
  /** Unix seconds until which the key is kept. */
  expiresAt: number;
  /** The transaction a local-mode receipt names ("local:<id>"). */
  localTransaction: string;
  /** The payment in words, for a nonce_used message. */
  what: string;
}

/** How a scheme is described to people (/docs, messages). */
export interface SchemeDescription {
  asset: string;
  /** Decimals of the amount in a requirement; null when the amount is a decimal value already. */
  decimals: number | null;
  /** The variable `npm run pay` reads the payer's key from. */
  payerKeyVariable: string;
  /** What to do instead of reusing a payment. */
  freshPayment: string;
}

export interface Scheme<N extends SettlementNetwork = SettlementNetwork> {
  readonly kind: N['kind'];
  /** Requirements: `maxTimeoutSeconds` of every offer (EVM and Solana: the reference's defaults; XRPL: its spec's example range). */
  readonly maxTimeoutSeconds: number;
  /** Requirements: the `amount` for a USD price. */
  amount(network: N, priceUsd: string): string;
  /** Requirements: the offer's `extra`. */
  extra(network: N, context: { solanaFeePayer: string | null }): Record<string, unknown>;
  /** Requirements: what the v1 shape (atomic integer `maxAmountRequired`) says for this network. */
  v1(
    network: N,
    amount: string,
    priceUsd: string,
    extra: Record<string, unknown>,
  ): { maxAmountRequired: string; extra: Record<string, unknown> };
  /** Matching a v2 `accepted`: the `extra` keys that must equal the offer's, and how addresses compare. */
  readonly pinnedExtra: readonly string[];
  sameAddress(a: string, b: string): boolean;
  /** The scheme needs a fee payer named by the facilitator (`extra.feePayer`). */
  readonly needsFeePayer: boolean;
  /** Checks a decoded payment payload against the requirement; never throws. */
  verify(payload: unknown, requirement: SchemeRequirement<N>, context: VerifyContext): Promise<Verified | Rejection>;
  describe(network: N): SchemeDescription;
}
