/**
 * Service identity and placeholder detection.
 *
 * Ids are stable across runs: the warehouse keeps a registry keyed by (chain, resource_url) and a
 * service seen for the first time gets the next id, in first_seen order. A service that leaves the
 * listings keeps its id, so it gets the same one back if it returns.
 */
import type { PrepareStep } from '../runner.ts';
import { queryJson } from '../../lib/duckdb.ts';

export const serviceRegistryStep: PrepareStep = {
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

/**
 * Placeholder / test resources, hidden from the default services list (show_placeholder=true
 * shows them): category test_dummy, quickstart-style names, and URLs that cannot be a public
 * service (localhost, example.com, ngrok tunnels, /test paths). The catalog's show_placeholder
 * parameter description lists the same rules.
 */
export function placeholderSql(s: { name: string; resourceUrl: string; category: string }): string {
  return `(
    coalesce(${s.category} = 'test_dummy', false)
    OR regexp_matches(lower(coalesce(${s.name}, '')), '(^|[^a-z])(test|testing|hello world|demo|placeholder|example|sample|dummy|todo)([^a-z]|$)')
    OR regexp_matches(lower(coalesce(${s.resourceUrl}, '')), '(localhost|127\\.0\\.0\\.1|example\\.(com|org)|ngrok|/test(/|$))')
  )`;
}
