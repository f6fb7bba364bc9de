/**
 * The pinned table of settlement networks and their stablecoins, and the price arithmetic.
 *
 * Nothing about a token is taken from a client: the EIP-712 domain of each USDC contract (name,
 * version, chainId, verifyingContract) is pinned here, and its domain separator is checked against
 * the on-chain DOMAIN_SEPARATOR() values in networks.test.ts. Sources: shared/research/x402.md §2.3
 * (`@x402/evm` DEFAULT_STABLECOINS, legacy x402 config), §3.1 (Solana mint), §3.2 and
 * specs/schemes/exact/scheme_exact_xrpl.md (RLUSD currency code; issuer = Ripple's mainnet issuer).
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import type { PaymentNetwork } from '../../catalog/index.ts';

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
  /** DOMAIN_SEPARATOR() of the contract as read on chain (research §2.3); null where not cross-checked. */
  knownDomainSeparator: string | null;
  testnet: boolean;
}

export interface SolanaNetwork {
  kind: 'solana';
  name: string;
  caip2: string;
  usdc: { symbol: 'USDC'; mint: string; decimals: 6 };
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

/** Base Sepolia: not offered by either service; here for the spec's own test vector and testnet trials. */
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
  usdc: { symbol: 'USDC', mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', decimals: 6 },
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

/** The table entry for a catalog network; throws if the catalog names a network this table lacks. */
export function settlementNetwork(network: PaymentNetwork | string): SettlementNetwork {
  const name = typeof network === 'string' ? network : network.network;
  const found = findNetwork(name);
  if (!found) throw new Error(`x402: network "${name}" is not in the pinned network table (proxy/x402/networks.ts)`);
  if (typeof network !== 'string' && found.caip2 !== network.caip2) {
    throw new Error(`x402: catalog network ${name} says ${network.caip2}, the pinned table says ${found.caip2}`);
  }
  return found;
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

// ------------------------------------------------------------------ demo pay-to addresses

/**
 * DEMO pay-to addresses, used only with SETTLEMENT=local when PAY_TO_* is unset. Derived from
 * sha256/keccak of fixed strings ("kr-x402 demo merchant <chain>"): nobody holds their keys, no
 * funds ever move in local mode, and facilitator mode refuses to offer a network without a
 * configured address (lib/config.ts).
 */
export const DEMO_PAY_TO = {
  evm: '0xfC0f2F7726E6BC5D1f827b91d0Ebf3D7ABbac0b6',
  solana: 'FD7YVyJ5dai6ykGCduUm7HoaNCBTQjShWcmRhCcAD2hx',
  xrpl: 'rU8Pz7RT7pGRGzpoNbBGuJ1Xa5heLg77H1',
} as const;

export interface PayToTable {
  evm: string | null;
  solana: string | null;
  xrpl: string | null;
  /** Which entries are the demo defaults (shown in the 402 `extra.demo` and in the discovery manifest). */
  demo: { evm: boolean; solana: boolean; xrpl: boolean };
}

/** Pay-to per chain family from the settings: configured addresses, else the demo ones in local mode, else null (not offered). */
export function payToTable(settings: {
  settlement: 'local' | 'facilitator';
  payTo: { evm: string | null; solana: string | null; xrpl: string | null };
}): PayToTable {
  const local = settings.settlement === 'local';
  const pick = (family: 'evm' | 'solana' | 'xrpl') => settings.payTo[family] ?? (local ? DEMO_PAY_TO[family] : null);
  return {
    evm: pick('evm'),
    solana: pick('solana'),
    xrpl: pick('xrpl'),
    demo: {
      evm: local && !settings.payTo.evm,
      solana: local && !settings.payTo.solana,
      xrpl: local && !settings.payTo.xrpl,
    },
  };
}

export function payToFor(table: PayToTable, network: SettlementNetwork): string | null {
  return network.kind === 'evm' ? table.evm : network.kind === 'solana' ? table.solana : table.xrpl;
}

/** Pay-to per v1 network name ('base', 'polygon', 'solana', 'xrpl'), the shape proxy/discovery.ts takes. */
export function payToByNetworkName(table: PayToTable, networks: readonly (PaymentNetwork | string)[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of networks) {
    const net = settlementNetwork(n);
    const to = payToFor(table, net);
    if (to) out[net.name] = to;
  }
  return out;
}

// ------------------------------------------------------------------ amounts

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/**
 * A decimal USD string ('0.001') in atomic units of a token with `decimals` decimals ('1000' for
 * USDC), by string arithmetic: no float ever touches a price. Throws when the price has more
 * fractional digits than the token can represent (rather than rounding someone's money).
 */
export function toAtomicUnits(decimalText: string, decimals: number): string {
  const m = DECIMAL.exec(decimalText.trim());
  if (!m) throw new Error(`price "${decimalText}" is not a non-negative decimal number like "0.001"`);
  const whole = m[1]!;
  const fraction = (m[2] ?? '').replace(/0+$/, '');
  if (fraction.length > decimals) {
    throw new Error(`price "${decimalText}" has more than ${decimals} decimal places; the token cannot represent it exactly`);
  }
  const atomic = BigInt(whole + fraction.padEnd(decimals, '0'));
  return atomic.toString();
}

/** Atomic units back to a decimal string: ('1000', 6) → '0.001'. */
export function fromAtomicUnits(atomic: string | bigint, decimals: number): string {
  const value = typeof atomic === 'bigint' ? atomic : BigInt(atomic);
  if (value < 0n) throw new Error('negative amount');
  const text = value.toString().padStart(decimals + 1, '0');
  const whole = text.slice(0, text.length - decimals);
  const fraction = text.slice(text.length - decimals).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

/** A decimal string in canonical form ('0.10' → '0.1', '1.0' → '1'); used for RLUSD values and receipt amounts. */
export function canonicalDecimal(decimalText: string): string {
  const m = DECIMAL.exec(decimalText.trim());
  if (!m) throw new Error(`"${decimalText}" is not a non-negative decimal number`);
  const whole = m[1]!.replace(/^0+(?=\d)/, '');
  const fraction = (m[2] ?? '').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

/** The `amount` of a requirement on `network` for a USD price: atomic USDC units, or the RLUSD decimal value. */
export function priceAmount(network: SettlementNetwork, priceUsd: string): string {
  if (network.kind === 'xrpl') return canonicalDecimal(priceUsd);
  return toAtomicUnits(priceUsd, network.usdc.decimals);
}

// ------------------------------------------------------------------ EIP-712 domain

const DOMAIN_TYPEHASH = keccak_256(
  utf8ToBytes('EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)'),
);

function uint256(value: bigint): Uint8Array {
  return hexToBytes(value.toString(16).padStart(64, '0'));
}

function addressWord(address: string): Uint8Array {
  return hexToBytes(address.slice(2).toLowerCase().padStart(64, '0'));
}

/** keccak256(DOMAIN_TYPEHASH ‖ keccak(name) ‖ keccak(version) ‖ chainId ‖ verifyingContract). */
export function computeDomainSeparator(domain: { name: string; version: string; chainId: number | bigint; verifyingContract: string }): Uint8Array {
  const buf = new Uint8Array(32 * 5);
  buf.set(DOMAIN_TYPEHASH, 0);
  buf.set(keccak_256(utf8ToBytes(domain.name)), 32);
  buf.set(keccak_256(utf8ToBytes(domain.version)), 64);
  buf.set(uint256(BigInt(domain.chainId)), 96);
  buf.set(addressWord(domain.verifyingContract), 128);
  return keccak_256(buf);
}

const separators = new Map<string, Uint8Array>();

/** The pinned domain separator of a network's USDC (computed once). */
export function domainSeparator(network: EvmNetwork): Uint8Array {
  let sep = separators.get(network.caip2);
  if (!sep) {
    sep = computeDomainSeparator({
      name: network.usdc.eip712.name,
      version: network.usdc.eip712.version,
      chainId: network.chainId,
      verifyingContract: network.usdc.address,
    });
    separators.set(network.caip2, sep);
  }
  return sep;
}

export function domainSeparatorHex(network: EvmNetwork): string {
  return `0x${bytesToHex(domainSeparator(network))}`;
}
