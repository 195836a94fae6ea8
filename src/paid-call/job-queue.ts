/**
 * @module paid-call/job-queue — the port through which a sale reaches the job queue. The jobs room
 * implements it (jobs/worker.ts) and the app wires it in, so a skill call goes edge → paid-call →
 * queue, top to bottom, without the paid-call core knowing the tables behind it.
 */
import type { SkillEntry } from "../plugin/registry.ts";
import type { SettleResponse } from "../x402/messages.ts";
import type { PaymentAnswer } from "../x402/payment-answer.ts";
import type { AcceptedPayment } from "./payments.ts";

/** What a transport tells the caller of an accepted job. */
export interface QueuedJob {
  readonly id: string;
  readonly status: string;
  /** The settlement when the job was settled at acceptance (else null: it settles on completion). */
  readonly settlement: SettleResponse | null;
}

/** An async skill call, paid (or free) and admitted: the queue keeps it and runs it. */
export interface QueuedSale {
  /** The job's id when the sale made it already (a one-use resource was claimed under it). */
  readonly id?: string;
  readonly entry: SkillEntry;
  readonly value: unknown;
  readonly payment: AcceptedPayment;
  readonly caller: string;
  readonly priceMicros: number;
  readonly requestId: string;
  /** The base URL the caller reached (signed evidence names it as the server). */
  readonly origin?: string;
}

export type QueueAnswer<J extends QueuedJob = QueuedJob> =
  | { readonly kind: "accepted"; readonly job: J }
  /** Settlement at acceptance failed: this answer replaces the acceptance and no job exists. */
  | { readonly kind: "answer"; readonly answer: PaymentAnswer };

/** A sync skill call as the queue's records count it (every sale is in the trust figures). */
export interface SyncSale {
  readonly skill: string;
  readonly status: "completed" | "failed" | "expired";
  readonly caller: string;
  readonly payer: string | null;
  readonly network: string | null;
  readonly priceMicros: number;
  readonly settleMode: "completion" | "free";
  readonly requestId: string;
  readonly createdAt: Date;
  readonly startedAt: Date;
  readonly finishedAt: Date;
  readonly settled: boolean;
  readonly errorCode: string | null;
}

export interface JobQueue<J extends QueuedJob = QueuedJob> {
  /** Whether one more job may wait in the queue. */
  hasRoom(): Promise<boolean>;
  /** Seconds a caller refused for a full queue should wait. */
  retryAfterSec(): Promise<number>;
  /** The time a skill is given to run (its own timeout within the server's job timeout). */
  effectiveTimeoutMs(entry: SkillEntry): number;
  /** A fresh job id (the only key to its result). */
  newJobId(): string;
  accept(sale: QueuedSale): Promise<QueueAnswer<J>>;
  /** Records a sync call once it ended; a record that cannot be written is logged, never thrown. */
  recordSync(sale: SyncSale): Promise<void>;
}
