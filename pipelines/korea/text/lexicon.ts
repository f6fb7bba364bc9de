/**
 * Korean lexicons for the offline rules analyst: sentiment terms, a Korean→English keyword table,
 * a named-entity dictionary (K-pop acts and agencies, chip companies, crypto venues and tokens,
 * institutions), topic assignment and K-pop relevance. Deterministic table look-ups, no model.
 */

import { NEWS_TOPICS, type NewsTopic } from '../../../sources/raw-tables.ts';
import { PhraseScanner, type Phrase } from './phrase-scanner.ts';

// ------------------------------------------------------------------ sentiment

/** +1 positive, -1 negative, 0 a blocker: a longer neutral phrase that keeps a shorter term from matching (상장사 is not 상장). */
type Polarity = 1 | -1 | 0;

const POSITIVE_TERMS = [
  // Markets, crypto, earnings.
  '상승',
  '상승세',
  '상승 전환',
  '급등',
  '폭등',
  '강세',
  '강보합',
  '반등',
  '랠리',
  '오름세',
  '훈풍',
  '올랐',
  '% 오른',
  '% 올라',
  '뛰었',
  '% 뛴',
  '증가',
  '급증',
  '늘었',
  '늘어',
  '늘린',
  '늘리',
  '확대',
  '돌파',
  '넘어섰',
  '넘어서',
  '최고치',
  '신고가',
  '사상 최고',
  '역대 최고',
  '자체 최고',
  '흑자',
  '흑자 전환',
  '적자 축소',
  '손실 축소',
  '호조',
  '호실적',
  '어닝 서프라이즈',
  '상회',
  '웃돌',
  '웃도는',
  '수혜',
  '회복',
  '개선',
  '성장',
  '순매수',
  '유입',
  '호재',
  '기대감',
  '상향',
  '선방',
  '순항',
  '승인',
  '상장',
  '통과',
  '수주',
  '공급 계약',
  '계약 체결',
  '증설',
  '신규 라인',
  '경쟁력 강화',
  '우려 해소',
  '규제 완화',
  '지원 방안',
  // K-pop.
  '컴백',
  '1위',
  '역대',
  '역대급',
  '매진',
  '흥행',
  '신기록',
  '수상',
  '석권',
  '호평',
  '품절',
  '관왕',
  '월드투어',
  '차트 진입',
  '대박',
] as const;

const NEGATIVE_TERMS = [
  // Markets, crypto, earnings.
  '하락',
  '하락세',
  '하락 전환',
  '급락',
  '폭락',
  '약세',
  '약보합',
  '내림세',
  '% 내린',
  '% 내려',
  '떨어',
  '급랭',
  '침체',
  '투매',
  '매도세',
  '매도 압력',
  '감소',
  '급감',
  '줄었',
  '줄어',
  '줄이',
  '부진',
  '둔화',
  '위축',
  '최저',
  '최저치',
  '역대 최저',
  '적자',
  '적자 전환',
  '적자 확대',
  '손실',
  '손실 확대',
  '낙폭 확대',
  '하락폭 확대',
  '하회',
  '밑돌',
  '밑도는',
  '어닝 쇼크',
  '쇼크',
  '순매도',
  '유출',
  '하향',
  '악재',
  '우려',
  '불안',
  '불확실성',
  '리스크',
  '공포',
  '규제',
  '규제 강화',
  '통제 강화',
  '수출 통제',
  '제재',
  '수사',
  '압수수색',
  '소송',
  '분쟁',
  '갈등',
  '긴장',
  '해킹',
  '탈취',
  '사기',
  '횡령',
  '파산',
  '청산',
  '러그풀',
  '상장폐지',
  '상장 폐지',
  '거래지원 종료',
  '유의 종목',
  '유의종목',
  '투자유의',
  '투자 유의',
  '투자주의',
  '투자경고',
  '투자위험',
  '경고',
  '미승인',
  '불승인',
  '승인 거부',
  '중단',
  '입출금 중단',
  '출금 중단',
  '지연',
  '차질',
  '먹통',
  '피해',
  '손해',
  '의혹',
  '장기화',
  // K-pop.
  '논란',
  '탈퇴',
  '활동 중단',
  '활동 잠정 중단',
  '잠정 중단',
  '사과',
  '사과문',
  '해체',
  '불화',
  '학폭',
  '표절',
  '음주운전',
  '악플',
  '비판',
  '반발',
  '공백',
  '공연 연기',
  '연기됐',
  '연기되',
  '연기한다',
  '잠정 연기',
  '취소',
  '건강 문제',
  '건강상의 이유',
] as const;

/** Longer neutral phrases that would otherwise be read as a shorter sentiment term. */
const NEUTRAL_BLOCKERS = [
  '비상장',
  '상장사',
  '상장기업',
  '상장 기업',
  '상장회사',
  '상장 주식',
  '최고경영자',
  '최고 경영자',
  '최고재무책임자',
  '최고기술책임자',
  '최고운영책임자',
  '급등락',
  '등락',
  '보합',
  '중단기',
  '인기가요',
  '수상한',
  '수상쩍',
  '상장지수펀드',
  '상장지수상품',
  '수사기관',
] as const;

const SENTIMENT_SCANNER = new PhraseScanner<Polarity>([
  ...POSITIVE_TERMS.map((text): Phrase<Polarity> => ({ text, value: 1 })),
  ...NEGATIVE_TERMS.map((text): Phrase<Polarity> => ({ text, value: -1 })),
  ...NEUTRAL_BLOCKERS.map((text): Phrase<Polarity> => ({ text, value: 0 })),
]);

/** Adverbs whose 없/않 is no negation (끊임없이 "ceaselessly", 못지않은 "no less than"). */
const NOT_NEGATIONS = /끊임없|어김없|틀림없|변함없|아낌없|거침없|관계없|못지않/g;
const NEGATION = /않|못|없/;
/** The rest of the hit's word and the next word, within the clause. */
const NEGATION_WINDOW = /^[^\s.,…!?·"'“”‘’]*(?:\s+[^\s.,…!?·"'“”‘’]*)?/;

/** Lexicon sentiment of a Korean text; see {@link sentimentOf}. */
export interface Sentiment {
  /** (positive - negative) / (positive + negative), from -1 to 1; null without any hit. */
  score: number | null;
  positive: number;
  negative: number;
  /** Terms counted, in order; a negated term reads '상승 (negated)' and counts for the other side. */
  hits: string[];
}

/**
 * Lexicon sentiment over Korean news text (market and crypto, semiconductors, K-pop), for the
 * rules analyst when no model runs. Each term counts once where it stands: the longest table
 * phrase wins and consumes its text, so 상장폐지 counts negative and never also 상장 positive, and
 * 적자 확대 is one negative, not 적자 plus 확대. A term followed within its clause by 않/못/없
 * (상승하지 않았다, 우려는 없다) counts for the other side. score = (pos - neg) / (pos + neg).
 */
export function sentimentOf(koreanText: string): Sentiment {
  let positive = 0;
  let negative = 0;
  const hits: string[] = [];
  for (const hit of SENTIMENT_SCANNER.scan(koreanText)) {
    if (hit.value === 0) continue;
    const window = NEGATION_WINDOW.exec(koreanText.slice(hit.end, hit.end + 24))![0].replace(NOT_NEGATIONS, '');
    const negated = NEGATION.test(window);
    const polarity = negated ? -hit.value : hit.value;
    if (polarity > 0) positive++;
    else negative++;
    hits.push(negated ? `${hit.phrase} (negated)` : hit.phrase);
  }
  const total = positive + negative;
  return { score: total === 0 ? null : (positive - negative) / total, positive, negative, hits };
}

// ------------------------------------------------------------------ keywords

/** Korean term → English keyword. Several Korean spellings may share one keyword. */
const KEYWORDS: readonly (readonly [string, string])[] = [
  // Crypto.
  ['비트코인', 'bitcoin'],
  ['이더리움', 'ethereum'],
  ['리플', 'XRP'],
  ['솔라나', 'solana'],
  ['도지코인', 'dogecoin'],
  ['테더', 'tether'],
  ['스테이블코인', 'stablecoin'],
  ['원화 스테이블코인', 'won stablecoin'],
  ['알트코인', 'altcoins'],
  ['밈코인', 'memecoins'],
  ['가상자산', 'virtual assets'],
  ['디지털자산', 'digital assets'],
  ['암호화폐', 'cryptocurrency'],
  ['가상화폐', 'cryptocurrency'],
  ['코인', 'crypto'],
  ['블록체인', 'blockchain'],
  ['거래소', 'exchange'],
  ['상장', 'listing'],
  ['신규 상장', 'new listing'],
  ['상장폐지', 'delisting'],
  ['상장 폐지', 'delisting'],
  ['거래지원 종료', 'delisting'],
  ['유의 종목', 'investment warning'],
  ['유의종목', 'investment warning'],
  ['투자유의', 'investment warning'],
  ['투자 유의', 'investment warning'],
  ['투자주의', 'investment warning'],
  ['투자경고', 'investment warning'],
  ['김치 프리미엄', 'kimchi premium'],
  ['김프', 'kimchi premium'],
  ['역프리미엄', 'reverse premium'],
  ['역프', 'reverse premium'],
  ['거래량', 'trading volume'],
  ['거래대금', 'trading value'],
  ['입출금', 'deposits and withdrawals'],
  ['입출금 중단', 'withdrawal suspension'],
  ['출금 중단', 'withdrawal suspension'],
  ['해킹', 'hack'],
  ['에어드랍', 'airdrop'],
  ['에어드롭', 'airdrop'],
  ['스테이킹', 'staking'],
  ['디파이', 'DeFi'],
  ['NFT', 'NFT'],
  ['현물 ETF', 'spot ETF'],
  ['ETF', 'ETF'],
  ['반감기', 'halving'],
  ['고래', 'whales'],
  ['청산', 'liquidations'],
  ['선물', 'futures'],
  ['트래블룰', 'travel rule'],
  ['가상자산이용자보호법', 'virtual asset user protection act'],
  ['채굴', 'mining'],
  ['지갑', 'wallet'],
  // Markets and macro.
  ['규제', 'regulation'],
  ['규제 완화', 'deregulation'],
  ['급등', 'surge'],
  ['폭등', 'surge'],
  ['급락', 'plunge'],
  ['폭락', 'plunge'],
  ['상승', 'rise'],
  ['하락', 'fall'],
  ['반등', 'rebound'],
  ['신고가', 'record high'],
  ['최고치', 'record high'],
  ['기준금리', 'base rate'],
  ['금리 인하', 'rate cut'],
  ['금리 인상', 'rate hike'],
  ['금리', 'interest rates'],
  ['환율', 'exchange rate'],
  ['원/달러 환율', 'won-dollar exchange rate'],
  ['외국인', 'foreign investors'],
  ['개인 투자자', 'retail investors'],
  ['기관', 'institutional investors'],
  ['기관 투자자', 'institutional investors'],
  ['순매수', 'net buying'],
  ['순매도', 'net selling'],
  ['공매도', 'short selling'],
  ['코스피', 'KOSPI'],
  ['코스닥', 'KOSDAQ'],
  ['시가총액', 'market capitalization'],
  ['주가', 'share price'],
  ['실적', 'earnings'],
  ['영업이익', 'operating profit'],
  ['매출', 'revenue'],
  ['순이익', 'net profit'],
  ['흑자', 'profit'],
  ['적자', 'loss'],
  ['수출', 'exports'],
  ['관세', 'tariffs'],
  ['보조금', 'subsidies'],
  ['투자', 'investment'],
  ['투자자', 'investors'],
  ['인수', 'acquisition'],
  ['소송', 'lawsuit'],
  ['급등락', 'volatility'],
  ['상장지수펀드', 'ETF'],
  // Semiconductors.
  ['반도체', 'semiconductors'],
  ['반도체주', 'chip stocks'],
  ['메모리', 'memory chips'],
  ['D램', 'DRAM'],
  ['디램', 'DRAM'],
  ['DRAM', 'DRAM'],
  ['낸드', 'NAND flash'],
  ['NAND', 'NAND flash'],
  ['HBM', 'HBM'],
  ['고대역폭메모리', 'HBM'],
  ['파운드리', 'foundry'],
  ['팹리스', 'fabless'],
  ['웨이퍼', 'wafers'],
  ['수율', 'yield'],
  ['양산', 'mass production'],
  ['패키징', 'packaging'],
  ['후공정', 'back-end process'],
  ['장비', 'equipment'],
  ['소재', 'materials'],
  ['AI 반도체', 'AI chips'],
  ['인공지능', 'artificial intelligence'],
  ['AI', 'AI'],
  ['데이터센터', 'data centers'],
  ['서버', 'servers'],
  ['고정거래가격', 'contract prices'],
  ['재고', 'inventory'],
  ['수출 통제', 'export controls'],
  ['품질 테스트', 'qualification test'],
  ['공급 계약', 'supply contract'],
  ['생산라인', 'production line'],
  ['TC 본더', 'TC bonder'],
  // K-pop.
  ['컴백', 'comeback'],
  ['월드투어', 'world tour'],
  ['투어', 'tour'],
  ['앨범', 'album'],
  ['미니앨범', 'mini album'],
  ['정규앨범', 'full-length album'],
  ['신곡', 'new song'],
  ['타이틀곡', 'title track'],
  ['음원', 'digital release'],
  ['뮤직비디오', 'music video'],
  ['차트', 'chart'],
  ['빌보드', 'Billboard'],
  ['데뷔', 'debut'],
  ['팬미팅', 'fan meeting'],
  ['콘서트', 'concert'],
  ['공연', 'concert'],
  ['음악방송', 'music shows'],
  ['초동', 'first-week sales'],
  ['음반', 'album sales'],
  ['전속계약', 'exclusive contract'],
  ['소속사', 'agency'],
  ['탈퇴', 'departure'],
  ['활동 중단', 'hiatus'],
  ['활동 잠정 중단', 'hiatus'],
  ['열애', 'dating'],
  ['입대', 'military enlistment'],
  ['예능', 'variety show'],
  ['드라마', 'drama'],
  ['시상식', 'awards'],
  ['역주행', 'chart resurgence'],
  ['매진', 'sold out'],
  ['조회수', 'views'],
  ['스트리밍', 'streaming'],
  ['걸그룹', 'girl group'],
  ['보이그룹', 'boy group'],
  ['아이돌', 'idol'],
  ['K팝', 'K-pop'],
  ['케이팝', 'K-pop'],
  ['K-팝', 'K-pop'],
];

/** Neutral spellings that would otherwise hold a keyword (상장사 is a listed company, not a listing). */
const KEYWORD_BLOCKERS = [
  '상장사',
  '상장기업',
  '상장 기업',
  '상장회사',
  '비상장',
  '상장지수상품',
  '코인원',
  '코인베이스',
  '한국거래소',
  '공정거래',
  '수사기관',
  '금융기관',
  '공공기관',
  '연구기관',
];

const KEYWORD_SCANNER = new PhraseScanner<string | null>([
  ...KEYWORDS.map(([text, value]) => ({ text, value })),
  ...KEYWORD_BLOCKERS.map((text) => ({ text, value: null })),
]);

/**
 * English keywords of a Korean text from a Korean→English table (비트코인 → bitcoin, 상장폐지 →
 * delisting, 김프 → kimchi premium, 반도체 → semiconductors, 컴백 → comeback), for the rules
 * analyst's key themes. Longest match first (상장폐지 is delisting, not listing), de-duplicated,
 * in order of first appearance.
 */
export function keywordsOf(koreanText: string): string[] {
  const out: string[] = [];
  for (const hit of KEYWORD_SCANNER.scan(koreanText)) if (hit.value !== null && !out.includes(hit.value)) out.push(hit.value);
  return out;
}

// ------------------------------------------------------------------ entities

export type EntityKind = 'kpop' | 'company' | 'crypto' | 'institution';

/** A named entity found in Korean text. */
export interface NamedEntity {
  /** Canonical Korean name (방탄소년단 also when the text wrote BTS). */
  kr: string;
  /** English name as translations write it. */
  en: string;
  /** kpop: acts and agencies; company: chip makers, suppliers, customers; crypto: exchanges and tokens; institution: regulators, ministries, courts. */
  kind: EntityKind;
  /** Ticker of a crypto token (BTC), when the entity is one. */
  symbol?: string;
}

interface EntityEntry {
  kr: string;
  en: string;
  kind: EntityKind;
  /** Other spellings, Korean or Latin; Latin ones also match in upper case (and Title case from 5 letters). */
  aliases: readonly string[];
  /** K-pop: a performing act or the company behind it. */
  role?: 'act' | 'agency';
  /** The Korean name is too common a word to match on its own (있지 "there is", 수이): only the aliases match. */
  krAmbiguous?: boolean;
  /** Topic the entity is evidence for (null: any topic, e.g. Google or the FSC). */
  topic: NewsTopic | null;
  symbol?: string;
}

const act = (kr: string, en: string, ...aliases: string[]): EntityEntry => ({ kr, en, kind: 'kpop', role: 'act', aliases, topic: 'kpop' });
const agency = (kr: string, en: string, ...aliases: string[]): EntityEntry => ({
  kr,
  en,
  kind: 'kpop',
  role: 'agency',
  aliases,
  topic: 'kpop',
});
const chip = (kr: string, en: string, ...aliases: string[]): EntityEntry => ({ kr, en, kind: 'company', aliases, topic: 'semiconductor' });
const company = (kr: string, en: string, ...aliases: string[]): EntityEntry => ({ kr, en, kind: 'company', aliases, topic: null });
const venue = (kr: string, en: string, ...aliases: string[]): EntityEntry => ({ kr, en, kind: 'crypto', aliases, topic: 'crypto' });
const token = (kr: string, en: string, symbol: string, ...aliases: string[]): EntityEntry => ({
  kr,
  en,
  kind: 'crypto',
  aliases: [symbol, ...aliases],
  topic: 'crypto',
  symbol,
});
const institution = (kr: string, en: string, ...aliases: string[]): EntityEntry => ({ kr, en, kind: 'institution', aliases, topic: null });

const ENTITIES: readonly EntityEntry[] = [
  // K-pop acts.
  act('방탄소년단', 'BTS', 'BTS', '비티에스'),
  act('블랙핑크', 'BLACKPINK', 'BLACKPINK'),
  act('뉴진스', 'NewJeans', 'NewJeans'),
  act('에스파', 'aespa', 'aespa'),
  act('세븐틴', 'SEVENTEEN', 'SEVENTEEN'),
  act('스트레이 키즈', 'Stray Kids', 'Stray Kids', '스키즈'),
  act('아이브', 'IVE', 'IVE'),
  act('르세라핌', 'LE SSERAFIM', 'LE SSERAFIM'),
  act('트와이스', 'TWICE', 'TWICE'),
  act('엔하이픈', 'ENHYPEN', 'ENHYPEN'),
  act('투모로우바이투게더', 'TOMORROW X TOGETHER', 'TXT', 'TOMORROW X TOGETHER', '투바투'),
  act('베이비몬스터', 'BABYMONSTER', 'BABYMONSTER', '베몬'),
  act('라이즈', 'RIIZE', 'RIIZE'),
  act('아일릿', 'ILLIT', 'ILLIT'),
  { ...act('있지', 'ITZY', 'ITZY'), krAmbiguous: true },
  act('엔믹스', 'NMIXX', 'NMIXX'),
  act('(여자)아이들', 'i-dle', '(G)I-DLE', 'i-dle', '아이들(i-dle)'),
  act('제로베이스원', 'ZEROBASEONE', 'ZEROBASEONE', 'ZB1'),
  act('보이넥스트도어', 'BOYNEXTDOOR', 'BOYNEXTDOOR'),
  act('투어스', 'TWS', 'TWS'),
  act('키스오브라이프', 'KISS OF LIFE', 'KISS OF LIFE'),
  act('에이티즈', 'ATEEZ', 'ATEEZ'),
  act('엔시티', 'NCT', 'NCT'),
  act('엑소', 'EXO', 'EXO'),
  act('레드벨벳', 'Red Velvet', 'Red Velvet'),
  act('빅뱅', 'BIGBANG', 'BIGBANG'),
  act('마마무', 'MAMAMOO', 'MAMAMOO'),
  act('투애니원', '2NE1', '2NE1'),
  act('트레저', 'TREASURE', 'TREASURE'),
  act('더보이즈', 'THE BOYZ', 'THE BOYZ'),
  act('몬스타엑스', 'MONSTA X', 'MONSTA X'),
  act('스테이씨', 'STAYC', 'STAYC'),
  act('프로미스나인', 'fromis_9', 'fromis_9'),
  act('오마이걸', 'OH MY GIRL', 'OH MY GIRL'),
  act('케플러', 'Kep1er', 'Kep1er'),
  act('캣츠아이', 'KATSEYE', 'KATSEYE'),
  act('피프티피프티', 'FIFTY FIFTY', 'FIFTY FIFTY'),
  act('하츠투하츠', 'Hearts2Hearts', 'Hearts2Hearts'),
  act('플레이브', 'PLAVE', 'PLAVE'),
  act('코르티스', 'CORTIS', 'CORTIS'),
  act('아이유', 'IU', 'IU'),
  act('지드래곤', 'G-Dragon', 'G-DRAGON', 'G-Dragon'),
  act('제니', 'JENNIE', 'JENNIE'),
  // Not ROSE: the ticker of Oasis Network.
  act('로제', 'ROSÉ', 'ROSÉ'),
  act('리사', 'LISA', 'LISA'),
  act('지민', 'Jimin', 'JIMIN'),
  act('싸이', 'PSY', 'PSY'),
  act('임영웅', 'Lim Young-woong'),
  // K-pop agencies.
  agency('하이브', 'HYBE', 'HYBE'),
  agency('SM엔터테인먼트', 'SM Entertainment', 'SM', '에스엠', 'SM엔터'),
  agency('JYP엔터테인먼트', 'JYP Entertainment', 'JYP', 'JYP엔터', '제이와이피'),
  agency('YG엔터테인먼트', 'YG Entertainment', 'YG', 'YG엔터', '와이지엔터테인먼트'),
  agency('어도어', 'ADOR', 'ADOR'),
  agency('빅히트 뮤직', 'BIGHIT MUSIC', 'BIGHIT MUSIC', '빅히트'),
  agency('빌리프랩', 'BELIFT LAB', 'BELIFT LAB'),
  agency('쏘스뮤직', 'SOURCE MUSIC', 'SOURCE MUSIC'),
  agency('플레디스엔터테인먼트', 'PLEDIS Entertainment', '플레디스', 'PLEDIS'),
  agency('스타쉽엔터테인먼트', 'Starship Entertainment', '스타쉽'),
  agency('큐브엔터테인먼트', 'Cube Entertainment', '큐브엔터'),
  agency('카카오엔터테인먼트', 'Kakao Entertainment', '카카오엔터'),
  agency('더블랙레이블', 'THEBLACKLABEL', 'THEBLACKLABEL'),
  agency('KQ엔터테인먼트', 'KQ Entertainment', 'KQ엔터'),
  agency('어트랙트', 'ATTRAKT', 'ATTRAKT'),
  agency('웨이크원', 'WAKEONE', 'WAKEONE'),
  // Chip companies.
  chip('삼성전자', 'Samsung Electronics'),
  chip('SK하이닉스', 'SK hynix', '하이닉스', 'SK hynix'),
  chip('마이크론', 'Micron', 'Micron'),
  chip('엔비디아', 'Nvidia', 'NVIDIA', 'Nvidia'),
  chip('TSMC', 'TSMC', 'TSMC'),
  chip('한미반도체', 'Hanmi Semiconductor'),
  chip('인텔', 'Intel', 'Intel'),
  chip('AMD', 'AMD', 'AMD'),
  chip('퀄컴', 'Qualcomm', 'Qualcomm'),
  chip('브로드컴', 'Broadcom', 'Broadcom'),
  chip('ASML', 'ASML', 'ASML'),
  chip('어플라이드 머티어리얼즈', 'Applied Materials'),
  chip('램리서치', 'Lam Research'),
  chip('도쿄일렉트론', 'Tokyo Electron'),
  chip('키옥시아', 'Kioxia'),
  chip('샌디스크', 'SanDisk'),
  chip('웨스턴디지털', 'Western Digital'),
  chip('창신메모리', 'CXMT', 'CXMT'),
  chip('YMTC', 'YMTC', 'YMTC'),
  chip('SMIC', 'SMIC', 'SMIC'),
  chip('ARM', 'Arm', 'ARM', 'Arm'),
  chip('삼성전기', 'Samsung Electro-Mechanics'),
  chip('LG이노텍', 'LG Innotek'),
  chip('SK스퀘어', 'SK Square'),
  chip('DB하이텍', 'DB HiTek'),
  chip('원익IPS', 'Wonik IPS'),
  chip('주성엔지니어링', 'Jusung Engineering'),
  chip('한화세미텍', 'Hanwha Semitech'),
  chip('리노공업', 'Leeno Industrial'),
  chip('하나마이크론', 'Hana Micron'),
  chip('이수페타시스', 'ISU Petasys'),
  chip('퓨리오사AI', 'FuriosaAI'),
  chip('리벨리온', 'Rebellions'),
  chip('트렌드포스', 'TrendForce', 'TrendForce'),
  company('애플', 'Apple'),
  company('구글', 'Google'),
  company('마이크로소프트', 'Microsoft'),
  company('아마존', 'Amazon'),
  company('오픈AI', 'OpenAI', 'OpenAI'),
  company('화웨이', 'Huawei'),
  company('폭스콘', 'Foxconn'),
  company('블랙록', 'BlackRock', 'BlackRock'),
  // Crypto exchanges and operators.
  venue('업비트', 'Upbit', 'Upbit'),
  venue('빗썸', 'Bithumb', 'Bithumb'),
  venue('코인원', 'Coinone', 'Coinone'),
  venue('코빗', 'Korbit', 'Korbit'),
  venue('고팍스', 'Gopax', 'GOPAX'),
  venue('두나무', 'Dunamu'),
  venue('바이낸스', 'Binance', 'Binance'),
  venue('코인베이스', 'Coinbase', 'Coinbase'),
  venue('OKX', 'OKX', 'OKX'),
  venue('바이비트', 'Bybit', 'Bybit'),
  venue('닥사', 'DAXA', 'DAXA', '디지털자산거래소 공동협의체'),
  // Crypto tokens.
  token('비트코인', 'Bitcoin', 'BTC'),
  token('이더리움', 'Ethereum', 'ETH'),
  token('리플', 'XRP', 'XRP', '엑스알피'),
  token('솔라나', 'Solana', 'SOL'),
  token('도지코인', 'Dogecoin', 'DOGE'),
  token('에이다', 'Cardano', 'ADA', '카르다노'),
  token('트론', 'TRON', 'TRX'),
  token('테더', 'Tether', 'USDT'),
  token('유에스디코인', 'USD Coin', 'USDC'),
  token('체인링크', 'Chainlink', 'LINK'),
  token('폴카닷', 'Polkadot', 'DOT'),
  token('아발란체', 'Avalanche', 'AVAX'),
  token('시바이누', 'Shiba Inu', 'SHIB'),
  token('페페', 'Pepe', 'PEPE'),
  { ...token('수이', 'Sui', 'SUI'), krAmbiguous: true },
  // Not the bare ticker APT: ROSÉ's song 'APT.' is K-pop news.
  { ...token('앱토스', 'Aptos', 'APT'), aliases: [] },
  token('아비트럼', 'Arbitrum', 'ARB'),
  token('스텔라루멘', 'Stellar', 'XLM'),
  token('이더리움 클래식', 'Ethereum Classic', 'ETC'),
  token('비트코인 캐시', 'Bitcoin Cash', 'BCH'),
  token('월드코인', 'Worldcoin', 'WLD'),
  token('위믹스', 'WEMIX', 'WEMIX'),
  token('톤코인', 'Toncoin', 'TON'),
  token('니어프로토콜', 'NEAR Protocol', 'NEAR'),
  token('헤데라', 'Hedera', 'HBAR'),
  // Institutions.
  institution('금융위원회', 'Financial Services Commission', '금융위'),
  institution('금융감독원', 'Financial Supervisory Service', '금감원'),
  institution('한국은행', 'Bank of Korea'),
  institution('기획재정부', 'Ministry of Economy and Finance', '기재부'),
  institution('산업통상자원부', 'Ministry of Trade, Industry and Energy', '산업부'),
  institution('과학기술정보통신부', 'Ministry of Science and ICT', '과기정통부'),
  institution('문화체육관광부', 'Ministry of Culture, Sports and Tourism', '문체부'),
  institution('금융정보분석원', 'Korea Financial Intelligence Unit', 'FIU'),
  institution('국세청', 'National Tax Service'),
  institution('공정거래위원회', 'Fair Trade Commission', '공정위'),
  institution('한국거래소', 'Korea Exchange'),
  institution('국회', 'National Assembly'),
  institution('검찰', 'prosecutors'),
  institution('미국 증권거래위원회', 'US Securities and Exchange Commission', 'SEC', '美 증권거래위원회'),
  institution('연방준비제도', 'Federal Reserve', '연준', '美 연준'),
  institution('미국 상무부', 'US Department of Commerce', '美 상무부', '상무부'),
];

/** Longer words that contain an entity's name (서프라이즈 holds 라이즈, 하이브리드 holds 하이브). */
const ENTITY_BLOCKERS = [
  '서프라이즈',
  '프라이즈',
  '엔터프라이즈',
  '하이브리드',
  '에스파냐',
  '리사이클',
  '리사이틀',
  '테리사',
  '로제타',
  '일렉트론',
  '사이클로트론',
  '페페로니',
  '리플레이',
  '리플렛',
  '싸이월드',
  '싸이클',
  '엑소더스',
  '삼성동',
  '삼성역',
  '애플리케이션',
  '제니퍼',
];

/** The spellings an entry matches: its Korean name (unless ambiguous) and aliases, in their casings. */
const spellingsOf = (entry: EntityEntry): string[] => [...(entry.krAmbiguous ? [] : [entry.kr]), ...entry.aliases].flatMap(latinCasings);

/** Casings a Latin alias matches in: as written, upper case, and Title case for names of 5 letters or more (Blackpink). */
function latinCasings(alias: string): string[] {
  if (!/^[A-Za-z0-9 _()\-É.]+$/.test(alias)) return [alias];
  const casings = new Set([alias, alias.toUpperCase()]);
  if (alias.replace(/[^A-Za-z]/g, '').length >= 5) casings.add(alias[0]!.toUpperCase() + alias.slice(1).toLowerCase());
  return [...casings];
}

const ENTITY_SCANNER = new PhraseScanner<EntityEntry | null>([
  ...ENTITIES.flatMap((entry) => spellingsOf(entry).map((text) => ({ text, value: entry }))),
  ...ENTITY_BLOCKERS.map((text) => ({ text, value: null })),
]);

function entityHits(text: string): EntityEntry[] {
  const found: EntityEntry[] = [];
  for (const hit of ENTITY_SCANNER.scan(text)) if (hit.value && !found.includes(hit.value)) found.push(hit.value);
  return found;
}

/**
 * Named entities of a Korean text from a dictionary: K-pop acts and agencies (방탄소년단/BTS,
 * 하이브), chip companies (삼성전자, SK하이닉스, 엔비디아), crypto exchanges and tokens (업비트,
 * 비트코인 with its ticker), institutions (금융위원회, 한국은행). Spellings map to one canonical
 * entry (BTS and 방탄소년단 are one), longest match first, in order of first appearance. Words that
 * merely contain a name (어닝 서프라이즈 holds 라이즈, 하이브리드 holds 하이브, 있지만 holds 있지)
 * are blocked. Exchanges count as kind 'crypto' here (they are where crypto trades).
 */
export function entitiesOf(koreanText: string): NamedEntity[] {
  return entityHits(koreanText).map((e) =>
    e.symbol ? { kr: e.kr, en: e.en, kind: e.kind, symbol: e.symbol } : { kr: e.kr, en: e.en, kind: e.kind },
  );
}

// ------------------------------------------------------------------ topics

const TOPIC_CUES: Readonly<Record<NewsTopic, readonly string[]>> = {
  kpop: [
    'K팝',
    '케이팝',
    'K-팝',
    '아이돌',
    '걸그룹',
    '보이그룹',
    '컴백',
    '앨범',
    '미니앨범',
    '신곡',
    '타이틀곡',
    '음원',
    '음반',
    '뮤직비디오',
    '빌보드',
    '데뷔',
    '팬미팅',
    '팬덤',
    '월드투어',
    '콘서트',
    '음악방송',
    '초동',
    '한터차트',
    '써클차트',
    '멜론',
    '소속사',
    '전속계약',
    '멤버',
    '관왕',
  ],
  semiconductor: [
    '반도체',
    '반도체주',
    '메모리',
    'D램',
    '디램',
    'DRAM',
    '낸드',
    'NAND',
    'HBM',
    '고대역폭메모리',
    '파운드리',
    '팹리스',
    '웨이퍼',
    '수율',
    '나노 공정',
    '패키징',
    '후공정',
    'TC 본더',
    '고정거래가격',
    'eSSD',
    'LPDDR',
    'GDDR',
    'DDR5',
    'AI 반도체',
    '칩',
    '생산라인',
    '팹',
  ],
  crypto: [
    '가상자산',
    '디지털자산',
    '암호화폐',
    '가상화폐',
    '코인',
    '알트코인',
    '밈코인',
    '스테이블코인',
    '블록체인',
    '김치 프리미엄',
    '김프',
    '역프리미엄',
    '디파이',
    'NFT',
    '에어드랍',
    '에어드롭',
    '스테이킹',
    '채굴',
    '반감기',
    '지갑',
    '트래블룰',
    '거래지원',
    '유의 종목',
    '유의종목',
    '원화 마켓',
  ],
};

const TOPIC_SCANNER = new PhraseScanner<NewsTopic | null>([
  ...ENTITIES.filter((e) => e.topic !== null).flatMap((e) => spellingsOf(e).map((text) => ({ text, value: e.topic }))),
  ...(Object.entries(TOPIC_CUES) as [NewsTopic, readonly string[]][]).flatMap(([topic, cues]) =>
    cues.map((text) => ({ text, value: topic })),
  ),
  ...ENTITIES.filter((e) => e.topic === null).flatMap((e) => spellingsOf(e).map((text) => ({ text, value: null }))),
  ...[...ENTITY_BLOCKERS, '칩거', '코인노래방'].map((text) => ({ text, value: null })),
]);

function topicEvidence(text: string): Map<NewsTopic, Set<string>> {
  const evidence = new Map<NewsTopic, Set<string>>(NEWS_TOPICS.map((t) => [t, new Set<string>()]));
  for (const hit of TOPIC_SCANNER.scan(text)) if (hit.value) evidence.get(hit.value)!.add(hit.phrase);
  return evidence;
}

/**
 * The article's topic from keywords and entities, with the feed's hint as a prior. Each topic
 * scores 2 per distinct cue in the title and 1 per distinct cue in the body (entities count as
 * cues: K-pop acts and agencies for kpop, chip makers for semiconductor, exchanges and tokens for
 * crypto); the hinted topic gets +1. The highest score wins; a tie that includes the hint goes to
 * the hint, any other tie is null. With no cue at all the hint stands (it may be null). So an
 * entertainment-feed article about a chip company (삼성전자, HBM in the title) lands in
 * semiconductor, while a chip-feed article with one passing K-pop mention stays semiconductor.
 */
export function assignTopic(title: string, body: string, hint: NewsTopic | null): NewsTopic | null {
  const inTitle = topicEvidence(title);
  const inBody = topicEvidence(body);
  let best: NewsTopic[] = [];
  let bestScore = 0;
  let anyCue = false;
  for (const topic of NEWS_TOPICS) {
    const titleCues = inTitle.get(topic)!.size;
    const bodyCues = [...inBody.get(topic)!].filter((cue) => !inTitle.get(topic)!.has(cue)).length;
    if (titleCues + bodyCues > 0) anyCue = true;
    const score = 2 * titleCues + bodyCues + (topic === hint ? 1 : 0);
    if (score > bestScore) {
      best = [topic];
      bestScore = score;
    } else if (score === bestScore && score > 0) {
      best.push(topic);
    }
  }
  if (!anyCue) return hint;
  if (best.length === 1) return best[0]!;
  return hint !== null && best.includes(hint) ? hint : null;
}

// ------------------------------------------------------------------ K-pop relevance

const MUSIC_ACTIVITY = new PhraseScanner<true>(
  [
    '컴백',
    '앨범',
    '차트',
    '투어',
    '데뷔',
    '음원',
    '뮤직비디오',
    '신곡',
    '싱글',
    '타이틀곡',
    '빌보드',
    '음악방송',
    '콘서트',
    '공연',
    '발매',
    '음반',
    '초동',
    '팬미팅',
    '쇼케이스',
    '뮤비',
  ].map((text) => ({ text, value: true as const })),
);

/** Agency business rather than music: shares, earnings, filings, deals. */
const AGENCY_BUSINESS = new PhraseScanner<true>(
  ['주가', '영업이익', '매출', '실적', '순이익', '공시', '주주', '지분', '인수', '시가총액', '목표주가', '배당', '증권가', '상장'].map(
    (text) => ({ text, value: true as const }),
  ),
);

/**
 * How much a Korean entertainment article is about K-pop, for the kpop news feed:
 * - high: a K-pop act (or an agency, when the title is not about its business) is named in the
 *   title and the article speaks of music activity (컴백, 앨범, 차트, 투어, 데뷔, 음원, 뮤직비디오,
 *   신곡, 공연 ...), unless the title is about agency business (주가, 영업이익, 실적 ...);
 * - medium: a K-pop act or agency is named, but only in the body, or the news is agency business
 *   or not about music (a variety show, a contract dispute, a health break);
 * - low: general entertainment with no K-pop act or agency (drama, actors, variety).
 */
export function kpopRelevance(title: string, body: string): 'high' | 'medium' | 'low' {
  const titleKpop = entityHits(title).filter((e) => e.kind === 'kpop');
  const bodyKpop = entityHits(body).filter((e) => e.kind === 'kpop');
  if (titleKpop.length === 0 && bodyKpop.length === 0) return 'low';
  const music = MUSIC_ACTIVITY.scan(title).length > 0 || MUSIC_ACTIVITY.scan(body).length > 0;
  const business = AGENCY_BUSINESS.scan(title).length > 0;
  if (titleKpop.length > 0 && music && !business) return 'high';
  return 'medium';
}
