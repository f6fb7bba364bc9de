/**
 * The wash check answers with the classifier's labels: the demo snapshots are published as
 * `npm run pipeline -- all` publishes them, then addresses of every label are checked through the
 * service app with a real (test-signed EVM) payment each, and each answer is held against what the
 * run published or kept by other paths: the `buyers` rows; the heaviest pair recomputed from the
 * buyer's payments in the warehouse, with that seller's cohort and flags in the day state the
 * warehouse keeps (`seller_state.parquet`); and a seller's vote recomputed from its services'
 * top-buyer lists (`services`, `wash-detail`).
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WASH_LABELS } from '../../catalog/categories.ts';
import { findEndpoint } from '../../catalog/index.ts';
import { TOP_PAIR_KEY } from '../../catalog/wash-rules.ts';
import { SELLER_FLAGS_SQL } from '../../classifier/seller-flags.ts';
import type { Settings } from '../../lib/config.ts';
import { openDatabase, queryJson, sqlString, type Database } from '../../lib/duckdb.ts';
import { publishDemoSnapshots } from '../../pipelines/testing/demo-snapshots.ts';
import { SnapshotReader, type LoadedSnapshot } from '../../snapshots/reader.ts';
import { createServiceApp } from '../serve.ts';
import { paidPost, testPaymentParts } from '../../payments/testing/paywall.ts';
import { ReceiptSigner } from '../../payments/receipts.ts';
import { closeSnapshotDuck, queryRows } from './duck.ts';

const NOW = '2026-11-20T09:00:30Z';
const nowSeconds = Math.floor(new Date(NOW).getTime() / 1000);
let settings: Settings;
let root: string;
let reader: SnapshotReader;
let snapshot: LoadedSnapshot;
let app: Hono;
/** The demo run's warehouse, read-only: its payments and the day state's seller rows. */
let warehouse: Database;
let sellerState: string;

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
  warehouse = await openDatabase(':memory:');
  await warehouse.connection.run(`ATTACH ${sqlString(join(settings.warehouseDir, 'analytics.duckdb'))} AS wh (READ_ONLY)`);
  const stateDir = join(settings.warehouseDir, 'analytics-day-state');
  const [state] = readdirSync(stateDir);
  sellerState = `read_parquet(${sqlString(join(stateDir, state!, 'seller_state.parquet'))})`;
}, 240_000);

afterAll(async () => {
  warehouse?.close();
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
  signals: {
    vanity: { strict: boolean; broad: boolean };
    cohort: { uniform_amount: number; coordinated_start: number };
    concentration: { top_service_share: number };
  };
  similar_patterns: Array<{ anonymous_id: string; pattern_type: string }>;
  basis: string;
}

async function check(address: string): Promise<CheckBody> {
  const res = await paidPost(app, settings, findEndpoint('analytics', 'wash.check')!, { address }, nowSeconds);
  expect(res.status, address).toBe(200);
  return (await res.json()) as CheckBody;
}

const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

describe('the wash check', () => {
  it('gives the classifier’s label, confidence, vanity flags and main seller’s cohort for 200 wallets of every label and rule', async () => {
    // round-robin over (label, first reason): every label and every rule that decides one
    // (round trips, rings, vanity tiers, funded loops...) before any gets a second wallet
    const sample = await queryRows(
      `SELECT address, label, confidence, vanity_strict, vanity_broad, top_service_share FROM (
         SELECT *, row_number() OVER (PARTITION BY label, reason[1] ORDER BY hash(address)) AS turn FROM read_parquet($p)
       ) ORDER BY turn, hash(address) LIMIT 200`,
      { p: path('buyers') },
    );
    const labels = new Set(sample.map((r) => r.label));
    expect([...labels].sort()).toEqual([...WASH_LABELS].sort());
    expect(sample.length).toBe(200);
    // each wallet's heaviest pair from its own payments (the classifier's order), and that
    // seller's cohort in the day state: another path to signals.cohort than the buyers row
    const cohorts = new Map(
      (
        await queryJson(
          warehouse.connection,
          `WITH p AS (SELECT buyer, seller_address, chain, count(*) AS tx_count, hash(seller_address) AS sak
                        FROM wh.x402_transactions
                       WHERE time <= ${sqlString(NOW)}::TIMESTAMPTZ AND buyer IS NOT NULL AND seller_address IS NOT NULL AND chain IS NOT NULL
                       GROUP BY ALL),
                top AS (SELECT buyer, arg_max(seller_address, ${TOP_PAIR_KEY}) AS seller_address, arg_max(chain, ${TOP_PAIR_KEY}) AS chain
                          FROM p GROUP BY buyer)
           SELECT t.buyer, coalesce(s.uniform_amount_pct, 0)::DOUBLE AS u, coalesce(s.coordinated_start_pct, 0)::DOUBLE AS c
             FROM top t LEFT JOIN ${sellerState} s USING (seller_address, chain)`,
        )
      ).map((r) => [String(r.buyer), { uniform_amount: round4(Number(r.u)), coordinated_start: round4(Number(r.c)) }]),
    );
    const disagreements: string[] = [];
    let withCohort = 0;
    for (const row of sample) {
      const body = await check(String(row.address));
      expect(body.basis).toMatch(/^Buyer view\. .*computed by the run below from all \d+ of its payments/);
      expect(body.as_of).toBe(snapshot.datasets.get('buyers')!.entry.as_of);
      const cohort = cohorts.get(String(row.address));
      if (cohort && cohort.uniform_amount + cohort.coordinated_start > 0) withCohort += 1;
      const same =
        body.label === row.label &&
        body.confidence === round4(Number(row.confidence)) &&
        body.signals.vanity.strict === row.vanity_strict &&
        body.signals.vanity.broad === row.vanity_broad &&
        body.signals.concentration.top_service_share === round4(Number(row.top_service_share)) &&
        JSON.stringify(body.signals.cohort) === JSON.stringify(cohort);
      if (!same)
        disagreements.push(
          `${String(row.address)}: published ${String(row.label)} ${String(row.confidence)} ${JSON.stringify(cohort)}, ` +
            `answered ${body.label} ${body.confidence} ${JSON.stringify(body.signals.cohort)}`,
        );
    }
    expect(disagreements).toEqual([]);
    expect(withCohort, 'wallets whose main seller has a cohort summary').toBeGreaterThan(20);
  }, 240_000);

  it("answers a seller with its pairs' labels weighed by 30-day volume and the day state's seller flags", async () => {
    const sellers = await queryJson(
      warehouse.connection,
      `WITH s AS (
         SELECT seller_address, list_sort(flatten(list(${SELLER_FLAGS_SQL}))) AS flags
           FROM ${sellerState} GROUP BY seller_address
       )
       SELECT s.seller_address, s.flags FROM s
        WHERE s.seller_address NOT IN (SELECT buyer FROM wh.x402_transactions WHERE buyer IS NOT NULL)
        ORDER BY len(s.flags) DESC, hash(s.seller_address) LIMIT 12`,
    );
    expect(sellers.length).toBeGreaterThan(5);
    expect(
      sellers.some((s) => (s.flags as string[]).length > 0),
      'a flagged seller among them',
    ).toBe(true);
    for (const s of sellers) {
      const body = await check(String(s.seller_address));
      expect(body.basis, String(s.seller_address)).toMatch(/^Seller view: this address was paid \d+ times and never paid/);
      expect(body.similar_patterns.map((p) => p.pattern_type).sort(), String(s.seller_address)).toEqual(s.flags);
    }
  }, 240_000);

  it("recomputes a seller's label from its services' buyer lists: the same label, confidence and wash share", async () => {
    // sellers whose every payment is attributed to one of their services, each with at most 50
    // buyers in 30 days: wash-detail then lists every pair of theirs with its label, confidence
    // and 30-day volume, so the vote can be taken again from the published lists
    const services = await queryRows(
      `SELECT f.seller_address, list(f.id) AS ids, sum(f.tx_total)::BIGINT AS tx_total, max(f.unique_buyers_30d) AS most_buyers,
              any_value(c.payments)::BIGINT AS payments
         FROM read_parquet($services) f JOIN read_parquet($sellers) c USING (seller_address)
        WHERE f.seller_address NOT IN (SELECT address FROM read_parquet($buyers))
        GROUP BY f.seller_address
       HAVING most_buyers <= 50 AND tx_total = payments AND max(f.tx_30d) > 0
        ORDER BY hash(f.seller_address) LIMIT 30`,
      { services: path('services'), sellers: path('wash-check-sellers'), buyers: path('buyers') },
    );
    expect(services.length).toBeGreaterThan(10);
    const labelsSeen = new Set<string>();
    for (const s of services) {
      const seller = String(s.seller_address);
      const lists = await queryRows(
        'SELECT buyers::VARCHAR AS buyers FROM read_parquet($p) WHERE list_contains($ids::INTEGER[], service_id)',
        {
          p: path('wash-detail'),
          ids: `[${(s.ids as number[]).join(',')}]`,
        },
      );
      const votes = new Map<string, { v: number; cw: number }>();
      for (const l of lists) {
        for (const b of JSON.parse(String(l.buyers)) as Array<{ address: string; label: string; confidence: number; volume: number }>) {
          if (b.address === seller) continue; // self-payments are not a vote
          const v = votes.get(b.label) ?? { v: 0, cw: 0 };
          const micro = Math.round(b.volume * 1e6);
          votes.set(b.label, { v: v.v + micro, cw: v.cw + micro * Math.round(b.confidence * 1e4) });
        }
      }
      const total = [...votes.values()].reduce((a, x) => a + x.v, 0);
      const body = await check(seller);
      if (total === 0) {
        expect(body.label, seller).toBe('unlabeled');
        continue;
      }
      const [label, win] = [...votes].filter(([, x]) => x.v > 0).sort((a, b) => b[1].v - a[1].v || (a[0] < b[0] ? 1 : -1))[0]!;
      labelsSeen.add(label);
      expect(body.label, seller).toBe(label);
      expect(body.confidence, seller).toBeCloseTo(round4((win.cw / 1e4 / win.v) * (0.5 + 0.5 * (win.v / total))), 4);
      expect(body.signals.concentration.top_service_share, seller).toBeCloseTo(round4((votes.get('suspected_wash')?.v ?? 0) / total), 4);
    }
    expect(labelsSeen.size, 'seller labels among them').toBeGreaterThan(1);
  }, 240_000);

  it('answers an address it never saw as never seen, stamped with the data it read', async () => {
    const body = await check(`0x${'cd'.repeat(20)}`);
    expect(body).toMatchObject({ label: 'unlabeled', confidence: 0, similar_patterns: [] });
    expect(body.basis).toMatch(/^Never seen/);
    expect(body.as_of).toBe(snapshot.datasets.get('buyers')!.entry.as_of);
  });
});
