/**
 * The settings a `--source live` run cannot do without, per service, checked before any work
 * (pipelines/cli.ts): a live analytics run without them would run every step and fail each one on
 * a missing table. Korea's upstreams are keyless and default to their public hosts
 * (korea/clients.ts), so korea needs none; its Naver news search is optional but takes both halves
 * of its key pair.
 */
import type { ServiceName } from '../../catalog/types.ts';
import type { Settings, UpstreamSetting } from '../../lib/config.ts';

export interface MissingLiveSetting {
  setting: string;
  /** What it should hold and which step needs it. */
  purpose: string;
}

/** Upstream URLs a live run needs, with what they are for; nothing else reads them without a default. */
export const LIVE_REQUIRED: Record<ServiceName, Partial<Record<UpstreamSetting, string>>> = {
  korea: {},
  analytics: {
    X402_DISCOVERY_URL: 'the live x402_services step needs a facilitator discovery URL (its root or the /discovery/resources endpoint)',
    BASE_RPC_URL: 'the live x402_transactions and wallet_funding steps need a Base JSON-RPC URL that serves finalized logs',
  },
};

/** Every required setting of `service`'s live run that is unset (empty when the run can start). */
export function missingLiveSettings(settings: Settings, service: ServiceName): MissingLiveSetting[] {
  const missing: MissingLiveSetting[] = Object.entries(LIVE_REQUIRED[service])
    .filter(([setting]) => !settings.upstreams[setting as UpstreamSetting])
    .map(([setting, purpose]) => ({ setting, purpose }));
  if (service === 'korea') {
    const { naverClientId: id, naverClientSecret: secret } = settings.news;
    if ((id === null) !== (secret === null)) {
      missing.push({
        setting: id === null ? 'NAVER_CLIENT_ID' : 'NAVER_CLIENT_SECRET',
        purpose: 'the Naver news search takes the client id and secret together (set both, or neither to skip it)',
      });
    }
  }
  return missing;
}
