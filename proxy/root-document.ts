/**
 * The JSON root document (`/` of the korea service, `/api/v1` of the analytics service): what the
 * service is, where its docs are, and every endpoint with its price, from the catalog.
 */
import { endpointsOf, xrplPath } from '../catalog/index.ts';
import type { ServiceName } from '../catalog/types.ts';
import type { Settings } from '../lib/config.ts';
import type { SnapshotReader } from '../snapshots/reader.ts';

const ABOUT: Record<ServiceName, { name: string; description: string }> = {
  korea: {
    name: 'Korean Crypto Market Intelligence',
    description:
      'Upbit and Bithumb prices, kimchi and stablecoin premiums, USD/KRW, arbitrage, exchange alerts, market movers, a KRW macro stress score, AI sentiment and divergence, and Korean K-pop and semiconductor news in English. Paid per call with x402; no accounts or API keys.',
  },
  analytics: {
    name: 'x402 Service Analytics',
    description:
      'An index of x402 pay-per-call services and their transactions with an 8-label buyer classification that separates real traffic from wash traffic. Free public-domain data plus paid slices settled with x402.',
  },
};

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
  return {
    ...ABOUT[service],
    service,
    api_version: '0.1.0',
    docs: { reference: '/docs', llms_txt: '/llms.txt', openapi: '/openapi.json', x402_manifest: '/.well-known/x402' },
    mcp: '/mcp',
    health: '/health',
    settlement_mode: settings.settlement,
    ai_mode: settings.aiMode,
    snapshot: snap
      ? { version: snap.version, generated_at: snap.manifest.generated_at, notice: snap.manifest.notice }
      : null,
    endpoints,
  };
}
