/**
 * The analytics data handlers against a real snapshot: the demo analytics pipeline runs into a
 * temp directory once, then every handler is called as the service app calls it (parsed
 * parameters, one snapshot version) and every 200 body is checked against the endpoint's
 * response schema in the catalog.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findEndpoint } from '../../catalog/index.ts';
import { OperatorsRow, PRICE_BUCKET_BOUNDS, SERVICE_SORT_KEYS, type PriceBucket } from '../../catalog/analytics.ts';
import { THRESHOLDS } from '../../catalog/wash-rules.ts';
import { CATEGORY_SLUGS, WASH_LABELS } from '../../catalog/categories.ts';
import { loadSettings } from '../../lib/config.ts';
import { analyticsPipeline } from '../../pipelines/analytics/index.ts';
import { LineProgress } from '../../pipelines/progress.ts';
import { runPipeline } from '../../pipelines/runner.ts';
import { loadLatest, type LoadedSnapshot } from '../../snapshots/reader.ts';
import { analyticsHandlers, TRANSACTIONS_LIMIT } from './analytics.ts';
import { closeSnapshotDuck, queryRows } from './duck.ts';
import { servicesIndex, type ServiceListItem } from './services-index.ts';
import type { DataResult } from './types.ts';
import { clearVersionCache } from './version-cache.ts';

const NOW = new Date('2026-11-20T09:00:00Z');
/** The day state the run's labels rest on: the start of NOW's UTC day. */
const DAY_STATE = '2026-11-20T00:00:00.000Z';
const handlers = analyticsHandlers({ patternSalt: 'analytics-test-salt' });
let root: string;
let snapshot: LoadedSnapshot;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'analytics-data-'));
  const settings = loadSettings({ SITE_BUILD: 'off', SNAPSHOTS_DIR: join(root, 'snapshots'), WAREHOUSE_DIR: join(root, 'warehouse') });
  const run = await runPipeline(
    analyticsPipeline,
    { source: { kind: 'demo' }, now: NOW, seed: 7, scale: 1 },
    settings,
    new LineProgress(() => {}),
  );
  expect(run.error).toBeNull();
  snapshot = (await loadLatest(settings.snapshotsDir, 'analytics'))!;
});

afterAll(async () => {
  await closeSnapshotDuck();
  rmSync(root, { recursive: true, force: true });
});

interface CallInput {
  params?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: Record<string, unknown>;
  snap?: LoadedSnapshot;
}

/**
 * Calls a handler as the service app does: the catalog's schemas parse the input first (the app
 * answers 422 before this point), the precheck runs, then the handler. A 200 body must validate.
 */
async function call(id: string, input: CallInput = {}): Promise<DataResult & { precheck: boolean }> {
  const endpoint = findEndpoint('analytics', id);
  if (!endpoint) throw new Error(`no analytics endpoint ${id}`);
  const handler = handlers[id];
  if (!handler) throw new Error(`no handler for ${id}`);
  const req = {
    endpoint,
    params: endpoint.pathParams ? endpoint.pathParams.parse(input.params ?? {}) : {},
    query: endpoint.query ? endpoint.query.parse(input.query ?? {}) : {},
    body: endpoint.body ? endpoint.body.parse(input.body ?? {}) : undefined,
    snapshot: input.snap ?? snapshot,
    now: NOW,
  };
  const early = (await handler.precheck?.(req)) ?? null;
  if (early) return { ...early, precheck: true };
  const result = await handler.handle(req);
  if (result.status === 200) {
    const check = endpoint.response.safeParse(result.body);
    expect(check.success, `${id}: ${JSON.stringify(check.error?.issues.slice(0, 3))}`).toBe(true);
  }
  return { ...result, precheck: false };
}

type Body = Record<string, any>;
const ok = async (id: string, input: CallInput = {}): Promise<Body> => {
  const res = await call(id, input);
  expect(res.status, `${id} ${JSON.stringify(res.body)}`).toBe(200);
  return res.body as Body;
};

const table = (name: string) => snapshot.datasets.get(name)!.path;

describe('every analytics data endpoint has a handler', () => {
  it('covers the catalog', () => {
    const declared = [
      'landing-stats',
      'categories.list',
      'categories.detail',
      'services.list',
      'services.detail',
      'trends',
      'wash-report',
      'services.wash-detail',
      'services.preflight',
      'buyers.profile',
      'services.transactions',
      'categories.full-history',
      'wash.check',
    ];
    expect(Object.keys(handlers).sort()).toEqual([...declared].sort());
    for (const id of declared) expect(findEndpoint('analytics', id)?.dataset, id).not.toBeNull();
  });
});

describe('documents', () => {
  it.each(['landing-stats', 'categories.list', 'trends', 'wash-report'])('%s validates and carries the data stamp', async (id) => {
    const body = await ok(id);
    expect(body.source).toBe('demo');
    expect(body.as_of).toMatch(/^2026-11-20T09:00:00/);
  });
});

describe('categories', () => {
  it('answers every one of the 33 slugs with a 30-day series', async () => {
    for (const slug of CATEGORY_SLUGS) {
      const body = await ok('categories.detail', { params: { slug } });
      expect(body.category.slug).toBe(slug);
      expect(body.daily_series).toHaveLength(30);
    }
  });

  it('gives 8760 hourly points, oldest first, for the full history', async () => {
    const body = await ok('categories.full-history', { params: { slug: 'ai_inference' } });
    expect(body.category).toBe('ai_inference');
    expect(body.points).toHaveLength(8760);
    const times = (body.points as Array<{ time: string }>).map((p) => p.time);
    expect([...times].sort()).toEqual(times);
    expect(body.points.some((p: { tx_count: number }) => p.tx_count > 0)).toBe(true);
  });
});

describe('services list', () => {
  it('answers the default request with the spec envelope and defaults', async () => {
    const body = await ok('services.list');
    expect(Object.keys(body)).toEqual(['source', 'as_of', 'services', 'pagination', 'summary', 'filters_applied', 'chain_coverage']);
    // only facilitator-settled chains are indexed; the others say why not
    expect(body.chain_coverage).toEqual([
      expect.objectContaining({ chain: 'base', indexed: true, facilitators: ['Coinbase (CDP)', 'PayAI', 'x402.rs'] }),
      expect.objectContaining({ chain: 'solana', indexed: true, facilitators: ['Coinbase (CDP)', 'PayAI'] }),
      expect.objectContaining({ chain: 'polygon', indexed: false }),
      expect.objectContaining({ chain: 'arbitrum', indexed: false, facilitators: [], relayers: 0 }),
    ]);
    expect(body.filters_applied).toEqual({
      search: null,
      category: null,
      chain: null,
      price_bucket: null,
      min_real_pct: null,
      max_wash_pct: null,
      active_only: false,
      min_grade: null,
      live_only: false,
      show_placeholder: false,
      sort: 'tx_24h',
      order: 'desc',
      page: 1,
      page_size: 50,
    });
    expect(body.services).toHaveLength(50);
    expect(body.pagination.page_size).toBe(50);
    expect(body.pagination.total_pages).toBe(Math.ceil(body.pagination.total / 50));
    expect(Object.keys(body.services[0])).toEqual([
      'id',
      'chain',
      'seller_address',
      'resource_url',
      'name',
      'description',
      'category',
      'price_amount',
      'first_seen',
      'tx_24h',
      'volume_24h',
      'tx_total',
      'real_volume_pct',
      'wash_pct',
      'label_distribution',
      'trust_grade',
      'uptime_7d_pct',
      'latency_p50_ms',
      'latency_p99_ms',
      'payto_consistent',
      'last_probe_at',
    ]);
  });

  it('filters by trust grade and liveness: min_grade B keeps A and B only, live_only those probed up in 24 hours', async () => {
    const [counts] = await queryRows(
      `SELECT count(*) FILTER (WHERE trust_grade IN ('A', 'B') AND NOT is_placeholder)::INTEGER AS ab,
              count(*) FILTER (WHERE probe_live AND NOT is_placeholder)::INTEGER AS live,
              count(*) FILTER (WHERE NOT is_placeholder)::INTEGER AS all_of_them FROM read_parquet($p)`,
      { p: table('services') },
    );
    const graded = await ok('services.list', { query: { min_grade: 'B', page_size: '200' } });
    expect(graded.pagination.total).toBe(counts?.ab);
    expect(graded.pagination.total).toBeLessThan(Number(counts?.all_of_them));
    expect(graded.services.every((s: ServiceListItem) => s.trust_grade === 'A' || s.trust_grade === 'B')).toBe(true);
    expect(graded.filters_applied).toMatchObject({ min_grade: 'B', live_only: false });
    const live = await ok('services.list', { query: { live_only: 'true' } });
    expect(live.pagination.total).toBe(counts?.live);
    expect(live.pagination.total).toBeLessThan(Number(counts?.all_of_them));
    // F is the lowest: every graded service, none without a grade
    const any = await ok('services.list', { query: { min_grade: 'F', page_size: '200' } });
    expect(any.services.every((s: ServiceListItem) => s.trust_grade !== null)).toBe(true);
  });

  it('hides placeholders unless asked, and the summary totals every match', async () => {
    const rows = await queryRows(
      `SELECT count(*)::INTEGER AS n, count(*) FILTER (WHERE NOT is_placeholder)::INTEGER AS real_ones,
        sum(tx_24h) FILTER (WHERE NOT is_placeholder)::INTEGER AS tx FROM read_parquet($p)`,
      { p: table('services') },
    );
    const { n, real_ones, tx } = rows[0]!;
    expect(Number(n)).toBeGreaterThan(Number(real_ones));
    const hidden = await ok('services.list');
    expect(hidden.pagination.total).toBe(real_ones);
    expect(hidden.summary.total_tx_24h).toBe(tx);
    const all = await ok('services.list', { query: { show_placeholder: 'true', page_size: '200' } });
    expect(all.pagination.total).toBe(n);
    expect(all.filters_applied.show_placeholder).toBe(true);
    const dummies = await ok('services.list', { query: { category: 'test_dummy' } });
    expect(dummies.pagination.total).toBe(0);
    expect((await ok('services.list', { query: { category: 'test_dummy', show_placeholder: '1' } })).pagination.total).toBeGreaterThan(0);
  });

  /** Every page of a query, joined. */
  async function everything(query: Record<string, unknown>): Promise<{ items: ServiceListItem[]; first: Body }> {
    const first = await ok('services.list', { query: { ...query, page_size: 200 } });
    const items: ServiceListItem[] = [...first.services];
    for (let page = 2; page <= first.pagination.total_pages; page++) {
      const next = await ok('services.list', { query: { ...query, page_size: 200, page } });
      expect(next.pagination.total).toBe(first.pagination.total);
      items.push(...next.services);
    }
    expect(items).toHaveLength(first.pagination.total);
    return { items, first };
  }

  it.each(
    SERVICE_SORT_KEYS.flatMap(
      (sort) =>
        [
          [sort, 'asc'],
          [sort, 'desc'],
        ] as const,
    ),
  )('sorts by %s %s with ties by id ascending and unknown prices last', async (sort, order) => {
    const { items } = await everything({ sort, order, show_placeholder: true });
    const value = (s: ServiceListItem) =>
      sort === 'name' ? s.name.toLowerCase() : sort === 'first_seen' ? Date.parse(s.first_seen) : (s[sort] as number | null);
    for (let i = 1; i < items.length; i++) {
      const [a, b] = [items[i - 1]!, items[i]!];
      const [va, vb] = [value(a), value(b)];
      if (va === null || vb === null) {
        expect(vb, `${a.id} before ${b.id}`).toBeNull(); // nulls last, in both orders
        if (va === null) expect(a.id).toBeLessThan(b.id);
        continue;
      }
      if (va === vb) expect(a.id, `tie ${a.id} ${b.id}`).toBeLessThan(b.id);
      else expect(order === 'asc' ? va < vb : va > vb, `${sort} ${order}: ${a.id}=${va} before ${b.id}=${vb}`).toBe(true);
    }
  });

  it('applies every filter and echoes it', async () => {
    // filter values taken from an active, partly real service, so the answer is not empty
    const [pick] = await queryRows(
      `SELECT category, chain, price_bucket, floor(real_volume_pct)::INTEGER AS min_real, ceil(wash_pct)::INTEGER AS max_wash
         FROM read_parquet($p) WHERE active AND NOT is_placeholder AND real_volume_pct > 0 AND price_bucket <> 'unknown'
        ORDER BY tx_24h DESC, id LIMIT 1`,
      { p: table('services') },
    );
    const { category, chain, price_bucket, min_real, max_wash } = pick!;
    const query = { category, chain, price_bucket, min_real_pct: String(min_real), max_wash_pct: String(max_wash), active_only: 'true' };
    const { items, first } = await everything(query);
    expect(first.filters_applied).toMatchObject({
      category,
      chain,
      price_bucket,
      min_real_pct: min_real,
      max_wash_pct: max_wash,
      active_only: true,
    });
    expect(items.length).toBeGreaterThan(0);
    const bounds = PRICE_BUCKET_BOUNDS[price_bucket as PriceBucket];
    for (const s of items) {
      expect(s.category).toBe(category);
      expect(s.chain).toBe(chain);
      if (bounds.min !== null) expect(s.price_amount).toBeGreaterThanOrEqual(bounds.min);
      if (bounds.max !== null) expect(s.price_amount).toBeLessThan(bounds.max);
      expect(s.real_volume_pct).toBeGreaterThanOrEqual(Number(min_real));
      expect(s.wash_pct).toBeLessThanOrEqual(Number(max_wash));
      expect(s.tx_24h).toBeGreaterThan(0);
    }
    // the filters narrow: without them there are more
    expect((await ok('services.list')).pagination.total).toBeGreaterThan(first.pagination.total);
    const total = items.reduce((a, s) => a + s.tx_24h, 0);
    expect(first.summary.total_tx_24h).toBe(total);
    expect(first.summary.total_volume_24h).toBeCloseTo(
      items.reduce((a, s) => a + s.volume_24h, 0),
      6,
    );
    const unknown = await everything({ price_bucket: 'unknown', show_placeholder: true });
    for (const s of unknown.items) expect(s.price_amount).toBeNull();
  });

  it('searches name, description and URL case-insensitively', async () => {
    const [pick] = await queryRows(`SELECT name FROM read_parquet($p) WHERE NOT is_placeholder AND length(name) > 6 ORDER BY id LIMIT 1`, {
      p: table('services'),
    });
    const word = String(pick!.name).slice(0, 6).toUpperCase();
    const { items, first } = await everything({ search: `  ${word} ` });
    expect(first.filters_applied.search).toBe(word);
    expect(items.length).toBeGreaterThan(0);
    for (const s of items) expect(`${s.name} ${s.description} ${s.resource_url}`.toLowerCase()).toContain(word.toLowerCase());
    const none = await ok('services.list', { query: { search: 'no service is called this zz9' } });
    expect(none.pagination).toEqual({ page: 1, page_size: 50, total: 0, total_pages: 0 });
    expect(none.services).toEqual([]);
  });

  it('returns an empty page past the end with the totals', async () => {
    const body = await ok('services.list', { query: { page: '999', page_size: '10' } });
    expect(body.services).toEqual([]);
    expect(body.pagination.page).toBe(999);
    expect(body.pagination.total).toBeGreaterThan(0);
    expect(body.pagination.total_pages).toBe(Math.ceil(body.pagination.total / 10));
    expect(body.summary.total_tx_24h).toBeGreaterThan(0);
  });
});

describe('service detail and the paid service slices', () => {
  let id: number;
  let quietId: number;
  beforeAll(async () => {
    const [busy] = await queryRows(`SELECT id FROM read_parquet($p) WHERE tx_30d > 0 ORDER BY tx_30d DESC, id LIMIT 1`, {
      p: table('services'),
    });
    const [quiet] = await queryRows(`SELECT id FROM read_parquet($p) WHERE tx_30d = 0 ORDER BY id LIMIT 1`, { p: table('services') });
    id = Number(busy!.id);
    quietId = Number(quiet!.id);
  });

  it('answers an indexed id and 404s an unknown one before any payment', async () => {
    const body = await ok('services.detail', { params: { id: String(id) } });
    expect(body.service.id).toBe(id);
    expect(body.daily_series).toHaveLength(30);
    expect(body.top_buyers.length).toBeGreaterThan(0);
    for (const endpoint of ['services.detail', 'services.wash-detail', 'services.transactions']) {
      const missing = await call(endpoint, { params: { id: 999_999 } });
      expect(missing.status).toBe(404);
      expect(missing.precheck).toBe(true);
      expect(missing.body).toMatchObject({ error: 'not_found', message: expect.stringContaining('999999') });
    }
  });

  it('sells the top buyers with labels and the cohort summary', async () => {
    const body = await ok('services.wash-detail', { params: { id } });
    expect(body.service_id).toBe(id);
    // the labels' cohort evidence is of the start of the run's UTC day (the day state)
    expect(body.cohort_state_as_of).toBe(DAY_STATE);
    expect(body.buyers.length).toBeGreaterThan(0);
    expect(body.buyers.length).toBeLessThanOrEqual(50);
    const quiet = await ok('services.wash-detail', { params: { id: quietId } });
    expect(quiet.buyers).toEqual([]);
  });

  it('sells a preflight: the service-health row of one service, grade and evidence included; 404 before payment for an unknown id', async () => {
    const body = await ok('services.preflight', { params: { id } });
    expect(body).toMatchObject({ service_id: id, source: 'demo', as_of: NOW.toISOString() });
    expect(['pay', 'caution', 'avoid']).toContain(body.recommendation);
    expect(body.evidence.length).toBeGreaterThan(0);
    // the same facts as the free dataset's row and the services list item
    const [row] = await queryRows(`SELECT grade, live, uptime_7d_pct FROM read_parquet($path) WHERE service_id = $id`, {
      path: snapshot.datasets.get('service-health')!.path,
      id,
    });
    expect(body.grade).toBe(row?.grade);
    expect(body.live).toBe(row?.live);
    expect(body.uptime_7d_pct).toBe(row?.uptime_7d_pct);
    const item = (await servicesIndex(snapshot)).byId.get(id)!.item;
    expect(item.trust_grade).toBe(body.grade);
    expect(item.latency_p50_ms).toBe(body.latency_ms.p50);
    const missing = await call('services.preflight', { params: { id: 999_999 } });
    expect(missing).toMatchObject({ status: 404, precheck: true });
  });

  it('labels the free top 10 buyers as wash-detail does, without confidence or signals', async () => {
    const free = await ok('services.detail', { params: { id } });
    const paid = await ok('services.wash-detail', { params: { id } });
    const paidLabel = new Map<string, string>(paid.buyers.map((b: Body) => [b.address, b.label]));
    expect(free.top_buyers.length).toBeLessThanOrEqual(10);
    for (const buyer of free.top_buyers) {
      expect(buyer.label).toBe(paidLabel.get(buyer.address));
      expect(buyer).not.toHaveProperty('confidence');
      expect(buyer).not.toHaveProperty('signals');
    }
  });

  it('sells the 30-day payments newest first, at most 3000, with the window total', async () => {
    const body = await ok('services.transactions', { params: { id } });
    const [count] = await queryRows(
      `SELECT count(*)::INTEGER AS n, any_value(total)::INTEGER AS total FROM read_parquet($p) WHERE service_id = $id`,
      { p: table('transactions'), id },
    );
    expect(body.total).toBe(count!.total);
    expect(body.transactions.length).toBe(count!.n);
    expect(body.transactions.length).toBe(Math.min(TRANSACTIONS_LIMIT, body.total));
    // the file's order, which sorts by the instant (the ISO text has whole seconds only)
    const inFile = await queryRows(`SELECT tx_hash FROM read_parquet($p) WHERE service_id = $id`, { p: table('transactions'), id });
    expect(body.transactions.map((t: { tx_hash: string }) => t.tx_hash)).toEqual(inFile.map((r) => r.tx_hash));
    const times = (body.transactions as Array<{ time: string }>).map((t) => t.time);
    expect([...times].sort().reverse()).toEqual(times);
    const quiet = await ok('services.transactions', { params: { id: quietId } });
    expect(quiet).toMatchObject({ service_id: quietId, transactions: [], total: 0 });
  });

  it('counts the rows of a transactions file written before it carried the total', async () => {
    // an older snapshot's file has every payment of the window and no total column: the manifest says so
    const older: LoadedSnapshot = {
      ...snapshot,
      datasets: new Map(
        [...snapshot.datasets].map(([name, d]) => [
          name,
          name === 'transactions' ? { ...d, entry: { ...d.entry, schema: d.entry.schema.filter((c) => c.name !== 'total') } } : d,
        ]),
      ),
    };
    const body = await ok('services.transactions', { params: { id }, snap: older });
    const [count] = await queryRows(`SELECT count(*)::INTEGER AS n FROM read_parquet($p) WHERE service_id = $id`, {
      p: table('transactions'),
      id,
    });
    expect(body.total).toBe(count!.n);
  });
});

describe('buyer profile', () => {
  it('answers a classified wallet, whatever the case of its hex digits', async () => {
    const [b] = await queryRows(
      `SELECT address FROM read_parquet($p) WHERE label = 'suspected_wash' AND address LIKE '0x%' ORDER BY address LIMIT 1`,
      { p: table('buyer-profiles') },
    );
    const address = String(b!.address);
    const body = await ok('buyers.profile', { params: { address } });
    expect(body.address).toBe(address);
    expect(body.label).toBe('suspected_wash');
    expect(body.cohort_state_as_of).toBe(DAY_STATE);
    expect(body.services_used.length).toBeGreaterThan(0);
    const shouted = await ok('buyers.profile', { params: { address: `0x${address.slice(2).toUpperCase()}` } });
    expect(shouted.address).toBe(address);
  });

  it('404s a wallet the index never saw, before any payment', async () => {
    const res = await call('buyers.profile', { params: { address: `0x${'ab'.repeat(20)}` } });
    expect(res).toMatchObject({ status: 404, precheck: true, body: { error: 'not_found' } });
  });
});

describe('operators in the paid answers', () => {
  it("names the operator of a service's seller in wash-detail, the buyer profile and the wash check, and null where none is listed", async () => {
    const operators = await queryRows(
      'SELECT operator_id, sellers::VARCHAR AS sellers, evidence::VARCHAR AS evidence FROM read_parquet($p) ORDER BY operator_id',
      { p: table('operators') },
    );
    expect(operators.length).toBeGreaterThan(3);
    // every row as the catalog declares it; each seller in one operator; the evidence as its numbers say
    const seen = new Set<string>();
    for (const row of await queryRows('SELECT * FROM read_parquet($p)', { p: table('operators') })) {
      const parsed = OperatorsRow.parse(
        Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'string' && /^[[{]/.test(v) ? JSON.parse(v) : v])),
      );
      expect(parsed.operator_id).toMatch(/^op_[0-9a-f]{16}$/);
      expect(parsed.evidence.includes('shared_funding')).toBe(parsed.sellers.length > 1);
      expect(parsed.evidence.includes('operator_cohort')).toBe(parsed.operator_wallets >= THRESHOLDS.operatorMinWallets);
      expect(parsed.evidence.includes('funding_burst')).toBe(parsed.burst_wallets > 0);
      for (const seller of parsed.sellers) {
        expect(seen.has(seller), seller).toBe(false);
        seen.add(seller);
      }
    }
    const op = operators[0]!;
    const sellers = JSON.parse(String(op.sellers)) as string[];
    const expected = { id: String(op.operator_id), sellers, evidence: JSON.parse(String(op.evidence)) as string[] };
    const [service] = await queryRows('SELECT id FROM read_parquet($p) WHERE seller_address = $s ORDER BY id LIMIT 1', {
      p: table('services'),
      s: sellers[0]!,
    });
    expect((await ok('services.wash-detail', { params: { id: Number(service!.id) } })).operator).toEqual(expected);
    // a seller that only sells: the wash check's seller view names its operator
    const [seller] = await queryRows(
      `SELECT seller_address FROM read_parquet($p) WHERE list_contains($sellers::VARCHAR[], seller_address)
          AND seller_address NOT IN (SELECT address FROM read_parquet($b)) ORDER BY seller_address LIMIT 1`,
      { p: table('wash-check-sellers'), b: table('buyers'), sellers: JSON.stringify(sellers) },
    );
    if (seller) expect((await ok('wash.check', { body: { address: String(seller.seller_address) } })).operator).toEqual(expected);
    // a buyer whose main service is one of the operator's: the same operator in its profile and check
    const [buyer] = await queryRows(
      'SELECT address FROM read_parquet($b) WHERE list_contains($sellers::VARCHAR[], top_seller_address) ORDER BY address LIMIT 1',
      { b: table('buyers'), sellers: JSON.stringify(sellers) },
    );
    expect(buyer).toBeDefined();
    expect((await ok('wash.check', { body: { address: String(buyer!.address) } })).operator).toEqual(expected);
    // a service whose seller no operator lists
    const [alone] = await queryRows(
      `SELECT id FROM read_parquet($p) WHERE NOT list_contains($all::VARCHAR[], seller_address) ORDER BY id LIMIT 1`,
      { p: table('services'), all: JSON.stringify(operators.flatMap((o) => JSON.parse(String(o.sellers)) as string[])) },
    );
    expect((await ok('services.wash-detail', { params: { id: Number(alone!.id) } })).operator).toBeNull();
  });
});

describe('wash check', () => {
  const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

  it('answers a buyer with its published classifier row (label, confidence, signals) in the documented shape', async () => {
    const sample = await queryRows(
      `SELECT address, label, confidence, vanity_strict, vanity_broad, top_service_share
         FROM read_parquet($p) QUALIFY row_number() OVER (PARTITION BY label ORDER BY address) <= 3 ORDER BY address`,
      { p: table('buyers') },
    );
    expect(new Set(sample.map((r) => r.label)).size).toBeGreaterThanOrEqual(5);
    for (const row of sample) {
      const address = String(row.address);
      const body = await ok('wash.check', { body: { address } });
      expect(Object.keys(body)).toEqual([
        'source',
        'as_of',
        'cohort_state_as_of',
        'address',
        'label',
        'confidence',
        'signals',
        'evidence',
        'similar_patterns',
        'operator',
        'basis',
      ]);
      // a wash label names its evidence, any other none
      if (body.label === 'suspected_wash') expect(body.evidence.length, address).toBeGreaterThan(0);
      else expect(body.evidence, address).toEqual([]);
      expect(body.cohort_state_as_of).toBe(DAY_STATE);
      expect(body.basis).toContain(`cohort evidence and funding from the day state of ${DAY_STATE}`);
      expect(Object.keys(body.signals)).toEqual(['vanity', 'cohort', 'concentration']);
      expect(body.basis).toMatch(/^Buyer view\./);
      expect(
        {
          address: body.address,
          label: body.label,
          confidence: body.confidence,
          vanity: body.signals.vanity,
          share: body.signals.concentration.top_service_share,
        },
        address,
      ).toEqual({
        address,
        label: row.label,
        confidence: round4(Number(row.confidence)),
        vanity: { strict: row.vanity_strict, broad: row.vanity_broad },
        share: round4(Number(row.top_service_share)),
      });
      for (const p of body.similar_patterns as Array<{ anonymous_id: string; pattern_type: string }>) {
        expect(p.anonymous_id).toMatch(/^[0-9a-f]{16}$/);
        expect(JSON.stringify(p)).not.toContain(address.slice(2, 12));
      }
    }
  }, 60_000);

  it("gives a buyer of one service that service's cohort signals, and names the cohorts its reasons point to", async () => {
    // wallets that paid exactly one indexed service: that service's seller is the main seller
    const [one] = await queryRows(
      `SELECT b.address, b.reason, (from_json(p.services_used, '[{"id":"INTEGER"}]'))[1].id AS service_id
         FROM read_parquet($b) b JOIN read_parquet($p) p USING (address)
        WHERE json_array_length(p.services_used) = 1 AND list_contains(b.reason, 'synchronized_start')
        ORDER BY b.address LIMIT 1`,
      { b: table('buyers'), p: table('buyer-profiles') },
    );
    expect(one, 'a farm wallet (a cohort that started together) that paid one service').toBeTruthy();
    const [detail] = await queryRows(`SELECT cohort_summary FROM read_parquet($w) WHERE service_id = $id`, {
      w: table('wash-detail'),
      id: Number(one!.service_id),
    });
    const cohort = JSON.parse(String(detail!.cohort_summary)) as { uniform_amount_pct: number; coordinated_start_pct: number };
    const body = await ok('wash.check', { body: { address: one!.address } });
    expect(body.signals.cohort).toEqual({
      uniform_amount: round4(cohort.uniform_amount_pct / 100),
      coordinated_start: round4(cohort.coordinated_start_pct / 100),
    });
    expect(body.similar_patterns.map((p: { pattern_type: string }) => p.pattern_type)).toContain('farm_cohort');
  });

  it('answers a checksummed EVM address as the same wallet', async () => {
    const [b] = await queryRows(`SELECT address FROM read_parquet($p) WHERE address LIKE '0x%' ORDER BY address LIMIT 1`, {
      p: table('buyers'),
    });
    const address = String(b!.address);
    const lower = await ok('wash.check', { body: { address } });
    const shouted = await ok('wash.check', { body: { address: `0x${address.slice(2).toUpperCase()}` } });
    expect(shouted).toEqual(lower);
  });

  it("answers a seller address with the seller view over its buyers' pair labels", async () => {
    const sellers = await queryRows(
      `SELECT seller_address, sum(volume_30d * wash_pct / 100) / sum(volume_30d) AS wash_share
         FROM read_parquet($s) WHERE seller_address NOT IN (SELECT address FROM read_parquet($b))
        GROUP BY seller_address HAVING sum(volume_30d) > 0 ORDER BY wash_share DESC, seller_address LIMIT 3`,
      { s: table('services'), b: table('buyers') },
    );
    expect(sellers.length).toBe(3);
    const flags = ['cycle', 'funded_loop', 'vanity_cohort', 'farm', 'common_funder', 'concentration'];
    for (const s of sellers) {
      const body = await ok('wash.check', { body: { address: s.seller_address } });
      expect(body.basis).toMatch(/^Seller view/);
      expect(body.signals.concentration.top_service_share).toBeCloseTo(Number(s.wash_share), 2);
      if (Number(s.wash_share) > 0.5) expect(body.label).toBe('suspected_wash');
      expect(body.confidence).toBeGreaterThan(0);
      for (const p of body.similar_patterns) expect(flags).toContain(p.pattern_type);
    }
    // a seller none of whose buyers is wash
    const [honest] = await queryRows(
      `SELECT seller_address FROM read_parquet($s) WHERE seller_address NOT IN (SELECT address FROM read_parquet($b))
        GROUP BY seller_address HAVING sum(volume_30d) > 0 AND max(wash_pct) = 0 ORDER BY sum(volume_30d) DESC, seller_address LIMIT 1`,
      { s: table('services'), b: table('buyers') },
    );
    const body = await ok('wash.check', { body: { address: honest!.seller_address } });
    expect(body.label).not.toBe('suspected_wash');
    expect(body.signals.concentration.top_service_share).toBe(0);
  }, 60_000);

  it('answers an address it never saw with unlabeled, confidence 0, and says why', async () => {
    const body = await ok('wash.check', { body: { address: 'So11111111111111111111111111111111111111112' } });
    expect(body).toMatchObject({
      address: 'So11111111111111111111111111111111111111112',
      label: 'unlabeled',
      confidence: 0,
      signals: {
        vanity: { strict: false, broad: false },
        cohort: { uniform_amount: 0, coordinated_start: 0 },
        concentration: { top_service_share: 0 },
      },
      similar_patterns: [],
    });
    expect(body.basis).toMatch(/^Never seen/);
  });
});

describe('snapshot versions and missing datasets', () => {
  const copy = (version: string, drop: string[] = []): LoadedSnapshot => ({
    ...snapshot,
    version,
    datasets: new Map([...snapshot.datasets].filter(([name]) => !drop.includes(name))),
  });

  it('loads the services index once per version and keeps two versions', async () => {
    clearVersionCache();
    const a = await servicesIndex(snapshot);
    expect(await servicesIndex(snapshot)).toBe(a);
    const b = await servicesIndex(copy('v-next'));
    expect(b).not.toBe(a);
    expect(await servicesIndex(snapshot)).toBe(a); // the previous version is still held
    await servicesIndex(copy('v-third'));
    await servicesIndex(copy('v-fourth'));
    expect(await servicesIndex(snapshot)).not.toBe(a); // dropped, loaded again
  });

  it('answers 503 (nothing charged) when a dataset is missing, never invented data', async () => {
    const broken = copy('v-broken', ['wash-detail', 'services', 'trends', 'buyers']);
    for (const [id, input] of [
      ['services.wash-detail', { params: { id: 1 } }],
      ['services.list', {}],
      ['trends', {}],
      ['wash.check', { body: { address: `0x${'ab'.repeat(20)}` } }],
    ] as const) {
      const res = await call(id, { ...input, snap: broken });
      expect(res.status, id).toBe(503);
      expect(res.body).toMatchObject({ error: 'not_available', message: expect.stringMatching(/not in snapshot v-broken/) });
    }
  });

  it('keeps every label the classifier can publish within the catalog', async () => {
    const labels = await queryRows(`SELECT DISTINCT label FROM read_parquet($p)`, { p: table('buyers') });
    for (const r of labels) expect(WASH_LABELS).toContain(r.label);
  });
});
