/**
 * Data handlers of the analytics service (catalog/analytics.ts): every free and paid data
 * endpoint, answered from one snapshot version.
 *
 * - Documents (landing-stats, categories, trends, wash-report) are served as published.
 * - Small tables are held in memory once per snapshot version, loaded on first use
 *   (version-cache.ts): `services` (services-index.ts: the list filters, sorts and pages over it;
 *   ids and sellers are looked up in it) and `category-detail` (33 rows).
 * - Large tables (service-detail, wash-detail, buyer-profiles, transactions, full-history, buyers)
 *   are read on demand: one parameterised `read_parquet` statement on the shared DuckDB
 *   (duck.ts) with a WHERE on the key the pipeline sorted the file by, so DuckDB reads only the
 *   row groups whose min/max statistics can hold the key. The per-address tables are partitioned
 *   by address (snapshots/partitions.ts): a lookup reads only the part of the address's bucket.
 * - The wash check is computed per request from published rows (wash-check.ts).
 */
import type { z } from 'zod';
import { ANALYTICS_PARAMS, selectList } from '../../catalog/analytics.ts';
import type { CategorySlug } from '../../catalog/categories.ts';
import { TRANSACTIONS_PER_SERVICE } from '../../catalog/datasets.ts';
import { CHAIN_COVERAGE } from '../../catalog/facilitators.ts';
import { normalizeAddress } from '../../lib/wash-ids.ts';
import { parquetSql, partsForKeys, type LoadedSnapshot } from '../../snapshots/reader.ts';
import { DatasetMissing, dataset, labelStampOf, parseJson, stampOf } from './dataset.ts';
import { queryRows, type DuckRow } from './duck.ts';
import { servicesIndex, sortedBy, type ServiceListItem, type ServiceRecord, type ServicesIndex } from './services-index.ts';
import { notAvailable, notFound, type DataHandler, type DataHandlers, type DataRequest, type DataResult } from './types.ts';
import { lookup, perVersion } from './version-cache.ts';
import { operatorOfSeller } from './operators.ts';
import { WASH_CHECK_DATASETS, washCheckAnswer } from './wash-check.ts';

export interface AnalyticsHandlerOptions {
  /** Salt of the wash check's anonymous pattern ids (WASH_PATTERN_SALT, read in proxy/serve.ts). */
  patternSalt: string;
}

/**
 * Loads a version's in-memory tables before its first request (the services index takes a few
 * hundred milliseconds at 30,000 services); call it when a new version is swapped in. A missing
 * dataset is left for the requests to report.
 */
export async function warmAnalytics(snapshot: LoadedSnapshot): Promise<void> {
  await Promise.allSettled([servicesIndex(snapshot), categoryDetails(snapshot)]);
}

// ------------------------------------------------------------------ services list

type Defaulted = 'sort' | 'order' | 'page' | 'page_size' | 'active_only' | 'live_only' | 'show_placeholder';
/** The parsed query with the defaulted fields never undefined. */
export type ServicesQuery = Omit<ParsedServicesQuery, Defaulted> & { [K in Defaulted]-?: NonNullable<ParsedServicesQuery[K]> };
type ParsedServicesQuery = z.output<typeof ANALYTICS_PARAMS.ServicesQuery>;

/** A value the catalog schema fills with its default; its absence is a bug, not bad input. */
function defaulted<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new Error(`analytics: "${name}" has no value after parsing; the catalog schema gives it a default`);
  return value;
}

/** The services list query as the catalog parses it, defaults applied (also for MCP tool input). */
export function parseServicesQuery(raw: Record<string, unknown>): ServicesQuery {
  const q = ANALYTICS_PARAMS.ServicesQuery.parse(raw);
  return {
    ...q,
    sort: defaulted(q.sort, 'sort'),
    order: defaulted(q.order, 'order'),
    page: defaulted(q.page, 'page'),
    page_size: defaulted(q.page_size, 'page_size'),
    active_only: defaulted(q.active_only, 'active_only'),
    live_only: defaulted(q.live_only, 'live_only'),
    show_placeholder: defaulted(q.show_placeholder, 'show_placeholder'),
  };
}

function matches(s: ServiceRecord, q: ServicesQuery, search: string | null): boolean {
  if (!q.show_placeholder && s.isPlaceholder) return false;
  if (q.active_only && !s.active) return false;
  if (q.live_only && !s.probeLive) return false;
  if (q.min_grade !== undefined && !(s.item.trust_grade !== null && s.item.trust_grade <= q.min_grade)) return false;
  if (q.category !== undefined && s.item.category !== q.category) return false;
  if (q.chain !== undefined && s.item.chain !== q.chain) return false;
  if (q.price_bucket !== undefined && s.priceBucket !== q.price_bucket) return false;
  if (q.min_real_pct !== undefined && !(s.item.real_volume_pct >= q.min_real_pct)) return false;
  if (q.max_wash_pct !== undefined && !(s.item.wash_pct <= q.max_wash_pct)) return false;
  if (search !== null && !s.searchText.includes(search)) return false;
  return true;
}

/** The services list envelope (catalog: ServicesListBody): one page, the totals over every match, the filters as applied. */
export function servicesPage(index: ServicesIndex, q: ServicesQuery): Record<string, unknown> {
  const search = q.search === undefined ? null : q.search.toLowerCase();
  const first = (q.page - 1) * q.page_size;
  const page: ServiceListItem[] = [];
  let total = 0;
  let volume24hMicro = 0;
  let tx24h = 0;
  for (const s of sortedBy(index, q.sort, q.order)) {
    if (!matches(s, q, search)) continue;
    if (total >= first && page.length < q.page_size) page.push(s.item);
    total += 1;
    // summed in micro-USDC: integers add up exactly, whatever the order
    volume24hMicro += Math.round(s.item.volume_24h * 1e6);
    tx24h += s.item.tx_24h;
  }
  return {
    ...index.stamp,
    services: page,
    pagination: { page: q.page, page_size: q.page_size, total, total_pages: Math.ceil(total / q.page_size) },
    summary: { total_volume_24h: volume24hMicro / 1e6, total_tx_24h: tx24h },
    filters_applied: {
      search: q.search ?? null,
      category: q.category ?? null,
      chain: q.chain ?? null,
      price_bucket: q.price_bucket ?? null,
      min_real_pct: q.min_real_pct ?? null,
      max_wash_pct: q.max_wash_pct ?? null,
      active_only: q.active_only,
      min_grade: q.min_grade ?? null,
      live_only: q.live_only,
      show_placeholder: q.show_placeholder,
      sort: q.sort,
      order: q.order,
      page: q.page,
      page_size: q.page_size,
    },
    chain_coverage: CHAIN_COVERAGE,
  };
}

// ------------------------------------------------------------------ category detail (in memory)

interface CategoryDetailRow {
  category: unknown;
  daily_series: unknown;
  top_services: unknown;
}

async function categoryDetails(snapshot: LoadedSnapshot): Promise<Map<string, CategoryDetailRow>> {
  const data = dataset(snapshot, 'category-detail');
  return perVersion(snapshot, 'category-detail', async () => {
    const columns = selectList('category-detail', ['slug', 'category', 'daily_series', 'top_services']);
    const rows = await queryRows(`SELECT ${columns} FROM read_parquet($path)`, { path: data.path });
    return new Map(
      rows.map((r) => [
        String(r.slug),
        {
          category: parseJson(r.category, `category-detail ${String(r.slug)}`),
          daily_series: parseJson(r.daily_series, `category-detail ${String(r.slug)}`),
          top_services: parseJson(r.top_services, `category-detail ${String(r.slug)}`),
        },
      ]),
    );
  });
}

// ------------------------------------------------------------------ point lookups (DuckDB)

/** One row of a table dataset `WHERE <key column> = $key`; the column name is ours, the key a bound value. */
async function rowByKey(
  snapshot: LoadedSnapshot,
  name: string,
  keyColumn: string,
  key: string | number,
  columns: string,
): Promise<DuckRow | null> {
  const data = dataset(snapshot, name);
  return lookup(snapshot, `${name}|${columns}|${key}`, async () => {
    // a partitioned table (buyers, buyer-profiles): only the key's part (and deltas); none when its bucket is empty
    const paths = partsForKeys(data, [String(key)]);
    if (paths.length === 0) return null;
    // a single file by parameter; parts with delta files through the reader, which merges rows a newer delta replaced
    const from = paths.length === 1 ? 'read_parquet($path)' : parquetSql(data, [String(key)]);
    const rows = await queryRows(`SELECT ${columns} FROM ${from} WHERE ${keyColumn} = $key LIMIT 1`, {
      ...(paths.length === 1 ? { path: paths[0]! } : {}),
      key,
    });
    return rows[0] ?? null;
  });
}

const buyerProfileRow = (snapshot: LoadedSnapshot, address: string) =>
  rowByKey(
    snapshot,
    'buyer-profiles',
    'address',
    address,
    'address, label, confidence, reason, services_used, vanity_cluster, time_pattern, evidence',
  );

// ------------------------------------------------------------------ handlers

const idOf = (req: DataRequest): number => defaulted(ANALYTICS_PARAMS.IdPath.parse(req.params).id, 'id');
const slugOf = (req: DataRequest): CategorySlug => ANALYTICS_PARAMS.SlugPath.parse(req.params).slug;
const addressOf = (req: DataRequest): string => normalizeAddress(ANALYTICS_PARAMS.AddressPath.parse(req.params).address);

/** Turns a missing dataset into 503 (never invented data); anything else is a server error. */
async function guarded<T extends DataResult | null>(run: () => Promise<T>): Promise<T | DataResult> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof DatasetMissing) return notAvailable(err.message);
    throw err;
  }
}

/** A document dataset served as the pipeline published it. */
function documentHandler(name: string): DataHandler {
  return {
    handle: (req) =>
      guarded(async () => {
        const document = dataset(req.snapshot, name).document;
        if (document === undefined || document === null || typeof document !== 'object') {
          return notAvailable(`The "${name}" dataset of snapshot ${req.snapshot.version} is not a JSON document.`);
        }
        return { status: 200, body: document as Record<string, unknown> };
      }),
  };
}

/** 404 unless the service id is indexed; 503 when the services index is missing. Cheap: in memory. */
async function serviceExists(req: DataRequest): Promise<DataResult | null> {
  return guarded(async () => {
    const id = idOf(req);
    const index = await servicesIndex(req.snapshot);
    return index.byId.has(id) ? null : notFound(`No service with id ${id} is indexed (see /api/v1/services).`);
  });
}

/** Precheck for paid endpoints: the datasets they read must exist before anyone pays. */
function requireDatasets(req: DataRequest, names: readonly string[]): DataResult | null {
  for (const name of names) {
    if (!req.snapshot.datasets.has(name)) {
      return notAvailable(
        `The "${name}" dataset is not in snapshot ${req.snapshot.version} (its pipeline step failed or has not run yet); nothing is charged.`,
      );
    }
  }
  return null;
}

const servicesList: DataHandler = {
  handle: (req) =>
    guarded(async () => {
      return { status: 200, body: servicesPage(await servicesIndex(req.snapshot), parseServicesQuery(req.query)) };
    }),
};

const categoryDetail: DataHandler = {
  precheck: (req) =>
    guarded(async () => {
      const slug = slugOf(req);
      return (await categoryDetails(req.snapshot)).has(slug) ? null : notFound(`No category "${slug}" in this snapshot.`);
    }),
  handle: (req) =>
    guarded(async () => {
      const slug = slugOf(req);
      const row = (await categoryDetails(req.snapshot)).get(slug);
      if (!row) return notFound(`No category "${slug}" in this snapshot.`);
      return { status: 200, body: { ...stampOf(dataset(req.snapshot, 'category-detail')), ...row } };
    }),
};

const serviceDetail: DataHandler = {
  precheck: serviceExists,
  handle: (req) =>
    guarded(async () => {
      const id = idOf(req);
      const row = await rowByKey(req.snapshot, 'service-detail', 'id', id, 'service, daily_series, top_buyers');
      if (!row) return notFound(`No service with id ${id} is indexed (see /api/v1/services).`);
      return {
        status: 200,
        body: {
          ...stampOf(dataset(req.snapshot, 'service-detail')),
          service: parseJson(row.service, `service-detail ${id}`),
          daily_series: parseJson(row.daily_series, `service-detail ${id}`),
          top_buyers: parseJson(row.top_buyers, `service-detail ${id}`),
        },
      };
    }),
};

const washDetail: DataHandler = {
  precheck: async (req) => requireDatasets(req, ['wash-detail']) ?? serviceExists(req),
  handle: (req) =>
    guarded(async () => {
      const id = idOf(req);
      const row = await rowByKey(req.snapshot, 'wash-detail', 'service_id', id, 'buyers, cohort_summary');
      if (!row) return notFound(`No service with id ${id} is indexed (see /api/v1/services).`);
      return {
        status: 200,
        body: {
          ...labelStampOf(dataset(req.snapshot, 'wash-detail')),
          service_id: id,
          buyers: parseJson(row.buyers, `wash-detail ${id}`),
          cohort_summary: parseJson(row.cohort_summary, `wash-detail ${id}`),
          operator: await operatorOfSeller(req.snapshot, (await servicesIndex(req.snapshot)).byId.get(id)?.item.seller_address),
        },
      };
    }),
};

/** The paid preflight: one service's service-health row, as a buyer about to pay reads it. */
const preflight: DataHandler = {
  precheck: async (req) => requireDatasets(req, ['service-health']) ?? serviceExists(req),
  handle: (req) =>
    guarded(async () => {
      const id = idOf(req);
      const columns = selectList(
        'service-health',
        [
          'resource_url',
          'live',
          'grade',
          'grade_score',
          'recommendation',
          'flags',
          'evidence',
          'offer_network',
          'offer_scheme',
          'offer_pay_to',
          'offer_amount_usd',
          'signable',
          'listed_pay_to',
          'payto_consistent',
          'payto_moved',
          'payto_rotates',
          'price_drift_pct',
          'uptime_7d_pct',
          'latency_p50_ms',
          'latency_p90_ms',
          'latency_p99_ms',
          'probes_7d',
          'last_probe_at',
          'seller_grade',
          'seller_evidence',
        ],
        { jsonAsText: true },
      );
      const r = await rowByKey(req.snapshot, 'service-health', 'service_id', id, columns);
      if (!r) return notFound(`No service with id ${id} is indexed (see /api/v1/services).`);
      const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
      return {
        status: 200,
        body: {
          ...labelStampOf(dataset(req.snapshot, 'service-health')),
          service_id: id,
          resource_url: r.resource_url,
          live: r.live,
          grade: r.grade,
          grade_score: num(r.grade_score),
          recommendation: r.recommendation,
          flags: parseJson(r.flags, `service-health ${id}`),
          evidence: parseJson(r.evidence, `service-health ${id}`),
          offer:
            r.offer_pay_to === null
              ? null
              : {
                  network: r.offer_network,
                  scheme: r.offer_scheme,
                  pay_to: r.offer_pay_to,
                  amount_usd: num(r.offer_amount_usd),
                  signable: r.signable,
                },
          listed_pay_to: r.listed_pay_to,
          payto_consistent: r.payto_consistent,
          payto_moved: r.payto_moved,
          payto_rotates: r.payto_rotates,
          price_drift_pct: num(r.price_drift_pct),
          uptime_7d_pct: num(r.uptime_7d_pct),
          latency_ms: { p50: num(r.latency_p50_ms), p90: num(r.latency_p90_ms), p99: num(r.latency_p99_ms) },
          probes_7d: num(r.probes_7d),
          last_probe_at: r.last_probe_at,
          seller: { address: r.listed_pay_to, grade: r.seller_grade, evidence: parseJson(r.seller_evidence, `service-health ${id}`) },
        },
      };
    }),
};

const buyerProfile: DataHandler = {
  precheck: (req) =>
    requireDatasets(req, ['buyer-profiles']) ??
    guarded(async () => {
      const address = addressOf(req);
      return (await buyerProfileRow(req.snapshot, address))
        ? null
        : notFound(`The index has never seen ${address} pay for an x402 service (POST /api/v1/wash/check analyses any address).`);
    }),
  handle: (req) =>
    guarded(async () => {
      const address = addressOf(req);
      const row = await buyerProfileRow(req.snapshot, address);
      if (!row)
        return notFound(`The index has never seen ${address} pay for an x402 service (POST /api/v1/wash/check analyses any address).`);
      return {
        status: 200,
        body: {
          ...labelStampOf(dataset(req.snapshot, 'buyer-profiles')),
          address: String(row.address),
          label: String(row.label),
          confidence: Number(row.confidence),
          reason: (row.reason as string[] | null) ?? [],
          evidence: parseJson(row.evidence, `buyer-profiles ${address}`),
          services_used: parseJson(row.services_used, `buyer-profiles ${address}`),
          vanity_cluster: row.vanity_cluster === null ? null : parseJson(row.vanity_cluster, `buyer-profiles ${address}`),
          time_pattern: parseJson(row.time_pattern, `buyer-profiles ${address}`),
          operator: await mainSellerOperator(req.snapshot, row),
        },
      };
    }),
};

/** The operator behind a buyer's main service's seller (its most-paid service, services_used[0]). */
async function mainSellerOperator(snapshot: LoadedSnapshot, row: DuckRow) {
  const used = parseJson(row.services_used, 'buyer-profiles services_used') as Array<{ id: number }>;
  const main = used[0];
  if (!main) return null;
  return operatorOfSeller(snapshot, (await servicesIndex(snapshot)).byId.get(main.id)?.item.seller_address);
}

/** Rows the transactions endpoint returns at most: all the dataset keeps of a service. */
export const TRANSACTIONS_LIMIT = TRANSACTIONS_PER_SERVICE;

const serviceTransactions: DataHandler = {
  precheck: async (req) => requireDatasets(req, ['transactions']) ?? serviceExists(req),
  handle: (req) =>
    guarded(async () => {
      const id = idOf(req);
      const data = dataset(req.snapshot, 'transactions');
      // In file order: the file is sorted newest first by the instant (the ISO text has whole
      // seconds only, so sorting here again could swap payments of one second), and DuckDB keeps
      // a scan's order (preserve_insertion_order, its default). The file keeps a service's newest
      // payments and the whole window's count in `total`; a snapshot written before it had that
      // column holds every payment of the window, so there the rows are counted.
      const stored = data.entry.schema.some((c) => c.name === 'total');
      const rows = await queryRows(
        `SELECT ${selectList('transactions', ['tx_hash', 'chain', 'buyer', 'amount', 'time'])}, ${stored ? 'total' : '(SELECT count(*) FROM read_parquet($path) WHERE service_id = $id)::INTEGER AS total'}
           FROM read_parquet($path) WHERE service_id = $id
          LIMIT ${TRANSACTIONS_LIMIT}`,
        { path: data.path, id },
      );
      return {
        status: 200,
        body: {
          ...stampOf(data),
          service_id: id,
          transactions: rows.map((r) => ({ tx_hash: r.tx_hash, chain: r.chain, buyer: r.buyer, amount: r.amount, time: r.time })),
          total: rows.length === 0 ? 0 : Number(rows[0]!.total),
        },
      };
    }),
};

const fullHistory: DataHandler = {
  precheck: (req) => requireDatasets(req, ['full-history']),
  handle: (req) =>
    guarded(async () => {
      const slug = slugOf(req);
      const data = dataset(req.snapshot, 'full-history');
      const points = await queryRows(
        `SELECT ${selectList('full-history', ['time', 'services_count', 'volume', 'tx_count', 'real_volume_pct'])}
           FROM read_parquet($path) WHERE category = $slug ORDER BY time`,
        { path: data.path, slug },
      );
      if (points.length === 0) return notFound(`No hourly history for category "${slug}" in this snapshot.`);
      return { status: 200, body: { ...stampOf(data), category: slug, points } };
    }),
};

export function analyticsHandlers(options: AnalyticsHandlerOptions): DataHandlers {
  const washCheck: DataHandler = {
    precheck: (req) => requireDatasets(req, WASH_CHECK_DATASETS),
    handle: (req) =>
      guarded(async () => {
        const { address } = ANALYTICS_PARAMS.WashCheckRequest.parse(req.body ?? {});
        const body = await washCheckAnswer(normalizeAddress(address), {
          dataset: (name) => dataset(req.snapshot, name),
          patternSalt: options.patternSalt,
          operatorOf: (seller) => operatorOfSeller(req.snapshot, seller),
        });
        return { status: 200, body: body as unknown as Record<string, unknown> };
      }),
  };

  return {
    'landing-stats': documentHandler('landing-stats'),
    'categories.list': documentHandler('categories'),
    'categories.detail': categoryDetail,
    'services.list': servicesList,
    'services.detail': serviceDetail,
    trends: documentHandler('trends'),
    'wash-report': documentHandler('wash-report'),
    'services.wash-detail': washDetail,
    'services.preflight': preflight,
    'buyers.profile': buyerProfile,
    'services.transactions': serviceTransactions,
    'categories.full-history': fullHistory,
    'wash.check': washCheck,
  };
}
