import { describe, expect, it } from 'vitest';
import { ENDPOINTS, SERVICE_INFO } from '../catalog/index.ts';
import {
  BASE,
  BASE_SEPOLIA,
  canonicalDecimal,
  computeDomainSeparator,
  DEMO_PAY_TO,
  domainSeparatorHex,
  findNetwork,
  fromAtomicUnits,
  payToByNetworkName,
  payToTable,
  POLYGON,
  settlementNetwork,
  SETTLEMENT_NETWORKS,
  toAtomicUnits,
  XRPL,
} from './networks.ts';
import { toChecksumAddress } from './eip3009.ts';
import { priceAmount } from './schemes/index.ts';

describe('pinned network table', () => {
  it.each([BASE, POLYGON, BASE_SEPOLIA])('$name USDC domain separator equals the on-chain DOMAIN_SEPARATOR()', (network) => {
    expect(domainSeparatorHex(network)).toBe(network.knownDomainSeparator);
  });

  it('a wrong domain name gives another separator (the Base Sepolia "USD Coin" trap)', () => {
    const wrong = computeDomainSeparator({ name: 'USD Coin', version: '2', chainId: 84532, verifyingContract: BASE_SEPOLIA.usdc.address });
    expect(Buffer.from(wrong).toString('hex')).not.toBe(BASE_SEPOLIA.knownDomainSeparator!.slice(2));
  });

  it('stores contract addresses in EIP-55 form and finds networks by v1 name or CAIP-2 id', () => {
    for (const n of SETTLEMENT_NETWORKS) if (n.kind === 'evm') expect(toChecksumAddress(n.usdc.address)).toBe(n.usdc.address);
    expect(findNetwork('eip155:137')).toBe(POLYGON);
    expect(findNetwork('base')).toBe(BASE);
    expect(findNetwork('eip155:1')).toBeUndefined();
  });

  it('settles every network the catalog offers on its declaration, and knows no other names', () => {
    for (const info of Object.values(SERVICE_INFO)) {
      for (const n of info.networks) {
        expect(SETTLEMENT_NETWORKS).toContain(settlementNetwork(n));
        expect([settlementNetwork(n).name, settlementNetwork(n).caip2]).toEqual([n.network, n.caip2]);
        expect(settlementNetwork(n.network)).toBe(settlementNetwork(n));
      }
    }
    expect(SERVICE_INFO.korea.networks.map((n) => `${n.network}:${n.asset}:${n.xrplVariantsOnly}`)).toEqual([
      'base:USDC:false',
      'polygon:USDC:false',
      'solana:USDC:false',
      'xrpl:RLUSD:true',
    ]);
    expect(SERVICE_INFO.analytics.networks.map((n) => n.network)).toEqual(['base', 'solana']);
    expect(() => settlementNetwork('ethereum')).toThrow(/"ethereum" is not declared in catalog\/networks.ts/);
  });
});

describe('amounts', () => {
  it.each([
    ['0.001', '1000'],
    ['0.005', '5000'],
    ['0.01', '10000'],
    ['0.02', '20000'],
    ['0.05', '50000'],
    ['0.10', '100000'],
    ['0.00051', '510'], // the float-based legacy middleware made this 510.00000000000006
    ['1', '1000000'],
    ['0.000001', '1'],
  ])('USD %s is %s atomic USDC, by string arithmetic', (usd, atomic) => {
    expect(toAtomicUnits(usd, 6)).toBe(atomic);
    expect(fromAtomicUnits(atomic, 6)).toBe(canonicalDecimal(usd));
  });

  it('refuses prices the token cannot represent instead of rounding', () => {
    expect(() => toAtomicUnits('0.0000001', 6)).toThrow(/more than 6 decimal places/);
    expect(() => toAtomicUnits('1e-3', 6)).toThrow(/not a non-negative decimal/);
    expect(() => toAtomicUnits('-1', 6)).toThrow();
  });

  it('every paid catalog price is an exact integer of atomic USDC and a canonical RLUSD value', () => {
    for (const e of ENDPOINTS.filter((x) => x.priceUsd)) {
      expect(priceAmount(BASE, e.priceUsd!)).toMatch(/^[1-9]\d*$/);
      expect(priceAmount(XRPL, e.priceUsd!)).toBe(canonicalDecimal(e.priceUsd!));
    }
    expect(priceAmount(XRPL, '0.10')).toBe('0.1');
  });
});

describe('pay-to addresses', () => {
  it('local mode falls back to the marked demo addresses', () => {
    const t = payToTable({ settlement: 'local', payTo: { evm: null, solana: null, xrpl: null } });
    expect([t.evm, t.solana, t.xrpl]).toEqual([DEMO_PAY_TO.evm, DEMO_PAY_TO.solana, DEMO_PAY_TO.xrpl]);
    expect(t.demo).toEqual({ evm: true, solana: true, xrpl: true });
  });

  it('facilitator mode offers only configured networks', () => {
    const t = payToTable({
      settlement: 'facilitator',
      payTo: { evm: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', solana: null, xrpl: null },
    });
    expect(t.solana).toBeNull();
    expect(payToByNetworkName(t, SERVICE_INFO.korea.networks)).toEqual({
      base: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      polygon: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    });
  });

  it('demo EVM address is checksummed', () => {
    expect(toChecksumAddress(DEMO_PAY_TO.evm)).toBe(DEMO_PAY_TO.evm);
  });
});
