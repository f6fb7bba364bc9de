/**
 * The type check of the Astro site (site/check.ts, `npm run site:check`): site/src has no type
 * error, and the check reports a page's wrong prop, a wrong value in its frontmatter and a wrong
 * call in its <script> at their lines in the .astro file.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkSiteSources } from './check.ts';

// inside the repository, so the sample resolves astro's types as site/src does (site/.work is ignored)
mkdirSync(join(import.meta.dirname, '.work'), { recursive: true });
const sample = mkdtempSync(join(import.meta.dirname, '.work', 'check-test-'));
afterAll(() => rmSync(sample, { recursive: true, force: true }));

describe('site/check.ts', () => {
  it('finds no type error in site/src', async () => {
    const errors = await checkSiteSources();
    expect(errors.map((e) => `${e.file}:${e.line}: ${e.message}`)).toEqual([]);
  }, 120_000);

  it('reports a wrong prop, a wrong frontmatter value and a wrong script call at their .astro lines', async () => {
    mkdirSync(join(sample, 'components'));
    mkdirSync(join(sample, 'pages'));
    writeFileSync(
      join(sample, 'components', 'Card.astro'),
      '---\ninterface Props {\n  title: string;\n}\nconst { title } = Astro.props;\n---\n<h2>{title}</h2>\n',
    );
    writeFileSync(join(sample, 'components', 'start.ts'), 'export function start(): void {}\n');
    writeFileSync(
      join(sample, 'pages', 'index.astro'),
      [
        '---',
        "import Card from '../components/Card.astro';",
        "const count: number = 'three';",
        '---',
        '<Card title={3} />',
        '<p>{count}</p>',
        '<script>',
        "  import { start } from '../components/start.ts';",
        '  start(1);',
        '</script>',
        '',
      ].join('\n'),
    );
    const errors = await checkSiteSources(sample);
    const page = errors
      .filter((e) => e.file.endsWith('pages/index.astro'))
      .map((e) => [e.line, e.message])
      .sort((a, b) => Number(a[0]) - Number(b[0]));
    expect(page).toEqual([
      [3, "Type 'string' is not assignable to type 'number'."],
      [5, "Type 'number' is not assignable to type 'string'."],
      [9, 'Expected 0 arguments, but got 1.'],
    ]);
    expect(errors).toHaveLength(3);
  }, 120_000);
});
