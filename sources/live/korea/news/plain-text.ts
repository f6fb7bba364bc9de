/**
 * Feed titles and descriptions as plain text: HTML tags stripped, entities decoded (named and
 * numeric), CDATA markers dropped, whitespace collapsed. Korean feeds often escape their HTML twice
 * (`&amp;lt;b&amp;gt;`, `&amp;quot;`), so decoding repeats until nothing changes (at most 3 passes),
 * stripping the tags each pass uncovers.
 *
 * Only ASCII-named tags are markup: `<반도체>` or `<기생충>` (Korean uses angle brackets for titles
 * of works) stay as text.
 */

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ensp: ' ',
  emsp: ' ',
  thinsp: ' ',
  zwnj: '',
  zwj: '',
  lrm: '',
  rlm: '',
  shy: '',
  middot: '·',
  bull: '•',
  hellip: '…',
  prime: '′',
  Prime: '″',
  lsquo: '‘',
  rsquo: '’',
  sbquo: '‚',
  ldquo: '“',
  rdquo: '”',
  bdquo: '„',
  laquo: '«',
  raquo: '»',
  lsaquo: '‹',
  rsaquo: '›',
  ndash: '–',
  mdash: '—',
  minus: '−',
  dagger: '†',
  Dagger: '‡',
  permil: '‰',
  tilde: '˜',
  circ: 'ˆ',
  copy: '©',
  reg: '®',
  trade: '™',
  deg: '°',
  plusmn: '±',
  times: '×',
  divide: '÷',
  micro: 'µ',
  para: '¶',
  sect: '§',
  cent: '¢',
  pound: '£',
  yen: '¥',
  euro: '€',
  curren: '¤',
  iexcl: '¡',
  iquest: '¿',
  frac12: '½',
  frac14: '¼',
  frac34: '¾',
  sup1: '¹',
  sup2: '²',
  sup3: '³',
  larr: '←',
  rarr: '→',
  uarr: '↑',
  darr: '↓',
  harr: '↔',
  lArr: '⇐',
  rArr: '⇒',
  hearts: '♥',
  star: '☆',
  starf: '★',
  le: '≤',
  ge: '≥',
  ne: '≠',
  asymp: '≈',
  infin: '∞',
  alpha: 'α',
  beta: 'β',
  gamma: 'γ',
  delta: 'δ',
  mu: 'μ',
  pi: 'π',
  sigma: 'σ',
  Omega: 'Ω',
};

// HTML maps numeric references in 0x80-0x9F to windows-1252 (old CMSes emit &#147; for “).
const WINDOWS_1252: Record<number, number> = {
  0x80: 0x20ac,
  0x85: 0x2026,
  0x91: 0x2018,
  0x92: 0x2019,
  0x93: 0x201c,
  0x94: 0x201d,
  0x95: 0x2022,
  0x96: 0x2013,
  0x97: 0x2014,
  0x99: 0x2122,
};

function codePoint(n: number): string {
  const cp = WINDOWS_1252[n] ?? n;
  if (!Number.isFinite(cp) || cp <= 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return '\uFFFD';
  return String.fromCodePoint(cp);
}

/** Decodes one layer of HTML character references; unknown names stay as written. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});/g, (whole, ref: string) => {
    if (ref[0] === '#') return codePoint(ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10));
    return NAMED[ref] ?? whole;
  });
}

// Tags after which words are separate; inline tags (<b> highlights, <a>, <span>) join their text.
const BLOCK = new Set([
  'br',
  'p',
  'div',
  'li',
  'ul',
  'ol',
  'tr',
  'td',
  'th',
  'table',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'blockquote',
  'figure',
  'figcaption',
  'img',
  'hr',
  'section',
  'article',
  'header',
  'footer',
  'dd',
  'dt',
  'iframe',
  'video',
]);

/** Removes tags, comments, scripts, styles and CDATA markers (one layer; entities untouched). */
export function stripMarkup(text: string): string {
  return text
    .replace(/<!--[\s\S]*?(?:-->|$)/g, ' ')
    .replace(/<(script|style)\b[\s\S]*?(?:<\/\1\s*>|$)/gi, ' ')
    .replace(/<!\[CDATA\[|\]\]>/g, '')
    .replace(/<\/?([A-Za-z][A-Za-z0-9:-]*)(?=[\s/>])[^<>]*>/g, (_tag, name: string) => (BLOCK.has(name.toLowerCase()) ? ' ' : ''));
}

export function collapseWhitespace(text: string): string {
  return text.replace(/[\s\u200b\ufeff]+/g, ' ').trim();
}

/** Feed HTML (or plain text) as one line of plain text. */
export function plainText(html: string | null | undefined): string {
  let text = html ?? '';
  for (let pass = 0; pass < 3; pass++) {
    const next = decodeEntities(stripMarkup(text));
    if (next === text) break;
    text = next;
  }
  return collapseWhitespace(stripMarkup(text));
}

/** At most `max` characters, cut on a word boundary (if one is near) and ending with '…'. */
export function capText(text: string, max = 1000): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space >= max * 0.8 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
