/**
 * Where the public site's per-version output lives under SITE_DIR: the Astro build of each
 * analytics snapshot version and the free datasets' downloads of that version. The site build
 * writes them; the analytics service serves the build of the version its API serves.
 */
import { join } from 'node:path';

export const siteBuildsDir = (siteDir: string): string => join(siteDir, 'builds');
export const siteDownloadsDir = (siteDir: string): string => join(siteDir, 'downloads');
export const siteBuildDir = (siteDir: string, version: string): string => join(siteBuildsDir(siteDir), version);
export const siteDownloadDir = (siteDir: string, version: string): string => join(siteDownloadsDir(siteDir), version);
