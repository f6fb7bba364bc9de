/**
 * What every analytics ingest step is made of. index.ts builds one kit per run and hands it to
 * each step module of `steps/`: the settings (a missing one fails only the step that needs it,
 * naming it), the options (tests pass their own registry, tuning and `sleep`), the facilitator
 * registry and its relayers, the upstream clients with their politeness defaults, and the run
 * whose payment segments share one import batch (segments.ts).
 */
import type { Settings, UpstreamSetting } from '../../../lib/config.ts';
import type { IngestContext, IngestStep } from '../../contract.ts';
import { FACILITATOR_REGISTRY, relayersOf, type FacilitatorRegistry, type Relayer } from '../../../catalog/facilitators.ts';
import { facilitatorRegistryForRun, type RegistryInUse } from './registry-source.ts';
import type { EvmFundingOptions, EvmIndexerOptions } from './evm-indexer.ts';
import type { UpstreamOptions } from '../http.ts';

import { LIVE_REQUIRED } from '../required-settings.ts';
import { viewsOverCommitted, type LiveRun, type LiveTable } from './segments.ts';
import type { ProberOptions } from './prober.ts';
import type { SolanaIndexerOptions } from './solana-indexer.ts';
import type { DiscoveryOptions } from './x402-discovery.ts';

type ClientTuning = Partial<Omit<UpstreamOptions, 'name' | 'baseUrl'>>;

export interface LiveIngestOptions {
  /** The facilitator registry (default: catalog/facilitators.json); tests pass their own. */
  registry?: FacilitatorRegistry;
  discovery?: Partial<DiscoveryOptions>;
  evm?: Partial<EvmIndexerOptions>;
  funding?: Partial<EvmFundingOptions>;
  solana?: Partial<SolanaIndexerOptions>;
  /** The prober's tuning (tests and loopback benches allow loopback and shorten timeouts). */
  probe?: Partial<Omit<ProberOptions, 'onResult'>>;
  /** A sender the registry does not name is a registry candidate once it settled more than this many payments to listed payTos (default 10). */
  candidateMinSettlements?: number;
  /** Applied to every upstream client after its own defaults (tests inject `sleep`). */
  upstream?: ClientTuning;
}

/** A setting the step needs is not set: the message names it and says what it should hold. */
export class MissingSettingError extends Error {
  constructor(
    readonly setting: UpstreamSetting,
    purpose: string,
  ) {
    super(`${setting} is not set: ${purpose}`);
    this.name = 'MissingSettingError';
  }
}

export const PURPOSE: Partial<Record<UpstreamSetting, string>> = LIVE_REQUIRED.analytics;

function requiredSetting(settings: Settings, setting: UpstreamSetting): string {
  const url = settings.upstreams[setting];
  if (!url) throw new MissingSettingError(setting, PURPOSE[setting] ?? 'this live step needs it');
  return url;
}

// Per-upstream politeness: discovery servers 429 quickly (x402scan backs off on them); public
// RPCs allow a few requests per second per IP.
const CLIENT_DEFAULTS: Record<'discovery' | 'base' | 'solana', ClientTuning> = {
  discovery: { timeoutMs: 30_000, concurrency: 1, minIntervalMs: 250 },
  base: { timeoutMs: 30_000, concurrency: 4, minIntervalMs: 50 },
  solana: { timeoutMs: 30_000, concurrency: 4, minIntervalMs: 100 },
};

/** A segment that could not be written fails the step; the views still read the segments committed before. */
export async function appendOrKeep(
  ctx: IngestContext,
  append: () => Promise<{ rows: number }>,
  table: LiveTable,
): Promise<{ rows: number }> {
  try {
    return await append();
  } catch (err) {
    await viewsOverCommitted(ctx, table).catch(() => 0);
    throw err;
  }
}

/** The facilitator registry a run uses, with its relayers. */
export interface RunRegistry extends RegistryInUse {
  relayers: Relayer[];
}

export interface AnalyticsIngestKit {
  settings: Settings;
  options: LiveIngestOptions;
  /**
   * The registry this run uses: FACILITATOR_REGISTRY_URL's when it is set and sound, else the
   * pinned copy (options.registry in tests); read once per run, named in the manifest's `indexing.registry`.
   */
  registry(ctx: IngestContext): Promise<RunRegistry>;
  /** The run: the steps' segments share its import batch. */
  run: LiveRun;
  /** An upstream client's options: its kind's politeness defaults, the run's overrides, its name and base URL. */
  client(kind: keyof typeof CLIENT_DEFAULTS, name: string, baseUrl: string): UpstreamOptions;
  /** A setting the step needs; MissingSettingError, naming it, when it is not set. */
  required(setting: UpstreamSetting): string;
}

/** A step module: makes its step from the run's kit. */
export type AnalyticsIngestStep = (kit: AnalyticsIngestKit) => IngestStep;

export function analyticsIngestKit(settings: Settings, options: LiveIngestOptions = {}): AnalyticsIngestKit {
  const pinned = options.registry ?? FACILITATOR_REGISTRY;
  let once: Promise<RunRegistry> | null = null;
  return {
    settings,
    options,
    registry(ctx) {
      once ??= facilitatorRegistryForRun(settings, {
        pinned,
        log: ctx.log,
        ...(options.upstream ? { upstream: options.upstream } : {}),
      }).then((inUse) => ({ ...inUse, relayers: relayersOf(inUse.registry) }));
      return once.then((r) => {
        if (ctx.indexing) {
          const { registry: _doc, relayers: _relayers, ...used } = r;
          ctx.indexing.registry = used;
        }
        return r;
      });
    },
    run: {},
    client: (kind, name, baseUrl) => ({ ...CLIENT_DEFAULTS[kind], ...options.upstream, name, baseUrl }),
    required: (setting) => requiredSetting(settings, setting),
  };
}
