/**
 * The analytics service (docs/services.md, "Analytics service"): an index of x402 pay-per-call services and
 * their transactions, buyer classification (wash detection), trends; free public-domain data
 * plus paid slices. Every endpoint is declared here once.
 */
import { z } from 'zod';
import { ANALYTICS_CHAINS, CATEGORIES, CATEGORY_SLUGS, WASH_LABELS } from './categories.ts';
import { CHAIN_COVERAGE_NOTE } from './facilitators.ts';
import { usdcNetworksText } from './networks.ts';
import {
  type ColumnType,
  type DatasetShape,
  document,
  type TableColumns,
  type EndpointDecl,
  type PaidEndpointInput,
  table,
} from './types.ts';
import {
  HealthBody,
  PlainText,
  WalletAddress,
  WellKnownX402Body,
  boolParam,
  dataStamp,
  fraction,
  intParam,
  isoDate,
  isoDateTime,
  isoDateTimeOrNull,
  numberParam,
  oneOf,
  percent,
  percent0to100,
  searchParam,
} from './schemas.ts';

/**
 * Price buckets of the services list filter, on price_amount (USD per call). Lower bounds are
 * inclusive, upper bounds exclusive; 'unknown' selects services without a known price.
 */
export const PRICE_BUCKETS = ['lt_0.001', '0.001_0.01', '0.01_0.1', 'gte_0.1', 'unknown'] as const;
export type PriceBucket = (typeof PRICE_BUCKETS)[number];
export const PRICE_BUCKET_BOUNDS: Record<PriceBucket, { min: number | null; max: number | null }> = {
  'lt_0.001': { min: null, max: 0.001 },
  '0.001_0.01': { min: 0.001, max: 0.01 },
  '0.01_0.1': { min: 0.01, max: 0.1 },
  'gte_0.1': { min: 0.1, max: null },
  unknown: { min: null, max: null },
};

/** Sort keys of the services list; ties are broken by id ascending, null prices sort last. */
export const SERVICE_SORT_KEYS = [
  'tx_24h',
  'volume_24h',
  'tx_total',
  'price_amount',
  'real_volume_pct',
  'wash_pct',
  'first_seen',
  'name',
] as const;
export type ServiceSortKey = (typeof SERVICE_SORT_KEYS)[number];

const FREE_NOTE =
  ' Free: no payment or headers; 60 requests per hour per IP address (429 beyond). Data released under CC0-1.0 (public domain).';
const DATA_NOTE =
  " Every response carries `source` ('live' = indexed from public chains and discovery, 'demo' = the built-in simulator used " +
  "when the service runs without network, 'file' = operator-imported files) and `as_of` (UTC time the data was computed).";
const LABELS_NOTE =
  ' Buyer labels (WashLabel): verifier, organic_user, ai_agent, analytics_bot, developer, self_test, suspected_wash, unlabeled.' +
  ' real_volume_pct = share of volume from organic_user and ai_agent buyers; wash_pct = share from suspected_wash buyers; both over the last 30 days.';

// ------------------------------------------------------------------ parameters

const categoryParam = oneOf(CATEGORY_SLUGS, 'Category slug, one of the 33 categories (see /api/v1/categories).');
const chainParam = oneOf(ANALYTICS_CHAINS, 'Chain: base, solana, polygon or arbitrum.');

const ServicesQuery = z.object({
  search: searchParam(100, 'Case-insensitive text matched against the name, description and resource URL (at most 100 characters).'),
  category: categoryParam.optional(),
  chain: chainParam.optional(),
  price_bucket: oneOf(
    PRICE_BUCKETS,
    "Price per call in USD: 'lt_0.001' (< 0.001), '0.001_0.01' (0.001 to < 0.01), '0.01_0.1' (0.01 to < 0.1), 'gte_0.1' (0.1 or more), 'unknown' (no known price).",
  ).optional(),
  min_real_pct: numberParam({ min: 0, max: 100, description: 'Only services whose real_volume_pct is at least this (0 to 100).' }),
  max_wash_pct: numberParam({ min: 0, max: 100, description: 'Only services whose wash_pct is at most this (0 to 100).' }),
  active_only: boolParam(false, 'Only services with at least one transaction in the last 24 hours.'),
  min_grade: oneOf(
    ['A', 'B', 'C', 'D', 'F'],
    'Only services whose trust_grade is this or better (A best, F worst); services without a grade (not enough evidence) are left out.',
  ).optional(),
  live_only: boolParam(false, 'Only services that answered an unpaid probe in the last 24 hours.'),
  show_placeholder: boolParam(
    false,
    "Include services the index flags as placeholders or tests (category test_dummy, test-like names such as 'test', 'hello world' or 'example', URLs on localhost, example.com or ngrok); hidden by default, so set it to list category test_dummy.",
  ),
  sort: oneOf(SERVICE_SORT_KEYS, 'Sort key. Ties are broken by id ascending; services without a price sort last.').default('tx_24h'),
  order: oneOf(['asc', 'desc'], 'Sort order.').default('desc'),
  page: intParam({ min: 1, default: 1, description: 'Page number, from 1. A page past the end returns an empty list.' }),
  page_size: intParam({ min: 1, max: 200, default: 50, description: 'Services per page, 1 to 200.' }),
});

const SlugPath = z.object({ slug: categoryParam });
const IdPath = z.object({ id: intParam({ min: 1, description: 'Service id (positive integer), as in the services list.' }) });
const AddressPath = z.object({ address: WalletAddress });
const WashCheckRequest = z.object({
  address: WalletAddress.describe('Wallet or seller address to analyse: EVM 0x + 40 hex digits, or Solana base58.'),
});

/** Parameter and body schemas, exported for tests and the MCP tools. */
export const ANALYTICS_PARAMS = { ServicesQuery, SlugPath, IdPath, AddressPath, WashCheckRequest };

// ------------------------------------------------------------------ response pieces

const Category = z.enum(CATEGORY_SLUGS).describe('Category slug.');
const Chain = z.enum(ANALYTICS_CHAINS).describe('Chain the service is paid on.');
const Label = z.enum(WASH_LABELS).describe('Buyer label (WashLabel).');
const Usdc = (description: string) => z.number().describe(`${description} (USDC)`);
const ChangePct = (description: string) =>
  percent(`${description}; when the previous value is 0 it is 0 if the current value is also 0, else 100`);

/** A change that has no percentage when it grows from zero: null then, and the item says "new". */
const GrowthPct = (description: string) =>
  percent(`${description}; 0 when both values are 0, null when the previous value is 0 (growth from zero: see new)`).nullable();
const NewInWindow = z
  .boolean()
  .describe('True when there were no payments in the 24 hours before (tx_prev 0): growth from zero, whose change percentages are null.');

const LabelDistribution = z
  .partialRecord(Label, z.number().min(0).max(1))
  .describe(
    "Fraction (0 to 1) of the service's volume over the last 30 days per buyer label; only labels with traffic appear; fractions add up to 1.",
  );

export const TRUST_GRADES = ['A', 'B', 'C', 'D', 'F'] as const;
/** What the unpaid probes say of a service (docs/wash-methodology.md §13): the services list item and the service-health row share these fields. */
const PROBE_FACTS = {
  last_probe_at: isoDateTimeOrNull('Time of the newest probe; null when never probed.'),
  uptime_7d_pct: z
    .number()
    .nullable()
    .describe(
      'Percent of the unpaid probes of the last 7 days (deferred ones and 429s left out) that got an answer; null when never probed.',
    ),
  latency_p50_ms: z.number().nullable().describe('Median total time of the answered probes of 7 days (ms).'),
  latency_p99_ms: z.number().nullable().describe('99th percentile of the same (ms).'),
  payto_consistent: z
    .boolean()
    .nullable()
    .describe(
      "The offered payTo is where this resource's payments of 30 days settled; null when no payment names the resource (not judged).",
    ),
};

const ServiceListItem = z.object({
  id: z.number().int().describe('Service identifier, stable across updates.'),
  chain: Chain,
  seller_address: z.string().describe('Pay-to address of the seller.'),
  resource_url: z.string().describe('URL of the indexed endpoint.'),
  name: z.string().describe('Name as discovered (may be truncated).'),
  description: z.string().describe('Description as discovered (may be truncated).'),
  category: Category,
  price_amount: z.number().nullable().describe('USD per call; null when no price is known.'),
  first_seen: isoDateTime('When the index first saw the service.'),
  tx_24h: z.number().int().describe('Transactions in the last 24 hours.'),
  volume_24h: Usdc('Volume in the last 24 hours'),
  tx_total: z.number().int().describe('All-time transactions.'),
  real_volume_pct: percent0to100('Share of volume from organic_user and ai_agent buyers, last 30 days'),
  wash_pct: percent0to100('Share of volume from suspected_wash buyers, last 30 days'),
  label_distribution: LabelDistribution,
  trust_grade: z
    .enum(TRUST_GRADES)
    .nullable()
    .describe(
      'Trust grade A-F from unpaid probes, payTo integrity, price honesty, wash share, age and buyers (the free service-health dataset has the evidence); null when there is not enough evidence.',
    ),
  uptime_7d_pct: PROBE_FACTS.uptime_7d_pct,
  latency_p50_ms: PROBE_FACTS.latency_p50_ms,
  latency_p99_ms: PROBE_FACTS.latency_p99_ms,
  payto_consistent: PROBE_FACTS.payto_consistent,
  last_probe_at: PROBE_FACTS.last_probe_at,
});

const CategoryStats = z.object({
  slug: Category,
  title: z.string().describe('Category name in words.'),
  services_count: z.number().int().describe('Services in the category.'),
  active_services_24h: z.number().int().describe('Services with at least one transaction in the last 24 hours.'),
  tx_24h: z.number().int().describe('Transactions in the last 24 hours.'),
  volume_24h: Usdc('Volume in the last 24 hours'),
  tx_total: z.number().int().describe('All-time transactions.'),
  volume_30d: Usdc('Volume in the last 30 days').optional(),
  real_volume_pct: percent0to100('Share of volume from organic_user and ai_agent buyers, last 30 days'),
  wash_pct: percent0to100('Share of volume from suspected_wash buyers, last 30 days'),
  median_price: z.number().nullable().describe("Median price per call of the category's services (USD); null when none has a price."),
});

const DailyCount = z.object({ date: isoDate('Day (UTC).'), count: z.number().int().describe('New services first seen that day.') });

// ------------------------------------------------------------------ free responses

const LandingStatsBody = z.object({
  ...dataStamp,
  stats: z.object({
    services_indexed: z.number().int().describe('Services in the index (placeholders included).'),
    transactions_analyzed: z.number().int().describe('Transactions the index has classified, all time.'),
    active_buyers: z.number().int().describe('Distinct buyer wallets with a transaction in the last 30 days.'),
    real_volume_pct: percent0to100('Share of all volume from organic_user and ai_agent buyers, last 30 days'),
    last_updated: isoDateTime('When these statistics were computed (UTC); same as as_of.'),
    label_distribution: z
      .array(
        z.object({
          label: Label,
          buyers: z.number().int().describe('Buyer wallets with this label (last 30 days).'),
          tx_pct: percent0to100('Share of transactions'),
          volume_pct: percent0to100('Share of volume'),
        }),
      )
      .describe('One entry per label with traffic in the last 30 days, largest volume first.'),
    category_volume_series: z
      .array(
        z.object({
          date: isoDate('Day (UTC).'),
          category: Category,
          volume: Usdc('Volume that day'),
          tx_count: z.number().int().describe('Transactions that day.'),
        }),
      )
      .describe('Daily volume per category over the last 30 days (tidy rows: one per day and category with traffic), oldest first.'),
    daily_new_services: z.array(DailyCount).describe('New services per day over the last 30 days, oldest first.'),
  }),
});

const CategoriesBody = z.object({
  ...dataStamp,
  total_categories: z.number().int().describe('Number of categories (33).'),
  categories: z.array(CategoryStats).describe('Every category, including empty ones, by 24-hour volume descending.'),
});

const CategoryDetailBody = z.object({
  ...dataStamp,
  category: CategoryStats,
  daily_series: z
    .array(
      z.object({
        date: isoDate('Day (UTC).'),
        tx_count: z.number().int(),
        volume: Usdc('Volume that day'),
        real_volume_pct: percent0to100("Share of that day's volume from organic_user and ai_agent buyers"),
        active_services: z.number().int().describe('Services with at least one transaction that day.'),
        new_services: z.number().int().describe('Services first seen that day.'),
      }),
    )
    .length(30)
    .describe('The last 30 days, oldest first.'),
  top_services: z.array(ServiceListItem).describe('Top 10 services of the category by tx_24h.'),
});

const ServicesListBody = z.object({
  ...dataStamp,
  services: z.array(ServiceListItem).describe('One page of services, ordered by the sort key.'),
  pagination: z.object({
    page: z.number().int(),
    page_size: z.number().int(),
    total: z.number().int().describe('Services matching the filters.'),
    total_pages: z.number().int().describe('ceil(total / page_size); 0 when nothing matches.'),
  }),
  summary: z
    .object({
      total_volume_24h: Usdc('24-hour volume of all matching services (every page)'),
      total_tx_24h: z.number().int().describe('24-hour transactions of all matching services (every page).'),
    })
    .describe('Totals over everything that matches the filters, not just this page.'),
  filters_applied: z
    .object({
      search: z.string().nullable(),
      category: Category.nullable(),
      chain: Chain.nullable(),
      price_bucket: z.enum(PRICE_BUCKETS).nullable(),
      min_real_pct: z.number().nullable(),
      max_wash_pct: z.number().nullable(),
      active_only: z.boolean(),
      min_grade: z.enum(['A', 'B', 'C', 'D', 'F']).nullable(),
      live_only: z.boolean(),
      show_placeholder: z.boolean(),
      sort: z.enum(SERVICE_SORT_KEYS),
      order: z.enum(['asc', 'desc']),
      page: z.number().int(),
      page_size: z.number().int(),
    })
    .describe('Every filter as applied: defaults filled in, absent filters null.'),
  chain_coverage: z
    .array(
      z.object({
        chain: z.enum(ANALYTICS_CHAINS),
        indexed: z.boolean().describe('True when live indexing reads this chain.'),
        facilitators: z.array(z.string()).describe('Facilitators with registered relayers on the chain.'),
        relayers: z.number().int().describe('Registered relayer wallets on the chain.'),
        note: z.string().describe('How the chain is read, or why it is not.'),
      }),
    )
    .describe(CHAIN_COVERAGE_NOTE),
});

const ServiceDetailBody = z.object({
  ...dataStamp,
  service: ServiceListItem.extend({
    volume_total: Usdc('All-time volume'),
    unique_buyers_30d: z.number().int().describe('Distinct buyer wallets in the last 30 days.'),
    last_tx_at: isoDateTime('Time of the latest transaction.').nullable(),
  }),
  daily_series: z
    .array(
      z.object({
        date: isoDate('Day (UTC).'),
        tx_count: z.number().int(),
        volume: Usdc('Volume that day'),
        unique_buyers: z.number().int(),
        real_volume_pct: percent0to100("Share of that day's volume from organic_user and ai_agent buyers"),
      }),
    )
    .length(30)
    .describe('The last 30 days, oldest first.'),
  top_buyers: z
    .array(
      z.object({
        address: z.string().describe('Buyer wallet.'),
        label: Label.describe(
          "Buyer label (WashLabel) of this wallet's payments to the service's seller, as the classifier gave it; the same label wash-detail shows.",
        ),
        tx_count: z.number().int().describe('Transactions with this service, last 30 days.'),
        volume: Usdc('Volume with this service, last 30 days'),
        share_pct: percent0to100("Share of the service's 30-day volume"),
      }),
    )
    .max(10)
    .describe(
      'Top 10 buyers by 30-day volume, each with its label. Confidence, the signals behind each label, cohort signals and the top 50 are in the paid wash-detail.',
    ),
});

const TrendsBody = z.object({
  ...dataStamp,
  summary: z.object({
    new_services_24h: z.number().int().describe('Services first seen in the last 24 hours.'),
    new_services_prev_24h: z.number().int().describe('Services first seen in the 24 hours before that.'),
    new_services_change_pct: ChangePct('Change of new_services_24h against new_services_prev_24h'),
    total_tx_24h: z.number().int(),
    total_volume_24h: Usdc('Volume in the last 24 hours'),
    active_buyers_24h: z.number().int().describe('Distinct buyer wallets in the last 24 hours.'),
  }),
  daily_new_services: z.array(DailyCount).length(15).describe('New services per day, the last 15 days, oldest first.'),
  recent_new_services: z
    .array(
      z.object({
        id: z.number().int(),
        name: z.string(),
        category: Category,
        chain: Chain,
        price_amount: z.number().nullable().describe('USD per call; null when unknown.'),
        first_seen: isoDateTime('When the index first saw it.'),
      }),
    )
    .max(10)
    .describe('The 10 newest services, newest first (placeholders excluded).'),
  category_movers: z
    .array(
      z.object({
        category: Category,
        volume_24h: Usdc('Volume in the last 24 hours'),
        volume_prev: Usdc('Volume in the 24 hours before'),
        volume_change_pct: GrowthPct('Volume change'),
        tx_24h: z.number().int(),
        tx_prev: z.number().int(),
        tx_change_pct: GrowthPct('Transaction count change'),
        new: NewInWindow,
      }),
    )
    .describe(
      'Categories with traffic in either window: the new ones (no payments before) first, by volume_24h descending; then the others by volume_change_pct descending.',
    ),
  hot_services: z
    .array(
      z.object({
        id: z.number().int(),
        name: z.string(),
        category: Category,
        chain: Chain,
        tx_24h: z.number().int(),
        tx_prev: z.number().int().describe('Transactions in the 24 hours before.'),
        tx_change_pct: GrowthPct('Transaction count change'),
        new: NewInWindow,
        real_volume_pct: percent0to100('Share of volume from organic_user and ai_agent buyers, last 30 days'),
        wash_pct: percent0to100('Share of volume from suspected_wash buyers, last 30 days'),
      }),
    )
    .max(10)
    .describe('Top 10 services by transaction growth (tx_24h - tx_prev), placeholders excluded.'),
});

const WashReportBody = z.object({
  ...dataStamp,
  summary: z
    .object({
      buyers_classified: z.number().int().describe('Buyer wallets with a label, last 30 days.'),
      suspected_wash_buyers: z.number().int().describe('Of those, labelled suspected_wash.'),
      services_affected: z.number().int().describe('Services with any suspected_wash volume.'),
      volume_30d: Usdc('All volume, last 30 days'),
      real_volume_30d: Usdc('Volume from organic_user and ai_agent buyers, last 30 days').optional(),
      wash_volume_30d: Usdc('Volume from suspected_wash buyers, last 30 days').optional(),
      wash_volume_pct: percent0to100('Share of volume from suspected_wash buyers'),
      real_volume_pct: percent0to100('Share of volume from organic_user and ai_agent buyers'),
    })
    .describe('Totals over the last 30 days.'),
  daily_wash_share: z
    .array(
      z.object({
        date: isoDate('Day (UTC).'),
        volume: Usdc('All volume that day'),
        wash_volume: Usdc('Volume from suspected_wash buyers that day'),
        wash_pct: percent0to100("Share of the day's volume from suspected_wash buyers"),
        real_volume_pct: percent0to100("Share of the day's volume from organic_user and ai_agent buyers"),
      }),
    )
    .optional()
    .describe('The last 14 days, oldest first.'),
  label_distribution: z
    .array(
      z.object({
        label: Label,
        buyers: z.number().int(),
        tx_pct: percent0to100('Share of transactions'),
        volume_pct: percent0to100('Share of volume'),
      }),
    )
    .describe('Per label, largest volume first.'),
  patterns: z
    .array(
      z.object({
        pattern_type: z
          .string()
          .describe(
            "Pattern, one of 'ring', 'round_trip', 'single_payer_concentration', 'funding_loop', 'operator_cohort', 'funding_burst', 'vanity_cluster', 'common_funder', 'coordinated_start', 'synchronized_start', 'uniform_amount', 'uniform_tx_count', 'fresh_wallet', 'camouflage', or 'unspecified' for wash pairs none of them describes.",
          ),
        description: z.string().describe('What the pattern looks like on chain.'),
        wallets: z.number().int().describe('suspected_wash wallets showing it (a wallet can show several patterns).'),
        services_affected: z.number().int(),
        volume: Usdc('Volume of those wallets, last 30 days'),
      }),
    )
    .describe('Aggregate wash patterns, largest volume first.'),
  case_studies: z
    .array(
      z.object({
        case_id: z.string().describe('Anonymous id; no address is published.'),
        pattern_type: z.string(),
        category: Category,
        summary: z.string().describe('What happened, in words.'),
        wallets: z.number().int(),
        tx_count: z.number().int(),
        volume: Usdc('Volume involved'),
      }),
    )
    .describe('Anonymised case studies, at most 10.'),
  by_category: z
    .array(
      z.object({
        category: Category,
        volume_30d: Usdc('Volume, last 30 days'),
        wash_pct: percent0to100('Share from suspected_wash buyers'),
        real_volume_pct: percent0to100('Share from organic_user and ai_agent buyers'),
      }),
    )
    .describe('Wash share per category with traffic, highest wash_pct first.'),
  method: z.string().describe('How buyers are classified, in a few sentences.'),
});

// ------------------------------------------------------------------ paid responses

/**
 * The labels' cohort evidence is of the start of a UTC day (the day state): a cohort's new members
 * count from the next day (docs/wash-methodology.md, "Day state and hourly labels").
 */
const cohortStamp = {
  cohort_state_as_of: isoDateTime(
    "Start of the UTC day whose day state gave the labels their cohort evidence (sellers' cohorts, funding chains, vanity clusters, rings); a cohort's new members count from the next day. Null for data computed before day states existed.",
  ).nullable(),
};

/** The operator behind a seller (the free operators dataset), or null. */
const OperatorRef = z
  .object({
    id: z.string().describe('Operator id, as in the free operators dataset.'),
    sellers: z.array(z.string()).describe("The operator's seller addresses."),
    evidence: z
      .array(z.string())
      .describe('Why it is listed: shared_funding (sellers joined by funding keys), operator_cohort, funding_burst.'),
  })
  .nullable();

/** What a suspected_wash label rests on (docs/wash-methodology.md §1), strongest first; [] for any other label. */
export const Evidence = z
  .array(
    z.object({
      kind: z
        .enum(['money_trail', 'dominance', 'no_independent_life', 'coordination'])
        .describe(
          "money_trail: money from the seller's side financed the payments; dominance: the buyer's group makes most of the operator's traffic; no_independent_life: the buyer pays the operator most of what it pays; coordination: the group was funded, started or mined together (never enough alone).",
        ),
      via: z
        .string()
        .describe('How: the path kind, the group kind (funding_root, funding_burst, funding_wave, vanity, start_window, coordinated).'),
      addresses: z
        .array(z.string())
        .describe(
          "The addresses it rests on: the money path from the operator's side to the buyer, the seller, the buyer, the group's source or members.",
        ),
      share: fraction("How much: the share of what the buyer paid that the side financed, the group's share of the traffic, and so on"),
      text: z.string().describe('The same in words.'),
    }),
  )
  .describe('What a suspected_wash label rests on, strongest first; empty for any other label.');

const WashDetailBody = z.object({
  ...dataStamp,
  ...cohortStamp,
  service_id: z.number().int(),
  buyers: z
    .array(
      z.object({
        address: z.string().describe('Buyer wallet.'),
        label: Label,
        confidence: fraction('Confidence of the label'),
        signals: z
          .record(z.string(), z.number())
          .describe(
            'Signal name to strength (0 to 1), e.g. uniform_amount, coordinated_start, uniform_tx_count, vanity_strict, vanity_broad, funding_shared, concentration.',
          ),
        evidence: Evidence,
        tx_count: z.number().int().describe('Transactions with this service, last 30 days.'),
        volume: Usdc('Volume with this service, last 30 days'),
        first_tx_at: isoDateTime('First transaction with this service.'),
        last_tx_at: isoDateTime('Latest transaction with this service.'),
      }),
    )
    .max(50)
    .describe('Top 50 buyers by 30-day volume.'),
  cohort_summary: z
    .object({
      uniform_amount_pct: percent0to100('Share of buyers paying one identical amount every time'),
      coordinated_start_pct: percent0to100('Share of buyers whose first transaction falls in a shared short window with others'),
      uniform_tx_count_cv: z
        .number()
        .min(0)
        .describe('Coefficient of variation of transaction counts across buyers (near 0 = suspiciously uniform).'),
      cohort_size: z.number().int().describe('Buyers in the largest coordinated cohort.'),
    })
    .describe('Cohort signals over all buyers of the service.'),
  operator: OperatorRef.describe("The operator behind the service's seller when the free operators dataset lists one; else null."),
});

const BuyerProfileBody = z.object({
  ...dataStamp,
  ...cohortStamp,
  address: z.string(),
  label: Label,
  confidence: fraction('Confidence of the label'),
  reason: z
    .array(z.string())
    .describe('Signals behind the label, e.g. money_trail, cohort, common_funder, funding_burst, vanity_cluster, periodic.'),
  evidence: Evidence,
  services_used: z
    .array(z.object({ id: z.number().int(), category: Category, tx_count: z.number().int() }))
    .describe('Services this wallet paid, most transactions first.'),
  vanity_cluster: z
    .object({
      strict: z.boolean().describe('Shares a long address prefix and suffix with other buyers.'),
      broad: z.boolean().describe('Shares a shorter prefix or suffix with other buyers.'),
      size: z.number().int().describe('Wallets in the cluster.'),
    })
    .nullable()
    .describe('Vanity-address cluster of the wallet; null when it is in none.'),
  time_pattern: z
    .object({
      mean_interval_s: z.number().describe('Mean seconds between consecutive transactions.'),
      cv: z.number().describe('Coefficient of variation of the intervals (near 0 = machine-regular).'),
    })
    .describe("Timing of the wallet's transactions."),
  operator: OperatorRef.describe(
    "The operator behind the seller of the wallet's main service when the free operators dataset lists one; else null.",
  ),
});

const TransactionsBody = z.object({
  ...dataStamp,
  service_id: z.number().int(),
  transactions: z
    .array(
      z.object({
        tx_hash: z.string(),
        chain: Chain,
        buyer: z.string().describe('Payer wallet.'),
        amount: Usdc('Amount paid'),
        time: isoDateTime('Block time.'),
      }),
    )
    .describe('Payments of the last 30 days, newest first, at most 3000.'),
  total: z.number().int().describe('Payments in the 30-day window (may exceed the rows returned).'),
});

const FullHistoryBody = z.object({
  ...dataStamp,
  category: Category,
  points: z
    .array(
      z.object({
        time: isoDateTime('Start of the hour bucket (UTC).'),
        services_count: z.number().int().describe('Services with at least one transaction in the hour.'),
        volume: Usdc('Volume in the hour'),
        tx_count: z.number().int(),
        real_volume_pct: percent0to100("Share of the hour's volume from organic_user and ai_agent buyers"),
      }),
    )
    .describe('Hourly buckets over the last 365 days (about 8760), oldest first; hours without traffic included with zeros.'),
});

const WashCheckBody = z.object({
  ...dataStamp,
  ...cohortStamp,
  address: z.string(),
  label: Label,
  confidence: fraction('Confidence of the label'),
  signals: z.object({
    vanity: z.object({ strict: z.boolean(), broad: z.boolean() }).describe('Vanity-address cluster membership.'),
    cohort: z
      .object({
        uniform_amount: fraction('Strength of the identical-amount signal'),
        coordinated_start: fraction('Strength of the coordinated-start signal'),
      })
      .describe('Cohort behaviour.'),
    concentration: z
      .object({ top_service_share: fraction("Share of the address's volume going to its top service") })
      .describe('How concentrated the spending is.'),
  }),
  evidence: Evidence,
  similar_patterns: z
    .array(
      z.object({
        anonymous_id: z.string().describe('Anonymous id of a wallet group with a similar pattern.'),
        pattern_type: z.string().describe('Which pattern is shared.'),
      }),
    )
    .describe('Known anonymised wallet groups the address resembles.'),
  operator: OperatorRef.describe(
    'The operator behind the seller (for a buyer, behind its main seller) when the free operators dataset lists one; else null.',
  ),
  basis: z
    .string()
    .describe(
      'What this answer was computed from: the buyer, seller or never-seen view, the published classifier output it rests on (buyers, wash-detail, services) and its as_of; payments after as_of are not included.',
    ),
});

/** A row of the free operators dataset (pipelines/analytics/datasets/operators.ts; no endpoint: a download). */
export const OperatorsRow = z.object({
  operator_id: z.string().describe("Operator id: 'op_' and 16 hex characters of the SHA-256 of its smallest seller address."),
  sellers: z.array(z.string()).describe("The operator's seller addresses, sorted."),
  chains: z.array(z.string()).describe('Chains its sellers take payments on.'),
  service_ids: z.array(z.number().int()).describe('Indexed services of its sellers (services.id).'),
  buyer_count: z.number().int().describe('Distinct paying wallets of its sellers (the sellers themselves apart).'),
  volume: Usdc('All-time volume its sellers took (the classifier window)'),
  wash_volume_pct: percent0to100('Share of that volume on suspected_wash pairs'),
  operator_wallets: z.number().int().describe('Wallets funded from its keys that pay it most and kept paying more than 3 days.'),
  burst_wallets: z.number().int().describe('Wallets of its largest funding burst; 0 without one.'),
  evidence: z.array(z.string()).describe('Why it is listed: shared_funding, operator_cohort, funding_burst.'),
});

/** A row of the free service-health dataset (docs/wash-methodology.md §13): what to know before paying a service. */
export const HEALTH_FLAGS = ['dead', 'flaky', 'slow', 'unsignable', 'moved_payout', 'rotating_payto', 'decoy', 'price_trap'] as const;
export const ServiceHealthRow = z.object({
  service_id: z.number().int().describe('Service identifier (services.id).'),
  chain: z.string().describe('Chain the service takes payment on.'),
  resource_url: z.string().describe('URL of the indexed endpoint (what the prober asks).'),
  live: z.boolean().describe('At least one probe got an answer (a 402 offer, a 2xx) in the last 24 hours.'),
  last_probe_at: PROBE_FACTS.last_probe_at,
  last_outcome: z
    .string()
    .nullable()
    .describe(
      'What the newest probe got: offer, open, no_offer, invalid_offer, http_error, timeout, too_large, dns_error, tls_error, connect_error, private_address, redirect_loop, bad_url.',
    ),
  probes_7d: z.number().int().describe('Probes in the last 7 days (deferred ones and 429s left out).'),
  uptime_7d_pct: PROBE_FACTS.uptime_7d_pct,
  latency_p50_ms: PROBE_FACTS.latency_p50_ms,
  latency_p90_ms: z.number().nullable().describe('90th percentile of the same (ms).'),
  latency_p99_ms: PROBE_FACTS.latency_p99_ms,
  offer_network: z.string().nullable().describe("Network of the newest offer on the service's chain (CAIP-2 or v1 name)."),
  offer_scheme: z.string().nullable().describe('Its scheme: exact, upto, ...'),
  offer_pay_to: z.string().nullable().describe('The payTo it names.'),
  offer_amount_usd: z.number().nullable().describe('The amount it asks, in USD (USDC, 6 decimals).'),
  signable: z
    .boolean()
    .nullable()
    .describe("Whether a client can sign it (an EVM offer needs the token's EIP-712 domain); null where not judged."),
  listed_pay_to: z.string().describe('The payTo of the listing (discovery).'),
  listed_price_usd: z.number().nullable().describe('The price of the listing, USD.'),
  payto_moved: z.boolean().describe('The offered payTo changed within 7 days (two addresses; three or more is rotation).'),
  payto_moved_at: isoDateTimeOrNull('When the newest payTo first showed; null when it did not move.'),
  payto_rotates: z
    .boolean()
    .describe(
      'Three or more payTo addresses offered within 7 days: a pool or a new deposit address per sale. Not a fault: its payments are attributed through the payees it offered and settled to and, for one address per sale, through its facilitator and amount.',
    ),
  payto_consistent: PROBE_FACTS.payto_consistent,
  decoy: z
    .boolean()
    .describe('Its offered payTo (one all week, or a rotating pool that repeats) is never the listed one nor where the payments settled.'),
  settled_payments_30d: z.number().int().describe('Payments of 30 days the facilitator attributed to this resource URL.'),
  price_drift_pct: z
    .number()
    .nullable()
    .describe('The offered amount against the median settled amount (at least 3 payments), else the listed price, in percent.'),
  price_trap: z.boolean().describe('An exact-scheme offer more than 1.5 times that reference.'),
  flags: z
    .array(z.enum(HEALTH_FLAGS))
    .describe('What a buyer should know: dead, flaky, slow, unsignable, moved_payout, rotating_payto, decoy, price_trap.'),
  grade: z.enum(TRUST_GRADES).nullable().describe('Trust grade A-F; null when there is not enough evidence (the evidence says so).'),
  grade_score: z.number().nullable().describe("The grade's points out of 100."),
  evidence: z.array(z.string()).describe('Every fact the grade rests on, in words.'),
  recommendation: z.enum(['pay', 'caution', 'avoid']).describe('pay (A, B), caution (C, D or no grade), avoid (F).'),
  daily_7d: z
    .array(
      z.object({
        date: z.string().describe('Day (UTC), YYYY-MM-DD.'),
        probes: z.number().int().describe('Probes that day.'),
        uptime_pct: z.number().describe('Percent of them answered.'),
        latency_p50_ms: z.number().nullable().describe('Median total time of the answers (ms).'),
      }),
    )
    .describe('Per UTC day of the 7: probes, uptime and median latency, oldest first.'),
  seller_grade: z
    .enum(TRUST_GRADES)
    .nullable()
    .describe(
      "The seller's grade (this payTo on this chain): its graded services' scores weighted by 30-day payments; F with any decoy, a price trap caps it; null when none is graded.",
    ),
  seller_evidence: z.array(z.string()).describe("What the seller's grade rests on."),
});

const H = ServiceHealthRow.shape;
/** The paid preflight's answer: service-health's row for one service, shaped for a buyer about to pay. */
const PreflightBody = z.object({
  ...dataStamp,
  ...cohortStamp,
  service_id: H.service_id,
  resource_url: H.resource_url,
  live: H.live,
  grade: H.grade,
  grade_score: H.grade_score,
  recommendation: H.recommendation,
  flags: H.flags,
  evidence: H.evidence,
  offer: z
    .object({
      network: z.string().describe('Network of the newest offer (CAIP-2 or v1 name).'),
      scheme: z.string().nullable().describe('Its scheme: exact, upto, ...'),
      pay_to: z.string().describe('The payTo it names.'),
      amount_usd: z.number().nullable().describe('The amount it asks, USD.'),
      signable: H.signable,
    })
    .nullable()
    .describe("The newest offer the prober read on the service's chain; null when none in 7 days."),
  listed_pay_to: H.listed_pay_to,
  payto_consistent: H.payto_consistent,
  payto_moved: H.payto_moved,
  payto_rotates: H.payto_rotates,
  price_drift_pct: H.price_drift_pct,
  uptime_7d_pct: H.uptime_7d_pct,
  latency_ms: z
    .object({ p50: H.latency_p50_ms, p90: H.latency_p90_ms, p99: H.latency_p99_ms })
    .describe('Total time of the answered probes of 7 days, percentiles (ms).'),
  probes_7d: H.probes_7d,
  last_probe_at: H.last_probe_at,
  seller: z
    .object({ address: H.listed_pay_to, grade: H.seller_grade, evidence: H.seller_evidence })
    .describe("The listing's seller (payTo) and its grade over all its services."),
});

/** Response schemas, exported for the proxy, the pipelines and tests. */
export const ANALYTICS_RESPONSES = {
  ServiceListItem,
  PreflightBody,
  LandingStatsBody,
  CategoriesBody,
  CategoryDetailBody,
  ServicesListBody,
  ServiceDetailBody,
  TrendsBody,
  WashReportBody,
  WashDetailBody,
  BuyerProfileBody,
  TransactionsBody,
  FullHistoryBody,
  WashCheckBody,
};

// ------------------------------------------------------------------ datasets

/**
 * The services table's first columns: the list item of the services list (`ServiceListItem`, in its
 * order; catalog.test.ts checks the order), with their Parquet types. The pipeline step selects
 * them, the proxy's services index and the site read them from here.
 */
const SERVICE_LIST_ITEM_TYPES = {
  id: 'INTEGER',
  chain: 'VARCHAR',
  seller_address: 'VARCHAR',
  resource_url: 'VARCHAR',
  name: 'VARCHAR',
  description: 'VARCHAR',
  category: 'VARCHAR',
  price_amount: 'DOUBLE',
  first_seen: 'VARCHAR',
  tx_24h: 'INTEGER',
  volume_24h: 'DOUBLE',
  tx_total: 'INTEGER',
  real_volume_pct: 'DOUBLE',
  wash_pct: 'DOUBLE',
  label_distribution: 'JSON',
  trust_grade: 'VARCHAR',
  uptime_7d_pct: 'DOUBLE',
  latency_p50_ms: 'DOUBLE',
  latency_p99_ms: 'DOUBLE',
  payto_consistent: 'BOOLEAN',
  last_probe_at: 'VARCHAR',
} as const satisfies Record<keyof typeof ServiceListItem.shape, ColumnType>;

/** The services table's other columns: what the list filters and sorts on, and service facts other pages show. */
const SERVICE_FILTER_TYPES = {
  category_source: 'VARCHAR',
  is_placeholder: 'BOOLEAN',
  active: 'BOOLEAN',
  price_bucket: 'VARCHAR',
  name_sort: 'VARCHAR',
  search_text: 'VARCHAR',
  tx_prev_24h: 'INTEGER',
  volume_prev_24h: 'DOUBLE',
  tx_30d: 'INTEGER',
  volume_30d: 'DOUBLE',
  volume_total: 'DOUBLE',
  unique_buyers_30d: 'INTEGER',
  last_tx_at: 'VARCHAR',
  probe_live: 'BOOLEAN',
} as const;

/** The list item fields of the services list, in order: what the proxy puts in `services[]`. */
export const SERVICE_LIST_ITEM_COLUMNS = Object.keys(SERVICE_LIST_ITEM_TYPES) as (keyof typeof SERVICE_LIST_ITEM_TYPES)[];

/**
 * The shape of every analytics dataset (catalog/datasets.ts declares them): the writer checks it
 * before publishing. The free documents are served as published, so their schema is the
 * endpoint's response schema.
 */
export const ANALYTICS_DATASET_SHAPES = {
  'landing-stats': document(LandingStatsBody),
  categories: document(CategoriesBody),
  trends: document(TrendsBody),
  'wash-report': document(WashReportBody),
  'buyer-profiles': table({
    address: 'VARCHAR',
    label: 'VARCHAR',
    confidence: 'DOUBLE',
    reason: 'VARCHAR[]',
    reason_text: 'VARCHAR',
    services_used: 'JSON',
    vanity_cluster: 'JSON',
    time_pattern: 'JSON',
    evidence: 'JSON',
  }),
  buyers: table({
    address: 'VARCHAR',
    label: 'VARCHAR',
    confidence: 'DOUBLE',
    reason: 'VARCHAR[]',
    reason_text: 'VARCHAR',
    tx_count: 'INTEGER',
    volume: 'DOUBLE',
    n_sellers: 'INTEGER',
    top_service_share: 'DOUBLE',
    vanity_strict: 'BOOLEAN',
    vanity_broad: 'BOOLEAN',
    vanity_cluster_size: 'INTEGER',
    mean_interval_s: 'DOUBLE',
    interval_cv: 'DOUBLE',
    first_funder: 'VARCHAR',
    first_time: 'VARCHAR',
    last_time: 'VARCHAR',
    signals: 'JSON',
    evidence: 'JSON',
    top_seller_address: 'VARCHAR',
    top_chain: 'VARCHAR',
    top_cohort_uniform_amount: 'DOUBLE',
    top_cohort_coordinated_start: 'DOUBLE',
  }),
  'category-detail': table({
    slug: 'VARCHAR',
    category: 'JSON',
    daily_series: 'JSON',
    top_services: 'JSON',
  }),
  'full-history': table({
    category: 'VARCHAR',
    time: 'VARCHAR',
    services_count: 'INTEGER',
    volume: 'DOUBLE',
    tx_count: 'INTEGER',
    real_volume_pct: 'DOUBLE',
  }),
  operators: table({
    operator_id: 'VARCHAR',
    sellers: 'JSON',
    chains: 'JSON',
    service_ids: 'JSON',
    buyer_count: 'INTEGER',
    volume: 'DOUBLE',
    wash_volume_pct: 'DOUBLE',
    operator_wallets: 'INTEGER',
    burst_wallets: 'INTEGER',
    evidence: 'JSON',
  }),
  'service-detail': table({
    id: 'INTEGER',
    service: 'JSON',
    daily_series: 'JSON',
    top_buyers: 'JSON',
  }),
  services: table({ ...SERVICE_LIST_ITEM_TYPES, ...SERVICE_FILTER_TYPES }),
  'service-health': table({
    service_id: 'INTEGER',
    chain: 'VARCHAR',
    resource_url: 'VARCHAR',
    live: 'BOOLEAN',
    last_probe_at: 'VARCHAR',
    last_outcome: 'VARCHAR',
    probes_7d: 'INTEGER',
    uptime_7d_pct: 'DOUBLE',
    latency_p50_ms: 'DOUBLE',
    latency_p90_ms: 'DOUBLE',
    latency_p99_ms: 'DOUBLE',
    offer_network: 'VARCHAR',
    offer_scheme: 'VARCHAR',
    offer_pay_to: 'VARCHAR',
    offer_amount_usd: 'DOUBLE',
    signable: 'BOOLEAN',
    listed_pay_to: 'VARCHAR',
    listed_price_usd: 'DOUBLE',
    payto_moved: 'BOOLEAN',
    payto_moved_at: 'VARCHAR',
    payto_rotates: 'BOOLEAN',
    payto_consistent: 'BOOLEAN',
    decoy: 'BOOLEAN',
    settled_payments_30d: 'INTEGER',
    price_drift_pct: 'DOUBLE',
    price_trap: 'BOOLEAN',
    flags: 'JSON',
    grade: 'VARCHAR',
    grade_score: 'DOUBLE',
    evidence: 'JSON',
    recommendation: 'VARCHAR',
    daily_7d: 'JSON',
    seller_grade: 'VARCHAR',
    seller_evidence: 'JSON',
  }),
  transactions: table({
    service_id: 'INTEGER',
    tx_hash: 'VARCHAR',
    chain: 'VARCHAR',
    buyer: 'VARCHAR',
    amount: 'DOUBLE',
    time: 'VARCHAR',
    total: 'INTEGER',
  }),
  'wash-check-sellers': table({
    seller_address: 'VARCHAR',
    payments: 'BIGINT',
    label: 'VARCHAR',
    confidence: 'DOUBLE',
    wash_share: 'DOUBLE',
    uniform_amount: 'DOUBLE',
    coordinated_start: 'DOUBLE',
    vanity_strict: 'BOOLEAN',
    vanity_broad: 'BOOLEAN',
    flags: 'STRUCT("chain" VARCHAR, flags VARCHAR[])[]',
    evidence: 'JSON',
  }),
  'wash-detail': table({
    service_id: 'INTEGER',
    buyers: 'JSON',
    cohort_summary: 'JSON',
  }),
} satisfies Record<string, DatasetShape>;

export type AnalyticsDatasetName = keyof typeof ANALYTICS_DATASET_SHAPES;
type AnalyticsTables = {
  [N in AnalyticsDatasetName as (typeof ANALYTICS_DATASET_SHAPES)[N] extends { kind: 'table' }
    ? N
    : never]: (typeof ANALYTICS_DATASET_SHAPES)[N];
};
/** A column name of an analytics table, checked at compile time: `ColumnOf<'services'>`. */
export type ColumnOf<N extends keyof AnalyticsTables> = keyof AnalyticsTables[N]['columns'] & string;
/** The columns of an analytics table, in file order. */
export const columnsOf = <N extends keyof AnalyticsTables>(name: N): ColumnOf<N>[] =>
  Object.keys(ANALYTICS_DATASET_SHAPES[name].columns) as ColumnOf<N>[];

/**
 * A SELECT list of columns of an analytics table, checked against its declaration at compile time
 * (a renamed column fails every reader's build). `jsonAsText` reads the columns declared JSON as
 * VARCHAR, for a reader that parses them itself.
 */
export function selectList<N extends keyof AnalyticsTables>(
  table: N,
  columns: readonly ColumnOf<N>[],
  options: { jsonAsText?: boolean } = {},
): string {
  const types: TableColumns = ANALYTICS_DATASET_SHAPES[table].columns;
  return columns.map((c) => (options.jsonAsText && types[c] === 'JSON' ? `${c}::VARCHAR AS ${c}` : c)).join(', ');
}

// ------------------------------------------------------------------ endpoints

const analytics = (decl: Omit<EndpointDecl, 'service'>): EndpointDecl => ({ service: 'analytics', ...decl });
const freeData = (decl: Omit<EndpointDecl, 'service' | 'access' | 'rateLimited' | 'cacheTtlSeconds'>): EndpointDecl =>
  analytics({ ...decl, access: 'free', rateLimited: true, cacheTtlSeconds: 300 });
/** A paid endpoint: the price is written once, in `priceUsd`; the description's price line is made from it. */
const paid = (decl: PaidEndpointInput): EndpointDecl =>
  analytics({
    ...decl,
    description: decl.description + ` Price: ${decl.priceUsd} USD per call, paid with x402 in USDC on ${usdcNetworksText('analytics')}.`,
    ...(decl.mcpTool ? { mcpTool: { ...decl.mcpTool, description: `${decl.mcpTool.description} Paid: ${decl.priceUsd} USD.` } } : {}),
    access: 'paid',
  });

const CATEGORY_COUNT_TEXT = `${CATEGORIES.length} categories`;

export const ANALYTICS_ENDPOINTS: EndpointDecl[] = [
  // ---------------------------------------------------------------- free data (rate limited)
  freeData({
    id: 'landing-stats',
    method: 'GET',
    path: '/api/v1/landing-stats',
    summary: 'Market overview: services, transactions, buyers, real volume share.',
    description:
      'Market overview of x402 pay-per-call services: services indexed, transactions analysed, active buyers, the share of volume judged real, the label distribution, daily volume per category and new services per day over 30 days.' +
      LABELS_NOTE +
      DATA_NOTE +
      FREE_NOTE,
    response: LandingStatsBody,
    dataset: 'landing-stats',
  }),
  freeData({
    id: 'categories.list',
    method: 'GET',
    path: '/api/v1/categories',
    summary: `All ${CATEGORY_COUNT_TEXT} with statistics.`,
    description:
      `All ${CATEGORY_COUNT_TEXT} (empty ones included) with services count, active services, 24-hour and all-time transactions, 24-hour volume, real and wash volume shares and median price.` +
      LABELS_NOTE +
      DATA_NOTE +
      FREE_NOTE,
    response: CategoriesBody,
    dataset: 'categories',
    mcpTool: {
      name: 'x402_get_categories',
      description: 'List all x402 service categories with services count, volume, transactions and real vs wash volume share. Free.',
    },
  }),
  freeData({
    id: 'categories.detail',
    method: 'GET',
    path: '/api/v1/categories/:slug',
    summary: 'One category: statistics, 30-day daily series, top services.',
    description:
      "One category's statistics, its daily series over the last 30 days (transactions, volume, real volume share, active and new services) and its top 10 services by 24-hour transactions." +
      LABELS_NOTE +
      DATA_NOTE +
      FREE_NOTE,
    pathParams: SlugPath,
    response: CategoryDetailBody,
    dataset: 'category-detail',
  }),
  freeData({
    id: 'services.list',
    method: 'GET',
    path: '/api/v1/services',
    summary: 'Search, filter, sort and page through indexed services.',
    description:
      'Paginated list of indexed x402 services. Filters: search (text in name, description or URL), category, chain, price_bucket, min_real_pct, max_wash_pct, active_only, show_placeholder (placeholders and test resources are hidden by default). ' +
      'Sort by tx_24h (default), volume_24h, tx_total, price_amount, real_volume_pct, wash_pct, first_seen or name, desc by default; ties by id. ' +
      '`summary` totals everything that matches, `filters_applied` echoes every filter with defaults filled in and absent ones null. page_size is 1 to 200 (default 50). ' +
      '`chain_coverage` says which chains live indexing reads and through which facilitators (only facilitator-settled payments count).' +
      LABELS_NOTE +
      DATA_NOTE +
      FREE_NOTE,
    query: ServicesQuery,
    response: ServicesListBody,
    dataset: 'services',
    mcpTool: {
      name: 'x402_search_services',
      description:
        'Search indexed x402 services by text, category, chain, price bucket, real/wash share and activity; sorted and paginated. Free.',
    },
  }),
  freeData({
    id: 'services.detail',
    method: 'GET',
    path: '/api/v1/services/:id',
    summary: 'One service: statistics, 30-day series, top buyers, label distribution.',
    description:
      'One indexed service: its list fields (including the label distribution) plus all-time volume, 30-day unique buyers and last transaction, a daily series over the last 30 days, and its top 10 buyers by volume. An id that is not indexed gets 404.' +
      LABELS_NOTE +
      DATA_NOTE +
      FREE_NOTE,
    pathParams: IdPath,
    response: ServiceDetailBody,
    dataset: 'service-detail',
    mcpTool: {
      name: 'x402_get_service',
      description: 'Get one indexed x402 service by id: statistics, 30-day series, top buyers and buyer label distribution. Free.',
    },
  }),
  freeData({
    id: 'trends',
    method: 'GET',
    path: '/api/v1/trends',
    summary: '24-hour trends: new services, category movers, hot services.',
    description:
      'The last 24 hours against the 24 hours before: new services, transactions, volume and active buyers; new services per day over 15 days; the 10 newest services; category volume movers; and the 10 services with the largest transaction growth.' +
      DATA_NOTE +
      FREE_NOTE,
    response: TrendsBody,
    dataset: 'trends',
    mcpTool: {
      name: 'x402_get_trends',
      description: 'Get 24-hour x402 market trends: new services, hot services and category movers. Free.',
    },
  }),
  freeData({
    id: 'wash-report',
    method: 'GET',
    path: '/api/v1/wash-report',
    summary: 'Aggregate wash patterns and anonymised case studies.',
    description:
      'How much x402 traffic looks like wash trading and how: totals, the label distribution, aggregate patterns, each counting the wash wallets that show it (rings, round trips of funds, single-payer concentration, funding loops, vanity-address clusters, common funders, coordinated and synchronised starts, identical amounts, uniform transaction counts, freshly funded wallets, camouflage payments), anonymised case studies and the wash share per category. Per-address analysis is the paid POST /api/v1/wash/check.' +
      LABELS_NOTE +
      DATA_NOTE +
      FREE_NOTE,
    response: WashReportBody,
    dataset: 'wash-report',
    mcpTool: {
      name: 'x402_check_wash',
      description:
        'Get the aggregate wash-trading report for x402 services (patterns, case studies, wash share per category). Per-address analysis is only available through the paid wash check. Free.',
    },
  }),

  // ---------------------------------------------------------------- free, not rate limited
  analytics({
    id: 'health',
    method: 'GET',
    path: '/health',
    summary: 'Service health and data freshness.',
    description:
      'Whether the service has data and how fresh each dataset is (`stale` when older than three update intervals, at least 10 minutes), which snapshot version is served and whether it holds demo data, and the settlement mode (local: payments verified, no funds move), with every problem in words. Status 503 while no snapshot is published. Not cached, not rate limited.',
    access: 'free',
    cacheTtlSeconds: 0,
    response: HealthBody,
    dataset: null,
  }),
  analytics({
    id: 'well-known-x402',
    method: 'GET',
    path: '/.well-known/x402',
    summary: 'x402 discovery manifest.',
    description:
      'x402scan-compatible discovery document: `version` 1 with `resources`, the absolute URLs of the paid resources a client can call as they are (POST /api/v1/wash/check; the templated paths need an id first), and `items`, every paid resource with its method, routeTemplate, path parameters and example body (x402 foundation discovery draft); instructions for agents, and `receipt_signer.public_key`, the key that signs every paid receipt.',
    access: 'free',
    cacheTtlSeconds: 300,
    response: WellKnownX402Body,
    dataset: null,
  }),
  analytics({
    id: 'llms-txt',
    method: 'GET',
    path: '/llms.txt',
    summary: 'Plain-text summary for language models.',
    description:
      'Plain-text description of the service for language models and agents: each endpoint, its parameters and price, the labels, and how to pay.',
    access: 'free',
    cacheTtlSeconds: 300,
    response: PlainText,
    dataset: null,
    contentType: 'text/plain',
  }),

  // ---------------------------------------------------------------- paid
  paid({
    id: 'services.wash-detail',
    tags: ['x402', 'analytics', 'wash-trading', 'buyers'],
    method: 'GET',
    path: '/api/v1/services/:id/wash-detail',
    summary: 'Top 50 buyers of a service with label, confidence and signals.',
    description:
      'The top 50 buyers of one service by 30-day volume, each with label, confidence, signal breakdown, transaction count, volume and first and last transaction, plus the cohort signals over all its buyers. An id that is not indexed gets 404 before any payment is asked.' +
      LABELS_NOTE +
      DATA_NOTE,
    priceUsd: '0.005',
    cacheTtlSeconds: 300,
    pathParams: IdPath,
    response: WashDetailBody,
    dataset: 'wash-detail',
  }),
  paid({
    id: 'services.preflight',
    tags: ['x402', 'analytics', 'trust', 'services'],
    method: 'GET',
    path: '/api/v1/services/:id/preflight',
    summary: 'Before you pay a service: is it up, is its offer honest, and its trust grade A-F with the evidence.',
    description:
      "One service's check before paying it: live or not (unpaid probes every 10 minutes, 7-day uptime and latency p50/p90/p99), the offer it answers with, whether its payTo is where its payments settle and whether it moved, the price against what payments settled at, flags (dead, flaky, slow, unsignable, moved_payout, rotating_payto, decoy, price_trap), a trust grade A-F with every fact it rests on (null with 'not enough evidence' when there is too little) and a recommendation: pay, caution or avoid. The same data is free in bulk as the service-health dataset; this is one service, now. An id that is not indexed gets 404 before any payment is asked." +
      DATA_NOTE,
    priceUsd: '0.001',
    cacheTtlSeconds: 300,
    pathParams: IdPath,
    response: PreflightBody,
    dataset: 'service-health',
    mcpTool: {
      name: 'x402_preflight',
      description:
        'Check an x402 service before paying it: live, 7-day uptime and latency, its offer, payTo integrity, price drift, flags and a trust grade A-F with evidence and a pay/caution/avoid recommendation.',
    },
  }),
  paid({
    id: 'buyers.profile',
    tags: ['x402', 'analytics', 'wallets', 'buyers'],
    method: 'GET',
    path: '/api/v1/buyers/:address/profile',
    summary: 'One buyer wallet: label, reasons, services used, vanity cluster, timing.',
    description:
      'Classification of one buyer wallet: label, confidence, the signals behind it, services it paid, its vanity-address cluster and the timing of its transactions. An address the index has never seen as a buyer gets 404 before any payment is asked (use POST /api/v1/wash/check for any address).' +
      LABELS_NOTE +
      DATA_NOTE,
    priceUsd: '0.005',
    cacheTtlSeconds: 300,
    pathParams: AddressPath,
    response: BuyerProfileBody,
    dataset: 'buyer-profiles',
  }),
  paid({
    id: 'services.transactions',
    tags: ['x402', 'analytics', 'transactions', 'payments'],
    method: 'GET',
    path: '/api/v1/services/:id/transactions',
    summary: 'Raw 30-day payment list of a service (up to about 3000 rows).',
    description:
      'The payments to one service over the last 30 days, newest first, up to 3000 rows: transaction hash, chain, buyer, amount in USDC and time; `total` counts the whole window. An id that is not indexed gets 404 before any payment is asked.' +
      DATA_NOTE,
    priceUsd: '0.01',
    cacheTtlSeconds: 300,
    pathParams: IdPath,
    response: TransactionsBody,
    dataset: 'transactions',
  }),
  paid({
    id: 'categories.full-history',
    tags: ['x402', 'analytics', 'categories', 'history'],
    method: 'GET',
    path: '/api/v1/categories/:slug/full-history',
    summary: '365-day hourly series of a category (about 8760 rows).',
    description:
      'Hourly series of one category over the last 365 days (about 8760 points, oldest first): active services, volume, transactions and real volume share per hour.' +
      LABELS_NOTE +
      DATA_NOTE,
    priceUsd: '0.02',
    cacheTtlSeconds: 300,
    pathParams: SlugPath,
    response: FullHistoryBody,
    dataset: 'full-history',
  }),
  paid({
    id: 'wash.check',
    tags: ['x402', 'analytics', 'wash-trading', 'wallets'],
    method: 'POST',
    path: '/api/v1/wash/check',
    summary: 'Wash analysis of any wallet or seller address, answered on each request from the latest run.',
    description:
      'Answers for any wallet or seller address on each request (not cached) from the latest snapshot: a wallet that paid gets the wash classifier\'s label for it as of that run (computed from all of its payments and the day state\'s cohort evidence), a seller that never paid the 30-day-volume-weighted vote of its payers\' pair labels; `basis` says which view was used and as of when: label, confidence, vanity, cohort and concentration signals, and anonymised wallet groups with a similar pattern. An address without transactions gets label unlabeled with confidence 0. Send JSON {"address": "..."} with Content-Type: application/json.' +
      LABELS_NOTE +
      DATA_NOTE,
    priceUsd: '0.05',
    cacheTtlSeconds: 0,
    body: WashCheckRequest,
    response: WashCheckBody,
    dataset: 'buyers',
  }),
];
