/**
 * The x402 wire format, both versions (docs/x402-protocol.md): payment requirements per network, the 402
 * challenge (v1 JSON body + v2 `PAYMENT-REQUIRED` header), strict decoding of `X-PAYMENT` /
 * `PAYMENT-SIGNATURE`, matching a payment to what the endpoint offers, and the
 * `X-PAYMENT-RESPONSE` / `PAYMENT-RESPONSE` settlement header.
 *
 * Base64 is the standard alphabet with padding, over UTF-8 JSON, as in the reference codecs.
 * Either payment header is accepted with either payload version (wallets mix them up, docs/x402-protocol.md,
 * "Versions and headers"); the payload's own `x402Version` decides its shape and the version of the answer header.
 * When both headers are present, PAYMENT-SIGNATURE (v2) wins.
 */
import { SERVICE_INFO } from '../catalog/index.ts';
import type { HttpMethod, ServiceName } from '../catalog/types.ts';
import { assetId, payToFor, settlementNetwork, type PayToTable, type SettlementNetwork } from './networks.ts';
import { schemeFor } from './schemes/index.ts';
import { reject, type Rejection } from './reasons.ts';

/**
 * Largest payment header read. An exact payment alone is about 1 KB, but the reference client
 * (@x402/core) echoes the 402's `extensions` (the Bazaar schemas, the signed offers) in its payload,
 * so a valid payment reaches about 11 KB on our largest routes. Node refuses a header section over
 * 16 KB with 431 before this is read.
 */
export const MAX_PAYMENT_HEADER_BYTES = 14 * 1024;

export interface PaymentRequirementsV1 {
  scheme: 'exact';
  network: string;
  maxAmountRequired: string;
  asset: string;
  payTo: string;
  resource: string;
  description: string;
  mimeType: string;
  outputSchema: Record<string, unknown> | null;
  maxTimeoutSeconds: number;
  extra: Record<string, unknown>;
}

export interface PaymentRequirementsV2 {
  scheme: 'exact';
  network: string;
  amount: string;
  asset: string;
  payTo: string;
  maxTimeoutSeconds: number;
  extra: Record<string, unknown>;
}

export interface ResourceInfo {
  url: string;
  description: string;
  mimeType: string;
  /** Service metadata facilitator catalogues read from the v2 `resource` (Bazaar extension spec). */
  serviceName?: string;
  tags?: string[];
}

/** One accepted way to pay an endpoint: the same offer in both wire versions. */
export interface PaymentOffer {
  network: SettlementNetwork;
  v1: PaymentRequirementsV1;
  v2: PaymentRequirementsV2;
}

export interface OfferInput {
  priceUsd: string;
  method: HttpMethod;
  description: string;
  mimeType: string;
  /** Absolute URL of the resource (see resourceUrlOf). */
  resourceUrl: string;
  networks: readonly SettlementNetwork[];
  payTo: PayToTable;
  /** Solana fee payer from the facilitator's /supported (`kinds[].extra.feePayer`); Solana clients need it to build the transaction. */
  solanaFeePayer?: string | null;
  /** v1 discovery description of the resource (bazaar.ts); default: the method only. */
  outputSchema?: Record<string, unknown>;
}

/** Networks a service offers on a path: the XRPL variants (/api/v1/xrpl/...) settle in RLUSD on xrpl only, every other paid path on the rest. */
export function offeredNetworks(service: ServiceName, xrplVariant: boolean): SettlementNetwork[] {
  return SERVICE_INFO[service].networks.filter((n) => n.xrplVariantsOnly === xrplVariant).map((n) => settlementNetwork(n));
}

export function isXrplVariantPath(path: string): boolean {
  return path.startsWith('/api/v1/xrpl/');
}

/**
 * One offer per configured network (a network without a pay-to address is left out). Amounts
 * come from the decimal price by string arithmetic: USDC in atomic units (6 decimals), RLUSD as
 * the XRPL issued-currency value. The v1 shape has no place for a decimal amount, so the XRPL
 * v1 entry states RLUSD in millionths (`maxAmountRequired`, informative; XRPL is paid with x402
 * v2 only) and carries the exact value in `extra.value`.
 */
export function buildOffers(input: OfferInput): PaymentOffer[] {
  const offers: PaymentOffer[] = [];
  for (const network of input.networks) {
    const payTo = payToFor(input.payTo, network);
    if (!payTo) continue;
    const scheme = schemeFor(network);
    const amount = scheme.amount(network, input.priceUsd);
    const extra = scheme.extra(network, { solanaFeePayer: input.solanaFeePayer ?? null });
    const { maxTimeoutSeconds } = scheme;
    const v2: PaymentRequirementsV2 = {
      scheme: 'exact',
      network: network.caip2,
      amount,
      asset: assetId(network),
      payTo,
      maxTimeoutSeconds,
      extra,
    };
    const v1Shape = scheme.v1(network, amount, input.priceUsd, extra);
    const v1: PaymentRequirementsV1 = {
      scheme: 'exact',
      network: network.name,
      maxAmountRequired: v1Shape.maxAmountRequired,
      asset: v2.asset,
      payTo,
      resource: input.resourceUrl,
      description: input.description,
      mimeType: input.mimeType,
      outputSchema: input.outputSchema ?? { input: { type: 'http', method: input.method, discoverable: true }, output: null },
      maxTimeoutSeconds,
      extra: v1Shape.extra,
    };
    offers.push({ network, v1, v2 });
  }
  return offers;
}

// ------------------------------------------------------------------ base64 JSON

export function encodeBase64Json(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64');
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Strict base64(JSON object) decoding; the rejection says which step failed. */
export function decodeBase64Json(text: string, what: string): { ok: true; value: Record<string, unknown> } | Rejection {
  const trimmed = text.trim();
  if (trimmed === '') return reject('malformed_payload', `${what} is empty`);
  if (!BASE64.test(trimmed) || trimmed.length % 4 !== 0) {
    const hint = /[-_]/.test(trimmed)
      ? ' (looks like base64url; use the standard alphabet + / with = padding)'
      : trimmed.length % 4 !== 0 && BASE64.test(trimmed)
        ? ' (length is not a multiple of 4: missing = padding?)'
        : '';
    return reject('malformed_payload', `${what} is not standard base64${hint}`);
  }
  let json: string;
  try {
    json = utf8.decode(Buffer.from(trimmed, 'base64'));
  } catch {
    return reject('malformed_payload', `${what} decodes to bytes that are not UTF-8 text`);
  }
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    return reject('malformed_payload', `${what} is base64 but not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return reject(
      'malformed_payload',
      `${what} must be a JSON object, got ${Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'null' : typeof value}`,
    );
  }
  return { ok: true, value: value as Record<string, unknown> };
}

// ------------------------------------------------------------------ the 402 challenge

export const PAYMENT_REQUIRED_MESSAGE =
  'Payment required: pay one entry of `accepts` and repeat the request with the X-PAYMENT header (x402 v1) or the PAYMENT-SIGNATURE header (x402 v2, see the PAYMENT-REQUIRED header).';

export interface PaymentRequiredV1Body {
  x402Version: 1;
  error: string;
  /** Named reason (see reasons.ts). */
  reason: string;
  accepts: PaymentRequirementsV1[];
  payer?: string;
  facilitator_reason?: string;
}

export interface PaymentRequiredV2 {
  x402Version: 2;
  error: string;
  resource: ResourceInfo;
  accepts: PaymentRequirementsV2[];
  extensions: Record<string, unknown>;
}

export function paymentRequiredV1Body(
  offers: readonly PaymentOffer[],
  reason: string,
  message: string,
  extra: { payer?: string; facilitatorReason?: string } = {},
): PaymentRequiredV1Body {
  return {
    x402Version: 1,
    error: message,
    reason,
    accepts: offers.map((o) => o.v1),
    ...(extra.payer ? { payer: extra.payer } : {}),
    ...(extra.facilitatorReason ? { facilitator_reason: extra.facilitatorReason } : {}),
  };
}

/**
 * Longest `error` text in the PAYMENT-REQUIRED header. Messages quote what the client sent (a
 * network name, an amount); the header must stay readable (clients refuse headers over 16 KB), so
 * the quote is cut there. The v1 body keeps the whole message.
 */
export const MAX_HEADER_ERROR_CHARS = 600;

export function paymentRequiredV2(
  offers: readonly PaymentOffer[],
  resource: ResourceInfo,
  reason: string,
  message: string,
  /** Extension declarations by name (bazaar, ...), as the client is to echo them in its payment. */
  extensions: Record<string, unknown> = {},
): PaymentRequiredV2 {
  const error = reason === 'payment_required' ? 'Payment required' : `${reason}: ${message}`;
  return {
    x402Version: 2,
    error: error.length > MAX_HEADER_ERROR_CHARS ? `${error.slice(0, MAX_HEADER_ERROR_CHARS)}…` : error,
    resource,
    accepts: offers.map((o) => o.v2),
    extensions,
  };
}

// ------------------------------------------------------------------ decoding a payment

export type HeaderGetter = (name: string) => string | null | undefined;

export interface DecodedPayment {
  version: 1 | 2;
  /** The header it came in. */
  header: 'X-PAYMENT' | 'PAYMENT-SIGNATURE';
  scheme: string;
  /** v1: the envelope's network; v2: accepted.network. */
  network: string;
  /** v2: the requirements the client says it accepted. */
  accepted: Record<string, unknown> | null;
  /** Scheme-specific part ({signature, authorization} for EVM). */
  payload: unknown;
  /**
   * The resource URLs a v2 payment says it pays for: `resource.url` (or a bare string there), and
   * `accepted.resource` when a client copied one into the requirement. Empty for v1.
   */
  resources: string[];
  /** The whole decoded object, forwarded to the facilitator as paymentPayload. */
  raw: Record<string, unknown>;
}

/**
 * Reads and strictly decodes the payment header; null when the request carries none.
 */
export function decodePayment(getHeader: HeaderGetter): { ok: true; payment: DecodedPayment } | Rejection | null {
  const v2Header = getHeader('PAYMENT-SIGNATURE');
  const v1Header = getHeader('X-PAYMENT');
  const header = v2Header != null && v2Header !== '' ? 'PAYMENT-SIGNATURE' : v1Header != null && v1Header !== '' ? 'X-PAYMENT' : null;
  if (header === null) return null;
  const text = (header === 'PAYMENT-SIGNATURE' ? v2Header : v1Header)!;
  if (text.length > MAX_PAYMENT_HEADER_BYTES) {
    return reject(
      'header_too_large',
      `${header} is ${text.length} bytes; at most ${MAX_PAYMENT_HEADER_BYTES} are accepted (an exact payment is about 1 KB)`,
    );
  }
  const decoded = decodeBase64Json(text, header);
  if (!decoded.ok) return decoded;
  const raw = decoded.value;
  const version = raw.x402Version;
  if (version !== 1 && version !== 2) {
    return reject('invalid_x402_version', `${header} payload has x402Version ${JSON.stringify(version) ?? 'missing'}; 1 or 2 is accepted`);
  }
  if (!('payload' in raw) || raw.payload === undefined || raw.payload === null) {
    return reject('malformed_payload', `${header} payload has no "payload" field`);
  }
  if (version === 1) {
    if (typeof raw.scheme !== 'string') return reject('malformed_payload', `${header} (x402 v1) needs a "scheme" string`);
    if (typeof raw.network !== 'string') return reject('malformed_payload', `${header} (x402 v1) needs a "network" string`);
    return {
      ok: true,
      payment: { version: 1, header, scheme: raw.scheme, network: raw.network, accepted: null, payload: raw.payload, raw, resources: [] },
    };
  }
  const accepted = raw.accepted;
  if (typeof accepted !== 'object' || accepted === null || Array.isArray(accepted)) {
    return reject('malformed_payload', `${header} (x402 v2) needs "accepted": the payment requirements entry the client chose`);
  }
  const acc = accepted as Record<string, unknown>;
  if (typeof acc.scheme !== 'string') return reject('malformed_payload', `${header} accepted.scheme must be a string`);
  if (typeof acc.network !== 'string') return reject('malformed_payload', `${header} accepted.network must be a string`);
  const resources: string[] = [];
  const resource = raw.resource;
  if (typeof resource === 'string') resources.push(resource);
  else if (typeof resource === 'object' && resource !== null && typeof (resource as Record<string, unknown>).url === 'string')
    resources.push((resource as Record<string, string>).url!);
  else if (resource !== undefined && resource !== null)
    return reject('malformed_payload', `${header} "resource" must be the 402's resource object {"url": ...}`);
  if (typeof acc.resource === 'string') resources.push(acc.resource);
  return {
    ok: true,
    payment: { version: 2, header, scheme: acc.scheme, network: acc.network, accepted: acc, payload: raw.payload, raw, resources },
  };
}

/**
 * The offer a payment is for. v1 matches by scheme + network (name; a CAIP-2 id is accepted too).
 * v2 also checks the fields of `accepted` that decide who is paid what in which token: amount,
 * asset, payTo and the EIP-712 domain / XRPL issuer; other fields (maxTimeoutSeconds, extra hints)
 * do not change what is signed and are not compared.
 */
export function matchOffer(payment: DecodedPayment, offers: readonly PaymentOffer[]): { ok: true; offer: PaymentOffer } | Rejection {
  if (payment.scheme !== 'exact') {
    return reject('invalid_scheme', `scheme "${payment.scheme}" is not accepted; this service takes "exact" only`);
  }
  const offer = offers.find((o) => o.network.name === payment.network || o.network.caip2 === payment.network);
  if (!offer) {
    const list = offers.map((o) => `${o.network.name} (${o.network.caip2})`).join(', ');
    return reject('unsupported_network', `network "${payment.network}" is not offered for this endpoint; offered: ${list || 'none'}`);
  }
  if (payment.version === 1) return { ok: true, offer };
  const acc = payment.accepted!;
  const want = offer.v2;
  if (acc.amount !== want.amount) {
    return reject(
      'amount_mismatch',
      `accepted.amount is ${JSON.stringify(acc.amount)}, this endpoint costs ${want.amount} on ${want.network}`,
    );
  }
  const scheme = schemeFor(offer.network);
  const same = (a: unknown, b: string) => typeof a === 'string' && scheme.sameAddress(a, b);
  if (!same(acc.payTo, want.payTo)) {
    return reject(
      'recipient_mismatch',
      `accepted.payTo is ${JSON.stringify(acc.payTo)}, this endpoint is paid to ${want.payTo} on ${want.network}`,
    );
  }
  if (!same(acc.asset, want.asset)) {
    return reject(
      'requirements_mismatch',
      `accepted.asset is ${JSON.stringify(acc.asset)}, this endpoint takes ${want.asset} on ${want.network}`,
    );
  }
  const extra = (typeof acc.extra === 'object' && acc.extra !== null ? acc.extra : {}) as Record<string, unknown>;
  for (const key of scheme.pinnedExtra) {
    if (extra[key] !== want.extra[key]) {
      return reject(
        'requirements_mismatch',
        `accepted.extra.${key} is ${JSON.stringify(extra[key])}, expected ${JSON.stringify(want.extra[key])} for ${want.network}`,
      );
    }
  }
  return { ok: true, offer };
}

// ------------------------------------------------------------------ settlement answer header

export interface SettlementOutcome {
  success: boolean;
  transaction: string;
  payer: string;
  errorReason?: string;
  errorMessage?: string;
  /** The settlement response's `extensions` (the offer-receipt extension's signed receipt). */
  extensions?: Record<string, unknown>;
}

/** `X-PAYMENT-RESPONSE` (v1: network name) or `PAYMENT-RESPONSE` (v2: CAIP-2), matching the payment's version. */
export function settlementHeader(version: 1 | 2, network: SettlementNetwork, outcome: SettlementOutcome): { name: string; value: string } {
  const body: Record<string, unknown> = {
    success: outcome.success,
    transaction: outcome.transaction,
    network: version === 1 ? network.name : network.caip2,
    payer: outcome.payer,
  };
  if (outcome.errorReason) body.errorReason = outcome.errorReason;
  if (outcome.errorMessage && version === 2) body.errorMessage = outcome.errorMessage;
  if (outcome.extensions) body.extensions = outcome.extensions;
  return { name: version === 1 ? 'X-PAYMENT-RESPONSE' : 'PAYMENT-RESPONSE', value: encodeBase64Json(body) };
}

// ------------------------------------------------------------------ resource URL

const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/**
 * Absolute URL of the resource for the requirements. Behind a reverse proxy the request URL says
 * http://127.0.0.1:4020; the service's public URL setting (KOREA_PUBLIC_URL, ANALYTICS_PUBLIC_URL)
 * gives the origin when set; else, with trustProxy, the first X-Forwarded-Proto / X-Forwarded-Host
 * values are used instead (only when they are well-formed), so clients see the URL they called
 * (docs/x402-protocol.md, "Resource URL behind a proxy").
 */
/** The origin clients reach the service at, as resourceUrlOf decides it (for documents, links and the discovery manifest). */
export function publicOriginOf(requestUrl: string, getHeader: HeaderGetter, trustProxy: boolean, publicUrl: string | null = null): string {
  return new URL(resourceUrlOf(requestUrl, getHeader, trustProxy, publicUrl)).origin;
}

export function resourceUrlOf(requestUrl: string, getHeader: HeaderGetter, trustProxy: boolean, publicUrl: string | null = null): string {
  const url = new URL(requestUrl);
  // a configured public origin wins over the request's Host and any forwarded header
  if (publicUrl) return new URL(`${url.pathname}${url.search}`, publicUrl).toString();
  if (!trustProxy) return url.toString();
  const proto = getHeader('X-Forwarded-Proto')?.split(',')[0]?.trim().toLowerCase();
  const host = getHeader('X-Forwarded-Host')?.split(',')[0]?.trim();
  const scheme = proto === 'http' || proto === 'https' ? proto : url.protocol.slice(0, -1);
  const authority = host && HOST.test(host) ? host : url.host;
  return new URL(`${url.pathname}${url.search}`, `${scheme}://${authority}`).toString();
}
