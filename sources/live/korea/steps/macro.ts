/**
 * ingest:macro_daily: macro_daily from the kept history (macro_history), extended incrementally from
 * FRED and Naver Finance, 0 to 2 requests a run (the backfill is not counted). The kept history
 * still makes macro_daily when a refresh fails; the step then fails so the run says so.
 */
import { firstLine } from '../../http.ts';
import { RAW_TABLES as T } from '../../../raw-tables.ts';
import { textClient } from '../clients.ts';
import { fetchFredSeries } from '../fred.ts';
import { recordIngestFailure } from '../ingest-failures.ts';
import { type KoreaIngestStep, noteSkipped } from '../ingest-kit.ts';
import {
  MACRO_UNITS,
  materializeMacroDaily,
  planMacroFetches,
  storeMacroFetch,
  type MacroFetch,
  type MacroUnit,
} from '../macro-history.ts';
import { fetchNaverDaily } from '../naver-finance.ts';
import type { TextUpstream } from '../text-upstream.ts';

const macroUnits = MACRO_UNITS.map((u) => u.id);

export const macroStep: KoreaIngestStep = (kit) =>
  kit.step('ingest:macro_daily', [{ table: T.macro_daily }], macroUnits, async (ctx) => {
    const b = kit.budget(ctx);
    const allowed = Math.min(kit.options.macro.maxIncrementalPerRun, b.remaining - kit.options.candles.reserve);
    const { fetches, deferred } = await planMacroFetches(ctx.connection, ctx.now, kit.options.macro, allowed);
    const clients = new Map<'fred' | 'naver', TextUpstream>();
    const problems = new Map<MacroUnit['id'], string>();
    const done: string[] = [];
    try {
      for (const fetch of fetches) {
        const up = clients.get(fetch.unit.upstream) ?? textClient(kit.settings, fetch.unit.upstream, kit.options.upstream);
        clients.set(fetch.unit.upstream, up);
        const before = up.stats().requests;
        try {
          const { observations, skipped } = await fetchMacroUnit(up, fetch);
          await noteSkipped(ctx, fetch.unit.id, 'observations', skipped);
          if (fetch.mode === 'backfill' && observations.length === 0) {
            throw new Error(`${fetch.unit.id}: answered no observations from ${fetch.since} to ${fetch.until}`);
          }
          await storeMacroFetch(ctx.connection, fetch, observations, ctx.now);
          done.push(`${fetch.unit.id} ${fetch.mode} ${fetch.since}..${fetch.until} (${observations.length})`);
        } catch (err) {
          problems.set(fetch.unit.id, firstLine(err));
        } finally {
          b.spend(up.name, up.stats().requests - before, fetch.mode === 'backfill' ? 'backfill' : 'counted');
        }
      }
    } finally {
      for (const up of clients.values()) await up.close();
    }
    for (const [unit, problem] of problems) await recordIngestFailure(ctx.connection, unit, problem, ctx.now);
    const rows = await materializeMacroDaily(ctx.connection, ctx.now, kit.options.macro.backfillDays);
    ctx.log(
      `macro: ${done.length ? done.join(', ') : 'nothing due'}${deferred ? `; ${deferred} due series left for the next run (request budget)` : ''}`,
    );
    // The kept history still makes macro_daily; the step fails so the run says a refresh failed.
    if (problems.size) throw new Error([...problems.values()].join('; '));
    return rows;
  });

async function fetchMacroUnit(
  up: TextUpstream,
  fetch: MacroFetch,
): Promise<{ observations: Array<[string, string, number | null]>; skipped: { total: number; skipped: string[] } }> {
  const { unit, since, until } = fetch;
  if (unit.upstream === 'fred') {
    const read = await fetchFredSeries(up, unit.fred, since, until);
    return { observations: read.rows.map((r) => [unit.fred, r.date, r.value]), skipped: read };
  }
  const [close, foreign] = unit.series as [string, string];
  const read = await fetchNaverDaily(up, unit.stock, since, until);
  return {
    observations: read.rows.flatMap(
      (b): Array<[string, string, number | null]> => [
        [close, b.date, b.close],
        [foreign, b.date, b.foreignPct],
      ],
    ),
    skipped: read,
  };
}
