/**
 * The API page's model, read from the catalog (every endpoint, price and MCP tool is declared
 * there once): the analytics service's free and paid endpoints with their paths as OpenAPI writes
 * them, prices, XRPL variants where the catalog declares any, the settlement networks and the MCP
 * tools.
 */
import { type EndpointDecl, mcpTools, SERVICE_INFO, type ServiceName, endpointsOf, xrplPath } from '../../catalog/index.ts';
import { SERVICE_NETWORKS } from '../../catalog/networks.ts';

export interface ApiEndpointRow {
  id: string;
  method: EndpointDecl['method'];
  /** OpenAPI form: '/api/v1/services/{id}'. */
  path: string;
  summary: string;
  access: EndpointDecl['access'];
  priceUsd: string | null;
  rateLimited: boolean;
  mcpTool: string | null;
  /** The XRPL (RLUSD) variant's path, for endpoints that have one. */
  xrplPath: string | null;
}

export interface ApiReference {
  title: string;
  description: string;
  free: ApiEndpointRow[];
  paid: ApiEndpointRow[];
  networks: Array<{ network: string; caip2: string; asset: string; xrplVariantsOnly: boolean }>;
  tools: Array<{ name: string; description: string; endpoint: string; access: EndpointDecl['access']; priceUsd: string | null }>;
}

const openApiPath = (path: string): string => path.replace(/:([A-Za-z_]+)/g, '{$1}');

function row(e: EndpointDecl): ApiEndpointRow {
  return {
    id: e.id,
    method: e.method,
    path: openApiPath(e.path),
    summary: e.summary,
    access: e.access,
    priceUsd: e.priceUsd ?? null,
    rateLimited: e.rateLimited === true,
    mcpTool: e.mcpTool?.name ?? null,
    xrplPath: e.xrplVariant ? openApiPath(xrplPath(e.path)) : null,
  };
}

export function apiReference(service: ServiceName = 'analytics'): ApiReference {
  const endpoints = endpointsOf(service);
  return {
    title: SERVICE_INFO[service].title,
    description: SERVICE_INFO[service].description,
    free: endpoints.filter((e) => e.access === 'free').map(row),
    paid: endpoints.filter((e) => e.access === 'paid').map(row),
    networks: SERVICE_NETWORKS[service].map(({ network, caip2, asset, xrplVariantsOnly }) => ({ network, caip2, asset, xrplVariantsOnly })),
    tools: mcpTools(service).map((t) => ({
      name: t.name,
      description: t.description,
      endpoint: `${t.endpoint.method} ${openApiPath(t.endpoint.path)}`,
      access: t.endpoint.access,
      priceUsd: t.endpoint.priceUsd ?? null,
    })),
  };
}
