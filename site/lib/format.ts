/**
 * How numbers and times read on the site: en-US grouping, USDC amounts with enough decimals for
 * sub-cent prices, percentages with one decimal, UTC times spelled out.
 */
/*
 * Formatting runs a few hundred times per service page, 30,000 pages per build: Intl.NumberFormat
 * (and toLocaleString, which builds one per call) cost seconds of the build when measured, so
 * numbers are grouped by hand (en-US: comma thousands, point decimals).
 */
function group(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A fixed-point number with thousands grouped; trailing zeros after `keep` decimals dropped. */
function fixed(value: number, decimals: number, keep: number): string {
  const text = Math.abs(value).toFixed(decimals);
  const point = text.indexOf('.');
  let whole = point === -1 ? text : text.slice(0, point);
  let fraction = point === -1 ? '' : text.slice(point + 1);
  while (fraction.length > keep && fraction.endsWith('0')) fraction = fraction.slice(0, -1);
  whole = group(whole);
  const sign = value < 0 && Number(text) !== 0 ? '-' : '';
  return `${sign}${whole}${fraction ? `.${fraction}` : ''}`;
}

export function formatInt(value: number | null | undefined): string {
  return value === null || value === undefined ? '–' : fixed(Math.round(value), 0, 0);
}

/** A USDC amount: two decimals from 1 up; below, up to 4 or 6 so 0.0001 prices stay visible (at least 2). */
export function formatUsd(value: number | null | undefined): string {
  if (value === null || value === undefined) return '–';
  const abs = Math.abs(value);
  const sign = value < 0 ? '-' : '';
  return `${sign}$${abs >= 1 || abs === 0 ? fixed(abs, 2, 2) : fixed(abs, abs >= 0.01 ? 4 : 6, 2)}`;
}

export function formatPct(value: number | null | undefined): string {
  return value === null || value === undefined ? '–' : `${fixed(value, 1, 1)}%`;
}

/** '2026-11-24T14:06:00.000Z' → '2026-11-24 14:06 UTC'. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '–';
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) return iso;
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function formatDate(iso: string | null | undefined): string {
  return iso ? iso.slice(0, 10) : '–';
}

/** A label slug in words: 'suspected_wash' → 'suspected wash'. */
export function labelText(label: string): string {
  return label.replaceAll('_', ' ');
}

export function humanBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let v = bytes / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(1)} ${units[i]}`;
}

/** A long hex address shortened for tables: 0x47eb05…9838. */
export function shortAddress(address: string): string {
  return address.length > 14 ? `${address.slice(0, 8)}…${address.slice(-4)}` : address;
}
