/** ingest:x402_services: the x402 discovery catalog (X402_DISCOVERY_URL), crawled page by page into x402_services. */
import type { IngestContext } from '../../../contract.ts';
import { RAW_TABLES } from '../../../raw-tables.ts';
import { withUpstream } from '../../http.ts';
import type { AnalyticsIngestStep } from '../ingest-kit.ts';
import { crawlDiscovery, DEFAULT_DISCOVERY_OPTIONS, discoveryEndpoint, writeDiscoveredServices } from '../x402-discovery.ts';

export const discoveryStep: AnalyticsIngestStep = (kit) => ({
  name: 'ingest:x402_services',
  tables: [RAW_TABLES.x402_services.name],
  async run(ctx: IngestContext) {
    const { baseUrl, path } = discoveryEndpoint(kit.required('X402_DISCOVERY_URL'));
    const crawl = await withUpstream(kit.client('discovery', 'x402-discovery', baseUrl), ctx.log, (up) =>
      crawlDiscovery(up, path, { ...DEFAULT_DISCOVERY_OPTIONS, ...kit.options.discovery }),
    );
    const c = crawl.counts;
    const unsupported = Object.entries(c.unsupportedNetworks)
      .map(([n, k]) => `${n}×${k}`)
      .join(', ');
    ctx.log(
      `x402 discovery: ${c.items} items on ${c.pages} pages → ${c.services} services; skipped ${c.invalidItems} invalid items, ` +
        `${c.invalidAccepts} invalid accepts, ${c.notHttp} non-http, ${c.duplicates} duplicates` +
        (unsupported ? `; networks not indexed: ${unsupported}` : ''),
    );
    if (c.stoppedAtMaxPages) ctx.log(`x402 discovery: stopped at ${c.pages} pages (maxPages); the catalog may be incomplete`);
    for (const p of crawl.problems) ctx.log(`x402 discovery: skipped ${p}`);
    // every listing not kept is counted by reason in the manifest's indexing (networks not indexed are not skips: they are out of scope)
    ctx.indexing?.skip('listing', 'invalid_item', c.invalidItems);
    ctx.indexing?.skip('listing', 'invalid_accepts', c.invalidAccepts);
    ctx.indexing?.skip('listing', 'not_http', c.notHttp);
    ctx.indexing?.skip('listing', 'duplicate', c.duplicates);
    if (c.stoppedAtMaxPages) ctx.indexing?.note(`discovery stopped at ${c.pages} pages (maxPages): the catalog may be incomplete`);
    const services = await writeDiscoveredServices(ctx.connection, crawl.services, ctx.now);
    const skipped = c.invalidItems + c.invalidAccepts + c.notHttp + c.duplicates;
    const skips = skipped
      ? `${skipped} listing(s) skipped (${[
          [c.invalidItems, 'invalid item'],
          [c.invalidAccepts, 'invalid accepts'],
          [c.notHttp, 'not http'],
          [c.duplicates, 'duplicate'],
        ]
          .filter(([n]) => Number(n) > 0)
          .map(([n, what]) => `${n} ${what}`)
          .join(', ')})`
      : null;
    if (services === 0) {
      const text = `the discovery catalog listed no service this run (${c.items} items on ${c.pages} pages)`;
      ctx.indexing?.note(text);
      return { rows: 0, detail: skips ? `${text}; ${skips}` : text };
    }
    return skips ? { rows: services, detail: skips } : services;
  },
});
