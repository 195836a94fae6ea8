/**
 * @module a2a/executor — the A2A agent over the paid-call core, with the A2A x402 extension's
 * standalone flow (google-agentic-commerce/a2a-x402 spec v0.2; x402 specs/transports-v2/a2a.md):
 * a message names a skill and carries its input as a data part; a paid skill first answers
 * `input-required` with `x402.payment.status: "payment-required"` and the offer in
 * `x402.payment.required`; the next message on that task brings `payment-submitted` and the
 * `x402.payment.payload`, which must answer the offer made on that task (its resource carries the
 * task's own offer id; its terms are one of those offered); the core then verifies, runs, settles. Completed: `payment-completed` with `x402.payment.receipts`. Any
 * failure: `failed` with `payment-failed` and no artifact (a failed settlement releases nothing).
 * `payment-rejected` cancels the task. Each turn (one message on a task) returns the whole task
 * as it stands after the turn; the request handler (request-handler.ts) saves and answers it.
 */
import { randomBytes } from "node:crypto";
import { TaskState } from "@a2a-js/sdk";
import { ApiError, toApiError } from "../errors.ts";
import type { PaidCall } from "../paid-call/call.ts";
import type { QueuedJob } from "../paid-call/job-queue.ts";
import { type SellDeps, sell } from "../paid-call/sell.ts";
import type { Charge, Payments } from "../paid-call/payments.ts";
import { noPayment, presentValue } from "../x402/presented-payment.ts";
import type { PaymentAnswer } from "../x402/payment-answer.ts";
import { reasonOf } from "../x402/payment-answer.ts";
import type { PaymentRequired, SettleResponse } from "../x402/messages.ts";
import { agentMessage, dataPart, ERROR_KEY, JOB_KEY, type Message, ORDER_KEY, PAYLOAD_KEY, RECEIPTS_KEY, REQUIRED_KEY, resultArtifact, STATUS_KEY, type Task, textPart } from "./parts.ts";
import { routeText, textSkills } from "./free-text.ts";
import { A2A_PATH, type A2aSkill } from "./skills.ts";

/** The transport facts of one call, put in the SDK's call context state by the endpoint. */
export interface A2aCallFacts {
  readonly requestId: string;
  readonly clientAddress: () => string;
  readonly origin: string;
  readonly signal: AbortSignal;
  readonly report: { operationId?: string; outcome?: string; paymentInBody?: boolean };
}
export const CALL_FACTS = "tollbooth.call";

export interface A2aExecutorDeps {
  /** How a call is sold (its queue takes async skills). */
  readonly operation: SellDeps;
  readonly payments: Payments;
  readonly byId: ReadonlyMap<string, A2aSkill>;
}

/** One message on a task: the task as stored before it (none for a new task) and the history with this message last. */
export interface TaskTurn {
  readonly taskId: string;
  readonly contextId: string;
  readonly task: Task | undefined;
  readonly message: Message;
  readonly history: readonly Message[];
  readonly facts: A2aCallFacts;
}

/** The agent: one turn in, the whole task after it out (never throws: a fault ends the task failed). */
export interface A2aAgent {
  execute(turn: TaskTurn): Promise<Task>;
}

interface Order {
  readonly skill: string;
  readonly input: Record<string, unknown>;
  /**
   * The resource the task's offer names: the skill's A2A URL with an offer id of its own, so a
   * payment made for another task's offer (whose terms may be the very same) does not pay this one.
   * (Absent on tasks stored before issue 40: the skill's URL.)
   */
  readonly resourceUrl?: string;
  /** Made from a text-only message (free-text.ts) rather than a data part. */
  readonly fromText?: boolean;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** What to send instead, naming the card's skills and those that take plain text. */
function dataHint(byId: ReadonlyMap<string, A2aSkill>): string {
  const takers = textSkills(byId);
  return `Send a data part naming a skill and carrying its input, e.g. {"skill": "web.read", "url": "https://example.com"}. Skills (the agent card's ids): ${[...byId.keys()].join(", ")}.${takers.length > 0 ? ` Plain text goes to a skill that takes it: ${takers.join(", ")}.` : ""}`;
}

/**
 * The order a new message places: the skill it names (`skill` in the data part or the message
 * metadata) and the rest of the data part as input; without a data part, the skill its text goes to
 * (free-text.ts) and the input that skill makes of it.
 */
function orderOf(message: Message, byId: ReadonlyMap<string, A2aSkill>): Order | { readonly problem: string } {
  const data = message.parts.map((p) => (p.content?.$case === "data" ? p.content.value : undefined)).find(isObject);
  const named = (data?.skill ?? message.metadata?.skill) as unknown;
  if (!data) {
    const text = message.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("\n").trim();
    const route = text ? routeText(text, typeof named === "string" ? named : undefined, byId) : ({ kind: "none" } as const);
    switch (route.kind) {
      case "routed":
        return { skill: route.skill, input: route.input, fromText: true };
      case "ambiguous":
        return { problem: `This text could go to ${route.skills.join(" or ")}: name one in the message metadata ("skill"). ${dataHint(byId)}` };
      case "refused":
        return { problem: `${byId.has(route.skill) ? `${route.skill} does not take this text` : `No skill "${route.skill.slice(0, 100)}"`}. ${dataHint(byId)}` };
      case "none":
        return { problem: dataHint(byId) };
    }
  }
  if (typeof named !== "string" || !byId.has(named)) {
    return { problem: `${typeof named === "string" ? `No skill "${named.slice(0, 100)}"` : 'The data part names no skill (a "skill" field)'}. Skills (the agent card's ids): ${[...byId.keys()].join(", ")}.` };
  }
  const { skill: _skill, ...input } = data;
  return { skill: named, input };
}

/**
 * Whether a payload answers this task's offer: it names the offer's resource (the task's own offer
 * id, echoed by x402 clients from `x402.payment.required`) and `accepted` is one of the offered
 * terms, field for field (a payload for cheaper input names a smaller amount).
 */
function paysOffered(payload: unknown, offered: unknown): boolean {
  if (!isObject(payload) || !isObject(payload.accepted) || !isObject(offered) || !Array.isArray(offered.accepts)) return false;
  const accepted = payload.accepted;
  const resourceOf = (value: Record<string, unknown>) => (isObject(value.resource) ? value.resource.url : undefined);
  if (resourceOf(payload) === undefined || resourceOf(payload) !== resourceOf(offered)) return false;
  return offered.accepts.some((term) => isObject(term) && ["scheme", "network", "amount", "asset", "payTo"].every((k) => term[k] === accepted[k]));
}

/** The resource a new order is offered under: the skill's A2A URL and a fresh offer id (128 random bits). */
const offerResource = (origin: string, skill: string) => `${new URL(A2A_PATH, origin).toString()}?skill=${encodeURIComponent(skill)}&offer=${randomBytes(16).toString("hex")}`;

export function createA2aExecutor(deps: A2aExecutorDeps): A2aAgent {
  const publish = (turn: TaskTurn, state: TaskState, message: Message, extra: { artifacts?: Task["artifacts"]; order?: Order; jobId?: string } = {}): Task => {
    const previous = turn.task;
    return {
      id: turn.taskId,
      contextId: turn.contextId,
      status: { state, message, timestamp: new Date().toISOString() },
      artifacts: extra.artifacts ?? [],
      history: [...turn.history],
      metadata: { ...(previous?.metadata ?? {}), ...(extra.order ? { [ORDER_KEY]: extra.order } : {}), ...(extra.jobId ? { [JOB_KEY]: extra.jobId } : {}) },
    };
  };

  const inputRequired = (turn: TaskTurn, text: string) => publish(turn, TaskState.TASK_STATE_INPUT_REQUIRED, agentMessage(turn, [textPart(text)]));

  const failed = (turn: TaskTurn, error: ApiError, paid: boolean, settlement?: SettleResponse) =>
    publish(
      turn,
      TaskState.TASK_STATE_FAILED,
      agentMessage(turn, [textPart(error.message), dataPart(error.toBody(turn.facts.requestId))], paid ? { [STATUS_KEY]: "payment-failed", [ERROR_KEY]: error.code, ...(settlement ? { [RECEIPTS_KEY]: [settlement] } : {}) } : undefined),
    );

  /** Runs the order through the core with the payment (if any) as the message carried it. */
  async function run(turn: TaskTurn, order: Order, payload: unknown): Promise<Task> {
    const facts = turn.facts;
    const skill = deps.byId.get(order.skill)!;
    facts.report.operationId = skill.entry.id;
    const paid = payload !== undefined;
    const call: PaidCall = {
      requestId: facts.requestId,
      clientAddress: facts.clientAddress,
      origin: facts.origin,
      signal: facts.signal,
      payment: paid ? presentValue(payload) : noPayment,
      alwaysOffer: true,
      report: facts.report,
    };
    const resourceUrl = order.resourceUrl ?? `${new URL(A2A_PATH, facts.origin).toString()}?skill=${encodeURIComponent(order.skill)}`;
    const completed = (result: unknown, settlement: SettleResponse | undefined) =>
      publish(turn, TaskState.TASK_STATE_COMPLETED, agentMessage(turn, [textPart(`${order.skill} completed.`)], settlement ? { [STATUS_KEY]: "payment-completed", [RECEIPTS_KEY]: [settlement] } : undefined), {
        artifacts: [resultArtifact(order.skill, result)],
      });
    const answered = async (answer: PaymentAnswer, charge: Charge): Promise<Task> => {
      if (answer.kind === "replayed") return completed(answer.held.body, undefined);
      if (paid) {
        const error = new ApiError(answer.code, { message: `${answer.message ?? new ApiError(answer.code).message} (${reasonOf(answer)}). Nothing was released.` });
        return failed(turn, error, true, answer.settlement);
      }
      const required: PaymentRequired = answer.required ?? (await deps.payments.offer(charge, reasonOf(answer)));
      return publish(
        turn,
        TaskState.TASK_STATE_INPUT_REQUIRED,
        agentMessage(turn, [textPart(`Payment required for ${order.skill}: sign one of x402.payment.required's accepts and send it on this task as x402.payment.payload with x402.payment.status "payment-submitted".`)], {
          [STATUS_KEY]: "payment-required",
          [REQUIRED_KEY]: required,
        }),
        { order },
      );
    };
    try {
      const outcome = await sell<never, QueuedJob>(deps.operation, call, { entry: skill.entry, input: order.input, resourceUrl, ...(skill.kind === "plugin" ? { route: `A2A ${order.skill}` } : {}) });
      switch (outcome.kind) {
        case "answer":
          return await answered(outcome.answer, outcome.charge);
        case "done":
          return completed(outcome.result, outcome.settlement);
        case "instead":
          throw new Error("A2A calls take no afterAdmit");
        case "accepted": {
          // An async skill runs as a job: the task stays working, and tasks/get follows the job (job-tasks.ts).
          const job = outcome.job;
          const metadata = job.settlement ? { [STATUS_KEY]: "payment-completed", [RECEIPTS_KEY]: [job.settlement] } : paid ? { [STATUS_KEY]: "payment-verified" } : undefined;
          return publish(turn, TaskState.TASK_STATE_WORKING, agentMessage(turn, [textPart(`${order.skill} runs as job ${job.id}: poll this task with tasks/get (or GET /v1/jobs/${job.id}).`), dataPart({ job_id: job.id, status: job.status })], metadata), { jobId: job.id });
        }
      }
    } catch (error) {
      const failure = toApiError(error);
      facts.report.outcome = failure.code;
      if (failure.code === "INTERNAL_ERROR") deps.operation.log.error("internal error", { request_id: facts.requestId, error: error instanceof Error ? error.message : String(error) });
      // Input the skill refuses can be sent again on the same task; anything else ends it.
      if (failure.status === 400 && !paid) return inputRequired(turn, `${failure.message} Send a corrected data part on this task.`);
      // A skill the text went to that cannot run here (no model): the caller may still choose another.
      if (order.fromText && failure.code === "SKILL_UNAVAILABLE" && !paid) return inputRequired(turn, `Your text went to ${order.skill}, which cannot run here: ${failure.message} ${dataHint(deps.byId)}`);
      return failed(turn, failure, paid);
    }
  }

  /** A turn on a task that offered a payment: the client pays, rejects, or says something else (the offer stays open). */
  function paymentTurn(turn: TaskTurn, offered: unknown, order: Order): Promise<Task> | Task {
    const { message, facts } = turn;
    const said = message.metadata?.[STATUS_KEY];
    if (said === "payment-rejected") {
      facts.report.outcome = "payment_rejected";
      return publish(turn, TaskState.TASK_STATE_CANCELED, agentMessage(turn, [textPart("Payment rejected by the client: the task is canceled and nothing was charged.")], { [STATUS_KEY]: "payment-rejected" }));
    }
    if (said !== "payment-submitted") return publish(turn, TaskState.TASK_STATE_INPUT_REQUIRED, turn.task!.status!.message!);
    facts.report.paymentInBody = true;
    const payload = message.metadata?.[PAYLOAD_KEY];
    if (!paysOffered(payload, offered)) {
      facts.report.outcome = "payment_mismatch";
      const error = new ApiError("PAYMENT_INVALID", { message: "The x402.payment.payload does not answer this task's offer: its resource must be the offer's (x402.payment.required.resource) and its accepted terms one of the offer's accepts. Nothing was charged." });
      return failed(turn, error, true);
    }
    return run(turn, order, payload);
  }

  async function execute(turn: TaskTurn): Promise<Task> {
    const status = turn.task?.status;
    const offered = status?.message?.metadata?.[STATUS_KEY] === "payment-required" ? status.message.metadata[REQUIRED_KEY] : undefined;
    const order = turn.task?.metadata?.[ORDER_KEY] as Order | undefined;
    if (offered !== undefined && order && status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) return paymentTurn(turn, offered, order);
    const placed = orderOf(turn.message, deps.byId);
    if ("problem" in placed) return inputRequired(turn, placed.problem);
    return run(turn, { ...placed, resourceUrl: offerResource(turn.facts.origin, placed.skill) }, undefined);
  }

  return {
    async execute(turn) {
      try {
        return await execute(turn);
      } catch (error) {
        // run() answers every failure of the work itself; this is a fault around it (e.g. a task whose skill is gone after a restart).
        turn.facts.report.outcome = "INTERNAL_ERROR";
        deps.operation.log.error("internal error", { request_id: turn.facts.requestId, error: error instanceof Error ? error.message : String(error) });
        return failed(turn, new ApiError("INTERNAL_ERROR"), turn.message.metadata?.[STATUS_KEY] === "payment-submitted");
      }
    },
  };
}
