/**
 * The probe step as a live run uses it: the discovery step lists resources served by a loopback
 * fleet, the probe step asks each one its price without paying (the method its listing declares),
 * and the answers land in the warehouse's 8-day history behind x402_probes.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSettings } from '../../../lib/config.ts';
import { queryJson } from '../../../lib/duckdb.ts';
import { startLoopback, type Loopback, type RecordedRequest, type Reply } from '../../../lib/testing/loopback.ts';
import { type IngestStep, rowsOf } from '../../contract.ts';
import { testContext, type TestContext } from '../testing/context.ts';
import { liveIngestSteps, type LiveIngestOptions } from './index.ts';

const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const PAY_TO = '0x2222222222222222222222222222222222222222';
const NOW = new Date('2026-11-28T12:00:00Z');

const offer = (amount: string) =>
  Buffer.from(
    JSON.stringify({
      x402Version: 2,
      resource: { url: 'x' },
      accepts: [
        { scheme: 'exact', network: 'eip155:8453', amount, asset: BASE_USDC, payTo: PAY_TO, extra: { name: 'USD Coin', version: '2' } },
      ],
    }),
  ).toString('base64');

const paid = (amount: string): Reply => ({ status: 402, headers: { 'payment-required': offer(amount) }, json: {} });

let fleet: Loopback;
let discovery: Loopback;
let t: TestContext;

function listing(resource: string, method?: string) {
  return {
    resource,
    type: 'http',
    x402Version: 2,
    accepts: [
      {
        scheme: 'exact',
        network: 'eip155:8453',
        amount: '10000',
        asset: BASE_USDC,
        payTo: PAY_TO,
        extra: { name: 'USD Coin', version: '2' },
      },
    ],
    ...(method ? { extensions: { bazaar: { info: { input: { type: 'http', method } } } } } : {}),
    metadata: { name: resource.split('/').pop() },
  };
}

beforeEach(async () => {
  fleet = await startLoopback([
    { method: 'GET', path: '/price', reply: paid('10000') },
    { method: 'POST', path: '/search', reply: (req: RecordedRequest) => (req.method === 'POST' ? paid('20000') : { status: 405 }) },
    { method: 'GET', path: '/down', reply: { status: 503, text: 'maintenance' } },
  ]);
  const items = [
    listing(`${fleet.url}/price`),
    listing(`${fleet.url}/search`, 'POST'),
    listing(`${fleet.url}/down`),
    listing('http://10.1.2.3/internal'),
  ];
  discovery = await startLoopback([
    {
      method: 'GET',
      path: '/discovery/resources',
      reply: (req) => ({ json: { items: Number(req.query.offset) > 0 ? [] : items, pagination: { total: items.length } } }),
    },
  ]);
  t = await testContext();
});
afterEach(async () => {
  await Promise.all([fleet.close(), discovery.close()]);
  t.close();
});

const options: LiveIngestOptions = {
  upstream: { sleep: async () => {}, minIntervalMs: 0 },
  probe: { allowLoopback: true, perHostPerSecond: 20 },
};

async function run(now: Date): Promise<Record<string, number | string>> {
  const steps = liveIngestSteps(loadSettings({ X402_DISCOVERY_URL: discovery.url }), options).filter((s: IngestStep) =>
    ['ingest:x402_services', 'ingest:x402_probes'].includes(s.name),
  );
  const out: Record<string, number | string> = {};
  for (const step of steps) {
    const done = await step.run(t.at(now));
    out[step.name] = rowsOf(done);
    if (typeof done !== 'number') out[`${step.name} detail`] = done.detail;
  }
  return out;
}

const probes = () =>
  queryJson(
    t.warehouse.connection,
    `SELECT resource_url AS url, method, outcome, status::INTEGER AS status, source,
            json_extract_string(offers, '$[0].amount') AS amount, json_extract_string(offers, '$[0].pay_to') AS pay_to
       FROM x402_probes ORDER BY probed_at, resource_url`,
  );

describe('the probe step', () => {
  it('probes every listed resource with the method its listing declares, never paying, and keeps the answers', async () => {
    const first = await run(NOW);
    expect(first['ingest:x402_services']).toBe(4);
    expect(first['ingest:x402_probes']).toBe(4);
    expect(first['ingest:x402_probes detail']).toMatch(/^probed 4 of 4 in [\d.]+s \(/);
    const rows = (await probes()).map((r) => ({ ...r, url: String(r.url).replace(fleet.url, '') }) as Record<string, unknown>);
    expect(rows.map((r) => [r.url, r.method, r.outcome, r.status]).sort()).toEqual([
      ['/down', 'GET', 'http_error', 503],
      ['/price', 'GET', 'offer', 402],
      ['/search', 'POST', 'offer', 402],
      ['http://10.1.2.3/internal', 'GET', 'private_address', null],
    ]);
    expect(rows.find((r) => r.url === '/search')).toMatchObject({ amount: '20000', pay_to: PAY_TO, source: 'live' });
    for (const req of fleet.requests) {
      expect(req.headers['x-payment']).toBeUndefined();
      expect(req.headers['payment-signature']).toBeUndefined();
    }
    expect(fleet.requests).toHaveLength(3); // the private address was never reached

    // 5 minutes later: no round (every 10 minutes), the history as it was
    fleet.reset();
    const soon = await run(new Date(NOW.getTime() + 5 * 60_000));
    expect(soon['ingest:x402_probes']).toBe(4);
    expect(soon['ingest:x402_probes detail']).toMatch(/^no round: the last one was \d+ min ago/);
    expect(fleet.requests).toHaveLength(0);

    // 9 days later: a new round, and the first one has left the 8-day history
    const later = await run(new Date(NOW.getTime() + 9 * 86_400_000));
    expect(later['ingest:x402_probes']).toBe(4);
    expect(fleet.requests).toHaveLength(3);
  });
});
