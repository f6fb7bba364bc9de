/**
 * The prober against a fleet of real HTTP servers on loopback: honest 402s (v2 header, v1 body),
 * a free resource, and servers that misbehave (drip their headers, stream forever, send huge
 * bodies, redirect to private addresses or in a loop, answer invalid base64, hang, ask to wait).
 * Every server records what it received, so the tests fail if a probe ever carries a payment
 * header, passes the per-host rate, or reaches an address it must not.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseOffer, probeRound, type ProbeResult, type ProbeTarget, retryAfterMs } from './prober.ts';

const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const PAY_TO = '0x1111111111111111111111111111111111111111';

interface Seen {
  at: number;
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
}

const v2Offer = (extra: Record<string, unknown> = { name: 'USD Coin', version: '2' }) => ({
  x402Version: 2,
  error: 'payment required',
  resource: { url: 'http://example.test/paid', description: 'a paid thing', mimeType: 'application/json' },
  accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '10000', asset: BASE_USDC, payTo: PAY_TO, maxTimeoutSeconds: 60, extra }],
  extensions: { bazaar: { info: { input: { type: 'http', method: 'GET' } } } },
});

class Fleet {
  server: Server;
  seen: Seen[] = [];
  open = 0;
  maxOpen = 0;
  sockets = new Set<Socket>();
  constructor(handler: (req: IncomingMessage, res: ServerResponse, fleet: Fleet) => void) {
    this.server = createServer((req, res) => {
      this.seen.push({ at: Date.now(), method: req.method ?? '', path: req.url ?? '', headers: req.headers });
      handler(req, res, this);
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      this.open++;
      this.maxOpen = Math.max(this.maxOpen, this.open);
      socket.on('close', () => {
        this.open--;
        this.sockets.delete(socket);
      });
    });
  }
  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const routes = (req: IncomingMessage, res: ServerResponse, fleet: Fleet): void => {
  const path = (req.url ?? '/').split('?')[0];
  switch (path) {
    case '/v2': {
      res.writeHead(402, {
        'content-type': 'application/json',
        'payment-required': Buffer.from(JSON.stringify(v2Offer())).toString('base64'),
      });
      res.end('{}');
      return;
    }
    case '/v1': {
      res.writeHead(402, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          x402Version: 1,
          error: 'X-PAYMENT header is required',
          accepts: [
            {
              scheme: 'exact',
              network: 'base',
              maxAmountRequired: '5000',
              resource: 'http://example.test/v1',
              payTo: PAY_TO.toUpperCase().replace('0X', '0x'),
              asset: BASE_USDC,
              maxTimeoutSeconds: 60,
              // no extra: no EIP-712 domain, a client cannot sign
            },
          ],
        }),
      );
      return;
    }
    case '/wrong-domain': {
      res.writeHead(402, { 'payment-required': Buffer.from(JSON.stringify(v2Offer({ name: 'USDC', version: '1' }))).toString('base64') });
      res.end();
      return;
    }
    case '/free':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
      return;
    case '/bad-base64':
      res.writeHead(402, { 'payment-required': '%%%not base64%%%' });
      res.end();
      return;
    case '/no-offer':
      res.writeHead(402, { 'content-type': 'text/plain' });
      res.end('pay me');
      return;
    case '/server-error':
      res.writeHead(500);
      res.end('boom');
      return;
    case '/huge': {
      res.writeHead(402, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      let sent = 0;
      const write = (): void => {
        while (sent < 10 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', write);
        }
        res.end();
      };
      write();
      return;
    }
    case '/forever': {
      res.writeHead(402, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(timer));
      return;
    }
    case '/slowloris': {
      // the status line, then one header byte every 300 ms: the headers never complete
      const socket = res.socket as Socket;
      socket.write('HTTP/1.1 402 Payment Required\r\nX-Slow: ');
      const timer = setInterval(() => socket.write('a'), 300);
      socket.on('close', () => clearInterval(timer));
      return;
    }
    case '/hang':
      return; // never answers
    case '/to-metadata':
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
      res.end();
      return;
    case '/to-private':
      res.writeHead(307, { location: 'http://10.0.0.7/admin' });
      res.end();
      return;
    case '/loop-a':
      res.writeHead(302, { location: '/loop-b' });
      res.end();
      return;
    case '/loop-b':
      res.writeHead(302, { location: '/loop-a' });
      res.end();
      return;
    case '/moved':
      res.writeHead(301, { location: '/v2' });
      res.end();
      return;
    case '/busy':
      res.writeHead(429, { 'retry-after': '2' });
      res.end();
      return;
    case '/gone-for-long':
      res.writeHead(503, { 'retry-after': '3600' });
      res.end();
      return;
    case '/post-only':
      if (req.method !== 'POST') {
        res.writeHead(405, { allow: 'POST' });
        res.end();
        return;
      }
      req.resume();
      req.on('end', () => {
        res.writeHead(402, { 'payment-required': Buffer.from(JSON.stringify(v2Offer())).toString('base64') });
        res.end();
      });
      return;
    default:
      void fleet;
      res.writeHead(404);
      res.end();
  }
};

const PAYMENT_HEADERS = ['x-payment', 'payment-signature', 'payment', 'authorization'];

/** Results of the targets under `base`, by path. */
function byPath(results: ProbeResult[], base: string): Map<string, ProbeResult> {
  return new Map(results.flatMap((r) => (r.url.startsWith(`${base}/`) ? [[new URL(r.url).pathname, r] as const] : [])));
}

describe('probeRound on a loopback fleet', () => {
  const fleet = new Fleet(routes);
  let base = '';
  const results: ProbeResult[] = [];
  let stats: Awaited<ReturnType<typeof probeRound>>;
  const paths = [
    '/v2',
    '/v1',
    '/wrong-domain',
    '/free',
    '/bad-base64',
    '/no-offer',
    '/server-error',
    '/huge',
    '/forever',
    '/slowloris',
    '/hang',
    '/to-metadata',
    '/to-private',
    '/loop-a',
    '/moved',
    '/gone-for-long',
  ];

  beforeAll(async () => {
    base = await fleet.listen();
    const targets: ProbeTarget[] = [
      ...paths.map((p) => ({ url: base + p })),
      { url: `${base}/post-only`, method: 'POST', body: '{"q":"x"}' },
      { url: 'ftp://127.0.0.1/file' },
      { url: 'not a url' },
      // https to a plain HTTP server: the TLS handshake fails
      { url: `${base.replace('http:', 'https:')}/v2` },
    ];
    stats = await probeRound(targets, {
      allowLoopback: true,
      concurrency: 8,
      // several paths share one host: let the round run quickly, the rate test below checks the limit
      perHostPerSecond: 50,
      headersTimeoutMs: 1_500,
      totalTimeoutMs: 2_500,
      maxBodyBytes: 256 * 1024,
      onResult: (r) => void results.push(r),
    });
  }, 30_000);
  afterAll(() => fleet.close());

  it('gives every target exactly one result, and never crashes on what a target does', () => {
    expect(stats.targets).toBe(20);
    expect(results).toHaveLength(20);
    expect(stats.maxInFlight).toBeLessThanOrEqual(8);
    expect(fleet.maxOpen).toBeLessThanOrEqual(8);
  });

  it('never sends a payment header, and names itself', () => {
    expect(fleet.seen.length).toBeGreaterThan(10);
    for (const s of fleet.seen) {
      for (const h of PAYMENT_HEADERS) expect(s.headers[h], `${s.path} got ${h}`).toBeUndefined();
      expect(s.headers['user-agent']).toMatch(/x402-analytics-prober/);
    }
  });

  it('reads a v2 offer from PAYMENT-REQUIRED and a v1 offer from the body, with the EIP-712 domain', () => {
    const r = byPath(results, base);
    const v2 = r.get('/v2');
    expect(v2?.outcome).toBe('offer');
    expect(v2?.status).toBe(402);
    expect(v2?.ttfbMs).toBeGreaterThanOrEqual(0);
    expect(v2?.totalMs).toBeGreaterThanOrEqual(v2?.ttfbMs ?? 0);
    expect(v2?.offer).toMatchObject({ x402Version: 2, via: 'header', bazaar: true, resource: 'http://example.test/paid' });
    expect(v2?.offer?.accepts[0]).toMatchObject({
      network: 'eip155:8453',
      chain: 'base',
      amount: '10000',
      payTo: PAY_TO,
      eip712Name: 'USD Coin',
      eip712Version: '2',
      signable: true,
    });
    const v1 = r.get('/v1');
    expect(v1?.offer).toMatchObject({ x402Version: 1, via: 'body', bazaar: false });
    // payTo normalized (EVM lower case), the missing domain makes it unsignable
    expect(v1?.offer?.accepts[0]).toMatchObject({ chain: 'base', amount: '5000', payTo: PAY_TO, signable: false });
    expect(r.get('/wrong-domain')?.offer?.accepts[0]?.signable).toBe(false);
  });

  it('records misbehaviour as such', () => {
    const r = byPath(results, base);
    expect(r.get('/free')).toMatchObject({ outcome: 'open', status: 200 });
    expect(r.get('/bad-base64')).toMatchObject({ outcome: 'invalid_offer', status: 402 });
    expect(r.get('/no-offer')).toMatchObject({ outcome: 'no_offer', status: 402 });
    expect(r.get('/server-error')).toMatchObject({ outcome: 'http_error', status: 500 });
    expect(r.get('/huge')).toMatchObject({ outcome: 'too_large', status: 402 });
    expect(r.get('/forever')?.outcome).toBe('timeout');
    expect(r.get('/forever')?.totalMs).toBeLessThan(4_000);
    expect(r.get('/slowloris')?.outcome).toBe('timeout');
    expect(r.get('/hang')?.outcome).toBe('timeout');
    expect(r.get('/loop-a')).toMatchObject({ outcome: 'redirect_loop' });
    expect(r.get('/moved')).toMatchObject({ outcome: 'offer', redirects: 1 });
    expect(r.get('/post-only')).toMatchObject({ outcome: 'offer', method: 'POST' });
    expect(r.get('/gone-for-long')).toMatchObject({ outcome: 'http_error', status: 503 });
    const byUrl = new Map(results.map((x) => [x.url, x]));
    expect(byUrl.get('ftp://127.0.0.1/file')?.outcome).toBe('bad_url');
    expect(byUrl.get('not a url')?.outcome).toBe('bad_url');
    expect(byUrl.get(`${base.replace('http:', 'https:')}/v2`)?.outcome).toBe('tls_error');
  });

  it('refuses redirects to private and link-local addresses (loopback allowed is not private allowed)', () => {
    const r = byPath(results, base);
    expect(r.get('/to-metadata')).toMatchObject({ outcome: 'private_address', redirects: 1 });
    expect(r.get('/to-private')).toMatchObject({ outcome: 'private_address', redirects: 1 });
  });
});

describe('probeRound safety and pacing', () => {
  it('refuses loopback and names resolving to it unless the run opts in, and the server sees nothing', async () => {
    const fleet = new Fleet(routes);
    const base = await fleet.listen();
    const port = new URL(base).port;
    const results: ProbeResult[] = [];
    await probeRound([{ url: `${base}/v2` }, { url: `http://localhost:${port}/v2` }, { url: `http://[::1]:${port}/v2` }], {
      onResult: (r) => void results.push(r),
    });
    await fleet.close();
    expect(results.map((r) => r.outcome)).toEqual(['private_address', 'private_address', 'private_address']);
    expect(fleet.seen).toHaveLength(0);
  });

  it('checks every address a name resolves to, inside the connection: a name resolving to a private or link-local address is never connected to', async () => {
    const fleet = new Fleet(routes);
    const base = await fleet.listen();
    const port = new URL(base).port;
    const results: ProbeResult[] = [];
    // a hosts file as a test resolver: a public-looking name pointing at loopback (allowed here), one at a
    // private address, one with a private address beside the loopback one (rebinding-style), and IPv6 link-local
    const hosts: Record<string, { address: string; family: number }[]> = {
      'seller.test': [{ address: '127.0.0.1', family: 4 }],
      'internal.test': [{ address: '10.0.0.5', family: 4 }],
      'mixed.test': [
        { address: '127.0.0.1', family: 4 },
        { address: '192.168.1.20', family: 4 },
      ],
      'linklocal.test': [{ address: 'fe80::1', family: 6 }],
    };
    await probeRound(
      Object.keys(hosts).map((h) => ({ url: `http://${h}:${port}/v2` })),
      {
        allowLoopback: true,
        resolve: async (name) => {
          const found = hosts[name];
          if (!found) throw Object.assign(new Error(name), { code: 'ENOTFOUND' });
          return found;
        },
        onResult: (r) => void results.push(r),
      },
    );
    await fleet.close();
    const outcome = Object.fromEntries(results.map((r) => [new URL(r.url).hostname, r.outcome]));
    expect(outcome).toEqual({
      'seller.test': 'offer',
      'internal.test': 'private_address',
      'mixed.test': 'private_address',
      'linklocal.test': 'private_address',
    });
    expect(fleet.seen).toHaveLength(1);
  });

  it('starts at most 2 requests per second per host, and spreads slots across hosts', async () => {
    const a = new Fleet(routes);
    const b = new Fleet(routes);
    const [baseA, baseB] = [await a.listen(), await b.listen()];
    const targets = [
      ...Array.from({ length: 8 }, (_, i) => ({ url: `${baseA}/v2?i=${i}` })),
      ...Array.from({ length: 8 }, (_, i) => ({ url: `${baseB}/v2?i=${i}` })),
    ];
    const results: ProbeResult[] = [];
    const stats = await probeRound(targets, { allowLoopback: true, concurrency: 4, onResult: (r) => void results.push(r) });
    await Promise.all([a.close(), b.close()]);
    expect(results.every((r) => r.outcome === 'offer')).toBe(true);
    for (const fleet of [a, b]) {
      expect(fleet.seen).toHaveLength(8);
      const times = fleet.seen.map((s) => s.at).sort((x, y) => x - y);
      // any three consecutive requests to one host span at least a second (a little slack for the server's clock reading)
      for (let i = 2; i < times.length; i++) expect((times[i] as number) - (times[i - 2] as number)).toBeGreaterThanOrEqual(950);
    }
    // both hosts were probed side by side: 8 requests each at 2/s take about 3.5 s, not 7
    expect(stats.seconds).toBeLessThan(6);
  }, 20_000);

  it('honours Retry-After: a host that asks to wait is not asked again before it says', async () => {
    const fleet = new Fleet(routes);
    const base = await fleet.listen();
    const results: ProbeResult[] = [];
    await probeRound([{ url: `${base}/busy` }, { url: `${base}/v2` }], {
      allowLoopback: true,
      perHostPerSecond: 10,
      concurrency: 1, // the second request waits for the first answer (one already sent cannot be called back)
      onResult: (r) => void results.push(r),
    });
    await fleet.close();
    expect(results[0]).toMatchObject({ outcome: 'rate_limited', status: 429 });
    const [busy, next] = fleet.seen;
    expect((next?.at ?? 0) - (busy?.at ?? 0)).toBeGreaterThanOrEqual(1_900);
  }, 10_000);

  it('defers what is left on a host whose Retry-After is longer than the round can wait', async () => {
    const fleet = new Fleet(routes);
    const base = await fleet.listen();
    const results: ProbeResult[] = [];
    const stats = await probeRound([{ url: `${base}/gone-for-long` }, { url: `${base}/v2` }, { url: `${base}/v1` }], {
      allowLoopback: true,
      perHostPerSecond: 10,
      concurrency: 1,
      onResult: (r) => void results.push(r),
    });
    await fleet.close();
    expect(fleet.seen).toHaveLength(1);
    expect(stats.deferred).toBe(2);
    expect(results.filter((r) => r.outcome === 'deferred').map((r) => r.error)).toEqual(['Retry-After 3600 s', 'Retry-After 3600 s']);
  });
});

describe('parseOffer', () => {
  it('decodes the header, falls back to the body, and calls undecodable offers invalid', () => {
    const header = Buffer.from(JSON.stringify(v2Offer())).toString('base64');
    expect(parseOffer(header, '')).toMatchObject({ via: 'header', x402Version: 2 });
    expect(parseOffer('e30=', '')).toBe('invalid'); // {} has no accepts
    expect(parseOffer(Buffer.from('not json').toString('base64'), '')).toBe('invalid');
    expect(parseOffer(null, '<html>pay</html>')).toBeNull();
    expect(parseOffer(null, JSON.stringify({ x402Version: 1, accepts: [{ network: 'base' }] }))).toBe('invalid'); // no payTo
    // an accept on a network we do not index is kept, with chain null
    const other = parseOffer(
      null,
      JSON.stringify({ x402Version: 1, accepts: [{ network: 'sei', payTo: 'sei1abc', maxAmountRequired: 1 }] }),
    );
    expect(other !== 'invalid' && other?.accepts[0]).toMatchObject({ chain: null, amount: '1', signable: null });
  });

  it('reads Retry-After as seconds or a date', () => {
    expect(retryAfterMs('3', 0)).toBe(3000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(retryAfterMs('soon', 0)).toBeNull();
  });
});
