/**
 * npm run pay -- <url> [--network base] [--max-usd 0.10] [--signer KEY] [--x402-version 1|2] [--method POST --data JSON]
 *
 * Buys one response from an x402 endpoint: requests it, reads the 402 (v2 PAYMENT-REQUIRED header
 * when present, else the v1 body), checks the offer for --network against the pinned USDC table
 * and the --max-usd budget, signs an EIP-3009 authorization with PAYER_PRIVATE_KEY (never
 * printed), repeats the request with the payment header, prints the data to stdout and checks the
 * receipt against the service's /.well-known/x402 `receipt_signer` (or --signer).
 *
 * Exit: 0 = paid, data received, receipt verified; 1 = refused, failed or receipt not verified;
 * 2 = usage or configuration error.
 */
import { hexToBytes } from '@noble/hashes/utils.js';
import { splitArgs, UsageError } from '../lib/args.ts';
import { payerPrivateKey } from '../lib/config.ts';
import { addressOfPrivateKey, sameAddress } from '../proxy/x402/eip3009.ts';
import { canonicalDecimal, toAtomicUnits } from '../proxy/x402/networks.ts';
import { chooseEvmOffer, offerUsd, paymentHeader, readChallenge, signExactEvm } from '../proxy/x402/payer.ts';
import { verifyReceipt } from '../proxy/x402/receipts.ts';
import { decodeBase64Json } from '../proxy/x402/wire.ts';

const USAGE = `usage: npm run pay -- <url> [--network base|polygon|base-sepolia] [--max-usd 0.10] [--signer PUBLIC_KEY_OR_ADDRESS]
                    [--x402-version 1|2] [--method GET|POST] [--data JSON]
  PAYER_PRIVATE_KEY  hex private key of the paying wallet (required; never printed)
  --network          EVM network to pay on (default base)
  --max-usd          refuse to pay more than this per call (default 0.10)
  --signer           receipt signer to trust when the service has no /.well-known/x402 (public key or address)
  --x402-version     force the payment header version (default: 2 if the 402 has PAYMENT-REQUIRED, else 1)`;

export interface PayIo {
  out: (text: string) => void;
  err: (text: string) => void;
  fetch: typeof fetch;
}

const defaultIo: PayIo = {
  out: (t) => process.stdout.write(`${t}\n`),
  err: (t) => process.stderr.write(`${t}\n`),
  fetch: (input, init) => fetch(input, init),
};

export async function pay(argv: readonly string[], env: NodeJS.ProcessEnv = process.env, io: PayIo = defaultIo): Promise<number> {
  let url: URL;
  let network: string;
  let maxUsd: string;
  let method: 'GET' | 'POST';
  let forcedVersion: 1 | 2 | null = null;
  let data: string | undefined;
  let signerFlag: string | undefined;
  let key: Uint8Array;
  try {
    const { positional, flags } = splitArgs(argv, ['network', 'max-usd', 'signer', 'x402-version', 'method', 'data'], USAGE);
    if (positional.length !== 1) throw new UsageError(`give exactly one URL\n${USAGE}`);
    try {
      url = new URL(positional[0]!);
    } catch {
      throw new UsageError(`"${positional[0]}" is not a URL\n${USAGE}`);
    }
    network = flags.get('network') ?? 'base';
    maxUsd = flags.get('max-usd') ?? '0.10';
    if (!/^\d+(\.\d+)?$/.test(maxUsd)) throw new UsageError(`--max-usd must be a decimal like 0.10, got "${maxUsd}"`);
    const m = (flags.get('method') ?? (flags.has('data') ? 'POST' : 'GET')).toUpperCase();
    if (m !== 'GET' && m !== 'POST') throw new UsageError(`--method must be GET or POST, got "${m}"`);
    method = m;
    const v = flags.get('x402-version');
    if (v !== undefined) {
      if (v !== '1' && v !== '2') throw new UsageError(`--x402-version must be 1 or 2, got "${v}"`);
      forcedVersion = Number(v) as 1 | 2;
    }
    data = flags.get('data');
    if (data !== undefined) {
      try {
        JSON.parse(data);
      } catch {
        throw new UsageError(`--data must be JSON, got ${data}`);
      }
    }
    signerFlag = flags.get('signer');
    const secret = payerPrivateKey(env);
    if (!secret) {
      throw new UsageError(
        'PAYER_PRIVATE_KEY is not set: export the hex private key of a wallet holding USDC on the network you pay on ' +
          '(against a SETTLEMENT=local demo server any key works, e.g. one from `cast wallet new`)',
      );
    }
    key = hexToBytes(secret.reveal());
  } catch (err) {
    io.err(err instanceof Error ? err.message : String(err));
    return 2;
  }
  const payer = addressOfPrivateKey(key);
  const init = (extra: Record<string, string> = {}): RequestInit => ({
    method,
    headers: { accept: 'application/json', ...(data !== undefined ? { 'content-type': 'application/json' } : {}), ...extra },
    ...(data !== undefined ? { body: data } : {}),
  });

  // ---- 1. the challenge
  let first: Response;
  try {
    first = await io.fetch(url, init());
  } catch (err) {
    io.err(`could not reach ${url}: ${(err as Error).message}`);
    return 1;
  }
  const firstText = await first.text();
  if (first.status !== 402) {
    io.out(firstText);
    io.err(`${url} answered ${first.status} without asking for payment; nothing was paid`);
    return first.status === 200 ? 0 : 1;
  }
  let challenge;
  let offer;
  try {
    challenge = readChallenge(first.headers.get('PAYMENT-REQUIRED'), safeJson(firstText));
    if (forcedVersion !== null && forcedVersion !== challenge.version) {
      challenge = forcedVersion === 1 ? readChallenge(null, safeJson(firstText)) : challenge;
      if (forcedVersion === 2 && challenge.version !== 2) throw new Error('--x402-version 2: the 402 has no PAYMENT-REQUIRED header');
    }
    offer = chooseEvmOffer(challenge, network);
  } catch (err) {
    io.err(`cannot pay ${url}: ${(err as Error).message}`);
    return 1;
  }
  const priceUsd = offerUsd(offer);
  if (BigInt(offer.amount) > BigInt(toAtomicUnits(maxUsd, offer.network.usdc.decimals))) {
    io.err(`${url} costs ${priceUsd} USDC on ${offer.network.name}, more than --max-usd ${maxUsd}; nothing was paid`);
    return 1;
  }

  // ---- 2. pay
  const payload = signExactEvm(offer, key);
  const header = paymentHeader(challenge, offer, payload);
  io.err(`paying ${priceUsd} USDC on ${offer.network.name} to ${offer.payTo} from ${payer} (x402 v${challenge.version}, ${header.name})`);
  let second: Response;
  try {
    second = await io.fetch(url, init({ [header.name]: header.value }));
  } catch (err) {
    io.err(
      `could not reach ${url} with the payment: ${(err as Error).message}. The authorization (nonce ${payload.authorization.nonce}) expires at ${payload.authorization.validBefore}`,
    );
    return 1;
  }
  const text = await second.text();
  const body = safeJson(text) as Record<string, unknown> | null;
  const settlementText = second.headers.get('PAYMENT-RESPONSE') ?? second.headers.get('X-PAYMENT-RESPONSE');
  const settlement = settlementText ? decodeBase64Json(settlementText, 'payment response header') : null;
  if (second.status !== 200) {
    const reason = body && typeof body.reason === 'string' ? body.reason : null;
    const message = body && typeof body.error === 'string' ? body.error : text.slice(0, 500);
    io.out(text);
    io.err(`payment not accepted: HTTP ${second.status}${reason ? ` ${reason}` : ''}: ${message}`);
    if (settlement?.ok) io.err(`settlement: ${JSON.stringify(settlement.value)}`);
    return 1;
  }
  io.out(body ? JSON.stringify(body, null, 2) : text);
  if (settlement?.ok) io.err(`settlement: ${JSON.stringify(settlement.value)}`);

  // ---- 3. the receipt
  let receipt: unknown = body?.receipt;
  if (receipt === undefined) {
    const h = second.headers.get('X-Receipt');
    const decoded = h ? decodeBase64Json(h, 'X-Receipt header') : null;
    receipt = decoded?.ok ? decoded.value : undefined;
  }
  if (receipt === undefined) {
    io.err('the response carries no receipt (neither a body `receipt` nor an X-Receipt header)');
    return 1;
  }
  let trusted = signerFlag ?? null;
  let trustedFrom = '--signer';
  if (!trusted) {
    const manifestUrl = new URL('/.well-known/x402', url);
    try {
      const res = await io.fetch(manifestUrl, { headers: { accept: 'application/json' } });
      const manifest = (await res.json()) as { receipt_signer?: { public_key?: string } };
      trusted = manifest.receipt_signer?.public_key ?? null;
      trustedFrom = manifestUrl.toString();
      if (!trusted) throw new Error(`HTTP ${res.status}, no receipt_signer.public_key`);
    } catch (err) {
      io.err(`receipt NOT verified: could not read the signer from ${manifestUrl} (${(err as Error).message}); pass --signer`);
      return 1;
    }
  }
  const check = verifyReceipt(receipt, trusted);
  if (!check.ok) {
    io.err(`receipt NOT verified against ${trustedFrom}: ${check.reason}`);
    return 1;
  }
  const r = receipt as Record<string, string>;
  const problems: string[] = [];
  if (!sameAddress(r.payer ?? '', payer)) problems.push(`payer is ${r.payer}, we paid from ${payer}`);
  if (!sameAddress(r.merchant ?? '', offer.payTo)) problems.push(`merchant is ${r.merchant}, we paid ${offer.payTo}`);
  if (r.amount !== canonicalDecimal(priceUsd)) problems.push(`amount is ${r.amount}, we paid ${priceUsd}`);
  if (problems.length) {
    io.err(`receipt signature is valid but it does not describe this payment: ${problems.join('; ')}`);
    return 1;
  }
  io.err(
    `receipt ${r.id} verified: signed by ${check.address} (${trustedFrom}); settlement ${r.settlement}${
      r.settlement === 'local' ? ' (demo: verified, no funds moved)' : `, tx ${r.tx_hash}`
    }`,
  );
  return 0;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

if (process.argv[1]?.endsWith('scripts/pay.ts')) {
  pay(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : String(err));
      process.exit(1);
    },
  );
}
