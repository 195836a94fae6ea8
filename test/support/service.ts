/** Builds a whole service in-process (no socket) for table-driven HTTP tests. */
import { buildService, type BuildServiceOptions, type Service } from "../../src/boot.ts";
import { loadConfig } from "../../src/config.ts";
import { createMemoryLogger } from "../../src/log.ts";

export interface TestService extends Service {
  request(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  logLines: Record<string, unknown>[];
}

export async function testService(argv: string[] = [], options: BuildServiceOptions = {}): Promise<TestService> {
  const log = createMemoryLogger();
  // Many services share one test process: its memory is the suite's, not one server's (the valve has tests of its own).
  const config = loadConfig({ argv: ["--data", ":memory:", "--memory-soft-limit-mb", "0", ...argv] });
  const service = await buildService(config, { log, ...options });
  return {
    ...service,
    logLines: log.lines,
    request(path, init = {}) {
      const { json, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (json !== undefined && !headers.has("content-type")) headers.set("content-type", "application/json");
      const body = json !== undefined ? JSON.stringify(json) : rest.body;
      return service.handle(new Request(new URL(path, "http://127.0.0.1:8402"), { ...rest, headers, body }), "127.0.0.1");
    },
  };
}
