/**
 * GET /api/v1/kimchi-premium/daily (free, CC0): the free daily preview of the Korea premium index
 * (catalog/korea.ts KIMCHI_PREMIUM_DAILY), answered from the kimchi-premium-daily table of the
 * snapshot served and nothing else, so no paid data is readable through it:
 *
 * - `?format=json` (default): the market-wide index and each symbol's days, grouped;
 * - `?format=csv`: the table's rows as CSV (exchanges as JSON text), in file order;
 * - `?format=parquet`: the published file itself, checked against the manifest's sha256.
 *
 * The table is read once per snapshot version (at most 21 series of 365 days). The landing page's
 * charts read the same answer (dailyPreviewOf).
 */
import { createHash } from 'node:crypto';
import { DOWNLOAD_MEDIA_TYPES } from '../../catalog/types.ts';
import { dailyPreviewThrough, KIMCHI_PREMIUM_DAILY, PREMIUM_ARCHIVE, type DailyPreviewFormat } from '../../catalog/korea.ts';
import { absenceReason, type LoadedDataset, type LoadedSnapshot } from '../../snapshots/reader.ts';
import { readRegularFile } from '../../snapshots/regular-file.ts';
import { queryRows } from './duck.ts';
import { notAvailable, type DataHandler, type DataRequest, type DataResult, type FileResult } from './types.ts';

export const DAILY_PREVIEW_DATASET = 'kimchi-premium-daily';
/** The published file is a few hundred kilobytes at most; anything far larger is not the file the pipeline wrote. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;
/** The table's columns, in file order (catalog/korea.ts KOREA_DATASET_SHAPES): the CSV's header. */
const COLUMNS = ['symbol', 'rank', 'day', 'premium_pct', 'min_pct', 'max_pct', 'samples', 'exchanges', 'source'] as const;

export interface PremiumDay {
  day: string;
  premium_pct: number;
  min_pct: number;
  max_pct: number;
  samples: number;
  exchanges: string[];
}

/** A row of the published table: a day of one symbol (ALL: the market-wide index, no rank). */
interface DailyRow extends PremiumDay {
  symbol: string;
  rank: number | null;
  source: string;
}

/** The JSON answer (catalog/korea.ts PremiumDailyBody). */
export interface DailyPreview {
  source: string;
  as_of: string;
  license: 'CC0-1.0';
  delayed_days: typeof KIMCHI_PREMIUM_DAILY.delayedDays;
  through: string;
  market: PremiumDay[];
  symbols: Array<{ symbol: string; rank: number; days: PremiumDay[] }>;
}

const tables = new WeakMap<LoadedDataset, Promise<DailyRow[]>>();

/** The table's rows in file order ('ALL' first, then by rank; each series by day). */
function rowsOf(data: LoadedDataset): Promise<DailyRow[]> {
  let rows = tables.get(data);
  if (!rows) {
    rows = queryRows(
      `SELECT symbol, rank, strftime(day, '%Y-%m-%d') AS day, premium_pct, min_pct, max_pct, samples, exchanges, source
         FROM read_parquet($path)`,
      { path: data.path },
    ).then((r) => r as unknown as DailyRow[]);
    tables.set(data, rows);
    rows.catch(() => tables.delete(data));
  }
  return rows;
}

const dayOf = (r: DailyRow): PremiumDay => ({
  day: r.day,
  premium_pct: r.premium_pct,
  min_pct: r.min_pct,
  max_pct: r.max_pct,
  samples: r.samples,
  exchanges: r.exchanges,
});

/** The preview of a snapshot version, or null when it has no kimchi-premium-daily table. */
export async function dailyPreviewOf(snapshot: LoadedSnapshot): Promise<DailyPreview | null> {
  const data = snapshot.datasets.get(DAILY_PREVIEW_DATASET);
  return data ? previewOf(data) : null;
}

async function previewOf(data: LoadedDataset): Promise<DailyPreview> {
  const rows = await rowsOf(data);
  const market = rows.filter((r) => r.symbol === PREMIUM_ARCHIVE.marketIndexSymbol && r.rank === null).map(dayOf);
  const bySymbol = new Map<string, { symbol: string; rank: number; days: PremiumDay[] }>();
  for (const r of rows) {
    if (r.rank === null) continue;
    let series = bySymbol.get(r.symbol);
    if (!series) bySymbol.set(r.symbol, (series = { symbol: r.symbol, rank: r.rank, days: [] }));
    series.days.push(dayOf(r));
  }
  return {
    source: data.entry.source,
    as_of: data.entry.as_of,
    license: 'CC0-1.0',
    delayed_days: KIMCHI_PREMIUM_DAILY.delayedDays,
    through: dailyPreviewThrough(data.entry.as_of),
    market,
    symbols: [...bySymbol.values()].sort((a, b) => a.rank - b.rank),
  };
}

/** One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. */
const csvField = (value: string): string => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);

function csvOf(rows: DailyRow[]): string {
  const lines = rows.map((r) =>
    COLUMNS.map((c) => {
      const v = r[c];
      return csvField(v === null ? '' : Array.isArray(v) ? JSON.stringify(v) : String(v));
    }).join(','),
  );
  return `${[COLUMNS.join(','), ...lines].join('\n')}\n`;
}

function datasetOf(req: DataRequest): LoadedDataset | DataResult {
  return (
    req.snapshot.datasets.get(DAILY_PREVIEW_DATASET) ??
    notAvailable(
      `The "${DAILY_PREVIEW_DATASET}" dataset is not in snapshot ${req.snapshot.version}: ${absenceReason(req.snapshot, DAILY_PREVIEW_DATASET)}. Try again after the next update.`,
    )
  );
}

const formatOf = (req: DataRequest): DailyPreviewFormat => (req.query.format as DailyPreviewFormat | undefined) ?? 'json';

export const kimchiPremiumDaily: DataHandler = {
  precheck(req) {
    const data = datasetOf(req);
    return 'entry' in data ? null : data;
  },
  async handle(req) {
    const data = datasetOf(req);
    if (!('entry' in data)) return data;
    if (formatOf(req) === 'csv') return { status: 200, body: csvOf(await rowsOf(data)), contentType: DOWNLOAD_MEDIA_TYPES.csv };
    return { status: 200, body: { ...(await previewOf(data)) } };
  },
  async file(req): Promise<FileResult | null> {
    const data = datasetOf(req);
    if (formatOf(req) !== 'parquet' || !('entry' in data)) return null;
    const { bytes } = await readRegularFile(data.path, `${DAILY_PREVIEW_DATASET}.parquet`, MAX_FILE_BYTES);
    // the published file, byte for byte: a file changed since the reader verified it is a damaged
    // version (the endpoint call then answers from a good one)
    if (createHash('sha256').update(bytes).digest('hex') !== data.entry.sha256) {
      throw new Error(`${DAILY_PREVIEW_DATASET}.parquet does not match its manifest sha256`);
    }
    return { status: 200, file: new Uint8Array(bytes), contentType: DOWNLOAD_MEDIA_TYPES.parquet };
  },
};
