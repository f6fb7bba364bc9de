// Static build of the public site for one analytics snapshot version (site/build.ts runs it with
// SITE_SNAPSHOTS_DIR, SITE_VERSION and SITE_DOWNLOADS_DIR set; see site/lib/data.ts).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'astro/config';
import { writeServicePages } from './lib/service-pages.ts';

export default defineConfig({
  output: 'static',
  outDir: './dist',
  // Astro's routes are directories (x/index.html, served at /x/). The 30,000 service pages are not
  // Astro routes (lib/service-pages.ts) and are flat files, services/<id>.html, served at
  // /services/<id>: a directory per page costs about 0.5 ms of kernel time on this machine (15 s
  // for 30,000) while writing the files themselves takes 1.4 s. Pages render while earlier ones
  // are written (concurrency), and the stylesheet is one shared file rather than inlined per page.
  build: { format: 'directory', concurrency: 4, inlineStylesheets: 'never' },
  integrations: [
    {
      // The page per service, written from the rendered shell (lib/service-pages.ts says why).
      name: 'service-pages',
      hooks: {
        'astro:build:done': async ({ dir, logger }) => {
          const t0 = performance.now();
          const pages = await writeServicePages(fileURLToPath(dir));
          logger.info(`${pages} service pages written in ${((performance.now() - t0) / 1000).toFixed(1)}s`);
        },
      },
    },
  ],
  telemetry: false,
  devToolbar: { enabled: false },
});
