/**
 * The x402 paywall: one call per paid request, from "no payment" to "data with a signed receipt".
 *
 * API
 * ---
 *   const paywall = createPaywall({ service, settings, signer, crypto, nonceStore, facilitator });
 *   for (const p of await paywall.init()) console.warn(p);  // facilitator mode: /supported (Solana fee payer, networks)
 *   const answer = await paywall.handle(request, serve);    // EndpointRequest in, GateAnswer out (endpoint-call.ts)
 *
 * The signer, crypto, nonce store and facilitator client are built once per process
 * (proxy/serve.ts processParts) and shared by the paywalls of both services. The endpoint call
 * runs handle() after 422 validation and DataHandler.precheck, so nobody pays for a 404; serve()
 * runs the data handler.
 *
 * `request.xrpl` marks the /api/v1/xrpl/... variant: the offer is RLUSD on xrpl there, else the
 * service's other networks (catalog SERVICE_INFO). `request.url` (the full URL called) and the
 * request's X-Forwarded-Proto / X-Forwarded-Host headers give the resource URL of the 402
 * (wire.ts resourceUrlOf: the forwarded headers only with TRUST_PROXY), with its path made
 * canonical (the catalog's path, path parameters from the validated `input`), which is also the
 * path the receipts name.
 *
 * Flow
 * ----
 * 1. No payment header → 402: v1 JSON body {x402Version: 1, error, reason, accepts} AND the v2
 *    PAYMENT-REQUIRED header, so both client generations can pay.
 * 2. Decode X-PAYMENT / PAYMENT-SIGNATURE strictly; match the offer (scheme, network, v2 accepted).
 * 3. Verify in process by the network's scheme (schemes/: EVM the EIP-3009 authorization, Solana
 *    the partially signed transaction, XRPL the signed Payment), plus the facilitator's /verify in
 *    facilitator mode. The signature check and the receipt signature of step 7 run where `crypto`
 *    says (crypto-pool.ts: inline, or worker threads; proxy/serve.ts follows CRYPTO_WORKERS).
 * 4. Reserve the payment's nonce atomically (nonce-store.ts) — before the facilitator and before serve().
 *    A used payment retried with the same payment-identifier for the same request gets its kept
 *    answer back (payment-identifier.ts); otherwise 402 nonce_used.
 * 5. serve(). Not 200 (404, 503...) → the nonce is released, nothing is settled, the answer passes through.
 * 6. 200 → settle: local mode marks the nonce used; facilitator mode calls /settle. A refused,
 *    failed, timed-out or 5xx settlement serves NOTHING: 402 with reason settlement_failed or
 *    facilitator_unavailable, the settlement header with success:false, and the nonce released
 *    (an authorization settles at most once on chain, so retrying the same header is safe). A
 *    failure naming a broadcast transaction (`settlement_pending`) is settled once more (the
 *    facilitator reconciles by that transaction); still pending, it serves nothing either, but the
 *    nonce is marked used and the hash is in the settlement header: never broadcast twice.
 * 7. Attach the signed receipt (body `receipt` + `X-Receipt` base64 JSON) and PAYMENT-RESPONSE
 *    (v2 payment) or X-PAYMENT-RESPONSE (v1 payment), whose `extensions["offer-receipt"]` holds the
 *    standard EIP-712 receipt (offer-receipt.ts); mark the nonce used, with the answer kept for a
 *    payment-identifier retry. Paid answers are `Cache-Control: no-store`.
 * Every 402 declares the payment-identifier extension and carries signed offers (offer-receipt).
 * Every 402 after a payment attempt names its reason (reasons.ts) and says exactly what was wrong.
 *
 * One nonce store must be shared by every service that is paid to the same address — otherwise one
 * authorization could buy one response from each: proxy/serve.ts gives both services of a process
 * the same one; several processes share one through NONCE_DB_DIR (LMDB) or REDIS_URL (proxy/stores.ts).
 */
import { randomUUID } from 'node:crypto';
import { xrplPath } from '../catalog/index.ts';
import type { EndpointDecl, ServiceName } from '../catalog/types.ts';
import type { Settings } from '../lib/config.ts';
import type { GateAnswer, GatedRequest, PaymentGate, ServedResult } from './gate.ts';
import type { ParsedRequest } from '../catalog/request.ts';
import { canonicalQuery, namesResource } from './resource-binding.ts';
import { bazaarFor, bazaarServiceMetadata, bazaarV1OutputSchema } from './bazaar.ts';
import type { PaymentCrypto } from './crypto-pool.ts';
import { solanaFeePayer as feePayerOf, type FacilitatorClient } from './facilitator.ts';
import { asRoutes, type FacilitatorRoutes } from './facilitators.ts';
import { StoreUnavailableError, type NonceKey, type NonceStore } from './nonce-store.ts';
import { OfferCache, offersExtension, receiptDigest, receiptExtension, receiptPayload } from './offer-receipt.ts';
import {
  PAYMENT_IDENTIFIER,
  paymentIdentifierDeclaration,
  paymentIdentifierOf,
  replayFor,
  replayText,
  requestFingerprint,
} from './payment-identifier.ts';
import { assetSymbol, canonicalDecimal, DEMO_SOLANA_FEE_PAYER, payToFor, payToTable, SOLANA, type SettlementNetwork } from './networks.ts';
import { reject, short, type Rejection } from './reasons.ts';
import { assembleReceipt, receiptSigningText, type Receipt, type ReceiptFields, type ReceiptSigner } from './receipts.ts';
import {
  buildOffers,
  decodePayment,
  encodeBase64Json,
  isXrplVariantPath,
  matchOffer,
  offeredNetworks,
  PAYMENT_REQUIRED_MESSAGE,
  paymentRequiredV1Body,
  paymentRequiredV2,
  resourceUrlOf,
  settlementHeader,
  type DecodedPayment,
  type PaymentOffer,
  type ResourceInfo,
} from './wire.ts';
import { ledgerReader } from './xrpl.ts';
import { schemeFor } from './schemes/index.ts';
import { settlePayment, type SettleOutcome } from './settle.ts';

/** What every paywall of a process shares: built once (proxy/serve.ts processParts) and passed in. */
export interface PaymentParts {
  signer: ReceiptSigner;
  /**
   * Where signatures are checked and receipts signed (crypto-pool.ts): inline on the calling
   * thread, or a CryptoWorkerPool on worker threads. Must sign with `signer`.
   */
  crypto: PaymentCrypto;
  /** Every service paid to the same address must share one, or one authorization buys one response from each. */
  nonceStore: NonceStore;
  /**
   * The facilitator: required with SETTLEMENT=facilitator, null with SETTLEMENT=local. One client
   * serves every network; routes (facilitators.ts) give each network its own.
   */
  facilitator: FacilitatorClient | FacilitatorRoutes | null;
}

export interface PaywallOptions extends PaymentParts {
  service: ServiceName;
  /** `upstreams.XRPL_RPC_URL`, when given, bounds XRPL LastLedgerSequence by the open ledger (xrpl.ts). */
  settings: Pick<Settings, 'settlement' | 'payTo' | 'trustProxy'> & {
    upstreams?: Pick<Settings['upstreams'], 'XRPL_RPC_URL'>;
    /** The services' public origins (KOREA_PUBLIC_URL, ANALYTICS_PUBLIC_URL): this service's names every resource when set. */
    publicUrl?: Settings['publicUrl'];
  };
  /** Solana fee payer for the requirements; init() fills it from /supported when not given. */
  solanaFeePayer?: string | null;
  /** Networks offered on the plain paths (false) and the XRPL variants (true); default: the catalog's (offeredNetworks). */
  networksFor?: (xrpl: boolean) => readonly SettlementNetwork[];
  /** Clock (tests). A MemoryNonceStore given alongside must use the same clock, or it prunes too early or too late. */
  now?: () => Date;
  clockSkewSeconds?: number;
}

export interface Paywall extends PaymentGate {
  readonly settlement: 'local' | 'facilitator';
  /**
   * Facilitator mode: reads each facilitator's /supported once, takes the Solana fee payer from
   * Solana's and checks that every offered network is listed by its facilitator. Returns the
   * problems found (empty = all good), to log; throws only when a facilitator refuses our
   * credentials or none can be made (the message names the settings), so a bad key stops the start.
   */
  init(): Promise<string[]>;
  /** The payment options for a path (also what the 402 lists). */
  offers(endpoint: EndpointDecl, path: string, resourceUrl: string): PaymentOffer[];
}

const JSON_TYPE = 'application/json; charset=utf-8';

export function createPaywall(options: PaywallOptions): Paywall {
  const settlement = options.settings.settlement;
  const payTo = payToTable(options.settings);
  const store = options.nonceStore;
  const facilitators = asRoutes(options.facilitator);
  if (settlement === 'facilitator' && !facilitators?.all().length)
    throw new Error('paywall: SETTLEMENT=facilitator needs a FacilitatorClient');
  const facilitatorOf = (network: SettlementNetwork): FacilitatorClient | null => facilitators?.for(network.name) ?? null;
  const now = options.now ?? (() => new Date());
  const crypto = options.crypto;
  if (crypto.signerAddress !== options.signer.info.address)
    throw new Error('paywall: the crypto workers sign with another receipt key than `signer`');
  const networksFor = options.networksFor ?? ((xrpl: boolean) => offeredNetworks(options.service, xrpl));
  // Local mode names the demo fee payer (nobody holds its key) unless one is given: Solana clients cannot build a payment without one.
  let feePayer = options.solanaFeePayer ?? (settlement === 'local' ? DEMO_SOLANA_FEE_PAYER : null);
  const xrplRpcUrl = options.settings.upstreams?.XRPL_RPC_URL ?? null;
  const xrplLedger = xrplRpcUrl ? ledgerReader(xrplRpcUrl) : undefined;

  const describe = (endpoint: EndpointDecl) =>
    settlement === 'local'
      ? `${endpoint.summary} (demo settlement: SETTLEMENT=local verifies payments but moves no funds)`
      : endpoint.summary;

  function offersFor(endpoint: EndpointDecl, xrpl: boolean, resourceUrl: string, query?: Record<string, unknown>): PaymentOffer[] {
    if (!endpoint.priceUsd) throw new Error(`paywall: endpoint ${endpoint.id} has no priceUsd`);
    return buildOffers({
      priceUsd: endpoint.priceUsd,
      method: endpoint.method,
      description: describe(endpoint),
      mimeType: endpoint.contentType ?? 'application/json',
      resourceUrl,
      networks: networksFor(xrpl),
      payTo,
      solanaFeePayer: feePayer,
      outputSchema: bazaarV1OutputSchema(endpoint, xrpl, query),
    });
  }

  const offerCache = new OfferCache(
    (digest) => crypto.signReceiptDigest(digest),
    () => Math.floor(now().getTime() / 1000),
  );

  /**
   * The extensions a 402 declares: payment-identifier (optional id, see payment-identifier.ts) and
   * offer-receipt with the signed offers (offer-receipt.ts), signed for `receiptResource`.
   */
  async function declaredExtensions(offered: readonly PaymentOffer[], receiptResource: string): Promise<Record<string, unknown>> {
    return {
      [PAYMENT_IDENTIFIER]: paymentIdentifierDeclaration(),
      ...(offered.length ? offersExtension(await offerCache.offers(receiptResource, offered)) : {}),
    };
  }

  /**
   * The 402 (or, for a payment header that is no payment payload at all, the 400 of the x402 HTTP
   * transport's error table) with both wire versions of the offer and the reason.
   */
  async function challenge(
    offered: readonly PaymentOffer[],
    resource: ResourceInfo & { receiptResource: string },
    extensions: Record<string, unknown>,
    failure: Pick<Rejection, 'reason' | 'message' | 'payer' | 'facilitatorReason'>,
    settled?: { payment: DecodedPayment; offer: PaymentOffer; payer: string; transaction?: string },
    status: 400 | 402 = 402,
  ): Promise<GateAnswer> {
    const body = paymentRequiredV1Body(offered, failure.reason, failure.message, {
      ...(failure.payer ? { payer: failure.payer } : {}),
      ...(failure.facilitatorReason ? { facilitatorReason: failure.facilitatorReason } : {}),
    });
    const headers: Record<string, string> = {
      'Content-Type': JSON_TYPE,
      'Cache-Control': 'no-store',
      'PAYMENT-REQUIRED': encodeBase64Json(await paymentRequiredWithExtensions(offered, resource, extensions, failure)),
    };
    if (settled) {
      const h = settlementHeader(settled.payment.version, settled.offer.network, {
        success: false,
        transaction: settled.transaction ?? '',
        payer: settled.payer,
        errorReason: failure.reason,
        errorMessage: failure.message,
      });
      headers[h.name] = h.value;
    }
    return { status, headers, body: JSON.stringify(body), json: body };
  }

  async function paymentRequiredWithExtensions(
    offered: readonly PaymentOffer[],
    resource: ResourceInfo & { receiptResource: string },
    extensions: Record<string, unknown>,
    failure: Pick<Rejection, 'reason' | 'message'>,
  ) {
    const { receiptResource, ...info } = resource;
    const v2 = paymentRequiredV2(offered, info, failure.reason, failure.message, extensions);
    v2.extensions = { ...v2.extensions, ...(await declaredExtensions(offered, receiptResource)) };
    return v2;
  }

  let storeErrorLoggedAt = 0;
  /**
   * The nonce store does not answer (Redis down, database unwritable): 503 with Retry-After and
   * nothing served. Without the store a replay cannot be told from a fresh payment, so the paywall
   * fails closed; the payment was not used and can be sent again once the store is back.
   */
  async function handle(request: GatedRequest, serve: () => Promise<ServedResult>, input?: ParsedRequest): Promise<GateAnswer> {
    try {
      return await handlePayment(request, serve, input);
    } catch (err) {
      if (!(err instanceof StoreUnavailableError)) throw err;
      if (Date.now() - storeErrorLoggedAt > 10_000) {
        storeErrorLoggedAt = Date.now(); // one line per 10 s, not one per request, while the store is down
        console.error(`x402: paid requests answer 503: ${err.message}`);
      }
      const body = {
        error: 'not_available',
        message:
          'Payments cannot be checked for single use right now (the payment store does not answer), so paid endpoints are closed ' +
          'and nothing was charged or served. Retry in a few seconds.',
      };
      const headers = { 'Content-Type': JSON_TYPE, 'Cache-Control': 'no-store', 'Retry-After': '5' };
      return { status: 503, headers, body: JSON.stringify(body), json: body };
    }
  }

  /**
   * Stage "resource": the resource a request is for, named canonically. The receipt and the 402
   * name the endpoint as the catalog declares it, never the path as typed, and the query from the
   * validated values, never the text as typed (resource-binding.ts).
   */
  function resourceOf(request: GatedRequest, input: ParsedRequest | undefined) {
    const { endpoint } = request;
    const arrived = new URL(request.url);
    const path = canonicalPath(endpoint, request.xrpl, arrived.pathname, input?.params);
    const asked = new URL(
      resourceUrlOf(request.url, request.header, options.settings.trustProxy, options.settings.publicUrl?.[options.service] ?? null),
    );
    asked.pathname = path;
    if (input) asked.search = canonicalQuery(asked.searchParams, input.query);
    const url = asked.toString();
    return {
      path,
      asked,
      arrivedOrigin: arrived.origin,
      offered: offersFor(endpoint, request.xrpl, url, input?.query),
      resource: {
        url,
        description: describe(endpoint),
        mimeType: endpoint.contentType ?? 'application/json',
        ...bazaarServiceMetadata(endpoint),
        receiptResource: `${asked.origin}${path}`,
      },
      extensions: { ...bazaarFor(endpoint, request.xrpl, path, input?.query) },
    };
  }

  async function handlePayment(
    request: GatedRequest,
    serve: () => Promise<ServedResult>,
    input: ParsedRequest | undefined,
  ): Promise<GateAnswer> {
    const { endpoint } = request;
    const { path, asked, arrivedOrigin, offered, resource, extensions } = resourceOf(request, input);
    const refuse = (failure: Pick<Rejection, 'reason' | 'message' | 'payer' | 'facilitatorReason'>) =>
      challenge(offered, resource, extensions, failure);

    // ---- decode: no header → 402; a header that is not a payment payload (not base64 JSON of one)
    // is the transport spec's "Invalid Payment", 400; one that decodes but fails a check, 402
    const decoded = decodePayment(request.header);
    if (decoded === null) return refuse({ reason: 'payment_required', message: PAYMENT_REQUIRED_MESSAGE });
    if (!decoded.ok)
      return challenge(offered, resource, extensions, decoded, undefined, decoded.reason === 'invalid_x402_version' ? 402 : 400);
    const payment = decoded.payment;

    // ---- bind: the payment pays for this resource, with this offer
    const requested = {
      endpoint,
      xrpl: request.xrpl,
      origins: [asked.origin, arrivedOrigin],
      path,
      ...(input ? { input } : {}),
      ...(request.via === 'mcp' && endpoint.mcpTool ? { mcpTool: endpoint.mcpTool.name } : {}),
    };
    const foreign = payment.resources.find((url) => !namesResource(url, requested));
    if (foreign !== undefined) {
      return refuse(
        reject(
          'resource_mismatch',
          `the payment says it pays for ${JSON.stringify(foreign.length > 200 ? `${foreign.slice(0, 200)}…` : foreign)}, but this request is for ${resource.url}; pay for the resource the 402 names`,
        ),
      );
    }
    const identified = paymentIdentifierOf(payment.raw);
    if (!identified.ok) return refuse(identified);
    const paymentId = identified.id;
    const fingerprint = requestFingerprint(endpoint.method, path, input ? { query: input.query, body: input.body ?? null } : asked.search);
    const matched = matchOffer(payment, offered);
    if (!matched.ok) return refuse(matched);
    const offer = matched.offer;
    const network = offer.network;
    const scheme = schemeFor(network);

    // ---- verify in process, by the network's scheme (the facilitator's /verify comes after the reservation)
    const nowSeconds = Math.floor(now().getTime() / 1000);
    const verified = await scheme.verify(
      payment.payload,
      { ...offer.v2, network },
      {
        nowSeconds,
        settlement,
        crypto,
        ...(options.clockSkewSeconds !== undefined ? { clockSkewSeconds: options.clockSkewSeconds } : {}),
        ...(xrplLedger ? { currentLedger: xrplLedger } : {}),
      },
    );
    if (!verified.ok) return refuse(verified);
    let payer: string | null = verified.payer;
    const key: NonceKey = { network: network.caip2, asset: offer.v2.asset, from: verified.payer, nonce: verified.replayKey };
    const { expiresAt, what } = verified;

    // ---- single use: reserve before anyone else can use it
    const reserved = await store.reserve(key, expiresAt);
    if (reserved !== 'reserved') {
      const seen = await alreadyUsed(reserved, key, { what, paymentId, fingerprint, fresh: scheme.describe(network).freshPayment });
      return 'status' in seen ? seen : refuse(reject('nonce_used', seen.message, payer ? { payer } : {}));
    }

    // ---- the facilitator's verdict (facilitator mode), then serve
    const requirements = payment.version === 1 ? offer.v1 : offer.v2;
    const facilitator = facilitatorOf(network);
    if (settlement === 'facilitator' && !facilitator) {
      await store.release(key);
      return refuse(
        reject('facilitator_unavailable', `no facilitator is configured for ${network.name}; pay on another network the 402 lists`),
      );
    }
    let served: ServedResult;
    try {
      if (facilitator) {
        const verdict = await facilitator.verify(payment.version, payment.raw, requirements);
        if (!verdict.ok) {
          await store.release(key);
          return refuse({
            reason: verdict.kind === 'refused' ? 'facilitator_rejected' : 'facilitator_unavailable',
            message: verdict.kind === 'refused' ? verdict.message : `${verdict.message}; the payment was not used, retry later`,
            facilitatorReason: verdict.code,
            ...((payer ?? verdict.payer) ? { payer: (payer ?? verdict.payer)! } : {}),
          });
        }
        payer ??= verdict.payer;
      }
      served = await serve();
    } catch (err) {
      await store.release(key);
      throw err;
    }
    if (served.status !== 200) {
      await store.release(key);
      return passThrough(served);
    }

    // ---- settle, then and only then hand out the data. Until funds moved on chain, a failure
    // here (a receipt that cannot be signed...) releases the payment: no answer, nothing spent.
    let settledOnChain = false;
    let answer: GateAnswer;
    try {
      const settled = await settlePayment(facilitator, payment, requirements, verified.localTransaction);
      if (settled.kind !== 'settled') {
        // pending: the transfer may still land, so the payment stays held (settledOnChain)
        settledOnChain = settled.kind === 'pending';
        return await settlementFailed(settled, key, expiresAt, (failure, transaction) =>
          challenge(
            offered,
            resource,
            extensions,
            { ...failure, ...(payer ? { payer } : {}) },
            {
              payment,
              offer,
              payer: payer ?? settled.payer ?? '',
              transaction,
            },
          ),
        );
      }
      settledOnChain = facilitator !== null;
      payer ??= settled.payer;
      answer = await receipted(served, {
        path,
        priceUsd: endpoint.priceUsd!,
        network,
        offer,
        payment,
        payer,
        transaction: settled.transaction,
        receiptResource: resource.receiptResource,
      });
    } catch (err) {
      if (!settledOnChain) await store.release(key).catch(() => {});
      throw err;
    }

    // A retry with the same payment and payment-identifier gets this answer again (payment-identifier.ts).
    const replay = paymentId ? replayText(paymentId, fingerprint, answer) : null;
    const marked = store.markUsed(key, expiresAt, ...(replay !== null ? [replay] : [])).catch((err: unknown) => {
      // The payment is settled: the payer gets the data. The reservation still blocks a replay until it expires.
      console.error(`x402: could not mark payment ${short(key.nonce)} used: ${err instanceof Error ? err.message : String(err)}`);
    });
    // The reservation is already durable and blocks any reuse until it expires, so without a
    // payment-identifier the answer does not wait for the reserved → used write (a disk commit on
    // LMDB, a round trip on Redis). With one, it waits, so a retry finds the stored answer.
    if (replay !== null) await marked;
    return answer;
  }

  /**
   * Stage "reserve", when the payment's key is taken: the first answer again for a retry with the
   * same payment-identifier (payment-identifier.ts), else why it cannot be used.
   */
  async function alreadyUsed(
    reserved: 'in_flight' | 'used',
    key: NonceKey,
    p: { what: string; paymentId: string | null; fingerprint: string; fresh: string },
  ): Promise<GateAnswer | { message: string }> {
    if (reserved === 'in_flight') {
      return {
        message: p.paymentId
          ? `${p.what} is being used by another request right now; retry in a moment with the same payment and payment-identifier to get its answer`
          : `${p.what} is being used by another request right now; each payment buys one response`,
      };
    }
    if (!p.paymentId) return { message: `${p.what} was already used for a response; ${p.fresh}` };
    const replay = replayFor(await store.replayOf(key), p.paymentId, p.fingerprint);
    if (replay.found) return { ...replay.answer, json: jsonOf(replay.answer) };
    return { message: `${p.what} was already used for a response, and ${replay.why}; ${p.fresh}` };
  }

  /**
   * Stage "settle" when it did not settle: nothing is served. Refused or unavailable: the payment
   * is released (nothing moved, or a retry with the same header cannot charge twice). Pending: the
   * transfer may still land, so the payment is held as used (never released, never sent for
   * settlement again) and the hash goes to the payer and the log for reconciliation.
   */
  async function settlementFailed(
    settled: Exclude<SettleOutcome, { kind: 'settled' }>,
    key: NonceKey,
    expiresAt: number,
    answer: (failure: Pick<Rejection, 'reason' | 'message' | 'facilitatorReason'>, transaction: string) => Promise<GateAnswer>,
  ): Promise<GateAnswer> {
    if (settled.kind === 'pending') {
      await store.markUsed(key, expiresAt);
      console.error(`x402: settlement pending for payment ${short(key.nonce)}: transaction ${settled.transaction} (${settled.code})`);
      const message =
        `${settled.message}. Nothing was served. The transfer may still confirm: this payment is held and will not be settled again ` +
        '(a second broadcast could charge twice); keep the transaction hash from the settlement header to reconcile it';
      return answer({ reason: 'settlement_pending', message, facilitatorReason: settled.code }, settled.transaction);
    }
    await store.release(key);
    const message =
      settled.kind === 'refused'
        ? `${settled.message}. Nothing was served; the facilitator reports that no transfer happened, so the payment is still unused and can be retried once the cause is fixed`
        : `${settled.message}. Nothing was served. If the transfer shows up on chain anyway, repeat this request with the SAME payment header: ` +
          'a payment settles at most once, so a retry cannot charge twice';
    const reason = settled.kind === 'refused' ? 'settlement_failed' : 'facilitator_unavailable';
    return answer({ reason, message, facilitatorReason: settled.code }, '');
  }

  /** Stage "receipt": the paid answer, with the signed receipt and the settlement header. */
  async function receipted(
    served: Extract<ServedResult, { status: 200 }>,
    paid: {
      path: string;
      priceUsd: string;
      network: SettlementNetwork;
      offer: PaymentOffer;
      payment: DecodedPayment;
      payer: string | null;
      transaction: string;
      receiptResource: string;
    },
  ): Promise<GateAnswer> {
    const { network, payer, transaction } = paid;
    const fields: ReceiptFields = {
      id: randomUUID(),
      endpoint: receiptText(paid.path),
      amount: canonicalDecimal(paid.priceUsd),
      currency: assetSymbol(network),
      network: network.name,
      tx_hash: receiptText(transaction),
      payer: receiptText(payer ?? 'unknown'),
      merchant: paid.offer.v2.payTo,
      issued_at: now().toISOString(),
    };
    // the standard EIP-712 receipt (offer-receipt extension) next to the pipe-joined one
    const standard = receiptPayload({
      network: network.caip2,
      resourceUrl: paid.receiptResource,
      payer: payer ?? '',
      issuedAt: Math.floor(now().getTime() / 1000),
      transaction: settlement === 'facilitator' ? transaction : '',
    });
    const [receiptSignature, standardSignature] = await Promise.all([
      crypto.signReceiptText(receiptSigningText(fields)),
      crypto.signReceiptDigest(receiptDigest(standard)),
    ]);
    const receipt = assembleReceipt(fields, settlement, receiptSignature, options.signer.info);
    return paidAnswer(
      served,
      receipt,
      settlementHeader(paid.payment.version, network, {
        success: true,
        transaction,
        payer: payer ?? '',
        extensions: receiptExtension({ format: 'eip712', payload: standard, signature: standardSignature }),
      }),
    );
  }

  async function init(): Promise<string[]> {
    if (!facilitators) return [];
    const offered = [...networksFor(false), ...networksFor(true)].filter((n, i, all) => all.indexOf(n) === i && payToFor(payTo, n));
    const problems: string[] = [];
    for (const client of facilitators.all()) {
      const supported = await client.supported();
      if (!supported.ok && (supported.code === 'unauthorized' || supported.code === 'credentials')) throw new Error(supported.message);
      const served = offered.filter((n) => facilitatorOf(n) === client);
      if (!supported.ok) {
        const solana = served.some((n) => schemeFor(n).needsFeePayer);
        problems.push(
          `could not read ${client.shownUrl}/supported (${supported.message})${solana ? '; Solana requirements go out without extra.feePayer' : ''}`,
        );
        continue;
      }
      if (served.some((n) => n.caip2 === SOLANA.caip2)) feePayer ??= feePayerOf(supported, SOLANA.caip2);
      for (const n of served) {
        const listed = supported.kinds.some((k) => k.scheme === 'exact' && (k.network === n.caip2 || k.network === n.name));
        if (!listed)
          problems.push(
            `facilitator ${client.shownUrl} does not list "exact" on ${n.name} (${n.caip2}) in /supported; payments there will likely be refused`,
          );
      }
    }
    const solanaFacilitator = offered.find((n) => schemeFor(n).needsFeePayer);
    if (solanaFacilitator && !feePayer)
      problems.push(
        `facilitator ${facilitatorOf(solanaFacilitator)?.shownUrl} announces no Solana fee payer; Solana clients cannot build a payment`,
      );
    return problems;
  }

  return {
    settlement,
    payTo,
    signer: options.signer.info,
    init,
    offers: (endpoint, path, resourceUrl) => offersFor(endpoint, isXrplVariantPath(path), resourceUrl),
    handle,
  };
}

// ------------------------------------------------------------------ helpers

/**
 * The endpoint's path as the catalog declares it (the XRPL variant's for the variant), its path
 * parameters filled from the validated values (`params`; else from the requested path, decoded)
 * and percent-encoded canonically.
 */
function canonicalPath(endpoint: EndpointDecl, xrpl: boolean, requested: string, params?: Record<string, unknown>): string {
  const template = (xrpl ? xrplPath(endpoint.path) : endpoint.path).split('/');
  const asked = requested.split('/');
  return template
    .map((segment, i) => {
      if (!segment.startsWith(':')) return segment;
      const name = segment.slice(1);
      const value = params?.[name];
      return encodeURIComponent(value !== undefined && value !== null ? String(value) : decodeSegment(asked[i] ?? ''));
    })
    .join('/');
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The JSON value of a replayed answer, for MCP (structuredContent). */
function jsonOf(answer: { headers: Record<string, string>; body: string | null }): unknown {
  if (answer.body === null || !/json/i.test(answer.headers['Content-Type'] ?? '')) return answer.body;
  try {
    return JSON.parse(answer.body) as unknown;
  } catch {
    return answer.body;
  }
}

/** "|" separates the signed receipt fields; text from outside (path, facilitator answers) has it escaped. */
function receiptText(text: string): string {
  return text.replace(/\|/g, '%7C');
}

function serialize(body: unknown): { text: string; type: string } {
  if (typeof body === 'string') return { text: body, type: 'text/plain; charset=utf-8' };
  return { text: JSON.stringify(body), type: JSON_TYPE };
}

/** A handler's answer other than 200 (404, 503): passed on as it is; nothing was charged. */
function passThrough(served: ServedResult): GateAnswer {
  const { text, type } = serialize(served.body);
  const headers: Record<string, string> = { 'Content-Type': type, 'Cache-Control': 'no-store' };
  if (served.status === 503 && served.retryAfterSeconds !== undefined) headers['Retry-After'] = String(served.retryAfterSeconds);
  return {
    status: served.status,
    headers,
    body: text,
    json: served.body,
  };
}

function paidAnswer(
  served: Extract<ServedResult, { status: 200 }>,
  receipt: Receipt,
  settlement: { name: string; value: string },
): GateAnswer {
  const isObject = typeof served.body === 'object' && served.body !== null && !Array.isArray(served.body);
  const json = isObject ? { ...(served.body as Record<string, unknown>), receipt } : served.body;
  const { text, type } = serialize(json);
  return {
    status: 200,
    headers: {
      'Content-Type': served.contentType ?? type,
      // Paid data is for the payer only: no shared cache may keep it.
      'Cache-Control': 'private, no-store',
      'X-Receipt': encodeBase64Json(receipt),
      [settlement.name]: settlement.value,
    },
    body: text,
    json,
  };
}
