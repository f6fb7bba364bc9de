/**
 * Request validation from the catalog's zod schemas, answered as a 422 with the FastAPI/pydantic
 * `detail` array (`loc`, `msg`, `type`, `input`, `ctx`) the service contracts name (docs/services.md, "Validation errors"). The same schemas validate MCP
 * tool input, so a bad value gets the same message over HTTP and MCP.
 */
import type { z } from 'zod';
import { refusesUnknownQuery } from './index.ts';
import type { EndpointDecl } from './types.ts';

export interface ValidationDetail {
  loc: Array<string | number>;
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

export interface ParsedRequest {
  query: Record<string, unknown>;
  params: Record<string, unknown>;
  body: Record<string, unknown> | undefined;
}

export type ParseOutcome = { ok: true; value: ParsedRequest } | { ok: false; detail: ValidationDetail[] };

/** Raw inputs as they arrive: query values are the first value of each key, as strings. */
export interface RawRequest {
  query: Record<string, string>;
  params: Record<string, string>;
  /** Parsed JSON body; `bodyError` set when the body was not JSON. */
  body?: unknown;
  bodyError?: string;
}

type Issue = z.core.$ZodIssue;

function inputAt(raw: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let value: unknown = raw;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** Maps one zod issue to a pydantic-style type and ctx. */
function typeAndCtx(issue: Issue, input: unknown): { type: string; ctx?: Record<string, unknown> } {
  switch (issue.code) {
    case 'invalid_type':
      if (input === undefined) return { type: 'missing' };
      if (issue.expected === 'number' || issue.expected === 'int') {
        return { type: typeof input === 'string' && /^-?\d*\.\d+$/.test(input) ? 'int_from_float' : 'int_parsing' };
      }
      return { type: `${issue.expected}_type` };
    case 'too_big': {
      if (issue.origin === 'string') return { type: 'string_too_long', ctx: { max_length: Number(issue.maximum) } };
      if (issue.origin === 'array') return { type: 'too_long', ctx: { max_length: Number(issue.maximum) } };
      return issue.inclusive === false
        ? { type: 'less_than', ctx: { lt: Number(issue.maximum) } }
        : { type: 'less_than_equal', ctx: { le: Number(issue.maximum) } };
    }
    case 'too_small': {
      if (issue.origin === 'string') return { type: 'string_too_short', ctx: { min_length: Number(issue.minimum) } };
      if (issue.origin === 'array') return { type: 'too_short', ctx: { min_length: Number(issue.minimum) } };
      return issue.inclusive === false
        ? { type: 'greater_than', ctx: { gt: Number(issue.minimum) } }
        : { type: 'greater_than_equal', ctx: { ge: Number(issue.minimum) } };
    }
    case 'invalid_format':
      return issue.format === 'regex'
        ? { type: 'string_pattern_mismatch', ctx: { pattern: String((issue as { pattern?: string }).pattern ?? '') } }
        : { type: `invalid_${issue.format}` };
    case 'invalid_value':
      return { type: 'enum', ctx: { expected: issue.values.map((v) => JSON.stringify(v)).join(', ') } };
    case 'not_multiple_of':
      return { type: 'multiple_of', ctx: { multiple_of: Number(issue.divisor) } };
    case 'unrecognized_keys':
      return { type: 'extra_forbidden' };
    default:
      return { type: 'value_error' };
  }
}

function issuesToDetail(where: 'query' | 'path' | 'body', issues: readonly Issue[], raw: unknown): ValidationDetail[] {
  return issues.map((issue) => {
    const path = issue.path.map((p) => (typeof p === 'number' ? p : String(p)));
    const input = inputAt(raw, issue.path);
    const { type, ctx } = typeAndCtx(issue, input);
    const item: ValidationDetail = {
      loc: [where, ...path],
      msg: type === 'missing' ? 'Field required' : issue.message,
      type,
    };
    if (input !== undefined) item.input = input;
    if (ctx) item.ctx = ctx;
    return item;
  });
}

/** Longest parameter value or name echoed back in a 422; longer ones are cut (the request line can be 16 KB). */
const ECHO_CHARS = 200;

const cut = (text: string) => (text.length > ECHO_CHARS ? `${text.slice(0, ECHO_CHARS)}…` : text);

/** The query parameters `query` carries that the endpoint does not declare (none for endpoints that ignore them). */
export function unknownQueryParams(endpoint: EndpointDecl, query: Record<string, unknown>): string[] {
  if (!refusesUnknownQuery(endpoint)) return [];
  const declared = endpoint.query?.shape ?? {};
  return Object.keys(query).filter((name) => !Object.hasOwn(declared, name));
}

/** One 422 item per unknown query parameter, naming it and listing what the endpoint takes. */
function unknownQueryDetail(endpoint: EndpointDecl, query: Record<string, string>): ValidationDetail[] {
  const names = Object.keys(endpoint.query?.shape ?? {});
  const takes = names.length ? `this endpoint takes ${names.join(', ')}` : 'this endpoint takes no query parameters';
  return unknownQueryParams(endpoint, query).map((name) => {
    const value = query[name] ?? '';
    return {
      loc: ['query', name],
      msg: `Unknown query parameter "${cut(name)}"; ${takes}`,
      type: 'extra_forbidden',
      input: cut(value),
      ctx: { allowed: names },
    };
  });
}

/**
 * Validates path parameters, query and body against the endpoint's declarations. A query
 * parameter the endpoint does not declare is refused where refusesUnknownQuery says so.
 */
export function parseRequest(endpoint: EndpointDecl, raw: RawRequest): ParseOutcome {
  const detail: ValidationDetail[] = unknownQueryDetail(endpoint, raw.query);
  const run = (where: 'query' | 'path' | 'body', schema: z.ZodObject | undefined, input: unknown): Record<string, unknown> => {
    if (!schema) return {};
    const parsed = schema.safeParse(input);
    if (parsed.success) return parsed.data as Record<string, unknown>;
    detail.push(...issuesToDetail(where, parsed.error.issues, input));
    return {};
  };
  const params = run('path', endpoint.pathParams, raw.params);
  const query = run('query', endpoint.query, raw.query);
  let body: Record<string, unknown> | undefined;
  if (endpoint.body) {
    if (raw.bodyError) {
      detail.push({ loc: ['body'], msg: raw.bodyError, type: 'json_invalid' });
    } else if (raw.body === null || typeof raw.body !== 'object' || Array.isArray(raw.body)) {
      detail.push({
        loc: ['body'],
        msg: 'Expected a JSON object body, e.g. {"address": "0x…"}',
        type: raw.body === undefined ? 'missing' : 'model_attributes_type',
        ...(raw.body === undefined ? {} : { input: raw.body }),
      });
    } else {
      body = run('body', endpoint.body, raw.body);
    }
  }
  return detail.length > 0 ? { ok: false, detail } : { ok: true, value: { query, params, body } };
}

/** First value of every query key (a repeated key keeps its first value). */
export function firstQueryValues(url: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of new URL(url).searchParams) {
    if (!(key in out)) out[key] = value;
  }
  return out;
}
