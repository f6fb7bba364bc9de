/**
 * The loopback fleet `npm run bench -- probe` probes: HOSTS HTTP servers on 127.0.0.1 (one port
 * each: the prober's per-host limit counts host and port), each answering every path with an
 * x402 v2 402 (a PAYMENT-REQUIRED header and a small JSON body). It records what a fleet of real
 * sellers would see: requests per server in any one-second window, connections open at once
 * across the fleet, and any request carrying a payment header.
 *
 * usage: node --import tsx bench/probe-fleet-child.ts HOSTS
 * Prints one JSON line {ports} when listening; on stdin "stats" prints {maxPerHostPerSecond,
 * maxOpenConnections, requests, paymentHeaders} and exits.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';

const hosts = Number(process.argv[2] ?? 100);
const offer = Buffer.from(
  JSON.stringify({
    x402Version: 2,
    resource: { url: 'http://127.0.0.1/' },
    accepts: [
      {
        scheme: 'exact',
        network: 'eip155:8453',
        amount: '1000',
        asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
        payTo: '0x3333333333333333333333333333333333333333',
        maxTimeoutSeconds: 60,
        extra: { name: 'USD Coin', version: '2' },
      },
    ],
  }),
).toString('base64');
const body = '{"x402Version":2,"error":"payment required"}';

let open = 0;
let maxOpen = 0;
let requests = 0;
let paymentHeaders = 0;
let maxPerSecond = 0;
const servers: Server[] = [];
for (let i = 0; i < hosts; i++) {
  const recent: number[] = []; // arrival times within the last second
  const server = createServer((req, res) => {
    requests++;
    if (req.headers['x-payment'] || req.headers['payment-signature']) paymentHeaders++;
    const now = performance.now();
    recent.push(now);
    while (recent.length > 0 && now - (recent[0] as number) >= 1000) recent.shift();
    maxPerSecond = Math.max(maxPerSecond, recent.length);
    res.writeHead(402, { 'content-type': 'application/json', 'payment-required': offer });
    res.end(body);
  });
  server.on('connection', (socket) => {
    open++;
    maxOpen = Math.max(maxOpen, open);
    socket.on('close', () => open--);
  });
  servers.push(server);
}
await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))));
process.stdout.write(`${JSON.stringify({ ports: servers.map((s) => (s.address() as AddressInfo).port) })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === 'stats') {
    process.stdout.write(
      `${JSON.stringify({ maxPerHostPerSecond: maxPerSecond, maxOpenConnections: maxOpen, requests, paymentHeaders })}\n`,
    );
    process.exit(0);
  }
}
