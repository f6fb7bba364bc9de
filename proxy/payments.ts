/**
 * The service app's PaymentGate on top of the x402 paywall (proxy/x402/paywall.ts): the app
 * validates, prechecks and finds the handler; the paywall asks for, verifies, reserves, settles and
 * receipts the payment around the handler's answer.
 */
import { SERVICE_INFO } from '../catalog/index.ts';
import type { ServiceName } from '../catalog/types.ts';
import type { Settings } from '../lib/config.ts';
import type { PaidAnswer, PaidCall, PaymentGate } from './service-app.ts';
import { paywallFromSettings, type Paywall } from './x402/paywall.ts';
import { payToByNetworkName } from './x402/networks.ts';
import type { NonceStore } from './x402/nonce-store.ts';
import { ReceiptSigner } from './x402/receipts.ts';
import { sharedCrypto } from './x402/crypto-pool.ts';

export function paymentGate(service: ServiceName, paywall: Paywall): PaymentGate {
  return {
    async run(call: PaidCall): Promise<PaidAnswer> {
      const path = new URL(call.resourceUrl).pathname;
      const headers = (name: string) => {
        const n = name.toLowerCase();
        if (n === 'x-payment') return call.paymentHeaders.xPayment;
        if (n === 'payment-signature') return call.paymentHeaders.paymentSignature;
        return undefined;
      };
      const result = await paywall.handle({ endpoint: call.endpoint, path, url: call.resourceUrl, headers }, async () => {
        const r = await call.serve();
        return { status: r.status, body: r.body, ...(r.status === 200 && r.contentType ? { headers: { 'Content-Type': r.contentType } } : {}) };
      });
      return { status: result.status, headers: result.headers, body: result.body, json: result.json };
    },
    discovery() {
      return { signer: paywall.signer, payTo: payToByNetworkName(paywall.payTo, SERVICE_INFO[service].networks) };
    },
  };
}

/**
 * The payment gate of a service from the settings. The signature checks and receipt signatures
 * run on CRYPTO_WORKERS worker threads (default "auto": one per core when there are at least two;
 * 0 = on the event loop), shared by every service of the process that uses the same signer.
 */
export async function paymentGateFromSettings(
  service: ServiceName,
  settings: Settings,
  extra: { signer?: ReceiptSigner; nonceStore?: NonceStore; now?: () => Date; cryptoWorkers?: number } = {},
): Promise<{ gate: PaymentGate; paywall: Paywall; problems: string[] }> {
  const signer = extra.signer ?? ReceiptSigner.load(settings).signer;
  const workers = extra.cryptoWorkers ?? settings.cryptoWorkers;
  const { cryptoWorkers: _workers, ...rest } = extra;
  const paywall = paywallFromSettings(service, settings, { ...rest, signer, crypto: sharedCrypto(signer, workers) });
  const problems = await paywall.init();
  return { gate: paymentGate(service, paywall), paywall, problems };
}
