/**
 * The frame of the HTML pages the proxy itself serves (/docs of both services, the korea landing
 * page): document head, stylesheet, the freshness line every page shows, and escaping. The pages
 * are built from strings because they are small and generated per snapshot version; every value
 * that comes from data goes through escapeHtml, and catalog Markdown through markdownHtml.
 */
import { Marked } from 'marked';
import type { Freshness } from './product-status.ts';

export const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] ?? ch);

/**
 * Catalog descriptions are Markdown (`code`, lists); raw HTML in them is shown as text, so a
 * description that mentions `<url>` cannot open a tag in the page.
 */
const markdown = new Marked({
  async: false,
  gfm: true,
  renderer: {
    html: ({ text }) => escapeHtml(text),
  },
});

/** A Markdown block (paragraphs, lists) as HTML. */
export function markdownHtml(text: string): string {
  return markdown.parse(text, { async: false });
}

/** One line of Markdown as inline HTML (table cells, list items). */
export function markdownInline(text: string): string {
  return markdown.parseInline(text, { async: false });
}

/** Markdown as plain text for attributes (meta description): code marks dropped. */
export function plainText(markdownText: string): string {
  return markdownText.replace(/`/g, '');
}

/** An ISO time as a <time> element, shown to the minute in UTC. */
export function timeHtml(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return escapeHtml(iso);
  return `<time datetime="${escapeHtml(date.toISOString())}">${escapeHtml(date.toISOString().slice(0, 16).replace('T', ' '))} UTC</time>`;
}

/** "Data as of …, next update …", demo or live, and the license: shown at the top of every page. */
export function freshnessHtml(freshness: Freshness | null): string {
  if (!freshness)
    return '<p class="freshness unavailable-note">No snapshot is published yet: the data endpoints answer 503 until the first pipeline run.</p>';
  const license = freshness.license.url
    ? `<a href="${escapeHtml(freshness.license.url)}">${escapeHtml(freshness.license.name)}</a>`
    : escapeHtml(freshness.license.name);
  const source =
    freshness.source === 'demo'
      ? '<strong class="badge demo">demo data</strong>'
      : `<strong class="badge live">${escapeHtml(freshness.source)} data</strong>`;
  return (
    `<p class="freshness">${source} Data as of ${timeHtml(freshness.asOf)}, next update ${timeHtml(freshness.nextUpdate)} ` +
    `(snapshot <code>${escapeHtml(freshness.version)}</code>). License: ${license}.</p>` +
    (freshness.notice ? `<p class="notice">${escapeHtml(freshness.notice)}</p>` : '')
  );
}

/** A small inline favicon, so a browser asks the server for no /favicon.ico. */
const FAVICON =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Crect width='16' height='16' rx='3' fill='%23234'/%3E%3Ctext x='8' y='12' font-size='10' text-anchor='middle' fill='white' font-family='sans-serif'%3E$%3C/text%3E%3C/svg%3E";

const STYLE = `
:root{--fg:#1a1a1a;--muted:#4d4d4d;--line:#d0d0d0;--code:#f2f2f2;--link:#0645ad;--paid:#7a4100;--free:#14602a;--bad:#9b1111;--warn:#6b4e00}
*{box-sizing:border-box}
body{font:15px/1.55 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:var(--fg);background:#fff}
a{color:var(--link)}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
code{background:var(--code);padding:0 .25em;border-radius:3px}
pre{background:var(--code);padding:.6rem .8rem;overflow:auto;max-height:28rem;border-radius:4px}
pre code{background:none;padding:0}
header.top{padding:1rem 1.5rem;border-bottom:1px solid var(--line)}
header.top h1{margin:.2rem 0 .4rem;font-size:1.6rem}
.links a{margin-right:.9rem}
.layout{display:grid;grid-template-columns:minmax(14rem,18rem) 1fr;gap:2rem;padding:0 1.5rem}
nav.toc{position:sticky;top:0;max-height:100vh;overflow:auto;padding:1rem 0;font-size:.9em}
nav.toc ul{list-style:none;padding-left:0;margin:.2rem 0 1rem}
nav.toc li{margin:.15rem 0}
nav.toc h2{font-size:1rem;margin:.6rem 0 .2rem}
main{min-width:0;padding:1rem 0 4rem;max-width:60rem}
.single{max-width:60rem;margin:0 auto;padding:0 1.5rem 4rem}
section.op{border-top:1px solid var(--line);padding:1rem 0 1.5rem}
section.op h3{font-size:1.15rem;margin:.2rem 0 .5rem;overflow-wrap:anywhere}
.method{font:600 .8rem ui-monospace,monospace;background:#e4e9f7;color:#1b2a55;padding:.1em .45em;border-radius:3px;margin-right:.3em}
.badge{display:inline-block;font-size:.78rem;font-weight:600;padding:.05em .5em;border-radius:999px;border:1px solid currentColor;margin-left:.3em;vertical-align:middle}
.price{color:var(--paid)}
.free{color:var(--free)}
.unavailable{color:var(--bad)}
.stale{color:var(--warn)}
.demo{color:var(--warn)}
.live{color:var(--free)}
.freshness,.notice{color:var(--muted);margin:.3rem 0}
.state-note{border-left:3px solid currentColor;padding:.2rem .7rem;margin:.5rem 0}
table{border-collapse:collapse;width:100%;margin:.4rem 0 1rem;font-size:.92em}
th,td{border:1px solid var(--line);padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f6f6}
td.num{text-align:right;font-variant-numeric:tabular-nums}
details{margin:.4rem 0}
figure{margin:1rem 0 1.5rem}
figcaption h3{margin:.2rem 0 .3rem}
summary{cursor:pointer;font-weight:600}
ul.schema{list-style:none;padding-left:1.1rem;border-left:1px dotted var(--line);margin:.3rem 0}
ul.schema>li{margin:.35rem 0}
.type{color:var(--muted);font-family:ui-monospace,monospace;font-size:.85em}
.req{color:var(--bad);font-size:.8em;font-weight:600}
.desc p{margin:.15rem 0}
.example-label{color:var(--muted);font-size:.85em}
form.try{background:#fafafa;border:1px solid var(--line);border-radius:4px;padding:.6rem .8rem;margin:.6rem 0}
form.try .field{margin:.35rem 0}
form.try label{display:block;font-weight:600;font-size:.9em}
form.try input,form.try select,form.try textarea{font:inherit;padding:.2rem .35rem;border:1px solid #767676;border-radius:3px;min-width:14rem;max-width:100%}
form.try textarea{width:100%;font-family:ui-monospace,monospace}
button{font:inherit;font-weight:600;padding:.3rem .9rem;border:1px solid #1b2a55;background:#1b2a55;color:#fff;border-radius:3px;cursor:pointer}
.try-out:empty{display:none}
.try-out{margin-top:.6rem}
@media (max-width:50rem){.layout{grid-template-columns:1fr}nav.toc{position:static;max-height:none}}
`;

/** A whole HTML document. `script` (trusted, ours) goes at the end of the body. */
export function pageHtml(options: { title: string; description: string; body: string; script?: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)}</title>
<meta name="description" content="${escapeHtml(options.description)}">
<link rel="icon" href="${FAVICON}">
<style>${STYLE}</style>
</head>
<body>
${options.body}
${options.script ? `<script>${options.script}</script>` : ''}
</body>
</html>
`;
}
