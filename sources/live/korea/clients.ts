/**
 * Where each korea upstream lives and how politely it is called. Base URLs come from settings;
 * unset means the public host (these upstreams are keyless). FX_BASE_URL may name two bases,
 * "dunamu,er-api"; with one, both paths (/v1/forex/recent, /v6/latest/USD) are asked of it.
 */
import type { Settings, UpstreamSetting } from '../../../lib/config.ts';
import { withUpstream as withClient, type Upstream, type UpstreamOptions } from '../http.ts';
import type { RequestBudget } from './request-budget.ts';
import { createTextUpstream, type TextUpstream } from './text-upstream.ts';

export type ClientTuning = Partial<Omit<UpstreamOptions, 'name' | 'baseUrl'>>;

export const PUBLIC_BASE_URLS = {
  UPBIT_BASE_URL: 'https://api.upbit.com',
  BITHUMB_BASE_URL: 'https://api.bithumb.com',
  COINONE_BASE_URL: 'https://api.coinone.co.kr',
  KORBIT_BASE_URL: 'https://api.korbit.co.kr',
  BINANCE_BASE_URL: 'https://api.binance.com',
  OKX_BASE_URL: 'https://www.okx.com',
  FX_BASE_URL: 'https://quotation-api-cdn.dunamu.com,https://open.er-api.com',
  FRED_BASE_URL: 'https://fred.stlouisfed.org',
  NAVER_FINANCE_BASE_URL: 'https://api.finance.naver.com',
} as const satisfies Partial<Record<UpstreamSetting, string>>;

export type KoreaClient =
  | 'upbit'
  | 'upbit-candles'
  | 'bithumb'
  | 'coinone'
  | 'korbit'
  | 'binance'
  | 'okx'
  | 'dunamu'
  | 'er-api'
  | 'fred'
  | 'naver';

// The run repeats every minute: few retries, short timeouts, and a failed upstream waits for the
// next run. Upbit candles share one 10/s group: starts 120 ms apart stay under it.
const TUNING: Record<KoreaClient, ClientTuning> = {
  upbit: { timeoutMs: 10_000, retries: 2, concurrency: 2, backoffBaseMs: 500 },
  'upbit-candles': { timeoutMs: 10_000, retries: 2, concurrency: 2, minIntervalMs: 120, backoffBaseMs: 500 },
  bithumb: { timeoutMs: 10_000, retries: 2, concurrency: 3 },
  // one ticker call a run each: far under Coinone's 1,200/min and Korbit's 50/s
  coinone: { timeoutMs: 10_000, retries: 2, concurrency: 2 },
  korbit: { timeoutMs: 10_000, retries: 2, concurrency: 2 },
  binance: { timeoutMs: 10_000, retries: 1 },
  okx: { timeoutMs: 10_000, retries: 1 },
  dunamu: { timeoutMs: 10_000, retries: 1 },
  'er-api': { timeoutMs: 10_000, retries: 1 },
  fred: { timeoutMs: 30_000, retries: 2, concurrency: 1, minIntervalMs: 200 },
  naver: { timeoutMs: 30_000, retries: 2, concurrency: 1, minIntervalMs: 200, headers: { referer: 'https://finance.naver.com/' } },
};

const SETTING: Record<KoreaClient, keyof typeof PUBLIC_BASE_URLS> = {
  upbit: 'UPBIT_BASE_URL',
  'upbit-candles': 'UPBIT_BASE_URL',
  bithumb: 'BITHUMB_BASE_URL',
  coinone: 'COINONE_BASE_URL',
  korbit: 'KORBIT_BASE_URL',
  binance: 'BINANCE_BASE_URL',
  okx: 'OKX_BASE_URL',
  dunamu: 'FX_BASE_URL',
  'er-api': 'FX_BASE_URL',
  fred: 'FRED_BASE_URL',
  naver: 'NAVER_FINANCE_BASE_URL',
};

export function baseUrlOf(settings: Settings, client: KoreaClient): string {
  const setting = SETTING[client];
  const value = settings.upstreams[setting] ?? PUBLIC_BASE_URLS[setting];
  if (setting !== 'FX_BASE_URL') return value;
  const [dunamu, erApi] = value.split(',').map((s) => s.trim());
  return client === 'er-api' ? erApi || dunamu! : dunamu!;
}

export function clientOptions(settings: Settings, client: KoreaClient, override: ClientTuning = {}): UpstreamOptions {
  return {
    ...TUNING[client],
    ...override,
    headers: { ...TUNING[client].headers, ...override.headers },
    name: client,
    baseUrl: baseUrlOf(settings, client),
  };
}

/** Runs `work` with a fresh JSON client, then charges its requests to the run's budget. */
export function withUpstream<T>(
  options: UpstreamOptions,
  budget: RequestBudget,
  log: (message: string) => void,
  work: (upstream: Upstream) => Promise<T>,
): Promise<T> {
  return withClient(options, log, work, (name, requests) => budget.spend(name, requests));
}

export function textClient(settings: Settings, client: 'fred' | 'naver', override: ClientTuning = {}): TextUpstream {
  return createTextUpstream(clientOptions(settings, client, override));
}
