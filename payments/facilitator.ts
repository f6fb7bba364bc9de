/**
 * Client of an x402 facilitator (docs/x402-protocol.md, "Facilitator API"): POST /verify, POST /settle, GET /supported.
 *
 * Every call has a timeout and every answer is parsed; the result is a verdict or a named
 * failure, never an exception:
 * - a verdict (2xx, or a non-2xx whose JSON body still carries `isValid` / `success`, as the
 *   reference client treats it) → ok / refused with the facilitator's own reason and message;
 * - a timeout, a network error, a 5xx or 4xx without a verdict, or a body that is not a verdict →
 *   `facilitator_unavailable`, saying which of these happened.
 * Redirects are followed (https://x402.org/facilitator answers 308, x402-foundation/x402#1692; docs/x402-protocol.md, "Facilitator API") and a trailing
 * slash on FACILITATOR_URL is ignored.
 *
 * Credentials (payments/facilitators.ts) come from `auth`: a 401 or 403 is `unauthorized`, naming
 * the settings that hold them (never their values); a 401 on a reused token is retried once with a
 * fresh one, and that facilitator then gets a fresh token every call.
 */
import { z } from 'zod';

export type FacilitatorPath = '/verify' | '/settle' | '/supported';

/** The credentials of one facilitator: headers per call, possibly a token reused from an earlier call. */
export interface FacilitatorCredentials {
  /** The settings that hold them, for messages: 'CDP_API_KEY_ID and CDP_API_KEY_SECRET', 'FACILITATOR_AUTH_SOLANA'. */
  readonly settings: string;
  headers(path: FacilitatorPath): Promise<{ headers: Record<string, string>; reused: boolean }>;
  /** The facilitator refused a reused token: sign a fresh one for every later call. */
  stopReuse?(): void;
}

export interface FacilitatorOptions {
  /** Base URL; /verify, /settle and /supported are appended. */
  url: string;
  timeoutMs?: number;
  /** Credentials sent with every call; none = no auth header. */
  auth?: FacilitatorCredentials;
  /** The auth setting named when a facilitator without credentials answers 401 (default FACILITATOR_AUTH). */
  authSetting?: string;
  fetch?: typeof fetch;
}

export type FacilitatorFailure = {
  ok: false;
  /**
   * refused: a verdict, nothing moved. unavailable: no verdict. pending: /settle failed but names
   * the transaction it broadcast (`settlement_pending`, x402-foundation/x402 #3083): the transfer
   * may still land, so the payment must never be sent for settlement again.
   */
  kind: 'refused' | 'unavailable' | 'pending';
  /**
   * Facilitator's reason code (refused) or what went wrong (unavailable: 'timeout', 'http_500',
   * 'network_error', 'bad_response', 'unauthorized' for a 401 or 403, 'credentials' when no auth
   * header could be made).
   */
  code: string;
  message: string;
  payer?: string;
  /** The broadcast transaction of a `pending` failure. */
  transaction?: string;
};

export type VerifyResult = { ok: true; payer: string | null } | FacilitatorFailure;
export type SettleResult = { ok: true; transaction: string; payer: string | null; network: string | null } | FacilitatorFailure;

export interface SupportedKind {
  x402Version: number;
  scheme: string;
  network: string;
  extra?: Record<string, unknown>;
}
export type SupportedResult = { ok: true; kinds: SupportedKind[]; signers: Record<string, string[]> } | FacilitatorFailure;

const VerifyBody = z.looseObject({
  isValid: z.boolean(),
  invalidReason: z.string().nullish(),
  invalidMessage: z.string().nullish(),
  payer: z.string().nullish(),
});

const SettleBody = z.looseObject({
  success: z.boolean(),
  errorReason: z.string().nullish(),
  errorMessage: z.string().nullish(),
  payer: z.string().nullish(),
  transaction: z.string().nullish(),
  network: z.string().nullish(),
});

const SupportedBody = z.looseObject({
  kinds: z.array(
    z.looseObject({
      x402Version: z.number(),
      scheme: z.string(),
      network: z.string(),
      extra: z.record(z.string(), z.unknown()).nullish(),
    }),
  ),
  signers: z.record(z.string(), z.array(z.string())).nullish(),
});

type Raw = { ok: true; status: number; json: unknown; text: string } | FacilitatorFailure;

export class FacilitatorClient {
  readonly url: string;
  /** The URL as messages show it: without credentials or query string. */
  readonly shownUrl: string;
  readonly timeoutMs: number;
  readonly #options: FacilitatorOptions;
  readonly #fetch: typeof fetch;

  constructor(options: FacilitatorOptions) {
    this.url = options.url.replace(/\/+$/, '');
    const parsed = new URL(this.url);
    this.shownUrl = `${parsed.protocol}//${parsed.host}${parsed.pathname.replace(/\/+$/, '')}`;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.#options = options;
    this.#fetch = options.fetch ?? fetch;
  }

  /** POST /verify with {x402Version, paymentPayload, paymentRequirements}. */
  async verify(x402Version: 1 | 2, paymentPayload: unknown, paymentRequirements: unknown): Promise<VerifyResult> {
    const raw = await this.#call('/verify', { x402Version, paymentPayload, paymentRequirements });
    if (!raw.ok) return raw;
    const parsed = VerifyBody.safeParse(raw.json);
    if (!parsed.success) return this.#badAnswer('/verify', raw);
    const body = parsed.data;
    const payer = body.payer ?? undefined;
    if (body.isValid && raw.status < 300) return { ok: true, payer: payer ?? null };
    if (body.isValid) return this.#badAnswer('/verify', raw);
    const code = body.invalidReason ?? 'invalid_payment';
    return {
      ok: false,
      kind: 'refused',
      code,
      message: `facilitator /verify refused the payment: ${code}${body.invalidMessage ? ` (${body.invalidMessage})` : ''}`,
      ...(payer ? { payer } : {}),
    };
  }

  /** POST /settle; success only with `success: true` and a transaction id. */
  async settle(x402Version: 1 | 2, paymentPayload: unknown, paymentRequirements: unknown): Promise<SettleResult> {
    const raw = await this.#call('/settle', { x402Version, paymentPayload, paymentRequirements });
    if (!raw.ok) return raw;
    const parsed = SettleBody.safeParse(raw.json);
    if (!parsed.success) return this.#badAnswer('/settle', raw);
    const body = parsed.data;
    const payer = body.payer ?? undefined;
    if (body.success && raw.status < 300) {
      if (!body.transaction) {
        return {
          ok: false,
          kind: 'unavailable',
          code: 'bad_response',
          message: 'facilitator /settle said success but gave no transaction id',
        };
      }
      return { ok: true, transaction: body.transaction, payer: payer ?? null, network: body.network ?? null };
    }
    if (body.success) return this.#badAnswer('/settle', raw);
    if (body.transaction) {
      // broadcast but not confirmed (or failed after broadcasting): the hash is the only handle on it
      const code = body.errorReason ?? 'settlement_pending';
      return {
        ok: false,
        kind: 'pending',
        code,
        transaction: body.transaction,
        message: `facilitator /settle broadcast transaction ${body.transaction} but did not confirm it: ${code}${body.errorMessage ? ` (${body.errorMessage})` : ''}`,
        ...(payer ? { payer } : {}),
      };
    }
    const code = body.errorReason ?? 'settlement_failed';
    return {
      ok: false,
      kind: 'refused',
      code,
      message: `facilitator /settle failed: ${code}${body.errorMessage ? ` (${body.errorMessage})` : ''}`,
      ...(payer ? { payer } : {}),
    };
  }

  /** GET /supported: the (version, scheme, network) kinds and, for Solana, the fee payer in `extra`. */
  async supported(): Promise<SupportedResult> {
    const raw = await this.#call('/supported', undefined);
    if (!raw.ok) return raw;
    const parsed = SupportedBody.safeParse(raw.json);
    if (!parsed.success || raw.status >= 300) return this.#badAnswer('/supported', raw);
    return {
      ok: true,
      kinds: parsed.data.kinds.map((k) => ({
        x402Version: k.x402Version,
        scheme: k.scheme,
        network: k.network,
        ...(k.extra ? { extra: k.extra } : {}),
      })),
      signers: parsed.data.signers ?? {},
    };
  }

  async #call(path: FacilitatorPath, body: unknown): Promise<Raw> {
    const where = `facilitator ${this.shownUrl}${path}`;
    const auth = this.#options.auth;
    let response: Response;
    let text: string;
    for (let attempt = 0; ; attempt++) {
      let credentials: { headers: Record<string, string>; reused: boolean } = { headers: {}, reused: false };
      try {
        if (auth) credentials = await auth.headers(path);
      } catch (err) {
        // the signing library's message names the key format, never the key
        const detail = err instanceof Error ? err.message : String(err);
        return {
          ok: false,
          kind: 'unavailable',
          code: 'credentials',
          message: `${where}: no auth header could be made from ${auth?.settings} (${detail})`,
        };
      }
      try {
        response = await this.#fetch(`${this.url}${path}`, {
          method: body === undefined ? 'GET' : 'POST',
          headers: {
            accept: 'application/json',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...credentials.headers,
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          redirect: 'follow',
          signal: AbortSignal.timeout(this.timeoutMs),
        });
        text = await response.text();
      } catch (err) {
        const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
        if (e.name === 'TimeoutError' || e.name === 'AbortError') {
          return { ok: false, kind: 'unavailable', code: 'timeout', message: `${where} did not answer within ${this.timeoutMs} ms` };
        }
        const detail = e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
        return { ok: false, kind: 'unavailable', code: 'network_error', message: `${where} could not be reached (${detail})` };
      }
      if (response.status === 401 && credentials.reused && attempt === 0) {
        // a token reused within its lifetime was refused (a facilitator that wants one per call): once more with a fresh one
        auth?.stopReuse?.();
        continue;
      }
      break;
    }
    if (response.status === 401 || response.status === 403) {
      const fix = auth
        ? `it refused the credentials of ${auth.settings}; check them`
        : `it asks for credentials; set ${this.#options.authSetting ?? 'FACILITATOR_AUTH'}`;
      return {
        ok: false,
        kind: 'unavailable',
        code: 'unauthorized',
        message: `${where} answered HTTP ${response.status}: ${fix} (${snippet(text)})`,
      };
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return {
        ok: false,
        kind: 'unavailable',
        code: response.status >= 300 ? `http_${response.status}` : 'bad_response',
        message: `${where} answered HTTP ${response.status} with a body that is not JSON: ${snippet(text)}`,
      };
    }
    return { ok: true, status: response.status, json, text };
  }

  #badAnswer(path: string, raw: { status: number; text: string }): FacilitatorFailure {
    const code = raw.status >= 300 ? `http_${raw.status}` : 'bad_response';
    const what = raw.status >= 300 ? `HTTP ${raw.status}` : 'a body that is not a verdict';
    return { ok: false, kind: 'unavailable', code, message: `facilitator ${this.shownUrl}${path} answered ${what}: ${snippet(raw.text)}` };
  }
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 197)}...` : flat || '(empty)';
}

/** The Solana fee payer a facilitator announces in /supported, for the 402 requirements (null when none). */
export function solanaFeePayer(supported: SupportedResult, caip2: string): string | null {
  if (!supported.ok) return null;
  const kind = supported.kinds.find(
    (k) => k.scheme === 'exact' && (k.network === caip2 || k.network === 'solana') && typeof k.extra?.feePayer === 'string',
  );
  return (kind?.extra?.feePayer as string | undefined) ?? null;
}
