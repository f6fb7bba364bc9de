/**
 * deploy/: the environment template lists every setting the code reads, parses as the services
 * parse their environment once its REQUIRED lines are filled, and the systemd units run what the
 * package scripts run.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadSettings, SETTING_NAMES } from '../lib/config.ts';
import { templateEnv } from './template-env.ts';

const read = (name: string) => readFileSync(new URL(name, import.meta.url), 'utf8');

describe('deploy/env.template', () => {
  const text = read('env.template');

  it('names every setting of lib/config.ts, set or commented out', () => {
    const named = new Set([...text.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]));
    expect(SETTING_NAMES.filter((name) => !named.has(name))).toEqual([]);
    expect([...named].filter((name) => !SETTING_NAMES.includes(name!))).toEqual([]);
  });

  it('parses once its REQUIRED lines are filled: facilitator settlement behind a proxy, on the public https origins', () => {
    const env = { ...templateEnv(), PAY_TO_EVM: '0x1111111111111111111111111111111111111111', BASE_RPC_URL: 'https://base.example' };
    const settings = loadSettings(env);
    expect(settings).toMatchObject({
      settlement: 'facilitator',
      host: '127.0.0.1',
      trustProxy: true,
      publicUrl: { korea: 'https://korea.example.com', analytics: 'https://analytics.example.com' },
    });
    expect(settings.redisUrl).not.toBeNull();
  });
});

describe('the systemd units', () => {
  const scripts = (JSON.parse(read('../package.json')) as { scripts: Record<string, string> }).scripts;

  it('run what npm run serve and npm run schedule run, from the environment file', () => {
    const proxy = read('kr-x402-proxy.service');
    const scheduler = read('kr-x402-scheduler.service');
    expect(proxy).toContain(`ExecStart=/usr/bin/${scripts.serve}`);
    expect(scheduler).toContain(`ExecStart=/usr/bin/${scripts.schedule} --table production --source live`);
    for (const unit of [proxy, scheduler]) {
      expect(unit).toContain('EnvironmentFile=/etc/kr-x402/env');
      expect(unit).toContain('ReadWritePaths=/var/lib/kr-x402');
    }
    expect(read('redis.conf')).toMatch(/^appendonly yes$/m);
  });
});
