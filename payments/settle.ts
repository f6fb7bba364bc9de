/**
 * Settlement, the step after a payment was verified, reserved and its data served: the same for
 * every scheme. Local mode moves nothing (the receipt names "local:<id>"); facilitator mode calls
 * /settle. The result is tagged, never an exception:
 * - settled: funds moved (or local mode), with the transaction;
 * - refused: the facilitator says no transfer happened; the payment may be released;
 * - unavailable: no verdict (timeout, 5xx, not JSON); nothing is known to have moved;
 * - pending: /settle named a transaction it broadcast but could not confirm, twice (the second
 *   call lets the facilitator reconcile by that transaction, x402-foundation/x402 #3214). The
 *   transfer may still land: the payment must never be sent for settlement again.
 */
import type { FacilitatorClient } from './facilitator.ts';

export type SettleOutcome =
  | { kind: 'settled'; transaction: string; payer: string | null }
  | { kind: 'refused' | 'unavailable'; code: string; message: string; payer: string | null }
  | { kind: 'pending'; code: string; message: string; payer: string | null; transaction: string };

export async function settlePayment(
  facilitator: FacilitatorClient | null,
  payment: { version: 1 | 2; raw: unknown },
  requirements: unknown,
  localTransaction: string,
): Promise<SettleOutcome> {
  if (!facilitator) return { kind: 'settled', transaction: localTransaction, payer: null };
  let settled = await facilitator.settle(payment.version, payment.raw, requirements);
  if (!settled.ok && settled.kind === 'pending') {
    // broadcast but not confirmed: once more, as the reference's resource server does; the
    // facilitator reconciles by the transaction it holds for this payload instead of broadcasting again
    const first = settled;
    settled = await facilitator.settle(payment.version, payment.raw, requirements);
    if (!settled.ok && settled.kind !== 'refused') settled = { ...first, transaction: settled.transaction ?? first.transaction };
  }
  if (settled.ok) return { kind: 'settled', transaction: settled.transaction, payer: settled.payer };
  const base = { code: settled.code, message: settled.message, payer: settled.payer ?? null };
  if (settled.kind === 'pending') return { kind: 'pending', ...base, transaction: settled.transaction ?? '' };
  return { kind: settled.kind, ...base };
}
