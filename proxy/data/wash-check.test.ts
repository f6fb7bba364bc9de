/**
 * The wash check computed on request equals the batch classifier: the demo snapshots are published
 * as `npm run pipeline -- all` publishes them, then addresses of every label are checked through
 * the service app with a real (test-signed EVM) payment each, and the on-request answer is held
 * against what the batch run published (the `buyers` dataset; for sellers, the seller state).
 */
import { rmSync } from 'node:fs';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WASH_LABELS } from '../../catalog/categories.ts';
import { findEndpoint } from '../../catalog/index.ts';
import { SELLER_FLAGS_SQL } from '../../classifier/seller-flags.ts';
import type { Settings } from '../../lib/config.ts';
import { publishDemoSnapshots } from '../../pipelines/testing/demo-snapshots.ts';
import { SnapshotReader, type LoadedSnapshot } from '../../snapshots/reader.ts';
import { createServiceApp } from '../serve.ts';
import { paidPost, testPaymentParts } from '../x402/testing.ts';
import { ReceiptSigner } from '../x402/receipts.ts';
import { closeSnapshotDuck, queryRows, withCheckConnection } from './duck.ts';
import { SELLER_ON_REQUEST_MAX } from './wash-check.ts';

const NOW = '2026-11-20T09:00:30Z';
const nowSeconds = Math.floor(new Date(NOW).getTime() / 1000);
let settings: Settings;
let root: string;
let reader: SnapshotReader;
let snapshot: LoadedSnapshot;
let app: Hono;

beforeAll(async () => {
  ({ root, settings } = await publishDemoSnapshots('wash-check-test-'));
  reader = new SnapshotReader(settings.snapshotsDir, 'analytics');
  await reader.refresh();
  snapshot = reader.current()!;
  const now = () => new Date(NOW);
  app = await createServiceApp(
    'analytics',
    reader,
    settings,
    { ...testPaymentParts({ signer: ReceiptSigner.random(), now }), washPatternSalt: 'wash-check-test-salt' },
    { now },
  );
}, 240_000);

afterAll(async () => {
  reader?.close();
  await closeSnapshotDuck();
  rmSync(root, { recursive: true, force: true });
});

const path = (name: string) => snapshot.datasets.get(name)!.path;

interface CheckBody {
  as_of: string;
  address: string;
  label: string;
  confidence: number;
  signals: { vanity: { strict: boolean; broad: boolean }; cohort: { uniform_amount: number; coordinated_start: number } };
  similar_patterns: Array<{ anonymous_id: string; pattern_type: string }>;
  basis: string;
}

async function check(address: string): Promise<CheckBody> {
  const res = await paidPost(app, settings, findEndpoint('analytics', 'wash.check')!, { address }, nowSeconds);
  expect(res.status, address).toBe(200);
  return (await res.json()) as CheckBody;
}

describe('the wash check on request', () => {
  it('gives the batch classifier’s label, confidence and vanity flags for 200 wallets of every label and rule', async () => {
    // round-robin over (label, first reason): every label and every rule that decides one
    // (round trips, rings, vanity tiers, funded loops...) before any gets a second wallet
    const sample = await queryRows(
      `SELECT address, label, confidence, vanity_strict, vanity_broad FROM (
         SELECT *, row_number() OVER (PARTITION BY label, reason[1] ORDER BY hash(address)) AS turn FROM read_parquet($p)
       ) ORDER BY turn, hash(address) LIMIT 200`,
      { p: path('buyers') },
    );
    const labels = new Set(sample.map((r) => r.label));
    expect([...labels].sort()).toEqual([...WASH_LABELS].sort());
    expect(sample.length).toBe(200);
    const disagreements: string[] = [];
    for (const row of sample) {
      const body = await check(String(row.address));
      expect(body.basis).toMatch(/^Buyer view\. .*computed on request/);
      expect(body.as_of).toBe(snapshot.datasets.get('wash-payments-by-buyer')!.entry.as_of);
      const same =
        body.label === row.label &&
        body.confidence === Math.round(Number(row.confidence) * 1e4) / 1e4 &&
        body.signals.vanity.strict === row.vanity_strict &&
        body.signals.vanity.broad === row.vanity_broad;
      if (!same)
        disagreements.push(
          `${String(row.address)}: batch ${String(row.label)} ${String(row.confidence)}, on request ${body.label} ${body.confidence}`,
        );
    }
    const rate = (sample.length - disagreements.length) / sample.length;
    console.log(
      `wash check on request: ${(rate * 100).toFixed(1)} % of ${sample.length} wallets (${[...labels].sort().join(', ')}) agree with the batch labels`,
    );
    expect(disagreements).toEqual([]);
  }, 240_000);

  it("labels a seller's payers on request over the day state, with the state's seller flags", async () => {
    const sellers = await queryRows(
      `WITH s AS (
         SELECT seller_address, list_sort(flatten(list(${SELLER_FLAGS_SQL}))) AS flags
           FROM read_parquet($s) GROUP BY seller_address
       ), n AS (SELECT seller_address, count(*)::INTEGER AS payments FROM read_parquet($bs) GROUP BY seller_address)
       SELECT s.seller_address, s.flags FROM s JOIN n USING (seller_address)
        WHERE n.payments <= ${SELLER_ON_REQUEST_MAX}
          AND s.seller_address NOT IN (SELECT buyer FROM read_parquet($bb))
        ORDER BY len(s.flags) DESC, hash(s.seller_address) LIMIT 12`,
      { s: path('wash-sellers'), bs: path('wash-payments-by-seller'), bb: path('wash-payments-by-buyer') },
    );
    expect(sellers.length).toBeGreaterThan(5);
    expect(
      sellers.some((s) => (s.flags as string[]).length > 0),
      'a flagged seller among them',
    ).toBe(true);
    for (const s of sellers) {
      const body = await check(String(s.seller_address));
      expect(body.basis, String(s.seller_address)).toMatch(/^Seller view: .*labelled on request/);
      expect(body.similar_patterns.map((p) => p.pattern_type).sort(), String(s.seller_address)).toEqual(s.flags);
    }
  }, 240_000);

  it('answers an address it never saw as never seen, stamped with the data it read', async () => {
    const body = await check(`0x${'cd'.repeat(20)}`);
    expect(body).toMatchObject({ label: 'unlabeled', confidence: 0, similar_patterns: [] });
    expect(body.basis).toMatch(/^Never seen/);
    expect(body.as_of).toBe(snapshot.datasets.get('wash-payments-by-buyer')!.entry.as_of);
  });

  it('leaves nothing behind: the check instance holds no more table memory after 60 checks than after one', async () => {
    // found by the soak: rows deleted from an in-memory table are never reclaimed, so a check
    // that refilled its input tables by DELETE grew the server by every check's rows
    const [heavy] = await queryRows('SELECT buyer FROM read_parquet($p) GROUP BY buyer ORDER BY count(*) DESC, buyer LIMIT 1', {
      p: path('wash-payments-by-buyer'),
    });
    const tableBytes = async () =>
      Number(
        (
          await withCheckConnection(async (c) =>
            (
              await c.runAndReadAll("SELECT sum(memory_usage_bytes)::BIGINT AS b FROM duckdb_memory() WHERE tag = 'IN_MEMORY_TABLE'")
            ).getRowObjectsJson(),
          )
        )[0]?.b ?? 0,
      );
    await check(String(heavy!.buyer));
    const after1 = await tableBytes();
    for (let i = 0; i < 60; i++) await check(String(heavy!.buyer));
    expect(await tableBytes()).toBe(after1);
  }, 240_000);
});
