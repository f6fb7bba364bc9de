import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadSettings } from './config.ts';

describe('settings', () => {
  it('has the documented defaults', () => {
    const s = loadSettings({});
    expect([s.koreaPort, s.analyticsPort, s.host, s.settlement, s.aiMode, s.snapshotRetention, s.duckdbMemoryLimit]).toEqual([
      4020, 4021, '127.0.0.1', 'local', 'rules', 5, '3GB',
    ]);
    expect(s.snapshotsDir).toMatch(/snapshots\/store$/);
    expect(loadSettings({ DUCKDB_MEMORY_LIMIT: 'default' }).duckdbMemoryLimit).toBeNull();
    expect(loadSettings({ ANTHROPIC_API_KEY: 'k' }).aiMode).toBe('claude');
    expect(s.anthropic).toMatchObject({ apiKey: null, fastModel: 'claude-haiku-4-5', deepModel: 'claude-sonnet-4-6', dailyBudgetUsd: null, concurrency: 12, timeoutMs: 60_000, maxRetries: 3 });
    expect(s.news).toEqual({ feedsFile: null, naverClientId: null, naverClientSecret: null });
  });

  it('keeps the API key and the Naver secret out of every printout', () => {
    const s = loadSettings({ ANTHROPIC_API_KEY: 'sk-ant-secret-value', NAVER_CLIENT_ID: 'id-value', NAVER_CLIENT_SECRET: 'naver-secret-value' });
    expect(s.anthropic.apiKey?.reveal()).toBe('sk-ant-secret-value');
    const printed = `${JSON.stringify(s)} ${String(s.anthropic.apiKey)} ${inspect(s, { depth: 5 })}`;
    expect(printed).not.toContain('sk-ant-secret-value');
    expect(printed).not.toContain('naver-secret-value');
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
  ])('rejects %j with a clear message', (env, message) => {
    expect(() => loadSettings(env)).toThrow(message);
  });
});
