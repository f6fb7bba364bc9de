/**
 * The 33 service categories of the analytics index. The first 26 are the slugs the contract (docs/services.md, "Categories") lists as
 * seen in data; the other 7 complete the stated total of 33 with the kinds of x402 resources that
 * public directories list and the 26 do not cover.
 */
export const CATEGORIES = [
  { slug: 'ai_inference', title: 'AI inference' },
  { slug: 'ai_search', title: 'AI search' },
  { slug: 'agent_communication', title: 'Agent communication' },
  { slug: 'agent_payments', title: 'Agent payments' },
  { slug: 'authentication', title: 'Authentication' },
  { slug: 'blockchain_infra', title: 'Blockchain infrastructure' },
  { slug: 'business_intelligence', title: 'Business intelligence' },
  { slug: 'content_generation', title: 'Content generation' },
  { slug: 'defi_data', title: 'DeFi data' },
  { slug: 'e_commerce', title: 'E-commerce' },
  { slug: 'entertainment_media', title: 'Entertainment and media' },
  { slug: 'financial_data', title: 'Financial data' },
  { slug: 'ipfs_storage', title: 'IPFS storage' },
  { slug: 'maps_location', title: 'Maps and location' },
  { slug: 'news', title: 'News' },
  { slug: 'nft_data', title: 'NFT data' },
  { slug: 'other', title: 'Other' },
  { slug: 'search_engine', title: 'Search engine' },
  { slug: 'storage', title: 'Storage' },
  { slug: 'test_dummy', title: 'Test and placeholder' },
  { slug: 'token_data', title: 'Token data' },
  { slug: 'token_safety', title: 'Token safety' },
  { slug: 'trading_signals', title: 'Trading signals' },
  { slug: 'transport_logistics', title: 'Transport and logistics' },
  { slug: 'wallet_analytics', title: 'Wallet analytics' },
  { slug: 'weather', title: 'Weather' },
  // Completing the 33:
  { slug: 'code_execution', title: 'Code execution' },
  { slug: 'image_generation', title: 'Image generation' },
  { slug: 'social_media', title: 'Social media' },
  { slug: 'translation', title: 'Translation' },
  { slug: 'web_scraping', title: 'Web scraping' },
  { slug: 'identity_verification', title: 'Identity verification' },
  { slug: 'prediction_markets', title: 'Prediction markets' },
] as const;

export type CategorySlug = (typeof CATEGORIES)[number]['slug'];
export const CATEGORY_SLUGS: readonly CategorySlug[] = CATEGORIES.map((c) => c.slug);

/** The chains the analytics index covers. */
export const ANALYTICS_CHAINS = ['base', 'solana', 'polygon', 'arbitrum'] as const;
export type AnalyticsChain = (typeof ANALYTICS_CHAINS)[number];

/** The 8 buyer classification labels (WashLabel). */
export const WASH_LABELS = [
  'verifier',
  'organic_user',
  'ai_agent',
  'analytics_bot',
  'developer',
  'self_test',
  'suspected_wash',
  'unlabeled',
] as const;
export type WashLabel = (typeof WASH_LABELS)[number];
