/** deploy/env.template as the environment a systemd EnvironmentFile gives the units: `NAME=value` lines, comments and blanks skipped. */
import { readFileSync } from 'node:fs';

export function templateEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(new URL('env.template', import.meta.url), 'utf8').split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line);
    if (m) env[m[1]!] = m[2]!;
  }
  return env;
}
