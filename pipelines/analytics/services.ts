/**
 * Service identity and the services index.
 *
 * Ids are stable across runs: the warehouse keeps a registry keyed by (chain, resource_url) and a
 * service seen for the first time gets the next id, in first_seen order.
 */
import type { DatasetStep, IngestStep } from '../runner.ts';
import { queryJson } from '../warehouse.ts';

export const serviceRegistryStep: IngestStep = {
  name: 'service_registry',
  tables: [], // kept across runs
  async run(ctx) {
    const c = ctx.connection;
    await c.run(`CREATE TABLE IF NOT EXISTS service_registry (
      id INTEGER PRIMARY KEY, chain VARCHAR NOT NULL, resource_url VARCHAR NOT NULL,
      seller_address VARCHAR, registered_at TIMESTAMP, UNIQUE (chain, resource_url))`);
    await c.run(
      `INSERT INTO service_registry
       SELECT (SELECT coalesce(max(id), 0) FROM service_registry)
                + row_number() OVER (ORDER BY s.first_seen, s.chain, s.resource_url) AS id,
              s.chain, s.resource_url, s.seller_address, $now::TIMESTAMP
         FROM (SELECT chain, resource_url, min(seller_address) AS seller_address, min(first_seen) AS first_seen
                 FROM x402_services GROUP BY chain, resource_url) s
         ANTI JOIN service_registry r ON r.chain = s.chain AND r.resource_url = s.resource_url`,
      { now: ctx.now.toISOString() },
    );
    const [row] = await queryJson(c, `SELECT count(*)::INTEGER AS n FROM service_registry`);
    return Number(row?.n ?? 0);
  },
};

/** Placeholder / test resources, hidden from the default list (show_placeholder=true shows them). */
const PLACEHOLDER_SQL = `(
  s.category = 'test_dummy'
  OR regexp_matches(lower(s.name), '(^|[^a-z])(test|testing|hello world|demo|placeholder|example|sample|dummy|todo)([^a-z]|$)')
  OR regexp_matches(lower(s.resource_url), '(localhost|127\\.0\\.0\\.1|example\\.(com|org)|ngrok|/test(/|$))')
)`;

export const servicesStep: DatasetStep = {
  dataset: 'services',
  async run(ctx) {
    const now = ctx.now.toISOString();
    return ctx.writer.writeTable(
      ctx.connection,
      'services',
      `WITH svc AS (
         SELECT r.id, s.chain, s.seller_address, s.resource_url, s.name, s.description, s.category,
                s.price_amount, s.first_seen, s.source
           FROM x402_services s JOIN service_registry r USING (chain, resource_url)
       ),
       -- a payment names its resource when the facilitator reported it; otherwise the seller's
       -- service with that exact price, else the seller's first service on that chain
       tx AS (
         SELECT t.*,
                coalesce(
                  (SELECT min(v.id) FROM svc v WHERE v.chain = t.chain AND v.resource_url = t.resource_url),
                  (SELECT min(v.id) FROM svc v WHERE v.chain = t.chain AND v.seller_address = t.seller_address AND v.price_amount = t.amount),
                  (SELECT min(v.id) FROM svc v WHERE v.chain = t.chain AND v.seller_address = t.seller_address)
                ) AS service_id
           FROM x402_transactions t
       ),
       per_service AS (
         SELECT service_id,
                count(*)::BIGINT AS tx_total,
                count(*) FILTER (WHERE time > $now::TIMESTAMP - INTERVAL 24 HOUR)::BIGINT AS tx_24h,
                coalesce(sum(amount) FILTER (WHERE time > $now::TIMESTAMP - INTERVAL 24 HOUR), 0) AS volume_24h,
                sum(amount) AS volume_total,
                max(time) AS last_tx_at
           FROM tx WHERE service_id IS NOT NULL GROUP BY service_id
       )
       SELECT s.id, s.chain, s.seller_address, s.resource_url, s.name, s.description,
              coalesce(s.category, 'other') AS category, s.price_amount,
              strftime(s.first_seen, '%Y-%m-%dT%H:%M:%S+00:00') AS first_seen,
              coalesce(p.tx_24h, 0) AS tx_24h, round(coalesce(p.volume_24h, 0), 6) AS volume_24h,
              coalesce(p.tx_total, 0) AS tx_total, round(coalesce(p.volume_total, 0), 6) AS volume_total,
              p.last_tx_at, ${PLACEHOLDER_SQL} AS is_placeholder, s.source
         FROM svc s LEFT JOIN per_service p ON p.service_id = s.id
        ORDER BY s.id`.replaceAll('$now', `'${now}'`),
      ctx.meta('services', ctx.now),
    );
  },
};
