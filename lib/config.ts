/**
 * Settings read from the environment, parsed by one zod schema (ENV below). One place, so a reader
 * sees every knob, what it accepts and its default; the services and pipelines read process.env
 * nowhere else (the tools in bench/ and scripts/ keep a few knobs of their own, such as DEMO_REFRESH).
 * README "Settings" documents each one.
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
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
  /**
   * The facilitators of SETTLEMENT=facilitator: FACILITATOR_URL for every network (null = none)
   * and FACILITATOR_URL_<NETWORK> overrides, each with its credentials (FACILITATOR_AUTH[_<NETWORK>],
   * CDP_API_KEY_ID / CDP_API_KEY_SECRET). Empty with SETTLEMENT=local.
   */
  facilitators: { fallback: FacilitatorSettings | null; byNetwork: Partial<Record<FacilitatorNetwork, FacilitatorSettings>> };
  aiMode: AiMode;
  /** How many old snapshot versions to keep besides the one latest.json points at. */
  snapshotRetention: number;
  /**
   * SNAPSHOTS_PULL_URL: a published snapshot source (the layout of SNAPSHOTS_DIR served over HTTPS)
   * that `npm run serve` follows, pulling each new version into snapshotsDir (snapshots/pull.ts);
   * null = the pipelines publish into snapshotsDir on this machine.
   */
  snapshotsPull: SnapshotsPullSettings | null;
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
  /**
   * KOREA_PUBLIC_URL, ANALYTICS_PUBLIC_URL: the origin clients reach each service at (e.g.
   * https://korea.example.com); set, every resource URL, 402, Bazaar entry, receipt and document
   * link uses it whatever the request's Host or forwarded headers say; null: from the request.
   */
  publicUrl: { korea: string | null; analytics: string | null };
  /**
   * MCP_ALLOWED_HOSTS: the host names /mcp answers under (its DNS-rebinding protection), besides
   * localhost, 127.0.0.1 and [::1], which it always answers under; 'any' = no Host/Origin check
   * (MCP_ALLOWED_HOSTS=*). The hosts of KOREA_PUBLIC_URL and ANALYTICS_PUBLIC_URL are added. Unset
   * and no public URL: only the localhost names, which needs HOST to be a loopback address.
   */
  mcpAllowedHosts: readonly string[] | 'any';
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

export interface SnapshotsPullSettings {
  /** SNAPSHOTS_PULL_URL: https (http only on a loopback host). */
  url: string;
  /** SNAPSHOTS_PULL_TOKEN: sent as `Authorization: Bearer`; null = none. */
  token: Secret | null;
  /** SNAPSHOTS_PULL_INTERVAL_MS: time between two checks of the source (default 60000). */
  intervalMs: number;
  /** SNAPSHOTS_PULL_TIMEOUT_MS: connect, response-header and in-body pause timeout (default 30000). */
  timeoutMs: number;
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

/**
 * The networks a facilitator can be set for one by one (FACILITATOR_URL_BASE...): the networks the
 * services offer (catalog/networks.ts SERVICE_NETWORKS; payments/facilitators.test.ts checks the
 * two agree), with the PAY_TO_* family that offers each.
 */
export const FACILITATOR_NETWORKS = { base: 'evm', polygon: 'evm', solana: 'solana', xrpl: 'xrpl' } as const;
export type FacilitatorNetwork = keyof typeof FACILITATOR_NETWORKS;

/**
 * How a facilitator is called: without credentials, with a CDP JWT per call (Coinbase's
 * facilitator; signed by @coinbase/cdp-sdk), or with one fixed header (a bearer token or an API key).
 */
export type FacilitatorAuth =
  | { kind: 'none' }
  | { kind: 'cdp'; apiKeyId: string; apiKeySecret: Secret }
  | { kind: 'header'; name: string; value: Secret };

export interface FacilitatorSettings {
  /** Base URL; /verify, /settle and /supported are appended. */
  url: string;
  auth: FacilitatorAuth;
  /** The settings that hold its credentials, for messages (never their values): 'CDP_API_KEY_ID and CDP_API_KEY_SECRET', 'FACILITATOR_AUTH_SOLANA'. */
  credentials: string;
}

/** Coinbase's facilitator host: a URL there authenticates with CDP JWTs unless FACILITATOR_AUTH says otherwise. */
export const CDP_API_HOST = 'api.cdp.coinbase.com';

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
/** A host name or address as a Host header names it, without the port: api.example.com, 10.0.0.5, [fd00::1]. */
const HOST_NAME = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$|^\[[0-9a-f:.]+\]$/;
/** HOST values that bind to loopback only, where /mcp needs no host name besides the localhost ones. */
const LOOPBACK_HOST = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|\[::1\])$/i;
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
const httpUrl = z
  .url({ protocol: /^https?$/, ...must('an http:// or https:// URL') })
  .nullable()
  .default(null);
/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers the facilitator client sets itself; an auth header may not replace them. */
const RESERVED_HEADERS = new Set(['accept', 'content-type', 'content-length', 'host', 'transfer-encoding', 'connection']);
/**
 * FACILITATOR_AUTH[_<NETWORK>]: "none", "cdp", or one header line "Name: value". Secret as a
 * whole, since the header's value is a token; null = the default for its URL.
 */
const facilitatorAuth = z
  .string()
  .trim()
  .transform((v, ctx): { kind: 'none' } | { kind: 'cdp' } | { kind: 'header'; name: string; value: Secret } => {
    const word = v.toLowerCase();
    if (word === 'none' || word === 'cdp') return { kind: word };
    const colon = v.indexOf(':');
    const name = colon > 0 ? v.slice(0, colon).trim() : '';
    const value = colon > 0 ? v.slice(colon + 1).trim() : '';
    if (!HEADER_NAME.test(name) || value === '' || /[\r\n]/.test(value)) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be "none", "cdp", or one header line "Name: value" such as "Authorization: Bearer <token>" or "X-API-Key: <key>"',
      });
      return z.NEVER;
    }
    if (RESERVED_HEADERS.has(name.toLowerCase())) {
      ctx.addIssue({ code: 'custom', message: `must name a header the facilitator client does not set itself (not ${name})` });
      return z.NEVER;
    }
    return { kind: 'header', name, value: new Secret(value) };
  })
  .nullable()
  .default(null)
  .register(secrets, { secret: true });
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
/**
 * CDP_API_KEY_SECRET: the secret of a CDP Secret API key, as the CDP portal shows it: Ed25519
 * (base64 of 64 bytes, seed then public key) or ECDSA (a PEM EC P-256 key; newlines may be written
 * as \n). Checked here so a damaged key stops the start naming this setting: the two halves of an
 * Ed25519 key must belong together. An EC key is kept as PKCS#8 PEM, the form
 * @coinbase/cdp-sdk's generateJwt reads (it refuses the "BEGIN EC PRIVATE KEY" form the portal gives).
 */
const cdpApiKeySecret = z
  .string()
  .trim()
  .transform((v, ctx) => {
    const text = v.replace(/\\n/g, '\n');
    if (text.includes('-----BEGIN')) {
      try {
        const key = createPrivateKey({ key: text, format: 'pem' });
        if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') {
          return new Secret(key.export({ type: 'pkcs8', format: 'pem' }).toString());
        }
      } catch {
        /* reported below */
      }
      ctx.addIssue({ code: 'custom', message: 'must be a CDP API key secret: this PEM block is not an EC P-256 (ES256) private key' });
      return z.NEVER;
    }
    const bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(text) ? Buffer.from(text, 'base64') : Buffer.alloc(0);
    if (bytes.length !== 64) {
      ctx.addIssue({
        code: 'custom',
        message:
          'must be a CDP API key secret: an Ed25519 key (base64 of 64 bytes, as the CDP portal shows it) or an ECDSA key (a PEM "-----BEGIN EC PRIVATE KEY-----" block; newlines may be written as \\n)',
      });
      return z.NEVER;
    }
    // the public key the seed gives (PKCS#8 wrapping of an Ed25519 seed, RFC 8410) must be the second half
    const seed = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, bytes.subarray(0, 32)]), format: 'der', type: 'pkcs8' });
    if (createPublicKey(seed).export({ format: 'jwk' }).x !== bytes.subarray(32).toString('base64url')) {
      ctx.addIssue({
        code: 'custom',
        message:
          'must be a whole CDP API key secret: its private half does not give the public half after it (was it changed when copied?)',
      });
      return z.NEVER;
    }
    return new Secret(text);
  })
  .nullable()
  .default(null)
  .register(secrets, { secret: true });

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

/** A service's public origin: http(s)://host[:port], without a path, query or fragment (normalised to its origin). */
const publicOrigin = z
  .url({ protocol: /^https?$/, ...must('an http:// or https:// URL') })
  .refine((v) => {
    const u = new URL(v);
    return (u.pathname === '/' || u.pathname === '') && !u.search && !u.hash && !u.username && !u.password;
  }, must('an origin like https://korea.example.com, without a path, query or credentials'))
  .transform((v) => new URL(v).origin)
  .nullable()
  .default(null);

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
  FACILITATOR_URL: httpUrl,
  FACILITATOR_AUTH: facilitatorAuth,
  ...(Object.fromEntries(Object.keys(FACILITATOR_NETWORKS).map((n) => [`FACILITATOR_URL_${n.toUpperCase()}`, httpUrl])) as Record<
    `FACILITATOR_URL_${Uppercase<FacilitatorNetwork>}`,
    typeof httpUrl
  >),
  ...(Object.fromEntries(Object.keys(FACILITATOR_NETWORKS).map((n) => [`FACILITATOR_AUTH_${n.toUpperCase()}`, facilitatorAuth])) as Record<
    `FACILITATOR_AUTH_${Uppercase<FacilitatorNetwork>}`,
    typeof facilitatorAuth
  >),
  CDP_API_KEY_ID: z
    .string()
    .trim()
    .regex(/^\S{1,200}$/, must("a CDP API key id, like the key's UUID or organizations/<org>/apiKeys/<key>"))
    .nullable()
    .default(null),
  CDP_API_KEY_SECRET: cdpApiKeySecret,
  FACILITATOR_TIMEOUT_MS: positiveInt(10_000),
  SNAPSHOT_RETENTION: positiveInt(5),
  SNAPSHOTS_PULL_URL: z
    .url({ protocol: /^https?$/, ...must('an https:// URL (http:// only on 127.0.0.1, ::1 or localhost)') })
    .refine(
      (url) => url.startsWith('https:') || LOOPBACK_HOST.test(new URL(url).hostname),
      must('an https:// URL (http:// only on 127.0.0.1, ::1 or localhost)'),
    )
    .nullable()
    .default(null),
  SNAPSHOTS_PULL_TOKEN: secretText,
  SNAPSHOTS_PULL_INTERVAL_MS: boundedInt(60_000, 1_000, 86_400_000),
  SNAPSHOTS_PULL_TIMEOUT_MS: boundedInt(30_000, 1_000, 600_000),
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
  KOREA_PUBLIC_URL: publicOrigin,
  ANALYTICS_PUBLIC_URL: publicOrigin,
  MCP_ALLOWED_HOSTS: z
    .string()
    .trim()
    .toLowerCase()
    .transform((v) =>
      v === '*'
        ? ('any' as const)
        : v
            .split(',')
            .map((name) => name.trim())
            .filter(Boolean),
    )
    .refine(
      (v) => v === 'any' || v.every((name) => HOST_NAME.test(name)),
      must('"*" or host names separated by commas, like api.example.com'),
    )
    .nullable()
    .default(null),
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

type ServiceEnv = Omit<Env, 'PAYER_PRIVATE_KEY' | 'SOLANA_PAYER_KEY' | 'XRPL_PAYER_SEED'>;

/**
 * The facilitator of every network from FACILITATOR_URL, FACILITATOR_URL_<NETWORK>,
 * FACILITATOR_AUTH[_<NETWORK>] and the CDP key, with what is wrong with them (SETTLEMENT=facilitator).
 */
function facilitatorsOf(e: ServiceEnv): { facilitators: Settings['facilitators']; problems: string[] } {
  const problems: string[] = [];
  const cdpKey = e.CDP_API_KEY_ID && e.CDP_API_KEY_SECRET ? { apiKeyId: e.CDP_API_KEY_ID, apiKeySecret: e.CDP_API_KEY_SECRET } : null;
  if (Boolean(e.CDP_API_KEY_ID) !== Boolean(e.CDP_API_KEY_SECRET)) {
    problems.push(
      `CDP_API_KEY_ID and CDP_API_KEY_SECRET go together: ${e.CDP_API_KEY_ID ? 'CDP_API_KEY_SECRET' : 'CDP_API_KEY_ID'} is not set`,
    );
  }
  const one = (urlName: string, authName: string): FacilitatorSettings | null => {
    const url = e[urlName as keyof ServiceEnv] as string | null;
    const given = e[authName as keyof ServiceEnv] as z.output<typeof facilitatorAuth>;
    if (!url) {
      if (given) problems.push(`${authName} is set but ${urlName} is not: it holds the credentials of that facilitator`);
      return null;
    }
    const kind = given?.kind ?? (URL.canParse(url) && new URL(url).host === CDP_API_HOST ? 'cdp' : 'none');
    if (given?.kind === 'header') return { url, auth: given, credentials: authName };
    if (kind === 'none') return { url, auth: { kind: 'none' }, credentials: authName };
    if (!cdpKey) {
      if (Boolean(e.CDP_API_KEY_ID) === Boolean(e.CDP_API_KEY_SECRET)) {
        problems.push(
          given
            ? `${authName}=cdp needs a CDP Secret API key: set CDP_API_KEY_ID and CDP_API_KEY_SECRET`
            : `${urlName} is Coinbase's facilitator (${CDP_API_HOST}), which needs a CDP Secret API key: set CDP_API_KEY_ID and CDP_API_KEY_SECRET`,
        );
      }
      return null;
    }
    return { url, auth: { kind: 'cdp', ...cdpKey }, credentials: 'CDP_API_KEY_ID and CDP_API_KEY_SECRET' };
  };
  const fallback = one('FACILITATOR_URL', 'FACILITATOR_AUTH');
  const byNetwork: Partial<Record<FacilitatorNetwork, FacilitatorSettings>> = {};
  const payTo = { evm: e.PAY_TO_EVM, solana: e.PAY_TO_SOLANA, xrpl: e.PAY_TO_XRPL };
  const anyUrl =
    e.FACILITATOR_URL || Object.keys(FACILITATOR_NETWORKS).some((n) => e[`FACILITATOR_URL_${n.toUpperCase()}` as keyof ServiceEnv]);
  if (!anyUrl) problems.push('SETTLEMENT=facilitator needs FACILITATOR_URL (the facilitator base URL with /verify and /settle)');
  for (const [network, family] of Object.entries(FACILITATOR_NETWORKS) as [FacilitatorNetwork, keyof typeof payTo][]) {
    const upper = network.toUpperCase();
    const own = one(`FACILITATOR_URL_${upper}`, `FACILITATOR_AUTH_${upper}`);
    if (own) byNetwork[network] = own;
    const urlGiven = e.FACILITATOR_URL || e[`FACILITATOR_URL_${upper}` as keyof ServiceEnv];
    if (anyUrl && !urlGiven && payTo[family]) {
      problems.push(
        `SETTLEMENT=facilitator needs a facilitator for ${network} (offered because PAY_TO_${family.toUpperCase()} is set): ` +
          `set FACILITATOR_URL (every network) or FACILITATOR_URL_${upper}`,
      );
    }
  }
  return { facilitators: { fallback, byNetwork }, problems };
}

/** The settings of the services and pipelines: everything but the pay client's key, with the rules that span settings. */
const SERVICE_ENV = ENV.omit({ PAYER_PRIVATE_KEY: true, SOLANA_PAYER_KEY: true, XRPL_PAYER_SEED: true }).superRefine((e, ctx) => {
  if (!LOOPBACK_HOST.test(e.HOST) && e.MCP_ALLOWED_HOSTS === null && !e.KOREA_PUBLIC_URL && !e.ANALYTICS_PUBLIC_URL) {
    ctx.addIssue({
      code: 'custom',
      path: [],
      message:
        `HOST=${e.HOST} is not a loopback address, so /mcp needs to know the host names its clients reach it by: ` +
        'set KOREA_PUBLIC_URL and ANALYTICS_PUBLIC_URL, or MCP_ALLOWED_HOSTS (like api.example.com; MCP_ALLOWED_HOSTS=* turns its DNS-rebinding protection off)',
    });
  }
  if (e.SETTLEMENT !== 'facilitator') return;
  for (const message of facilitatorsOf(e).problems) ctx.addIssue({ code: 'custom', path: [], message });
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
  const e: ServiceEnv = parseEnv(SERVICE_ENV, env);
  const snapshotsDir = resolve(e.SNAPSHOTS_DIR);
  return {
    snapshotsDir,
    warehouseDir: resolve(e.WAREHOUSE_DIR),
    koreaPort: e.KOREA_PORT,
    analyticsPort: e.ANALYTICS_PORT,
    host: e.HOST,
    settlement: e.SETTLEMENT,
    facilitators: e.SETTLEMENT === 'facilitator' ? facilitatorsOf(e).facilitators : { fallback: null, byNetwork: {} },
    aiMode: e.ANTHROPIC_API_KEY ? 'claude' : 'rules',
    snapshotRetention: e.SNAPSHOT_RETENTION,
    snapshotsPull: e.SNAPSHOTS_PULL_URL
      ? {
          url: e.SNAPSHOTS_PULL_URL,
          token: e.SNAPSHOTS_PULL_TOKEN,
          intervalMs: e.SNAPSHOTS_PULL_INTERVAL_MS,
          timeoutMs: e.SNAPSHOTS_PULL_TIMEOUT_MS,
        }
      : null,
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
    publicUrl: { korea: e.KOREA_PUBLIC_URL, analytics: e.ANALYTICS_PUBLIC_URL },
    // the public URLs' host names are where clients reach /mcp too
    mcpAllowedHosts:
      e.MCP_ALLOWED_HOSTS === 'any'
        ? 'any'
        : [
            ...new Set([
              ...(e.MCP_ALLOWED_HOSTS ?? []),
              ...[e.KOREA_PUBLIC_URL, e.ANALYTICS_PUBLIC_URL].filter((u): u is string => u !== null).map((u) => new URL(u).hostname),
            ]),
          ],
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
