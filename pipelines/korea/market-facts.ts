/**
 * The market facts the AI products read (market-read, kr-sentiment, divergence): figures from the
 * market datasets this run published (kimchi-premium, stablecoin-premium, arbitrage-scanner,
 * market-movers, exchange-alerts, krw-macro-stress), market breadth and volume from the run's
 * tickers, and the token-level alerts, each naming the figure and the dataset that raised it.
 *
 * Everything is rounded to the precision a reader sees, so an unchanged market state gives the
 * same facts (and the same cache key) run after run. Alerts are computed here, never by a model.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { MARKET_ALERT_TYPES } from '../../catalog/korea.ts';
import type { PipelineContext } from '../runner.ts';
import { queryJson } from '../../lib/duckdb.ts';
import { MOVE_1M_PCT, VOLUME_SPIKE_RATIO } from './datasets/market-movers.ts';
import { TICKERS_SQL } from './premiums.ts';
import { krwSumSql } from './sql.ts';

export type AlertType = (typeof MARKET_ALERT_TYPES)[number];
export type Severity = 'info' | 'warning' | 'critical';

export interface MarketAlert {
  symbol: string;
  exchange: 'upbit' | 'bithumb' | 'both';
  type: AlertType;
  severity: Severity;
  message: string;
  trigger: { figure: string; value: number | null; threshold: number | null; source: string };
}

/** A token's premium this far above the market (BTC on Upbit) is a premium spike; twice as far, critical. */
export const PREMIUM_SPIKE_PP = 5;
/** A premium at or below this is a reverse-premium alert (percent). */
export const REVERSE_PREMIUM_ALERT_PCT = -3;
/** Premium alerts only for tokens trading at least this much (KRW, 24 hours, both exchanges): thin books show noise. */
export const ALERT_MIN_VOLUME_KRW = 100_000_000;
export const ALERTS_LIMIT = 20;
/** Listing changes younger than this are alerts. */
export const LISTING_ALERT_HOURS = 24;

const r2 = (n: number | null | undefined): number | null =>
  n === null || n === undefined || !Number.isFinite(n) ? null : Math.round(n * 100) / 100;
const pct = (n: number | null): string => (n === null ? 'n/a' : `${n > 0 ? '+' : ''}${n.toFixed(2)} %`);

interface PremiumEntry {
  symbol: string;
  korean_name: string | null;
  global_price_usd: number;
  global_source: string;
  exchanges: Array<{ exchange: 'upbit' | 'bithumb'; price_krw: number; premium_pct: number; usdt_premium_pct: number | null }>;
}
interface KimchiDoc {
  fx_rate: number;
  fx_source: string;
  fx_as_of: string;
  by_symbol: Record<string, PremiumEntry>;
  unavailable_exchanges: Array<{ exchange: string; reason: string }>;
  /** (symbol, exchange) pairs whose inputs were too far apart in time for a premium (older documents have none). */
  stale?: Array<{ symbol: string; exchange: string; reason: string }>;
}
interface StablecoinDoc {
  premiums: Array<{ stablecoin: 'USDT' | 'USDC'; exchange: 'upbit' | 'bithumb'; premium_pct: number }>;
}
interface ArbitrageToken {
  symbol: string;
  upbit_premium_pct: number | null;
  bithumb_premium_pct: number | null;
  upbit_volume_24h_krw: number | null;
  bithumb_volume_24h_krw: number | null;
}
interface MoversDoc {
  movers_1m: Array<{
    exchange: 'upbit' | 'bithumb';
    symbol: string;
    direction: 'surge' | 'crash';
    minute: string;
    change_1m_pct: number;
    volume_1m_krw: number;
  }>;
  volume_spikes: Array<{
    exchange: 'upbit' | 'bithumb';
    symbol: string;
    minute: string;
    ratio: number;
    volume_1m_krw: number;
    change_1m_pct: number | null;
  }>;
}
interface AlertsDoc {
  listing_changes: Array<{
    exchange: 'upbit' | 'bithumb';
    symbol: string;
    korean_name: string | null;
    change: 'new_listing' | 'delisting';
    detected_at: string;
  }>;
  investment_warnings: Array<{ exchange: 'upbit' | 'bithumb'; symbol: string; first_seen: string }>;
}
interface MacroDoc {
  score: number;
  regime: string;
  direction: string;
}

export interface MarketFacts {
  as_of: string;
  fx: { rate: number; source: string; as_of: string } | null;
  /** BTC and ETH: premiums per exchange, 24-hour change on Upbit, global price. */
  majors: Array<{
    symbol: string;
    global_price_usd: number;
    upbit_premium_pct: number | null;
    bithumb_premium_pct: number | null;
    change_24h_pct: number | null;
  }>;
  usdt_premium_pct: { upbit: number | null; bithumb: number | null };
  breadth: { exchange: 'upbit'; advancers: number; decliners: number; unchanged: number; median_change_24h_pct: number | null };
  volume_24h_krw: { upbit: number; bithumb: number; total: number };
  movers: Array<{ exchange: string; symbol: string; direction: string; change_1m_pct: number }>;
  volume_spikes: Array<{ exchange: string; symbol: string; ratio: number }>;
  macro: { score: number; regime: string; direction: string } | null;
  alerts: MarketAlert[];
  /** The datasets of this snapshot the facts come from. */
  datasets: string[];
  exchanges: Array<'upbit' | 'bithumb'>;
  unavailable_exchanges: Array<{ exchange: string; reason: string }>;
}

function doc<T>(ctx: PipelineContext, name: string, used: string[]): T | null {
  const value = ctx.writer.readDocument(name) as T | undefined;
  if (value === undefined) return null;
  used.push(name);
  return value;
}

async function breadth(
  c: DuckDBConnection,
): Promise<{ breadth: MarketFacts['breadth']; volume: MarketFacts['volume_24h_krw']; changes: Map<string, number> }> {
  const [row] = await queryJson(
    c,
    `SELECT count(*) FILTER (WHERE exchange = 'upbit' AND change_24h_pct > 0)::INTEGER AS advancers,
            count(*) FILTER (WHERE exchange = 'upbit' AND change_24h_pct < 0)::INTEGER AS decliners,
            count(*) FILTER (WHERE exchange = 'upbit' AND change_24h_pct = 0)::INTEGER AS unchanged,
            round(median(change_24h_pct) FILTER (WHERE exchange = 'upbit'), 2) AS median_change,
            coalesce(${krwSumSql('volume_24h_krw', "exchange = 'upbit'")}, 0) AS upbit_volume,
            coalesce(${krwSumSql('volume_24h_krw', "exchange = 'bithumb'")}, 0) AS bithumb_volume
       FROM ${TICKERS_SQL} t WHERE symbol NOT IN ('USDT', 'USDC')`,
  );
  const changes = await queryJson(
    c,
    `SELECT symbol, round(change_24h_pct, 2) AS change FROM ${TICKERS_SQL} t WHERE exchange = 'upbit' AND symbol IN ('BTC', 'ETH')`,
  );
  const upbit = Math.round(Number(row?.upbit_volume ?? 0));
  const bithumb = Math.round(Number(row?.bithumb_volume ?? 0));
  return {
    breadth: {
      exchange: 'upbit',
      advancers: Number(row?.advancers ?? 0),
      decliners: Number(row?.decliners ?? 0),
      unchanged: Number(row?.unchanged ?? 0),
      median_change_24h_pct: row?.median_change === null || row?.median_change === undefined ? null : Number(row.median_change),
    },
    volume: { upbit, bithumb, total: upbit + bithumb },
    changes: new Map(changes.map((r) => [String(r.symbol), Number(r.change)])),
  };
}

const SEVERITY_RANK: Record<Severity, number> = { critical: 0, warning: 1, info: 2 };

function premiumAlerts(tokens: ArbitrageToken[], market: number | null): MarketAlert[] {
  const alerts: MarketAlert[] = [];
  for (const t of tokens) {
    const volume = (t.upbit_volume_24h_krw ?? 0) + (t.bithumb_volume_24h_krw ?? 0);
    if (volume < ALERT_MIN_VOLUME_KRW) continue;
    const sides = [
      ['upbit', t.upbit_premium_pct],
      ['bithumb', t.bithumb_premium_pct],
    ].filter((s): s is ['upbit' | 'bithumb', number] => s[1] !== null);
    if (sides.length === 0) continue;
    const [highEx, high] = sides.reduce((a, b) => (b[1] > a[1] ? b : a));
    const [lowEx, low] = sides.reduce((a, b) => (b[1] < a[1] ? b : a));
    if (market !== null && t.symbol !== 'BTC' && high - market >= PREMIUM_SPIKE_PP) {
      const threshold = r2(market + PREMIUM_SPIKE_PP)!;
      alerts.push({
        symbol: t.symbol,
        exchange: highEx,
        type: 'premium_spike',
        severity: high - market >= 2 * PREMIUM_SPIKE_PP ? 'critical' : 'warning',
        message: `${t.symbol} trades at a ${pct(high)} kimchi premium on ${highEx}, ${(high - market).toFixed(2)} points above BTC's ${pct(market)}.`,
        trigger: { figure: 'kimchi_premium_pct', value: high, threshold, source: 'arbitrage-scanner' },
      });
    }
    if (low <= REVERSE_PREMIUM_ALERT_PCT) {
      alerts.push({
        symbol: t.symbol,
        exchange: lowEx,
        type: 'reverse_premium',
        severity: low <= 3 * REVERSE_PREMIUM_ALERT_PCT ? 'warning' : 'info',
        message: `${t.symbol} trades ${pct(low)} against its global price on ${lowEx} (a reverse premium).`,
        trigger: { figure: 'kimchi_premium_pct', value: low, threshold: REVERSE_PREMIUM_ALERT_PCT, source: 'arbitrage-scanner' },
      });
    }
  }
  return alerts;
}

function moverAlerts(movers: MoversDoc | null): MarketAlert[] {
  if (!movers) return [];
  const moves: MarketAlert[] = movers.movers_1m.map((m) => {
    const size = Math.abs(m.change_1m_pct);
    return {
      symbol: m.symbol,
      exchange: m.exchange,
      type: m.direction === 'surge' ? 'price_surge' : 'price_crash',
      severity: size >= 5 ? 'critical' : size >= 2 ? 'warning' : 'info',
      message: `${m.symbol} ${m.direction === 'surge' ? 'rose' : 'fell'} ${Math.abs(m.change_1m_pct).toFixed(2)} % on ${m.exchange} in the minute from ${m.minute.slice(11, 16)} UTC.`,
      trigger: {
        figure: 'change_1m_pct',
        value: r2(m.change_1m_pct),
        threshold: m.direction === 'surge' ? MOVE_1M_PCT : -MOVE_1M_PCT,
        source: 'market-movers',
      },
    };
  });
  const spikes: MarketAlert[] = movers.volume_spikes.map((s) => ({
    symbol: s.symbol,
    exchange: s.exchange,
    type: 'volume_spike',
    severity: s.ratio >= 50 ? 'critical' : s.ratio >= 20 ? 'warning' : 'info',
    message: `${s.symbol} traded ${s.ratio.toFixed(1)} times its average minute volume on ${s.exchange} in the minute from ${s.minute.slice(11, 16)} UTC.`,
    trigger: { figure: 'volume_ratio', value: r2(s.ratio), threshold: VOLUME_SPIKE_RATIO, source: 'market-movers' },
  }));
  return [...moves, ...spikes];
}

function exchangeAlerts(alerts: AlertsDoc | null, now: Date): MarketAlert[] {
  if (!alerts) return [];
  const since = now.getTime() - LISTING_ALERT_HOURS * 3600_000;
  const listings: MarketAlert[] = alerts.listing_changes
    .filter((l) => Date.parse(l.detected_at) >= since)
    .map((l) => ({
      symbol: l.symbol,
      exchange: l.exchange,
      type: l.change,
      severity: l.change === 'delisting' ? 'warning' : 'info',
      message: `${l.symbol}${l.korean_name ? ` (${l.korean_name})` : ''} ${l.change === 'delisting' ? 'was delisted from' : 'was newly listed on'} ${l.exchange}, detected at ${l.detected_at.slice(0, 16).replace('T', ' ')} UTC.`,
      trigger: { figure: 'detected_at', value: Math.round(Date.parse(l.detected_at) / 1000), threshold: null, source: 'exchange-alerts' },
    }));
  const warnings: MarketAlert[] = alerts.investment_warnings.map((w) => ({
    symbol: w.symbol,
    exchange: w.exchange,
    type: 'investment_warning',
    severity: 'warning',
    message: `${w.symbol} is under an investment warning on ${w.exchange} (first seen ${w.first_seen.slice(0, 16).replace('T', ' ')} UTC).`,
    trigger: { figure: 'investment_warning', value: null, threshold: null, source: 'exchange-alerts' },
  }));
  return [...listings, ...warnings];
}

function magnitude(a: MarketAlert): number {
  if (a.trigger.value === null || a.trigger.figure === 'detected_at') return 0;
  return Math.abs(a.trigger.value - (a.type === 'premium_spike' ? (a.trigger.threshold ?? 0) : 0));
}

export async function marketFacts(ctx: PipelineContext): Promise<MarketFacts> {
  const used: string[] = [];
  const kimchi = doc<KimchiDoc>(ctx, 'kimchi-premium', used);
  const stable = doc<StablecoinDoc>(ctx, 'stablecoin-premium', used);
  const arbitrage = doc<{ tokens: ArbitrageToken[] }>(ctx, 'arbitrage-scanner', used);
  const movers = doc<MoversDoc>(ctx, 'market-movers', used);
  const exchange = doc<AlertsDoc>(ctx, 'exchange-alerts', used);
  const macro = doc<MacroDoc>(ctx, 'krw-macro-stress', used);
  const { breadth: b, volume, changes } = await breadth(ctx.connection);
  used.push('kr-prices');
  const premiumOf = (symbol: string, ex: 'upbit' | 'bithumb') =>
    r2(kimchi?.by_symbol[symbol]?.exchanges.find((e) => e.exchange === ex)?.premium_pct);
  const usdt = (ex: 'upbit' | 'bithumb') => r2(stable?.premiums.find((p) => p.stablecoin === 'USDT' && p.exchange === ex)?.premium_pct);
  const market = premiumOf('BTC', 'upbit') ?? premiumOf('BTC', 'bithumb');
  const alerts = [...premiumAlerts(arbitrage?.tokens ?? [], market), ...moverAlerts(movers), ...exchangeAlerts(exchange, ctx.now)]
    .sort(
      (a, b2) =>
        SEVERITY_RANK[a.severity] - SEVERITY_RANK[b2.severity] ||
        magnitude(b2) - magnitude(a) ||
        a.symbol.localeCompare(b2.symbol) ||
        a.type.localeCompare(b2.type),
    )
    .slice(0, ALERTS_LIMIT);
  const exchanges = (['upbit', 'bithumb'] as const).filter((ex) => !(kimchi?.unavailable_exchanges ?? []).some((u) => u.exchange === ex));
  return {
    as_of: ctx.now.toISOString(),
    fx: kimchi ? { rate: kimchi.fx_rate, source: kimchi.fx_source, as_of: kimchi.fx_as_of } : null,
    majors: ['BTC', 'ETH'].flatMap((symbol) => {
      const entry = kimchi?.by_symbol[symbol];
      if (!entry) return [];
      return [
        {
          symbol,
          global_price_usd: entry.global_price_usd,
          upbit_premium_pct: premiumOf(symbol, 'upbit'),
          bithumb_premium_pct: premiumOf(symbol, 'bithumb'),
          change_24h_pct: changes.get(symbol) ?? null,
        },
      ];
    }),
    usdt_premium_pct: { upbit: usdt('upbit'), bithumb: usdt('bithumb') },
    breadth: b,
    volume_24h_krw: volume,
    movers: (movers?.movers_1m ?? [])
      .slice(0, 5)
      .map((m) => ({ exchange: m.exchange, symbol: m.symbol, direction: m.direction, change_1m_pct: r2(m.change_1m_pct)! })),
    volume_spikes: (movers?.volume_spikes ?? []).slice(0, 5).map((s) => ({ exchange: s.exchange, symbol: s.symbol, ratio: r2(s.ratio)! })),
    macro: macro ? { score: macro.score, regime: macro.regime, direction: macro.direction } : null,
    alerts,
    datasets: used,
    exchanges,
    unavailable_exchanges: kimchi?.unavailable_exchanges ?? [],
  };
}

/** The premium per symbol and exchange from this run's kimchi-premium document (divergence reads it). */
export function premiumsOf(ctx: PipelineContext): KimchiDoc | null {
  return (ctx.writer.readDocument('kimchi-premium') as KimchiDoc | undefined) ?? null;
}

export const clip = (x: number): number => Math.max(-1, Math.min(1, x));

/** The exchange signals the rules read, each in [-1, 1]: breadth, BTC's 24-hour move (/5 %) and the USDT premium (/2 %). */
export function marketSignals(f: MarketFacts): { breadth: number; btc: number; usdt: number } {
  const total = f.breadth.advancers + f.breadth.decliners;
  const btc = f.majors.find((m) => m.symbol === 'BTC')?.change_24h_pct ?? 0;
  const usdt = f.usdt_premium_pct.upbit ?? f.usdt_premium_pct.bithumb ?? 0;
  return { breadth: total > 0 ? (f.breadth.advancers - f.breadth.decliners) / total : 0, btc: clip(btc / 5), usdt: clip(usdt / 2) };
}

/** A score in [-1, 1] from the exchange figures: 0.5 breadth + 0.3 BTC + 0.2 USDT premium. */
export function marketScore(f: MarketFacts): number {
  const s = marketSignals(f);
  return clip(0.5 * s.breadth + 0.3 * s.btc + 0.2 * s.usdt);
}
