/**
 * How the korea demo world's newsroom writes: Korean particles, numbers the way Korean papers
 * print them (1억2000만 원, 450억 원, 11월 24일, 오후 2시 32분) beside the English of the reference
 * translation, which states every number of the Korean text at the same scale (120 million won,
 * 45 billion won, November 24, 2:32 p.m.). Shared by every topic's templates.
 */

import type { Rng } from '../random.ts';
import { KST_OFFSET_MS } from './calendar.ts';
import type { MacroHistory } from './macro.ts';
import type { KoreaExchange } from './tokens.ts';

export type NewsTone = 'positive' | 'negative' | 'neutral';

/** A thing known by its Korean and its English name. */
export interface Named {
  kr: string;
  en: string;
}

/** The KST day an article is written on. */
export interface ArticleDay {
  seed: number;
  /** KST calendar day (index on the world's day axis). */
  day: number;
  year: number;
  month: number;
  date: number;
  macro: MacroHistory;
}

/** Something of the demo world an article reports, for tests and the demo's own checks (never in a row). */
export interface NewsMention {
  kind:
    | 'surge'
    | 'crash'
    | 'volume_spike'
    | 'new_listing'
    | 'relisting'
    | 'delisting'
    | 'investment_warning'
    | 'warning_lifted'
    | 'kimchi_premium'
    | 'usdt_premium';
  exchange: KoreaExchange;
  symbol: string;
  /** When it happened or will happen: the candle's minute, the listing time, the designation, the quote's minute. */
  atMs: number;
  /** The figure the article quotes for it (a percent), if any. */
  value: number | null;
}

export interface Draft {
  /** Template and main entity: a day does not repeat the same story. */
  key: string;
  tone: NewsTone;
  titleKr: string;
  bodyKr: string;
  titleEn: string;
  bodyEn: string;
  mentions?: readonly NewsMention[];
}

// ------------------------------------------------------------------ Korean particles

const HANGUL_FIRST = 0xac00;
const HANGUL_LAST = 0xd7a3;

/** Final consonant (받침) of the word's last syllable as read aloud: 'none', 'rieul' (ㄹ) or 'other'. */
function finalSound(word: string): 'none' | 'rieul' | 'other' {
  // 솔라나(SOL) is read 솔라나: a parenthesis after a name does not change the particle.
  const last = word
    .trim()
    .replace(/\([^()]*\)$/, '')
    .trim()
    .slice(-1);
  const code = last.charCodeAt(0);
  if (code >= HANGUL_FIRST && code <= HANGUL_LAST) {
    const jong = (code - HANGUL_FIRST) % 28;
    return jong === 0 ? 'none' : jong === 8 ? 'rieul' : 'other';
  }
  // Digits read in Sino-Korean: 영 일 이 삼 사 오 육 칠 팔 구.
  const digit = '0123456789'.indexOf(last);
  if (digit >= 0) return (['other', 'rieul', 'none', 'other', 'none', 'none', 'other', 'rieul', 'rieul', 'none'] as const)[digit]!;
  // Latin letters as read in Korean: L 엘, M 엠, N 엔, R 알; others end in a vowel.
  const letter = last.toUpperCase();
  if (letter === 'L' || letter === 'R') return 'rieul';
  if (letter === 'M' || letter === 'N') return 'other';
  return 'none';
}

type Particle = '은/는' | '이/가' | '을/를' | '과/와' | '으로/로';

/** The word followed by the particle form its final sound takes (삼성전자는, SK하이닉스가, 마이크론과). */
export function withParticle(word: string, particle: Particle): string {
  const sound = finalSound(word);
  const [afterConsonant, afterVowel] = particle.split('/') as [string, string];
  if (particle === '으로/로') return word + (sound === 'other' ? afterConsonant : afterVowel);
  return word + (sound === 'none' ? afterVowel : afterConsonant);
}

// ------------------------------------------------------------------ numbers

export const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

export function withCommas(value: number): string {
  const [whole, fraction] = String(value).split('.') as [string, string | undefined];
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

export function ordinal(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${n % 10 === 1 ? 'st' : n % 10 === 2 ? 'nd' : n % 10 === 3 ? 'rd' : 'th'}`;
}

export const oneDecimal = (value: number): number => Math.round(value * 10) / 10;
export const decimalText = (value: number): string => (Number.isInteger(value) ? String(value) : value.toFixed(1));
export const percent = (rng: Rng, lo: number, hi: number): number => oneDecimal(rng.uniform(lo, hi));

/** `whole / unit` written exactly (no binary rounding): 345000000 / 1e6 → '345', 1080000000000 / 1e12 → '1.08'. */
function exactRatio(whole: number, unit: number): string {
  const integer = Math.floor(whole / unit);
  const rest = whole - integer * unit;
  if (rest === 0) return String(integer);
  const digits = String(unit).length - 1;
  return `${integer}.${String(rest).padStart(digits, '0').replace(/0+$/, '')}`;
}

/** A whole number of won in English words at the largest scale that fits: 45 billion won, 1.08 trillion won. */
export function wonWordsEn(won: number): string {
  if (won >= 1e12) return `${exactRatio(won, 1e12)} trillion won`;
  if (won >= 1e9) return `${exactRatio(won, 1e9)} billion won`;
  if (won >= 1e6) return `${exactRatio(won, 1e6)} million won`;
  return `${withCommas(won)} won`;
}

/** A whole number in Korean units: 1조800억, 3억4500만, 4521만, 9,800 (the part under 만 keeps its digits). */
export function koreanUnits(value: number): string {
  const jo = Math.floor(value / 1e12);
  const eok = Math.floor((value % 1e12) / 1e8);
  const man = Math.floor((value % 1e8) / 1e4);
  const rest = value % 1e4;
  const text = `${jo ? `${jo}조` : ''}${eok ? `${eok}억` : ''}${man ? `${man}만` : ''}${rest ? String(rest) : ''}`;
  return text === '' ? '0' : text;
}

/** Korean units with the currency: a space before it after a unit (450억 원), none after digits (4532만1000원). */
function withUnit(units: string, unit: string): string {
  return /[0-9]$/.test(units) ? `${units}${unit}` : `${units} ${unit}`;
}

/** An amount in 억 원 (100 million won) the way Korean papers write it: 9조1000억 원, 450억 원. */
export function eokWonKr(eok: number): string {
  return withUnit(koreanUnits(eok * 1e8), '원');
}

/** The same amount in English, exactly: 9.1 trillion won, 45 billion won, 500 million won. */
export function eokWonEn(eok: number): string {
  return wonWordsEn(eok * 1e8);
}

/**
 * A KRW amount (trading value) rounded as news rounds it, in both languages: 1조2300억 원 /
 * 1.23 trillion won, 450억 원 / 45 billion won, 3억4500만 원 / 345 million won, 4521만 원 /
 * 45.21 million won, 52만 원 / 520,000 won.
 */
export function krwAmount(won: number): Named {
  const step = won >= 1e12 ? 1e10 : won >= 1e10 ? 1e8 : won >= 1e8 ? 1e6 : 1e4;
  const rounded = Math.max(step, Math.round(won / step) * step);
  return { kr: withUnit(koreanUnits(rounded), '원'), en: wonWordsEn(rounded) };
}

/** Decimals of a KRW price: as many as its tick has (prices under 1,000 won trade in fractions). */
function priceDigits(price: number): string {
  if (price >= 1000) return withCommas(Math.round(price));
  const decimals = price >= 100 ? 0 : price >= 10 ? 2 : price >= 1 ? 3 : Math.min(8, 1 - Math.floor(Math.log10(price)) + 3);
  return String(Number(price.toFixed(decimals)));
}

/** A coin's KRW price: 1억4532만1000원 / 145,321,000 won, 498만2000원 / 4,982,000 won, 5,510원, 0.01392원. */
export function krwPrice(price: number): Named {
  if (price >= 10_000) return { kr: withUnit(koreanUnits(Math.round(price)), '원'), en: `${withCommas(Math.round(price))} won` };
  const digits = priceDigits(price);
  return { kr: `${digits}원`, en: `${digits} won` };
}

/** A whole number of US dollars: 6만5432달러 / $65,432. */
export function usdWhole(usd: number): Named {
  const whole = Math.round(usd);
  return { kr: withUnit(koreanUnits(whole), '달러'), en: `$${withCommas(whole)}` };
}

/** Millions of US dollars: 3억4000만 달러 / $340 million, 12억 달러 / $1.2 billion, 5000만 달러 / $50 million. */
export function usdMillions(millions: number): Named {
  const usd = millions * 1e6;
  const en = usd >= 1e9 ? `$${exactRatio(usd, 1e9)} billion` : `$${exactRatio(usd, 1e6)} million`;
  return { kr: withUnit(koreanUnits(usd), '달러'), en };
}

/** A signed percent with one decimal: '2.3', '-0.4', '5'. */
export const percentText = (value: number): string => decimalText(oneDecimal(value));

// ------------------------------------------------------------------ time

/** KST wall clock of an instant: date parts and the time as Korean and English news write it. */
export function kstClock(ms: number): { month: number; date: number; clock: Named } {
  const kst = new Date(ms + KST_OFFSET_MS);
  const hour = kst.getUTCHours();
  const minute = kst.getUTCMinutes();
  const mm = String(minute).padStart(2, '0');
  let kr: string;
  let en: string;
  if (hour === 0) {
    // Midnight hour: 0시 5분 / 00:05 (an English "12:05 a.m." would change the number).
    kr = minute ? `0시 ${minute}분` : '0시';
    en = `00:${mm}`;
  } else {
    const h12 = hour > 12 ? hour - 12 : hour;
    kr = `${hour < 12 ? '오전' : hour === 12 ? '낮' : '오후'} ${h12}시${minute ? ` ${minute}분` : ''}`;
    en = `${h12}${minute ? `:${mm}` : ''} ${hour < 12 ? 'a.m.' : 'p.m.'}`;
  }
  return { month: kst.getUTCMonth() + 1, date: kst.getUTCDate(), clock: { kr, en } };
}
