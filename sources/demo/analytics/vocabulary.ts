/**
 * Words of the demo x402 catalog: per-category endpoint templates and brand roots, the text of
 * placeholder listings, and price bands. Kept apart from the generator so the catalog code reads
 * as rules and this file as data.
 */
import type { CategorySlug } from '../../../catalog/categories.ts';

/** One kind of endpoint a seller of a category offers: path, display name, description. */
export type EndpointTemplate = readonly [path: string, name: string, description: string];

export interface CategoryVocabulary {
  /** Brand word roots a seller of this category is named after. */
  roots: readonly string[];
  endpoints: readonly EndpointTemplate[];
  /** Shift of the price band (index steps in PRICE_POINTS): AI work costs more than a price tick. */
  priceShift: number;
}

/** Every category but test_dummy, which only holds placeholder listings (see PLACEHOLDER_*). */
export type ListedCategory = Exclude<CategorySlug, 'test_dummy'>;

export const CATEGORY_VOCABULARY: Record<ListedCategory, CategoryVocabulary> = {
  ai_inference: {
    roots: ['Neura', 'Infer', 'Cortex', 'Synapse', 'Tensor', 'Logos', 'Quanta', 'Vela'],
    priceShift: 2,
    endpoints: [
      ['/api/chat/completions', 'Chat completion', 'OpenAI-compatible chat completions on open-weight models: send messages, get a reply.'],
      ['/api/summarize', 'Text summarizer', 'Summarizes articles, transcripts or documents up to 50k characters into key points.'],
      ['/api/embeddings', 'Embeddings', 'Dense vector embeddings (1024 dimensions) for semantic search and clustering.'],
      ['/api/classify', 'Zero-shot classifier', 'Classifies text into caller-supplied labels with confidence scores.'],
      ['/api/sentiment', 'Sentiment analysis', 'Sentiment and emotion scores for short texts, posts or reviews.'],
      ['/api/extract', 'Structured extraction', 'Extracts typed JSON fields from unstructured text given a schema.'],
      ['/api/reason', 'Reasoning model', 'Long-form answers with step-by-step reasoning for hard questions.'],
      ['/api/moderate', 'Content moderation', 'Flags toxic, sexual or violent content with per-category scores.'],
    ],
  },
  ai_search: {
    roots: ['Seek', 'Answer', 'Quest', 'Sage', 'Delve', 'Probe', 'Insight'],
    priceShift: 1,
    endpoints: [
      ['/api/answer', 'Answer engine', 'Answers a question from live web sources with inline citations.'],
      ['/api/research', 'Deep research', 'Multi-step research agent: plans queries, reads pages and returns a cited report.'],
      ['/api/search/semantic', 'Semantic search', 'Meaning-based search over a curated index of documentation and papers.'],
      ['/api/papers', 'Paper finder', 'Finds academic papers by topic and returns abstracts with links.'],
      ['/api/factcheck', 'Fact check', 'Checks a claim against recent sources and returns a verdict with evidence.'],
      ['/api/rag/query', 'RAG query', 'Retrieval-augmented answers over a corpus you uploaded earlier.'],
    ],
  },
  agent_communication: {
    roots: ['Relay', 'Parley', 'Mesh', 'Courier', 'Echo', 'Beacon', 'Hermes'],
    priceShift: 0,
    endpoints: [
      ['/api/send-email', 'Send email', 'Sends a transactional email on behalf of an agent, attachments allowed.'],
      ['/api/sms', 'Send SMS', 'Sends an SMS to a number in 190 countries and returns a delivery id.'],
      ['/api/agents/message', 'Agent message', 'Delivers a message to another agent by its A2A agent card URL.'],
      ['/api/inbox/read', 'Read inbox', 'Reads the latest messages of an agent mailbox.'],
      ['/api/voice/call', 'Voice call', 'Places an outbound voice call that reads a script and records the reply.'],
      ['/api/webhook/relay', 'Webhook relay', 'Forwards a signed webhook to a target URL with retries.'],
    ],
  },
  agent_payments: {
    roots: ['Tollgate', 'Metered', 'Settle', 'Tab', 'Coinflow', 'Paywise'],
    priceShift: 0,
    endpoints: [
      ['/api/invoice', 'Create invoice', 'Creates a USDC invoice with a hosted payment link.'],
      ['/api/payout', 'Payout', 'Sends a USDC payout to a wallet or to an email recipient.'],
      ['/api/balance', 'Balance lookup', 'USDC balance and recent transfers of a wallet.'],
      ['/api/escrow/open', 'Open escrow', 'Opens a time-locked escrow between two agents.'],
      ['/api/x402/quote', 'x402 price quote', 'Reads the x402 payment requirements of any URL without paying.'],
      ['/api/budget/check', 'Budget check', 'Checks an agent spending policy before a payment is made.'],
    ],
  },
  authentication: {
    roots: ['Gatekey', 'Keyring', 'Passkey', 'Warden', 'Sentry', 'Sigil'],
    priceShift: -1,
    endpoints: [
      ['/api/verify-signature', 'Verify signature', 'Verifies an EIP-191 or EIP-712 signature and returns the signer.'],
      ['/api/siwe/nonce', 'SIWE nonce', 'Issues a Sign-In with Ethereum nonce and verifies the signed message.'],
      ['/api/otp', 'One-time code', 'Sends and verifies one-time passcodes by SMS or email.'],
      ['/api/jwt/issue', 'Issue JWT', 'Issues a short-lived JWT bound to a wallet address.'],
      ['/api/bot-score', 'Bot check', 'Scores a request for automation risk from its headers and timing.'],
    ],
  },
  blockchain_infra: {
    roots: ['Node', 'Block', 'Rpc', 'Gas', 'Validator', 'Hashline', 'Chainway'],
    priceShift: -1,
    endpoints: [
      ['/api/rpc', 'JSON-RPC', 'Pay-per-request JSON-RPC for Base, Ethereum and Arbitrum with archive access.'],
      ['/api/gas', 'Gas oracle', 'Current base fee and priority fee percentiles for the next block.'],
      ['/api/tx/simulate', 'Transaction simulator', 'Simulates a transaction and returns state diffs, logs and the revert reason.'],
      ['/api/logs', 'Event logs', 'Decoded event logs for a contract and block range.'],
      ['/api/block/latest', 'Latest block', 'Latest block header, timestamp and transaction count.'],
      ['/api/abi', 'ABI lookup', 'Verified ABI of a contract address.'],
      ['/api/bundle/send', 'Private bundle', 'Submits a private transaction bundle to block builders.'],
    ],
  },
  business_intelligence: {
    roots: ['Metric', 'Lens', 'Pulse', 'Quant', 'Scope', 'Vantage'],
    priceShift: 1,
    endpoints: [
      ['/api/company', 'Company profile', 'Firmographics for a domain: industry, headcount, funding and tech stack.'],
      ['/api/leads/enrich', 'Lead enrichment', 'Enriches an email or profile URL with role, company and location.'],
      ['/api/competitors', 'Competitor map', 'Competitors of a company with positioning notes.'],
      ['/api/reviews/summary', 'Review summary', 'App store and software review themes and scores.'],
      ['/api/jobs/trends', 'Hiring trends', 'Job posting counts by company and role over the last 90 days.'],
      ['/api/web-traffic', 'Traffic estimate', 'Estimated monthly visits and traffic sources of a domain.'],
    ],
  },
  content_generation: {
    roots: ['Quill', 'Draft', 'Scribe', 'Prose', 'Inkwell', 'Verse', 'Copy'],
    priceShift: 2,
    endpoints: [
      ['/api/write/blog', 'Blog post writer', 'Writes an SEO blog post from a title and an outline.'],
      ['/api/write/thread', 'Thread generator', 'Generates a post thread in a chosen voice from a topic.'],
      ['/api/rewrite', 'Rewriter', 'Rewrites text for tone, length or reading level.'],
      ['/api/product-description', 'Product copy', 'Writes e-commerce product descriptions from attributes.'],
      ['/api/tts', 'Text to speech', 'Converts text to natural speech (MP3) in 30 voices.'],
      ['/api/video/script', 'Video script', 'Writes a short-form video script with hooks and captions.'],
    ],
  },
  defi_data: {
    roots: ['Yield', 'Pool', 'Liquid', 'Vault', 'Lend', 'Curvefi', 'Stake'],
    priceShift: -1,
    endpoints: [
      ['/api/pools', 'Liquidity pools', 'TVL, volume and fee APR of DEX pools on Base and Ethereum.'],
      ['/api/yields', 'Yield finder', 'Best stablecoin and ETH yields across lending and LP protocols.'],
      ['/api/tvl', 'Protocol TVL', 'Daily TVL history of a DeFi protocol by chain.'],
      ['/api/quote/swap', 'Swap quote', 'Best swap route and expected output across aggregators.'],
      ['/api/lending/rates', 'Lending rates', 'Supply and borrow rates of the main lending markets.'],
      ['/api/liquidations', 'Liquidation feed', 'Recent liquidations with collateral, debt and liquidator.'],
      ['/api/positions', 'Wallet positions', 'DeFi positions of a wallet with its health factor.'],
    ],
  },
  e_commerce: {
    roots: ['Cart', 'Shopwise', 'Merchant', 'Checkout', 'Deal', 'Basket'],
    priceShift: 0,
    endpoints: [
      ['/api/products/search', 'Product search', 'Searches products across major retailers with price and stock.'],
      ['/api/price-history', 'Price history', 'Price history of a marketplace product for 365 days.'],
      ['/api/order', 'Place order', 'Places an order with a partner merchant, paid in USDC.'],
      ['/api/coupons', 'Coupon finder', 'Active coupon codes for a store domain.'],
      ['/api/shipping/rates', 'Shipping rates', 'Carrier rates for a parcel between two postcodes.'],
      ['/api/gift-cards', 'Gift cards', 'Buys digital gift cards of 300 brands with USDC.'],
    ],
  },
  entertainment_media: {
    roots: ['Reel', 'Vibe', 'Stage', 'Encore', 'Cinema', 'Tune', 'Arcade'],
    priceShift: -1,
    endpoints: [
      ['/api/movies/search', 'Movie search', 'Movie metadata, cast, ratings and streaming availability.'],
      ['/api/music/lyrics', 'Lyrics', 'Song lyrics with line timings.'],
      ['/api/jokes', 'Joke of the day', 'A random joke, filterable by topic and safety level.'],
      ['/api/games/trivia', 'Trivia questions', 'Trivia questions by category and difficulty.'],
      ['/api/horoscope', 'Horoscope', 'Daily horoscope for a zodiac sign.'],
      ['/api/podcasts/search', 'Podcast search', 'Podcast episodes by keyword, with transcripts.'],
      ['/api/anime', 'Anime lookup', 'Anime titles, episodes and airing schedule.'],
    ],
  },
  financial_data: {
    roots: ['Ticker', 'Equity', 'Capital', 'Bourse', 'Macro', 'Fiscal', 'Ledgerly'],
    priceShift: 0,
    endpoints: [
      ['/api/stocks/quote', 'Stock quote', 'Real-time US stock quote with bid, ask and volume.'],
      ['/api/fx', 'FX rates', 'Spot FX rates for 160 currencies, refreshed every minute.'],
      ['/api/earnings', 'Earnings calendar', 'Upcoming earnings dates with EPS estimates.'],
      ['/api/filings', 'SEC filings', 'Latest 10-K, 10-Q and 8-K filings with extracted highlights.'],
      ['/api/macro/cpi', 'Macro indicators', 'CPI, unemployment and policy rates of G20 economies.'],
      ['/api/options/chain', 'Options chain', 'Options chain with greeks and implied volatility.'],
      ['/api/insider-trades', 'Insider trades', 'Form 4 insider transactions by ticker.'],
    ],
  },
  ipfs_storage: {
    roots: ['Pinbox', 'Hashvault', 'Merkle', 'Cidly', 'Plexus', 'Nodestore'],
    priceShift: 0,
    endpoints: [
      ['/api/pin', 'Pin to IPFS', 'Pins a file or JSON document to IPFS and returns its CID.'],
      ['/api/pin/status', 'Pin status', 'Replication status of a CID across pinning nodes.'],
      ['/api/gateway', 'IPFS gateway', 'Cached gateway fetch of any CID.'],
      ['/api/car/upload', 'CAR upload', 'Uploads a CAR archive and pins every block.'],
      ['/api/ipns/publish', 'IPNS publish', 'Publishes an IPNS record pointing to a CID.'],
    ],
  },
  maps_location: {
    roots: ['Geo', 'Atlas', 'Compass', 'Terra', 'Waypoint', 'Locus', 'Meridian'],
    priceShift: -1,
    endpoints: [
      ['/api/geocode', 'Geocode', 'Converts an address to latitude and longitude.'],
      ['/api/reverse-geocode', 'Reverse geocode', 'Address and place name of a coordinate.'],
      ['/api/places/nearby', 'Nearby places', 'Restaurants, shops and points of interest near a point, with ratings.'],
      ['/api/route', 'Routing', 'Driving, cycling or walking route with ETA.'],
      ['/api/ip-location', 'IP geolocation', 'Country, city and ASN of an IP address.'],
      ['/api/timezone', 'Time zone', 'Time zone and UTC offset of a coordinate.'],
      ['/api/elevation', 'Elevation', 'Ground elevation for up to 100 points.'],
    ],
  },
  news: {
    roots: ['Herald', 'Wire', 'Dispatch', 'Bulletin', 'Gazette', 'Brief', 'Headline'],
    priceShift: -1,
    endpoints: [
      ['/api/news/latest', 'Latest headlines', 'Latest headlines by topic and country from 5,000 outlets.'],
      ['/api/news/crypto', 'Crypto news', 'Crypto news tagged with tokens and sentiment.'],
      ['/api/news/search', 'News search', 'Full-text news search over the last 30 days.'],
      ['/api/news/digest', 'Daily digest', 'AI-written digest of the top stories of the day.'],
      ['/api/press-releases', 'Press releases', 'Corporate press releases by ticker or company.'],
      ['/api/news/trending', 'Trending stories', 'Stories gaining coverage fastest in the last hour.'],
    ],
  },
  nft_data: {
    roots: ['Rarity', 'Gallery', 'Floor', 'Canvas', 'Collect', 'Mintly'],
    priceShift: -1,
    endpoints: [
      ['/api/nft/floor', 'Floor price', 'Floor price and 24h volume of an NFT collection.'],
      ['/api/nft/rarity', 'Rarity rank', 'Trait rarity rank of a token within its collection.'],
      ['/api/nft/metadata', 'NFT metadata', 'Resolved metadata and image of any ERC-721 or ERC-1155 token.'],
      ['/api/nft/sales', 'Recent sales', 'Recent sales of a collection across marketplaces.'],
      ['/api/nft/holders', 'Holder list', 'Holders of a collection with their counts.'],
      ['/api/nft/mints', 'Trending mints', 'Collections with the most mints in the last hour.'],
    ],
  },
  other: {
    roots: ['Utility', 'Toolbox', 'Handy', 'Omni', 'Kit', 'Swiss'],
    priceShift: -1,
    endpoints: [
      ['/api/qr', 'QR code', 'Generates a QR code PNG for any text or URL.'],
      ['/api/random', 'Random numbers', 'Verifiable random numbers with a proof.'],
      ['/api/pdf/convert', 'PDF converter', 'Converts HTML or Markdown to PDF.'],
      ['/api/url/shorten', 'URL shortener', 'Shortens a URL and counts clicks.'],
      ['/api/uuid', 'UUID generator', 'Generates UUID v4 or v7 values in bulk.'],
      ['/api/screenshot', 'Screenshot', 'Full-page screenshot of a URL as PNG.'],
      ['/api/fortune', 'Fortune cookie', 'A fortune-cookie message, one per call.'],
    ],
  },
  search_engine: {
    roots: ['Query', 'Finder', 'Index', 'Lookup', 'Searchly', 'Scout'],
    priceShift: 0,
    endpoints: [
      ['/api/search', 'Web search', 'Web search results with titles, snippets and URLs.'],
      ['/api/search/images', 'Image search', 'Image search results with sizes and source pages.'],
      ['/api/search/news', 'News search', 'News vertical search sorted by recency.'],
      ['/api/search/local', 'Local search', 'Local business results for a query and a location.'],
      ['/api/search/videos', 'Video search', 'Video results with duration and channel.'],
      ['/api/suggest', 'Autocomplete', 'Query suggestions as you type.'],
    ],
  },
  storage: {
    roots: ['Bucket', 'Locker', 'Archive', 'Stash', 'Depot', 'Cellar'],
    priceShift: 0,
    endpoints: [
      ['/api/upload', 'File upload', 'Uploads a file up to 100 MB and returns a signed URL.'],
      ['/api/kv/set', 'Key-value set', 'Stores a value under a key with an optional TTL.'],
      ['/api/kv/get', 'Key-value get', 'Reads a value by key.'],
      ['/api/paste', 'Paste bin', 'Stores text and returns a shareable link.'],
      ['/api/backup', 'Backup snapshot', 'Encrypted, versioned snapshot of a JSON document.'],
    ],
  },
  token_data: {
    roots: ['Coin', 'Token', 'Price', 'Chart', 'Candle', 'Spot', 'Mark'],
    priceShift: -1,
    endpoints: [
      ['/api/price', 'Token price', 'USD price of any ERC-20 or SPL token by address.'],
      ['/api/ohlcv', 'OHLCV candles', 'OHLCV candles of a token pair at 1m to 1d intervals.'],
      ['/api/token/info', 'Token info', 'Name, symbol, supply, holders and socials of a token.'],
      ['/api/trending', 'Trending tokens', 'Tokens trending by volume and social mentions.'],
      ['/api/holders/top', 'Top holders', 'Largest holders of a token with their share of supply.'],
      ['/api/market-cap', 'Market caps', 'Top 500 tokens by market cap with 24h change.'],
      ['/api/new-pairs', 'New pairs', 'DEX pairs created in the last hour.'],
    ],
  },
  token_safety: {
    roots: ['Shield', 'Guard', 'Audit', 'Safe', 'Scan', 'Sentinel', 'Rugcheck'],
    priceShift: 0,
    endpoints: [
      ['/api/token/risk', 'Token risk score', 'Risk score of a token: honeypot, taxes, owner privileges and liquidity.'],
      ['/api/honeypot', 'Honeypot check', 'Simulates a buy and a sell to detect honeypots and sell taxes.'],
      ['/api/contract/audit', 'Contract audit', 'Static analysis summary of a verified contract.'],
      ['/api/liquidity/lock', 'Liquidity lock check', 'Whether LP tokens are locked or burned, and until when.'],
      ['/api/address/screen', 'Address screening', 'Sanctions and scam exposure of a wallet address.'],
      ['/api/approvals', 'Approval checker', 'Risky token approvals of a wallet.'],
    ],
  },
  trading_signals: {
    roots: ['Edge', 'Momentum', 'Alpha', 'Trend', 'Pivot', 'Breakout', 'Signal'],
    priceShift: 1,
    endpoints: [
      ['/api/signals', 'Trading signals', 'Long and short signals for top tokens with entry, stop and target.'],
      ['/api/funding-rates', 'Funding rates', 'Perpetual funding rates across exchanges.'],
      ['/api/whale-alerts', 'Whale alerts', 'Large transfers and exchange flows in real time.'],
      ['/api/ta', 'Technical analysis', 'RSI, MACD and Bollinger readings of a pair.'],
      ['/api/sentiment/market', 'Market sentiment', 'Fear and greed index with social sentiment.'],
      ['/api/arbitrage', 'Arbitrage finder', 'Cross-exchange price gaps above a threshold.'],
      ['/api/liquidation-heatmap', 'Liquidation heatmap', 'Estimated liquidation levels of BTC and ETH perpetuals.'],
    ],
  },
  transport_logistics: {
    roots: ['Cargo', 'Transit', 'Freight', 'Fleet', 'Track', 'Harbor'],
    priceShift: 0,
    endpoints: [
      ['/api/flights/status', 'Flight status', 'Live status, gate and delay of a flight.'],
      ['/api/shipments/track', 'Parcel tracking', 'Tracking events from 1,200 carriers.'],
      ['/api/transit/departures', 'Transit departures', 'Next departures at a public transit stop.'],
      ['/api/vessels', 'Vessel positions', 'AIS positions of ships by MMSI or area.'],
      ['/api/ev-chargers', 'EV chargers', 'Nearby EV charging stations with availability.'],
      ['/api/freight/quote', 'Freight quote', 'Spot freight quotes for FTL and LTL lanes.'],
    ],
  },
  wallet_analytics: {
    roots: ['Wallet', 'Portfolio', 'Profile', 'Trace', 'Onchain', 'Ledgerscope'],
    priceShift: 0,
    endpoints: [
      ['/api/wallet/portfolio', 'Wallet portfolio', 'Token balances and USD value of a wallet across chains.'],
      ['/api/wallet/pnl', 'Wallet PnL', 'Realized and unrealized PnL of a wallet by token.'],
      ['/api/wallet/labels', 'Wallet labels', 'Known entity labels of an address.'],
      ['/api/wallet/history', 'Transaction history', 'Decoded transaction history of a wallet.'],
      ['/api/wallet/score', 'Wallet score', 'Reputation score of a wallet from its on-chain activity.'],
      ['/api/smart-money', 'Smart money', 'Tokens bought today by top-performing wallets.'],
    ],
  },
  weather: {
    roots: ['Sky', 'Nimbus', 'Cirrus', 'Storm', 'Breeze', 'Meteo', 'Climate'],
    priceShift: -1,
    endpoints: [
      ['/api/weather/current', 'Current weather', 'Current temperature, humidity, wind and conditions for a city or coordinate.'],
      ['/api/weather/forecast', 'Weather forecast', '7-day forecast with hourly detail.'],
      ['/api/weather/alerts', 'Weather alerts', 'Active severe weather alerts for a region.'],
      ['/api/air-quality', 'Air quality', 'AQI and pollutant concentrations.'],
      ['/api/weather/history', 'Historical weather', 'Daily weather history back to 1990.'],
      ['/api/marine', 'Marine forecast', 'Wave height, swell and tide forecast.'],
    ],
  },
  code_execution: {
    roots: ['Sandbox', 'Runbox', 'Exec', 'Compile', 'Lambda', 'Shellbox'],
    priceShift: 1,
    endpoints: [
      ['/api/run/python', 'Run Python', 'Runs Python 3.12 code in an isolated sandbox and returns stdout.'],
      ['/api/run/js', 'Run JavaScript', 'Executes JavaScript or TypeScript in a V8 isolate.'],
      ['/api/compile/solidity', 'Compile Solidity', 'Compiles Solidity sources and returns ABI and bytecode.'],
      ['/api/notebook', 'Notebook cell', 'Executes a notebook cell with pandas and numpy preinstalled.'],
      ['/api/browser/session', 'Headless browser', 'Runs a Playwright script and returns its result.'],
      ['/api/lint', 'Code linter', 'Lints code in 20 languages and returns fixes.'],
    ],
  },
  image_generation: {
    roots: ['Render', 'Dream', 'Lumen', 'Prism', 'Studio', 'Pixelforge'],
    priceShift: 3,
    endpoints: [
      ['/api/images/generate', 'Image generation', 'Generates a 1024x1024 image from a text prompt.'],
      ['/api/images/edit', 'Image edit', 'Edits an image with a mask and a prompt.'],
      ['/api/images/upscale', 'Upscaler', 'Upscales images 4x with detail restoration.'],
      ['/api/remove-background', 'Background removal', 'Removes the background of a photo.'],
      ['/api/avatar', 'Avatar generator', 'Generates a stylized avatar from a selfie.'],
      ['/api/logo', 'Logo maker', 'Generates logo concepts from a brand name.'],
    ],
  },
  social_media: {
    roots: ['Social', 'Feed', 'Buzz', 'Viral', 'Caster', 'Chirp'],
    priceShift: 0,
    endpoints: [
      ['/api/x/user', 'X profile', 'Profile, follower count and recent posts of an X account.'],
      ['/api/farcaster/casts', 'Farcaster casts', 'Recent casts by user or channel.'],
      ['/api/reddit/search', 'Reddit search', 'Reddit posts and comments by keyword.'],
      ['/api/mentions', 'Brand mentions', 'Mentions of a keyword across social networks.'],
      ['/api/influencers', 'Influencer finder', 'Influencers by niche with engagement rates.'],
      ['/api/post', 'Schedule post', 'Schedules a post to X, Farcaster or Bluesky.'],
    ],
  },
  translation: {
    roots: ['Lingo', 'Babel', 'Polyglot', 'Glossa', 'Idiom', 'Verba'],
    priceShift: 1,
    endpoints: [
      ['/api/translate', 'Translate text', 'Translates text between 100 languages.'],
      ['/api/detect-language', 'Language detection', 'Detects the language of a text.'],
      ['/api/translate/document', 'Document translation', 'Translates DOCX or PDF files keeping the layout.'],
      ['/api/transcribe', 'Transcription', 'Speech to text for audio files in 50 languages.'],
      ['/api/localize', 'App localization', 'Translates i18n JSON files with context.'],
    ],
  },
  web_scraping: {
    roots: ['Scrape', 'Harvest', 'Spider', 'Fetchly', 'Crawl', 'Extract'],
    priceShift: 1,
    endpoints: [
      ['/api/scrape', 'Scrape URL', 'Fetches a URL with a headless browser and returns clean Markdown.'],
      ['/api/crawl', 'Site crawler', 'Crawls a site, up to 100 pages, and returns the text.'],
      ['/api/extract/structured', 'Structured scrape', 'Extracts fields of a page into JSON following a schema.'],
      ['/api/serp', 'SERP scraper', 'A search results page as JSON.'],
      ['/api/profile/scrape', 'Profile scraper', 'Public profile data from a professional network URL.'],
      ['/api/marketplace/product', 'Product scraper', 'Title, price, rating and reviews of a product page.'],
    ],
  },
  identity_verification: {
    roots: ['Verify', 'Ident', 'Trust', 'Proof', 'Persona', 'Kyclio'],
    priceShift: 2,
    endpoints: [
      ['/api/kyc/check', 'KYC check', 'Verifies an ID document and a selfie and returns a decision.'],
      ['/api/email/verify', 'Email verification', 'Deliverability and risk of an email address.'],
      ['/api/phone/lookup', 'Phone lookup', 'Carrier, line type and risk of a phone number.'],
      ['/api/humanity', 'Proof of humanity', 'Whether a wallet holds a proof-of-personhood credential.'],
      ['/api/names/resolve', 'Name resolve', 'Resolves ENS names and Basenames to addresses and back.'],
      ['/api/age-check', 'Age verification', 'Estimates age from a selfie without storing it.'],
    ],
  },
  prediction_markets: {
    roots: ['Odds', 'Forecast', 'Wager', 'Poll', 'Augury', 'Outcome'],
    priceShift: 0,
    endpoints: [
      ['/api/markets', 'Prediction markets', 'Open prediction markets with prices and volume.'],
      ['/api/markets/odds', 'Market odds', 'Implied probabilities of an event across venues.'],
      ['/api/elections', 'Election odds', 'Election market odds by race.'],
      ['/api/sports/odds', 'Sports odds', 'Live sports odds from 40 books.'],
      ['/api/markets/resolved', 'Resolved markets', 'Recently resolved markets with outcomes.'],
      ['/api/forecast/ai', 'AI forecast', 'AI forecast of a yes/no question with its reasoning.'],
    ],
  },
};

/** Categories scheduled data pullers (analytics bots) favour. */
export const FEED_CATEGORIES: readonly ListedCategory[] = [
  'token_data',
  'defi_data',
  'financial_data',
  'trading_signals',
  'weather',
  'news',
  'wallet_analytics',
  'nft_data',
  'prediction_markets',
  'social_media',
  'blockchain_infra',
];

/** Brand suffixes appended to a category root ('Nimbus' + 'cast'). */
export const BRAND_SUFFIXES: readonly string[] = [
  '',
  'ly',
  'hub',
  'labs',
  'api',
  'base',
  'x',
  'kit',
  'io',
  'ai',
  'data',
  'pay',
  'fi',
  'node',
  'stack',
  'works',
  'flow',
  'verse',
  'grid',
  'bot',
  'cast',
  'wise',
  'dex',
  'lab',
  'hq',
];

export const TLDS: readonly string[] = ['com', 'io', 'ai', 'xyz', 'dev', 'app', 'so', 'sh', 'tech', 'network', 'fun', 'cloud'];
export const TLD_WEIGHTS: readonly number[] = [25, 18, 15, 10, 8, 6, 3, 3, 3, 3, 2, 4];

/** Hosting platforms small sellers deploy on (`<slug>.<platform>`). */
export const PLATFORM_HOSTS: readonly string[] = ['vercel.app', 'workers.dev', 'up.railway.app', 'fly.dev', 'onrender.com', 'netlify.app'];

/** Variants a seller uses to list more endpoints than its category has templates. */
export const ENDPOINT_VARIANTS: ReadonlyArray<readonly [pathSuffix: string, nameSuffix: string, descriptionPrefix: string]> = [
  ['/batch', ' (batch)', 'Batch version: up to 50 inputs per call. '],
  ['/v2', ' v2', 'Version 2 with a richer response. '],
  ['/pro', ' Pro', 'Higher limits and fresher data. '],
  ['/lite', ' Lite', 'Smaller, faster response. '],
  ['/stream', ' (stream)', 'Server-sent events stream of the same data. '],
  ['/history', ' history', 'Historical series of the same data. '],
];

/** Sentences appended to listing descriptions; `{price}` and `{chain}` are filled in. */
export const DESCRIPTION_EXTRAS: readonly string[] = [
  'Pay per call with x402, no API key.',
  '{price} USDC per request on {chain}.',
  'Returns JSON.',
  'No signup required: pay with x402 and get the response.',
  'Built for AI agents.',
  'Cached for 60 seconds.',
  'Rate limit: 10 requests per second.',
  'Responses in under 300 ms.',
  'OpenAPI schema at /openapi.json.',
  'Supports MCP clients.',
];

// ------------------------------------------------------------------ placeholders

export const PLACEHOLDER_NAMES: readonly string[] = [
  'test',
  'Test',
  'hello world',
  'Hello World',
  'demo endpoint',
  'Demo Endpoint',
  'test endpoint',
  'My API',
  'example',
  'ping',
  'x402 test',
  'TODO',
  'sample paid route',
  'testing 123',
  'untitled',
  'Protected Route',
  'weather (test)',
  'premium content',
];

export const PLACEHOLDER_DESCRIPTIONS: readonly string[] = [
  '',
  'test',
  'Hello world',
  'A demo endpoint',
  'This is a test',
  'Example x402 endpoint from the quickstart',
  'TODO: add description',
  'testing payments',
  'lorem ipsum dolor sit amet',
  'Access to premium content',
  'Get the weather (demo)',
];

export const PLACEHOLDER_PATHS: readonly string[] = [
  '/api/test',
  '/hello',
  '/api/hello-world',
  '/demo',
  '/protected',
  '/api/premium',
  '/weather',
  '/test2',
  '/paid',
  '/api/ping',
  '/premium/content',
  '/api/protected',
];

/** Hosts of copy-pasted quickstart listings; '{slug}' becomes a developer's project slug. */
export const PLACEHOLDER_HOSTS: readonly string[] = [
  'example.com',
  'api.example.com',
  'www.example.com',
  '{slug}.vercel.app',
  '{slug}-test.xyz',
  'test.{slug}.dev',
  '{slug}.ngrok-free.app',
];

// ------------------------------------------------------------------------- prices

/** Price points of listed x402 resources, USD per call ("nice" values seen in bazaar listings). */
export const PRICE_POINTS: readonly number[] = [
  0.0001, 0.0005, 0.001, 0.002, 0.003, 0.005, 0.01, 0.02, 0.025, 0.03, 0.05, 0.1, 0.15, 0.25, 0.5, 1,
];
/** Weights of PRICE_POINTS: $0.001-$0.10 dominate, a thin tail both ways. */
export const PRICE_WEIGHTS: readonly number[] = [4, 2, 12, 5, 3, 12, 18, 8, 4, 3, 10, 9, 1, 4, 3, 2];
