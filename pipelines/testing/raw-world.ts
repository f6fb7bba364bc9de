/**
 * A hand-made world in the raw tables' layout (x402_services, x402_transactions, wallet_funding,
 * exchange_wallets) for the classifier's tests (classifier/*.test.ts): a listing, a payment, a funding transfer, an
 * exchange address, then loaded into a connection as a source would fill them.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { appendRows, type Row } from '../../lib/duckdb.ts';
import { RAW_TABLES } from '../../sources/raw-tables.ts';

export class RawWorld {
  services: Row[] = [];
  tx: Row[] = [];
  funding: Row[] = [];
  exchanges: Row[] = [];
  private n = 0;

  /** Lists a service of `seller` and returns its URL. */
  service(seller: string, category: string, price: number, firstSeen: number, name = 'svc'): string {
    const url = `https://${seller.slice(2, 10)}.example/${name}/${this.services.length}`;
    this.services.push(['base', seller, url, name, '', category, price, new Date(firstSeen), 'file']);
    return url;
  }

  pay(buyer: string, seller: string, url: string, amount: number, time: number): void {
    this.tx.push([
      `0x${(this.n++).toString(16).padStart(64, '0')}`,
      'base',
      buyer,
      seller,
      amount,
      new Date(Math.floor(time)),
      url,
      'relayer',
      'file',
    ]);
  }

  fund(address: string, funder: string, amount: number, time: number): void {
    this.funding.push([address, funder, amount, new Date(Math.floor(time)), 'file']);
  }

  exchange(address: string, name = 'test-exchange'): void {
    this.exchanges.push([address, name, 'file']);
  }

  /** The four raw tables, created in `c`. */
  async load(c: DuckDBConnection): Promise<void> {
    await appendRows(c, RAW_TABLES.x402_services, this.services, { create: true });
    await appendRows(c, RAW_TABLES.x402_transactions, this.tx, { create: true });
    await appendRows(c, RAW_TABLES.wallet_funding, this.funding, { create: true });
    await appendRows(c, RAW_TABLES.exchange_wallets, this.exchanges, { create: true });
  }
}
