/**
 * The fake Messages API driven by the real `@anthropic-ai/sdk` client: what the SDK parses from
 * each answer, how it retries (429 with retry-after, 529, a timeout), which errors it throws, and
 * the fake's own records (requests, violations, maxConcurrent). A few raw `fetch` calls pin the
 * wire format where the SDK would hide it.
 */
import Anthropic, { APIConnectionError, AuthenticationError, BadRequestError, NotFoundError } from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming, Tool } from '@anthropic-ai/sdk/resources/messages';
import pLimit from 'p-limit';
import { afterEach, describe, expect, it } from 'vitest';
import {
  estimateTokens,
  inSequence,
  startFakeMessagesApi,
  toolInputSchema,
  type FakeMessagesApi,
  type FakeMessagesApiOptions,
} from './fake-messages-api.ts';

const API_KEY = 'sk-ant-api03-fake-test-key';
const MODEL = 'claude-haiku-4-5';

const marketRead: Tool = {
  name: 'record_market_read',
  description: 'Record the market read.',
  input_schema: {
    type: 'object',
    properties: { summary: { type: 'string' }, confidence: { type: 'number' } },
    required: ['summary', 'confidence'],
  },
};

/** The analyst's call shape: a system prompt, one user turn, one forced tool. */
const forcedCall = (prompt = 'Upbit KRW premium is 2.1% today.'): MessageCreateParamsNonStreaming => ({
  model: MODEL,
  max_tokens: 512,
  system: 'You are a market analyst. Answer through the tool.',
  messages: [{ role: 'user', content: prompt }],
  tools: [marketRead],
  tool_choice: { type: 'tool', name: marketRead.name },
});

const answer = { summary: 'Premium is elevated.', confidence: 0.7 };

let api: FakeMessagesApi | null = null;
afterEach(async () => {
  await api?.close();
  api = null;
});

async function start(options: Partial<FakeMessagesApiOptions> & Pick<FakeMessagesApiOptions, 'respond'>): Promise<FakeMessagesApi> {
  api = await startFakeMessagesApi({ apiKey: API_KEY, ...options });
  return api;
}

const client = (fake: FakeMessagesApi, options: { timeout?: number; maxRetries?: number; apiKey?: string } = {}) =>
  new Anthropic({ apiKey: API_KEY, baseURL: fake.url, timeout: 5_000, maxRetries: 2, ...options });

/** A request sent by hand, for what the SDK would not send (or would hide). */
const post = (fake: FakeMessagesApi, body: unknown, headers: Record<string, string> = {}, path = '/v1/messages') =>
  fetch(fake.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': API_KEY, ...headers },
    body: JSON.stringify(body),
  });

describe('fake Messages API, answers', () => {
  it('answers a forced tool call with a tool_use block and usage, as the SDK types them', async () => {
    const fake = await start({ respond: () => ({ kind: 'tool', input: answer }) });
    const message = await client(fake).messages.create(forcedCall());

    expect(message.type).toBe('message');
    expect(message.role).toBe('assistant');
    expect(message.model).toBe(MODEL);
    expect(message.id).toMatch(/^msg_/);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.stop_sequence).toBeNull();
    const block = message.content[0];
    if (block?.type !== 'tool_use') throw new Error(`expected a tool_use block, got ${JSON.stringify(block)}`);
    expect(block.id).toMatch(/^toolu_/);
    expect(block.name).toBe(marketRead.name);
    expect(block.input).toEqual(answer);

    const req = fake.requests[0]!;
    expect(message.usage).toMatchObject({
      input_tokens: estimateTokens(req.text + JSON.stringify(req.body.tools)),
      output_tokens: estimateTokens(JSON.stringify(answer)),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    });
    expect(message._request_id).toMatch(/^req_/);

    expect(req.toolName).toBe(marketRead.name);
    expect(toolInputSchema(req)).toEqual(marketRead.input_schema);
    expect(req.text).toContain('You are a market analyst.');
    expect(req.text).toContain('Upbit KRW premium is 2.1% today.');
    expect(req.headers['anthropic-version']).toBeTruthy();
    expect(fake.violations).toEqual([]);
  });

  it('uses the usage a reply gives', async () => {
    const fake = await start({ respond: () => ({ kind: 'tool', input: answer, usage: { input_tokens: 1234, output_tokens: 56 } }) });
    const message = await client(fake).messages.create(forcedCall());
    expect(message.usage.input_tokens).toBe(1234);
    expect(message.usage.output_tokens).toBe(56);
  });

  it('answers in text with stop_reason end_turn when the model ignores the tool', async () => {
    const fake = await start({ respond: () => ({ kind: 'text', text: 'I cannot call tools today.' }) });
    const message = await client(fake).messages.create(forcedCall());
    expect(message.stop_reason).toBe('end_turn');
    expect(message.content).toEqual([{ type: 'text', text: 'I cannot call tools today.', citations: null }]);
  });

  it('sends the error envelope with request_id and retry-after on the wire', async () => {
    const fake = await start({ respond: () => ({ kind: 'error', status: 429, retryAfterSeconds: 7 }) });
    const res = await post(fake, forcedCall());
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(res.headers.get('content-type')).toBe('application/json');
    const requestId = res.headers.get('request-id');
    expect(await res.json()).toEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: expect.any(String) },
      request_id: requestId,
    });
  });
});

describe('fake Messages API, the SDK retrying', () => {
  it('429 with retry-after 1, then success: the SDK waits about a second and retries once', async () => {
    const fake = await start({
      respond: inSequence({ kind: 'error', status: 429, retryAfterSeconds: 1 }, { kind: 'tool', input: answer }),
    });
    const started = performance.now();
    const message = await client(fake).messages.create(forcedCall());
    const elapsed = performance.now() - started;

    expect(message.content[0]).toMatchObject({ type: 'tool_use', input: answer });
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests.map((r) => r.headers['x-stainless-retry-count'])).toEqual(['0', '1']);
    expect(fake.violations).toEqual([]);
  });

  it('529 overloaded, then success: retried', async () => {
    const fake = await start({ respond: inSequence({ kind: 'error', status: 529 }, { kind: 'tool', input: answer }) });
    const message = await client(fake).messages.create(forcedCall());
    expect(message.content[0]).toMatchObject({ type: 'tool_use', input: answer });
    expect(fake.requests).toHaveLength(2);
  });

  it('529 every time: the SDK gives up after its retries with the overloaded error', async () => {
    const fake = await start({ respond: () => ({ kind: 'error', status: 529, retryAfterMs: 10 }) });
    const error = await client(fake, { maxRetries: 2 })
      .messages.create(forcedCall())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect(error).toMatchObject({ status: 529, type: 'overloaded_error' });
    expect(fake.requests).toHaveLength(3);
  });

  it('a hang longer than the client timeout, then success: the SDK times out and retries', async () => {
    const fake = await start({
      respond: inSequence({ kind: 'hang', ms: 2_000, then: { kind: 'tool', input: { late: true } } }, { kind: 'tool', input: answer }),
    });
    const message = await client(fake, { timeout: 150 }).messages.create(forcedCall());
    expect(message.content[0]).toMatchObject({ type: 'tool_use', input: answer });
    expect(fake.requests).toHaveLength(2);
    expect(fake.inFlight).toBe(0); // the hung request ended when the client went away
    expect(fake.violations).toEqual([]);
  });

  it('a hang with nothing after it drops the connection: a connection error for the SDK', async () => {
    const fake = await start({ respond: () => ({ kind: 'hang', ms: 0 }) });
    const error = await client(fake, { maxRetries: 0 })
      .messages.create(forcedCall())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionError);
  });
});

describe('fake Messages API, checks', () => {
  it('a wrong API key: 401, AuthenticationError, not retried', async () => {
    const fake = await start({ respond: () => ({ kind: 'tool', input: answer }) });
    const error = await client(fake, { apiKey: 'sk-ant-wrong' })
      .messages.create(forcedCall())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401, type: 'authentication_error' });
    expect(fake.requests).toHaveLength(1);
    expect(fake.violations).toEqual(['401 authentication_error: invalid x-api-key']);
  });

  it('accepts the key in x-api-key as well as in Authorization: Bearer (what SDK 1.x sends)', async () => {
    const fake = await start({ respond: () => ({ kind: 'tool', input: answer }) });
    expect((await post(fake, forcedCall())).status).toBe(200);
    await client(fake).messages.create(forcedCall());
    expect(fake.requests[1]!.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(fake.violations).toEqual([]);
  });

  it('a failing check: 400 invalid_request_error, BadRequestError with the message, recorded in violations', async () => {
    const fake = await start({
      respond: () => ({ kind: 'tool', input: answer }),
      check: (req) => {
        if (req.text.includes('wallet 0xdead')) throw new Error('the prompt names a private wallet');
      },
    });
    const error = await client(fake)
      .messages.create(forcedCall('Who owns wallet 0xdead?'))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({ status: 400, type: 'invalid_request_error', apiMessage: 'the prompt names a private wallet' });
    expect(fake.requests).toHaveLength(1);
    expect(fake.violations).toEqual(['400 invalid_request_error: the prompt names a private wallet']);
  });

  it('refuses a request carrying the API key or another secret, without repeating it', async () => {
    const fake = await start({ respond: () => ({ kind: 'tool', input: answer }), secrets: ['0xPRIVATEKEY'] });
    const sdk = client(fake);
    await expect(sdk.messages.create(forcedCall(`debug: key=${API_KEY}`))).rejects.toBeInstanceOf(BadRequestError);
    await expect(sdk.messages.create(forcedCall('signer 0xPRIVATEKEY'))).rejects.toBeInstanceOf(BadRequestError);
    expect(fake.violations).toEqual([
      '400 invalid_request_error: the request body contains the API key',
      "400 invalid_request_error: the request body contains secret #1 of the fake's secrets",
    ]);
    expect(fake.violations.join('\n')).not.toContain(API_KEY);
  });

  it('refuses a forced tool missing from tools, a tool without an object schema, and stream: true', async () => {
    const fake = await start({ respond: () => ({ kind: 'tool', input: answer }) });
    const sdk = client(fake);
    await expect(sdk.messages.create({ ...forcedCall(), tool_choice: { type: 'tool', name: 'record_other' } })).rejects.toBeInstanceOf(
      BadRequestError,
    );
    await expect(
      sdk.messages.create({ ...forcedCall(), tools: [{ name: marketRead.name, input_schema: { type: 'string' } as never }] }),
    ).rejects.toBeInstanceOf(BadRequestError);
    await expect(sdk.messages.create({ ...forcedCall(), stream: true })).rejects.toBeInstanceOf(BadRequestError);
    expect(fake.violations).toEqual([
      "400 invalid_request_error: tool_choice: the forced tool 'record_other' is not among tools (record_market_read)",
      expect.stringMatching(/^400 invalid_request_error: tools\.0\.input_schema\.type: /),
      expect.stringMatching(/^400 invalid_request_error: stream: /),
    ]);
  });

  it('refuses unknown fields, a missing anthropic-version, a wrong path and a missing key, in the API envelope', async () => {
    const fake = await start({ respond: () => ({ kind: 'tool', input: answer }) });
    const typo = await post(fake, { ...forcedCall(), tool_choices: { type: 'auto' } });
    expect(typo.status).toBe(400);
    expect(await typo.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringContaining('tool_choices') },
    });
    expect((await post(fake, forcedCall(), { 'anthropic-version': '' })).status).toBe(400);
    expect((await post(fake, forcedCall(), { 'x-api-key': '' })).status).toBe(401);
    await expect(client(fake).post('/v1/complete', { body: {} })).rejects.toBeInstanceOf(NotFoundError);
    expect(fake.violations).toEqual([
      '400 invalid_request_error: tool_choices: Extra inputs are not permitted',
      '400 invalid_request_error: anthropic-version: header is required',
      '401 authentication_error: x-api-key header is required',
      expect.stringMatching(/^404 not_found_error: Not Found: POST \/v1\/complete/),
    ]);
  });

  it('a respond that throws answers 500 and is recorded', async () => {
    const fake = await start({
      respond: () => {
        throw new Error('no answer planned for this prompt');
      },
    });
    await expect(client(fake, { maxRetries: 0 }).messages.create(forcedCall())).rejects.toBeInstanceOf(Anthropic.InternalServerError);
    expect(fake.violations).toEqual(['500 api_error: respond threw: no answer planned for this prompt']);
  });
});

describe('fake Messages API, concurrency', () => {
  it('counts the most requests in flight: 10 parallel calls reach 10, a p-limit of 3 keeps it at 3', async () => {
    const fake = await start({ respond: () => ({ kind: 'tool', input: answer }), latencyMs: 200 });
    const sdk = client(fake);
    const prompts = Array.from({ length: 10 }, (_, i) => `market ${i}`);

    await Promise.all(prompts.map((p) => sdk.messages.create(forcedCall(p))));
    expect(fake.maxConcurrent).toBe(10);
    expect(fake.requests).toHaveLength(10);

    fake.reset();
    const limit = pLimit(3);
    await Promise.all(prompts.map((p) => limit(() => sdk.messages.create(forcedCall(p)))));
    expect(fake.maxConcurrent).toBe(3);
    expect(fake.requests).toHaveLength(10);
    expect(fake.violations).toEqual([]);
  });
});
