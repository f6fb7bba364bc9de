/** The 25 symbols the divergence endpoints support, in the contract's order (docs/services.md, "Divergence symbols"). */
export const DIVERGENCE_SYMBOLS = [
  'BTC', 'ETH', 'XRP', 'SOL', 'ADA', 'DOGE', 'DOT', 'MATIC', 'LINK', 'AVAX', 'ATOM', 'UNI', 'LTC',
  'NEAR', 'OP', 'ARB', 'APT', 'ALGO', 'FTM', 'SUI', 'TRX', 'BCH', 'ETC', 'HBAR', 'SHIB',
] as const;
export type DivergenceSymbol = (typeof DIVERGENCE_SYMBOLS)[number];
