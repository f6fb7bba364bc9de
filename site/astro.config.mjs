// Static build over the latest snapshots (see site/build.ts, which runs it and copies downloads).
import { defineConfig } from 'astro/config';

export default defineConfig({
  output: 'static',
  outDir: './dist',
  build: { format: 'directory' },
  telemetry: false,
  devToolbar: { enabled: false },
});
