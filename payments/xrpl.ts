/**
 * `exact` on the XRP Ledger, verified in-process: the payload is `{signedTxBlob: hex}`, a Payment
 * the payer signed in full. The checks follow x402 specs/schemes/exact/scheme_exact_xrpl.md
 * ("Facilitator Verification Rules"), with the `xrpl` library's binary codec and signature check:
 *
 *   the blob decodes and re-encodes to itself (what was verified is what would be submitted);
 *   only the fields a plain Payment needs (an allowlist, spec §9: no Memos, Delegate, Signers...);
 *   TransactionType Payment; single-signed, by the master key of Account (SigningPubKey derives
 *   to Account; a regular key or multi-signing cannot be checked without the ledger and is refused);
 *   the signature verifies; Destination = payTo; no NetworkID (mainnet, xrpl:0);
 *   exactly one of Amount / DeliverMax, an issued-currency amount of the RLUSD currency code and
 *   the catalog's issuer, its value equal to the price by exact decimal comparison ("0.010" ==
 *   "0.01", "1e-2" == "0.01", never a float);
 *   no tfPartialPayment (the classic exploit: Amount says 0.01, the ledger delivers a fraction),
 *   no Paths, no DeliverMin, and a SendMax only in the same currency and issuer and not below
 *   the amount (the spec's policy for issuer transfer fees; a SendMax in anything else would make
 *   it a cross-currency payment); no flag but tfFullyCanonicalSig;
 *   Sequence, or a TicketSequence with Sequence 0; LastLedgerSequence present.
 *
 * LastLedgerSequence window: with an XRPL JSON-RPC server (XRPL_RPC_URL), `ledger_current` gives
 * the open ledger, and LastLedgerSequence must lie between it and it + ceil(maxTimeoutSeconds / 5)
 * + 2 (the spec's recommended policy). Without one nothing offline says which ledger is current,
 * so only its presence is checked (docs/x402-protocol.md, "Solana and XRPL in local mode").
 *
 * Replay key: (Account, Sequence), or (Account, TicketSequence) for a ticketed Payment, never the
 * transaction hash. The ledger applies at most one transaction per account Sequence or ticket, so
 * the same Payment re-signed with another Fee, LastLedgerSequence or InvoiceID (a new hash) is the
 * same payment, and only one of them may buy a response.
 */
import { decode, deriveAddress, encode, hashes, verifySignature } from 'xrpl';
import type { XrplNetwork } from './networks.ts';
import { reject, type Rejection } from './reasons.ts';

export const TF_PARTIAL_PAYMENT = 0x00020000;
export const TF_FULLY_CANONICAL_SIG = 0x80000000;

/** Fields a plain single-signed Payment may carry; anything else is refused (the spec's allowlist rule). */
const ALLOWED_FIELDS = new Set([
  'TransactionType',
  'Account',
  'Destination',
  'DestinationTag',
  'SourceTag',
  'Amount',
  'DeliverMax',
  'SendMax',
  'Fee',
  'Flags',
  'Sequence',
  'TicketSequence',
  'LastLedgerSequence',
  'InvoiceID',
  'SigningPubKey',
  'TxnSignature',
  // Refused below with their own reason, so the payer hears why.
  'Paths',
  'DeliverMin',
  'Signers',
]);

export interface XrplRequirement {
  network: XrplNetwork;
  payTo: string;
  /** The RLUSD value, a decimal string. */
  amount: string;
  maxTimeoutSeconds: number;
}

export interface XrplVerified {
  ok: true;
  /** Account, the classic address that signed. */
  payer: string;
  /** The transaction hash (64 hex digits): the transaction id on the ledger (the receipt's tx_hash), not the replay key. */
  hash: string;
  /**
   * The replay key, with `payer`: "sequence:<Sequence>", or "ticket:<TicketSequence>" for a ticketed
   * Payment (Sequence 0). One transaction per account sequence or ticket can ever apply.
   */
  replayKey: string;
  /** The same in words, for messages: "Sequence 7" or "TicketSequence 12". */
  slot: string;
  lastLedgerSequence: number;
}

export interface XrplVerifyOptions {
  /** The open ledger's index (ledger_current), or null when no XRPL server is configured. Throws when the server cannot be read. */
  currentLedger?: () => Promise<number | null>;
}

interface IssuedAmount {
  currency: string;
  issuer: string;
  value: string;
}

const HEX = /^(?:[0-9A-Fa-f]{2})+$/;

/** Verifies an `exact` XRPL payload against the offer; never throws. */
export async function verifyExactXrpl(
  payload: unknown,
  want: XrplRequirement,
  options: XrplVerifyOptions = {},
): Promise<XrplVerified | Rejection> {
  const blob = typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>).signedTxBlob : undefined;
  if (typeof blob !== 'string' || !HEX.test(blob)) {
    return reject('malformed_payload', 'xrpl payload must be {"signedTxBlob": "<hex signed Payment transaction>"}');
  }
  let tx: Record<string, unknown>;
  try {
    tx = decode(blob) as Record<string, unknown>;
    if (encode(tx as Parameters<typeof encode>[0]).toUpperCase() !== blob.toUpperCase())
      throw new Error('the blob is not in canonical form');
  } catch (err) {
    return reject('malformed_payload', `signedTxBlob is not an XRPL transaction (${err instanceof Error ? err.message : String(err)})`);
  }
  const account = typeof tx.Account === 'string' ? tx.Account : undefined;
  const who = account ? { payer: account } : {};

  if (tx.TransactionType !== 'Payment') {
    return reject('invalid_transaction', `the transaction is a ${String(tx.TransactionType)}, not a Payment`, who);
  }
  const extra = Object.keys(tx).filter((f) => !ALLOWED_FIELDS.has(f));
  if (extra.length) {
    return reject('invalid_transaction', `the Payment carries ${extra.join(', ')}; a plain Payment without them is accepted`, who);
  }

  // ---- signature: single-signed by the master key of Account
  if (tx.Signers !== undefined || tx.SigningPubKey === '') {
    return reject('unsupported_signature', 'multi-signed payments are not accepted; sign with the account key', who);
  }
  if (typeof tx.SigningPubKey !== 'string' || typeof tx.TxnSignature !== 'string' || !account) {
    return reject('invalid_signature', 'the Payment is not signed (SigningPubKey, TxnSignature and Account are required)', who);
  }
  let signer: string;
  try {
    signer = deriveAddress(tx.SigningPubKey);
  } catch {
    return reject('invalid_signature', 'SigningPubKey is not a public key', who);
  }
  if (signer !== account) {
    return reject(
      'invalid_signature',
      `the Payment is signed by the key of ${signer}, not by Account ${account}'s master key (regular keys cannot be checked without the ledger)`,
      who,
    );
  }
  let valid: boolean;
  try {
    valid = verifySignature(blob);
  } catch {
    valid = false;
  }
  if (!valid) return reject('invalid_signature', `TxnSignature does not verify for ${account}'s key over this Payment`, who);

  // ---- who is paid
  if (tx.Destination !== want.payTo) {
    return reject('recipient_mismatch', `the Payment goes to ${String(tx.Destination)}, this endpoint is paid to ${want.payTo}`, who);
  }
  if (tx.NetworkID !== undefined) {
    return reject(
      'invalid_transaction',
      `the Payment carries NetworkID ${String(tx.NetworkID)}; ${want.network.caip2} transactions omit it`,
      who,
    );
  }

  // ---- partial and path payments
  const flags = typeof tx.Flags === 'number' ? tx.Flags : 0;
  if ((flags & TF_PARTIAL_PAYMENT) !== 0) {
    return reject(
      'partial_payment',
      'the Payment sets tfPartialPayment: it could deliver less than Amount; sign it without that flag',
      who,
    );
  }
  if ((flags & ~TF_FULLY_CANONICAL_SIG) >>> 0 !== 0) {
    return reject(
      'invalid_transaction',
      `the Payment sets flags 0x${(flags >>> 0).toString(16)}; none but tfFullyCanonicalSig is accepted`,
      who,
    );
  }
  if (tx.Paths !== undefined) return reject('path_payment', 'the Payment carries Paths; pay RLUSD directly, without a path', who);
  if (tx.DeliverMin !== undefined) return reject('path_payment', 'the Payment carries DeliverMin; pay the exact amount', who);

  // ---- what is paid
  if ((tx.Amount === undefined) === (tx.DeliverMax === undefined)) {
    return reject('invalid_transaction', 'the Payment must carry exactly one of Amount and DeliverMax', who);
  }
  const amount = (tx.DeliverMax ?? tx.Amount) as unknown;
  const rlusd = want.network.rlusd;
  if (!isIssued(amount)) {
    return reject('asset_mismatch', `the Payment moves XRP (drops); this endpoint takes ${rlusd.symbol} issued by ${rlusd.issuer}`, who);
  }
  if (amount.currency.toUpperCase() !== rlusd.currency) {
    return reject(
      'asset_mismatch',
      `the Payment moves currency ${amount.currency}, this endpoint takes ${rlusd.symbol} (${rlusd.currency})`,
      who,
    );
  }
  if (amount.issuer !== rlusd.issuer) {
    return reject(
      'asset_mismatch',
      `the Payment moves ${rlusd.symbol} issued by ${amount.issuer}, this endpoint takes the one issued by ${rlusd.issuer}`,
      who,
    );
  }
  const cmp = compareDecimal(amount.value, want.amount);
  if (cmp === null || cmp !== 0) {
    return reject(
      'amount_mismatch',
      `the Payment delivers ${amount.value} ${rlusd.symbol}, this endpoint costs exactly ${want.amount}`,
      who,
    );
  }
  if (tx.SendMax !== undefined) {
    const sendMax = tx.SendMax as unknown;
    if (!isIssued(sendMax) || sendMax.currency.toUpperCase() !== rlusd.currency || sendMax.issuer !== rlusd.issuer) {
      return reject(
        'path_payment',
        `SendMax is in another currency or issuer than ${rlusd.symbol} (${rlusd.issuer}): that is a cross-currency payment`,
        who,
      );
    }
    const c = compareDecimal(sendMax.value, amount.value);
    if (c === null || c < 0) {
      return reject('path_payment', `SendMax ${sendMax.value} is below the amount ${amount.value}`, who);
    }
  }

  // ---- sequencing and expiry
  const ticket = tx.TicketSequence;
  const sequence = tx.Sequence;
  if (ticket !== undefined ? typeof ticket !== 'number' || sequence !== 0 : typeof sequence !== 'number') {
    return reject('invalid_transaction', 'the Payment needs a Sequence, or a TicketSequence with Sequence 0', who);
  }
  const slot =
    typeof ticket === 'number'
      ? { key: `ticket:${ticket}`, text: `TicketSequence ${ticket}` }
      : { key: `sequence:${sequence}`, text: `Sequence ${sequence}` };
  const lls = tx.LastLedgerSequence;
  if (typeof lls !== 'number') {
    return reject('invalid_transaction', 'the Payment has no LastLedgerSequence; without one it would stay valid forever', who);
  }
  if (options.currentLedger) {
    let current: number | null;
    try {
      current = await options.currentLedger();
    } catch (err) {
      return reject(
        'ledger_unavailable',
        `the XRPL ledger could not be read to check LastLedgerSequence (${err instanceof Error ? err.message : String(err)}); retry later`,
        who,
      );
    }
    if (current !== null) {
      const maxDelta = Math.ceil(want.maxTimeoutSeconds / 5) + 2;
      if (lls < current)
        return reject('expired', `LastLedgerSequence ${lls} has passed (the open ledger is ${current}); sign a new Payment`, who);
      if (lls > current + maxDelta) {
        return reject(
          'validity_too_long',
          `LastLedgerSequence ${lls} is ${lls - current} ledgers ahead of the open ledger ${current}; at most ${maxDelta} (maxTimeoutSeconds ${want.maxTimeoutSeconds}) is accepted`,
          who,
        );
      }
    }
  }

  return { ok: true, payer: account, hash: hashes.hashSignedTx(blob), replayKey: slot.key, slot: slot.text, lastLedgerSequence: lls };
}

function isIssued(value: unknown): value is IssuedAmount {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.currency === 'string' && typeof v.issuer === 'string' && typeof v.value === 'string';
}

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** A decimal string (XRPL values may use exponents: "1e-2") as an exact integer × 10^exponent; null when it is not a number. */
function parseDecimal(text: string): { digits: bigint; exponent: number } | null {
  const m = DECIMAL.exec(text.trim());
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return null;
  const fraction = m[3] ?? '';
  const exp = Number(m[4] ?? '0');
  if (!Number.isSafeInteger(exp) || Math.abs(exp) > 400) return null;
  const digits = BigInt(`${m[2] || '0'}${fraction}`);
  return { digits: m[1] === '-' ? -digits : digits, exponent: exp - fraction.length };
}

/** Exact comparison of two decimal strings: -1, 0, 1, or null when either is not a number. */
export function compareDecimal(a: string, b: string): -1 | 0 | 1 | null {
  const x = parseDecimal(a);
  const y = parseDecimal(b);
  if (!x || !y) return null;
  const e = Math.min(x.exponent, y.exponent);
  const xs = x.digits * 10n ** BigInt(x.exponent - e);
  const ys = y.digits * 10n ** BigInt(y.exponent - e);
  return xs < ys ? -1 : xs > ys ? 1 : 0;
}

// ------------------------------------------------------------------ the ledger, when a server is configured

/**
 * The open ledger's index from an XRPL JSON-RPC server (`ledger_current`), cached for `ttlMs`
 * (ledgers close every 3 to 5 seconds, so a few seconds' cache moves the window by a ledger at most)
 * and read at most once at a time.
 */
export function ledgerReader(
  rpcUrl: string,
  options: { ttlMs?: number; timeoutMs?: number; fetch?: typeof fetch } = {},
): () => Promise<number> {
  const ttl = options.ttlMs ?? 3000;
  const timeout = options.timeoutMs ?? 5000;
  const doFetch = options.fetch ?? fetch;
  let cached: { index: number; at: number } | null = null;
  let pending: Promise<number> | null = null;
  const read = async (): Promise<number> => {
    const res = await doFetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'ledger_current', params: [{}] }),
      signal: AbortSignal.timeout(timeout),
    });
    if (!res.ok) throw new Error(`XRPL server answered HTTP ${res.status}`);
    const body = (await res.json()) as { result?: { ledger_current_index?: unknown; status?: unknown } };
    const index = body.result?.ledger_current_index;
    if (typeof index !== 'number' || !Number.isSafeInteger(index))
      throw new Error('XRPL server answered ledger_current without ledger_current_index');
    cached = { index, at: Date.now() };
    return index;
  };
  return () => {
    if (cached && Date.now() - cached.at < ttl) return Promise.resolve(cached.index);
    pending ??= read().finally(() => {
      pending = null;
    });
    return pending;
  };
}
