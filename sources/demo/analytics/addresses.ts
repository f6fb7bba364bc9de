/**
 * Fixed, well-known wallets of the demo x402 world: exchange hot wallets that fund buyers,
 * agent-platform treasuries, and facilitator relayers that submit settlements. They do not
 * depend on the world's seed, so a pipeline can keep them in a label list, as it would keep a
 * CEX/relayer list for live data.
 *
 * Exchange and platform addresses are invented (made by a fixed PRNG stream) and only look like
 * real ones; the first relayer of Coinbase, PayAI and x402rs is the real address cited in
 * docs/x402-indexing.md, "Facilitator relayers", the others are invented.
 */
import type { AnalyticsChain } from '../../../catalog/categories.ts';
import type { Row } from '../../../lib/duckdb.ts';
import { Rng, evmAddress, solanaAddress } from '../random.ts';

export type AddressFamily = 'evm' | 'solana';

export function addressFamily(chain: AnalyticsChain): AddressFamily {
  return chain === 'solana' ? 'solana' : 'evm';
}

export interface KnownWallet {
  name: string;
  family: AddressFamily;
  address: string;
}

const fixed = new Rng(0x402, 'x402-demo-known-wallets');
const wallet = (name: string, family: AddressFamily): KnownWallet => ({
  name,
  family,
  address: family === 'evm' ? evmAddress(fixed) : solanaAddress(fixed),
});

/**
 * Exchange hot wallets (withdrawals to users). Organic users, most bots and some farms are funded
 * from these, so a shared exchange funder is never evidence of a cohort on its own.
 */
export const X402_EXCHANGE_WALLETS: readonly KnownWallet[] = [
  wallet('coinbase-hot-1', 'evm'),
  wallet('coinbase-hot-2', 'evm'),
  wallet('binance-hot', 'evm'),
  wallet('okx-hot', 'evm'),
  wallet('kraken-hot', 'evm'),
  wallet('bybit-hot', 'evm'),
  wallet('coinbase-hot-sol', 'solana'),
  wallet('binance-hot-sol', 'solana'),
  wallet('okx-hot-sol', 'solana'),
  wallet('kraken-hot-sol', 'solana'),
];
/** The exchange list as exchange_wallets rows (address, name, source), for the classifier. */
export function exchangeWalletRows(): Row[] {
  return X402_EXCHANGE_WALLETS.map((w) => [w.address, w.name, 'demo']);
}

/** Market share of the exchanges above (same order): Coinbase dominates Base withdrawals. */
const EXCHANGE_WEIGHTS = [30, 18, 20, 12, 8, 6, 40, 30, 18, 12];

/** Custodial treasuries of agent platforms that top up many agents' wallets (honest shared funder). */
export const X402_AGENT_PLATFORM_WALLETS: readonly KnownWallet[] = [
  wallet('agent-platform-a', 'evm'),
  wallet('agent-platform-b', 'evm'),
  wallet('agent-platform-c', 'solana'),
];

export function pickExchange(rng: Rng, family: AddressFamily): string {
  const items: string[] = [];
  const weights: number[] = [];
  X402_EXCHANGE_WALLETS.forEach((w, i) => {
    if (w.family === family) {
      items.push(w.address);
      weights.push(EXCHANGE_WEIGHTS[i]!);
    }
  });
  return rng.weighted(items, weights);
}

export function pickAgentPlatform(rng: Rng, family: AddressFamily): string {
  return rng.pick(X402_AGENT_PLATFORM_WALLETS.filter((w) => w.family === family)).address;
}

export function newAddress(rng: Rng, family: AddressFamily, prefix = '', suffix = ''): string {
  return family === 'evm' ? evmAddress(rng, prefix, suffix) : solanaAddress(rng, prefix, suffix);
}

// ------------------------------------------------------------------ facilitators

export type FacilitatorId = 'coinbase' | 'payai' | 'x402rs' | 'thirdweb';

/** Relayers (the settlement transaction's sender) per facilitator and chain. */
export const X402_FACILITATOR_RELAYERS: Record<FacilitatorId, Partial<Record<AnalyticsChain, readonly string[]>>> = {
  coinbase: {
    base: ['0xdbdf3d8ed80f84c35d01c6c9f9271761bad90ba6', evmAddress(fixed), evmAddress(fixed)],
    solana: ['L54zkaPQFeTn1UsEqieEXBqWrPShiaZEPD7mS5WXfQg', solanaAddress(fixed)],
  },
  payai: {
    base: ['0xc6699d2aada6c36dfea5c248dd70f9cb0235cb63', evmAddress(fixed)],
    solana: ['2wKupLR9q6wXYppw8Gr2NvWxKBUqm4PPJKkQfoxHDBg4'],
    polygon: [evmAddress(fixed)],
    arbitrum: [evmAddress(fixed)],
  },
  x402rs: {
    base: ['0xd8dfc729cbd05381647eb5540d756f4f8ad63eec'],
    polygon: ['0xd8dfc729cbd05381647eb5540d756f4f8ad63eec'],
    arbitrum: [evmAddress(fixed)],
  },
  thirdweb: {
    base: [evmAddress(fixed)],
    polygon: [evmAddress(fixed)],
    arbitrum: [evmAddress(fixed)],
  },
};

/** Which facilitators sellers on a chain use, and how often. */
const FACILITATOR_SHARE: Record<AnalyticsChain, ReadonlyArray<readonly [FacilitatorId, number]>> = {
  base: [
    ['coinbase', 60],
    ['payai', 20],
    ['x402rs', 10],
    ['thirdweb', 10],
  ],
  solana: [
    ['coinbase', 55],
    ['payai', 45],
  ],
  polygon: [
    ['x402rs', 50],
    ['thirdweb', 35],
    ['payai', 15],
  ],
  arbitrum: [
    ['payai', 40],
    ['thirdweb', 35],
    ['x402rs', 25],
  ],
};

export function pickFacilitator(rng: Rng, chain: AnalyticsChain): FacilitatorId {
  const share = FACILITATOR_SHARE[chain];
  return rng.weighted(
    share.map(([id]) => id),
    share.map(([, w]) => w),
  );
}

export function relayersOf(facilitator: FacilitatorId, chain: AnalyticsChain): readonly string[] {
  const relayers = X402_FACILITATOR_RELAYERS[facilitator][chain];
  if (!relayers || relayers.length === 0) throw new Error(`x402 demo: facilitator ${facilitator} has no relayer on ${chain}`);
  return relayers;
}
