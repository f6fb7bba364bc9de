/**
 * The catalog: every endpoint of both services, declared once, checked when this module loads.
 * Routes, 422 validation, 402 requirements, OpenAPI, /docs, /llms.txt, /.well-known/x402, MCP
 * tools and the site's downloads all read from here.
 */
import { z } from 'zod';
import { ANALYTICS_ENDPOINTS } from './analytics.ts';
import { DATASETS, findDataset } from './datasets.ts';
import { KOREA_ENDPOINTS } from './korea.ts';
import { SERVICE_NETWORKS, usdcNetworksText, type PaymentNetwork } from './networks.ts';
import type { EndpointDecl, ServiceName } from './types.ts';

export { DIVERGENCE_SYMBOLS } from './korea.ts';
export { DATASETS, datasetsOf, findDataset } from './datasets.ts';
export type { DatasetDecl, EndpointDecl, HttpMethod, ServiceName } from './types.ts';
export { SERVICES } from './types.ts';
export type { PaymentNetwork, SettlementNetwork } from './networks.ts';

export const ENDPOINTS: readonly EndpointDecl[] = [...KOREA_ENDPOINTS, ...ANALYTICS_ENDPOINTS];

/** Price range per call (USD) the korea contract states (docs/services.md, "Korea limits"); every korea price lies within it. */
export const PRICE_RANGE = { min: 0.001, max: 0.1, currency: 'USD' } as const;

export interface ServiceInfo {
  /** The service's one name: page titles, OpenAPI, /docs, and the 402's `resource.serviceName` (at most 32 characters). */
  title: string;
  description: string;
  /** Settlement networks the service offers. */
  networks: readonly PaymentNetwork[];
}

export const SERVICE_INFO: Record<ServiceName, ServiceInfo> = {
  korea: {
    title: 'Korea Crypto Market Intelligence',
    description:
      'Upbit and Bithumb prices, kimchi and stablecoin premiums, USD/KRW, arbitrage data, exchange alerts, market movers, a KRW macro ' +
      'stress score, AI sentiment, market read and global-vs-Korea divergence, and Korean K-pop and semiconductor news in English. ' +
      `Paid per call with x402 (USDC on ${usdcNetworksText('korea')}; RLUSD on XRPL under /api/v1/xrpl/...); no accounts or API keys. ` +
      'Every data response says whether it is live or demo data (`source`) and when it was computed (`as_of`).',
    networks: SERVICE_NETWORKS.korea,
  },
  analytics: {
    title: 'x402 Service Analytics',
    description:
      'An index of x402 pay-per-call services and their transactions, with an 8-label buyer classification that separates real ' +
      'traffic from wash traffic, and 24-hour trends. Seven free endpoints (public domain, CC0-1.0; 60 requests per hour per IP) ' +
      `and five paid ones settled with x402 in USDC on ${usdcNetworksText('analytics')}. Every data response says whether it is live or demo data ` +
      '(`source`) and when it was computed (`as_of`).',
    networks: SERVICE_NETWORKS.analytics,
  },
};

export function endpointsOf(service: ServiceName): EndpointDecl[] {
  return ENDPOINTS.filter((e) => e.service === service);
}

export function findEndpoint(service: ServiceName, id: string): EndpointDecl | undefined {
  return ENDPOINTS.find((e) => e.service === service && e.id === id);
}

export function paidEndpoints(service: ServiceName): EndpointDecl[] {
  return endpointsOf(service).filter((e) => e.access === 'paid');
}

/**
 * Whether a query parameter the endpoint does not declare is refused (422): on every endpoint that
 * reads data, free or paid, where a misspelt filter would otherwise be answered as if absent and a
 * paid endpoint's 402 would carry whatever was appended. The service's own documents (`/`,
 * `/health`, `/docs`, `/llms.txt`, `/.well-known/x402`) take no parameters and ignore them, so a
 * tracking or cache-busting parameter on a link still works.
 */
export function refusesUnknownQuery(endpoint: EndpointDecl): boolean {
  return endpoint.dataset !== null;
}

const API_PREFIX = '/api/v1/';

/** Path of the XRPL (RLUSD) variant of a korea paid endpoint: '/api/v1/x' → '/api/v1/xrpl/x'. */
export function xrplPath(path: string): string {
  if (!path.startsWith(API_PREFIX)) throw new Error(`xrplPath: "${path}" does not start with ${API_PREFIX}`);
  return `${API_PREFIX}xrpl/${path.slice(API_PREFIX.length)}`;
}

export interface McpToolDecl {
  name: string;
  description: string;
  endpoint: EndpointDecl;
  /** Tool input: the endpoint's path parameters, query and body merged into one object. */
  input: z.ZodObject;
}

export function mcpTools(service: ServiceName): McpToolDecl[] {
  return endpointsOf(service).flatMap((endpoint) => {
    if (!endpoint.mcpTool) return [];
    const shape = { ...endpoint.pathParams?.shape, ...endpoint.query?.shape, ...endpoint.body?.shape };
    return [{ ...endpoint.mcpTool, endpoint, input: z.object(shape) }];
  });
}

// ------------------------------------------------------------------ checked at load

const PRICE_TEXT = /^\d+\.\d+$/;
const BAZAAR_TAG = /^[a-z0-9][a-z0-9-]{0,31}$/;
/** The title is the 402's `resource.serviceName` too, which the Bazaar spec bounds to 32 printable ASCII characters. */
const BAZAAR_SERVICE_NAME = /^[\x20-\x7e]{1,32}$/;

/**
 * Every problem with the declarations that would make routes, prices or MCP tools wrong at run
 * time, in words; empty when the catalog is consistent. The module refuses to load with any.
 * How many endpoints and tools the contract (docs/services.md) asks for is checked in catalog.test.ts.
 */
export function catalogProblems(endpoints: readonly EndpointDecl[] = ENDPOINTS): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  const note = (key: string, problem: string) => {
    if (seen.has(key)) problems.push(problem);
    seen.add(key);
  };
  for (const e of endpoints) {
    const where = `${e.service} endpoint "${e.id}" (${e.method} ${e.path})`;
    note(`id:${e.service}:${e.id}`, `${where}: duplicate id`);
    note(`route:${e.service}:${e.method} ${e.path}`, `${where}: duplicate method and path`);
    if (e.mcpTool) note(`tool:${e.service}:${e.mcpTool.name}`, `${where}: duplicate MCP tool ${e.mcpTool.name}`);
    if ((e.access === 'paid') !== (e.priceUsd !== undefined)) {
      problems.push(`${where}: a paid endpoint needs priceUsd and a free one must not have it`);
    }
    if (e.priceUsd !== undefined) {
      const price = Number(e.priceUsd);
      if (!PRICE_TEXT.test(e.priceUsd) || !(price > 0))
        problems.push(`${where}: priceUsd "${e.priceUsd}" is not a positive decimal like "0.001"`);
      if (e.service === 'korea' && (price < PRICE_RANGE.min || price > PRICE_RANGE.max)) {
        problems.push(`${where}: price ${e.priceUsd} is outside ${PRICE_RANGE.min}..${PRICE_RANGE.max} USD`);
      }
    }
    if (e.xrplVariant && (e.service !== 'korea' || e.access !== 'paid'))
      problems.push(`${where}: only korea paid endpoints have XRPL variants`);
    if (e.service === 'korea' && e.access === 'paid' && !e.xrplVariant) problems.push(`${where}: korea paid endpoints need xrplVariant`);
    if (e.dataset !== null && !findDataset(e.service, e.dataset))
      problems.push(`${where}: dataset "${e.dataset}" is not declared in datasets.ts`);
    if (e.method === 'POST' && !e.body) problems.push(`${where}: POST needs a body schema`);
    if (e.method === 'GET' && e.body) problems.push(`${where}: GET cannot have a body`);
    const inPath = [...e.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1] ?? '').sort();
    const declared = Object.keys(e.pathParams?.shape ?? {}).sort();
    if (inPath.join(',') !== declared.join(',')) {
      problems.push(`${where}: path parameters [${inPath.join(', ')}] do not match pathParams [${declared.join(', ')}]`);
    }
    if (!(e.cacheTtlSeconds >= 0)) problems.push(`${where}: cacheTtlSeconds must be 0 or more`);
    // the Bazaar spec's bounds: facilitators drop tags past 5 or over 32 characters
    if (e.access === 'paid' && (!e.tags || e.tags.length === 0 || e.tags.length > 5 || e.tags.some((t) => !BAZAAR_TAG.test(t))))
      problems.push(`${where}: a paid endpoint needs 1 to 5 tags, each a lowercase slug of at most 32 characters`);
  }
  for (const [service, info] of Object.entries(SERVICE_INFO)) {
    if (!BAZAAR_SERVICE_NAME.test(info.title))
      problems.push(`service ${service}: title "${info.title}" is not 1 to 32 printable ASCII characters`);
  }
  const datasetNames = new Set<string>();
  for (const d of DATASETS) {
    if (datasetNames.has(`${d.service}:${d.name}`)) problems.push(`dataset ${d.service}/${d.name} is declared twice`);
    datasetNames.add(`${d.service}:${d.name}`);
  }
  return problems;
}

const problems = catalogProblems();
if (problems.length > 0) {
  throw new Error(`catalog: the endpoint declarations are inconsistent:\n- ${problems.join('\n- ')}`);
}
