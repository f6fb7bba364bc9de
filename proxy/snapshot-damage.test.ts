/**
 * Issue 16, faults 1 and 2, through createServiceApp as proxy/serve.ts builds it over published
 * demo snapshots (analytics published twice, so an older good version is kept):
 *
 * 1. A byte flipped in the live transactions.parquet after it was loaded: the paid call that hits
 *    the read error is answered 200 from the older good version (X-Snapshot-Version names it),
 *    /health names the damaged version and file, and the payment buys that one answer only. With
 *    no good version kept the call answers 503 with Retry-After, the payment is not used, and once
 *    the file is repaired the same payment buys the answer.
 * 2. A manifest edited after publishing is not believed: the live one is noticed at the next poll
 *    (the version is dropped for the older one), and an older one falling back is checked against
 *    the sha256 latest.json's `kept` list gives for it.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findEndpoint } from '../catalog/index.ts';
import { loadSettings, type Settings } from '../lib/config.ts';
import { parseArgs, runCli } from '../pipelines/cli.ts';
import { LineProgress } from '../pipelines/progress.ts';
import { copyOfSharedDemo } from '../pipelines/testing/shared-demo.ts';
import { listVersions, readLatestPointer, SnapshotReader } from '../snapshots/reader.ts';
import type { HealthDocument } from './health.ts';
import { queryRows } from './data/duck.ts';
import { createServiceApp } from './serve.ts';
import { freshPaymentHeader } from '../payments/testing/bench-support.ts';
import { payToTable } from '../payments/networks.ts';
import { testPaymentParts, type LooseJson } from '../payments/testing/paywall.ts';

const NOW = '2026-11-20T10:00:30Z';
const nowSeconds = Math.floor(new Date(NOW).getTime() / 1000);
/** The paid transactions of the first service in both versions' files (set below): its rows lie in the damaged first chunk. */
let TRANSACTIONS = '';
let published: string;
let scratch: string;
let older: string;
let newer: string;
const readers: SnapshotReader[] = [];

beforeAll(async () => {
  // a copy of the run's shared demo publish: the second run below publishes into it
  const first = await copyOfSharedDemo('snapshot-damage-test-', { services: ['analytics'] });
  published = first.settings.snapshotsDir;
  scratch = mkdtempSync(join(tmpdir(), 'snapshot-damage-copies-'));
  // a second analytics run an hour later: the first version stays kept beside the live one
  const quiet = { progress: new LineProgress(() => {}), out: () => {} };
  const { exitCode } = await runCli(parseArgs(['analytics', '--now', '2026-11-20T10:00:00Z']), first.settings, quiet);
  expect(exitCode).toBe(0);
  [newer, older] = listVersions(published, 'analytics') as [string, string];
  expect(readLatestPointer(published, 'analytics')?.version).toBe(newer);
  // the table is ordered by service id, so the smallest id with payments in both versions is in the
  // first row group, the one flipByte damages (a service without payments would skip it)
  const files = [newer, older].map((v) => join(published, 'analytics', v, 'transactions.parquet'));
  const [smallest] = await queryRows(
    'SELECT min(service_id)::INTEGER AS id FROM (SELECT service_id FROM read_parquet($a) INTERSECT SELECT service_id FROM read_parquet($b))',
    { a: files[0]!, b: files[1]! },
  );
  TRANSACTIONS = `/api/v1/services/${Number(smallest?.id)}/transactions`;
}, 240_000);
afterAll(() => {
  for (const r of readers) r.close();
  rmSync(join(published, '..'), { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

interface Served {
  app: Hono;
  reader: SnapshotReader;
  /** The copy's snapshots root. */
  dir: string;
  /** A file of an analytics version of the copy. */
  file: (version: string, name: string) => string;
}

/** A copy of the published snapshots, changed by `prepare` before the reader loads it, served as proxy/serve.ts serves it. */
async function serveCopy(name: string, prepare: (s: Pick<Served, 'dir' | 'file'>) => void = () => {}): Promise<Served> {
  const dir = join(scratch, name);
  cpSync(published, dir, { recursive: true });
  const file = (version: string, f: string) => join(dir, 'analytics', version, f);
  prepare({ dir, file });
  const settings: Settings = loadSettings({ SITE_BUILD: 'off', SNAPSHOTS_DIR: dir, WAREHOUSE_DIR: join(scratch, `${name}-warehouse`) });
  const reader = new SnapshotReader(dir, 'analytics');
  readers.push(reader);
  await reader.refresh();
  const now = () => new Date(NOW);
  const app = await createServiceApp('analytics', reader, settings, { ...testPaymentParts({ now }), washPatternSalt: 'salt' }, { now });
  return { app, reader, dir, file };
}

/** One byte of the file turned over, in place (early in the file: the first column chunk, so every lookup reads it). */
function flipByte(path: string, offset = 20): void {
  const bytes = readFileSync(path);
  bytes[offset]! ^= 0xff;
  writeFileSync(path, bytes);
}

function payment(): { name: string; value: string } {
  const endpoint = findEndpoint('analytics', 'services.transactions')!;
  const settings = loadSettings({});
  return freshPaymentHeader({
    endpoint,
    payTo: payToTable(settings),
    version: 2,
    now: nowSeconds,
    resourceUrl: `http://localhost${TRANSACTIONS}`,
  });
}

async function health(app: Hono): Promise<{ status: number; body: HealthDocument; text: string }> {
  const res = await app.request('/health');
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as HealthDocument, text };
}

function expectNoPath(text: string, dir: string): void {
  expect(text).not.toContain(dir);
  expect(text).not.toContain(tmpdir());
}

describe('fault 1: a snapshot file damaged while served', () => {
  it('the paid call is answered from the older good version, /health says why, and the payment buys one answer', async () => {
    const { app, reader, dir, file } = await serveCopy('older-kept');
    expect(reader.current()?.version).toBe(newer);
    flipByte(file(newer, 'transactions.parquet'));

    const paid = payment();
    const res = await app.request(TRANSACTIONS, { headers: { [paid.name]: paid.value } });
    const body = (await res.json()) as LooseJson;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(res.headers.get('x-snapshot-version')).toBe(older);
    expect(body.transactions.length).toBeGreaterThan(0);
    expect(body.receipt).toBeDefined();

    const { status, body: doc, text } = await health(app);
    expect(status).toBe(200);
    expect(doc.status).toBe('degraded');
    expect(doc.snapshot?.version).toBe(older);
    expect(doc.snapshot?.fallback_reason).toMatch(
      new RegExp(`${newer}, which is damaged: transactions\\.parquet \\(dataset transactions\\)`),
    );
    expect(doc.problems.join('\n')).toContain('transactions.parquet');
    expectNoPath(text, dir);

    // the same payment again: refused, it bought the answer above
    const again = await app.request(TRANSACTIONS, { headers: { [paid.name]: paid.value } });
    expect(again.status).toBe(402);
    expect(((await again.json()) as LooseJson).reason).toBe('nonce_used');

    // a free endpoint reading the same kind of file keeps answering, from the good version
    const free = await app.request('/api/v1/services?page_size=5');
    expect(free.status).toBe(200);
    expect(free.headers.get('x-snapshot-version')).toBe(older);
  });

  it('with no good version kept: 503 with Retry-After, the payment unused, and bought with once the file is repaired', async () => {
    const { app, reader, dir, file } = await serveCopy('only-version', (s) => rmSync(join(s.dir, 'analytics', older), { recursive: true }));
    expect(reader.current()?.version).toBe(newer);
    const path = file(newer, 'transactions.parquet');
    const good = readFileSync(path);
    flipByte(path);

    const paid = payment();
    const res = await app.request(TRANSACTIONS, { headers: { [paid.name]: paid.value } });
    const text = await res.text();
    expect(res.status, text).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(res.headers.get('x-receipt')).toBeNull();
    expect(text).toMatch(/Nothing was charged/);
    expect(text).toContain(newer);
    expectNoPath(text, dir);

    const { body: doc, text: healthText } = await health(app);
    expect(doc.snapshot).toBeNull();
    expect(doc.problems.join('\n')).toMatch(new RegExp(`${newer} is damaged \\(transactions\\.parquet \\(dataset transactions\\)`));
    expect(doc.problems.join('\n')).not.toMatch(/no published analytics snapshot yet/);
    expectNoPath(healthText, dir);

    // repaired in place: the next poll serves the version again, and the same payment buys the answer
    writeFileSync(path, good);
    await reader.refresh();
    expect(reader.current()?.version).toBe(newer);
    const retried = await app.request(TRANSACTIONS, { headers: { [paid.name]: paid.value } });
    expect(retried.status, await retried.clone().text()).toBe(200);
    expect(retried.headers.get('x-snapshot-version')).toBe(newer);
    expect((await health(app)).body.snapshot?.fallback_reason).toBeNull();
  });

  it('a file damaged before the version is loaded: the older version is served from the start', async () => {
    const { app, reader } = await serveCopy('damaged-before-load', (s) => flipByte(s.file(newer, 'transactions.parquet')));
    expect(reader.current()?.version).toBe(older);
    const paid = payment();
    const res = await app.request(TRANSACTIONS, { headers: { [paid.name]: paid.value } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-snapshot-version')).toBe(older);
    expect((await health(app)).body.snapshot?.fallback_reason).toMatch(
      new RegExp(`${newer}, which failed verification: .*transactions\\.parquet`),
    );
  });

  it('the poll notices a file changed in place before any request reads it', async () => {
    const { app, reader, file } = await serveCopy('poll-notices');
    // a byte deep in the file: the service 1 lookup does not read it, so no read error would tell
    flipByte(file(newer, 'transactions.parquet'), 5000);
    await reader.refresh();
    expect(reader.current()?.version).toBe(older);
    expect((await health(app)).body.snapshot?.fallback_reason).toMatch(
      /transactions\.parquet \(dataset transactions\) does not match its sha256/,
    );
  });
});

describe('fault 2: an edited manifest is not believed', () => {
  /** The manifest with one dataset's as_of and rows changed, as someone editing it by hand would. */
  function editManifest(path: string): string {
    const manifest = JSON.parse(readFileSync(path, 'utf8')) as { datasets: Array<{ name: string; as_of: string; rows: number }> };
    const transactions = manifest.datasets.find((d) => d.name === 'transactions')!;
    transactions.as_of = '2030-01-01T00:00:00.000Z';
    transactions.rows += 1;
    writeFileSync(path, `${JSON.stringify(manifest, null, 2)}\n`);
    return transactions.as_of;
  }

  it('the live manifest edited while served: the next poll drops the version and /health never shows the edit', async () => {
    const { app, reader, dir, file } = await serveCopy('live-manifest');
    const edited = editManifest(file(newer, 'manifest.json'));
    await reader.refresh();
    const { body, text } = await health(app);
    expect(body.snapshot?.version).toBe(older);
    expect(body.snapshot?.fallback_reason).toMatch(
      new RegExp(`${newer}, which is damaged: manifest\\.json was changed after it was published`),
    );
    expect(text).not.toContain(edited);
    expectNoPath(text, dir);
    const paid = payment();
    const res = await app.request(TRANSACTIONS, { headers: { [paid.name]: paid.value } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-snapshot-version')).toBe(older);
  });

  it("an older version's edited manifest is checked against latest.json's kept list when falling back to it", async () => {
    const pointer = readLatestPointer(published, 'analytics')!;
    expect(pointer.kept?.map((k) => k.version)).toEqual([older]);
    const { app, reader, text } = await (async () => {
      const served = await serveCopy('older-manifest', (s) => {
        editManifest(s.file(older, 'manifest.json'));
        flipByte(s.file(newer, 'transactions.parquet'));
      });
      return { ...served, text: (await health(served.app)).text };
    })();
    expect(reader.current()).toBeNull();
    expect(text).not.toContain('2030-01-01');
    expect(text).toMatch(/no older version verifies/);
    const paid = payment();
    const res = await app.request(TRANSACTIONS, { headers: { [paid.name]: paid.value } });
    expect(res.status).toBe(503);
  });
});
