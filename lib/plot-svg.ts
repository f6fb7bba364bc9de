/**
 * Charts rendered to SVG strings with Observable Plot on a linkedom document
 * (research/site-stack.md 4.3): pages ship no chart JavaScript and load nothing from outside, and
 * the SVG carries a title and an aria-label so it reads as one image. The analytics site's charts
 * (site/lib/charts.ts) and the korea landing page's (proxy/korea-daily-charts.ts) go through plotSvg.
 */
import * as Plot from '@observablehq/plot';
import { parseHTML } from 'linkedom';

/** One linkedom document for every chart: Plot only needs it to create elements. */
type PlotDocument = NonNullable<Plot.PlotOptions['document']>;
let documentForPlot: PlotDocument | null = null;
function plotDocument(): PlotDocument {
  // linkedom implements the part of the DOM Plot uses; its types are not the lib.dom ones
  documentForPlot ??= parseHTML('<!doctype html><html><body></body></html>').document as unknown as PlotDocument;
  return documentForPlot;
}

export interface ChartText {
  /** Read by screen readers as the image's name and shown as the SVG's tooltip. */
  title: string;
}

const STYLE = { fontSize: '13px', fontFamily: 'system-ui, sans-serif', overflow: 'visible' } as const;
/** Drawn this wide and scaled to the page's column (about 1,100 px on a desktop): 720 left 40 % of it empty. */
export const CHART_WIDTH = 960;

/** Renders Plot options to an SVG string (with xmlns, role=img and a <title>). */
export function plotSvg(options: Plot.PlotOptions, text: ChartText): string {
  const doc = plotDocument();
  const node = Plot.plot({ width: CHART_WIDTH, height: 260, style: STYLE, ...options, document: doc });
  // A legend makes Plot wrap the chart in a <figure> whose legend swatches are small SVGs too:
  // the chart is the figure's own <svg> child, and that is the one that gets the name.
  const isSvg = (el: { tagName: string }) => el.tagName.toLowerCase() === 'svg';
  const svg = isSvg(node) ? node : [...node.children].find(isSvg);
  if (!svg) throw new Error('Plot produced no SVG');
  for (const s of isSvg(node) ? [node] : [...node.querySelectorAll('svg')]) s.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  // The SVG is one image with one name; Plot's aria-labels on its mark groups (<g>, which has no
  // role) are invalid ARIA (axe: aria-prohibited-attr) and are dropped.
  for (const g of [...svg.querySelectorAll('[aria-label]')]) g.removeAttribute('aria-label');
  for (const g of [...svg.querySelectorAll('[aria-description]')]) g.removeAttribute('aria-description');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', text.title);
  const title = doc.createElement('title');
  title.textContent = text.title;
  svg.insertBefore(title, svg.firstChild);
  return node.outerHTML;
}
