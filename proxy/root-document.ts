/**
 * The JSON root document (`/` of the korea service, `/api/v1` of the analytics service): what the
 * service is, where its docs are, and every endpoint with its price, from the catalog.
 */
import { endpointsOf, SERVICE_INFO, xrplPath } from '../catalog/index.ts';
import type { ServiceName } from '../catalog/types.ts';
import type { Settings } from '../lib/config.ts';
import type { SnapshotReader } from '../snapshots/reader.ts';
import { aiModeOf } from './health.ts';

export function rootDocument(service: ServiceName, reader: SnapshotReader, settings: Settings) {
  const snap = reader.current();
  const endpoints = endpointsOf(service).map((e) => ({
    method: e.method,
    path: e.path,
    summary: e.summary,
    access: e.access,
    price_usd: e.priceUsd ?? null,
    ...(e.xrplVariant ? { xrpl_path: xrplPath(e.path) } : {}),
    ...(e.mcpTool ? { mcp_tool: e.mcpTool.name } : {}),
  }));
  const info = SERVICE_INFO[service];
  return {
    name: info.title,
    description: info.description,
    service,
    networks: info.networks.map((n) => ({ network: n.network, caip2: n.caip2, asset: n.asset, xrpl_variants_only: n.xrplVariantsOnly })),
    api_version: '0.1.0',
    docs: { reference: '/docs', llms_txt: '/llms.txt', openapi: '/openapi.json', x402_manifest: '/.well-known/x402' },
    mcp: '/mcp',
    health: '/health',
    settlement_mode: settings.settlement,
    ai_mode: aiModeOf(snap, settings),
    snapshot: snap ? { version: snap.version, generated_at: snap.manifest.generated_at, notice: snap.manifest.notice } : null,
    endpoints,
  };
}
