/**
 * How the korea adapters bend instead of breaking on what an upstream really sends
 * (docs/upstreams-korea.md, "When a payload differs from the documentation"):
 *
 * - a list is read row by row: a row that does not parse is skipped and counted, the rest is kept;
 * - a value outside the documented set is kept as `other` with the value sent (`knownOr`);
 * - a field the upstream's documentation does not promise is optional in the adapters' schemas.
 *
 * What was skipped travels with the rows (`RowsRead`), so the ingest step can log it and record
 * it (ingest-failures.ts, `ingest_skipped_rows`).
 */
import { z } from 'zod';
import { describeIssues } from '../../../lib/zod-issues.ts';

/** Rows an adapter read from one list, and why it skipped the others ("KRW-XYZ: trade_price: …"). */
export interface RowsRead<T> {
  rows: T[];
  /** Rows in the upstream's list, read or not. */
  total: number;
  skipped: string[];
}

/**
 * Parses every item of a list on its own. `label` names an item in messages (its market code when
 * it has one, else its position), so a skipped row can be found in the upstream's answer.
 */
export function readRows<T>(items: readonly unknown[], schema: z.ZodType<T>, label: (item: unknown, index: number) => string): RowsRead<T> {
  const out: RowsRead<T> = { rows: [], total: items.length, skipped: [] };
  items.forEach((item, i) => {
    const parsed = schema.safeParse(item);
    if (parsed.success) out.rows.push(parsed.data);
    else out.skipped.push(`${label(item, i)}: ${describeIssues(parsed.error.issues)}`);
  });
  return out;
}

/** An item's string field as its label ('KRW-BTC'), else its position ('row 3'). */
export function labelBy(field: string): (item: unknown, index: number) => string {
  return (item, index) => {
    const value = typeof item === 'object' && item !== null ? (item as Record<string, unknown>)[field] : undefined;
    return typeof value === 'string' && value.length > 0 && value.length <= 40 ? value : `row ${index + 1}`;
  };
}

/** A value of a documented set, or `other` when the upstream sends one it did not document; `raw` is what it sent. */
export interface Known<V extends string> {
  value: V | 'other';
  raw: string;
}

/** A string read against its documented values: an unknown one is kept as `other` with the raw value, never a parse failure. */
export function knownOr<const V extends readonly string[]>(values: V): z.ZodType<Known<V[number]>> {
  const known = new Set<string>(values);
  return z.string().transform((raw) => ({ value: known.has(raw) ? (raw as V[number]) : 'other', raw }));
}

/** "market_warning \"WATCH\" (KRW-ABC, KRW-XYZ)": the undocumented values of one field, for the run's notes. */
export function unknownValues(field: string, seen: ReadonlyArray<{ value: Known<string>; where: string }>): string[] {
  const byRaw = new Map<string, string[]>();
  for (const { value, where } of seen) {
    if (value.value !== 'other') continue;
    byRaw.set(value.raw, [...(byRaw.get(value.raw) ?? []), where]);
  }
  return [...byRaw].map(
    ([raw, wheres]) =>
      `${field} ${JSON.stringify(raw)} is not a documented value, kept as other (${wheres.slice(0, 5).join(', ')}${wheres.length > 5 ? `, +${wheres.length - 5} more` : ''})`,
  );
}

/** A finite number sent as a JSON number or a decimal string ("91200000.0", "5.485e-05"). */
export const NumberOrDecimalString = z.union([
  z.number().finite(),
  z
    .string()
    .regex(/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/, 'expected a number')
    .transform(Number),
]);

/** Epoch milliseconds sent as an integer or a string of digits. */
export const EpochMs = z.union([
  z.number().int().nonnegative(),
  z.string().regex(/^\d+$/, 'expected epoch milliseconds').transform(Number),
]);
