/**
 * transactions (paid table): the newest TRANSACTIONS_PER_SERVICE attributed payments of the last
 * 30 days of every service, ordered by service_id, time desc, tx_hash, so one service's rows are
 * contiguous, newest first: the endpoint reads `WHERE service_id = ?` and returns them as they are.
 *   total   the service's payments in the 30 days, all of them (the endpoint's `total`), on every
 *           row of the service: a busy service has more payments than rows
 * amount in USDC (6 decimals), time ISO 8601 UTC. The 30 days of payments are attributed again
 * here (attribution.ts) with their hash, chain and buyer: cheaper than carrying those strings for
 * every payment of the run.
 */
import { TRANSACTIONS_PER_SERVICE } from '../../../catalog/datasets.ts';
import type { DatasetStep } from '../../runner.ts';
import { attributedSql, attributionRules } from '../attribution.ts';
import { isoSql, moneySql, nowSql, tableStep, windows } from './sql.ts';

export const transactionsStep: DatasetStep = tableStep('transactions', async (ctx) => {
  const now = nowSql(ctx);
  const rules = await attributionRules(ctx.connection);
  const w = windows(now);
  return `WITH a AS MATERIALIZED (
            SELECT service_id, tx_hash, chain, buyer, amount_micro, time
              FROM (${attributedSql(`x402_transactions WHERE time <= ${now} AND ${w.last30d('time')}`, ['tx_hash', 'buyer'], rules)})
             WHERE service_id IS NOT NULL
          ),
          counted AS (SELECT service_id, count(*)::INTEGER AS total FROM a GROUP BY service_id),
          kept AS (
            -- only the few services over the cap pay for ranking their payments
            SELECT a.*, c.total FROM a JOIN counted c USING (service_id) WHERE c.total <= ${TRANSACTIONS_PER_SERVICE}
            UNION ALL
            SELECT * FROM (
              SELECT a.*, c.total FROM a JOIN counted c USING (service_id) WHERE c.total > ${TRANSACTIONS_PER_SERVICE}
              QUALIFY row_number() OVER (PARTITION BY service_id ORDER BY time DESC, tx_hash) <= ${TRANSACTIONS_PER_SERVICE}
            )
          )
          SELECT service_id, tx_hash, chain, buyer, ${moneySql('amount_micro')} AS amount, ${isoSql('time')} AS time, total
            FROM kept k
           -- the instant, not its ISO text (whole seconds): payments within one second keep their order
           ORDER BY k.service_id, k.time DESC, k.tx_hash`;
});
