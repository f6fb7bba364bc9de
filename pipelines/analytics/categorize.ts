/**
 * The service catalog of a run: every listing with its stable id, one of the 33 categories and
 * the placeholder flag. Listings arrive without a category now and then (discovery gives none, or
 * one that is not among the 33); those get one by keyword rules on name, URL and description,
 * and `category_source` says which ('listed' or 'assigned').
 *
 * Scoring instead of first-match: a keyword in the name counts 3, in the URL 2, in the
 * description 1 (descriptions carry boilerplate such as "Built for AI agents"). The highest score
 * wins; ties go to the rule listed first, so specific categories come before broad ones
 * (news search before web search). No keyword at all: 'other'.
 */
import { CATEGORY_SLUGS, type CategorySlug } from '../../catalog/categories.ts';
import type { PrepareStep } from '../runner.ts';
import { queryJson } from '../../lib/duckdb.ts';
import { quote } from './datasets/sql.ts';
import { placeholderSql } from './services.ts';

/** Keyword rules (RE2 regular expressions on lower-case text), most specific first. */
export const CATEGORY_RULES: ReadonlyArray<readonly [CategorySlug, string]> = [
  ['ipfs_storage', '\\bipfs\\b|\\bipns\\b|\\bpin(ning|s|ned)?\\b|\\bcid\\b|\\bcar[ /_-]?(archive|upload)|filecoin|arweave'],
  ['nft_data', '\\bnfts?\\b|floor price|rarity|erc-?(721|1155)|\\bmints?\\b|collection'],
  [
    'token_safety',
    'honeypot|rug ?(pull|check)|token[ /_-]?risk|risk score|contract audit|\\baudit|liquidity lock|sanction|scam|screening|approvals?\\b',
  ],
  [
    'wallet_analytics',
    'wallet (portfolio|pnl|labels?|history|score)|\\bportfolio|\\bpnl\\b|smart money|wallet/|address labels?|transaction history',
  ],
  [
    'trading_signals',
    'signals?\\b|funding[- ]rates?|whale|technical analysis|\\brsi\\b|macd|fear and greed|market sentiment|sentiment/market|arbitrage|heatmap|perpetual|\\bperps?\\b|\\btrading\\b|\\bta\\b',
  ],
  [
    'defi_data',
    '\\bdefi\\b|liquidity pools?|\\bpools?\\b|\\byields?\\b|\\btvl\\b|swap|lending|borrow|liquidations?\\b|\\bapy\\b|\\bapr\\b|positions?\\b|health factor',
  ],
  [
    'token_data',
    'token (price|info)|\\bohlcv\\b|candles?\\b|trending tokens?|(top|token) holders|holders/top|market[- ]cap|new[- ]pairs?|\\bcoins?\\b|\\btokens?\\b|/price\\b',
  ],
  [
    'prediction_markets',
    'prediction|ai forecast|forecast/ai|yes/no question|\\bodds\\b|polymarket|kalshi|\\bbets?\\b|wager|election|resolved markets|\\bmarkets\\b',
  ],
  [
    'financial_data',
    'stocks?\\b|equit(y|ies)|\\bfx\\b|forex|exchange rates?|earnings|\\bsec\\b|filings?|macro|\\bcpi\\b|options chain|insider|ticker|\\bbonds?\\b',
  ],
  [
    'blockchain_infra',
    'json-?rpc|\\brpc\\b|gas (oracle|price)|\\bgas\\b|\\bblocks?\\b|simulat|event logs?|\\babi\\b|bundle|mempool|\\bnodes?\\b|validator',
  ],
  ['agent_payments', 'invoice|payout|escrow|balance|budget|payment link|x402 (price )?quote|\\bpay(ments?)? (api|link)|settle'],
  [
    'identity_verification',
    '\\bkyc\\b|identity|e-?mail[ /_-]?verif|phone[ /_-]?lookup|humanity|personhood|\\bens\\b|basenames?|names?[ /_-]?resol|\\bage[ /_-]?(check|verif)',
  ],
  [
    'agent_communication',
    'send[ -]?e-?mail|transactional e-?mail|\\bsms\\b|inbox|voice call|phone call|webhook|agents?/message|agent message|a2a|messag(e|ing)|notif',
  ],
  ['authentication', 'auth|signature|\\bsiwe\\b|sign-?in|login|\\botp\\b|one-time|\\bjwt\\b|bot[ /_-]?(check|score)|captcha|passkey'],
  ['transport_logistics', 'flights?\\b|shipments?|parcel|tracking|transit|vessels?|\\bships?\\b|ev[- ]charg|freight|logistic|cargo'],
  ['weather', 'weather|air[- ]quality|\\baqi\\b|marine|temperature|climate|meteo|\\bstorms?\\b|\\brain\\b|forecast'],
  [
    'maps_location',
    'geocod|\\bmaps?\\b|nearby|places|routing|\\broutes?\\b|ip[- ]location|geolocation|time ?zone|elevation|location|latitude',
  ],
  ['news', '\\bnews\\b|headlines?|digest|press[- ]releases?|trending stories|articles?'],
  ['social_media', '\\bx profile|/x/|twitter|farcaster|\\bcasts?\\b|reddit|mentions|influencer|social|bluesky|schedule post|/post\\b'],
  ['translation', 'translat|language|transcri|locali[sz]|\\bi18n\\b'],
  ['web_scraping', 'scrap|crawl|spider|\\bserp\\b|markdown|extract/structured|structured scrape'],
  ['code_execution', 'python|javascript|typescript|sandbox|compile|solidity|notebook|headless browser|\\blint|code exec|execute|/run/'],
  [
    'image_generation',
    'image (generation|edit)|images/(generate|edit|upscale)|text[ -]to[ -]image|upscal|background|avatar|\\blogo|photo|picture',
  ],
  [
    'content_generation',
    '\\bblog|writer|\\bwrite\\b|/write/|thread|rewrite|copy\\b|product (copy|description)|text to speech|\\btts\\b|script|content',
  ],
  ['entertainment_media', 'movies?\\b|\\bfilm|music|lyrics|songs?\\b|jokes?\\b|trivia|\\bgames?\\b|horoscope|podcasts?|anime|cinema'],
  [
    'e_commerce',
    'products?\\b|\\bshop|\\bstores?\\b|\\bcart\\b|checkout|\\border\\b|coupons?|shipping|gift[- ]cards?|price history|retail|merchant',
  ],
  [
    'business_intelligence',
    'compan(y|ies)|firmographic|\\bleads?\\b|enrich|competitor|reviews?|hiring|\\bjobs?\\b|web-?traffic|traffic estimate',
  ],
  ['ai_search', 'answer|research|semantic|\\brag\\b|fact[- ]?check|papers?\\b|citation'],
  ['search_engine', 'search|autocomplete|suggest'],
  [
    'ai_inference',
    'chat|completions?|\\bllm|\\bgpt|inference|summari[sz]|embeddings?|classif|sentiment analysis|/sentiment$|emotion|moderat|extract|reasoning|\\bmodels?\\b|prompt',
  ],
  ['storage', 'upload|storage|\\bkv\\b|key-value|paste|backup|bucket|\\bfiles?\\b'],
  ['other', '\\bqr\\b|random|\\bpdf\\b|shorten|\\buuid|screenshot|fortune|convert'],
];

const CATEGORY_SLUGS_SQL = `(${CATEGORY_SLUGS.map(quote).join(', ')})`;

/**
 * SELECT (id, category) assigned by the keyword rules for the rows of `relation`, which must have
 * id, name, description and resource_url. Exported so tests can measure the rules against
 * listings whose category is known. Each rule is written out with its pattern as a constant, so
 * DuckDB compiles every regular expression once rather than once per row.
 */
export function assignCategorySql(relation: string): string {
  const score = (pattern: string) =>
    `3 * regexp_matches(name, ${quote(pattern)})::INTEGER + 2 * regexp_matches(url, ${quote(pattern)})::INTEGER + regexp_matches(description, ${quote(pattern)})::INTEGER`;
  const scores = CATEGORY_RULES.map(([, pattern]) => score(pattern)).join(',\n             ');
  const slugs = CATEGORY_RULES.map(([slug]) => quote(slug)).join(', ');
  return `
    WITH texts AS (
      SELECT id, lower(coalesce(name, '')) AS name, lower(coalesce(description, '')) AS description,
             lower(regexp_replace(coalesce(resource_url, ''), '^[a-z]+://', '')) AS url
        FROM ${relation}),
    scored AS (
      SELECT id, [${scores}] AS scores FROM texts)
    -- the highest score wins; list_position finds its first occurrence, i.e. the earlier rule
    SELECT id, CASE WHEN list_max(scores) > 0 THEN ([${slugs}])[list_position(scores, list_max(scores))] ELSE 'other' END AS category
      FROM scored`;
}

/**
 * Builds `service_catalog` from this run's listings and the registry: one row per
 * (chain, resource_url) with its id, the category (listed or assigned), category_source and
 * is_placeholder. Placeholder-looking listings without a category become test_dummy.
 */
export const serviceCatalogStep: PrepareStep = {
  name: 'service_catalog',
  tables: ['service_catalog'],
  async run(ctx) {
    const c = ctx.connection;
    // Duplicate listings of one (chain, resource_url) keep their earliest version.
    await c.run(`CREATE OR REPLACE TEMP TABLE listed_services AS
      SELECT r.id, s.chain, s.seller_address, s.resource_url, coalesce(s.name, '') AS name,
             coalesce(s.description, '') AS description,
             CASE WHEN s.category IN ${CATEGORY_SLUGS_SQL} THEN s.category END AS listed_category,
             s.price_amount,
             coalesce(s.first_seen, r.registered_at) AS first_seen, -- a listing without a time: when the index registered it
             s.source
        FROM (SELECT * FROM x402_services
              QUALIFY row_number() OVER (PARTITION BY chain, resource_url
                                         ORDER BY first_seen, seller_address, name, description, category, price_amount) = 1) s
        JOIN service_registry r USING (chain, resource_url)`);
    await c.run(`CREATE OR REPLACE TABLE service_catalog AS
      WITH assigned AS (${assignCategorySql('(SELECT * FROM listed_services WHERE listed_category IS NULL)')})
      SELECT l.id, l.chain, l.seller_address, l.resource_url, l.name, l.description,
             CASE WHEN l.listed_category IS NOT NULL THEN l.listed_category
                  WHEN ${placeholderSql({ name: 'l.name', resourceUrl: 'l.resource_url', category: 'NULL' })} THEN 'test_dummy'
                  ELSE a.category END AS category,
             CASE WHEN l.listed_category IS NOT NULL THEN 'listed' ELSE 'assigned' END AS category_source,
             l.price_amount, l.first_seen,
             ${placeholderSql({ name: 'l.name', resourceUrl: 'l.resource_url', category: 'l.listed_category' })} AS is_placeholder,
             l.source
        FROM listed_services l LEFT JOIN assigned a ON a.id = l.id
       ORDER BY l.id`);
    await c.run('DROP TABLE listed_services');
    const [row] = await queryJson(c, 'SELECT count(*)::INTEGER AS n FROM service_catalog');
    return Number(row?.n ?? 0);
  },
};
