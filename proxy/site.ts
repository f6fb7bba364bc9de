/**
 * The public site on the analytics service: `/` and every page come from the site build of the
 * snapshot version the API serves at that moment (SITE_DIR/builds/<version>/), so a page and the
 * JSON it summarises never disagree; `/data/<version>/<file>` serves the typed downloads of any
 * version still kept. Unknown page paths answer the build's 404 page with status 404.
 *
 * Pages are built when a version is published, so they cannot know that no newer one came: while
 * a dataset of the version served is stale, carried over or missing (as /health says), every page
 * is served with a banner saying so, put in on the server so it shows without JavaScript.
 *
 * Files are served only from inside SITE_DIR, never through a symbolic link (proxy/static-files.ts):
 * a link planted in a build or a downloads folder answers 404, wherever it points.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Context, Hono } from 'hono';
import { compress } from 'hono/compress';
import { SERVICE_INFO } from '../catalog/index.ts';
import { siteBuildDir } from '../lib/site-paths.ts';
import { VERSION_PATTERN } from '../snapshots/manifest.ts';
import type { LoadedSnapshot, SnapshotReader } from '../snapshots/reader.ts';
import { ageText, datasetFreshness, type DegradedDataset } from './health.ts';
import { fileResponse, openInside, pathNames } from './static-files.ts';

/** Pages change when the served version does: short caching. Downloads of a version never change. */
const PAGE_CACHE = 'public, max-age=60';
const DOWNLOAD_CACHE = 'public, max-age=31536000, immutable';
const DOWNLOAD_FILE = /^[a-z0-9][a-z0-9._-]*\.(?:json|csv|parquet)$/;
/** A page path without an extension or trailing slash, made of plain segments (no dots: no traversal). */
const FLAT_PAGE = /^(?:\/[A-Za-z0-9_-]+)+$/;

/** `/` and every page while the live version's site is being built: 503 with a short retry, never cached. */
function buildingPage(version: string): Response {
  const body =
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<meta http-equiv="refresh" content="5"><title>${escapeHtml(SERVICE_INFO.analytics.title)}: the site is being built</title></head><body><main>` +
    `<h1>The site is being built</h1><p>The pages of snapshot <code>${escapeHtml(version)}</code> are being built; this page reloads ` +
    'itself and shows them when they are ready. The data is already served: <a href="/docs">API reference</a>, ' +
    '<a href="/api/v1">/api/v1</a>, <a href="/health">/health</a>.</p></main></body></html>';
  return new Response(body, {
    status: 503,
    headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', 'Retry-After': '5' },
  });
}

/** The JSON API and MCP: never answered from the site (the site's own /api/ page is not under /api/v1). */
const isApiPath = (path: string): boolean => path === '/api/v1' || path.startsWith('/api/v1/') || path === '/mcp';

export interface MountedSite {
  /** The build's 404 page for a GET or HEAD no route answered (outside /api/v1 and /mcp), or null. */
  notFound(c: Context): Promise<Response | null>;
}

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);

/** Datasets named in the banner; the others are counted (all of them are in /health). */
const BANNER_NAMED = 6;

function describeDegraded(d: DegradedDataset): string {
  if (d.state === 'unavailable') return `${d.dataset} (missing)`;
  const age = d.age_seconds === null ? '' : `${ageText(d.age_seconds)} old`;
  return `${d.dataset} (${d.state === 'carried_over' ? `not updated by the last run, ${age}` : age})`;
}

/**
 * The banner a page of `snap` carries at `now`, or null while every dataset is fresh: which
 * datasets are stale and how old they are, and where to read why.
 */
export function staleBanner(snap: LoadedSnapshot | null, now: Date): string | null {
  const { degraded } = datasetFreshness('analytics', snap, now);
  if (degraded.length === 0) return null;
  const oldest = degraded.reduce<string | null>((a, d) => (d.as_of && (!a || Date.parse(d.as_of) < Date.parse(a)) ? d.as_of : a), null);
  const named = degraded.slice(0, BANNER_NAMED).map(describeDegraded).join(', ');
  const more = degraded.length > BANNER_NAMED ? ` and ${degraded.length - BANNER_NAMED} more` : '';
  const since = oldest
    ? ` Some figures describe <time datetime="${escapeHtml(oldest)}">${escapeHtml(oldest.replace('T', ' ').replace(/:\d\d(\.\d+)?Z$/, ''))} UTC</time>.`
    : '';
  return (
    `<p class="notice" role="status" data-testid="stale-banner"><strong>Stale data:</strong> no newer version has updated ` +
    `${escapeHtml(named)}${more}.${since} Why, per dataset: <a href="/health">/health</a>.</p>`
  );
}

/** The page with the banner at the top of its main content (after the header, before the page's own notices). */
export function withBanner(html: string, banner: string): string {
  const main = /<main\b[^>]*>/i.exec(html);
  if (main) return html.slice(0, main.index + main[0].length) + banner + html.slice(main.index + main[0].length);
  const body = /<body\b[^>]*>/i.exec(html);
  return body ? html.slice(0, body.index + body[0].length) + banner + html.slice(body.index + body[0].length) : html;
}

export function mountSite(
  app: Hono,
  options: {
    siteDir: string;
    reader: SnapshotReader;
    now?: () => Date;
    /** SITE_BUILD: the live version will have pages (npm start builds them after serving the API); off, there are none to wait for. */
    siteBuild?: boolean;
  },
): MountedSite {
  const { siteDir, reader } = options;
  const now = options.now ?? (() => new Date());
  const gzip = compress();
  /** The build of the version the API serves now, when it is complete: its names below SITE_DIR. */
  const liveBuild = (): { version: string; names: string[] } | null => {
    const version = reader.current()?.version;
    if (!version) return null;
    // the link-safe open decides what is served; this only tells a version without a build
    return existsSync(join(siteBuildDir(siteDir, version), 'index.html')) ? { version, names: ['builds', version] } : null;
  };
  const isRead = (c: Context) => c.req.method === 'GET' || c.req.method === 'HEAD';

  app.get('/data/:version/:file', async (c, next) => {
    const { version, file } = c.req.param();
    if (!VERSION_PATTERN.test(version) || !DOWNLOAD_FILE.test(file)) return next();
    const opened = await openInside(siteDir, ['downloads', version, file]);
    if (!opened) return next();
    const res = fileResponse(c, opened);
    res.headers.set('Cache-Control', DOWNLOAD_CACHE);
    return res;
  });

  app.use('/*', async (c, next) => {
    if (isApiPath(c.req.path) || !isRead(c)) return next();
    const build = liveBuild();
    const names = build ? pathNames(c.req.path) : null;
    if (!build || !names) return next();
    // The build's file for this path, if it has one (pages are folders; the page per service is a
    // flat file, services/<id>.html, served at /services/<id>); anything else goes on to the routes.
    let opened = await openInside(siteDir, [...build.names, ...names]);
    if (!opened && FLAT_PAGE.test(c.req.path)) {
      opened = await openInside(siteDir, [...build.names, ...names.slice(0, -1), `${names.at(-1)}.html`]);
    }
    if (!opened && c.req.path.length > 1 && c.req.path.endsWith('/')) {
      // /services/968/ names the flat page /services/968: one canonical URL, as the API's routes have
      const canonical = c.req.path.replace(/\/+$/, '');
      const flat = FLAT_PAGE.test(canonical)
        ? await openInside(siteDir, [...build.names, ...names.slice(0, -1), `${names.at(-1)}.html`])
        : null;
      if (flat) {
        await flat.handle.close();
        c.header('Cache-Control', PAGE_CACHE);
        return c.redirect(`${canonical}${new URL(c.req.url).search}`, 308);
      }
    }
    if (!opened) return next(); // the routes answer with their own headers
    let file = fileResponse(c, opened);
    const banner = file.headers.get('content-type')?.startsWith('text/html') ? staleBanner(reader.current(), now()) : null;
    if (banner) file = await bannered(file, banner, c.req.method === 'HEAD');
    file.headers.set('X-Snapshot-Version', build.version);
    file.headers.set('Cache-Control', PAGE_CACHE);
    // gzip: pages and the services table's index (5 MB of JSON at 30,000 services, 0.6 MB gzipped)
    const served = file;
    await gzip(c, async () => {
      c.res = served;
    });
    return c.res;
  });

  /** The page with the banner: a new body, so the file's length and validators no longer hold. */
  async function bannered(page: Response, banner: string, head: boolean): Promise<Response> {
    const headers = new Headers(page.headers);
    for (const h of ['content-length', 'etag', 'last-modified', 'content-range', 'accept-ranges']) headers.delete(h);
    if (head || page.status !== 200) {
      await page.body?.cancel(); // closes the file
      return new Response(null, { status: page.status, headers });
    }
    return new Response(withBanner(await page.text(), banner), { status: 200, headers });
  }

  return {
    async notFound(c) {
      if (!isRead(c) || isApiPath(c.req.path)) return null;
      const build = liveBuild();
      // data served, pages not built yet (npm start serves the API first): say so rather than 404
      if (!build && options.siteBuild && reader.current()) return buildingPage(reader.current()!.version);
      const opened = build ? await openInside(siteDir, [...build.names, '404.html']) : null;
      if (!opened) return null;
      const page = fileResponse(c, opened, { ranges: false });
      return new Response(page.body, {
        status: 404,
        headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', 'X-Snapshot-Version': build!.version },
      });
    },
  };
}
