/**
 * Files served from a folder (the site builds, the downloads) that never leave it: a symbolic link
 * anywhere below the folder, on the file or on any directory above it, is refused as if the file
 * did not exist (the caller answers 404, and no path is ever in an answer), whether it points
 * outside the folder or inside it. Only regular files are served.
 *
 * The check is made on the file actually opened, so nothing can be swapped in between a check and
 * the open: the open refuses a link as the last component (O_NOFOLLOW) and cannot block on a FIFO
 * (O_NONBLOCK), and then the opened file's own location (Linux: /proc/self/fd, which the kernel
 * reports for the open file) must be exactly the folder's real path plus the requested names, so
 * a link on a directory above it shows as another location. Where /proc is missing, the path's
 * realpath must be itself and its file the opened one (same device and inode).
 */
import type { Stats } from 'node:fs';
import { type FileHandle, open, readlink, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createStreamBody } from '@hono/node-server/utils/stream';
import type { Context } from 'hono';
import { getMimeType } from 'hono/utils/mime';
import { OPEN_NO_FOLLOW } from '../snapshots/regular-file.ts';

export interface StaticFile {
  handle: FileHandle;
  stat: Stats;
  /** The file's name (its extension gives the content type). */
  name: string;
}

/** Names of a request path, or null when one is not a plain name ("", ".", "..", hidden, a separator or NUL inside). */
export function pathNames(path: string): string[] | null {
  const names = path.split('/').slice(1);
  if (names.length > 0 && names.at(-1) === '') names.pop(); // a trailing slash: the folder's index.html
  for (const n of names) if (n === '' || n.startsWith('.') || /[\\\0]/.test(n)) return null;
  return names;
}

/** Whether the opened `handle` is the file at `expected` (a real path, no link in it). */
async function openedAt(handle: FileHandle, opened: Stats, expected: string): Promise<boolean> {
  try {
    return (await readlink(`/proc/self/fd/${handle.fd}`)) === expected;
  } catch {
    /* no /proc: check the path as it is now against the file opened */
  }
  try {
    if ((await realpath(expected)) !== expected) return false;
    const now = await stat(expected);
    return now.dev === opened.dev && now.ino === opened.ino;
  } catch {
    return false;
  }
}

/**
 * Opens the regular file `names` below `root` (a directory: its index.html), or null when there is
 * none or it is refused (a link on the way, not a regular file). `root` itself is the operator's
 * setting and may be reached through links; nothing below it may be. The caller closes the file.
 */
export async function openInside(root: string, names: readonly string[]): Promise<StaticFile | null> {
  let base: string;
  try {
    base = await realpath(root);
  } catch {
    return null;
  }
  for (const candidate of [names, [...names, 'index.html']]) {
    const expected = join(base, ...candidate);
    let handle: FileHandle;
    try {
      handle = await open(expected, OPEN_NO_FOLLOW);
    } catch {
      return null;
    }
    let keep = false;
    try {
      const st = await handle.stat();
      if (!(await openedAt(handle, st, expected))) return null;
      if (st.isDirectory()) continue;
      if (!st.isFile()) return null;
      keep = true;
      return { handle, stat: st, name: candidate.at(-1) ?? 'index.html' };
    } finally {
      if (!keep) await handle.close();
    }
  }
  return null;
}

const BYTE_RANGE = /^bytes=(\d*)-(\d*)$/;

/** The single byte range `header` asks for within `size`, 'unsatisfiable', or null for the whole file. */
function byteRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  const m = header ? BYTE_RANGE.exec(header.trim()) : null;
  if (!m || (m[1] === '' && m[2] === '')) return null;
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    start = Math.max(size - suffix, 0);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}

/**
 * The response for an opened file (GET or HEAD), streamed from the opened handle itself: its
 * content type, length and Last-Modified, and one byte range when asked (unless `ranges` is
 * false: the whole file). Takes over the handle.
 */
export function fileResponse(c: Context, file: StaticFile, options: { ranges?: boolean } = {}): Response {
  const { handle, stat: st } = file;
  const ranges = options.ranges ?? true;
  const headers = new Headers({
    'Content-Type': getMimeType(file.name) ?? 'application/octet-stream',
    'Last-Modified': st.mtime.toUTCString(),
  });
  if (ranges) headers.set('Accept-Ranges', 'bytes');
  const range = ranges ? byteRange(c.req.header('range'), st.size) : null;
  if (c.req.method === 'HEAD' || range === 'unsatisfiable') {
    void handle.close();
    if (range === 'unsatisfiable') {
      headers.set('Content-Range', `bytes */${st.size}`);
      return new Response(null, { status: 416, headers });
    }
    headers.set('Content-Length', String(st.size));
    return new Response(null, { status: 200, headers });
  }
  const { start, end } = range ?? { start: 0, end: st.size - 1 };
  headers.set('Content-Length', String(Math.max(0, end - start + 1)));
  if (range) headers.set('Content-Range', `bytes ${start}-${end}/${st.size}`);
  // an empty file: no stream to read (a read stream with end -1 would read it all)
  if (st.size === 0) {
    void handle.close();
    return new Response(null, { status: 200, headers });
  }
  const body = createStreamBody(handle.createReadStream({ start, end, autoClose: true })) as ReadableStream;
  return new Response(body, { status: range ? 206 : 200, headers });
}
