import { describe, expect, it } from 'vitest';
import { formatInt, formatPct, formatTime, formatUsd } from './format.ts';
import { escapeHtml, tableRows } from './html.ts';
import { parseShell, serviceMainHtml, TOKENS } from './service-pages.ts';

describe('number formatting (hand-grouped, en-US)', () => {
  it('matches Intl en-US grouping for integers, amounts and shares', () => {
    for (const n of [0, 7, 999, 1000, 12_345, 1_234_567, 987_654_321]) expect(formatInt(n)).toBe(n.toLocaleString('en-US'));
    expect(formatUsd(1234567.891)).toBe('$1,234,567.89');
    expect(formatUsd(0)).toBe('$0.00');
    expect(formatUsd(0.1)).toBe('$0.10');
    expect(formatUsd(0.3495)).toBe('$0.3495');
    expect(formatUsd(0.0001)).toBe('$0.0001');
    expect(formatUsd(0.005)).toBe('$0.005');
    expect(formatUsd(-12.5)).toBe('-$12.50');
    expect(formatUsd(null)).toBe('–');
    expect(formatPct(13.24)).toBe('13.2%');
    expect(formatPct(1234.56)).toBe('1,234.6%');
    expect(formatTime('2026-11-24T14:06:00.000Z')).toBe('2026-11-24 14:06 UTC');
    expect(formatTime('2025-10-24T13:33:09+00:00')).toBe('2025-10-24 13:33 UTC');
  });
});

describe('service pages from the shell', () => {
  it('cuts the shell at each token once and refuses a shell without them', () => {
    const shell = `<title>${TOKENS.title} · x</title><meta content="${TOKENS.description}"><main>${TOKENS.main}</main>`;
    expect(parseShell(shell).parts).toEqual(['<title>', ' · x</title><meta content="', '"><main>', '</main>']);
    expect(() => parseShell('<main></main>')).toThrow(/token/);
  });

  it('escapes what the data says', () => {
    expect(escapeHtml(`<script>"x" & 'y'</script>`)).toBe('&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/script&gt;');
    expect(tableRows([['<b>', { text: '1', num: true }]])).toBe('<tr><td>&lt;b&gt;</td><td class="num">1</td></tr>');
    const day = { tx_count: 1, volume: 0.5, unique_buyers: 1, real_volume_pct: 0 };
    const html = serviceMainHtml(
      7,
      {
        service: {
          id: 7,
          chain: 'base',
          seller_address: '0xabc',
          resource_url: 'https://x.example/a?b=1&c=<2>',
          name: '<img src=x onerror=alert(1)>',
          description: 'desc',
          category: 'weather',
          price_amount: 0.01,
          first_seen: '2026-11-01T00:00:00Z',
          tx_24h: 1,
          volume_24h: 0.01,
          tx_total: 1234,
          real_volume_pct: 50,
          wash_pct: 0,
          label_distribution: { organic_user: 1 },
          trust_grade: 'B',
          uptime_7d_pct: 99.5,
          latency_p50_ms: 120,
          latency_p99_ms: 480,
          payto_consistent: true,
          last_probe_at: '2026-11-20T08:50:00Z',
          volume_total: 12.34,
          unique_buyers_30d: 1,
          last_tx_at: null,
        },
        daily_series: Array.from({ length: 30 }, (_, i) => ({ ...day, date: `2026-11-${String(i + 1).padStart(2, '0')}` })),
        top_buyers: [{ address: '0xbuyer', tx_count: 3, volume: 0.03, share_pct: 100, label: 'organic_user' }],
      },
      [{ id: 'services.wash-detail', method: 'GET', path: '/api/v1/services/7/wash-detail', summary: 'Top 50 buyers', priceUsd: '0.005' }],
    );
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('c=&lt;2&gt;');
    expect(html).toContain('data-testid="tx-total">1,234<');
    expect(html).toContain('<th scope="col">Label</th>');
    expect(html).toContain('/methodology/#label-organic_user');
    expect(html).toContain('$0.005');
  });
});
