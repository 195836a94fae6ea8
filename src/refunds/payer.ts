/**
 * @module refunds/payer — pays refunds due from the refund account of the job's network,
 * exactly once, across concurrent passes and restarts:
 *
 *   due ──claim (atomic)──▶ sending ──sign, record tx+bytes, broadcast──▶ confirmed ──▶ paid
 *   sending + recorded tx:  only these bytes are ever re-broadcast; released back to due only
 *                           when the chain shows they can never land (then a new one is signed)
 *   sending, nothing signed, claim stale: released (a crash between claim and record)
 *
 * Every state change is a compare-and-set on the row (claim, transaction), so two passes — in
 * this process or another one on the same database — cannot both sign, and a stale one's writes
 * fall through. Refunds whose settlement is uncertain (settled_at unset) are never paid here.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "../log.ts";
import { refundAmountAtomic, RefundRefused, type RefundCheck, type RefundSender, type SignedRefund } from "../x402/refund.ts";
import type { RefundLedger, RefundWork } from "./ledger.ts";

export type RefundAttempt =
  | { readonly kind: "paid"; readonly transaction: string }
  /** Sent (or possibly sent); a later pass confirms it. */
  | { readonly kind: "pending"; readonly transaction: string }
  /** Nothing landed; it is due again and the next pass retries. */
  | { readonly kind: "failed"; readonly error: string }
  /** Nobody can tell whether its transaction landed: the operator checks it. */
  | { readonly kind: "held"; readonly transaction: string; readonly reason: string }
  /** Not this pass's to pay (another pass holds it, no sender for its network, or not owed). */
  | { readonly kind: "skipped" };

export interface RefundPassResult {
  readonly paid: number;
  readonly pending: number;
  readonly failed: number;
  readonly held: number;
}

export interface RefundPayer {
  /** Whether refunds on this network are paid automatically (a refund key is configured). */
  covers(network: string | null): boolean;
  /** Pays (or advances) the refund of one row (a job id, a commitment id). */
  pay(id: string): Promise<RefundAttempt>;
  /** Pays every unpaid refund it covers: unsent, failed and pending ones. */
  pass(): Promise<RefundPassResult>;
  /** Starts nothing more (in-flight work finishes; a later start reconciles it). */
  stop(): void;
}

export interface RefundPayerDeps {
  /** Where the refunds are owed: the jobs table, or another ledger with the same columns. */
  readonly ledger: RefundLedger;
  /** The log field naming a row (default `job_id`). */
  readonly idField?: string;
  readonly senders: ReadonlyMap<string, RefundSender>;
  readonly log: Logger;
  /** How long one attempt waits for its transaction to confirm before leaving it to a later pass. */
  readonly confirmationTimeoutMs: number;
  /** A claim with nothing signed under it, older than this, was abandoned. */
  readonly staleClaimMs?: number;
  readonly now?: () => Date;
}

export function createRefundPayer(deps: RefundPayerDeps): RefundPayer {
  const { ledger: jobs, senders, log } = deps;
  const idField = deps.idField ?? "job_id";
  const now = deps.now ?? (() => new Date());
  const staleClaimMs = deps.staleClaimMs ?? 120_000;
  const networks = [...senders.keys()];
  /** Jobs being worked on in this process: one attempt at a time per job. */
  const busy = new Set<string>();
  let stopped = false;

  async function settleCheck(work: RefundWork, signed: SignedRefund, check: RefundCheck, broadcastError?: string): Promise<RefundAttempt> {
    switch (check.state) {
      case "confirmed":
        await jobs.markRefundSent(work.id, signed.transaction, now());
        log.info("refund paid", { [idField]: work.id, network: work.network, payer: work.payer, transaction: signed.transaction });
        return { kind: "paid", transaction: signed.transaction };
      case "dead":
        await jobs.releaseRefund(work.id, { claim: work.claim, transaction: signed.transaction }, `${signed.transaction} did not land: ${check.reason}`);
        log.warn("refund transaction did not land; due again", { [idField]: work.id, transaction: signed.transaction, reason: check.reason });
        return { kind: "failed", error: check.reason };
      case "unknown":
        await jobs.noteRefundError(work.id, `check ${signed.transaction} by hand: ${check.reason}`);
        log.warn("refund needs the operator", { [idField]: work.id, transaction: signed.transaction, reason: check.reason });
        return { kind: "held", transaction: signed.transaction, reason: check.reason };
      case "pending":
        await jobs.noteRefundError(work.id, broadcastError ? `awaiting confirmation (last send: ${broadcastError})` : "awaiting confirmation");
        return { kind: "pending", transaction: signed.transaction };
    }
  }

  /** Broadcasts exactly the recorded bytes, then waits for the chain's answer. */
  async function sendRecorded(work: RefundWork, sender: RefundSender, signed: SignedRefund): Promise<RefundAttempt> {
    const sent = await sender.broadcast(signed);
    const check = await sender.check(signed, deps.confirmationTimeoutMs);
    return settleCheck(work, signed, check, sent.kind === "error" ? sent.message : undefined);
  }

  async function payDue(work: RefundWork, sender: RefundSender): Promise<RefundAttempt> {
    const claim = randomUUID();
    if (!(await jobs.claimRefund(work.id, claim, now()))) return { kind: "skipped" };
    const claimed: RefundWork = { ...work, state: "sending", claim, claimedAt: now().toISOString(), signed: null };
    let signed: SignedRefund;
    try {
      signed = await sender.sign({ reference: work.id, payer: work.payer, amount: refundAmountAtomic(work.priceMicros, sender.decimals) });
    } catch (error) {
      const message = error instanceof RefundRefused ? error.message : `cannot sign the refund: ${(error as Error).message}`;
      await jobs.releaseRefund(work.id, { claim, transaction: null }, message);
      log.warn("refund not sent", { [idField]: work.id, network: work.network, error: message });
      return { kind: "failed", error: message };
    }
    // Recorded before it is sent: whatever happens next, a later pass finds this transaction.
    if (stopped || !(await jobs.recordRefundTx(work.id, claim, signed))) {
      sender.discard(signed);
      return { kind: "skipped" };
    }
    return sendRecorded({ ...claimed, signed }, sender, signed);
  }

  async function advance(work: RefundWork): Promise<RefundAttempt> {
    const sender = senders.get(work.network);
    if (!sender) return { kind: "skipped" };
    if (work.state === "due") return payDue(work, sender);
    if (work.signed) {
      const check = await sender.check(work.signed);
      if (check.state !== "pending") return settleCheck(work, work.signed, check);
      return sendRecorded(work, sender, work.signed);
    }
    // Claimed, nothing signed: another pass is signing it, or one died before recording.
    const claimedAt = work.claimedAt ? Date.parse(work.claimedAt) : 0;
    if (now().getTime() - claimedAt < staleClaimMs) return { kind: "skipped" };
    if (!(await jobs.releaseRefund(work.id, { claim: work.claim, transaction: null }, "an earlier attempt stopped before signing"))) return { kind: "skipped" };
    return payDue({ ...work, state: "due", claim: null, claimedAt: null }, sender);
  }

  async function attempt(work: RefundWork): Promise<RefundAttempt> {
    if (stopped || busy.has(work.id)) return { kind: "skipped" };
    busy.add(work.id);
    try {
      return await advance(work);
    } catch (error) {
      // A node or database error mid-way: the row says where it stands; the next pass resumes.
      const message = (error as Error).message;
      if (!stopped) log.warn("refund attempt failed", { [idField]: work.id, network: work.network, error: message });
      try {
        if (!stopped) await jobs.noteRefundError(work.id, message.slice(0, 200));
      } catch {
        // the store may be closing
      }
      return { kind: "failed", error: message };
    } finally {
      busy.delete(work.id);
    }
  }

  return {
    covers: (network) => network !== null && senders.has(network),
    async pay(id) {
      if (stopped || networks.length === 0) return { kind: "skipped" };
      const work = (await jobs.refundWork(networks)).find((w) => w.id === id);
      return work ? attempt(work) : { kind: "skipped" };
    },
    async pass() {
      const counts = { paid: 0, pending: 0, failed: 0, held: 0 };
      if (stopped || networks.length === 0) return counts;
      // One at a time: refunds are rare, and a shared EVM key wants its nonces in order.
      for (const work of await jobs.refundWork(networks)) {
        if (stopped) break;
        const outcome = await attempt(work);
        if (outcome.kind !== "skipped") counts[outcome.kind]++;
      }
      if (counts.paid || counts.failed || counts.held) log.info("refund pass", counts);
      return counts;
    },
    stop() {
      stopped = true;
    },
  };
}
