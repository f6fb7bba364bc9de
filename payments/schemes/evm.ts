/** `exact` on EVM chains: an EIP-3009 transferWithAuthorization of USDC (eip3009.ts), signatures checked on the crypto pool. */
import type { EvmNetwork } from '../../catalog/networks.ts';
import { precheckExactEvm, sameAddress, signatureVerdict, type EvmVerified } from '../eip3009.ts';
import { domainSeparator, toAtomicUnits } from '../networks.ts';
import { short, type Rejection } from '../reasons.ts';
import type { Scheme } from './scheme.ts';

export const evmExact: Scheme<EvmNetwork> = {
  kind: 'evm',
  maxTimeoutSeconds: 300,
  amount: (network, priceUsd) => toAtomicUnits(priceUsd, network.usdc.decimals),
  extra: (network) => ({ name: network.usdc.eip712.name, version: network.usdc.eip712.version }),
  v1: (_network, amount, _priceUsd, extra) => ({ maxAmountRequired: amount, extra }),
  pinnedExtra: ['name', 'version'],
  sameAddress,
  needsFeePayer: false,
  async verify(payload, requirement, context) {
    const { network } = requirement;
    const pre = precheckExactEvm(
      payload,
      { network, payTo: requirement.payTo, amount: requirement.amount },
      {
        now: context.nowSeconds,
        // a smart-wallet signature can only be checked on chain, by the facilitator
        allowSmartWallet: context.settlement === 'facilitator',
        ...(context.clockSkewSeconds !== undefined ? { clockSkewSeconds: context.clockSkewSeconds } : {}),
      },
    );
    if (!pre.ok) return pre;
    const verified: EvmVerified | Rejection =
      pre.signatureKind === 'pending'
        ? signatureVerdict(
            network,
            pre,
            await context.crypto.checkAuthorization(domainSeparator(network), pre.authorization, pre.signature),
          )
        : pre;
    if (!verified.ok) return verified;
    const nonce = verified.authorization.nonce;
    return {
      ok: true,
      payer: verified.payer,
      replayKey: nonce,
      expiresAt: verified.validBefore,
      localTransaction: `local:${nonce}`,
      what: `this payment (nonce ${short(nonce)} from ${verified.payer})`,
    };
  },
  describe: (network) => ({
    asset: network.usdc.symbol,
    decimals: network.usdc.decimals,
    payerKeyVariable: 'PAYER_PRIVATE_KEY',
    freshPayment: 'sign a new payment with a fresh nonce',
  }),
};
