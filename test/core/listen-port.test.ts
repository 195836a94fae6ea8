/**
 * A port taken between the probe and the bind (test/support/ports.ts): the service refuses with
 * EADDRINUSE and leaves nothing running behind it, and `onFreshPort` starts it again on a fresh
 * port, while any other failure is thrown at once.
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningService, startService } from "../../src/boot.ts";
import { loadConfig } from "../../src/config.ts";
import { openStore } from "../../src/database.ts";
import { createMemoryLogger } from "../../src/log.ts";
import { isAddressInUse, onFreshPort } from "../support/ports.ts";

const configOn = (port: number, data = ":memory:") => loadConfig({ argv: ["--data", data, "--port", String(port), "--host", "127.0.0.1", "--memory-soft-limit-mb", "0"], env: {} });
/** Something else listening on `port`, as another process would after the probe released it. */
const occupy = (port: number) => Bun.serve({ hostname: "127.0.0.1", port, fetch: () => new Response("someone else") });

describe("a port taken before the service binds it", () => {
  it("refuses with EADDRINUSE and closes what it opened (no live instance stays in its store)", async () => {
    const taken = occupy(0);
    const data = mkdtempSync(join(tmpdir(), "tb-port-"));
    try {
      const failed = await startService(configOn(taken.port!, data), { log: createMemoryLogger() }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(isAddressInUse(failed)).toBe(true);
      // What the start opened was closed: its heartbeat left the instances table (no live instance stays behind).
      const store = openStore(data);
      try {
        expect(await store.instances.live(new Date(0))).toEqual([]);
      } finally {
        await store.close();
      }
      const next = await onFreshPort((port) => startService(configOn(port, data), { log: createMemoryLogger() }));
      expect((await fetch(`${next.server.url}health`)).status).toBe(200);
      await next.close();
    } finally {
      await taken.stop(true);
      rmSync(data, { recursive: true, force: true });
    }
  });

  it("onFreshPort starts again on a fresh port when the probed one was taken, and answers there", async () => {
    const tried: number[] = [];
    const holders: ReturnType<typeof occupy>[] = [];
    const service = await onFreshPort(async (port): Promise<RunningService> => {
      tried.push(port);
      // The race, made certain: on the first try the port is taken between the probe and the bind.
      if (tried.length === 1) holders.push(occupy(port));
      return startService(configOn(port), { log: createMemoryLogger() });
    });
    try {
      expect(tried).toHaveLength(2);
      expect(service.server.port).toBe(tried[1]!);
      expect(tried[1]).not.toBe(tried[0]);
      expect(await (await fetch(`http://127.0.0.1:${tried[0]}/`)).text()).toBe("someone else");
      expect((await fetch(`http://127.0.0.1:${tried[1]}/health`)).status).toBe(200);
    } finally {
      await service.close();
      for (const holder of holders) await holder.stop(true);
    }
  });

  it("onFreshPort throws any other failure at once, and gives up after its attempts", async () => {
    let calls = 0;
    const other = await onFreshPort(async () => {
      calls++;
      throw new Error("the configuration is wrong");
    }).catch((error: Error) => error.message);
    expect(other).toBe("the configuration is wrong");
    expect(calls).toBe(1);

    calls = 0;
    const inUse = await onFreshPort(async (port) => {
      calls++;
      throw Object.assign(new Error(`Failed to start server. Is port ${port} in use?`), { code: "EADDRINUSE" });
    }, 3).catch((error: Error) => error.message);
    expect(inUse).toContain("in use");
    expect(calls).toBe(3);
  });
});
