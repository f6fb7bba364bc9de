/**
 * service-health two ways. (1) A fleet of real HTTP sellers on loopback, probed round after round
 * by the live probe step (the real prober), judged by the dataset's SQL with payments written by
 * hand: an honest seller, a decoy, a moved payout, a price trap, a dead port and a flaky server,
 * none of them made by the demo world the SQL was tuned on. (2) The run's shared demo snapshot
 * against the planted truth: each planted kind found with precision and recall >= 0.95.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, queryJson, type Database } from '../../../lib/duckdb.ts';
import { loadLatest } from '../../../snapshots/reader.ts';
import { probeIndexedResources } from '../../../sources/live/analytics/probes.ts';
import { copyOfSharedDemo, sharedDemo } from '../../testing/shared-demo.ts';
import { DEMO_NOW } from '../../testing/demo-snapshots.ts';
import { parseArgs, runCli } from '../../cli.ts';
import { LineProgress } from '../../progress.ts';
import { attributedSql, attributionRules, buildAttributionLookups } from '../attribution.ts';
import { saveHealthInputs, serviceHealthSql } from './service-health.ts';
import { nowSql } from './sql.ts';

const USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
/** A pool the payTo rotates over (its payments settle there), and three addresses a rotating decoy names (never paid). */
const POOL = [addr(0x7001), addr(0x7002), addr(0x7003)];
const FAKE = [addr(0xbad1), addr(0xbad2), addr(0xbad3)];
const LISTED = {
  good: addr(1),
  decoy: addr(2),
  moved: addr(3),
  trap: addr(4),
  dead: addr(5),
  flaky: addr(6),
  pool: POOL[0]!,
  deposit: addr(7), // the address discovery happened to see: a deposit address, never paid
  rotdecoy: addr(8),
};
const ELSEWHERE = addr(0xdead);
const T0 = Date.parse('2026-11-20T00:00:00Z');
const ROUNDS = 10; // every 3 hours: 27 hours of history

describe('service-health on a loopback fleet probed by the live step', () => {
  let server: Server;
  let base = '';
  let db: Database;
  const hits: Record<string, number> = {};
  const offer = (payTo: string, amount: string) =>
    Buffer.from(
      JSON.stringify({
        x402Version: 2,
        resource: { url: 'x' },
        accepts: [{ scheme: 'exact', network: 'eip155:8453', amount, asset: USDC, payTo, extra: { name: 'USD Coin', version: '2' } }],
      }),
    ).toString('base64');

  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = (req.url ?? '').slice(1);
      hits[path] = (hits[path] ?? 0) + 1;
      const n = hits[path];
      const pay = (payTo: string, amount = '10000') => {
        res.writeHead(402, { 'payment-required': offer(payTo, amount) });
        res.end('{}');
      };
      if (path === 'good') return pay(LISTED.good);
      if (path === 'decoy') return pay(ELSEWHERE); // never the listed payTo, never where its payments went
      if (path === 'moved') return pay(n <= 4 ? LISTED.moved : ELSEWHERE); // moves after the fourth round
      if (path === 'trap') return pay(LISTED.trap, '100000'); // 0.10 USD where it lists and settles 0.01
      if (path === 'flaky' && n % 2 === 0) {
        res.writeHead(503);
        res.end();
        return;
      }
      if (path === 'flaky') return pay(LISTED.flaky);
      if (path === 'pool') return pay(POOL[n % 3]!); // rotates over the pool its payments settle to
      if (path === 'deposit') return pay(addr(0x9000 + n)); // a new deposit address on every ask
      if (path === 'rotdecoy') return pay(FAKE[n % 3]!); // rotates over addresses no payment ever reached
      res.writeHead(404);
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // a port nothing listens on
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/dead`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    db = await openDatabase(':memory:', { threads: '1' });
    const c = db.connection;
    const urls: Record<keyof typeof LISTED, string> = {
      good: `${base}/good`,
      decoy: `${base}/decoy`,
      moved: `${base}/moved`,
      trap: `${base}/trap`,
      dead: deadUrl,
      flaky: `${base}/flaky`,
      pool: `${base}/pool`,
      deposit: `${base}/deposit`,
      rotdecoy: `${base}/rotdecoy`,
    };
    const rows = Object.entries(urls).map(
      ([k, url], i) => `(${i + 1}, 'base', '${LISTED[k as keyof typeof LISTED]}', '${url}', 0.01, TIMESTAMP '2026-10-01', false)`,
    );
    await c.run(`CREATE TABLE service_catalog (id INTEGER, chain VARCHAR, seller_address VARCHAR, resource_url VARCHAR,
                   price_amount DOUBLE, first_seen TIMESTAMP, is_placeholder BOOLEAN);
                 INSERT INTO service_catalog VALUES ${rows.join(', ')};
                 CREATE TABLE x402_services AS SELECT chain, seller_address, resource_url FROM service_catalog;
                 CREATE TABLE service_facts AS SELECT id, 0.0 AS wash_pct, 20 AS tx_30d, 12 AS unique_buyers_30d FROM service_catalog;
                 CREATE TEMP TABLE attribution_urls AS SELECT hash(chain, resource_url) AS url_h, id FROM service_catalog;
                 -- 20 payments of 0.01 per service in the last 30 days, the facilitator F1 naming the resource: each to
                 -- the listed payTo, but the pool's over its pool and the deposit service's each to a new address
                 CREATE TABLE x402_transactions AS
                   SELECT s.chain,
                          CASE WHEN s.resource_url LIKE '%/pool' THEN ['${POOL.join("', '")}'][1 + i % 3]
                               WHEN s.resource_url LIKE '%/deposit' THEN '0x' || lpad(lower(to_hex(20480 + i)), 40, '0')
                               ELSE s.seller_address END AS seller_address,
                          0.01 AS amount, TIMESTAMP '2026-11-10' + INTERVAL (i) HOUR AS time, s.resource_url, 'F1' AS facilitator
                     FROM service_catalog s, range(20) r(i)`);
    for (let i = 0; i < ROUNDS; i++) {
      await probeIndexedResources(c, new Date(T0 + i * 3 * 3_600_000), {
        allowLoopback: true,
        perHostPerSecond: 50,
        totalTimeoutMs: 3_000,
      });
    }
    // as a full run does after its probes: the attribution step's lookups (service_settled among them), then the health inputs
    await buildAttributionLookups(c, nowSql({ now: new Date(T0 + ROUNDS * 3 * 3_600_000) }));
    await saveHealthInputs(c);
  }, 60_000);
  afterAll(async () => {
    db?.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('flags each misbehaving seller for what it does, grades the honest one A, and says why', async () => {
    const now = nowSql({ now: new Date(T0 + (ROUNDS - 1) * 3 * 3_600_000 + 60_000) });
    const rows = await queryJson(db.connection, `SELECT * FROM (${serviceHealthSql(now)})`);
    const by = Object.fromEntries(rows.map((r) => [String(r.resource_url).split('/').pop(), r]));
    const flags = (k: string) => JSON.parse(String(by[k]?.flags)) as string[];
    expect(flags('good')).toEqual([]);
    expect(by.good).toMatchObject({
      grade: 'A',
      recommendation: 'pay',
      live: true,
      probes_7d: ROUNDS,
      uptime_7d_pct: 100,
      payto_consistent: true,
    });
    expect(JSON.parse(String(by.good?.evidence))).toContain('payTo matches where 20 payments of 30 days settled');
    // each service has a seller of its own here: the seller's grade is its service's, a decoy's F
    expect(by.good?.seller_grade).toBe('A');
    expect(by.decoy?.seller_grade).toBe('F');
    expect(JSON.parse(String(by.decoy?.seller_evidence))).toContain('decoy offers on services 2');

    expect(flags('decoy')).toEqual(['decoy']);
    expect(by.decoy).toMatchObject({ grade: 'F', recommendation: 'avoid', payto_consistent: false, offer_pay_to: ELSEWHERE });

    expect(flags('moved')).toEqual(['moved_payout']);
    expect(by.moved).toMatchObject({ payto_moved: true, payto_consistent: false, offer_pay_to: ELSEWHERE, decoy: false });
    expect(['C', 'D', 'F']).toContain(by.moved?.grade);

    expect(flags('trap')).toEqual(['price_trap']);
    expect(by.trap).toMatchObject({ price_drift_pct: 900, offer_amount_usd: 0.1 });
    expect(['D', 'F']).toContain(by.trap?.grade);

    expect(flags('dead')).toEqual(['dead']);
    expect(by.dead).toMatchObject({ grade: 'F', live: false, uptime_7d_pct: 0, last_outcome: 'connect_error' });

    expect(flags('flaky')).toEqual(['flaky']);
    expect(by.flaky?.uptime_7d_pct).toBe(50);

    // rotation is not a move: a pool its payments settle to is consistent, a new address per ask is not judged
    expect(flags('pool')).toEqual(['rotating_payto']);
    expect(by.pool).toMatchObject({ grade: 'A', payto_rotates: true, payto_moved: false, payto_consistent: true, decoy: false });
    expect(flags('deposit')).toEqual(['rotating_payto']);
    expect(by.deposit).toMatchObject({ grade: 'A', payto_rotates: true, payto_moved: false, payto_consistent: null, decoy: false });
    expect(JSON.parse(String(by.deposit?.evidence))).toContain(
      `the payTo rotates: ${ROUNDS} addresses in ${ROUNDS} offers of 7 days, a new one almost every time (its payments are attributed through its facilitator and amount)`,
    );
    // a pool that repeats but was never paid, while the payments went to the listing's payTo: a decoy all the same
    expect(flags('rotdecoy')).toEqual(['rotating_payto', 'decoy']);
    expect(by.rotdecoy).toMatchObject({ grade: 'F', decoy: true, payto_consistent: false });
  });

  it("attributes a rotating service's payments without a resource URL through the payees it offered and its facilitator", async () => {
    const c = db.connection;
    const id = async (k: string) => Number((await queryJson(c, `SELECT id FROM service_catalog WHERE resource_url LIKE '%/${k}'`))[0]?.id);
    const fresh = (n: number) => addr(0x6000 + n);
    await c.run(`CREATE OR REPLACE TEMP TABLE unreported AS
      SELECT * FROM (VALUES
        ('p1', 'base', '${POOL[1]}', 0.01, 'F1'),  -- a pool address, the listed price
        ('p2', 'base', '${POOL[2]}', 0.05, 'F2'),  -- a pool address at another price
        ('p3', 'base', '${addr(0x9000 + 3)}', 0.01, 'F1'), -- an address the prober was offered
        ('d1', 'base', '${fresh(1)}', 0.01, 'F1'), -- a new address, the deposit service's facilitator and amount
        ('d2', 'base', '${fresh(2)}', 0.01, 'F2'), -- another facilitator
        ('d3', 'base', '${fresh(3)}', 0.02, 'F1'), -- another amount
        ('d4', 'solana', '${fresh(4)}', 0.01, 'F1'), -- another chain
        ('g1', 'base', '${LISTED.good}', 0.01, 'F1')
      ) v(tx_hash, chain, seller_address, amount, facilitator)`);
    const rows = await queryJson(
      c,
      `SELECT tx_hash, service_id, attribution_source::VARCHAR AS source
         FROM (${attributedSql(
           `(SELECT tx_hash, chain, 'buyer' AS buyer, seller_address, amount, TIMESTAMP '2026-11-20' AS time, NULL::VARCHAR AS resource_url, facilitator FROM unreported)`,
           ['tx_hash'],
           await attributionRules(c),
         )}) ORDER BY tx_hash`,
    );
    expect(rows.map((r) => [r.tx_hash, r.service_id, r.source])).toEqual([
      ['d1', await id('deposit'), 'facilitator_price'],
      ['d2', null, 'unmatched'],
      ['d3', null, 'unmatched'],
      ['d4', null, 'unmatched'],
      ['g1', await id('good'), 'price_match'],
      ['p1', await id('pool'), 'learned_payee'],
      ['p2', await id('pool'), 'learned_payee'],
      ['p3', await id('deposit'), 'learned_payee'],
    ]);
  });

  it('gives no grade on too little evidence, and says so', async () => {
    // two rounds only (the first two), judged right after them
    const now = nowSql({ now: new Date(T0 + 3 * 3_600_000 + 60_000) });
    const rows = await queryJson(db.connection, `SELECT resource_url, grade, evidence, recommendation FROM (${serviceHealthSql(now)})`);
    for (const r of rows) {
      expect(r.grade).toBeNull();
      expect(r.recommendation).toBe('caution');
      expect(String(r.evidence)).toMatch(/not enough evidence: 2 probes in 7 days/);
    }
  });
});

describe('service-health on the demo world against its planted truth', () => {
  it('finds dead, moved-payout, decoy and price-trap services (and the others) with precision and recall >= 0.95', async () => {
    const shared = await sharedDemo();
    const snap = (await loadLatest(shared.snapshotsDir, 'analytics'))!;
    const file = snap.datasets.get('service-health')!.path;
    const instance = await DuckDBInstance.create(join(shared.warehouseDir, 'analytics.duckdb'), { access_mode: 'READ_ONLY' });
    const c = await instance.connect();
    try {
      const patterns = ['dead', 'moved_payout', 'decoy', 'price_trap', 'flaky', 'slow', 'unsignable'];
      const scores = await queryJson(
        c,
        `WITH h AS (SELECT resource_url, flags::VARCHAR[] AS flags FROM read_parquet('${file}'))
         SELECT p.pattern,
                count(*) FILTER (WHERE t.pattern = p.pattern AND list_contains(h.flags, p.pattern))::INTEGER AS tp,
                count(*) FILTER (WHERE t.pattern <> p.pattern AND list_contains(h.flags, p.pattern))::INTEGER AS fp,
                count(*) FILTER (WHERE t.pattern = p.pattern AND NOT list_contains(h.flags, p.pattern))::INTEGER AS fn
           FROM h JOIN demo_truth_services t USING (resource_url), (SELECT unnest([${patterns.map((p) => `'${p}'`).join(', ')}]) AS pattern) p
          GROUP BY p.pattern ORDER BY p.pattern`,
      );
      expect(scores).toHaveLength(patterns.length);
      for (const s of scores) {
        const tp = Number(s.tp);
        expect(tp, `${s.pattern} planted`).toBeGreaterThanOrEqual(3);
        expect(tp / (tp + Number(s.fp)), `${s.pattern} precision`).toBeGreaterThanOrEqual(0.95);
        expect(tp / (tp + Number(s.fn)), `${s.pattern} recall`).toBeGreaterThanOrEqual(0.95);
      }
      // dead and decoy services are graded F; most healthy ones A or B
      const [grades] = await queryJson(
        c,
        `SELECT count(*) FILTER (WHERE t.pattern IN ('dead', 'decoy') AND h.grade <> 'F')::INTEGER AS bad_not_f,
                count(*) FILTER (WHERE t.pattern = 'healthy' AND h.grade IN ('A', 'B'))::DOUBLE / count(*) FILTER (WHERE t.pattern = 'healthy') AS healthy_ab
           FROM read_parquet('${file}') h JOIN demo_truth_services t USING (resource_url)`,
      );
      expect(grades?.bad_not_f).toBe(0);
      expect(Number(grades?.healthy_ab)).toBeGreaterThan(0.8);
    } finally {
      c.closeSync();
      instance.closeSync();
    }
  }, 240_000);
});

describe('the 10-minute probe run (--datasets service-health)', () => {
  it('skips every step only payments feed, regrades from the kept inputs and keeps every other dataset', async () => {
    const copy = await copyOfSharedDemo('service-health-probe-run-', { services: ['analytics'] });
    try {
      const before = (await loadLatest(copy.settings.snapshotsDir, 'analytics'))!;
      const later = new Date(Date.parse(DEMO_NOW) + 10 * 60_000).toISOString();
      const { exitCode, results } = await runCli(parseArgs(['analytics', '--datasets', 'service-health', '--now', later]), copy.settings, {
        progress: new LineProgress(() => {}),
        out: () => {},
      });
      expect(exitCode).toBe(0);
      const reports = results[0]!.reports;
      const status = (name: string) => reports.find((r) => r.name === name)?.status;
      for (const step of ['prepare:service_registry', 'prepare:attribution', 'prepare:analytics_rollups', 'prepare:category_hourly']) {
        expect(status(step), step).toBe('skipped');
      }
      expect(status('prepare:service_health')).toBe('ok');
      expect(reports.find((r) => r.name === 'prepare:service_health')?.detail).toMatch(/of the last full run$/);
      expect(status('service-health')).toBe('ok');
      expect(status('services')).toBe('kept');
      const after = (await loadLatest(copy.settings.snapshotsDir, 'analytics'))!;
      expect(after.datasets.get('service-health')!.entry.as_of).toBe(later.replace('Z', '.000Z').replace('.000.000Z', '.000Z'));
      expect(after.datasets.get('services')!.entry.sha256).toBe(before.datasets.get('services')!.entry.sha256);
      // the demo world of the later --now (regenerated by the run's ingest) against its own planted truth, graded
      // from the kept inputs: every dead and decoy service still F, every planted kind still found
      const db = await openDatabase(join(copy.settings.warehouseDir, 'analytics.duckdb'));
      try {
        const [r] = await queryJson(
          db.connection,
          `WITH h AS (SELECT resource_url, grade, flags::VARCHAR[] AS flags FROM read_parquet('${after.datasets.get('service-health')!.path}'))
           SELECT count(*) FILTER (WHERE t.pattern IN ('dead', 'decoy') AND h.grade <> 'F')::INTEGER AS bad_not_f,
                  count(*) FILTER (WHERE t.pattern NOT IN ('healthy') AND NOT list_contains(h.flags, t.pattern))::INTEGER AS missed,
                  count(*) FILTER (WHERE t.pattern NOT IN ('healthy'))::INTEGER AS planted
             FROM h JOIN demo_truth_services t USING (resource_url)`,
        );
        expect(r).toMatchObject({ bad_not_f: 0, missed: 0 });
        expect(Number(r?.planted)).toBeGreaterThan(50);
      } finally {
        db.close();
      }
    } finally {
      rmSync(copy.root, { recursive: true, force: true });
    }
  }, 240_000);
});
