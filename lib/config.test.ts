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
  });

  it.each([
    [{ KOREA_PORT: 'abc' }, /KOREA_PORT must be a TCP port/],
    [{ SETTLEMENT: 'onchain' }, /SETTLEMENT must be "local" or "facilitator"/],
    [{ SETTLEMENT: 'facilitator' }, /needs FACILITATOR_URL/],
    [{ SNAPSHOT_RETENTION: '0' }, /SNAPSHOT_RETENTION must be a positive integer/],
    [{ DUCKDB_MEMORY_LIMIT: 'lots' }, /DUCKDB_MEMORY_LIMIT must be a size/],
  ])('rejects %j with a clear message', (env, message) => {
    expect(() => loadSettings(env)).toThrow(message);
  });
});
