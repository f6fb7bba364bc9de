/**
 * What of a service's warehouse cannot be recomputed, and so is backed up (docs/backup.md has the
 * whole list, with what is left out and why). Everything else the warehouse holds is rewritten by
 * every run (raw tables), derived from what is here (the analytics day state, the rollups), or
 * fetched again from an upstream that keeps it (FRED's macro series).
 */
import type { ServiceName } from '../../catalog/types.ts';
import { SEGMENTS_DIR } from '../../sources/segments.ts';

export interface DurableTable {
  name: string;
  /** Why a run cannot make it again. */
  why: string;
}

export interface DurablePart {
  tables: readonly DurableTable[];
  /**
   * Folders beside the warehouse file whose files the backup copies as they are, named by the
   * ledger (`import_ledger.segment`): only committed files, never a half-written one.
   */
  ledgerFiles: { dir: string; ledgerTable: string } | null;
}

const archive = (interval: string): DurableTable => ({
  name: `premium_${interval}`,
  why: 'the premium archive: observed minutes rolled up; no upstream keeps a history of the premium',
});

export const DURABLE: Record<ServiceName, DurablePart> = {
  korea: {
    tables: [
      archive('1m'),
      archive('1h'),
      archive('1d'),
      { name: 'premium_archive_dropped', why: 'every point the one-off repair removed, with the refusal: the only record of it' },
      { name: 'premium_archive_repairs', why: 'that the one-off repair ran; the snapshots it read are gone after a loss' },
      { name: 'market_tracking', why: 'since when each exchange was observed: the exchange alerts compare against it' },
      { name: 'market_listing_history', why: 'first and last sighting of every market; exchanges publish only the current list' },
      { name: 'market_listing_events', why: 'listings and delistings seen (90 days): not in any upstream' },
      { name: 'market_flag_history', why: 'caution flag episodes seen (90 days): not in any upstream' },
      { name: 'news_store', why: "articles' first-seen times, translations and summaries paid for; feeds keep only their latest items" },
      { name: 'analyst_cache', why: 'model answers paid for, keyed by their inputs: lost, each is paid for again' },
      { name: 'analyst_calls', why: 'model calls and their cost: the daily budget counts them' },
      { name: 'korea_input_last_good', why: 'the last accepted value of each input, which the plausibility guard holds new ones against' },
    ],
    ledgerFiles: null,
  },
  analytics: {
    tables: [
      { name: 'import_ledger', why: 'the payment segments: which file holds which run, its sha256 and counts' },
      { name: 'file_payment_keys', why: 'keys of the imported payments: a file imported again is not counted twice' },
      { name: 'live_payment_keys', why: 'keys of the indexed payments in segments' },
      { name: 'live_funding_keys', why: 'keys of the indexed funding in segments' },
      { name: 'live_segment_marks', why: 'where each indexer stood when the last segment was cut' },
      { name: 'live_evm_settlements', why: "the EVM indexer's kept history: segments are cut from it, and must add up to it" },
      { name: 'live_solana_settlements', why: "the Solana indexer's kept history (as live_evm_settlements)" },
      { name: 'live_wallet_funding', why: "the funding indexer's kept history (as live_evm_settlements)" },
      { name: 'live_funding_checked', why: 'buyers whose funding was already looked up (an RPC walk each)' },
      { name: 'evm_checkpoint', why: "the EVM indexer's checkpoint per chain: lost, it starts again from its window's start" },
      { name: 'solana_checkpoint', why: "the Solana indexer's checkpoint per relayer" },
      { name: 'discovery_seen', why: 'when each listing was first seen: the discovery API says only what is listed now' },
      { name: 'discovery_payees', why: 'every payTo a listing ever named: the indexers keep counting a payee that left the listings' },
      { name: 'discovery_inputs', why: 'the method each listing declares, for the prober' },
      { name: 'service_registry', why: 'service ids: lost, services are numbered again and every id in the API moves' },
      { name: 'live_probes', why: 'the unpaid probe rounds (8 days): the past cannot be probed again' },
      { name: 'category_hourly', why: 'the 365-day hourly series: kept because a source may bring only recent payments' },
    ],
    ledgerFiles: { dir: SEGMENTS_DIR, ledgerTable: 'import_ledger' },
  },
};

/** The scheduler's state beside the warehouses (pipelines/schedule.ts): each entry's last completed slot. */
export const SCHEDULE_STATE_FILE = 'schedule-state.json';
