/**
 * npm run -s pay -- <url> [--network base|polygon|solana|xrpl] [--max-usd 0.10] [--signer KEY] [--x402-version 1|2] [--method POST --data JSON] [--out FILE] [--verbose]
 *
 * Buys one response from an x402 endpoint: requests it, reads the 402 (v2 PAYMENT-REQUIRED header
 * when present, else the v1 body), checks the offer for --network against the pinned token table
 * and the --max-usd budget, signs, repeats the request with the payment header, prints the data
 * to stdout and checks the receipt against the service's /.well-known/x402 `receipt_signer` (or
 * --signer). Keys (never printed): PAYER_PRIVATE_KEY for EVM (an EIP-3009 authorization),
 * SOLANA_PAYER_KEY for Solana (the official @x402/svm client builds the transfer; it reads the
 * mint and a recent blockhash from SOLANA_RPC_URL, else its public mainnet default),
 * XRPL_PAYER_SEED for XRPL (a Payment signed with the xrpl library; Sequence, Fee and
 * LastLedgerSequence from XRPL_RPC_URL, or from --xrpl-sequence / --xrpl-last-ledger / --xrpl-fee
 * offline: by default 1 / 1 / 12, a ledger long passed on every public XRPL network, so such a
 * blob can never settle and only a SETTLEMENT=local demo without XRPL_RPC_URL takes it).
 *
 * The network defaults to xrpl on an /api/v1/xrpl/... path (the only network offered there), else
 * base. Only the data goes to stdout (progress and receipt check go to stderr; the decoded
 * settlement header too with --verbose), so the output
 * can be saved and given to verify-receipt; npm adds its own banner to stdout unless run with
 * `npm run -s`. `--out FILE` writes the data to FILE instead (checked writable before anything is
 * paid), stdout staying empty.
 *
 * Exit: 0 = paid, data received, receipt verified; 1 = refused, failed or receipt not verified;
 * 2 = usage or configuration error.
 */
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { hexToBytes } from '@noble/hashes/utils.js';
import { createKeyPairSignerFromBytes, getBase58Encoder, type KeyPairSigner } from '@solana/kit';
import { splitArgs, UsageError } from '../lib/args.ts';
import { payerChainSettings, payerPrivateKey, type Secret } from '../lib/config.ts';
import { addressOfPrivateKey, sameAddress } from '../payments/eip3009.ts';
import { canonicalDecimal, findNetwork, toAtomicUnits, type SettlementNetwork } from '../payments/networks.ts';
import {
  type Challenge,
  chooseEvmOffer,
  chooseSolanaOffer,
  chooseXrplOffer,
  offerUsd,
  paymentHeader,
  readChallenge,
  signExactEvm,
  signExactSolana,
  signExactXrpl,
  XrplWallet,
  xrplSequencing,
  type XrplSequencing,
} from '../payments/client/payer.ts';
import { verifyReceipt } from '../payments/receipts.ts';
import { decodeBase64Json, isXrplVariantPath } from '../payments/wire.ts';
import { compareDecimal } from '../payments/xrpl.ts';

const USAGE = `usage: npm run pay -- <url> [--network base|polygon|base-sepolia|solana|xrpl] [--max-usd 0.10] [--signer PUBLIC_KEY_OR_ADDRESS]
                    [--x402-version 1|2] [--method GET|POST] [--data JSON] [--out FILE] [--verbose] [--xrpl-sequence N --xrpl-last-ledger N --xrpl-fee DROPS]
  PAYER_PRIVATE_KEY  EVM: hex private key of the paying wallet (never printed)
  SOLANA_PAYER_KEY   solana: base58 64-byte secret key or solana-keygen JSON array (never printed); SOLANA_RPC_URL: RPC for mint and blockhash
  XRPL_PAYER_SEED    xrpl: family seed (never printed); XRPL_RPC_URL: JSON-RPC server for Sequence, Fee and LastLedgerSequence
  --network          network to pay on (default: xrpl on /api/v1/xrpl/... paths, where RLUSD on xrpl is the offer; else base)
  --max-usd          refuse to pay more than this per call (default 0.10)
  --signer           receipt signer to trust when the service has no /.well-known/x402 (public key or address)
  --x402-version     force the payment header version (default: 2 if the 402 has PAYMENT-REQUIRED, else 1)
  --verbose          also print the decoded settlement header (PAYMENT-RESPONSE) to stderr
  --out              write the data (the paid response body with its receipt) to this file instead of stdout
                     (or use npm run -s pay -- ... > FILE: without -s npm prints its banner to stdout too)
  --xrpl-sequence, --xrpl-last-ledger, --xrpl-fee
                     xrpl without XRPL_RPC_URL: sign offline with these (default 1, 1, 12: a ledger long passed, demo only)`;

/** The RPC @x402/svm's client reads when SOLANA_RPC_URL is not set (its MAINNET_RPC_URL). */
const SOLANA_DEFAULT_RPC = 'https://api.mainnet-beta.solana.com';

/** The paying key of one chain family, read and checked before any request is made. */
type PayerKey =
  | { kind: 'evm'; key: Uint8Array; address: string }
  | { kind: 'solana'; signer: KeyPairSigner; address: string; rpcUrl: string | null }
  | { kind: 'xrpl'; wallet: XrplWallet; address: string; rpcUrl: string | null; offline: XrplSequencing };

async function payerKeyFor(network: SettlementNetwork, env: NodeJS.ProcessEnv, flags: Map<string, string>): Promise<PayerKey> {
  if (network.kind === 'evm') {
    const secret = payerPrivateKey(env);
    if (!secret) {
      throw new UsageError(
        'PAYER_PRIVATE_KEY is not set: export the hex private key of a wallet holding USDC on the network you pay on ' +
          '(against a SETTLEMENT=local demo server any key works, e.g. one from `cast wallet new`)',
      );
    }
    const key = hexToBytes(secret.reveal());
    return { kind: 'evm', key, address: addressOfPrivateKey(key) };
  }
  const chain = payerChainSettings(env);
  if (network.kind === 'solana') {
    if (!chain.solanaKey) {
      throw new UsageError(
        'SOLANA_PAYER_KEY is not set: export the secret key of a Solana wallet holding USDC (base58, or the JSON array of a solana-keygen file); ' +
          'against a SETTLEMENT=local demo server any key works',
      );
    }
    const signer = await solanaSigner(chain.solanaKey);
    return { kind: 'solana', signer, address: signer.address, rpcUrl: chain.solanaRpcUrl };
  }
  if (!chain.xrplSeed) {
    throw new UsageError(
      'XRPL_PAYER_SEED is not set: export the family seed (s...) of an XRPL account holding RLUSD; against a SETTLEMENT=local demo server any seed works',
    );
  }
  let wallet: XrplWallet;
  try {
    wallet = XrplWallet.fromSeed(chain.xrplSeed.reveal());
  } catch {
    throw new UsageError('XRPL_PAYER_SEED is not a valid XRPL family seed (the value is not shown)');
  }
  const whole = (name: string, fallback: number) => {
    const v = flags.get(name);
    if (v === undefined) return fallback;
    if (!/^\d{1,10}$/.test(v) || Number(v) > 0xffffffff) throw new UsageError(`--${name} must be a whole number, got "${v}"`);
    return Number(v);
  };
  const offline = {
    sequence: whole('xrpl-sequence', 1),
    lastLedgerSequence: whole('xrpl-last-ledger', 1),
    fee: String(whole('xrpl-fee', 12)),
  };
  return { kind: 'xrpl', wallet, address: wallet.classicAddress, rpcUrl: chain.xrplRpcUrl, offline };
}

/** A Solana signer from a 64-byte secret key given as base58 or as a JSON array; the key is never echoed. */
async function solanaSigner(secret: Secret): Promise<KeyPairSigner> {
  const text = secret.reveal();
  let bytes: Uint8Array;
  try {
    bytes = text.startsWith('[') ? Uint8Array.from(JSON.parse(text) as number[]) : new Uint8Array(getBase58Encoder().encode(text));
    if (bytes.length !== 64) throw new Error('length');
    return await createKeyPairSignerFromBytes(bytes);
  } catch {
    throw new UsageError(
      'SOLANA_PAYER_KEY is not a 64-byte Solana secret key whose second half is its public key (the value is not shown)',
    );
  }
}

/** What one network's offer and payment come to: the header to send and what the receipt must say. */
interface Prepared {
  usd: string;
  currency: 'USDC' | 'RLUSD';
  payTo: string;
  networkName: string;
  header: { name: 'X-PAYMENT' | 'PAYMENT-SIGNATURE'; value: string };
  /** Said when the paid request cannot be sent. */
  pending: string;
}

/** Chooses the offer, checks the budget, signs. Throws with the reason nothing was paid. */
async function prepare(challenge: Challenge, network: SettlementNetwork, payer: PayerKey, maxUsd: string, io: PayIo): Promise<Prepared> {
  const overBudget = (usd: string, currency: string) =>
    new Error(`costs ${usd} ${currency} on ${network.name}, more than --max-usd ${maxUsd}; nothing was paid`);
  if (payer.kind === 'evm') {
    const offer = chooseEvmOffer(challenge, network.name);
    const usd = offerUsd(offer);
    if (BigInt(offer.amount) > BigInt(toAtomicUnits(maxUsd, offer.network.usdc.decimals))) throw overBudget(usd, 'USDC');
    const payload = signExactEvm(offer, payer.key);
    return {
      usd,
      currency: 'USDC',
      payTo: offer.payTo,
      networkName: offer.network.name,
      header: paymentHeader(challenge, offer, payload),
      pending: `The authorization (nonce ${payload.authorization.nonce}) expires at ${payload.authorization.validBefore}`,
    };
  }
  if (payer.kind === 'solana' && network.kind === 'solana') {
    const offer = chooseSolanaOffer(challenge, network);
    if (BigInt(offer.amount) > BigInt(toAtomicUnits(maxUsd, network.usdc.decimals))) throw overBudget(offer.usd, 'USDC');
    let payload: Awaited<ReturnType<typeof signExactSolana>>;
    try {
      payload = await signExactSolana(offer, payer.signer, payer.rpcUrl);
    } catch (err) {
      // the client reads the mint and a recent blockhash from an RPC: say which one and how to choose another
      const rpc = payer.rpcUrl ?? `${SOLANA_DEFAULT_RPC} (the default; SOLANA_RPC_URL is not set)`;
      throw new Error(
        `could not build the Solana transfer: the Solana RPC ${rpc} did not answer (${(err as Error).message}); ` +
          'it is needed for a recent blockhash. Set SOLANA_RPC_URL to an RPC you can reach; nothing was paid',
      );
    }
    return {
      usd: offer.usd,
      currency: 'USDC',
      payTo: offer.payTo,
      networkName: network.name,
      header: paymentHeader(challenge, offer, payload),
      pending: 'The signed transfer expires with its blockhash, in about a minute',
    };
  }
  if (payer.kind === 'xrpl' && network.kind === 'xrpl') {
    const offer = chooseXrplOffer(challenge, network);
    if ((compareDecimal(offer.amount, maxUsd) ?? 1) > 0) throw overBudget(offer.usd, 'RLUSD');
    let sequencing = payer.offline;
    if (payer.rpcUrl) {
      sequencing = await xrplSequencing(payer.rpcUrl, payer.address, offer.maxTimeoutSeconds, io.fetch);
    } else {
      io.err(
        `XRPL_RPC_URL is not set: signing offline with Sequence ${sequencing.sequence}, LastLedgerSequence ${sequencing.lastLedgerSequence}, Fee ${sequencing.fee} drops`,
      );
    }
    const signed = signExactXrpl(offer, payer.wallet, sequencing);
    return {
      usd: offer.usd,
      currency: 'RLUSD',
      payTo: offer.payTo,
      networkName: network.name,
      header: paymentHeader(challenge, offer, signed.payload),
      pending: `The signed Payment ${signed.hash} expires after ledger ${sequencing.lastLedgerSequence}`,
    };
  }
  throw new Error(`no key for ${network.name}`);
}

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
  let outFile: string | null = null;
  let target: SettlementNetwork;
  let payerKey: PayerKey;
  let verbose = false;
  try {
    const { positional, flags } = splitArgs(
      argv,
      ['network', 'max-usd', 'signer', 'x402-version', 'method', 'data', 'out', 'xrpl-sequence', 'xrpl-last-ledger', 'xrpl-fee'],
      USAGE,
      ['verbose'],
    );
    verbose = flags.has('verbose');
    if (positional.length !== 1) throw new UsageError(`give exactly one URL\n${USAGE}`);
    try {
      url = new URL(positional[0]!);
    } catch {
      throw new UsageError(`"${positional[0]}" is not a URL\n${USAGE}`);
    }
    // an /api/v1/xrpl/... path offers RLUSD on xrpl only: asking for an EVM key there helps nobody
    network = flags.get('network') ?? (isXrplVariantPath(url.pathname) ? 'xrpl' : 'base');
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
    const out = flags.get('out');
    if (out !== undefined) outFile = writableFile(out);
    const found = findNetwork(network);
    if (!found) throw new UsageError(`--network "${network}" is not one of base, polygon, base-sepolia, solana, xrpl`);
    target = found;
    payerKey = await payerKeyFor(target, env, flags);
  } catch (err) {
    io.err(err instanceof Error ? err.message : String(err));
    return 2;
  }
  const payer = payerKey.address;
  /** The data: to --out FILE when given, else stdout. */
  const emitData = (text: string) => {
    if (outFile === null) return io.out(text);
    try {
      writeFileSync(outFile, `${text}\n`);
      io.err(`wrote the response (${Buffer.byteLength(text)} bytes) to ${outFile}`);
    } catch (err) {
      // already paid for: the data must not be lost with the file
      io.err(`could not write ${outFile} (${(err as Error).message}); the response follows on stdout`);
      io.out(text);
    }
  };
  /** An error answer's body: stdout as before, or stderr with --out (the file holds data only). */
  const emitRefusal = (text: string) => (outFile === null ? io.out(text) : io.err(text));
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
    if (first.status === 200) emitData(firstText);
    else emitRefusal(firstText);
    io.err(`${url} answered ${first.status} without asking for payment; nothing was paid`);
    return first.status === 200 ? 0 : 1;
  }
  let challenge: Challenge;
  try {
    challenge = readChallenge(first.headers.get('PAYMENT-REQUIRED'), safeJson(firstText));
    if (forcedVersion !== null && forcedVersion !== challenge.version) {
      challenge = forcedVersion === 1 ? readChallenge(null, safeJson(firstText)) : challenge;
      if (forcedVersion === 2 && challenge.version !== 2) throw new Error('--x402-version 2: the 402 has no PAYMENT-REQUIRED header');
    }
  } catch (err) {
    io.err(`cannot pay ${url}: ${(err as Error).message}`);
    return 1;
  }

  // ---- 2. pay
  let prepared: Prepared;
  try {
    prepared = await prepare(challenge, target, payerKey, maxUsd, io);
  } catch (err) {
    const message = (err as Error).message;
    io.err(message.startsWith('costs ') ? `${url} ${message}` : `cannot pay ${url}: ${message}`);
    return 1;
  }
  const { header, usd: priceUsd, currency } = prepared;
  io.err(
    `paying ${priceUsd} ${currency} on ${prepared.networkName} to ${prepared.payTo} from ${payer} (x402 v${challenge.version}, ${header.name})`,
  );
  let second: Response;
  try {
    second = await io.fetch(url, init({ [header.name]: header.value }));
  } catch (err) {
    io.err(`could not reach ${url} with the payment: ${(err as Error).message}. ${prepared.pending}`);
    return 1;
  }
  const text = await second.text();
  const body = safeJson(text) as Record<string, unknown> | null;
  const settlementText = second.headers.get('PAYMENT-RESPONSE') ?? second.headers.get('X-PAYMENT-RESPONSE');
  const settlement = settlementText ? decodeBase64Json(settlementText, 'payment response header') : null;
  if (second.status !== 200) {
    const reason = body && typeof body.reason === 'string' ? body.reason : null;
    const message = body && typeof body.error === 'string' ? body.error : text.slice(0, 500);
    emitRefusal(text);
    io.err(`payment not accepted: HTTP ${second.status}${reason ? ` ${reason}` : ''}: ${message}`);
    // a refused payment with a settlement header is rare and worth every detail
    if (settlement?.ok) io.err(`settlement: ${JSON.stringify(settlement.value)}`);
    return 1;
  }
  emitData(body ? JSON.stringify(body, null, 2) : text);
  // the decoded settlement header is long (1.5 KB with its extensions); the receipt line below says what was settled
  if (settlement?.ok && verbose) io.err(`settlement: ${JSON.stringify(settlement.value)}`);

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
  // EVM addresses compare case-insensitively; base58 and XRPL addresses are case-sensitive.
  const same = (a: string, b: string) => (payerKey.kind === 'evm' ? sameAddress(a, b) : a === b);
  if (!same(r.payer ?? '', payer)) problems.push(`payer is ${r.payer}, we paid from ${payer}`);
  if (!same(r.merchant ?? '', prepared.payTo)) problems.push(`merchant is ${r.merchant}, we paid ${prepared.payTo}`);
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

/** --out FILE, refused before anything is paid when it cannot be written: a directory, or a folder that does not exist. */
function writableFile(path: string): string {
  const file = resolve(path);
  if (existsSync(file) && statSync(file).isDirectory()) throw new UsageError(`--out ${path} is a directory; name a file`);
  if (!existsSync(dirname(file))) throw new UsageError(`--out ${path}: the folder ${dirname(file)} does not exist`);
  return file;
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
