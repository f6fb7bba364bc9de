/**
 * Reading one dataset of a snapshot for the analytics handlers: the dataset or the error that
 * becomes a 503 (never invented data), its data stamp, and its JSON text columns.
 */
import { absenceReason, type LoadedDataset, type LoadedSnapshot } from '../../snapshots/reader.ts';

/** A dataset the handler needs is not in the snapshot; the handler answers 503 with the message. */
export class DatasetMissing extends Error {}

export function dataset(snapshot: LoadedSnapshot, name: string): LoadedDataset {
  const data = snapshot.datasets.get(name);
  if (!data) {
    throw new DatasetMissing(
      `The "${name}" dataset is not in snapshot ${snapshot.version}: ${absenceReason(snapshot, name)}. Try again after the next update.`,
    );
  }
  return data;
}

/** The data stamp of a table dataset, from its manifest entry. */
export function stampOf(data: LoadedDataset): { source: string; as_of: string } {
  return { source: data.entry.source, as_of: data.entry.as_of };
}

/** stampOf, and when the labels' cohort evidence was taken (the day state), for label-bearing answers. */
export function labelStampOf(data: LoadedDataset): { source: string; as_of: string; cohort_state_as_of: string | null } {
  return { ...stampOf(data), cohort_state_as_of: data.entry.cohort_state_as_of ?? null };
}

export const parseJson = <T>(value: unknown, what: string): T => {
  if (typeof value !== 'string') throw new Error(`${what}: expected JSON text, got ${typeof value}`);
  return JSON.parse(value) as T;
};
