/**
 * Settings read from the environment (names from DESIGN.md). One place, so a reader sees every knob
 * and its default; nothing else reads process.env.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export type SettlementMode = 'local' | 'facilitator';
export type AiMode = 'claude' | 'rules';

export interface Settings {
  snapshotsDir: string;
  warehouseDir: string;
  koreaPort: number;
  analyticsPort: number;
  host: string;
  settlement: SettlementMode;
  facilitatorUrl: string | null;
  aiMode: AiMode;
  /** How many old snapshot versions to keep besides the one latest.json points at. */
  snapshotRetention: number;
  /** DuckDB memory_limit for pipeline runs (default 3GB: keeps a 10M-transaction run under 4 GiB RSS; larger work spills to disk). */
  duckdbMemoryLimit: string | null;
  upstreams: Record<UpstreamSetting, string | null>;
}

export const UPSTREAM_SETTINGS = [
  'UPBIT_BASE_URL',
  'BITHUMB_BASE_URL',
  'BINANCE_BASE_URL',
  'OKX_BASE_URL',
  'FX_BASE_URL',
  'FRED_BASE_URL',
  'NAVER_FINANCE_BASE_URL',
  'NEWS_FEEDS_URL',
  'X402_DISCOVERY_URL',
  'BASE_RPC_URL',
  'SOLANA_RPC_URL',
  'ANTHROPIC_BASE_URL',
] as const;
export type UpstreamSetting = (typeof UPSTREAM_SETTINGS)[number];

function port(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    throw new Error(`${name} must be a TCP port number 0-65535, got "${raw}"`);
  }
  return n;
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return n;
}

function memoryLimit(env: NodeJS.ProcessEnv): string | null {
  const raw = env.DUCKDB_MEMORY_LIMIT;
  if (raw === undefined || raw === '') return '3GB';
  if (raw === 'default') return null; // DuckDB's own: 80% of RAM
  if (!/^\d+(\.\d+)?\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i.test(raw.trim())) {
    throw new Error(`DUCKDB_MEMORY_LIMIT must be a size like 3GB or 2048MiB, got "${raw}"`);
  }
  return raw.trim();
}

export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const settlement = (env.SETTLEMENT ?? 'local').toLowerCase();
  if (settlement !== 'local' && settlement !== 'facilitator') {
    throw new Error(`SETTLEMENT must be "local" or "facilitator", got "${env.SETTLEMENT}"`);
  }
  if (settlement === 'facilitator' && !env.FACILITATOR_URL) {
    throw new Error('SETTLEMENT=facilitator needs FACILITATOR_URL (the facilitator base URL with /verify and /settle)');
  }
  const upstreams = Object.fromEntries(UPSTREAM_SETTINGS.map((k) => [k, env[k] || null])) as Record<
    UpstreamSetting,
    string | null
  >;
  return {
    snapshotsDir: resolve(env.SNAPSHOTS_DIR || 'snapshots/store'),
    warehouseDir: resolve(env.WAREHOUSE_DIR || 'warehouse'),
    koreaPort: port(env, 'KOREA_PORT', 4020),
    analyticsPort: port(env, 'ANALYTICS_PORT', 4021),
    host: env.HOST || '127.0.0.1',
    settlement,
    facilitatorUrl: env.FACILITATOR_URL || null,
    aiMode: env.ANTHROPIC_API_KEY ? 'claude' : 'rules',
    snapshotRetention: positiveInt(env, 'SNAPSHOT_RETENTION', 5),
    duckdbMemoryLimit: memoryLimit(env),
    upstreams,
  };
}

/** The code version stamped into manifests: git commit when known, else the package version. */
export function codeVersion(env: NodeJS.ProcessEnv = process.env): string {
  return env.CODE_VERSION || gitCommit() || 'unknown';
}

let cachedCommit: string | null | undefined;
function gitCommit(): string | null {
  if (cachedCommit !== undefined) return cachedCommit;
  try {
    // Read .git directly: no child process, works in CI clones.
    const head = readFileSync(resolve('.git/HEAD'), 'utf8').trim();
    if (!head.startsWith('ref: ')) return (cachedCommit = head.slice(0, 12));
    const ref = head.slice(5);
    let sha: string | null = null;
    try {
      sha = readFileSync(resolve('.git', ref), 'utf8').trim();
    } catch {
      const packed = readFileSync(resolve('.git/packed-refs'), 'utf8');
      const line = packed.split('\n').find((l) => l.endsWith(' ' + ref));
      sha = line ? line.split(' ')[0]! : null;
    }
    return (cachedCommit = sha ? sha.slice(0, 12) : null);
  } catch {
    return (cachedCommit = null);
  }
}
