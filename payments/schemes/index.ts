/**
 * The payment schemes by network kind: the one registry the paywall, the offers and the docs read.
 * A new kind of network: its module beside these and one line here (docs/architecture.md).
 */
import type { SettlementNetwork } from '../../catalog/networks.ts';
import { evmExact } from './evm.ts';
import type { Scheme } from './scheme.ts';
import { svmExact } from './svm.ts';
import { xrplExact } from './xrpl.ts';

type Kind = SettlementNetwork['kind'];

export const SCHEMES: { readonly [K in Kind]: Scheme<Extract<SettlementNetwork, { kind: K }>> } = {
  evm: evmExact,
  solana: svmExact,
  xrpl: xrplExact,
};

/** The scheme of a network's kind. */
export function schemeFor<N extends SettlementNetwork>(network: N): Scheme<N> {
  return SCHEMES[network.kind as Kind] as unknown as Scheme<N>;
}

/** The `amount` of a requirement on `network` for a USD price: atomic USDC units, or the RLUSD decimal value. */
export function priceAmount(network: SettlementNetwork, priceUsd: string): string {
  return schemeFor(network).amount(network, priceUsd);
}

export type { Scheme, SchemeDescription, SchemeRequirement, Verified, VerifyContext } from './scheme.ts';
