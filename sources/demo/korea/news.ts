/**
 * Korean news of the korea demo world: K-pop, semiconductors and the crypto market. Each KST day
 * has its own seeded set of articles per topic (8-15 K-pop and chip stories, 10-16 crypto ones),
 * so an article never changes whatever `now` is asked for; the caller only hides the ones not
 * yet published. Articles are built from templates written in Korean with a faithful English
 * rendering of the same template (the reference translation). Chip stories quote the world's KRX
 * series; crypto stories (news-crypto.ts) report the world's own surges, listings and premiums.
 */

import { Rng } from '../random.ts';
import { DAY_MS, KST_OFFSET_MS, MINUTE_MS, isoDateOfDay, kstDayIndexOf, minuteIndexOf, msOfDay } from './calendar.ts';
import { krxRound, previousKrxSession, type MacroHistory } from './macro.ts';
import {
  CRYPTO_OUTLETS,
  CRYPTO_OUTLET_WEIGHTS,
  CRYPTO_TEMPLATES,
  CRYPTO_TEMPLATE_WEIGHTS,
  cryptoDay,
  type NewsWorld,
} from './news-crypto.ts';
import {
  MONTHS,
  decimalText,
  eokWonEn,
  eokWonKr,
  oneDecimal,
  ordinal,
  percent,
  withCommas,
  withParticle,
  type ArticleDay,
  type Draft,
  type Named,
  type NewsMention,
  type NewsTone,
} from './news-writing.ts';

export { withParticle, type NewsMention, type NewsTone } from './news-writing.ts';
export type { MarketView, NewsWorld } from './news-crypto.ts';

export type NewsTopic = 'kpop' | 'semiconductor' | 'crypto';

export interface NewsArticle {
  articleId: string;
  topic: NewsTopic;
  publishedAt: Date;
  url: string;
  sourceKr: string;
  sourceEn: string;
  titleKr: string;
  bodyKr: string;
  titleEn: string;
  bodyEn: string;
  tone: NewsTone;
  /** What of the world the article reports (crypto stories); empty for the others. */
  mentions: readonly NewsMention[];
}

// ------------------------------------------------------------------ entities

interface KpopGroup extends Named {
  debutYear: number;
  agency: Named;
  /** The listed company behind the agency, when there is one. */
  listed: Named | null;
}

const HYBE: Named = { kr: '하이브', en: 'HYBE' };
const SM: Named = { kr: '에스엠', en: 'SM Entertainment' };
const JYP: Named = { kr: 'JYP엔터테인먼트', en: 'JYP Entertainment' };
const YG: Named = { kr: 'YG엔터테인먼트', en: 'YG Entertainment' };
const BIGHIT: Named = { kr: '빅히트 뮤직', en: 'BIGHIT MUSIC' };
const BELIFT: Named = { kr: '빌리프랩', en: 'BELIFT LAB' };

const KPOP_GROUPS: readonly KpopGroup[] = [
  { kr: '방탄소년단', en: 'BTS', debutYear: 2013, agency: BIGHIT, listed: HYBE },
  { kr: '블랙핑크', en: 'BLACKPINK', debutYear: 2016, agency: YG, listed: YG },
  { kr: '뉴진스', en: 'NewJeans', debutYear: 2022, agency: { kr: '어도어', en: 'ADOR' }, listed: HYBE },
  { kr: '에스파', en: 'aespa', debutYear: 2020, agency: { kr: 'SM엔터테인먼트', en: 'SM Entertainment' }, listed: SM },
  { kr: '세븐틴', en: 'SEVENTEEN', debutYear: 2015, agency: { kr: '플레디스엔터테인먼트', en: 'PLEDIS Entertainment' }, listed: HYBE },
  { kr: '스트레이 키즈', en: 'Stray Kids', debutYear: 2018, agency: JYP, listed: JYP },
  { kr: '아이브', en: 'IVE', debutYear: 2021, agency: { kr: '스타쉽엔터테인먼트', en: 'Starship Entertainment' }, listed: null },
  { kr: '르세라핌', en: 'LE SSERAFIM', debutYear: 2022, agency: { kr: '쏘스뮤직', en: 'SOURCE MUSIC' }, listed: HYBE },
  { kr: '트와이스', en: 'TWICE', debutYear: 2015, agency: JYP, listed: JYP },
  { kr: '엔하이픈', en: 'ENHYPEN', debutYear: 2020, agency: BELIFT, listed: HYBE },
  { kr: '투모로우바이투게더', en: 'TOMORROW X TOGETHER', debutYear: 2019, agency: BIGHIT, listed: HYBE },
  { kr: '베이비몬스터', en: 'BABYMONSTER', debutYear: 2024, agency: YG, listed: YG },
  { kr: '라이즈', en: 'RIIZE', debutYear: 2023, agency: { kr: 'SM엔터테인먼트', en: 'SM Entertainment' }, listed: SM },
  { kr: '아일릿', en: 'ILLIT', debutYear: 2024, agency: BELIFT, listed: HYBE },
];

const RELEASE_TITLES = [
  'Blue Horizon',
  'Midnight Signal',
  'Paper Moon',
  'Neon Bloom',
  'Afterglow',
  'Firefly',
  'Daydream',
  'Overdrive',
  'Wildflower',
  'Gravity',
];

const CITIES: readonly Named[] = [
  { kr: '서울', en: 'Seoul' },
  { kr: '도쿄', en: 'Tokyo' },
  { kr: '로스앤젤레스', en: 'Los Angeles' },
  { kr: '뉴욕', en: 'New York' },
  { kr: '방콕', en: 'Bangkok' },
  { kr: '런던', en: 'London' },
  { kr: '자카르타', en: 'Jakarta' },
  { kr: '타이베이', en: 'Taipei' },
];

const MUSIC_SHOWS: readonly Named[] = [
  { kr: '엠카운트다운', en: 'M Countdown' },
  { kr: '뮤직뱅크', en: 'Music Bank' },
  { kr: '쇼! 음악중심', en: 'Show! Music Core' },
  { kr: '인기가요', en: 'Inkigayo' },
  { kr: '쇼챔피언', en: 'Show Champion' },
];

const VARIETY_SHOWS: readonly Named[] = [
  { kr: '아는 형님', en: 'Knowing Bros' },
  { kr: '놀면 뭐하니?', en: 'How Do You Play?' },
  { kr: '런닝맨', en: 'Running Man' },
  { kr: '유 퀴즈 온 더 블럭', en: 'You Quiz on the Block' },
];

interface ChipMaker extends Named {
  /** Which KRX close series quotes it (Samsung Electronics, SK hynix), if listed in Korea. */
  krx: 'samsung' | 'hynix' | null;
  sites: readonly Named[];
}

const SAMSUNG: ChipMaker = {
  kr: '삼성전자',
  en: 'Samsung Electronics',
  krx: 'samsung',
  sites: [
    { kr: '평택', en: 'Pyeongtaek' },
    { kr: '용인', en: 'Yongin' },
    { kr: '미국 텍사스주 테일러', en: 'Taylor, Texas, in the US' },
  ],
};
const HYNIX: ChipMaker = {
  kr: 'SK하이닉스',
  en: 'SK hynix',
  krx: 'hynix',
  sites: [
    { kr: '이천', en: 'Icheon' },
    { kr: '청주', en: 'Cheongju' },
    { kr: '용인', en: 'Yongin' },
  ],
};
const MICRON: ChipMaker = { kr: '마이크론', en: 'Micron', krx: null, sites: [] };
const KOREAN_CHIP_MAKERS: readonly ChipMaker[] = [SAMSUNG, HYNIX];
const MEMORY_MAKERS: readonly ChipMaker[] = [SAMSUNG, HYNIX, MICRON];

const CHIP_CUSTOMERS: readonly Named[] = [
  { kr: '엔비디아', en: 'Nvidia' },
  { kr: '브로드컴', en: 'Broadcom' },
  { kr: '구글', en: 'Google' },
  { kr: 'AMD', en: 'AMD' },
  { kr: '마이크로소프트', en: 'Microsoft' },
];
const HBM_PRODUCTS = ['HBM3E', 'HBM4'];
const MEMORY_PRODUCTS = ['HBM4', 'LPDDR6', 'DDR5', 'GDDR7'];
const INVENTORY_PRODUCTS = ['DRAM', 'NAND', 'eSSD'];

const KPOP_OUTLETS: readonly Named[] = [
  { kr: '연합뉴스', en: 'Yonhap News Agency' },
  { kr: '스타뉴스', en: 'Star News' },
  { kr: '스포츠서울', en: 'Sports Seoul' },
  { kr: '뉴스엔', en: 'Newsen' },
  { kr: 'OSEN', en: 'OSEN' },
  { kr: '엑스포츠뉴스', en: 'Xportsnews' },
  { kr: '일간스포츠', en: 'Ilgan Sports' },
  { kr: '텐아시아', en: 'TenAsia' },
  { kr: '마이데일리', en: 'My Daily' },
];
const KPOP_OUTLET_WEIGHTS = [3, 3, 2, 2, 2, 2, 1, 1, 1];

const CHIP_OUTLETS: readonly Named[] = [
  { kr: '연합뉴스', en: 'Yonhap News Agency' },
  { kr: '전자신문', en: 'Electronic Times News' },
  { kr: '디일렉', en: 'The Elec' },
  { kr: '한국경제', en: 'The Korea Economic Daily' },
  { kr: '매일경제', en: 'Maeil Business Newspaper' },
  { kr: '지디넷코리아', en: 'ZDNet Korea' },
  { kr: '서울경제', en: 'Seoul Economic Daily' },
  { kr: '머니투데이', en: 'Money Today' },
  { kr: '이데일리', en: 'Edaily' },
  { kr: '조선비즈', en: 'Chosun Biz' },
  { kr: 'KIPOST', en: 'KIPOST' },
];
const CHIP_OUTLET_WEIGHTS = [3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 1];

// ------------------------------------------------------------------ templates

type Template = (rng: Rng, at: ArticleDay) => Draft | null;

/** The month before the article's month, with its year. */
function previousMonth(at: ArticleDay): { year: number; month: number } {
  return at.month === 1 ? { year: at.year - 1, month: 12 } : { year: at.year, month: at.month - 1 };
}

/** The quarter most recently ended before the article's date. */
function lastQuarter(at: ArticleDay): number {
  const quarter = Math.floor((at.month - 1) / 3);
  return quarter === 0 ? 4 : quarter;
}

const KPOP_TEMPLATES: readonly Template[] = [
  // Comeback announcement.
  (rng, at) => {
    const g = rng.pick(KPOP_GROUPS);
    const release = new Date(msOfDay(at.day) + rng.int(7, 30) * DAY_MS);
    const m = release.getUTCMonth() + 1;
    const d = release.getUTCDate();
    const album = rng.pick(RELEASE_TITLES);
    const tracks = rng.int(5, 8);
    return {
      key: `comeback:${g.en}`,
      tone: 'positive',
      titleKr: `${g.kr}, ${m}월 ${d}일 컴백 확정…새 미니앨범 '${album}' 발매`,
      bodyKr: `${withParticle(g.kr, '이/가')} 오는 ${m}월 ${d}일 새 미니앨범 '${album}' 발매와 함께 컴백한다. 소속사 ${withParticle(g.agency.kr, '은/는')} 공식 SNS를 통해 컴백 일정을 공개했다. 이번 앨범에는 타이틀곡을 포함해 총 ${tracks}곡이 수록된다.`,
      titleEn: `${g.en} confirms ${MONTHS[m - 1]} ${d} comeback with new mini album '${album}'`,
      bodyEn: `${g.en} will make a comeback on ${MONTHS[m - 1]} ${d} with the release of its new mini album '${album}'. Agency ${g.agency.en} revealed the comeback schedule through its official social media channels. The album contains a total of ${tracks} tracks, including the title track.`,
    };
  },
  // Billboard chart entry.
  (rng) => {
    const g = rng.pick(KPOP_GROUPS);
    const song = rng.pick(RELEASE_TITLES);
    const rank = rng.int(8, 60);
    return {
      key: `billboard:${g.en}`,
      tone: 'positive',
      titleKr: `${g.kr}, 빌보드 '핫 100' ${rank}위…자체 최고 기록`,
      bodyKr: `${g.kr}의 신곡 '${song}' 음원이 미국 빌보드 메인 싱글 차트 '핫 100'에 ${rank}위로 진입했다. 이는 그룹의 자체 최고 기록이다. 빌보드는 차트 예고 기사를 통해 이같이 밝혔다.`,
      titleEn: `${g.en} ranks No. ${rank} on Billboard Hot 100, its best-ever record`,
      bodyEn: `${g.en}'s new song '${song}' entered Billboard's main singles chart, the Hot 100, at No. ${rank}. This is the group's best-ever record. Billboard announced this in its chart preview article.`,
    };
  },
  // First-week album sales.
  (rng) => {
    const g = rng.pick(KPOP_GROUPS);
    const tenThousands = rng.int(30, 220);
    const growth = rng.int(5, 60);
    return {
      key: `sales:${g.en}`,
      tone: 'positive',
      titleKr: `${g.kr}, 새 앨범 초동 ${tenThousands}만 장 돌파…자체 최고`,
      bodyKr: `음반 판매량 집계 사이트 한터차트에 따르면 ${g.kr}의 새 앨범은 발매 첫 주 ${tenThousands}만 장 이상 판매됐다. 이는 전작보다 ${growth}% 늘어난 수치다.`,
      titleEn: `${g.en}'s new album tops ${withCommas(tenThousands * 10_000)} first-week sales, a personal best`,
      bodyEn: `According to Hanteo Chart, a site that tracks album sales, ${g.en}'s new album sold more than ${withCommas(tenThousands * 10_000)} copies in its first week of release. That is ${growth}% more than its previous album.`,
    };
  },
  // World tour.
  (rng) => {
    const g = rng.pick(KPOP_GROUPS);
    const cities = rng.int(12, 34);
    const city = rng.pick(CITIES);
    return {
      key: `tour:${g.en}`,
      tone: 'positive',
      titleKr: `${g.kr}, ${cities}개 도시 월드투어 개최…${city.kr}서 출발`,
      bodyKr: `${withParticle(g.kr, '이/가')} 내년 ${cities}개 도시를 도는 월드투어에 나선다. 소속사 ${g.agency.kr}에 따르면 이번 투어는 ${city.kr}에서 시작해 북미와 유럽, 아시아로 이어진다.`,
      titleEn: `${g.en} to hold world tour across ${cities} cities, starting in ${city.en}`,
      bodyEn: `${g.en} will embark on a world tour of ${cities} cities next year. According to agency ${g.agency.en}, the tour will begin in ${city.en} and continue through North America, Europe and Asia.`,
    };
  },
  // Music show wins.
  (rng) => {
    const g = rng.pick(KPOP_GROUPS);
    const wins = rng.int(2, 9);
    const show = rng.pick(MUSIC_SHOWS);
    return {
      key: `musicshow:${g.en}`,
      tone: 'positive',
      titleKr: `${g.kr}, 음악방송 ${wins}관왕 달성`,
      bodyKr: `${withParticle(g.kr, '이/가')} 신곡으로 음악방송 ${wins}관왕에 올랐다. ${withParticle(g.kr, '은/는')} 전날 방송된 '${show.kr}'에서 1위 트로피를 받았다.`,
      titleEn: `${g.en} wins ${wins} music show trophies`,
      bodyEn: `${g.en} has won ${wins} music show trophies with its new song. ${g.en} received the No. 1 trophy on '${show.en}', which aired the previous day.`,
    };
  },
  // Music video views.
  (rng) => {
    const g = rng.pick(KPOP_GROUPS);
    const hours = rng.int(12, 48);
    const tenMillions = rng.int(2, 6);
    return {
      key: `views:${g.en}`,
      tone: 'positive',
      titleKr: `${g.kr} 신곡 뮤직비디오, 공개 ${hours}시간 만에 조회수 ${tenMillions}천만 회 돌파`,
      bodyKr: `${g.kr}의 신곡 뮤직비디오가 유튜브 공개 ${hours}시간 만에 조회수 ${tenMillions}천만 회를 넘어섰다. 이는 올해 K팝 그룹 가운데 가장 빠른 속도다.`,
      titleEn: `${g.en}'s new music video surpasses ${tenMillions * 10} million views ${hours} hours after release`,
      bodyEn: `The music video for ${g.en}'s new song surpassed ${tenMillions * 10} million YouTube views ${hours} hours after its release. It is the fastest pace among K-pop groups this year.`,
    };
  },
  // Agency shares fall.
  (rng) => {
    const g = rng.pick(KPOP_GROUPS);
    if (!g.listed) return null;
    const drop = percent(rng, 4, 12);
    return {
      key: `agency-shares:${g.listed.en}`,
      tone: 'negative',
      titleKr: `${g.listed.kr} 주가 ${drop}% 급락…${g.kr} 활동 공백 우려`,
      bodyKr: `${g.listed.kr} 주가가 전 거래일 대비 ${drop}% 내린 채 거래를 마쳤다. 소속 그룹 ${g.kr}의 활동 공백이 길어질 수 있다는 우려가 투자 심리를 위축시켰다는 분석이 나온다.`,
      titleEn: `${g.listed.en} shares plunge ${drop}% on concerns over ${g.en}'s hiatus`,
      bodyEn: `${g.listed.en} shares closed down ${drop}% from the previous trading day. Analysts say concerns that the hiatus of its group ${g.en} could be prolonged dampened investor sentiment.`,
    };
  },
  // Concert postponed.
  (rng) => {
    const g = rng.pick(KPOP_GROUPS);
    const city = rng.pick(CITIES);
    return {
      key: `postponed:${g.en}`,
      tone: 'negative',
      titleKr: `${g.kr}, ${city.kr} 공연 연기…"관객 안전 최우선"`,
      bodyKr: `${g.kr}의 ${city.kr} 공연이 연기됐다. 소속사 ${withParticle(g.agency.kr, '은/는')} 공식 입장을 통해 "관객 안전을 최우선으로 고려해 내린 결정"이라며 "팬 여러분의 너그러운 양해를 부탁드린다"고 밝혔다.`,
      titleEn: `${g.en} postpones ${city.en} concert, saying "audience safety comes first"`,
      bodyEn: `${g.en}'s concert in ${city.en} has been postponed. Agency ${g.agency.en} said in an official statement that it was "a decision made with the safety of the audience as the top priority" and added, "We ask for our fans' generous understanding."`,
    };
  },
  // Contract dispute.
  (rng) => {
    const g = rng.pick(KPOP_GROUPS);
    return {
      key: `dispute:${g.en}`,
      tone: 'negative',
      titleKr: `${g.agency.kr}-${g.kr} 전속계약 분쟁 장기화`,
      bodyKr: `${withParticle(g.agency.kr, '과/와')} ${g.kr} 사이의 전속계약 분쟁이 장기화되고 있다. 법원은 다음 달 추가 심문 기일을 열 예정이다.`,
      titleEn: `Exclusive contract dispute between ${g.agency.en} and ${g.en} drags on`,
      bodyEn: `The exclusive contract dispute between ${g.agency.en} and ${g.en} is dragging on. The court plans to hold an additional hearing next month.`,
    };
  },
  // Member on health break.
  (rng) => {
    const g = rng.pick(KPOP_GROUPS);
    return {
      key: `health:${g.en}`,
      tone: 'negative',
      titleKr: `${g.kr} 멤버 1명, 건강 문제로 활동 잠정 중단`,
      bodyKr: `소속사 ${withParticle(g.agency.kr, '은/는')} ${g.kr} 멤버 1명이 건강상의 이유로 당분간 활동을 중단한다고 밝혔다. 나머지 멤버들은 예정된 일정을 소화할 예정이다.`,
      titleEn: `1 member of ${g.en} suspends activities due to health issues`,
      bodyEn: `Agency ${g.agency.en} said 1 member of ${g.en} will suspend activities for the time being for health reasons. The remaining members will carry out their scheduled activities.`,
    };
  },
  // Agency quarterly results.
  (rng, at) => {
    const listed = rng.pick([HYBE, SM, JYP, YG]);
    const quarter = lastQuarter(at);
    const profit = rng.int(60, 900);
    const sales = profit * rng.int(6, 12);
    const up = rng.chance(0.55);
    const change = rng.int(3, 70);
    return {
      key: `agency-earnings:${listed.en}`,
      tone: up ? 'positive' : 'negative',
      titleKr: `${listed.kr}, ${quarter}분기 영업이익 ${eokWonKr(profit)}…전년 대비 ${change}% ${up ? '증가' : '감소'}`,
      bodyKr: `${withParticle(listed.kr, '은/는')} 연결 기준 ${quarter}분기 영업이익이 ${eokWonKr(profit)}으로 집계됐다고 공시했다. 매출은 ${eokWonKr(sales)}을 기록했다.`,
      titleEn: `${listed.en} posts Q${quarter} operating profit of ${eokWonEn(profit)}, ${up ? 'up' : 'down'} ${change}% on-year`,
      bodyEn: `${listed.en} disclosed that its consolidated operating profit for the ${ordinal(quarter)} quarter came to ${eokWonEn(profit)}. Revenue came to ${eokWonEn(sales)}.`,
    };
  },
  // Fan meeting.
  (rng, at) => {
    const g = rng.pick(KPOP_GROUPS);
    const years = at.year - g.debutYear;
    if (years < 1) return null;
    return {
      key: `fanmeeting:${g.en}`,
      tone: 'neutral',
      titleKr: `${g.kr}, 데뷔 ${years}주년 기념 팬미팅 개최`,
      bodyKr: `${withParticle(g.kr, '이/가')} 데뷔 ${years}주년을 맞아 서울에서 팬미팅을 연다. 티켓 예매는 다음 주 시작된다.`,
      titleEn: `${g.en} to hold fan meeting marking ${ordinal(years)} debut anniversary`,
      bodyEn: `${g.en} will hold a fan meeting in Seoul to mark the ${ordinal(years)} anniversary of its debut. Ticket sales will open next week.`,
    };
  },
  // Concept photos.
  (rng) => {
    const g = rng.pick(KPOP_GROUPS);
    return {
      key: `concept:${g.en}`,
      tone: 'neutral',
      titleKr: `${g.kr}, 새 앨범 콘셉트 사진 공개`,
      bodyKr: `${withParticle(g.kr, '이/가')} 공식 SNS에 새 앨범의 콘셉트 사진을 공개했다. 새 앨범은 다음 달 발매될 예정이다.`,
      titleEn: `${g.en} unveils concept photos for new album`,
      bodyEn: `${g.en} released concept photos for its new album on its official social media. The new album is scheduled for release next month.`,
    };
  },
  // Variety show appearance.
  (rng) => {
    const g = rng.pick(KPOP_GROUPS);
    const show = rng.pick(VARIETY_SHOWS);
    return {
      key: `variety:${g.en}`,
      tone: 'neutral',
      titleKr: `${g.kr}, 예능 '${show.kr}' 출연 확정`,
      bodyKr: `${withParticle(g.kr, '이/가')} 인기 예능 프로그램 '${show.kr}'에 출연한다. 방송은 이번 주말 전파를 탈 예정이다.`,
      titleEn: `${g.en} confirmed to appear on variety show '${show.en}'`,
      bodyEn: `${g.en} will appear on the popular variety program '${show.en}'. The episode is scheduled to air this weekend.`,
    };
  },
];

const SEMICONDUCTOR_TEMPLATES: readonly Template[] = [
  // Monthly chip exports: one figure per month in a world, whichever day quotes it.
  (_rng, at) => {
    const { year, month } = previousMonth(at);
    const stats = Rng.stream(at.seed, `korea:news:chip-exports:${year}-${month}`);
    const exportsEok = stats.int(130, 260);
    const up = stats.chance(0.7);
    const change = percent(stats, 2, up ? 45 : 15);
    return {
      key: 'exports',
      tone: up ? 'positive' : 'negative',
      titleKr: `${month}월 반도체 수출 ${exportsEok}억 달러…전년 대비 ${change}% ${up ? '증가' : '감소'}`,
      bodyKr: `산업통상자원부에 따르면 ${month}월 반도체 수출액은 ${exportsEok}억 달러로 전년 같은 달보다 ${change}% ${up ? '증가했다' : '감소했다'}. ${up ? 'HBM 등 고부가 메모리 수요가 수출 증가를 이끌었다.' : '메모리 가격 하락이 수출 감소로 이어졌다.'}`,
      titleEn: `Chip exports ${up ? 'rise' : 'fall'} ${change}% on-year to $${decimalText(exportsEok / 10)} billion in ${MONTHS[month - 1]}`,
      bodyEn: `According to the Ministry of Trade, Industry and Energy, semiconductor exports in ${MONTHS[month - 1]} came to $${decimalText(exportsEok / 10)} billion, ${up ? 'up' : 'down'} ${change}% from the same month a year earlier. ${up ? 'Demand for high-value memory such as HBM drove the increase in exports.' : 'Falling memory prices led to the decline in exports.'}`,
    };
  },
  // Previous session's close, quoted from the world's own KRX series.
  (rng, at) => {
    const maker = rng.pick(KOREAN_CHIP_MAKERS);
    const session = previousKrxSession(at.day);
    const before = previousKrxSession(session);
    const closes = maker.krx === 'hynix' ? at.macro.hynixClose : at.macro.samsungClose;
    const foreign = maker.krx === 'hynix' ? at.macro.hynixForeignPct : at.macro.samsungForeignPct;
    const close = krxRound(closes[session]!);
    const previous = krxRound(closes[before]!);
    const change = oneDecimal(Math.abs((close / previous - 1) * 100));
    const foreignPct = (Math.round(foreign[session]! * 100) / 100).toFixed(2);
    const key = `stock:${maker.en}`;
    if (change === 0) {
      return {
        key,
        tone: 'neutral',
        titleKr: `${maker.kr} 주가 보합…${withCommas(close)}원 마감`,
        bodyKr: `${maker.kr} 주가가 전 거래일과 같은 ${withCommas(close)}원에 거래를 마쳤다. 외국인 지분율은 ${foreignPct}%로 집계됐다.`,
        titleEn: `${maker.en} shares close flat at ${withCommas(close)} won`,
        bodyEn: `${maker.en} shares closed unchanged from the previous trading day at ${withCommas(close)} won. Foreign ownership stood at ${foreignPct}%.`,
      };
    }
    const up = close > previous;
    return {
      key,
      tone: up ? 'positive' : 'negative',
      titleKr: `${maker.kr} 주가 ${change}% ${up ? '상승' : '하락'}…${withCommas(close)}원 마감`,
      bodyKr: `${maker.kr} 주가가 전 거래일 대비 ${change}% ${up ? '오른' : '내린'} ${withCommas(close)}원에 거래를 마쳤다. 외국인 지분율은 ${foreignPct}%로 집계됐다.`,
      titleEn: `${maker.en} shares close ${up ? 'up' : 'down'} ${change}% at ${withCommas(close)} won`,
      bodyEn: `${maker.en} shares closed at ${withCommas(close)} won, ${up ? 'up' : 'down'} ${change}% from the previous trading day. Foreign ownership stood at ${foreignPct}%.`,
    };
  },
  // HBM supply deal.
  (rng) => {
    const maker = rng.pick(KOREAN_CHIP_MAKERS);
    const customer = rng.pick(CHIP_CUSTOMERS);
    const product = rng.pick(HBM_PRODUCTS);
    return {
      key: `supply:${maker.en}`,
      tone: 'positive',
      titleKr: `${maker.kr}, ${customer.kr}에 ${product} 공급 확대`,
      bodyKr: `${withParticle(maker.kr, '이/가')} ${customer.kr}에 공급하는 ${product} 물량을 늘린다. 업계에 따르면 양사는 최근 내년도 공급 계약을 마무리했다.`,
      titleEn: `${maker.en} to expand ${product} supply to ${customer.en}`,
      bodyEn: `${maker.en} will increase the volume of ${product} it supplies to ${customer.en}. According to the industry, the two companies recently finalized a supply contract for next year.`,
    };
  },
  // New fab line.
  (rng, at) => {
    const maker = rng.pick(KOREAN_CHIP_MAKERS);
    const site = rng.pick(maker.sites);
    const trillions = rng.int(5, 30);
    const startYear = at.year + rng.int(1, 3);
    return {
      key: `investment:${maker.en}`,
      tone: 'positive',
      titleKr: `${maker.kr}, ${site.kr}에 ${trillions}조 원 규모 신규 라인 투자`,
      bodyKr: `${withParticle(maker.kr, '이/가')} ${site.kr}에 ${trillions}조 원을 투자해 신규 생산라인을 구축한다. 회사 측은 ${startYear}년 가동을 목표로 하고 있다고 밝혔다.`,
      titleEn: `${maker.en} to invest ${trillions} trillion won in new production line in ${site.en}`,
      bodyEn: `${maker.en} will invest ${trillions} trillion won to build a new production line in ${site.en}. The company said it aims to start operations in ${startYear}.`,
    };
  },
  // Government subsidies.
  (rng) => {
    const trillions = rng.int(3, 33);
    return {
      key: 'subsidy',
      tone: 'positive',
      titleKr: `정부, ${trillions}조 원 규모 반도체 보조금 지원 방안 발표`,
      bodyKr: `정부가 반도체 산업 경쟁력 강화를 위해 총 ${trillions}조 원 규모의 보조금 지원 방안을 발표했다. 지원 대상에는 소재·부품·장비 기업도 포함된다.`,
      titleEn: `Government announces ${trillions} trillion won semiconductor subsidy package`,
      bodyEn: `The government announced a subsidy package worth a total of ${trillions} trillion won to strengthen the competitiveness of the semiconductor industry. Materials, parts and equipment companies are also eligible for support.`,
    };
  },
  // Memory contract prices: one figure per month and product in a world.
  (rng, at) => {
    const dram = rng.chance(0.5);
    const stats = Rng.stream(at.seed, `korea:news:contract-price:${dram ? 'dram' : 'nand'}:${at.year}-${at.month}`);
    const up = stats.chance(0.6);
    const change = percent(stats, 1, up ? 25 : 12);
    const productKr = dram ? 'DRAM' : 'NAND 플래시';
    const productEn = dram ? 'DRAM' : 'NAND flash';
    return {
      key: `contract-price:${productEn}`,
      tone: up ? 'positive' : 'negative',
      titleKr: `${at.month}월 ${productKr} 고정거래가격 ${change}% ${up ? '상승' : '하락'}`,
      bodyKr: `시장조사업체 트렌드포스에 따르면 ${at.month}월 ${dram ? 'PC용 DRAM' : 'NAND 플래시'} 범용제품의 고정거래가격은 전월 대비 ${change}% ${up ? '올랐다' : '내렸다'}. ${up ? '인공지능(AI) 서버 수요가 가격 상승을 뒷받침했다.' : 'PC와 스마트폰 수요 부진이 가격을 끌어내렸다.'}`,
      titleEn: `${productEn} fixed contract prices ${up ? 'rise' : 'fall'} ${change}% in ${MONTHS[at.month - 1]}`,
      bodyEn: `According to market researcher TrendForce, fixed contract prices for general-purpose ${dram ? 'PC DRAM' : 'NAND flash'} products ${up ? 'rose' : 'fell'} ${change}% in ${MONTHS[at.month - 1]} from the previous month. ${up ? 'Demand for artificial intelligence (AI) servers supported the price increase.' : 'Weak demand for PCs and smartphones pulled prices down.'}`,
    };
  },
  // Foundry market share.
  (rng) => {
    const tsmc = percent(rng, 64, 72);
    const samsung = percent(rng, 7, 12);
    return {
      key: 'foundry',
      tone: 'neutral',
      titleKr: `삼성전자 파운드리, 2나노 고객 확보 속도…TSMC와 격차는 여전`,
      bodyKr: `삼성전자 파운드리 사업부가 2나노 공정 고객 확보에 속도를 내고 있다. 시장조사업체 트렌드포스에 따르면 파운드리 시장 점유율은 TSMC가 ${tsmc}%, 삼성전자가 ${samsung}%다.`,
      titleEn: `Samsung Electronics' foundry speeds up 2nm customer wins, but gap with TSMC remains`,
      bodyEn: `Samsung Electronics' foundry division is speeding up efforts to win customers for its 2-nanometer process. According to market researcher TrendForce, TSMC holds ${tsmc}% of the foundry market and Samsung Electronics ${samsung}%.`,
    };
  },
  // Quarterly earnings against forecasts.
  (rng, at) => {
    const maker = rng.pick(KOREAN_CHIP_MAKERS);
    const quarter = lastQuarter(at);
    const profit = rng.int(50, 250) * 1000;
    const beat = rng.chance(0.6);
    return {
      key: `earnings:${maker.en}`,
      tone: beat ? 'positive' : 'negative',
      titleKr: `${maker.kr}, ${quarter}분기 영업이익 ${eokWonKr(profit)}…시장 전망 ${beat ? '상회' : '하회'}`,
      bodyKr: `${withParticle(maker.kr, '은/는')} ${quarter}분기 연결 기준 영업이익이 ${eokWonKr(profit)}으로 잠정 집계됐다고 밝혔다. 이는 증권가 평균 전망치를 ${beat ? '상회하는' : '하회하는'} 수준이다.`,
      titleEn: `${maker.en} posts Q${quarter} operating profit of ${eokWonEn(profit)}, ${beat ? 'beating' : 'missing'} market forecasts`,
      bodyEn: `${maker.en} said its preliminary consolidated operating profit for the ${ordinal(quarter)} quarter came to ${eokWonEn(profit)}. The figure is ${beat ? 'above' : 'below'} the average forecast of securities firms.`,
    };
  },
  // HBM4 qualification.
  (rng) => {
    const maker = rng.pick(MEMORY_MAKERS);
    return {
      key: `qualification:${maker.en}`,
      tone: 'positive',
      titleKr: `${maker.kr}, 엔비디아 HBM4 품질 테스트 통과`,
      bodyKr: `${withParticle(maker.kr, '이/가')} 엔비디아의 HBM4 품질 테스트를 통과한 것으로 알려졌다. 업계에서는 이르면 다음 분기부터 본격적인 양산 공급이 시작될 것으로 보고 있다.`,
      titleEn: `${maker.en} passes Nvidia's HBM4 quality test`,
      bodyEn: `${maker.en} has reportedly passed Nvidia's HBM4 quality test. The industry expects full-scale mass-production supply to begin as early as next quarter.`,
    };
  },
  // US export controls.
  (rng) => {
    const maker = rng.pick(KOREAN_CHIP_MAKERS);
    return {
      key: 'export-controls',
      tone: 'negative',
      titleKr: `미국, 대중 반도체 장비 수출 통제 강화…국내 업계 긴장`,
      bodyKr: `미국 상무부가 중국을 대상으로 한 반도체 장비 수출 통제를 강화했다. ${withParticle(maker.kr, '은/는')} 중국 현지 공장 운영에 미칠 영향을 점검하고 있다.`,
      titleEn: `US tightens chip equipment export controls on China, putting domestic industry on edge`,
      bodyEn: `The US Department of Commerce has tightened export controls on semiconductor equipment bound for China. ${maker.en} is reviewing the impact on the operation of its plants in China.`,
    };
  },
  // Inventory build-up.
  (rng) => {
    const product = rng.pick(INVENTORY_PRODUCTS);
    const weeks = rng.int(8, 20);
    return {
      key: `inventory:${product}`,
      tone: 'negative',
      titleKr: `${product} 재고 ${weeks}주 수준으로 증가…가격 하락 우려`,
      bodyKr: `업계에 따르면 ${product} 재고가 ${weeks}주 수준으로 늘었다. 일부 고객사가 주문을 줄이면서 하반기 가격 하락 가능성이 제기된다.`,
      titleEn: `${product} inventories rise to about ${weeks} weeks, raising concerns over falling prices`,
      bodyEn: `According to the industry, ${product} inventories have risen to about ${weeks} weeks' worth. As some customers cut orders, the possibility of a price decline in the second half is being raised.`,
    };
  },
  // Equipment order.
  (rng) => {
    const maker = rng.pick(MEMORY_MAKERS);
    const amount = rng.int(2, 15) * 100;
    const months = rng.int(6, 18);
    return {
      key: `equipment:${maker.en}`,
      tone: 'positive',
      titleKr: `한미반도체, ${withParticle(maker.kr, '과/와')} ${eokWonKr(amount)} 규모 TC 본더 공급 계약`,
      bodyKr: `한미반도체가 ${withParticle(maker.kr, '과/와')} ${eokWonKr(amount)} 규모의 HBM용 TC 본더 공급 계약을 체결했다고 공시했다. 계약 기간은 ${months}개월이다.`,
      titleEn: `Hanmi Semiconductor signs ${eokWonEn(amount)} TC bonder supply deal with ${maker.en}`,
      bodyEn: `Hanmi Semiconductor disclosed that it signed a ${eokWonEn(amount)} contract with ${maker.en} to supply TC bonders for HBM. The contract period is ${months} months.`,
    };
  },
  // Technology unveiled at a conference.
  (rng) => {
    const maker = rng.pick(KOREAN_CHIP_MAKERS);
    const product = rng.pick(MEMORY_PRODUCTS);
    const efficiency = rng.int(10, 40);
    return {
      key: `tech:${maker.en}`,
      tone: 'neutral',
      titleKr: `${maker.kr}, 美 학회서 차세대 ${product} 기술 공개`,
      bodyKr: `${withParticle(maker.kr, '이/가')} 미국 캘리포니아에서 열린 반도체 학회에서 차세대 ${product} 기술을 공개했다. 회사는 이전 세대 대비 전력 효율을 ${efficiency}% 개선했다고 설명했다.`,
      titleEn: `${maker.en} unveils next-generation ${product} technology at US conference`,
      bodyEn: `${maker.en} unveiled its next-generation ${product} technology at a semiconductor conference held in California in the US. The company said it improved power efficiency by ${efficiency}% compared with the previous generation.`,
    };
  },
  // Nvidia results move Korean chip stocks.
  (rng) => {
    const strong = rng.chance(0.6);
    return {
      key: 'nvidia-results',
      tone: strong ? 'positive' : 'negative',
      titleKr: `엔비디아 실적 ${strong ? '호조' : '부진'}에 국내 반도체주 ${strong ? '강세' : '약세'}`,
      bodyKr: `엔비디아가 시장 예상을 ${strong ? '웃도는' : '밑도는'} 분기 실적을 발표하면서 삼성전자와 SK하이닉스 등 국내 반도체주가 ${strong ? '강세' : '약세'}를 보였다.`,
      titleEn: `Korean chip stocks ${strong ? 'rise' : 'fall'} after Nvidia's ${strong ? 'strong' : 'weak'} earnings`,
      bodyEn: `Domestic chip stocks including Samsung Electronics and SK hynix were ${strong ? 'strong' : 'weak'} after Nvidia reported quarterly results ${strong ? 'above' : 'below'} market expectations.`,
    };
  },
];

// ------------------------------------------------------------------ the day's articles

const TOPICS: readonly NewsTopic[] = ['kpop', 'semiconductor', 'crypto'];

export interface DayOptions {
  /** The world as koreaWorld shows it: crypto stories read their numbers from it (required for 'crypto'). */
  world?: NewsWorld;
  /** Write only the articles whose publication minute has begun by then; the later ones may read a world not simulated yet. */
  untilMs?: number;
}

/**
 * Articles of one topic published on one KST day, in publication order: all of them, or those
 * whose minute has begun by `options.untilMs` (the same articles, a shorter list).
 */
export function articlesOfDay(
  seed: number,
  topic: NewsTopic,
  kstDay: number,
  macro: MacroHistory,
  options: DayOptions = {},
): NewsArticle[] {
  const dateIso = isoDateOfDay(kstDay);
  const [year, month, date] = dateIso.split('-').map(Number) as [number, number, number];
  const at: ArticleDay = { seed, day: kstDay, year, month, date, macro };
  const rng = Rng.stream(seed, `korea:news:${topic}:${dateIso}`);
  const untilMs = options.untilMs ?? Infinity;
  let write: (publishedMinute: number, used: ReadonlySet<string>) => Draft | null;
  let outlets: readonly Named[];
  let outletWeights: readonly number[];
  let count: number;
  if (topic === 'crypto') {
    if (!options.world) throw new Error('articlesOfDay: crypto news reads the world; pass options.world');
    const desk = cryptoDay(at, options.world);
    write = (publishedMinute, used) => rng.weighted(CRYPTO_TEMPLATES, CRYPTO_TEMPLATE_WEIGHTS)(rng, desk, publishedMinute, used);
    [outlets, outletWeights, count] = [CRYPTO_OUTLETS, CRYPTO_OUTLET_WEIGHTS, rng.int(10, 16)];
  } else {
    const templates = topic === 'kpop' ? KPOP_TEMPLATES : SEMICONDUCTOR_TEMPLATES;
    write = () => rng.pick(templates)(rng, at);
    outlets = topic === 'kpop' ? KPOP_OUTLETS : CHIP_OUTLETS;
    outletWeights = topic === 'kpop' ? KPOP_OUTLET_WEIGHTS : CHIP_OUTLET_WEIGHTS;
    count = rng.int(8, 15);
  }
  // Newsroom hours: 06:00 to 23:30 KST.
  const minutes = Array.from({ length: count }, () => rng.int(6 * 60, 23 * 60 + 30)).sort((a, b) => a - b);
  const dayStartMs = msOfDay(kstDay) - KST_OFFSET_MS;
  const used = new Set<string>();
  const articles: NewsArticle[] = [];
  const compactDate = dateIso.replaceAll('-', '');
  for (let i = 0; i < count; i++) {
    const minuteMs = dayStartMs + minutes[i]! * MINUTE_MS;
    if (minuteMs > untilMs) break;
    let draft: Draft | null = null;
    for (let attempt = 0; attempt < 8 && draft === null; attempt++) {
      const candidate = write(minuteIndexOf(minuteMs), used);
      if (candidate && !used.has(candidate.key)) draft = candidate;
    }
    if (draft === null) continue;
    used.add(draft.key);
    const outlet = rng.weighted(outlets, outletWeights);
    const seconds = rng.int(0, 59);
    const number = String(articles.length + 1).padStart(2, '0');
    articles.push({
      articleId: `demo-${topic}-${compactDate}-${number}`,
      topic,
      publishedAt: new Date(minuteMs + seconds * 1000),
      url: `https://demo.invalid/news/${topic}/${compactDate}/${number}`,
      sourceKr: outlet.kr,
      sourceEn: outlet.en,
      titleKr: draft.titleKr,
      bodyKr: draft.bodyKr,
      titleEn: draft.titleEn,
      bodyEn: draft.bodyEn,
      tone: draft.tone,
      mentions: draft.mentions ?? [],
    });
  }
  return articles;
}

// A day that is over never changes: its articles are kept for the next call (npm start re-runs the
// world every minute), a few days' worth.
const FINISHED_DAYS = new Map<string, readonly NewsArticle[]>();
const FINISHED_DAYS_KEPT = 12;

/** Articles of every topic of the last three KST days (today included) published at or before `nowMs`. */
export function recentArticles(seed: number, nowMs: number, macro: MacroHistory, world: NewsWorld): NewsArticle[] {
  const today = kstDayIndexOf(nowMs);
  const articles: NewsArticle[] = [];
  for (let day = today - 2; day <= today; day++) {
    const finished = msOfDay(day + 1) - KST_OFFSET_MS <= nowMs;
    for (const topic of TOPICS) {
      const key = `${seed}:${topic}:${day}`;
      let ofDay = finished ? FINISHED_DAYS.get(key) : undefined;
      if (!ofDay) {
        ofDay = articlesOfDay(seed, topic, day, macro, { world, untilMs: nowMs });
        if (finished) {
          FINISHED_DAYS.set(key, ofDay);
          if (FINISHED_DAYS.size > FINISHED_DAYS_KEPT) FINISHED_DAYS.delete(FINISHED_DAYS.keys().next().value!);
        }
      }
      articles.push(...ofDay.filter((a) => a.publishedAt.getTime() <= nowMs));
    }
  }
  return articles.sort(
    (a, b) => a.publishedAt.getTime() - b.publishedAt.getTime() || (a.articleId < b.articleId ? -1 : a.articleId > b.articleId ? 1 : 0),
  );
}
