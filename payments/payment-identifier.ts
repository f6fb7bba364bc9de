/**
 * The x402 `payment-identifier` extension (x402-foundation/x402 specs/extensions/payment_identifier.md):
 * a client puts an id of its own in its payment payload, `extensions["payment-identifier"].info.id`,
 * and a retry of the SAME payment with the SAME id gets the answer the first request got (body,
 * receipt, settlement header) instead of a 402 or a second charge.
 *
 * How the paywall keeps it: the answer is serialized with the id and the request it answered
 * (replayText) and handed to the nonce store with the used payment (NonceStore.markUsed's
 * `replay`), so it lives exactly as long as the payment's single-use entry and in the same store
 * (memory, disk or Redis). The lookup keys on the payment itself, never on the id alone, so an id
 * cannot fetch somebody else's answer: the payment is verified before its replay is read.
 * Answers larger than MAX_REPLAY_BYTES are not kept (the retry is told so).
 *
 * The wire shapes follow @x402/extensions (payment-identifier module); the test compares them.
 */
import { reject, type Rejection } from './reasons.ts';

export const PAYMENT_IDENTIFIER = 'payment-identifier';
export const PAYMENT_ID_MIN_LENGTH = 16;
export const PAYMENT_ID_MAX_LENGTH = 128;
export const PAYMENT_ID_PATTERN = /^[a-zA-Z0-9_-]+$/;

/** Largest serialized answer kept for a retry; larger answers are served once only. */
export const MAX_REPLAY_BYTES = 1024 * 1024;

/** What the 402 declares: the extension is supported, an id is optional. */
export function paymentIdentifierDeclaration(): Record<string, unknown> {
  return {
    info: { required: false },
    schema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        required: { type: 'boolean' },
        id: { type: 'string', minLength: PAYMENT_ID_MIN_LENGTH, maxLength: PAYMENT_ID_MAX_LENGTH, pattern: PAYMENT_ID_PATTERN.source },
      },
      required: ['required'],
    },
  };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The client's payment identifier from a decoded payment payload: null when it sent none, a
 * rejection (malformed_payload) when what it sent is not a valid one.
 */
export function paymentIdentifierOf(payload: Record<string, unknown>): { ok: true; id: string | null } | Rejection {
  const extensions = payload.extensions;
  if (extensions === undefined || extensions === null) return { ok: true, id: null };
  if (!isObject(extensions)) return reject('malformed_payload', 'the payment payload\'s "extensions" must be a JSON object');
  const extension = extensions[PAYMENT_IDENTIFIER];
  if (extension === undefined) return { ok: true, id: null };
  const where = `extensions["${PAYMENT_IDENTIFIER}"]`;
  if (!isObject(extension) || !isObject(extension.info))
    return reject('malformed_payload', `${where} must be an object with an "info" object`);
  const id = extension.info.id;
  if (id === undefined) return { ok: true, id: null };
  if (typeof id !== 'string')
    return reject('malformed_payload', `${where}.info.id must be a string, got ${id === null ? 'null' : typeof id}`);
  if (id.length < PAYMENT_ID_MIN_LENGTH || id.length > PAYMENT_ID_MAX_LENGTH || !PAYMENT_ID_PATTERN.test(id)) {
    return reject(
      'malformed_payload',
      `${where}.info.id must be ${PAYMENT_ID_MIN_LENGTH} to ${PAYMENT_ID_MAX_LENGTH} characters of A-Z, a-z, 0-9, "-" and "_"; ` +
        `got ${id.length} characters${PAYMENT_ID_PATTERN.test(id) ? '' : ' including others'}`,
    );
  }
  return { ok: true, id };
}

/** A paid answer as kept for a retry. */
export interface ReplayedAnswer {
  status: number;
  headers: Record<string, string>;
  body: string | null;
}

interface StoredReplay extends ReplayedAnswer {
  v: 1;
  id: string;
  /** The request it answered (requestFingerprint): a retry must ask for the same thing. */
  request: string;
}

/** What makes two requests the same paid operation: method, canonical path and validated input. */
export function requestFingerprint(method: string, canonicalPath: string, input: unknown): string {
  return JSON.stringify([method, canonicalPath, input ?? null]);
}

/** The text kept with the used payment, or null when the answer is too large to keep. */
export function replayText(id: string, request: string, answer: ReplayedAnswer): string | null {
  const stored: StoredReplay = { v: 1, id, request, status: answer.status, headers: answer.headers, body: answer.body };
  const text = JSON.stringify(stored);
  return Buffer.byteLength(text, 'utf8') > MAX_REPLAY_BYTES ? null : text;
}

export type ReplayLookup =
  | { found: true; answer: ReplayedAnswer }
  /** why: what the 402 tells the client. */
  | { found: false; why: string };

/** The kept answer for a retry with `id` of the request `request`, from the store's text. */
export function replayFor(text: string | null, id: string, request: string): ReplayLookup {
  if (text === null) {
    return {
      found: false,
      why:
        `no answer is kept for payment-identifier "${id}": the payment was used without this identifier, ` +
        `or its answer was larger than ${MAX_REPLAY_BYTES} bytes and is served once only`,
    };
  }
  let stored: StoredReplay;
  try {
    stored = JSON.parse(text) as StoredReplay;
  } catch {
    return { found: false, why: 'the kept answer for this payment could not be read' };
  }
  if (stored.v !== 1 || stored.id !== id) {
    return { found: false, why: 'it was used with another payment-identifier, so its answer is not given out again' };
  }
  if (stored.request !== request) {
    return { found: false, why: `it was used with payment-identifier "${id}" for another request, whose answer is not given for this one` };
  }
  return { found: true, answer: { status: stored.status, headers: stored.headers, body: stored.body } };
}
