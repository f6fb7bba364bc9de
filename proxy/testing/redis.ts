/**
 * A throwaway redis-server for tests and the bench: on a free loopback port, in a temp directory,
 * with persistence off (--save '' --appendonly no) unless asked for, so a stop really forgets
 * everything. Stop and start again on the same port to play "Redis went down, Redis came back";
 * with `appendonly: true` it comes back with what it had (its append-only file stays in the directory).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const REDIS_SERVER = '/usr/bin/redis-server';

/** Whether redis-server is installed (CI installs it; .ci/run does when missing). */
export const redisInstalled = (): boolean => existsSync(REDIS_SERVER);

export interface TestRedis {
  readonly port: number;
  readonly url: string;
  /** Stops the server (SIGTERM, waits for the exit). */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty unless it runs with appendonly); `options` replace the first start's. */
  start(options?: RedisOptions): Promise<void>;
  /** Kills it at once (SIGKILL, as a crash), waits for the exit. */
  kill(): Promise<void>;
  /** Stops it and removes its directory. */
  close(): Promise<void>;
}

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once the server answers PING with +PONG. */
async function waitForPong(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ port, host: '127.0.0.1' });
      socket.setTimeout(500);
      socket.once('connect', () => socket.write('PING\r\n'));
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString().startsWith('+PONG'));
      });
      socket.once('error', () => resolve(false));
      socket.once('timeout', () => {
        socket.destroy();
        resolve(false);
      });
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer PING within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface RedisOptions {
  /** --appendonly yes (default no): the server keeps its data across a restart. */
  appendonly?: boolean;
  /** More redis-server arguments, e.g. ['--rename-command', 'CONFIG', ''] as managed services do. */
  args?: string[];
}

/** Starts a redis-server on a free loopback port. */
export async function startRedis(firstOptions: RedisOptions = {}): Promise<TestRedis> {
  if (!redisInstalled()) throw new Error(`${REDIS_SERVER} is not installed (apt-get install redis-server)`);
  const dir = mkdtempSync(join(tmpdir(), 'test-redis-'));
  const port = await freePort();
  let child: ChildProcess | null = null;
  let stderr = '';

  const start = async (options: RedisOptions = firstOptions) => {
    stderr = '';
    const proc = spawn(
      REDIS_SERVER,
      [
        ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir, '--logfile', ''],
        ...['--appendonly', options.appendonly ? 'yes' : 'no', ...(options.args ?? [])],
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    proc.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child = proc;
    try {
      await waitForPong(port);
    } catch (err) {
      proc.kill('SIGKILL');
      throw new Error(`${(err as Error).message}${stderr ? `: ${stderr.trim()}` : ''}`);
    }
  };
  const stopWith = async (signal: NodeJS.Signals) => {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      proc.once('exit', () => resolve());
      proc.kill(signal);
    });
  };
  const stop = () => stopWith('SIGTERM');

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    start,
    stop,
    kill: () => stopWith('SIGKILL'),
    close: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
