/**
 * Settings read from the environment (names from DESIGN.md). One place, so a reader sees every knob
 * and its default; nothing else reads process.env.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
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
  /**
   * x402 pay-to addresses (PAY_TO_EVM, PAY_TO_SOLANA, PAY_TO_XRPL); null = not configured. With
   * SETTLEMENT=local an unconfigured network is offered with the demo address from
   * proxy/x402/networks.ts (marked as such); with SETTLEMENT=facilitator it is not offered at all.
   */
  payTo: { evm: string | null; solana: string | null; xrpl: string | null };
  /** RECEIPT_SIGNING_KEY (hex secp256k1 private key); null = generate one once and keep it in keysDir. */
  receiptSigningKey: Secret | null;
  /** KEYS_DIR: where a generated receipt-signing key is kept (mode 0600). Default: $SNAPSHOTS_DIR/../keys. */
  keysDir: string;
  /** TRUST_PROXY=1: build resource URLs from X-Forwarded-Proto / X-Forwarded-Host (only behind a proxy you run). */
  trustProxy: boolean;
  /** FACILITATOR_TIMEOUT_MS: per-call timeout of /verify, /settle and /supported (default 10000). */
  facilitatorTimeoutMs: number;
  /** CRYPTO_WORKERS: worker threads for payment signature checks and receipt signatures ("auto" = one per core with 2+ cores; 0 = on the event loop). */
  cryptoWorkers: number;
  /** The Claude analyst (ANTHROPIC_*); with no key the offline rules analyst writes every AI field. */
  anthropic: AnthropicSettings;
  /** Korean news sources of the live korea pipeline. */
  news: NewsSettings;
  /**
   * WASH_PATTERN_SALT: secret salt of the wash check's anonymous pattern ids (an id hashed without
   * a secret could be matched against public seller addresses); null = a random salt per process.
   */
  washPatternSalt: string | null;
}

export interface AnthropicSettings {
  /** ANTHROPIC_API_KEY; null = the rules analyst. Never logged, never put in a prompt. */
  apiKey: Secret | null;
  /** ANTHROPIC_FAST_MODEL: translation, classification, news summaries, the light divergence summary. */
  fastModel: string;
  /** ANTHROPIC_DEEP_MODEL: market read, sentiment, the deep divergence analysis and the macro note. */
  deepModel: string;
  /** ANTHROPIC_DAILY_BUDGET_USD: model calls stop for the rest of the UTC day once this much is spent; null = no limit. */
  dailyBudgetUsd: number | null;
  /**
   * ANTHROPIC_CONCURRENCY: model calls in flight at once (default 12: a run with 50 new articles and
   * every product takes about 3.6 s at 300 ms a call; 16 is no faster, the summaries wait for the
   * translations). Lower it for an account with a low request rate; 429s are retried anyway.
   */
  concurrency: number;
  /** ANTHROPIC_TIMEOUT_MS: per-attempt timeout of one model call (default 60000). */
  timeoutMs: number;
  /** ANTHROPIC_MAX_RETRIES: retries of one call on 429, 529 (overloaded), 5xx and timeouts, honouring retry-after (default 3). */
  maxRetries: number;
}

export interface NewsSettings {
  /**
   * NEWS_FEEDS_FILE: a JSON file listing the feeds to read (replaces the built-in list of Korean
   * outlets); null = the built-in list. NEWS_FEEDS_URL (in `upstreams`) moves every feed to one base
   * URL (a mirror, or loopback in tests).
   */
  feedsFile: string | null;
  /** NAVER_CLIENT_ID / NAVER_CLIENT_SECRET: the Naver news search API is used only when both are set. */
  naverClientId: Secret | null;
  naverClientSecret: Secret | null;
}

/** Defaults of the two model settings (README "Settings"). */
export const DEFAULT_FAST_MODEL = 'claude-haiku-4-5';
export const DEFAULT_DEEP_MODEL = 'claude-sonnet-4-6';

/**
 * A secret setting (private key). Printing, logging or JSON-serialising it shows "[redacted]";
 * only `reveal()` gives the value, and error messages about it never include it.
 */
export class Secret {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  reveal(): string {
    return this.#value;
  }
  toString(): string {
    return '[redacted]';
  }
  toJSON(): string {
    return '[redacted]';
  }
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'Secret([redacted])';
  }
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
  'NAVER_NEWS_BASE_URL',
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

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const SOLANA_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
const XRPL_ADDRESS = /^r[1-9A-HJ-NP-Za-km-z]{24,34}$/;
const PRIVATE_KEY = /^(0x)?[0-9a-fA-F]{64}$/;

function address(env: NodeJS.ProcessEnv, name: string, pattern: RegExp, what: string): string | null {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return null;
  if (!pattern.test(raw)) throw new Error(`${name} must be ${what}, got "${raw}"`);
  return raw;
}

/** A hex private key setting; the message on a bad value never repeats the value. */
function privateKey(env: NodeJS.ProcessEnv, name: string): Secret | null {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return null;
  if (!PRIVATE_KEY.test(raw)) {
    throw new Error(`${name} must be a secp256k1 private key: 64 hex digits, optionally prefixed 0x (the value given, ${raw.length} characters long, is not shown)`);
  }
  return new Secret(raw.startsWith('0x') ? raw.slice(2).toLowerCase() : raw.toLowerCase());
}

function cryptoWorkers(value: string | undefined): number {
  const text = (value ?? '').trim().toLowerCase();
  if (text === '' || text === 'auto') {
    const cores = availableParallelism();
    return cores >= 2 ? cores : 0;
  }
  if (!/^\d+$/.test(text) || Number(text) > 64) throw new Error(`CRYPTO_WORKERS must be "auto" or a number of worker threads from 0 to 64, got "${value}"`);
  return Number(text);
}

function positiveNumber(env: NodeJS.ProcessEnv, name: string): number | null {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return null;
  const n = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || !(n > 0)) throw new Error(`${name} must be a positive number of US dollars like 5 or 2.50, got "${raw}"`);
  return n;
}

function boundedInt(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) throw new Error(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  return Number(raw);
}

const MODEL_NAME = /^[a-z0-9][a-z0-9.\-]{1,80}$/;
function modelName(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (!MODEL_NAME.test(raw)) throw new Error(`${name} must be a Claude model id like ${fallback}, got "${raw}"`);
  return raw;
}

/** A secret that is not a hex key (API keys, client secrets): any non-empty text, never shown. */
function secretText(env: NodeJS.ProcessEnv, name: string): Secret | null {
  const raw = env[name]?.trim();
  return raw ? new Secret(raw) : null;
}

function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '' || raw === '0' || raw === 'false' || raw === 'no') return false;
  if (raw === '1' || raw === 'true' || raw === 'yes') return true;
  throw new Error(`${name} must be 1/true/yes or 0/false/no, got "${env[name]}"`);
}

/**
 * PAYER_PRIVATE_KEY, read only by the pay client (scripts/pay.ts); the services never see it, so it
 * is not part of Settings.
 */
export function payerPrivateKey(env: NodeJS.ProcessEnv = process.env): Secret | null {
  return privateKey(env, 'PAYER_PRIVATE_KEY');
}

export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const settlement = (env.SETTLEMENT ?? 'local').toLowerCase();
  if (settlement !== 'local' && settlement !== 'facilitator') {
    throw new Error(`SETTLEMENT must be "local" or "facilitator", got "${env.SETTLEMENT}"`);
  }
  if (settlement === 'facilitator' && !env.FACILITATOR_URL) {
    throw new Error('SETTLEMENT=facilitator needs FACILITATOR_URL (the facilitator base URL with /verify and /settle)');
  }
  const payTo = {
    evm: address(env, 'PAY_TO_EVM', EVM_ADDRESS, 'an EVM address (0x followed by 40 hex digits)'),
    solana: address(env, 'PAY_TO_SOLANA', SOLANA_ADDRESS, 'a Solana base58 address (32 to 44 characters)'),
    xrpl: address(env, 'PAY_TO_XRPL', XRPL_ADDRESS, 'an XRPL classic address (r followed by 24 to 34 base58 characters)'),
  };
  if (settlement === 'facilitator' && !payTo.evm && !payTo.solana && !payTo.xrpl) {
    throw new Error(
      'SETTLEMENT=facilitator moves real funds, so it needs your own pay-to address: set PAY_TO_EVM (base, polygon), ' +
        'PAY_TO_SOLANA and/or PAY_TO_XRPL; networks left unset are not offered',
    );
  }
  const snapshotsDir = resolve(env.SNAPSHOTS_DIR || 'snapshots/store');
  const upstreams = Object.fromEntries(UPSTREAM_SETTINGS.map((k) => [k, env[k] || null])) as Record<
    UpstreamSetting,
    string | null
  >;
  return {
    snapshotsDir,
    warehouseDir: resolve(env.WAREHOUSE_DIR || 'warehouse'),
    koreaPort: port(env, 'KOREA_PORT', 4020),
    analyticsPort: port(env, 'ANALYTICS_PORT', 4021),
    host: env.HOST || '127.0.0.1',
    settlement,
    facilitatorUrl: env.FACILITATOR_URL || null,
    aiMode: env.ANTHROPIC_API_KEY?.trim() ? 'claude' : 'rules',
    snapshotRetention: positiveInt(env, 'SNAPSHOT_RETENTION', 5),
    duckdbMemoryLimit: memoryLimit(env),
    upstreams,
    payTo,
    receiptSigningKey: privateKey(env, 'RECEIPT_SIGNING_KEY'),
    keysDir: resolve(env.KEYS_DIR || resolve(snapshotsDir, '..', 'keys')),
    trustProxy: flag(env, 'TRUST_PROXY'),
    facilitatorTimeoutMs: positiveInt(env, 'FACILITATOR_TIMEOUT_MS', 10_000),
    cryptoWorkers: cryptoWorkers(env.CRYPTO_WORKERS),
    anthropic: {
      apiKey: secretText(env, 'ANTHROPIC_API_KEY'),
      fastModel: modelName(env, 'ANTHROPIC_FAST_MODEL', DEFAULT_FAST_MODEL),
      deepModel: modelName(env, 'ANTHROPIC_DEEP_MODEL', DEFAULT_DEEP_MODEL),
      dailyBudgetUsd: positiveNumber(env, 'ANTHROPIC_DAILY_BUDGET_USD'),
      concurrency: boundedInt(env, 'ANTHROPIC_CONCURRENCY', 12, 1, 64),
      timeoutMs: positiveInt(env, 'ANTHROPIC_TIMEOUT_MS', 60_000),
      maxRetries: boundedInt(env, 'ANTHROPIC_MAX_RETRIES', 3, 0, 10),
    },
    news: {
      feedsFile: env.NEWS_FEEDS_FILE?.trim() ? resolve(env.NEWS_FEEDS_FILE.trim()) : null,
      naverClientId: secretText(env, 'NAVER_CLIENT_ID'),
      naverClientSecret: secretText(env, 'NAVER_CLIENT_SECRET'),
    },
    washPatternSalt: env.WASH_PATTERN_SALT?.trim() || null,
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
