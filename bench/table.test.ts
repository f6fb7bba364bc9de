import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type BenchRow, formatTable, meets, mergeResults, readResults, recordRun, row } from './table.ts';

const at = '2026-11-24T10:00:00.000Z';
const later = '2026-11-24T11:00:00.000Z';
const run = (when: string) => ({ at: when, node: 'v20.0.0', cores: 2 });

describe('row', () => {
  it('takes the ratio against the baseline and judges a ratio target by it', () => {
    const r = row(
      'proxy',
      {
        figure: 'LMDB vs memory',
        value: 850,
        unit: 'req/s',
        baseline: 1000,
        target: { on: 'ratio', op: '>=', limit: 0.9, source: 'issue 13' },
      },
      at,
    );
    expect(r.ratio).toBeCloseTo(0.85);
    expect(r.holds).toBe(false);
    const ok = row(
      'proxy',
      {
        figure: 'LMDB vs memory',
        value: 950,
        unit: 'req/s',
        baseline: 1000,
        target: { on: 'ratio', op: '>=', limit: 0.9, source: 'issue 13' },
      },
      at,
    );
    expect(ok.holds).toBe(true);
  });

  it('judges a value target by the value, whatever the ratio', () => {
    const r = row(
      'korea',
      { figure: 'wall', value: 5.2, unit: 's', baseline: 10, target: { on: 'value', op: '<=', limit: 5, source: 'issue 4' } },
      at,
    );
    expect(r.ratio).toBeCloseTo(0.52);
    expect(r.holds).toBe(false);
    expect(
      row('korea', { figure: 'wall', value: 5, unit: 's', target: { on: 'value', op: '<=', limit: 5, source: 'issue 4' } }, at).holds,
    ).toBe(true);
  });

  it('leaves holds empty when nothing was measured or there is no target, and keeps an explicit ratio', () => {
    expect(
      row('site', { figure: 'wall', value: null, unit: 's', target: { on: 'value', op: '<=', limit: 30, source: 'issue 14' } }, at).holds,
    ).toBeNull();
    const plain = row('site', { figure: 'pages/s', value: 2000, unit: 'pages/s' }, at);
    expect([plain.holds, plain.ratio, plain.baseline, plain.target]).toEqual([null, null, null, null]);
    const rss = row(
      'soak',
      {
        figure: 'RSS',
        value: 110,
        unit: 'MiB',
        baseline: 100,
        ratio: 1.104,
        target: { on: 'ratio', op: '<=', limit: 1.1, source: 'issue 16' },
      },
      at,
    );
    expect(rss.ratio).toBe(1.104);
    expect(rss.holds).toBe(false);
  });

  it('keeps a NaN figure as not measured, with no ratio and no verdict', () => {
    const r = row(
      'proxy',
      { figure: 'p99', value: Number.NaN, unit: 'ms', baseline: 3, target: { on: 'value', op: '<', limit: 20, source: 'issue 13' } },
      at,
    );
    expect([r.value, r.ratio, r.holds]).toEqual([null, null, null]);
    expect(row('proxy', { figure: 'p99', value: 3, unit: 'ms', baseline: Number.NaN }, at).baseline).toBeNull();
  });

  it('meets each operator at its edge', () => {
    const t = (op: '<=' | '<' | '>=' | '=') => ({ on: 'value' as const, op, limit: 20, source: 's' });
    expect([meets(t('<='), 20), meets(t('<'), 20), meets(t('>='), 20), meets(t('='), 20)]).toEqual([true, false, true, true]);
    expect([meets(t('<'), 19.9), meets(t('='), 1), meets(t('<='), Number.NaN)]).toEqual([true, false, null]);
  });
});

describe('mergeResults', () => {
  const rowsOf = (bench: string, figures: string[], when: string): BenchRow[] =>
    figures.map((figure, i) => row(bench, { figure, value: i, unit: '' }, when));

  it("replaces only the run benchmark's rows, keeps the others and orders by benchmark", () => {
    let results = mergeResults(null, 'soak', rowsOf('soak', ['5xx', 'RSS'], at), run(at));
    results = mergeResults(results, 'korea', rowsOf('korea', ['run 1', 'run 2'], at), run(at));
    results = mergeResults(results, 'analytics', rowsOf('analytics', ['10M'], at), run(at));
    expect(results.rows.map((r) => `${r.bench}:${r.figure}`)).toEqual([
      'analytics:10M',
      'korea:run 1',
      'korea:run 2',
      'soak:5xx',
      'soak:RSS',
    ]);

    const again = mergeResults(results, 'korea', rowsOf('korea', ['run 1'], later), run(later));
    expect(again.rows.map((r) => `${r.bench}:${r.figure}`)).toEqual(['analytics:10M', 'korea:run 1', 'soak:5xx', 'soak:RSS']);
    expect(again.rows.find((r) => r.bench === 'korea')!.measuredAt).toBe(later);
    expect(again.rows.find((r) => r.bench === 'soak')!.measuredAt).toBe(at);
    expect(Object.keys(again.runs).sort()).toEqual(['analytics', 'korea', 'soak']);
    expect(again.runs.korea!.at).toBe(later);
    expect(again.updatedAt).toBe(later);
  });
});

describe('results.json', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('records a run into the file, merging with what was there, and reads it back', () => {
    dir = mkdtempSync(join(tmpdir(), 'bench-table-'));
    const file = join(dir, 'results.json');
    expect(readResults(file)).toBeNull();
    recordRun(
      file,
      'site',
      [{ figure: 'wall', value: 31, unit: 's', target: { on: 'value', op: '<=', limit: 30, source: 'issue 14' } }],
      undefined,
      new Date(at),
    );
    const after = recordRun(file, 'korea', [{ figure: 'wall', value: 1.5, unit: 's' }], 'a note', new Date(later));
    const read = readResults(file)!;
    expect(read).toEqual(after);
    expect(read.rows.map((r) => [r.bench, r.holds])).toEqual([
      ['korea', null],
      ['site', false],
    ]);
    expect(read.runs.korea!.note).toBe('a note');
  });

  it('refuses a file that is not a results table', () => {
    dir = mkdtempSync(join(tmpdir(), 'bench-table-'));
    const file = join(dir, 'results.json');
    writeFileSync(file, JSON.stringify({ rows: [{ figure: 'x' }] }));
    expect(() => readResults(file)).toThrow();
    expect(readFileSync(file, 'utf8')).toContain('figure');
  });
});

describe('formatTable', () => {
  it('prints one aligned line per row with the target and NO where it is missed', () => {
    const rows = [
      row(
        'proxy',
        {
          figure: 'free throughput',
          value: 6500,
          unit: 'req/s',
          baseline: 10000,
          target: { on: 'ratio', op: '>=', limit: 0.7, source: 'issue 13' },
        },
        at,
      ),
      row('soak', { figure: '5xx answers', value: 0, unit: '', target: { on: 'value', op: '=', limit: 0, source: 'issue 16' } }, at),
      row('site', { figure: 'pages/s', value: null, unit: 'pages/s' }, at),
    ];
    const lines = formatTable(rows).split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^bench\s+figure\s+value\s+baseline\s+ratio\s+target\s+holds\s+measured$/);
    expect(lines[2]).toContain('6,500 req/s');
    expect(lines[2]).toContain('10,000 req/s');
    expect(lines[2]).toContain('0.650×');
    expect(lines[2]).toContain('ratio ≥ 0.700× (issue 13)');
    expect(lines[2]).toMatch(/\sNO\s/);
    expect(lines[3]).toContain('= 0 (issue 16)');
    expect(lines[3]).toMatch(/\syes\s/);
    expect(lines[4]).toContain('–');
    // the value column is right-aligned: every value ends at the same column
    const valueEnd = lines[1]!.split('  ').slice(0, 3).join('  ').length;
    for (const l of [lines[0]!, ...lines.slice(2)]) expect(l[valueEnd - 1]).not.toBe(' ');
  });
});
