/**
 * Which facilitator registry a live analytics run uses (docs/x402-indexing.md, "Facilitator
 * registry"). The pinned copy, catalog/facilitators.json, ages: facilitators add relayers every few
 * months and a payment sent by an unlisted relayer is not counted. FACILITATOR_REGISTRY_URL names a
 * newer document of the same format (a mirror kept current, or the project's file on a branch):
 * when it is set, each run reads it through the upstream client and uses it, after the same schema
 * check as the pinned copy. Anything wrong with it (unreachable, not 2xx, not JSON, larger than
 * 5 MiB, schema errors, no relayers, a `taken_at` older than the pinned copy's) leaves the run on the
 * pinned copy with one line saying why; it never fails the run.
 */
import { z } from 'zod';
import {
  FACILITATOR_REGISTRY,
  PINNED_REGISTRY_SOURCE,
  parseFacilitatorRegistry,
  type FacilitatorRegistry,
} from '../../../catalog/facilitators.ts';
import type { Settings } from '../../../lib/config.ts';
import { firstLine, UpstreamError, withUpstream, type UpstreamOptions } from '../http.ts';

export interface RegistryInUse {
  /** The parsed document in use. */
  registry: FacilitatorRegistry;
  origin: 'pinned' | 'url';
  /** registry.version */
  version: string;
  /** The document's taken_at (the pinned copy's when origin is 'pinned'). */
  taken_at: string;
  /** 'catalog/facilitators.json', or the URL without its query string or credentials. */
  source: string;
  /** Why FACILITATOR_REGISTRY_URL was not used (one line); null when it was used, or is not set. */
  problem: string | null;
}

export interface RegistrySourceOptions {
  /** Applied after this module's client defaults (tests inject `sleep` and `minIntervalMs: 0`). */
  upstream?: Partial<UpstreamOptions>;
  /** Default: stderr. */
  log?: (m: string) => void;
  /** The pinned copy (default: catalog/facilitators.json). */
  pinned?: FacilitatorRegistry;
}

/** A registry document larger than this is refused (the pinned copy is about 20 KB). */
export const REGISTRY_MAX_BYTES = 5 * 1024 * 1024;

/** One small document: a short timeout, one request at a time, two retries. */
const CLIENT_DEFAULTS: Partial<UpstreamOptions> = { timeoutMs: 15_000, concurrency: 1, retries: 2 };

/** A reason longer than this is cut (a document with every entry wrong names hundreds of fields). */
const MAX_REASON_CHARS = 500;

/** The URL as messages and the manifest show it: no userinfo, no query string, no fragment. */
export function shownRegistryUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return '<unparseable url>';
  }
  return `${url.protocol}//${url.host}${url.pathname}`;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_REASON_CHARS ? `${flat.slice(0, MAX_REASON_CHARS)}…` : flat;
}

/** The request: the URL without userinfo, which becomes a Basic authorization header (undici ignores it). */
function requestOf(raw: string): { url: string; headers: Record<string, string> } {
  const url = new URL(raw);
  url.hash = '';
  if (!url.username && !url.password) return { url: url.toString(), headers: {} };
  const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  url.username = '';
  url.password = '';
  return { url: url.toString(), headers: { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` } };
}

/** Why the document at `source` cannot be used, or null. */
function unusable(doc: FacilitatorRegistry, pinned: FacilitatorRegistry): string | null {
  if (doc.relayers.length === 0) return 'the document lists no relayers';
  if (doc.taken_at < pinned.taken_at) {
    return `the document's taken_at ${doc.taken_at} is older than the pinned copy's ${pinned.taken_at}`;
  }
  return null;
}

/**
 * The facilitator registry this run uses: FACILITATOR_REGISTRY_URL's document when it is set and
 * usable, else the pinned copy (with `problem` saying why the URL was not used). Never throws.
 */
export async function facilitatorRegistryForRun(settings: Settings, options: RegistrySourceOptions = {}): Promise<RegistryInUse> {
  const pinned = options.pinned ?? FACILITATOR_REGISTRY;
  const log = options.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  const usePinned = (problem: string | null): RegistryInUse => ({
    registry: pinned,
    origin: 'pinned',
    version: pinned.version,
    taken_at: pinned.taken_at,
    source: PINNED_REGISTRY_SOURCE,
    problem,
  });

  const raw = settings.upstreams.FACILITATOR_REGISTRY_URL?.trim();
  if (!raw) return usePinned(null);
  const source = shownRegistryUrl(raw);
  const refuse = (why: string): RegistryInUse => {
    const problem = `FACILITATOR_REGISTRY_URL ${source} not used: ${oneLine(why)}; using the pinned ${PINNED_REGISTRY_SOURCE}`;
    log(`facilitator registry: ${problem}`);
    return usePinned(problem);
  };

  let target: { url: string; headers: Record<string, string> };
  try {
    target = requestOf(raw);
    if (!/^https?:$/.test(new URL(target.url).protocol)) return refuse('not an http:// or https:// URL');
  } catch {
    return refuse('not a valid absolute URL');
  }

  const name = 'facilitator-registry';
  let body: unknown;
  try {
    body = await withUpstream(
      {
        ...CLIENT_DEFAULTS,
        ...options.upstream,
        name,
        baseUrl: target.url,
        headers: { ...options.upstream?.headers, ...target.headers },
        maxBodyBytes: Math.min(REGISTRY_MAX_BYTES, options.upstream?.maxBodyBytes ?? REGISTRY_MAX_BYTES),
      },
      log,
      (up) => up.getJson('', {}, z.unknown()),
    );
  } catch (err) {
    let why = firstLine(err);
    if (err instanceof UpstreamError && err.url) {
      // The client names the URL its own way (it keeps query values that do not look secret): show `source` once.
      why = why.replace(`${name}: GET ${err.url} `, 'GET ').split(err.url).join(source);
    }
    return refuse(why);
  }

  let doc: FacilitatorRegistry;
  try {
    doc = parseFacilitatorRegistry(body, 'document');
  } catch (err) {
    return refuse(firstLine(err));
  }

  const wrong = unusable(doc, pinned);
  if (wrong) return refuse(wrong);
  log(
    `facilitator registry: using ${source} (version ${doc.version}, taken_at ${doc.taken_at}, ${doc.relayers.length} relayers; ` +
      `pinned: version ${pinned.version}, taken_at ${pinned.taken_at}, ${pinned.relayers.length} relayers)`,
  );
  return { registry: doc, origin: 'url', version: doc.version, taken_at: doc.taken_at, source, problem: null };
}
