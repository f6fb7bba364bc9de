/**
 * A fake Anthropic Messages API on 127.0.0.1 for the analyst's tests and the benchmark: the real
 * `@anthropic-ai/sdk` client points its `baseURL` here, every `POST /v1/messages` is checked the
 * way the real API would check it (plus a secret check), and each call is answered as the test
 * decides, in the API's own wire format:
 *
 *   const api = await startFakeMessagesApi({ apiKey: 'sk-ant-test', respond: inSequence(
 *     { kind: 'error', status: 429, retryAfterSeconds: 1 },    // the SDK waits 1 s and retries
 *     { kind: 'tool', input: { summary: '...' } },             // a forced tool call's answer
 *   ) });
 *   new Anthropic({ apiKey: 'sk-ant-test', baseURL: api.url, maxRetries: 2 });
 *   expect(api.violations).toEqual([]);
 *
 * The shapes come from the SDK's own types (`Message`, `ErrorResponse`), so an SDK upgrade that
 * changes them fails `tsc` here instead of drifting silently. Retries reach the server as new
 * requests: `requests` and the `index` given to `respond` count them.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Message, MessageCreateParamsBase, StopReason } from '@anthropic-ai/sdk/resources/messages';
import type { ErrorObject, ErrorResponse } from '@anthropic-ai/sdk/resources/shared';
import { z, type ZodType } from 'zod';

// ------------------------------------------------------------------------------------- types

export interface FakeMessagesRequestBody {
  model: string;
  max_tokens: number;
  system?: unknown;
  messages: unknown[];
  tools?: Array<{ name: string; description?: string; input_schema: unknown }>;
  tool_choice?: unknown;
  [k: string]: unknown;
}

/** One `POST /v1/messages` as the server received it. */
export interface FakeMessagesRequest {
  /** The parsed JSON body (`{}` when the body was not a JSON object; that request failed a check). */
  body: FakeMessagesRequestBody;
  /** Lower-case header names; repeated headers joined with ', '. */
  headers: Record<string, string>;
  /** The body exactly as sent. */
  raw: string;
  /** The text of system + every message (tool inputs and results included), for "no secret appears" checks. */
  text: string;
  /** The forced tool's name (`tool_choice: { type: 'tool', name }`), if any. */
  toolName: string | null;
}

export interface FakeUsage {
  input_tokens: number;
  output_tokens: number;
}

export type FakeErrorStatus = 400 | 401 | 403 | 404 | 413 | 429 | 500 | 529;

export type FakeReply =
  /** The model calls a tool: `name` defaults to the forced tool (or the only tool offered). */
  | { kind: 'tool'; input: unknown; name?: string; usage?: FakeUsage; stopReason?: StopReason }
  /** The model answers in text instead of calling the tool. */
  | { kind: 'text'; text: string; usage?: FakeUsage; stopReason?: StopReason }
  /**
   * An Anthropic error envelope. `errorType` defaults from the status (429 rate_limit_error,
   * 529 overloaded_error...). `retryAfterSeconds` sends `retry-after`, as the API does on 429;
   * `retryAfterMs` sends `retry-after-ms`, which the SDK reads first but the API never sends:
   * use it only to keep a test fast. `errorCode` fills `error.details.error_code` (the SDK maps
   * some to their own classes, e.g. enforced_spend_limit_reached); `shouldRetry` sends
   * `x-should-retry`, which the SDK obeys before looking at the status.
   */
  | {
      kind: 'error';
      status: FakeErrorStatus;
      errorType?: string;
      message?: string;
      retryAfterSeconds?: number;
      retryAfterMs?: number;
      errorCode?: string;
      shouldRetry?: boolean;
    }
  /** Waits `ms` (drives client timeouts), then answers `then`, or drops the connection when there is none. */
  | { kind: 'hang'; ms: number; then?: FakeReply };

export interface FakeMessagesApiOptions {
  /** Decides the answer of each call; `index` counts every request received, retries included. */
  respond: (req: FakeMessagesRequest, index: number) => FakeReply | Promise<FakeReply>;
  /**
   * Checks each request after the built-in checks; a thrown error answers 400 invalid_request_error
   * with its message (the SDK throws BadRequestError) and is recorded in `violations`.
   */
  check?: (req: FakeMessagesRequest) => void;
  /** Added to every answer, in ms (the benchmark uses 300). */
  latencyMs?: number;
  /** The key the server expects, in `x-api-key` or `Authorization: Bearer` (401 otherwise). */
  apiKey: string;
  /** More values that must never appear in a request body (the API key is always checked). */
  secrets?: string[];
}

export interface FakeMessagesApi {
  /** http://127.0.0.1:<port>, to pass as `baseURL` / ANTHROPIC_BASE_URL. */
  readonly url: string;
  /** Every request received, in order, retries and rejected requests included. */
  readonly requests: FakeMessagesRequest[];
  /** Every failed check, built-in or yours, as `<status> <error type>: <message>` (tests assert it is empty). */
  readonly violations: string[];
  /** The most requests in flight at once since start or reset (proves bounded concurrency). */
  readonly maxConcurrent: number;
  /** Requests in flight now. */
  readonly inFlight: number;
  /** Clears requests, violations and maxConcurrent (between two runs of one test). */
  reset(): void;
  close(): Promise<void>;
}

// ----------------------------------------------------------------------------------- helpers

/** A `respond` that answers the n-th request with the n-th reply; the last one repeats. */
export function inSequence(...replies: FakeReply[]): FakeMessagesApiOptions['respond'] {
  if (replies.length === 0) throw new Error('inSequence needs at least one reply');
  return (_req, index) => replies[Math.min(index, replies.length - 1)]!;
}

/** The forced tool's definition in a request; throws when the request forces no tool. */
export function forcedTool(req: FakeMessagesRequest): { name: string; description?: string; input_schema: unknown } {
  const tool = req.body.tools?.find((t) => t.name === req.toolName);
  if (!req.toolName || !tool) {
    throw new Error(`the request forces no tool (tool_choice is ${JSON.stringify(req.body.tool_choice ?? null)})`);
  }
  return tool;
}

/** The forced tool's input_schema (the JSON Schema the answer must follow). */
export function toolInputSchema(req: FakeMessagesRequest): Record<string, unknown> {
  return forcedTool(req).input_schema as Record<string, unknown>;
}

/** Token counts as the fake estimates them (≈ 4 characters a token), deterministic for a given text. */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

// ------------------------------------------------------------------- the request, as checked

/** Checks on a request: a failure is answered with this status and error type. */
class RequestProblem extends Error {
  constructor(
    readonly status: number,
    readonly errorType: string,
    message: string,
  ) {
    super(message);
  }
}

const invalid = (message: string) => new RequestProblem(400, 'invalid_request_error', message);

const ContentBlock = z.looseObject({ type: z.string() });
const TextBlockParam = z.looseObject({ type: z.literal('text'), text: z.string() });
const MessageParam = z.strictObject({
  role: z.enum(['user', 'assistant']),
  content: z.union([z.string(), z.array(ContentBlock).min(1)]),
});
// Custom tools only: the analyst declares its own; a server tool here is a mistake worth seeing.
const CustomTool = z.looseObject({
  type: z.literal('custom').optional(),
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,128}$/),
  description: z.string().optional(),
  input_schema: z.looseObject({ type: z.literal('object') }),
});
const ToolChoice = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('auto'), disable_parallel_tool_use: z.boolean().optional() }),
  z.strictObject({ type: z.literal('any'), disable_parallel_tool_use: z.boolean().optional() }),
  z.strictObject({ type: z.literal('tool'), name: z.string(), disable_parallel_tool_use: z.boolean().optional() }),
  z.strictObject({ type: z.literal('none') }),
]);

// Every top-level field the SDK can send (`satisfies` keeps the list equal to the SDK's params;
// user_profile_id and workspace_id never reach the body). Unknown fields are refused, as the API does.
const requestFields = {
  model: z.string().min(1),
  max_tokens: z.number().int().min(1),
  messages: z.array(MessageParam).min(1),
  system: z.union([z.string(), z.array(TextBlockParam)]).optional(),
  tools: z.array(CustomTool).optional(),
  tool_choice: ToolChoice.optional(),
  stream: z.boolean().optional(),
  cache_control: z.unknown().optional(),
  container: z.unknown().optional(),
  diagnostics: z.unknown().optional(),
  inference_geo: z.unknown().optional(),
  metadata: z.unknown().optional(),
  output_config: z.unknown().optional(),
  service_tier: z.unknown().optional(),
  speed: z.unknown().optional(),
  stop_sequences: z.array(z.string()).optional(),
  thinking: z.unknown().optional(),
} satisfies Record<Exclude<keyof MessageCreateParamsBase, 'user_profile_id' | 'workspace_id'>, ZodType>;
const MessagesRequestBody = z.strictObject(requestFields);

function flattenHeaders(headers: IncomingMessage['headers']): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function blockText(block: unknown): string {
  if (typeof block === 'string') return block;
  if (typeof block !== 'object' || block === null) return '';
  const b = block as Record<string, unknown>;
  if (b.type === 'text' && typeof b.text === 'string') return b.text;
  if (b.type === 'tool_use') return JSON.stringify(b.input ?? null);
  if (b.type === 'tool_result') return Array.isArray(b.content) ? b.content.map(blockText).join('\n') : blockText(b.content);
  return JSON.stringify(b);
}

function requestText(body: Record<string, unknown>): string {
  const parts: string[] = [];
  const system = body.system;
  if (typeof system === 'string') parts.push(system);
  else if (Array.isArray(system)) parts.push(...system.map(blockText));
  for (const message of Array.isArray(body.messages) ? body.messages : []) {
    const content = (message as { content?: unknown } | null)?.content;
    parts.push(Array.isArray(content) ? content.map(blockText).join('\n') : blockText(content));
  }
  return parts.join('\n\n');
}

function forcedToolName(body: Record<string, unknown>): string | null {
  const choice = body.tool_choice as { type?: unknown; name?: unknown } | undefined;
  return choice?.type === 'tool' && typeof choice.name === 'string' ? choice.name : null;
}

/** The transport checks: where, how and by whom the request was sent. */
function checkTransport(req: IncomingMessage, headers: Record<string, string>, apiKey: string): void {
  const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
  if (path !== '/v1/messages')
    throw new RequestProblem(404, 'not_found_error', `Not Found: ${req.method} ${path} (the fake serves POST /v1/messages only)`);
  if (req.method !== 'POST')
    throw new RequestProblem(405, 'invalid_request_error', `Method Not Allowed: ${req.method} /v1/messages (POST only)`);
  // SDK 1.x sends the key as `Authorization: Bearer`; older SDKs and curl send `x-api-key`. The API takes both.
  const bearer = /^Bearer (.+)$/i.exec(headers.authorization ?? '')?.[1];
  const sentKey = headers['x-api-key'] || bearer;
  if (!sentKey) throw new RequestProblem(401, 'authentication_error', 'x-api-key header is required');
  if (sentKey !== apiKey) throw new RequestProblem(401, 'authentication_error', 'invalid x-api-key');
  if (!headers['anthropic-version']) throw invalid('anthropic-version: header is required');
  if (!/^application\/json\b/i.test(headers['content-type'] ?? '')) {
    throw invalid(`content-type: expected application/json, got ${JSON.stringify(headers['content-type'] ?? null)}`);
  }
}

/** The body checks: what the API itself refuses, plus that no secret is sent to the model. */
function checkBody(raw: string, json: unknown, secrets: string[]): void {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw invalid('The request body is not a JSON object');
  }
  const parsed = MessagesRequestBody.safeParse(json);
  if (!parsed.success) {
    throw invalid(
      parsed.error.issues
        .map((i) =>
          i.code === 'unrecognized_keys'
            ? i.keys.map((k) => `${[...i.path, k].join('.')}: Extra inputs are not permitted`).join('; ')
            : `${i.path.length ? i.path.join('.') : 'body'}: ${i.message}`,
        )
        .join('; '),
    );
  }
  const body = parsed.data;
  if (body.stream) throw invalid('stream: the fake Messages API does not stream; call messages.create without stream: true');
  const names = (body.tools ?? []).map((t) => t.name);
  const repeated = names.find((n, i) => names.indexOf(n) !== i);
  if (repeated) throw invalid(`tools: Tool names must be unique ('${repeated}' appears twice)`);
  const choice = body.tool_choice;
  if (choice?.type === 'tool' && !names.includes(choice.name)) {
    throw invalid(`tool_choice: the forced tool '${choice.name}' is not among tools (${names.join(', ') || 'none'})`);
  }
  if ((choice?.type === 'any' || choice?.type === 'tool') && names.length === 0) {
    throw invalid(`tool_choice: type '${choice.type}' needs tools`);
  }
  // The message never repeats the secret: violations end up in test output and logs.
  secrets.forEach((secret, i) => {
    if (secret && raw.includes(secret)) {
      throw invalid(i === 0 ? 'the request body contains the API key' : `the request body contains secret #${i} of the fake's secrets`);
    }
  });
}

// ------------------------------------------------------------------------- the answers, as sent

const DEFAULT_ERROR: Record<FakeErrorStatus, { type: ErrorObject['type']; message: string }> = {
  400: { type: 'invalid_request_error', message: 'Invalid request' },
  401: { type: 'authentication_error', message: 'invalid x-api-key' },
  403: { type: 'permission_error', message: 'Your API key does not have permission to use the specified resource.' },
  404: { type: 'not_found_error', message: 'Not Found' },
  413: { type: 'invalid_request_error', message: 'Request exceeds the maximum allowed number of bytes.' },
  429: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' },
  500: { type: 'api_error', message: 'Internal server error' },
  529: { type: 'overloaded_error', message: 'Overloaded' },
};

function errorEnvelope(errorType: string, message: string, requestId: string, errorCode?: string): ErrorResponse {
  // The SDK reads error.details.error_code; the SDK's ErrorObject types do not list `details`.
  const error = { type: errorType, message, ...(errorCode ? { details: { error_code: errorCode } } : {}) } as ErrorObject;
  return { type: 'error', error, request_id: requestId };
}

function usageOf(tokens: FakeUsage): Message['usage'] {
  return {
    input_tokens: tokens.input_tokens,
    output_tokens: tokens.output_tokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
    inference_geo: null,
    output_tokens_details: null,
    server_tool_use: null,
    service_tier: 'standard',
    speed: null,
  };
}

/** Builds the `Message` of a tool or text reply. Throws when a tool reply cannot name its tool. */
function messageOf(reply: Extract<FakeReply, { kind: 'tool' | 'text' }>, req: FakeMessagesRequest, serial: number): Message {
  // Tools count as input on the real API too; estimating from them keeps counts plausible.
  const inputTokens = estimateTokens(req.text + JSON.stringify(req.body.tools ?? []));
  const base = {
    id: `msg_01FAKE${String(serial).padStart(18, '0')}`,
    type: 'message',
    role: 'assistant',
    model: req.body.model,
    container: null,
    diagnostics: null,
    stop_details: null,
    stop_sequence: null,
  } as const;
  if (reply.kind === 'text') {
    return {
      ...base,
      content: [{ type: 'text', text: reply.text, citations: null }],
      stop_reason: reply.stopReason ?? 'end_turn',
      usage: usageOf(reply.usage ?? { input_tokens: inputTokens, output_tokens: estimateTokens(reply.text) }),
    };
  }
  const tools = req.body.tools ?? [];
  const name = reply.name ?? req.toolName ?? (tools.length === 1 ? tools[0]!.name : null);
  if (name === null) {
    throw new Error(
      `a tool reply needs a name: the request forces no tool and offers ${tools.length} (${tools.map((t) => t.name).join(', ')})`,
    );
  }
  return {
    ...base,
    content: [
      {
        type: 'tool_use',
        id: `toolu_01FAKE${String(serial).padStart(18, '0')}`,
        name,
        input: reply.input,
        caller: { type: 'direct' },
      },
    ],
    stop_reason: reply.stopReason ?? 'tool_use',
    usage: usageOf(reply.usage ?? { input_tokens: inputTokens, output_tokens: estimateTokens(JSON.stringify(reply.input ?? null)) }),
  };
}

// -------------------------------------------------------------------------------- the server

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startFakeMessagesApi(options: FakeMessagesApiOptions): Promise<FakeMessagesApi> {
  if (!options.apiKey) throw new Error('startFakeMessagesApi: apiKey is required (the key the server expects)');
  const requests: FakeMessagesRequest[] = [];
  const violations: string[] = [];
  const secrets = [options.apiKey, ...(options.secrets ?? [])];
  const open = new Set<AbortController>(); // one per request in flight, aborted by close()
  let inFlight = 0;
  let maxConcurrent = 0;
  let serial = 0;

  async function answer(reply: FakeReply, req: FakeMessagesRequest | null, res: ServerResponse, gone: AbortSignal): Promise<void> {
    if (reply.kind === 'hang') {
      await sleep(reply.ms, undefined, { signal: gone });
      if (reply.then) return answer(reply.then, req, res, gone);
      res.socket?.destroy(); // no answer at all: a connection error for the client
      return;
    }
    const n = ++serial;
    const requestId = `req_01FAKE${String(n).padStart(18, '0')}`;
    const headers: Record<string, string> = { 'content-type': 'application/json', 'request-id': requestId };
    let status = 200;
    let body: Message | ErrorResponse;
    if (reply.kind === 'error') {
      const fallback = DEFAULT_ERROR[reply.status];
      status = reply.status;
      body = errorEnvelope(reply.errorType ?? fallback.type, reply.message ?? fallback.message, requestId, reply.errorCode);
      if (reply.retryAfterSeconds !== undefined) headers['retry-after'] = String(reply.retryAfterSeconds);
      if (reply.retryAfterMs !== undefined) headers['retry-after-ms'] = String(reply.retryAfterMs);
      if (reply.shouldRetry !== undefined) headers['x-should-retry'] = String(reply.shouldRetry);
    } else if (req === null) {
      throw new Error('a tool or text reply to a request that failed its checks');
    } else {
      body = messageOf(reply, req, n);
    }
    if (res.destroyed) return; // the client gave up (its timeout) while we waited
    res.writeHead(status, headers);
    res.end(JSON.stringify(body));
  }

  function refuse(problem: RequestProblem, res: ServerResponse): void {
    violations.push(`${problem.status} ${problem.errorType}: ${problem.message}`);
    const requestId = `req_01FAKE${String(++serial).padStart(18, '0')}`;
    res.writeHead(problem.status, { 'content-type': 'application/json', 'request-id': requestId });
    res.end(JSON.stringify(errorEnvelope(problem.errorType, problem.message, requestId)));
  }

  async function handle(req: IncomingMessage, res: ServerResponse, gone: AbortSignal): Promise<void> {
    const raw = await readBody(req);
    const headers = flattenHeaders(req.headers);
    let json: unknown = null;
    try {
      json = JSON.parse(raw);
    } catch {
      /* checkBody refuses it */
    }
    const object = typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : {};
    const recorded: FakeMessagesRequest = {
      body: object as FakeMessagesRequestBody,
      headers,
      raw,
      text: requestText(object),
      toolName: forcedToolName(object),
    };
    const index = requests.push(recorded) - 1;

    let reply: FakeReply | RequestProblem;
    try {
      checkTransport(req, headers, options.apiKey);
      checkBody(raw, json, secrets);
      try {
        options.check?.(recorded);
      } catch (err) {
        throw invalid(err instanceof Error ? err.message : String(err));
      }
      reply = await options.respond(recorded, index);
    } catch (err) {
      // A throwing `respond` is the test's bug: 500, so it shows in violations rather than as a hang.
      reply =
        err instanceof RequestProblem
          ? err
          : new RequestProblem(500, 'api_error', `respond threw: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (options.latencyMs) await sleep(options.latencyMs, undefined, { signal: gone });
    if (reply instanceof RequestProblem) return refuse(reply, res);
    try {
      await answer(reply, reply.kind === 'error' ? null : recorded, res, gone);
    } catch (err) {
      if (gone.aborted) return;
      refuse(
        new RequestProblem(500, 'api_error', `the fake could not build its answer: ${err instanceof Error ? err.message : String(err)}`),
        res,
      );
    }
  }

  const server = createServer((req, res) => {
    const gone = new AbortController();
    open.add(gone);
    inFlight++;
    maxConcurrent = Math.max(maxConcurrent, inFlight);
    res.on('close', () => {
      inFlight--;
      open.delete(gone);
      gone.abort(); // the client went away (or we answered): stop any wait for this request
    });
    handle(req, res, gone.signal).catch((err: unknown) => {
      if (gone.signal.aborted) return; // a wait cut short by the client leaving or close()
      violations.push(`500 api_error: the fake failed: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify(errorEnvelope('api_error', 'the fake failed', 'req_01FAKE')));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('fake Messages API has no TCP address');

  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    violations,
    get maxConcurrent() {
      return maxConcurrent;
    },
    get inFlight() {
      return inFlight;
    },
    reset() {
      requests.length = 0;
      violations.length = 0;
      maxConcurrent = inFlight;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const gone of open) gone.abort();
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
