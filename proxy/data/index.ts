/** The data handlers of each service, by endpoint id. */
import type { ServiceName } from '../../catalog/types.ts';
import { analyticsHandlers, type AnalyticsHandlerOptions } from './analytics.ts';
import { koreaHandlers } from './korea.ts';
import type { DataHandlers } from './types.ts';

/** `options` configure the analytics handlers (the korea ones take none). */
export function handlersFor(service: ServiceName, options: AnalyticsHandlerOptions): DataHandlers {
  return service === 'korea' ? koreaHandlers : analyticsHandlers(options);
}
