/**
 * Why a payment was refused: one named reason per failure, always with a human message that says
 * exactly what was wrong ("signature recovers 0xabc…, authorization.from is 0xdef…"), never a bare
 * "invalid_payload". The reason travels in the 402 body (`reason`) and in the v2 header's `error`.
 */

export type RejectionReason =
  /** No payment header at all. */
  | 'payment_required'
  /** Not standard base64, not JSON, not an object, or a field of the wrong shape. */
  | 'malformed_payload'
  /** Payment header longer than MAX_PAYMENT_HEADER_BYTES. */
  | 'header_too_large'
  | 'invalid_x402_version'
  /** Scheme other than "exact". */
  | 'invalid_scheme'
  /** Network not offered for this endpoint, or not verifiable in this settlement mode. */
  | 'unsupported_network'
  /** v2 `accepted` differs from what this endpoint offers (asset, timeout, EIP-712 domain...). */
  | 'requirements_mismatch'
  | 'invalid_signature'
  /** Smart-wallet (ERC-1271/6492) signature where only EOA signatures can be checked (local mode). */
  | 'unsupported_signature'
  | 'recipient_mismatch'
  | 'amount_mismatch'
  /** Another token than the offer's: Solana mint or decimals, XRPL currency or issuer. */
  | 'asset_mismatch'
  /** A signed Solana / XRPL transaction of the wrong type or layout (instructions, fields, flags, signers). */
  | 'invalid_transaction'
  /** Solana: the fee payer is not the offered one, or is used beyond paying the network fee. */
  | 'invalid_fee_payer'
  /** Solana: SetComputeUnitPrice above the cap. */
  | 'compute_price_too_high'
  /** Solana: SetComputeUnitLimit above the cap. */
  | 'compute_limit_too_high'
  /** XRPL: tfPartialPayment (the amount delivered could be less than Amount). */
  | 'partial_payment'
  /** XRPL: Paths, DeliverMin, or a SendMax in another currency (a path / cross-currency payment). */
  | 'path_payment'
  /** XRPL_RPC_URL is set but the ledger could not be read to check LastLedgerSequence. */
  | 'ledger_unavailable'
  | 'expired'
  | 'not_yet_valid'
  /** validBefore further in the future than this server accepts. */
  | 'validity_too_long'
  /** A v2 payment whose `resource.url` names another resource than the one requested. */
  | 'resource_mismatch'
  /** The authorization nonce was already used, or is being used by a request in flight. */
  | 'nonce_used'
  /** The facilitator's /verify said no (its own reason is in the message and `facilitator_reason`). */
  | 'facilitator_rejected'
  /** The facilitator answered /settle with success:false. */
  | 'settlement_failed'
  /**
   * /settle failed twice naming a broadcast transaction (in the settlement header): it may still
   * land, so the payment is held as used and never sent for settlement again.
   */
  | 'settlement_pending'
  /** The facilitator could not be reached, timed out, or answered something that is not a verdict. */
  | 'facilitator_unavailable';

export interface Rejection {
  ok: false;
  reason: RejectionReason;
  message: string;
  /** Payer address when known (from the authorization or the facilitator). */
  payer?: string;
  /** The facilitator's own reason code, when it gave one. */
  facilitatorReason?: string;
}

export function reject(
  reason: RejectionReason,
  message: string,
  extra: Partial<Pick<Rejection, 'payer' | 'facilitatorReason'>> = {},
): Rejection {
  return { ok: false, reason, message, ...extra };
}

/** Shorten a hex string for messages: 0x857b06…3e36b66. */
export function short(hex: string): string {
  return hex.length > 16 ? `${hex.slice(0, 8)}…${hex.slice(-6)}` : hex;
}
