/**
 * Writing a file through a temporary name without ever writing through a link: the temporary file
 * is created exclusively (O_EXCL, which fails on anything already there, a symbolic link
 * included) under a name with a random part, then renamed over the target (a rename replaces
 * whatever is at the target, a link too, and never follows it).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';

/** Writes `data` to a new file at `path` and fsyncs it; throws (EEXIST) when anything is at `path`. */
export function writeNewFile(path: string, data: string | Uint8Array): void {
  const fd = openSync(path, 'wx');
  try {
    writeFileSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** A temporary name beside `path` that no one can plant in advance: `<path>.tmp-<pid>-<random>`. */
export function tempNameBeside(path: string): string {
  return `${path}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`;
}

/** Replaces `path` with `data` atomically: a reader sees the old file or the new one, never part of it. */
export function replaceFile(path: string, data: string | Uint8Array): void {
  const tmp = tempNameBeside(path);
  writeNewFile(tmp, data);
  try {
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
