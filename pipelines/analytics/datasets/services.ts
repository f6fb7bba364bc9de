/**
 * services (free table): one row per indexed service, ordered by id. The first 15 columns are
 * the services list item of docs/services.md, "Services list", in its order; the rest is what the list filters and sorts
 * on (is_placeholder, active, price_bucket, name_sort, search_text) and service facts the other
 * endpoints show (volume_total, unique_buyers_30d, last_tx_at, ...).
 * label_distribution is a JSON object (label → fraction of 30-day volume).
 */
import type { DatasetStep } from '../../runner.ts';
import { columnsOf, SERVICE_LIST_ITEM_COLUMNS } from '../../../catalog/analytics.ts';
import { tableStep } from './sql.ts';

/** The services table: its columns as the catalog declares them (ANALYTICS_DATASET_SHAPES.services), list item first. */
export const servicesStep: DatasetStep = tableStep(
  'services',
  () => `SELECT ${columnsOf('services').join(', ')} FROM service_facts ORDER BY id`,
);

/** A service_facts row as the list item STRUCT of docs/services.md (plus `extra` name := expr fields), for to_json. */
export function serviceListItemSql(alias: string, extra: readonly string[] = []): string {
  return `struct_pack(${[...SERVICE_LIST_ITEM_COLUMNS.map((c) => `${c} := ${alias}.${c}`), ...extra].join(', ')})`;
}
