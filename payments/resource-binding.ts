/**
 * Which resource a 402 names and a payment may claim.
 *
 * The 402's resource URL is the endpoint as the catalog declares it: the canonical path (paywall.ts)
 * and a query rebuilt from the validated parameters the client gave (canonicalQuery), never the
 * query string as typed, so nothing a client appends (a repeated key, padding, escapes) reaches the
 * PAYMENT-REQUIRED header, which clients refuse beyond 16 KB.
 *
 * A v2 payment may say which resource it pays for (`resource.url`, and some clients copy the
 * requirement's `resource` into `accepted`). The x402 reference client copies the 402's resource;
 * a payment that names another resource (another path, other parameters, another server) is
 * refused (namesResource): the label is not signed, but a client that says it pays for something
 * else must not be served this. Compared by meaning, as the request was validated: the path
 * segments decoded, the query parsed with the endpoint's schema, so `?symbol=eth` names
 * `?symbol=ETH`.
 */
import { xrplPath } from '../catalog/index.ts';
import type { EndpointDecl } from '../catalog/types.ts';
import { type ParsedRequest, unknownQueryParams } from '../catalog/request.ts';

/** A validated query value as query-string text that parses back to the same value. */
function queryText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') {
    // 1e-7 would not parse back as a decimal parameter
    return Number.isInteger(value) || !/e/i.test(String(value)) ? String(value) : value.toFixed(20).replace(/\.?0+$/, '');
  }
  if (typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/**
 * The query string of the 402's resource URL: the parameters the client gave (in its order, the
 * first value of a repeated one) with their validated values. Bounded by the catalog's schemas.
 */
export function canonicalQuery(requested: URLSearchParams, query: Record<string, unknown>): string {
  const out = new URLSearchParams();
  for (const name of new Set(requested.keys())) {
    const value = query[name];
    if (value !== undefined && value !== null && Object.hasOwn(query, name)) out.append(name, queryText(value));
  }
  const text = out.toString();
  return text ? `?${text}` : '';
}

export interface RequestedResource {
  endpoint: EndpointDecl;
  xrpl: boolean;
  /** Origins the request may be known by: the 402's (forwarded headers with TRUST_PROXY) and the one it arrived at. */
  origins: readonly string[];
  /** The canonical path the 402 names. */
  path: string;
  /** The validated parameters; without them only the path is compared. */
  input?: ParsedRequest;
  /** An MCP tool call: its 402 names the tool (`mcp://tool/<name>`). */
  mcpTool?: string;
}

function decodeSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? {}) === JSON.stringify(b ?? {});

/** Whether `claimed` (a payment's `resource.url`) names the resource this request is for; never throws. */
export function namesResource(claimed: string, r: RequestedResource): boolean {
  if (r.mcpTool !== undefined && claimed === `mcp://tool/${r.mcpTool}`) return true;
  let url: URL;
  try {
    url = new URL(claimed);
  } catch {
    return false;
  }
  if (!r.origins.includes(url.origin)) return false;

  const template = (r.xrpl ? xrplPath(r.endpoint.path) : r.endpoint.path).split('/');
  const asked = url.pathname.split('/');
  if (asked.length !== template.length) return false;
  const params: Record<string, string> = {};
  for (const [i, segment] of template.entries()) {
    const text = decodeSegment(asked[i]!);
    if (text === null) return false;
    if (segment.startsWith(':')) params[segment.slice(1)] = text;
    else if (text !== segment) return false;
  }

  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) if (!Object.hasOwn(query, name)) query[name] = value;
  if (unknownQueryParams(r.endpoint, query).length) return false;
  if (!r.input) {
    const canonical = template.map((segment) => (segment.startsWith(':') ? encodeURIComponent(params[segment.slice(1)]!) : segment));
    return canonical.join('/') === r.path;
  }
  const pathParsed = r.endpoint.pathParams ? r.endpoint.pathParams.safeParse(params) : { success: true as const, data: {} };
  const queryParsed = r.endpoint.query ? r.endpoint.query.safeParse(query) : { success: true as const, data: {} };
  return pathParsed.success && queryParsed.success && same(pathParsed.data, r.input.params) && same(queryParsed.data, r.input.query);
}
