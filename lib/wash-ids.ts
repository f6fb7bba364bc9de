/**
 * How the wash check names wallets and wallet groups: an address in the one form the analytics
 * datasets key it by, and the anonymous id of a pattern (a cohort or cluster of wallets) that
 * lets a client tell two answers point at the same group without learning who is in it.
 */
import { createHash, randomBytes } from 'node:crypto';

/** Addresses are base58 or 0x-hex; anything else is rejected before it reaches SQL. EVM addresses are keyed lower-case. */
export function normalizeAddress(input: string): string {
  const a = input.trim();
  if (!/^(0x[0-9a-fA-F]{40}|[1-9A-HJ-NP-Za-km-z]{32,44})$/.test(a)) {
    throw new Error(`wash check: "${input.slice(0, 80)}" is not an address (0x + 40 hex characters, or a 32-44 character base58 key)`);
  }
  return a.startsWith('0x') ? a.toLowerCase() : a;
}

const PROCESS_SALT = randomBytes(16).toString('hex');

/**
 * The salt of anonymous pattern ids: the configured one (WASH_PATTERN_SALT), else one random salt
 * per process, so ids are then stable only within the process. Without a secret salt an id could
 * be matched against ids computed from public seller addresses.
 */
export function patternSalt(configured: string | null): string {
  return configured ?? PROCESS_SALT;
}

/** Anonymous id of a wallet group (pattern type + group key), stable for one salt. */
export function anonymousId(salt: string, patternType: string, key: string): string {
  return createHash('sha256').update(`${salt}\u0000${patternType}\u0000${key}`).digest('hex').slice(0, 16);
}
