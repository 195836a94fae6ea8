/**
 * @module a2a/request-handler — the SDK's `A2ARequestHandler` for this agent, under both of the
 * SDK's JSON-RPC transport handlers (v1.0 and the v0.3 compatibility one), in place of its
 * `DefaultRequestHandler`: a message is one turn of
 * the agent (executor.ts), which returns the whole task; the task is loaded once, saved once and
 * answered. (The default handler carries each turn through an event bus and a result manager that
 * reload and deep-copy the task per event: most of the cost of a free call over A2A.)
 * Turns on one task run one at a time, so two payments sent at once on a task cannot both run it.
 * A stream answers the same turn: the task working, its artifacts, then its final status. A task
 * is found by its id alone, the only key to it (task-store.ts), so tasks are not listed. Push
 * notifications, resubscription and the extended card are not served.
 */
import { randomUUID } from "node:crypto";
import { type AgentCard, TaskState } from "@a2a-js/sdk";
import { PushNotificationNotSupportedError, RequestMalformedError, TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import type { A2ARequestHandler, ServerCallContext } from "@a2a-js/sdk/server";
import { type A2aAgent, type A2aCallFacts, CALL_FACTS, type TaskTurn } from "./executor.ts";
import { agentMessage, type Message, type Task, textPart } from "./parts.ts";
import type { A2aTasks } from "./task-store.ts";

type SendParams = Parameters<A2ARequestHandler["sendMessage"]>[0];

export interface A2aRequestHandlerDeps {
  /** What the SDK's transport handler reads of the card (capabilities); the public card is served elsewhere. */
  readonly card: AgentCard;
  readonly tasks: A2aTasks;
  readonly agent: A2aAgent;
}

const TERMINAL: ReadonlySet<TaskState> = new Set([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED]);
const isTerminal = (task: Task) => task.status !== undefined && TERMINAL.has(task.status.state);

function requireTaskId(id: string | undefined): string {
  if (!id || id.trim() === "") throw new RequestMalformedError("Task ID is required");
  return id;
}

/** `historyLength`: absent keeps all, 0 or less none, N the last N messages. */
function trimHistory(task: Task, historyLength: number | undefined): Task {
  if (historyLength === undefined) return task;
  return { ...task, history: historyLength <= 0 ? [] : task.history.slice(-historyLength) };
}

export function createA2aRequestHandler(deps: A2aRequestHandlerDeps): A2ARequestHandler {
  const { tasks, agent } = deps;
  // The tail of the turns queued on each task id; an entry lives while a turn does.
  const turnsOn = new Map<string, Promise<void>>();
  /** Waits for the turns before on this task; the answer ends this one. */
  async function turnSlot(key: string): Promise<() => void> {
    const before = turnsOn.get(key);
    let end!: () => void;
    const mine = new Promise<void>((resolve) => (end = resolve));
    const tail = before ? before.then(() => mine) : mine;
    turnsOn.set(key, tail);
    await before;
    return () => {
      end();
      if (turnsOn.get(key) === tail) turnsOn.delete(key);
    };
  }
  async function oneAtATime<T>(taskId: string | undefined, work: () => Promise<T>): Promise<T> {
    if (!taskId) return work();
    const done = await turnSlot(taskId);
    try {
      return await work();
    } finally {
      done();
    }
  }

  async function loadTask(taskId: string, context: ServerCallContext): Promise<Task> {
    const task = await tasks.load(taskId, context);
    if (!task) throw new TaskNotFoundError(`Task not found: ${taskId}`);
    return task;
  }

  /** Checks the message and finds its task: what a turn starts from. */
  async function turnOf(params: SendParams, context: ServerCallContext): Promise<Omit<TaskTurn, "history"> & { history: Message[] }> {
    const incoming = params.message;
    if (!incoming?.messageId) throw new RequestMalformedError("message.messageId is required.");
    const facts = context.state.get(CALL_FACTS) as A2aCallFacts;
    let task: Task | undefined;
    if (incoming.taskId) {
      task = await loadTask(incoming.taskId, context);
      if (isTerminal(task)) throw new UnsupportedOperationError(`Task ${task.id} is in a terminal state (${TaskState[task.status!.state]}) and cannot be modified.`);
      if (incoming.contextId && task.contextId && incoming.contextId !== task.contextId) {
        throw new RequestMalformedError(`contextId mismatch: message contextId '${incoming.contextId}' does not match task '${task.id}' contextId '${task.contextId}'`);
      }
    }
    const taskId = incoming.taskId || randomUUID();
    const contextId = incoming.contextId || task?.contextId || randomUUID();
    const message: Message = { ...incoming, taskId, contextId };
    return { taskId, contextId, task, message, history: [...(task?.history ?? []), message], facts };
  }

  /** Runs a turn and saves the task after it. */
  async function runTurn(turn: TaskTurn, context: ServerCallContext): Promise<Task> {
    const after = await agent.execute(turn);
    await tasks.save(after, context);
    return after;
  }

  return {
    getAgentCard: async () => deps.card,
    getAuthenticatedExtendedAgentCard: async () => {
      throw new UnsupportedOperationError("Agent does not support authenticated extended card.");
    },

    async sendMessage(params, context) {
      return trimHistory(await oneAtATime(params.message?.taskId, async () => runTurn(await turnOf(params, context), context)), params.configuration?.historyLength);
    },

    async *sendMessageStream(params, context) {
      const taskId = params.message?.taskId;
      const historyLength = params.configuration?.historyLength;
      const done = taskId ? await turnSlot(taskId) : () => {};
      try {
        // A refused message throws before the first event: the endpoint answers it as a JSON-RPC error.
        const turn = await turnOf(params, context);
        const working = agentMessage(turn, [textPart("Working on it.")]);
        const started: Task = {
          id: turn.taskId,
          contextId: turn.contextId,
          status: { state: TaskState.TASK_STATE_WORKING, message: working, timestamp: new Date().toISOString() },
          artifacts: [],
          history: turn.history,
          metadata: turn.task?.metadata ?? {},
        };
        yield { payload: { $case: "task", value: trimHistory(started, historyLength) } };
        const after = await runTurn(turn, context);
        const ids = { taskId: after.id, contextId: after.contextId };
        for (const artifact of after.artifacts) yield { payload: { $case: "artifactUpdate", value: { ...ids, artifact, append: false, lastChunk: true, metadata: undefined } } };
        yield { payload: { $case: "statusUpdate", value: { ...ids, status: after.status, metadata: after.metadata } } };
      } finally {
        done();
      }
    },

    async getTask(params, context) {
      return trimHistory(await loadTask(requireTaskId(params.id), context), params.historyLength);
    },

    // A task's id is the only key to it (task-store.ts): no caller may list tasks.
    listTasks: async () => {
      throw new UnsupportedOperationError("ListTasks is not served: a task is read by its id (tasks/get), the only key to it.");
    },

    cancelTask(params, context) {
      const taskId = requireTaskId(params.id);
      // After any turn in flight on it: work that has started is paid and settled as one step, never cut.
      return oneAtATime(taskId, async () => {
        const task = await loadTask(taskId, context);
        if (task.status?.state === TaskState.TASK_STATE_CANCELED) return task;
        if (isTerminal(task)) throw new TaskNotCancelableError(`Task not cancelable: ${taskId}`);
        const message = agentMessage({ taskId, contextId: task.contextId }, [textPart("Task cancellation requested by user.")]);
        const canceled: Task = { ...task, status: { state: TaskState.TASK_STATE_CANCELED, message, timestamp: new Date().toISOString() }, history: [...task.history, message] };
        // The store refuses (TaskNotCancelableError) a task whose job still runs (job-tasks.ts).
        await tasks.save(canceled, context);
        return canceled;
      });
    },

    createTaskPushNotificationConfig: async () => {
      throw new PushNotificationNotSupportedError();
    },
    getTaskPushNotificationConfig: async () => {
      throw new PushNotificationNotSupportedError();
    },
    listTaskPushNotificationConfigs: async () => {
      throw new PushNotificationNotSupportedError();
    },
    deleteTaskPushNotificationConfig: async () => {
      throw new PushNotificationNotSupportedError();
    },
    // eslint-disable-next-line require-yield
    async *resubscribe() {
      throw new UnsupportedOperationError("tasks/resubscribe is not served: a stream carries its whole turn; read a task with tasks/get.");
    },
  };
}
