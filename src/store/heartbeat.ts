/**
 * @module store/heartbeat — a serving instance's heartbeat: its row in `instances`, written at start
 * and every few seconds, removed when it stops. A write that fails is logged and tried again at the
 * next beat (a heartbeat never stops the service).
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { heartbeatEveryMs, type InstanceRegistry } from "./instances.ts";

export interface Heartbeat {
  readonly instanceId: string;
  stop(): Promise<void>;
}

export async function startHeartbeat(
  registry: InstanceRegistry,
  options: { readonly settlers: readonly string[]; readonly warn: (message: string, error: Error) => void; readonly everyMs?: number },
): Promise<Heartbeat> {
  const instanceId = randomUUID();
  const startedAt = new Date().toISOString();
  const beat = () =>
    registry
      .beat({ instanceId, host: hostname(), pid: process.pid, settlers: options.settlers, startedAt, seenAt: new Date().toISOString() })
      .catch((error: Error) => options.warn("instance heartbeat failed", error));
  await beat();
  const timer = setInterval(beat, options.everyMs ?? heartbeatEveryMs);
  timer.unref?.();
  return {
    instanceId,
    async stop() {
      clearInterval(timer);
      await registry.leave(instanceId).catch((error: Error) => options.warn("instance heartbeat could not be removed", error));
    },
  };
}
