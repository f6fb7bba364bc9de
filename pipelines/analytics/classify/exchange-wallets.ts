/**
 * The `exchange_wallets` warehouse table: labelled exchange (CEX) hot wallets. Funding analysis
 * stops at them (research 3.1: otherwise every Coinbase-withdrawal user clusters together). Each
 * source fills it from its own list: the demo world from X402_EXCHANGE_WALLETS, live and file
 * sources from a label file in the same shape.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { RawTable, SourceKind } from '../../../sources/raw-tables.ts';
import { X402_EXCHANGE_WALLETS } from '../../../sources/demo/x402-world.ts';
import { appendRows } from '../../warehouse.ts';

export const EXCHANGE_WALLETS_TABLE: RawTable = {
  service: 'analytics',
  name: 'exchange_wallets',
  description: 'Labelled exchange hot wallets (withdrawals to users); the classifier never treats a shared exchange funder as a cohort.',
  columns: [
    ['address', 'VARCHAR'], // EVM lower-case 0x…, Solana base58 as is
    ['family', 'VARCHAR'], // evm | solana
    ['name', 'VARCHAR'], // e.g. coinbase-hot-1
    ['source', 'VARCHAR'],
  ],
};

export interface ExchangeWallet {
  address: string;
  family: 'evm' | 'solana';
  name: string;
}

/** (Re)creates exchange_wallets with `wallets`; returns the row count. */
export async function writeExchangeWallets(
  connection: DuckDBConnection,
  wallets: readonly ExchangeWallet[],
  source: SourceKind,
): Promise<number> {
  const rows = wallets.map((w) => {
    if (!w.address) throw new Error(`exchange_wallets: wallet "${w.name}" has no address`);
    const address = /^0x[0-9a-fA-F]{40}$/.test(w.address) ? w.address.toLowerCase() : w.address;
    return [address, w.family, w.name, source];
  });
  return appendRows(connection, EXCHANGE_WALLETS_TABLE, rows, { create: true });
}

/** The demo world's exchange list (its addresses do not depend on the seed). */
export function demoExchangeWallets(): ExchangeWallet[] {
  return X402_EXCHANGE_WALLETS.map((w) => ({ address: w.address, family: w.family, name: w.name }));
}
