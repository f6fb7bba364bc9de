import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  FACILITATOR_REGISTRY,
  PINNED_REGISTRY_SOURCE,
  REGISTRY_TAKEN_AT,
  REGISTRY_TAKEN_FROM,
  parseFacilitatorRegistry,
  type FacilitatorRegistry,
} from '../../../catalog/facilitators.ts';
import { loadSettings } from '../../../lib/config.ts';
import { startLoopback, type Loopback, type Reply } from '../../../lib/testing/loopback.ts';
import { facilitatorRegistryForRun, REGISTRY_MAX_BYTES, type RegistryInUse } from './registry-source.ts';

const NEW_RELAYER = {
  facilitator: 'coinbase',
  chain: 'base',
  address: `0x${'ab'.repeat(20)}`,
  first_seen: '2026-06-22',
  source:
    'https://github.com/Merit-Systems/x402scan/blob/0000000000000000000000000000000000000000/packages/external/facilitators/src/facilitators/coinbase.ts',
} as const;

/** The pinned copy with one more relayer, taken later. */
const NEWER = {
  ...FACILITATOR_REGISTRY,
  version: 'test@newer',
  taken_at: '2026-07-01',
  relayers: [...FACILITATOR_REGISTRY.relayers, NEW_RELAYER],
};

let server: Loopback;
let reply: Reply;
let lines: string[];
beforeEach(async () => {
  reply = { json: NEWER };
  lines = [];
  server = await startLoopback([{ method: 'GET', path: '/registry.json', reply: () => reply }]);
});
afterEach(async () => {
  await server.close();
});

const upstream = { sleep: async () => {}, minIntervalMs: 0 };
async function run(url: string | undefined, pinned?: FacilitatorRegistry): Promise<RegistryInUse> {
  const settings = loadSettings(url === undefined ? {} : { FACILITATOR_REGISTRY_URL: url });
  return facilitatorRegistryForRun(settings, { upstream, log: (m) => lines.push(m), ...(pinned ? { pinned } : {}) });
}

function expectPinned(used: RegistryInUse, problem: RegExp): void {
  expect(used).toMatchObject({
    origin: 'pinned',
    version: FACILITATOR_REGISTRY.version,
    taken_at: REGISTRY_TAKEN_AT,
    source: PINNED_REGISTRY_SOURCE,
  });
  expect(used.registry).toBe(FACILITATOR_REGISTRY);
  expect(used.problem).toMatch(problem);
  expect(used.problem).not.toContain('\n');
  expect(lines.join('\n')).toContain(used.problem!);
}

describe('the pinned registry', () => {
  it('says when and from where it was taken: the x402scan folder its relayer sources point to', () => {
    expect(REGISTRY_TAKEN_AT).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const folder = REGISTRY_TAKEN_FROM.match(/^https:\/\/github\.com\/Merit-Systems\/x402scan\/tree\/[0-9a-f]{40}\/(.+)$/);
    expect(folder, REGISTRY_TAKEN_FROM).not.toBeNull();
    for (const r of FACILITATOR_REGISTRY.relayers) {
      expect(r.source).toMatch(new RegExp(`^https://github\\.com/Merit-Systems/x402scan/blob/[0-9a-f]{40}/${folder![1]}/[\\w-]+\\.ts$`));
    }
  });

  it('requires taken_at (a calendar date) and taken_from (a URL), naming the field', () => {
    const { taken_at: _at, ...noDate } = FACILITATOR_REGISTRY;
    const { taken_from: _from, ...noFrom } = FACILITATOR_REGISTRY;
    expect(() => parseFacilitatorRegistry(noDate, 'x')).toThrow(/taken_at/);
    expect(() => parseFacilitatorRegistry(noFrom, 'x')).toThrow(/taken_from/);
    expect(() => parseFacilitatorRegistry({ ...FACILITATOR_REGISTRY, taken_at: '2026-02-30' }, 'x')).toThrow(
      /taken_at: expected a calendar date/,
    );
    expect(() => parseFacilitatorRegistry({ ...FACILITATOR_REGISTRY, taken_at: 'January' }, 'x')).toThrow(
      /taken_at: expected a YYYY-MM-DD date/,
    );
    expect(() => parseFacilitatorRegistry({ ...FACILITATOR_REGISTRY, taken_from: 'x402scan' }, 'x')).toThrow(/taken_from/);
    expect(() => parseFacilitatorRegistry({ ...FACILITATOR_REGISTRY, fetched: 'today' }, 'x')).toThrow(/fetched/); // .strict()
  });
});

describe('facilitatorRegistryForRun', () => {
  it('uses the pinned copy, with no problem and no request, when FACILITATOR_REGISTRY_URL is not set', async () => {
    const used = await run(undefined);
    expect(used).toEqual({
      registry: FACILITATOR_REGISTRY,
      origin: 'pinned',
      version: FACILITATOR_REGISTRY.version,
      taken_at: REGISTRY_TAKEN_AT,
      source: 'catalog/facilitators.json',
      problem: null,
    });
    expect(server.requests).toHaveLength(0);
  });

  it('uses a newer document from the URL: its relayers, version and taken_at', async () => {
    const used = await run(`${server.url}/registry.json`);
    expect(used).toMatchObject({
      origin: 'url',
      version: 'test@newer',
      taken_at: '2026-07-01',
      source: `${server.url}/registry.json`,
      problem: null,
    });
    expect(used.registry.relayers).toHaveLength(FACILITATOR_REGISTRY.relayers.length + 1);
    expect(used.registry.relayers).toContainEqual(NEW_RELAYER);
    expect(server.count({ path: '/registry.json' })).toBe(1);
    expect(server.requests[0]!.headers.accept).toBe('application/json');
    expect(lines.join('\n')).toMatch(/using http:\/\/127\.0\.0\.1:\d+\/registry\.json \(version test@newer, taken_at 2026-07-01/);
  });

  it('takes a document taken on the same day as the pinned copy', async () => {
    reply = { json: { ...NEWER, taken_at: REGISTRY_TAKEN_AT } };
    expect((await run(`${server.url}/registry.json`)).origin).toBe('url');
  });

  it('falls back on HTTP 500 after its retries, naming the status', async () => {
    reply = { status: 500, text: 'upstream exploded' };
    const used = await run(`${server.url}/registry.json`);
    expectPinned(
      used,
      /^FACILITATOR_REGISTRY_URL http:\/\/127\.0\.0\.1:\d+\/registry\.json not used: GET failed after 3 attempts: HTTP 500: upstream exploded; using the pinned catalog\/facilitators\.json$/,
    );
    expect(server.count({ path: '/registry.json' })).toBe(3); // the first attempt and 2 retries
  });

  it('falls back on a 404 at once (not retried)', async () => {
    const used = await run(`${server.url}/elsewhere.json`);
    expectPinned(used, /HTTP 404/);
    expect(server.requests).toHaveLength(1);
  });

  it('falls back when the server cannot be reached', async () => {
    const url = `${server.url}/registry.json`;
    await server.close();
    server = await startLoopback([]); // afterEach closes this one
    expectPinned(await run(url), /network error/);
  });

  it('falls back on a body that is not JSON', async () => {
    reply = { text: '<html>maintenance</html>' };
    expectPinned(await run(`${server.url}/registry.json`), /not JSON: <html>maintenance<\/html>/);
  });

  it('falls back on a schema-invalid document, naming the field path', async () => {
    const wrong = { ...NEWER, relayers: [{ ...NEW_RELAYER, address: '0xABC' }] };
    reply = { json: wrong };
    expectPinned(
      await run(`${server.url}/registry.json`),
      /facilitator registry document is invalid: relayers\.0\.address: expected a lower-case 0x EVM address/,
    );

    const { taken_at: _at, ...undated } = NEWER;
    reply = { json: undated };
    expectPinned(await run(`${server.url}/registry.json`), /invalid: taken_at: /);
  });

  it('falls back on a document without relayers', async () => {
    reply = { json: { ...NEWER, relayers: [] } };
    expectPinned(await run(`${server.url}/registry.json`), /lists no relayers/);
  });

  it('falls back on a document taken before the pinned copy', async () => {
    reply = { json: { ...NEWER, taken_at: '2025-12-01' } };
    expectPinned(
      await run(`${server.url}/registry.json`),
      new RegExp(`taken_at 2025-12-01 is older than the pinned copy's ${REGISTRY_TAKEN_AT}`),
    );
  });

  it('compares taken_at with the pinned copy it is given', async () => {
    const pinned = { ...FACILITATOR_REGISTRY, taken_at: '2026-08-01' };
    const used = await run(`${server.url}/registry.json`, pinned);
    expect(used).toMatchObject({
      origin: 'pinned',
      taken_at: '2026-08-01',
      problem: expect.stringMatching(/older than the pinned copy's 2026-08-01/),
    });
    expect(used.registry).toBe(pinned);
  });

  it('refuses a document larger than 5 MiB', async () => {
    reply = { json: { ...NEWER, about: 'x'.repeat(REGISTRY_MAX_BYTES) } };
    expectPinned(await run(`${server.url}/registry.json`), /larger than 5242880 bytes/);
  });

  it('falls back on a value that is not an http(s) URL', async () => {
    expectPinned(await run('registry.json'), /not a valid absolute URL/);
    expectPinned(await run('ftp://mirror.example/registry.json'), /not an http:\/\/ or https:\/\/ URL/);
    expect(server.requests).toHaveLength(0);
  });

  it('never shows the userinfo or query string of the URL, and sends the userinfo as Basic authorization', async () => {
    const port = new URL(server.url).port;
    const url = `http://alice:s3cret@127.0.0.1:${port}/registry.json?ref=main&token=t0psecretvalue`;
    const used = await run(url);
    expect(used).toMatchObject({ origin: 'url', source: `http://127.0.0.1:${port}/registry.json` });
    expect(server.requests[0]!.query).toEqual({ ref: 'main', token: 't0psecretvalue' });
    expect(server.requests[0]!.headers.authorization).toBe(`Basic ${Buffer.from('alice:s3cret').toString('base64')}`);

    reply = { status: 503, text: 'down' };
    const failed = await run(url);
    expect(failed.source).toBe(PINNED_REGISTRY_SOURCE);
    expect(failed.problem).toContain(`http://127.0.0.1:${port}/registry.json not used: GET failed after 3 attempts: HTTP 503`);
    for (const secret of ['alice', 's3cret', 't0psecretvalue', 'ref=main', '?']) {
      expect(failed.problem).not.toContain(secret);
      expect(lines.join('\n')).not.toContain(secret);
    }
  });
});
