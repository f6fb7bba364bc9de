/** `exact` on Solana: a partially signed USDC TransferChecked transaction checked in process (solana.ts). */
import type { SolanaNetwork } from '../../catalog/networks.ts';
import { toAtomicUnits } from '../networks.ts';
import { verifyExactSolana } from '../solana.ts';
import type { Scheme } from './scheme.ts';
import { CHAIN_KEY_RETENTION_SECONDS } from './retention.ts';

export const svmExact: Scheme<SolanaNetwork> = {
  kind: 'solana',
  maxTimeoutSeconds: 60,
  amount: (network, priceUsd) => toAtomicUnits(priceUsd, network.usdc.decimals),
  extra: (_network, { solanaFeePayer }) => (solanaFeePayer ? { feePayer: solanaFeePayer } : {}),
  v1: (_network, amount, _priceUsd, extra) => ({ maxAmountRequired: amount, extra }),
  pinnedExtra: [],
  sameAddress: (a, b) => a === b,
  needsFeePayer: true,
  async verify(payload, requirement, context) {
    const feePayer = requirement.extra.feePayer;
    const v = await verifyExactSolana(payload, {
      network: requirement.network,
      asset: requirement.asset,
      payTo: requirement.payTo,
      amount: requirement.amount,
      feePayer: typeof feePayer === 'string' ? feePayer : null,
    });
    if (!v.ok) return v;
    return {
      ok: true,
      payer: v.payer,
      replayKey: v.messageHash,
      expiresAt: context.nowSeconds + CHAIN_KEY_RETENTION_SECONDS,
      localTransaction: `local:${v.messageHash}`,
      what: `this signed ${requirement.network.name} transaction`,
    };
  },
  describe: (network) => ({
    asset: network.usdc.symbol,
    decimals: network.usdc.decimals,
    payerKeyVariable: 'SOLANA_PAYER_KEY',
    freshPayment: 'sign a new payment',
  }),
};
