/**
 * Publication times of feed items as UTC instants. RSS uses RFC 822 (`Thu, 30 Jul 2026 09:00:00
 * +0900`, zone names like KST or GMT), Atom and RDF use ISO 8601, and the ndsoft CMS behind many
 * Korean outlets writes `2026-07-30 08:31:00` with no zone at all. A time without a zone is read
 * as Korean time (UTC+9): every source here is a Korean outlet.
 */

const KST_MINUTES = 9 * 60;

const MONTHS: Record<string, number> = { jan: 0, feb: 1, mar: 2, apr: 3, may: 4, jun: 5, jul: 6, aug: 7, sep: 8, oct: 9, nov: 10, dec: 11 };

/** RFC 822 / 2822 zone names, in minutes east of UTC. */
const ZONES: Record<string, number> = {
  UT: 0,
  UTC: 0,
  GMT: 0,
  Z: 0,
  KST: KST_MINUTES,
  JST: KST_MINUTES,
  EST: -300,
  EDT: -240,
  CST: -360,
  CDT: -300,
  MST: -420,
  MDT: -360,
  PST: -480,
  PDT: -420,
};

const RFC822 =
  /^(?:[A-Za-z]{3,9},?\s*)?(\d{1,2})\s+([A-Za-z]{3,9})\.?\s+(\d{4}|\d{2})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*(?:([+-])(\d{2}):?(\d{2})|([A-Za-z]{1,5}))?$/;
const ISO_LIKE =
  /^(\d{4})[-./](\d{1,2})[-./](\d{1,2})(?:[T\s]+(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?)?\s*(?:(Z)|([+-])(\d{2}):?(\d{2}))?$/i;

function instant(y: number, mo: number, d: number, h: number, mi: number, s: number, offsetMinutes: number): Date | null {
  if (mo < 0 || mo > 11 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return null;
  const local = Date.UTC(y, mo, d, h, mi, Math.min(s, 59));
  if (new Date(local).getUTCDate() !== d) return null; // 31 June, 30 February
  return new Date(local - offsetMinutes * 60_000);
}

function offset(sign: string | undefined, hh: string | undefined, mm: string | undefined): number {
  const minutes = Number(hh) * 60 + Number(mm);
  return sign === '-' ? -minutes : minutes;
}

/** The instant a feed date names, or null when it cannot be read. */
export function parseFeedDate(raw: string | null | undefined): Date | null {
  const text = (raw ?? '').trim().replace(/\s+/g, ' ');
  if (!text) return null;

  const r = RFC822.exec(text);
  if (r) {
    const [, d, mon, y, h, mi, s, sign, oh, om, zone] = r;
    const month = MONTHS[mon!.slice(0, 3).toLowerCase()];
    if (month === undefined) return null;
    let zoneMinutes = KST_MINUTES;
    if (sign) zoneMinutes = offset(sign, oh, om);
    else if (zone) {
      const z = ZONES[zone.toUpperCase()];
      if (z === undefined) return null;
      zoneMinutes = z;
    }
    const year = y!.length === 2 ? 2000 + Number(y) : Number(y);
    return instant(year, month, Number(d), Number(h), Number(mi), Number(s ?? 0), zoneMinutes);
  }

  const i = ISO_LIKE.exec(text);
  if (i) {
    const [, y, mo, d, h, mi, s, z, sign, oh, om] = i;
    const zoneMinutes = z ? 0 : sign ? offset(sign, oh, om) : KST_MINUTES;
    return instant(Number(y), Number(mo) - 1, Number(d), Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0), zoneMinutes);
  }
  return null;
}
