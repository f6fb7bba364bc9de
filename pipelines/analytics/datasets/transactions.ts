/**
 * transactions (paid table): every attributed payment of the last 30 days, ordered by
 * service_id, time desc, tx_hash, so one service's rows are contiguous, newest first: the
 * endpoint reads `WHERE service_id = ? LIMIT 3000` and counts the same filter for `total`.
 * amount in USDC (6 decimals), time ISO 8601 UTC. The 30 days of payments are attributed again
 * here (attribution.ts) with their hash, chain and buyer: cheaper than carrying those strings for
 * every payment of the run.
 */
import type { DatasetStep } from '../../runner.ts';
import { attributedSql } from '../attribution.ts';
import { isoSql, moneySql, nowSql, windows, POINT_LOOKUP_ROW_GROUP } from './sql.ts';

export const transactionsStep: DatasetStep = {
  dataset: 'transactions',
  async run(ctx) {
    const now = nowSql(ctx);
    const w = windows(now);
    return ctx.writer.writeTable(
      ctx.connection,
      'transactions',
      `SELECT a.service_id, a.tx_hash, a.chain, a.buyer, ${moneySql('a.amount_micro')} AS amount, ${isoSql('a.time')} AS time
         FROM (${attributedSql(`x402_transactions WHERE time <= ${now} AND ${w.last30d('time')}`, ['tx_hash', 'buyer'])}) a
        WHERE a.service_id IS NOT NULL
        ORDER BY a.service_id, a.time DESC, a.tx_hash`,
      ctx.meta('transactions', ctx.now),
      { rowGroupSize: POINT_LOOKUP_ROW_GROUP['transactions'] },
    );
  },
};
