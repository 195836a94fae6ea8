/**
 * A scripted model for custom-work tests, served by the loopback Chat Completions server: the
 * quote review (a structured call) answers from `review`, a run's planner reads the pages it is
 * told to (and tries one host the goal did not name), and the writer answers.
 */
import { type ChatReply, type ChatRequestRecord, offeredTools, requestText } from "../support/chat-server.ts";

export interface ModelScript {
  /** The review's JSON answer, or a scripted failure. */
  review: { tier: string; policy_problem: string | null } | { status: number };
  /** URLs the planner reads, one per step; then it stops calling tools. */
  reads: string[];
  /** A URL on a host the goal never named: the planner tries it first. */
  offHost?: string;
  /** The writer's answer, or a scripted failure for every run call. */
  answer: string | { status: number };
}

export const isReview = (r: ChatRequestRecord) => requestText(r).includes("You estimate the size of one fixed-price");

export function scriptedModel(script: ModelScript): (r: ChatRequestRecord) => ChatReply {
  return (r) => {
    if (isReview(r)) return "status" in script.review ? { status: script.review.status } : { content: JSON.stringify(script.review) };
    if (typeof script.answer !== "string") return { status: script.answer.status };
    if (!offeredTools(r)) return { content: script.answer };
    const done = r.body.messages.filter((m) => m.role === "tool").length;
    const plan = [...(script.offHost ? [script.offHost] : []), ...script.reads];
    if (done < plan.length) return { toolCalls: [{ name: "web_read", arguments: JSON.stringify({ url: plan[done] }) }] };
    return { content: "Plan done: write the answer from the pages read." };
  };
}
