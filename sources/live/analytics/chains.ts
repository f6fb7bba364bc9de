/**
 * What the live sources need to know about the chains the analytics index covers: x402 network
 * names (v1 names and v2 CAIP-2 ids) and USDC per chain (docs/x402-protocol.md, "Networks and CAIP-2",
 * docs/x402-indexing.md, "Contracts and event topics").
 */
import type { AnalyticsChain } from '../../../catalog/categories.ts';

export const USDC_DECIMALS = 6;

/** USDC per chain (EVM lowercase: compare lowercased). */
export const USDC: Record<AnalyticsChain, string> = {
  base: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
  polygon: '0x3c499c542cef5e3811e1192ce70d8cc03d5c3359',
  arbitrum: '0xaf88d065e77c8cc2239327c5edb3a432268e5831',
  solana: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
};

const NETWORKS: Record<string, AnalyticsChain> = {
  base: 'base',
  'eip155:8453': 'base',
  polygon: 'polygon',
  'eip155:137': 'polygon',
  arbitrum: 'arbitrum',
  'arbitrum-one': 'arbitrum',
  'eip155:42161': 'arbitrum',
  solana: 'solana',
  'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp': 'solana', // mainnet genesis hash prefix (CAIP-2)
};

/** The indexed chain of an x402 network name, or null for testnets and chains we do not cover. */
export function chainOfNetwork(network: string): AnalyticsChain | null {
  const n = network.trim();
  // Base58 genesis hashes are case-sensitive; v1 names and eip155 ids are not.
  return NETWORKS[n] ?? NETWORKS[n.toLowerCase()] ?? null;
}

/** EVM addresses compare lowercased; Solana base58 is case-sensitive and stays as is. */
export function normalizeAddress(chain: AnalyticsChain, address: string): string {
  const a = address.trim();
  return chain === 'solana' ? a : a.toLowerCase();
}

/** USD value of an atomic USDC amount (6 decimals). */
export function usdcToUsd(atomic: bigint): number {
  return Number(atomic) / 10 ** USDC_DECIMALS;
}
