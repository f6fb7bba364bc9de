/**
 * When each pipeline runs: the one declared table behind `npm run schedule` (pipelines/schedule.ts)
 * and the crons of .github/workflows/pipelines.yml (pipelines/schedule.test.ts checks that the
 * workflow's crons are exactly these).
 *
 * The korea datasets are split into groups that refresh at different speeds; each group is one
 * `npm run pipeline -- korea --datasets ...` run, which recomputes its datasets and keeps the live
 * version of the others. Within a group, datasets with a cadence (the AI products, catalog and
 * runner.ts) still recompute only when due. Runs of one service share its warehouse and its
 * snapshot lineage, so they queue behind each other (a "lane" per service); the two services run
 * side by side.
 */
import { Cron } from 'croner';
import type { ServiceName } from '../catalog/types.ts';

export interface ScheduleEntry {
  /** Names the entry in logs and in the saved schedule state. */
  name: string;
  service: ServiceName;
  /** Five fields (minute hour day month weekday), or six with seconds first; UTC. */
  cron: string;
  /** The datasets this run computes; 'all' = every dataset of the service. */
  datasets: readonly string[] | 'all';
}

/** Prices, premiums, FX and what is derived from them, plus the small reference datasets and stats (which reports on the run). */
const KOREA_MARKET = [
  'kr-prices',
  'fx-rate',
  'kimchi-premium',
  'kimchi-premium-1m',
  'kimchi-premium-1h',
  'kimchi-premium-1d',
  'kimchi-premium-daily',
  'stablecoin-premium',
  'order-books',
  'arbitrage-executable',
  'arbitrage-scanner',
  'exchange-alerts',
  'market-movers',
  'symbols',
  'stats',
] as const;
/** The news products and the AI reads (sentiment keeps its hourly cadence inside this group). */
const KOREA_NEWS = ['kr-news-kpop', 'kr-news-semiconductor', 'kr-sentiment', 'market-read', 'divergence'] as const;
/** The KRW macro stress score, computed from daily series (FRED, KRX). */
const KOREA_MACRO = ['krw-macro-stress'] as const;

export type ScheduleTableName = 'production' | 'demo';

export const SCHEDULE_TABLES: Record<ScheduleTableName, readonly ScheduleEntry[]> = {
  // Market data every 5 minutes, news every 15, analytics hourly and its probes every 10 minutes,
  // macro daily (after the Korean market's 15:30 KST close, so the day's KRX data is in).
  production: [
    { name: 'korea-market', service: 'korea', cron: '*/5 * * * *', datasets: KOREA_MARKET },
    { name: 'korea-news', service: 'korea', cron: '*/15 * * * *', datasets: KOREA_NEWS },
    { name: 'korea-macro', service: 'korea', cron: '30 7 * * *', datasets: KOREA_MACRO },
    { name: 'analytics', service: 'analytics', cron: '0 * * * *', datasets: 'all' },
    // unpaid probes of every listed service and the grades they feed, between the hourly runs
    // (the ingest and prepare steps only payments feed are skipped: catalog/datasets.ts, ANALYTICS_PAYMENT_DATASETS)
    { name: 'analytics-probes', service: 'analytics', cron: '*/10 * * * *', datasets: ['service-health'] },
  ],
  // `npm start`'s demo refresh (the demo world's probes come with each analytics run): the same groups, faster, so a visitor sees the data move.
  demo: [
    { name: 'korea-market', service: 'korea', cron: '* * * * *', datasets: KOREA_MARKET },
    { name: 'korea-news', service: 'korea', cron: '*/5 * * * *', datasets: KOREA_NEWS },
    { name: 'korea-macro', service: 'korea', cron: '0 * * * *', datasets: KOREA_MACRO },
    { name: 'analytics', service: 'analytics', cron: '*/15 * * * *', datasets: 'all' },
  ],
};

/** The pipeline arguments of one entry's run (what `npm run pipeline --` would be given, before the source flags). */
export function entryArgs(entry: ScheduleEntry): string[] {
  return entry.datasets === 'all' ? [entry.service] : [entry.service, '--datasets', entry.datasets.join(',')];
}

/**
 * The table a run's data is refreshed on: demo data by `npm start`'s demo table, live and imported
 * data by the production one. The manifest's next_expected_update is read from it.
 */
export function scheduleTableFor(sourceKind: string): ScheduleTableName {
  return sourceKind === 'demo' ? 'demo' : 'production';
}

/** The first slot after `after` at which any entry of `service` runs in `table` (a new snapshot of it then); null when none does. */
export function nextScheduledRun(table: ScheduleTableName, service: ServiceName, after: Date): Date | null {
  let next: Date | null = null;
  for (const entry of SCHEDULE_TABLES[table]) {
    if (entry.service !== service) continue;
    const slot = new Cron(entry.cron, { timezone: 'UTC', paused: true }).nextRun(after);
    if (slot && (next === null || slot < next)) next = slot;
  }
  return next;
}
