/**
 * The type check of the tree (`tsc --noEmit` over tsconfig.json; site/check.test.ts checks the
 * Astro pages) as a test of the suite: it runs beside the other files instead of before them.
 * Alone before vitest it took 25 s with the second core idle. `npm run typecheck` runs it alone.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

function typecheck(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [tsc, '--noEmit', '-p', 'tsconfig.json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('the type check', () => {
  it('tsc --noEmit reports no error', async () => {
    const { code, output } = await typecheck();
    // the errors themselves, file:line: message, as tsc prints them
    expect(output.trim()).toBe('');
    expect(code).toBe(0);
  }, 300_000);
});
