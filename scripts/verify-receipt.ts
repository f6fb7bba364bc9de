/**
 * npm run verify-receipt -- <file | base64 | JSON> [--manifest URL-or-file] [--signer PUBLIC_KEY_OR_ADDRESS]
 *
 * Checks one receipt: the input is a file or text holding the receipt JSON, a whole paid response
 * body (its `receipt` is used), or the base64 X-Receipt header value. The trusted signer comes from
 * the service's manifest (`receipt_signer.public_key` of /.well-known/x402, by URL or saved file)
 * or from --signer. The key embedded in the receipt itself is never trusted: anyone can sign a
 * receipt with their own key.
 *
 * Exit: 0 = valid, 1 = invalid (the reason is printed), 2 = usage error or unreadable input.
 */
import { existsSync, readFileSync } from 'node:fs';
import { splitArgs, UsageError } from '../lib/args.ts';
import { verifyReceipt } from '../payments/receipts.ts';
import { decodeBase64Json } from '../payments/wire.ts';

const USAGE = `usage: npm run verify-receipt -- <receipt file | base64 X-Receipt value | JSON> (--manifest URL-or-file | --signer KEY)
  --manifest  the service's /.well-known/x402 (URL, e.g. http://127.0.0.1:4020/.well-known/x402, or a saved file)
  --signer    a secp256k1 public key (hex) or EVM address to check against`;

export interface VerifyIo {
  out: (text: string) => void;
  err: (text: string) => void;
  fetch: typeof fetch;
}

const defaultIo: VerifyIo = {
  out: (t) => process.stdout.write(`${t}\n`),
  err: (t) => process.stderr.write(`${t}\n`),
  fetch: (input, init) => fetch(input, init),
};

/** Receipt from a file, JSON text or base64; a response body's `receipt` is taken out. */
export function readReceiptInput(arg: string): unknown {
  const text = existsSync(arg) ? readFileSync(arg, 'utf8') : arg;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const decoded = decodeBase64Json(text, 'the receipt argument');
    if (!decoded.ok)
      throw new UsageError(
        `cannot read a receipt from ${existsSync(arg) ? `file ${arg}` : 'the argument'}: it is neither JSON nor base64 JSON (${decoded.message})`,
      );
    value = decoded.value;
  }
  if (typeof value === 'object' && value !== null && 'receipt' in value && typeof (value as { receipt: unknown }).receipt === 'object') {
    return (value as { receipt: unknown }).receipt;
  }
  return value;
}

async function manifestSigner(source: string, io: VerifyIo): Promise<{ key: string; address: string | null }> {
  let doc: unknown;
  if (/^https?:\/\//.test(source)) {
    const res = await io.fetch(source, { headers: { accept: 'application/json' } });
    if (!res.ok) throw new Error(`${source} answered HTTP ${res.status}`);
    doc = await res.json();
  } else {
    if (!existsSync(source)) throw new UsageError(`--manifest ${source}: no such file (give a URL or a saved manifest file)`);
    doc = JSON.parse(readFileSync(source, 'utf8'));
  }
  const signer = (doc as { receipt_signer?: { public_key?: unknown; address?: unknown } }).receipt_signer;
  if (!signer || typeof signer.public_key !== 'string') throw new Error(`${source} has no receipt_signer.public_key`);
  return { key: signer.public_key, address: typeof signer.address === 'string' ? signer.address : null };
}

export async function verifyReceiptCli(argv: readonly string[], io: VerifyIo = defaultIo): Promise<number> {
  let receipt: unknown;
  let trusted: string;
  let from: string;
  try {
    const { positional, flags } = splitArgs(argv, ['manifest', 'signer'], USAGE);
    if (positional.length !== 1) throw new UsageError(`give exactly one receipt (file, base64 or JSON)\n${USAGE}`);
    receipt = readReceiptInput(positional[0]!);
    const manifest = flags.get('manifest');
    const signer = flags.get('signer');
    if (!manifest && !signer)
      throw new UsageError(`say whom to trust: --manifest or --signer (the key inside the receipt proves nothing)\n${USAGE}`);
    if (signer) {
      trusted = signer;
      from = '--signer';
    } else {
      const found = await manifestSigner(manifest!, io);
      trusted = found.key;
      from = `${manifest} receipt_signer.public_key`;
      if (found.address) {
        const keyCheck = verifyReceipt(receipt, found.address);
        const viaKey = verifyReceipt(receipt, found.key);
        if (keyCheck.ok !== viaKey.ok) {
          io.err(`INVALID: the manifest's receipt_signer.public_key and .address disagree`);
          return 1;
        }
      }
    }
  } catch (err) {
    io.err(err instanceof Error ? err.message : String(err));
    return err instanceof UsageError ? 2 : 1;
  }
  const result = verifyReceipt(receipt, trusted);
  if (!result.ok) {
    io.err(`INVALID: ${result.reason}`);
    return 1;
  }
  const r = receipt as Record<string, string>;
  io.out(
    `VALID: receipt ${r.id} for ${r.endpoint}, ${r.amount} ${r.currency} on ${r.network} from ${r.payer} to ${r.merchant} at ${r.issued_at}; ` +
      `settlement ${r.settlement ?? 'unknown'}${r.settlement === 'local' ? ' (demo: no funds moved)' : ''}, tx ${r.tx_hash}; signed by ${result.address} (${from})`,
  );
  return 0;
}

if (process.argv[1]?.endsWith('scripts/verify-receipt.ts')) {
  verifyReceiptCli(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : String(err));
      process.exit(1);
    },
  );
}
