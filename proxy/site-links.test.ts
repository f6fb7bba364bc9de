/**
 * Issue 27, finding 3: the site never follows a symbolic link. Links planted in the site build of
 * the version served, in a downloads folder, or on a directory above a file (to the receipt-signing
 * key, to /etc, to a file inside the build) answer 404 with no path in the answer, through the
 * analytics service as `npm start` serves it (createServiceApp with processParts, on a real socket).
 * A link swapped in and out of a directory while it is being served never lets a byte through.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings, type Settings } from '../lib/config.ts';
import { siteBuildDir, siteDownloadDir } from '../lib/site-paths.ts';
import { SnapshotReader } from '../snapshots/reader.ts';
import { SnapshotWriter } from '../snapshots/writer.ts';
import { createServiceApp, processParts } from './serve.ts';
import { ReceiptSigner } from '../payments/receipts.ts';
import { serveOnLoopback, type ServedApp } from '../payments/testing/paywall.ts';

let root: string;
let settings: Settings;
let reader: SnapshotReader;
let served: ServedApp;
let version: string;
let build: string;
let downloads: string;
let keyPath: string;
let keyText: string;
/** A folder outside SITE_DIR with a page and a download in it. */
let outside: string;
const SECRET = 'outside-the-site-do-not-serve';

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'site-links-test-'));
  settings = loadSettings({
    SNAPSHOTS_DIR: join(root, 'snapshots'),
    WAREHOUSE_DIR: join(root, 'warehouse'),
    KEYS_DIR: join(root, 'keys'),
    NONCE_DB_DIR: join(root, 'nonces'),
    CRYPTO_WORKERS: '0',
  });
  // a published analytics version (the real writer), so the service serves its build; a dataset of
  // the test's own (the writer checks the catalog's datasets against their shapes, not this one)
  const writer = await SnapshotWriter.begin({ root: settings.snapshotsDir, service: 'analytics', codeVersion: 'test' });
  await writer.writeDocument(
    'site-links-probe',
    { services: 1 },
    { source: 'demo', asOf: new Date(), license: 'CC0-1.0', description: 'test' },
  );
  version = (await writer.publish({ nextExpectedUpdate: new Date(Date.now() + 3600_000) })).version;
  reader = new SnapshotReader(settings.snapshotsDir, 'analytics');
  await reader.refresh();

  // the receipt-signing key the process uses, in KEYS_DIR
  const loaded = ReceiptSigner.load(settings);
  keyPath = loaded.path!;
  keyText = readFileSync(keyPath, 'utf8').trim();

  build = siteBuildDir(settings.siteDir, version);
  downloads = siteDownloadDir(settings.siteDir, version);
  mkdirSync(join(build, 'about'), { recursive: true });
  writeFileSync(join(build, 'index.html'), '<html><body><main>home</main></body></html>');
  writeFileSync(join(build, '404.html'), '<html><body><main>no such page</main></body></html>');
  writeFileSync(join(build, 'about', 'index.html'), '<html><body><main>about</main></body></html>');
  mkdirSync(downloads, { recursive: true });
  writeFileSync(join(downloads, 'landing-stats.csv'), 'services\n1\n');

  outside = join(root, 'outside');
  mkdirSync(join(outside, 'pages'), { recursive: true });
  writeFileSync(join(outside, 'pages', 'index.html'), `<html><body><main>${SECRET}</main></body></html>`);
  writeFileSync(join(outside, 'pages', 'secret.csv'), `${SECRET}\n`);

  const app = await createServiceApp('analytics', reader, settings, processParts(settings), { siteDir: settings.siteDir });
  served = await serveOnLoopback(app);
}, 60_000);

afterAll(async () => {
  await served?.close();
  reader?.close();
  rmSync(root, { recursive: true, force: true });
});

async function get(path: string, init?: RequestInit): Promise<{ status: number; text: string; headers: Headers }> {
  const res = await fetch(`${served.url}${path}`, { ...init, signal: AbortSignal.timeout(5000) });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/** The answer gives away nothing of what the link points to, nor any path. */
function expectRefused(answer: { status: number; text: string }): void {
  expect(answer.status).toBe(404);
  expect(answer.text).not.toContain(keyText);
  expect(answer.text).not.toContain(SECRET);
  expect(answer.text).not.toContain('root:');
  expect(answer.text).not.toContain(root);
  expect(answer.text).not.toContain(tmpdir());
}

describe('links in a site build', () => {
  it('serves the build and downloads (the control)', async () => {
    const home = await get('/');
    expect(home.status).toBe(200);
    expect(home.text).toContain('home');
    expect(home.headers.get('x-snapshot-version')).toBe(version);
    expect((await get('/about')).text).toContain('about');
    const csv = await get(`/data/${version}/landing-stats.csv`);
    expect(csv.status).toBe(200);
    expect(csv.text).toBe('services\n1\n');
    const part = await get(`/data/${version}/landing-stats.csv`, { headers: { Range: 'bytes=0-7' } });
    expect(part.status).toBe(206);
    expect(part.text).toBe('services');
  });

  it('a link to a file outside (the receipt-signing key, /etc/passwd): 404', async () => {
    symlinkSync(keyPath, join(build, 'key.txt'));
    symlinkSync('/etc/passwd', join(build, 'passwd.txt'));
    expectRefused(await get('/key.txt'));
    expectRefused(await get('/passwd.txt'));
  });

  it('a link to a directory outside: 404 for every file under it', async () => {
    symlinkSync('/etc', join(build, 'etc'));
    symlinkSync(join(outside, 'pages'), join(build, 'pages'));
    expectRefused(await get('/etc/passwd'));
    expectRefused(await get('/pages'));
    expectRefused(await get('/pages/index.html'));
  });

  it('a link to a file inside the build: 404 too', async () => {
    symlinkSync(join(build, 'about', 'index.html'), join(build, 'copy.html'));
    symlinkSync('about', join(build, 'about-again'));
    expectRefused(await get('/copy.html'));
    expectRefused(await get('/about-again'));
  });

  it('a link as the 404 page: the JSON 404 instead', async () => {
    rmSync(join(build, '404.html'));
    symlinkSync(keyPath, join(build, '404.html'));
    const missing = await get('/no/such/page');
    expectRefused(missing);
    expect(missing.headers.get('content-type')).toMatch(/json/);
    rmSync(join(build, '404.html'));
    writeFileSync(join(build, '404.html'), '<html><body><main>no such page</main></body></html>');
    expect((await get('/no/such/page')).text).toContain('no such page');
  });

  it('a FIFO in the build: 404 at once, the server is not blocked', async () => {
    execFileSync('mkfifo', [join(build, 'pipe.html')]);
    expectRefused(await get('/pipe.html'));
    expect((await get('/')).status).toBe(200);
  });
});

describe('links in the downloads', () => {
  it('a download that is a link (to the key, to /etc/passwd): 404', async () => {
    symlinkSync(keyPath, join(downloads, 'key.csv'));
    symlinkSync('/etc/passwd', join(downloads, 'passwd.csv'));
    expectRefused(await get(`/data/${version}/key.csv`));
    expectRefused(await get(`/data/${version}/passwd.csv`));
  });

  it("a link on the parent directory: a version's downloads folder linked to another folder", async () => {
    const planted = '20200101T000000000Z-00000000';
    symlinkSync(join(outside, 'pages'), siteDownloadDir(settings.siteDir, planted));
    expectRefused(await get(`/data/${planted}/secret.csv`));
  });

  it('a link on the builds folder above every build: nothing is served from it', async () => {
    const elsewhere = join(root, 'site-elsewhere');
    const builds = join(settings.siteDir, 'builds');
    renameSync(builds, elsewhere);
    symlinkSync(elsewhere, builds);
    try {
      expect((await get('/')).text).not.toContain('home');
      expectRefused(await get('/about/index.html'));
    } finally {
      rmSync(builds);
      renameSync(elsewhere, builds);
    }
    expect((await get('/')).text).toContain('home');
  });
});

describe('a link swapped in and out while being served', () => {
  let swapper: ChildProcess | null = null;
  afterAll(() => {
    swapper?.kill('SIGKILL');
  });

  it('never serves a byte from outside, however the swaps and the opens interleave', async () => {
    // race/ is a real folder with a public page, or a link to a folder with a secret page of the
    // same name, swapped by another process as fast as it can
    const real = join(build, 'race-real');
    mkdirSync(real);
    writeFileSync(join(real, 'page.txt'), 'public\n');
    symlinkSync(join(outside, 'pages'), join(build, 'race-link'));
    writeFileSync(join(outside, 'pages', 'page.txt'), `${SECRET}\n`);
    const script = `
      const fs = require('node:fs'); const d = ${JSON.stringify(build)};
      const at = (n) => d + '/' + n;
      for (;;) {
        fs.renameSync(at('race-real'), at('race')); fs.renameSync(at('race'), at('race-real'));
        fs.renameSync(at('race-link'), at('race')); fs.renameSync(at('race'), at('race-link'));
      }`;
    swapper = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
    const seen = { public: 0, secret: 0, missing: 0 };
    const until = Date.now() + 3000;
    while (Date.now() < until) {
      const answers = await Promise.all(Array.from({ length: 8 }, () => get('/race/page.txt')));
      for (const a of answers) {
        if (a.text.includes(SECRET)) seen.secret++;
        else if (a.status === 200) seen.public++;
        else seen.missing++;
      }
    }
    swapper.kill('SIGKILL');
    expect(seen.secret, JSON.stringify(seen)).toBe(0);
    expect(seen.public, JSON.stringify(seen)).toBeGreaterThan(0); // the real folder was served meanwhile
  }, 30_000);
});
