/**
 * /mcp's DNS-rebinding protection through both apps as proxy/serve.ts builds them: a Host or Origin
 * that is not one of the server's names gets 403 with a JSON-RPC error and no data; the localhost
 * names and MCP_ALLOWED_HOSTS are answered (behind TRUST_PROXY, the host the proxy forwards); the
 * REST endpoints are not affected.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceName } from '../catalog/types.ts';
import { sharedDemoSnapshots } from '../pipelines/testing/shared-demo.ts';
import { type DemoApps, demoApps } from './testing/demo-apps.ts';

const NOW = '2026-11-20T09:00:30Z';
const SERVICES = ['korea', 'analytics'] as const;
let local: DemoApps;
let proxied: DemoApps;

beforeAll(async () => {
  local = await demoApps(await sharedDemoSnapshots('mcp-host-local-'), NOW, 'mcp-host-salt');
  proxied = await demoApps(
    await sharedDemoSnapshots('mcp-host-proxied-', { env: { TRUST_PROXY: '1', MCP_ALLOWED_HOSTS: 'api.example.com, Data.Example.org' } }),
    NOW,
    'mcp-host-salt',
  );
}, 240_000);
afterAll(() => {
  local?.close();
  proxied?.close();
});

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'host-check-test', version: '1.0.0' } },
});
const TOOLS_LIST = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });

/** A POST /mcp to `url` (its host is the Host the app sees) with `headers` added. */
function post(apps: DemoApps, service: ServiceName, url: string, headers: Record<string, string> = {}, body = INITIALIZE) {
  return apps.app(service).request(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2025-06-18',
      ...headers,
    },
    body,
  });
}

async function expectRefused(res: Response, what: RegExp) {
  expect(res.status).toBe(403);
  expect(res.headers.get('Cache-Control')).toBe('no-store');
  const body = (await res.json()) as { jsonrpc: string; id: unknown; error: { code: number; message: string }; result?: unknown };
  expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
  expect(body.error.message).toMatch(what);
  expect(body.result).toBeUndefined();
}

describe.each(SERVICES)('%s /mcp bound to loopback', (service) => {
  it('refuses a foreign Host', async () => {
    await expectRefused(await post(local, service, 'http://evil.example.com/mcp', {}, TOOLS_LIST), /Host "evil\.example\.com"/);
    // the port does not make a foreign name local, and a local port does not help a foreign name
    await expectRefused(await post(local, service, 'http://evil.example.com:4020/mcp'), /Host "evil\.example\.com"/);
    await expectRefused(await post(local, service, 'http://127.0.0.1.evil.example.com/mcp'), /not a name of this MCP server/);
  });

  it('refuses a foreign Origin even under a localhost Host', async () => {
    await expectRefused(
      await post(local, service, 'http://127.0.0.1:4020/mcp', { Origin: 'http://evil.example.com' }, TOOLS_LIST),
      /Origin "http:\/\/evil\.example\.com"/,
    );
    await expectRefused(await post(local, service, 'http://localhost:4020/mcp', { Origin: 'null' }), /Origin "null"/);
  });

  it('refuses GET and DELETE under a foreign Host too (they learn nothing)', async () => {
    for (const method of ['GET', 'DELETE']) {
      await expectRefused(await local.app(service).request('http://evil.example.com/mcp', { method }), /Host/);
    }
  });

  it.each([
    ['127.0.0.1 with its port', 'http://127.0.0.1:4020/mcp', {}],
    ['localhost', 'http://localhost/mcp', { Origin: 'http://localhost:6274' }],
    ['[::1]', 'http://[::1]:4021/mcp', { Origin: 'http://[::1]:4021' }],
    ['LOCALHOST in capitals', 'http://LOCALHOST:4020/mcp', {}],
  ])('answers under %s', async (_name, url, headers: Record<string, string>) => {
    const res = await post(local, service, url, headers);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: { serverInfo: { name: string } } };
    expect(body.result.serverInfo.name).toBe(`${service}-data`);
  });

  it('leaves the REST endpoints alone', async () => {
    const res = await local
      .app(service)
      .request('http://evil.example.com/openapi.json', { headers: { Origin: 'http://evil.example.com' } });
    expect(res.status).toBe(200);
  });
});

describe.each(SERVICES)('%s /mcp behind a proxy (TRUST_PROXY, MCP_ALLOWED_HOSTS)', (service) => {
  it('answers the configured public hosts the proxy forwards, and localhost', async () => {
    for (const host of ['api.example.com', 'data.example.org:443']) {
      const res = await post(proxied, service, 'http://127.0.0.1:4020/mcp', {
        'X-Forwarded-Host': host,
        'X-Forwarded-Proto': 'https',
        Origin: 'https://api.example.com',
      });
      expect(res.status, host).toBe(200);
    }
    expect((await post(proxied, service, 'http://api.example.com/mcp')).status).toBe(200);
    expect((await post(proxied, service, 'http://localhost:4020/mcp')).status).toBe(200);
  });

  it('refuses another forwarded host, and an Origin of another site', async () => {
    await expectRefused(await post(proxied, service, 'http://127.0.0.1:4020/mcp', { 'X-Forwarded-Host': 'evil.example.com' }), /evil/);
    await expectRefused(
      await post(proxied, service, 'http://127.0.0.1:4020/mcp', {
        'X-Forwarded-Host': 'api.example.com',
        Origin: 'https://evil.example.com',
      }),
      /Origin/,
    );
  });
});
