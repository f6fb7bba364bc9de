import { afterEach, describe, expect, it } from 'vitest';
import { createUpstream, UpstreamError, type Upstream } from '../http.ts';
import { koreaFixture, recordedReply } from '../testing/korea-upstreams.ts';
import { startLoopback, type Loopback, type Reply } from '../../../lib/testing/loopback.ts';
import {
  activeBithumbAlerts,
  bithumbAlertFlagRows,
  bithumbTickerRows,
  bithumbWarningFlagRows,
  fetchBithumbAlerts,
  fetchBithumbMarkets,
  fetchBithumbTickers,
} from './bithumb.ts';

const AT = new Date('2026-07-30T07:41:05Z');

/** One coin of `ticker/ALL_KRW` as Bithumb sends it: every number a string. */
const BTC_TICKER = {
  closing_price: '91171000',
  prev_closing_price: '95025000',
  max_price: '96841000',
  min_price: '91100000',
  fluctate_rate_24H: '-4.06',
  units_traded_24H: '295.5',
  acc_trade_value_24H: '26949449771.5081',
};

let server: Loopback | null = null;
let up: Upstream | null = null;
afterEach(async () => {
  await up?.close();
  await server?.close();
  up = server = null;
});

async function bithumb(path: string, reply: Reply): Promise<Upstream> {
  server = await startLoopback([{ method: 'GET', path, reply }]);
  up = createUpstream({ name: 'bithumb', baseUrl: server.url, retries: 0, sleep: async () => {} });
  return up;
}

describe('Bithumb ALL_KRW (every number a string)', () => {
  it('parses the recorded tickers: strings to numbers, `date` skipped, percent kept as percent, KST stamp to UTC', async () => {
    const client = await bithumb('/public/ticker/ALL_KRW', { json: koreaFixture('bithumb-ticker-all-krw.json') });
    const tickers = await fetchBithumbTickers(client);
    expect(tickers.skipped).toEqual([]);
    expect(tickers.rows.map((c) => c.symbol)).not.toContain('date');
    expect(tickers.rows).toHaveLength(29);
    const btc = bithumbTickerRows(tickers, AT).find((r) => r[1] === 'BTC')!;
    expect(btc).toEqual([
      'bithumb',
      'BTC',
      91171000,
      95025000,
      96841000,
      91100000,
      -4.06,
      295.59234594,
      26949449771.5081,
      new Date('2026-07-30T07:41:04.588Z'),
      null, // ALL_KRW does not say when the last trade was
      'live',
    ]);
    const shib = bithumbTickerRows(tickers, AT).find((r) => r[1] === 'SHIB')!;
    expect(shib[2]).toBe(0.01948);
    expect(server!.requests[0]!.path).toBe('/public/ticker/ALL_KRW');
  });

  it('skips a coin whose field is not a number string, naming the field, and keeps the others', async () => {
    const client = await bithumb('/public/ticker/ALL_KRW', {
      json: {
        status: '0000',
        data: {
          BTC: BTC_TICKER,
          ODD: {
            closing_price: '-',
            prev_closing_price: '1',
            max_price: '1',
            min_price: '1',
            fluctate_rate_24H: '0',
            units_traded_24H: '0',
            acc_trade_value_24H: '0',
          },
          date: '1785429665000',
        },
      },
    });
    const tickers = await fetchBithumbTickers(client);
    expect(tickers.rows.map((c) => c.symbol)).toEqual(['BTC']);
    expect(tickers.skipped).toEqual(['ODD.closing_price: expected a decimal number in a string']);
  });

  it('treats HTTP 200 with status 5600 as a failure with a clear message', async () => {
    const client = await bithumb('/public/ticker/ALL_KRW', recordedReply('bithumb-5600.json'));
    const err = await fetchBithumbTickers(client).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as Error).message).toMatch(
      /^bithumb: GET http:\/\/127\.0\.0\.1:\d+\/public\/ticker\/ALL_KRW answered HTTP 200 with status 5600 \("Too many connections"\); Bithumb reports errors in the body and only "0000" is success$/,
    );
    expect(server!.requests).toHaveLength(1); // not retried: the next run is a minute away
  });

  it('reads an answer without `date` (the documented examples have none) or with a malformed one, stamped with the time received', async () => {
    const coin = BTC_TICKER;
    const client = await bithumb('/public/ticker/ALL_KRW', { json: { status: '0000', data: { BTC: coin } } });
    const tickers = await fetchBithumbTickers(client);
    expect(tickers.stampMs).toBeNull();
    expect(bithumbTickerRows(tickers, AT)[0]![9]).toEqual(AT);
    await server!.close();
    const again = await bithumb('/public/ticker/ALL_KRW', { json: { status: '0000', data: { BTC: coin, date: 'yesterday' } } });
    expect((await fetchBithumbTickers(again)).stampMs).toBeNull();
  });
});

describe('Bithumb v1 market list and alerts', () => {
  it('reads 유의 (market_warning CAUTION) and each alert with its KST end time as UTC', async () => {
    server = await startLoopback([
      { method: 'GET', path: '/v1/market/all', reply: { json: koreaFixture('bithumb-market-all.json') } },
      { method: 'GET', path: '/v1/market/virtual_asset_warning', reply: { json: koreaFixture('bithumb-virtual-asset-warning.json') } },
    ]);
    up = createUpstream({ name: 'bithumb', baseUrl: server.url, retries: 0 });
    const [markets, alerts] = await Promise.all([fetchBithumbMarkets(up), fetchBithumbAlerts(up)]);
    expect(server.requests.find((r) => r.path === '/v1/market/all')!.query).toEqual({ isDetails: 'true' });
    expect([markets.skipped, alerts.skipped]).toEqual([[], []]);
    const { active, expired } = activeBithumbAlerts(alerts.rows, AT);
    expect(expired).toEqual([]);
    const flags = [...bithumbWarningFlagRows(markets.rows, AT).flags, ...bithumbAlertFlagRows(active, AT)].map((r) => [
      r[1],
      r[2],
      r[4] instanceof Date ? r[4].toISOString() : r[4],
    ]);
    expect(flags).toEqual([
      ['ZIL', 'investment_warning', null],
      ['WAXP', 'investment_warning', null],
      ['ZIL', 'alert:TRADING_VOLUME_SUDDEN_FLUCTUATION', '2026-07-30T21:59:59.000Z'],
      ['OBSR', 'alert:TRADING_VOLUME_SUDDEN_FLUCTUATION', '2026-07-30T21:59:59.000Z'],
      ['OBSR', 'alert:DEPOSIT_AMOUNT_SUDDEN_FLUCTUATION', '2026-07-30T22:04:59.000Z'],
      ['KAIA', 'alert:SPECIFIC_ACCOUNT_HIGH_TRANSACTION', '2026-07-30T22:09:59.000Z'],
    ]);
  });

  it('treats a v1 error body sent with HTTP 200 as a failure', async () => {
    const client = await bithumb('/v1/market/virtual_asset_warning', {
      json: { error: { name: 'invalid_parameter', message: '잘못된 요청입니다.' } },
    });
    await expect(fetchBithumbAlerts(client)).rejects.toThrow(
      /^bithumb: GET .*\/v1\/market\/virtual_asset_warning answered with error invalid_parameter: 잘못된 요청입니다\.$/,
    );
  });
});
