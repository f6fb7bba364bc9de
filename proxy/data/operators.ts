/**
 * The operator behind a seller, as the paid answers show it (`operator: {id, sellers, evidence[]} | null`):
 * read from the free operators dataset (pipelines/analytics/datasets/operators.ts), a small table
 * loaded once per snapshot version into a map by seller address. A snapshot without the dataset
 * (published before it existed) answers null.
 */
import { selectList } from '../../catalog/analytics.ts';
import type { LoadedSnapshot } from '../../snapshots/reader.ts';
import { parquetSql } from '../../snapshots/reader.ts';
import { queryRows } from './duck.ts';
import { perVersion } from './version-cache.ts';

export interface OperatorRef {
  id: string;
  sellers: string[];
  evidence: string[];
}

async function loadOperators(snapshot: LoadedSnapshot): Promise<Map<string, OperatorRef>> {
  const bySeller = new Map<string, OperatorRef>();
  const data = snapshot.datasets.get('operators');
  if (!data || data.entry.kind !== 'table') return bySeller;
  const columns = selectList('operators', ['operator_id', 'sellers', 'evidence'], { jsonAsText: true });
  const rows = await queryRows(`SELECT ${columns} FROM ${parquetSql(data)}`);
  for (const row of rows) {
    const ref: OperatorRef = {
      id: String(row.operator_id),
      sellers: JSON.parse(String(row.sellers)) as string[],
      evidence: JSON.parse(String(row.evidence)) as string[],
    };
    for (const seller of ref.sellers) bySeller.set(seller, ref);
  }
  return bySeller;
}

/** The listed operator whose sellers include `seller`; null when none does. */
export async function operatorOfSeller(snapshot: LoadedSnapshot, seller: string | null | undefined): Promise<OperatorRef | null> {
  if (!seller) return null;
  const operators = await perVersion(snapshot, 'operators', () => loadOperators(snapshot));
  return operators.get(seller) ?? null;
}
