/**
 * Plausibility of the korea inputs (bounds: plausibility-bounds.ts). After the ingest, before any
 * dataset is computed, every input is held against its references: the official rate against its
 * last good value and the other FX source, each exchange's prices against their last good values,
 * the other exchange and the global price at the official rate, the global prices against their
 * last good values and the Korean prices, the macro series against their previous observation.
 *
 *   prepare:plausibility  writes refused_inputs(input, subject, reason) for this run and moves the
 *                         last good values (korea_input_last_good, kept across runs) to the
 *                         inputs it accepted
 *
 * Every dataset step is guarded (`guardedByPlausibility`): a dataset that reads a refused input
 * (its `reads`, declared with the step) fails with the reasons, so the runner keeps its last good
 * version and says why. A price that is a thousand times too high is never turned into a premium,
 * an archived point, an order book or a preview.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { SourceKind } from '../../sources/raw-tables.ts';
import type { PrepareStep } from '../runner.ts';
import { queryJson } from '../../lib/duckdb.ts';
import { KOREA_INPUT_BOUNDS, STABLECOINS, type KoreaInput, type MacroSeriesBound } from './plausibility-bounds.ts';
import { FX_SQL, GLOBAL_SQL, TICKERS_SQL } from './premiums.ts';
import { ensureRawTables, exchangeRankSql, LISTING_EXCHANGES, quote, tableExists, type KoreaDatasetStep } from './sql.ts';

/** This run's refusals (dropped with the run's tables). */
export const REFUSED_INPUTS = 'refused_inputs';
/** The last accepted value of every input, per source kind: kept across runs like macro_history. */
export const LAST_GOOD = 'korea_input_last_good';

export interface Refusal {
  input: KoreaInput;
  /** What was refused within the input: 'USDKRW', an exchange, 'global', a macro series. */
  subject: string;
  /** In full: the value, each reference and how far it is from each. */
  reason: string;
  /** A few words naming what was refused, for a dataset refused for several inputs. */
  short: string;
}

interface Run {
  now: Date;
  sourceKind: SourceKind;
}

const B = KOREA_INPUT_BOUNDS;
/** Refused values described in full in one reason (the runner keeps 300 characters of it); the rest are named. */
const DESCRIBED = 1;
const NAMED = 6;

const num = (v: number): string =>
  v.toLocaleString('en-US', { minimumFractionDigits: Math.abs(v) < 100 ? 1 : 0, maximumFractionDigits: Math.abs(v) < 10 ? 4 : 1 });

/** '99.9 % below' / '99,900.0 % above': how far `value` is from `reference`. */
export function deviation(value: number, reference: number): string {
  const pct = (value / reference - 1) * 100;
  const size = Math.abs(pct).toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  return `${size} % ${pct >= 0 ? 'above' : 'below'}`;
}

/** True when `value` is within `maxRatio` times above or below `reference`. */
const agrees = (value: number, reference: number, maxRatio: number): boolean =>
  value > 0 && reference > 0 && Math.max(value / reference, reference / value) <= maxRatio;

/** The same test in SQL: NULL when there is no reference. */
const agreesSql = (value: string, reference: string, maxRatio: number): string =>
  `(CASE WHEN ${reference} IS NULL OR ${reference} <= 0 THEN NULL ELSE greatest(${value} / ${reference}, ${reference} / ${value}) <= ${maxRatio} END)`;

/** Refused when more references disagree than agree (NULL: no such reference). */
const refusedByVotesSql = (votes: readonly string[]): string => {
  const count = (want: boolean) => votes.map((v) => `(CASE WHEN ${v} = ${want} THEN 1 ELSE 0 END)`).join(' + ');
  return `((${count(false)}) > (${count(true)}))`;
};

async function ensureLastGood(c: DuckDBConnection): Promise<void> {
  await c.run(`CREATE TABLE IF NOT EXISTS ${LAST_GOOD} (source VARCHAR, input VARCHAR, key VARCHAR, value DOUBLE, as_of TIMESTAMP)`);
}

/** Replaces the last good values of `input` for the keys `rowsSql` (key, value, as_of) holds. */
async function storeLastGood(c: DuckDBConnection, run: Run, input: KoreaInput, rowsSql: string): Promise<void> {
  await c.run(
    `CREATE OR REPLACE TEMP TABLE plausibility_accepted AS SELECT key::VARCHAR AS key, value::DOUBLE AS value, as_of::TIMESTAMP AS as_of FROM (${rowsSql})`,
  );
  await c.run(
    `DELETE FROM ${LAST_GOOD} WHERE source = ${quote(run.sourceKind)} AND input = ${quote(input)}
        AND key IN (SELECT key FROM plausibility_accepted)`,
  );
  await c.run(`INSERT INTO ${LAST_GOOD} SELECT ${quote(run.sourceKind)}, ${quote(input)}, key, value, as_of FROM plausibility_accepted`);
}

/** The last good value of `input` under `key`, joinable: (key, value, as_of). */
const lastGoodSql = (run: Run, input: KoreaInput) =>
  `(SELECT key, value, as_of FROM ${LAST_GOOD} WHERE source = ${quote(run.sourceKind)} AND input = ${quote(input)})`;

const withinSeconds = (a: string, b: string, seconds: number) => `abs(epoch(${a}) - epoch(${b})) <= ${seconds}`;

// ---------------------------------------------------------------------------------- the checks

/** The official rate; returns the refusal (if any) and the rate the other checks may use. */
async function checkFx(c: DuckDBConnection, run: Run): Promise<{ refusal: Refusal | null; rate: number | null }> {
  const [fx] = await queryJson(
    c,
    `SELECT fx.rate, fx.provider, strftime(fx.as_of, '%Y-%m-%d') AS day,
            lg.value AS last_good,
            (SELECT value FROM macro_daily WHERE series = 'DEXKOUS' AND value IS NOT NULL
                AND ${withinSeconds('date::TIMESTAMP', 'fx.as_of', B.fx.otherSource.maxAgeSeconds)}
              ORDER BY date DESC LIMIT 1) AS other,
            (SELECT strftime(date, '%Y-%m-%d') FROM macro_daily WHERE series = 'DEXKOUS' AND value IS NOT NULL
                AND ${withinSeconds('date::TIMESTAMP', 'fx.as_of', B.fx.otherSource.maxAgeSeconds)}
              ORDER BY date DESC LIMIT 1) AS other_day
       FROM ${FX_SQL} fx
       LEFT JOIN ${lastGoodSql(run, 'fx')} lg ON lg.key = 'USDKRW' AND ${withinSeconds('lg.as_of', 'fx.as_of', B.fx.lastGood.maxAgeSeconds)}`,
  );
  const [kept] = await queryJson(c, `SELECT value FROM ${lastGoodSql(run, 'fx')} WHERE key = 'USDKRW'`);
  const keptRate = kept ? Number(kept.value) : null;
  if (!fx) return { refusal: null, rate: keptRate };
  const rate = Number(fx.rate);
  const lastGood = fx.last_good === null ? null : Number(fx.last_good);
  const inRangeOf = (v: number) => v >= B.fx.range.min && v <= B.fx.range.max;
  const other = fx.other === null || !inRangeOf(Number(fx.other)) ? null : Number(fx.other); // a broken DEXKOUS is no reference
  const inRange = inRangeOf(rate);
  const votes = [
    lastGood === null ? null : agrees(rate, lastGood, B.fx.lastGood.maxRatio),
    other === null ? null : agrees(rate, other, B.fx.otherSource.maxRatio),
  ];
  const against = votes.filter((v) => v === false).length;
  const with_ = votes.filter((v) => v === true).length;
  if (inRange && against <= with_) {
    await storeLastGood(c, run, 'fx', `SELECT 'USDKRW' AS key, rate AS value, as_of FROM ${FX_SQL}`);
    return { refusal: null, rate };
  }
  const parts = [
    ...(inRange ? [] : [`outside ${num(B.fx.range.min)} to ${num(B.fx.range.max)}`]),
    ...(lastGood === null ? [] : [`${deviation(rate, lastGood)} the last good ${num(lastGood)}`]),
    ...(other === null ? [] : [`${deviation(rate, other)} the other source ${num(other)} (FRED DEXKOUS ${String(fx.other_day)})`]),
  ];
  return {
    refusal: {
      input: 'fx',
      subject: 'USDKRW',
      reason: `FX ${num(rate)} KRW/USD (${String(fx.provider)}) is ${joinAnd(parts)}`,
      short: `FX ${num(rate)} KRW/USD`,
    },
    rate: keptRate,
  };
}

/** Global prices against their last good values and the closest Korean price at the official rate. */
async function checkGlobalPrices(c: DuckDBConnection, run: Run, fxRate: number | null): Promise<Refusal | null> {
  const b = B.globalPrices;
  await c.run(
    `CREATE OR REPLACE TEMP TABLE plausibility_global AS
     WITH g AS (SELECT symbol, price_usd, venue, as_of FROM ${GLOBAL_SQL}),
          k AS (SELECT g.symbol,
                       arg_min(t.exchange, abs(ln(t.price_krw / ${fxRate ?? 'NULL'} / g.price_usd))) AS exchange,
                       arg_min(t.price_krw / ${fxRate ?? 'NULL'}, abs(ln(t.price_krw / ${fxRate ?? 'NULL'} / g.price_usd))) AS korean_usd
                  FROM g JOIN ${TICKERS_SQL} t ON t.symbol = g.symbol GROUP BY g.symbol),
          r AS (SELECT g.*, lg.value AS last_good, k.exchange AS korean_exchange, k.korean_usd
                  FROM g
                  LEFT JOIN ${lastGoodSql(run, 'globalPrices')} lg
                         ON lg.key = g.symbol AND ${withinSeconds('lg.as_of', 'g.as_of', b.lastGood.maxAgeSeconds)}
                  LEFT JOIN k ON k.symbol = g.symbol)
     SELECT *, ${refusedByVotesSql([agreesSql('price_usd', 'last_good', b.lastGood.maxRatio), agreesSql('price_usd', 'korean_usd', b.korean.maxRatio)])} AS refused
       FROM r`,
  );
  await storeLastGood(c, run, 'globalPrices', `SELECT symbol AS key, price_usd AS value, as_of FROM plausibility_global WHERE NOT refused`);
  const refused = await queryJson(
    c,
    `SELECT symbol, venue, price_usd, last_good, korean_exchange, korean_usd FROM plausibility_global WHERE refused
      ORDER BY abs(ln(price_usd / coalesce(last_good, korean_usd))) DESC, symbol`,
  );
  if (refused.length === 0) return null;
  const described = refused.slice(0, DESCRIBED).map((r) => {
    const value = Number(r.price_usd);
    const parts = [
      ...(r.last_good === null ? [] : [`${deviation(value, Number(r.last_good))} the last good ${num(Number(r.last_good))}`]),
      ...(r.korean_usd === null
        ? []
        : [`${deviation(value, Number(r.korean_usd))} ${String(r.korean_exchange)} at the official rate (${num(Number(r.korean_usd))})`]),
    ];
    return `${String(r.venue)} ${String(r.symbol)} ${num(value)} USD is ${joinAnd(parts)}`;
  });
  const symbols = refused.map((r) => String(r.symbol));
  return {
    input: 'globalPrices',
    subject: 'global',
    reason: withMore(described, symbols),
    short: `global prices (${named(symbols)})`,
  };
}

/** Korean prices per exchange: against the last good value, the other exchange and the global price at the official rate. */
type KrRefusal = Refusal & { symbols: string[]; priced: number };

async function checkKrPrices(c: DuckDBConnection, run: Run, fxRate: number | null): Promise<KrRefusal[]> {
  const b = B.krPrices;
  const stable = STABLECOINS.map(quote).join(', ');
  const fx = fxRate ?? 'NULL';
  await c.run(
    `CREATE OR REPLACE TEMP TABLE plausibility_kr AS
     WITH t AS (SELECT exchange, symbol, price_krw, as_of FROM ${TICKERS_SQL}),
          r AS (SELECT t.exchange, t.symbol, t.price_krw, t.as_of,
                       lg.value AS last_good,
                       o.other_exchange, o.other_price,
                       CASE WHEN t.symbol IN (${stable}) THEN ${fx}
                            WHEN g.refused THEN NULL
                            ELSE g.price_usd * ${fx} END AS global_krw
                  FROM t
                  LEFT JOIN ${lastGoodSql(run, 'krPrices')} lg
                         ON lg.key = t.exchange || ':' || t.symbol AND ${withinSeconds('lg.as_of', 't.as_of', b.lastGood.maxAgeSeconds)}
                  -- the other exchanges' median: one bad exchange of four never moves it far
                  LEFT JOIN LATERAL (SELECT median(o.price_krw) AS other_price,
                                            string_agg(o.exchange, ', ' ORDER BY ${exchangeRankSql('o.exchange')}) AS other_exchange
                                       FROM t o WHERE o.symbol = t.symbol AND o.exchange <> t.exchange) o ON true
                  LEFT JOIN plausibility_global g ON g.symbol = t.symbol)
     SELECT *, (CASE WHEN symbol IN (${stable})
                     THEN ${refusedByVotesSql(['last_good', 'other_price', 'global_krw'].map((ref) => agreesSql('price_krw', ref, b.stablecoin.maxRatio)))}
                     ELSE ${refusedByVotesSql([
                       agreesSql('price_krw', 'last_good', b.lastGood.maxRatio),
                       agreesSql('price_krw', 'other_price', b.otherExchange.maxRatio),
                       agreesSql('price_krw', 'global_krw', b.global.maxRatio),
                     ])} END) AS refused
       FROM r`,
  );
  await storeLastGood(
    c,
    run,
    'krPrices',
    `SELECT exchange || ':' || symbol AS key, price_krw AS value, as_of FROM plausibility_kr WHERE NOT refused`,
  );
  const refused = await queryJson(
    c,
    `SELECT * FROM (
       SELECT exchange, symbol, price_krw, last_good, other_exchange, other_price, global_krw, refused,
              count(*) OVER (PARTITION BY exchange)::INTEGER AS n_priced
         FROM plausibility_kr) WHERE refused
      ORDER BY exchange, abs(ln(price_krw / coalesce(last_good, other_price, global_krw))) DESC, symbol`,
  );
  const byExchange = new Map<string, Array<Record<string, unknown>>>();
  for (const r of refused) byExchange.set(String(r.exchange), [...(byExchange.get(String(r.exchange)) ?? []), r]);
  return [...byExchange].map(([exchange, rows]) => {
    const described = rows.slice(0, DESCRIBED).map((r) => {
      const value = Number(r.price_krw);
      const stablecoin = (STABLECOINS as readonly string[]).includes(String(r.symbol));
      const parts = [
        ...(r.last_good === null ? [] : [`${deviation(value, Number(r.last_good))} the last good ${num(Number(r.last_good))}`]),
        ...(r.other_price === null
          ? []
          : [`${deviation(value, Number(r.other_price))} ${others(String(r.other_exchange))} ${num(Number(r.other_price))}`]),
        ...(r.global_krw === null
          ? []
          : [
              `${deviation(value, Number(r.global_krw))} ${stablecoin ? 'the official rate' : 'the global price at the official rate'} ${num(Number(r.global_krw))}`,
            ]),
      ];
      return `${exchange} ${String(r.symbol)} ${num(value)} KRW is ${joinAnd(parts)}`;
    });
    const symbols = rows.map((r) => String(r.symbol));
    return {
      input: 'krPrices' as const,
      subject: exchange,
      reason: withMore(described, symbols),
      short: `${exchange} prices (${named(symbols)})`,
      symbols,
      priced: Number(rows[0]!.n_priced),
    };
  });
}

/** This run's Coinone and Korbit prices set aside as implausible (exchange, symbol, reason); dropped with the run's tables. */
export const SET_ASIDE_PRICES = 'set_aside_prices';

/**
 * Coinone and Korbit feed the premiums and the Korea index but no product rests on them alone: a
 * refused price of theirs is set aside (its kr_tickers row removed for this run, the reason kept
 * in set_aside_prices) instead of holding back every market dataset. An exchange with more than
 * half of its prices refused answers nonsense: all its prices are set aside and the reason
 * recorded as its failure, so every document names it among the unavailable exchanges.
 */
async function setAsidePrices(c: DuckDBConnection, refusals: ReadonlyArray<KrRefusal>, now: Date): Promise<void> {
  await c.run(`CREATE OR REPLACE TABLE ${SET_ASIDE_PRICES} (exchange VARCHAR, symbol VARCHAR, reason VARCHAR)`);
  for (const r of refusals) {
    const whole = r.symbols.length * 2 > r.priced;
    const reason = whole
      ? `${r.subject}: ${r.symbols.length} of its ${r.priced} prices are implausible, so none is used (${r.reason})`
      : r.reason;
    await c.run(
      `INSERT INTO ${SET_ASIDE_PRICES} SELECT DISTINCT exchange, symbol, $reason FROM kr_tickers
        WHERE exchange = $exchange AND (${whole} OR list_contains($symbols::VARCHAR[], symbol))`,
      { reason: reason.slice(0, 500), exchange: r.subject, symbols: JSON.stringify(r.symbols) },
    );
    await c.run(`DELETE FROM kr_tickers WHERE exchange = $exchange AND (${whole} OR list_contains($symbols::VARCHAR[], symbol))`, {
      exchange: r.subject,
      symbols: JSON.stringify(r.symbols),
    });
    if (whole) {
      await c.run(`CREATE TABLE IF NOT EXISTS ingest_failures (upstream VARCHAR, error VARCHAR, "at" TIMESTAMP)`);
      await c.run(`INSERT INTO ingest_failures VALUES ($upstream, $error, $at::TIMESTAMP)`, {
        upstream: r.subject,
        error: reason.slice(0, 500),
        at: now.toISOString(),
      });
    }
  }
}

/**
 * Macro series: each observation newer than the last one checked, against its range and the
 * observation before it. A refused series stays refused until its history is mended.
 */
async function checkMacro(c: DuckDBConnection, run: Run): Promise<Refusal[]> {
  const series = Object.entries(B.macro.series) as Array<[string, MacroSeriesBound]>;
  const bounds = `(VALUES ${series
    .map(
      ([s, b]) =>
        `(${quote(s)}, ${b.range[0]}::DOUBLE, ${b.range[1]}::DOUBLE, ${b.maxRatio ?? 'NULL'}::DOUBLE, ${b.maxStep ?? 'NULL'}::DOUBLE)`,
    )
    .join(', ')}) AS b(series, lo, hi, max_ratio, max_step)`;
  await c.run(
    `CREATE OR REPLACE TEMP TABLE plausibility_macro AS
     WITH obs AS (SELECT series, date, value, lag(value) OVER (PARTITION BY series ORDER BY date) AS previous
                    FROM (SELECT series, date, avg(value) AS value FROM macro_daily WHERE value IS NOT NULL GROUP BY ALL)),
          fresh AS (SELECT o.*, b.lo, b.hi, b.max_ratio, b.max_step
                      FROM obs o JOIN ${bounds} ON b.series = o.series
                      LEFT JOIN ${lastGoodSql(run, 'macro')} lg ON lg.key = o.series
                     WHERE lg.as_of IS NULL OR o.date > lg.as_of::DATE)
     SELECT *, (value < lo OR value > hi
                OR (previous IS NOT NULL AND max_ratio IS NOT NULL AND (previous <= 0 OR greatest(value / previous, previous / value) > max_ratio))
                OR (previous IS NOT NULL AND max_step IS NOT NULL AND abs(value - previous) > max_step)) AS refused
       FROM fresh`,
  );
  await storeLastGood(
    c,
    run,
    'macro',
    `SELECT series AS key, arg_max(value, date) AS value, max(date) AS as_of FROM plausibility_macro
      GROUP BY series HAVING NOT bool_or(refused)`,
  );
  const refused = await queryJson(
    c,
    `SELECT series, strftime(date, '%Y-%m-%d') AS day, value, previous, lo, hi, max_step,
            count(*) OVER (PARTITION BY series)::INTEGER AS n
       FROM plausibility_macro WHERE refused ORDER BY series, date`,
  );
  const bySeries = new Map<string, Array<Record<string, unknown>>>();
  for (const r of refused) bySeries.set(String(r.series), [...(bySeries.get(String(r.series)) ?? []), r]);
  return [...bySeries].map(([name, rows]) => {
    const described = rows.slice(0, DESCRIBED).map((r) => {
      const value = Number(r.value);
      const lo = Number(r.lo);
      const hi = Number(r.hi);
      if (value < lo || value > hi) return `${name} ${num(value)} on ${String(r.day)} is outside ${num(lo)} to ${num(hi)}`;
      const previous = Number(r.previous);
      const change =
        r.max_step === null
          ? deviation(value, previous)
          : `${Math.abs(value - previous).toLocaleString('en-US', { maximumFractionDigits: 2 })} points ${value >= previous ? 'above' : 'below'}`;
      return `${name} ${num(value)} on ${String(r.day)} is ${change} the observation before it (${num(previous)})`;
    });
    const days = rows.map((r) => String(r.day));
    return { input: 'macro' as const, subject: name, reason: withMore(described, days), short: `macro ${name} (${named(days)})` };
  });
}

/** 'bithumb', or 'the median of bithumb, coinone and korbit'. */
function others(list: string): string {
  const names = list.split(', ');
  return names.length > 1 ? `the median of ${joinAnd(names)}` : list;
}

function joinAnd(parts: readonly string[]): string {
  if (parts.length <= 1) return parts.join('');
  return `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

/** The first few of `all`, and how many more. */
function named(all: readonly string[]): string {
  return all.length > NAMED ? `${all.slice(0, NAMED).join(', ')} and ${all.length - NAMED} more` : all.join(', ');
}

/** The described values, then the others by name. */
function withMore(described: readonly string[], all: readonly string[]): string {
  const rest = all.slice(described.length);
  return described.join('; ') + (rest.length ? `; also ${named(rest)}` : '');
}

/** Runs every check on the raw tables of this run, moves the last good values, and returns the refusals. */
export async function checkKoreaInputs(c: DuckDBConnection, run: Run): Promise<Refusal[]> {
  await ensureRawTables(c);
  await ensureLastGood(c);
  const fx = await checkFx(c, run);
  const global = await checkGlobalPrices(c, run, fx.rate);
  const kr = await checkKrPrices(c, run, fx.rate);
  const listing = (exchange: string) => (LISTING_EXCHANGES as readonly string[]).includes(exchange);
  await setAsidePrices(
    c,
    kr.filter((r) => !listing(r.subject)),
    run.now,
  );
  const macro = await checkMacro(c, run);
  for (const t of ['plausibility_accepted', 'plausibility_global', 'plausibility_kr', 'plausibility_macro']) {
    await c.run(`DROP TABLE IF EXISTS ${t}`);
  }
  const blocking: Refusal[] = kr.filter((r) => listing(r.subject)).map(({ symbols: _s, priced: _p, ...r }) => r);
  return [...(fx.refusal ? [fx.refusal] : []), ...(global ? [global] : []), ...blocking, ...macro];
}

export const plausibilityStep: PrepareStep = {
  name: 'plausibility',
  tables: [REFUSED_INPUTS, SET_ASIDE_PRICES],
  async run(ctx) {
    const c = ctx.connection;
    const refusals = await checkKoreaInputs(c, { now: ctx.now, sourceKind: ctx.sourceKind });
    await c.run(`CREATE TABLE ${REFUSED_INPUTS} (input VARCHAR, subject VARCHAR, reason VARCHAR, short VARCHAR)`);
    for (const r of refusals) {
      await c.run(`INSERT INTO ${REFUSED_INPUTS} VALUES ($input, $subject, $reason, $short)`, { ...r });
      ctx.log(`refused ${KOREA_INPUT_BOUNDS[r.input].label} input: ${r.reason}`);
    }
    for (const r of await queryJson(c, `SELECT exchange, any_value(reason) AS reason FROM ${SET_ASIDE_PRICES} GROUP BY ALL ORDER BY 1`)) {
      ctx.log(`set aside ${String(r.exchange)} prices: ${String(r.reason)}`);
    }
    return refusals.length;
  },
};

/**
 * Why a dataset reading `inputs` may not be computed in this run (the refusals of those inputs),
 * or null. When the check did not run at all, nothing vouches for the inputs: every dataset that
 * reads one is refused.
 */
export async function refusalFor(c: DuckDBConnection, inputs: readonly KoreaInput[]): Promise<string | null> {
  if (inputs.length === 0) return null;
  if (!(await tableExists(c, REFUSED_INPUTS))) {
    return 'the plausibility check of the inputs did not run (see prepare:plausibility)';
  }
  // in the bounds' order (FX first), whatever order the dataset declares them in
  const list = (Object.keys(KOREA_INPUT_BOUNDS) as KoreaInput[])
    .filter((i) => inputs.includes(i))
    .map(quote)
    .join(', ');
  const rows = await queryJson(
    c,
    `SELECT reason, short FROM ${REFUSED_INPUTS} WHERE input IN (${list}) ORDER BY list_position([${list}], input), subject`,
  );
  if (rows.length === 0) return null;
  // The first in full, the others by name: the run table and the manifest keep 300 characters.
  const [first, ...rest] = rows;
  return String(first!.reason) + (rest.length ? `; also refused: ${rest.map((r) => String(r.short)).join(', ')}` : '');
}

/** The step, refused (its last good version kept) while an input it reads is implausible. */
export function guardedByPlausibility(step: KoreaDatasetStep): KoreaDatasetStep {
  return {
    ...step,
    async run(ctx) {
      const refusal = await refusalFor(ctx.connection, step.reads);
      if (refusal) throw new Error(`implausible input: ${refusal}`);
      return step.run(ctx);
    },
  };
}
