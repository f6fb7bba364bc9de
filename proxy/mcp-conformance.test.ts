/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, its CLI as published)
 * against both services as proxy/serve.ts builds them, each on a loopback port. The scenarios run
 * are the server scenarios that apply to a stateless, tools-only server; the others need the
 * suite's own test tools (tools-call-*, json-schema-2020-12), resources, prompts, logging,
 * completion, elicitation or sessions with SSE streams, none of which these servers offer.
 *
 * The CLI imports fs.globSync (Node 22) for its client-auth scenarios only; on Node 20 it runs under
 * testing/conformance-node20.mjs, which stubs that one import.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceName } from '../catalog/types.ts';
import { type ServedApp, serveOnLoopback } from '../payments/testing/paywall.ts';
import { sharedDemoSnapshots } from '../pipelines/testing/shared-demo.ts';
import { type DemoApps, demoApps } from './testing/demo-apps.ts';

const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'] as const;
const SERVICES = ['korea', 'analytics'] as const;

const CLI = join(dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')), 'dist/index.js');
const NODE20_SHIM = fileURLToPath(new URL('./testing/conformance-node20.mjs', import.meta.url));

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

let apps: DemoApps;
const served = new Map<ServiceName, ServedApp>();
let results: string;

beforeAll(async () => {
  apps = await demoApps(await sharedDemoSnapshots('mcp-conformance-'), '2026-11-20T09:00:30Z', 'mcp-conformance-salt');
  for (const service of SERVICES) served.set(service, await serveOnLoopback(apps.app(service)));
  results = mkdtempSync(join(tmpdir(), 'mcp-conformance-results-'));
}, 240_000);
afterAll(async () => {
  for (const s of served.values()) await s.close();
  apps?.close();
  if (results) rmSync(results, { recursive: true, force: true });
});

/** Every checks.json under `dir` (the CLI names its result folder after the scenario and the time). */
function checksUnder(dir: string): Check[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('checks.json'))
    .flatMap((path) => JSON.parse(readFileSync(join(dir, path), 'utf8')) as Check[]);
}

/** Runs one scenario of the CLI against `url` and returns its checks; the CLI's exit status is the checks' verdict, read from them. */
async function runScenario(url: string, scenario: string, outputDir: string): Promise<Check[]> {
  await promisify(execFile)(
    process.execPath,
    ['--import', NODE20_SHIM, CLI, 'server', '--url', url, '--scenario', scenario, '-o', outputDir],
    {
      timeout: 30_000,
      env: { ...process.env, NO_COLOR: '1' },
    },
  ).catch((err: Error & { stdout?: string }) => {
    // a failed check exits 1: its checks.json says which; anything else (no checks.json) is reported below
    if (!String(err.stdout ?? '').includes('Test Results')) throw err;
  });
  return checksUnder(outputDir);
}

describe.each(SERVICES)('%s: official MCP conformance server scenarios', (service) => {
  it.concurrent.each(SCENARIOS)('%s passes', async (scenario) => {
    const outputDir = join(results, service, scenario);
    const checks = await runScenario(`${served.get(service)!.url}/mcp`, scenario, outputDir);
    expect(checks.length, `${scenario} wrote no checks`).toBeGreaterThan(0);
    const notPassed = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
    expect(notPassed.map((c) => `${c.id}: ${c.status} ${c.errorMessage ?? ''}`)).toEqual([]);
    expect(checks.some((c) => c.status === 'SUCCESS')).toBe(true);
  });
});
