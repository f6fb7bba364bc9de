/**
 * How long a Solana / XRPL replay key is kept: 24 hours, as long as the longest EVM authorization
 * this server accepts. The chain drops a Solana transaction once its blockhash is ~150 blocks old
 * and an XRPL one after its LastLedgerSequence, but local mode cannot see chain time.
 *
 * XRPL keys are (Account, Sequence or ticket). With XRPL_RPC_URL, LastLedgerSequence is at most
 * ceil(maxTimeoutSeconds / 5) + 2 = 62 ledgers (a few minutes) ahead, far inside 24 hours. Without
 * it only its presence is checked, so a Payment may name a ledger years away; in facilitator mode
 * the ledger itself applies one transaction per Sequence (a twin fails /settle and nothing is
 * served), and in local mode, where nothing is submitted, the Sequence is single-use for these
 * 24 hours and then reads as unused, like any Sequence the payer has not signed yet
 * (docs/x402-protocol.md, "Solana and XRPL in local mode").
 */
export const CHAIN_KEY_RETENTION_SECONDS = 24 * 3600;
