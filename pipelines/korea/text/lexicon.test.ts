import { describe, expect, it } from 'vitest';
import { assignTopic, entitiesOf, keywordsOf, kpopRelevance, sentimentOf } from './lexicon.ts';

describe('sentimentOf', () => {
  it('counts 상장폐지 negative and never also 상장 positive', () => {
    expect(sentimentOf('업비트, 위믹스 상장폐지 결정')).toEqual({ score: -1, positive: 0, negative: 1, hits: ['상장폐지'] });
    expect(sentimentOf('상장 폐지 확정')).toMatchObject({ positive: 0, negative: 1 });
    expect(sentimentOf('빗썸, 솔라나 신규 상장')).toMatchObject({ score: 1, positive: 1, negative: 0, hits: ['상장'] });
  });

  it('counts each term once where it stands (no overlapping terms)', () => {
    expect(sentimentOf('비트코인 급락')).toEqual({ score: -1, positive: 0, negative: 1, hits: ['급락'] });
    expect(sentimentOf('적자 확대')).toMatchObject({ positive: 0, negative: 1, hits: ['적자 확대'] });
    expect(sentimentOf('흑자 전환')).toMatchObject({ positive: 1, negative: 0, hits: ['흑자 전환'] });
    expect(sentimentOf('규제 완화 기대')).toMatchObject({ positive: 1, negative: 0 });
    expect(sentimentOf('역대 최저')).toMatchObject({ positive: 0, negative: 1, hits: ['역대 최저'] });
    expect(sentimentOf('투자 유의 종목 지정')).toMatchObject({ negative: 1, positive: 0 });
    expect(sentimentOf('유의종목 지정')).toMatchObject({ negative: 1 });
  });

  it('does not read neutral words as terms', () => {
    expect(sentimentOf('코스닥 상장사 최고경영자 교체')).toEqual({ score: null, positive: 0, negative: 0, hits: [] });
    expect(sentimentOf('주가 보합 마감')).toMatchObject({ score: null });
    expect(sentimentOf('급등락을 반복')).toMatchObject({ score: null });
    expect(sentimentOf("'인기가요' 출연")).toMatchObject({ score: null });
  });

  it('reads 1위 as a rank of 1 only, not inside 11위', () => {
    expect(sentimentOf('음원 차트 1위')).toMatchObject({ positive: 1 });
    expect(sentimentOf('차트 11위')).toMatchObject({ score: null });
  });

  it('flips a term negated within its clause by 않/못/없', () => {
    expect(sentimentOf('주가는 상승하지 않았다')).toMatchObject({ score: -1, hits: ['상승 (negated)'] });
    expect(sentimentOf('실적이 회복하지 못했다')).toMatchObject({ score: -1 });
    expect(sentimentOf('해킹 피해는 없었다')).toMatchObject({ positive: 1, negative: 1, hits: ['해킹', '피해 (negated)'] });
    // 끊임없이 "ceaselessly" is no negation.
    expect(sentimentOf('상승세가 끊임없이 이어졌다')).toMatchObject({ score: 1 });
    // A negation in the next clause does not reach back.
    expect(sentimentOf('주가가 상승했다. 거래량은 많지 않았다')).toMatchObject({ score: 1 });
  });

  it('scores (pos - neg) / (pos + neg) and is null without hits', () => {
    expect(sentimentOf('수출 증가에도 주가 하락, 환율 우려')).toMatchObject({ positive: 1, negative: 2, score: -1 / 3 });
    expect(sentimentOf('오늘 날씨는 맑다')).toEqual({ score: null, positive: 0, negative: 0, hits: [] });
  });

  it('covers K-pop vocabulary', () => {
    expect(sentimentOf('컴백 앨범 초동 역대 최고, 콘서트 매진에 흥행 돌풍')).toMatchObject({ negative: 0 });
    expect(sentimentOf('컴백 앨범 초동 역대 최고, 콘서트 매진에 흥행 돌풍').positive).toBeGreaterThanOrEqual(4);
    expect(sentimentOf('멤버 탈퇴 논란에 활동 중단, 소속사 사과')).toMatchObject({ positive: 0, negative: 4 });
  });
});

describe('keywordsOf', () => {
  it('maps Korean terms to English keywords, longest first, once each, in order of first appearance', () => {
    expect(keywordsOf('비트코인 김프 급등…업비트 상장폐지 우려, 이더리움 김치 프리미엄도 확대')).toEqual([
      'bitcoin',
      'kimchi premium',
      'surge',
      'delisting',
      'ethereum',
    ]);
  });

  it('keeps 상장 (listing) apart from 상장폐지 (delisting) and 상장사 (listed company)', () => {
    expect(keywordsOf('상장폐지')).toEqual(['delisting']);
    expect(keywordsOf('신규 상장')).toEqual(['new listing']);
    expect(keywordsOf('상장')).toEqual(['listing']);
    expect(keywordsOf('코스닥 상장사')).toEqual(['KOSDAQ']);
  });

  it('covers chips and K-pop', () => {
    expect(keywordsOf('반도체 수출 통제 강화에 HBM 수율 우려')).toEqual(['semiconductors', 'export controls', 'HBM', 'yield']);
    expect(keywordsOf('컴백과 함께 월드투어, 뮤직비디오 조회수')).toEqual(['comeback', 'world tour', 'music video', 'views']);
    expect(keywordsOf('거래량 급감, 비트코인 급락, 규제')).toEqual(['trading volume', 'bitcoin', 'plunge', 'regulation']);
  });

  it('returns nothing for text without table terms', () => {
    expect(keywordsOf('오늘 날씨는 맑다')).toEqual([]);
  });
});

describe('entitiesOf', () => {
  it('maps spellings to one canonical entity, in order of first appearance', () => {
    expect(entitiesOf('BTS(방탄소년단)와 블랙핑크, BLACKPINK')).toEqual([
      { kr: '방탄소년단', en: 'BTS', kind: 'kpop' },
      { kr: '블랙핑크', en: 'BLACKPINK', kind: 'kpop' },
    ]);
  });

  it('knows K-pop, chip companies, crypto venues and tokens, institutions', () => {
    const found = entitiesOf(
      '하이브 뉴진스, 삼성전자·SK하이닉스·엔비디아·TSMC·한미반도체, 업비트·빗썸의 비트코인·리플, 금융위원회와 한국은행',
    );
    expect(found.map((e) => [e.en, e.kind])).toEqual([
      ['HYBE', 'kpop'],
      ['NewJeans', 'kpop'],
      ['Samsung Electronics', 'company'],
      ['SK hynix', 'company'],
      ['Nvidia', 'company'],
      ['TSMC', 'company'],
      ['Hanmi Semiconductor', 'company'],
      ['Upbit', 'crypto'],
      ['Bithumb', 'crypto'],
      ['Bitcoin', 'crypto'],
      ['XRP', 'crypto'],
      ['Financial Services Commission', 'institution'],
      ['Bank of Korea', 'institution'],
    ]);
    expect(found.find((e) => e.en === 'Bitcoin')).toEqual({ kr: '비트코인', en: 'Bitcoin', kind: 'crypto', symbol: 'BTC' });
  });

  it('does not find names inside longer words', () => {
    expect(entitiesOf('어닝 서프라이즈에 하이브리드 본딩, 에스파냐 수출')).toEqual([]);
    expect(entitiesOf('할 수 있지만 SMS 발송')).toEqual([]);
    expect(entitiesOf('LPDDR5X')).toEqual([]);
    expect(entitiesOf('ITZY')).toEqual([{ kr: '있지', en: 'ITZY', kind: 'kpop' }]);
  });

  it('prefers the longest name (이더리움 클래식 over 이더리움, 하나마이크론 over 마이크론)', () => {
    expect(entitiesOf('이더리움 클래식').map((e) => e.en)).toEqual(['Ethereum Classic']);
    expect(entitiesOf('하나마이크론').map((e) => e.en)).toEqual(['Hana Micron']);
    expect(entitiesOf('SM엔터테인먼트').map((e) => e.en)).toEqual(['SM Entertainment']);
  });
});

describe('assignTopic', () => {
  it('moves an entertainment-feed article about a chip company out of kpop', () => {
    expect(assignTopic('삼성전자, 엔비디아에 HBM4 공급 확대', '삼성전자가 HBM4 물량을 늘린다.', 'kpop')).toBe('semiconductor');
  });

  it('keeps agency business in kpop and a passing K-pop mention in a chip story out of kpop', () => {
    expect(assignTopic('하이브 주가 7% 급락…방탄소년단 활동 공백 우려', '하이브 주가가 내렸다.', 'semiconductor')).toBe('kpop');
    expect(assignTopic('SK하이닉스, 3분기 영업이익 12조 원', 'HBM 호조로 반도체 실적 개선. 블랙핑크 광고 효과도.', 'semiconductor')).toBe(
      'semiconductor',
    );
  });

  it('finds crypto from tokens, exchanges and crypto words', () => {
    expect(assignTopic('비트코인 1억 원 돌파', '업비트에서 비트코인이 올랐다. 김치 프리미엄 확대.', null)).toBe('crypto');
    expect(assignTopic('가상자산 거래소 규제 강화', '금융위원회가 발표했다.', 'kpop')).toBe('crypto');
  });

  it('keeps the hint without cues and on a tie, and is null on a tie without one', () => {
    expect(assignTopic('배우 김OO, 새 드라마 출연', '방송은 다음 달 시작된다.', 'kpop')).toBe('kpop');
    expect(assignTopic('배우 김OO, 새 드라마 출연', '방송은 다음 달 시작된다.', null)).toBeNull();
    expect(assignTopic('블랙핑크, 삼성전자 모델 발탁', '', 'kpop')).toBe('kpop');
    expect(assignTopic('블랙핑크, 삼성전자 모델 발탁', '', null)).toBeNull();
  });
});

describe('kpopRelevance', () => {
  it('is high for an act in the title with music activity', () => {
    expect(kpopRelevance('뉴진스, 11월 3일 컴백 확정', '새 미니앨범을 발매한다.')).toBe('high');
    expect(kpopRelevance('세븐틴, 빌보드 핫 100 진입', '')).toBe('high');
    expect(kpopRelevance('하이브, 신인 걸그룹 데뷔 확정', '')).toBe('high');
  });

  it('is medium for an act only in the body, agency business, or non-music news', () => {
    expect(kpopRelevance('음원 차트 결산', '에스파의 신곡이 1위를 했다.')).toBe('medium');
    expect(kpopRelevance('하이브, 3분기 영업이익 500억 원', '방탄소년단 앨범 판매가 실적을 이끌었다.')).toBe('medium');
    expect(kpopRelevance('아이브, 예능 출연 확정', '방송은 이번 주말이다.')).toBe('medium');
    expect(kpopRelevance('JYP 주가 급락', '트와이스 활동 공백 우려.')).toBe('medium');
  });

  it('is low for general entertainment without K-pop acts', () => {
    expect(kpopRelevance('배우 이OO, 새 드라마 주연 확정', '드라마는 내년 방송 예정이다.')).toBe('low');
    expect(kpopRelevance('런닝맨 시청률 상승', '예능 프로그램이 인기다.')).toBe('low');
  });
});
