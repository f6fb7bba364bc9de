import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../../lib/config.ts';
import { cryptoCeiling, freshPaymentHeader } from './bench-support.ts';
import { secp256k1 } from '../secp256k1.ts';
import { endpoint, json, localPaywall, paidApp } from './paywall.ts';

describe('bench support', () => {
  it('cryptoCeiling measures verify + receipt per second, the bare operations and the fallback', () => {
    const c = cryptoCeiling(150);
    expect(c.backend).toBe(secp256k1.backend);
    expect(c.perSecond).toBeGreaterThan(0);
    expect(c.iterations).toBeGreaterThan(0);
    for (const rate of [
      c.verifyPerSecond,
      c.receiptPerSecond,
      c.recoverPerSecond,
      c.signPerSecond,
      c.fallbackPerSecond,
      c.fallbackRecoverPerSecond,
      c.fallbackSignPerSecond,
    ]) {
      expect(rate).toBeGreaterThan(0);
    }
  });

  it('freshPaymentHeader pays a paywall built from the settings, once per header, v1 and v2', async () => {
    const settings = loadSettings({ KEYS_DIR: join(mkdtempSync(join(tmpdir(), 'bench-keys-')), 'k') });
    const paywall = localPaywall({ settings });
    const app = paidApp(paywall, { service: 'korea' });
    const decl = endpoint('korea', 'fx-rate');
    for (const version of [1, 2] as const) {
      const h = freshPaymentHeader({ endpoint: decl, payTo: paywall.payTo, version, network: version === 1 ? 'base' : 'polygon' });
      const res = await app.request('http://127.0.0.1:4020/api/v1/fx-rate', { headers: { [h.name]: h.value } });
      expect(res.status).toBe(200);
      expect((await json(res)).receipt.payer).toBe(h.payer);
    }
    const a = freshPaymentHeader({ endpoint: decl, payTo: paywall.payTo });
    const b = freshPaymentHeader({ endpoint: decl, payTo: paywall.payTo });
    expect(a.value).not.toBe(b.value);
  });
});
