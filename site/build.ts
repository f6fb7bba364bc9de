/**
 * npm run site:build: the Astro static build over the latest snapshots, then the free (CC0)
 * dataset files and their manifest copied beside the pages as downloads.
 */
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'astro';
import { latestSnapshot } from './lib/snapshots.ts';

export async function buildSite(): Promise<string> {
  const root = resolve('site');
  const outDir = join(root, 'dist');
  await build({ root, logLevel: 'warn' });
  const snap = await latestSnapshot('analytics');
  if (snap) {
    const dataDir = join(outDir, 'data', snap.manifest.version);
    mkdirSync(dataDir, { recursive: true });
    const free = snap.manifest.datasets.filter((d) => d.license === 'CC0-1.0');
    for (const d of free) copyFileSync(join(snap.dir, d.file), join(dataDir, d.file));
    // The published manifest lists only what is downloadable here.
    writeFileSync(join(dataDir, 'manifest.json'), JSON.stringify({ ...snap.manifest, datasets: free }, null, 2) + '\n');
    writeFileSync(
      join(outDir, 'data', 'latest.json'),
      JSON.stringify(
        {
          version: snap.manifest.version,
          generated_at: snap.manifest.generated_at,
          manifest: `/data/${snap.manifest.version}/manifest.json`,
        },
        null,
        2,
      ) + '\n',
    );
  }
  if (!existsSync(join(outDir, 'index.html'))) throw new Error(`site build produced no ${join(outDir, 'index.html')}`);
  return outDir;
}

if (process.argv[1]?.endsWith('site/build.ts')) {
  const t0 = performance.now();
  buildSite()
    .then((out) => console.log(`site built into ${out} in ${((performance.now() - t0) / 1000).toFixed(1)}s`))
    .catch((err: Error) => {
      console.error(`site build failed: ${err.message}`);
      process.exit(1);
    });
}
