/**
 * Korean numbers for the translation check: 만/억/조 expansion before a model sees the text (so
 * the model never scales 450억 itself) and the gate that keeps a translation unpublished when a
 * number of the Korean is missing or wrongly scaled in the English. Pure and regex-only.
 */

// ------------------------------------------------------------------ expansion

/** Units inside a four-digit group: 2천만 = 2 × 1000 × 10^4. */
const SMALL_UNITS: Readonly<Record<string, bigint>> = { 십: 10n, 백: 100n, 천: 1000n };
/** Myriad units; each group between them counts up to 9999. 경 is left out: 10경기 is "10 games". */
const BIG_UNITS: Readonly<Record<string, bigint>> = { 만: 10n ** 4n, 억: 10n ** 8n, 조: 10n ** 12n };

const NUMERAL = String.raw`(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?`;
/** One myriad group: terms like 1천, 2백 and an optional bare tail (1천200), then an optional big unit. */
const GROUP = new RegExp(String.raw`((?:${NUMERAL}[십백천])+(?:${NUMERAL})?|${NUMERAL})([만억조])?`, 'y');
const TERM = new RegExp(String.raw`(${NUMERAL})([십백천])?`, 'g');

/** An exact decimal: num / 10^scale. */
interface Exact {
  num: bigint;
  scale: number;
}

function parseNumeral(text: string): Exact {
  const [whole, fraction = ''] = text.replaceAll(',', '').split('.') as [string, string | undefined];
  return { num: BigInt(whole + fraction), scale: fraction.length };
}

function addExact(a: Exact, b: Exact): Exact {
  const scale = Math.max(a.scale, b.scale);
  return { num: a.num * 10n ** BigInt(scale - a.scale) + b.num * 10n ** BigInt(scale - b.scale), scale };
}

const timesExact = (a: Exact, factor: bigint): Exact => ({ num: a.num * factor, scale: a.scale });
const ZERO: Exact = { num: 0n, scale: 0 };

/** Below `limit` (an integer)? */
const belowExact = (a: Exact, limit: bigint): boolean => a.num < limit * 10n ** BigInt(a.scale);

/** 9100000000000 → '9,100,000,000,000'; fractions keep their significant digits. */
function formatExact(value: Exact): string {
  const factor = 10n ** BigInt(value.scale);
  const whole = (value.num / factor).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const fraction = (value.num % factor).toString().padStart(value.scale, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

/** Value of a group's digits and small units (1천2백 = 1200), or null when the units do not descend. */
function groupValue(body: string): { value: Exact; hasUnit: boolean } | null {
  let value = ZERO;
  let lastUnit: bigint | null = null;
  let hasUnit = false;
  let bareTail = false;
  for (const [, numeral, unit] of body.matchAll(TERM)) {
    if (bareTail) return null;
    const n = parseNumeral(numeral!);
    if (unit) {
      const factor = SMALL_UNITS[unit]!;
      if (lastUnit !== null && factor >= lastUnit) return null;
      lastUnit = factor;
      hasUnit = true;
      value = addExact(value, timesExact(n, factor));
    } else {
      if (lastUnit !== null && !belowExact(n, lastUnit)) return null;
      bareTail = true;
      value = addExact(value, n);
    }
  }
  return { value, hasUnit };
}

/** A run of Korean number units found in a text: where it is, what it said, what it is worth. */
export interface KoreanNumberSpan {
  start: number;
  end: number;
  /** The text as written, e.g. '9조1000억'. */
  original: string;
  /** The expanded figure, e.g. '9,100,000,000,000'. */
  expanded: string;
}

const isAsciiAlnum = (ch: string | undefined): boolean => ch !== undefined && /[A-Za-z0-9_]/.test(ch);

/** The chain of groups starting at `start` (9조1000억, 1억 2000만, 2만5000), or null when it holds no unit. */
function chainAt(text: string, start: number): { end: number; value: Exact } | null {
  let total = ZERO;
  let end = start;
  let lastBig: bigint | null = null;
  let anyUnit = false;
  let pos = start;
  for (;;) {
    GROUP.lastIndex = pos;
    const match = GROUP.exec(text);
    if (!match) break;
    const group = groupValue(match[1]!);
    if (!group) break;
    const bigChar = match[2];
    const afterGroup = pos + match[0].length;
    if (bigChar) {
      // 조각 is "piece", not 10^12.
      if (bigChar === '조' && text[afterGroup] === '각') break;
      const big = BIG_UNITS[bigChar]!;
      // A later group must sit below the one before it: 9조 then 1000억 (< 10^4 억).
      if (lastBig !== null && (big >= lastBig || !belowExact(group.value, lastBig / big))) break;
      total = addExact(total, timesExact(group.value, big));
      lastBig = big;
      anyUnit = true;
      end = afterGroup;
    } else {
      // A bare tail (2만5000) only right after a big unit, or after a space when that unit was 만 (2만 5000명).
      if (lastBig === null) {
        if (group.hasUnit) {
          total = group.value;
          anyUnit = true;
          end = afterGroup;
        }
        break;
      }
      if (pos !== end && lastBig !== BIG_UNITS['만']) break;
      if (!belowExact(group.value, lastBig)) break;
      if (/[\d.,]/.test(text[afterGroup] ?? '')) break;
      total = addExact(total, group.value);
      end = afterGroup;
      break;
    }
    // Next group: straight on, or after a single space (1억 2000만 원).
    pos = /\d/.test(text[end] ?? '') ? end : text[end] === ' ' && /\d/.test(text[end + 1] ?? '') ? end + 1 : -1;
    if (pos < 0) break;
  }
  return anyUnit ? { end, value: total } : null;
}

/** Every run of digits with Korean units in `text`, left to right. */
export function koreanNumberSpans(text: string): KoreanNumberSpan[] {
  const spans: KoreanNumberSpan[] = [];
  const digit = /\d/g;
  let match: RegExpExecArray | null;
  while ((match = digit.exec(text)) !== null) {
    const start = match.index;
    const before = text[start - 1];
    // Not inside another token (HBM4, 1,200 already passed, 3.5) and not a legal article (제3조).
    if (isAsciiAlnum(before) || before === '.' || before === ',' || before === '제') {
      digit.lastIndex = skipDigits(text, start);
      continue;
    }
    const chain = chainAt(text, start);
    if (chain) {
      spans.push({ start, end: chain.end, original: text.slice(start, chain.end), expanded: formatExact(chain.value) });
      digit.lastIndex = chain.end;
    } else {
      digit.lastIndex = skipDigits(text, start);
    }
  }
  return spans;
}

function skipDigits(text: string, from: number): number {
  let i = from;
  while (i < text.length && /[\d.,]/.test(text[i]!)) i++;
  return i;
}

/**
 * Expands Korean number units (십/백/천 inside a group, 만 10^4, 억 10^8, 조 10^12) into plain
 * figures with thousands separators: `9조1000억 원` → `9,100,000,000,000 원`, `1.5조` →
 * `1,500,000,000,000`, `2만5000` → `25,000`. Done before translation so the model copies figures
 * instead of scaling them (450억 is 45 billion, a classic tenfold slip). Only digits immediately
 * followed by a unit are touched (만약, 조사, 억제 stay), never digits glued to Latin letters
 * (HBM4) or legal articles (제3조); all other bytes are left as they were.
 */
export function expandKoreanNumbers(text: string): string {
  const spans = koreanNumberSpans(text);
  return spans.length === 0 ? text : expandSpans(text, spans).text;
}

// ------------------------------------------------------------------ numbers of the Korean text

type Currency = 'krw' | 'usd' | 'other';

/**
 * What a Korean number is, which decides the English forms that may state it:
 * - count: amounts, people, tracks, days, years, weeks, months (a cardinal, a word, an ordinal);
 * - amount: a count in a currency (a cardinal only, in no other currency);
 * - percent: 12.5%, 3%p (a percentage in English);
 * - month: N월 (the month's name or the number);
 * - quarter: N분기, Q3 (Q3, 3Q, 3rd or third);
 * - rank: N위 (No. N, an ordinal, the number; 1위 also 'top');
 * - time: 오후 3시 3분 (3:03 p.m., 15:03), so a wrong hour cannot hide behind an equal minute;
 * - identifier: HBM4, 2NE1 (the same token in the English).
 */
type KoreanKind = 'count' | 'amount' | 'percent' | 'month' | 'quarter' | 'rank' | 'time' | 'identifier';

type Meridiem = 'am' | 'pm' | null;

/** A clock time: hour as written (0-24), minute, and a.m./p.m. when stated. */
interface ClockTime {
  hour: number;
  minute: number;
  meridiem: Meridiem;
}

interface KoreanMention {
  kind: KoreanKind;
  value: number;
  currency: Currency | null;
  /** '%p': a percentage-point change; English may say 'points'. */
  points: boolean;
  token: string;
  /** The number as the Korean wrote it, with its unit word: '450억 원', '11월', 'HBM4'. */
  surface: string;
  time?: ClockTime;
  /** Part of a name, glued to Hangul (코인98, 1인치네트워크(1INCH)): the English may glue it to Latin letters (Coin98, 1inch). */
  glued?: boolean;
  /** Where it stands in the expanded text, so `missing` reads in the Korean's order. */
  at?: number;
}

/** Unit words after a Korean number, longest first where they share a start. */
const KOREAN_CONTEXT: readonly (readonly [RegExp, KoreanKind, Currency | null, boolean])[] = [
  [/^\s?(?:%p|%포인트|퍼센트포인트)/, 'percent', null, true],
  [/^\s?(?:%|％|퍼센트)/, 'percent', null, false],
  [/^\s?분기/, 'quarter', null, false],
  [/^\s?(?:원|₩)/, 'amount', 'krw', false],
  [/^\s?(?:달러|불(?![가-힣]))/, 'amount', 'usd', false],
  [/^\s?(?:엔|유로|위안|파운드)(?![가-힣])/, 'amount', 'other', false],
  [/^\s?월/, 'month', null, false],
  [/^\s?위/, 'rank', null, false],
];

/** Counter words shown after a figure in `missing` ('12곡', '3일'), longest first. */
const COUNTER = /^\s?(?:개월|주년|시간|관왕|나노|번째|거래일|개국|개사|년|월|일|주|개|명|곡|회|장|곳|배|건|편|분|초|세|차|대|층|인|위|종)/;

const NUMBER_TOKEN = /^(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?$/;
/** Latin units glued to a figure are quantities (2nm, 16GB), not product names. */
const LATIN_UNIT = /^(\d+(?:\.\d+)?)(?:nm|mm|cm|km|kg|GB|TB|MB|Gb|Tb|Gbps|GHz|MHz|kW|MW|GW|kWh|MWh|GWh|TWh|mAh|W|V)$/;
const QUARTER_TOKEN = /^(?:Q([1-4])|([1-4])Q(?:\d{2})?)$/i;
const KOREAN_TOKEN = /[A-Za-z0-9](?:[A-Za-z0-9]|[.,](?=\d))*/g;
const ISO_DATE = /(?<!\d)(\d{4})[.\-/](\d{1,2})[.\-/](\d{1,2})(?!\d)/g;
/** 오후 3시 3분, 0시 4분, 9시 반; not 12시간 (hours), 3시즌 or 5시리즈. */
const KOREAN_TIME = /(?:(오전|새벽|아침|오후|낮|저녁|밤)\s?)?(?<![\d.,A-Za-z])(\d{1,2})시(?![간즌점리])(?:\s?(\d{1,2})분|\s?(반))?/g;
const KOREAN_MERIDIEM: Readonly<Record<string, Meridiem>> = {
  오전: 'am',
  새벽: 'am',
  아침: 'am',
  오후: 'pm',
  낮: 'pm',
  저녁: 'pm',
  밤: 'pm',
};

const mask = (text: string, start: number, length: number): string =>
  text.slice(0, start) + ' '.repeat(length) + text.slice(start + length);
/** A range joiner: the first figure of 3~5% is a percentage too. */
const RANGE_JOINER = /^\s?[~∼～\-–]\s?$/;

const toNumber = (token: string): number => Number(token.replaceAll(',', ''));

/** The Korean numbers to look for, from the expanded text; `spans` maps expanded figures back to what was written. */
function koreanMentions(expanded: string, spans: readonly { start: number; end: number; original: string }[]): KoreanMention[] {
  const mentions: KoreanMention[] = [];
  const originalAt = new Map(spans.map((s) => [s.start, s.original]));
  // Dates written with separators: year, month, day.
  let masked = expanded;
  for (const m of expanded.matchAll(ISO_DATE)) {
    const [whole, y, mo, d] = m as unknown as [string, string, string, string];
    const month = Number(mo);
    const at = m.index;
    mentions.push({ kind: 'count', value: Number(y), currency: null, points: false, token: y, surface: whole, at });
    mentions.push({
      kind: month >= 1 && month <= 12 ? 'month' : 'count',
      value: month,
      currency: null,
      points: false,
      token: mo,
      surface: whole,
      at,
    });
    mentions.push({ kind: 'count', value: Number(d), currency: null, points: false, token: d, surface: whole, at });
    masked = mask(masked, m.index, whole.length);
  }
  for (const m of masked.matchAll(KOREAN_TIME)) {
    const [whole, period, hour, minute, half] = m as unknown as [
      string,
      string | undefined,
      string,
      string | undefined,
      string | undefined,
    ];
    const time: ClockTime = {
      hour: Number(hour),
      minute: half ? 30 : Number(minute ?? 0),
      meridiem: period ? KOREAN_MERIDIEM[period]! : null,
    };
    if (time.hour > 24 || time.minute > 59) continue;
    mentions.push({
      kind: 'time',
      value: hour24(time) * 60 + time.minute,
      currency: null,
      points: false,
      token: whole,
      surface: whole.trim(),
      time,
      at: m.index,
    });
    masked = mask(masked, m.index, whole.length);
  }

  const tokens = [...masked.matchAll(KOREAN_TOKEN)].filter((m) => /\d/.test(m[0]));
  // Right to left, so the first figure of a range can take its partner's unit.
  const found: KoreanMention[] = [];
  let next: { start: number; mention: KoreanMention } | null = null;
  for (let t = tokens.length - 1; t >= 0; t--) {
    const m = tokens[t]!;
    const token = m[0];
    const start = m.index;
    const end = start + token.length;
    const written = originalAt.get(start) ?? token;
    const quarter = QUARTER_TOKEN.exec(token);
    const unit = LATIN_UNIT.exec(token);
    if (quarter) {
      const value = Number(quarter[1] ?? quarter[2]);
      found.push({ kind: 'quarter', value, currency: null, points: false, token, surface: token, at: start });
      next = null;
      continue;
    }
    if (!NUMBER_TOKEN.test(token) && !unit) {
      if (/[A-Za-z]/.test(token)) {
        found.push({ kind: 'identifier', value: NaN, currency: null, points: false, token, surface: token, at: start });
        next = null;
        continue;
      }
      // 1,2,3위 or 2025.11: separate figures, each with the unit after the last.
      for (const part of token.split(/[.,]/).reverse()) {
        if (part) found.push({ ...contextMention(masked, end, part, part, null), at: start });
      }
      next = null;
      continue;
    }
    const figure = unit ? unit[1]! : token;
    const mention: KoreanMention = unit
      ? { kind: 'count', value: Number(figure), currency: null, points: false, token: figure, surface: token }
      : contextMention(masked, end, figure, written, next && RANGE_JOINER.test(masked.slice(end, next.start)) ? next : null);
    if (mention.kind === 'count' && /[가-힣]/.test(masked[start - 1] ?? '')) {
      mention.glued = true;
      mention.surface = (/[가-힣]+$/.exec(masked.slice(Math.max(0, start - 12), start))?.[0] ?? '') + mention.surface;
    } else if (mention.kind === 'count' && !unit) {
      // A figure opening a name written 'Hangul(Latin)', the way Korean news writes tokens: 1인치네트워크(1INCH).
      const name = /^[가-힣]+(?=\([A-Za-z0-9][A-Za-z0-9 .\-]*\))/.exec(masked.slice(end, end + 24));
      if (name) {
        mention.glued = true;
        mention.surface = figure + name[0];
      }
    }
    if (masked[start - 1] === '$') {
      mention.kind = 'amount';
      mention.currency = 'usd';
    }
    mention.at = start;
    found.push(mention);
    next = { start, mention };
  }
  return mentions.concat(found).sort((a, b) => (a.at ?? 0) - (b.at ?? 0));
}

/** A figure with the unit word after it (or its range partner's unit when it has none). */
function contextMention(
  text: string,
  end: number,
  figure: string,
  written: string,
  partner: { mention: KoreanMention } | null,
): KoreanMention {
  const value = toNumber(figure);
  const after = text.slice(end, end + 8);
  for (const [pattern, kind, currency, points] of KOREAN_CONTEXT) {
    const m = pattern.exec(after);
    if (!m) continue;
    const usable =
      kind === 'month'
        ? Number.isInteger(value) && value >= 1 && value <= 12
        : kind === 'quarter'
          ? value >= 1 && value <= 4 && Number.isInteger(value)
          : true;
    if (!usable) break;
    return { kind, value, currency, points, token: figure, surface: written + m[0] };
  }
  if (partner) {
    const { kind, currency, points } = partner.mention;
    if (kind !== 'identifier') return { kind, value, currency, points, token: figure, surface: written };
  }
  return { kind: 'count', value, currency: null, points: false, token: figure, surface: written + (COUNTER.exec(after)?.[0] ?? '') };
}

// ------------------------------------------------------------------ numbers of the English text

type EnglishKind = 'cardinal' | 'ordinal' | 'month' | 'quarter' | 'rank' | 'time';

interface EnglishMention {
  kind: EnglishKind;
  value: number;
  /** Half-width of the rounding the English shows: null when exact (no scale word). */
  precision: number | null;
  /** Factor of the scale word (1e9 for billion), 1 without one. */
  scale: number;
  /** Digits after the decimal point as written. */
  decimals: number;
  percent: boolean;
  points: boolean;
  currency: Currency | null;
  start: number;
  end: number;
  time?: ClockTime;
}

const SCALE_WORDS: Readonly<Record<string, number>> = {
  thousand: 1e3,
  million: 1e6,
  billion: 1e9,
  trillion: 1e12,
  mn: 1e6,
  bn: 1e9,
  tn: 1e12,
  trn: 1e12,
  k: 1e3,
  m: 1e6,
  b: 1e9,
};

/** Letters a figure may be glued to and still be a figure (2nm, 45bn, 3rd, 10x, 3pm); 1inch and 0x are names. */
const EN_FIGURE_SUFFIX = String.raw`(?:st|nd|rd|th|bn|mn|tn|trn|[mbkx]|nm|mm|cm|km|kg|GB|TB|MB|Gb|Tb|Gbps|GHz|MHz|kW|MW|GW|kWh|MWh|GWh|TWh|mAh|W|V|[ap]\.?m)\b`;

const EN_NUMERAL = new RegExp(
  String.raw`(?<![A-Za-z0-9_.,])(?<pre>US\$|\$|USD ?|₩|KRW ?|W(?=\d))?(?<int>\d{1,3}(?:,\d{3})+|\d+)(?<frac>\.\d+)?(?=[^A-Za-z]|$|${EN_FIGURE_SUFFIX})` +
    String.raw`(?:(?<ord>st|nd|rd|th)\b|[\s-]?(?<scale>thousand|million|billion|trillion|bn|mn|tn|trn)\b|(?<letter>[mbk])\b)?` +
    String.raw`(?<pct>\s?(?:%p?|percent\b|per cent\b|percentage points?\b|pp\b)|-percent\b)?(?<pts>\s(?:points?)\b)?` +
    String.raw`(?<post>\s(?:won|dollars?|USD|KRW)\b)?`,
  'g',
);

const UNIT_WORDS = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const TEN_WORDS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const ORDINAL_UNIT_WORDS = [
  '',
  'first',
  'second',
  'third',
  'fourth',
  'fifth',
  'sixth',
  'seventh',
  'eighth',
  'ninth',
  'tenth',
  'eleventh',
  'twelfth',
  'thirteenth',
  'fourteenth',
  'fifteenth',
  'sixteenth',
  'seventeenth',
  'eighteenth',
  'nineteenth',
];
const ORDINAL_TEN_WORDS = ['', '', 'twentieth', 'thirtieth', 'fortieth', 'fiftieth', 'sixtieth', 'seventieth', 'eightieth', 'ninetieth'];
const MONTH_NAMES = [
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
const MONTH_ABBREVIATIONS: Readonly<Record<string, number>> = {
  Jan: 1,
  Feb: 2,
  Mar: 3,
  Apr: 4,
  Jun: 6,
  Jul: 7,
  Aug: 8,
  Sep: 9,
  Sept: 9,
  Oct: 10,
  Nov: 11,
  Dec: 12,
};

const alternation = (words: readonly string[]): string => words.filter(Boolean).join('|');
const EN_WORD_CARDINAL = new RegExp(
  String.raw`\b(?:(?<tens>${alternation(TEN_WORDS)})(?:[- ](?<ones>${alternation(UNIT_WORDS.slice(1, 10))}))?|(?<unit>${alternation(UNIT_WORDS)})|(?<dozen>a dozen))\b` +
    String.raw`(?<hundred>[\s-]+hundred\b)?(?:[\s-]+(?<scale>thousand|million|billion|trillion)\b)?(?<pct>\s(?:percent|per cent|percentage points?)\b)?`,
  'gi',
);
const EN_WORD_ORDINAL = new RegExp(
  String.raw`\b(?:(?:(?<tens>${alternation(TEN_WORDS)})[- ])?(?<ones>${alternation(ORDINAL_UNIT_WORDS)})|(?<round>${alternation(ORDINAL_TEN_WORDS)}))\b`,
  'gi',
);
const EN_MONTH = new RegExp(
  String.raw`\b(?:(?<full>${MONTH_NAMES.join('|')})|(?<abbr>${Object.keys(MONTH_ABBREVIATIONS).join('|')})\b\.?)`,
  'g',
);
const EN_QUARTER = /(?<![A-Za-z0-9])(?:Q([1-4])(?![0-9])|([1-4])Q(?![A-Za-z]))/g;
const EN_RANK = /(?:\bNo\.\s?|\bnumber\s+|#)(\d+)\b|\b(?:top(?:s|ped|ping)?|number one)\b/gi;
/** 4:03 p.m., 16:03, 3 p.m., 3pm, noon, midnight. */
const EN_TIME =
  /(?<![\d.,:])(\d{1,2})(?::(\d{2}))?(?!\d)(?:\s?([ap])\.?m(?:\.|\b))|(?<![\d.,:])(\d{1,2}):(\d{2})(?![\d:])|\b(noon|midnight)\b/gi;
const EN_RANGE_JOINER = /^\s?(?:-|–|~|to)\s?$/;

function currencyOf(pre: string | undefined, post: string | undefined): Currency | null {
  const mark = `${pre ?? ''}${post ?? ''}`.trim().toLowerCase();
  if (!mark) return null;
  if (/\$|usd|dollar/.test(mark)) return 'usd';
  if (/₩|krw|won|^w/.test(mark)) return 'krw';
  return 'other';
}

/** Every number stated in the English text, in the forms a translation may use. */
function englishMentions(text: string): EnglishMention[] {
  const mentions: EnglishMention[] = [];
  const numerals: EnglishMention[] = [];
  for (const m of text.matchAll(EN_NUMERAL)) {
    const g = m.groups!;
    const decimals = g['frac'] ? g['frac'].length - 1 : 0;
    const base = Number(`${g['int']!.replaceAll(',', '')}${g['frac'] ?? ''}`);
    const currency = currencyOf(g['pre'], g['post']);
    // A bare m/b/k is a scale only after a currency sign ($5m); 5m alone may be metres.
    const scaleWord = g['scale'] ?? (g['letter'] && g['pre'] ? g['letter'] : undefined);
    const scale = scaleWord ? SCALE_WORDS[scaleWord.toLowerCase()]! : 1;
    const mention: EnglishMention = {
      kind: g['ord'] ? 'ordinal' : 'cardinal',
      value: base * scale,
      precision: scaleWord ? (scale * 10 ** -decimals) / 2 : null,
      scale,
      decimals,
      percent: Boolean(g['pct']),
      points: Boolean(g['pts']) || /point/.test(g['pct'] ?? ''),
      currency,
      start: m.index,
      end: m.index + m[0].length,
    };
    numerals.push(mention);
  }
  // Ranges: the first figure of '3-5%' or '3 to 5 billion won' takes the second's unit too.
  for (let i = 0; i + 1 < numerals.length; i++) {
    const a = numerals[i]!;
    const b = numerals[i + 1]!;
    if (a.kind !== 'cardinal' || a.percent || a.precision !== null || !EN_RANGE_JOINER.test(text.slice(a.end, b.start))) continue;
    if (!b.percent && b.precision === null && b.currency === null) continue;
    const precision = b.precision === null ? null : (b.scale * 10 ** -a.decimals) / 2;
    mentions.push({
      ...a,
      value: a.value * b.scale,
      precision,
      scale: b.scale,
      percent: b.percent,
      points: b.points,
      currency: b.currency,
    });
  }
  mentions.push(...numerals);

  for (const m of text.matchAll(EN_WORD_CARDINAL)) {
    const g = m.groups!;
    let value = g['dozen']
      ? 12
      : g['unit']
        ? UNIT_WORDS.indexOf(g['unit'].toLowerCase())
        : TEN_WORDS.indexOf(g['tens']!.toLowerCase()) * 10 + (g['ones'] ? UNIT_WORDS.indexOf(g['ones'].toLowerCase()) : 0);
    if (g['hundred']) value *= 100;
    const scale = g['scale'] ? SCALE_WORDS[g['scale'].toLowerCase()]! : 1;
    mentions.push({
      kind: 'cardinal',
      value: value * scale,
      precision: g['scale'] ? scale / 2 : null,
      scale,
      decimals: 0,
      percent: Boolean(g['pct']),
      points: /point/i.test(g['pct'] ?? ''),
      currency: null,
      start: m.index,
      end: m.index + m[0].length,
    });
  }
  for (const m of text.matchAll(EN_WORD_ORDINAL)) {
    const g = m.groups!;
    const value = g['round']
      ? ORDINAL_TEN_WORDS.indexOf(g['round'].toLowerCase()) * 10
      : (g['tens'] ? TEN_WORDS.indexOf(g['tens'].toLowerCase()) * 10 : 0) + ORDINAL_UNIT_WORDS.indexOf(g['ones']!.toLowerCase());
    mentions.push(simple('ordinal', value, m.index, m[0].length));
  }
  for (const m of text.matchAll(EN_MONTH)) {
    const value = m.groups!['full'] ? MONTH_NAMES.indexOf(m.groups!['full']) + 1 : MONTH_ABBREVIATIONS[m.groups!['abbr']!]!;
    mentions.push(simple('month', value, m.index, m[0].length));
  }
  for (const m of text.matchAll(EN_QUARTER)) mentions.push(simple('quarter', Number(m[1] ?? m[2]), m.index, m[0].length));
  for (const m of text.matchAll(EN_RANK)) mentions.push(simple('rank', m[1] ? Number(m[1]) : 1, m.index, m[0].length));
  const times: EnglishMention[] = [];
  for (const m of text.matchAll(EN_TIME)) {
    const [, hour12, minute12, ap, hour24, minute24, word] = m;
    const time: ClockTime = word
      ? { hour: word.toLowerCase() === 'noon' ? 12 : 0, minute: 0, meridiem: word.toLowerCase() === 'noon' ? 'pm' : 'am' }
      : hour12 !== undefined
        ? { hour: Number(hour12), minute: Number(minute12 ?? 0), meridiem: ap!.toLowerCase() === 'a' ? 'am' : 'pm' }
        : { hour: Number(hour24), minute: Number(minute24), meridiem: null };
    times.push({ ...simple('time', time.hour * 60 + time.minute, m.index, m[0].length), time });
  }
  // The figures of 10:04 p.m. state a time only: its 4 must not vouch for a Korean 4일.
  const inTime = (e: EnglishMention): boolean => times.some((t) => e.start >= t.start && e.start < t.end);
  return [...mentions.filter((e) => (e.kind !== 'cardinal' && e.kind !== 'ordinal') || !inTime(e)), ...times];
}

const simple = (kind: EnglishKind, value: number, start: number, length: number): EnglishMention => ({
  kind,
  value,
  precision: null,
  scale: 1,
  decimals: 0,
  percent: false,
  points: false,
  currency: null,
  start,
  end: start + length,
});

// ------------------------------------------------------------------ matching

/** Largest relative gap a rounded English figure may show (9.1 trillion for 9조1234억 is 0.3 %). */
const MAX_ROUNDING_GAP = 0.05;

/** Same value, exactly, or as the English's rounding of it: within half its last digit and 5 %. */
function sameValue(korean: number, english: EnglishMention): boolean {
  const gap = Math.abs(korean - english.value);
  const epsilon = 1e-9 * Math.max(1, Math.abs(korean));
  if (english.precision === null) return gap <= epsilon;
  return gap <= english.precision + epsilon && gap <= MAX_ROUNDING_GAP * Math.abs(korean) + epsilon;
}

/**
 * Whether an English mention states a Korean number. A month or a rank may be a bare figure only
 * when the English names no month (resp. writes no rank form) at all: 'September 10' must not pass
 * for 10월 10일 on the strength of the day.
 */
function satisfies(k: KoreanMention, e: EnglishMention, english: EnglishForms): boolean {
  if (k.kind === 'percent') return (e.percent || (k.points && e.points)) && e.kind === 'cardinal' && sameValue(k.value, e);
  if (e.percent) return false;
  if (k.currency && e.currency && k.currency !== e.currency) return false;
  const bare = e.kind === 'cardinal' && e.precision === null;
  switch (k.kind) {
    case 'amount':
      return e.kind === 'cardinal' && sameValue(k.value, e);
    case 'month':
      return (e.kind === 'month' || (bare && !english.namesMonths)) && e.value === k.value;
    case 'quarter':
      return (e.kind === 'quarter' || e.kind === 'ordinal') && e.value === k.value;
    case 'rank':
      return (e.kind === 'rank' || e.kind === 'ordinal' || (bare && !english.writesRanks)) && e.value === k.value;
    case 'count':
      return (e.kind === 'cardinal' && sameValue(k.value, e)) || (e.kind === 'ordinal' && e.value === k.value);
    case 'time':
      return e.kind === 'time' && sameTime(k.time!, e.time!);
    default:
      return false;
  }
}

/** The hour on a 24-hour clock, when the meridiem says (3 p.m. → 15); the hour as written otherwise. */
const hour24 = (t: ClockTime): number => (t.meridiem === 'pm' ? (t.hour % 12) + 12 : t.meridiem === 'am' ? t.hour % 12 : t.hour);

/** Same clock time: minutes equal; hours equal on a 24-hour clock, or on a 12-hour one when either side leaves a.m./p.m. open. */
function sameTime(a: ClockTime, b: ClockTime): boolean {
  if (a.minute !== b.minute) return false;
  const open = (t: ClockTime): boolean => t.meridiem === null && t.hour <= 12;
  return open(a) || open(b) ? hour24(a) % 12 === hour24(b) % 12 : hour24(a) === hour24(b);
}

/** The English's mentions and which kinds of form it uses at all. */
interface EnglishForms {
  mentions: EnglishMention[];
  namesMonths: boolean;
  writesRanks: boolean;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The outcome of {@link checkNumbers}. */
export interface NumberCheck {
  /** True when every Korean number was found in the English. */
  ok: boolean;
  /** Korean numbers not found, as the Korean wrote them ('450억 원', '11월', 'HBM4'), each once. */
  missing: string[];
  /** How many distinct Korean numbers were checked. */
  checked: number;
}

/**
 * Checks that every number of a Korean text is stated, correctly scaled, in its English
 * translation: the gate that keeps a wrong translation unpublished. The Korean is expanded first
 * (450억 → 45,000,000,000), so raw Korean is fine. English may write figures with scale words
 * (45 billion, $13bn, 4.5 trillion won), words (two, twelve), ordinals (2nd, third), Q3, month
 * names, No. 1. Rounding is accepted only to the English's displayed precision and within 5 %
 * (123.4 million for 1억2340만, not 120 million); percentages, dates and plain figures must match
 * exactly. A figure inside a Latin product token (HBM4, DDR5, 2NE1) is an identifier and must
 * appear as that token; a figure that is part of a Hangul name (코인98, 1인치네트워크(1INCH)) may
 * appear glued to Latin letters (Coin98, 1inch), and English figures glued to other letters than
 * a unit (1inch, 0x) count for nothing else. Clock times (오후 3시 3분) must appear as times (3:03 p.m., 15:03), and the figures
 * of an English time count for nothing else. A figure found only inside a longer one (12 in 120) does not count.
 * The check is per number, not per position: it cannot tell two swapped percentages apart.
 */
export function checkNumbers(korean: string, english: string): NumberCheck {
  const spans = koreanNumberSpans(korean);
  const expanded = expandSpans(korean, spans);
  const koreanSide = koreanMentions(expanded.text, expanded.spans);
  const mentions = englishMentions(english);
  const englishSide: EnglishForms = {
    mentions,
    namesMonths: mentions.some((e) => e.kind === 'month'),
    writesRanks: mentions.some((e) => e.kind === 'rank'),
  };
  const seen = new Set<string>();
  const missing: string[] = [];
  for (const k of koreanSide) {
    const key = `${k.kind}|${k.kind === 'identifier' ? k.token.toLowerCase() : k.value}|${k.currency ?? ''}|${k.points}|${k.glued === true}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const found =
      k.kind === 'identifier'
        ? new RegExp(`(?<![A-Za-z0-9])${escapeRegExp(k.token)}(?![A-Za-z0-9])`, 'i').test(english)
        : englishSide.mentions.some((e) => satisfies(k, e, englishSide)) ||
          (k.glued === true &&
            new RegExp(`[A-Za-z]${escapeRegExp(k.token)}(?![0-9])|(?<![A-Za-z0-9.,])${escapeRegExp(k.token)}[A-Za-z]`).test(english));
    if (!found && !missing.includes(k.surface)) missing.push(k.surface);
  }
  return { ok: missing.length === 0, missing, checked: seen.size };
}

/** The expansion with the spans' positions in the expanded text. */
function expandSpans(
  text: string,
  spans: readonly KoreanNumberSpan[],
): { text: string; spans: { start: number; end: number; original: string }[] } {
  let out = '';
  let at = 0;
  const moved: { start: number; end: number; original: string }[] = [];
  for (const span of spans) {
    out += text.slice(at, span.start);
    moved.push({ start: out.length, end: out.length + span.expanded.length, original: span.original });
    out += span.expanded;
    at = span.end;
  }
  return { text: out + text.slice(at), spans: moved };
}
