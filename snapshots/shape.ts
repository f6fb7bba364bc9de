/**
 * Whether a dataset has the shape its catalog declaration gives (catalog/datasets.ts: a table's
 * columns and Parquet types, a document's zod schema). The writer refuses to publish one that does
 * not (a new file) or to reuse one (a kept or carried-over file written by an older version of the
 * code); the reader withholds one from the version it serves, so a handler never reads a shape it
 * was not written for. Datasets the catalog does not declare (tests' own) have no shape to check.
 */
import { findDataset } from '../catalog/datasets.ts';
import type { DatasetDecl } from '../catalog/types.ts';
import { describeIssues } from '../lib/zod-issues.ts';
import type { ColumnSchema } from './manifest.ts';

/** The catalog's declaration of a dataset of `service`, if it declares one. */
export function declaredDataset(service: string, name: string): DatasetDecl | undefined {
  return service === 'korea' || service === 'analytics' ? findDataset(service, name) : undefined;
}

/** What is wrong with a table's columns (as the Parquet file reads back), or null when they are the declared ones. */
export function columnsProblem(decl: DatasetDecl, schema: readonly ColumnSchema[]): string | null {
  if (decl.kind !== 'table') return 'is declared a document but is a table';
  const want = Object.entries(decl.columns);
  const got = schema.map((c) => [c.name, c.type] as const);
  const wrong = want.findIndex(([n, t], i) => got[i]?.[0] !== n || got[i]?.[1] !== t);
  if (wrong >= 0) {
    const [n, t] = want[wrong]!;
    const had = got[wrong];
    return had
      ? `column ${wrong + 1} is ${had[0]} ${had[1]}, declared ${n} ${t}`
      : `has ${got.length} columns, declared ${want.length} (missing ${n} ${t})`;
  }
  if (got.length > want.length) {
    return `has undeclared columns ${got
      .slice(want.length)
      .map(([n]) => n)
      .join(', ')}`;
  }
  return null;
}

/** What is wrong with a document, or null when it parses with its declared schema. */
export function documentProblem(decl: DatasetDecl, document: unknown): string | null {
  if (decl.kind !== 'document') return 'is declared a table but is a document';
  const checked = decl.document.safeParse(document);
  return checked.success ? null : `does not have its declared shape: ${describeIssues(checked.error.issues)}`;
}
