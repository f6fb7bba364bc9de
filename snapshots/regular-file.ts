/**
 * Opening a snapshot file the way a long-running server must: only a regular file, never through a
 * symbolic link, and never more of it than a cap. A link planted in a snapshot folder would
 * otherwise make the reader open another file (a key, a FIFO that blocks the open, a device that
 * never ends), and a huge file would be read whole before anything could refuse it.
 *
 * The open itself refuses a link (O_NOFOLLOW) and cannot block (O_NONBLOCK, which changes nothing
 * for a regular file); what is checked (type, size) is the opened file's own fstat, so nothing can
 * be swapped in between the check and the read. Errors name the file as the caller names it,
 * never its path: their text reaches the public /health.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';

/** Read-only, refusing a link as the last component, not blocking on a FIFO (0 where the platform lacks a flag). */
export const OPEN_NO_FOLLOW = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

export type RegularFileProblem = 'missing' | 'link' | 'not_file' | 'too_large' | 'unreadable';

export class RegularFileError extends Error {
  constructor(
    readonly problem: RegularFileProblem,
    message: string,
  ) {
    super(message);
  }
}

/** The open's error as a RegularFileError naming `name`. */
function openError(err: unknown, name: string): RegularFileError {
  const code = (err as NodeJS.ErrnoException).code ?? 'error';
  if (code === 'ENOENT') return new RegularFileError('missing', `${name} missing`);
  // O_NOFOLLOW on a link: ELOOP on Linux, EMLINK on the BSDs
  if (code === 'ELOOP' || code === 'EMLINK') {
    return new RegularFileError('link', `${name} is a symbolic link (snapshot files are never read through links)`);
  }
  return new RegularFileError('unreadable', `${name} cannot be read (${code})`);
}

/** Why `stat` (of the opened file) is refused, or null. */
function statProblem(stat: Stats, name: string, maxBytes: number | undefined): RegularFileError | null {
  if (!stat.isFile()) return new RegularFileError('not_file', `${name} is not a regular file`);
  if (maxBytes !== undefined && stat.size > maxBytes) {
    return new RegularFileError('too_large', `${name} is ${stat.size} bytes, more than the ${maxBytes} bytes it may have`);
  }
  return null;
}

export interface OpenedFile {
  handle: FileHandle;
  /** The opened file's own fstat. */
  stat: Stats;
}

/** Opens `path` for reading when it is a regular file (not a link) of at most `maxBytes`; the caller closes it. */
export async function openRegularFile(path: string, name: string, maxBytes?: number): Promise<OpenedFile> {
  let handle: FileHandle;
  try {
    handle = await open(path, OPEN_NO_FOLLOW);
  } catch (err) {
    throw openError(err, name);
  }
  try {
    const stat = await handle.stat();
    const problem = statProblem(stat, name, maxBytes);
    if (problem) throw problem;
    return { handle, stat };
  } catch (err) {
    await handle.close();
    throw err instanceof RegularFileError ? err : openError(err, name);
  }
}

/** The bytes of an opened file, at most the size its fstat gave (a file growing meanwhile is cut there). */
export async function readOpened({ handle, stat }: OpenedFile, name: string): Promise<Buffer> {
  const bytes = Buffer.allocUnsafe(stat.size);
  let filled = 0;
  try {
    while (filled < bytes.length) {
      const { bytesRead } = await handle.read(bytes, filled, bytes.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
  } catch (err) {
    throw openError(err, name);
  }
  return bytes.subarray(0, filled);
}

/** sha256 of an opened file's bytes, read in chunks. */
export async function sha256Opened({ handle }: OpenedFile, name: string): Promise<string> {
  const hash = createHash('sha256');
  const chunk = Buffer.allocUnsafe(1 << 20);
  try {
    for (let at = 0; ; ) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, at);
      if (bytesRead === 0) break;
      hash.update(chunk.subarray(0, bytesRead));
      at += bytesRead;
    }
  } catch (err) {
    throw openError(err, name);
  }
  return hash.digest('hex');
}

/** A regular file (not a link) of at most `maxBytes`, read whole, with its fstat. */
export async function readRegularFile(path: string, name: string, maxBytes: number): Promise<{ bytes: Buffer; stat: Stats }> {
  const opened = await openRegularFile(path, name, maxBytes);
  try {
    return { bytes: await readOpened(opened, name), stat: opened.stat };
  } finally {
    await opened.handle.close();
  }
}

/** readRegularFile for synchronous callers (the writer, command-line tools). */
export function readRegularFileSync(path: string, name: string, maxBytes: number): { bytes: Buffer; stat: Stats } {
  let fd: number;
  try {
    fd = openSync(path, OPEN_NO_FOLLOW);
  } catch (err) {
    throw openError(err, name);
  }
  try {
    const stat = fstatSync(fd);
    const problem = statProblem(stat, name, maxBytes);
    if (problem) throw problem;
    const bytes = Buffer.allocUnsafe(stat.size);
    let filled = 0;
    while (filled < bytes.length) {
      const read = readSync(fd, bytes, filled, bytes.length - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    return { bytes: bytes.subarray(0, filled), stat };
  } catch (err) {
    throw err instanceof RegularFileError ? err : openError(err, name);
  } finally {
    closeSync(fd);
  }
}
