/**
 * A project script (`node --import tsx <script>`, as package.json runs it) started as a child
 * process the way a user starts it, for the
 * tests of long-running commands (npm start, npm run schedule): its output collected, a wait for
 * something to appear in it, and a stop by SIGTERM that resolves with the exit code.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface RunningScript {
  proc: ChildProcess;
  /** Everything written so far. */
  stdout(): string;
  stderr(): string;
  /** The exit code once the process exits. */
  exited: Promise<number | null>;
  /** Polls until `ready()` holds; throws (with the output) when the process exits first or `timeoutMs` passes. */
  waitFor(ready: () => boolean, timeoutMs: number, what: string): Promise<void>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

export function startScript(args: string[], env: Record<string, string>): RunningScript {
  // not the tsx CLI: it relays a signal to its child and SIGKILLs it when the child's event loop
  // does not answer within 30 ms, so a busy scheduler or server would not stop cleanly
  const proc = spawn(process.execPath, ['--import', 'tsx', ...args], {
    env: { ...process.env, CI: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  proc.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return {
    proc,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    async waitFor(ready, timeoutMs, what) {
      const t0 = Date.now();
      while (!ready()) {
        if (proc.exitCode !== null) throw new Error(`${args.join(' ')} exited ${proc.exitCode} before ${what}:\n${stdout}\n${stderr}`);
        if (Date.now() - t0 > timeoutMs)
          throw new Error(`${args.join(' ')}: no ${what} within ${timeoutMs / 1000} s:\n${stdout}\n${stderr}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async stop() {
      if (proc.exitCode === null) proc.kill('SIGTERM');
      return exited;
    },
  };
}

/** Waits for the URL `npm run serve` (proxy/serve.ts) prints for `service` once it listens. */
export async function servedUrl(server: RunningScript, service: 'korea' | 'analytics'): Promise<string> {
  const line = new RegExp(`^${service}\\s+(http://[\\d.]+:\\d+)`, 'm');
  let url = '';
  await server.waitFor(
    () => {
      url = line.exec(server.stdout())?.[1] ?? '';
      return url !== '';
    },
    60_000,
    `the ${service} URL`,
  );
  return url;
}
