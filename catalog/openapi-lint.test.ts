/**
 * Both OpenAPI documents pass Redocly's linter (the locally installed @redocly/cli, with the
 * repository's redocly.yaml) with zero errors. Offline: the documents are written to a temporary
 * directory and have no remote $ref, telemetry and the update check are switched off, and the run
 * has a time limit, so a linter that tried the network would fail the test instead of hanging it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { openApiDocument } from './openapi.ts';

const run = promisify(execFile);
const REDOCLY = fileURLToPath(new URL('../node_modules/.bin/redocly', import.meta.url));
const CONFIG = fileURLToPath(new URL('../redocly.yaml', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: Array<{ pointer: string }>;
}

async function lint(file: string): Promise<{ totals: { errors: number; warnings: number }; problems: LintProblem[] }> {
  const result = await run(REDOCLY, ['lint', file, '--config', CONFIG, '--format=json'], {
    cwd: dir,
    timeout: 90_000,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
  }).catch((err: { stdout?: string; code?: number; killed?: boolean }) => {
    // lint exits 1 when it finds errors; its report is still on stdout
    if (err.killed) throw new Error('redocly lint did not finish within 90 s');
    return { stdout: err.stdout ?? '' };
  });
  return JSON.parse(result.stdout);
}

describe.each(['korea', 'analytics'] as const)('%s OpenAPI document', (service) => {
  it('passes redocly lint with zero errors', async () => {
    const file = join(dir, `${service}.openapi.json`);
    writeFileSync(file, JSON.stringify(openApiDocument(service, { baseUrl: 'http://127.0.0.1:4020' }), null, 2));
    const report = await lint(file);
    const errors = report.problems
      .filter((p) => p.severity === 'error')
      .map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
    expect(errors).toEqual([]);
    expect(report.totals.errors).toBe(0);
    // what is left are warnings (korea: no info.license); printed so a new one is noticed
    console.info(
      `${service}: redocly lint, ${report.totals.warnings} warning(s): ${report.problems.map((p) => p.ruleId).join(', ') || 'none'}`,
    );
  }, 120_000);
});
