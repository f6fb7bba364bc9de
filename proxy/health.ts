/**
 * /health: which snapshot version is served, how old each dataset is and whether it is stale, and
 * the payment and AI modes, so an operator (or an agent) can tell at a glance what it is getting.
 */
import { endpointsOf } from '../catalog/index.ts';
import { datasetsOf, findDataset } from '../catalog/datasets.ts';
import type { ServiceName } from '../catalog/types.ts';
import type { Settings } from '../lib/config.ts';
import { SKIP_SHARE_DEGRADED } from '../catalog/facilitators.ts';
import type { AiUsage, IndexingReport } from '../snapshots/manifest.ts';
import type { SnapshotSourceStatus } from '../snapshots/pull.ts';
import { absenceReason, type LoadedSnapshot, type SnapshotReader } from '../snapshots/reader.ts';

export interface DatasetHealth {
  name: string;
  as_of: string;
  age_seconds: number;
  stale_after_seconds: number;
  stale: boolean;
  source: string;
  produced_in: string;
  carried_over_reason: string | null;
  /** Who wrote its AI fields (datasets that have some). */
  ai: { analyst: 'claude' | 'rules'; models: string[] } | null;
}

/**
 * A dataset that is not fresh, in one list with its reason: older than it may get (stale), kept
 * from an earlier version because the last run could not compute it (carried_over), or missing
 * from the snapshot (unavailable).
 */
export interface DegradedDataset {
  dataset: string;
  state: 'stale' | 'carried_over' | 'unavailable' | 'damaged';
  reason: string;
  /** The time the data served describes, and its age; null when none is served. */
  as_of: string | null;
  age_seconds: number | null;
  /** How old it may get (catalog/datasets.ts). */
  stale_after_seconds: number | null;
}

export interface UnavailableDataset {
  name: string;
  /** Endpoints that answer 503 while the dataset is missing. */
  endpoints: string[];
  reason: string;
}

export interface HealthDocument {
  service: ServiceName;
  status: 'ok' | 'degraded' | 'no_data';
  time: string;
  snapshot: {
    version: string;
    generated_at: string;
    next_expected_update: string;
    code_version: string;
    notice: string | null;
    fallback_reason: string | null;
  } | null;
  datasets: DatasetHealth[];
  /** Every dataset that is not fresh, with why: `status` is `ok` only when this list (and `problems`) is empty. */
  degraded: DegradedDataset[];
  unavailable: UnavailableDataset[];
  settlement: { mode: Settings['settlement']; note: string };
  /** Where single use and the free-tier count are kept, and whether that store answers (absent when the app was built without stores). */
  stores?: StoreHealth;
  /**
   * The published snapshot source this process follows (SNAPSHOTS_PULL_URL): the last check, the
   * version it named and why the last pull changed nothing, if so; absent when snapshots are
   * published on this machine.
   */
  snapshot_source?: SnapshotSourceStatus;
  ai: { mode: Settings['aiMode']; note: string; models: { fast: string; deep: string } | null; last_run: AiRunHealth | null };
  /**
   * What the live run behind the snapshot indexed and skipped, by reason, the facilitator registry
   * it used and the registry candidates (snapshots/manifest.ts, IndexingReport); absent for demo
   * and file snapshots. More than 1 % of the settlements in scope skipped degrades the status.
   */
  indexing?: IndexingReport;
  problems: string[];
}

/** What /health says about the stores (proxy/stores.ts): their kind, whether they answer and why not; no paths, no URLs. */
export interface StoreHealth {
  nonce_store: 'lmdb' | 'redis' | 'memory';
  rate_limit_store: 'redis' | 'memory';
  reachable: boolean;
  /** Why the nonce store cannot be used right now (a full or read-only disk, Redis down or without persistence); null when reachable. */
  reason: string | null;
}

/** What the analyst did in the run that published the snapshot served. */
export interface AiRunHealth {
  calls: number;
  cache_hits: number;
  failures: number;
  usd: number;
  spent_today_usd: number;
  daily_budget_usd: number | null;
  budget_reached: boolean;
}

const SETTLEMENT_NOTE = {
  local: 'Payments are verified in-process (signature, amount, payTo, time window, single use) but no funds move: demo mode.',
  facilitator: 'Payments are verified and settled on chain through the configured facilitator.',
} as const;

const AI_NOTE = {
  rules:
    'AI fields come from the offline rules analyst (the pipeline ran without ANTHROPIC_API_KEY); every response says so (analyst: rules).',
  claude: 'AI fields are written by Claude through the Anthropic API; every response names the model.',
} as const;

/**
 * Who wrote the AI fields of the snapshot served: its run's analyst, or, when that run kept every
 * AI product (none was due) and used none, the datasets' own record; before any snapshot, what
 * this machine's settings would use.
 */
export function aiModeOf(snap: LoadedSnapshot | null, settings: Settings): Settings['aiMode'] {
  return snap?.manifest.ai?.analyst ?? snap?.manifest.datasets.find((d) => d.ai)?.ai?.analyst ?? settings.aiMode;
}

/** Paid and free endpoints that read a dataset, by path. */
function endpointsReading(service: ServiceName, dataset: string): string[] {
  return endpointsOf(service)
    .filter((e) => e.dataset === dataset)
    .map((e) => e.path);
}

/** Problems inside documents that are served: news without English, products the budget stopped. */
function contentProblems(snap: LoadedSnapshot): string[] {
  const problems: string[] = [];
  for (const name of ['kr-news-kpop', 'kr-news-semiconductor']) {
    const doc = snap.datasets.get(name)?.document as { articles?: Array<{ translation?: string }> } | undefined;
    const untranslated = doc?.articles?.filter((a) => a.translation === 'unavailable').length ?? 0;
    if (untranslated > 0) {
      problems.push(
        `${name}: ${untranslated} of ${doc!.articles!.length} articles have no English (the pipeline runs without ANTHROPIC_API_KEY): Korean titles only, English fields null`,
      );
    }
  }
  const ai: AiUsage | undefined = snap.manifest.ai;
  if (ai?.budget_reached) {
    problems.push(
      `the daily model budget of $${ai.daily_budget_usd} was reached ($${ai.spent_today_usd} spent that day): model calls stopped, products keep their last good version`,
    );
  }
  return problems;
}

/** What the indexing of the run behind the snapshot says is wrong: too many settlements skipped, a registry URL not used. */
export function indexingProblems(indexing: IndexingReport | undefined): string[] {
  if (!indexing) return [];
  const problems: string[] = [];
  if (indexing.skip_share > SKIP_SHARE_DEGRADED) {
    const reasons = Object.entries(indexing.skipped)
      .filter(([reason, n]) => reason.startsWith('settlement.') && n > 0)
      .sort(([, a], [, b]) => b - a)
      .map(([reason, n]) => `${n} ${reason.slice('settlement.'.length)}`)
      .join(', ');
    problems.push(
      `indexing: the last run skipped ${indexing.skipped_settlements} of ${indexing.settlements + indexing.skipped_settlements} settlements in scope ` +
        `(${(indexing.skip_share * 100).toFixed(1)} %, more than ${SKIP_SHARE_DEGRADED * 100} %): ${reasons}`,
    );
  }
  if (indexing.registry?.problem) problems.push(`facilitator registry: ${indexing.registry.problem}`);
  return problems;
}

/** An age in words: 45 s, 12 min, 3 h 5 min, 2 d 4 h. */
export function ageText(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 120) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${days} d ${hours % 24} h` : `${days} d`;
}

/** How fresh the datasets of the snapshot served are, each not fresh one with why (what /health and the site's stale banner say). */
export interface DatasetFreshness {
  datasets: DatasetHealth[];
  degraded: DegradedDataset[];
  unavailable: UnavailableDataset[];
  /** The same in words, one line per dataset. */
  problems: string[];
}

export function datasetFreshness(service: ServiceName, snap: LoadedSnapshot | null, now: Date): DatasetFreshness {
  const problems: string[] = [];
  const degraded: DegradedDataset[] = [];
  const datasets: DatasetHealth[] = (snap?.manifest.datasets ?? []).map((d) => {
    const decl = findDataset(service, d.name);
    const staleAfter = decl?.staleAfterSeconds ?? 3600;
    const age = Math.max(0, Math.round((now.getTime() - Date.parse(d.as_of)) / 1000));
    const stale = age > staleAfter || d.carried_over !== undefined;
    const timing = { as_of: d.as_of, age_seconds: age, stale_after_seconds: staleAfter };
    if (d.carried_over) {
      problems.push(`${d.name}: last run failed (${d.carried_over.reason}); serving ${d.produced_in}`);
      degraded.push({ dataset: d.name, state: 'carried_over', reason: d.carried_over.reason, ...timing });
    } else if (stale) {
      problems.push(`${d.name}: data is ${age}s old, stale after ${staleAfter}s`);
      degraded.push({
        dataset: d.name,
        state: 'stale',
        reason: `no run has updated it for ${ageText(age)}; it is stale after ${ageText(staleAfter)}`,
        ...timing,
      });
    }
    return {
      name: d.name,
      as_of: d.as_of,
      age_seconds: age,
      stale_after_seconds: staleAfter,
      stale,
      source: d.source,
      produced_in: d.produced_in,
      carried_over_reason: d.carried_over?.reason ?? null,
      ai: d.ai ? { analyst: d.ai.analyst, models: d.ai.models } : null,
    };
  });
  const unavailable: UnavailableDataset[] = [];
  if (snap) {
    for (const decl of datasetsOf(service)) {
      if (snap.datasets.has(decl.name)) continue;
      const endpoints = endpointsReading(service, decl.name);
      if (endpoints.length === 0) continue;
      const reason = `not in the snapshot: ${absenceReason(snap, decl.name)}`;
      unavailable.push({ name: decl.name, endpoints, reason });
      degraded.push({
        dataset: decl.name,
        state: 'unavailable',
        reason: `${reason}; ${endpoints.join(', ')} answer 503`,
        as_of: null,
        age_seconds: null,
        stale_after_seconds: decl.staleAfterSeconds,
      });
      problems.push(`${decl.name}: ${reason}; ${endpoints.join(', ')} answer 503`);
    }
  }
  return { datasets, degraded, unavailable, problems };
}

export function healthDocument(
  service: ServiceName,
  reader: SnapshotReader,
  settings: Settings,
  now: Date = new Date(),
  stores?: StoreHealth,
  source?: SnapshotSourceStatus,
): HealthDocument {
  const snap = reader.current();
  const problems: string[] = [];
  if (reader.lastError) problems.push(reader.lastError.message);
  if (source?.problem) problems.push(`snapshot source: ${source.problem}`);
  if (stores && !stores.reachable)
    problems.push(
      `the ${stores.nonce_store} nonce store is unavailable (${stores.reason ?? 'it does not answer'}): paid endpoints answer 503 until it is back; free endpoints keep answering`,
    );
  const freshness = datasetFreshness(service, snap, now);
  problems.push(...freshness.problems);
  const { datasets, degraded, unavailable } = freshness;
  // without a snapshot but with a reader error (every kept version damaged...), that error is the reason
  if (!snap && !reader.lastError && !source?.problem) {
    problems.push(
      source
        ? `no ${service} snapshot pulled from the snapshot source yet${source.last_checked_at ? '' : ' (the first pull is under way)'}`
        : `no published ${service} snapshot yet: run "npm run pipeline -- ${service}"`,
    );
  }
  if (snap) {
    problems.push(...contentProblems(snap));
    problems.push(...indexingProblems(snap.manifest.indexing));
  }
  const aiUsage = snap?.manifest.ai;
  const aiMode = aiModeOf(snap, settings);
  return {
    service,
    status: !snap ? 'no_data' : problems.length ? 'degraded' : 'ok',
    time: now.toISOString(),
    snapshot: snap
      ? {
          version: snap.version,
          generated_at: snap.manifest.generated_at,
          next_expected_update: snap.manifest.next_expected_update,
          code_version: snap.manifest.code_version,
          notice: snap.manifest.notice,
          fallback_reason: snap.fallbackReason,
        }
      : null,
    datasets,
    degraded,
    unavailable,
    settlement: { mode: settings.settlement, note: SETTLEMENT_NOTE[settings.settlement] },
    ...(stores ? { stores } : {}),
    ...(source ? { snapshot_source: source } : {}),
    ai: {
      mode: aiMode,
      note: AI_NOTE[aiMode],
      models: aiUsage?.models ?? null,
      last_run: aiUsage
        ? {
            calls: aiUsage.calls,
            cache_hits: aiUsage.cache_hits,
            failures: aiUsage.failures,
            usd: aiUsage.usd,
            spent_today_usd: aiUsage.spent_today_usd,
            daily_budget_usd: aiUsage.daily_budget_usd,
            budget_reached: aiUsage.budget_reached,
          }
        : null,
    },
    ...(snap?.manifest.indexing ? { indexing: snap.manifest.indexing } : {}),
    problems,
  };
}
