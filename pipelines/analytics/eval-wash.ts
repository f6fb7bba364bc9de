/**
 * npm run eval:wash -- [--scale N] [--seed N] [--seeds A-B] [--now ISO] [--held-out A-B]
 * npm run eval:wash -- --challenge [--split in|ood|both] [--seed N]   (eval-wash-challenge.ts)
 *
 * Scores the wash classifier against the demo world's planted truth (docs/wash-methodology.md §9, §11.8): generates
 * the world into an in-memory DuckDB, runs classify(), joins buyer_labels / pair_labels with
 * demo_truth_buyers / demo_truth_pairs and prints per-label precision, recall and F1 (buyer and
 * pair level), the buyer confusion matrix, organic false-positive rates at the strong and likely
 * bands, wash recall by difficulty and the volume-weighted wash share error. Exits 1 when a
 * target is missed.
 *
 * `unlabeled` is scored honestly: a wallet predicted unlabeled is a miss for its true label
 * (recall), and counts against no label's precision.
 */
import { writeFileSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import { WASH_LABELS, type WashLabel } from '../../catalog/categories.ts';
import { parseIntFlag, parseTimeFlag, splitArgs, UsageError } from '../../lib/args.ts';
import { exchangeWalletRows } from '../../sources/demo/x402-addresses.ts';
import { x402World } from '../../sources/demo/x402-world.ts';
import { DEMO_TRUTH_TABLES, RAW_TABLES } from '../../sources/raw-tables.ts';
import { openWarehouse } from '../warehouse.ts';
import { appendRows } from '../../lib/duckdb.ts';
import { classify, type ClassifyStats } from '../../classifier/index.ts';
import { THRESHOLDS } from '../../catalog/wash-rules.ts';

/** The labels a planted wallet can carry (truth never says unlabeled). */
export const TRUTH_LABELS = WASH_LABELS.filter((l): l is Exclude<WashLabel, 'unlabeled'> => l !== 'unlabeled');

export const TARGETS = {
  washPrecision: 0.95,
  washRecall: 0.9,
  organicAsWash: 0.01,
  otherF1: 0.85,
} as const;

export interface LabelScore {
  label: string;
  truth: number;
  predicted: number;
  correct: number;
  precision: number;
  recall: number;
  f1: number;
}

export interface WashEval {
  seed: number;
  scale: number;
  now: string;
  transactions: number;
  classify: ClassifyStats;
  buyer: LabelScore[];
  pair: LabelScore[];
  /** confusion[truth][predicted] = buyers */
  confusion: Record<string, Record<string, number>>;
  organic: { buyers: number; asWash: number; asWashStrong: number; asWashLikely: number; unlabeled: number };
  washRecallByDifficulty: Array<{ difficulty: string; buyers: number; recall: number }>;
  washRecallByPattern: Array<{ pattern: string; difficulty: string; buyers: number; caught: number }>;
  volume: { truthWashShare: number; predictedWashShare: number; absError: number; sellerWeightedAbsError: number };
  failures: string[];
}

export const DEFAULT_EVAL_NOW = new Date('2026-08-05T12:00:00Z');

/** Generates the demo world into `connection` (raw tables, truth tables, exchange list). */
export async function loadDemoWorld(connection: DuckDBConnection, seed: number, scale: number, now: Date): Promise<number> {
  const world = x402World({ seed, scale, now });
  await appendRows(connection, RAW_TABLES.x402_services, world.services, { create: true });
  const transactions = await appendRows(connection, RAW_TABLES.x402_transactions, world.transactions, { create: true });
  await appendRows(connection, RAW_TABLES.wallet_funding, world.funding, { create: true });
  await appendRows(connection, DEMO_TRUTH_TABLES.demo_truth_buyers, world.truthBuyers, { create: true });
  await appendRows(connection, DEMO_TRUTH_TABLES.demo_truth_pairs, world.truthPairs, { create: true });
  await appendRows(connection, RAW_TABLES.exchange_wallets, exchangeWalletRows(), { create: true });
  return transactions;
}

async function rows(connection: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  return (await connection.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
}

const ratio = (a: number, b: number): number => (b === 0 ? 0 : a / b);

function scores(counts: Array<{ truth: string; predicted: string; n: number }>): LabelScore[] {
  return TRUTH_LABELS.map((label) => {
    const truth = counts.filter((c) => c.truth === label).reduce((s, c) => s + c.n, 0);
    const predicted = counts.filter((c) => c.predicted === label).reduce((s, c) => s + c.n, 0);
    const correct = counts.filter((c) => c.truth === label && c.predicted === label).reduce((s, c) => s + c.n, 0);
    const precision = ratio(correct, predicted);
    const recall = ratio(correct, truth);
    return { label, truth, predicted, correct, precision, recall, f1: ratio(2 * precision * recall, precision + recall) };
  });
}

/** Scores an already classified world (truth tables present). */
export async function scoreClassification(
  connection: DuckDBConnection,
): Promise<Omit<WashEval, 'seed' | 'scale' | 'now' | 'transactions' | 'classify' | 'failures'>> {
  const buyerCounts = (
    await rows(
      connection,
      `SELECT t.label AS truth, coalesce(p.label, 'unlabeled') AS predicted, count(*) AS n
         FROM demo_truth_buyers t LEFT JOIN buyer_labels p ON p.address = t.address GROUP BY ALL`,
    )
  ).map((r) => ({ truth: String(r.truth), predicted: String(r.predicted), n: Number(r.n) }));
  const pairCounts = (
    await rows(
      connection,
      `SELECT t.label AS truth, coalesce(p.label, 'unlabeled') AS predicted, count(*) AS n
         FROM demo_truth_pairs t LEFT JOIN pair_labels p
           ON p.buyer = t.address AND p.seller_address = t.seller_address AND p.chain = t.chain
        GROUP BY ALL`,
    )
  ).map((r) => ({ truth: String(r.truth), predicted: String(r.predicted), n: Number(r.n) }));

  const confusion: Record<string, Record<string, number>> = {};
  for (const t of TRUTH_LABELS) confusion[t] = Object.fromEntries(WASH_LABELS.map((p) => [p, 0]));
  for (const c of buyerCounts) confusion[c.truth]![c.predicted] = c.n;

  const [organic] = await rows(
    connection,
    `SELECT count(*) AS buyers,
            count(*) FILTER (WHERE p.label = 'suspected_wash') AS as_wash,
            count(*) FILTER (WHERE p.label = 'suspected_wash' AND p.confidence >= ${THRESHOLDS.strongBand}) AS strong,
            count(*) FILTER (WHERE p.label = 'suspected_wash' AND p.confidence >= ${THRESHOLDS.likelyBand}) AS likely,
            count(*) FILTER (WHERE coalesce(p.label, 'unlabeled') = 'unlabeled') AS unlabeled
       FROM demo_truth_buyers t LEFT JOIN buyer_labels p ON p.address = t.address WHERE t.label = 'organic_user'`,
  );
  const byDifficulty = await rows(
    connection,
    `SELECT t.difficulty, count(*) AS n, avg((p.label = 'suspected_wash')::INTEGER) AS recall
       FROM demo_truth_buyers t LEFT JOIN buyer_labels p ON p.address = t.address
      WHERE t.label = 'suspected_wash' GROUP BY t.difficulty ORDER BY CASE t.difficulty WHEN 'easy' THEN 1 WHEN 'medium' THEN 2 ELSE 3 END`,
  );
  const byPattern = await rows(
    connection,
    `SELECT t.pattern, t.difficulty, count(*) AS n, count(*) FILTER (WHERE p.label = 'suspected_wash') AS caught
       FROM demo_truth_buyers t LEFT JOIN buyer_labels p ON p.address = t.address
      WHERE t.label = 'suspected_wash' GROUP BY ALL ORDER BY 1, 2`,
  );
  const [volume] = await rows(
    connection,
    `WITH j AS (
       SELECT p.seller_address, p.chain, p.volume,
              (t.label = 'suspected_wash')::INTEGER AS truth_wash, (p.label = 'suspected_wash')::INTEGER AS predicted_wash
         FROM pair_labels p JOIN demo_truth_pairs t
           ON p.buyer = t.address AND p.seller_address = t.seller_address AND p.chain = t.chain
     ), s AS (
       SELECT seller_address, chain, sum(volume) AS v,
              sum(volume * truth_wash) / nullif(sum(volume), 0) AS tw, sum(volume * predicted_wash) / nullif(sum(volume), 0) AS pw
         FROM j GROUP BY ALL
     )
     SELECT (SELECT sum(volume * truth_wash) / sum(volume) FROM j) AS truth_share,
            (SELECT sum(volume * predicted_wash) / sum(volume) FROM j) AS predicted_share,
            (SELECT sum(v * abs(tw - pw)) / sum(v) FROM s) AS seller_error`,
  );
  const truthWashShare = Number(volume!.truth_share);
  const predictedWashShare = Number(volume!.predicted_share);
  return {
    buyer: scores(buyerCounts),
    pair: scores(pairCounts),
    confusion,
    organic: {
      buyers: Number(organic!.buyers),
      asWash: Number(organic!.as_wash),
      asWashStrong: Number(organic!.strong),
      asWashLikely: Number(organic!.likely),
      unlabeled: Number(organic!.unlabeled),
    },
    washRecallByDifficulty: byDifficulty.map((r) => ({ difficulty: String(r.difficulty), buyers: Number(r.n), recall: Number(r.recall) })),
    washRecallByPattern: byPattern.map((r) => ({
      pattern: String(r.pattern),
      difficulty: String(r.difficulty),
      buyers: Number(r.n),
      caught: Number(r.caught),
    })),
    volume: {
      truthWashShare,
      predictedWashShare,
      absError: Math.abs(truthWashShare - predictedWashShare),
      sellerWeightedAbsError: Number(volume!.seller_error),
    },
  };
}

export function targetFailures(e: Pick<WashEval, 'buyer' | 'organic'>): string[] {
  const failures: string[] = [];
  const wash = e.buyer.find((s) => s.label === 'suspected_wash')!;
  if (wash.precision < TARGETS.washPrecision)
    failures.push(`suspected_wash precision ${wash.precision.toFixed(3)} < ${TARGETS.washPrecision}`);
  if (wash.recall < TARGETS.washRecall) failures.push(`suspected_wash recall ${wash.recall.toFixed(3)} < ${TARGETS.washRecall}`);
  const organicRate = ratio(e.organic.asWash, e.organic.buyers);
  if (organicRate > TARGETS.organicAsWash)
    failures.push(`organic users flagged as wash ${(100 * organicRate).toFixed(2)}% > ${100 * TARGETS.organicAsWash}%`);
  for (const s of e.buyer) {
    if (s.label !== 'suspected_wash' && s.f1 < TARGETS.otherF1) failures.push(`${s.label} F1 ${s.f1.toFixed(3)} < ${TARGETS.otherF1}`);
  }
  return failures;
}

/** Generates, classifies and scores one demo world. */
export async function evaluateWash(options: { seed: number; scale: number; now?: Date; threads?: number }): Promise<WashEval> {
  const now = options.now ?? DEFAULT_EVAL_NOW;
  const warehouse = await openWarehouse(':memory:', 'analytics', options.threads ? { threads: options.threads } : {});
  try {
    const c = warehouse.connection;
    const transactions = await loadDemoWorld(c, options.seed, options.scale, now);
    const stats = await classify(c, { now });
    const scored = await scoreClassification(c);
    const e = {
      seed: options.seed,
      scale: options.scale,
      now: now.toISOString(),
      transactions,
      classify: stats,
      ...scored,
      failures: [] as string[],
    };
    e.failures = targetFailures(e);
    return e;
  } finally {
    warehouse.close();
  }
}

// ------------------------------------------------------------------------------ report

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
const f3 = (x: number): string => x.toFixed(3);
const pad = (s: string, n: number): string => (s.length >= n ? s : s + ' '.repeat(n - s.length));
const lpad = (s: string, n: number): string => (s.length >= n ? s : ' '.repeat(n - s.length) + s);

function scoreTable(title: string, list: readonly LabelScore[]): string[] {
  const out = [
    title,
    `  ${pad('label', 16)}${lpad('truth', 8)}${lpad('pred', 8)}${lpad('precision', 11)}${lpad('recall', 9)}${lpad('F1', 8)}`,
  ];
  for (const s of list) {
    out.push(
      `  ${pad(s.label, 16)}${lpad(String(s.truth), 8)}${lpad(String(s.predicted), 8)}${lpad(f3(s.precision), 11)}${lpad(f3(s.recall), 9)}${lpad(f3(s.f1), 8)}`,
    );
  }
  return out;
}

export function formatEval(e: WashEval): string {
  const lines: string[] = [];
  lines.push(`wash classifier evaluation: seed ${e.seed}, scale ${e.scale}, now ${e.now}`);
  lines.push(
    `  ${e.transactions.toLocaleString('en-US')} transactions, ${e.classify.pairs.toLocaleString('en-US')} pairs, ` +
      `${e.classify.buyers.toLocaleString('en-US')} buyers, ${e.classify.sellers.toLocaleString('en-US')} sellers; classify() ${e.classify.seconds.toFixed(2)} s`,
  );
  lines.push('', ...scoreTable('buyer level', e.buyer), '', ...scoreTable('pair level', e.pair));
  lines.push('', 'buyer confusion matrix (rows: truth, columns: predicted)');
  const short: Record<string, string> = {
    verifier: 'verif',
    organic_user: 'organic',
    ai_agent: 'agent',
    analytics_bot: 'bot',
    developer: 'dev',
    self_test: 'self',
    suspected_wash: 'wash',
    unlabeled: 'unlab',
  };
  lines.push(`  ${pad('', 16)}${WASH_LABELS.map((l) => lpad(short[l]!, 9)).join('')}`);
  for (const t of TRUTH_LABELS) lines.push(`  ${pad(t, 16)}${WASH_LABELS.map((p) => lpad(String(e.confusion[t]![p]), 9)).join('')}`);
  const o = e.organic;
  lines.push(
    '',
    `organic users predicted suspected_wash: ${o.asWash}/${o.buyers} = ${pct(ratio(o.asWash, o.buyers))} ` +
      `(confidence >= ${THRESHOLDS.strongBand}: ${pct(ratio(o.asWashStrong, o.buyers))}, >= ${THRESHOLDS.likelyBand}: ${pct(ratio(o.asWashLikely, o.buyers))}); ` +
      `organic predicted unlabeled: ${pct(ratio(o.unlabeled, o.buyers))}`,
  );
  lines.push(
    `wash recall by difficulty: ${e.washRecallByDifficulty.map((d) => `${d.difficulty} ${f3(d.recall)} (n=${d.buyers})`).join(', ')}`,
  );
  const missed = e.washRecallByPattern
    .filter((p) => p.caught < p.buyers)
    .map((p) => `${p.pattern}/${p.difficulty} ${p.caught}/${p.buyers}`);
  if (missed.length > 0) lines.push(`  wash patterns not fully caught: ${missed.join(', ')}`);
  lines.push(
    `volume-weighted wash share: truth ${pct(e.volume.truthWashShare)}, predicted ${pct(e.volume.predictedWashShare)}, ` +
      `error ${(100 * e.volume.absError).toFixed(2)} pp; per-seller volume-weighted abs error ${(100 * e.volume.sellerWeightedAbsError).toFixed(2)} pp`,
  );
  lines.push(e.failures.length === 0 ? 'targets: all met' : `targets MISSED: ${e.failures.join('; ')}`);
  return lines.join('\n');
}

export function summaryLine(e: WashEval): string {
  const get = (l: string) => e.buyer.find((s) => s.label === l)!;
  const wash = get('suspected_wash');
  const others = TRUTH_LABELS.filter((l) => l !== 'suspected_wash').map((l) => `${l.split('_')[0]} ${f3(get(l).f1)}`);
  return (
    `seed ${e.seed} scale ${e.scale}: wash P ${f3(wash.precision)} R ${f3(wash.recall)} | organic->wash ${pct(ratio(e.organic.asWash, e.organic.buyers))} | ` +
    `F1 ${others.join(', ')} | wash vol err ${(100 * e.volume.absError).toFixed(2)} pp | ${e.classify.seconds.toFixed(2)} s` +
    (e.failures.length > 0 ? '  MISSED' : '')
  );
}

// ------------------------------------------------------------------------------ the published record

/**
 * What the site's methodology page shows (`--write FILE`): the scores of each run without its
 * timings, so the file changes only when the classifier, its thresholds or the demo world do, and a
 * test can re-run the same seeds and compare (site/data/wash-eval.json).
 */
export interface WashEvalRecord {
  measured_on: string;
  runs: Array<{
    seed: number;
    scale: number;
    held_out: boolean;
    now: string;
    transactions: number;
    buyers: number;
    pairs: number;
    buyer: LabelScore[];
    pair: LabelScore[];
    organic: WashEval['organic'];
    wash_recall_by_difficulty: WashEval['washRecallByDifficulty'];
    volume: WashEval['volume'];
    targets_missed: string[];
  }>;
  targets: typeof TARGETS;
}

const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;
const roundScore = (s: LabelScore): LabelScore => ({ ...s, precision: round6(s.precision), recall: round6(s.recall), f1: round6(s.f1) });

export function washEvalRecord(results: readonly WashEval[], heldOut: ReadonlySet<number>): WashEvalRecord {
  return {
    measured_on: "the demo world's planted truth: every wallet's true label is known because the generator planted it",
    runs: results.map((e) => ({
      seed: e.seed,
      scale: e.scale,
      held_out: heldOut.has(e.seed),
      now: e.now,
      transactions: e.transactions,
      buyers: e.classify.buyers,
      pairs: e.classify.pairs,
      buyer: e.buyer.map(roundScore),
      pair: e.pair.map(roundScore),
      organic: e.organic,
      wash_recall_by_difficulty: e.washRecallByDifficulty.map((d) => ({ ...d, recall: round6(d.recall) })),
      volume: {
        truthWashShare: round6(e.volume.truthWashShare),
        predictedWashShare: round6(e.volume.predictedWashShare),
        absError: round6(e.volume.absError),
        sellerWeightedAbsError: round6(e.volume.sellerWeightedAbsError),
      },
      targets_missed: e.failures,
    })),
    targets: TARGETS,
  };
}

// ------------------------------------------------------------------------------ CLI

const USAGE = `usage: npm run eval:wash -- [--scale N] [--seed N | --seeds A-B] [--held-out A-B] [--now ISO] [--write FILE]
  --scale     demo world scale (default 1)
  --seed      one seed (default 1); --seeds 1-3 runs several
  --held-out  seeds reported as held out (not used for tuning), e.g. 4-6
  --now       the world's and the classifier's "now" (default ${DEFAULT_EVAL_NOW.toISOString()})
  --write     also write the scores (without timings) as JSON to FILE; the site's methodology page
              reads site/data/wash-eval.json, written with --seed 1 --held-out 4 --write site/data/wash-eval.json
       npm run eval:wash -- --challenge --help   scores the challenge world instead (issue 15)`;

function parseRange(name: string, text: string): number[] {
  const m = /^(\d+)(?:-(\d+))?$/.exec(text);
  if (!m) throw new UsageError(`--${name} must be N or A-B, got "${text}"\n${USAGE}`);
  const a = Number(m[1]);
  const b = m[2] === undefined ? a : Number(m[2]);
  if (b < a || b - a > 50) throw new UsageError(`--${name}: ${text} is not a range of at most 50 seeds\n${USAGE}`);
  return Array.from({ length: b - a + 1 }, (_, i) => a + i);
}

/** `npm run eval:wash` (eval-wash-cli.ts): the demo world's evaluation; exit 1 when a target is missed. */
export async function evalMain(argv: readonly string[]): Promise<number> {
  const { flags } = splitArgs(argv, ['scale', 'seed', 'seeds', 'held-out', 'now', 'write'], USAGE);
  const scale = parseIntFlag(flags, 'scale', 1, 1, 100);
  const now = flags.has('now') ? parseTimeFlag('now', flags.get('now')!) : DEFAULT_EVAL_NOW;
  const seeds = flags.has('seeds') ? parseRange('seeds', flags.get('seeds')!) : [parseIntFlag(flags, 'seed', 1, 0, 2 ** 31 - 1)];
  const heldOut = new Set(flags.has('held-out') ? parseRange('held-out', flags.get('held-out')!) : []);
  const allSeeds = [...new Set([...seeds, ...heldOut])];
  const results: WashEval[] = [];
  for (const seed of allSeeds) {
    const e = await evaluateWash({ seed, scale, now });
    results.push(e);
    console.log(formatEval(e));
    console.log('');
  }
  const writeTo = flags.get('write');
  if (writeTo !== undefined) {
    writeFileSync(writeTo, `${JSON.stringify(washEvalRecord(results, heldOut), null, 2)}\n`);
    console.log(`scores written to ${writeTo}`);
  }
  if (results.length > 1) {
    console.log('summary');
    for (const e of results) console.log(`  ${heldOut.has(e.seed) ? '[held out] ' : ''}${summaryLine(e)}`);
  }
  return results.some((e) => e.failures.length > 0) ? 1 : 0;
}
