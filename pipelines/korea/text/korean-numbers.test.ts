import { describe, expect, it } from 'vitest';
import { checkNumbers, expandKoreanNumbers, koreanNumberSpans } from './korean-numbers.ts';

describe('expandKoreanNumbers', () => {
  it.each([
    ['9조1000억 원', '9,100,000,000,000 원'],
    ['450억 원', '45,000,000,000 원'],
    ['1억2000만 원', '120,000,000 원'],
    ['130억 달러', '13,000,000,000 달러'],
    ['3만 명', '30,000 명'],
    ['3만명', '30,000명'],
    ['1.5조', '1,500,000,000,000'],
    ['2만5000', '25,000'],
    ['2만5천 명', '25,000 명'],
    ['1,200억', '120,000,000,000'],
    ['1조 2000억 원', '1,200,000,000,000 원'],
    ['1억 2340만 원', '123,400,000 원'],
    ['2만 5000명', '25,000명'],
    ['2천만 회', '20,000,000 회'],
    ['1천2백만', '12,000,000'],
    ['5천억 원', '500,000,000,000 원'],
    ['3천 명', '3,000 명'],
    ['0.5만', '5,000'],
    ['1.23456만', '12,345.6'],
    ['1조40억 원', '1,004,000,000,000 원'],
  ])('%s → %s', (korean, expanded) => {
    expect(expandKoreanNumbers(korean)).toBe(expanded);
  });

  it('expands every unit number of a sentence and leaves the rest byte-identical', () => {
    expect(expandKoreanNumbers('삼성전자는 3분기 영업이익이 9조1000억 원으로, 전년 대비 12.5% 늘었다고 11월 3일 밝혔다.')).toBe(
      '삼성전자는 3분기 영업이익이 9,100,000,000,000 원으로, 전년 대비 12.5% 늘었다고 11월 3일 밝혔다.',
    );
  });

  it.each([
    '만약 비트코인이 오르면',
    '새 앨범을 만들다',
    '물가 억제',
    '금감원 조사',
    '조선 업종',
    '억울하다',
    '만 원권',
    '억 단위',
    '조 단위 투자',
  ])('leaves words that merely contain a unit syllable untouched: %s', (text) => {
    expect(expandKoreanNumbers(text)).toBe(text);
  });

  it('does not read units into product names, legal articles, pieces or games', () => {
    expect(expandKoreanNumbers('HBM4만 공급한다')).toBe('HBM4만 공급한다');
    expect(expandKoreanNumbers('LPDDR6만')).toBe('LPDDR6만');
    expect(expandKoreanNumbers('특금법 제3조에 따라')).toBe('특금법 제3조에 따라');
    expect(expandKoreanNumbers('케이크 3조각')).toBe('케이크 3조각');
    expect(expandKoreanNumbers('10경기 연속')).toBe('10경기 연속');
  });

  it('leaves numbers without units as they are', () => {
    const text = '2026년 11월 20일 160,500원, 외국인 지분율 50.35%, 12.5%, 3.5조';
    expect(expandKoreanNumbers(text)).toBe('2026년 11월 20일 160,500원, 외국인 지분율 50.35%, 12.5%, 3,500,000,000,000');
  });

  it('does not chain groups that do not descend (two amounts side by side)', () => {
    expect(expandKoreanNumbers('1만 2만 3만')).toBe('10,000 20,000 30,000');
    expect(expandKoreanNumbers('1억 2억')).toBe('100,000,000 200,000,000');
    // 1억 then 2만 descends: one amount.
    expect(expandKoreanNumbers('1억 2만')).toBe('100,020,000');
  });

  it('does not join a bare figure after a space except after 만', () => {
    expect(expandKoreanNumbers('1조 5000 기업')).toBe('1,000,000,000,000 5000 기업');
  });

  it('is idempotent and reports where each expansion came from', () => {
    const text = '매출 1조2000억 원, 관객 3만 명';
    expect(expandKoreanNumbers(expandKoreanNumbers(text))).toBe(expandKoreanNumbers(text));
    expect(koreanNumberSpans(text).map((s) => [s.original, s.expanded])).toEqual([
      ['1조2000억', '1,200,000,000,000'],
      ['3만', '30,000'],
    ]);
  });
});

describe('checkNumbers: English forms that pass', () => {
  it.each([
    ['450억 원', '45 billion won'],
    ['450억 원', '45,000,000,000 won'],
    ['450억 원', 'W45bn'],
    ['130억 달러', '$13 billion'],
    ['130억 달러', 'US$13bn'],
    ['130억 달러', '13 billion dollars'],
    ['4조5000억 원', '4.5 trillion won'],
    ['1억2340만 원', '123.4 million won'],
    ['1억2340만 원', 'about 123 million won'],
    ['9조1234억 원', '9.1 trillion won'],
    ['120만 명', '1.2 million people'],
    ['3만 명', '30,000 people'],
    ['3만 명', '30 thousand people'],
    ['12.5%', '12.5%'],
    ['12.5% 증가', 'up 12.5 percent'],
    ['3%p 상승', 'up 3 percentage points'],
    ['3~5% 상승', 'rose 3-5%'],
    ['3~5% 상승', 'rose 3 to 5 percent'],
    ['11월', 'in November'],
    ['11월', 'in Nov.'],
    ['11월 3일', 'on 11/3'],
    ['5월 2일', 'May 2nd'],
    ['3분기', 'Q3'],
    ['3분기', 'the third quarter'],
    ['3분기', 'the 3rd quarter'],
    ['3Q 실적', 'third-quarter results'],
    ['1위', 'No. 1'],
    ['1위', 'first place'],
    ['1위', 'topped the chart'],
    ['24위', 'No. 24'],
    ['24위', '24th'],
    ['2명', 'two members'],
    ['12곡', 'twelve tracks'],
    ['21개 도시', 'twenty-one cities'],
    ['10주', '10 weeks'],
    ['6개월', 'six months'],
    ['2027년 가동', 'start operations in 2027'],
    ['데뷔 5주년', '5th anniversary'],
    ['2나노 공정', '2nm process'],
    ['2나노 공정', '2-nanometer process'],
    ['HBM4 공급', 'HBM4 supply'],
    ['HBM3E 12단', '12-high HBM3E'],
    ['2NE1 컴백', '2NE1 returns'],
    ['2025.11.03 공시', 'disclosed on November 3, 2025'],
    ['제2공장', 'second plant'],
    ['오후 3시 3분', 'at 3:03 p.m.'],
    ['오후 3시 3분', 'at 15:03'],
    ['0시 4분', 'at 00:04'],
    ['낮 12시 56분', 'at 12:56 p.m.'],
    ['오전 9시', 'at 9 a.m.'],
    ['9시 반', 'at 9:30'],
    ['12시간 만에', '12 hours after'],
    ['코인98(C98) 급락', 'Coin98 (C98) plunges'],
    ['아이폰17 출시', 'iPhone 17 launch'],
    ['1인치네트워크(1INCH) 1분 만에 급등', '1inch (1INCH) surges in 1 minute'],
    ['업비트, 1인치네트워크(1INCH) 유의 종목 지정', 'Upbit designates 1inch (1INCH) an investment warning asset'],
    ['10배 증가', 'a 10x increase'],
    ['3나노 공정', 'its 3nm process'],
  ])('%s ≈ %s', (korean, english) => {
    expect(checkNumbers(korean, english)).toEqual({ ok: true, missing: [], checked: expect.any(Number) });
  });

  it('expands the Korean itself and counts each distinct number once', () => {
    const result = checkNumbers(
      '삼성전자 3분기 영업이익 9조1000억 원…전년 대비 12.5% 증가. 영업이익 9조1000억 원은 역대 최대.',
      'Samsung Q3 operating profit of 9.1 trillion won, up 12.5% on-year.',
    );
    expect(result).toEqual({ ok: true, missing: [], checked: 3 });
  });

  it('passes text without numbers', () => {
    expect(checkNumbers('엔비디아 실적 호조', 'Strong Nvidia results')).toEqual({ ok: true, missing: [], checked: 0 });
  });
});

describe('checkNumbers: translations that must fail', () => {
  it.each([
    ['wrong scale: millions for 억', '450억 원', '45 million won', '450억 원'],
    ['wrong scale: tenfold', '450억 원', '450 billion won', '450억 원'],
    ['wrong scale: trillion for billion', '130억 달러', '$13 trillion', '130억 달러'],
    ['rounded past the shown precision', '1억2340만 원', '120 million won', '1억2340만 원'],
    ['rounded too far (2 billion for 1.5)', '15억 원', '2 billion won', '15억 원'],
    ['wrong currency', '450억 원', '$45 billion', '450억 원'],
    ['dropped number', '총 12곡이 수록된다', 'The album contains the title track.', '12곡'],
    ['transposed percentage', '12.5% 증가', 'up 21.5%', '12.5%'],
    ['percentage rounded', '12.5% 증가', 'up 12%', '12.5%'],
    ['percentage written as a plain figure', '점유율 12%', '12 customers', '12%'],
    ['plain figure written as a percentage', '12곡', '12% of tracks', '12곡'],
    ['wrong month', '11월 3일 컴백', 'comeback on October 3', '11월'],
    ['wrong day', '11월 3일 컴백', 'comeback on November 4', '3일'],
    ['wrong quarter', '3분기 영업이익', 'Q2 operating profit', '3분기'],
    ['quarter as a bare figure', '3분기 영업이익', 'operating profit of 3 units', '3분기'],
    ['number only inside another number', '12곡', '120 tracks', '12곡'],
    ['number only inside a decimal', '12곡', '1.12 tracks', '12곡'],
    ['number only inside a product name', '4개', 'HBM4 chips', '4개'],
    ['wrong rank', '24위', 'No. 42', '24위'],
    ['wrong product', 'HBM4 공급', 'HBM3E supply', 'HBM4'],
    ['product name only as a prefix', 'HBM3 공급', 'HBM3E supply', 'HBM3'],
    ['wrong year', '2027년 가동', 'start operations in 2028', '2027년'],
    ['wrong hour behind an equal minute', '오후 3시 3분', 'at 4:03 p.m.', '오후 3시 3분'],
    ['a.m. for 오후', '오후 3시 3분', 'at 3:03 a.m.', '오후 3시 3분'],
    ['time as loose figures', '오후 3시 3분', '3 of 3 markets', '오후 3시 3분'],
    ['the minute of a time vouching for a day', '4일 오후 10시 5분', 'on the 5th at 10:04 p.m.', '4일'],
    ['a name figure glued to other letters', '코인98 급락', 'Coin99 plunges', '코인98'],
    ['a figure only inside an English name', '1인치네트워크(1INCH) 1분 만에 급등', '1inch (1INCH) surges in 2 minutes', '1분'],
  ])('%s', (_label, korean, english, missing) => {
    const result = checkNumbers(korean, english);
    expect(result.ok).toBe(false);
    expect(result.missing).toContain(missing);
  });

  it('names every missing number, once each, as the Korean wrote it', () => {
    const result = checkNumbers(
      '삼성전자, 3분기 영업이익 9조1000억 원…전년 대비 12.5% 증가. 9조1000억 원은 11월 발표.',
      'Samsung posts Q3 operating profit of 9.1 billion won, up 12.5%.',
    );
    expect(result).toEqual({ ok: false, missing: ['9조1000억 원', '11월'], checked: 4 });
  });

  it('does not count a swapped pair of percentages it cannot align (documented limit)', () => {
    // Both figures appear; the check is per number, not per position.
    expect(checkNumbers('TSMC가 68%, 삼성전자가 9%다', 'TSMC 9% and Samsung 68%').ok).toBe(true);
  });
});
