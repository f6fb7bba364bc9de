import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { koreaFixture, koreaFixtureText } from '../testing/korea-upstreams.ts';
import { binancePriceRows, type BinanceMiniTicker } from './binance.ts';
import { parseFredCsv } from './fred.ts';
import { bithumbStampToUtc, kstDay, kstWallClockToUtc, utcWallClock } from './kst.ts';
import { parseSiseJson } from './naver-finance.ts';
import { okxPriceRows, type OkxTicker } from './okx.ts';
import { UpbitCandle, UpbitMarket, upbitCandleRows, upbitMarketRows, UpbitTicker, upbitTickerRows } from './upbit.ts';

const AT = new Date('2026-07-30T07:41:05Z');

describe('KST → UTC', () => {
  it('reads a KST wall-clock time (Bithumb end_date) as the UTC instant 9 hours earlier', () => {
    expect(kstWallClockToUtc('2026-07-31 06:59:59').toISOString()).toBe('2026-07-30T21:59:59.000Z');
    expect(kstWallClockToUtc('2026-01-01 08:00:00').toISOString()).toBe('2025-12-31T23:00:00.000Z'); // crosses the year
    expect(kstWallClockToUtc('2026-07-31T06:59:59').toISOString()).toBe('2026-07-30T21:59:59.000Z');
  });

  it('rejects a time with a zone or a day that does not exist', () => {
    expect(() => kstWallClockToUtc('2026-07-31T06:59:59+09:00')).toThrow(/without a zone/);
    expect(() => kstWallClockToUtc('2026-02-30 00:00:00')).toThrow(/not a valid date/);
  });

  it('reads Upbit candle_date_time_utc (no zone suffix) as UTC', () => {
    expect(utcWallClock('2026-07-30T07:41:00').toISOString()).toBe('2026-07-30T07:41:00.000Z');
  });

  it('moves Bithumb stamps taken from the KST wall clock back 9 hours, and leaves true UTC stamps alone', () => {
    const kstStamped = AT.getTime() + 9 * 3_600_000 - 412; // as in the recorded ALL_KRW `date`
    expect(bithumbStampToUtc(kstStamped, AT.getTime()).toISOString()).toBe('2026-07-30T07:41:04.588Z');
    const utcStamped = AT.getTime() - 412;
    expect(bithumbStampToUtc(utcStamped, AT.getTime()).toISOString()).toBe('2026-07-30T07:41:04.588Z');
    // a shifted stamp of a price an hour old leads by 8 h: still no true UTC time, still moved back
    expect(bithumbStampToUtc(kstStamped, AT.getTime() + 3_600_000).toISOString()).toBe('2026-07-30T07:41:04.588Z');
    const recorded = Number(koreaFixture<{ data: { date: string } }>('bithumb-ticker-all-krw.json').data.date);
    expect(bithumbStampToUtc(recorded, AT.getTime()).toISOString()).toBe('2026-07-30T07:41:04.588Z');
  });

  it('names the KST calendar day (KRX sessions) of a UTC instant', () => {
    expect(kstDay(new Date('2026-07-30T14:59:59Z'))).toBe('2026-07-30');
    expect(kstDay(new Date('2026-07-30T15:00:00Z'))).toBe('2026-07-31');
  });
});

describe('Upbit market_event flags', () => {
  const markets = z.array(UpbitMarket).parse(koreaFixture('upbit-market-all.json'));

  it('raises investment_warning for warning: true and caution:<criterion> for each true caution', () => {
    const { markets: rows, flags } = upbitMarketRows(markets, AT);
    const bySymbol = (s: string) => flags.filter((f) => f[1] === s).map((f) => f[2]);
    expect(bySymbol('AERGO')).toEqual(['investment_warning']);
    expect(bySymbol('ZIL')).toEqual(['investment_warning', 'caution:GLOBAL_PRICE_DIFFERENCES']);
    expect(bySymbol('MOVE')).toEqual(['caution:PRICE_FLUCTUATIONS', 'caution:TRADING_VOLUME_SOARING']);
    expect(bySymbol('BTC')).toEqual([]);
    expect(flags).toHaveLength(6);
    expect(flags.find((f) => f[1] === 'AERGO')).toEqual(['upbit', 'AERGO', 'investment_warning', null, null, AT, 'live']);
    // Only KRW markets: BTC-SIGN (a caution flag) and USDT-BTC are not KRW prices.
    expect(rows.map((r) => r[2])).not.toContain('BTC-SIGN');
    expect(rows).toHaveLength(30);
    expect(rows.find((r) => r[1] === 'BTC')).toEqual(['upbit', 'BTC', 'KRW-BTC', '비트코인', 'Bitcoin', AT, 'live']);
  });

  it('keeps a caution criterion it does not know yet, and reads the legacy market_warning when market_event is absent', () => {
    const { flags, unknown } = upbitMarketRows(
      z.array(UpbitMarket).parse([
        {
          market: 'KRW-NEW',
          korean_name: '뉴',
          english_name: 'New',
          market_event: { warning: false, caution: { SOME_FUTURE_CRITERION: true } },
        },
        { market: 'KRW-OLD', korean_name: '올드', english_name: 'Old', market_warning: 'CAUTION' },
        { market: 'KRW-ODD', korean_name: '오드', english_name: 'Odd', market_warning: 'WATCH' },
        { market: 'KRW-PLAIN', korean_name: '플레인', english_name: 'Plain' },
      ]),
      AT,
    );
    expect(flags.map((f) => `${f[1]} ${f[2]}`)).toEqual([
      'NEW caution:SOME_FUTURE_CRITERION',
      'OLD investment_warning',
      'ODD market_warning:WATCH',
    ]);
    expect(unknown).toEqual(['market_warning "WATCH" is not a documented value, kept as other (KRW-ODD)']);
  });

  it('turns the fractional signed_change_rate into percent, keeps rolling 24h turnover and the last trade time', () => {
    const tickers = z.array(UpbitTicker).parse(koreaFixture('upbit-ticker-all-krw.json'));
    const btc = upbitTickerRows(tickers).find((r) => r[1] === 'BTC')!;
    expect(btc).toEqual([
      'upbit',
      'BTC',
      91200000,
      91424000,
      92119000,
      90888000,
      -0.24501225,
      814.34496604,
      74674126733.71954,
      new Date(1785397260707),
      new Date(1785397260652), // trade_timestamp: the last trade, 55 ms before the snapshot
      'live',
    ]);
  });

  it('keeps only closed candles: the minute `now` falls in is still trading', () => {
    const candles = z.array(UpbitCandle).parse(koreaFixture('upbit-candles-1m-KRW-BTC.json')).slice(0, 3);
    const rows = upbitCandleRows(candles, AT);
    expect(candles[0]!.candle_date_time_utc).toBe('2026-07-30T07:41:00');
    expect(rows.map((r) => (r[2] as Date).toISOString())).toEqual(['2026-07-30T07:40:00.000Z', '2026-07-30T07:39:00.000Z']);
    expect(rows[0]!.slice(0, 2)).toEqual(['upbit', 'BTC']);
  });
});

describe('global reference rows', () => {
  it('Binance: USDT pairs with trades only (a delisted pair keeps a frozen price with count 0)', () => {
    const rows = binancePriceRows(
      koreaFixture<BinanceMiniTicker[]>('binance-ticker-24hr-mini.json').map((t) => ({
        ...t,
        lastPrice: Number(t.lastPrice),
        quoteVolume: Number(t.quoteVolume),
      })),
    );
    const symbols = rows.map((r) => r[0]);
    expect(symbols).toContain('BTC');
    expect(symbols).toContain('BNB');
    expect(symbols).toContain('USDC'); // USDCUSDT
    expect(symbols).not.toContain('WAVES');
    expect(symbols).not.toContain('ETHBTC');
    expect(rows.find((r) => r[0] === 'BTC')!.slice(1, 4)).toEqual([65300, expect.any(Number), 'binance']);
  });

  it('OKX: X-USDT instruments, strings to numbers, an empty last price skipped', () => {
    const data = koreaFixture<{ data: OkxTicker[] }>('okx-market-tickers-spot.json').data;
    const rows = okxPriceRows([...data, { instId: 'NEW-USDT', last: '', volCcy24h: '0', ts: '1785397260000' }]);
    expect(rows.map((r) => r[0])).not.toContain('NEW');
    expect(rows.map((r) => r[0])).not.toContain('OKB-USDC');
    const btc = rows.find((r) => r[0] === 'BTC')!;
    expect(btc[3]).toBe('okx');
    expect(btc[1]).toBeCloseTo(65300, -2);
  });
});

describe("FRED CSV ('.' means missing)", () => {
  it("reads '.' and empty cells as NULL, numbers as numbers", () => {
    const csv = 'observation_date,VIXCLS\n2026-07-30,16.5\n2026-07-31,.\n2026-08-03,\n2026-08-04,17.2\n';
    expect(parseFredCsv(csv, 'VIXCLS', 'fred').rows).toEqual([
      { date: '2026-07-30', value: 16.5 },
      { date: '2026-07-31', value: null },
      { date: '2026-08-03', value: null },
      { date: '2026-08-04', value: 17.2 },
    ]);
  });

  it('accepts the older DATE header and CRLF line ends', () => {
    expect(parseFredCsv('DATE,DGS3\r\n2026-07-03,.\r\n2026-07-06,3.91\r\n', 'DGS3', 'fred').rows).toEqual([
      { date: '2026-07-03', value: null },
      { date: '2026-07-06', value: 3.91 },
    ]);
  });

  it('the recorded DGS3 file has a NULL on a US holiday', () => {
    const { rows } = parseFredCsv(koreaFixtureText('fred-DGS3.csv'), 'DGS3', 'fred');
    expect(rows.find((r) => r.date === '2026-07-03')).toEqual({ date: '2026-07-03', value: null });
    expect(rows.find((r) => r.date === '2026-07-02')!.value).toEqual(expect.any(Number));
  });

  it('fails with the request and what it got for an HTML page, and skips a bad line naming it', () => {
    expect(() => parseFredCsv('<!DOCTYPE html><html>Error</html>', 'DGS3', 'fred: /graph/fredgraph.csv?id=DGS3')).toThrow(
      /^fred: \/graph\/fredgraph\.csv\?id=DGS3: expected a CSV header "observation_date,DGS3", got "<!DOCTYPE html>/,
    );
    expect(parseFredCsv('observation_date,DGS3\n2026-07-30,n/a\n2026-07-31,3.9\n', 'DGS3', 'fred')).toEqual({
      rows: [{ date: '2026-07-31', value: 3.9 }],
      total: 2,
      skipped: ['line 2 has value "n/a" for 2026-07-30; expected a number or \'.\''],
    });
  });
});

describe('Naver siseJson (a JavaScript array literal)', () => {
  it('maps columns by name and reads 외국인소진율, with a trailing comma and tabs', () => {
    const body = ` [['날짜', '시가', '고가', '저가', '종가', '거래량', '외국인소진율'],\n\t\t\n["20260828", 262500, 266000, 256000, 257000, 15106746, 46.72],\n\t\t\n["20260831", 249000, 260000, 246000, 260000, 18270969, null],\n\t\t\n]\n`;
    expect(parseSiseJson(body, 'naver').rows).toEqual([
      { date: '2026-08-28', close: 257000, foreignPct: 46.72 },
      { date: '2026-08-31', close: 260000, foreignPct: null },
    ]);
  });

  it('reads the recorded two years and an answer without rows', () => {
    const { rows: bars } = parseSiseJson(koreaFixtureText('naver-sise-005930.txt'), 'naver');
    expect(bars.length).toBeGreaterThan(500);
    expect(bars[0]!.date).toBe('2024-06-03');
    expect(parseSiseJson(` [['날짜', '시가', '고가', '저가', '종가', '거래량', '외국인소진율'],\n\t\t\n]\n`, 'naver').rows).toEqual([]);
  });

  it('fails naming the missing column, and skips a bad row naming it', () => {
    expect(() => parseSiseJson(`[['날짜', '종가']]`, 'naver: /siseJson.naver?symbol=005930')).toThrow(
      /no '외국인소진율' \(foreign ownership\) column/,
    );
    expect(parseSiseJson(`[['날짜', '종가', '외국인소진율'], ["2026-08-28", 1, 2], ["20260831", 3, 4]]`, 'naver')).toEqual({
      rows: [{ date: '2026-08-31', close: 3, foreignPct: 4 }],
      total: 2,
      skipped: ['row 1 is not [yyyyMMdd, ..., close, ...]: ["2026-08-28",1,2]'],
    });
    expect(() => parseSiseJson('<html>blocked</html>', 'naver')).toThrow(/not the expected array literal/);
  });
});
