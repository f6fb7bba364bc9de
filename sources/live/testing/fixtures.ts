/** The recorded upstream payloads under sources/live/analytics/fixtures (tests serve them on loopback, lib/testing/loopback.ts). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const FIXTURES = join(import.meta.dirname, '..', 'analytics', 'fixtures');

/** A fixture file under sources/live/analytics/fixtures, parsed as JSON. */
export function fixture<T = unknown>(name: string): T {
  return JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as T;
}
