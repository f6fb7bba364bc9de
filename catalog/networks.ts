/**
 * The settlement networks and their stablecoins, declared once, and which of them each service
 * offers. The catalog's documents name them from here; the proxy builds payment requirements and
 * checks signatures against the same entries (payments/networks.ts adds the arithmetic).
 *
 * Nothing about a token is taken from a client: the EIP-712 domain of each USDC contract (name,
 * version, chainId, verifyingContract) is pinned here, and its domain separator is checked against
 * the on-chain DOMAIN_SEPARATOR() values in payments/networks.test.ts. The contracts are the
 * ones the x402 reference implementation (`@x402/evm`) lists; RLUSD is Ripple's mainnet issue.
 */
import type { ServiceName } from './types.ts';

export interface EvmUsdc {
  symbol: 'USDC';
  /** Token contract = EIP-712 verifyingContract (EIP-55 checksummed). */
  address: string;
  decimals: 6;
  /** EIP-712 domain name and version of the contract. Testnet USDC is often "USDC", mainnet "USD Coin". */
  eip712: { name: string; version: string };
}

export interface EvmNetwork {
  kind: 'evm';
  /** x402 v1 network name. */
  name: string;
  /** CAIP-2 id (x402 v2). */
  caip2: string;
  chainId: number;
  usdc: EvmUsdc;
  /** DOMAIN_SEPARATOR() of the contract as read on chain; null where not cross-checked. */
  knownDomainSeparator: string | null;
  testnet: boolean;
}

export interface SolanaNetwork {
  kind: 'solana';
  name: string;
  caip2: string;
  /**
   * `tokenProgram`: the program that owns the mint (spl-token for USDC). A transfer through the
   * other token program names the same mint but could never move it.
   */
  usdc: { symbol: 'USDC'; mint: string; decimals: 6; tokenProgram: string };
  testnet: boolean;
}

export interface XrplNetwork {
  kind: 'xrpl';
  name: string;
  caip2: string;
  /** RLUSD is an XRPL issued currency: 160-bit currency code + issuer; amounts are decimal values, not atomic units. */
  rlusd: { symbol: 'RLUSD'; currency: string; issuer: string };
  testnet: boolean;
}

export type SettlementNetwork = EvmNetwork | SolanaNetwork | XrplNetwork;

export const BASE: EvmNetwork = {
  kind: 'evm',
  name: 'base',
  caip2: 'eip155:8453',
  chainId: 8453,
  usdc: { symbol: 'USDC', address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', decimals: 6, eip712: { name: 'USD Coin', version: '2' } },
  knownDomainSeparator: '0x02fa7265e7c5d81118673727957699e4d68f74cd74b7db77da710fe8a2c7834f',
  testnet: false,
};

export const POLYGON: EvmNetwork = {
  kind: 'evm',
  name: 'polygon',
  caip2: 'eip155:137',
  chainId: 137,
  usdc: { symbol: 'USDC', address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', decimals: 6, eip712: { name: 'USD Coin', version: '2' } },
  knownDomainSeparator: '0xcaa2ce1a5703ccbe253a34eb3166df60a705c561b44b192061e28f2a985be2ca',
  testnet: false,
};

/** Base Sepolia: not offered by either service; here for the x402 spec's own test vector and testnet trials. */
export const BASE_SEPOLIA: EvmNetwork = {
  kind: 'evm',
  name: 'base-sepolia',
  caip2: 'eip155:84532',
  chainId: 84532,
  usdc: { symbol: 'USDC', address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', decimals: 6, eip712: { name: 'USDC', version: '2' } },
  knownDomainSeparator: '0x71f17a3b2ff373b803d70a5a07c046c1a2bc8e89c09ef722fcb047abe94c9818',
  testnet: true,
};

export const SOLANA: SolanaNetwork = {
  kind: 'solana',
  name: 'solana',
  caip2: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
  usdc: {
    symbol: 'USDC',
    mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    decimals: 6,
    tokenProgram: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', // spl-token
  },
  testnet: false,
};

export const XRPL: XrplNetwork = {
  kind: 'xrpl',
  name: 'xrpl',
  caip2: 'xrpl:0',
  rlusd: { symbol: 'RLUSD', currency: '524C555344000000000000000000000000000000', issuer: 'rMxCKbEDwqr76QuheSUMdEGf4B9xJ8m5De' },
  testnet: false,
};

export const SETTLEMENT_NETWORKS: readonly SettlementNetwork[] = [BASE, POLYGON, BASE_SEPOLIA, SOLANA, XRPL];

/** A network by v1 name ('base') or CAIP-2 id ('eip155:8453'); undefined when not in the table. */
export function findNetwork(nameOrCaip2: string): SettlementNetwork | undefined {
  return SETTLEMENT_NETWORKS.find((n) => n.name === nameOrCaip2 || n.caip2 === nameOrCaip2);
}

export function assetSymbol(network: SettlementNetwork): 'USDC' | 'RLUSD' {
  return network.kind === 'xrpl' ? 'RLUSD' : 'USDC';
}

/** The `asset` field of a requirement: token contract, mint, or XRPL currency code. */
export function assetId(network: SettlementNetwork): string {
  if (network.kind === 'evm') return network.usdc.address;
  if (network.kind === 'solana') return network.usdc.mint;
  return network.rlusd.currency;
}

// ------------------------------------------------------------------ what each service offers

/** A network as a service offers it: the names documents show, read from its declaration. */
export interface PaymentNetwork {
  /** x402 v1 network name. */
  network: string;
  /** CAIP-2 id (x402 v2). */
  caip2: string;
  asset: 'USDC' | 'RLUSD';
  /** true: only the /api/v1/xrpl/... variants settle on this network. */
  xrplVariantsOnly: boolean;
  /** The declaration itself: chain id, token contract or mint, EIP-712 domain. */
  settlement: SettlementNetwork;
}

function offer(settlement: SettlementNetwork): PaymentNetwork {
  const xrplVariantsOnly = settlement.kind === 'xrpl';
  return { network: settlement.name, caip2: settlement.caip2, asset: assetSymbol(settlement), xrplVariantsOnly, settlement };
}

/** Settlement networks each service offers (korea's XRPL variants settle in RLUSD on XRPL, the rest in USDC). */
export const SERVICE_NETWORKS: Record<ServiceName, readonly PaymentNetwork[]> = {
  korea: [BASE, POLYGON, SOLANA, XRPL].map(offer),
  analytics: [BASE, SOLANA].map(offer),
};

/** The USDC networks of a service in words, for descriptions: 'base, polygon or solana'. */
export function usdcNetworksText(service: ServiceName): string {
  const names = SERVICE_NETWORKS[service].filter((n) => n.asset === 'USDC').map((n) => n.network);
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : (names[0] ?? '');
}
