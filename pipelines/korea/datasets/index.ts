/**
 * The korea datasets, one step each, in run order: the market datasets, then the AI products that
 * read them, then symbols, and stats last (it reports the datasets written before it in the run).
 * Each step declares the guarded inputs it reads (`reads`); a step one of whose inputs the
 * plausibility check refused fails with the reason, and keeps its last good version
 * (plausibility.ts). reads.test.ts holds every step to its declaration.
 */
import type { DatasetStep } from '../../runner.ts';
import type { KoreaDatasetStep } from '../sql.ts';
import { premiumArchiveSteps } from '../archive.ts';
import { aiProductSteps } from './ai-products.ts';
import { arbitrageExecutableStep, orderBooksStep } from './arbitrage-executable.ts';
import { arbitrageScannerStep } from './arbitrage-scanner.ts';
import { exchangeAlertsStep } from './exchange-alerts.ts';
import { fxRateStep } from './fx-rate.ts';
import { kimchiPremiumStep } from './kimchi-premium.ts';
import { kimchiPremiumDailyStep } from './kimchi-premium-daily.ts';
import { krPricesStep } from './kr-prices.ts';
import { krwMacroStressStep } from './krw-macro-stress.ts';
import { marketMoversStep } from './market-movers.ts';
import { guardedByPlausibility } from '../plausibility.ts';
import { stablecoinPremiumStep } from './stablecoin-premium.ts';
import { statsStep } from './stats.ts';
import { symbolsStep } from './symbols.ts';

/** The steps as declared, unguarded (reads.test.ts runs them as they are). */
export const KOREA_DATASET_STEPS: readonly KoreaDatasetStep[] = [
  krPricesStep,
  fxRateStep,
  kimchiPremiumStep,
  // the archive: this run's premiums recorded in the warehouse, its three datasets published
  ...premiumArchiveSteps,
  // the free daily preview: the archive's closed days, one day delayed
  kimchiPremiumDailyStep,
  stablecoinPremiumStep,
  // the executable premium before the scanner, whose rows carry its best route
  orderBooksStep,
  arbitrageExecutableStep,
  arbitrageScannerStep,
  exchangeAlertsStep,
  marketMoversStep,
  krwMacroStressStep,
  // kr-news-kpop, kr-news-semiconductor, kr-sentiment, market-read, divergence: read the documents above
  ...aiProductSteps,
  symbolsStep,
  statsStep,
];

/** The steps the pipeline runs: each refused while an input it reads is. */
export const koreaDatasetSteps: DatasetStep[] = KOREA_DATASET_STEPS.map(guardedByPlausibility);
