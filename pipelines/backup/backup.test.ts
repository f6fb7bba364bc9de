/**
 * Durable history (issue 49): live runs of both services over the recorded upstreams on loopback
 * back up what their warehouses cannot recompute; the warehouse directory and the snapshots are
 * then deleted (the Actions cache evicted), and the next run restores the newest backup before it
 * starts: the premium archive and the analytics payment history are the same, row for row. A
 * damaged backup is refused for the next older whole one, and with none whole the run stops.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings, type Settings } from '../../lib/config.ts';
import { openDatabase, queryJson, sqlString } from '../../lib/duckdb.ts';
import { startLoopback, type Loopback } from '../../lib/testing/loopback.ts';
import { baseFixtureIndex, evmNodeRoutes, type EvmNodeState } from '../../sources/live/testing/evm-node.ts';
import { fixture } from '../../sources/live/testing/fixtures.ts';
import {
  KOREA_FIXTURE_NOW,
  koreaFixture,
  startKoreaUpstreams,
  type KoreaUpstreamWorld,
} from '../../sources/live/testing/korea-upstreams.ts';
import { solanaNodeRoutes, type SolanaNodeState } from '../../sources/live/testing/solana-node.ts';
import { SEGMENTS_DIR } from '../../sources/segments.ts';
import { parseArgs, runCli } from '../cli.ts';
import { LineProgress, type StepReport } from '../progress.ts';
import { BACKUP_FORMAT, backupWarehouse, MANIFEST, restoreScheduleState, restoreWarehouse } from './backup.ts';
import { DURABLE } from './durable.ts';

type Page = { items: unknown[]; pagination?: { offset?: number } };
const PAGES: Page[] = [0, 1, 2].map((i) => fixture<Page>(`discovery-page-${i}.json`));
const fx = baseFixtureIndex();
const MINUTE = 60_000;
const KOREA_NOW2 = new Date(KOREA_FIXTURE_NOW.getTime() + 2 * MINUTE).toISOString();

let korea: KoreaUpstreamWorld;
let chains: Loopback;
const evm: EvmNodeState = { finalized: fx.firstFinalized, maxResults: 10, receipts: true };
const solana: SolanaNodeState = { visible: 5 };
let root: string;
let settings: Settings;

beforeAll(async () => {
  korea = await startKoreaUpstreams();
  chains = await startLoopback([
    {
      method: 'GET',
      path: '/facilitator/discovery/resources',
      reply: (req) => ({ json: PAGES.find((p) => p.pagination?.offset === Number(req.query.offset)) ?? { items: [] } }),
    },
    ...evmNodeRoutes('/base', evm),
    ...solanaNodeRoutes('/solana', solana),
  ]);
  root = mkdtempSync(join(tmpdir(), 'backup-'));
  settings = loadSettings({
    ...korea.env,
    SITE_BUILD: 'off',
    PROBES: 'off',
    SNAPSHOTS_DIR: join(root, 'data', 'snapshots'),
    WAREHOUSE_DIR: join(root, 'data', 'warehouse'),
    BACKUP_URL: `file:${join(root, 'backups')}`,
    X402_DISCOVERY_URL: `${chains.url}/facilitator`,
    BASE_RPC_URL: `${chains.url}/base`,
    SOLANA_RPC_URL: `${chains.url}/solana`,
  });
});

afterAll(async () => {
  await korea?.close();
  await chains?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

async function run(service: 'korea' | 'analytics', now: string): Promise<{ exitCode: number; reports: StepReport[]; out: string }> {
  let out = '';
  const { exitCode, results } = await runCli(parseArgs([service, '--source', 'live', '--now', now]), settings, {
    progress: new LineProgress(() => {}),
    out: (text) => {
      out += text;
    },
  });
  return { exitCode, reports: results.flatMap((r) => r.reports), out };
}

const step = (reports: readonly StepReport[], name: string) => reports.find((r) => r.name === name);

async function inWarehouse(service: 'korea' | 'analytics', sql: string): Promise<Array<Record<string, unknown>>> {
  const db = await openDatabase(join(settings.warehouseDir, `${service}.duckdb`), { access_mode: 'READ_ONLY' });
  try {
    return await queryJson(db.connection, sql);
  } finally {
    db.close();
  }
}

/** The premium archive, per interval: rows, distinct times and the sum of the premiums (4 decimals each). */
const archive = () =>
  inWarehouse(
    'korea',
    ['1m', '1h', '1d']
      .map(
        (i) =>
          `SELECT '${i}' AS interval, count(*)::INTEGER AS rows, count(DISTINCT t)::INTEGER AS times,
                  round(sum(premium_pct), 4)::VARCHAR AS premium_sum, sum(samples)::INTEGER AS samples FROM premium_${i}`,
      )
      .join(' UNION ALL ') + ' ORDER BY interval',
  );

/** The analytics payment history: the segments the ledger names and the payments and amounts they hold. */
async function payments(): Promise<{ ledger: Array<Record<string, unknown>>; totals: Record<string, unknown> }> {
  const ledger = await inWarehouse(
    'analytics',
    `SELECT table_name, batch, segment, sha256, rows_loaded::INTEGER AS rows FROM import_ledger ORDER BY batch, table_name`,
  );
  const files = ledger
    .filter((l) => l.table_name === 'x402_transactions')
    .map((l) => sqlString(join(settings.warehouseDir, SEGMENTS_DIR, String(l.segment))));
  const [totals] = await inWarehouse(
    'analytics',
    `SELECT count(*)::INTEGER AS payments, round(sum(amount), 6)::VARCHAR AS amount, count(DISTINCT buyer)::INTEGER AS buyers,
            (SELECT count(*)::INTEGER FROM live_evm_settlements) AS evm_kept, (SELECT count(*)::INTEGER FROM live_solana_settlements) AS solana_kept,
            (SELECT max(last_block)::BIGINT FROM evm_checkpoint) AS evm_checkpoint
       FROM read_parquet([${files.join(', ')}])`,
  );
  return { ledger, totals: totals! };
}

const backupsOf = (service: string) => {
  const dir = join(root, 'backups', service);
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => !f.startsWith('.'))
        .sort()
    : [];
};

/** The cache is gone: warehouse, segments, day state, schedule state and snapshots. */
const loseTheCache = () => rmSync(join(root, 'data'), { recursive: true, force: true });

describe('backups of the history a warehouse cannot recompute', () => {
  it('docs/backup.md names every table durable.ts backs up', () => {
    const doc = readFileSync(new URL('../../docs/backup.md', import.meta.url), 'utf8');
    for (const part of Object.values(DURABLE)) for (const t of part.tables) expect(doc, t.name).toContain(`\`${t.name}\``);
  });

  let archiveBefore: Array<Record<string, unknown>>;
  let paymentsBefore: Awaited<ReturnType<typeof payments>>;

  it('each run backs up; after the warehouse is lost the next run restores it, and the archive and payments are unchanged', async () => {
    // two korea minutes: the fixtures' and one two minutes later (Upbit's tickers stamped later)
    expect((await run('korea', KOREA_FIXTURE_NOW.toISOString())).exitCode).toBe(0);
    const tickers = koreaFixture<Array<Record<string, number | string>>>('upbit-ticker-all-krw.json');
    korea.fault('upbit', '/v1/ticker/all', {
      json: tickers.map((t) => ({
        ...t,
        timestamp: Number(t.timestamp) + 2 * MINUTE,
        trade_timestamp: Number(t.trade_timestamp) + 2 * MINUTE,
      })),
      headers: { 'remaining-req': 'group=ticker; min=1800; sec=9' },
    });
    const korea2 = await run('korea', KOREA_NOW2);
    expect(korea2.exitCode).toBe(0);
    expect(step(korea2.reports, 'backup')).toMatchObject({ status: 'ok' });
    expect(step(korea2.reports, 'restore')).toBeUndefined(); // the warehouse was there

    // two analytics runs: two payment segments
    expect((await run('analytics', '2026-03-02T01:02:00Z')).exitCode).toBe(0);
    evm.finalized = fx.secondFinalized;
    solana.visible = 6;
    const analytics2 = await run('analytics', '2026-03-02T02:00:00Z');
    expect(analytics2.exitCode).toBe(0);
    expect(step(analytics2.reports, 'backup')?.detail).toMatch(/linked from the previous backup/);

    archiveBefore = await archive();
    paymentsBefore = await payments();
    // what the test holds the restore to: 94 pairs and indexes in each of two minutes, one hour and
    // one day rolled up from them; ten payments in two segments (seven on Base, three on Solana)
    expect(archiveBefore).toEqual([
      { interval: '1d', rows: 94, times: 1, premium_sum: '87.6171', samples: 188 },
      { interval: '1h', rows: 94, times: 1, premium_sum: '87.6171', samples: 188 },
      { interval: '1m', rows: 188, times: 2, premium_sum: '175.2342', samples: 188 },
    ]);
    expect(paymentsBefore.ledger.filter((l) => l.table_name === 'x402_transactions')).toHaveLength(2);
    expect(paymentsBefore.totals).toMatchObject({ payments: 10, amount: '1.295', buyers: 7, evm_kept: 7, solana_kept: 3 });

    const [latestKorea] = backupsOf('korea').slice(-1);
    const manifest = JSON.parse(readFileSync(join(root, 'backups', 'korea', latestKorea!, MANIFEST), 'utf8'));
    expect(manifest).toMatchObject({ format: BACKUP_FORMAT, service: 'korea' });
    expect(manifest.tables.map((t: { table: string }) => t.table)).toEqual(
      expect.arrayContaining(['premium_1m', 'premium_1h', 'premium_1d']),
    );

    loseTheCache();
    const korea3 = await run('korea', KOREA_NOW2);
    expect(korea3.exitCode).toBe(0);
    expect(step(korea3.reports, 'restore')?.detail).toContain(`restored backup ${latestKorea}`);
    // the run wrote its minute again from the same prices: the archive is the one backed up
    expect(await archive()).toEqual(archiveBefore);

    const analytics3 = await run('analytics', '2026-03-02T02:00:00Z');
    expect(analytics3.exitCode).toBe(0);
    expect(step(analytics3.reports, 'restore')).toMatchObject({ status: 'ok' });
    // the indexers went on from their restored checkpoints: nothing new, the same segments and payments
    expect(await payments()).toEqual(paymentsBefore);
    expect(existsSync(join(settings.warehouseDir, 'schedule-state.json'))).toBe(false); // runCli alone keeps none
  }, 600_000);

  it('a damaged backup is refused for the next older whole one; with none whole the run stops and says why', async () => {
    const ids = backupsOf('korea');
    expect(ids.length).toBeGreaterThanOrEqual(3);
    const newest = ids.at(-1)!;
    const damaged = join(root, 'backups', 'korea', newest, 'tables', 'premium_1m.parquet');
    const bytes = readFileSync(damaged);
    const at = Math.floor(bytes.length / 2);
    bytes[at] = bytes[at]! ^ 0xff;
    writeFileSync(damaged, bytes);

    loseTheCache();
    const fallback = await run('korea', KOREA_NOW2);
    expect(fallback.exitCode).toBe(0);
    const restored = step(fallback.reports, 'restore')!;
    expect(restored.detail).toContain(`restored backup ${ids.at(-2)}`);
    expect(restored.detail).toContain(`skipped ${newest}: tables/premium_1m.parquet does not match its sha256`);
    expect(await archive()).toEqual(archiveBefore);

    // every backup damaged: nothing restored, no fresh warehouse, exit 3 with the reason
    for (const id of backupsOf('korea')) writeFileSync(join(root, 'backups', 'korea', id, MANIFEST), '{"format": 1, "tables": [');
    loseTheCache();
    const refused = await run('korea', KOREA_NOW2);
    expect(refused.exitCode).toBe(3);
    expect(step(refused.reports, 'restore')).toMatchObject({ status: 'failed' });
    expect(refused.out).toMatch(/korea: FAILED: no whole backup of korea at .*manifest\.json cannot be read/);
    expect(refused.out).toContain('npm run restore -- korea --backup ID');
    expect(existsSync(join(settings.warehouseDir, 'korea.duckdb'))).toBe(false);
  }, 300_000);

  it('refuses a backup written in a newer format, naming the code that wrote it', async () => {
    const [id] = backupsOf('analytics').slice(-1);
    const path = join(root, 'backups', 'analytics', id!, MANIFEST);
    writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, 'utf8')), format: BACKUP_FORMAT + 1, code_version: 'abc123' }));
    loseTheCache();
    await expect(restoreWarehouse(settings, 'analytics')).rejects.toThrow(
      new RegExp(
        `backup ${id} of analytics .* is in backup format ${BACKUP_FORMAT + 1}, written by code version abc123; this code .* reads format ${BACKUP_FORMAT} at most`,
      ),
    );
    expect(existsSync(join(settings.warehouseDir, 'analytics.duckdb'))).toBe(false);
  });

  it('a missing schedule state comes back from the newest backup that holds it', async () => {
    const [older] = backupsOf('analytics').slice(-2);
    expect((await restoreWarehouse(settings, 'analytics', { id: older! }))?.id).toBe(older);
    const state = `${JSON.stringify({ analytics: '2026-03-02T02:00:00.000Z', 'korea-market': '2026-07-30T07:40:00.000Z' }, null, 2)}\n`;
    writeFileSync(join(settings.warehouseDir, 'schedule-state.json'), state);
    const made = await backupWarehouse(settings, 'analytics');
    loseTheCache();
    expect(await restoreScheduleState(settings)).toBe(`analytics/${made.id}`);
    expect(readFileSync(join(settings.warehouseDir, 'schedule-state.json'), 'utf8')).toBe(state);
    expect(await restoreScheduleState(settings)).toBeNull(); // there now: left as it is
  });

  it('a backup that cannot be written fails its row and makes the exit code 1; the data is still published', async () => {
    const blocked = join(root, 'not-a-directory');
    writeFileSync(blocked, 'a file where the backup directory should be');
    const own = loadSettings({
      ...korea.env,
      SITE_BUILD: 'off',
      SNAPSHOTS_DIR: join(root, 'data', 'snapshots'),
      WAREHOUSE_DIR: join(root, 'data', 'warehouse'),
      BACKUP_URL: blocked,
    });
    let out = '';
    const { exitCode, results } = await runCli(parseArgs(['korea', '--source', 'live', '--now', KOREA_NOW2]), own, {
      progress: new LineProgress(() => {}),
      out: (text) => {
        out += text;
      },
    });
    expect(exitCode).toBe(1);
    expect(results[0]!.manifest).not.toBeNull();
    expect(step(results[0]!.reports, 'backup')).toMatchObject({ status: 'failed', detail: expect.stringMatching(/ENOTDIR|EEXIST/) });
    expect(out).toMatch(/korea\/backup .*failed/);
  }, 120_000);

  it('a file import: its segments (converted from CSV) and ledger come back as they were', async () => {
    const imports = join(root, 'imports');
    cpSync(join(process.cwd(), 'sources/file/fixtures/good'), imports, { recursive: true });
    const own = loadSettings({
      SITE_BUILD: 'off',
      SNAPSHOTS_DIR: join(root, 'file-data', 'snapshots'),
      WAREHOUSE_DIR: join(root, 'file-data', 'warehouse'),
      BACKUP_URL: join(root, 'file-backups'),
    });
    const { exitCode, results } = await runCli(
      parseArgs(['analytics', '--source', `file:${imports}`, '--now', '2026-03-03T00:00:00Z']),
      own,
      {
        progress: new LineProgress(() => {}),
        out: () => {},
      },
    );
    expect(exitCode).toBe(0);
    expect(step(results[0]!.reports, 'backup')).toMatchObject({ status: 'ok' });
    const ledgerSql = `SELECT table_name, dir, segment, sha256, rows_loaded::INTEGER AS rows FROM import_ledger ORDER BY segment`;
    const read = async () => {
      const db = await openDatabase(join(own.warehouseDir, 'analytics.duckdb'), { access_mode: 'READ_ONLY' });
      try {
        const ledger = await queryJson(db.connection, ledgerSql);
        const files = ledger
          .filter((l) => l.table_name === 'x402_transactions')
          .map((l) => sqlString(join(own.warehouseDir, SEGMENTS_DIR, String(l.segment))));
        const [payments] = await queryJson(
          db.connection,
          `SELECT count(*)::INTEGER AS n, round(sum(amount), 6)::VARCHAR AS amount FROM read_parquet([${files.join(', ')}])`,
        );
        return { ledger, payments };
      } finally {
        db.close();
      }
    };
    const before = await read();
    expect(before.ledger.map((l) => [l.table_name, l.rows])).toEqual([['x402_transactions', 4]]);
    expect(before.payments?.n).toBe(4);
    // the cache and the operator's import directory both gone
    rmSync(join(root, 'file-data'), { recursive: true, force: true });
    rmSync(imports, { recursive: true, force: true });
    expect((await restoreWarehouse(own, 'analytics'))?.files).toBe(before.ledger.length);
    expect(await read()).toEqual(before);
  }, 120_000);

  it('BACKUP_EVERY_MINUTES: a run backs up only when the last backup is that old', async () => {
    const imports = join(root, 'imports-every');
    cpSync(join(process.cwd(), 'sources/file/fixtures/good'), imports, { recursive: true });
    const own = loadSettings({
      SITE_BUILD: 'off',
      SNAPSHOTS_DIR: join(root, 'every-data', 'snapshots'),
      WAREHOUSE_DIR: join(root, 'every-data', 'warehouse'),
      BACKUP_URL: join(root, 'every-backups'),
      BACKUP_EVERY_MINUTES: '60',
    });
    const backupRow = async (now: string) => {
      const { exitCode, results } = await runCli(parseArgs(['analytics', '--source', `file:${imports}`, '--now', now]), own, {
        progress: new LineProgress(() => {}),
        out: () => {},
      });
      expect(exitCode).toBe(0);
      return step(results[0]!.reports, 'backup');
    };
    expect(await backupRow('2026-03-03T00:00:00Z')).toMatchObject({ status: 'ok' });
    const [first] = backupsOf('../every-backups/analytics');
    expect(await backupRow('2026-03-03T00:05:00Z')).toMatchObject({
      status: 'skipped',
      detail: expect.stringMatching(new RegExp(`^not due: the last backup, ${first}, is 0 minutes old \\(BACKUP_EVERY_MINUTES=60\\)$`)),
    });
    expect(backupsOf('../every-backups/analytics')).toEqual([first]);
  }, 120_000);
});
