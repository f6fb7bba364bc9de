/**
 * krw-macro-stress: a 0-100 score from five components, each ranked as a rolling 120-day
 * percentile over the 2-year daily history in macro_daily (docs/upstreams-korea.md, "KRW macro stress").
 *
 * Calendar: every date on which some series has a value; each series is carried forward over the
 * dates it has none (holidays differ between FRED and KRX). "5-day" means 5 calendar rows.
 *
 *   us_rate_stress (0.25)  US 3-year Treasury yield, DGS3
 *   risk_sentiment (0.25)  VIX close, VIXCLS
 *   foreign_flow   (0.20)  -(fo_t - fo_t-5), fo = foreign ownership of Samsung Electronics and SK hynix
 *                          weighted by market cap (close x shares outstanding)
 *   fx_momentum    (0.20)  100 (USDKRW_t / USDKRW_t-5 - 1) + 100 stdev of the last 20 daily USDKRW returns
 *   semiconductor  (0.10)  -100 (mcap_t / mcap_t-5 - 1) over the two stocks
 *
 * percentile_t = 100 x (values in the 120-row window ending at t that are strictly below x_t) /
 * (non-null values in it); none with fewer than 48 values. A component is degraded (left out, the
 * other weights renormalised to sum 1) when it has no value or percentile, when its newest input
 * is more than 10 days old, or when its upstream failed in 5 runs without its data moving forward
 * in between (ingest_failures names fred:DGS3, naver:005930, ...; counted in the warehouse table
 * macro_source_status). Score = sum of effective weight x
 * percentile; regime bands at 20/40/60/80; direction from the 5-day USD/KRW change at +-0.3 %.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { queryJson } from '../../../lib/duckdb.ts';
import { RulesAnalyst, type Analyst } from '../../analyst/index.ts';
import { macroNoteTask } from '../macro-note.ts';
import { FX_SQL } from '../premiums.ts';
import type { MacroComponentFacts, MacroStressFacts } from '../rules-analyst.ts';
import {
  countRows,
  ensureRawTables,
  failureListSql,
  failuresSql,
  missingInput,
  queryDocument,
  quote,
  runOf,
  timestampSql,
  type KoreaDatasetStep,
  type KoreaRun,
} from '../sql.ts';

export const MACRO_WINDOW = 120;
export const MACRO_MIN_OBSERVATIONS = Math.max(20, Math.floor(0.4 * MACRO_WINDOW));
export const MACRO_STALE_AFTER_DAYS = 10;
export const MACRO_FAILURES_TO_DEGRADE = 5;
/** Calendar days of macro_daily the score reads (the 2-year backfill). */
export const MACRO_HISTORY_DAYS = 760;
/** Rows of score history in the document. */
export const MACRO_HISTORY_ROWS = 20;
export const DIRECTION_THRESHOLD_PCT = 0.3;

/** Shares outstanding used for market caps (constants, as the reference does). */
export const SHARES = { samsung: 5_970_000_000, skHynix: 728_000_000 } as const;

export interface MacroComponent {
  name: 'us_rate_stress' | 'risk_sentiment' | 'foreign_flow' | 'fx_momentum' | 'semiconductor';
  label: string;
  /** For prose in the note. */
  shortLabel: string;
  weight: number;
  unit: string;
  /** macro_daily series the component reads (its freshness is that of the oldest of their newest values). */
  series: readonly string[];
  /** Failures whose upstream matches this (lower-cased) regular expression count against the component. */
  upstreams: string;
}

export const MACRO_COMPONENTS: readonly MacroComponent[] = [
  {
    name: 'us_rate_stress',
    label: 'US 3-year Treasury yield (FRED DGS3)',
    shortLabel: 'the US 3-year Treasury yield',
    weight: 0.25,
    unit: 'percent',
    series: ['DGS3'],
    upstreams: '^fred$|dgs3',
  },
  {
    name: 'risk_sentiment',
    label: 'VIX close (FRED VIXCLS)',
    shortLabel: 'the VIX',
    weight: 0.25,
    unit: 'index points',
    series: ['VIXCLS'],
    upstreams: '^fred$|vix|cboe',
  },
  {
    name: 'foreign_flow',
    label: 'Foreign ownership of SK hynix and Samsung Electronics weighted by market cap: negative 5-day change',
    shortLabel: 'the foreign-ownership proxy',
    weight: 0.2,
    unit: 'percentage points',
    series: ['KRX:005930:foreign_pct', 'KRX:000660:foreign_pct', 'KRX:005930:close', 'KRX:000660:close'],
    upstreams: '^naver$|005930|000660',
  },
  {
    name: 'fx_momentum',
    label: 'USD/KRW momentum: 5-day change plus 20-day volatility of daily changes (FRED DEXKOUS)',
    shortLabel: 'USD/KRW momentum',
    weight: 0.2,
    unit: 'percent',
    series: ['DEXKOUS'],
    upstreams: '^fred$|dexkous',
  },
  {
    name: 'semiconductor',
    label: 'Korean semiconductor equity: negative 5-day market-cap-weighted return of SK hynix and Samsung Electronics',
    shortLabel: 'Korean chip stocks',
    weight: 0.1,
    unit: 'percent',
    series: ['KRX:005930:close', 'KRX:000660:close'],
    upstreams: '^naver$|005930|000660',
  },
];

const SERIES = [...new Set(MACRO_COMPONENTS.flatMap((c) => c.series))];

export function regimeOf(score: number): 'calm' | 'neutral' | 'caution' | 'risk_off' | 'crisis' {
  if (score < 20) return 'calm';
  if (score < 40) return 'neutral';
  if (score < 60) return 'caution';
  if (score < 80) return 'risk_off';
  return 'crisis';
}

const regimeSql = (score: string): string =>
  `CASE WHEN ${score} < 20 THEN 'calm' WHEN ${score} < 40 THEN 'neutral' WHEN ${score} < 60 THEN 'caution'
        WHEN ${score} < 80 THEN 'risk_off' ELSE 'crisis' END`;

const componentsSql = `(VALUES ${MACRO_COMPONENTS.map(
  (c, i) => `(${quote(c.name)}, ${i + 1}, ${c.weight}, ${quote(c.label)}, ${quote(c.unit)}, ${quote(c.upstreams)})`,
).join(', ')}) AS k(name, position, weight, label, unit, upstreams)`;

const componentSeriesSql = `(VALUES ${MACRO_COMPONENTS.flatMap((c) => c.series.map((s) => `(${quote(c.name)}, ${quote(s)})`)).join(', ')}) AS cs(name, series)`;

/**
 * Builds the temp tables the score reads: macro_wide (one row per calendar date, inputs carried
 * forward), macro_component_values (date, rn, name, x) and macro_percentiles (the last
 * MACRO_HISTORY_ROWS dates). `runDate` is a DATE expression.
 */
export async function macroPercentiles(c: DuckDBConnection, runDate: string): Promise<void> {
  const col = (series: string) => `max(value) FILTER (WHERE series = ${quote(series)})`;
  await c.run(`CREATE OR REPLACE TEMP TABLE macro_obs AS
    SELECT series, date, avg(value) AS value FROM macro_daily
     WHERE value IS NOT NULL AND isfinite(value) AND date <= ${runDate} AND date > ${runDate} - INTERVAL ${MACRO_HISTORY_DAYS} DAY
       AND series IN (${SERIES.map(quote).join(', ')})
     GROUP BY series, date`);
  await c.run(`CREATE OR REPLACE TEMP TABLE macro_wide AS
    WITH cal AS (SELECT DISTINCT date FROM macro_obs),
         grid AS (SELECT cal.date, s.series FROM cal CROSS JOIN (SELECT unnest([${SERIES.map(quote).join(', ')}]) AS series) s),
         filled AS (SELECT g.date, g.series,
                           last_value(o.value IGNORE NULLS) OVER (PARTITION BY g.series ORDER BY g.date
                                                                  ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS value
                      FROM grid g LEFT JOIN macro_obs o ON o.series = g.series AND o.date = g.date),
         wide AS (SELECT date,
                         ${col('DGS3')} AS dgs3, ${col('VIXCLS')} AS vix, ${col('DEXKOUS')} AS usdkrw,
                         ${col('KRX:005930:close')} AS samsung_close, ${col('KRX:000660:close')} AS hynix_close,
                         ${col('KRX:005930:foreign_pct')} AS samsung_foreign_pct, ${col('KRX:000660:foreign_pct')} AS hynix_foreign_pct
                    FROM filled GROUP BY date),
         caps AS (SELECT *, row_number() OVER (ORDER BY date) AS rn,
                         samsung_close * ${SHARES.samsung} AS samsung_mcap, hynix_close * ${SHARES.skHynix} AS hynix_mcap
                    FROM wide),
         derived AS (SELECT *,
                            (samsung_foreign_pct * samsung_mcap + hynix_foreign_pct * hynix_mcap) / (samsung_mcap + hynix_mcap) AS foreign_pct_mcap,
                            samsung_mcap + hynix_mcap AS chip_mcap,
                            usdkrw / lag(usdkrw) OVER (ORDER BY rn) - 1 AS usdkrw_return
                       FROM caps)
    SELECT *,
           foreign_pct_mcap - lag(foreign_pct_mcap, 5) OVER (ORDER BY rn) AS foreign_delta_5d_pp,
           100 * (usdkrw / lag(usdkrw, 5) OVER (ORDER BY rn) - 1) AS usdkrw_change_5d_pct,
           CASE WHEN count(usdkrw_return) OVER (ORDER BY rn ROWS BETWEEN 19 PRECEDING AND CURRENT ROW) = 20
                THEN 100 * stddev_samp(usdkrw_return) OVER (ORDER BY rn ROWS BETWEEN 19 PRECEDING AND CURRENT ROW) END AS usdkrw_volatility_20d_pct,
           100 * (chip_mcap / lag(chip_mcap, 5) OVER (ORDER BY rn) - 1) AS chip_return_5d_pct
      FROM derived`);
  await c.run(`CREATE OR REPLACE TEMP TABLE macro_component_values AS
    SELECT date, rn, 'us_rate_stress' AS name, dgs3 AS x FROM macro_wide
    UNION ALL SELECT date, rn, 'risk_sentiment', vix FROM macro_wide
    UNION ALL SELECT date, rn, 'foreign_flow', -foreign_delta_5d_pp FROM macro_wide
    UNION ALL SELECT date, rn, 'fx_momentum', usdkrw_change_5d_pct + usdkrw_volatility_20d_pct FROM macro_wide
    UNION ALL SELECT date, rn, 'semiconductor', -chip_return_5d_pct FROM macro_wide`);
  await c.run(`CREATE OR REPLACE TEMP TABLE macro_percentiles AS
    SELECT a.name, a.date, a.rn, a.x,
           count(b.x)::INTEGER AS window_values,
           CASE WHEN a.x IS NOT NULL AND count(b.x) >= ${MACRO_MIN_OBSERVATIONS}
                THEN 100.0 * count(b.x) FILTER (WHERE b.x < a.x) / count(b.x) END AS percentile
      FROM macro_component_values a
      JOIN macro_component_values b ON b.name = a.name AND b.rn BETWEEN a.rn - ${MACRO_WINDOW - 1} AND a.rn
     WHERE a.rn > (SELECT max(rn) FROM macro_wide) - ${MACRO_HISTORY_ROWS}
     GROUP BY a.name, a.date, a.rn, a.x`);
}

/**
 * Counts, per component, the runs in which its upstream failed since its data last moved forward
 * (kept across runs in macro_source_status). A run without a failure resets the count only when
 * the component's newest observation is newer than at the last run: the live source refreshes
 * each macro series now and then, so a run that did not try the upstream proves nothing.
 * Needs macro_obs (this run's observations).
 */
async function updateSourceStatus(c: DuckDBConnection, now: string): Promise<void> {
  const failures = await failuresSql(c);
  await c.run(`CREATE TABLE IF NOT EXISTS macro_source_status (
    component VARCHAR NOT NULL, consecutive_failures INTEGER NOT NULL, last_error VARCHAR,
    last_observation DATE, updated_at TIMESTAMP NOT NULL)`);
  await c.run(`CREATE OR REPLACE TEMP TABLE macro_failing AS
    SELECT k.name AS component,
           (SELECT ${failureListSql('f')}
              FROM ${failures} f WHERE regexp_matches(lower(f.upstream), k.upstreams)) AS error,
           (SELECT min(o.last_date) FROM ${componentSeriesSql}
              LEFT JOIN (SELECT series, max(date) AS last_date FROM macro_obs GROUP BY series) o ON o.series = cs.series
             WHERE cs.name = k.name) AS last_observation
      FROM ${componentsSql}`);
  await c.run('BEGIN TRANSACTION');
  try {
    await c.run(`UPDATE macro_source_status s
         SET consecutive_failures = CASE
               WHEN f.error IS NOT NULL THEN s.consecutive_failures + 1
               WHEN f.last_observation > s.last_observation OR s.last_observation IS NULL THEN 0
               ELSE s.consecutive_failures END,
             last_error = coalesce(f.error, s.last_error),
             last_observation = f.last_observation,
             updated_at = ${now}
        FROM macro_failing f WHERE f.component = s.component`);
    await c.run(`INSERT INTO macro_source_status
      SELECT component, CASE WHEN error IS NULL THEN 0 ELSE 1 END, error, last_observation, ${now} FROM macro_failing f
       WHERE NOT EXISTS (SELECT 1 FROM macro_source_status s WHERE s.component = f.component)`);
    await c.run('COMMIT');
  } catch (err) {
    await c.run('ROLLBACK');
    throw err;
  }
}

interface ComponentRow {
  name: MacroComponent['name'];
  label: string;
  raw_value: number | null;
  unit: string;
  percentile: number | null;
  weight: number;
  effective_weight: number;
  freshness_days: number | null;
  last_observation: string | null;
  degraded: boolean;
  degraded_reason: string | null;
  inputs: Record<string, number | null>;
}

/** The headline input of a component for prose, with its unit. */
function headline(row: ComponentRow): string | null {
  const v = (key: string) => row.inputs[key];
  const fmt = (value: number | null | undefined, digits: number, unit = '') =>
    value === null || value === undefined
      ? null
      : `${value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })}${unit}`;
  switch (row.name) {
    case 'us_rate_stress':
      return fmt(v('us_3y_yield_pct'), 2, ' %');
    case 'risk_sentiment':
      return fmt(v('vix'), 2);
    case 'foreign_flow': {
      const d = v('foreign_delta_5d_pp');
      return d === null || d === undefined ? null : `5-day change ${d >= 0 ? '+' : '-'}${Math.abs(d).toFixed(3)} percentage points`;
    }
    case 'fx_momentum':
      return fmt(v('usdkrw'), 2, ' KRW per USD');
    case 'semiconductor': {
      const r = v('return_5d_pct');
      return r === null || r === undefined ? null : `5-day return ${r >= 0 ? '+' : '-'}${Math.abs(r).toFixed(2)} %`;
    }
  }
}

/** The krw-macro-stress document; its note comes from `analyst` (the rules analyst unless a run passes its own). */
export async function krwMacroStressDocument(
  c: DuckDBConnection,
  run: KoreaRun,
  analyst: Analyst = new RulesAnalyst(),
): Promise<Record<string, unknown>> {
  await ensureRawTables(c);
  const now = timestampSql(run.now);
  const runDate = `(${now})::DATE`;
  if ((await countRows(c, 'macro_daily', `value IS NOT NULL AND date <= ${runDate}`)) === 0) {
    throw await missingInput(c, 'krw-macro-stress', 'no macro history (macro_daily is empty)', ['fred:', 'naver:']);
  }
  await macroPercentiles(c, runDate);
  await updateSourceStatus(c, now);

  const m = (key: string) => `w.${key}`;
  const inputs: Record<MacroComponent['name'], string> = {
    us_rate_stress: `MAP {'us_3y_yield_pct': ${m('dgs3')}}`,
    risk_sentiment: `MAP {'vix': ${m('vix')}}`,
    foreign_flow: `MAP {'mcap_weighted_foreign_pct': round(${m('foreign_pct_mcap')}, 4), 'foreign_delta_5d_pp': round(${m('foreign_delta_5d_pp')}, 4),
                        'samsung_foreign_pct': ${m('samsung_foreign_pct')}, 'sk_hynix_foreign_pct': ${m('hynix_foreign_pct')}}`,
    fx_momentum: `MAP {'usdkrw': ${m('usdkrw')}, 'change_5d_pct': round(${m('usdkrw_change_5d_pct')}, 4),
                       'volatility_20d_pct': round(${m('usdkrw_volatility_20d_pct')}, 4)}`,
    semiconductor: `MAP {'samsung_krw': ${m('samsung_close')}, 'sk_hynix_krw': ${m('hynix_close')}, 'return_5d_pct': round(${m('chip_return_5d_pct')}, 4)}`,
  };
  const inputsSql = `CASE k.name ${MACRO_COMPONENTS.map((k) => `WHEN ${quote(k.name)} THEN ${inputs[k.name]}`).join(' ')} END`;

  await c.run(`CREATE OR REPLACE TEMP TABLE macro_latest AS
    WITH last AS (SELECT max(rn) AS rn FROM macro_wide),
         fresh AS (SELECT cs.name, min(o.last_date) AS last_observation
                     FROM ${componentSeriesSql}
                     LEFT JOIN (SELECT series, max(date) AS last_date FROM macro_obs GROUP BY series) o ON o.series = cs.series
                    GROUP BY cs.name),
         base AS (
           SELECT k.name, k.position, k.weight, k.label, k.unit,
                  p.x AS raw_value, p.percentile, p.window_values,
                  f.last_observation,
                  date_diff('day', f.last_observation, ${runDate}) AS freshness_days,
                  coalesce(s.consecutive_failures, 0) AS consecutive_failures, s.last_error
             FROM ${componentsSql}
             LEFT JOIN macro_percentiles p ON p.name = k.name AND p.rn = (SELECT rn FROM last)
             LEFT JOIN fresh f ON f.name = k.name
             LEFT JOIN macro_source_status s ON s.component = k.name),
         judged AS (
           SELECT *, CASE
                  WHEN consecutive_failures >= ${MACRO_FAILURES_TO_DEGRADE}
                    THEN 'upstream failed in ' || consecutive_failures || ' runs without new data: ' || coalesce(last_error, 'unknown error')
                  WHEN last_observation IS NULL OR raw_value IS NULL THEN 'no value'
                  WHEN freshness_days > ${MACRO_STALE_AFTER_DAYS} THEN 'latest value is ' || freshness_days || ' days old'
                  WHEN percentile IS NULL
                    THEN 'fewer than ${MACRO_MIN_OBSERVATIONS} values in the ${MACRO_WINDOW}-day window (' || coalesce(window_values, 0) || ')'
                  END AS degraded_reason
             FROM base)
    SELECT *, degraded_reason IS NOT NULL AS degraded,
           CASE WHEN degraded_reason IS NULL THEN weight / sum(weight) FILTER (WHERE degraded_reason IS NULL) OVER () ELSE 0 END AS effective_weight
      FROM judged`);
  if ((await countRows(c, 'macro_latest', 'NOT degraded')) === 0) {
    const reasons = await queryJson(c, `SELECT string_agg(name || ': ' || degraded_reason, '; ' ORDER BY position) AS r FROM macro_latest`);
    throw new Error(`krw-macro-stress: every component is degraded (${String(reasons[0]?.r)}); the last good version stays live`);
  }

  const body = await queryDocument(
    c,
    `WITH w AS (SELECT * FROM macro_wide WHERE rn = (SELECT max(rn) FROM macro_wide)),
          score AS (SELECT round(sum(effective_weight * percentile) FILTER (WHERE NOT degraded), 2) AS score FROM macro_latest),
          history AS (
            SELECT p.date, p.rn, round(sum(l.weight * p.percentile) / sum(l.weight), 2) AS score
              FROM macro_percentiles p JOIN macro_latest l ON l.name = p.name AND NOT l.degraded
             WHERE p.percentile IS NOT NULL
             GROUP BY p.date, p.rn)
     SELECT to_json(struct_pack(
       data_date := (SELECT strftime(date, '%Y-%m-%d') FROM w),
       score := (SELECT score FROM score),
       regime := (SELECT ${regimeSql('score')} FROM score),
       direction := (SELECT CASE WHEN usdkrw_change_5d_pct >= ${DIRECTION_THRESHOLD_PCT} THEN 'krw_weakening'
                                 WHEN usdkrw_change_5d_pct <= -${DIRECTION_THRESHOLD_PCT} THEN 'strengthening'
                                 ELSE 'stable' END FROM w),
       usdkrw_change_5d_pct := (SELECT round(usdkrw_change_5d_pct, 4) FROM w),
       components := (SELECT list(struct_pack(
                         name := k.name, label := k.label, raw_value := round(k.raw_value, 6), unit := k.unit,
                         percentile := round(k.percentile, 2), weight := k.weight,
                         effective_weight := round(k.effective_weight, 6),
                         freshness_days := k.freshness_days::INTEGER,
                         last_observation := strftime(k.last_observation, '%Y-%m-%d'),
                         degraded := k.degraded, degraded_reason := k.degraded_reason,
                         inputs := ${inputsSql}
                       ) ORDER BY k.position) FROM macro_latest k CROSS JOIN w),
       degraded := coalesce((SELECT list(name ORDER BY position) FROM macro_latest WHERE degraded), []::VARCHAR[]),
       score_5d_ago := (SELECT score FROM history WHERE rn = (SELECT max(rn) FROM macro_wide) - 5),
       history := coalesce((SELECT list(struct_pack(date := strftime(date, '%Y-%m-%d'), score := score, regime := ${regimeSql('score')})
                                        ORDER BY date) FROM history), [])
     )) AS doc`,
  );
  const components = body.components as ComponentRow[];
  const facts: MacroStressFacts = {
    score: Number(body.score),
    regime: String(body.regime),
    scoreFiveDaysAgo: body.score_5d_ago === null || body.score_5d_ago === undefined ? null : Number(body.score_5d_ago),
    direction: String(body.direction),
    usdKrwChange5dPct: body.usdkrw_change_5d_pct === null ? null : Number(body.usdkrw_change_5d_pct),
    components: components.map(
      (row): MacroComponentFacts => ({
        name: row.name,
        label: MACRO_COMPONENTS.find((k) => k.name === row.name)!.shortLabel,
        percentile: row.percentile,
        effectiveWeight: row.effective_weight,
        degraded: row.degraded,
        degradedReason: row.degraded_reason,
        headline: headline(row),
      }),
    ),
  };
  const answer = await analyst.run(macroNoteTask, facts);
  const { score_5d_ago: _unused, ...rest } = body;
  // the run's official rate, the one fx-rate and the premiums use (run-picture.ts); the component reads FRED's daily closes
  const [fx] = await queryJson(c, `SELECT rate, provider, strftime(as_of, '%Y-%m-%dT%H:%M:%SZ') AS as_of FROM ${FX_SQL}`);
  return {
    source: run.sourceKind,
    as_of: run.now.toISOString(),
    ...rest,
    usdkrw_now: fx ? { rate: Number(fx.rate), source: String(fx.provider), as_of: String(fx.as_of) } : null,
    note: answer.value.note,
    analyst: answer.analyst,
    model: answer.model,
    window_days: MACRO_WINDOW,
    method:
      `rolling ${MACRO_WINDOW}-day percentile over a 2-year daily backfill (at least ${MACRO_MIN_OBSERVATIONS} values), ` +
      'weights 25/25/20/20/10 renormalised over the components that are not degraded',
  };
}

/** Recomputed every 15 minutes (the contract's cache lifetime, docs/services.md, "Korea cache lifetimes"), its note written by the run's analyst. */
export const krwMacroStressStep: KoreaDatasetStep = {
  dataset: 'krw-macro-stress',
  // the macro series, and the run's official rate it shows as usdkrw_now
  reads: ['macro', 'fx'],
  cadence: true,
  async run(ctx) {
    const doc = await krwMacroStressDocument(ctx.connection, runOf(ctx), ctx.analyst);
    const ai = { analyst: ctx.analyst.kind, models: doc.model ? [String(doc.model)] : [] };
    return ctx.writer.writeDocument('krw-macro-stress', doc, ctx.meta('krw-macro-stress', String(doc.as_of), ai));
  },
};
