import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadSettings, SETTING_NAMES } from './config.ts';

describe('settings', () => {
  it('has the documented defaults', () => {
    const s = loadSettings({});
    expect([s.koreaPort, s.analyticsPort, s.host, s.settlement, s.aiMode, s.snapshotRetention, s.duckdbMemoryLimit]).toEqual([
      4020,
      4021,
      '127.0.0.1',
      'local',
      'rules',
      5,
      '3GB',
    ]);
    expect(s.snapshotsDir).toMatch(/snapshots\/store$/);
    expect(loadSettings({ DUCKDB_MEMORY_LIMIT: 'default' }).duckdbMemoryLimit).toBeNull();
    expect(loadSettings({ ANTHROPIC_API_KEY: 'k' }).aiMode).toBe('claude');
    expect(s.anthropic).toMatchObject({
      apiKey: null,
      fastModel: 'claude-haiku-4-5',
      deepModel: 'claude-sonnet-4-6',
      dailyBudgetUsd: null,
      concurrency: 12,
      timeoutMs: 60_000,
      maxRetries: 3,
    });
    expect(s.news).toEqual({ feedsFile: null, naverClientId: null, naverClientSecret: null });
    expect([s.washPatternSalt, s.ci]).toEqual([null, false]);
  });

  it('reads a blank variable as unset, and WASH_PATTERN_SALT and CI as given', () => {
    expect(loadSettings({ KOREA_PORT: '', SETTLEMENT: ' ', DUCKDB_MEMORY_LIMIT: '' })).toMatchObject({
      koreaPort: 4020,
      settlement: 'local',
      duckdbMemoryLimit: '3GB',
    });
    expect(loadSettings({ WASH_PATTERN_SALT: 'pepper' }).washPatternSalt).toBe('pepper');
    expect(loadSettings({ CI: 'true' }).ci).toBe(true);
    expect(loadSettings({ CI: '1' }).ci).toBe(true);
    expect(loadSettings({ CI: 'false' }).ci).toBe(false);
  });

  it('follows a snapshot source only when SNAPSHOTS_PULL_URL is set, over https (http on loopback only)', () => {
    expect(loadSettings({}).snapshotsPull).toBeNull();
    const pull = loadSettings({ SNAPSHOTS_PULL_URL: 'https://snapshots.example/pub', SNAPSHOTS_PULL_TOKEN: 't0ken' }).snapshotsPull;
    expect(pull).toMatchObject({ url: 'https://snapshots.example/pub', intervalMs: 60_000, timeoutMs: 30_000 });
    expect(pull?.token?.reveal()).toBe('t0ken');
    expect(loadSettings({ SNAPSHOTS_PULL_URL: 'http://127.0.0.1:8080/pub' }).snapshotsPull?.url).toBe('http://127.0.0.1:8080/pub');
    expect(() => loadSettings({ SNAPSHOTS_PULL_URL: 'http://snapshots.example/pub' })).toThrow(
      'SNAPSHOTS_PULL_URL must be an https:// URL (http:// only on 127.0.0.1, ::1 or localhost), got "http://snapshots.example/pub"',
    );
    expect(() => loadSettings({ SNAPSHOTS_PULL_URL: 'https://x.example', SNAPSHOTS_PULL_INTERVAL_MS: '10' })).toThrow(
      'SNAPSHOTS_PULL_INTERVAL_MS must be a whole number from 1000 to 86400000',
    );
  });

  it('reads BACKUP_URL as a directory: a path, a file: URL or a file:// URL', () => {
    expect(loadSettings({}).backupUrl).toBeNull();
    expect(loadSettings({ BACKUP_URL: '/mnt/backups' }).backupUrl).toBe('/mnt/backups');
    expect(loadSettings({ BACKUP_URL: 'file:///mnt/backups' }).backupUrl).toBe('/mnt/backups');
    expect(loadSettings({ BACKUP_URL: 'file:backups' }).backupUrl).toBe(resolve('backups'));
    expect(loadSettings({}).backupRetention).toBe(12);
    expect(loadSettings({}).backupEveryMinutes).toBe(0);
  });

  it('names every wrong setting at once, one line each', () => {
    let message = '';
    try {
      loadSettings({ KOREA_PORT: '99999', TRUST_PROXY: 'maybe', ANTHROPIC_CONCURRENCY: '0' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message.split('\n')).toEqual([
      'KOREA_PORT must be a TCP port number 0-65535, got "99999"',
      'TRUST_PROXY must be 1/true/yes or 0/false/no, got "maybe"',
      'ANTHROPIC_CONCURRENCY must be a whole number from 1 to 64, got "0"',
    ]);
  });

  it('keeps the API key and the Naver secret out of every printout', () => {
    const s = loadSettings({
      ANTHROPIC_API_KEY: 'sk-ant-secret-value',
      NAVER_CLIENT_ID: 'id-value',
      NAVER_CLIENT_SECRET: 'naver-secret-value',
    });
    expect(s.anthropic.apiKey?.reveal()).toBe('sk-ant-secret-value');
    const printed = `${JSON.stringify(s)} ${String(s.anthropic.apiKey)} ${inspect(s, { depth: 5 })}`;
    expect(printed).not.toContain('sk-ant-secret-value');
    expect(printed).not.toContain('naver-secret-value');
  });

  it('keeps the nonce database next to the snapshots by default, and REDIS_URL secret (it may carry a password)', () => {
    expect(loadSettings({ SNAPSHOTS_DIR: '/srv/x/snapshots' }).nonceDbDir).toBe('/srv/x/nonces');
    expect(loadSettings({ NONCE_DB_DIR: '/var/lib/nonces' }).nonceDbDir).toBe('/var/lib/nonces');
    expect(loadSettings({}).redisUrl).toBeNull();
    const s = loadSettings({ REDIS_URL: 'redis://:hunter2@10.0.0.5:6379/0' });
    expect(s.redisUrl?.reveal()).toBe('redis://:hunter2@10.0.0.5:6379/0');
    expect(`${JSON.stringify(s)} ${inspect(s, { depth: 5 })}`).not.toContain('hunter2');
    let message = '';
    try {
      loadSettings({ REDIS_URL: 'http://:hunter2@10.0.0.5' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/^REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/);
    expect(message).not.toContain('hunter2');
  });

  it.each([
    [{ KOREA_PORT: 'abc' }, /KOREA_PORT must be a TCP port/],
    [{ SETTLEMENT: 'onchain' }, /SETTLEMENT must be "local" or "facilitator"/],
    [{ SETTLEMENT: 'facilitator' }, /needs FACILITATOR_URL/],
    [{ SNAPSHOT_RETENTION: '0' }, /SNAPSHOT_RETENTION must be a positive integer/],
    [{ DUCKDB_MEMORY_LIMIT: 'lots' }, /DUCKDB_MEMORY_LIMIT must be a size/],
    [{ ANTHROPIC_DAILY_BUDGET_USD: '-3' }, /ANTHROPIC_DAILY_BUDGET_USD must be a positive number of US dollars/],
    [{ ANTHROPIC_DAILY_BUDGET_USD: 'five' }, /ANTHROPIC_DAILY_BUDGET_USD must be a positive number/],
    [{ ANTHROPIC_CONCURRENCY: '100' }, /ANTHROPIC_CONCURRENCY must be a whole number from 1 to 64/],
    [{ ANTHROPIC_CONCURRENCY: '0' }, /ANTHROPIC_CONCURRENCY must be a whole number from 1 to 64/],
    [{ ANTHROPIC_FAST_MODEL: 'Claude Haiku!' }, /ANTHROPIC_FAST_MODEL must be a Claude model id/],
    [{ FACILITATOR_URL: 'ftp://facilitator' }, /FACILITATOR_URL must be an http:\/\/ or https:\/\/ URL, got "ftp:\/\/facilitator"/],
    [{ SETTLEMENT: 'facilitator' }, /needs FACILITATOR_URL[^]*needs your own pay-to address/],
    [
      { HOST: '0.0.0.0' },
      /HOST=0\.0\.0\.0 is not a loopback address, so \/mcp needs .* set KOREA_PUBLIC_URL and ANALYTICS_PUBLIC_URL, or MCP_ALLOWED_HOSTS/,
    ],
    [{ MCP_ALLOWED_HOSTS: 'https://api.example.com' }, /MCP_ALLOWED_HOSTS must be "\*" or host names separated by commas/],
    [{ MCP_ALLOWED_HOSTS: 'api.example.com:443' }, /MCP_ALLOWED_HOSTS must be "\*" or host names/],
    [{ BACKUP_URL: 's3://bucket/prefix' }, /BACKUP_URL must be a directory: a path or a file: URL \(s3:\/\/ is not a target yet\)/],
    [{ BACKUP_RETENTION: '0' }, /BACKUP_RETENTION must be a whole number from 1 to 1000/],
  ])('rejects %j with a clear message', (env, message) => {
    expect(() => loadSettings(env)).toThrow(message);
  });

  it('MCP_ALLOWED_HOSTS: the names /mcp answers under besides the localhost ones', () => {
    expect(loadSettings({}).mcpAllowedHosts).toEqual([]);
    expect(loadSettings({ MCP_ALLOWED_HOSTS: ' API.example.com, [fd00::1] ,10.0.0.5' }).mcpAllowedHosts).toEqual([
      'api.example.com',
      '[fd00::1]',
      '10.0.0.5',
    ]);
    expect(loadSettings({ HOST: '0.0.0.0', MCP_ALLOWED_HOSTS: '*' }).mcpAllowedHosts).toBe('any');
    // the public URLs' hosts are where clients reach /mcp: enough on their own, added to a list
    expect(loadSettings({ HOST: '0.0.0.0', KOREA_PUBLIC_URL: 'https://korea.example.com' }).mcpAllowedHosts).toEqual(['korea.example.com']);
    expect(
      loadSettings({ MCP_ALLOWED_HOSTS: 'api.example.com', ANALYTICS_PUBLIC_URL: 'https://analytics.example.com' }).mcpAllowedHosts,
    ).toEqual(['api.example.com', 'analytics.example.com']);
    expect(loadSettings({ HOST: '::', MCP_ALLOWED_HOSTS: 'api.example.com' }).host).toBe('::');
    for (const host of ['localhost', '127.0.0.2', '::1']) expect(loadSettings({ HOST: host }).mcpAllowedHosts).toEqual([]);
  });

  it('every setting is in the README settings table', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const table = readme.slice(readme.indexOf('## Settings'), readme.indexOf('\n## ', readme.indexOf('## Settings') + 1));
    expect(SETTING_NAMES.length).toBeGreaterThan(40);
    for (const name of SETTING_NAMES) expect(table, name).toContain(`\`${name}\``);
  });
});
