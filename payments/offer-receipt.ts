/**
 * The x402 `offer-receipt` extension (x402-foundation/x402 specs/extensions/extension-offer-and-receipt.md),
 * EIP-712 format, signed with the service's receipt key (receipts.ts):
 *
 * - Signed offers in the 402: `extensions["offer-receipt"].info.offers[]`, one per `accepts` entry
 *   (acceptIndex), domain {name: "x402 offer", version: "1", chainId: 1}. An offer is signed once
 *   and reused until half its validity is gone (OfferCache), so a 402 costs no signature in the
 *   steady state.
 * - The receipt of a paid answer in the settlement response (PAYMENT-RESPONSE / X-PAYMENT-RESPONSE):
 *   `extensions["offer-receipt"].info.receipt` = {format: "eip712", payload, signature}, domain
 *   {name: "x402 receipt", version: "1", chainId: 1}. It sits alongside the pipe-joined receipt
 *   (receipts.ts), which stays: the standard one is what any x402 tool checks
 *   (@x402/extensions verifyReceiptSignatureEIP712), the pipe-joined one carries the amount, price
 *   and settlement mode.
 *
 * `resourceUrl` in both is the canonical resource without its query string (origin + the
 * catalog's path with the validated path parameters), so that a receipt matches the offer it
 * answers (verifyReceiptMatchesOffer compares them) and the offers of an endpoint are few enough
 * to cache. `transaction` is the settlement transaction in facilitator mode and "" in local mode,
 * where nothing moved on chain.
 *
 * The EIP-712 digests are computed here with @noble/hashes, as eip3009.ts does for EIP-3009: the
 * two types are fixed, and @x402/extensions would bring viem, ajv and jose into the server for
 * them. The test checks every digest against @x402/extensions' own.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import type { PaymentOffer } from './wire.ts';

export const OFFER_RECEIPT = 'offer-receipt';
/** Payload version of offers and receipts. */
const PAYLOAD_VERSION = 1;
/** How long a signed offer is valid (the x402 reference uses the offer's maxTimeoutSeconds when not told). */
export const OFFER_VALIDITY_SECONDS = 600;

export interface ReceiptPayload {
  version: number;
  network: string;
  resourceUrl: string;
  payer: string;
  issuedAt: number;
  transaction: string;
}

export interface OfferPayload {
  version: number;
  resourceUrl: string;
  scheme: string;
  network: string;
  asset: string;
  payTo: string;
  amount: string;
  validUntil: number;
}

export interface SignedOffer {
  format: 'eip712';
  acceptIndex: number;
  payload: OfferPayload;
  signature: string;
}

export interface SignedReceipt {
  format: 'eip712';
  payload: ReceiptPayload;
  signature: string;
}

const typeHash = (text: string) => keccak_256(utf8ToBytes(text));
const DOMAIN_TYPEHASH = typeHash('EIP712Domain(string name,string version,uint256 chainId)');
const RECEIPT_TYPEHASH = typeHash(
  'Receipt(uint256 version,string network,string resourceUrl,string payer,uint256 issuedAt,string transaction)',
);
const OFFER_TYPEHASH = typeHash(
  'Offer(uint256 version,string resourceUrl,string scheme,string network,string asset,string payTo,string amount,uint256 validUntil)',
);

/** One 32-byte EIP-712 word per field: uint256 big-endian, string as keccak256 of its UTF-8. */
function encodeStruct(words: ReadonlyArray<Uint8Array | string | number>): Uint8Array {
  const buf = new Uint8Array(32 * words.length);
  words.forEach((word, i) => {
    if (word instanceof Uint8Array) buf.set(word, 32 * i);
    else if (typeof word === 'string') buf.set(keccak_256(utf8ToBytes(word)), 32 * i);
    else {
      if (!Number.isSafeInteger(word) || word < 0) throw new Error(`EIP-712 uint256 field must be a non-negative integer, got ${word}`);
      let value = BigInt(word);
      for (let j = 31; j >= 0 && value > 0n; j--, value >>= 8n) buf[32 * i + j] = Number(value & 0xffn);
    }
  });
  return keccak_256(buf);
}

const domainSeparator = (name: string) => encodeStruct([DOMAIN_TYPEHASH, name, '1', 1]);
const RECEIPT_DOMAIN = domainSeparator('x402 receipt');
const OFFER_DOMAIN = domainSeparator('x402 offer');

function typedDataDigest(domain: Uint8Array, structHash: Uint8Array): Uint8Array {
  const buf = new Uint8Array(66);
  buf[0] = 0x19;
  buf[1] = 0x01;
  buf.set(domain, 2);
  buf.set(structHash, 34);
  return keccak_256(buf);
}

/** The EIP-712 digest a receipt's signature signs. */
export function receiptDigest(p: ReceiptPayload): Uint8Array {
  return typedDataDigest(
    RECEIPT_DOMAIN,
    encodeStruct([RECEIPT_TYPEHASH, p.version, p.network, p.resourceUrl, p.payer, p.issuedAt, p.transaction]),
  );
}

/** The EIP-712 digest an offer's signature signs. */
export function offerDigest(p: OfferPayload): Uint8Array {
  return typedDataDigest(
    OFFER_DOMAIN,
    encodeStruct([OFFER_TYPEHASH, p.version, p.resourceUrl, p.scheme, p.network, p.asset, p.payTo, p.amount, p.validUntil]),
  );
}

export function receiptPayload(input: Omit<ReceiptPayload, 'version'>): ReceiptPayload {
  return { version: PAYLOAD_VERSION, ...input };
}

/** The JSON schemas @x402/extensions attaches next to `info` (what the data looks like, for clients that validate). */
const RECEIPT_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    receipt: {
      type: 'object',
      properties: {
        format: { type: 'string' },
        payload: {
          type: 'object',
          properties: {
            version: { type: 'integer' },
            network: { type: 'string' },
            resourceUrl: { type: 'string' },
            payer: { type: 'string' },
            issuedAt: { type: 'integer' },
            transaction: { type: 'string' },
          },
          required: ['version', 'network', 'resourceUrl', 'payer', 'issuedAt'],
        },
        signature: { type: 'string' },
      },
      required: ['format', 'signature'],
    },
  },
  required: ['receipt'],
};

const OFFER_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    offers: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          format: { type: 'string' },
          acceptIndex: { type: 'integer' },
          payload: {
            type: 'object',
            properties: {
              version: { type: 'integer' },
              resourceUrl: { type: 'string' },
              scheme: { type: 'string' },
              network: { type: 'string' },
              asset: { type: 'string' },
              payTo: { type: 'string' },
              amount: { type: 'string' },
              validUntil: { type: 'integer' },
            },
            required: ['version', 'resourceUrl', 'scheme', 'network', 'asset', 'payTo', 'amount'],
          },
          signature: { type: 'string' },
        },
        required: ['format', 'signature'],
      },
    },
  },
  required: ['offers'],
};

/** The settlement response's `extensions` entry carrying a signed receipt. */
export function receiptExtension(receipt: SignedReceipt): Record<string, unknown> {
  return { [OFFER_RECEIPT]: { info: { receipt }, schema: RECEIPT_SCHEMA } };
}

/** The 402's `extensions` entry carrying the signed offers. */
export function offersExtension(offers: SignedOffer[]): Record<string, unknown> {
  return { [OFFER_RECEIPT]: { info: { offers }, schema: OFFER_SCHEMA } };
}

/** Signs a 32-byte digest with the receipt key: 0x + r‖s‖v (PaymentCrypto.signReceiptDigest). */
export type DigestSigner = (digest: Uint8Array) => string | Promise<string>;

/**
 * Signed offers by resource URL and terms, each reused until half its validity is gone. Bounded:
 * past MAX_CACHED entries the cache starts over (resource URLs have no query string, so a service
 * has about one entry per endpoint, network and host name it is called by).
 */
export class OfferCache {
  static readonly MAX_CACHED = 4096;
  readonly #offers = new Map<string, SignedOffer>();

  constructor(
    private readonly sign: DigestSigner,
    private readonly now: () => number,
  ) {}

  async offers(resourceUrl: string, offered: readonly PaymentOffer[]): Promise<SignedOffer[]> {
    const now = this.now();
    return Promise.all(
      offered.map(async (offer, acceptIndex) => {
        const { scheme, network, asset, payTo, amount } = offer.v2;
        const key = JSON.stringify([resourceUrl, acceptIndex, scheme, network, asset, payTo, amount]);
        const cached = this.#offers.get(key);
        if (cached && cached.payload.validUntil - now > OFFER_VALIDITY_SECONDS / 2) return cached;
        const payload: OfferPayload = {
          version: PAYLOAD_VERSION,
          resourceUrl,
          scheme,
          network,
          asset,
          payTo,
          amount,
          validUntil: now + OFFER_VALIDITY_SECONDS,
        };
        const signed: SignedOffer = { format: 'eip712', acceptIndex, payload, signature: await this.sign(offerDigest(payload)) };
        if (this.#offers.size >= OfferCache.MAX_CACHED) this.#offers.clear();
        this.#offers.set(key, signed);
        return signed;
      }),
    );
  }
}
