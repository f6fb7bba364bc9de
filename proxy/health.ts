/**
 * /health: which snapshot version is served, how old each dataset is and whether it is stale, and
 * the payment and AI modes, so an operator (or an agent) can tell at a glance what it is getting.
 */
import { findDataset } from '../catalog/datasets.ts';
import type { ServiceName } from '../catalog/types.ts';
import type { Settings } from '../lib/config.ts';
import type { SnapshotReader } from '../snapshots/reader.ts';

export interface DatasetHealth {
  name: string;
  as_of: string;
  age_seconds: number;
  stale_after_seconds: number;
  stale: boolean;
  source: string;
  produced_in: string;
  carried_over_reason: string | null;
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
  settlement: { mode: Settings['settlement']; note: string };
  ai: { mode: Settings['aiMode']; note: string };
  problems: string[];
}

const SETTLEMENT_NOTE = {
  local: 'Payments are verified in-process (signature, amount, payTo, time window, single use) but no funds move: demo mode.',
  facilitator: 'Payments are verified and settled on chain through the configured facilitator.',
} as const;

const AI_NOTE = {
  rules: 'AI fields come from the offline rules analyst (no ANTHROPIC_API_KEY set); they are labelled as such.',
  claude: 'AI fields are written by Claude through the Anthropic API.',
} as const;

export function healthDocument(
  service: ServiceName,
  reader: SnapshotReader,
  settings: Settings,
  now: Date = new Date(),
): HealthDocument {
  const snap = reader.current();
  const problems: string[] = [];
  if (reader.lastError) problems.push(reader.lastError.message);
  const datasets: DatasetHealth[] = (snap?.manifest.datasets ?? []).map((d) => {
    const decl = findDataset(service, d.name);
    const staleAfter = decl?.staleAfterSeconds ?? 3600;
    const age = Math.max(0, Math.round((now.getTime() - Date.parse(d.as_of)) / 1000));
    const stale = age > staleAfter || d.carried_over !== undefined;
    if (d.carried_over) problems.push(`${d.name}: last run failed (${d.carried_over.reason}); serving ${d.produced_in}`);
    else if (stale) problems.push(`${d.name}: data is ${age}s old, stale after ${staleAfter}s`);
    return {
      name: d.name,
      as_of: d.as_of,
      age_seconds: age,
      stale_after_seconds: staleAfter,
      stale,
      source: d.source,
      produced_in: d.produced_in,
      carried_over_reason: d.carried_over?.reason ?? null,
    };
  });
  if (!snap) problems.push(`no published ${service} snapshot yet: run "npm run pipeline -- ${service}"`);
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
    settlement: { mode: settings.settlement, note: SETTLEMENT_NOTE[settings.settlement] },
    ai: { mode: settings.aiMode, note: AI_NOTE[settings.aiMode] },
    problems,
  };
}
