/**
 * The analytics publish's site step: builds the public site for the new snapshot version before
 * latest.json names it, so the pages a visitor sees always belong to the version the API serves.
 * The build runs `site/build.ts` in a child process: the pipelines never import the site (layer
 * rule), and Astro/Vite start fresh for every version instead of growing in a long-lived process.
 */
import { spawn } from 'node:child_process';
import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Settings } from '../lib/config.ts';
import type { SnapshotManifest } from '../snapshots/manifest.ts';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
/** Lines of the build's stderr quoted in a failure. */
const ERROR_TAIL_LINES = 15;

/** What site/build.ts prints as its last stdout line. */
export interface SiteBuildReport {
  version: string;
  pages: number;
  seconds: number;
}

/** The runner's beforeLive hook for analytics: builds the site for the verified version in versionDir. */
export function siteBuildStep(settings: Settings) {
  return async (versionDir: string, manifest: SnapshotManifest): Promise<{ rows: number; detail: string | null }> => {
    const version = basename(versionDir);
    if (version !== manifest.version) throw new Error(`internal: version folder ${version} holds manifest ${manifest.version}`);
    const report = await runSiteBuild(settings, version);
    return { rows: report.pages, detail: `site for ${report.version}: ${report.pages} pages` };
  };
}

/** Builds the site of `version` in a child process (npm start also uses it for a version live without pages). */
export function runSiteBuild(settings: Settings, version: string): Promise<SiteBuildReport> {
  return new Promise((resolveBuild, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'site/build.ts', '--version', version, '--json'], {
      cwd: ROOT,
      // Settings objects in tests do not come from process.env: hand the child the folders explicitly.
      env: { ...process.env, SNAPSHOTS_DIR: settings.snapshotsDir, SITE_DIR: settings.siteDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      err = (err + chunk).slice(-20_000);
    });
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code !== 0) {
        const tail = err.trim().split('\n').slice(-ERROR_TAIL_LINES).join('\n');
        reject(new Error(`site build for ${version} failed (${signal ?? `exit ${code}`})${tail ? `: ${tail}` : ''}`));
        return;
      }
      const last = out.trim().split('\n').at(-1) ?? '';
      try {
        resolveBuild(JSON.parse(last) as SiteBuildReport);
      } catch {
        reject(new Error(`site build for ${version} printed no report (last line: ${last.slice(0, 200)})`));
      }
    });
  });
}
