import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  ANALYTICS_DATASET_SHAPES,
  ANALYTICS_PARAMS,
  ANALYTICS_RESPONSES,
  PRICE_BUCKETS,
  SERVICE_LIST_ITEM_COLUMNS,
  SERVICE_SORT_KEYS,
} from './analytics.ts';
import { CHAIN_COVERAGE } from './facilitators.ts';
import { CATEGORY_SLUGS } from './categories.ts';
import { DATASETS, datasetsOf, findDataset } from './datasets.ts';
import {
  DIVERGENCE_SYMBOLS,
  ENDPOINTS,
  PRICE_RANGE,
  catalogProblems,
  endpointsOf,
  findEndpoint,
  mcpTools,
  paidEndpoints,
  xrplPath,
} from './index.ts';
import { KOREA_DATASET_SHAPES, KOREA_QUERIES, KOREA_RESPONSES } from './korea.ts';
import { PaymentRequiredBody, ValidationErrorBody } from './schemas.ts';
import type { EndpointDecl } from './types.ts';

const KOREA_TOOLS = [
  'get_kr_sentiment',
  'get_market_read',
  'get_arbitrage_scanner',
  'get_exchange_alerts',
  'get_market_movers',
  'get_kimchi_premium',
  'get_stablecoin_premium',
  'get_kr_prices',
  'get_fx_rate',
  'get_global_vs_korea_divergence',
  'get_global_vs_korea_divergence_deep',
  'get_available_symbols',
  'check_health',
  // beyond the spec's 13: issue 32's tools for the macro stress, the four news products and the premium archive
  'get_krw_macro_stress',
  'get_kr_news_kpop',
  'get_kr_news_kpop_summary',
  'get_kr_news_semiconductor',
  'get_kr_news_semiconductor_summary',
  'get_kimchi_premium_history',
  'get_kimchi_premium_stats',
  'get_arbitrage_executable',
];
const ANALYTICS_TOOLS = [
  'x402_get_categories',
  'x402_get_service',
  'x402_check_wash',
  'x402_search_services',
  'x402_get_trends',
  // beyond the spec's five: issue 31's paid preflight
  'x402_preflight',
];

const KOREA_PRICES: Record<string, string> = {
  '/api/v1/kimchi-premium': '0.001',
  '/api/v1/stablecoin-premium': '0.001',
  '/api/v1/kr-prices': '0.001',
  '/api/v1/fx-rate': '0.001',
  '/api/v1/kr-sentiment': '0.05',
  '/api/v1/krw-macro-stress': '0.05',
  '/api/v1/arbitrage-scanner': '0.01',
  '/api/v1/exchange-alerts': '0.01',
  '/api/v1/market-movers': '0.01',
  '/api/v1/market-read': '0.10',
  '/api/v1/global-vs-korea-divergence': '0.05',
  '/api/v1/global-vs-korea-divergence-deep': '0.10',
  '/api/v1/kr-news/kpop': '0.01',
  '/api/v1/kr-news/kpop-summary': '0.05',
  '/api/v1/kr-news/semiconductor': '0.02',
  '/api/v1/kr-news/semiconductor-summary': '0.10',
  // beyond the spec: issue 32's premium archive
  '/api/v1/kimchi-premium/history': '0.01',
  '/api/v1/kimchi-premium/stats': '0.01',
  // and the executable premium
  '/api/v1/arbitrage/executable': '0.01',
};

const ANALYTICS_PRICES: Record<string, string> = {
  'GET /api/v1/services/:id/wash-detail': '0.005',
  'GET /api/v1/buyers/:address/profile': '0.005',
  'GET /api/v1/services/:id/transactions': '0.01',
  'GET /api/v1/categories/:slug/full-history': '0.02',
  'POST /api/v1/wash/check': '0.05',
  // beyond the spec's five: issue 31's check before paying a service
  'GET /api/v1/services/:id/preflight': '0.001',
};

const EVM_ADDRESS = '0x857b06519E91e3A54538791bDbb0E22373e36b66';
const SOLANA_ADDRESS = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';

function endpoint(service: 'korea' | 'analytics', id: string): EndpointDecl {
  const found = findEndpoint(service, id);
  if (!found) throw new Error(`no ${service} endpoint ${id}`);
  return found;
}
function query(service: 'korea' | 'analytics', id: string): z.ZodObject {
  const schema = endpoint(service, id).query;
  if (!schema) throw new Error(`${service} ${id} has no query schema`);
  return schema;
}
function pathParams(service: 'korea' | 'analytics', id: string): z.ZodObject {
  const schema = endpoint(service, id).pathParams;
  if (!schema) throw new Error(`${service} ${id} has no path parameters`);
  return schema;
}

describe('endpoint counts', () => {
  it("korea: 7 free and 16 paid endpoints, the free daily preview, and issue 32's archive and executable endpoints, all paid ones with an XRPL variant", () => {
    const korea = endpointsOf('korea');
    expect(
      korea
        .filter((e) => e.access === 'free')
        .map((e) => e.path)
        .sort(),
    ).toEqual(
      [
        '/',
        '/.well-known/x402',
        '/llms.txt',
        '/health',
        '/api/v1/symbols',
        '/api/v1/stats',
        '/docs',
        // the free daily preview of the Korea premium index (CC0)
        '/api/v1/kimchi-premium/daily',
      ].sort(),
    );
    expect(paidEndpoints('korea')).toHaveLength(19);
    expect(paidEndpoints('korea').every((e) => e.xrplVariant === true)).toBe(true);
    expect(korea.every((e) => e.method === 'GET')).toBe(true);
  });

  it("analytics: 7 free rate-limited data endpoints, 3 free service endpoints, 5 paid and issue 31's preflight", () => {
    const analytics = endpointsOf('analytics');
    const freeData = analytics.filter((e) => e.access === 'free' && e.dataset !== null);
    expect(freeData.map((e) => e.path).sort()).toEqual(
      [
        '/api/v1/landing-stats',
        '/api/v1/categories',
        '/api/v1/categories/:slug',
        '/api/v1/services',
        '/api/v1/services/:id',
        '/api/v1/trends',
        '/api/v1/wash-report',
      ].sort(),
    );
    expect(freeData.every((e) => e.rateLimited === true && e.cacheTtlSeconds === 300)).toBe(true);
    const freeService = analytics.filter((e) => e.access === 'free' && e.dataset === null);
    expect(freeService.map((e) => e.path).sort()).toEqual(['/.well-known/x402', '/health', '/llms.txt']);
    expect(freeService.every((e) => !e.rateLimited)).toBe(true);
    expect(paidEndpoints('analytics')).toHaveLength(6);
    expect(analytics.some((e) => e.xrplVariant)).toBe(false);
  });

  it('ENDPOINTS holds both services and nothing else', () => {
    expect(ENDPOINTS).toHaveLength(endpointsOf('korea').length + endpointsOf('analytics').length);
    expect(catalogProblems()).toEqual([]);
  });

  it('as many paid endpoints, free data endpoints and MCP tools as the spec asks for', () => {
    const count = (service: 'korea' | 'analytics', test: (e: EndpointDecl) => boolean) => endpointsOf(service).filter(test).length;
    expect({
      koreaPaid: count('korea', (e) => e.access === 'paid'),
      koreaMcpTools: count('korea', (e) => e.mcpTool !== undefined),
      analyticsFreeData: count('analytics', (e) => e.access === 'free' && e.dataset !== null),
      analyticsPaid: count('analytics', (e) => e.access === 'paid'),
      analyticsMcpTools: count('analytics', (e) => e.mcpTool !== undefined),
      // korea: the spec's 16 paid endpoints and 13 tools, and issue 32's archive (two endpoints and their tools),
      // the executable premium (an endpoint and its tool) and tools for the macro stress and the four news products;
      // analytics: the spec's 5 paid endpoints and 5 tools, and issue 31's preflight (an endpoint and its tool)
    }).toEqual({ koreaPaid: 19, koreaMcpTools: 21, analyticsFreeData: 7, analyticsPaid: 6, analyticsMcpTools: 6 });
  });
});

describe('prices', () => {
  it('korea paid endpoints cost what the spec says', () => {
    const actual = Object.fromEntries(paidEndpoints('korea').map((e) => [e.path, e.priceUsd]));
    expect(actual).toEqual(KOREA_PRICES);
  });

  it('the three endpoints whose listings disagree cost 0.001, and say only the price they are charged', () => {
    for (const id of ['kimchi-premium', 'stablecoin-premium', 'kr-prices']) {
      const e = endpoint('korea', id);
      expect(e.priceUsd).toBe('0.001');
      expect(e.description).toContain(' Price: 0.001 USD per call, paid with x402');
    }
  });

  it('korea prices lie within PRICE_RANGE', () => {
    for (const e of paidEndpoints('korea')) {
      const price = Number(e.priceUsd);
      expect(price).toBeGreaterThanOrEqual(PRICE_RANGE.min);
      expect(price).toBeLessThanOrEqual(PRICE_RANGE.max);
    }
  });

  it('analytics paid endpoints cost what the spec says', () => {
    const actual = Object.fromEntries(paidEndpoints('analytics').map((e) => [`${e.method} ${e.path}`, e.priceUsd]));
    expect(actual).toEqual(ANALYTICS_PRICES);
  });

  it('a paid endpoint states its price where people read it, made from priceUsd', () => {
    for (const e of ENDPOINTS.filter((x) => x.access === 'paid')) {
      expect(e.description.match(/ Price: /g), e.id).toHaveLength(1);
      expect(e.description, e.id).toContain(` Price: ${e.priceUsd} USD per call`);
      if (e.mcpTool) expect(e.mcpTool.description.endsWith(` Paid: ${e.priceUsd} USD.`), e.mcpTool.description).toBe(true);
    }
    for (const e of ENDPOINTS.filter((x) => x.access === 'free')) {
      expect(e.description, e.id).not.toContain(' Price: ');
      if (e.mcpTool) expect(e.mcpTool.description, e.id).toMatch(/ Free\.$/);
    }
  });

  it('free endpoints have no price', () => {
    expect(ENDPOINTS.filter((e) => e.access === 'free').every((e) => e.priceUsd === undefined)).toBe(true);
  });
});

describe('cache TTLs', () => {
  it('follow the spec where it states them', () => {
    expect(endpoint('korea', 'kr-sentiment').cacheTtlSeconds).toBe(3600);
    expect(endpoint('korea', 'krw-macro-stress').cacheTtlSeconds).toBe(900);
    for (const e of endpointsOf('korea').filter((x) => x.path.startsWith('/api/v1/kr-news/'))) {
      expect(e.cacheTtlSeconds).toBe(300);
    }
    expect(endpoint('analytics', 'wash.check').cacheTtlSeconds).toBe(0);
  });
});

describe('MCP tools', () => {
  it('every korea tool of the spec is present exactly once', () => {
    const names = mcpTools('korea').map((t) => t.name);
    expect([...names].sort()).toEqual([...KOREA_TOOLS].sort());
    expect(new Set(names).size).toBe(names.length);
  });

  it('every analytics tool of the spec is present exactly once', () => {
    const names = mcpTools('analytics').map((t) => t.name);
    expect([...names].sort()).toEqual([...ANALYTICS_TOOLS].sort());
    expect(new Set(names).size).toBe(names.length);
  });

  it('tools sit on the endpoints they serve', () => {
    const toolPath = (service: 'korea' | 'analytics', name: string) => mcpTools(service).find((t) => t.name === name)?.endpoint.path;
    expect(toolPath('korea', 'get_available_symbols')).toBe('/api/v1/symbols');
    expect(toolPath('korea', 'check_health')).toBe('/health');
    expect(toolPath('korea', 'get_global_vs_korea_divergence')).toBe('/api/v1/global-vs-korea-divergence');
    expect(toolPath('korea', 'get_global_vs_korea_divergence_deep')).toBe('/api/v1/global-vs-korea-divergence-deep');
    expect(toolPath('korea', 'get_kimchi_premium')).toBe('/api/v1/kimchi-premium');
    expect(toolPath('analytics', 'x402_get_categories')).toBe('/api/v1/categories');
    expect(toolPath('analytics', 'x402_get_service')).toBe('/api/v1/services/:id');
    expect(toolPath('analytics', 'x402_check_wash')).toBe('/api/v1/wash-report');
    expect(toolPath('analytics', 'x402_search_services')).toBe('/api/v1/services');
    expect(toolPath('analytics', 'x402_get_trends')).toBe('/api/v1/trends');
  });

  it('tool inputs merge path parameters and query', () => {
    const getService = mcpTools('analytics').find((t) => t.name === 'x402_get_service');
    expect(getService?.input.parse({ id: 7 })).toEqual({ id: 7 });
    const search = mcpTools('analytics').find((t) => t.name === 'x402_search_services');
    expect(search?.input.parse({ page_size: 10, active_only: true })).toMatchObject({ page_size: 10, active_only: true, sort: 'tx_24h' });
  });
});

describe('korea parameters', () => {
  const news = query('korea', 'kr-news-kpop');

  it('limit: integer 1..10, default 5', () => {
    for (const bad of ['0', '11', '3.5', 'abc', '', '-1', '1e1']) {
      expect(news.safeParse({ limit: bad }).success, `limit=${bad}`).toBe(false);
    }
    expect(news.parse({ limit: '5' })).toEqual({ limit: 5 });
    expect(news.parse({ limit: '1' })).toEqual({ limit: 1 });
    expect(news.parse({ limit: '10' })).toEqual({ limit: 10 });
    expect(news.parse({ limit: 7 })).toEqual({ limit: 7 });
    expect(news.parse({})).toEqual({ limit: 5 });
  });

  it('limit errors name what is allowed', () => {
    const result = news.safeParse({ limit: '3.5' });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/integer from 1 to 10/);
    expect(result.error?.issues[0]?.path).toEqual(['limit']);
  });

  it('every news endpoint takes the same limit', () => {
    for (const id of ['kr-news-kpop', 'kr-news-kpop-summary', 'kr-news-semiconductor', 'kr-news-semiconductor-summary']) {
      const schema = query('korea', id);
      expect(schema.safeParse({ limit: '11' }).success).toBe(false);
      expect(schema.parse({})).toEqual({ limit: 5 });
    }
  });

  it('exchange: upbit, bithumb, coinone, korbit or all (default all)', () => {
    const prices = query('korea', 'kr-prices');
    expect(prices.safeParse({ exchange: 'gopax' }).success).toBe(false);
    expect(prices.parse({ exchange: 'Korbit' })).toEqual({ symbol: 'BTC', exchange: 'korbit' });
    expect(prices.parse({ exchange: 'upbit' })).toEqual({ symbol: 'BTC', exchange: 'upbit' });
    expect(prices.parse({})).toEqual({ symbol: 'BTC', exchange: 'all' });
  });

  it('symbol: a ticker of 1 to 15 letters or digits, default BTC, case-insensitive', () => {
    const kimchi = query('korea', 'kimchi-premium');
    expect(kimchi.parse({})).toEqual({ symbol: 'BTC' });
    expect(kimchi.parse({ symbol: 'PEPE' })).toEqual({ symbol: 'PEPE' });
    expect(kimchi.parse({ symbol: 'eth' })).toEqual({ symbol: 'ETH' });
    expect(kimchi.parse({ symbol: '1INCH' })).toEqual({ symbol: '1INCH' });
    for (const bad of ['', 'BTC-KRW', 'A'.repeat(16), 'BT C', 42]) {
      expect(kimchi.safeParse({ symbol: bad }).success, `symbol=${String(bad)}`).toBe(false);
    }
  });

  it('divergence symbol: exactly the 25 symbols of the spec', () => {
    expect(DIVERGENCE_SYMBOLS).toEqual([
      'BTC',
      'ETH',
      'XRP',
      'SOL',
      'ADA',
      'DOGE',
      'DOT',
      'MATIC',
      'LINK',
      'AVAX',
      'ATOM',
      'UNI',
      'LTC',
      'NEAR',
      'OP',
      'ARB',
      'APT',
      'ALGO',
      'FTM',
      'SUI',
      'TRX',
      'BCH',
      'ETC',
      'HBAR',
      'SHIB',
    ]);
    for (const id of ['global-vs-korea-divergence', 'global-vs-korea-divergence-deep']) {
      const schema = query('korea', id);
      expect(schema.safeParse({ symbol: 'PEPE' }).success).toBe(false);
      expect(schema.parse({ symbol: 'BTC' })).toEqual({ symbol: 'BTC' });
      expect(schema.parse({})).toEqual({ symbol: 'BTC' });
      for (const symbol of DIVERGENCE_SYMBOLS) expect(schema.parse({ symbol })).toEqual({ symbol });
    }
  });

  it('exports the same schemas it declares', () => {
    expect(query('korea', 'kr-news-kpop')).toBe(KOREA_QUERIES.NewsQuery);
  });
});

describe('analytics parameters', () => {
  const services = query('analytics', 'services.list');

  it('services list: defaults', () => {
    expect(services.parse({})).toEqual({
      active_only: false,
      live_only: false,
      show_placeholder: false,
      sort: 'tx_24h',
      order: 'desc',
      page: 1,
      page_size: 50,
    });
  });

  it('services list: accepts every documented value', () => {
    const parsed = services.parse({
      search: '  weather api ',
      category: 'weather',
      chain: 'solana',
      price_bucket: '0.001_0.01',
      min_real_pct: '12.5',
      max_wash_pct: '40',
      active_only: 'true',
      min_grade: 'B',
      live_only: 'true',
      show_placeholder: '1',
      sort: 'volume_24h',
      order: 'asc',
      page: '3',
      page_size: '200',
    });
    expect(parsed).toEqual({
      search: 'weather api',
      category: 'weather',
      chain: 'solana',
      price_bucket: '0.001_0.01',
      min_real_pct: 12.5,
      max_wash_pct: 40,
      active_only: true,
      min_grade: 'B',
      live_only: true,
      show_placeholder: true,
      sort: 'volume_24h',
      order: 'asc',
      page: 3,
      page_size: 200,
    });
    for (const sort of SERVICE_SORT_KEYS) expect(services.safeParse({ sort }).success).toBe(true);
    for (const price_bucket of PRICE_BUCKETS) expect(services.safeParse({ price_bucket }).success).toBe(true);
    for (const category of CATEGORY_SLUGS) expect(services.safeParse({ category }).success).toBe(true);
    expect(services.parse({ active_only: '0', show_placeholder: 'false' })).toMatchObject({ active_only: false, show_placeholder: false });
  });

  it('services list: rejects bad values', () => {
    const bad: Record<string, unknown>[] = [
      { page_size: '500' },
      { page_size: '0' },
      { page: '0' },
      { page: '1.5' },
      { sort: 'bogus' },
      { order: 'up' },
      { category: 'nope' },
      { chain: 'ethereum' },
      { price_bucket: 'cheap' },
      { min_real_pct: '101' },
      { max_wash_pct: '-1' },
      { min_real_pct: 'lots' },
      { active_only: 'yes' },
      { show_placeholder: '2' },
      { search: 'x'.repeat(101) },
    ];
    for (const input of bad) expect(services.safeParse(input).success, JSON.stringify(input)).toBe(false);
  });

  it('path parameters: slug, id, address', () => {
    const slug = pathParams('analytics', 'categories.detail');
    expect(slug.parse({ slug: 'ai_inference' })).toEqual({ slug: 'ai_inference' });
    expect(slug.safeParse({ slug: 'AI' }).success).toBe(false);
    expect(pathParams('analytics', 'categories.full-history').safeParse({ slug: 'nope' }).success).toBe(false);

    for (const id of ['services.detail', 'services.wash-detail', 'services.transactions']) {
      const schema = pathParams('analytics', id);
      expect(schema.parse({ id: '42' })).toEqual({ id: 42 });
      for (const bad of ['0', '-3', '1.5', 'abc', '']) expect(schema.safeParse({ id: bad }).success, `id=${bad}`).toBe(false);
      expect(schema.safeParse({}).success).toBe(false);
    }

    const address = pathParams('analytics', 'buyers.profile');
    expect(address.safeParse({ address: '0x123' }).success).toBe(false);
    expect(address.safeParse({ address: '0x' + 'g'.repeat(40) }).success).toBe(false);
    expect(address.safeParse({ address: 'O0Il'.repeat(10) }).success).toBe(false);
    expect(address.parse({ address: EVM_ADDRESS })).toEqual({ address: EVM_ADDRESS });
    expect(address.parse({ address: EVM_ADDRESS.toLowerCase() })).toEqual({ address: EVM_ADDRESS.toLowerCase() });
    expect(address.parse({ address: SOLANA_ADDRESS })).toEqual({ address: SOLANA_ADDRESS });
  });

  it('wash check body: {address}', () => {
    const body = endpoint('analytics', 'wash.check').body;
    expect(body).toBe(ANALYTICS_PARAMS.WashCheckRequest);
    expect(body?.safeParse({ address: '0x123' }).success).toBe(false);
    expect(body?.safeParse({}).success).toBe(false);
    expect(body?.parse({ address: SOLANA_ADDRESS })).toEqual({ address: SOLANA_ADDRESS });
  });
});

describe('datasets', () => {
  it('every endpoint names a declared dataset, or null for what the proxy computes', () => {
    for (const e of ENDPOINTS) {
      if (e.dataset !== null) expect(findDataset(e.service, e.dataset), `${e.service} ${e.id}`).toBeDefined();
    }
    const nullDataset = ENDPOINTS.filter((e) => e.dataset === null)
      .map((e) => `${e.service} ${e.path}`)
      .sort();
    expect(nullDataset).toEqual(
      [
        'analytics /.well-known/x402',
        'analytics /health',
        'analytics /llms.txt',
        'korea /',
        'korea /.well-known/x402',
        'korea /docs',
        'korea /health',
        'korea /llms.txt',
      ].sort(),
    );
    expect(endpoint('analytics', 'wash.check').dataset).toBe('buyers');
  });

  it('has exactly the agreed names', () => {
    expect(
      datasetsOf('korea')
        .map((d) => d.name)
        .sort(),
    ).toEqual(
      [
        'kr-prices',
        'kimchi-premium',
        'stablecoin-premium',
        'fx-rate',
        'arbitrage-scanner',
        'exchange-alerts',
        'market-movers',
        'krw-macro-stress',
        'kr-sentiment',
        'market-read',
        'divergence',
        'kr-news-kpop',
        'kr-news-semiconductor',
        'symbols',
        'stats',
        // issue 32: the premium archive
        'kimchi-premium-1m',
        'kimchi-premium-1h',
        'kimchi-premium-1d',
        // the free daily preview of the archive's index (CC0)
        'kimchi-premium-daily',
        // issue 32: the executable premium and the books it walks
        'arbitrage-executable',
        'order-books',
      ].sort(),
    );
    expect(
      datasetsOf('analytics')
        .map((d) => d.name)
        .sort(),
    ).toEqual(
      [
        'landing-stats',
        'categories',
        'category-detail',
        'services',
        'service-health',
        'service-detail',
        'trends',
        'wash-report',
        'operators',
        'wash-detail',
        'buyer-profiles',
        'buyers',
        'transactions',
        'full-history',
        // the wash check's seller rows (paid-only, never downloadable)
        'wash-check-sellers',
      ].sort(),
    );
  });

  it('licenses, downloads and kinds', () => {
    for (const d of datasetsOf('korea')) {
      // the daily preview is the one korea dataset dedicated to the public domain
      expect(d.license).toBe(d.name === 'kimchi-premium-daily' ? 'CC0-1.0' : 'proprietary');
      expect(d.publicDownload).toBe(d.name === 'symbols' || d.name === 'stats' || d.name === 'kimchi-premium-daily');
      expect(d.kind).toBe(
        d.name === 'kr-prices' || d.name === 'order-books' || d.name.startsWith('kimchi-premium-') ? 'table' : 'document',
      );
    }
    const paid = ['wash-detail', 'buyer-profiles', 'buyers', 'transactions', 'full-history', 'wash-check-sellers'];
    for (const d of datasetsOf('analytics')) {
      const free = !paid.includes(d.name);
      expect(d.license).toBe(free ? 'CC0-1.0' : 'proprietary');
      expect(d.publicDownload).toBe(free);
      expect(d.updateEverySeconds).toBe(3600);
    }
    for (const name of ['services', 'service-detail', 'category-detail', ...paid]) {
      expect(findDataset('analytics', name)?.kind).toBe('table');
    }
  });

  it('update schedules and staleness', () => {
    const every = (name: string) => findDataset('korea', name)?.updateEverySeconds;
    expect(every('kr-prices')).toBe(60);
    expect(every('krw-macro-stress')).toBe(900);
    expect(every('kr-sentiment')).toBe(3600);
    expect(every('kr-news-kpop')).toBe(300);
    expect(every('symbols')).toBe(3600);
    // explicit where the schedule is sparser than the update interval: news every 15 minutes, macro
    // daily
    const explicit: Record<string, number> = {
      'kr-news-kpop': 2700,
      'kr-news-semiconductor': 2700,
      'krw-macro-stress': 172_800,
    };
    for (const d of DATASETS) {
      expect(d.staleAfterSeconds, d.name).toBe(explicit[d.name] ?? Math.max(3 * d.updateEverySeconds, 600));
    }
    expect(findDataset('korea', 'kr-prices')?.staleAfterSeconds).toBe(600);
    expect(findDataset('analytics', 'services')?.staleAfterSeconds).toBe(3 * 3600);
    expect(findDataset('korea', 'nope')).toBeUndefined();
    expect(findDataset('analytics', 'kr-prices')).toBeUndefined();
  });

  it('every dataset declares its shape; the services table starts with the list item, in its order', () => {
    for (const d of DATASETS) {
      if (d.kind === 'table') expect(Object.keys(d.columns).length, d.name).toBeGreaterThan(0);
      else expect(typeof d.document.safeParse, d.name).toBe('function');
    }
    const services = findDataset('analytics', 'services');
    expect(services?.kind).toBe('table');
    const listItem = Object.keys(ANALYTICS_RESPONSES.ServiceListItem.shape);
    expect(services?.kind === 'table' && Object.keys(services.columns).slice(0, listItem.length)).toEqual(listItem);
    expect(SERVICE_LIST_ITEM_COLUMNS).toEqual(listItem);
    // a shape without a declaration is a dataset nobody publishes
    expect(Object.keys(KOREA_DATASET_SHAPES).sort()).toEqual(
      datasetsOf('korea')
        .map((d) => d.name)
        .sort(),
    );
    expect(Object.keys(ANALYTICS_DATASET_SHAPES).sort()).toEqual(
      datasetsOf('analytics')
        .map((d) => d.name)
        .sort(),
    );
  });
});

describe('helpers', () => {
  it('xrplPath', () => {
    expect(xrplPath('/api/v1/kimchi-premium')).toBe('/api/v1/xrpl/kimchi-premium');
    expect(xrplPath('/api/v1/kr-news/kpop')).toBe('/api/v1/xrpl/kr-news/kpop');
    expect(() => xrplPath('/health')).toThrow(/does not start with/);
  });

  it('catalogProblems names what is wrong', () => {
    const kimchi = endpoint('korea', 'kimchi-premium');
    const broken: EndpointDecl[] = [
      ...ENDPOINTS,
      { ...kimchi, path: '/api/v1/other' },
      { ...kimchi, id: 'too-expensive', path: '/api/v1/too-expensive', priceUsd: '0.5', mcpTool: undefined },
      { ...kimchi, id: 'no-dataset', path: '/api/v1/no-dataset', dataset: 'nope', mcpTool: undefined },
      { ...kimchi, id: 'free-with-price', path: '/api/v1/free-with-price', access: 'free', mcpTool: undefined },
    ];
    const problems = catalogProblems(broken).join('\n');
    expect(problems).toMatch(/"kimchi-premium".*duplicate id/);
    expect(problems).toMatch(/duplicate MCP tool get_kimchi_premium/);
    expect(problems).toMatch(/too-expensive.*outside 0.001..0.1/);
    expect(problems).toMatch(/dataset "nope" is not declared/);
    expect(problems).toMatch(/free-with-price.*needs priceUsd and a free one must not/);
  });
});

describe('response schemas', () => {
  const asOf = '2026-08-04T02:37:05Z';

  it('every endpoint has a response schema; every data response carries source and as_of', () => {
    for (const e of ENDPOINTS) {
      expect(e.response, e.id).toBeDefined();
      if (e.dataset !== null) {
        const shape = 'shape' in e.response ? (e.response as z.ZodObject).shape : {};
        expect(Object.keys(shape), `${e.service} ${e.id}`).toEqual(expect.arrayContaining(['source', 'as_of']));
      }
    }
  });

  it('kimchi premium', () => {
    const body = {
      source: 'demo',
      as_of: asOf,
      symbol: 'BTC',
      korean_name: '비트코인',
      fx_rate: 1387.5,
      fx_source: 'dunamu',
      fx_as_of: asOf,
      global_price_usd: 65300,
      global_source: 'binance',
      exchanges: [
        { exchange: 'upbit', price_krw: 91_200_000, premium_pct: 0.658, last_trade_at: asOf, usdt_krw: 1392, usdt_premium_pct: 0.333 },
      ],
      index: {
        premium_pct: 0.658,
        price_krw: 91_200_000,
        global_price_usd: 65300,
        global_venues: ['binance'],
        exchanges: [{ exchange: 'upbit', weight_pct: 100 }],
      },
      korea_index: {
        premium_pct: 0.71,
        symbols: 180,
        volume_24h_krw: 1.2e12,
        exchanges_used: ['upbit'],
        exchanges: [{ exchange: 'upbit', symbols: 180, volume_24h_krw: 1.2e12, weight_pct: 100 }],
        left_out: [{ exchange: 'korbit', reason: 'korbit: HTTP 503' }],
        method: 'volume-weighted',
      },
      unavailable_exchanges: [],
    };
    expect(KOREA_RESPONSES.KimchiPremiumBody.safeParse(body).success).toBe(true);
    expect(KOREA_RESPONSES.KimchiPremiumBody.safeParse({ ...body, source: 'fake' }).success).toBe(false);
  });

  it('krw macro stress has five components and bounded score', () => {
    const component = (name: string, weight: number) => ({
      name,
      label: name,
      raw_value: 1,
      unit: 'percent',
      percentile: 50,
      weight,
      effective_weight: weight,
      freshness_days: 0,
      last_observation: '2026-08-03',
      degraded: false,
      degraded_reason: null,
      inputs: { value: 1 },
    });
    const body = {
      source: 'demo',
      as_of: asOf,
      data_date: '2026-08-04',
      score: 45.4,
      regime: 'caution',
      direction: 'stable',
      usdkrw_change_5d_pct: 0.1,
      usdkrw_now: { rate: 1387.5, source: 'dunamu', as_of: asOf },
      components: [
        component('us_rate_stress', 0.25),
        component('risk_sentiment', 0.25),
        component('foreign_flow', 0.2),
        component('fx_momentum', 0.2),
        component('semiconductor', 0.1),
      ],
      degraded: [],
      history: [{ date: '2026-08-04', score: 45.4, regime: 'caution' }],
      note: 'US yields are high relative to the last 120 days.',
      analyst: 'rules',
      model: null,
      window_days: 120,
      method: 'rolling percentile 120d, weights 25/25/20/20/10',
    };
    const schema = KOREA_RESPONSES.KrwMacroStressBody;
    expect(schema.safeParse(body).success).toBe(true);
    expect(schema.safeParse({ ...body, score: 101 }).success).toBe(false);
    expect(schema.safeParse({ ...body, direction: 'krw_stable' }).success).toBe(false);
    expect(schema.safeParse({ ...body, components: body.components.slice(0, 4) }).success).toBe(false);
  });

  it('services list envelope', () => {
    const body = {
      source: 'demo',
      as_of: asOf,
      services: [
        {
          id: 1,
          chain: 'base',
          seller_address: EVM_ADDRESS,
          resource_url: 'https://api.example.org/weather',
          name: 'Weather',
          description: 'Forecasts',
          category: 'weather',
          price_amount: null,
          first_seen: '2026-07-01T00:00:00+00:00',
          tx_24h: 3,
          volume_24h: 0.03,
          tx_total: 10,
          real_volume_pct: 80,
          wash_pct: 10,
          label_distribution: { organic_user: 0.8, suspected_wash: 0.1, unlabeled: 0.1 },
          trust_grade: 'A',
          uptime_7d_pct: 99.7,
          latency_p50_ms: 180,
          latency_p99_ms: 720,
          payto_consistent: null,
          last_probe_at: '2026-07-01T00:00:00Z',
        },
      ],
      pagination: { page: 1, page_size: 50, total: 1, total_pages: 1 },
      summary: { total_volume_24h: 0.03, total_tx_24h: 3 },
      filters_applied: {
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
      },
      chain_coverage: [...CHAIN_COVERAGE],
    };
    expect(ANALYTICS_RESPONSES.ServicesListBody.safeParse(body).success).toBe(true);
    const { filters_applied: _dropped, ...withoutFilters } = body;
    expect(ANALYTICS_RESPONSES.ServicesListBody.safeParse(withoutFilters).success).toBe(false);
  });

  it('error bodies', () => {
    expect(
      ValidationErrorBody.safeParse({
        detail: [{ loc: ['query', 'limit'], msg: 'Expected an integer from 1 to 10, got "abc"', type: 'int_parsing', input: 'abc' }],
      }).success,
    ).toBe(true);
    expect(ValidationErrorBody.safeParse({ detail: [{ loc: ['query', 'limit'], msg: 'x' }] }).success).toBe(false);
    expect(
      PaymentRequiredBody.safeParse({
        x402Version: 1,
        error: 'X-PAYMENT header is required',
        accepts: [
          {
            scheme: 'exact',
            network: 'base',
            maxAmountRequired: '1000',
            asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
            payTo: EVM_ADDRESS,
            resource: 'http://127.0.0.1:4020/api/v1/kimchi-premium',
            description: 'Kimchi premium',
            mimeType: 'application/json',
            maxTimeoutSeconds: 300,
            extra: { name: 'USD Coin', version: '2' },
          },
        ],
      }).success,
    ).toBe(true);
    expect(PaymentRequiredBody.safeParse({ accepts: [] }).success).toBe(false);
  });
});
