/**
 * A small closed-loop HTTP/1.1 load generator for the proxy bench: `connections` keep-alive
 * connections, each sending its next request as soon as the previous answer is read, for a fixed
 * duration after a warm-up. Used the same way for the service and its baselines, so their figures
 * compare like for like.
 *
 * It writes requests and reads answers on raw sockets (a request is one pre-built buffer; an
 * answer is read by Content-Length or chunked framing) rather than through an HTTP client
 * library: the generator shares the machine's cores with the server, and every microsecond it
 * spends is one the server under test does not get (undici took about 65 µs per request here,
 * this about a third of that). Latency is from the request's write to its answer's last byte.
 */
import { connect, type Socket } from 'node:net';

export interface LoadOptions {
  url: string;
  connections: number;
  durationMs: number;
  warmupMs?: number;
  /** Headers of request number i (e.g. a fresh payment per request). */
  headers?: (i: number) => Record<string, string>;
  method?: 'GET' | 'POST';
  body?: string;
  /** Status every answer must have; others are counted as errors. */
  expectStatus?: number;
  /**
   * Build the first `prebuild` requests (headers included) before the run, so that making them
   * costs the generator nothing while it measures (e.g. the pre-signed payments of the paid run).
   */
  prebuild?: number;
  /**
   * Open loop: requests are due at this steady rate (per second, all connections together) and go
   * out on whichever connection is free; one due while all are busy waits, and its latency counts
   * from when it was due (no coordinated omission). Without it, the loop is closed: each
   * connection sends its next request as soon as its answer is in, which measures the most the
   * server can do, and latency then is mostly the queue that saturation builds.
   */
  rate?: number;
}

export interface LoadResult {
  /** Answers measured (inside the timed window). */
  requests: number;
  /** Requests sent in all, warm-up included (per-request costs divide by this). */
  sent: number;
  errors: number;
  statuses: Record<number, number>;
  seconds: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}

const CRLF2 = Buffer.from('\r\n\r\n');

/**
 * Parses one HTTP/1.1 answer at the start of `buf`: its status and total length in bytes, or
 * null while incomplete. Handles Content-Length and chunked bodies (no trailers), which is what
 * Node's HTTP server sends.
 */
export function parseAnswer(buf: Buffer): { status: number; length: number } | null {
  const head = buf.indexOf(CRLF2);
  if (head < 0) return null;
  const header = buf.toString('latin1', 0, head);
  const status = Number(header.slice(9, 12));
  const bodyStart = head + 4;
  const cl = /\r\ncontent-length:\s*(\d+)/i.exec(header);
  if (cl) {
    const length = bodyStart + Number(cl[1]);
    return buf.length >= length ? { status, length } : null;
  }
  if (/\r\ntransfer-encoding:\s*chunked/i.test(header)) {
    let at = bodyStart;
    for (;;) {
      const eol = buf.indexOf('\r\n', at, 'latin1');
      if (eol < 0) return null;
      const size = parseInt(buf.toString('latin1', at, eol), 16);
      if (!Number.isFinite(size)) throw new Error('load: malformed chunk size');
      at = eol + 2 + size + 2;
      if (buf.length < at) return null;
      if (size === 0) return { status, length: at };
    }
  }
  // no body framing (e.g. 304): the head is the whole answer
  return { status, length: bodyStart };
}

export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  if (opts.rate !== undefined && !(opts.rate > 0)) throw new Error('load: rate must be a positive number of requests per second');
  const url = new URL(opts.url);
  const path = `${url.pathname}${url.search}`;
  const method = opts.method ?? 'GET';
  const expect = opts.expectStatus ?? 200;
  const body = opts.body === undefined ? null : Buffer.from(opts.body);
  const fixed =
    `${method} ${path} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: keep-alive\r\n` +
    (body ? `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n` : '');
  const plain = opts.headers ? null : Buffer.concat([Buffer.from(`${fixed}\r\n`, 'latin1'), ...(body ? [body] : [])]);
  const build = (i: number): Buffer => {
    const extra = Object.entries(opts.headers!(i))
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    return Buffer.concat([Buffer.from(`${fixed}${extra}\r\n`, 'latin1'), ...(body ? [body] : [])]);
  };
  const prebuilt = plain ? [] : Array.from({ length: opts.prebuild ?? 0 }, (_, i) => build(i));
  const request = (i: number): Buffer => plain ?? prebuilt[i] ?? build(i);

  let counter = 0;
  let measuring = false;
  let stop = false;
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let errors = 0;

  // open loop: due times of requests no connection was free for, and the connections waiting for one
  let openLoop = false;
  const backlog: number[] = [];
  let backlogHead = 0;
  const idle: Array<(due: number) => void> = [];

  const connection = () =>
    new Promise<void>((resolve) => {
      let socket: Socket;
      let pending: Buffer = Buffer.alloc(0);
      let t0 = 0;
      let done = false;
      const next = () => {
        if (stop) {
          done = true;
          socket.end();
        } else if (!openLoop) {
          send(performance.now());
        } else if (backlogHead < backlog.length) {
          send(backlog[backlogHead++]!);
        } else {
          idle.push(send);
        }
      };
      const send = (due: number) => {
        if (stop) {
          done = true;
          socket.end();
          return;
        }
        let bytes: Buffer;
        try {
          bytes = request(counter);
          counter++; // only once built: `sent` counts requests that went out
        } catch {
          // e.g. the headers callback ran out of pre-built payments: stop this connection
          if (measuring) errors++;
          done = true;
          socket.end();
          return;
        }
        t0 = due;
        socket.write(bytes);
      };
      const open = () => {
        socket = connect({ host: url.hostname, port: Number(url.port), noDelay: true });
        pending = Buffer.alloc(0);
        socket.on('connect', next);
        socket.on('data', (chunk: Buffer) => {
          pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
          let answer: { status: number; length: number } | null;
          try {
            answer = parseAnswer(pending);
          } catch {
            if (measuring) errors++;
            socket.destroy();
            return;
          }
          if (!answer) return;
          const ms = performance.now() - t0;
          pending = pending.length === answer.length ? Buffer.alloc(0) : pending.subarray(answer.length);
          if (measuring) {
            latencies.push(ms);
            statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
            if (answer.status !== expect) errors++;
          }
          next();
        });
        socket.on('error', () => {
          if (measuring) errors++;
        });
        socket.on('close', () => {
          if (stop || done) resolve();
          else setImmediate(open); // the server closed the connection: open another, as a client would
        });
      };
      open();
    });

  const connections = Array.from({ length: opts.connections }, () => connection());
  // the warm-up is a closed loop either way: it warms the server (JIT, caches) as fast as it goes
  await new Promise((r) => setTimeout(r, opts.warmupMs ?? 1000));
  let ticker: NodeJS.Timeout | null = null;
  if (opts.rate !== undefined) {
    openLoop = true;
    const start = performance.now();
    const interval = 1000 / opts.rate;
    let issued = 0;
    ticker = setInterval(() => {
      const now = performance.now();
      for (; start + issued * interval <= now; issued++) {
        const due = start + issued * interval;
        const free = idle.pop();
        if (free) free(due);
        else backlog.push(due);
      }
      if (backlogHead > 65536) backlog.splice(0, backlogHead), (backlogHead = 0);
    }, 1);
  }
  measuring = true;
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, opts.durationMs));
  measuring = false;
  const seconds = (performance.now() - t0) / 1000;
  stop = true;
  if (ticker) clearInterval(ticker);
  for (const free of idle.splice(0)) free(0); // wakes the idle connections so they close
  await Promise.all(connections);
  const sorted = Float64Array.from(latencies).sort();
  return {
    requests: latencies.length,
    sent: counter,
    errors,
    statuses,
    seconds,
    rps: latencies.length / seconds,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted.length ? sorted[sorted.length - 1]! : NaN,
  };
}
