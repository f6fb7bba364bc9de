import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSettings, type Settings } from '../lib/config.ts';
import { loadLatest } from '../snapshots/reader.ts';
import type { DatasetMeta } from '../snapshots/writer.ts';
import { parseArgs, runCli, UsageError } from './cli.ts';
import { LineProgress, summaryTable } from './progress.ts';
import { runPipeline, type ServicePipeline } from './runner.ts';
import { koreaPipeline } from './korea/index.ts';
import { analyticsPipeline } from './analytics/index.ts';
import { exportWorld, parseExportArgs } from '../sources/demo/cli.ts';
import { queryJson } from '../lib/duckdb.ts';
import { openWarehouse } from './warehouse.ts';
import { copyOfSharedDemo, sharedDemo } from './testing/shared-demo.ts';
import { DEFAULT_SEED } from '../sources/demo/world.ts';

const dirs: string[] = [];
function tempSettings(): Settings {
  const root = mkdtempSync(join(tmpdir(), 'pipeline-test-'));
  dirs.push(root);
  return loadSettings({ SITE_BUILD: 'off', SNAPSHOTS_DIR: join(root, 'snapshots'), WAREHOUSE_DIR: join(root, 'warehouse') });
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const NOW = '2026-11-20T09:00:00Z';
const silent = new LineProgress(() => {});
const quiet = { progress: silent, out: () => {} };

describe('pipeline arguments', () => {
  it('parses the documented form', () => {
    const a = parseArgs(['all', '--source', 'demo', '--now', NOW, '--seed', '7', '--scale', '2']);
    expect(a.services).toEqual(['korea', 'analytics']);
    expect(a.now.toISOString()).toBe('2026-11-20T09:00:00.000Z');
    expect([a.seed, a.scale]).toEqual([7, 2]);
    expect(parseArgs(['korea', '--now=2026-11-20T18:00:00+09:00']).now.toISOString()).toBe('2026-11-20T09:00:00.000Z');
  });

  it.each([
    [[], /name one pipeline/],
    [['bitcoin'], /unknown pipeline "bitcoin"/],
    [['korea', '--now', '2026-11-20 09:00'], /ISO 8601 time with a zone/],
    [['korea', '--now', '2026-13-45T09:00:00Z'], /not a valid time/],
    [['korea', '--seed', 'abc'], /--seed must be an integer/],
    [['korea', '--scale', '0'], /--scale must be an integer from 1/],
    [['korea', '--source', 'ftp'], /--source must be demo, live or file:DIR/],
    [['korea', '--source', 'file:/definitely/not/here'], /is not a directory/],
    [['korea', '--source', 'live', '--seed', '3'], /no meaning with --source live/],
    [['korea', '--colour', 'red'], /unknown option --colour/],
    [['korea', '--seed'], /--seed needs a value/],
  ])('rejects %j with a clear message', (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(UsageError);
    expect(() => parseArgs(argv)).toThrow(message);
  });
});

describe('demo pipelines', () => {
  it('publish both services and give identical dataset sha256s for the same seed and --now', async () => {
    // the first run is the run's shared demo publish (`all --now NOW`, the default seed), read from its
    // snapshots; a second run in folders of its own must give the same files
    const args = parseArgs(['all', '--now', NOW, '--seed', String(DEFAULT_SEED)]);
    const shared = await sharedDemo();
    const firstManifest = async (service: 'korea' | 'analytics') => (await loadLatest(shared.snapshotsDir, service))!.manifest;
    const b = tempSettings();
    const second = await runCli(args, b, quiet);
    expect(second.exitCode).toBe(0);
    for (const service of ['korea', 'analytics'] as const) {
      const m1 = await firstManifest(service);
      const m2 = second.results.find((r) => r.service === service)!.manifest!;
      expect(m1.datasets.length).toBeGreaterThan(0);
      expect(m1.datasets.map((d) => [d.name, d.sha256])).toEqual(m2.datasets.map((d) => [d.name, d.sha256]));
      expect(m1.datasets.every((d) => d.source === 'demo')).toBe(true);
      expect(m1.notice).toMatch(/Synthetic data/);
    }
    // a second run on the same warehouse (a copy of the shared one) keeps service ids stable, so the data is still identical
    const copy = await copyOfSharedDemo('pipeline-test-again-');
    dirs.push(copy.root);
    const again = await runCli(args, copy.settings, quiet);
    const m1 = await firstManifest('analytics');
    const m3 = again.results.find((r) => r.service === 'analytics')!.manifest!;
    expect(m3.datasets.map((d) => d.sha256)).toEqual(m1.datasets.map((d) => d.sha256));

    // a different seed is a different world
    const other = await runCli(parseArgs(['korea', '--now', NOW, '--seed', '8']), tempSettings(), quiet);
    const k7 = (await firstManifest('korea')).datasets.find((d) => d.name === 'kr-prices')!;
    const k8 = other.results[0]!.manifest!.datasets.find((d) => d.name === 'kr-prices')!;
    expect(k8.sha256).not.toBe(k7.sha256);
  }, 240_000);

  it('publishes the korea datasets with their documented content', async () => {
    // the run's shared demo publish (runCli all --now NOW; read-only)
    const shared = await sharedDemo();
    const snap = (await loadLatest(shared.snapshotsDir, 'korea'))!;
    const fx = snap.datasets.get('fx-rate')!.document as { rate: number; pair: string; source: string };
    expect(fx.pair).toBe('USDKRW');
    expect(fx.rate).toBeGreaterThan(1000);
    expect(fx.rate).toBeLessThan(2000);
    expect(fx.source).toBe('demo');
    const symbols = snap.datasets.get('symbols')!.document as { count: number; divergence_symbols: { listed: boolean }[] };
    expect(symbols.count).toBeGreaterThan(180);
    expect(symbols.divergence_symbols).toHaveLength(25);
    const prices = snap.datasets.get('kr-prices')!;
    expect(prices.entry.rows).toBeGreaterThan(300);
    expect(prices.entry.as_of).toBe('2026-11-20T09:00:00.000Z');
  }, 120_000);

  it('keeps the ground truth in the warehouse and out of the snapshot', async () => {
    // a copy of the run's shared demo publish (runCli all --now NOW): the warehouse is opened for writing
    const { root, settings } = await copyOfSharedDemo('pipeline-test-', { services: ['analytics'] });
    dirs.push(root);
    const snap = (await loadLatest(settings.snapshotsDir, 'analytics'))!;
    for (const d of snap.manifest.datasets) {
      // labels are published (they are the product); the planted truth behind them is not
      for (const truthColumn of ['pattern', 'difficulty', 'group_id', 'truth_label']) {
        expect(d.schema.map((c) => c.name)).not.toContain(truthColumn);
      }
      expect(d.name).not.toMatch(/truth/);
    }
    const wh = await openWarehouse(settings.warehouseDir, 'analytics');
    try {
      const [row] = await queryJson(wh.connection, 'SELECT count(*)::INTEGER AS n FROM demo_truth_buyers');
      expect(Number(row!.n)).toBeGreaterThan(1000);
    } finally {
      wh.close();
    }
  }, 120_000);

  it('rejects a source the service cannot read with exit code 2 and publishes nothing', async () => {
    const settings = tempSettings();
    const { exitCode, results } = await runCli(parseArgs(['korea', '--source', `file:${tmpdir()}`]), settings, quiet);
    expect(exitCode).toBe(2);
    expect(results[0]!.error).toMatch(/--source file:.* is not available yet/);
    expect(await loadLatest(settings.snapshotsDir, 'korea')).toBeNull();
  });

  it('keeps the last good version of a failing dataset, publishes the rest, and says so', async () => {
    const settings = tempSettings();
    const params = parseArgs(['korea', '--now', NOW]);
    const good = await runPipeline(koreaPipeline, params, settings, silent);
    expect(good.ok).toBe(true);
    const broken: ServicePipeline = {
      ...koreaPipeline,
      datasetSteps: koreaPipeline.datasetSteps.map((s) => {
        if (s.dataset === 'fx-rate') return { dataset: 'fx-rate', run: () => Promise.reject(new Error('FX upstream answered HTTP 503')) };
        // a step whose output breaks its dataset's declared shape (catalog: KOREA_DATASET_SHAPES): a document
        // with the rate as text, a table missing columns; the writer refuses both before anything is published
        if (s.dataset === 'stablecoin-premium') {
          return {
            dataset: s.dataset,
            run: (ctx) => {
              const writer = ctx.writer;
              const withTextRate = new Proxy(writer, {
                get(target, key) {
                  if (key === 'writeDocument') {
                    return (name: string, doc: Record<string, unknown>, meta: DatasetMeta) =>
                      target.writeDocument(name, { ...doc, fx_rate: String(doc.fx_rate) }, meta);
                  }
                  const value: unknown = Reflect.get(target, key);
                  return typeof value === 'function' ? value.bind(target) : value;
                },
              });
              return s.run({ ...ctx, writer: withTextRate });
            },
          };
        }
        if (s.dataset === 'kr-prices') {
          return {
            dataset: s.dataset,
            run: (ctx) =>
              ctx.writer.writeTable(
                ctx.connection,
                s.dataset,
                "SELECT 'BTC' AS symbol, 'upbit' AS exchange, 1.0 AS price",
                ctx.meta(s.dataset, ctx.now),
              ),
          };
        }
        return s;
      }),
    };
    const later = parseArgs(['korea', '--now', '2026-11-20T09:05:00Z']);
    const result = await runPipeline(broken, later, settings, silent);
    expect(result.ok).toBe(false);
    expect(result.manifest).not.toBeNull();
    const fxReport = result.reports.find((r) => r.name === 'fx-rate')!;
    expect(fxReport.status).toBe('carried-over');
    expect(fxReport.detail).toMatch(/HTTP 503/);
    const fx = result.manifest!.datasets.find((d) => d.name === 'fx-rate')!;
    expect(fx.carried_over?.reason).toMatch(/HTTP 503/);
    expect(fx.produced_in).toBe(good.manifest!.version);
    expect(fx.as_of).toBe('2026-11-20T09:00:00.000Z');
    const kimchi = result.manifest!.datasets.find((d) => d.name === 'kimchi-premium')!;
    expect(kimchi.as_of).toBe('2026-11-20T09:05:00.000Z');
    expect(summaryTable(result.reports)).toMatch(/korea\/fx-rate\s+-\s+[\d.]+\s+carried-over: kept/);
    // the shape errors: the last good files are served, the reason names the field or column
    const stable = result.manifest!.datasets.find((d) => d.name === 'stablecoin-premium')!;
    expect(stable.produced_in).toBe(good.manifest!.version);
    expect(stable.carried_over?.reason).toMatch(/does not have its declared shape: fx_rate: .*number/);
    const prices = result.manifest!.datasets.find((d) => d.name === 'kr-prices')!;
    expect(prices.produced_in).toBe(good.manifest!.version);
    expect(prices.carried_over?.reason).toMatch(/"kr-prices" column 3 is price DECIMAL.*declared price_krw DOUBLE/);
    const served = await loadLatest(settings.snapshotsDir, 'korea');
    expect(served!.datasets.get('kr-prices')!.entry.schema.map((c) => c.name)).toContain('volume_24h_krw');
  }, 120_000);
});

describe('analytics from files', () => {
  it('publishes every dataset from a researcher\'s CSV files, marked source "file", and reports bad rows with line numbers', async () => {
    const settings = tempSettings();
    const dir = mkdtempSync(join(tmpdir(), 'file-source-'));
    dirs.push(dir);
    await exportWorld(parseExportArgs(['analytics', '--out', dir, '--now', NOW, '--format', 'csv']));
    // one broken payment at the end of the file: line = rows + 2 (header is line 1)
    const txFile = join(dir, 'transactions.csv');
    const lines = readFileSync(txFile, 'utf8').trimEnd().split('\n');
    appendFileSync(txFile, `0xdeadbeef,base,0x${'1'.repeat(40)},0x${'2'.repeat(40)},-5,2026-11-20T08:00:00Z,,\n`);
    const notes: string[] = [];
    const { exitCode, results } = await runCli(parseArgs(['analytics', '--source', `file:${dir}`, '--now', NOW]), settings, {
      progress: new LineProgress((l) => notes.push(l)),
      out: () => {},
    });
    expect(exitCode).toBe(0);
    const manifest = results[0]!.manifest!;
    expect(manifest.datasets.map((d) => d.name)).toEqual([...analyticsPipeline.datasetSteps.map((s) => s.dataset)].sort());
    expect(manifest.datasets.every((d) => d.source === 'file')).toBe(true);
    expect(manifest.notice).toBeNull();
    const report = results[0]!.reports.find((r) => r.name === 'ingest:import_report')!;
    expect(report.rows).toBe(1);
    expect(notes.join('\n')).toContain(`line ${lines.length + 1}: amount: negative`);
  }, 120_000);
});

describe('the pipeline command', () => {
  it('prints plain progress lines off a terminal, a summary table, and exits 0', () => {
    const settings = tempSettings();
    const run = spawnSync(join(process.cwd(), 'node_modules/.bin/tsx'), ['pipelines/cli.ts', 'korea', '--now', NOW], {
      env: { ...process.env, SNAPSHOTS_DIR: settings.snapshotsDir, WAREHOUSE_DIR: settings.warehouseDir },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.status).toBe(0);
    expect(run.stderr).toMatch(/^\d{4}-\d{2}-\d{2}T[\d:.]+Z start korea\/ingest:kr_tickers$/m);
    expect(run.stderr).toMatch(/korea\/kr-prices ok [\d,]+ rows/);
    expect(run.stdout).toMatch(/^step\s+rows\s+seconds\s+status$/m);
    expect(run.stdout).toMatch(/^korea\/fx-rate\s+1\s+[\d.]+\s+ok$/m);
    // the prepare phase (what the datasets share, derived from the raw tables) is named as such
    expect(run.stderr).toMatch(/korea\/prepare:news_store ok/);
    expect(run.stdout).toMatch(/^korea\/prepare:news_translations\s+0\s+[\d.]+\s+ok$/m);
    expect(run.stdout).toMatch(/korea: published \d{8}T\d{9}Z-[0-9a-f]{8}/);
  }, 120_000);

  it('exits 2 with the usage on bad arguments', () => {
    const run = spawnSync(join(process.cwd(), 'node_modules/.bin/tsx'), ['pipelines/cli.ts', 'nope'], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/unknown pipeline "nope"/);
    expect(run.stderr).toMatch(/usage: npm run pipeline/);
  });
});
