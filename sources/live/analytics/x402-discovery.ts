/**
 * The x402 service catalog from a facilitator's discovery ("bazaar") endpoint,
 * `GET /discovery/resources?type=http&limit=&offset=` (docs/x402-protocol.md, "Discovery API"), mapped to
 * x402_services rows.
 *
 * Real catalogs are inconsistent, so parsing is per item and forgiving: v1 and v2 items mix
 * (`maxAmountRequired` vs `amount`, 'base' vs 'eip155:8453'), `lastUpdated` is seconds, ms or ISO,
 * `metadata` is usually absent and descriptions sit at the top level or in `accepts`. An item that
 * cannot be read is skipped and counted; only a broken page envelope fails the crawl.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { z } from 'zod';
import { CATEGORIES, CATEGORY_SLUGS, type AnalyticsChain, type CategorySlug } from '../../../catalog/categories.ts';
import { RAW_TABLES, type RawTable } from '../../raw-tables.ts';
import { createTableSql, queryJson } from '../../../lib/duckdb.ts';
import { chainOfNetwork, normalizeAddress, USDC, usdcToUsd } from './chains.ts';
import type { Upstream } from '../http.ts';
import { inTransaction, loadScratch } from '../scratch.ts';

export interface DiscoveryOptions {
  /** Items per page (the spec allows 1-100). */
  pageSize: number;
  /** Safety stop for an upstream whose pagination never ends. */
  maxPages: number;
}

export const DEFAULT_DISCOVERY_OPTIONS: DiscoveryOptions = { pageSize: 100, maxPages: 500 };

const Amount = z.union([z.string(), z.number()]);

const AcceptSchema = z.object({
  scheme: z.string().optional(),
  network: z.string(),
  amount: Amount.optional().nullable(), // v2
  maxAmountRequired: Amount.optional().nullable(), // v1 (and CDP's mixed v2 items)
  payTo: z.string().min(1),
  asset: z.string().optional().nullable(),
  description: z.string().optional().nullable(),
  outputSchema: z.unknown().optional(),
});
type Accept = z.infer<typeof AcceptSchema>;

const ItemSchema = z.object({
  resource: z.string().min(1),
  type: z.string().optional().nullable(),
  x402Version: z.number().optional().nullable(),
  accepts: z.array(z.unknown()),
  lastUpdated: z.union([z.number(), z.string()]).optional().nullable(),
  metadata: z.record(z.string(), z.unknown()).optional().nullable(),
  description: z.string().optional().nullable(),
  extensions: z.record(z.string(), z.unknown()).optional().nullable(),
});
type Item = z.infer<typeof ItemSchema>;

const PageSchema = z.object({
  x402Version: z.number().optional(),
  items: z.array(z.unknown()),
  pagination: z
    .object({
      limit: z.number().optional(),
      offset: z.number().optional(),
      total: z.number().optional(),
    })
    .optional()
    .nullable(),
});

export interface DiscoveredService {
  chain: AnalyticsChain;
  seller_address: string;
  resource_url: string;
  name: string;
  description: string | null;
  category: CategorySlug | null;
  price_amount: number | null;
  last_updated: Date | null;
  /** The HTTP method the listing declares (Bazaar input), null when it declares none: how the prober calls it. */
  method: string | null;
}

const HTTP_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']);
const InputSchema = z.object({ input: z.object({ method: z.string() }).partial() }).partial();

/** The method a listing declares: v2 extensions.bazaar.info.input, else v1 accepts[].outputSchema.input. */
export function declaredMethod(item: Pick<Item, 'extensions'>, accept: Pick<Accept, 'outputSchema'>): string | null {
  const bazaar = z.object({ info: InputSchema }).safeParse(item.extensions?.bazaar);
  const v1 = InputSchema.safeParse(accept.outputSchema);
  const method = (bazaar.success ? bazaar.data.info.input?.method : undefined) ?? (v1.success ? v1.data.input?.method : undefined);
  const upper = method?.trim().toUpperCase();
  return upper && HTTP_METHODS.has(upper) ? upper : null;
}

export interface DiscoveryCounts {
  pages: number;
  items: number;
  services: number;
  invalidItems: number;
  invalidAccepts: number;
  notHttp: number;
  duplicates: number;
  /** Accepts on networks the index does not cover, by network name. */
  unsupportedNetworks: Record<string, number>;
  /** The crawl hit `maxPages` before the catalog ended. */
  stoppedAtMaxPages: boolean;
}

export interface DiscoveryCrawl {
  services: DiscoveredService[];
  counts: DiscoveryCounts;
  /** Zod messages of the first few skipped items, for the run log. */
  problems: string[];
}

/** The base URL and path to request: X402_DISCOVERY_URL may be the facilitator root or the endpoint itself. */
export function discoveryEndpoint(url: string): { baseUrl: string; path: string } {
  const parsed = new URL(url);
  if (/\/discovery\/resources\/?$/.test(parsed.pathname)) return { baseUrl: url, path: '' };
  return { baseUrl: url, path: '/discovery/resources' };
}

/** `lastUpdated` as seconds, milliseconds, a numeric string or ISO-8601; null when unreadable. */
export function parseLastUpdated(value: number | string | null | undefined): Date | null {
  if (value === null || value === undefined) return null;
  const numeric = typeof value === 'number' ? value : /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : null;
  // Below 1e11 it is seconds (1e11 s is the year 5138; 1e11 ms is 1973).
  const ms = numeric !== null ? (numeric < 1e11 ? numeric * 1000 : numeric) : Date.parse(String(value));
  return Number.isFinite(ms) && ms > 0 ? new Date(ms) : null;
}

// Names that directories use for a category the 33 slugs name differently. Kept short and
// unambiguous: anything else stays NULL and the pipeline assigns the category.
const CATEGORY_ALIASES: Record<string, CategorySlug> = {
  finance: 'financial_data',
  financial: 'financial_data',
  defi: 'defi_data',
  nft: 'nft_data',
  nfts: 'nft_data',
  maps: 'maps_location',
  location: 'maps_location',
  ipfs: 'ipfs_storage',
  scraping: 'web_scraping',
  ecommerce: 'e_commerce',
  social: 'social_media',
  logistics: 'transport_logistics',
  identity: 'identity_verification',
};

/** The slug a metadata category names, or null. */
export function categoryFromMetadata(metadata: Record<string, unknown> | null | undefined): CategorySlug | null {
  const raw = metadata?.category;
  if (typeof raw !== 'string') return null;
  const key = raw
    .trim()
    .toLowerCase()
    .replace(/[\s\-/&]+/g, '_')
    .replace(/_+/g, '_');
  if ((CATEGORY_SLUGS as readonly string[]).includes(key)) return key as CategorySlug;
  const byTitle = CATEGORIES.find((c) => c.title.toLowerCase() === raw.trim().toLowerCase());
  if (byTitle) return byTitle.slug;
  return CATEGORY_ALIASES[key] ?? null;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

function nameFromUrl(resource: string): string {
  try {
    const u = new URL(resource);
    const path = u.pathname.replace(/\/+$/, '');
    return `${u.host}${path}`;
  } catch {
    return resource;
  }
}

/** A name: metadata's, else a short description, else the URL's host and path. */
function nameOf(item: Item, accept: Accept): string {
  const fromMeta = text(item.metadata?.name) ?? text(item.metadata?.title);
  if (fromMeta) return fromMeta.slice(0, 120);
  const desc = text(item.description) ?? text(accept.description);
  if (desc && desc.length <= 60 && !desc.includes('\n')) return desc.replace(/\.$/, '');
  return nameFromUrl(item.resource.trim()).slice(0, 120);
}

function atomicAmount(accept: Accept): bigint | null {
  const raw = accept.amount ?? accept.maxAmountRequired;
  if (raw === null || raw === undefined) return null;
  const s = String(raw).trim();
  return /^\d+$/.test(s) ? BigInt(s) : null;
}

/** USD per call when the asset is the chain's USDC; null for any other or missing asset. */
function priceUsd(chain: AnalyticsChain, accept: Accept): number | null {
  if (!accept.asset || normalizeAddress(chain, accept.asset) !== USDC[chain]) return null;
  const atomic = atomicAmount(accept);
  return atomic === null ? null : usdcToUsd(atomic);
}

/**
 * The services one discovery item describes: one per indexed chain it accepts payment on (an
 * item accepting USDC on Base and Solana is two services, as x402_services is keyed by chain).
 */
export function servicesFromItem(item: Item, counts: Pick<DiscoveryCounts, 'invalidAccepts' | 'unsupportedNetworks'>): DiscoveredService[] {
  const byChain = new Map<AnalyticsChain, Accept>();
  for (const raw of item.accepts) {
    const parsed = AcceptSchema.safeParse(raw);
    if (!parsed.success) {
      counts.invalidAccepts++;
      continue;
    }
    const accept = parsed.data;
    const chain = chainOfNetwork(accept.network);
    if (!chain) {
      counts.unsupportedNetworks[accept.network] = (counts.unsupportedNetworks[accept.network] ?? 0) + 1;
      continue;
    }
    const held = byChain.get(chain);
    // Several accepts on one chain (e.g. USDC and another token): the priced USDC one wins.
    if (!held || (priceUsd(chain, held) === null && priceUsd(chain, accept) !== null)) byChain.set(chain, accept);
  }
  const lastUpdated = parseLastUpdated(item.lastUpdated);
  return [...byChain].map(([chain, accept]) => ({
    chain,
    seller_address: normalizeAddress(chain, accept.payTo),
    resource_url: item.resource.trim(),
    name: nameOf(item, accept),
    description: text(item.description) ?? text(accept.description) ?? text(item.metadata?.description),
    category: categoryFromMetadata(item.metadata),
    price_amount: priceUsd(chain, accept),
    last_updated: lastUpdated,
    method: declaredMethod(item, accept),
  }));
}

/** Pages through the catalog until `pagination.total` is reached or a page comes back empty. */
export async function crawlDiscovery(
  upstream: Upstream,
  path: string,
  options: DiscoveryOptions = DEFAULT_DISCOVERY_OPTIONS,
): Promise<DiscoveryCrawl> {
  const counts: DiscoveryCounts = {
    pages: 0,
    items: 0,
    services: 0,
    invalidItems: 0,
    invalidAccepts: 0,
    notHttp: 0,
    duplicates: 0,
    unsupportedNetworks: {},
    stoppedAtMaxPages: false,
  };
  const problems: string[] = [];
  const seen = new Map<string, DiscoveredService>();
  let offset = 0;
  for (;;) {
    if (counts.pages >= options.maxPages) {
      counts.stoppedAtMaxPages = true;
      break;
    }
    const page = await upstream.getJson(path, { type: 'http', limit: options.pageSize, offset }, PageSchema);
    counts.pages++;
    if (page.items.length === 0) break;
    page.items.forEach((raw, i) => {
      counts.items++;
      const parsed = ItemSchema.safeParse(raw);
      if (!parsed.success) {
        counts.invalidItems++;
        if (problems.length < 5) {
          const issue = parsed.error.issues[0];
          problems.push(`item at offset ${offset + i}: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid'}`);
        }
        return;
      }
      if (parsed.data.type && parsed.data.type !== 'http') {
        counts.notHttp++; // MCP tools are keyed by (resource, tool), not a resource URL
        return;
      }
      for (const service of servicesFromItem(parsed.data, counts)) {
        const key = `${service.chain}\u0000${service.resource_url}`;
        // Offsets shift while a catalog changes under the crawl: the same resource can show twice.
        if (seen.has(key)) counts.duplicates++;
        else seen.set(key, service);
      }
    });
    // Advance by what came back: some servers cap `limit` below what was asked.
    offset += page.items.length;
    const total = page.pagination?.total;
    if (total !== undefined && offset >= total) break;
  }
  counts.services = seen.size;
  return { services: [...seen.values()], counts, problems };
}

/** One crawl's services, before first_seen is attached. */
const DISCOVERY_CRAWL: RawTable = {
  name: 'discovery_crawl',
  service: 'analytics',
  description: "This run's discovery crawl (scratch).",
  columns: [
    ['chain', 'VARCHAR'],
    ['seller_address', 'VARCHAR'],
    ['resource_url', 'VARCHAR'],
    ['name', 'VARCHAR'],
    ['description', 'VARCHAR'],
    ['category', 'VARCHAR'],
    ['price_amount', 'DOUBLE'],
    ['last_updated', 'TIMESTAMP'],
    ['method', 'VARCHAR'],
  ],
};

/** Kept across runs: when this crawler first saw each (chain, resource_url). */
export const DISCOVERY_SEEN_DDL = `CREATE TABLE IF NOT EXISTS discovery_seen (
  chain VARCHAR NOT NULL, resource_url VARCHAR NOT NULL,
  first_seen TIMESTAMP NOT NULL, last_seen TIMESTAMP NOT NULL, last_updated TIMESTAMP,
  PRIMARY KEY (chain, resource_url))`;

/**
 * Kept across runs: every payTo a listing has named, per chain. The indexers recognise a settlement
 * paid to one of them whatever relayer sent it (docs/x402-indexing.md, "Which transfers count"):
 * a service that left the catalog still receives payments, so a payee is never forgotten.
 */
export const DISCOVERY_PAYEES_DDL = `CREATE TABLE IF NOT EXISTS discovery_payees (
  chain VARCHAR NOT NULL, pay_to VARCHAR NOT NULL, first_seen TIMESTAMP NOT NULL, last_seen TIMESTAMP NOT NULL,
  PRIMARY KEY (chain, pay_to))`;

/** The payTos listings have named on `chain` (lowercase for EVM, as listed for Solana). */
export async function listedPayees(connection: DuckDBConnection, chain: string): Promise<Set<string>> {
  await connection.run(DISCOVERY_PAYEES_DDL);
  const rows = await queryJson(connection, 'SELECT pay_to FROM discovery_payees WHERE chain = $chain', { chain });
  return new Set(rows.map((r) => String(r.pay_to)));
}

/** Kept across runs: the method each listing declares, for the prober (probes.ts). */
export const DISCOVERY_INPUTS_DDL = `CREATE TABLE IF NOT EXISTS discovery_inputs (
  resource_url VARCHAR PRIMARY KEY, method VARCHAR)`;

/**
 * Records the crawl in `discovery_seen` (first_seen set once, at `seenAt`) and (re)creates
 * x402_services from it. Returns the number of services.
 */
export async function writeDiscoveredServices(
  connection: DuckDBConnection,
  services: readonly DiscoveredService[],
  seenAt: Date,
): Promise<number> {
  await connection.run(DISCOVERY_SEEN_DDL);
  await connection.run(DISCOVERY_PAYEES_DDL);
  await loadScratch(
    connection,
    DISCOVERY_CRAWL,
    services.map((s) => [
      s.chain,
      s.seller_address,
      s.resource_url,
      s.name,
      s.description,
      s.category,
      s.price_amount,
      s.last_updated,
      s.method,
    ]),
  );
  const at = seenAt.toISOString();
  await inTransaction(connection, async () => {
    await connection.run(
      `INSERT INTO discovery_seen
       SELECT chain, resource_url, $at::TIMESTAMP, $at::TIMESTAMP, last_updated FROM discovery_crawl
       ON CONFLICT (chain, resource_url) DO UPDATE SET last_seen = excluded.last_seen, last_updated = excluded.last_updated`,
      { at },
    );
    await connection.run(
      `INSERT INTO discovery_payees
       SELECT DISTINCT chain, seller_address, $at::TIMESTAMP, $at::TIMESTAMP FROM discovery_crawl WHERE seller_address IS NOT NULL
       ON CONFLICT (chain, pay_to) DO UPDATE SET last_seen = excluded.last_seen`,
      { at },
    );
    await connection.run(createTableSql(RAW_TABLES.x402_services));
    await connection.run(
      `INSERT INTO x402_services
       SELECT c.chain, c.seller_address, c.resource_url, c.name, c.description, c.category, c.price_amount,
              s.first_seen, 'live'
         FROM discovery_crawl c JOIN discovery_seen s USING (chain, resource_url)
        ORDER BY s.first_seen, c.chain, c.resource_url`,
    );
  });
  // how to call each listed resource, for the prober (probes.ts): the crawl's word replaces the last one
  await connection.run(DISCOVERY_INPUTS_DDL);
  await connection.run(
    `INSERT OR REPLACE INTO discovery_inputs SELECT resource_url, min(method) FROM discovery_crawl WHERE method IS NOT NULL GROUP BY resource_url`,
  );
  await connection.run('DROP TABLE IF EXISTS discovery_crawl');
  return services.length;
}
