import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createUpstream, redactUrl, UpstreamError } from './http.ts';
import { createJsonRpc, JsonRpcError } from './json-rpc.ts';
import { recordedRpcError, rpcResult, startLoopback, type Loopback, type Reply } from '../../lib/testing/loopback.ts';
import { fixture } from './testing/fixtures.ts';

interface RecordedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}
const recorded = (name: string): Reply => {
  const r = fixture<RecordedResponse>(name);
  return { status: r.status, headers: r.headers, text: r.body };
};

const Ok = z.object({ ok: z.literal(true), items: z.array(z.object({ id: z.number() })) });

let server: Loopback | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

function fakeTime() {
  let t = 1_000_000;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => t,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      t += ms;
    },
  };
}

describe('createUpstream', () => {
  it('retries 429 (waiting what Retry-After asks) and 503, then returns the parsed body', async () => {
    server = await startLoopback([
      {
        method: 'GET',
        path: '/v1/things',
        reply: [recorded('discovery-429.json'), recorded('discovery-503.json'), { json: { ok: true, items: [{ id: 1 }] } }],
      },
    ]);
    const time = fakeTime();
    const up = createUpstream({ name: 'things', baseUrl: server.url, ...time, random: () => 0.5, backoffBaseMs: 500 });
    const body = await up.getJson('/v1/things', { page: 1 }, Ok);
    expect(body.items[0]!.id).toBe(1);
    expect(server.count({ path: '/v1/things' })).toBe(3);
    // Retry-After: 2 → 2 s; then full jitter over the second backoff ceiling (0.5 × 1000 ms).
    expect(time.sleeps).toEqual([2000, 500]);
    expect(up.stats()).toEqual({ requests: 3, retries: 2 });
    expect(server.requests[0]!.query).toEqual({ page: '1' });
    await up.close();
  });

  it('reads raw bytes from an absolute URL with their Content-Type (feeds decode them by charset), and refuses a body over maxBodyBytes without retrying', async () => {
    server = await startLoopback([
      { method: 'GET', path: '/feed.xml', reply: { headers: { 'content-type': 'text/xml; charset=EUC-KR' }, text: 'x' } },
      { method: 'GET', path: '/huge.xml', reply: { text: 'y'.repeat(5000) } },
    ]);
    const up = createUpstream({ name: 'feeds', baseUrl: 'http://127.0.0.1:1/', maxBodyBytes: 1000 });
    const got = await up.getBytes(`${server.url}/feed.xml`, 'application/xml');
    expect(got.contentType).toBe('text/xml; charset=EUC-KR');
    expect(got.bytes.toString('utf8')).toBe('x');
    await expect(up.getBytes(`${server.url}/huge.xml`, 'application/xml')).rejects.toThrow(
      /feeds: GET .*\/huge\.xml failed: body larger than 1000 bytes/,
    );
    expect(server.count({ path: '/huge.xml' })).toBe(1);
    await up.close();
  });

  it('does not retry a 4xx other than 429', async () => {
    server = await startLoopback([{ method: 'GET', path: '/missing', reply: { status: 404, json: { error: 'no such route' } } }]);
    const up = createUpstream({ name: 'things', baseUrl: server.url, ...fakeTime() });
    const err = await up.getJson('/missing', {}, Ok).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as UpstreamError).status).toBe(404);
    expect((err as Error).message).toMatch(/^things: GET http:\/\/127\.0\.0\.1:\d+\/missing failed with HTTP 404/);
    expect(server.count({ path: '/missing' })).toBe(1);
    await up.close();
  });

  it('gives up after the retry budget, saying how many attempts it made', async () => {
    server = await startLoopback([{ method: 'GET', path: '/down', reply: recorded('discovery-503.json') }]);
    const time = fakeTime();
    const up = createUpstream({ name: 'things', baseUrl: server.url, retries: 2, ...time, random: () => 0.5 });
    await expect(up.getJson('/down', {}, Ok)).rejects.toThrow(/things: GET .*\/down failed after 3 attempts: HTTP 503: <html>/);
    expect(server.count({ path: '/down' })).toBe(3);
    expect(time.sleeps).toEqual([250, 500]); // half of the ceilings 500, 1000
    await up.close();
  });

  it('retries a dropped connection', async () => {
    server = await startLoopback([{ method: 'GET', path: '/flaky', reply: [{ destroy: true }, { json: { ok: true, items: [] } }] }]);
    const up = createUpstream({ name: 'things', baseUrl: server.url, ...fakeTime() });
    await expect(up.getJson('/flaky', {}, Ok)).resolves.toEqual({ ok: true, items: [] });
    expect(server.count({ path: '/flaky' })).toBe(2);
    await up.close();
  });

  it('times out a slow answer and reports it as a network error', async () => {
    server = await startLoopback([{ method: 'GET', path: '/slow', reply: { delayMs: 1500, json: { ok: true, items: [] } } }]);
    const up = createUpstream({ name: 'things', baseUrl: server.url, timeoutMs: 100, retries: 1, ...fakeTime() });
    await expect(up.getJson('/slow', {}, Ok)).rejects.toThrow(
      /things: GET .*\/slow failed after 2 attempts: network error UND_ERR_HEADERS_TIMEOUT/,
    );
    await up.close();
  });

  it('refuses a Retry-After longer than allowed instead of stalling the run', async () => {
    server = await startLoopback([
      { method: 'GET', path: '/busy', reply: { status: 429, headers: { 'retry-after': '3600' }, text: 'slow down' } },
    ]);
    const up = createUpstream({ name: 'things', baseUrl: server.url, ...fakeTime() });
    await expect(up.getJson('/busy', {}, Ok)).rejects.toThrow(/asked to retry after 3600s/);
    expect(server.count({ path: '/busy' })).toBe(1);
    await up.close();
  });

  it('fails a wrong field loudly with the upstream, the URL and the field path', async () => {
    server = await startLoopback([{ method: 'GET', path: '/v1/things', reply: { json: { ok: true, items: [{ id: 1 }, { id: 'two' }] } } }]);
    const up = createUpstream({ name: 'things', baseUrl: server.url, ...fakeTime() });
    const err = (await up.getJson('/v1/things', {}, Ok).catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/^things: unexpected response from GET http:\/\/127\.0\.0\.1:\d+\/v1\/things: items\[1\]\.id: /);
    await up.close();
  });

  it('fails loudly on a body that is not JSON', async () => {
    server = await startLoopback([{ method: 'GET', path: '/html', reply: { text: '<html>maintenance</html>' } }]);
    const up = createUpstream({ name: 'things', baseUrl: server.url, ...fakeTime() });
    await expect(up.getJson('/html', {}, Ok)).rejects.toThrow(/things: GET .*\/html returned a body that is not JSON: <html>maintenance/);
    await up.close();
  });

  it('keeps API keys in the URL out of every message', async () => {
    server = await startLoopback([{ method: 'POST', path: '/v2/Zx81kQ0pL2mN7vB4cR9tY6wE3', reply: { status: 500, text: 'boom' } }]);
    const up = createUpstream({
      name: 'base-rpc',
      baseUrl: `${server.url}/v2/Zx81kQ0pL2mN7vB4cR9tY6wE3?api-key=hunter2hunter2&chain=base`,
      retries: 0,
      ...fakeTime(),
    });
    const err = (await up.postJson('', { hello: 1 }, Ok).catch((e: unknown) => e)) as Error;
    expect(err.message).toContain('base-rpc: POST');
    expect(err.message).toContain('/v2/<redacted>?api-key=<redacted>&chain=base');
    expect(err.message).not.toContain('Zx81kQ0pL2mN7vB4cR9tY6wE3');
    expect(err.message).not.toContain('hunter2');
    expect(server.requests[0]!.query['api-key']).toBe('hunter2hunter2'); // the real URL still carries it
    await up.close();
  });

  it('holds concurrency and the minimum interval between requests', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    server = await startLoopback([
      {
        method: 'GET',
        path: '/n',
        reply: async () => {
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          await new Promise((r) => setTimeout(r, 30));
          inFlight--;
          return { json: { ok: true, items: [] } };
        },
      },
    ]);
    const up = createUpstream({ name: 'things', baseUrl: server.url, concurrency: 2 });
    await Promise.all(Array.from({ length: 6 }, () => up.getJson('/n', {}, Ok)));
    expect(maxInFlight).toBe(2);
    await up.close();

    const time = fakeTime();
    const paced = createUpstream({ name: 'things', baseUrl: server.url, concurrency: 1, minIntervalMs: 250, ...time });
    for (let i = 0; i < 3; i++) await paced.getJson('/n', {}, Ok);
    expect(time.sleeps).toEqual([250, 250]);
    await paced.close();
  });
});

describe('redactUrl', () => {
  it('removes credentials, key-like path segments and secret query values', () => {
    expect(redactUrl('https://user:pw@base-mainnet.g.alchemy.com/v2/aB3dE5fG7hJ9kL1mN3pQ5rS7')).toBe(
      'https://base-mainnet.g.alchemy.com/v2/<redacted>',
    );
    expect(redactUrl('https://mainnet.infura.io/v3/0123456789abcdef0123456789abcdef')).toBe('https://mainnet.infura.io/v3/<redacted>');
    expect(redactUrl('https://mainnet.helius-rpc.com/?api-key=3f1c2b9a-1111-2222-3333-444455556666')).toBe(
      'https://mainnet.helius-rpc.com/?api-key=<redacted>',
    );
    expect(redactUrl('https://x402.org/facilitator/discovery/resources?type=http&limit=100&offset=200')).toBe(
      'https://x402.org/facilitator/discovery/resources?type=http&limit=100&offset=200',
    );
  });
});

describe('createJsonRpc', () => {
  it('retries a rate-limit error sent inside a 200 and surfaces other errors with their code', async () => {
    const tooMany = fixture<{ error: { code: number; message: string } }>('rpc-error-too-many-results.json');
    const limited = fixture<{ error: { code: number; message: string } }>('rpc-error-rate-limited.json');
    let calls = 0;
    server = await startLoopback([
      {
        method: 'POST',
        path: '/',
        rpcMethod: 'eth_blockNumber',
        reply: (req) => (++calls === 1 ? recordedRpcError(req, limited) : rpcResult(req, '0x1f78a4f')),
      },
      { method: 'POST', path: '/', rpcMethod: 'eth_getLogs', reply: (req) => recordedRpcError(req, tooMany) },
    ]);
    const time = fakeTime();
    const rpc = createJsonRpc(createUpstream({ name: 'base-rpc', baseUrl: server.url, ...time }));
    await expect(rpc.call('eth_blockNumber', [], z.string())).resolves.toBe('0x1f78a4f');
    expect(calls).toBe(2);
    expect(time.sleeps).toHaveLength(1);
    const err = await rpc.call('eth_getLogs', [{}], z.array(z.unknown())).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JsonRpcError);
    expect((err as JsonRpcError).code).toBe(-32005);
    expect((err as Error).message).toBe('base-rpc: eth_getLogs failed with JSON-RPC error -32005: query returned more than 10000 results');
    expect(server.requests.every((r) => (r.body as { jsonrpc?: string }).jsonrpc === '2.0')).toBe(true);
  });

  it('names the wrong field of a result as the wire has it', async () => {
    server = await startLoopback([
      { method: 'POST', path: '/', rpcMethod: 'eth_getLogs', reply: (req) => rpcResult(req, [{ blockNumber: '0x1' }, { blockNumber: 7 }]) },
    ]);
    const rpc = createJsonRpc(createUpstream({ name: 'base-rpc', baseUrl: server.url, ...fakeTime() }));
    await expect(rpc.call('eth_getLogs', [{}], z.array(z.object({ blockNumber: z.string() })))).rejects.toThrow(
      /^base-rpc: unexpected response from eth_getLogs at http:\/\/127\.0\.0\.1:\d+\/: result\[1\]\.blockNumber: /,
    );
  });
});
