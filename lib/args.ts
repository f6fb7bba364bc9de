/**
 * Command-line parsing shared by the project's commands: `--name value` or `--name=value` flags
 * plus positionals, with errors that say which input was wrong and what is allowed.
 */

export class UsageError extends Error {}

export interface ParsedArgs {
  positional: string[];
  flags: Map<string, string>;
}

/** `switches` are flags without a value (`--recompute`); they appear in `flags` with the value 'true'. */
export function splitArgs(
  argv: readonly string[],
  allowed: readonly string[],
  usage: string,
  switches: readonly string[] = [],
): ParsedArgs {
  const positional: string[] = [];
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') throw new UsageError(usage);
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    if (switches.includes(arg.slice(2))) {
      flags.set(arg.slice(2), 'true');
      continue;
    }
    const eq = arg.indexOf('=');
    const [name, value] = eq > 0 ? [arg.slice(2, eq), arg.slice(eq + 1)] : [arg.slice(2), argv[++i]];
    if (!allowed.includes(name)) throw new UsageError(`unknown option --${name}\n${usage}`);
    if (value === undefined || value.startsWith('--')) throw new UsageError(`--${name} needs a value\n${usage}`);
    flags.set(name, value);
  }
  return { positional, flags };
}

/** An ISO 8601 time with an explicit zone, so a run never depends on the machine's local time. */
export function parseTimeFlag(name: string, text: string): Date {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text)) {
    throw new UsageError(`--${name} must be an ISO 8601 time with a zone, e.g. 2026-11-20T09:00:00Z; got "${text}"`);
  }
  const d = new Date(text);
  if (Number.isNaN(d.getTime())) throw new UsageError(`--${name}: "${text}" is not a valid time`);
  return d;
}

export function parseIntFlag(flags: Map<string, string>, name: string, fallback: number, min: number, max: number): number {
  const text = flags.get(name);
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got "${text}"`);
  }
  return n;
}

/** The default "now" of a run: the current minute, so two runs in one minute agree. */
export function currentMinute(): Date {
  const d = new Date();
  d.setUTCSeconds(0, 0);
  return d;
}
