/**
 * The public site's build for one analytics snapshot version: the free datasets as typed
 * downloads, then the Astro pages over the same version, published into
 * `$SITE_DIR/builds/<version>/` by one rename once complete (the previous build stays until then).
 * The analytics publish runs this before the version goes live (pipelines/site-build.ts), so the
 * pages a visitor sees always belong to the snapshot the API serves.
 *
 *   npm run site:build [-- --version V] [--json]    (default: the live version)
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'astro';
import { loadSettings } from '../lib/config.ts';
import { pidAlive } from '../lib/pid.ts';
import { siteBuildsDir as buildsDir, siteDownloadsDir as downloadsDir } from '../lib/site-paths.ts';
import { loadVersion, readLatestPointer, VERSION_PATTERN } from '../snapshots/reader.ts';
import { writeDownloads } from './lib/downloads.ts';

const SITE_ROOT = dirname(fileURLToPath(import.meta.url));
const SERVICE = 'analytics';

export interface SiteBuildOptions {
  snapshotsDir: string;
  /** SITE_DIR: holds builds/<version>/ and downloads/<version>/. */
  siteDir: string;
  /** The analytics version to build; default the live one (latest.json). */
  version?: string;
  /** Progress lines (stderr by default). */
  log?: (line: string) => void;
}

export interface SiteBuildResult {
  version: string;
  /** The published build folder. */
  dir: string;
  pages: number;
  seconds: number;
}

export async function buildSiteVersion(options: SiteBuildOptions): Promise<SiteBuildResult> {
  const t0 = performance.now();
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const version = options.version ?? readLatestPointer(options.snapshotsDir, SERVICE)?.version;
  if (!version) throw new Error('no analytics snapshot is published yet: run `npm run pipeline -- analytics` first');
  if (!VERSION_PATTERN.test(version)) throw new Error(`--version: "${version}" is not a snapshot version`);
  // Verifies every file's sha256 against the manifest: pages are never built from damaged data.
  const snapshot = await loadVersion(options.snapshotsDir, SERVICE, version);

  const downloads = downloadsDir(options.siteDir);
  const ownDownloads = join(downloads, version);
  if (!existsSync(ownDownloads)) {
    log(`site ${version}: writing downloads`);
    await writeDownloads(snapshot, ownDownloads);
  }

  const builds = buildsDir(options.siteDir);
  mkdirSync(builds, { recursive: true });
  // a new folder of an unguessable name: mkdir fails on anything already there (a planted link
  // included), so the build never writes through a link
  const tmp = join(builds, `.tmp-${version}-${randomBytes(6).toString('hex')}-${process.pid}`);
  mkdirSync(tmp);
  log(`site ${version}: building pages`);
  // data.ts reads these when Astro renders the pages (see site/lib/data.ts).
  process.env.SITE_SNAPSHOTS_DIR = options.snapshotsDir;
  process.env.SITE_VERSION = version;
  process.env.SITE_DOWNLOADS_DIR = downloads;
  // Astro renders from server chunks it writes to ./.astro when the outDir is not below the working
  // directory; they must sit inside the project to resolve its node_modules, and each build needs
  // its own. The .keep file works around Astro removing that folder (once emptied) before reading
  // it again; it is copied into the output and deleted there.
  const cwd = process.cwd();
  const work = join(SITE_ROOT, '.work', `${process.pid}-${randomBytes(6).toString('hex')}`);
  mkdirSync(dirname(work), { recursive: true });
  mkdirSync(work);
  mkdirSync(join(work, '.astro'));
  writeFileSync(join(work, '.astro', '.keep'), '');
  process.chdir(work);
  try {
    await build({
      root: SITE_ROOT,
      outDir: tmp,
      // a cache per build: builds of several snapshot folders (tests, benches) may run at once
      cacheDir: join(tmp, '.astro-cache'),
      vite: { cacheDir: join(tmp, '.vite-cache') },
      logLevel: 'warn',
    });
    rmSync(join(tmp, '.astro-cache'), { recursive: true, force: true });
    rmSync(join(tmp, '.vite-cache'), { recursive: true, force: true });
    rmSync(join(tmp, '.keep'), { force: true });
    if (!existsSync(join(tmp, 'index.html'))) throw new Error('the Astro build produced no index.html');
    mkdirSync(join(tmp, 'data'), { recursive: true });
    writeFileSync(
      join(tmp, 'data', 'latest.json'),
      `${JSON.stringify(
        {
          version,
          generated_at: snapshot.manifest.generated_at,
          next_expected_update: snapshot.manifest.next_expected_update,
          downloads: `/data/${version}/downloads.json`,
        },
        null,
        2,
      )}\n`,
    );
    const pages = countPages(tmp);
    const final = join(builds, version);
    if (existsSync(final)) {
      const old = join(builds, `.old-${version}-${randomBytes(6).toString('hex')}-${process.pid}`);
      renameSync(final, old);
      renameSync(tmp, final);
      rmSync(old, { recursive: true, force: true });
    } else {
      renameSync(tmp, final);
    }
    prune(options.snapshotsDir, options.siteDir);
    return { version, dir: final, pages, seconds: (performance.now() - t0) / 1000 };
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  } finally {
    process.chdir(cwd);
    rmSync(work, { recursive: true, force: true });
  }
}

function countPages(dir: string): number {
  let pages = 0;
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) if (entry.endsWith('.html')) pages++;
  return pages;
}

/**
 * Keeps a build and downloads folder for every analytics version still kept in the snapshots
 * folder (SNAPSHOT_RETENTION decides); drops the rest and leftovers of builds that died.
 */
function prune(snapshotsDir: string, siteDir: string): void {
  const serviceDir = join(snapshotsDir, SERVICE);
  const kept = new Set(existsSync(serviceDir) ? readdirSync(serviceDir).filter((n) => VERSION_PATTERN.test(n)) : []);
  for (const folder of [buildsDir(siteDir), downloadsDir(siteDir)]) {
    if (!existsSync(folder)) continue;
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      const leftover = /^\.(?:tmp|old)-.+-(\d+)$/.exec(name);
      if (leftover) {
        if (Number(leftover[1]) !== process.pid && !pidAlive(Number(leftover[1]))) rmSync(path, { recursive: true, force: true });
      } else if (VERSION_PATTERN.test(name) && !kept.has(name) && statSync(path).isDirectory()) {
        rmSync(path, { recursive: true, force: true });
      }
    }
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  const json = argv.includes('--json');
  const at = argv.indexOf('--version');
  const version = at >= 0 ? argv[at + 1] : undefined;
  const unknown = argv.filter((a, i) => a !== '--json' && a !== '--version' && i !== at + 1);
  if ((at >= 0 && !version) || unknown.length) {
    console.error(`usage: npm run site:build [-- --version V] [--json]${unknown.length ? ` (unknown: ${unknown.join(' ')})` : ''}`);
    process.exit(2);
  }
  const settings = loadSettings();
  buildSiteVersion({ snapshotsDir: settings.snapshotsDir, siteDir: settings.siteDir, ...(version ? { version } : {}) })
    .then((r) => {
      const cpu = process.cpuUsage();
      const usage = {
        cpu_seconds: Number(((cpu.user + cpu.system) / 1e6).toFixed(2)),
        max_rss_mib: Math.round(process.resourceUsage().maxRSS / 1024),
      };
      if (json) console.log(JSON.stringify({ version: r.version, pages: r.pages, seconds: Number(r.seconds.toFixed(2)), ...usage }));
      else {
        console.log(
          `site for ${r.version}: ${r.pages} pages in ${r.seconds.toFixed(1)} s, cpu ${usage.cpu_seconds} s, peak RSS ${usage.max_rss_mib} MiB (SITE_DIR builds/${r.version})`,
        );
      }
    })
    .catch((err: Error) => {
      console.error(`site build failed: ${err.message}`);
      process.exit(1);
    });
}
