/**
 * Test skills for job flows, written as operator files, plus gates the test opens to let a
 * running skill finish (skills in tests run in this process).
 */
import { pluginFolder } from "../support/plugin-files.ts";

interface Gates {
  wait(tag: string, signal: AbortSignal): Promise<void>;
}

declare global {
  // eslint-disable-next-line no-var
  var __jobGates: Gates | undefined;
}

/** A skill that waits until the test opens the gate named by its `tag`. */
export function gatedSkill(id: string, options: { async?: boolean; timeoutMs?: number; jsonOnly?: boolean; price?: string; fail?: boolean } = {}): string {
  return `import { ApiError, defineSkill, t } from "tollbooth";
export default defineSkill({
  skill: ${JSON.stringify(id)},
  summary: "Waits for its gate, then answers with its tag.",
  input: t.Object({ tag: t.String(), prompt: t.Optional(t.String()), json_only: t.Optional(t.Boolean()) }, { additionalProperties: false }),
  price: ${JSON.stringify(options.price ?? "0.003")},
  async: ${options.async ?? true},
  timeoutMs: ${options.timeoutMs ?? 10_000},
  ${options.jsonOnly ? "jsonOnly: true," : ""}
  examples: [{ input: { tag: "a" } }],
  async run({ tag }, ctx) {
    await globalThis.__jobGates?.wait(tag, ctx.signal);
    ${options.fail ? `throw new ApiError("SOURCE_UNREACHABLE", { message: "the upstream is down" });` : ""}
    return { tag, done: true };
  },
});
`;
}

/** A skill that ignores its signal and sleeps past its timeout. */
export function overrunSkill(id: string, timeoutMs = 150): string {
  return `import { defineSkill, t } from "tollbooth";
export default defineSkill({
  skill: ${JSON.stringify(id)},
  summary: "Sleeps past its timeout.",
  input: t.Object({}, { additionalProperties: false }),
  price: "0.004",
  async: true,
  timeoutMs: ${timeoutMs},
  examples: [{ input: {} }],
  async run() {
    await new Promise((resolve) => setTimeout(resolve, ${timeoutMs} * 4));
    return { late: true };
  },
});
`;
}

export function jobSkillFolder(files: Record<string, string>): string {
  return pluginFolder(files);
}

export interface GateControl {
  open(tag: string): void;
  started(tag: string): boolean;
  reset(): void;
}

export function installGates(): GateControl {
  const opened = new Set<string>();
  const started = new Set<string>();
  const waiting = new Map<string, (() => void)[]>();
  globalThis.__jobGates = {
    wait(tag, signal) {
      started.add(tag);
      if (opened.has(tag)) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        waiting.set(tag, [...(waiting.get(tag) ?? []), resolve]);
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    },
  };
  return {
    open(tag) {
      opened.add(tag);
      for (const resolve of waiting.get(tag) ?? []) resolve();
      waiting.delete(tag);
    },
    started: (tag) => started.has(tag),
    reset() {
      opened.clear();
      started.clear();
      waiting.clear();
    },
  };
}

/** Polls `check` until it returns a value that is not undefined (or fails after `timeoutMs`). */
export async function until<T>(check: () => T | undefined | Promise<T | undefined>, timeoutMs = 5_000, what = "condition"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** An async skill that fails by our fault (a thrown Error, not an ApiError): its payment is refunded. */
export const crashSkill = `import { defineSkill, t } from "tollbooth";
export default defineSkill({
  skill: "test.crash",
  summary: "Fails by our fault after a long declared timeout.",
  input: t.Object({ tag: t.Optional(t.String()) }, { additionalProperties: false }),
  price: "0.002",
  async: true,
  timeoutMs: 100_000,
  examples: [{ input: {} }],
  async run() { throw new Error("disk full"); },
});
`;
