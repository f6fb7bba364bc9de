/**
 * Korean crypto-market news of the korea demo world, as 코인데스크코리아, 블록미디어, 디센터,
 * 토큰포스트 and the general wires write it. Most stories report the world itself, with its own
 * numbers: the headline surges, crashes and volume spikes (the candle's prices and trading value,
 * published after the candle closed), new listings, relistings and delistings on Upbit and Bithumb
 * (announced before they happen), investment warnings designated and lifted, the BTC kimchi
 * premium and the USDT premium at the minute of publication. The rest is general market news
 * (ETF flows, regulation, the industry) with seeded figures.
 */

import type { Rng } from '../random.ts';
import { DAY_MS, HOUR_MS, KST_OFFSET_MS, MINUTE_MS, msOfDay, msOfMinute } from './calendar.ts';
import type { ListingCalendar, ListingChange, WarningEpisode } from './listings.ts';
import type { MarketShock } from './prices.ts';
import { KOREA_TOKEN_BY_SYMBOL, type KoreaExchange, type KoreaToken } from './tokens.ts';
import {
  MONTHS,
  eokWonEn,
  eokWonKr,
  krwAmount,
  krwPrice,
  kstClock,
  oneDecimal,
  ordinal,
  percentText,
  usdMillions,
  usdWhole,
  withCommas,
  withParticle,
  type ArticleDay,
  type Draft,
  type Named,
} from './news-writing.ts';

// ------------------------------------------------------------------ what the newsroom reads

export interface MarketCandle {
  minute: number;
  openKrw: number;
  closeKrw: number;
  volumeKrw: number;
}

/** One market as koreaWorld at `now` = the end of a span shows it. */
export interface MarketView {
  /** Candles of the span's minutes that saw a trade. */
  candles: readonly MarketCandle[];
  /** The ticker's last price. */
  priceKrw: number;
  /** The global USD price and USD/KRW at the end of the span. */
  globalUsd: number | null;
  usdKrw: number;
}

/** What the crypto newsroom reads of the world: one per run, so its reads share calendars and draws. */
export interface NewsWorld {
  /** A listing calendar that covers [fromMs, toMs]. */
  calendar(fromMs: number, toMs: number): ListingCalendar;
  /** Headline shocks (marketShocks) whose minute lies in [fromMinute, toMinute). */
  headlineShocks(fromMinute: number, toMinute: number): MarketShock[];
  /** One market over minutes [fromMinute, toMinute) as koreaWorld at toMinute shows it; null when it is not listed then. */
  market(exchange: KoreaExchange, symbol: string, fromMinute: number, toMinute: number): MarketView | null;
}

/** A KST day of crypto news with the world around it. */
export interface CryptoDay extends ArticleDay {
  market: NewsWorld['market'];
  calendar: ListingCalendar;
  /** Headline shocks whose minute lies in [fromMinute, toMinute). */
  shocks: NewsWorld['headlineShocks'];
  /** Listing changes from the day's start to ANNOUNCE_AHEAD after its end. */
  changes: readonly ListingChange[];
  /** Warnings designated or ended from REPORT_WINDOW before the day to its end. */
  warnings: readonly WarningEpisode[];
}

/** A crypto story published at minute index `minute`; `used` holds the keys already written that day. */
type CryptoTemplate = (rng: Rng, at: CryptoDay, minute: number, used: ReadonlySet<string>) => Draft | null;

/** Events are reported up to 3 hours after they happen, at least 2 minutes after (the candle has closed). */
const REPORT_WINDOW_MINUTES = 180;
const REPORT_DELAY_MINUTES = 2;
/** Listings and delistings are announced 10 minutes to 8 hours ahead. */
const ANNOUNCE_MIN_MS = 10 * MINUTE_MS;
const ANNOUNCE_AHEAD_MS = 8 * HOUR_MS;

export function cryptoDay(at: ArticleDay, world: NewsWorld): CryptoDay {
  const dayStart = msOfDay(at.day) - KST_OFFSET_MS;
  const dayEnd = dayStart + DAY_MS;
  const reportFrom = dayStart - REPORT_WINDOW_MINUTES * MINUTE_MS;
  const calendar = world.calendar(reportFrom - HOUR_MS, dayEnd + ANNOUNCE_AHEAD_MS + HOUR_MS);
  return {
    ...at,
    market: world.market,
    calendar,
    shocks: world.headlineShocks,
    changes: calendar.changesBetween(dayStart, dayEnd + ANNOUNCE_AHEAD_MS),
    warnings: calendar.warningsBetween(reportFrom, dayEnd),
  };
}

// ------------------------------------------------------------------ names

const EXCHANGE: Readonly<Record<KoreaExchange, Named>> = {
  upbit: { kr: '업비트', en: 'Upbit' },
  bithumb: { kr: '빗썸', en: 'Bithumb' },
};
// Upbit designates 유의 종목, Bithumb 투자유의 종목; both are the investment warning of the datasets.
const WARNING: Readonly<Record<KoreaExchange, Named>> = {
  upbit: { kr: '유의 종목', en: 'an investment warning asset' },
  bithumb: { kr: '투자유의 종목', en: 'an investment warning asset' },
};

/** 솔라나(SOL) / Solana (SOL); a token named by its ticker in English is written once (BNB). */
const coin = (token: KoreaToken): Named => ({
  kr: `${token.koreanName}(${token.symbol})`,
  en: token.englishName === token.symbol ? token.symbol : `${token.englishName} (${token.symbol})`,
});
const other = (exchange: KoreaExchange): KoreaExchange => (exchange === 'upbit' ? 'bithumb' : 'upbit');

/** '24일 오후 2시 32분' / '2:32 p.m. on the 24th'. */
function when(ms: number): Named {
  const { date, clock } = kstClock(ms);
  return { kr: `${date}일 ${clock.kr}`, en: `${clock.en} on the ${ordinal(date)}` };
}

/** '11월 24일 오후 2시' / '2 p.m. on November 24': for dates that may lie in another month. */
function whenWithMonth(ms: number): Named {
  const { month, date, clock } = kstClock(ms);
  return { kr: `${month}월 ${date}일 ${clock.kr}`, en: `${clock.en} on ${MONTHS[month - 1]} ${date}` };
}

export const CRYPTO_OUTLETS: readonly Named[] = [
  { kr: '코인데스크코리아', en: 'CoinDesk Korea' },
  { kr: '블록미디어', en: 'Blockmedia' },
  { kr: '디센터', en: 'Decenter' },
  { kr: '토큰포스트', en: 'TokenPost' },
  { kr: '연합뉴스', en: 'Yonhap News Agency' },
  { kr: '뉴스1', en: 'News1' },
  { kr: '이데일리', en: 'Edaily' },
  { kr: '한국경제', en: 'The Korea Economic Daily' },
  { kr: '디지털애셋', en: 'Digital Asset' },
  { kr: '파이낸셜뉴스', en: 'The Financial News' },
];
export const CRYPTO_OUTLET_WEIGHTS = [3, 3, 2, 2, 3, 1, 1, 1, 1, 1];

// ------------------------------------------------------------------ stories the world tells

/** Headline shocks of one kind reported at `minute`, not yet written about today. */
function recentShocks(at: CryptoDay, minute: number, kind: MarketShock['kind'], used: ReadonlySet<string>): MarketShock[] {
  return at
    .shocks(minute - REPORT_WINDOW_MINUTES, minute - REPORT_DELAY_MINUTES + 1)
    .filter((s) => s.kind === kind && !used.has(`market:${s.symbol}`));
}

/** The day's listing changes announced at `minute`: 10 minutes to 8 hours ahead. */
function upcomingChanges(at: CryptoDay, minute: number, used: ReadonlySet<string>, pick: (c: ListingChange) => boolean): ListingChange[] {
  const nowMs = msOfMinute(minute);
  return at.changes.filter(
    (c) =>
      c.atMs >= nowMs + ANNOUNCE_MIN_MS &&
      c.atMs <= nowMs + ANNOUNCE_AHEAD_MS &&
      !used.has(`listing:${c.exchange}:${c.token.symbol}`) &&
      pick(c),
  );
}

/** The move of a market's candle at `minute` (open to close, in % with one decimal), or null without a candle. */
function candleMove(
  at: CryptoDay,
  exchange: KoreaExchange,
  symbol: string,
  minute: number,
): { pct: number; openKrw: number; closeKrw: number; volumeKrw: number } | null {
  const candle = at.market(exchange, symbol, minute, minute + 1)?.candles.find((c) => c.minute === minute);
  return candle ? { ...candle, pct: oneDecimal((candle.closeKrw / candle.openKrw - 1) * 100) } : null;
}

const surgeOrCrash: CryptoTemplate = (rng, at, minute, used) => {
  const candidates = recentShocks(at, minute, 'price', used).sort((a, b) => Math.abs(b.jump) - Math.abs(a.jump) || b.minute - a.minute);
  for (const shock of candidates.slice(0, 3)) {
    const [lead, second] = shock.exchanges as [KoreaExchange, KoreaExchange | undefined];
    const move = candleMove(at, lead, shock.symbol, shock.minute);
    if (!move || Math.abs(move.pct) < 1) continue;
    const also = second ? candleMove(at, second, shock.symbol, shock.minute) : null;
    const up = move.pct > 0;
    if (also && also.pct > 0 !== up) continue;
    const token = KOREA_TOKEN_BY_SYMBOL.get(shock.symbol)!;
    const c = coin(token);
    const ex = EXCHANGE[lead];
    const pct = Math.abs(move.pct);
    const t = when(msOfMinute(shock.minute));
    const open = krwPrice(move.openKrw);
    const close = krwPrice(move.closeKrw);
    const value = krwAmount(move.volumeKrw);
    const alsoText: Named = also
      ? {
          kr: ` ${EXCHANGE[second!].kr}에서도 같은 1분 동안 ${Math.abs(also.pct)}% ${up ? '올랐다' : '내렸다'}.`,
          en: ` On ${EXCHANGE[second!].en} it ${up ? 'rose' : 'fell'} ${Math.abs(also.pct)}% in the same 1 minute.`,
        }
      : { kr: '', en: '' };
    const cause = up
      ? rng.pick<[string, string]>([
          [
            '뚜렷한 호재 없이 단기 매수세가 한꺼번에 몰린 것으로 풀이된다.',
            'Analysts say short-term buying rushed in all at once without any clear news.',
          ],
          [
            '해외 거래소 가격을 뒤쫓는 매수 주문이 몰린 것으로 보인다.',
            'Buy orders chasing prices on overseas exchanges appear to have piled in.',
          ],
        ])
      : rng.pick<[string, string]>([
          [
            '대량 매도 물량이 한꺼번에 쏟아지며 가격이 밀린 것으로 보인다.',
            'A large volume of sell orders appears to have hit the market at once, pushing the price down.',
          ],
          ['차익 실현 매물이 몰리며 낙폭이 커진 것으로 풀이된다.', 'Analysts say profit-taking sales piled up and deepened the fall.'],
        ]);
    const mention = (exchange: KoreaExchange, value: number) =>
      ({ kind: up ? 'surge' : 'crash', exchange, symbol: token.symbol, atMs: msOfMinute(shock.minute), value }) as const;
    return {
      key: `market:${token.symbol}`,
      tone: up ? 'positive' : 'negative',
      titleKr: `${c.kr}, ${ex.kr}서 1분 만에 ${pct}% ${up ? '급등' : '급락'}`,
      bodyKr: `${ex.kr}에 따르면 ${withParticle(c.kr, '은/는')} ${t.kr}부터 1분 사이 ${open.kr}에서 ${withParticle(close.kr, '으로/로')} ${pct}% ${up ? '뛰었다' : '떨어졌다'}. 이 1분 동안 거래대금은 ${withParticle(value.kr, '으로/로')} 집계됐다.${alsoText.kr} ${cause[0]}`,
      titleEn: `${c.en} ${up ? 'surges' : 'plunges'} ${pct}% in 1 minute on ${ex.en}`,
      bodyEn: `According to ${ex.en}, ${c.en} ${up ? 'jumped' : 'fell'} ${pct}% in the 1 minute from ${t.en}, from ${open.en} to ${close.en}. Trading value in that minute came to ${value.en}.${alsoText.en} ${cause[1]}`,
      mentions: also ? [mention(lead, move.pct), mention(second!, also.pct)] : [mention(lead, move.pct)],
    };
  }
  return null;
};

const volumeSpike: CryptoTemplate = (_rng, at, minute, used) => {
  const candidates = recentShocks(at, minute, 'volume', used).sort(
    (a, b) => b.volumeMultiplier - a.volumeMultiplier || b.minute - a.minute,
  );
  for (const shock of candidates.slice(0, 3)) {
    const exchange = shock.exchanges[0]!;
    const view = at.market(exchange, shock.symbol, shock.minute - 60, shock.minute + 1);
    const candle = view?.candles.find((c) => c.minute === shock.minute);
    if (!view || !candle) continue;
    const trailing = view.candles.filter((c) => c.minute < shock.minute).reduce((sum, c) => sum + c.volumeKrw, 0) / 60;
    const ratio = trailing > 0 ? Math.floor(candle.volumeKrw / trailing) : 0;
    if (ratio < 5 || candle.volumeKrw < 5_000_000) continue;
    const token = KOREA_TOKEN_BY_SYMBOL.get(shock.symbol)!;
    const c = coin(token);
    const ex = EXCHANGE[exchange];
    const t = when(msOfMinute(shock.minute));
    const value = krwAmount(candle.volumeKrw);
    const change = oneDecimal((candle.closeKrw / candle.openKrw - 1) * 100);
    const move: Named =
      change === 0
        ? { kr: '가격은 큰 변동이 없었다.', en: 'The price barely moved.' }
        : {
            kr: `가격은 ${Math.abs(change)}% ${change > 0 ? '올랐다' : '내렸다'}.`,
            en: `The price ${change > 0 ? 'rose' : 'fell'} ${Math.abs(change)}%.`,
          };
    return {
      key: `market:${token.symbol}`,
      tone: 'neutral',
      titleKr: `${c.kr} 거래대금 급증…1분 새 평소 ${ratio}배`,
      bodyKr: `${ex.kr}에서 ${c.kr}에 ${t.kr}부터 1분 동안 ${value.kr}어치 매매가 몰렸다. 직전 1시간의 분당 평균 거래대금보다 ${ratio}배 많은 규모다. 같은 1분 동안 ${move.kr}`,
      titleEn: `${c.en} trading value soars to ${ratio} times its usual level in 1 minute`,
      bodyEn: `On ${ex.en}, ${value.en} worth of ${c.en} changed hands in the 1 minute from ${t.en}. That is ${ratio} times the average per-minute trading value of the preceding 1 hour. In the same 1 minute, ${move.en.charAt(0).toLowerCase()}${move.en.slice(1)}`,
      mentions: [{ kind: 'volume_spike', exchange, symbol: token.symbol, atMs: msOfMinute(shock.minute), value: ratio }],
    };
  }
  return null;
};

const newListing: CryptoTemplate = (rng, at, minute, used) => {
  const change = upcomingChanges(at, minute, used, (c) => c.change === 'new_listing' && !c.relisting)[0];
  if (!change) return null;
  const { exchange, token } = change;
  const c = coin(token);
  const ex = EXCHANGE[exchange];
  const elsewhere = EXCHANGE[other(exchange)];
  const t = when(change.atMs);
  const announced = kstClock(msOfMinute(minute));
  const tradedElsewhere = at.calendar.isListed(other(exchange), token, msOfMinute(minute));
  const context: Named = tradedElsewhere
    ? {
        kr: `${withParticle(c.kr, '은/는')} 현재 ${elsewhere.kr}에서도 거래되고 있다.`,
        en: `${c.en} is currently also traded on ${elsewhere.en}.`,
      }
    : {
        kr: `${withParticle(c.kr, '은/는')} 현재 국내 다른 원화 거래소에서는 거래되지 않는다.`,
        en: `${c.en} is not currently traded on any other Korean won exchange.`,
      };
  const network = rng.pick<[string, string]>([
    ['입금은 공지 직후부터 가능하다.', 'Deposits are possible right after the announcement.'],
    [
      '입출금은 네트워크 안정성이 확인된 뒤 순차적으로 열린다.',
      'Deposits and withdrawals will open in turn once network stability is confirmed.',
    ],
  ]);
  return {
    key: `listing:${exchange}:${token.symbol}`,
    tone: 'positive',
    titleKr: `${ex.kr}, ${c.kr} 원화 마켓 신규 상장`,
    bodyKr: `${withParticle(ex.kr, '은/는')} ${c.kr}의 원화(KRW) 마켓 거래지원을 ${t.kr}에 시작한다고 ${announced.date}일 공지했다. ${network[0]} ${context.kr} ${withParticle(ex.kr, '은/는')} 거래 개시 직후 가격 변동성이 클 수 있다며 투자자 주의를 당부했다.`,
    titleEn: `${ex.en} to list ${c.en} on its won market`,
    bodyEn: `${ex.en} announced on the ${ordinal(announced.date)} that it will start supporting ${c.en} trading on its Korean won (KRW) market at ${t.en}. ${network[1]} ${context.en} ${ex.en} urged investors to be careful, saying prices may swing widely right after trading opens.`,
    mentions: [{ kind: 'new_listing', exchange, symbol: token.symbol, atMs: change.atMs, value: null }],
  };
};

const relisting: CryptoTemplate = (_rng, at, minute, used) => {
  const change = upcomingChanges(at, minute, used, (c) => c.change === 'new_listing' && c.relisting)[0];
  if (!change) return null;
  const { exchange, token } = change;
  const c = coin(token);
  const ex = EXCHANGE[exchange];
  const t = when(change.atMs);
  return {
    key: `listing:${exchange}:${token.symbol}`,
    tone: 'positive',
    titleKr: `${ex.kr}, ${c.kr} 거래지원 재개`,
    bodyKr: `${withParticle(ex.kr, '은/는')} 앞서 거래지원을 종료했던 ${c.kr}의 원화 마켓 거래를 ${t.kr}부터 다시 지원한다고 밝혔다. 프로젝트 측이 제출한 소명 자료를 검토한 결과 거래지원 종료 사유가 해소됐다고 판단했다는 설명이다.`,
    titleEn: `${ex.en} to resume trading support for ${c.en}`,
    bodyEn: `${ex.en} said it will again support won-market trading of ${c.en}, whose trading support it had ended earlier, starting at ${t.en}. It explained that after reviewing the materials submitted by the project, it judged that the reasons for ending trading support had been resolved.`,
    mentions: [{ kind: 'relisting', exchange, symbol: token.symbol, atMs: change.atMs, value: null }],
  };
};

const delisting: CryptoTemplate = (rng, at, minute, used) => {
  const nowMs = msOfMinute(minute);
  const change = upcomingChanges(
    at,
    minute,
    used,
    (c) => c.change === 'delisting' && c.warnedFromMs !== null && c.warnedFromMs <= nowMs - REPORT_DELAY_MINUTES * MINUTE_MS,
  )[0];
  if (!change) return null;
  const { exchange, token } = change;
  const c = coin(token);
  const ex = EXCHANGE[exchange];
  const t = when(change.atMs);
  const warned = whenWithMonth(change.warnedFromMs!);
  const announced = kstClock(nowMs);
  const reason = rng.pick<[string, string]>([
    ['프로젝트 측의 소명 내용이 충분하지 않았다', 'the explanations from the project were not sufficient'],
    [
      '유통량 정보가 공시와 다르게 운영된 점이 해소되지 않았다',
      'the gap between the disclosed and the actual circulating supply was not resolved',
    ],
    ['중요 사항에 대한 공시가 이뤄지지 않았다', 'material information had not been disclosed'],
  ]);
  return {
    key: `listing:${exchange}:${token.symbol}`,
    tone: 'negative',
    titleKr: `${ex.kr}, ${c.kr} 거래지원 종료…${t.kr}`,
    bodyKr: `${withParticle(ex.kr, '은/는')} ${c.kr}의 원화 마켓 거래지원을 ${t.kr}에 종료한다고 ${announced.date}일 공지했다. ${withParticle(c.kr, '은/는')} ${warned.kr} ${withParticle(WARNING[exchange].kr, '으로/로')} 지정된 바 있다. ${withParticle(ex.kr, '은/는')} ${reason[0]}고 판단했다고 설명했다.`,
    titleEn: `${ex.en} to end trading support for ${c.en} at ${t.en}`,
    bodyEn: `${ex.en} announced on the ${ordinal(announced.date)} that it will end won-market trading support for ${c.en} at ${t.en}. ${c.en} had been designated ${WARNING[exchange].en} at ${warned.en}. ${ex.en} explained that it judged ${reason[1]}.`,
    mentions: [{ kind: 'delisting', exchange, symbol: token.symbol, atMs: change.atMs, value: null }],
  };
};

const warningDesignated: CryptoTemplate = (rng, at, minute, used) => {
  const nowMs = msOfMinute(minute);
  const warning = at.warnings.find(
    (w) =>
      w.fromMs <= nowMs - REPORT_DELAY_MINUTES * MINUTE_MS &&
      w.fromMs >= nowMs - REPORT_WINDOW_MINUTES * MINUTE_MS &&
      !used.has(`warning:${w.exchange}:${w.token.symbol}`),
  );
  if (!warning) return null;
  const { exchange, token } = warning;
  const c = coin(token);
  const ex = EXCHANGE[exchange];
  const t = when(warning.fromMs);
  const reason = rng.pick<[string, string]>([
    ['재단의 중요 사항 공시가 미흡하다', "the foundation's disclosure of material information was inadequate"],
    ['실제 유통량이 유통 계획과 크게 다르다', 'the actual circulating supply differed widely from the circulation plan'],
    ['프로젝트의 사업 진행 상황을 확인하기 어렵다', "the project's business progress was hard to verify"],
    ['네트워크 운영에 중대한 문제가 발생했다', 'a serious problem had occurred in the operation of the network'],
  ]);
  return {
    key: `warning:${exchange}:${token.symbol}`,
    tone: 'negative',
    titleKr: `${ex.kr}, ${c.kr} ${WARNING[exchange].kr} 지정`,
    bodyKr: `${withParticle(ex.kr, '은/는')} ${t.kr} ${withParticle(c.kr, '을/를')} ${withParticle(WARNING[exchange].kr, '으로/로')} 지정했다고 공지했다. ${reason[0]}는 이유다. ${withParticle(ex.kr, '은/는')} 지정 사유가 해소되지 않으면 거래지원 종료를 결정할 수 있다며 투자에 유의해 달라고 밝혔다.`,
    titleEn: `${ex.en} designates ${c.en} ${WARNING[exchange].en}`,
    bodyEn: `${ex.en} announced that it designated ${c.en} ${WARNING[exchange].en} at ${t.en}, saying ${reason[1]}. ${ex.en} said it may decide to end trading support if the reasons are not resolved, and asked investors to be careful.`,
    mentions: [{ kind: 'investment_warning', exchange, symbol: token.symbol, atMs: warning.fromMs, value: null }],
  };
};

const warningLifted: CryptoTemplate = (_rng, at, minute, used) => {
  const nowMs = msOfMinute(minute);
  const warning = at.warnings.find(
    (w) =>
      w.outcome === 'lifted' &&
      w.toMs <= nowMs - REPORT_DELAY_MINUTES * MINUTE_MS &&
      w.toMs >= nowMs - REPORT_WINDOW_MINUTES * MINUTE_MS &&
      !used.has(`warning:${w.exchange}:${w.token.symbol}`),
  );
  if (!warning) return null;
  const { exchange, token } = warning;
  const c = coin(token);
  const ex = EXCHANGE[exchange];
  const t = when(warning.toMs);
  const days = Math.round((warning.toMs - warning.fromMs) / DAY_MS);
  return {
    key: `warning:${exchange}:${token.symbol}`,
    tone: 'positive',
    titleKr: `${ex.kr}, ${c.kr} ${WARNING[exchange].kr} 지정 해제`,
    bodyKr: `${withParticle(ex.kr, '은/는')} ${c.kr}에 대한 ${WARNING[exchange].kr} 지정을 ${t.kr}부로 해제했다. 지정 ${days}일 만이다. ${withParticle(ex.kr, '은/는')} 프로젝트 측이 지정 사유를 해소했다고 판단했다고 밝혔다.`,
    titleEn: `${ex.en} lifts investment warning on ${c.en}`,
    bodyEn: `${ex.en} lifted the investment warning on ${c.en} as of ${t.en}, ${days} days after the designation. ${ex.en} said it judged that the project had resolved the reasons for the designation.`,
    mentions: [{ kind: 'warning_lifted', exchange, symbol: token.symbol, atMs: warning.toMs, value: null }],
  };
};

const kimchiPremium: CryptoTemplate = (_rng, at, minute, used) => {
  if (used.has('kimchi-premium')) return null;
  const view = at.market('upbit', 'BTC', minute - 1, minute);
  const dayAgo = at.market('upbit', 'BTC', minute - 1441, minute - 1440);
  if (!view || !dayAgo || view.globalUsd === null) return null;
  // The kimchi-premium dataset's formula on the same numbers: (P_kr / FX) / P_global - 1.
  const premium = oneDecimal((view.priceKrw / view.usdKrw / view.globalUsd - 1) * 100);
  const t = when(msOfMinute(minute));
  const price = krwPrice(view.priceKrw);
  const global = usdWhole(view.globalUsd);
  const fx = withCommas(view.usdKrw);
  // The ticker's 24h change: the last price against the price a day before.
  const change = oneDecimal(Math.round((view.priceKrw / dayAgo.priceKrw - 1) * 100 * 100) / 100);
  const direction: Named =
    change === 0
      ? { kr: '24시간 전과 같은 수준이다.', en: 'That is unchanged from 24 hours earlier.' }
      : {
          kr: `24시간 전보다 ${Math.abs(change)}% ${change > 0 ? '오른' : '내린'} 가격이다.`,
          en: `That is ${Math.abs(change)}% ${change > 0 ? 'higher' : 'lower'} than 24 hours earlier.`,
        };
  const level: Named =
    premium < 0
      ? {
          kr: `김치 프리미엄은 ${percentText(premium)}%로 국내 가격이 해외보다 낮은 역프리미엄 상태다.`,
          en: `The kimchi premium is ${percentText(premium)}%, a reverse premium with domestic prices below overseas ones.`,
        }
      : {
          kr: `이를 반영한 김치 프리미엄은 ${percentText(premium)}%다.`,
          en: `The kimchi premium reflecting these is ${percentText(premium)}%.`,
        };
  return {
    key: 'kimchi-premium',
    tone: 'neutral',
    titleKr: `비트코인 ${price.kr}…김치 프리미엄 ${percentText(premium)}%`,
    bodyKr: `업비트에서 비트코인(BTC)은 ${t.kr} ${price.kr}에 거래됐다. ${direction.kr} 같은 시각 바이낸스 가격은 ${global.kr}, 원·달러 환율은 ${fx}원이다. ${level.kr}`,
    titleEn: `Bitcoin at ${price.en}, kimchi premium at ${percentText(premium)}%`,
    bodyEn: `On Upbit, Bitcoin (BTC) traded at ${price.en} at ${t.en}. ${direction.en} At the same time the Binance price was ${global.en} and the won-dollar exchange rate was ${fx} won. ${level.en}`,
    mentions: [{ kind: 'kimchi_premium', exchange: 'upbit', symbol: 'BTC', atMs: msOfMinute(minute), value: premium }],
  };
};

const usdtPremium: CryptoTemplate = (_rng, at, minute, used) => {
  if (used.has('usdt-premium')) return null;
  const upbit = at.market('upbit', 'USDT', minute - 1, minute);
  const bithumb = at.market('bithumb', 'USDT', minute - 1, minute);
  if (!upbit || !bithumb) return null;
  const premium = oneDecimal((upbit.priceKrw / upbit.usdKrw - 1) * 100);
  const t = when(msOfMinute(minute));
  const price = krwPrice(upbit.priceKrw);
  const other = krwPrice(bithumb.priceKrw);
  const fx = withCommas(upbit.usdKrw);
  const side: Named = premium >= 0 ? { kr: '높은', en: 'above' } : { kr: '낮은', en: 'below' };
  return {
    key: 'usdt-premium',
    tone: 'neutral',
    titleKr: `테더 ${price.kr}…환율 대비 프리미엄 ${percentText(premium)}%`,
    bodyKr: `업비트에서 테더(USDT)는 ${t.kr} ${price.kr}에 거래됐다. 같은 시각 원·달러 환율(${fx}원)보다 ${Math.abs(premium)}% ${side.kr} 수준이다. 빗썸에서는 ${other.kr}에 거래됐다. 테더 프리미엄은 국내 가상자산 매수 수요를 보여주는 지표로 꼽힌다.`,
    titleEn: `Tether at ${price.en}, a ${percentText(premium)}% premium over the exchange rate`,
    bodyEn: `On Upbit, Tether (USDT) traded at ${price.en} at ${t.en}. That is ${Math.abs(premium)}% ${side.en} the won-dollar exchange rate of ${fx} won at the same time. On Bithumb it traded at ${other.en}. The Tether premium is seen as a gauge of domestic demand to buy virtual assets.`,
    mentions: [{ kind: 'usdt_premium', exchange: 'upbit', symbol: 'USDT', atMs: msOfMinute(minute), value: premium }],
  };
};

// ------------------------------------------------------------------ general market news

const etfFlows: CryptoTemplate = (rng) => {
  const inflow = rng.chance(0.6);
  const amount = usdMillions(rng.int(5, 120) * 10);
  const streak = rng.int(2, 7);
  return {
    key: 'etf-flows',
    tone: inflow ? 'positive' : 'negative',
    titleKr: `미국 비트코인 현물 ETF, 하루 새 ${amount.kr} 순${inflow ? '유입' : '유출'}`,
    bodyKr: `파사이드 인베스터스에 따르면 미국 비트코인 현물 상장지수펀드(ETF)에 전 거래일 ${withParticle(amount.kr, '이/가')} 순${inflow ? '유입' : '유출'}됐다. ${inflow ? `${streak}거래일 연속 순유입이다.` : '블랙록의 IBIT에서도 자금이 빠져나갔다.'}`,
    titleEn: `US spot bitcoin ETFs see net ${inflow ? 'inflows' : 'outflows'} of ${amount.en} in a day`,
    bodyEn: `According to Farside Investors, US spot bitcoin exchange-traded funds (ETFs) saw net ${inflow ? 'inflows' : 'outflows'} of ${amount.en} on the previous trading day. ${inflow ? `It is the ${ordinal(streak)} straight trading day of net inflows.` : "Money also flowed out of BlackRock's IBIT."}`,
  };
};

const regulation: CryptoTemplate = (rng) => {
  const variant = rng.int(0, 3);
  if (variant === 0) {
    const capital = rng.pick([50, 100]);
    return {
      key: 'regulation:phase-2',
      tone: 'neutral',
      titleKr: '금융위원회, 가상자산 2단계 법안 연내 제출 추진',
      bodyKr: `금융위원회가 스테이블코인 발행과 거래소 규율을 담은 가상자산 2단계 법안을 연내 국회에 제출하는 방안을 추진한다. 원화 스테이블코인 발행사는 자기자본 ${eokWonKr(capital)} 이상을 갖춰야 한다.`,
      titleEn: 'Financial Services Commission seeks to submit phase 2 virtual asset bill within the year',
      bodyEn: `The Financial Services Commission is pushing to submit to the National Assembly within the year a phase 2 virtual asset bill covering stablecoin issuance and the rules for exchanges. Issuers of won stablecoins would need equity capital of at least ${eokWonEn(capital)}.`,
    };
  }
  if (variant === 1) {
    const companies = rng.int(24, 27) * 100;
    return {
      key: 'regulation:corporate-accounts',
      tone: 'positive',
      titleKr: '상장사 법인도 가상자산 거래 가능…실명계좌 발급 허용',
      bodyKr: `금융당국이 상장사와 전문투자자 법인의 가상자산 거래소 실명계좌 발급을 허용하기로 했다. 대상 상장사는 약 ${withCommas(companies)}곳이다.`,
      titleEn: 'Listed companies can trade virtual assets as real-name accounts are allowed',
      bodyEn: `Financial authorities decided to allow listed companies and professional investor corporations to open real-name accounts at virtual asset exchanges. About ${withCommas(companies)} listed companies are eligible.`,
    };
  }
  if (variant === 2) {
    const providers = rng.int(3, 9);
    return {
      key: 'regulation:fiu',
      tone: 'negative',
      titleKr: `금융정보분석원, 가상자산사업자 ${providers}곳 현장검사 착수`,
      bodyKr: `금융정보분석원(FIU)이 자금세탁방지 의무 이행 실태를 점검하기 위해 가상자산사업자 ${providers}곳에 대한 현장검사에 착수했다. 고객 확인 절차가 미흡한 사업자에는 제재가 내려질 수 있다.`,
      titleEn: `Financial Intelligence Unit begins on-site inspections of ${providers} virtual asset service providers`,
      bodyEn: `The Korea Financial Intelligence Unit (FIU) has begun on-site inspections of ${providers} virtual asset service providers to check how they meet their anti-money laundering obligations. Providers with inadequate customer verification procedures could face sanctions.`,
    };
  }
  const cases = rng.int(6, 25);
  return {
    key: 'regulation:unfair-trading',
    tone: 'negative',
    titleKr: `금융감독원, 가상자산 불공정거래 ${cases}건 적발`,
    bodyKr: `금융감독원은 가상자산이용자보호법 시행 이후 시세조종 등 불공정거래 의심 사례 ${cases}건을 적발해 수사기관에 통보했다고 밝혔다. 급등락을 노린 단기 매매에 주의가 필요하다는 당부도 덧붙였다.`,
    titleEn: `Financial Supervisory Service uncovers ${cases} cases of unfair virtual asset trading`,
    bodyEn: `The Financial Supervisory Service said it had uncovered ${cases} suspected cases of unfair trading such as price manipulation since the Virtual Asset User Protection Act took effect and had notified investigators. It also urged caution over short-term trading that targets sharp swings.`,
  };
};

const industry: CryptoTemplate = (rng, at) => {
  if (rng.chance(0.5)) {
    const tenThousands = rng.int(900, 1100);
    return {
      key: 'industry:investors',
      tone: 'positive',
      titleKr: `국내 가상자산 투자자 ${tenThousands}만 명`,
      bodyKr: `금융위원회 실태조사에 따르면 국내 가상자산 거래소에 계정을 보유한 투자자는 ${tenThousands}만 명으로 집계됐다. ${at.month}월 들어 신규 가입도 늘고 있다는 게 업계 설명이다.`,
      titleEn: `Virtual asset investors in Korea number ${withCommas(tenThousands * 10_000)}`,
      bodyEn: `According to a Financial Services Commission survey, investors holding accounts at domestic virtual asset exchanges numbered ${withCommas(tenThousands * 10_000)}. The industry says new sign-ups have also been rising since the start of ${MONTHS[at.month - 1]}.`,
    };
  }
  const cap = rng.int(140, 190) * 10;
  return {
    key: 'industry:stablecoins',
    tone: 'neutral',
    titleKr: `테더 시가총액 ${cap}억 달러…스테이블코인 시장 확대`,
    bodyKr: `코인마켓캡에 따르면 테더(USDT)의 시가총액이 ${cap}억 달러를 기록했다. 원화 스테이블코인 도입 논의도 이어지고 있다.`,
    titleEn: `Tether's market capitalization reaches $${cap / 10} billion as stablecoin market grows`,
    bodyEn: `According to CoinMarketCap, the market capitalization of Tether (USDT) reached $${cap / 10} billion. Discussions on introducing won stablecoins are also continuing.`,
  };
};

/** The crypto templates and how often each is drawn: stories of the world's own events lead. */
export const CRYPTO_TEMPLATES: readonly CryptoTemplate[] = [
  surgeOrCrash,
  volumeSpike,
  newListing,
  relisting,
  delisting,
  warningDesignated,
  warningLifted,
  kimchiPremium,
  usdtPremium,
  etfFlows,
  regulation,
  industry,
];
export const CRYPTO_TEMPLATE_WEIGHTS: readonly number[] = [4, 2, 3, 1, 2, 2, 1, 2, 1, 1, 1, 1];
