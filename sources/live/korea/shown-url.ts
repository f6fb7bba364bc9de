/** The redacted URL of `path` on an upstream, for messages (shownBaseUrl ends with '/'). */
export function shownUrl(upstream: { shownBaseUrl: string }, path: string): string {
  return upstream.shownBaseUrl.replace(/\/+$/, '') + path;
}
