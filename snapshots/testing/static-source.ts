/**
 * A published snapshot source on 127.0.0.1 for the follower's tests: node:http serving the files
 * of a snapshots root as a static host (or object storage) would, with a log of the paths asked
 * and faults planted per path: a file cut short on the source, other bytes, another body, an
 * HTTP status, or the connection dropped halfway through the body.
 */
import { readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join, normalize } from 'node:path';

export type SourceFault =
  /** The first half of the file, with a Content-Length saying so (the file on the source is cut short). */
  | { kind: 'truncated' }
  /** The file with its first byte changed (same size, another sha256). */
  | { kind: 'flipped' }
  /** This body instead of the file. */
  | { kind: 'body'; body: string | Buffer }
  /** Half the body, then the connection is dropped (Content-Length promises the whole file). */
  | { kind: 'cut' }
  | { kind: 'status'; status: number };

export interface StaticSource {
  /** Base URL (`http://127.0.0.1:<port>/published`): `<url>/<service>/latest.json` is the root's file. */
  url: string;
  /** Paths asked below the base URL, in order (`/korea/latest.json`...). */
  requests: string[];
  /** Plants (or with null removes) a fault on a path below the root (`korea/<version>/manifest.json`). */
  fault(path: string, fault: SourceFault | null): void;
  close(): Promise<void>;
}

const BASE_PATH = '/published';

export async function startStaticSource(root: string, options: { token?: string } = {}): Promise<StaticSource> {
  const requests: string[] = [];
  const faults = new Map<string, SourceFault>();
  const server: Server = createServer((req, res) => {
    // served below a base path, as a bucket's prefix would be
    const full = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const path = full.startsWith(BASE_PATH) ? full.slice(BASE_PATH.length) : `/..${full}`;
    requests.push(path);
    if (options.token && req.headers.authorization !== `Bearer ${options.token}`) {
      res.writeHead(401).end('no token');
      return;
    }
    const relative = normalize(path).replace(/^\/+/, '');
    if (relative.startsWith('..')) {
      res.writeHead(400).end();
      return;
    }
    const fault = faults.get(relative);
    if (fault?.kind === 'status') {
      res.writeHead(fault.status).end(`status ${fault.status}`);
      return;
    }
    let bytes: Buffer;
    try {
      if (!statSync(join(root, relative)).isFile()) throw new Error('not a file');
      bytes = readFileSync(join(root, relative));
    } catch {
      res.writeHead(404).end('not found');
      return;
    }
    if (fault?.kind === 'body') bytes = Buffer.from(fault.body);
    if (fault?.kind === 'truncated') bytes = bytes.subarray(0, Math.floor(bytes.length / 2));
    if (fault?.kind === 'flipped') {
      bytes = Buffer.from(bytes);
      bytes[0] = bytes[0]! ^ 0xff;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(bytes.length) });
    if (fault?.kind === 'cut') {
      res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.destroy());
      return;
    }
    res.end(bytes);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}${BASE_PATH}`,
    requests,
    fault: (path, fault) => {
      if (fault) faults.set(path, fault);
      else faults.delete(path);
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
