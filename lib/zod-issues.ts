/**
 * Zod validation issues as one readable line, for errors that name the offending field.
 */

/** Zod issues as "field: problem" ("items[3].accepts[0].network: Invalid input..."), the first three and a count of the rest. */
export function describeIssues(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): string {
  const shown = issues.slice(0, 3).map((issue) => {
    let field = '';
    for (const p of issue.path) field += typeof p === 'number' ? `[${p}]` : field ? `.${String(p)}` : String(p);
    return `${field || '(root)'}: ${issue.message}`;
  });
  const more = issues.length > 3 ? ` (+${issues.length - 3} more)` : '';
  return shown.join('; ') + more;
}
