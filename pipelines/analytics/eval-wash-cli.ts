/**
 * npm run eval:wash: both splits, the demo world's and the challenge world's out-of-distribution
 * one (eval-wash.ts, exit 1 on a missed target), or with --challenge both challenge splits side by
 * side (eval-wash-challenge.ts), which has its own flags and never fails on a missed target.
 */
import { UsageError } from '../../lib/args.ts';
import { evalMain } from './eval-wash.ts';
import { challengeMain } from './eval-wash-challenge.ts';
import { familiesMain } from './eval-wash-lofo.ts';

const argv = process.argv.slice(2);
(argv.includes('--challenge')
  ? challengeMain(argv)
  : argv.includes('--families') || argv.includes('--lofo')
    ? familiesMain(argv)
    : evalMain(argv)
).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError) {
      console.error(err.message);
      process.exit(2);
    }
    console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exit(1);
  },
);
