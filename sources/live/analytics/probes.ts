/**
 * The prober's side of the warehouse: which resources a round probes, in which order, and where
 * the answers go.
 *
 * Every indexed resource URL (x402_services, with the method its listing declares in
 * discovery_inputs) is a target, the ones probed longest ago first, so a round cut short by its
 * deadline or a host's Retry-After starts the next round with what it missed. Results stream
 * into `live_probes` (kept across runs, pruned to 8 days) in batches, so a round of 50,000
 * targets holds a batch in memory, not the round; x402_probes is a view over it.
 *
 * A round runs at most once per PROBE_EVERY_MS: a run that comes sooner (the hourly analytics
 * run right after the 10-minute probe run) reads the history as it is.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { appendRows, createTableSql, queryJson, type Row, tableExists } from '../../../lib/duckdb.ts';
import { type ProbeOfferJson, RAW_TABLES } from '../../raw-tables.ts';
import { DISCOVERY_INPUTS_DDL } from './x402-discovery.ts';
import { type ProberOptions, type ProbeResult, type ProbeRoundStats, probeRound, type ProbeTarget } from './prober.ts';

export const PROBE_EVERY_MS = 10 * 60_000;
/** A round stops starting probes after this long, so rounds every 10 minutes never overlap. */
export const PROBE_ROUND_DEADLINE_MS = 8 * 60_000;
export const PROBE_HISTORY_DAYS = 8;
const BATCH = 2_000;

export const LIVE_PROBES = 'live_probes';

export function probeRow(r: ProbeResult): Row {
  const offers = r.offer
    ? JSON.stringify(
        r.offer.accepts.map(
          (a): ProbeOfferJson => ({
            network: a.network,
            chain: a.chain,
            asset: a.asset,
            amount: a.amount,
            pay_to: a.payTo,
            eip712_name: a.eip712Name,
            eip712_version: a.eip712Version,
            signable: a.signable,
            scheme: a.scheme,
          }),
        ),
      )
    : null;
  return [
    r.url,
    r.probedAt,
    r.method,
    r.outcome,
    r.status,
    r.ttfbMs,
    r.totalMs,
    r.redirects,
    r.error,
    r.offer?.x402Version ?? null,
    offers,
    r.offer ? r.offer.bazaar : null,
    'live',
  ];
}

export interface ProbeStepResult {
  /** Null when no round was due. */
  round: ProbeRoundStats | null;
  /** Rows of x402_probes (the 8-day history) after the step. */
  rows: number;
  detail: string;
}

/**
 * Runs a round when one is due, appends it to live_probes and (re)creates the x402_probes view.
 * `options` tunes the prober (tests allow loopback and shorten timeouts).
 */
export async function probeIndexedResources(
  c: DuckDBConnection,
  now: Date,
  options: Partial<Omit<ProberOptions, 'onResult'>> & { off?: boolean } = {},
  log: (message: string) => void = () => {},
): Promise<ProbeStepResult> {
  await c.run(createTableSql(RAW_TABLES.x402_probes, LIVE_PROBES, 'if-not-exists'));
  await c.run(DISCOVERY_INPUTS_DDL);
  const [last] = await queryJson(c, `SELECT epoch_ms(max(probed_at))::DOUBLE AS at FROM ${LIVE_PROBES} WHERE outcome <> 'deferred'`);
  const lastAt = last?.at === null || last?.at === undefined ? null : Number(last.at);
  let round: ProbeRoundStats | null = null;
  let detail: string;
  if (options.off) {
    detail = 'no round: PROBES=off (the history as it is)';
  } else if (lastAt !== null && now.getTime() - lastAt < PROBE_EVERY_MS - 30_000) {
    detail = `no round: the last one was ${Math.round((now.getTime() - lastAt) / 60_000)} min ago (every ${PROBE_EVERY_MS / 60_000} min)`;
  } else {
    const targets: ProbeTarget[] = !(await tableExists(c, 'x402_services'))
      ? []
      : (
          await queryJson(
            c,
            `WITH urls AS (SELECT DISTINCT resource_url FROM x402_services WHERE resource_url IS NOT NULL),
                    latest AS (SELECT resource_url, max(probed_at) AS at FROM ${LIVE_PROBES} WHERE outcome <> 'deferred' GROUP BY ALL)
               SELECT u.resource_url AS url, coalesce(i.method, 'GET') AS method
                 FROM urls u LEFT JOIN latest l USING (resource_url) LEFT JOIN discovery_inputs i USING (resource_url)
                ORDER BY l.at NULLS FIRST, u.resource_url`,
          )
        ).map((r) => ({ url: String(r.url), method: String(r.method) }));
    let batch: Row[] = [];
    const flush = async (): Promise<void> => {
      if (batch.length === 0) return;
      const rows = batch;
      batch = [];
      await appendRows(c, RAW_TABLES.x402_probes, rows, { tableName: LIVE_PROBES });
    };
    round = await probeRound(targets, {
      deadlineMs: PROBE_ROUND_DEADLINE_MS,
      ...options,
      onResult: async (r) => {
        // a round belongs to its run: its probes carry the run's time (the datasets' windows end at
        // the run's now; a probe made a few seconds into the run would otherwise fall outside them)
        batch.push(probeRow({ ...r, probedAt: now }));
        if (batch.length >= BATCH) await flush();
      },
    });
    await flush();
    const outcomes = Object.entries(round.byOutcome)
      .sort((a, b) => (b[1] ?? 0) - (a[1] ?? 0))
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
    detail = `probed ${round.probed} of ${round.targets} in ${round.seconds.toFixed(1)}s${round.deferred ? `, ${round.deferred} deferred` : ''}${outcomes ? ` (${outcomes})` : ''}`;
    log(`prober: ${detail}`);
  }
  await c.run(`DELETE FROM ${LIVE_PROBES} WHERE probed_at < $cut::TIMESTAMP`, {
    cut: new Date(now.getTime() - PROBE_HISTORY_DAYS * 86_400_000).toISOString(),
  });
  await c.run(`CREATE OR REPLACE TEMP VIEW x402_probes AS SELECT * FROM ${LIVE_PROBES}`);
  const [n] = await queryJson(c, `SELECT count(*)::BIGINT AS n FROM x402_probes`);
  return { round, rows: Number(n?.n ?? 0), detail };
}
