/**
 * What a reader of /docs or the korea landing page needs to know about the data behind each
 * endpoint, from the snapshot served: whether the endpoint can answer at all (the same rules
 * the endpoint call applies before it answers 503), whether its data was carried over from an
 * earlier run, and the snapshot's freshness. Nothing here reads a file; it looks at the loaded
 * snapshot only.
 */
import { DATASETS, findDataset } from '../catalog/datasets.ts';
import type { EndpointDecl } from '../catalog/types.ts';
import { absenceReason, type LoadedSnapshot } from '../snapshots/reader.ts';
import { LICENSES } from '../snapshots/manifest.ts';

export type ProductState =
  /** Answers with data from the snapshot served. */
  | { kind: 'available' }
  /** Answers, but the data is older than planned: the last run failed for it or it is past its stale age. */
  | { kind: 'stale'; reason: string }
  /** Answers 503 (not_available): never data it does not have. */
  | { kind: 'unavailable'; reason: string };

/**
 * The state of one endpoint. `handled`: the endpoint ids this build has a data handler for (an
 * endpoint reading a dataset without one answers 503, as endpoint-call.ts does).
 */
export function productState(
  endpoint: EndpointDecl,
  snapshot: LoadedSnapshot | null,
  handled: ReadonlySet<string>,
  now: Date,
): ProductState {
  if (endpoint.dataset === null) return { kind: 'available' };
  if (!snapshot) return { kind: 'unavailable', reason: `No ${endpoint.service} snapshot is published yet.` };
  if (!snapshot.datasets.has(endpoint.dataset))
    return {
      kind: 'unavailable',
      reason: `The "${endpoint.dataset}" dataset is not in the snapshot served: ${absenceReason(snapshot, endpoint.dataset)}.`,
    };
  if (!handled.has(endpoint.id)) return { kind: 'unavailable', reason: 'This endpoint is not served by this build yet.' };
  const entry = snapshot.manifest.datasets.find((d) => d.name === endpoint.dataset);
  if (entry?.carried_over)
    return {
      kind: 'stale',
      reason: `The last run failed to update it (${entry.carried_over.reason}); the data of ${entry.as_of} is served.`,
    };
  const staleAfter = findDataset(endpoint.service, endpoint.dataset)?.staleAfterSeconds;
  if (entry && staleAfter !== undefined && now.getTime() - Date.parse(entry.as_of) > staleAfter * 1000)
    return { kind: 'stale', reason: `The data is of ${minuteUtc(entry.as_of)}, older than its planned update interval.` };
  return { kind: 'available' };
}

/** '2026-11-20T09:00:00.000Z' as people read it in prose: '2026-11-20 09:00 UTC'. */
function minuteUtc(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** The freshness line every page shows: as of, next update, demo or live, license. */
export interface Freshness {
  /** The newest `as_of` of the snapshot's datasets: the time the data describes. */
  asOf: string;
  nextUpdate: string;
  version: string;
  /** 'demo' when any dataset is synthetic (the notice says so), else the sources seen. */
  source: 'demo' | 'live' | 'file' | 'live and file';
  notice: string | null;
  license: { name: string; url: string | null };
}

/**
 * The license a page names: a snapshot of free and paid datasets is proprietary as a whole, but
 * what a reader of the free pages gets is CC0, so that is named, with the paid part said.
 */
function licenseShown(manifest: LoadedSnapshot['manifest']): Freshness['license'] {
  const free = manifest.datasets.some((d) => d.license === 'CC0-1.0');
  if (!free || manifest.license.id === 'CC0-1.0') return { name: manifest.license.name, url: manifest.license.url };
  const cc0 = LICENSES['CC0-1.0'];
  // korea's free reference datasets (symbols, stats) are not CC0: name the datasets that are
  const freeNames = new Set(DATASETS.filter((x) => x.service === manifest.service && x.publicDownload).map((x) => x.name));
  const otherFree = manifest.datasets.some((d) => d.license !== 'CC0-1.0' && freeNames.has(d.name));
  if (otherFree) {
    const names = manifest.datasets.filter((d) => d.license === 'CC0-1.0').map((d) => d.name);
    return { name: `${cc0.name} for ${names.join(', ')}; the rest is proprietary`, url: cc0.url };
  }
  return { name: `${cc0.name} for the free data; paid answers are sold per call`, url: cc0.url };
}

export function freshnessOf(snapshot: LoadedSnapshot | null): Freshness | null {
  if (!snapshot) return null;
  const { manifest } = snapshot;
  const times = manifest.datasets.map((d) => d.as_of);
  const asOf = times.reduce((a, b) => (Date.parse(b) > Date.parse(a) ? b : a), times[0] ?? manifest.generated_at);
  const sources = new Set(manifest.datasets.map((d) => d.source));
  const source = sources.has('demo')
    ? 'demo'
    : sources.has('live') && sources.has('file')
      ? 'live and file'
      : sources.has('file')
        ? 'file'
        : 'live';
  return {
    asOf,
    nextUpdate: manifest.next_expected_update,
    version: snapshot.version,
    source,
    notice: manifest.notice,
    license: licenseShown(manifest),
  };
}
