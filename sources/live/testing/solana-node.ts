/**
 * A Solana RPC node for tests, answering from the recorded fixtures: getSignaturesForAddress
 * pages the recorded list the way the RPC does (newest first, `before` / `until` / `limit`), with
 * only the first `visible` signatures of history existing yet; getTransaction answers from the
 * recorded jsonParsed transactions. Other relayers have no history.
 */
import { rpcResult, type RecordedRequest, type Route } from '../../../lib/testing/loopback.ts';
import { fixture } from './fixtures.ts';

export interface SignatureInfo {
  signature: string;
  slot: number;
}

export interface SolanaNodeState {
  /** How many of the recorded signatures exist (oldest first), to add history between runs. */
  visible: number;
  /** Other addresses' histories (newest first), e.g. a payTo's token account. */
  histories?: Record<string, SignatureInfo[]>;
  /** Transactions beyond the recorded ones, by signature. */
  transactions?: Record<string, unknown>;
}

export interface SolanaFixtureIndex {
  relayer: string;
  buyers: string[];
  sellers: string[];
  signatures: Record<'settlement' | 'relayerSweep' | 'innerTransfer' | 'failed' | 'notRelayerPaid' | 'later', string>;
}

export const solanaFixtureIndex = (): SolanaFixtureIndex => fixture<SolanaFixtureIndex>('solana-fixture-index.json');

/** The files a node answers from (under sources/live/analytics/fixtures): one relayer's signatures and the transactions. */
export interface SolanaNodeFiles {
  relayer: string;
  signatures: string;
  transactions: string;
}

/** Real recorded Solana payloads (fixtures/real/SOURCES.md): one settlement paid for by Coinbase's BENrLoUb… relayer. */
export const REAL_SOLANA_FILES: SolanaNodeFiles = {
  relayer: 'BENrLoUbndxoNMUS5JXApGMtNykLjFXXixMtpDwDR9SP',
  signatures: 'real/solana-signatures.json',
  transactions: 'real/solana-transactions.json',
};

export function solanaNodeRoutes(path: string, state: SolanaNodeState, files?: SolanaNodeFiles): Route[] {
  const index = files ? { relayer: files.relayer } : solanaFixtureIndex();
  const recorded = fixture<SignatureInfo[]>(files?.signatures ?? 'solana-signatures-coinbase.json'); // newest first
  const transactions = fixture<Record<string, unknown>>(files?.transactions ?? 'solana-transactions.json');

  const signatures = (req: RecordedRequest) => {
    const [address, config] = req.rpcParams as [string, { limit?: number; before?: string; until?: string } | undefined];
    const other = state.histories?.[address];
    if (address !== index.relayer && !other) return rpcResult(req, []);
    let list = other ?? recorded.slice(recorded.length - state.visible);
    if (config?.before) {
      const i = list.findIndex((s) => s.signature === config.before);
      list = i >= 0 ? list.slice(i + 1) : [];
    }
    if (config?.until) {
      const i = list.findIndex((s) => s.signature === config.until);
      if (i >= 0) list = list.slice(0, i);
    }
    return rpcResult(req, list.slice(0, config?.limit ?? 1000));
  };

  return [
    { method: 'POST', path, rpcMethod: 'getSignaturesForAddress', reply: signatures },
    {
      method: 'POST',
      path,
      rpcMethod: 'getTransaction',
      reply: (req) => rpcResult(req, transactions[String(req.rpcParams[0])] ?? state.transactions?.[String(req.rpcParams[0])] ?? null),
    },
  ];
}
