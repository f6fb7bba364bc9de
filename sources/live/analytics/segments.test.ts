/**
 * The live source appends (issue 28): each run of the pipeline command with `--source live` adds
 * what the indexers newly indexed as one new payment segment, a run with nothing new adds none, a
 * run killed midway leaves the next one consistent, and the incremental publish is a `--rebuild`
 * publish at the same --now. Driven through runCli and the pipeline command itself against the
 * recorded upstream payloads served on 127.0.0.1.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadSettings, type Settings } from '../../../lib/config.ts';
import { openDatabase, queryJson, sqlString, type Database } from '../../../lib/duckdb.ts';
import { parseArgs, runCli } from '../../../pipelines/cli.ts';
import { LineProgress } from '../../../pipelines/progress.ts';
import type { SnapshotManifest } from '../../../snapshots/manifest.ts';
import { expectSameContent } from '../../../snapshots/testing/same-content.ts';
import { SEGMENTS_DIR } from '../../segments.ts';
import { baseFixtureIndex, evmNodeRoutes, type EvmNodeState } from '../testing/evm-node.ts';
import { startLoopback, type Loopback, type RecordedRequest, type Reply, type Route } from '../../../lib/testing/loopback.ts';
import { fixture } from '../testing/fixtures.ts';
import { solanaFixtureIndex, solanaNodeRoutes, type SolanaNodeState } from '../testing/solana-node.ts';

type Page = { items: unknown[]; pagination?: { offset?: number } };
const PAGES: Page[] = [0, 1, 2].map((i) => fixture<Page>(`discovery-page-${i}.json`));
const fx = baseFixtureIndex();
const sol = solanaFixtureIndex();
// every recorded settlement is on 2026-03-02 between 00:00 and 01:04 UTC
const NOW1 = '2026-03-02T01:02:00Z';
const NOW2 = '2026-03-02T02:00:00Z';

let server: Loopback;
const evm: EvmNodeState = { finalized: fx.firstFinalized, maxResults: 10, receipts: true };
const solana: SolanaNodeState = { visible: 5 };
/** While set, the Solana node answers no signature list until it is released (a run held midway). */
let hold: { reached: () => void; released: Promise<void> } | null = null;

beforeAll(async () => {
  const held = (route: Route): Route =>
    route.rpcMethod !== 'getSignaturesForAddress'
      ? route
      : {
          ...route,
          reply: async (req: RecordedRequest): Promise<Reply> => {
            if (hold) {
              hold.reached();
              await hold.released;
            }
            return (route.reply as (r: RecordedRequest) => Reply)(req);
          },
        };
  server = await startLoopback([
    {
      method: 'GET',
      path: '/facilitator/discovery/resources',
      reply: (req) => ({ json: PAGES.find((p) => p.pagination?.offset === Number(req.query.offset)) ?? { items: [] } }),
    },
    ...evmNodeRoutes('/base', evm),
    ...solanaNodeRoutes('/solana', solana).map(held),
  ]);
});
afterAll(async () => {
  await server.close();
});

const roots: string[] = [];
let db: Database;
beforeEach(async () => {
  evm.finalized = fx.firstFinalized;
  solana.visible = 5;
  db = await openDatabase(':memory:');
});
afterEach(() => {
  db.close();
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

function env(root: string): Record<string, string> {
  return {
    SITE_BUILD: 'off',
    // the fixtures list public names: no probe rounds here (probes.test.ts probes a loopback fleet)
    PROBES: 'off',
    SNAPSHOTS_DIR: join(root, 'snapshots'),
    WAREHOUSE_DIR: join(root, 'warehouse'),
    X402_DISCOVERY_URL: `${server.url}/facilitator`,
    BASE_RPC_URL: `${server.url}/base`,
    SOLANA_RPC_URL: `${server.url}/solana`,
  };
}

function newRoot(): { root: string; settings: Settings } {
  const root = mkdtempSync(join(tmpdir(), 'live-segments-'));
  roots.push(root);
  return { root, settings: loadSettings(env(root)) };
}

async function run(settings: Settings, now: string, extra: string[] = []): Promise<{ manifest: SnapshotManifest; notes: string[] }> {
  const notes: string[] = [];
  const { exitCode, results } = await runCli(parseArgs(['analytics', '--source', 'live', '--now', now, ...extra]), settings, {
    progress: new LineProgress((line) => notes.push(line)),
    out: () => {},
  });
  expect(results[0]!.reports.filter((r) => r.status !== 'ok' && r.status !== 'kept').map((r) => `${r.name}: ${r.detail}`)).toEqual([]);
  expect(exitCode).toBe(0);
  return { manifest: results[0]!.manifest!, notes };
}

/** Reads the warehouse a run left (the run has closed it). */
async function inWarehouse<T>(settings: Settings, read: (w: Database) => Promise<T>): Promise<T> {
  const w = await openDatabase(join(settings.warehouseDir, 'analytics.duckdb'));
  try {
    return await read(w);
  } finally {
    w.close();
  }
}

const rows = (w: Database, sql: string) => queryJson(w.connection, sql);

interface Ledger {
  table_name: string;
  batch: number;
  segment: string;
  rows_loaded: number;
  rows_rejected: number;
}

const ledgerOf = (settings: Settings) =>
  inWarehouse(settings, async (w) =>
    (
      await rows(
        w,
        `SELECT table_name, batch, segment, rows_loaded::INTEGER AS rows_loaded, rows_rejected::INTEGER AS rows_rejected
           FROM import_ledger ORDER BY batch, table_name`,
      )
    ).map((r) => r as unknown as Ledger),
  );

/** The payments a segment holds, as `<chain>:<tx_hash>`, sorted. */
async function segmentPayments(settings: Settings, segment: string): Promise<string[]> {
  const path = sqlString(join(settings.warehouseDir, SEGMENTS_DIR, segment));
  return (await rows(db, `SELECT chain || ':' || tx_hash AS p FROM read_parquet(${path}) ORDER BY p`)).map((r) => String(r.p));
}

/** The history's payments the indexers keep, as `<chain>:<tx_hash>`, after a filter. */
const indexed = (settings: Settings, evmWhere: string, solanaWhere: string) =>
  inWarehouse(settings, async (w) =>
    (
      await rows(
        w,
        `SELECT p FROM (SELECT chain || ':' || tx_hash AS p FROM live_evm_settlements WHERE ${evmWhere}
           UNION ALL SELECT 'solana:' || signature FROM live_solana_settlements WHERE ${solanaWhere}) ORDER BY p`,
      )
    ).map((r) => String(r.p)),
  );

/** Every dataset of `a` has the content of `b`'s (tables: the same rows, read through the reader; documents: the same JSON). */
async function sameContent(settings: Settings, a: SnapshotManifest, b: SnapshotManifest): Promise<void> {
  const at = (manifest: SnapshotManifest) => ({ snapshotsDir: settings.snapshotsDir, manifest });
  await expectSameContent(db.connection, at(a), at(b));
}

const segmentFiles = (settings: Settings) => readdirSync(join(settings.warehouseDir, SEGMENTS_DIR)).sort();
const later = `signature = ${sqlString(sol.signatures.later)}`;

describe('analytics --source live appends each run as a segment', () => {
  it('a second run adds exactly what it indexed as a new segment, a run with nothing new adds none, and the publish is a --rebuild publish', async () => {
    const { settings } = newRoot();
    await run(settings, NOW1);
    const [first, ...none] = (await ledgerOf(settings)).filter((l) => l.table_name === 'x402_transactions');
    expect(none).toEqual([]);
    expect(await segmentPayments(settings, first!.segment)).toEqual(await indexed(settings, 'true', 'true'));

    // new blocks on Base and a new Solana signature
    evm.finalized = fx.secondFinalized;
    solana.visible = 6;
    const second = await run(settings, NOW2);
    const ledger = await ledgerOf(settings);
    const payments = ledger.filter((l) => l.table_name === 'x402_transactions');
    expect(payments.map((l) => l.batch)).toEqual([first!.batch, payments[1]!.batch]);
    expect(payments[1]!.batch).toBeGreaterThan(first!.batch);
    const added = await indexed(settings, `block_number > ${fx.firstFinalized}`, later);
    expect(added.length).toBeGreaterThanOrEqual(2);
    expect(added.some((p) => p.startsWith('solana:'))).toBe(true);
    expect(await segmentPayments(settings, payments[1]!.segment)).toEqual(added);
    expect(payments[1]).toMatchObject({ rows_loaded: added.length, rows_rejected: 0 });
    expect(second.notes.some((n) => n.includes(`x402_transactions: segment ${payments[1]!.segment}: ${added.length} rows added`))).toBe(
      true,
    );
    // the pipeline reads only what is new: the first run's attribution is kept
    expect(second.notes.some((n) => n.endsWith('attribution: 1 import run(s) kept, 1 attributed'))).toBe(true);

    // nothing new: no segment, no ledger row
    const files = segmentFiles(settings);
    const third = await run(settings, NOW2);
    expect(await ledgerOf(settings)).toEqual(ledger);
    expect(segmentFiles(settings)).toEqual(files);
    expect(third.notes.some((n) => /x402_transactions: nothing new; 2 segment\(s\)/.test(n))).toBe(true);

    // the incremental publish is what a --rebuild at the same --now publishes
    const rebuilt = await run(settings, NOW2, ['--rebuild']);
    expect(rebuilt.notes.some((n) => /day state of 2026-03-02 built/.test(n))).toBe(true);
    await sameContent(settings, second.manifest, rebuilt.manifest);
    await sameContent(settings, third.manifest, rebuilt.manifest);
  }, 300_000);

  it('a run killed between indexing and its segment leaves the previous version live; the next run adds what it had indexed, once', async () => {
    const { root, settings } = newRoot();
    const first = await run(settings, NOW1);
    const [ledger1] = (await ledgerOf(settings)).filter((l) => l.table_name === 'x402_transactions');

    evm.finalized = fx.secondFinalized;
    solana.visible = 6;
    // the pipeline command, killed once Base is indexed (its rows and checkpoint committed) and
    // Solana is being read: before the run's segment is cut
    let reached!: () => void;
    const atSolana = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    hold = { reached, released: new Promise<void>((resolve) => (release = resolve)) };
    try {
      // node itself runs the command (the tsx launcher would leave its child, the run, alive)
      const child = spawn(process.execPath, ['--import', 'tsx', 'pipelines/cli.ts', 'analytics', '--source', 'live', '--now', NOW2], {
        env: { ...process.env, ...env(root) },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let log = '';
      child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
      const exit = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
      await Promise.race([atSolana, exit]);
      child.kill('SIGKILL');
      expect(await exit, log).toBe('SIGKILL');
    } finally {
      hold = null;
      release();
    }
    const latest = JSON.parse(readFileSync(join(settings.snapshotsDir, 'analytics', 'latest.json'), 'utf8')) as { version: string };
    expect(latest.version).toBe(first.manifest.version);
    // Base's new rows are in the history, past the segment's mark; no segment was cut for them
    const killed = await inWarehouse(settings, (w) =>
      rows(
        w,
        `SELECT last_block::INTEGER AS b FROM evm_checkpoint UNION ALL SELECT count(*)::INTEGER FROM import_ledger WHERE table_name = 'x402_transactions'`,
      ),
    );
    expect(killed).toEqual([{ b: fx.secondFinalized }, { b: 1 }]);

    const next = await run(settings, NOW2);
    const payments = (await ledgerOf(settings)).filter((l) => l.table_name === 'x402_transactions');
    expect(payments.map((l) => l.segment)).toEqual([ledger1!.segment, payments[1]!.segment]);
    const added = await indexed(settings, `block_number > ${fx.firstFinalized}`, later);
    expect(await segmentPayments(settings, payments[1]!.segment)).toEqual(added);
    // nothing doubled, nothing lost: the segments hold the history (one row per key) once
    const all = [...(await segmentPayments(settings, payments[0]!.segment)), ...added].sort();
    expect(all).toEqual(await indexed(settings, 'true', 'true'));
    // no file but the ledger's
    const ledger = await ledgerOf(settings);
    expect(segmentFiles(settings)).toEqual(ledger.map((l) => l.segment).sort());
    const rebuilt = await run(settings, NOW2, ['--rebuild']);
    await sameContent(settings, next.manifest, rebuilt.manifest);
    expect(existsSync(join(settings.snapshotsDir, 'analytics', next.manifest.version))).toBe(true);
  }, 300_000);
});
