/**
 * Test support for CDP facilitator credentials: a throwaway CDP Secret API key made per test run
 * (Ed25519 as the CDP portal gives it, base64 of seed and public key; or an EC P-256 key as a
 * "BEGIN EC PRIVATE KEY" PEM), and the check a CDP facilitator makes of each call's JWT, against
 * the key's public half: algorithm and key id, signature, issuer and subject, the `uris` claim
 * naming this call's method, host and path, and the time window. No real key is ever committed.
 */
import { generateKeyPairSync, type KeyObject, verify } from 'node:crypto';
import type { RecordedRequest } from '../../lib/testing/loopback.ts';

export interface ThrowawayCdpKey {
  apiKeyId: string;
  /** As CDP_API_KEY_SECRET takes it. */
  apiKeySecret: string;
  publicKey: KeyObject;
  alg: 'EdDSA' | 'ES256';
}

export function throwawayCdpKey(kind: 'ed25519' | 'ec' = 'ed25519'): ThrowawayCdpKey {
  const apiKeyId = `organizations/test-org/apiKeys/test-${kind}-${Math.random().toString(36).slice(2, 10)}`;
  if (kind === 'ec') {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    return { apiKeyId, apiKeySecret: privateKey.export({ type: 'sec1', format: 'pem' }).toString(), publicKey, alg: 'ES256' };
  }
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  const secret = Buffer.concat([Buffer.from(jwk.d!, 'base64url'), Buffer.from(jwk.x!, 'base64url')]).toString('base64');
  return { apiKeyId, apiKeySecret: secret, publicKey, alg: 'EdDSA' };
}

/** The claims of a JWT, without checking anything (to look at what a test received). */
export function jwtClaims(authorization: string): Record<string, unknown> {
  const token = authorization.replace(/^Bearer /, '');
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
}

/**
 * Checks a request's `Authorization: Bearer <JWT>` as CDP would for `key`, the facilitator being
 * reached at `host` (host[:port]); null = good, else why it is refused. `nowSeconds`: the clock.
 */
export function checkCdpJwt(
  req: RecordedRequest,
  key: Pick<ThrowawayCdpKey, 'apiKeyId' | 'publicKey' | 'alg'>,
  host: string,
  nowSeconds: () => number = () => Math.floor(Date.now() / 1000),
): string | null {
  const auth = req.headers.authorization;
  if (typeof auth !== 'string' || !auth.startsWith('Bearer ')) return 'no bearer token';
  const parts = auth.slice('Bearer '.length).split('.');
  if (parts.length !== 3) return 'not a JWT';
  const [head, body, signature] = parts as [string, string, string];
  let header: { alg?: string; kid?: string; nonce?: string };
  let claims: { iss?: string; sub?: string; uris?: unknown; iat?: number; nbf?: number; exp?: number };
  try {
    header = JSON.parse(Buffer.from(head, 'base64url').toString('utf8'));
    claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return 'not a JWT';
  }
  if (header.alg !== key.alg) return `alg ${header.alg}, expected ${key.alg}`;
  if (header.kid !== key.apiKeyId) return 'unknown key id';
  const signed = Buffer.from(`${head}.${body}`);
  const sig = Buffer.from(signature, 'base64url');
  const good =
    key.alg === 'EdDSA'
      ? verify(null, signed, key.publicKey, sig)
      : verify('sha256', signed, { key: key.publicKey, dsaEncoding: 'ieee-p1363' }, sig);
  if (!good) return 'bad signature';
  if (claims.iss !== 'cdp' || claims.sub !== key.apiKeyId) return 'wrong issuer or subject';
  const uri = `${req.method} ${host}${req.path}`;
  if (!Array.isArray(claims.uris) || claims.uris.length !== 1 || claims.uris[0] !== uri)
    return `uris ${JSON.stringify(claims.uris)}, expected ["${uri}"]`;
  const now = nowSeconds();
  if (typeof claims.exp !== 'number' || claims.exp <= now) return 'expired';
  if (typeof claims.nbf !== 'number' || claims.nbf > now + 5) return 'not yet valid';
  if (typeof claims.iat !== 'number' || claims.exp - claims.iat > 120) return 'lives longer than 120 s';
  return null;
}
