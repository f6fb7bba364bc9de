/**
 * Facilitator relayers: the wallets that submit x402 settlements on chain. A USDC transfer counts
 * as an x402 payment only when a relayer listed here sent its transaction (Solana: paid its fee),
 * on or after the relayer's first-seen date (docs/x402-indexing.md, "Facilitator relayers" and "Which transfers count").
 *
 * The list is versioned because relayer sets grow (Coinbase added 15 in one day) and a missing
 * relayer undercounts silently: bump REGISTRY_VERSION whenever it changes, and re-pull it from the
 * source below. Frequent submitters are not added automatically: many are payout rails, not x402.
 *
 * Source: Merit-Systems/x402scan packages/external/facilitators/src/facilitators/
 *   coinbase.ts @ a3443b7e, payai.ts @ 9c6dc273, x402rs.ts @ b4ac9d74 (the three docs/x402-indexing.md names).
 */
import type { AnalyticsChain } from '../../catalog/categories.ts';

export const REGISTRY_VERSION = 'x402scan@a3443b7e+9c6dc273+b4ac9d74';

export interface Relayer {
  chain: AnalyticsChain;
  /** EVM: lowercase hex; Solana: base58 as is (case matters). */
  address: string;
  facilitator: string;
  /** UTC date of the relayer's first known settlement; earlier transactions are not attributed to it. */
  firstSeen: string;
  /** Retired by its facilitator; kept so history stays attributed. */
  deprecated?: boolean;
}

const r = (chain: AnalyticsChain, facilitator: string, firstSeen: string, addresses: string[], deprecated = false): Relayer[] =>
  addresses.map((address) => ({
    chain,
    facilitator,
    firstSeen,
    address: chain === 'solana' ? address : address.toLowerCase(),
    ...(deprecated ? { deprecated } : {}),
  }));

export const RELAYERS: readonly Relayer[] = [
  // ------------------------------------------------------------------ coinbase (CDP)
  ...r('base', 'coinbase', '2025-05-05', ['0xdbdf3d8ed80f84c35d01c6c9f9271761bad90ba6']),
  ...r('base', 'coinbase', '2025-10-31', [
    '0x9aae2b0d1b9dc55ac9bab9556f9a26cb64995fb9',
    '0x3a70788150c7645a21b95b7062ab1784d3cc2104',
    '0x708e57b6650a9a741ab39cae1969ea1d2d10eca1',
    '0xce82eeec8e98e443ec34fda3c3e999cbe4cb6ac2',
    '0x7f6d822467df2a85f792d4508c5722ade96be056',
    '0x001ddabba5782ee48842318bd9ff4008647c8d9c',
    '0x9c09faa49c4235a09677159ff14f17498ac48738',
    '0xcbb10c30a9a72fae9232f41cbbd566a097b4e03a',
    '0x9fb2714af0a84816f5c6322884f2907e33946b88',
  ]),
  ...r('base', 'coinbase', '2025-11-11', [
    '0x47d8b3c9717e976f31025089384f23900750a5f4',
    '0x94701e1df9ae06642bf6027589b8e05dc7004813',
    '0x552300992857834c0ad41c8e1a6934a5e4a2e4ca',
    '0xd7469bf02d221968ab9f0c8b9351f55f8668ac4f',
    '0x88800e08e20b45c9b1f0480cf759b5bf2f05180c',
    '0x6831508455a716f987782a1ab41e204856055cc2',
    '0xdc8fbad54bf5151405de488f45acd555517e0958',
    '0x91d313853ad458addda56b35a7686e2f38ff3952',
    '0xadd5585c776b9b0ea77e9309c1299a40442d820f',
    '0x4ffeffa616a1460570d1eb0390e264d45a199e91',
  ]),
  ...r('base', 'coinbase', '2025-12-16', [
    '0x8f5cb67b49555e614892b7233cfddebfb746e531',
    '0x67b9ce703d9ce658d7c4ac3c289cea112fe662af',
    '0x68a96f41ff1e9f2e7b591a931a4ad224e7c07863',
    '0x97acce27d5069544480bde0f04d9f47d7422a016',
    '0xa32ccda98ba7529705a059bd2d213da8de10d101',
  ]),
  ...r('solana', 'coinbase', '2025-10-24', ['L54zkaPQFeTn1UsEqieEXBqWrPShiaZEPD7mS5WXfQg']),
  ...r('solana', 'coinbase', '2025-12-16', [
    'BENrLoUbndxoNMUS5JXApGMtNykLjFXXixMtpDwDR9SP',
    'BFK9TLC3edb13K6v4YyH3DwPb5DSUpkWvb7XnqCL9b4F',
    'D6ZhtNQ5nT9ZnTHUbqXZsTx5MH2rPFiBBggX4hY1WePM',
    'GVJJ7rdGiXr5xaYbRwRbjfaJL7fmwRygFi1H6aGqDveb',
    'Hc3sdEAsCGQcpgfivywog9uwtk8gUBUZgsxdME1EJy88',
  ]),
  // ------------------------------------------------------------------ PayAI
  ...r('base', 'payai', '2025-05-18', ['0xc6699d2aada6c36dfea5c248dd70f9cb0235cb63']),
  ...r('base', 'payai', '2025-10-29', [
    '0xb2bd29925cbbcea7628279c91945ca5b98bf371b',
    '0x25659315106580ce2a787ceec5efb2d347b539c9',
    '0xb8f41cb13b1f213da1e94e1b742ec1323235c48f',
    '0xe575fa51af90957d66fab6d63355f1ed021b887b',
  ]),
  ...r('base', 'payai', '2025-12-08', [
    '0x03a3f7ce8e21e6f8d9fa14c67d8876b2470dc2f1',
    '0x675707bc7d03089f820c1b7d49f7480083e8f4df',
    '0xf46833d4ac4f0f1405cc05c30edfd86770f721c9',
    '0x2daaef6f941de214bf7d6daf322bc6bc7406accb',
    '0x2fae4026a31f19183947f0a6045ef975ebfa9ca8',
    '0xe299c486066739c4a31609e1268d93229632dd47',
    '0x6ccf245c883f9f3c6caee0687aa61daf7bc96e32',
    '0xaf990eef9846b63d896056050fdc0b28bca9c24b',
    '0x489c40fc3c2a19ad8cb275b7dd6aa194e9219c4f',
    '0x9df61a719ddae27c20a63a417271cc2c704654bd',
  ]),
  ...r('solana', 'payai', '2025-07-01', ['2wKupLR9q6wXYppw8Gr2NvWxKBUqm4PPJKkQfoxHDBg4']),
  ...r('solana', 'payai', '2025-12-08', ['CjNFTjvBhbJJd2B5ePPMHRLx1ELZpa8dwQgGL727eKww', '8B5UKhwfAyFW67h58cBkQj1Ur6QXRgwWJJcQp8ZBsDPa']),
  // ------------------------------------------------------------------ x402.rs
  ...r('base', 'x402rs', '2024-12-05', ['0xd8dfc729cbd05381647eb5540d756f4f8ad63eec'], true),
  ...r('base', 'x402rs', '2025-10-26', ['0x76eee8f0acabd6b49f1cc4e9656a0c8892f3332e'], true),
  ...r('base', 'x402rs', '2025-10-24', [
    '0x97d38aa5de015245dcca76305b53abe6da25f6a5',
    '0x0168f80e035ea68b191faf9bfc12778c87d92008',
    '0x5e437bee4321db862ac57085ea5eb97199c0ccc5',
  ]),
  ...r('base', 'x402rs', '2025-10-26', ['0xc19829b32324f116ee7f80d193f99e445968499a']),
  ...r('polygon', 'x402rs', '2025-04-01', ['0xd8dfc729cbd05381647eb5540d756f4f8ad63eec'], true),
];

export function relayersOn(chain: AnalyticsChain, registry: readonly Relayer[] = RELAYERS): Relayer[] {
  return registry.filter((x) => x.chain === chain);
}

export interface RelayerLookup {
  /** The relayer with this address on the chain, whatever the date (for a first, cheap filter). */
  byAddress(address: string): Relayer | null;
  /** The relayer if it was active at `time` (on or after its first-seen UTC date). */
  at(address: string, time: Date): Relayer | null;
}

export function relayerLookup(chain: AnalyticsChain, registry: readonly Relayer[] = RELAYERS): RelayerLookup {
  const norm = (a: string) => (chain === 'solana' ? a : a.toLowerCase());
  const map = new Map(relayersOn(chain, registry).map((x) => [x.address, x]));
  return {
    byAddress: (address) => map.get(norm(address)) ?? null,
    at(address, time) {
      const relayer = map.get(norm(address));
      if (!relayer) return null;
      return time.getTime() >= Date.parse(`${relayer.firstSeen}T00:00:00Z`) ? relayer : null;
    },
  };
}
