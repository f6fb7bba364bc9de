/**
 * The services index of a snapshot version: the whole `services` table in memory (30,000 rows
 * load in a few hundred milliseconds), by id and by seller, and in the order of each sort key
 * once asked for. The services list filters and pages over it; the other handlers and the wash
 * check look ids and sellers up in it.
 */
import type { z } from 'zod';
import {
  type ANALYTICS_RESPONSES,
  type ColumnOf,
  type PriceBucket,
  SERVICE_LIST_ITEM_COLUMNS,
  type ServiceSortKey,
} from '../../catalog/analytics.ts';
import type { LoadedDataset, LoadedSnapshot } from '../../snapshots/reader.ts';
import { dataset, parseJson, stampOf } from './dataset.ts';
import { queryRows } from './duck.ts';
import { perVersion } from './version-cache.ts';

export type Order = 'asc' | 'desc';

/** A services list item: the catalog's list item schema. */
export type ServiceListItem = z.infer<typeof ANALYTICS_RESPONSES.ServiceListItem>;

/** A service as the list filters and sorts it; `item` is what it returns. */
export interface ServiceRecord {
  item: ServiceListItem;
  isPlaceholder: boolean;
  active: boolean;
  /** Answered an unpaid probe in the last 24 hours (the live_only filter). */
  probeLive: boolean;
  priceBucket: PriceBucket;
  nameSort: string;
  searchText: string;
  firstSeenMs: number;
  volume30d: number;
}

export interface ServicesIndex {
  stamp: { source: string; as_of: string };
  /** By id ascending. */
  records: ServiceRecord[];
  byId: Map<number, ServiceRecord>;
  /** Services of a seller address (lower-case on EVM), every chain. */
  bySeller: Map<string, ServiceRecord[]>;
  /** Records in the order of a sort key and direction, built on first use. */
  sorted: Map<string, ServiceRecord[]>;
}

/** A row of the services table as the pipeline writes it (pipelines/analytics/datasets/services.ts). */
interface ServiceRow extends Omit<ServiceListItem, 'resource_url' | 'name' | 'description' | 'label_distribution'> {
  resource_url: string | null;
  name: string | null;
  description: string | null;
  label_distribution: ServiceListItem['label_distribution'] | null;
  is_placeholder: boolean;
  active: boolean;
  probe_live: boolean | null;
  price_bucket: PriceBucket;
  name_sort: string | null;
  search_text: string | null;
  volume_30d: number | null;
}

/** What the index reads: the list item (catalog: SERVICE_LIST_ITEM_COLUMNS) and the columns the list filters and sorts on. */
const SERVICE_COLUMNS: readonly ColumnOf<'services'>[] = [
  ...SERVICE_LIST_ITEM_COLUMNS,
  'is_placeholder',
  'active',
  'probe_live',
  'price_bucket',
  'name_sort',
  'search_text',
  'volume_30d',
];

async function loadServices(data: LoadedDataset): Promise<ServicesIndex> {
  // one JSON text for the whole table: parsing it is several times faster than reading
  // 30,000 rows value by value, and label_distribution arrives as an object
  const [row] = await queryRows(
    `SELECT coalesce(to_json(list(struct_pack(${SERVICE_COLUMNS.map((c) => `${c} := ${c}`).join(', ')}) ORDER BY id)), '[]')::VARCHAR AS rows
       FROM read_parquet($path)`,
    { path: data.path },
  );
  const rows = parseJson<ServiceRow[]>(row?.rows, 'services');
  const records = rows.map((r): ServiceRecord => {
    const item: ServiceListItem = {
      id: r.id,
      chain: r.chain,
      seller_address: r.seller_address,
      resource_url: r.resource_url ?? '',
      name: r.name ?? '',
      description: r.description ?? '',
      category: r.category,
      price_amount: r.price_amount,
      first_seen: r.first_seen,
      tx_24h: r.tx_24h,
      volume_24h: r.volume_24h,
      tx_total: r.tx_total,
      real_volume_pct: r.real_volume_pct,
      wash_pct: r.wash_pct,
      label_distribution: r.label_distribution ?? {},
      trust_grade: r.trust_grade,
      uptime_7d_pct: r.uptime_7d_pct,
      latency_p50_ms: r.latency_p50_ms,
      latency_p99_ms: r.latency_p99_ms,
      payto_consistent: r.payto_consistent,
      last_probe_at: r.last_probe_at,
    };
    return {
      item,
      isPlaceholder: r.is_placeholder === true,
      active: r.active === true,
      probeLive: r.probe_live === true,
      priceBucket: r.price_bucket,
      nameSort: r.name_sort ?? '',
      searchText: r.search_text ?? '',
      firstSeenMs: Date.parse(item.first_seen),
      volume30d: r.volume_30d ?? 0,
    };
  });
  const byId = new Map(records.map((s) => [s.item.id, s]));
  const bySeller = new Map<string, ServiceRecord[]>();
  for (const s of records) {
    const key = sellerKey(s.item.seller_address);
    const list = bySeller.get(key);
    if (list) list.push(s);
    else bySeller.set(key, [s]);
  }
  return { stamp: stampOf(data), records, byId, bySeller, sorted: new Map() };
}

/** EVM addresses compare lower-case; base58 is case-sensitive. */
export const sellerKey = (address: string): string => (address.startsWith('0x') ? address.toLowerCase() : address);

export async function servicesIndex(snapshot: LoadedSnapshot): Promise<ServicesIndex> {
  const data = dataset(snapshot, 'services');
  return perVersion(snapshot, 'services', () => loadServices(data));
}

/** The value a service sorts by under a key (null: no price). */
function sortValue(s: ServiceRecord, key: ServiceSortKey): number | string | null {
  switch (key) {
    case 'price_amount':
      return s.item.price_amount;
    case 'first_seen':
      return s.firstSeenMs;
    case 'name':
      return s.nameSort;
    default:
      return s.item[key];
  }
}

/**
 * The services in the order of a key: ties by id ascending in both directions, services
 * without a price last in both directions (catalog: ServicesQuery.sort). Built once per key and
 * direction per version; filtering keeps the order, so a request never sorts.
 */
export function sortedBy(index: ServicesIndex, key: ServiceSortKey, order: Order): ServiceRecord[] {
  const cacheKey = `${key}:${order}`;
  const cached = index.sorted.get(cacheKey);
  if (cached) return cached;
  const sign = order === 'asc' ? 1 : -1;
  const sorted = [...index.records].sort((a, b) => {
    const va = sortValue(a, key);
    const vb = sortValue(b, key);
    if (va === null || vb === null) {
      if (va !== vb) return va === null ? 1 : -1;
    } else if (va !== vb) {
      return (va < vb ? -1 : 1) * sign;
    }
    return a.item.id - b.item.id;
  });
  index.sorted.set(cacheKey, sorted);
  return sorted;
}
