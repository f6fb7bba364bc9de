import { availableParallelism } from 'node:os';
import { loadSettings } from '../lib/config.ts';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { authorizationDigest, checkAuthorizationSigner, signAuthorization, type EvmAuthorization } from './eip3009.ts';
import { CryptoWorkerPool, inlineCrypto } from './crypto-pool.ts';
import { BASE, domainSeparator, POLYGON } from './networks.ts';
import { signExactEvm } from './client/payer.ts';
import { assembleReceipt, RECEIPT_FIELDS, receiptSigningText, ReceiptSigner, verifyReceipt, type ReceiptFields } from './receipts.ts';
import { endpoint, json, localPaywall, MERCHANT, PAYER, PAYER_KEY, paidApp } from './testing/paywall.ts';
import { encodeBase64Json } from './wire.ts';

const signer = ReceiptSigner.random();
const pool = CryptoWorkerPool.start(signer, 2);
afterAll(() => pool.close());

const now = Math.floor(Date.now() / 1000);
function authorization(): EvmAuthorization {
  return {
    from: PAYER,
    to: MERCHANT,
    value: '1000',
    validAfter: String(now - 600),
    validBefore: String(now + 300),
    nonce: `0x${randomBytes(32).toString('hex')}`,
  };
}

const fields: ReceiptFields = {
  id: 'r1',
  endpoint: '/api/v1/fx-rate',
  amount: '0.001',
  currency: 'USDC',
  network: 'base',
  tx_hash: 'local:0x01',
  payer: PAYER,
  merchant: MERCHANT,
  issued_at: new Date().toISOString(),
};

describe('CRYPTO_WORKERS', () => {
  it('auto follows the cores; numbers are taken as given; anything else is refused', () => {
    const workers = (value: string | undefined) => loadSettings(value === undefined ? {} : { CRYPTO_WORKERS: value }).cryptoWorkers;
    expect(workers('0')).toBe(0);
    expect(workers('3')).toBe(3);
    expect(workers(undefined)).toBe(workers('auto'));
    // auto: inline up to 2 cores (measured cheaper there), one worker per core above
    const cores = availableParallelism();
    expect(workers('auto')).toBe(cores > 2 ? cores : 0);
    expect(() => workers('many')).toThrow(/CRYPTO_WORKERS must be "auto" or a number/);
    expect(() => workers('-1')).toThrow(/CRYPTO_WORKERS/);
  });
});

describe('crypto worker pool', () => {
  it('checks signatures like the inline code: good, tampered, wrong v, wrong domain; many at once', async () => {
    const cases = Array.from({ length: 40 }, (_, i) => {
      const a = authorization();
      const good = signAuthorization(BASE, a, PAYER_KEY);
      const signature =
        i % 4 === 1
          ? `${good.slice(0, 20)}${good[20] === '0' ? '1' : '0'}${good.slice(21)}`
          : i % 4 === 2
            ? `${good.slice(0, -2)}01`
            : good;
      const separator = domainSeparator(i % 4 === 3 ? POLYGON : BASE);
      return { a, signature, separator };
    });
    const fromWorkers = await Promise.all(cases.map((c) => pool.checkAuthorization(c.separator, c.a, c.signature)));
    const inline = cases.map((c) => checkAuthorizationSigner(c.separator, c.a, c.signature));
    expect(fromWorkers).toEqual(inline);
    expect(fromWorkers.filter((r) => r.ok)).toHaveLength(10);
    expect(fromWorkers[2]).toMatchObject({ ok: false, reason: 'invalid_signature', message: expect.stringMatching(/v is 1/) });
    expect(authorizationDigest(BASE, cases[0]!.a)).toHaveLength(32);
  });

  it("signs receipts with the signer's key; the key stays out of inspection", async () => {
    const texts = Array.from({ length: 12 }, (_, i) => RECEIPT_FIELDS.map((f) => (f === 'id' ? `r${i}` : fields[f])).join('|'));
    const signatures = await Promise.all(texts.map((t) => pool.signReceiptText(t)));
    signatures.forEach((signature, i) => {
      const receipt = { ...fields, id: `r${i}`, settlement: 'local', signature, signature_scheme: 'eip191-secp256k1', signer: signer.info };
      expect(verifyReceipt(receipt, signer.info.public_key)).toEqual({ ok: true, address: signer.info.address });
    });
    expect(pool.workers).toBe(2);
    expect(pool.signerAddress).toBe(signer.info.address);
    expect(inspect(pool, { depth: 5, showHidden: true })).not.toMatch(/[0-9a-f]{64}/i);
    expect(JSON.stringify(pool)).not.toMatch(/[0-9a-f]{64}|key/i);
  });

  it.runIf(existsSync('/proc/thread-self'))(
    'runs its workers 10 nicer than the process (Linux), so the event loop goes first',
    async () => {
      await pool.signReceiptText('warm'); // both workers are up once each has answered
      await Promise.all(Array.from({ length: 8 }, (_, i) => pool.signReceiptText(`t${i}`)));
      const own = getPriority();
      const nice = readdirSync('/proc/self/task').map((tid) => {
        // field 19 of stat is the nice value; the command name (field 2) may hold spaces, so count from its ')'
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
      });
      expect(nice.filter((n) => n === Math.min(19, own + 10)).length).toBeGreaterThanOrEqual(2);
      expect(nice).toContain(own); // the main thread keeps the process's priority
    },
  );

  it('serves a paywall: paid requests get verified receipts, bad and replayed payments are refused', async () => {
    const paywall = localPaywall({ signer, crypto: pool });
    const app = paidApp(paywall, { service: 'korea', prices: { 'fx-rate': '0.001' } });
    const decl = { ...endpoint('korea', 'fx-rate'), priceUsd: '0.001' };
    const offer = paywall.offers(decl, decl.path, `http://127.0.0.1:4020${decl.path}`).find((o) => o.network === BASE)!;
    const header = () => {
      const payload = signExactEvm({ network: BASE, payTo: offer.v2.payTo, amount: offer.v2.amount, maxTimeoutSeconds: 300 }, PAYER_KEY);
      return { 'X-PAYMENT': encodeBase64Json({ x402Version: 1, scheme: 'exact', network: 'base', payload }), payload };
    };
    const request = (h: Record<string, string>) => app.request(`http://127.0.0.1:4020${decl.path}`, { headers: h });

    const payments = Array.from({ length: 16 }, header);
    const answers = await Promise.all(payments.map((p) => request({ 'X-PAYMENT': p['X-PAYMENT'] })));
    for (const res of answers) {
      expect(res.status).toBe(200);
      const body = await json(res);
      expect(verifyReceipt(body.receipt, paywall.signer.public_key)).toMatchObject({ ok: true });
      expect(body.receipt.payer).toBe(PAYER);
    }
    const replay = await request({ 'X-PAYMENT': payments[0]!['X-PAYMENT'] });
    expect(replay.status).toBe(402);
    expect((await json(replay)).reason).toBe('nonce_used');

    const p = header();
    const forged = { ...p.payload, authorization: { ...p.payload.authorization, value: '1000', nonce: `0x${'77'.repeat(32)}` } };
    const refused = await request({ 'X-PAYMENT': encodeBase64Json({ x402Version: 1, scheme: 'exact', network: 'base', payload: forged }) });
    expect(refused.status).toBe(402);
    expect(await json(refused)).toMatchObject({
      reason: 'invalid_signature',
      error: expect.stringMatching(/^signature recovers 0x[0-9a-fA-F]{40}, authorization.from is/),
    });
  });

  it('a paywall refuses crypto that signs with another key', () => {
    expect(() => localPaywall({ crypto: inlineCrypto(signer) })).toThrow(/another receipt key/);
  });

  it('after close, requests are refused', async () => {
    const small = CryptoWorkerPool.start(signer, 1);
    expect(await small.signReceiptText('a|b')).toMatch(/^0x[0-9a-f]{130}$/);
    await small.close();
    await expect(small.signReceiptText('a|b')).rejects.toThrow(/closed/);
  });
});

describe('crypto worker pool that cannot start', () => {
  it('falls back to the calling thread after three failures, once logged, and still answers', async () => {
    const errors: string[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void errors.push(args.join(' '));
    try {
      const entry = join(mkdtempSync(join(tmpdir(), 'crypto-worker-')), 'broken.mjs');
      writeFileSync(entry, 'throw new Error("cannot start");\n');
      const broken = CryptoWorkerPool.start(signer, 2, { entry: pathToFileURL(entry) });
      const a = authorization();
      const good = signAuthorization(BASE, a, PAYER_KEY);
      // together (one batch per worker), then one at a time: three failed batches in all
      const answers = [
        ...(await Promise.all([broken.checkAuthorization(domainSeparator(BASE), a, good), broken.signReceiptText('x|y')])),
        await broken.checkAuthorization(domainSeparator(BASE), a, `${good.slice(0, -2)}01`),
      ];
      expect(broken.workers).toBe(0);
      answers.push(await broken.signReceiptText(receiptSigningText(fields)));
      expect(answers[0]).toEqual({ ok: true });
      expect(answers[1]).toMatch(/^0x[0-9a-f]{130}$/);
      expect(answers[2]).toMatchObject({ ok: false, reason: 'invalid_signature' });
      expect(verifyReceipt(assembleReceipt(fields, 'local', answers[3] as string, signer.info), signer.info.address)).toMatchObject({
        ok: true,
      });
      expect(broken.workers).toBe(0);
      expect(await broken.signReceiptText('after')).toMatch(/^0x[0-9a-f]{130}$/); // from now on on the calling thread
      expect(errors.filter((e) => /keep failing/.test(e))).toHaveLength(1);
      expect(errors.join('\n')).not.toMatch(/[0-9a-f]{64}/i);
      await broken.close();
    } finally {
      console.error = original;
    }
  });
});
