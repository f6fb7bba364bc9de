/**
 * Where backups go. A target stores backups per service under an id that sorts by time; a backup
 * is whole or absent: it is written under a temporary name and becomes visible in one step
 * (commit), and readers list only committed ones.
 *
 * One target exists: a directory (local or mounted; BACKUP_URL a path or `file:` URL). An
 * S3-compatible bucket is one more implementation of this interface (its commit is writing the
 * manifest object last, and list() then lists ids that have a manifest); DuckDB's httpfs could
 * write the Parquet files straight to it, but httpfs is an extension DuckDB downloads on first use,
 * so it is not built here (docs/backup.md).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ServiceName } from '../../catalog/types.ts';

/** A backup being written: files land in a staging place until commit(). */
export interface BackupDraft {
  /** Local path where the file `name` (a relative path) is to be written; its folder exists. */
  pathFor(name: string): string;
  /** Makes `name` the same file as `name` of the committed backup `from` without copying, when the target can; false otherwise. */
  reuse(name: string, from: string): boolean;
  /** Makes the backup visible under its id, whole. */
  commit(): void;
  /** Drops what was written. */
  abort(): void;
}

export interface BackupTarget {
  /** For messages: where the backups are. */
  readonly where: string;
  /** Committed backup ids of a service, oldest first. */
  list(service: ServiceName): string[];
  begin(service: ServiceName, id: string): BackupDraft;
  /** A local path to read the file `name` of a committed backup from. */
  read(service: ServiceName, id: string, name: string): string;
  remove(service: ServiceName, id: string): void;
  /** Drafts of earlier writers that never committed (a killed run), older than `ms`. */
  removeAbandoned(service: ServiceName, olderThanMs: number): string[];
}

/** A new backup id: its time (sortable) and a random part. */
export function newBackupId(at: Date): string {
  return `${at.toISOString().replace(/[-:.]/g, '')}-${randomBytes(4).toString('hex')}`;
}

const DRAFT = '.draft-';
const ID = /^\d{8}T\d{9}Z-[0-9a-f]{8}$/;

function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Backups as folders: `<root>/<service>/<id>/`, drafted in `<root>/<service>/.draft-<id>/` and renamed. */
export class DirectoryTarget implements BackupTarget {
  constructor(readonly root: string) {}

  get where(): string {
    return this.root;
  }

  private serviceDir(service: ServiceName): string {
    return join(this.root, service);
  }

  list(service: ServiceName): string[] {
    const dir = this.serviceDir(service);
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .filter((f) => ID.test(f))
      .sort();
  }

  begin(service: ServiceName, id: string): BackupDraft {
    const dir = this.serviceDir(service);
    const draft = join(dir, `${DRAFT}${id}`);
    mkdirSync(draft, { recursive: true });
    const written: string[] = [];
    return {
      pathFor: (name) => {
        const path = join(draft, name);
        mkdirSync(dirname(path), { recursive: true });
        written.push(path);
        return path;
      },
      reuse: (name, from) => {
        const source = join(dir, from, name);
        if (!existsSync(source)) return false;
        const path = join(draft, name);
        mkdirSync(dirname(path), { recursive: true });
        try {
          linkSync(source, path);
        } catch {
          return false; // a file system without hard links: the caller copies
        }
        return true;
      },
      commit: () => {
        // every file on disk before the rename that makes the backup visible
        for (const path of written) if (existsSync(path)) fsyncPath(path);
        renameSync(draft, join(dir, id));
        fsyncPath(dir);
      },
      abort: () => rmSync(draft, { recursive: true, force: true }),
    };
  }

  read(service: ServiceName, id: string, name: string): string {
    return join(this.serviceDir(service), id, name);
  }

  remove(service: ServiceName, id: string): void {
    // renamed out of the listing first, so a backup is never seen half-removed
    const dir = this.serviceDir(service);
    const doomed = join(dir, `${DRAFT}removed-${id}`);
    renameSync(join(dir, id), doomed);
    rmSync(doomed, { recursive: true, force: true });
  }

  removeAbandoned(service: ServiceName, olderThanMs: number): string[] {
    const dir = this.serviceDir(service);
    if (!existsSync(dir)) return [];
    const removed: string[] = [];
    for (const f of readdirSync(dir)) {
      if (!f.startsWith(DRAFT)) continue;
      const path = join(dir, f);
      if (Date.now() - statSync(path).mtimeMs < olderThanMs) continue;
      rmSync(path, { recursive: true, force: true });
      removed.push(f);
    }
    return removed;
  }
}

/** The target BACKUP_URL names (lib/config.ts resolves it to a directory). */
export function backupTargetOf(url: string): BackupTarget {
  return new DirectoryTarget(url);
}
