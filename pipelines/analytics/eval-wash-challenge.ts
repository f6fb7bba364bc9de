/**
 * npm run eval:wash -- --challenge [--split in|ood|both] [--seed N] [--now ISO]
 *
 * Scores the wash classifier on the challenge world (sources/demo/analytics/challenge, issue 15): traffic
 * generated apart from the demo world the rules were written against, in an "in" split (parameters
 * in the ranges a rule writer would use) and an "ood" split (every parameter outside them). The
 * "ood" split is also eval:wash's out-of-distribution split (eval-wash.ts, which fails on a miss);
 * this mode shows both splits side by side, with the same report and targets, as a measurement:
 * missed targets are marked MISSED and never change the exit code.
 */
import { parseIntFlag, parseTimeFlag, splitArgs, UsageError } from '../../lib/args.ts';
import { SPLITS, type Split } from '../../sources/demo/analytics/challenge/regimes.ts';
import { DEFAULT_EVAL_NOW, evaluateChallengeWorld, formatEval, type WashEval } from './eval-wash.ts';

/** Generates, classifies and scores the challenge world of one split. */
export function evaluateChallenge(options: { seed: number; split: Split; now?: Date; threads?: number }): Promise<WashEval> {
  return evaluateChallengeWorld(options);
}

export const CHALLENGE_USAGE = `usage: npm run eval:wash -- --challenge [--split in|ood|both] [--seed N] [--now ISO]
  --split  which challenge split to score (default both): in = the ranges a rule writer would use,
           ood = every pattern parameter outside them (sources/demo/analytics/challenge/regimes.ts)
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
    console.log(formatEval(await evaluateChallenge({ seed, split, now })));
    console.log('');
  }
  return 0;
}
