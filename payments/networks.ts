/**
 * Settlement arithmetic on the catalog's network declarations (catalog/networks.ts): pay-to
 * addresses per chain family, USD prices in token units by string arithmetic, and the EIP-712
 * domain separator of each USDC contract.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { findNetwork, type EvmNetwork, type PaymentNetwork, type SettlementNetwork } from '../catalog/networks.ts';

export {
  assetId,
  assetSymbol,
  BASE,
  BASE_SEPOLIA,
  findNetwork,
  POLYGON,
  SETTLEMENT_NETWORKS,
  SOLANA,
  XRPL,
  type EvmNetwork,
  type EvmUsdc,
  type SettlementNetwork,
  type SolanaNetwork,
  type XrplNetwork,
} from '../catalog/networks.ts';

/** The declaration behind a catalog network, or a network by v1 name or CAIP-2 id; throws for a name not declared. */
export function settlementNetwork(network: PaymentNetwork | string): SettlementNetwork {
  if (typeof network !== 'string') return network.settlement;
  const found = findNetwork(network);
  if (!found) throw new Error(`x402: network "${network}" is not declared in catalog/networks.ts`);
  return found;
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

/**
 * DEMO Solana fee payer, offered as `extra.feePayer` with SETTLEMENT=local when no facilitator
 * names one: base58 of sha256("kr-x402 demo fee payer solana"). Solana clients need a fee payer to
 * build the transaction; nobody holds this key, so such a transaction can never be submitted, and
 * local mode submits nothing.
 */
export const DEMO_SOLANA_FEE_PAYER = 'CayDU1nDxjnfS98a7FYCHLNuhBnTfH2vTNvahtTtx2cd';

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
  return table[network.kind];
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

// ------------------------------------------------------------------ EIP-712 domain

const DOMAIN_TYPEHASH = keccak_256(utf8ToBytes('EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)'));

function uint256(value: bigint): Uint8Array {
  return hexToBytes(value.toString(16).padStart(64, '0'));
}

function addressWord(address: string): Uint8Array {
  return hexToBytes(address.slice(2).toLowerCase().padStart(64, '0'));
}

/** keccak256(DOMAIN_TYPEHASH ‖ keccak(name) ‖ keccak(version) ‖ chainId ‖ verifyingContract). */
export function computeDomainSeparator(domain: {
  name: string;
  version: string;
  chainId: number | bigint;
  verifyingContract: string;
}): Uint8Array {
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
