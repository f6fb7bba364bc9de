/**
 * The facilitator registry (catalog/facilitators.json, documented in docs/x402-indexing.md,
 * "Facilitator registry"): which wallets settle x402 payments on which chain, each with its
 * facilitator and the source of the address. An EIP-3009 USDC transfer counts as an x402 payment
 * when a relayer listed here sent it, or when it pays a payTo a discovery listing names (then with
 * facilitator "unknown" unless the sender is listed here); a chain with no relayer here is not indexed at all, because an
 * audit found unscoped EIP-3009 traffic to be mostly bridges and payouts (Arbitrum: about $0 of
 * x402-shaped volume). The file is data, not code, so adding a relayer is a reviewed edit of one
 * entry with its source; it is parsed here with a schema and fails loudly naming the entry.
 *
 * The file is a pinned copy: `taken_at` and `taken_from` say when and from where it was copied. A
 * run may read a newer document of the same format from FACILITATOR_REGISTRY_URL instead
 * (sources/live/analytics/registry-source.ts), parsed with the same schema.
 */
import { z } from 'zod';
import { ANALYTICS_CHAINS, type AnalyticsChain } from './categories.ts';
import registryJson from './facilitators.json' with { type: 'json' };

const Chain = z.enum(ANALYTICS_CHAINS);
const IsoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a YYYY-MM-DD date');
/** A YYYY-MM-DD date that exists on the calendar (taken_at is compared between documents). */
const CalendarDate = IsoDate.refine(
  (d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d),
  'expected a calendar date',
);
const EvmAddress = z.string().regex(/^0x[0-9a-f]{40}$/, 'expected a lower-case 0x EVM address');
const SolanaAddress = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'expected a base58 Solana address');

const RelayerEntry = z
  .object({
    facilitator: z.string().min(1),
    chain: Chain,
    /** EVM: lower-case hex; Solana: base58 as is (case matters). */
    address: z.string(),
    /** UTC date of the relayer's first known settlement; earlier transactions are not attributed to it. */
    first_seen: IsoDate,
    /** Retired by its facilitator; kept so history stays attributed. */
    deprecated: z.boolean().optional(),
    /** Where the address comes from: a URL (pinned to a commit where it is a repository file). */
    source: z.string().url(),
  })
  .strict()
  .superRefine((r, ctx) => {
    const check = (r.chain === 'solana' ? SolanaAddress : EvmAddress).safeParse(r.address);
    if (!check.success) ctx.addIssue({ code: 'custom', path: ['address'], message: check.error.issues[0]!.message });
  });

const RegistrySchema = z
  .object({
    about: z.string(),
    version: z.string().min(1),
    /** UTC date the relayer list was copied from `taken_from` (a newer document has a later or equal date). */
    taken_at: CalendarDate,
    /** Where the list was copied from: a URL (pinned to a commit where it is a repository folder). */
    taken_from: z.string().url(),
    facilitators: z.record(z.string(), z.object({ name: z.string().min(1), docs_url: z.string().url() }).strict()),
    chains: z.record(
      Chain,
      z
        .object({
          /** The setting holding the RPC the live source reads this chain from; null: no reader for it. */
          live_rpc_setting: z.enum(['BASE_RPC_URL', 'SOLANA_RPC_URL']).nullable(),
          note: z.string().min(1),
        })
        .strict(),
    ),
    relayers: z.array(RelayerEntry),
  })
  .strict()
  .superRefine((doc, ctx) => {
    const seen = new Set<string>();
    doc.relayers.forEach((r, i) => {
      if (!(r.facilitator in doc.facilitators)) {
        ctx.addIssue({ code: 'custom', path: ['relayers', i, 'facilitator'], message: `unknown facilitator '${r.facilitator}'` });
      }
      const key = `${r.chain}:${r.address}`;
      if (seen.has(key)) ctx.addIssue({ code: 'custom', path: ['relayers', i, 'address'], message: `listed twice on ${r.chain}` });
      seen.add(key);
    });
  });

export type FacilitatorRegistry = z.infer<typeof RegistrySchema>;

export interface Relayer {
  chain: AnalyticsChain;
  /** EVM: lowercase hex; Solana: base58 as is (case matters). */
  address: string;
  facilitator: string;
  /** UTC date of the relayer's first known settlement; earlier transactions are not attributed to it. */
  firstSeen: string;
  /** Retired by its facilitator; kept so history stays attributed. */
  deprecated?: boolean;
  source: string;
}

/** Where the pinned copy lives, as messages and a run's registry report name it. */
export const PINNED_REGISTRY_SOURCE = 'catalog/facilitators.json';

/** Parses a registry document; the error names the entry and field that was wrong. */
export function parseFacilitatorRegistry(doc: unknown, name = PINNED_REGISTRY_SOURCE): FacilitatorRegistry {
  const parsed = RegistrySchema.safeParse(doc);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    throw new Error(`facilitator registry ${name} is invalid: ${issues}`);
  }
  return parsed.data;
}

export function relayersOf(registry: FacilitatorRegistry): Relayer[] {
  return registry.relayers.map((r) => ({
    chain: r.chain,
    address: r.address,
    facilitator: r.facilitator,
    firstSeen: r.first_seen,
    ...(r.deprecated ? { deprecated: true } : {}),
    source: r.source,
  }));
}

export const FACILITATOR_REGISTRY: FacilitatorRegistry = parseFacilitatorRegistry(registryJson);
export const REGISTRY_VERSION: string = FACILITATOR_REGISTRY.version;
/** When and from where the pinned copy was taken. */
export const REGISTRY_TAKEN_AT: string = FACILITATOR_REGISTRY.taken_at;
export const REGISTRY_TAKEN_FROM: string = FACILITATOR_REGISTRY.taken_from;
export const RELAYERS: readonly Relayer[] = relayersOf(FACILITATOR_REGISTRY);

/** One chain's coverage, as the free API and the site publish it. */
export interface ChainCoverage {
  chain: AnalyticsChain;
  /** True when live indexing reads this chain: it has registered relayers and the live source has a reader for it. */
  indexed: boolean;
  /** Facilitators with relayers on the chain (display names), in registry order. */
  facilitators: string[];
  relayers: number;
  note: string;
}

/** Every analytics chain with whether it is indexed and by which facilitators (registry order of chains). */
export function chainCoverage(registry: FacilitatorRegistry = FACILITATOR_REGISTRY): ChainCoverage[] {
  return ANALYTICS_CHAINS.map((chain) => {
    const relayers = registry.relayers.filter((r) => r.chain === chain);
    const facilitators = [...new Set(relayers.map((r) => r.facilitator))].map((id) => registry.facilitators[id]?.name ?? id);
    const declared = registry.chains[chain];
    const indexed = relayers.length > 0 && (declared?.live_rpc_setting ?? null) !== null;
    const note =
      declared?.note ??
      (relayers.length === 0 ? `Not indexed: no facilitator relayer is registered for ${chain}.` : 'No note in the registry.');
    return { chain, indexed, facilitators, relayers: relayers.length, note };
  });
}

/** The chains live indexing reads. */
export const INDEXED_CHAINS: readonly AnalyticsChain[] = chainCoverage()
  .filter((c) => c.indexed)
  .map((c) => c.chain);

/** What the published coverage means, in one sentence for the API description and the site. */
export const CHAIN_COVERAGE_NOTE =
  'Which chains live indexing reads, from the facilitator registry: an EIP-3009 USDC transfer counts as an x402 payment when a registered ' +
  'facilitator relayer submitted it or when it pays a listed payTo (facilitator "unknown" when the registry does not name the sender), ' +
  'and a chain with no registered facilitator (or no live reader) is not indexed. ' +
  'Demo snapshots are invented data on all four chains.';

/** The coverage as the services list envelope publishes it (`chain_coverage`). */
export const CHAIN_COVERAGE: readonly ChainCoverage[] = chainCoverage();

/**
 * A live run that skipped more than this share of the settlements in its scope (sent by a
 * registered relayer, or paid to a listed payTo) degrades the analytics /health, with the reasons
 * (sources/indexing.ts, proxy/health.ts; docs/x402-indexing.md, "Never silent").
 */
export const SKIP_SHARE_DEGRADED = 0.01;
