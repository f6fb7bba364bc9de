import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendRows, openDatabase, queryJson, sqlString, type Database } from '../../lib/duckdb.ts';
import { type IngestContext, rowsOf } from '../contract.ts';
import { exportWorld } from '../demo/cli.ts';
import { x402World } from '../demo/analytics/world.ts';
import { RAW_TABLES } from '../raw-tables.ts';
import { fileIngestSteps, importReport, importReportStep, REJECT_REASONS, type ImportFileReport } from './analytics-files.ts';
import { SEGMENTS_DIR } from './append-only.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const temps: string[] = [];
const warehouses: Database[] = [];
afterAll(() => {
  warehouses.forEach((w) => w.close());
  temps.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'file-import-'));
  temps.push(dir);
  return dir;
}

interface StepResult {
  name: string;
  rows: number | null;
  error: string | null;
}

/** Each warehouse's directory (the file import keeps imported payments there). */
const warehouseDirs = new WeakMap<Database, string>();

/**
 * Runs the import as the runner does: drop every step's tables, then run the steps in order. A run
 * on the same warehouse again is a new connection to it in production: its TEMP views are gone.
 */
async function runImport(
  dir: string,
  warehouse?: Database,
  log: (m: string) => void = () => undefined,
): Promise<{ w: Database; steps: StepResult[]; report: ImportFileReport[] }> {
  const w = warehouse ?? (await openDatabase(':memory:'));
  if (!warehouse) {
    warehouses.push(w);
    warehouseDirs.set(w, tempDir());
  }
  const ctx: IngestContext = {
    connection: w.connection,
    now: new Date(),
    seed: 0,
    scale: 1,
    sourceKind: 'file',
    warehouseDir: warehouseDirs.get(w)!,
    log,
  };
  const steps = fileIngestSteps(dir);
  for (const { view_name } of await queryJson(w.connection, `SELECT view_name FROM duckdb_views() WHERE temporary AND NOT internal`)) {
    await w.connection.run(`DROP VIEW temp.${String(view_name)}`);
  }
  for (const step of steps) for (const table of step.tables) await w.connection.run(`DROP TABLE IF EXISTS ${table}`);
  const results: StepResult[] = [];
  for (const step of steps) {
    try {
      results.push({ name: step.name, rows: rowsOf(await step.run(ctx)), error: null });
    } catch (err) {
      results.push({ name: step.name, rows: null, error: (err as Error).message });
    }
  }
  return { w, steps: results, report: await importReport(w.connection) };
}

const rows = (w: Database, sql: string) => queryJson(w.connection, sql);
const rejectsOf = (report: ImportFileReport[], file: string) =>
  report.find((r) => r.file.endsWith(file))!.first_rejects.map((r) => [r.line, r.reason, r.value]);

const B1 = '0x78ecb2c9fdfe51f953de47970194a99f226d3b0f';
const S1 = '0x0e08dc7fd74e2afc786093f96911d13b56e4dca3';
const SOLS = '7AXwZv6oRyggfhqxqV71FmRTsd1Fdupcenmvqpt96rty';
const hash = (n: number) => '0x' + n.toString(16).padStart(64, '0');
const TIME_REASON = 'time: not ISO 8601 with Z or offset, or a date';

describe('file import: good CSV files', () => {
  let run: Awaited<ReturnType<typeof runImport>>;
  beforeAll(async () => {
    run = await runImport(join(FIXTURES, 'good'));
  });

  it('loads every row with source "file" and reports the counts', () => {
    expect(run.steps).toEqual([
      { name: 'ingest:x402_services', rows: 3, error: null },
      { name: 'ingest:x402_transactions', rows: 4, error: null },
      { name: 'ingest:wallet_funding', rows: 2, error: null },
      { name: 'ingest:exchange_wallets', rows: 2, error: null },
      { name: 'ingest:x402_probes', rows: 0, error: null }, // no probes file: no trust grades
    ]);
    expect(run.report.map((r) => [r.table, r.format, r.rows_read, r.rows_loaded, r.rows_rejected, r.first_rejects.length])).toEqual([
      ['x402_services', 'csv', 3, 3, 0, 0],
      ['x402_transactions', 'csv', 4, 4, 0, 0],
      ['wallet_funding', 'csv', 2, 2, 0, 0],
      ['exchange_wallets', 'csv', 2, 2, 0, 0],
      ['x402_probes', null, 0, 0, 0, 0],
    ]);
    expect(run.report[0]!.ignored_columns).toEqual(['notes']);
    expect(run.report[0]!.notes).toEqual(['ignored extra column(s): notes']);
  });

  it('keeps quoted commas, doubled quotes and embedded newlines; lowercases EVM addresses; parses prices and times', async () => {
    const services = await rows(
      run.w,
      `SELECT chain, seller_address, resource_url, name, description, category, price_amount,
              strftime(first_seen, '%Y-%m-%dT%H:%M:%S.%g') AS first_seen, source
         FROM x402_services ORDER BY first_seen`,
    );
    expect(services).toEqual([
      {
        chain: 'base',
        seller_address: S1,
        resource_url: 'https://harbor.example/api/vessels',
        name: 'Vessel positions API',
        description: 'AIS positions of ships, by MMSI or area.',
        category: 'transport_logistics',
        price_amount: 0.003,
        first_seen: '2024-12-14T23:27:09.000',
        source: 'file',
      },
      {
        chain: 'polygon',
        seller_address: S1,
        resource_url: 'https://harbor.example/api/sentiment',
        name: 'Sentiment API',
        description: null,
        category: 'ai_inference',
        price_amount: 0.001,
        first_seen: '2024-12-14T23:46:21.499', // 08:46:21.499+09:00
        source: 'file',
      },
      {
        chain: 'solana',
        seller_address: SOLS, // base58 keeps its case
        resource_url: 'https://tabstack.example/x402/quote',
        name: 'Quote "fast" API',
        description: 'Line one\nline two',
        category: null, // the pipeline assigns one
        price_amount: null,
        first_seen: '2025-01-01T00:00:00.000', // a date is midnight UTC
        source: 'file',
      },
    ]);
  });

  it('converts offsets to UTC, trims values, keeps a hash repeated on another chain', async () => {
    const tx = await rows(
      run.w,
      `SELECT tx_hash, chain, buyer, amount, strftime(time, '%Y-%m-%dT%H:%M:%S.%g') AS time, resource_url, facilitator
         FROM x402_transactions ORDER BY chain`,
    );
    expect(tx).toEqual([
      {
        tx_hash: hash(1),
        chain: 'arbitrum',
        buyer: B1,
        amount: 0,
        time: '2025-01-02T00:00:00.000',
        resource_url: null,
        facilitator: 'coinbase',
      },
      {
        tx_hash: hash(1),
        chain: 'base',
        buyer: '0xabcdef0123456789abcdef0123456789abcdef01',
        amount: 0.003,
        time: '2024-12-15T14:58:14.948',
        resource_url: 'https://harbor.example/api/vessels',
        facilitator: '0x06bb5568ff471890aa6b004eb13b38d2fc5713d1',
      },
      {
        tx_hash: hash(2),
        chain: 'polygon',
        buyer: B1,
        amount: 2.5, // '  2.5 ' in the file
        time: '2025-01-01T15:30:00.000', // 10:00:00-0530
        resource_url: 'https://harbor.example/api/sentiment?q=a,b',
        facilitator: null,
      },
      {
        tx_hash: 'DAWxAhJufVpM62EQbzqxWm9Je9rGnYf7LiCbm3A132pavvfbnjTbG6BTaX9KHjzHcpffr55Wxkppt1V5u93RztVU',
        chain: 'solana',
        buyer: 'U1jEYHLsUVPRecC46KvWYfny6Fdyi5BRw7BnQFJYhAqb',
        amount: 0.001,
        time: '2025-01-01T01:08:28.003',
        resource_url: null,
        facilitator: 'L54zkaPQFeTn1UsEqieEXBqWrPShiaZEPD7mS5WXfQg',
      },
    ]);
    const funding = await rows(
      run.w,
      `SELECT address, funder, amount, strftime(time, '%Y-%m-%dT%H:%M:%S') AS time FROM wallet_funding ORDER BY amount`,
    );
    expect(funding).toEqual([
      { address: 'U1jEYHLsUVPRecC46KvWYfny6Fdyi5BRw7BnQFJYhAqb', funder: SOLS, amount: 25, time: '2024-12-14T19:03:16' },
      {
        address: '0xabcdef0123456789abcdef0123456789abcdef01',
        funder: '0x7fdabc4635d460fc04fa27954a7a8f0182aee7ba',
        amount: 100,
        time: '2024-12-14T21:03:16',
      },
    ]);
  });

  it('loads the exchange list: EVM addresses lowercased, Solana kept, an empty name missing', async () => {
    expect(await rows(run.w, `SELECT address, name, source FROM exchange_wallets ORDER BY address`)).toEqual([
      { address: '0x7fdabc4635d460fc04fa27954a7a8f0182aee7ba', name: 'coinbase-hot', source: 'file' },
      { address: SOLS, name: null, source: 'file' },
    ]);
  });

  it('leaves the raw tables with exactly their declared columns and no scratch tables', async () => {
    for (const table of [RAW_TABLES.x402_services, RAW_TABLES.x402_transactions, RAW_TABLES.wallet_funding, RAW_TABLES.exchange_wallets]) {
      const described = await rows(run.w, `DESCRIBE ${table.name}`);
      expect(described.map((d) => [d.column_name, d.column_type])).toEqual(table.columns.map(([n, t]) => [n, t]));
    }
    const temp = await rows(run.w, `SELECT table_name FROM duckdb_tables() WHERE temporary`);
    expect(temp).toEqual([]);
  });
});

describe('file import: bad rows', () => {
  let run: Awaited<ReturnType<typeof runImport>>;
  beforeAll(async () => {
    run = await runImport(join(FIXTURES, 'bad'));
  });

  it('rejects each bad transaction with its physical line, reason and value, and loads the rest', async () => {
    expect(run.steps[1]).toEqual({ name: 'ingest:x402_transactions', rows: 2, error: null });
    const tx = run.report.find((r) => r.table === 'x402_transactions')!;
    expect([tx.rows_read, tx.rows_loaded, tx.rows_rejected]).toEqual([18, 2, 16]);
    expect(tx.notes).toEqual([]);
    expect(rejectsOf(run.report, 'transactions.csv')).toEqual([
      // line 2-3 is a good row whose quoted URL holds a newline
      [4, TIME_REASON, 'not-a-time'],
      [5, TIME_REASON, '2025-01-01T00:00:00'], // no offset: local time of which place?
      [6, 'amount: negative', '-1'],
      [7, 'amount: not a decimal number', 'abc'],
      [8, 'amount: not a decimal number', 'NaN'],
      [9, 'amount: missing', null],
      [10, 'buyer: malformed address for chain', '0x123'],
      [11, 'buyer: malformed address for chain', B1], // an EVM address on solana
      [12, 'seller_address: malformed address for chain', SOLS], // a Solana address on base
      [13, 'chain: unknown chain', 'ethereum'],
      [14, 'tx_hash: missing', null],
      [15, 'chain: missing', null],
      // line 16 is blank
      [17, 'tx_hash: duplicate within chain', hash(1)],
      [18, 'row: too many fields', `${hash(13)},base,${B1},${S1},0.01,2025-01-01T00:00:00Z,,,extra`],
      [19, 'row: too few fields', `${hash(14)},base,${B1}`],
      [20, TIME_REASON, '2025-13-01T00:00:00Z'],
    ]);
    // the first of the repeated hashes is the one loaded
    const loaded = await rows(run.w, `SELECT tx_hash, amount, resource_url FROM x402_transactions ORDER BY tx_hash`);
    expect(loaded).toEqual([
      { tx_hash: hash(1), amount: 0.01, resource_url: 'https://a.example/x?note=two\nlines' },
      { tx_hash: hash(16), amount: 0.01, resource_url: null },
    ]);
  });

  it('rejects bad services: unknown category, repeated resource_url, bad or negative price, missing fields', async () => {
    const services = run.report.find((r) => r.table === 'x402_services')!;
    expect([services.rows_read, services.rows_loaded, services.rows_rejected]).toEqual([8, 2, 6]);
    expect(rejectsOf(run.report, 'services.csv')).toEqual([
      [3, 'category: not one of the 33 categories', 'shipping'],
      [4, 'resource_url: duplicate within chain', 'https://harbor.example/api/vessels'],
      [5, 'price_amount: not a decimal number', 'free'],
      [6, 'resource_url: missing', null],
      [7, 'price_amount: negative', '-0.5'],
      [8, 'first_seen: missing', null],
    ]);
    const kept = await rows(run.w, `SELECT chain, name FROM x402_services ORDER BY chain`);
    expect(kept).toEqual([
      { chain: 'base', name: 'Vessel positions API' },
      { chain: 'solana', name: 'Same URL on another chain' },
    ]);
  });

  it('rejects bad funding rows', () => {
    expect(rejectsOf(run.report, 'funding.csv')).toEqual([
      [3, 'address: malformed address', '0xnothex'],
      [4, 'funder: missing', null],
      [5, 'amount: negative', '-5'],
      [6, 'funder: malformed address', '0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl'],
      [7, TIME_REASON, '14/12/2024'],
    ]);
    expect(run.steps[2]!.rows).toBe(1);
  });

  it('rejects bad exchange wallets: malformed, missing or repeated address, and loads the rest', async () => {
    expect(run.steps[3]).toEqual({ name: 'ingest:exchange_wallets', rows: 2, error: null });
    const wallets = run.report.find((r) => r.table === 'exchange_wallets')!;
    expect([wallets.format, wallets.rows_read, wallets.rows_loaded, wallets.rows_rejected]).toEqual(['csv', 5, 2, 3]);
    expect(rejectsOf(run.report, 'exchange_wallets.csv')).toEqual([
      [3, 'address: malformed address', '0xnothex'],
      [4, 'address: missing', null],
      [5, 'address: duplicate', '0x7fdabc4635d460fc04fa27954a7a8f0182aee7ba'], // compared lower-case, like every EVM address
    ]);
    expect(await rows(run.w, `SELECT address, name FROM exchange_wallets ORDER BY name`)).toEqual([
      { address: SOLS, name: 'binance-sol' },
      { address: '0x7fdabc4635d460fc04fa27954a7a8f0182aee7ba', name: 'coinbase-hot' },
    ]);
  });

  it('reports the rejects on the run log, with their lines', async () => {
    const logs: string[] = [];
    const rejected = await importReportStep.run({
      connection: run.w.connection,
      now: new Date(),
      seed: 0,
      scale: 1,
      sourceKind: 'file',
      log: (m) => logs.push(m),
    });
    expect(rejected).toBe(16 + 6 + 5 + 3);
    const wallets = logs.findIndex((l) => l.endsWith('exchange_wallets.csv: 3 of 5 rows rejected'));
    expect(wallets).toBeGreaterThanOrEqual(0);
    expect(logs.slice(wallets + 1, wallets + 4)).toEqual([
      '  line 3: address: malformed address (0xnothex)',
      '  line 4: address: missing',
      '  line 5: address: duplicate (0x7fdabc4635d460fc04fa27954a7a8f0182aee7ba)',
    ]);
  });

  it('keeps every reject in import_rejects with reasons from the documented list', async () => {
    const all = await rows(run.w, `SELECT file, count(*)::INTEGER AS n FROM import_rejects GROUP BY file ORDER BY file`);
    expect(all.map((r) => [String(r.file).split('/').pop(), r.n])).toEqual([
      ['exchange_wallets.csv', 3],
      ['funding.csv', 5],
      ['services.csv', 6],
      ['transactions.csv', 16],
    ]);
    const reasons = await rows(run.w, `SELECT DISTINCT reason FROM import_rejects`);
    for (const { reason } of reasons) expect(REJECT_REASONS).toContain(reason);
  });

  it('a second import replaces the report and the rows of the first', async () => {
    const again = await runImport(join(FIXTURES, 'good'), run.w);
    expect(again.report.map((r) => r.rows_rejected)).toEqual([0, 0, 0, 0, 0]);
    const [n] = await rows(run.w, `SELECT count(*)::INTEGER AS n FROM import_rejects`);
    expect(n!.n).toBe(0);
    run = await runImport(join(FIXTURES, 'bad'), run.w); // restore for any later test in this block
  });
});

describe('file import: CSV the reader cannot parse', () => {
  const header = 'tx_hash,chain,buyer,seller_address,amount,time,resource_url,facilitator\n';
  const good = (n: number) => `${hash(n)},base,${B1},${S1},0.01,2025-01-01T00:00:00Z,,\n`;

  it('reports a non-UTF-8 row and an unterminated quote at their physical lines', async () => {
    const dir = tempDir();
    copyFileSync(join(FIXTURES, 'good', 'services.csv'), join(dir, 'services.csv'));
    const body = Buffer.concat([
      Buffer.from(header + good(1) + `${hash(2)},base,${B1},${S1},0.01,2025-01-01T00:00:00Z,"caf`),
      Buffer.from([0xe9]), // latin-1 é
      Buffer.from(
        `",\n${good(3)}${hash(4)},base,${B1},${S1},-2,2025-01-01T00:00:00Z,,\n${hash(5)},base,${B1},${S1},0.01,2025-01-01T00:00:00Z,"open,\n${good(6)}`,
      ),
    ]);
    writeFileSync(join(dir, 'transactions.csv'), body);
    const { report } = await runImport(dir);
    const tx = report.find((r) => r.table === 'x402_transactions')!;
    expect(tx.first_rejects.map((r) => [r.line, r.reason])).toEqual([
      [3, 'row: not UTF-8'],
      [5, 'amount: negative'],
      [6, 'row: malformed quoting'], // the quote never closes: that line alone is rejected, the next one loads
    ]);
    expect([tx.rows_loaded, tx.rows_rejected]).toEqual([3, 3]);
    expect(tx.notes).toEqual([]);
  });

  it('counts CRLF line ends, runs of blank lines and quoted line breaks in the physical line numbers', async () => {
    const dir = tempDir();
    copyFileSync(join(FIXTURES, 'good', 'services.csv'), join(dir, 'services.csv'));
    const lines = [
      header.trimEnd(), // 1
      good(1).trimEnd(), // 2
      '', // 3
      '', // 4
      `${hash(2)},base,${B1},${S1},0.01,2025-01-01T00:00:00Z,"https://x.example/a`, // 5
      `b ""quoted""",`, // 6: continues line 5
      `${hash(3)},base,${B1},${S1},-1,2025-01-01T00:00:00Z,,`, // 7
      `${hash(4)},base`, // 8
      '', // 9
      `${hash(5)},base,${B1},${S1},0.01,yesterday,,`, // 10
      good(6).trimEnd(), // 11
    ];
    writeFileSync(join(dir, 'transactions.csv'), lines.join('\r\n') + '\r\n');
    const run = await runImport(dir);
    const tx = run.report.find((r) => r.table === 'x402_transactions')!;
    expect(tx.first_rejects.map((r) => [r.line, r.reason])).toEqual([
      [7, 'amount: negative'],
      [8, 'row: too few fields'],
      [10, TIME_REASON],
    ]);
    expect(tx.notes).toEqual([]);
    expect(await rows(run.w, `SELECT resource_url FROM x402_transactions WHERE tx_hash = '${hash(2)}'`)).toEqual([
      { resource_url: 'https://x.example/a\r\nb "quoted"' },
    ]);
  });

  it('rejects a stray quote inside an unquoted value at its own line, and numbers the lines after it truly', async () => {
    const dir = tempDir();
    copyFileSync(join(FIXTURES, 'good', 'services.csv'), join(dir, 'services.csv'));
    const stray = `${hash(2)},base,${B1},${S1},0.01,2025-01-01T00:00:00Z,https://x.example/say"hi,\n`;
    writeFileSync(
      join(dir, 'transactions.csv'),
      header + good(1) + stray + `${hash(3)},base,${B1},${S1},-1,2025-01-01T00:00:00Z,,\n` + good(4),
    );
    const { report } = await runImport(dir);
    const tx = report.find((r) => r.table === 'x402_transactions')!;
    expect(tx.first_rejects.map((r) => [r.line, r.reason])).toEqual([
      [3, 'row: malformed quoting'],
      [4, 'amount: negative'],
    ]);
    expect([tx.rows_read, tx.rows_loaded, tx.rows_rejected]).toEqual([4, 2, 2]);
    expect(tx.notes).toEqual([]);
  });
});

// The demo export, one line edited as a user's file might be, through the ingest steps the pipeline runs
describe('file import: a malformed row in a large CSV (issue 16, fault 5)', () => {
  const now = new Date('2026-01-15T00:00:00Z');
  let exported: string;
  let dataLines: number;
  beforeAll(async () => {
    exported = tempDir();
    await exportWorld({ out: exported, parts: ['analytics'], format: 'csv', seed: 42, now, scale: 1 });
    dataLines = readFileSync(join(exported, 'transactions.csv'), 'latin1').split('\n').length - 2;
  });

  async function importEdited(edit: (lines: string[]) => void) {
    const dir = tempDir();
    for (const f of ['services.csv', 'funding.csv']) copyFileSync(join(exported, f), join(dir, f));
    const lines = readFileSync(join(exported, 'transactions.csv'), 'latin1').split('\n');
    edit(lines);
    writeFileSync(join(dir, 'transactions.csv'), lines.join('\n'), 'latin1');
    const run = await runImport(dir);
    return { run, tx: run.report.find((r) => r.table === 'x402_transactions'), lines };
  }

  it('a stray quote at the start of an address (sed 10s/^0x/"0x/): that line rejected, every other row loaded', async () => {
    expect(dataLines).toBeGreaterThan(100_000); // large enough for DuckDB to read it in parallel chunks
    const { run, tx, lines } = await importEdited((l) => {
      l[9] = l[9]!.replace(/^0x/, '"0x');
    });
    expect(run.steps.map((s) => s.error)).toEqual([null, null, null, null, null]);
    expect(tx!.first_rejects).toEqual([{ line: 10, reason: 'row: malformed quoting', value: lines[9]!.slice(0, 200) }]);
    expect([tx!.rows_read, tx!.rows_loaded, tx!.rows_rejected]).toEqual([dataLines, dataLines - 1, 1]);
    const [n] = await rows(run.w, 'SELECT count(*)::INTEGER AS n FROM x402_transactions');
    expect(n!.n).toBe(dataLines - 1);
  });

  it('a row with too many fields and a quote never closed, far apart: both at their true lines, every other row loaded', async () => {
    const far = 200_000;
    const { run, tx, lines } = await importEdited((l) => {
      l[4] = `${l[4]},extra`; // line 5
      l[far - 1] = l[far - 1]!.replace(',base,', ',"base,'); // line 200000: a quote opened mid-row
    });
    expect(run.steps.map((s) => s.error)).toEqual([null, null, null, null, null]);
    expect(tx!.first_rejects.map((r) => [r.line, r.reason])).toEqual([
      [5, 'row: too many fields'],
      [far, 'row: malformed quoting'],
    ]);
    expect(tx!.first_rejects[1]!.value).toBe(lines[far - 1]!.slice(0, 200));
    expect([tx!.rows_loaded, tx!.rows_rejected]).toEqual([dataLines - 2, 2]);
  });
});

describe('file import: Parquet', () => {
  it('loads typed and text columns, reports 1-based row numbers, and treats a missing funding file as empty', async () => {
    const dir = tempDir();
    const writer = await openDatabase(':memory:');
    warehouses.push(writer);
    const c = writer.connection;
    await c.run(`COPY (SELECT * FROM (VALUES
        ('base', '${S1.toUpperCase().replace('0X', '0x')}', 'https://p.example/a', 'A', NULL, 'weather', 0.25::DECIMAL(10, 4), TIMESTAMP '2025-02-01 12:00:00'),
        ('base', '${S1}', 'https://p.example/b', 'B', 'b', NULL, NULL, TIMESTAMP '2025-02-02 00:00:00'),
        ('base', 'not-an-address', 'https://p.example/c', 'C', NULL, NULL, NULL, TIMESTAMP '2025-02-03 00:00:00')
      ) t(chain, seller_address, resource_url, name, description, category, price_amount, first_seen))
      TO ${sqlString(join(dir, 'services.parquet'))} (FORMAT parquet)`);
    await c.run(`COPY (SELECT * FROM (VALUES
        ('${hash(1)}', 'base', '${B1}', '${S1}', 0.5::DOUBLE, TIMESTAMPTZ '2025-02-01 09:00:00+09', 'https://p.example/a', NULL, 'extra'),
        ('${hash(2)}', 'base', '${B1}', '${S1}', -0.5::DOUBLE, TIMESTAMPTZ '2025-02-01 09:00:00+00', NULL, NULL, NULL),
        ('${hash(3)}', 'base', '${B1}', '${S1}', 'NaN'::DOUBLE, TIMESTAMPTZ '2025-02-01 09:00:00+00', NULL, NULL, NULL),
        ('${hash(1)}', 'base', '${B1}', '${S1}', 0.7::DOUBLE, TIMESTAMPTZ '2025-02-01 10:00:00+00', NULL, NULL, NULL),
        ('${hash(4)}', 'base', '${B1}', '${S1}', 1::DOUBLE, NULL, NULL, NULL, NULL)
      ) t(tx_hash, chain, buyer, seller_address, amount, time, resource_url, facilitator, memo))
      TO ${sqlString(join(dir, 'transactions.parquet'))} (FORMAT parquet)`);

    const run = await runImport(dir);
    expect(run.steps.map((s) => [s.name, s.rows, s.error])).toEqual([
      ['ingest:x402_services', 2, null],
      ['ingest:x402_transactions', 1, null],
      ['ingest:wallet_funding', 0, null],
      ['ingest:exchange_wallets', 0, null],
      ['ingest:x402_probes', 0, null],
    ]);
    expect(rejectsOf(run.report, 'services.parquet')).toEqual([[3, 'seller_address: malformed address for chain', 'not-an-address']]);
    expect(rejectsOf(run.report, 'transactions.parquet')).toEqual([
      [2, 'amount: negative', '-0.5'],
      [3, 'amount: not a decimal number', 'nan'],
      [4, 'tx_hash: duplicate within chain', hash(1)],
      [5, 'time: missing', null],
    ]);
    const tx = run.report.find((r) => r.table === 'x402_transactions')!;
    expect([tx.format, tx.rows_read, tx.rows_loaded, tx.rows_rejected, tx.ignored_columns]).toEqual(['parquet', 5, 1, 4, ['memo']]);
    expect(await rows(run.w, `SELECT amount, strftime(time, '%Y-%m-%dT%H:%M:%S') AS time FROM x402_transactions`)).toEqual([
      { amount: 0.5, time: '2025-02-01T00:00:00' },
    ]);
    expect(
      await rows(
        run.w,
        `SELECT seller_address, price_amount, strftime(first_seen, '%Y-%m-%dT%H') AS first_seen FROM x402_services ORDER BY 3`,
      ),
    ).toEqual([
      { seller_address: S1, price_amount: 0.25, first_seen: '2025-02-01T12' },
      { seller_address: S1, price_amount: null, first_seen: '2025-02-02T00' },
    ]);
    const funding = run.report.find((r) => r.table === 'wallet_funding')!;
    expect([funding.format, funding.rows_read, funding.notes]).toEqual([
      null,
      0,
      ['no funding.csv or funding.parquet (optional): wallet_funding is empty'],
    ]);
    expect(await rows(run.w, `SELECT count(*)::INTEGER AS n FROM wallet_funding`)).toEqual([{ n: 0 }]);
    // no exchange list: an empty one, and the run says what that means
    const wallets = run.report.find((r) => r.table === 'exchange_wallets')!;
    expect([wallets.format, wallets.rows_read, wallets.notes]).toEqual([
      null,
      0,
      [
        'no exchange_wallets.csv or exchange_wallets.parquet (optional): exchange_wallets is empty; no exchange-wallet labels for this source: wallets funded by a shared exchange may cluster together',
      ],
    ]);
    expect(await rows(run.w, `SELECT count(*)::INTEGER AS n FROM exchange_wallets`)).toEqual([{ n: 0 }]);
  });
});

describe('file import: Parquet read in place', () => {
  it('validates in one scan, reads the file through a TEMP view and normalises only the columns that need it', async () => {
    const dir = tempDir();
    const writer = await openDatabase(':memory:');
    warehouses.push(writer);
    const c = writer.connection;
    await c.run(`COPY (SELECT * FROM (VALUES ('base', '${S1}', 'https://p.example/a', '2025-02-01T00:00:00Z'))
        t(chain, seller_address, resource_url, first_seen)) TO ${sqlString(join(dir, 'services.parquet'))} (FORMAT parquet)`);
    // text times, a checksummed buyer, an upper-case chain, a padded hash and a repeated one
    await c.run(`COPY (SELECT * FROM (VALUES
        ('${hash(1)}', 'BASE', '${B1.toUpperCase().replace('0X', '0x')}', '${S1}', '0.5', '2025-02-01T09:00:00+09:00'),
        (' ${hash(2)} ', 'base', '${B1}', '${S1}', '1e-2', '2025-02-01'),
        ('${hash(1)}', 'base', '${B1}', '${S1}', '0.7', '2025-02-01T10:00:00Z'),
        ('${hash(3)}', 'base', 'not-an-address', '${S1}', '0.1', '2025-02-01T10:00:00Z')
      ) t(tx_hash, chain, buyer, seller_address, amount, time)) TO ${sqlString(join(dir, 'transactions.parquet'))} (FORMAT parquet)`);
    const run = await runImport(dir);
    expect(run.steps.map((s) => [s.name, s.rows, s.error])).toEqual([
      ['ingest:x402_services', 1, null],
      ['ingest:x402_transactions', 2, null],
      ['ingest:wallet_funding', 0, null],
      ['ingest:exchange_wallets', 0, null],
      ['ingest:x402_probes', 0, null],
    ]);
    expect(rejectsOf(run.report, 'transactions.parquet')).toEqual([
      [3, 'tx_hash: duplicate within chain', hash(1)],
      [4, 'buyer: malformed address for chain', 'not-an-address'],
    ]);
    expect(
      await rows(
        run.w,
        `SELECT tx_hash, chain, buyer, amount, strftime(time, '%Y-%m-%dT%H:%M:%S') AS time, source FROM x402_transactions ORDER BY tx_hash`,
      ),
    ).toEqual([
      { tx_hash: hash(1), chain: 'base', buyer: B1, amount: 0.5, time: '2025-02-01T00:00:00', source: 'file' },
      { tx_hash: hash(2), chain: 'base', buyer: B1, amount: 0.01, time: '2025-02-01T00:00:00', source: 'file' },
    ]);
    const described = await rows(run.w, 'DESCRIBE x402_transactions');
    expect(described.map((d) => [d.column_name, d.column_type])).toEqual(RAW_TABLES.x402_transactions.columns.map(([n, t]) => [n, t]));
    expect(await rows(run.w, `SELECT view_name FROM duckdb_views() WHERE temporary AND view_name LIKE 'x402_%' ORDER BY 1`)).toEqual([
      { view_name: 'x402_services' },
      { view_name: 'x402_transactions' },
      { view_name: 'x402_transactions_by_import' },
    ]);
    expect(await rows(run.w, `SELECT table_name FROM duckdb_tables() WHERE temporary`)).toEqual([]);
  });
});

describe('file import: files that cannot be imported', () => {
  it('a missing required column fails that step with the file, the columns expected and found', async () => {
    const { steps, w } = await runImport(join(FIXTURES, 'missing-column'));
    expect(steps[0]).toEqual({ name: 'ingest:x402_services', rows: 3, error: null });
    expect(steps[1]!.rows).toBeNull();
    expect(steps[1]!.error).toBe(
      `${join(FIXTURES, 'missing-column', 'transactions.csv')}: missing required column(s) seller_address, amount; ` +
        'expected tx_hash, chain, buyer, seller_address, amount, time, resource_url (optional), facilitator (optional); ' +
        'found tx_hash, chain, buyer, payTo, value, time',
    );
    // the failed table is absent rather than stale
    expect(await rows(w, `SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE table_name = 'x402_transactions'`)).toEqual([{ n: 0 }]);
  });

  it('both services.csv and services.parquet present is an error naming both', async () => {
    const dir = tempDir();
    for (const f of ['services.csv', 'transactions.csv']) copyFileSync(join(FIXTURES, 'good', f), join(dir, f));
    writeFileSync(join(dir, 'services.parquet'), 'not parquet');
    const { steps } = await runImport(dir);
    expect(steps[0]!.error).toBe(
      `${join(dir, 'services.csv')} and ${join(dir, 'services.parquet')}: both present; keep one services file, .csv or .parquet`,
    );
    expect(steps[1]!.rows).toBe(4);
  });

  it('an unreadable Parquet file, an empty CSV and a missing required file are clear errors', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'services.parquet'), 'not parquet');
    writeFileSync(join(dir, 'transactions.csv'), '');
    const { steps } = await runImport(dir);
    expect(steps[0]!.error).toMatch(new RegExp(`^${join(dir, 'services.parquet')}: cannot read as Parquet: `));
    expect(steps[1]!.error).toBe(`${join(dir, 'transactions.csv')}: empty header row (the first line must name the columns)`);
    const empty = tempDir();
    const missing = await runImport(empty);
    expect(missing.steps[0]!.error).toBe(`${join(empty, 'services')}.csv or .parquet: not found (the services file is required)`);
    expect(missing.steps[2]).toEqual({ name: 'ingest:wallet_funding', rows: 0, error: null });
    const none = await runImport(join(empty, 'nope'));
    expect(none.steps[0]!.error).toMatch(/nope: directory not found/);
  });
});

describe('file import: probes', () => {
  it('loads good probe rows and rejects bad ones with their reason; the service-health grade reads them', async () => {
    const dir = tempDir();
    for (const f of ['services.csv', 'transactions.csv']) copyFileSync(join(FIXTURES, 'good', f), join(dir, f));
    const url = 'https://api.weatherly.xyz/v1/forecast';
    const offers = '"[{""network"":""eip155:8453"",""chain"":""base"",""amount"":""10000"",""pay_to"":""0xabc""}]"';
    writeFileSync(
      join(dir, 'probes.csv'),
      [
        'resource_url,probed_at,method,outcome,status,ttfb_ms,total_ms,redirects,error,x402_version,offers,bazaar',
        `${url},2026-01-10T00:00:00Z,GET,offer,402,80.5,90,0,,2,${offers},TRUE`,
        `${url},2026-01-10T03:00:00Z,GET,timeout,,,15000,0,UND_ERR_HEADERS_TIMEOUT,,,`,
        `${url},2026-01-10T06:00:00Z,GET,exploded,402,1,1,0,,2,,false`,
        `${url},2026-01-10T09:00:00Z,GET,offer,-402,1,1,0,,2,,false`,
        `${url},2026-01-10T12:00:00Z,GET,offer,402,1,1,0,,2,{not json,false`,
        `${url},2026-01-10T15:00:00Z,GET,offer,402,1,1,0,,2,,maybe`,
      ].join('\n') + '\n',
    );
    const run = await runImport(dir);
    expect(run.steps.find((s) => s.name === 'ingest:x402_probes')).toEqual({ name: 'ingest:x402_probes', rows: 2, error: null });
    expect(rejectsOf(run.report, 'probes.csv').map(([line, reason]) => [line, reason])).toEqual([
      [4, 'outcome: not one of the prober outcomes'],
      [5, 'status: not a whole number of at least 0'],
      [6, 'offers: not JSON'],
      [7, 'bazaar: not true, false, 1 or 0'],
    ]);
    expect(
      await rows(run.w, `SELECT outcome, status::INTEGER AS status, total_ms, bazaar, source FROM x402_probes ORDER BY probed_at`),
    ).toEqual([
      { outcome: 'offer', status: 402, total_ms: 90, bazaar: true, source: 'file' },
      { outcome: 'timeout', status: null, total_ms: 15000, bazaar: null, source: 'file' },
    ]);
  });
});

describe('file import: round trip of the demo world', () => {
  const now = new Date('2026-01-15T00:00:00Z');
  let expected: Database;
  beforeAll(async () => {
    // the world as the demo source loads it, to compare the imported rows with
    expected = await openDatabase(':memory:');
    warehouses.push(expected);
    const world = x402World({ seed: 42, now, scale: 1 });
    await appendRows(expected.connection, RAW_TABLES.x402_services, world.services, { create: true });
    await appendRows(expected.connection, RAW_TABLES.x402_transactions, world.transactions, { create: true });
    await appendRows(expected.connection, RAW_TABLES.wallet_funding, world.funding, { create: true });
    await appendRows(expected.connection, RAW_TABLES.x402_probes, world.probes, { create: true });
    // the import reads an empty value as a missing one (CSV cannot tell "" from nothing)
    for (const table of [RAW_TABLES.x402_services, RAW_TABLES.x402_transactions, RAW_TABLES.wallet_funding, RAW_TABLES.x402_probes]) {
      const text = table.columns.filter(([, type]) => type === 'VARCHAR').map(([name]) => `${name} = nullif(${name}, '')`);
      await expected.connection.run(`UPDATE ${table.name} SET ${text.join(', ')}`);
    }
  });

  for (const format of ['csv', 'parquet'] as const) {
    it(`${format}: zero rejects, the same rows`, async () => {
      const dir = tempDir();
      const written = await exportWorld({ out: dir, parts: ['analytics'], format, seed: 42, now, scale: 1 });
      const run = await runImport(dir);
      expect(run.steps.every((s) => s.error === null)).toBe(true);
      // the export writes no exchange list; its probes load as the prober's history
      expect(run.report.filter((r) => r.format !== null).map((r) => [r.file, r.rows_loaded, r.rows_rejected])).toEqual(
        written.slice(0, 4).map((f) => [f.file, f.rows, 0]),
      );
      for (const table of ['x402_services', 'x402_transactions', 'wallet_funding', 'x402_probes']) {
        const file = `${table}_expected`;
        // the expected rows live in another in-memory database: bring them over through Parquet
        const path = join(tempDir(), `${file}.parquet`);
        await expected.connection.run(`COPY ${table} TO ${sqlString(path)} (FORMAT parquet)`);
        await run.w.connection.run(`CREATE TABLE ${file} AS SELECT * FROM read_parquet(${sqlString(path)})`);
        const diff = await rows(
          run.w,
          `SELECT count(*)::INTEGER AS n FROM (
             (SELECT * EXCLUDE (source) FROM ${table} EXCEPT ALL SELECT * EXCLUDE (source) FROM ${file})
             UNION ALL
             (SELECT * EXCLUDE (source) FROM ${file} EXCEPT ALL SELECT * EXCLUDE (source) FROM ${table}))`,
        );
        expect({ table, differing: diff[0]!.n }).toEqual({ table, differing: 0 });
      }
    });
  }
});

describe('file import: payments are append-only (issue 17)', () => {
  const HEADER = 'tx_hash,chain,buyer,seller_address,amount,time,resource_url,facilitator';
  const payment = (n: number, chain = 'base', time = '2025-02-01T00:00:00Z') => `${hash(n)},${chain},${B1},${S1},0.25,${time},,`;
  let dir: string;
  let run: Awaited<ReturnType<typeof runImport>>;
  const logs: string[] = [];
  const count = async () => Number((await rows(run.w, `SELECT count(*)::BIGINT AS n FROM x402_transactions`))[0]!.n);
  const segmentsOf = (w: Database) => readdirSync(join(warehouseDirs.get(w)!, SEGMENTS_DIR)).sort();

  beforeAll(async () => {
    dir = tempDir();
    for (const f of ['services.csv', 'transactions.csv']) copyFileSync(join(FIXTURES, 'good', f), join(dir, f));
    run = await runImport(dir, undefined, (m) => logs.push(m));
  });

  it('a second run over the same directory imports nothing again', async () => {
    expect(run.steps[1]).toEqual({ name: 'ingest:x402_transactions', rows: 4, error: null });
    run = await runImport(dir, run.w, (m) => logs.push(m));
    expect(run.steps[1]).toEqual({ name: 'ingest:x402_transactions', rows: 4, error: null });
    expect(await count()).toBe(4);
    expect(await rows(run.w, `SELECT count(*)::INTEGER AS n FROM new_x402_transactions`)).toEqual([{ n: 0 }]);
    expect(await rows(run.w, `SELECT file_name, batch, rows_loaded::INTEGER AS rows_loaded FROM import_ledger`)).toEqual([
      { file_name: 'transactions.csv', batch: 1, rows_loaded: 4 },
    ]);
    expect(logs).toContain('transactions: no new file; 1 file(s) imported in all, 4 payments');
  });

  it('a new transactions-<label> file is appended; a payment repeated from an earlier file is a reject of the new one', async () => {
    // CSV: two new payments and, on line 3, a repeat of the first file's first payment
    writeFileSync(join(dir, 'transactions-20250201T0000Z.csv'), [HEADER, payment(10), payment(1), payment(11)].join('\n') + '\n');
    // Parquet with exactly the raw columns, clean: its segment is the file itself; row 2 repeats the CSV's
    const c = run.w.connection;
    await c.run(`COPY (SELECT * FROM (VALUES
        ('${hash(12)}', 'base', '${B1}', '${S1}', 0.5::DOUBLE, TIMESTAMP '2025-02-02 00:00:00', NULL::VARCHAR, NULL::VARCHAR),
        ('${hash(10)}', 'base', '${B1}', '${S1}', 0.5::DOUBLE, TIMESTAMP '2025-02-02 00:00:00', NULL::VARCHAR, NULL::VARCHAR)
      ) t(tx_hash, chain, buyer, seller_address, amount, time, resource_url, facilitator))
      TO ${sqlString(join(dir, 'transactions-20250202T0000Z.parquet'))} (FORMAT parquet)`);
    run = await runImport(dir, run.w, (m) => logs.push(m));
    expect(run.steps[1]).toEqual({ name: 'ingest:x402_transactions', rows: 7, error: null });
    expect(await count()).toBe(7);
    expect(rejectsOf(run.report, 'transactions-20250201T0000Z.csv')).toEqual([[3, 'tx_hash: duplicate within chain', hash(1)]]);
    expect(rejectsOf(run.report, 'transactions-20250202T0000Z.parquet')).toEqual([[2, 'tx_hash: duplicate within chain', hash(10)]]);
    // the earlier rows stay: hash(1) once, from the first file, on each of its chains
    expect(await rows(run.w, `SELECT chain, amount FROM x402_transactions WHERE tx_hash = '${hash(1)}' ORDER BY chain`)).toEqual([
      { chain: 'arbitrum', amount: 0 },
      { chain: 'base', amount: 0.003 },
    ]);
    expect(await rows(run.w, `SELECT tx_hash FROM new_x402_transactions ORDER BY tx_hash`)).toEqual([
      { tx_hash: hash(10) },
      { tx_hash: hash(11) },
      { tx_hash: hash(12) },
    ]);
    expect(
      await rows(
        run.w,
        `SELECT file_name, batch, rows_read::INTEGER AS rows_read, rows_loaded::INTEGER AS rows_loaded, rows_rejected::INTEGER AS rows_rejected FROM import_ledger ORDER BY batch, file_name`,
      ),
    ).toEqual([
      { file_name: 'transactions.csv', batch: 1, rows_read: 4, rows_loaded: 4, rows_rejected: 0 },
      { file_name: 'transactions-20250201T0000Z.csv', batch: 2, rows_read: 3, rows_loaded: 2, rows_rejected: 1 },
      { file_name: 'transactions-20250202T0000Z.parquet', batch: 2, rows_read: 2, rows_loaded: 1, rows_rejected: 1 },
    ]);
    // every payment with the run that imported it, as the append-only datasets read them
    expect(
      await rows(
        run.w,
        `SELECT import_batch, count(*)::INTEGER AS n, list(tx_hash ORDER BY tx_hash) FILTER (WHERE import_batch > 1) AS txs
           FROM x402_transactions_by_import GROUP BY ALL ORDER BY import_batch`,
      ),
    ).toEqual([
      { import_batch: 1, n: 4, txs: null },
      { import_batch: 2, n: 3, txs: [hash(10), hash(11), hash(12)] },
    ]);
    expect(await rows(run.w, `SELECT count(*)::INTEGER AS n FROM x402_transactions_by_import WHERE import_batch > 1`)).toEqual([{ n: 3 }]);
    // the clean Parquet file's segment is the file itself; the one with a reject was rewritten
    const segments = segmentsOf(run.w);
    expect(segments).toHaveLength(3);
    expect(await rows(run.w, `SELECT count(*)::INTEGER AS n FROM file_payment_keys`)).toEqual([{ n: 7 }]);
    // the first run's rejects (none here) and this run's stay in import_rejects; a later run keeps them
    run = await runImport(dir, run.w);
    expect(Number((await rows(run.w, `SELECT count(*)::BIGINT AS n FROM import_rejects`))[0]!.n)).toBe(2);
  });

  it('a clean Parquet file is kept as it is, its DECIMAL amounts and millisecond times cast as the import casts them', async () => {
    const file = join(dir, 'transactions-20250203T0000Z.parquet');
    await run.w.connection.run(`COPY (SELECT * FROM (VALUES
        ('${hash(30)}', 'base', '${B1}', '${S1}', 0.005::DECIMAL(4,3), TIMESTAMP_MS '2025-02-03 01:02:03.456', 'https://p.example/a', NULL::VARCHAR)
      ) t(tx_hash, chain, buyer, seller_address, amount, time, resource_url, facilitator)) TO ${sqlString(file)} (FORMAT parquet)`);
    run = await runImport(dir, run.w);
    expect(run.steps[1]).toEqual({ name: 'ingest:x402_transactions', rows: 8, error: null });
    const [ledger] = await rows(run.w, `SELECT segment FROM import_ledger WHERE file_name = 'transactions-20250203T0000Z.parquet'`);
    expect(readFileSync(join(warehouseDirs.get(run.w)!, SEGMENTS_DIR, String(ledger!.segment)))).toEqual(readFileSync(file));
    expect(
      await rows(
        run.w,
        `SELECT amount, typeof(amount) AS a, strftime(time, '%Y-%m-%dT%H:%M:%S.%f') AS time, typeof(time) AS t
        FROM x402_transactions WHERE tx_hash = '${hash(30)}'`,
      ),
    ).toEqual([{ amount: 0.005, a: 'DOUBLE', time: '2025-02-03T01:02:03.456000', t: 'TIMESTAMP' }]);
  });

  it('a changed file is refused and nothing of it is read; a renamed copy is skipped; the payments stay', async () => {
    writeFileSync(join(dir, 'transactions.csv'), readFileSync(join(dir, 'transactions.csv'), 'utf8') + payment(20) + '\n');
    copyFileSync(join(dir, 'transactions-20250201T0000Z.csv'), join(dir, 'transactions-copy.csv'));
    const seen: string[] = [];
    run = await runImport(dir, run.w, (m) => seen.push(m));
    expect(run.steps[1]!.rows).toBeNull();
    expect(run.steps[1]!.error).toMatch(
      new RegExp(`^${join(dir, 'transactions.csv')}: changed since it was imported .*imports are append-only, so it was not read again`),
    );
    expect(seen).toContain(
      `${join(dir, 'transactions-copy.csv')}: the same bytes as transactions-20250201T0000Z.csv, imported already: skipped`,
    );
    expect(await count()).toBe(8);
    expect(await rows(run.w, `SELECT count(*)::INTEGER AS n FROM x402_transactions WHERE tx_hash = '${hash(20)}'`)).toEqual([{ n: 0 }]);
  });

  it('a segment left by a run that died before its commit is removed; another directory starts a new history', async () => {
    const stray = join(warehouseDirs.get(run.w)!, SEGMENTS_DIR, 'transactions-000009-deadbeefdeadbeef.parquet');
    writeFileSync(stray, 'half written');
    const other = tempDir();
    for (const f of ['services.csv', 'transactions.csv']) copyFileSync(join(FIXTURES, 'good', f), join(other, f));
    const seen: string[] = [];
    run = await runImport(other, run.w, (m) => seen.push(m));
    expect(existsSync(stray)).toBe(false);
    expect(seen.find((m) => m.startsWith('transactions:'))).toMatch(
      /^transactions: this warehouse imported from another directory before \(4 files\); .* starts a new payment history$/,
    );
    expect(run.steps[1]).toEqual({ name: 'ingest:x402_transactions', rows: 4, error: null });
    expect(await count()).toBe(4);
    expect(segmentsOf(run.w)).toHaveLength(1);
  });
});
