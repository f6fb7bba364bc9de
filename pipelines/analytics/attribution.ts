/**
 * Transaction → service attribution, done once per run into `tx_attributed`; the rollups and
 * datasets read that table and none repeats the attribution.
 *
 * An on-chain settlement names the seller (payTo) but not the endpoint, so (research 1.2, 1.5):
 *   1. 'resource_url'          the facilitator reported the resource URL and it is a listing on that chain;
 *   2. 'price_match'           else the seller's listing on that chain whose price equals the amount
 *                              (several at that price: the lowest id);
 *   3. 'seller_first_service'  else the seller's first listing on that chain (earliest first_seen, then id);
 *   4. 'unmatched'             else the payee has no listing: kept for the record with service_id NULL
 *                              and left out of every dataset.
 * Payments after the run's "now" are left out, so every window ends at now.
 *
 * tx_attributed is a run-scoped TEMP table of numbers only, one row per payment:
 *   tx_row        rowid of the payment in x402_transactions (transactions reads hash, chain, buyer back)
 *   service_id, attribution_source (an ENUM of the four names above)
 *   buyer_h       64-bit hash of the buyer address (grouping key; addresses are looked up again
 *                 only for the rows that are published)
 *   amount_micro  amount in integer micro-USDC: exact, order-independent sums
 *   time
 *   label_code    the classifier's (buyer, seller, chain) pair label as a code (sql.ts), unlabeled
 *                 when the pair has none
 * Why hashes: at ten million payments every string copied or hashed per row costs about a second
 * on two cores; each string is hashed once and the joins below compare 64-bit keys (the pair key
 * is a hash of the buyer and seller hashes). Keys that must be unique (listings,
 * pair labels) are checked for collisions, which would otherwise mis-attribute silently.
 */
import type { IngestStep } from '../runner.ts';
import { queryJson } from '../warehouse.ts';
import { labelCodeSql, nowSql } from './datasets/sql.ts';

export const ATTRIBUTION_SOURCES = ['resource_url', 'price_match', 'seller_first_service', 'unmatched'] as const;
export type AttributionSource = (typeof ATTRIBUTION_SOURCES)[number];

/** An ENUM constant: one byte per payment instead of a string, and it still reads as text. */
const ATTRIBUTION_SOURCE_TYPE = `ENUM(${ATTRIBUTION_SOURCES.map((x) => `'${x}'`).join(', ')})`;
const source = (value: AttributionSource): string => `'${value}'::${ATTRIBUTION_SOURCE_TYPE}`;

export const attributionStep: IngestStep = {
  name: 'attribution',
  tables: [],
  async run(ctx) {
    const c = ctx.connection;
    const now = nowSql(ctx);
    const [keys] = await queryJson(
      c,
      'SELECT (count(*) - count(DISTINCT hash(chain, resource_url)))::BIGINT AS clashes FROM service_catalog',
    );
    if (Number(keys?.clashes ?? 0) !== 0) throw new Error('attribution: two listings hash to one (chain, resource_url) key');
    await c.run(`CREATE OR REPLACE TEMP TABLE tx_attributed AS
      WITH by_url AS (
        SELECT hash(chain, resource_url) AS url_h, id FROM service_catalog
      ),
      by_price AS (
        SELECT hash(chain, seller_address) AS seller_h, round(price_amount * 1e6)::BIGINT AS price_micro, min(id) AS id
          FROM service_catalog WHERE price_amount >= 0 AND price_amount < 1e9 -- a wild listed price cannot overflow micro-USDC
         GROUP BY seller_h, price_micro
      ),
      by_seller AS (
        SELECT hash(chain, seller_address) AS seller_h, first(id ORDER BY first_seen, id) AS id
          FROM service_catalog GROUP BY seller_h
      ),
      pair_label AS (
        SELECT hash(hash(buyer), hash(chain, seller_address)) AS pair_h, ${labelCodeSql('label')} AS label_code FROM pair_labels
      ),
      tx AS (
        SELECT rowid AS tx_row,
               hash(buyer) AS buyer_h,
               hash(chain, seller_address) AS seller_h,
               CASE WHEN resource_url IS NOT NULL THEN hash(chain, resource_url) END AS url_h,
               round(amount * 1e6)::BIGINT AS amount_micro,
               time
          FROM x402_transactions WHERE time <= ${now}
      )
      SELECT t.tx_row,
             coalesce(u.id, p.id, s.id) AS service_id,
             CASE WHEN u.id IS NOT NULL THEN ${source('resource_url')}
                  WHEN p.id IS NOT NULL THEN ${source('price_match')}
                  WHEN s.id IS NOT NULL THEN ${source('seller_first_service')}
                  ELSE ${source('unmatched')} END AS attribution_source,
             t.buyer_h, t.amount_micro, t.time,
             coalesce(l.label_code, ${labelCodeSql("'unlabeled'")}) AS label_code
        FROM tx t
        LEFT JOIN by_url u ON u.url_h = t.url_h
        LEFT JOIN by_price p ON p.seller_h = t.seller_h AND p.price_micro = t.amount_micro
        LEFT JOIN by_seller s ON s.seller_h = t.seller_h
        LEFT JOIN pair_label l ON l.pair_h = hash(t.buyer_h, t.seller_h)`);
    // A repeated (buyer, seller_address, chain) in pair_labels (or two pairs sharing a hash)
    // multiplies payments and would inflate every volume silently; counting catches both.
    const [check] = await queryJson(
      c,
      `SELECT (SELECT count(*) FROM tx_attributed)::BIGINT AS attributed,
              (SELECT count(*) FROM x402_transactions WHERE time <= ${now})::BIGINT AS payments`,
    );
    const attributed = Number(check?.attributed ?? 0);
    const payments = Number(check?.payments ?? 0);
    if (attributed !== payments) {
      throw new Error(
        `attribution: ${attributed} attributed rows for ${payments} payments; pair_labels must hold one row per (buyer, seller_address, chain)`,
      );
    }
    const sources = await queryJson(
      c,
      `SELECT attribution_source::VARCHAR AS source, count(*)::BIGINT AS n FROM tx_attributed GROUP BY ALL ORDER BY source`,
    );
    ctx.log(`attribution: ${sources.map((r) => `${String(r.source)} ${Number(r.n)}`).join(', ')}`);
    return attributed;
  },
};
