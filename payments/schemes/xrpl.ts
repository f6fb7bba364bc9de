/** `exact` on the XRP Ledger: a signed RLUSD Payment checked in process (../xrpl.ts); x402 v2 only. */
import type { XrplNetwork } from '../../catalog/networks.ts';
import { canonicalDecimal, toAtomicUnits } from '../networks.ts';
import { verifyExactXrpl } from '../xrpl.ts';
import type { Scheme } from './scheme.ts';
import { CHAIN_KEY_RETENTION_SECONDS } from './retention.ts';

export const xrplExact: Scheme<XrplNetwork> = {
  kind: 'xrpl',
  maxTimeoutSeconds: 300,
  amount: (_network, priceUsd) => canonicalDecimal(priceUsd),
  extra: (network) => ({ areFeesSponsored: false, issuer: network.rlusd.issuer }),
  // The v1 shape has no place for a decimal amount: RLUSD in millionths (informative; XRPL is paid
  // with x402 v2 only) and the exact value in `extra.value`.
  v1: (_network, amount, priceUsd, extra) => ({
    maxAmountRequired: toAtomicUnits(priceUsd, 6),
    extra: {
      ...extra,
      value: amount,
      x402Version: 2,
      note: 'XRPL is paid with x402 v2 (PAYMENT-SIGNATURE); the amount is extra.value RLUSD',
    },
  }),
  pinnedExtra: ['issuer'],
  sameAddress: (a, b) => a === b,
  needsFeePayer: false,
  async verify(payload, requirement, context) {
    const v = await verifyExactXrpl(
      payload,
      {
        network: requirement.network,
        payTo: requirement.payTo,
        amount: requirement.amount,
        maxTimeoutSeconds: requirement.maxTimeoutSeconds,
      },
      context.currentLedger ? { currentLedger: context.currentLedger } : {},
    );
    if (!v.ok) return v;
    // Keyed on the account's Sequence or ticket: a re-signed twin (other Fee, LastLedgerSequence,
    // InvoiceID) has a new hash but could never apply beside the first on the ledger.
    return {
      ok: true,
      payer: v.payer,
      replayKey: v.replayKey,
      expiresAt: context.nowSeconds + CHAIN_KEY_RETENTION_SECONDS,
      localTransaction: `local:${v.hash}`,
      what: `a Payment from ${v.payer} with ${v.slot} (the ledger applies one transaction per Sequence or ticket, whatever its Fee, LastLedgerSequence or InvoiceID)`,
    };
  },
  describe: (network) => ({
    asset: network.rlusd.symbol,
    decimals: null,
    payerKeyVariable: 'XRPL_PAYER_SEED',
    freshPayment: "sign a new Payment with the account's next Sequence or another ticket",
  }),
};
