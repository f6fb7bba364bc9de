/**
 * buyer-profiles (paid table): one row per classified buyer wallet (buyer_labels), partitioned by
 * address and ordered by it within each part (sql.ts ADDRESS_PARTITIONS), for
 * GET /api/v1/buyers/{address}/profile:
 *   address, label, confidence, reason (VARCHAR[]), reason_text  typed columns
 *   services_used   JSON array {id, category, tx_count}: every service it paid, all time, most
 *                   payments first (then id); [] when none is attributed
 *   vanity_cluster  JSON {strict, broad, size}, or NULL when the wallet is in no vanity cluster
 *   time_pattern    JSON {mean_interval_s, cv} (0 when a wallet has too few payments for them)
 *   evidence        JSON [{kind, via, addresses, share, text}]: what a suspected_wash label rests on,
 *                   strongest first (classifier/evidence.ts); [] for any other label
 * A run that kept the day state publishes only the rows of the buyers it labelled again (whose
 * payments changed), as a delta file (keyed.ts).
 */
import type { DatasetStep } from '../../runner.ts';
import { queryJson } from '../../../lib/duckdb.ts';
import { keyedStep } from './keyed.ts';
import { ADDRESS_PARTITIONS, POINT_LOOKUP_ROW_GROUP, WASH_LABELS_SQL, evidenceJsonSql, finiteSql, rankedJsonArraySql } from './sql.ts';

export const buyerProfilesStep: DatasetStep = keyedStep({
  dataset: 'buyer-profiles',
  partitionBy: ADDRESS_PARTITIONS['buyer-profiles'],
  rowGroupSize: POINT_LOOKUP_ROW_GROUP['buyer-profiles'],
  count: 'SELECT count(*)::BIGINT AS n FROM buyer_labels',
  // a buyer's services_used also moves when a service's category or the attribution of its
  // earlier payments does (the listings): then every row is written again
  inputs: async (ctx) => {
    const fp = (relation: string, columns: string) =>
      `(SELECT {'n': count(*), 'h': coalesce(sum(hash(${columns}) >> 8), 0)} FROM ${relation})`;
    const [row] = await queryJson(
      ctx.connection,
      `SELECT [${fp('service_facts', 'id, category')}, ${fp('attribution_urls t', 't')}, ${fp('attribution_prices t', 't')},
               ${fp('attribution_sellers t', 't')}]::VARCHAR AS h`,
    );
    return String(row?.h);
  },
  select: async (ctx, keys) => {
    // a wallet pays at most every service once per (service, buyer) row: the bound of its list,
    // rounded up to a power of two so the query (and a delta's recipe) does not change with each new service
    const [services] = await queryJson(ctx.connection, 'SELECT count(*)::INTEGER AS n FROM service_facts');
    const limit = 2 ** Math.ceil(Math.log2(Math.max(1, Number(services?.n ?? 0))));
    return `WITH used AS (
            SELECT b.buyer_h,
                   -- most payments first, then id: one BIGINT rank (tx_total is an INTEGER, ids are below 2^32)
                   ${rankedJsonArraySql('(-b.tx_total)::BIGINT * 4294967296 + b.service_id', limit, 'struct_pack(id := b.service_id, category := f.category, tx_count := b.tx_total)')}
                     AS services_used
              FROM service_buyer_stats b JOIN service_facts f ON f.id = b.service_id
             WHERE ${keys('b.buyer_h')}
             GROUP BY b.buyer_h
          )
          SELECT l.address,
                 CASE WHEN l.label IN ${WASH_LABELS_SQL} THEN l.label ELSE 'unlabeled' END AS label,
                 round(greatest(0, least(1, ${finiteSql('coalesce(l.confidence, 0)')})), 4) AS confidence,
                 coalesce(l.reason, []::VARCHAR[]) AS reason,
                 coalesce(l.reason_text, '') AS reason_text,
                 coalesce(u.services_used, '[]'::JSON) AS services_used,
                 CASE WHEN coalesce(l.vanity_strict, false) OR coalesce(l.vanity_broad, false)
                      THEN to_json(struct_pack(strict := coalesce(l.vanity_strict, false), broad := coalesce(l.vanity_broad, false),
                                               size := coalesce(l.vanity_cluster_size, 0)::INTEGER))
                 END AS vanity_cluster,
                 to_json(struct_pack(mean_interval_s := round(greatest(0, ${finiteSql('coalesce(l.mean_interval_s, 0)')}), 3),
                                     cv := round(greatest(0, ${finiteSql('coalesce(l.interval_cv, 0)')}), 6))) AS time_pattern,
                 ${evidenceJsonSql('l.evidence')} AS evidence
            FROM buyer_labels l LEFT JOIN used u ON u.buyer_h = hash(l.address)
           WHERE ${keys('hash(l.address)')}`;
  },
});
