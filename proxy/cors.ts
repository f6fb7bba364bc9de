/** CORS for both services: any origin may call, send the x402 headers and read the payment, receipt and rate-limit headers. */
export const CORS_EXPOSE = [
  'PAYMENT-REQUIRED',
  'PAYMENT-RESPONSE',
  'X-PAYMENT-RESPONSE',
  'X-Receipt',
  'ETag',
  'Retry-After',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'RateLimit-Policy',
  'X-Snapshot-Version',
  'Mcp-Session-Id',
  'Mcp-Protocol-Version',
].join(', ');

export const CORS_PREFLIGHT: Record<string, string> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, HEAD, POST, OPTIONS',
  'Access-Control-Allow-Headers':
    'Content-Type, X-PAYMENT, PAYMENT-SIGNATURE, If-None-Match, Authorization, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID',
  'Access-Control-Expose-Headers': CORS_EXPOSE,
  'Access-Control-Max-Age': '600',
  Vary: 'Access-Control-Request-Headers',
};
