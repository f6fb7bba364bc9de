import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../lib/args.ts';
import { exportWorld, parseExportArgs } from './cli.ts';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

describe('demo-world export', () => {
  it('writes the analytics world in the file-import layout with the truth beside it, reproducibly', async () => {
    const a = mkdtempSync(join(tmpdir(), 'world-a-'));
    const b = mkdtempSync(join(tmpdir(), 'world-b-'));
    dirs.push(a, b);
    const argv = ['analytics', '--now', '2026-11-20T09:00:00Z', '--seed', '3', '--format', 'csv'];
    const first = await exportWorld(parseExportArgs([...argv, '--out', a]));
    await exportWorld(parseExportArgs([...argv, '--out', b]));
    expect(first.map((f) => f.file.slice(a.length + 1))).toEqual([
      'services.csv',
      'transactions.csv',
      'funding.csv',
      'probes.csv',
      'truth/buyers.csv',
      'truth/pairs.csv',
      'truth/services.csv',
    ]);
    for (const f of first) expect(sha(f.file)).toBe(sha(b + f.file.slice(a.length)));
    const header = readFileSync(join(a, 'transactions.csv'), 'utf8').split('\n', 1)[0];
    expect(header).toBe('tx_hash,chain,buyer,seller_address,amount,time,resource_url,facilitator');
    expect(readFileSync(join(a, 'services.csv'), 'utf8').split('\n', 1)[0]).toBe(
      'chain,seller_address,resource_url,name,description,category,price_amount,first_seen',
    );
    const instance = await DuckDBInstance.create(':memory:');
    const c = await instance.connect();
    const rows = (
      await c.runAndReadAll(`SELECT count(*)::INTEGER AS n, min(time) AS t FROM read_csv('${join(a, 'transactions.csv')}')`)
    ).getRowObjectsJson();
    expect(Number(rows[0]!.n)).toBe(first[1]!.rows);
    c.closeSync();
    instance.closeSync();
    const world = JSON.parse(readFileSync(join(a, 'world.json'), 'utf8')) as { seed: number; notice: string };
    expect(world.seed).toBe(3);
    expect(world.notice).toMatch(/Synthetic/);
  }, 60_000);

  it('rejects bad arguments clearly', () => {
    expect(() => parseExportArgs([])).toThrow(/--out DIR is required/);
    expect(() => parseExportArgs(['--out', '/tmp/x', 'crypto'])).toThrow(UsageError);
    expect(() => parseExportArgs(['--out', '/tmp/x', '--format', 'xlsx'])).toThrow(/parquet or csv/);
  });
});
