/**
 * Serialized free answers per snapshot version, so hot endpoints skip JSON.stringify and hashing:
 * an answer cannot change within one version, and a new version drops every entry of the old.
 */
import { createHash } from 'node:crypto';
import type { FreeResult } from './data/types.ts';

export interface CachedBody {
  /** The body: text, or a download's bytes. */
  text: string | Uint8Array<ArrayBuffer>;
  etag: string;
  contentType: string;
}

/** At most `maxEntries` answers of the version being served (oldest dropped first). */
export class ResponseCache {
  private version = '';
  private readonly entries = new Map<string, CachedBody>();
  constructor(private readonly maxEntries = 2000) {}

  get(version: string, key: string): CachedBody | undefined {
    if (version !== this.version) return undefined;
    return this.entries.get(key);
  }

  set(version: string, key: string, value: CachedBody): void {
    if (version !== this.version) {
      this.entries.clear();
      this.version = version;
    }
    if (this.entries.size >= this.maxEntries) {
      const first = this.entries.keys().next().value;
      if (first !== undefined) this.entries.delete(first);
    }
    this.entries.set(key, value);
  }
}

/** The text, weak ETag and content type of a 200 data answer. */
export function serialize(result: Extract<FreeResult, { status: 200 }>): CachedBody {
  if ('file' in result) {
    return {
      text: result.file,
      etag: `W/"${createHash('sha1').update(result.file).digest('base64url').slice(0, 22)}"`,
      contentType: result.contentType,
    };
  }
  const isText = typeof result.body === 'string';
  const text = isText ? (result.body as string) : JSON.stringify(result.body);
  const contentType = result.contentType ?? (isText ? 'text/plain; charset=utf-8' : 'application/json');
  const etag = `W/"${createHash('sha1').update(text).digest('base64url').slice(0, 22)}"`;
  return { text, etag, contentType };
}

/** Whether an If-None-Match header names `etag` (weak comparison, `*` matches all). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag === etag || tag.replace(/^W\//, '') === etag.replace(/^W\//, '');
  });
}
