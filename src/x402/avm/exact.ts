/**
 * @module x402/avm/exact — Algorand `exact`: the buyer signs an asset transfer of the USDC ASA to
 * payTo inside an atomic group whose other transactions are ours (the fee payer), unsigned.
 *
 * Verify checks every transaction of the group (nothing else may ride along), the group id, the
 * genesis hash and that the validity rounds are open now, the buyer's ed25519 signature and
 * balance. Settle signs our fee-payer transactions and submits the group to algod. There is no
 * nonce: the payment transaction's id is the replay key (the ledger refuses a txid twice).
 */
import { createPublicKey, verify as verifySignature } from "node:crypto";
import {
  computeGroupID,
  decodeSignedTransaction,
  decodeUnsignedTransaction,
  encodeUnsignedTransaction,
  mnemonicToSecretKey,
  type SignedTransaction,
  type Transaction,
} from "algosdk";
import { Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { ResolvedAvmNetwork } from "./config.ts";
import type { IdentifyResult, PendingSettlement, SchemeMechanism, SettleHooks, SettlementCheck } from "../facilitator.ts";
import { normalizeNetwork } from "../networks.ts";
import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from "../messages.ts";
import { createAlgodClient, type AlgodClient } from "./algod.ts";
import { avmReasons } from "./errors.ts";

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
export const MAX_GROUP_SIZE = 16;
/** Per transaction of the group, the most our fee payer will pay (µAlgo), as the official facilitator. */
export const MAX_FEE_PER_TXN = 5000n;

export const ExactAvmPayload = Type.Object({
  paymentGroup: Type.Array(Type.String({ minLength: 1, maxLength: 8192 }), { minItems: 1, maxItems: MAX_GROUP_SIZE }),
  paymentIndex: Type.Integer({ minimum: 0 }),
});

interface GroupEntry {
  readonly bytes: Uint8Array;
  readonly txn: Transaction;
  readonly signed: SignedTransaction | undefined;
}

type Parsed = { ok: true; entries: GroupEntry[]; index: number } | { ok: false; reason: string };

/** Decodes the group: signed entries as SignedTransaction, unsigned ones as raw Transaction or a `{txn}` wrapper (both are sent in the wild). */
export function parseAvmGroup(payload: PaymentPayload): Parsed {
  if (!Value.Check(ExactAvmPayload, payload.payload)) {
    const group = (payload.payload as { paymentGroup?: unknown }).paymentGroup;
    return { ok: false, reason: Array.isArray(group) && group.length > MAX_GROUP_SIZE ? avmReasons.groupSizeExceeded : avmReasons.payload };
  }
  const { paymentGroup, paymentIndex } = payload.payload as { paymentGroup: string[]; paymentIndex: number };
  if (paymentIndex >= paymentGroup.length) return { ok: false, reason: avmReasons.paymentIndex };
  const entries: GroupEntry[] = [];
  for (const encoded of paymentGroup) {
    if (!STRICT_BASE64.test(encoded)) return { ok: false, reason: avmReasons.invalidTransaction };
    const bytes = new Uint8Array(Buffer.from(encoded, "base64"));
    let entry: GroupEntry | undefined;
    try {
      const signed = decodeSignedTransaction(bytes);
      const hasSignature = signed.sig !== undefined || signed.msig !== undefined || signed.lsig !== undefined || signed.pqsig !== undefined;
      entry = { bytes, txn: signed.txn, signed: hasSignature ? signed : undefined };
    } catch {
      try {
        entry = { bytes, txn: decodeUnsignedTransaction(bytes), signed: undefined };
      } catch {
        return { ok: false, reason: avmReasons.invalidTransaction };
      }
    }
    entries.push(entry);
  }
  return { ok: true, entries, index: paymentIndex };
}

export function identifyAvmPayment(payload: PaymentPayload): IdentifyResult {
  const parsed = parseAvmGroup(payload);
  if (!parsed.ok) return parsed;
  const payment = parsed.entries[parsed.index];
  if (!payment) return { ok: false, reason: avmReasons.paymentIndex };
  return { ok: true, identity: { payer: payment.txn.sender.toString(), nonce: payment.txn.txID(), validBefore: undefined } };
}

const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

function isValidEd25519(message: Uint8Array, signature: Uint8Array, publicKey: Uint8Array): boolean {
  try {
    const key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, publicKey]), format: "der", type: "spki" });
    return verifySignature(null, message, key, signature);
  } catch {
    return false;
  }
}

function sameBytes(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  return a !== undefined && b !== undefined && Buffer.from(a).equals(Buffer.from(b));
}

export interface ExactAvmMechanismOptions {
  readonly network: ResolvedAvmNetwork;
  readonly confirmationTimeoutMs: number;
  readonly pollingIntervalMs?: number;
  readonly fetch?: typeof fetch;
  /** Injected for tests; default from network.algodUrl. */
  readonly algod?: AlgodClient;
}

type Checked = { ok: true; entries: GroupEntry[]; index: number; payer: string } | { ok: false; response: VerifyResponse };

export function createExactAvmMechanism(options: ExactAvmMechanismOptions): SchemeMechanism {
  const { network } = options;
  if (!options.algod && !network.algodUrl) throw new Error(`network ${network.network}: the AVM mechanism needs algodUrl`);
  const algod =
    options.algod ??
    createAlgodClient({ url: network.algodUrl ?? "", ...(network.algodToken ? { token: network.algodToken } : {}), ...(options.fetch ? { fetch: options.fetch } : {}) });
  const feePayer = network.feePayerMnemonic ? mnemonicToSecretKey(network.feePayerMnemonic) : undefined;
  const feePayerAddress = feePayer?.addr.toString();
  const pollMs = options.pollingIntervalMs ?? 1_000;

  const fail = (reason: string, payer?: string): Checked => ({ ok: false, response: { isValid: false, invalidReason: reason, ...(payer ? { payer } : {}) } });

  async function check(payload: PaymentPayload, requirements: PaymentRequirements): Promise<Checked> {
    if (payload.accepted.scheme !== "exact" || requirements.scheme !== "exact") return fail(avmReasons.scheme);
    if (normalizeNetwork(payload.accepted.network) !== requirements.network || requirements.network !== network.network) return fail(avmReasons.networkMismatch);
    const parsed = parseAvmGroup(payload);
    if (!parsed.ok) return fail(parsed.reason);
    const { entries, index } = parsed;
    const payment = entries[index];
    if (!payment) return fail(avmReasons.paymentIndex);
    const payer = payment.txn.sender.toString();

    // Group: one id over exactly these transactions (or a lone, ungrouped transfer).
    const txns = entries.map((e) => e.txn);
    if (entries.length > 1) {
      const expected = computeGroupID(txns.map((t) => withoutGroup(t)));
      if (!txns.every((t) => sameBytes(t.group, expected))) return fail(avmReasons.invalidGroupId, payer);
    } else if (payment.txn.group !== undefined && payment.txn.group.some((b) => b !== 0)) {
      return fail(avmReasons.invalidGroupId, payer);
    }

    // Every transaction: this network, open validity window.
    const params = await algod.params();
    if (params.genesisHash !== network.genesisHash) return fail(avmReasons.networkMismatch, payer);
    const genesis = Buffer.from(network.genesisHash, "base64");
    for (const { txn } of entries) {
      if (!sameBytes(txn.genesisHash, genesis)) return fail(avmReasons.networkMismatch, payer);
      if (txn.firstValid > params.lastRound + 1n || txn.lastValid <= params.lastRound) return fail(avmReasons.invalidValidity, payer);
    }

    // The payment: an asset transfer of exactly the price, to payTo, in the asset, signed by its sender.
    if (feePayerAddress !== undefined && payer === feePayerAddress) return fail(avmReasons.facilitatorTransferring, payer);
    const transfer = payment.txn.assetTransfer;
    if (payment.txn.type !== "axfer" || !transfer) return fail(avmReasons.notAssetTransfer, payer);
    if (transfer.assetIndex.toString() !== requirements.asset) return fail(avmReasons.assetMismatch, payer);
    if (transfer.receiver.toString() !== requirements.payTo) return fail(avmReasons.receiverMismatch, payer);
    if (transfer.amount.toString() !== requirements.amount) return fail(avmReasons.amountMismatch, payer);
    if (transfer.closeRemainderTo !== undefined || transfer.assetSender !== undefined || payment.txn.rekeyTo !== undefined) {
      return fail(avmReasons.invalidTransaction, payer);
    }
    if (!payment.signed) return fail(avmReasons.paymentNotSigned, payer);
    // Single ed25519 keys only (spec: Falcon and other schemes are not supported as payers).
    if (!payment.signed.sig || payment.signed.sgnr !== undefined) return fail(avmReasons.invalidSignature, payer);
    if (!isValidEd25519(payment.txn.bytesToSign(), payment.signed.sig, payment.txn.sender.publicKey)) return fail(avmReasons.invalidSignature, payer);

    // The rest: only our fee-payer transactions, paying fees and nothing else.
    for (const [i, entry] of entries.entries()) {
      if (i === index) continue;
      const sender = entry.txn.sender.toString();
      if (sender !== feePayerAddress) return fail(entry.signed ? avmReasons.invalidTransaction : avmReasons.unsignedNonFacilitator, payer);
      const pay = entry.txn.payment;
      if (entry.txn.type !== "pay" || !pay || pay.amount !== 0n) return fail(avmReasons.invalidFeePayer, payer);
      if (pay.receiver.toString() !== sender || pay.closeRemainderTo !== undefined || entry.txn.rekeyTo !== undefined) return fail(avmReasons.invalidFeePayer, payer);
      if (entry.txn.fee > MAX_FEE_PER_TXN * BigInt(entries.length)) return fail(avmReasons.feeTooHigh, payer);
    }

    const balance = await algod.assetHolding(payer, requirements.asset);
    if (balance === undefined || balance < BigInt(requirements.amount)) return fail(avmReasons.insufficientFunds, payer);
    return { ok: true, entries, index, payer };
  }

  async function verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse> {
    try {
      const checked = await check(payload, requirements);
      return checked.ok ? { isValid: true, payer: checked.payer } : checked.response;
    } catch {
      return { isValid: false, invalidReason: avmReasons.unexpectedVerifyError };
    }
  }

  async function waitForConfirmation(txid: string): Promise<"confirmed" | "pending" | string> {
    const deadline = Date.now() + options.confirmationTimeoutMs;
    for (;;) {
      const status = await algod.pending(txid);
      if (status.kind === "confirmed") return "confirmed";
      if (status.kind === "rejected") return status.message;
      if (Date.now() + pollMs > deadline) return "pending";
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }

  async function settle(payload: PaymentPayload, requirements: PaymentRequirements, hooks?: SettleHooks): Promise<SettleResponse> {
    const base = { network: network.network, amount: requirements.amount };
    if (!feePayer) return { ...base, success: false, transaction: "", errorReason: avmReasons.settlementFailed, errorMessage: "no fee payer key" };
    let checked: Checked;
    try {
      checked = await check(payload, requirements);
    } catch {
      return { ...base, success: false, transaction: "", errorReason: avmReasons.settlementFailed, errorMessage: "algod unavailable" };
    }
    if (!checked.ok) return { ...base, success: false, transaction: "", payer: checked.response.payer, errorReason: checked.response.invalidReason ?? avmReasons.settlementFailed };
    const { entries, index, payer } = checked;
    const signedGroup = entries.map((entry, i) => (i === index ? entry.bytes : entry.txn.signTxn(feePayer.sk)));
    const group = new Uint8Array(Buffer.concat(signedGroup));
    const transaction = entries[index]?.txn.txID() ?? "";
    hooks?.onSubmitted?.(transaction);
    const submitted = await algod.submit(group);
    if (submitted.kind === "rejected") return { ...base, success: false, transaction: "", payer, errorReason: avmReasons.settlementFailed, errorMessage: submitted.message };
    if (submitted.kind === "unknown") return { ...base, success: false, transaction, payer, errorReason: avmReasons.settlementPending, errorMessage: submitted.message };
    const outcome = await waitForConfirmation(transaction);
    if (outcome === "confirmed") return { ...base, success: true, transaction, payer };
    if (outcome === "pending") return { ...base, success: false, transaction, payer, errorReason: avmReasons.settlementPending };
    return { ...base, success: false, transaction, payer, errorReason: avmReasons.confirmationFailed, errorMessage: outcome };
  }

  async function checkSettlement(pending: PendingSettlement): Promise<SettlementCheck> {
    const txid = pending.transaction ?? pending.nonce.toUpperCase();
    const status = await algod.pending(txid);
    if (status.kind === "confirmed") return { state: "settled", transaction: txid };
    if (status.kind === "rejected") return { state: "failed", reason: avmReasons.confirmationFailed };
    // algod forgets transactions some rounds after they leave the pool; without an indexer "unknown" stays pending.
    return pending.transaction ? { state: "pending" } : { state: "unused" };
  }

  return {
    scheme: "exact",
    family: "avm",
    network: network.network,
    requirementsExtra: () => (feePayerAddress ? { feePayer: feePayerAddress } : {}),
    verify,
    settle,
    checkSettlement,
    signers: () => (feePayerAddress ? [feePayerAddress] : []),
  };
}

/** A copy with the group id removed: the group id is computed over the transactions without it. */
function withoutGroup(txn: Transaction): Transaction {
  const copy = decodeUnsignedTransaction(encodeUnsignedTransaction(txn));
  copy.group = undefined;
  return copy;
}
