/**
 * Table bodies as HTML strings, for the 30,000 service pages: Astro renders every expression of
 * a template through an async pipeline (escape, stringify, buffer), which for a 30-row table of
 * five cells cost more than the rest of the page; joining escaped strings here is a fraction of
 * that. Everything that goes in is escaped; the rows are inserted with set:html.
 */
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/** A cell: text (escaped here), with `num` for right-aligned figures, or trusted markup via `html`. */
export type Cell = string | { text: string; num?: boolean } | { html: string; num?: boolean };

function cellHtml(cell: Cell): string {
  if (typeof cell === 'string') return `<td>${escapeHtml(cell)}</td>`;
  const open = cell.num ? '<td class="num">' : '<td>';
  return `${open}${'html' in cell ? cell.html : escapeHtml(cell.text)}</td>`;
}

/** `<tr>` rows of a table body. */
export function tableRows(rows: ReadonlyArray<ReadonlyArray<Cell>>): string {
  let out = '';
  for (const row of rows) out += `<tr>${row.map(cellHtml).join('')}</tr>`;
  return out;
}

/** A link with escaped text and address. */
export function link(href: string, text: string): string {
  return `<a href="${escapeHtml(href)}">${escapeHtml(text)}</a>`;
}
