/**
 * Zod pieces shared by the endpoint declarations of both services: query-string parameter
 * parsers (query strings arrive as strings, MCP tool calls as JSON values; both are accepted),
 * the data stamp every data response carries, and the error, payment, receipt, health and
 * discovery bodies the proxy itself produces.
 */
import { z } from 'zod';

// ------------------------------------------------------------------ scalar pieces

export const DataSource = z
  .enum(['demo', 'live', 'file'])
  .describe(
    "Where the data came from: 'live' = the real upstream APIs, 'demo' = the built-in deterministic simulator " +
      "(used when the service runs without network; not real market data), 'file' = files imported by the operator.",
  );
export type DataSource = z.infer<typeof DataSource>;

/** ISO 8601 timestamp; 'Z' or a numeric offset. */
export const isoDateTime = (description: string) => z.iso.datetime({ offset: true }).describe(description);
/** The same, or null. */
export const isoDateTimeOrNull = (description: string) => z.iso.datetime({ offset: true }).nullable().describe(description);
/** Calendar date YYYY-MM-DD (UTC). */
export const isoDate = (description: string) => z.iso.date().describe(description);
/** A percentage where 2.5 means 2.5 %. */
export const percent = (description: string) => z.number().describe(`${description} (percent: 2.5 means 2.5 %)`);
/** A percentage bounded to 0..100. */
export const percent0to100 = (description: string) => z.number().min(0).max(100).describe(`${description} (percent 0 to 100)`);
/** A fraction bounded to 0..1. */
export const fraction = (description: string) => z.number().min(0).max(1).describe(`${description} (fraction 0 to 1)`);

/**
 * The two fields every data response carries so users see what kind of data they got.
 * Spread into an object: `z.object({ ...dataStamp, ... })`.
 */
export const dataStamp = {
  source: DataSource,
  as_of: isoDateTime('When the data in this response was computed (UTC), i.e. the dataset snapshot time.'),
};

/** AI mode of the service: a Claude model through the Anthropic API, or the offline rules analyst. */
export const AiMode = z
  .enum(['claude', 'rules'])
  .describe(
    "'claude' = a Claude model through the Anthropic API; 'rules' = the offline rules analyst (deterministic templates over the same numbers, used when no ANTHROPIC_API_KEY is set).",
  );

/** Who wrote the AI text fields of a response. */
export const Analyst = AiMode.describe(
  "Who produced the AI text fields: 'claude' = a Claude model; 'rules' = the offline rules analyst (deterministic templates over the same numbers, used when no ANTHROPIC_API_KEY is set).",
);

/** EVM address (0x + 40 hex, any case) or Solana base58 address (32 to 44 characters). */
export const WALLET_ADDRESS_PATTERN = /^(0x[0-9a-fA-F]{40}|[1-9A-HJ-NP-Za-km-z]{32,44})$/;
export const WalletAddress = z
  .string()
  .regex(WALLET_ADDRESS_PATTERN, {
    error: (iss) =>
      `Expected an EVM address (0x followed by 40 hex digits) or a Solana base58 address (32 to 44 characters), got ${show(iss.input)}`,
  })
  .describe('Wallet address: EVM 0x + 40 hex digits (case-insensitive) or Solana base58 (32 to 44 characters).')
  // shown in OpenAPI and as the Bazaar extension's body example (any address is a valid wash check)
  .meta({ examples: ['0x1111111111111111111111111111111111111111'] });

// ------------------------------------------------------------ query-string parameters

function show(input: unknown): string {
  if (input === undefined) return 'nothing';
  const text = JSON.stringify(input);
  return text === undefined ? String(input) : text;
}

function rangeText(min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return `from ${min} to ${max}`;
  if (min !== undefined) return `of at least ${min}`;
  if (max !== undefined) return `of at most ${max}`;
  return '';
}

const DECIMAL_TEXT = /^-?(\d+\.?\d*|\.\d+)$/;
/** '5' → 5, '3.5' → 3.5; anything else passes through unchanged (and fails as "not a number"). */
const numberFromText = (value: unknown): unknown => (typeof value === 'string' && DECIMAL_TEXT.test(value) ? Number(value) : value);

interface IntParamOptions {
  min?: number;
  max?: number;
  /** Value when absent. Without a default the parameter is required unless `optional`. */
  default?: number;
  optional?: boolean;
  description: string;
}

/**
 * An integer query or path parameter: accepts a JSON number or a decimal string ('5'); rejects
 * '3.5', 'abc', '1e3', '' and values outside the bounds with a message naming the allowed range.
 */
export function intParam(opts: IntParamOptions) {
  const range = rangeText(opts.min, opts.max);
  const expected = `Expected an integer ${range}`.trim();
  let inner = z
    .number({ error: (iss) => `${expected}, got ${show(iss.input)}` })
    .int({ error: (iss) => `${expected}, got ${show(iss.input)} (not a whole number)` });
  if (opts.min !== undefined) inner = inner.min(opts.min, { error: (iss) => `${expected}, got ${show(iss.input)} (too small)` });
  if (opts.max !== undefined) inner = inner.max(opts.max, { error: (iss) => `${expected}, got ${show(iss.input)} (too large)` });
  const described = inner.describe(opts.description);
  if (opts.default !== undefined) return z.preprocess(numberFromText, described.default(opts.default));
  if (opts.optional) return z.preprocess(numberFromText, described.optional());
  return z.preprocess(numberFromText, described);
}

/** A decimal query parameter with bounds; optional (absent = no filter). */
export function numberParam(opts: { min: number; max: number; description: string }) {
  const expected = `Expected a number ${rangeText(opts.min, opts.max)}`;
  const inner = z
    .number({ error: (iss) => `${expected}, got ${show(iss.input)}` })
    .min(opts.min, { error: (iss) => `${expected}, got ${show(iss.input)} (too small)` })
    .max(opts.max, { error: (iss) => `${expected}, got ${show(iss.input)} (too large)` })
    .describe(opts.description);
  return z.preprocess(numberFromText, inner.optional());
}

const BOOLEAN_TEXT: Record<string, boolean> = { true: true, '1': true, false: false, '0': false };

/** A boolean query parameter: 'true' / 'false' / '1' / '0' (or a JSON boolean); defaults to `dflt`. */
export function boolParam(dflt: boolean, description: string) {
  const inner = z
    .boolean({ error: (iss) => `Expected true, false, 1 or 0, got ${show(iss.input)}` })
    .describe(`${description} Accepts true, false, 1 or 0.`);
  return z.preprocess((value) => (typeof value === 'string' && value in BOOLEAN_TEXT ? BOOLEAN_TEXT[value] : value), inner.default(dflt));
}

/** One of a fixed list of strings, with a message that lists them. */
export function oneOf<const T extends readonly string[]>(values: T, description: string) {
  return z.enum(values, { error: (iss) => `Expected one of ${values.join(', ')}, got ${show(iss.input)}` }).describe(description);
}

/** A free-text search string (trimmed; empty means no filter). */
export function searchParam(maxLength: number, description: string) {
  const inner = z
    .string({ error: (iss) => `Expected text of at most ${maxLength} characters, got ${show(iss.input)}` })
    .max(maxLength, { error: `Expected text of at most ${maxLength} characters` })
    .describe(description);
  return z.preprocess((value) => (typeof value === 'string' ? value.trim() || undefined : value), inner.optional());
}

// ------------------------------------------------------------------ error bodies

/** 422 body: the same shape FastAPI / pydantic services return, so existing clients parse it. */
export const ValidationErrorItem = z.object({
  loc: z
    .array(z.union([z.string(), z.number().int()]))
    .describe("Where the bad input is, e.g. ['query', 'limit'], ['path', 'id'] or ['body', 'address']."),
  msg: z.string().describe('What was wrong and what is allowed.'),
  type: z
    .string()
    .describe(
      "Machine-readable error type, e.g. 'int_parsing', 'less_than_equal', 'greater_than_equal', 'enum', 'string_pattern_mismatch', 'missing', 'extra_forbidden' (a query parameter the endpoint does not take).",
    ),
  input: z.unknown().optional().describe('The value that was received, when there was one.'),
  ctx: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("Constraint details, e.g. {'ge': 1} or {'expected': \"'upbit', 'bithumb' or 'all'\"}."),
});
export const ValidationErrorBody = z
  .object({ detail: z.array(ValidationErrorItem).min(1).describe('One entry per invalid input.') })
  .describe('Status 422: a parameter or the request body failed validation.');
export type ValidationErrorBody = z.infer<typeof ValidationErrorBody>;

export const NotFoundBody = z
  .object({
    error: z.literal('not_found'),
    message: z.string().describe('What was not found, e.g. "No indexed service has id 123".'),
  })
  .describe(
    'Status 404: the path parameter names nothing the index holds. Paid endpoints check this before asking for payment, so a missing resource is never charged.',
  );

export const RateLimitedBody = z
  .object({
    error: z.literal('rate_limited'),
    message: z.string().describe('Human-readable explanation.'),
    limit: z.number().int().describe('Requests allowed per window (60).'),
    window_seconds: z.number().int().describe('Window length in seconds (3600).'),
    retry_after_seconds: z
      .number()
      .int()
      .min(0)
      .describe('Seconds until the next request is allowed; also sent as the Retry-After header.'),
  })
  .describe('Status 429: the free-tier limit of 60 requests per hour per IP address was exceeded.');

// ------------------------------------------------------------------ payments

/** One accepted way to pay (x402 v1 PaymentRequirements). */
export const PaymentRequirements = z
  .looseObject({
    scheme: z.string().describe("Payment scheme, 'exact'."),
    network: z.string().describe("Network name: 'base', 'polygon', 'solana' or 'xrpl'."),
    maxAmountRequired: z
      .string()
      .regex(/^\d+$/)
      .describe('Price in the asset\'s atomic units as a decimal string (USDC has 6 decimals: "1000" = 0.001 USD).'),
    asset: z.string().describe('Token contract (EVM), mint (Solana) or issued-currency code (XRPL).'),
    payTo: z.string().describe('Recipient address.'),
    resource: z.string().describe('Absolute URL of the resource being paid for.'),
    description: z.string().describe('What the payment buys.'),
    mimeType: z.string().describe('Media type of the paid response.'),
    outputSchema: z
      .record(z.string(), z.unknown())
      .nullable()
      .optional()
      .describe('Input and output description of the resource, for discovery.'),
    maxTimeoutSeconds: z.number().int().describe('How long the payment authorization may take.'),
    extra: z
      .record(z.string(), z.unknown())
      .nullable()
      .optional()
      .describe('Scheme-specific data, e.g. the EIP-712 domain {name, version} of the token.'),
  })
  .describe('One accepted payment option.');

/** 402 body (x402 v1); the same requirements also travel base64-encoded in the v2 PAYMENT-REQUIRED header. */
export const PaymentRequiredBody = z
  .object({
    x402Version: z.number().int().describe('x402 protocol version of this body (1).'),
    error: z.string().describe('Why payment is required or why the payment sent was refused.'),
    accepts: z.array(PaymentRequirements).describe('One entry per accepted network.'),
    reason: z
      .string()
      .optional()
      .describe("Named reason: 'payment_required' when no payment was sent, else why it was refused (e.g. invalid_signature, nonce_used)."),
    payer: z.string().optional().describe('Payer address of the refused payment, when known.'),
    facilitator_reason: z.string().optional().describe("The facilitator's own error code, when it refused or failed."),
  })
  .describe(
    'Status 402: the endpoint is paid and the request carried no valid payment. Pay one of `accepts` and repeat the request with the payment header.',
  );
export type PaymentRequiredBody = z.infer<typeof PaymentRequiredBody>;

/** The v2 PaymentRequired, sent base64-encoded in the PAYMENT-REQUIRED header of every 402. */
export const PaymentRequiredV2 = z
  .object({
    x402Version: z.literal(2),
    error: z.string().describe("'Payment required', or the reason and message of the refusal."),
    resource: z
      .looseObject({
        url: z.string().describe('Absolute URL of the resource.'),
        description: z.string(),
        mimeType: z.string(),
        serviceName: z.string().optional().describe('Service name for discovery catalogues (Bazaar).'),
        tags: z.array(z.string()).optional().describe('Topical tags for discovery catalogues (Bazaar).'),
      })
      .describe('What is being paid for.'),
    accepts: z
      .array(
        z.looseObject({
          scheme: z.string(),
          network: z.string().describe("CAIP-2 network id, e.g. 'eip155:8453'."),
          amount: z.string().describe("Price in the asset's atomic units (XRPL: the RLUSD value)."),
          asset: z.string(),
          payTo: z.string(),
          maxTimeoutSeconds: z.number().int(),
          extra: z.record(z.string(), z.unknown()),
        }),
      )
      .describe('One entry per accepted network.'),
    extensions: z
      .record(z.string(), z.unknown())
      .describe('Extension declarations by name; `bazaar` describes the route for discovery catalogues (input and output schemas).'),
  })
  .describe('x402 v2 payment requirements (the decoded PAYMENT-REQUIRED header).');

/** The settlement result of a paid answer, base64 JSON in PAYMENT-RESPONSE (v2) or X-PAYMENT-RESPONSE (v1). */
export const SettlementResponse = z
  .looseObject({
    success: z.boolean(),
    transaction: z.string().describe('Settlement transaction (local:<nonce> when SETTLEMENT=local).'),
    network: z.string().describe('Network name (v1) or CAIP-2 id (v2).'),
    payer: z.string(),
    errorReason: z.string().optional(),
    errorMessage: z.string().optional(),
  })
  .describe('x402 settlement response.');

/** The signed receipt a paid 200 carries (body field `receipt`, and base64 JSON in the X-Receipt header). */
export const Receipt = z
  .looseObject({
    id: z.string().describe('Receipt id.'),
    endpoint: z.string().describe('Path of the paid endpoint.'),
    amount: z.string().describe('Amount paid in USD as a decimal string, e.g. "0.001".'),
    currency: z.string().describe("'USDC' or 'RLUSD'."),
    network: z.string().describe('Network the payment was made on.'),
    tx_hash: z.string().describe('Settlement transaction hash as reported by the settlement (see settlement_mode in /health).'),
    payer: z.string().describe('Payer address.'),
    merchant: z.string().describe('Pay-to address of the service.'),
    issued_at: isoDateTime('When the receipt was issued (UTC).'),
    signature: z
      .string()
      .describe(
        'secp256k1 ECDSA signature (0x + 65 bytes r‖s‖v hex, low s), EIP-191 personal_sign over the pipe-joined text id|endpoint|amount|currency|network|tx_hash|payer|merchant|issued_at; check it with any verifyMessage (viem, ethers) against receipt_signer.address.',
      ),
  })
  .describe('Signed receipt; verify it against receipt_signer.public_key in /.well-known/x402.');

/** The schema of a paid 200: the data plus its receipt. */
export function withReceipt<S extends z.ZodObject>(data: S) {
  return data.extend({ receipt: Receipt });
}

// ------------------------------------------------------------------ bodies the proxy computes

/**
 * What a live run indexed and skipped, by reason: kept in the snapshot manifest (`indexing`) and
 * served on /health (docs/x402-indexing.md, "Never silent"). Written by the analytics live runs.
 */
export const IndexingReport = z
  .object({
    indexed_at: isoDateTime(
      'When the run that indexed ran (a later run that indexed nothing, such as a probe-only run, keeps this report).',
    ),
    registry: z
      .object({
        version: z.string().max(200).describe('Version of the facilitator registry the run used.'),
        origin: z
          .enum(['pinned', 'url'])
          .describe("'pinned' = the copy shipped with the code; 'url' = FACILITATOR_REGISTRY_URL's document."),
        taken_at: z.string().max(200).describe('The date the registry was taken from its source (YYYY-MM-DD).'),
        source: z.string().max(2000).describe('Where it came from: the pinned file or the URL (without credentials or query).'),
        problem: z.string().max(2000).nullable().describe('Why FACILITATOR_REGISTRY_URL was not used; null when it was, or is not set.'),
      })
      .nullable()
      .describe('The facilitator registry the run used.'),
    settlements: z.number().int().min(0).describe('Settlements the run indexed.'),
    unknown_facilitator: z
      .number()
      .int()
      .min(0)
      .describe(
        'Of those, settlements to a listed payTo sent by a wallet the registry does not name (facilitator "unknown", the sender kept).',
      ),
    skipped: z
      .record(z.string().max(200), z.number().int().min(0))
      .describe(
        "Everything the run skipped, `<kind>.<reason>` → count: 'settlement.*' = in scope (sent by a registered relayer or paid to a listed payTo) but not indexed; 'log.*' = chain events that are not x402 settlements; 'listing.*' = discovery items not listed.",
      ),
    skipped_settlements: z.number().int().min(0).describe("The 'settlement.*' skips together."),
    skip_share: z
      .number()
      .min(0)
      .max(1)
      .describe('skipped_settlements / (settlements + skipped_settlements); above 0.01 the status is degraded.'),
    candidates: z
      .array(
        z.object({
          chain: z.string().max(200),
          sender: z.string().max(200).describe('The wallet that sent (Solana: paid the fee of) the settlements.'),
          settlements: z.number().int().min(0).describe('Settlements it sent to listed payTos, over the kept history.'),
          payees: z.number().int().min(0).describe('Distinct payTos among them.'),
          first_time: z.string().max(200),
          last_time: z.string().max(200),
        }),
      )
      .max(50)
      .describe(
        'Senders the registry does not name that settled to listed payTos more than 10 times: candidates for the registry, never added by themselves.',
      ),
    notes: z
      .array(z.string().max(2000))
      .max(20)
      .describe('What the run says about its indexing (no payment indexed yet, an empty catalog...).'),
  })
  .describe('What the live run behind the snapshot indexed and skipped.');

/** /health of either service (built by proxy/health.ts). Status 200, or 503 while no snapshot is published. */
export const HealthBody = z
  .object({
    service: z.enum(['korea', 'analytics']).describe('Which service answered.'),
    status: z
      .enum(['ok', 'degraded', 'no_data'])
      .describe(
        "'ok' = a snapshot is loaded, every dataset the service sells is in it and fresh; 'degraded' = some dataset is missing, stale, carried over from an earlier run or served without its English (see `problems`); 'no_data' = no snapshot published yet (status 503).",
      ),
    time: isoDateTime('When this answer was computed (UTC).'),
    snapshot: z
      .object({
        version: z.string().describe('Version id of the snapshot being served.'),
        generated_at: isoDateTime('When the snapshot was published.'),
        next_expected_update: isoDateTime('When the next snapshot is expected.'),
        code_version: z.string().describe('Version of the code that produced the snapshot.'),
        notice: z.string().nullable().describe('Notice attached to the snapshot, e.g. that it holds demo data; null if none.'),
        fallback_reason: z.string().nullable().describe('Why an older snapshot is served instead of the newest, if so.'),
      })
      .nullable()
      .describe('The snapshot being served; null before the first one.'),
    datasets: z
      .array(
        z.object({
          name: z.string().describe('Dataset name.'),
          as_of: isoDateTime('When the dataset was computed.'),
          age_seconds: z.number().int().min(0).describe('Seconds since as_of.'),
          stale_after_seconds: z
            .number()
            .int()
            .describe(
              'Age beyond which the dataset counts as stale, as the catalog declares it (by default 3 update intervals, at least 600 s).',
            ),
          stale: z
            .boolean()
            .describe('True when age_seconds exceeds stale_after_seconds or the dataset was carried over from an earlier run.'),
          source: DataSource,
          produced_in: z.string().describe('Snapshot version that computed this dataset.'),
          carried_over_reason: z.string().nullable().describe('Why the last run did not recompute it; null when it did.'),
          ai: z
            .object({ analyst: AiMode, models: z.array(z.string()).describe('Claude models that wrote it; empty for the rules analyst.') })
            .nullable()
            .describe('Who wrote the AI fields of the dataset; null for datasets without AI fields.'),
        }),
      )
      .describe('Freshness of every dataset in the snapshot.'),
    degraded: z
      .array(
        z.object({
          dataset: z.string().describe('Dataset name.'),
          state: z
            .enum(['stale', 'carried_over', 'unavailable', 'damaged'])
            .describe(
              "'stale' = older than stale_after_seconds; 'carried_over' = the last run could not compute it and an earlier version is served; 'unavailable' = not in the snapshot (its endpoints answer 503); 'damaged' = its file failed verification.",
            ),
          reason: z.string().describe('Why, in words.'),
          as_of: isoDateTimeOrNull('The time the data served describes; null when nothing is served.'),
          age_seconds: z.number().int().min(0).nullable().describe('Seconds since as_of; null when nothing is served.'),
          stale_after_seconds: z.number().int().nullable().describe('How old the dataset may get.'),
        }),
      )
      .describe("Every dataset that is not fresh, with its state and reason, in one list; empty when status is 'ok'."),
    unavailable: z
      .array(
        z.object({
          name: z.string().describe('Dataset name.'),
          endpoints: z.array(z.string()).describe('Endpoints that answer 503 while it is missing.'),
          reason: z.string(),
        }),
      )
      .describe(
        'Datasets the service sells that the snapshot does not hold: their endpoints answer 503 (never invented data). Empty when all are there.',
      ),
    settlement: z
      .object({
        mode: z
          .enum(['local', 'facilitator'])
          .describe(
            "'facilitator' = payments settle on chain through the configured facilitator; 'local' = payments are verified but no funds move (demo).",
          ),
        note: z.string(),
      })
      .describe('How payments are settled.'),
    stores: z
      .object({
        nonce_store: z
          .enum(['lmdb', 'redis', 'memory'])
          .describe("Where single use of payments is kept: 'lmdb' on disk (default), 'redis' shared by instances (REDIS_URL)."),
        rate_limit_store: z.enum(['redis', 'memory']).describe('Where the free-tier count is kept.'),
        reachable: z.boolean().describe('Whether the nonce store answers; false = paid endpoints answer 503 until it is back.'),
        reason: z
          .string()
          .nullable()
          .describe(
            'Why the nonce store cannot be used right now (e.g. its disk is full or read-only, Redis is down or runs without persistence); null when reachable.',
          ),
      })
      .optional()
      .describe('The payment and rate-limit stores in use.'),
    snapshot_source: z
      .object({
        url: z.string().describe('The base URL the snapshots are pulled from (SNAPSHOTS_PULL_URL), without credentials or query string.'),
        last_checked_at: isoDateTimeOrNull('When the source was last checked; null before the first check ends.'),
        last_success_at: isoDateTimeOrNull("When a check last ended with the source's newest version live here."),
        version: z.string().nullable().describe('The version the source named at that check.'),
        problem: z
          .string()
          .nullable()
          .describe(
            'Why the last pull changed nothing (network error, a file cut short, a wrong checksum, an older version...): the previous version stays live. Null when it succeeded.',
          ),
        interval_seconds: z.number().int().describe('Seconds between two checks of the source.'),
      })
      .optional()
      .describe('The published snapshot source this server follows; absent when the pipelines publish on its own machine.'),
    ai: z
      .object({
        mode: AiMode.describe(
          "Who wrote the AI fields of the snapshot served ('claude' or 'rules'); before the first snapshot, what this machine's settings would use.",
        ),
        note: z.string(),
        models: z
          .object({ fast: z.string(), deep: z.string() })
          .nullable()
          .describe('The two Claude model settings of the run; null for the rules analyst.'),
        last_run: z
          .object({
            calls: z.number().int().describe('Model calls the run made.'),
            cache_hits: z.number().int().describe('Answers taken from the cache instead of a call.'),
            failures: z.number().int().describe('AI tasks that ended without a valid answer (their products keep the last good version).'),
            usd: z.number().describe("Cost of the run's calls (USD)."),
            spent_today_usd: z.number().describe('Cost of every call of that UTC day (USD).'),
            daily_budget_usd: z.number().nullable().describe('ANTHROPIC_DAILY_BUDGET_USD; null when unset.'),
            budget_reached: z.boolean().describe('True when the budget stopped model calls in that run.'),
          })
          .nullable()
          .describe('What the analyst did in the run that published the snapshot; null when that run wrote no AI field.'),
      })
      .describe('Who writes the AI text fields, and what it cost.'),
    indexing: IndexingReport.optional().describe(
      'What the live run behind the snapshot indexed and skipped, by reason (analytics live snapshots; absent for demo and file data).',
    ),
    problems: z.array(z.string()).describe('Everything that is not as it should be, in words; empty when status is ok.'),
  })
  .describe('Service health and data freshness.');

/** The JSON root document (korea `/`, analytics `/api/v1`), built by proxy/root-document.ts from the catalog. */
export const RootDocumentBody = z
  .object({
    name: z.string().describe('Service name.'),
    description: z.string().describe('What the service sells and how to pay.'),
    service: z.enum(['korea', 'analytics']),
    api_version: z.string().describe('Interface version (0.1.0).'),
    docs: z
      .object({ reference: z.string(), llms_txt: z.string(), openapi: z.string(), x402_manifest: z.string() })
      .describe('Paths of the reference pages, the plain-text summary, the OpenAPI document and the x402 discovery manifest.'),
    mcp: z.string().describe('Path of the MCP server (streamable HTTP).'),
    health: z.string().describe('Path of the health document.'),
    settlement_mode: z.enum(['local', 'facilitator']),
    ai_mode: AiMode,
    snapshot: z
      .object({ version: z.string(), generated_at: isoDateTime('When the snapshot was published.'), notice: z.string().nullable() })
      .nullable()
      .describe('The snapshot being served; null before the first one.'),
    endpoints: z
      .array(
        z.object({
          method: z.enum(['GET', 'POST']),
          path: z.string(),
          summary: z.string(),
          access: z.enum(['free', 'paid']),
          price_usd: z.string().nullable().describe('USD per call as a decimal string; null for free endpoints.'),
          xrpl_path: z.string().optional().describe('Path of the XRPL (RLUSD) variant, for korea paid endpoints.'),
          mcp_tool: z.string().optional().describe('Name of the MCP tool serving the same data.'),
        }),
      )
      .describe('Every endpoint of the service, from the catalog.'),
  })
  .describe('Overview of the service and its endpoints.');

/** /.well-known/x402: x402scan-compatible discovery document plus the receipt signer. */
export const WellKnownX402Body = z
  .looseObject({
    version: z.literal(1).describe('Discovery document version (x402scan format).'),
    resources: z
      .array(z.string())
      .describe('Absolute URLs of the paid resources a client can call as they are (templated paths are in `items` only).'),
    x402Version: z.literal(2).optional().describe('Version of the `items` list (x402 foundation discovery draft).'),
    items: z
      .array(
        z.looseObject({
          resource: z.looseObject({ url: z.string() }),
          type: z.literal('http'),
          input: z.looseObject({ method: z.string() }),
        }),
      )
      .optional()
      .describe(
        'Every paid resource: its URL (templated ones with :param segments), method, routeTemplate, path parameters and example body.',
      ),
    instructions: z.string().optional().describe('Guidance for agents and people, in Markdown.'),
    receipt_signer: z
      .object({
        public_key: z.string().describe('Compressed secp256k1 public key (hex) that signs receipts.'),
        address: z.string().describe('EVM address of the same key.'),
      })
      .describe('Key that signs every paid receipt.'),
  })
  .describe('Discovery manifest of the paid resources.');

export const PlainText = z.string().describe('Plain text.');
export const HtmlPage = z.string().describe('HTML page.');
