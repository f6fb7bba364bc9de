/**
 * npm run eval:wash -- --challenge [--split in|ood|both] [--seed N] [--now ISO]
 *
 * Scores the wash classifier on the challenge world (sources/demo/challenge, issue 15): traffic
 * generated apart from the demo world the rules were written against, in an "in" split (parameters
 * in the ranges a rule writer would use) and an "ood" split (every parameter outside them). Loads
 * the world the way eval:wash loads the demo world (raw tables into an in-memory warehouse), runs
 * classify() unchanged and prints, per split, suspected_wash precision and recall, organic users
 * flagged as wash, each honest look-alike's flagged-as-wash rate and per-label F1 beside the
 * issue's targets, plus what each planted pattern got. A measurement: missed targets are marked
 * MISSED and never change the exit code.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { parseIntFlag, parseTimeFlag, splitArgs, UsageError } from '../../lib/args.ts';
import { appendRows, queryJson } from '../../lib/duckdb.ts';
import { challengeWorld } from '../../sources/demo/challenge/world.ts';
import { CHALLENGE_PATTERNS, LOOK_ALIKES, SPLITS, type Split } from '../../sources/demo/challenge/regimes.ts';
import { DEMO_TRUTH_TABLES, RAW_TABLES } from '../../sources/raw-tables.ts';
import { openWarehouse } from '../warehouse.ts';
import { classify } from '../../classifier/index.ts';
import { DEFAULT_EVAL_NOW, type LabelScore, scoreClassification } from './eval-wash.ts';

/** The targets of issue 15, on both splits. */
export const CHALLENGE_TARGETS = {
  washPrecision: 0.97,
  washRecall: 0.95,
  organicAsWash: 0.01,
  lookAlikeAsWash: 0.02,
  otherF1: 0.9,
} as const;

export interface PatternScore {
  pattern: string;
  label: string;
  wallets: number;
  /** predicted suspected_wash */
  asWash: number;
  /** predicted its true label */
  correct: number;
  unlabeled: number;
  /** predicted label -> wallets, most frequent first */
  predicted: Array<{ label: string; wallets: number }>;
}

export interface ChallengeEval {
  split: Split;
  seed: number;
  now: string;
  transactions: number;
  buyers: number;
  generateSeconds: number;
  classifySeconds: number;
  totalSeconds: number;
  buyer: LabelScore[];
  patterns: PatternScore[];
  /** One line per target: what was measured and whether it was met. */
  targets: Array<{ name: string; value: number; target: string; met: boolean }>;
}

export async function loadChallenge(c: DuckDBConnection, seed: number, split: Split, now: Date): Promise<number> {
  const w = challengeWorld({ seed, split, now });
  await appendRows(c, RAW_TABLES.x402_services, w.services, { create: true });
  const transactions = await appendRows(c, RAW_TABLES.x402_transactions, w.transactions, { create: true });
  await appendRows(c, RAW_TABLES.wallet_funding, w.funding, { create: true });
  await appendRows(c, RAW_TABLES.exchange_wallets, w.exchanges, { create: true });
  await appendRows(c, DEMO_TRUTH_TABLES.demo_truth_buyers, w.truthBuyers, { create: true });
  await appendRows(c, DEMO_TRUTH_TABLES.demo_truth_pairs, w.truthPairs, { create: true });
  return transactions;
}

async function patternScores(c: DuckDBConnection): Promise<PatternScore[]> {
  const rows = await queryJson(
    c,
    `SELECT t.pattern, t.label AS truth, coalesce(p.label, 'unlabeled') AS predicted, count(*) AS n
       FROM demo_truth_buyers t LEFT JOIN buyer_labels p ON p.address = t.address
      GROUP BY ALL ORDER BY t.pattern, n DESC, predicted`,
  );
  const byPattern = new Map<string, PatternScore>();
  for (const r of rows) {
    const pattern = String(r.pattern);
    const label = String(r.truth);
    const predicted = String(r.predicted);
    const n = Number(r.n);
    let s = byPattern.get(pattern);
    if (!s) {
      s = { pattern, label, wallets: 0, asWash: 0, correct: 0, unlabeled: 0, predicted: [] };
      byPattern.set(pattern, s);
    }
    s.wallets += n;
    if (predicted === 'suspected_wash') s.asWash += n;
    if (predicted === label) s.correct += n;
    if (predicted === 'unlabeled') s.unlabeled += n;
    s.predicted.push({ label: predicted, wallets: n });
  }
  // in the table's order: wash first, then look-alikes, then honest traffic
  return Object.keys(CHALLENGE_PATTERNS)
    .map((p) => byPattern.get(p))
    .filter((s): s is PatternScore => s !== undefined);
}

const ratio = (a: number, b: number): number => (b === 0 ? 0 : a / b);

export function challengeTargets(buyer: readonly LabelScore[], patterns: readonly PatternScore[]): ChallengeEval['targets'] {
  const T = CHALLENGE_TARGETS;
  const wash = buyer.find((s) => s.label === 'suspected_wash')!;
  const organic = patterns.find((p) => p.pattern === 'organic');
  const out: ChallengeEval['targets'] = [
    { name: 'suspected_wash precision', value: wash.precision, target: `>= ${T.washPrecision}`, met: wash.precision >= T.washPrecision },
    { name: 'suspected_wash recall', value: wash.recall, target: `>= ${T.washRecall}`, met: wash.recall >= T.washRecall },
  ];
  const organicRate = organic ? ratio(organic.asWash, organic.wallets) : 0;
  out.push({
    name: 'organic users flagged as wash',
    value: organicRate,
    target: `<= ${T.organicAsWash}`,
    met: organicRate <= T.organicAsWash,
  });
  for (const name of LOOK_ALIKES) {
    const p = patterns.find((x) => x.pattern === name);
    const rate = p ? ratio(p.asWash, p.wallets) : 0;
    out.push({ name: `${name} flagged as wash`, value: rate, target: `<= ${T.lookAlikeAsWash}`, met: rate <= T.lookAlikeAsWash });
  }
  for (const s of buyer) {
    if (s.label === 'suspected_wash' || s.truth === 0) continue;
    out.push({ name: `${s.label} F1`, value: s.f1, target: `>= ${T.otherF1}`, met: s.f1 >= T.otherF1 });
  }
  return out;
}

/** Generates, classifies and scores the challenge world of one split. */
export async function evaluateChallenge(options: { seed: number; split: Split; now?: Date; threads?: number }): Promise<ChallengeEval> {
  const now = options.now ?? DEFAULT_EVAL_NOW;
  const t0 = performance.now();
  const warehouse = await openWarehouse(':memory:', 'analytics', options.threads ? { threads: options.threads } : {});
  try {
    const c = warehouse.connection;
    const transactions = await loadChallenge(c, options.seed, options.split, now);
    const generateSeconds = (performance.now() - t0) / 1000;
    const stats = await classify(c, { now });
    const scored = await scoreClassification(c);
    const patterns = await patternScores(c);
    return {
      split: options.split,
      seed: options.seed,
      now: now.toISOString(),
      transactions,
      buyers: stats.buyers,
      generateSeconds,
      classifySeconds: stats.seconds,
      totalSeconds: (performance.now() - t0) / 1000,
      buyer: scored.buyer,
      patterns,
      targets: challengeTargets(scored.buyer, patterns),
    };
  } finally {
    warehouse.close();
  }
}

// ------------------------------------------------------------------------------ report

const f3 = (x: number): string => x.toFixed(3);
const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
const pad = (s: string, n: number): string => (s.length >= n ? s : s + ' '.repeat(n - s.length));
const lpad = (s: string, n: number): string => (s.length >= n ? s : ' '.repeat(n - s.length) + s);

export function formatChallenge(e: ChallengeEval): string {
  const lines = [
    `challenge world, split ${e.split} (seed ${e.seed}, now ${e.now}): ${e.transactions.toLocaleString('en-US')} transactions, ` +
      `${e.buyers.toLocaleString('en-US')} buyers; generate+load ${e.generateSeconds.toFixed(1)} s, classify() ${e.classifySeconds.toFixed(1)} s, ` +
      `total ${e.totalSeconds.toFixed(1)} s`,
    '  targets (issue 15)',
  ];
  for (const t of e.targets) {
    const value = t.name.endsWith('flagged as wash') ? pct(t.value) : f3(t.value);
    const target = t.name.endsWith('flagged as wash') ? `<= ${pct(Number(t.target.slice(3)))}` : t.target;
    lines.push(`    ${pad(t.name, 34)}${lpad(value, 8)}   target ${pad(target, 8)} ${t.met ? 'met' : 'MISSED'}`);
  }
  lines.push(
    '  buyer level',
    `    ${pad('label', 16)}${lpad('truth', 7)}${lpad('pred', 7)}${lpad('precision', 11)}${lpad('recall', 8)}${lpad('F1', 7)}`,
  );
  for (const s of e.buyer) {
    lines.push(
      `    ${pad(s.label, 16)}${lpad(String(s.truth), 7)}${lpad(String(s.predicted), 7)}${lpad(f3(s.precision), 11)}${lpad(f3(s.recall), 8)}${lpad(f3(s.f1), 7)}`,
    );
  }
  lines.push(
    '  per planted pattern (wallets; as wash; given its true label; what the classifier said)',
    `    ${pad('pattern', 20)}${pad('true label', 16)}${lpad('wallets', 8)}${lpad('as wash', 9)}${lpad('correct', 9)}  predicted`,
  );
  for (const p of e.patterns) {
    const said = p.predicted.map((x) => `${x.label} ${x.wallets}`).join(', ');
    lines.push(
      `    ${pad(p.pattern, 20)}${pad(p.label, 16)}${lpad(String(p.wallets), 8)}${lpad(pct(ratio(p.asWash, p.wallets)), 9)}${lpad(pct(ratio(p.correct, p.wallets)), 9)}  ${said}`,
    );
  }
  const missed = e.targets.filter((t) => !t.met).length;
  lines.push(missed === 0 ? '  targets: all met' : `  targets MISSED: ${missed} of ${e.targets.length}`);
  return lines.join('\n');
}

// ------------------------------------------------------------------------------ CLI

export const CHALLENGE_USAGE = `usage: npm run eval:wash -- --challenge [--split in|ood|both] [--seed N] [--now ISO]
  --split  which challenge split to score (default both): in = the ranges a rule writer would use,
           ood = every pattern parameter outside them (sources/demo/challenge/regimes.ts)
  --seed   challenge world seed (default 1)
  --now    the world's and the classifier's "now" (default ${DEFAULT_EVAL_NOW.toISOString()})
A measurement: exits 0 whether or not the targets are met (they are marked MISSED).`;

/** The --challenge mode of eval:wash; returns the exit code (0 unless the arguments are wrong). */
export async function challengeMain(argv: readonly string[]): Promise<number> {
  const { flags } = splitArgs(argv, ['split', 'seed', 'now'], CHALLENGE_USAGE, ['challenge']);
  const splitText = flags.get('split') ?? 'both';
  if (splitText !== 'both' && !(SPLITS as readonly string[]).includes(splitText)) {
    throw new UsageError(`--split must be in, ood or both, got "${splitText}"\n${CHALLENGE_USAGE}`);
  }
  const splits: Split[] = splitText === 'both' ? [...SPLITS] : [splitText as Split];
  const seed = parseIntFlag(flags, 'seed', 1, 0, 2 ** 31 - 1);
  const now = flags.has('now') ? parseTimeFlag('now', flags.get('now')!) : DEFAULT_EVAL_NOW;
  for (const split of splits) {
    console.log(formatChallenge(await evaluateChallenge({ seed, split, now })));
    console.log('');
  }
  return 0;
}
