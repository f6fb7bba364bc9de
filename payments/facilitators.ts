/**
 * The facilitator of each network, built from the settings (lib/config.ts `facilitators`):
 * FACILITATOR_URL for every network, FACILITATOR_URL_<NETWORK> before it, each with its own
 * credentials (docs/x402-protocol.md, "Facilitator API"):
 * - cdp: a CDP JWT per (method, path), signed by @coinbase/cdp-sdk's `generateJwt` with
 *   CDP_API_KEY_ID / CDP_API_KEY_SECRET. Its `uris` claim names "METHOD host/path" of the call, so
 *   a token is good for that one endpoint for 120 s; it is reused until 30 s before it expires.
 *   Signing costs 0.3 ms (Ed25519) to 1.5 ms (ES256) of CPU a token, measured on 2026-12-08, up to
 *   as much as a whole paid request otherwise, and a paid call makes two (/verify, /settle); a
 *   reused token costs about 2 µs.
 * - header: one fixed header line (a bearer token, an API key) on every call.
 */
import { generateJwt } from '@coinbase/cdp-sdk/auth';
import type { FacilitatorAuth, FacilitatorNetwork, FacilitatorSettings, Settings } from '../lib/config.ts';
import { FacilitatorClient, type FacilitatorCredentials, type FacilitatorPath } from './facilitator.ts';

/** Lifetime of a CDP JWT (the library's default; CDP refuses it after that). */
const CDP_JWT_SECONDS = 120;
/** A cached JWT is signed anew this long before it expires, so it never arrives expired. */
const CDP_JWT_MARGIN_SECONDS = 30;

/** The facilitators of a process: one per network (per-network ones first, then the default). */
export class FacilitatorRoutes {
  readonly #fallback: FacilitatorClient | null;
  readonly #byNetwork: ReadonlyMap<string, FacilitatorClient>;

  constructor(fallback: FacilitatorClient | null, byNetwork: ReadonlyMap<string, FacilitatorClient> = new Map()) {
    this.#fallback = fallback;
    this.#byNetwork = byNetwork;
  }

  /** The facilitator that verifies and settles payments on `network` (v1 name: 'base'), or null. */
  for(network: string): FacilitatorClient | null {
    return this.#byNetwork.get(network) ?? this.#fallback;
  }

  /** Every facilitator once (two networks on one facilitator share its client). */
  all(): FacilitatorClient[] {
    return [...new Set([...this.#byNetwork.values(), ...(this.#fallback ? [this.#fallback] : [])])];
  }
}

/** A plain client serves every network; routes are taken as they are. */
export function asRoutes(facilitator: FacilitatorClient | FacilitatorRoutes | null): FacilitatorRoutes | null {
  if (facilitator === null || facilitator instanceof FacilitatorRoutes) return facilitator;
  return new FacilitatorRoutes(facilitator);
}

/** The routes of SETTLEMENT=facilitator (null with SETTLEMENT=local); one client per distinct facilitator and credentials. */
export function facilitatorRoutes(
  settings: Pick<Settings, 'settlement' | 'facilitators' | 'facilitatorTimeoutMs'>,
  options: { fetch?: typeof fetch; now?: () => number } = {},
): FacilitatorRoutes | null {
  if (settings.settlement !== 'facilitator') return null;
  const clients = new Map<FacilitatorSettings, FacilitatorClient>();
  const clientOf = (f: FacilitatorSettings, authSetting: string): FacilitatorClient => {
    // the same facilitator with the same credentials (the default, or a repeated override) shares one client
    const same = [...clients.keys()].find((k) => k.url === f.url && sameAuth(k.auth, f.auth));
    if (same) return clients.get(same)!;
    const client = new FacilitatorClient({
      url: f.url,
      timeoutMs: settings.facilitatorTimeoutMs,
      authSetting,
      ...(f.auth.kind === 'none' ? {} : { auth: credentialsFor(f, options.now) }),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    clients.set(f, client);
    return client;
  };
  const { fallback, byNetwork } = settings.facilitators;
  const fallbackClient = fallback ? clientOf(fallback, 'FACILITATOR_AUTH') : null;
  const routes = new Map<string, FacilitatorClient>();
  for (const [network, f] of Object.entries(byNetwork) as [FacilitatorNetwork, FacilitatorSettings][]) {
    routes.set(network, clientOf(f, `FACILITATOR_AUTH_${network.toUpperCase()}`));
  }
  return new FacilitatorRoutes(fallbackClient, routes);
}

function sameAuth(a: FacilitatorAuth, b: FacilitatorAuth): boolean {
  if (a.kind === 'cdp' && b.kind === 'cdp') return a.apiKeyId === b.apiKeyId && a.apiKeySecret.reveal() === b.apiKeySecret.reveal();
  if (a.kind === 'header' && b.kind === 'header')
    return a.name.toLowerCase() === b.name.toLowerCase() && a.value.reveal() === b.value.reveal();
  return a.kind === 'none' && b.kind === 'none';
}

function credentialsFor(f: FacilitatorSettings, now?: () => number): FacilitatorCredentials {
  const auth = f.auth;
  if (auth.kind === 'header') {
    const headers = { [auth.name]: auth.value.reveal() };
    return { settings: f.credentials, headers: async () => ({ headers, reused: false }) };
  }
  if (auth.kind === 'cdp') return cdpJwtCredentials(f.url, auth, f.credentials, now);
  throw new Error('facilitators: no credentials to make for auth "none"');
}

/**
 * CDP JWTs for the facilitator at `baseUrl`, one per endpoint, signed by @coinbase/cdp-sdk (the
 * host and path of the call go into its `uris` claim, as the SDK's own facilitator client does)
 * and reused until CDP_JWT_MARGIN_SECONDS before they expire. `now`: milliseconds (tests).
 */
export function cdpJwtCredentials(
  baseUrl: string,
  key: { apiKeyId: string; apiKeySecret: { reveal(): string } },
  settings: string,
  now: () => number = Date.now,
): FacilitatorCredentials {
  const url = new URL(baseUrl.replace(/\/+$/, ''));
  const basePath = url.pathname.replace(/\/+$/, '');
  const tokens = new Map<FacilitatorPath, { header: Promise<string>; renewAt: number }>();
  let reuse = true;
  const sign = async (path: FacilitatorPath): Promise<string> => {
    const jwt = await generateJwt({
      apiKeyId: key.apiKeyId,
      apiKeySecret: key.apiKeySecret.reveal(),
      requestMethod: path === '/supported' ? 'GET' : 'POST',
      requestHost: url.host,
      requestPath: `${basePath}${path}`,
      expiresIn: CDP_JWT_SECONDS,
    });
    return `Bearer ${jwt}`;
  };
  return {
    settings,
    async headers(path) {
      const t = now();
      const cached = reuse ? tokens.get(path) : undefined;
      if (cached && t < cached.renewAt) return { headers: { Authorization: await cached.header }, reused: true };
      const header = sign(path);
      if (reuse) {
        tokens.set(path, { header, renewAt: t + (CDP_JWT_SECONDS - CDP_JWT_MARGIN_SECONDS) * 1000 });
        // a failed signature is not kept
        header.catch(() => {
          if (tokens.get(path)?.header === header) tokens.delete(path);
        });
      }
      return { headers: { Authorization: await header }, reused: false };
    },
    stopReuse() {
      reuse = false;
      tokens.clear();
    },
  };
}
