/**
 * The offer-receipt extension's EIP-712 artifacts (offer-receipt.ts) against the x402 reference's
 * own implementation (@x402/extensions): the same digests for the same payloads, and signatures
 * from the receipt key, inline and on a crypto worker thread, that its verifiers accept.
 */
import { bytesToHex } from '@noble/hashes/utils.js';
import {
  hashOfferTypedData,
  hashReceiptTypedData,
  verifyOfferSignatureEIP712,
  verifyReceiptSignatureEIP712,
} from '@x402/extensions/offer-receipt';
import { afterAll, describe, expect, it } from 'vitest';
import { CryptoWorkerPool, inlineCrypto } from './crypto-pool.ts';
import { BASE } from './networks.ts';
import { OFFER_VALIDITY_SECONDS, OfferCache, offerDigest, receiptDigest, receiptPayload, type OfferPayload } from './offer-receipt.ts';
import { ReceiptSigner } from './receipts.ts';
import { buildOffers } from './wire.ts';
import { MERCHANT } from './testing/paywall.ts';

const signer = ReceiptSigner.random();
const pool = CryptoWorkerPool.start(signer, 1);
afterAll(() => pool.close());

const receipts = [
  receiptPayload({
    network: 'eip155:8453',
    resourceUrl: 'https://api.example.com/api/v1/fx-rate',
    payer: MERCHANT,
    issuedAt: 1_763_629_230,
    transaction: '',
  }),
  receiptPayload({
    network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    resourceUrl: 'https://api.example.com/api/v1/categories/ai_inference/full-history',
    payer: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM',
    issuedAt: 2 ** 40,
    transaction: '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW',
  }),
  receiptPayload({ network: 'xrpl:0', resourceUrl: 'https://例え.jp/ü?x=1', payer: 'r', issuedAt: 0, transaction: 'ab|cd' }),
];
const offer: OfferPayload = {
  version: 1,
  resourceUrl: 'https://api.example.com/api/v1/fx-rate',
  scheme: 'exact',
  network: 'eip155:8453',
  asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  payTo: MERCHANT,
  amount: '1000',
  validUntil: 1_763_629_830,
};

describe('EIP-712 digests', () => {
  it('are the ones @x402/extensions computes, for receipts and offers', () => {
    for (const p of receipts) expect(`0x${bytesToHex(receiptDigest(p))}`).toBe(hashReceiptTypedData(p));
    expect(`0x${bytesToHex(offerDigest(offer))}`).toBe(hashOfferTypedData(offer));
    expect(`0x${bytesToHex(offerDigest({ ...offer, validUntil: 0 }))}`).toBe(hashOfferTypedData({ ...offer, validUntil: 0 }));
  });

  it('change with every field', () => {
    const base = bytesToHex(receiptDigest(receipts[0]!));
    for (const change of [{ payer: 'x' }, { issuedAt: 1 }, { transaction: 't' }, { network: 'eip155:1' }, { resourceUrl: 'https://x' }]) {
      expect(bytesToHex(receiptDigest({ ...receipts[0]!, ...change }))).not.toBe(base);
    }
  });
});

describe('signatures by the receipt key', () => {
  it.each([
    ['inline', inlineCrypto(signer)],
    ['on a worker thread', pool],
  ] as const)('%s: verifyReceiptSignatureEIP712 / verifyOfferSignatureEIP712 recover the receipt signer', async (_where, crypto) => {
    for (const payload of receipts) {
      const signature = await crypto.signReceiptDigest(receiptDigest(payload));
      const verified = await verifyReceiptSignatureEIP712({ format: 'eip712', payload, signature });
      expect(verified.signer.toLowerCase()).toBe(signer.info.address.toLowerCase());
    }
    const signature = await crypto.signReceiptDigest(offerDigest(offer));
    const verified = await verifyOfferSignatureEIP712({ format: 'eip712', payload: offer, signature });
    expect(verified.signer.toLowerCase()).toBe(signer.info.address.toLowerCase());
  });

  it('refuses a digest that is not 32 bytes', async () => {
    expect(() => signer.signDigest(new Uint8Array(31))).toThrow(/32-byte/);
    await expect(pool.signReceiptDigest(new Uint8Array(31))).rejects.toThrow(/32-byte/);
  });
});

describe('OfferCache', () => {
  it('signs an offer once and again only when half its validity is gone', async () => {
    let now = 1_000_000;
    let signatures = 0;
    const cache = new OfferCache(
      (digest) => {
        signatures++;
        return signer.signDigest(digest);
      },
      () => now,
    );
    const offered = buildOffers({
      priceUsd: '0.001',
      method: 'GET',
      description: 'd',
      mimeType: 'application/json',
      resourceUrl: 'https://x/api/v1/fx-rate',
      networks: [BASE],
      payTo: { evm: MERCHANT, solana: null, xrpl: null, demo: { evm: false, solana: false, xrpl: false } },
    });
    const first = await cache.offers('https://x/api/v1/fx-rate', offered);
    expect(first[0]!.payload.validUntil).toBe(now + OFFER_VALIDITY_SECONDS);
    expect(await cache.offers('https://x/api/v1/fx-rate', offered)).toEqual(first);
    expect(signatures).toBe(1);
    now += OFFER_VALIDITY_SECONDS / 2 + 1;
    const second = await cache.offers('https://x/api/v1/fx-rate', offered);
    expect(signatures).toBe(2);
    expect(second[0]!.payload.validUntil).toBe(now + OFFER_VALIDITY_SECONDS);
    await cache.offers('https://y/api/v1/fx-rate', offered);
    expect(signatures).toBe(3);
  });
});
