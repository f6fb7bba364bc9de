/**
 * The korea market datasets, one step each, in run order. stats comes last: it reports the
 * datasets written before it in the run.
 */
import type { DatasetStep } from '../runner.ts';
import { arbitrageScannerStep } from './arbitrage-scanner.ts';
import { exchangeAlertsStep } from './exchange-alerts.ts';
import { fxRateStep } from './fx-rate.ts';
import { kimchiPremiumStep } from './kimchi-premium.ts';
import { krPricesStep } from './kr-prices.ts';
import { krwMacroStressStep } from './krw-macro-stress.ts';
import { marketMoversStep } from './market-movers.ts';
import { stablecoinPremiumStep } from './stablecoin-premium.ts';
import { statsStep } from './stats.ts';
import { symbolsStep } from './symbols.ts';

export const koreaDatasetSteps: DatasetStep[] = [
  krPricesStep,
  fxRateStep,
  kimchiPremiumStep,
  stablecoinPremiumStep,
  arbitrageScannerStep,
  exchangeAlertsStep,
  marketMoversStep,
  krwMacroStressStep,
  symbolsStep,
  statsStep,
];
