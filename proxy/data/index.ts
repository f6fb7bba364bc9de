/** The data handlers of each service, by endpoint id. */
import type { ServiceName } from '../../catalog/types.ts';
import { analyticsHandlers, type AnalyticsHandlerOptions } from './analytics.ts';
import { koreaHandlers } from './korea.ts';
import type { DataHandlers } from './types.ts';

export type HandlerOptions = AnalyticsHandlerOptions;

export function handlersFor(service: ServiceName, options: HandlerOptions): DataHandlers {
  return service === 'korea' ? koreaHandlers : analyticsHandlers(options);
}
