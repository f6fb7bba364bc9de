/** ingest:x402_probes: a prober round over the indexed resources (at most one per 10 minutes), kept 8 days in live_probes. */
import type { IngestContext } from '../../../contract.ts';
import { RAW_TABLES } from '../../../raw-tables.ts';
import type { AnalyticsIngestStep } from '../ingest-kit.ts';
import { probeIndexedResources } from '../probes.ts';

export const probesStep: AnalyticsIngestStep = (kit) => ({
  name: 'ingest:x402_probes',
  tables: [RAW_TABLES.x402_probes.name],
  async run(ctx: IngestContext) {
    const done = await probeIndexedResources(ctx.connection, ctx.now, { ...kit.options.probe, off: !kit.settings.probes }, ctx.log);
    return { rows: done.rows, detail: done.detail };
  },
});
