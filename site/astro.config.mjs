// Static build over the latest snapshots (see site/build.ts, which runs it and copies downloads).
import { defineConfig } from 'astro/config';

export default defineConfig({
  output: 'static',
  outDir: './dist',
  // Pages render while earlier ones are written: with one at a time (the default) a 30,000-page
  // build spent a third of its wall time waiting on mkdir/writeFile (bench/site.ts).
  // 'preserve': a page per service is services/<id>.html (served at /services/<id>), not
  // services/<id>/index.html. On this machine mkdir costs about 0.5 ms of kernel time, i.e. 15 s
  // of a 30 s budget for 30,000 directories, while writing the files themselves takes 1.4 s.
  // Index pages (src/pages/x/index.astro) stay x/index.html. The stylesheet is one shared file
  // rather than inlined into each page.
  build: { format: 'preserve', concurrency: 4, inlineStylesheets: 'never' },
  telemetry: false,
  devToolbar: { enabled: false },
});
