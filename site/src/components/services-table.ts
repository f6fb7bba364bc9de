/**
 * The services table in the browser: loads /services/index.json (column arrays) once, then
 * searches, filters and sorts index arrays in memory and renders only the visible page of rows,
 * so 30,000 services stay fast. Search is debounced; the state is kept in the URL's query so a
 * filtered view can be linked. Without JavaScript the page keeps its static top-100 table.
 */
import { CATEGORIES } from '../../../catalog/categories.ts';
import { formatInt, formatPct, formatUsd } from '../../lib/format.ts';

interface ServicesIndex {
  count: number;
  columns: {
    id: number[];
    name: string[];
    description: string[];
    url: string[];
    category: string[];
    chain: string[];
    price: (number | null)[];
    price_bucket: string[];
    tx_24h: number[];
    volume_24h: number[];
    tx_total: number[];
    real_volume_pct: number[];
    wash_pct: number[];
    first_seen: string[];
    placeholder: boolean[];
  };
}

type SortKey =
  | 'name'
  | 'category'
  | 'chain'
  | 'price'
  | 'tx_24h'
  | 'volume_24h'
  | 'tx_total'
  | 'real_volume_pct'
  | 'wash_pct'
  | 'first_seen';

const PAGE_SIZE = 50;
const SEARCH_DELAY_MS = 150;
const TITLES = new Map<string, string>(CATEGORIES.map((c) => [c.slug, c.title]));

const COLUMNS: ReadonlyArray<{ key: SortKey; text: string; numeric: boolean }> = [
  { key: 'name', text: 'Service', numeric: false },
  { key: 'category', text: 'Category', numeric: false },
  { key: 'chain', text: 'Chain', numeric: false },
  { key: 'price', text: 'Price', numeric: true },
  { key: 'tx_24h', text: 'Tx 24h', numeric: true },
  { key: 'volume_24h', text: 'Volume 24h', numeric: true },
  { key: 'tx_total', text: 'Tx all time', numeric: true },
  { key: 'real_volume_pct', text: 'Real %', numeric: true },
  { key: 'wash_pct', text: 'Wash %', numeric: true },
  { key: 'first_seen', text: 'First seen', numeric: false },
];

interface State {
  q: string;
  category: string;
  chain: string;
  price: string;
  placeholders: boolean;
  sort: SortKey;
  order: 'asc' | 'desc';
  page: number;
}

function readState(): State {
  const p = new URLSearchParams(location.search);
  const sort = COLUMNS.find((c) => c.key === p.get('sort'))?.key ?? 'tx_24h';
  return {
    q: p.get('q') ?? '',
    category: p.get('category') ?? '',
    chain: p.get('chain') ?? '',
    price: p.get('price') ?? '',
    placeholders: p.get('placeholders') === '1',
    sort,
    order: p.get('order') === 'asc' ? 'asc' : 'desc',
    page: Math.max(1, Number(p.get('page')) || 1),
  };
}

function writeState(s: State): void {
  const p = new URLSearchParams();
  if (s.q) p.set('q', s.q);
  if (s.category) p.set('category', s.category);
  if (s.chain) p.set('chain', s.chain);
  if (s.price) p.set('price', s.price);
  if (s.placeholders) p.set('placeholders', '1');
  if (s.sort !== 'tx_24h') p.set('sort', s.sort);
  if (s.order !== 'desc') p.set('order', s.order);
  if (s.page > 1) p.set('page', String(s.page));
  const query = p.toString();
  history.replaceState(null, '', query ? `?${query}` : location.pathname);
}

function cell(text: string, numeric = false, kind: 'date' | null = null): HTMLTableCellElement {
  const td = document.createElement('td');
  td.textContent = text;
  if (numeric) td.className = 'num';
  if (kind) td.className = kind; // a date on one line: '2026-11-15' never wraps at its hyphen
  return td;
}

export async function startServicesTable(): Promise<void> {
  const form = document.querySelector<HTMLFormElement>('#service-filters');
  const holder = document.querySelector<HTMLElement>('#service-table');
  const status = document.querySelector<HTMLElement>('#service-status');
  const pager = document.querySelector<HTMLElement>('#service-pager');
  const pageText = document.querySelector<HTMLElement>('#service-page');
  if (!form || !holder || !status || !pager || !pageText) return;

  let index: ServicesIndex;
  try {
    const response = await fetch('/services/index.json');
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    index = (await response.json()) as ServicesIndex;
  } catch (err) {
    status.textContent = `The full list could not be loaded (${(err as Error).message}); showing the busiest services.`;
    return;
  }
  const c = index.columns;
  const n = index.count;
  // One lowercase haystack per service, built once: search is then a substring scan.
  const haystack = c.name.map((name, i) => `${name}\n${c.description[i]}\n${c.url[i]}`.toLowerCase());
  const categoryText = c.category.map((slug) => TITLES.get(slug) ?? slug);

  const state = readState();
  const input = (name: string) => form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement | null;
  (input('q') as HTMLInputElement).value = state.q;
  (input('category') as HTMLSelectElement).value = state.category;
  (input('chain') as HTMLSelectElement).value = state.chain;
  (input('price') as HTMLSelectElement).value = state.price;
  (input('placeholders') as HTMLInputElement).checked = state.placeholders;

  const table = document.createElement('table');
  table.dataset.testid = 'services-table';
  const thead = table.createTHead();
  const headRow = thead.insertRow();
  const sortButtons = new Map<SortKey, HTMLTableCellElement>();
  for (const col of COLUMNS) {
    const th = document.createElement('th');
    th.scope = 'col';
    if (col.numeric) th.className = 'num';
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'sort';
    button.textContent = col.text;
    button.dataset.sort = col.key;
    button.addEventListener('click', () => {
      if (state.sort === col.key) state.order = state.order === 'desc' ? 'asc' : 'desc';
      else {
        state.sort = col.key;
        state.order = col.numeric || col.key === 'first_seen' ? 'desc' : 'asc';
      }
      state.page = 1;
      update();
    });
    th.append(button);
    headRow.append(th);
    sortButtons.set(col.key, th);
  }
  const tbody = table.createTBody();
  const wrap = document.createElement('div');
  wrap.className = 'table-wrap';
  wrap.append(table);

  const sortValue = (key: SortKey): ArrayLike<string | number | null> =>
    key === 'category' ? categoryText : key === 'price' ? c.price : c[key];

  function matching(): number[] {
    const q = state.q.trim().toLowerCase();
    const rows: number[] = [];
    for (let i = 0; i < n; i++) {
      if (!state.placeholders && c.placeholder[i]) continue;
      if (state.category && c.category[i] !== state.category) continue;
      if (state.chain && c.chain[i] !== state.chain) continue;
      if (state.price && c.price_bucket[i] !== state.price) continue;
      if (q && !haystack[i]!.includes(q)) continue;
      rows.push(i);
    }
    const values = sortValue(state.sort);
    const dir = state.order === 'asc' ? 1 : -1;
    rows.sort((a, b) => {
      const va = values[a] ?? null;
      const vb = values[b] ?? null;
      // unknown prices sort last either way; ties by id ascending, as in the API
      if (va === null || vb === null) return va === vb ? c.id[a]! - c.id[b]! : va === null ? 1 : -1;
      const cmp = typeof va === 'number' && typeof vb === 'number' ? va - vb : String(va).localeCompare(String(vb));
      return cmp !== 0 ? cmp * dir : c.id[a]! - c.id[b]!;
    });
    return rows;
  }

  function render(rows: number[]): void {
    const pages = Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
    state.page = Math.min(state.page, pages);
    const start = (state.page - 1) * PAGE_SIZE;
    const body = document.createDocumentFragment();
    for (const i of rows.slice(start, start + PAGE_SIZE)) {
      const tr = document.createElement('tr');
      const nameCell = document.createElement('td');
      const link = document.createElement('a');
      link.href = `/services/${c.id[i]}`;
      link.textContent = c.name[i] ?? '';
      nameCell.append(link);
      const categoryCell = document.createElement('td');
      const categoryLink = document.createElement('a');
      categoryLink.href = `/categories/${c.category[i]}/`;
      categoryLink.textContent = categoryText[i] ?? '';
      categoryCell.append(categoryLink);
      tr.append(
        nameCell,
        categoryCell,
        cell(c.chain[i] ?? ''),
        cell(formatUsd(c.price[i]), true),
        cell(formatInt(c.tx_24h[i]), true),
        cell(formatUsd(c.volume_24h[i]), true),
        cell(formatInt(c.tx_total[i]), true),
        cell(formatPct(c.real_volume_pct[i]), true),
        cell(formatPct(c.wash_pct[i]), true),
        cell(c.first_seen[i] ?? '', false, 'date'),
      );
      body.append(tr);
    }
    tbody.replaceChildren(body);
    for (const [key, th] of sortButtons) {
      if (key === state.sort) th.setAttribute('aria-sort', state.order === 'asc' ? 'ascending' : 'descending');
      else th.removeAttribute('aria-sort');
    }
    status!.textContent =
      rows.length === 0
        ? 'No service matches these filters.'
        : `${formatInt(rows.length)} of ${formatInt(n)} services match; showing ${formatInt(start + 1)} to ${formatInt(Math.min(rows.length, start + PAGE_SIZE))}.`;
    pageText!.textContent = `Page ${state.page} of ${pages}`;
    (pager!.querySelector('[data-page="prev"]') as HTMLButtonElement).disabled = state.page <= 1;
    (pager!.querySelector('[data-page="next"]') as HTMLButtonElement).disabled = state.page >= pages;
  }

  let current: number[] = [];
  function update(): void {
    current = matching();
    render(current);
    writeState(state);
  }

  let timer: ReturnType<typeof setTimeout> | undefined;
  form.addEventListener('input', (event) => {
    const target = event.target as HTMLInputElement;
    state.q = (input('q') as HTMLInputElement).value;
    state.category = (input('category') as HTMLSelectElement).value;
    state.chain = (input('chain') as HTMLSelectElement).value;
    state.price = (input('price') as HTMLSelectElement).value;
    state.placeholders = (input('placeholders') as HTMLInputElement).checked;
    state.page = 1;
    clearTimeout(timer);
    if (target.name === 'q') timer = setTimeout(update, SEARCH_DELAY_MS);
    else update();
  });
  form.addEventListener('submit', (event) => event.preventDefault());
  pager.addEventListener('click', (event) => {
    const which = (event.target as HTMLElement).closest('button')?.dataset.page;
    if (!which) return;
    state.page += which === 'next' ? 1 : -1;
    render(current);
    writeState(state);
  });

  holder.replaceChildren(wrap);
  form.hidden = false;
  pager.hidden = false;
  update();
}
