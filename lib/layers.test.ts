/**
 * The layering rules of .dependency-cruiser.cjs, checked over the tree: imports flow downhill and
 * nothing imports in a cycle. Show the same list from a shell with
 *   npm run layers
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { cruise, type ICruiseOptions, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const LAYERS = ['catalog', 'classifier', 'lib', 'payments', 'sources', 'snapshots', 'pipelines', 'site', 'proxy', 'bench', 'scripts'];

/** One line per violation: rule, then the import (or the whole cycle). */
async function violations(dirs: string[], options: ICruiseOptions, tsConfig: object = {}): Promise<string[]> {
  const result = await cruise(dirs, options, {}, { tsConfig });
  const output = result.output as ICruiseResult;
  return (output.summary.violations ?? [])
    .map((v) => `${v.rule.name}: ${v.from} → ${v.cycle?.length ? v.cycle.map((c) => c.name).join(' → ') : v.to}`)
    .sort();
}

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

describe('layers', () => {
  it('the tree imports downhill only, with no cycle', async () => {
    const options = await extractDepcruiseOptions(CONFIG);
    expect(await violations(LAYERS, { ...options, baseDir: ROOT }, extractTSConfig(join(ROOT, 'tsconfig.json')))).toEqual([]);
  });

  it('the rules bite: an uphill import, a type-only cycle, a bypassed reader, a testing helper in production, payments importing the proxy or its server the payer are reported; a test may reach up', async () => {
    const root = mkdtempSync(join(tmpdir(), 'layers-'));
    temps.push(root);
    const files: Record<string, string> = {
      'lib/clock.ts': `import { run } from '../pipelines/runner.ts';\nexport const clock = run;\n`,
      // a test may reach up to wire what it tests
      'lib/clock.test.ts': `import { run } from '../pipelines/runner.ts';\nexport const probe = run;\n`,
      'pipelines/runner.ts': `export const run = 1;\n`,
      'sources/a.ts': `import type { B } from './b.ts';\nexport interface A { b?: B }\n`,
      'sources/b.ts': `import type { A } from './a.ts';\nexport interface B { a?: A }\n`,
      'sources/c.ts': `import { fake } from './testing/fake.ts';\nexport const c = fake;\n`,
      'sources/testing/fake.ts': `export const fake = 1;\n`,
      'snapshots/writer.ts': `export const publish = 1;\n`,
      'snapshots/reader.ts': `export const load = 1;\n`,
      'site/page.ts': `import { publish } from '../snapshots/writer.ts';\nimport { load } from '../snapshots/reader.ts';\nexport const page = [publish, load];\n`,
      // payments/ sits above lib/ and catalog/ only, and its server side never imports the payer
      'proxy/endpoint.ts': `export interface Answer { status: number }\n`,
      'payments/paywall.ts': `import type { Answer } from '../proxy/endpoint.ts';\nimport { pay } from './client/payer.ts';\nexport type A = Answer;\nexport const p = pay;\n`,
      'payments/client/payer.ts': `export const pay = 1;\n`,
      'payments/paywall.test.ts': `import { pay } from './client/payer.ts';\nimport type { Answer } from '../proxy/endpoint.ts';\nexport type A = Answer;\nexport const p = pay;\n`,
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    const options = await extractDepcruiseOptions(CONFIG);
    const found = await violations(['lib', 'payments', 'pipelines', 'proxy', 'sources', 'snapshots', 'site'], {
      ...options,
      baseDir: root,
    });
    expect(found).toEqual([
      'lib-is-the-bottom: lib/clock.ts → pipelines/runner.ts',
      'no-cycles: sources/a.ts → sources/b.ts → sources/a.ts',
      'no-test-code-in-production: sources/c.ts → sources/testing/fake.ts',
      'payments-above-catalog-only: payments/paywall.ts → proxy/endpoint.ts',
      'payments-server-not-client: payments/paywall.ts → payments/client/payer.ts',
      'site-through-the-reader: site/page.ts → snapshots/writer.ts',
    ]);
  });
});
