/**
 * FRED (fred.stlouisfed.org) daily series as keyless CSV: DGS3 (US 3-year yield, %), VIXCLS (VIX
 * close), DEXKOUS (KRW per USD, noon New York, a week behind). See docs/upstreams-korea.md, "FRED".
 *
 * `/graph/fredgraph.csv?id=DGS3&cosd=YYYY-MM-DD&coed=YYYY-MM-DD` answers
 * `observation_date,DGS3` then one `date,value` line per weekday; '.' (or an empty cell) marks a
 * day without a value (holidays) and becomes NULL, not zero. A line that does not read is skipped
 * and counted; a body that is not this CSV at all (no such header) fails the request.
 */
import type { RowsRead } from './lenient.ts';
import type { TextUpstream } from './text-upstream.ts';

export const FRED_SERIES = ['DGS3', 'VIXCLS', 'DEXKOUS'] as const;
export type FredSeries = (typeof FRED_SERIES)[number];

export interface Observation {
  date: string;
  value: number | null;
}

const excerpt = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 120);

/** Parses a fredgraph CSV for one series; `where` names the request in messages. */
export function parseFredCsv(text: string, series: string, where: string): RowsRead<Observation> {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  const header = lines[0]?.split(',').map((c) => c.trim()) ?? [];
  // Current files say observation_date, older ones DATE.
  if (header.length !== 2 || !/^(observation_date|date)$/i.test(header[0]!) || header[1] !== series) {
    throw new Error(`${where}: expected a CSV header "observation_date,${series}", got ${JSON.stringify(excerpt(text))}`);
  }
  const out: RowsRead<Observation> = { rows: [], total: lines.length - 1, skipped: [] };
  for (let i = 1; i < lines.length; i++) {
    const [date = '', raw = '', ...rest] = lines[i]!.split(',').map((c) => c.trim());
    if (rest.length || !/^\d{4}-\d{2}-\d{2}$/.test(date)) {
      out.skipped.push(`line ${i + 1} is not "YYYY-MM-DD,value": ${JSON.stringify(lines[i]!.slice(0, 60))}`);
      continue;
    }
    if (raw === '.' || raw === '') {
      out.rows.push({ date, value: null });
      continue;
    }
    const value = Number(raw);
    if (!/^-?\d+(\.\d+)?$/.test(raw) || !Number.isFinite(value)) {
      out.skipped.push(`line ${i + 1} has value ${JSON.stringify(raw.slice(0, 40))} for ${date}; expected a number or '.'`);
      continue;
    }
    out.rows.push({ date, value });
  }
  return out;
}

/** Observations of one series from `since` to `until` (inclusive, 'YYYY-MM-DD'). */
export async function fetchFredSeries(up: TextUpstream, series: FredSeries, since: string, until: string): Promise<RowsRead<Observation>> {
  const path = '/graph/fredgraph.csv';
  const text = await up.getText(path, { id: series, cosd: since, coed: until });
  const read = parseFredCsv(text, series, `${up.name}: ${path}?id=${series}`);
  // cosd/coed bound the answer; a server that ignores them must not widen what is stored.
  return { ...read, rows: read.rows.filter((r) => r.date >= since && r.date <= until) };
}
