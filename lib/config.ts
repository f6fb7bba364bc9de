/**
 * Settings read from the environment, parsed by one zod schema (ENV below). One place, so a reader
 * sees every knob, what it accepts and its default; the services and pipelines read process.env
 * nowhere else (the tools in bench/ and scripts/ keep a few knobs of their own, such as DEMO_REFRESH).
 * README "Settings" documents each one.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

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
  /**
   * FREE_TIER_LIMIT: free-tier calls per hour per IP address (default 60); 0 = no limit, for local
   * development (exploring /docs and the MCP tools would otherwise lock a developer out for an hour).
   */
  freeTierLimit: number;
  /** DuckDB memory_limit for pipeline runs (default 3GB: keeps a 10M-transaction run under 4 GiB RSS; larger work spills to disk). */
  duckdbMemoryLimit: string | null;
  upstreams: Record<UpstreamSetting, string | null>;
  /**
   * x402 pay-to addresses (PAY_TO_EVM, PAY_TO_SOLANA, PAY_TO_XRPL); null = not configured. With
   * SETTLEMENT=local an unconfigured network is offered with the demo address from
   * payments/networks.ts (marked as such); with SETTLEMENT=facilitator it is not offered at all.
   */
  payTo: { evm: string | null; solana: string | null; xrpl: string | null };
  /** RECEIPT_SIGNING_KEY (hex secp256k1 private key); null = generate one once and keep it in keysDir. */
  receiptSigningKey: Secret | null;
  /** KEYS_DIR: where a generated receipt-signing key is kept (mode 0600). Default: $SNAPSHOTS_DIR/../keys. */
  keysDir: string;
  /**
   * NONCE_DB_DIR: the LMDB database of used and reserved payments (the default nonce store, shared
   * by every process that opens it). Default: $SNAPSHOTS_DIR/../nonces.
   */
  nonceDbDir: string;
  /**
   * SITE_DIR: the public site's builds, one per analytics snapshot version (`builds/<version>/`),
   * and the free datasets' downloads (`downloads/<version>/`). Default: $SNAPSHOTS_DIR/../site.
   */
  siteDir: string;
  /**
   * SITE_BUILD (default on): an analytics publish builds the site for the new version before the
   * version goes live, so the pages always match the API; off publishes data only (no pages).
   */
  siteBuild: boolean;
  /**
   * PROBES (default on): a live analytics run asks every listed resource for its price without
   * paying, at most once per 10 minutes (docs/x402-indexing.md, "Probing services"); off keeps the
   * probe history as it is (a machine that must not make outbound requests to sellers, or a test
   * of the indexers that should not resolve the fixtures' public names).
   */
  probes: boolean;
  /**
   * REDIS_URL (redis:// or rediss://, may carry a password): when set, the nonce store and the
   * free-tier rate limiter live in this Redis, shared by every proxy instance using it; null = LMDB
   * in nonceDbDir and the limiter in memory.
   */
  redisUrl: Secret | null;
  /**
   * NONCE_STORE_ALLOW_VOLATILE=1: run with a REDIS_URL whose Redis does not say it persists its
   * data (appendonly no, or CONFIG and INFO refused). Off (default): the server refuses to start
   * on such a Redis, and paid endpoints stay closed while it is connected to one, because a Redis
   * restart would forget every used payment.
   */
  nonceStoreAllowVolatile: boolean;
  /**
   * BACKUP_URL: where the warehouse history that cannot be recomputed is backed up after each run
   * and restored from when the warehouse is missing (pipelines/backup/); null = no backups. A
   * directory (`file:` URL or path), resolved.
   */
  backupUrl: string | null;
  /** BACKUP_RETENTION: complete backups kept per service at the target (default 12). */
  backupRetention: number;
  /**
   * BACKUP_EVERY_MINUTES: a run backs up only when its service's last backup is at least this old
   * (default 0: after every run); the runs every 5 minutes then cost one backup an hour.
   */
  backupEveryMinutes: number;
  /** TRUST_PROXY=1: build resource URLs from X-Forwarded-Proto / X-Forwarded-Host (only behind a proxy you run). */
  trustProxy: boolean;
  /** FACILITATOR_TIMEOUT_MS: per-call timeout of /verify, /settle and /supported (default 10000). */
  facilitatorTimeoutMs: number;
  /** CRYPTO_WORKERS: worker threads for payment signature checks and receipt signatures ("auto" = inline up to 2 cores, one per core above; 0 = on the event loop). */
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
  /** CI: set (as CI services do, e.g. CI=true) = progress as plain log lines, never the live terminal board. */
  ci: boolean;
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
  'COINONE_BASE_URL',
  'KORBIT_BASE_URL',
  'BINANCE_BASE_URL',
  'OKX_BASE_URL',
  'FX_BASE_URL',
  'FRED_BASE_URL',
  'NAVER_FINANCE_BASE_URL',
  'NEWS_FEEDS_URL',
  'NAVER_NEWS_BASE_URL',
  'X402_DISCOVERY_URL',
  'FACILITATOR_REGISTRY_URL',
  'BASE_RPC_URL',
  'SOLANA_RPC_URL',
  'XRPL_RPC_URL',
  'ANTHROPIC_BASE_URL',
] as const;
export type UpstreamSetting = (typeof UPSTREAM_SETTINGS)[number];

// ------------------------------------------------------------------ the schema

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const SOLANA_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
const XRPL_ADDRESS = /^r[1-9A-HJ-NP-Za-km-z]{24,34}$/;
const PRIVATE_KEY = /^(0x)?[0-9a-fA-F]{64}$/;
const MEMORY_SIZE = /^\d+(\.\d+)?\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i;
const MODEL_NAME = /^[a-z0-9][a-z0-9.\-]{1,80}$/;
const WHOLE_NUMBER = /^\d+$/;
const DOLLARS = /^\d+(\.\d+)?$/;

/** Error text of a setting; the variable's name and the value given are added when it is reported. */
const must = (what: string) => ({ error: `must be ${what}` });

/** Schemas of the settings whose value no message may repeat. */
const secrets = z.registry<{ secret: true }>();

const port = (fallback: number) => {
  const invalid = must('a TCP port number 0-65535');
  return z.coerce.number(invalid).int(invalid).min(0, invalid).max(65535, invalid).default(fallback);
};
const positiveInt = (fallback: number) => {
  const invalid = must('a positive integer');
  return z.coerce.number(invalid).int(invalid).min(1, invalid).default(fallback);
};
const boundedInt = (fallback: number, min: number, max: number) => {
  const invalid = must(`a whole number from ${min} to ${max}`);
  return z
    .string()
    .trim()
    .regex(WHOLE_NUMBER, invalid)
    .transform(Number)
    .pipe(z.number().min(min, invalid).max(max, invalid))
    .default(fallback);
};
const address = (pattern: RegExp, what: string) => z.string().trim().regex(pattern, must(what)).nullable().default(null);
const privateKey = z
  .string()
  .trim()
  .regex(PRIVATE_KEY, must('a secp256k1 private key: 64 hex digits, optionally prefixed 0x'))
  .transform((hex) => new Secret((hex.startsWith('0x') ? hex.slice(2) : hex).toLowerCase()))
  .nullable()
  .default(null)
  .register(secrets, { secret: true });
/** A secret that is not a hex key (API keys, client secrets): any text. */
const secretText = z
  .string()
  .trim()
  .transform((value) => new Secret(value))
  .nullable()
  .default(null)
  .register(secrets, { secret: true });
const modelName = (fallback: string) =>
  z
    .string()
    .trim()
    .regex(MODEL_NAME, must(`a Claude model id like ${fallback}`))
    .default(fallback);
const onOff = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(['1', 'true', 'yes', '0', 'false', 'no'], must('1/true/yes or 0/false/no')))
  .transform((v) => v === '1' || v === 'true' || v === 'yes')
  .default(false);
const text = z.string().nullable().default(null);
/** A Solana keypair: base58 of the 64-byte secret key (Phantom's export) or the JSON byte array of solana-keygen's file. */
const solanaSecretKey = z
  .string()
  .trim()
  .refine(
    (v) => /^[1-9A-HJ-NP-Za-km-z]{64,90}$/.test(v) || /^\[\s*\d{1,3}(\s*,\s*\d{1,3}){63}\s*\]$/.test(v),
    must('a Solana secret key: base58 of 64 bytes, or a JSON array of 64 numbers (a solana-keygen file)'),
  )
  .transform((v) => new Secret(v))
  .nullable()
  .default(null)
  .register(secrets, { secret: true });
/** An XRPL family seed (s..., base58). */
const xrplSeed = z
  .string()
  .trim()
  .regex(/^s[1-9A-HJ-NP-Za-km-z]{24,34}$/, must('an XRPL family seed: s followed by base58 characters'))
  .transform((v) => new Secret(v))
  .nullable()
  .default(null)
  .register(secrets, { secret: true });
const secretSalt = z.string().nullable().default(null).register(secrets, { secret: true });

/**
 * CRYPTO_WORKERS=auto: the crypto on the event loop up to 2 cores, one worker per core above. On 2
 * cores the workers cost more than they give: `npm run bench -- proxy` measured 998 µs of server
 * CPU per paid request inline against 1,577 µs with 2 workers, at the same throughput (1,248 and
 * 1,239 req/s), on 2026-11-28 (issue 30).
 */
function autoWorkers(): number {
  const cores = availableParallelism();
  return cores > 2 ? cores : 0;
}

/**
 * Every environment variable the services, pipelines and pay client read, by name: what each
 * accepts and its default. Unset and blank mean the same (`FOO=` in an env file is "the default").
 */
/** A switch written "on" or "off" (any case), read as a boolean. */
function onOrOff(dflt: boolean) {
  return z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(['on', 'off'], must('"on" or "off"')))
    .transform((v) => v === 'on')
    .default(dflt);
}

const ENV = z.object({
  SNAPSHOTS_DIR: z.string().default('snapshots/store'),
  WAREHOUSE_DIR: z.string().default('warehouse'),
  KOREA_PORT: port(4020),
  ANALYTICS_PORT: port(4021),
  HOST: z.string().default('127.0.0.1'),
  SETTLEMENT: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(['local', 'facilitator'], must('"local" or "facilitator"')))
    .default('local'),
  FACILITATOR_URL: z
    .url({ protocol: /^https?$/, ...must('an http:// or https:// URL') })
    .nullable()
    .default(null),
  FACILITATOR_TIMEOUT_MS: positiveInt(10_000),
  SNAPSHOT_RETENTION: positiveInt(5),
  BACKUP_URL: z
    .string()
    .trim()
    .refine(
      (v) => !/^[a-z][a-z0-9+.-]*:\/\//i.test(v) || v.startsWith('file://'),
      must('a directory: a path or a file: URL (s3:// is not a target yet)'),
    )
    .nullable()
    .default(null),
  BACKUP_RETENTION: boundedInt(12, 1, 1000),
  BACKUP_EVERY_MINUTES: boundedInt(0, 0, 10_080),
  FREE_TIER_LIMIT: boundedInt(60, 0, 1_000_000),
  DUCKDB_MEMORY_LIMIT: z
    .string()
    .trim()
    .refine((v) => v === 'default' || MEMORY_SIZE.test(v), must('a size like 3GB or 2048MiB'))
    .transform((v) => (v === 'default' ? null : v)) // 'default': DuckDB's own, 80% of RAM
    .default('3GB'),
  PAY_TO_EVM: address(EVM_ADDRESS, 'an EVM address (0x followed by 40 hex digits)'),
  PAY_TO_SOLANA: address(SOLANA_ADDRESS, 'a Solana base58 address (32 to 44 characters)'),
  PAY_TO_XRPL: address(XRPL_ADDRESS, 'an XRPL classic address (r followed by 24 to 34 base58 characters)'),
  RECEIPT_SIGNING_KEY: privateKey,
  KEYS_DIR: text,
  NONCE_DB_DIR: text,
  SITE_DIR: text,
  PROBES: onOrOff(true),
  SITE_BUILD: onOrOff(true),
  REDIS_URL: z
    .string()
    .trim()
    .regex(/^rediss?:\/\/\S+$/, must('a redis:// or rediss:// URL like redis://127.0.0.1:6379'))
    .transform((url) => new Secret(url))
    .nullable()
    .default(null)
    .register(secrets, { secret: true }),
  NONCE_STORE_ALLOW_VOLATILE: onOff,
  TRUST_PROXY: onOff,
  CRYPTO_WORKERS: z
    .string()
    .trim()
    .toLowerCase()
    .refine((v) => v === 'auto' || (WHOLE_NUMBER.test(v) && Number(v) <= 64), must('"auto" or a number of worker threads from 0 to 64'))
    .transform((v) => (v === 'auto' ? autoWorkers() : Number(v)))
    .prefault('auto'),
  ANTHROPIC_API_KEY: secretText,
  ANTHROPIC_FAST_MODEL: modelName(DEFAULT_FAST_MODEL),
  ANTHROPIC_DEEP_MODEL: modelName(DEFAULT_DEEP_MODEL),
  ANTHROPIC_DAILY_BUDGET_USD: z
    .string()
    .trim()
    .regex(DOLLARS, must('a positive number of US dollars like 5 or 2.50'))
    .transform(Number)
    .pipe(z.number().positive(must('a positive number of US dollars like 5 or 2.50')))
    .nullable()
    .default(null),
  ANTHROPIC_CONCURRENCY: boundedInt(12, 1, 64),
  ANTHROPIC_TIMEOUT_MS: positiveInt(60_000),
  ANTHROPIC_MAX_RETRIES: boundedInt(3, 0, 10),
  NEWS_FEEDS_FILE: z
    .string()
    .trim()
    .transform((path) => resolve(path))
    .nullable()
    .default(null),
  NAVER_CLIENT_ID: secretText,
  NAVER_CLIENT_SECRET: secretText,
  WASH_PATTERN_SALT: secretSalt,
  CI: z
    .string()
    .trim()
    .transform((v) => !['0', 'false', 'no'].includes(v.toLowerCase()))
    .default(false),
  CODE_VERSION: text,
  PAYER_PRIVATE_KEY: privateKey,
  SOLANA_PAYER_KEY: solanaSecretKey,
  XRPL_PAYER_SEED: xrplSeed,
  ...(Object.fromEntries(UPSTREAM_SETTINGS.map((name) => [name, text])) as Record<UpstreamSetting, typeof text>),
});
type Env = z.output<typeof ENV>;

/** The name of every environment variable ENV reads (README "Settings" documents each). */
export const SETTING_NAMES: readonly string[] = Object.keys(ENV.shape);

/**
 * Parses `env` with `schema` (ENV or a part of it). Every wrong setting is reported at once, one
 * line each: the variable, what it must be, and the value given (secrets only by their length).
 */
function parseEnv<T extends z.ZodType>(schema: T, env: NodeJS.ProcessEnv): z.output<T> {
  const given = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v.trim() !== ''));
  const result = schema.safeParse(given);
  if (result.success) return result.data;
  const lines: string[] = [];
  const reported = new Set<PropertyKey>();
  for (const issue of result.error.issues) {
    const name = issue.path[0];
    if (name === undefined) {
      lines.push(issue.message);
      continue;
    }
    if (reported.has(name)) continue;
    reported.add(name);
    const raw = given[String(name)] ?? '';
    const schema: z.ZodType | undefined = (ENV.shape as Record<string, z.ZodType>)[String(name)];
    const shown =
      schema && secrets.has(schema)
        ? ` (the value given, ${raw.trim().length} characters long, is not shown)`
        : `, got ${JSON.stringify(raw)}`;
    lines.push(`${String(name)} ${issue.message}${shown}`);
  }
  throw new Error(lines.join('\n'));
}

/** The settings of the services and pipelines: everything but the pay client's key, with the rules that span settings. */
const SERVICE_ENV = ENV.omit({ PAYER_PRIVATE_KEY: true, SOLANA_PAYER_KEY: true, XRPL_PAYER_SEED: true }).superRefine((e, ctx) => {
  if (e.SETTLEMENT !== 'facilitator') return;
  if (!e.FACILITATOR_URL) {
    ctx.addIssue({
      code: 'custom',
      path: [],
      message: 'SETTLEMENT=facilitator needs FACILITATOR_URL (the facilitator base URL with /verify and /settle)',
    });
  }
  if (!e.PAY_TO_EVM && !e.PAY_TO_SOLANA && !e.PAY_TO_XRPL) {
    ctx.addIssue({
      code: 'custom',
      path: [],
      message:
        'SETTLEMENT=facilitator moves real funds, so it needs your own pay-to address: set PAY_TO_EVM (base, polygon), ' +
        'PAY_TO_SOLANA and/or PAY_TO_XRPL; networks left unset are not offered',
    });
  }
});

/**
 * PAYER_PRIVATE_KEY, read only by the pay client (scripts/pay.ts); the services never see it, so it
 * is not part of Settings.
 */
export function payerPrivateKey(env: NodeJS.ProcessEnv = process.env): Secret | null {
  return parseEnv(ENV.pick({ PAYER_PRIVATE_KEY: true }), env).PAYER_PRIVATE_KEY;
}

/** The pay client's keys for Solana (SOLANA_PAYER_KEY) and XRPL (XRPL_PAYER_SEED) and the RPC servers it reads; never part of Settings. */
export function payerChainSettings(env: NodeJS.ProcessEnv = process.env): {
  solanaKey: Secret | null;
  xrplSeed: Secret | null;
  solanaRpcUrl: string | null;
  xrplRpcUrl: string | null;
} {
  const e = parseEnv(ENV.pick({ SOLANA_PAYER_KEY: true, XRPL_PAYER_SEED: true, SOLANA_RPC_URL: true, XRPL_RPC_URL: true }), env);
  return { solanaKey: e.SOLANA_PAYER_KEY, xrplSeed: e.XRPL_PAYER_SEED, solanaRpcUrl: e.SOLANA_RPC_URL, xrplRpcUrl: e.XRPL_RPC_URL };
}

export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const e: Omit<Env, 'PAYER_PRIVATE_KEY' | 'SOLANA_PAYER_KEY' | 'XRPL_PAYER_SEED'> = parseEnv(SERVICE_ENV, env);
  const snapshotsDir = resolve(e.SNAPSHOTS_DIR);
  return {
    snapshotsDir,
    warehouseDir: resolve(e.WAREHOUSE_DIR),
    koreaPort: e.KOREA_PORT,
    analyticsPort: e.ANALYTICS_PORT,
    host: e.HOST,
    settlement: e.SETTLEMENT,
    facilitatorUrl: e.FACILITATOR_URL,
    aiMode: e.ANTHROPIC_API_KEY ? 'claude' : 'rules',
    snapshotRetention: e.SNAPSHOT_RETENTION,
    backupUrl: e.BACKUP_URL === null ? null : backupDirOf(e.BACKUP_URL),
    backupRetention: e.BACKUP_RETENTION,
    backupEveryMinutes: e.BACKUP_EVERY_MINUTES,
    freeTierLimit: e.FREE_TIER_LIMIT,
    duckdbMemoryLimit: e.DUCKDB_MEMORY_LIMIT,
    upstreams: Object.fromEntries(UPSTREAM_SETTINGS.map((name) => [name, e[name]])) as Record<UpstreamSetting, string | null>,
    payTo: { evm: e.PAY_TO_EVM, solana: e.PAY_TO_SOLANA, xrpl: e.PAY_TO_XRPL },
    receiptSigningKey: e.RECEIPT_SIGNING_KEY,
    keysDir: resolve(e.KEYS_DIR ?? resolve(snapshotsDir, '..', 'keys')),
    nonceDbDir: resolve(e.NONCE_DB_DIR ?? resolve(snapshotsDir, '..', 'nonces')),
    siteDir: resolve(e.SITE_DIR ?? resolve(snapshotsDir, '..', 'site')),
    siteBuild: e.SITE_BUILD,
    probes: e.PROBES,
    redisUrl: e.REDIS_URL,
    nonceStoreAllowVolatile: e.NONCE_STORE_ALLOW_VOLATILE,
    trustProxy: e.TRUST_PROXY,
    facilitatorTimeoutMs: e.FACILITATOR_TIMEOUT_MS,
    cryptoWorkers: e.CRYPTO_WORKERS,
    anthropic: {
      apiKey: e.ANTHROPIC_API_KEY,
      fastModel: e.ANTHROPIC_FAST_MODEL,
      deepModel: e.ANTHROPIC_DEEP_MODEL,
      dailyBudgetUsd: e.ANTHROPIC_DAILY_BUDGET_USD,
      concurrency: e.ANTHROPIC_CONCURRENCY,
      timeoutMs: e.ANTHROPIC_TIMEOUT_MS,
      maxRetries: e.ANTHROPIC_MAX_RETRIES,
    },
    news: {
      feedsFile: e.NEWS_FEEDS_FILE,
      naverClientId: e.NAVER_CLIENT_ID,
      naverClientSecret: e.NAVER_CLIENT_SECRET,
    },
    washPatternSalt: e.WASH_PATTERN_SALT,
    ci: e.CI,
  };
}

/** BACKUP_URL as a directory: `file:///abs`, `file:rel` or a plain path. */
function backupDirOf(url: string): string {
  if (url.startsWith('file://')) return fileURLToPath(url);
  return resolve(url.startsWith('file:') ? url.slice('file:'.length) : url);
}

/** The code version stamped into manifests: git commit when known, else the package version. */
export function codeVersion(env: NodeJS.ProcessEnv = process.env): string {
  return parseEnv(ENV.pick({ CODE_VERSION: true }), env).CODE_VERSION || gitCommit() || 'unknown';
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
