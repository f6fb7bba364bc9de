/**
 * /mcp over HTTP as the 2026-07-28 revision asks of a server, through both apps as proxy/serve.ts
 * builds them, while 2025-06-18 requests keep their answers: an unsupported MCP-Protocol-Version
 * is 400 / -32022 naming the supported ones, Mcp-Method and Mcp-Name headers must match the body
 * (400 / -32020), tools/list carries a cache hint, GET and DELETE are 405, and inbound session ids
 * and Last-Event-ID are ignored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpTools } from '../catalog/index.ts';
import { sharedDemoSnapshots } from '../pipelines/testing/shared-demo.ts';
import { TOOLS_LIST_CACHE } from './mcp.ts';
import { HEADER_MISMATCH, UNSUPPORTED_PROTOCOL_VERSION } from './mcp-headers.ts';
import { type DemoApps, demoApps } from './testing/demo-apps.ts';

const SERVICES = ['korea', 'analytics'] as const;
const URL = 'http://127.0.0.1:4020/mcp';
let apps: DemoApps;

beforeAll(async () => {
  apps = await demoApps(await sharedDemoSnapshots('mcp-http-'), '2026-11-20T09:00:30Z', 'mcp-http-salt');
}, 240_000);
afterAll(() => apps?.close());

interface RpcAnswer {
  jsonrpc: '2.0';
  id: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

async function post(service: (typeof SERVICES)[number], message: object, headers: Record<string, string> = {}) {
  const res = await apps.app(service).request(URL, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', ...message }),
  });
  return { res, body: (await res.json()) as RpcAnswer };
}

describe.each(SERVICES)('%s /mcp', (service) => {
  const tool = mcpTools(service).find((t) => Object.keys(t.input.shape).length === 0 || t.name === 'x402_get_service')!.name;

  it('answers an unsupported MCP-Protocol-Version with 400 and -32022 naming the supported versions', async () => {
    const { res, body } = await post(service, { id: 7, method: 'tools/list' }, { 'MCP-Protocol-Version': '2026-07-28' });
    expect(res.status).toBe(400);
    expect(body.id).toBe(7);
    expect(body.error?.code).toBe(UNSUPPORTED_PROTOCOL_VERSION);
    expect(body.error?.data?.requested).toBe('2026-07-28');
    expect(body.error?.data?.supported).toEqual(expect.arrayContaining(['2025-11-25', '2025-06-18']));
    expect(body.result).toBeUndefined();
  });

  it('keeps answering 2025-06-18 requests, with and without the version header', async () => {
    for (const headers of [{ 'MCP-Protocol-Version': '2025-06-18' }, {}] as Record<string, string>[]) {
      const { res, body } = await post(service, { id: 1, method: 'tools/list' }, headers);
      expect(res.status).toBe(200);
      expect((body.result?.tools as unknown[]).length).toBe(mcpTools(service).length);
    }
  });

  it('refuses Mcp-Method and Mcp-Name headers that disagree with the body (400, -32020), and serves those that agree', async () => {
    const call = { id: 3, method: 'tools/call', params: { name: tool, arguments: tool === 'x402_get_service' ? { id: 1 } : {} } };
    const wrongMethod = await post(service, call, { 'Mcp-Method': 'tools/list' });
    expect(wrongMethod.res.status).toBe(400);
    expect(wrongMethod.body).toMatchObject({ id: 3, error: { code: HEADER_MISMATCH } });
    expect(wrongMethod.body.error?.message).toMatch(/Mcp-Method header says tools\/list but the body's method is tools\/call/);

    const wrongName = await post(service, call, { 'Mcp-Method': 'tools/call', 'Mcp-Name': 'some_other_tool' });
    expect(wrongName.res.status).toBe(400);
    expect(wrongName.body.error?.code).toBe(HEADER_MISMATCH);
    expect(wrongName.body.error?.message).toMatch(new RegExp(`Mcp-Name header says some_other_tool but the body names ${tool}`));

    const listNamed = await post(service, { id: 4, method: 'tools/list' }, { 'Mcp-Name': tool });
    expect(listNamed.res.status).toBe(400);

    const agreeing = await post(service, call, { 'Mcp-Method': 'tools/call', 'Mcp-Name': tool, 'MCP-Protocol-Version': '2025-06-18' });
    expect(agreeing.res.status).toBe(200);
    expect(agreeing.body.result?.content).toBeDefined();
  });

  it('gives tools/list its cache hint (ttlMs, cacheScope), and other results none', async () => {
    const { body } = await post(service, { id: 1, method: 'tools/list' });
    expect(body.result).toMatchObject(TOOLS_LIST_CACHE);
    const ping = await post(service, { id: 2, method: 'ping' });
    expect(ping.body.result).toEqual({});
  });

  it('answers GET and DELETE with 405 and Allow: POST', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await apps.app(service).request(URL, { method, headers: { Accept: 'text/event-stream', 'Mcp-Session-Id': 'abc' } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('Allow')).toBe('POST');
    }
  });

  it('ignores an inbound Mcp-Session-Id and Last-Event-ID, and hands out no session', async () => {
    const { res, body } = await post(
      service,
      { id: 5, method: 'tools/list' },
      { 'Mcp-Session-Id': 'a-session-this-server-never-issued', 'Last-Event-ID': 'event-42', 'MCP-Protocol-Version': '2025-06-18' },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('Mcp-Session-Id')).toBeNull();
    expect(body.id).toBe(5);
  });
});
