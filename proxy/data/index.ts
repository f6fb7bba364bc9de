/** The data handlers of each service, by endpoint id. */
import type { ServiceName } from '../../catalog/types.ts';
import { analyticsHandlers } from './analytics.ts';
import { koreaHandlers } from './korea.ts';
import type { DataHandlers } from './types.ts';

export function handlersFor(service: ServiceName): DataHandlers {
  return service === 'korea' ? koreaHandlers : analyticsHandlers;
}
