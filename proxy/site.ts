/**
 * The public site on the analytics service: `/` and every page come from the site build of the
 * snapshot version the API serves at that moment (SITE_DIR/builds/<version>/), so a page and the
 * JSON it summarises never disagree; `/data/<version>/<file>` serves the typed downloads of any
 * version still kept. Unknown page paths answer the build's 404 page with status 404.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { compress } from 'hono/compress';
import { siteBuildDir, siteDownloadDir } from '../lib/site-paths.ts';
import { VERSION_PATTERN } from '../snapshots/manifest.ts';
import type { SnapshotReader } from '../snapshots/reader.ts';

/** Pages change when the served version does: short caching. Downloads of a version never change. */
const PAGE_CACHE = 'public, max-age=60';
const DOWNLOAD_CACHE = 'public, max-age=31536000, immutable';
const DOWNLOAD_FILE = /^[a-z0-9][a-z0-9._-]*\.(?:json|csv|parquet)$/;
/** A page path without an extension or trailing slash, made of plain segments (no dots: no traversal). */
const FLAT_PAGE = /^(?:\/[A-Za-z0-9_-]+)+$/;

/** The JSON API and MCP: never answered from the site (the site's own /api/ page is not under /api/v1). */
const isApiPath = (path: string): boolean => path === '/api/v1' || path.startsWith('/api/v1/') || path === '/mcp';

export interface MountedSite {
  /** The build's 404 page for a GET or HEAD no route answered (outside /api/v1 and /mcp), or null. */
  notFound(c: Context): Response | null;
}

export function mountSite(app: Hono, options: { siteDir: string; reader: SnapshotReader }): MountedSite {
  const { siteDir, reader } = options;
  const pageServers = new Map<string, MiddlewareHandler>();
  const gzip = compress();
  const pagesOf = (root: string) => {
    let server = pageServers.get(root);
    if (!server) {
      if (pageServers.size > 16) pageServers.clear(); // old versions fall out; rebuilding one costs nothing
      server = serveStatic({ root });
      pageServers.set(root, server);
    }
    return server;
  };
  /** The build of the version the API serves now, when it is complete. */
  const liveBuild = (): { version: string; root: string } | null => {
    const version = reader.current()?.version;
    if (!version) return null;
    const root = siteBuildDir(siteDir, version);
    return existsSync(join(root, 'index.html')) ? { version, root } : null;
  };

  app.get('/data/:version/:file', async (c, next) => {
    const { version, file } = c.req.param();
    const dir = siteDownloadDir(siteDir, version);
    if (!VERSION_PATTERN.test(version) || !DOWNLOAD_FILE.test(file) || !existsSync(join(dir, file))) return next();
    c.header('Cache-Control', DOWNLOAD_CACHE);
    return serveStatic({ path: join(dir, file) })(c, next);
  });

  app.use('/*', async (c, next) => {
    if (isApiPath(c.req.path)) return next();
    const build = liveBuild();
    if (!build) return next();
    // The build's file for this path, if it has one (pages are folders; the page per service is a
    // flat file, services/<id>.html, served at /services/<id>); anything else goes on to the routes.
    const fileOf = async (serve: MiddlewareHandler): Promise<Response | null> => {
      let missing = false;
      const res = await serve(c, async () => {
        missing = true;
      });
      return missing || !(res instanceof Response) ? null : res;
    };
    let file = await fileOf(pagesOf(build.root));
    const flat = FLAT_PAGE.test(c.req.path) ? join(build.root, `${c.req.path}.html`) : null;
    if (!file && flat && existsSync(flat)) file = await fileOf(serveStatic({ path: flat }));
    if (!file) return next(); // the routes answer with their own headers
    file.headers.set('X-Snapshot-Version', build.version);
    file.headers.set('Cache-Control', PAGE_CACHE);
    // gzip: pages and the services table's index (5 MB of JSON at 30,000 services, 0.6 MB gzipped)
    const served = file;
    await gzip(c, async () => {
      c.res = served;
    });
    return c.res;
  });

  return {
    notFound(c) {
      if ((c.req.method !== 'GET' && c.req.method !== 'HEAD') || isApiPath(c.req.path)) return null;
      const build = liveBuild();
      const page = build ? join(build.root, '404.html') : null;
      if (!page || !existsSync(page)) return null;
      return new Response(c.req.method === 'HEAD' ? null : readFileSync(page), {
        status: 404,
        headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', 'X-Snapshot-Version': build!.version },
      });
    },
  };
}
