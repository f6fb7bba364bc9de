import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { parseAnswer, runLoad } from './load.ts';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('parseAnswer', () => {
  it('frames a Content-Length answer, and waits for the rest of one', () => {
    const whole = Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX: y\r\n\r\nhello');
    expect(parseAnswer(whole)).toEqual({ status: 200, length: whole.length });
    expect(parseAnswer(whole.subarray(0, whole.length - 1))).toBeNull();
    expect(parseAnswer(whole.subarray(0, 20))).toBeNull();
    // a second answer behind the first is not part of it
    expect(parseAnswer(Buffer.concat([whole, Buffer.from('HTTP/1.1 402')]))).toEqual({ status: 200, length: whole.length });
  });

  it('frames a chunked answer and a bodiless one', () => {
    const chunked = Buffer.from(
      'HTTP/1.1 402 Payment Required\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\na\r\n0123456789\r\n0\r\n\r\n',
    );
    expect(parseAnswer(chunked)).toEqual({ status: 402, length: chunked.length });
    expect(parseAnswer(chunked.subarray(0, chunked.length - 2))).toBeNull();
    const notModified = Buffer.from('HTTP/1.1 304 Not Modified\r\nETag: "x"\r\n\r\n');
    expect(parseAnswer(notModified)).toEqual({ status: 304, length: notModified.length });
  });
});

describe('runLoad', () => {
  it('closed loop: keeps every connection busy and counts statuses', async () => {
    const url = await serve((req, res) => {
      res.statusCode = req.url === '/ok' ? 200 : 404;
      res.end('{"ok":true}');
    });
    const r = await runLoad({ url: `${url}/ok`, connections: 4, durationMs: 300, warmupMs: 100 });
    expect(r.requests).toBeGreaterThan(50);
    expect(r.sent).toBeGreaterThanOrEqual(r.requests);
    expect(r.errors).toBe(0);
    expect(r.statuses).toEqual({ 200: r.requests });
    expect(r.p50Ms).toBeGreaterThan(0);
    expect(r.p99Ms).toBeGreaterThanOrEqual(r.p50Ms);
  });

  it('sends pre-built per-request headers, each once, and counts unexpected statuses as errors', async () => {
    const seen: string[] = [];
    const url = await serve((req, res) => {
      seen.push(String(req.headers['x-payment']));
      res.statusCode = seen.length % 2 === 0 ? 402 : 200;
      res.end('x');
    });
    const values = Array.from({ length: 50_000 }, (_, i) => `pay-${i}`);
    const r = await runLoad({
      url,
      connections: 2,
      durationMs: 200,
      warmupMs: 50,
      headers: (i) => {
        if (i >= values.length) throw new Error('out of payments');
        return { 'X-PAYMENT': values[i]! };
      },
      prebuild: values.length,
    });
    // each value at most once; running out stops a connection instead of repeating one
    expect(seen.length).toBeLessThanOrEqual(values.length);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.every((v) => /^pay-\d+$/.test(v))).toBe(true);
    expect(r.errors).toBeGreaterThan(0);
    expect(r.statuses[402]).toBe(r.errors);
  });

  it('open loop: holds the rate, and a slow answer delays the requests due behind it', async () => {
    let n = 0;
    const url = await serve((_req, res) => {
      // every 25th answer takes 60 ms: with one connection, what is due meanwhile waits
      if (++n % 25 === 0) setTimeout(() => res.end('slow'), 60);
      else res.end('fast');
    });
    const r = await runLoad({ url, connections: 1, durationMs: 1000, warmupMs: 100, rate: 200 });
    expect(r.rps).toBeGreaterThan(150);
    expect(r.rps).toBeLessThan(250);
    // latency counts from when a request was due, so the queue behind a slow answer shows
    expect(r.p99Ms).toBeGreaterThan(30);
    expect(r.p50Ms).toBeLessThan(30);
    await expect(runLoad({ url, connections: 1, durationMs: 10, warmupMs: 0, rate: 0 })).rejects.toThrow(/rate/);
  });
});
