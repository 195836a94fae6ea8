/**
 * @module a2a/module — the A2A face as a feature module: its tasks table, the sweep that purges
 * finished tasks a week after their last change, and POST /a2a, an agent door (the front checks Host
 * and Origin first). The skill map is built at start; the A2A SDK loads with the first request.
 */
import { defineModule, type ModuleDeps } from "../module/define.ts";
import type { SellDeps } from "../paid-call/sell.ts";
import type { Payments } from "../paid-call/payments.ts";
import type { Registry } from "../plugin/registry.ts";
import { contextOf } from "../http/request-context.ts";
import type { A2aHandler } from "./endpoint.ts";
import { A2A_PATH, a2aSkillsOf } from "./skills.ts";
import { a2aTaskRetentionMs, createA2aTaskStore } from "./task-store.ts";
import { tables } from "./tables.ts";

/** What the agent doors (A2A, MCP) ask of the running server: the sellable entries and how a call is sold. */
export interface AgentDoorDeps extends ModuleDeps {
  readonly registry: Registry;
  /** How a call is sold: the paid-call core with the job queue the app wired in. */
  readonly operation: SellDeps;
  readonly payments: Payments;
  readonly productVersion: string;
  /** --public-url, else the caller's validated Host. */
  readonly baseUrl: (request: Request) => string;
}

export default defineModule({
  id: "a2a",
  tables,
  serve: ({ registry, store, now, operation, payments, services, productVersion, baseUrl }: AgentDoorDeps) => {
    const { jobs } = services;
    const byId = a2aSkillsOf(registry);
    const tasks = createA2aTaskStore(store.a2aTasks, now);
    let endpoint: Promise<A2aHandler> | undefined;
    const handle = async (request: Request) => {
      endpoint ??= import("./endpoint.ts").then(({ createA2aEndpoint }) =>
        createA2aEndpoint({ byId, tasks, jobStatus: jobs.status, productVersion, publicUrl: baseUrl, operation, payments }),
      );
      return (await endpoint)(request, contextOf(request));
    };
    return { routes: [{ method: "POST", path: A2A_PATH, door: true, handle }] };
  },
  // Finished A2A tasks a week after their last change (their owner may still poll them until then).
  sweep: { everyMs: 60_000, run: (store, now) => store.a2aTasks.purgeFinished(new Date(now.getTime() - a2aTaskRetentionMs)) },
});
