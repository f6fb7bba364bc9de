/**
 * transactions (paid table): every attributed payment of the last 30 days, ordered by
 * service_id, time desc, tx_hash, so one service's rows are contiguous, newest first: the
 * endpoint reads `WHERE service_id = ? LIMIT 3000` and counts the same filter for `total`.
 * amount in USDC (6 decimals), time ISO 8601 UTC. Hash, chain and buyer are read back from
 * x402_transactions by row id: tx_attributed keeps numbers only.
 */
import type { DatasetStep } from '../../runner.ts';
import { isoSql, moneySql, nowSql, windows } from './sql.ts';

export const transactionsStep: DatasetStep = {
  dataset: 'transactions',
  async run(ctx) {
    const now = nowSql(ctx);
    const w = windows(now);
    return ctx.writer.writeTable(
      ctx.connection,
      'transactions',
      `SELECT a.service_id, t.tx_hash, t.chain, t.buyer, ${moneySql('a.amount_micro')} AS amount, ${isoSql('a.time')} AS time
         FROM tx_attributed a
         JOIN (SELECT rowid AS tx_row, tx_hash, chain, buyer FROM x402_transactions
                WHERE time <= ${now} AND ${w.last30d('time')}) t ON t.tx_row = a.tx_row
        WHERE a.service_id IS NOT NULL AND ${w.last30d('a.time')}
        ORDER BY a.service_id, a.time DESC, t.tx_hash`,
      ctx.meta('transactions', ctx.now),
    );
  },
};
