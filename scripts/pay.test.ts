import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Paywall } from '../payments/paywall.ts';
import { canonicalDecimal } from '../payments/networks.ts';
import {
  endpoint,
  localPaywall,
  MERCHANT,
  PAYER,
  PAYER_KEY_HEX,
  paidApp,
  serveOnLoopback,
  type ServedApp,
} from '../payments/testing/paywall.ts';

const priceOf = (id: string) => canonicalDecimal(endpoint('korea', id).priceUsd!);
import {
  fakeSolanaRpc,
  fakeXrplRpc,
  SOLANA_PAYER,
  SOLANA_PAYER_KEY_BASE58,
  SOLANA_PAYER_SECRET,
  XRPL_PAYER_SEED,
  XRPL_PAYER_WALLET,
} from '../payments/testing/chains.ts';
import { DEMO_PAY_TO } from '../payments/networks.ts';
import { pay, type PayIo } from './pay.ts';
import { verifyReceiptCli } from './verify-receipt.ts';

const run = promisify(execFile);

function capture(): PayIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (t) => stdout.push(t), err: (t) => stderr.push(t), fetch: (i, init) => fetch(i, init) };
}

describe('npm run pay / npm run verify-receipt against a loopback service', () => {
  let server: ServedApp;
  let paywall: Paywall;
  const served = { count: 0 };
  const env = { PAYER_PRIVATE_KEY: `0x${PAYER_KEY_HEX}` };
  beforeAll(async () => {
    paywall = localPaywall();
    server = await serveOnLoopback(paidApp(paywall, { service: 'korea', served }));
  });
  afterAll(() => server.close());

  it('pays (v2 by default), prints the data and verifies the receipt against /.well-known/x402', async () => {
    const io = capture();
    expect(await pay([`${server.url}/api/v1/kimchi-premium?symbol=ETH`], env, io)).toBe(0);
    const body = JSON.parse(io.stdout.join('\n'));
    expect(body).toMatchObject({ endpoint: 'kimchi-premium', value: 42, receipt: { payer: PAYER, network: 'base' } });
    const log = io.stderr.join('\n');
    expect(log).toContain(`paying ${priceOf('kimchi-premium')} USDC on base to ${MERCHANT} from ${PAYER} (x402 v2, PAYMENT-SIGNATURE)`);
    expect(log).toMatch(
      /receipt .* verified: signed by 0x[0-9a-fA-F]{40} \(http:\/\/127\.0\.0\.1:\d+\/\.well-known\/x402\); settlement local \(demo/,
    );
    expect(log).not.toContain(PAYER_KEY_HEX);
  });

  it('--x402-version 1 --network polygon pays with X-PAYMENT on polygon', async () => {
    const io = capture();
    expect(await pay([`${server.url}/api/v1/fx-rate`, '--x402-version', '1', '--network', 'polygon'], env, io)).toBe(0);
    expect(io.stderr.join('\n')).toContain('on polygon');
    expect(io.stderr.join('\n')).toContain('(x402 v1, X-PAYMENT)');
    expect(JSON.parse(io.stdout.join('\n')).receipt.network).toBe('polygon');
  });

  it('refuses to pay above --max-usd, and nothing is served', async () => {
    const before = served.count;
    const io = capture();
    expect(await pay([`${server.url}/api/v1/kr-news/kpop-summary`, '--max-usd', '0.0001'], env, io)).toBe(1);
    expect(io.stderr.join('\n')).toContain(
      `costs ${priceOf('kr-news-kpop-summary')} USDC on base, more than --max-usd 0.0001; nothing was paid`,
    );
    expect(served.count).toBe(before);
  });

  it('says clearly when PAYER_PRIVATE_KEY is missing or malformed, without echoing it', async () => {
    const io = capture();
    expect(await pay([`${server.url}/api/v1/fx-rate`], {}, io)).toBe(2);
    expect(io.stderr.join('\n')).toMatch(/PAYER_PRIVATE_KEY is not set/);
    const io2 = capture();
    expect(await pay([`${server.url}/api/v1/fx-rate`], { PAYER_PRIVATE_KEY: 'secret-but-wrong' }, io2)).toBe(2);
    expect(io2.stderr.join('\n')).toMatch(/PAYER_PRIVATE_KEY must be a secp256k1 private key/);
    expect(io2.stderr.join('\n')).not.toContain('secret-but-wrong');
  });

  it('a network the service does not offer, and an untrusted --signer, are errors', async () => {
    const io = capture();
    expect(await pay([`${server.url}/api/v1/fx-rate`, '--network', 'base-sepolia'], env, io)).toBe(1);
    expect(io.stderr.join('\n')).toContain('the server does not offer base-sepolia; it offers: eip155:8453, eip155:137, solana:');
    const io2 = capture();
    expect(await pay([`${server.url}/api/v1/fx-rate`, '--signer', MERCHANT], env, io2)).toBe(1);
    expect(io2.stderr.join('\n')).toMatch(/receipt NOT verified against --signer: signature recovers/);
  });

  it('verify-receipt: valid by manifest URL, manifest file, base64 header value; tampered and unanchored are refused', async () => {
    const io = capture();
    expect(await pay([`${server.url}/api/v1/market-movers`], env, io)).toBe(0);
    const body = JSON.parse(io.stdout.join('\n'));
    const dir = mkdtempSync(join(tmpdir(), 'receipt-'));
    const file = join(dir, 'response.json');
    writeFileSync(file, JSON.stringify(body));
    const manifestFile = join(dir, 'manifest.json');
    writeFileSync(manifestFile, JSON.stringify({ version: 1, resources: [], receipt_signer: paywall.signer }));

    const ok = capture();
    expect(await verifyReceiptCli([file, '--manifest', `${server.url}/.well-known/x402`], ok)).toBe(0);
    expect(ok.stdout.join('\n')).toContain(` for /api/v1/market-movers, ${priceOf('market-movers')} USDC on base`);
    expect(await verifyReceiptCli([file, '--manifest', manifestFile], capture())).toBe(0);
    const b64 = Buffer.from(JSON.stringify(body.receipt)).toString('base64');
    expect(await verifyReceiptCli([b64, '--signer', paywall.signer.address], capture())).toBe(0);

    const tamperedFile = join(dir, 'tampered.json');
    writeFileSync(tamperedFile, JSON.stringify({ ...body.receipt, amount: '0.0001' }));
    const bad = capture();
    expect(await verifyReceiptCli([tamperedFile, '--manifest', manifestFile], bad)).toBe(1);
    expect(bad.stderr.join('\n')).toMatch(/^INVALID: signature recovers/);
    expect(await verifyReceiptCli([file], capture())).toBe(2);
    expect(await verifyReceiptCli(['not a receipt', '--signer', MERCHANT], capture())).toBe(2);
  });

  it('both scripts run as npm would run them (tsx, exit codes)', async () => {
    const tsx = join(process.cwd(), 'node_modules', '.bin', 'tsx');
    const paid = await run(tsx, ['scripts/pay.ts', `${server.url}/api/v1/exchange-alerts`], { env: { ...process.env, ...env } });
    const body = JSON.parse(paid.stdout);
    expect(paid.stderr).toMatch(/verified/);
    const file = join(mkdtempSync(join(tmpdir(), 'receipt-')), 'r.json');
    writeFileSync(file, JSON.stringify(body.receipt));
    const checked = await run(tsx, ['scripts/verify-receipt.ts', file, '--manifest', `${server.url}/.well-known/x402`]);
    expect(checked.stdout).toMatch(/^VALID/);
    writeFileSync(file, JSON.stringify({ ...body.receipt, payer: MERCHANT }));
    await expect(run(tsx, ['scripts/verify-receipt.ts', file, '--manifest', `${server.url}/.well-known/x402`])).rejects.toMatchObject({
      code: 1,
    });
  });

  it('--network solana: the official @x402/svm client signs with SOLANA_PAYER_KEY (base58 or JSON array), reading the loopback RPC', async () => {
    const rpc = await fakeSolanaRpc();
    try {
      for (const key of [SOLANA_PAYER_KEY_BASE58, JSON.stringify([...SOLANA_PAYER_SECRET])]) {
        const io = capture();
        expect(
          await pay([`${server.url}/api/v1/fx-rate`, '--network', 'solana'], { SOLANA_PAYER_KEY: key, SOLANA_RPC_URL: rpc.url }, io),
        ).toBe(0);
        const log = io.stderr.join('\n');
        expect(log).toContain(
          `paying ${priceOf('fx-rate')} USDC on solana to ${DEMO_PAY_TO.solana} from ${SOLANA_PAYER} (x402 v2, PAYMENT-SIGNATURE)`,
        );
        expect(log).toMatch(/receipt .* verified/);
        expect(log).not.toContain(SOLANA_PAYER_KEY_BASE58);
        expect(JSON.parse(io.stdout.join('\n')).receipt).toMatchObject({ network: 'solana', payer: SOLANA_PAYER });
      }
      expect(rpc.count({ rpcMethod: 'getLatestBlockhash' })).toBe(2);
    } finally {
      await rpc.close();
    }
  });

  it('--network xrpl: a Payment signed with XRPL_PAYER_SEED, offline (demo) or sequenced from XRPL_RPC_URL', async () => {
    const offline = capture();
    expect(await pay([`${server.url}/api/v1/xrpl/fx-rate`, '--network', 'xrpl'], { XRPL_PAYER_SEED }, offline)).toBe(0);
    expect(offline.stderr.join('\n')).toContain('XRPL_RPC_URL is not set: signing offline with Sequence 1, LastLedgerSequence 1');
    expect(offline.stderr.join('\n')).toContain(
      `paying ${priceOf('fx-rate')} RLUSD on xrpl to ${DEMO_PAY_TO.xrpl} from ${XRPL_PAYER_WALLET.classicAddress}`,
    );
    expect(JSON.parse(offline.stdout.join('\n')).receipt).toMatchObject({
      network: 'xrpl',
      currency: 'RLUSD',
      payer: XRPL_PAYER_WALLET.classicAddress,
    });
    const rpc = await fakeXrplRpc({ current: 95_000_000, sequence: 42 });
    try {
      const online = capture();
      expect(
        await pay(
          [`${server.url}/api/v1/xrpl/kimchi-premium?symbol=ETH`, '--network', 'xrpl'],
          { XRPL_PAYER_SEED, XRPL_RPC_URL: rpc.url },
          online,
        ),
      ).toBe(0);
      expect(online.stderr.join('\n')).not.toContain(XRPL_PAYER_SEED);
      expect(rpc.count({ rpcMethod: 'account_info' })).toBe(1);
      expect(rpc.count({ rpcMethod: 'ledger_current' })).toBe(1);
    } finally {
      await rpc.close();
    }
    // the same offline blob again (same Sequence, LastLedgerSequence, amount): a replay, refused
    const again = capture();
    expect(await pay([`${server.url}/api/v1/xrpl/fx-rate`, '--network', 'xrpl'], { XRPL_PAYER_SEED }, again)).toBe(1);
    expect(again.stderr.join('\n')).toMatch(/payment not accepted: HTTP 402 nonce_used/);
  });

  it('an /api/v1/xrpl/... URL pays on xrpl without --network, with XRPL_PAYER_SEED only', async () => {
    const io = capture();
    // a Sequence of its own: the offline default would replay an earlier test's blob of the same amount
    expect(await pay([`${server.url}/api/v1/xrpl/stablecoin-premium`, '--xrpl-sequence', '7'], { XRPL_PAYER_SEED }, io)).toBe(0);
    const log = io.stderr.join('\n');
    expect(log).toContain(`RLUSD on xrpl to ${DEMO_PAY_TO.xrpl} from ${XRPL_PAYER_WALLET.classicAddress}`);
    expect(log).not.toContain('PAYER_PRIVATE_KEY');
    expect(JSON.parse(io.stdout.join('\n')).receipt).toMatchObject({ network: 'xrpl' });
  });

  it('--network solana with an RPC that does not answer names that RPC and SOLANA_RPC_URL; nothing is paid', async () => {
    const closed = await serveOnLoopback(paidApp(localPaywall(), { service: 'korea', served: { count: 0 } }));
    const rpcUrl = closed.url;
    await closed.close(); // a loopback port nobody listens on any more: connection refused
    const before = served.count;
    const io = capture();
    expect(
      await pay(
        [`${server.url}/api/v1/fx-rate`, '--network', 'solana'],
        { SOLANA_PAYER_KEY: SOLANA_PAYER_KEY_BASE58, SOLANA_RPC_URL: rpcUrl },
        io,
      ),
    ).toBe(1);
    const log = io.stderr.join('\n');
    expect(log).toContain(`the Solana RPC ${rpcUrl} did not answer`);
    expect(log).toContain('Set SOLANA_RPC_URL');
    expect(log).toContain('nothing was paid');
    expect(log).not.toContain(SOLANA_PAYER_KEY_BASE58);
    expect(served.count).toBe(before);
  });

  it('prints the decoded settlement header only with --verbose', async () => {
    const quiet = capture();
    expect(await pay([`${server.url}/api/v1/fx-rate`], env, quiet)).toBe(0);
    expect(quiet.stderr.join('\n')).not.toContain('settlement: {');
    expect(quiet.stderr.join('\n')).toMatch(/receipt .* verified/);
    const verbose = capture();
    expect(await pay([`${server.url}/api/v1/fx-rate`, '--verbose'], env, verbose)).toBe(0);
    expect(verbose.stderr.join('\n')).toMatch(/settlement: \{"success":true/);
  });

  it('solana and xrpl keys: missing or malformed is a usage error that never echoes the value; xrpl on a plain path says where it is offered', async () => {
    const io = capture();
    expect(await pay([`${server.url}/api/v1/fx-rate`, '--network', 'solana'], {}, io)).toBe(2);
    expect(io.stderr.join('\n')).toMatch(/SOLANA_PAYER_KEY is not set/);
    const io2 = capture();
    expect(await pay([`${server.url}/api/v1/fx-rate`, '--network', 'solana'], { SOLANA_PAYER_KEY: '[1,2,3]' }, io2)).toBe(2);
    expect(io2.stderr.join('\n')).toMatch(/SOLANA_PAYER_KEY must be a Solana secret key/);
    expect(io2.stderr.join('\n')).not.toContain('[1,2,3]');
    const io3 = capture();
    expect(await pay([`${server.url}/api/v1/fx-rate`, '--network', 'xrpl'], { XRPL_PAYER_SEED: 'not-a-seed' }, io3)).toBe(2);
    expect(io3.stderr.join('\n')).not.toContain('not-a-seed');
    const io4 = capture();
    expect(await pay([`${server.url}/api/v1/fx-rate`, '--network', 'xrpl'], { XRPL_PAYER_SEED }, io4)).toBe(1);
    expect(io4.stderr.join('\n')).toContain('the server does not offer xrpl (RLUSD on xrpl is offered on the /api/v1/xrpl/... paths)');
  });
});

describe('npm run pay writes only the data to stdout, or to --out FILE', () => {
  let server: ServedApp;
  let paywall: Paywall;
  const served = { count: 0 };
  const env = { PAYER_PRIVATE_KEY: `0x${PAYER_KEY_HEX}` };
  const tsx = join(process.cwd(), 'node_modules', '.bin', 'tsx');
  beforeAll(async () => {
    paywall = localPaywall();
    server = await serveOnLoopback(paidApp(paywall, { service: 'korea', served }));
  });
  afterAll(() => server.close());

  it('--out FILE: the paid body with its receipt in the file, nothing on stdout, progress on stderr; verify-receipt takes the file', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'pay-out-')), 'paid.json');
    const paid = await run(tsx, ['scripts/pay.ts', `${server.url}/api/v1/exchange-alerts`, '--out', file], {
      env: { ...process.env, ...env },
    });
    expect(paid.stdout).toBe('');
    expect(paid.stderr).toContain(`wrote the response`);
    expect(paid.stderr).toMatch(/receipt .* verified/);
    const body = JSON.parse(readFileSync(file, 'utf8')) as { endpoint: string; receipt: { payer: string } };
    expect(body).toMatchObject({ endpoint: 'exchange-alerts', receipt: { payer: PAYER } });
    const checked = await run(tsx, ['scripts/verify-receipt.ts', file, '--manifest', `${server.url}/.well-known/x402`]);
    expect(checked.stdout).toMatch(/^VALID/);
  });

  it('--out into a folder that does not exist, or onto a directory: exit 2 before anything is paid', async () => {
    const before = served.count;
    const dir = mkdtempSync(join(tmpdir(), 'pay-out-'));
    for (const out of [join(dir, 'missing', 'paid.json'), dir]) {
      const io = capture();
      expect(await pay([`${server.url}/api/v1/fx-rate`, '--out', out], env, io)).toBe(2);
      expect(io.stderr.join('\n')).toMatch(/^--out .*(does not exist|is a directory)/);
      expect(io.stdout).toEqual([]);
    }
    expect(served.count).toBe(before);
  });

  it('--out with a refused payment: the refusal on stderr, no file written', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'pay-out-')), 'paid.json');
    const io = capture();
    expect(await pay([`${server.url}/api/v1/kr-news/kpop-summary`, '--max-usd', '0.0001', '--out', file], env, io)).toBe(1);
    expect(existsSync(file)).toBe(false);
    expect(io.stdout).toEqual([]);
  });

  it("npm run -s pay -- URL > FILE saves only the data (the README's form)", async () => {
    const paid = await run('npm', ['run', '-s', 'pay', '--', `${server.url}/api/v1/exchange-alerts`], {
      env: { ...process.env, ...env },
    });
    const body = JSON.parse(paid.stdout) as { receipt: { payer: string } };
    expect(body.receipt.payer).toBe(PAYER);
  });
});
