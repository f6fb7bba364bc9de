import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSettings } from '../../../lib/config.ts';
import type { ProgressSink } from '../../../pipelines/progress.ts';
import { runPipeline } from '../../../pipelines/runner.ts';
import { queryJson } from '../../../lib/duckdb.ts';
import { FACILITATOR_REGISTRY } from '../../../catalog/facilitators.ts';
import { SEGMENTS_DIR } from '../../segments.ts';
import { liveIngestSteps, type LiveIngestOptions } from './index.ts';
import { testContext, type TestContext } from '../testing/context.ts';
import { baseFixtureIndex, evmNodeRoutes, type EvmNodeState } from '../testing/evm-node.ts';
import { startLoopback, type Loopback, type RecordedRequest, type Reply } from '../../../lib/testing/loopback.ts';
import { fixture } from '../testing/fixtures.ts';
import { solanaNodeRoutes } from '../testing/solana-node.ts';
import { type IngestStep, rowsOf } from '../../contract.ts';

type Page = { items: unknown[]; pagination?: { offset?: number } };
const PAGES: Page[] = [0, 1, 2].map((i) => fixture<Page>(`discovery-page-${i}.json`));
const discovery = (req: RecordedRequest): Reply => ({
  json: PAGES.find((p) => p.pagination?.offset === Number(req.query.offset)) ?? { items: [] },
});

const fx = baseFixtureIndex();
const NOW = new Date('2026-03-02T01:00:00Z');
const options: LiveIngestOptions = {
  discovery: { pageSize: 4 },
  evm: { startBlock: fx.startBlock, initialLogRange: 16 },
  funding: { lookbackBlocks: 2000, walletsPerQuery: 2 },
  upstream: { sleep: async () => {}, minIntervalMs: 0 },
  // the fixture's resources are public names: offline, every name is unknown (probes.test.ts probes a loopback fleet)
  probe: { resolve: async () => Promise.reject(Object.assign(new Error('offline'), { code: 'ENOTFOUND' })) },
};

let server: Loopback;
let evm: EvmNodeState;
let t: TestContext;
beforeEach(async () => {
  evm = { finalized: fx.firstFinalized, maxResults: 10, receipts: true };
  server = await startLoopback([
    { method: 'GET', path: '/facilitator/discovery/resources', reply: discovery },
    ...evmNodeRoutes('/base', evm),
    ...solanaNodeRoutes('/solana', { visible: 5 }),
  ]);
  t = await testContext({ warehouseDir: true });
});
afterEach(async () => {
  await server.close();
  t.close();
});

/** The steps by name (ingest:<raw table>). */
function named(steps: IngestStep[]): Record<'ingest:x402_services' | 'ingest:x402_transactions' | 'ingest:wallet_funding', IngestStep> {
  const step = (name: string): IngestStep => {
    const found = steps.find((s) => s.name === name);
    if (!found) throw new Error(`no step ${name}`);
    return found;
  };
  return {
    'ingest:x402_services': step('ingest:x402_services'),
    'ingest:x402_transactions': step('ingest:x402_transactions'),
    'ingest:wallet_funding': step('ingest:wallet_funding'),
  };
}

const env = (over: Record<string, string | undefined> = {}) =>
  loadSettings({
    X402_DISCOVERY_URL: `${server.url}/facilitator`,
    BASE_RPC_URL: `${server.url}/base`,
    SOLANA_RPC_URL: `${server.url}/solana`,
    ...over,
  });

describe('liveIngestSteps', () => {
  it('declares one step per raw table', () => {
    const steps = liveIngestSteps(loadSettings({}));
    expect(steps.map((s) => [s.name, s.tables])).toEqual([
      ['ingest:x402_services', ['x402_services']],
      ['ingest:x402_probes', ['x402_probes']],
      ['ingest:x402_transactions', ['x402_transactions']],
      ['ingest:wallet_funding', ['wallet_funding']],
      ['ingest:exchange_wallets', ['exchange_wallets']],
    ]);
  });

  it('fills the three raw tables from discovery, Base and Solana, all marked live, and an empty exchange list', async () => {
    const ctx = t.at(NOW);
    const counts: number[] = [];
    const requests: Record<string, number> = {};
    for (const step of liveIngestSteps(env(), options)) {
      server.reset();
      counts.push(rowsOf(await step.run(ctx)));
      requests[step.name] = server.requests.length;
    }
    // 8 services; 7 probes (one per resource URL; every name unknown offline); 5 Base + 2 Solana settlements; 2 funded buyers; no exchange list
    expect(counts).toEqual([8, 7, 7, 2, 0]);
    // discovery: 3 pages; transactions: Base 12 + Solana 9 signature lists of the relayers, 2 of the listed payTos' token accounts + 4 transactions; funding: 2 batches + 1 block.
    expect(requests).toEqual({
      'ingest:x402_services': 3,
      'ingest:x402_probes': 0,
      'ingest:x402_transactions': 27,
      'ingest:wallet_funding': 3,
      'ingest:exchange_wallets': 0,
    });
    expect(t.logs).toContain('no exchange-wallet labels for this source: wallets funded by a shared exchange may cluster together');

    const c = t.warehouse.connection;
    const sources = await queryJson(
      c,
      `SELECT 'services' AS t, source, count(*)::INTEGER AS n FROM x402_services GROUP BY ALL
       UNION ALL SELECT 'transactions', source, count(*)::INTEGER FROM x402_transactions GROUP BY ALL
       UNION ALL SELECT 'funding', source, count(*)::INTEGER FROM wallet_funding GROUP BY ALL ORDER BY 1`,
    );
    expect(sources).toEqual([
      { t: 'funding', source: 'live', n: 2 },
      { t: 'services', source: 'live', n: 8 },
      { t: 'transactions', source: 'live', n: 7 },
    ]);
    const byChain = await queryJson(
      c,
      `SELECT chain, count(*)::INTEGER AS n, round(sum(amount), 6) AS usd FROM x402_transactions GROUP BY chain ORDER BY chain`,
    );
    expect(byChain).toEqual([
      { chain: 'base', n: 5, usd: 1.07 },
      { chain: 'solana', n: 2, usd: 0.06 },
    ]);

    // The next run appends what it indexed to the kept payments: nothing lost, nothing doubled.
    evm.finalized = fx.secondFinalized;
    for (const step of liveIngestSteps(env(), options)) await step.run(t.at(new Date('2026-03-02T02:00:00Z')));
    const [after] = await queryJson(
      c,
      `SELECT count(*)::INTEGER AS n, count(DISTINCT (tx_hash, chain, buyer, amount))::INTEGER AS d FROM x402_transactions`,
    );
    expect(after).toEqual({ n: 9, d: 9 });
    const [services] = await queryJson(c, `SELECT count(*)::INTEGER AS n, max(first_seen)::VARCHAR AS first FROM x402_services`);
    expect(services).toEqual({ n: 8, first: '2026-03-02 01:00:00' });
  });

  it('fails only the steps that need a missing setting, naming it', async () => {
    const steps = named(liveIngestSteps(env({ BASE_RPC_URL: '' }), options));
    const ctx = t.at(NOW);
    await expect(steps['ingest:x402_services'].run(ctx)).resolves.toEqual({
      rows: 8,
      detail: '3 listing(s) skipped (1 invalid item, 1 invalid accepts, 1 duplicate)',
    });
    await expect(steps['ingest:x402_transactions'].run(ctx)).rejects.toThrow(
      /^BASE_RPC_URL is not set: the live x402_transactions and wallet_funding steps need a Base JSON-RPC URL/,
    );
    // Solana was still indexed and what is known is in the table.
    const [tx] = await queryJson(t.warehouse.connection, `SELECT count(*)::INTEGER AS n FROM x402_transactions`);
    expect(tx!.n).toBe(2);
    await expect(steps['ingest:wallet_funding'].run(ctx)).rejects.toThrow(/^BASE_RPC_URL is not set/);

    const noDiscovery = liveIngestSteps(env({ X402_DISCOVERY_URL: undefined }), options);
    await expect(noDiscovery[0]!.run(ctx)).rejects.toThrow(/^X402_DISCOVERY_URL is not set: /);
  });

  it('reports a failed upstream as a failed step without stopping the run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'live-ingest-'));
    try {
      const settings = loadSettings({
        X402_DISCOVERY_URL: `${server.url}/nowhere`, // 404: not retried
        BASE_RPC_URL: '',
        WAREHOUSE_DIR: join(dir, 'warehouse'),
        SNAPSHOTS_DIR: join(dir, 'snapshots'),
      });
      const silent: ProgressSink = { start() {}, finish() {}, note() {}, close() {} };
      const result = await runPipeline(
        {
          service: 'analytics',
          updateEverySeconds: 3600,
          ingestSteps: () => liveIngestSteps(settings, options),
          prepareSteps: [],
          datasetSteps: [],
        },
        { source: { kind: 'live' }, now: NOW, seed: 1, scale: 1 },
        settings,
        silent,
      );
      expect(result.ok).toBe(false);
      expect(result.reports.map((r) => [r.name, r.status])).toEqual([
        ['ingest:x402_services', 'failed'],
        ['ingest:x402_probes', 'ok'], // nothing listed, nothing probed
        ['ingest:x402_transactions', 'failed'],
        ['ingest:wallet_funding', 'failed'],
        ['ingest:exchange_wallets', 'ok'],
      ]);
      expect(result.reports[0]!.detail).toMatch(
        /^x402-discovery: GET http:\/\/127\.0\.0\.1:\d+\/nowhere\/discovery\/resources\?type=http&limit=4&offset=0 failed with HTTP 404/,
      );
      expect(result.reports[2]!.detail).toMatch(/^BASE_RPC_URL is not set/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('payments and funding as segments', () => {
    const rows = (sql: string) => queryJson(t.warehouse.connection, sql);
    const ledger = () =>
      rows(
        `SELECT table_name, batch, dir, segment, rows_loaded::INTEGER AS loaded, rows_rejected::INTEGER AS rejected
           FROM import_ledger ORDER BY batch, table_name`,
      );
    const segmentFiles = () => readdirSync(join(t.warehouseDir!, SEGMENTS_DIR)).sort();
    /** The transactions and funding steps of one run. */
    const indexRun = async (at: string, over: LiveIngestOptions = {}) => {
      const steps = named(liveIngestSteps(env(), { ...options, ...over }));
      for (const step of [steps['ingest:x402_transactions'], steps['ingest:wallet_funding']]) await step.run(t.at(new Date(at)));
    };
    const list = async (sql: string) => (await rows(sql)).map((r) => String(r.p));
    /** The payments of a relation, as `<chain>:<tx_hash>`, sorted. */
    const payments = (from: string) => list(`SELECT chain || ':' || tx_hash AS p FROM ${from} ORDER BY p`);
    /** The payments the indexers keep, after a filter of each chain's settlements. */
    const history = (evmWhere = 'true', solanaWhere = 'true') =>
      list(
        `SELECT p FROM (SELECT chain || ':' || tx_hash AS p FROM live_evm_settlements WHERE ${evmWhere}
           UNION ALL SELECT 'solana:' || signature FROM live_solana_settlements WHERE ${solanaWhere}) ORDER BY p`,
      );

    it("a run's segment and new_x402_transactions hold what it indexed; a run with nothing new adds no segment", async () => {
      await indexRun('2026-03-02T01:02:00Z');
      expect(await rows(`SELECT count(*)::INTEGER AS n FROM new_x402_transactions`)).toEqual([{ n: 7 }]);
      const first = (await ledger()).find((l) => l.table_name === 'x402_transactions');
      // a segment file of a run that died before its commit
      writeFileSync(join(t.warehouseDir!, SEGMENTS_DIR, 'transactions-000009-live-deadbeef.parquet'), 'not committed');

      evm.finalized = fx.secondFinalized;
      await indexRun('2026-03-02T02:00:00Z');
      const added = await history(`block_number > ${fx.firstFinalized}`, 'false');
      expect(added.length).toBe(2);
      expect(await payments('new_x402_transactions')).toEqual(added);
      expect(await rows(`SELECT DISTINCT source FROM new_x402_transactions`)).toEqual([{ source: 'live' }]);
      expect(await payments('x402_transactions')).toEqual(await history());
      const batches = await ledger();
      const second = batches.filter((l) => l.table_name === 'x402_transactions')[1]!;
      expect(second).toMatchObject({ dir: first!.dir, loaded: 2, rejected: 0 });
      expect(second.batch).toBeGreaterThan(Number(first!.batch));
      // one batch per run: the run's funding segment shares it
      expect(batches.filter((l) => l.batch === second.batch).map((l) => l.table_name)).toEqual(['wallet_funding', 'x402_transactions']);
      expect(
        await rows(`SELECT import_batch, count(*)::INTEGER AS n FROM x402_transactions_by_import GROUP BY ALL ORDER BY import_batch`),
      ).toEqual([
        { import_batch: first!.batch, n: 7 },
        { import_batch: second.batch, n: 2 },
      ]);
      expect(await rows(`SELECT count(*)::INTEGER AS n FROM new_wallet_funding`)).toEqual([{ n: 1 }]);
      expect(segmentFiles()).toEqual(batches.map((l) => String(l.segment)).sort());

      // nothing new: no segment, no ledger row, empty new_ views
      await indexRun('2026-03-02T03:00:00Z');
      expect(await ledger()).toEqual(batches);
      expect(segmentFiles()).toEqual(batches.map((l) => String(l.segment)).sort());
      expect(
        await rows(
          `SELECT (SELECT count(*) FROM new_x402_transactions)::INTEGER AS p, (SELECT count(*) FROM new_wallet_funding)::INTEGER AS f`,
        ),
      ).toEqual([{ p: 0, f: 0 }]);
      expect(t.logs.at(-1)).toBe('wallet_funding: nothing new; 2 segment(s), 3 rows in all');
    });

    it('a checkpoint moved back: what is indexed again is not added twice, what is new below the old mark is added', async () => {
      // a relayer not registered yet: its settlements are skipped
      const without = { ...FACILITATOR_REGISTRY, relayers: FACILITATOR_REGISTRY.relayers.filter((r) => r.address !== fx.relayers.payai) };
      evm.finalized = fx.secondFinalized;
      await indexRun('2026-03-02T01:02:00Z', { registry: without });
      const before = await history();
      // registered now, and the index moved back to read its history
      await t.warehouse.connection.run(`UPDATE evm_checkpoint SET last_block = ${fx.startBlock}`);
      await indexRun('2026-03-02T02:00:00Z');
      expect(t.logs).toContain(
        `x402_transactions: evm:base moved back from ${fx.secondFinalized} to ${fx.startBlock}: what it indexes again is checked against the segments`,
      );
      const all = await history();
      const late = all.filter((p) => !before.includes(p));
      expect(late.length).toBeGreaterThan(0);
      expect(await payments('new_x402_transactions')).toEqual(late);
      const [, second] = (await ledger()).filter((l) => l.table_name === 'x402_transactions');
      const evmBefore = before.filter((p) => p.startsWith('base:')).length;
      expect(second).toMatchObject({ loaded: late.length, rejected: evmBefore });
      // every payment once
      expect(await payments('x402_transactions')).toEqual(all);
    });

    it('a history changed outside the indexers is written again as a new payment history', async () => {
      await indexRun('2026-03-02T01:02:00Z');
      const first = (await ledger()).find((l) => l.table_name === 'x402_transactions');
      const [gone] = await rows(`SELECT tx_hash FROM live_evm_settlements ORDER BY block_number LIMIT 1`);
      await t.warehouse.connection.run(`DELETE FROM live_evm_settlements WHERE tx_hash = '${String(gone!.tx_hash)}'`);
      evm.finalized = fx.secondFinalized;
      await indexRun('2026-03-02T02:00:00Z');
      expect(t.logs).toContain(
        'x402_transactions: the kept history (8 rows) is not the segments (7 rows) plus the rows indexed since: rows were removed, ' +
          'or added below the marks, outside the indexers; the segments are written again from the history as a new payment history',
      );
      const payments = (await ledger()).filter((l) => l.table_name === 'x402_transactions');
      expect(payments).toHaveLength(1);
      expect(payments[0]!.dir).not.toBe(first!.dir);
      expect(payments[0]!.loaded).toBe(8);
      expect(await rows(`SELECT count(*)::INTEGER AS n FROM new_x402_transactions`)).toEqual([{ n: 8 }]);
      expect(segmentFiles().filter((f) => f.startsWith('transactions-'))).toEqual([payments[0]!.segment]);
    });

    it('a warehouse whose payments came from files starts a new payment history', async () => {
      const c = t.warehouse.connection;
      await c.run(`CREATE TABLE import_ledger (dir VARCHAR, file_name VARCHAR, table_name VARCHAR, sha256 VARCHAR, bytes BIGINT,
        mtime_ms DOUBLE, batch INTEGER, segment VARCHAR, rows_read BIGINT, rows_loaded BIGINT, rows_rejected BIGINT, imported_at TIMESTAMP)`);
      const imported = 'transactions-000001-0123456789abcdef.parquet';
      mkdirSync(join(t.warehouseDir!, SEGMENTS_DIR));
      await c.run(`COPY (SELECT 'h' AS tx_hash) TO '${join(t.warehouseDir!, SEGMENTS_DIR, imported)}' (FORMAT parquet)`);
      await c.run(`INSERT INTO import_ledger VALUES ('/data/x402', 'transactions.parquet', 'x402_transactions', 'abc', 1, 1, 1,
        '${imported}', 1, 1, 0, TIMESTAMP '2026-03-01 00:00:00')`);
      await indexRun('2026-03-02T01:02:00Z');
      expect(t.logs).toContain(
        "x402_transactions: this warehouse's x402_transactions came from /data/x402 before; the live history starts a new payment history",
      );
      const transactions = (await ledger()).filter((l) => l.table_name === 'x402_transactions');
      expect(transactions.map((l) => [String(l.dir).slice(0, 5), l.batch, l.loaded])).toEqual([['live:', 2, 7]]);
      expect(segmentFiles()).not.toContain(imported);
      expect(await payments('x402_transactions')).toEqual(await history());
    });

    it('a warehouse that kept the payments as a table has its history written once as the first segment', async () => {
      await indexRun('2026-03-02T01:02:00Z');
      // what an older version left: the history and its checkpoints, the raw tables as tables, no segments
      const c = t.warehouse.connection;
      for (const v of ['x402_transactions', 'new_x402_transactions', 'x402_transactions_by_import']) await c.run(`DROP VIEW temp.${v}`);
      await c.run(`DROP TABLE import_ledger; DROP TABLE live_payment_keys; DROP TABLE live_segment_marks`);
      await c.run(`CREATE TABLE x402_transactions AS SELECT 1 AS stale`);
      for (const f of segmentFiles()) rmSync(join(t.warehouseDir!, SEGMENTS_DIR, f));
      t.logs.length = 0;

      await indexRun('2026-03-02T02:00:00Z');
      expect(t.logs).toContain(
        'x402_transactions: this warehouse kept its live x402_transactions as a table rebuilt every run; its history is written once as the first segment',
      );
      expect(await rows(`SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE table_name = 'x402_transactions'`)).toEqual([{ n: 0 }]);
      expect(await payments('x402_transactions')).toEqual(await history());
      expect((await ledger()).filter((l) => l.table_name === 'x402_transactions')).toHaveLength(1);
    });
  });
});
