/**
 * The paying side of `exact`: picks an offer from a 402, checks it against the pinned token table
 * (a server cannot make the payer sign for another token, domain or issuer), signs, and encodes
 * the payment header. EVM: an EIP-3009 authorization. Solana: the official @x402/svm client scheme
 * builds and partially signs the transfer (it reads the mint and a recent blockhash from a Solana
 * RPC). XRPL: a Payment signed with the `xrpl` library. Used by scripts/pay.ts, the tests and the bench.
 */
import { randomBytes } from 'node:crypto';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { KeyPairSigner } from '@solana/kit';
import { type Payment, Wallet } from 'xrpl';
import { addressOfPrivateKey, signAuthorization, type ExactEvmPayload } from '../eip3009.ts';
import { canonicalDecimal, findNetwork, fromAtomicUnits, type EvmNetwork, type SolanaNetwork, type XrplNetwork } from '../networks.ts';
import { decodeBase64Json, encodeBase64Json, type PaymentRequirementsV1, type PaymentRequirementsV2, type ResourceInfo } from '../wire.ts';

/** What a 402 offers, read from the v2 header when present, else from the v1 body. */
export type Challenge =
  | {
      version: 2;
      resource: ResourceInfo | null;
      accepts: PaymentRequirementsV2[];
      error: string | null;
      extensions: Record<string, unknown>;
    }
  | { version: 1; accepts: PaymentRequirementsV1[]; error: string | null };

export function readChallenge(paymentRequiredHeader: string | null, body: unknown): Challenge {
  if (paymentRequiredHeader) {
    const decoded = decodeBase64Json(paymentRequiredHeader, 'PAYMENT-REQUIRED header');
    if (!decoded.ok) throw new Error(decoded.message);
    const v = decoded.value;
    if (v.x402Version !== 2 || !Array.isArray(v.accepts))
      throw new Error('PAYMENT-REQUIRED header is not an x402 v2 PaymentRequired object');
    return {
      version: 2,
      resource: (v.resource as ResourceInfo | undefined) ?? null,
      accepts: v.accepts as PaymentRequirementsV2[],
      error: typeof v.error === 'string' ? v.error : null,
      extensions: (v.extensions as Record<string, unknown> | undefined) ?? {},
    };
  }
  const b = body as Record<string, unknown> | null;
  if (!b || b.x402Version !== 1 || !Array.isArray(b.accepts))
    throw new Error('the 402 has neither a PAYMENT-REQUIRED header nor an x402 v1 body');
  return { version: 1, accepts: b.accepts as PaymentRequirementsV1[], error: typeof b.error === 'string' ? b.error : null };
}

export interface ChosenOffer {
  network: EvmNetwork;
  payTo: string;
  /** Atomic units. */
  amount: string;
  maxTimeoutSeconds: number;
  /** The requirement object as the server sent it (echoed as `accepted` in v2). */
  requirement: PaymentRequirementsV1 | PaymentRequirementsV2;
}

/**
 * The offer for `networkName` ('base', 'polygon', ...), checked: scheme exact, the asset is the
 * pinned USDC of that network, and extra.name/version equal the pinned EIP-712 domain.
 */
export function chooseEvmOffer(challenge: Challenge, networkName: string): ChosenOffer {
  const network = findNetwork(networkName);
  if (!network || network.kind !== 'evm')
    throw new Error(`"${networkName}" is not an EVM network this client can pay on (base, polygon, base-sepolia)`);
  const entries = challenge.accepts as Array<PaymentRequirementsV1 | PaymentRequirementsV2>;
  const entry = entries.find((r) => r.scheme === 'exact' && (r.network === network.name || r.network === network.caip2));
  if (!entry) {
    const offered = entries.map((r) => r.network).join(', ') || 'nothing';
    throw new Error(`the server does not offer ${network.name}; it offers: ${offered}`);
  }
  if (entry.asset.toLowerCase() !== network.usdc.address.toLowerCase()) {
    throw new Error(
      `the server asks for asset ${entry.asset} on ${network.name}, which is not USDC (${network.usdc.address}); refusing to sign`,
    );
  }
  const extra = entry.extra ?? {};
  if (extra.name !== network.usdc.eip712.name || extra.version !== network.usdc.eip712.version) {
    throw new Error(
      `the server's EIP-712 domain for USDC on ${network.name} is ${JSON.stringify({ name: extra.name, version: extra.version })}, ` +
        `the real one is ${JSON.stringify(network.usdc.eip712)}; refusing to sign`,
    );
  }
  const amount = 'amount' in entry ? entry.amount : entry.maxAmountRequired;
  if (!/^\d+$/.test(amount)) throw new Error(`the server's amount "${amount}" is not an integer of atomic units`);
  return { network, payTo: entry.payTo, amount, maxTimeoutSeconds: entry.maxTimeoutSeconds, requirement: entry };
}

export function offerUsd(offer: ChosenOffer): string {
  return fromAtomicUnits(offer.amount, offer.network.usdc.decimals);
}

export interface SignOptions {
  /** Unix seconds (default: now). */
  now?: number;
  /** 32-byte nonce as 0x hex (default: random). */
  nonce?: string;
  /** Seconds before now for validAfter (default 600, tolerating clock skew as the reference client does). */
  validAfterSlack?: number;
}

/** Signs an EIP-3009 authorization paying `offer`. */
export function signExactEvm(
  offer: Pick<ChosenOffer, 'network' | 'payTo' | 'amount' | 'maxTimeoutSeconds'>,
  privateKey: Uint8Array,
  options: SignOptions = {},
): ExactEvmPayload {
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const authorization = {
    from: addressOfPrivateKey(privateKey),
    to: offer.payTo,
    value: offer.amount,
    validAfter: String(Math.max(0, now - (options.validAfterSlack ?? 600))),
    validBefore: String(now + offer.maxTimeoutSeconds),
    nonce: options.nonce ?? `0x${bytesToHex(randomBytes(32))}`,
  };
  return { signature: signAuthorization(offer.network, authorization, privateKey), authorization };
}

/** The payment header for a chosen offer, in the challenge's version. */
export function paymentHeader(
  challenge: Challenge,
  offer: Pick<ChosenOffer, 'requirement'> & { network: { name: string } },
  payload: ExactEvmPayload | Record<string, unknown>,
): { name: 'X-PAYMENT' | 'PAYMENT-SIGNATURE'; value: string } {
  if (challenge.version === 1) {
    return { name: 'X-PAYMENT', value: encodeBase64Json({ x402Version: 1, scheme: 'exact', network: offer.network.name, payload }) };
  }
  return {
    name: 'PAYMENT-SIGNATURE',
    value: encodeBase64Json({
      x402Version: 2,
      ...(challenge.resource ? { resource: challenge.resource } : {}),
      accepted: offer.requirement,
      payload,
      ...(Object.keys(challenge.extensions).length ? { extensions: challenge.extensions } : {}),
    }),
  };
}

// ------------------------------------------------------------------ Solana and XRPL

export interface ChosenChainOffer<N extends SolanaNetwork | XrplNetwork> {
  network: N;
  payTo: string;
  /** Solana: atomic units; XRPL: the RLUSD decimal value. */
  amount: string;
  /** The price in dollars (USDC / RLUSD). */
  usd: string;
  maxTimeoutSeconds: number;
  requirement: PaymentRequirementsV1 | PaymentRequirementsV2;
}

function entryFor(challenge: Challenge, network: SolanaNetwork | XrplNetwork): PaymentRequirementsV1 | PaymentRequirementsV2 {
  const entries = challenge.accepts as Array<PaymentRequirementsV1 | PaymentRequirementsV2>;
  const entry = entries.find((r) => r.scheme === 'exact' && (r.network === network.name || r.network === network.caip2));
  if (!entry) {
    const offered = entries.map((r) => r.network).join(', ') || 'nothing';
    const hint = network.kind === 'xrpl' ? ' (RLUSD on xrpl is offered on the /api/v1/xrpl/... paths)' : '';
    throw new Error(`the server does not offer ${network.name}${hint}; it offers: ${offered}`);
  }
  return entry;
}

/** The Solana offer, checked: the asset is the pinned USDC mint and the offer names a fee payer. */
export function chooseSolanaOffer(challenge: Challenge, network: SolanaNetwork): ChosenChainOffer<SolanaNetwork> {
  const entry = entryFor(challenge, network);
  if (entry.asset !== network.usdc.mint) {
    throw new Error(
      `the server asks for mint ${entry.asset} on ${network.name}, which is not USDC (${network.usdc.mint}); refusing to sign`,
    );
  }
  if (typeof entry.extra?.feePayer !== 'string') throw new Error(`the server's ${network.name} offer names no fee payer (extra.feePayer)`);
  const amount = 'amount' in entry ? entry.amount : entry.maxAmountRequired;
  if (!/^\d+$/.test(amount)) throw new Error(`the server's amount "${amount}" is not an integer of atomic units`);
  return {
    network,
    payTo: entry.payTo,
    amount,
    usd: fromAtomicUnits(amount, network.usdc.decimals),
    maxTimeoutSeconds: entry.maxTimeoutSeconds,
    requirement: entry,
  };
}

/**
 * The Solana payload `{transaction}` built and partially signed by the official client scheme
 * (ExactSvmScheme of @x402/svm): it reads the mint and the latest blockhash from `rpcUrl` (its own
 * public default when null). The requirement goes in as v2 (CAIP-2 network, `amount`) either way.
 */
export async function signExactSolana(
  offer: ChosenChainOffer<SolanaNetwork>,
  signer: KeyPairSigner,
  rpcUrl: string | null,
): Promise<{ transaction: string }> {
  // Loaded on first use: EVM-only callers (the bench) do not pay for the Solana client.
  const { ExactSvmScheme } = await import('@x402/svm/exact/client');
  const scheme = new ExactSvmScheme(signer, rpcUrl ? { rpcUrl } : undefined);
  const requirement = { ...offer.requirement, network: offer.network.caip2, amount: offer.amount } as Parameters<
    typeof scheme.createPaymentPayload
  >[1];
  const created = await scheme.createPaymentPayload(2, requirement);
  return created.payload as { transaction: string };
}

/** The XRPL offer, checked: RLUSD of the pinned issuer, fees not sponsored, a v2 challenge (XRPL is paid with x402 v2). */
export function chooseXrplOffer(challenge: Challenge, network: XrplNetwork): ChosenChainOffer<XrplNetwork> {
  if (challenge.version !== 2) throw new Error('XRPL is paid with x402 v2, and this 402 has no PAYMENT-REQUIRED header');
  const entry = entryFor(challenge, network) as PaymentRequirementsV2;
  if (entry.asset !== network.rlusd.currency || entry.extra?.issuer !== network.rlusd.issuer) {
    throw new Error(
      `the server asks for currency ${entry.asset} issued by ${String(entry.extra?.issuer)}, which is not RLUSD (${network.rlusd.issuer}); refusing to sign`,
    );
  }
  if (entry.extra?.areFeesSponsored !== false) throw new Error('the server offers sponsored fees, which this client does not support');
  return {
    network,
    payTo: entry.payTo,
    amount: entry.amount,
    usd: canonicalDecimal(entry.amount),
    maxTimeoutSeconds: entry.maxTimeoutSeconds,
    requirement: entry,
  };
}

export interface XrplSequencing {
  sequence: number;
  lastLedgerSequence: number;
  /** Drops. */
  fee: string;
}

/** A Payment of exactly the offer (no partial payment, no path), signed with `wallet`: the payload `{signedTxBlob}` and its hash. */
export function signExactXrpl(
  offer: ChosenChainOffer<XrplNetwork>,
  wallet: Wallet,
  sequencing: XrplSequencing,
): { payload: { signedTxBlob: string }; hash: string } {
  const payment: Payment = {
    TransactionType: 'Payment',
    Account: wallet.classicAddress,
    Destination: offer.payTo,
    Amount: { currency: offer.network.rlusd.currency, issuer: offer.network.rlusd.issuer, value: offer.amount },
    Fee: sequencing.fee,
    Sequence: sequencing.sequence,
    LastLedgerSequence: sequencing.lastLedgerSequence,
  };
  const signed = wallet.sign(payment);
  return { payload: { signedTxBlob: signed.tx_blob }, hash: signed.hash };
}

/**
 * Sequence, fee and LastLedgerSequence from an XRPL JSON-RPC server (account_info, fee,
 * ledger_current): the open ledger + ceil(maxTimeoutSeconds / 5), inside the window a verifier
 * accepts (scheme_exact_xrpl: at most ceil(maxTimeoutSeconds / 5) + 2 ahead).
 */
export async function xrplSequencing(
  rpcUrl: string,
  account: string,
  maxTimeoutSeconds: number,
  doFetch: typeof fetch = fetch,
): Promise<XrplSequencing> {
  const call = async (method: string, params: Record<string, unknown>) => {
    const res = await doFetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ method, params: [params] }),
      signal: AbortSignal.timeout(10_000),
    });
    if (!res.ok) throw new Error(`${method}: XRPL server answered HTTP ${res.status}`);
    const body = (await res.json()) as { result?: Record<string, unknown> };
    if (!body.result || body.result.status === 'error')
      throw new Error(`${method}: ${String(body.result?.error_message ?? body.result?.error ?? 'no result')}`);
    return body.result;
  };
  const info = await call('account_info', { account, ledger_index: 'current' });
  const sequence = (info.account_data as { Sequence?: unknown } | undefined)?.Sequence;
  if (typeof sequence !== 'number') throw new Error(`account_info: no Sequence for ${account} (is the account funded?)`);
  const current = (await call('ledger_current', {})).ledger_current_index;
  if (typeof current !== 'number') throw new Error('ledger_current: no ledger_current_index');
  const fees = (await call('fee', {})).drops as { open_ledger_fee?: unknown; base_fee?: unknown } | undefined;
  const fee = [fees?.open_ledger_fee, fees?.base_fee, '12'].find((f): f is string => typeof f === 'string' && /^\d+$/.test(f))!;
  return { sequence, lastLedgerSequence: current + Math.ceil(maxTimeoutSeconds / 5), fee };
}

export { Wallet as XrplWallet };
