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
  const config = loadConfig({ argv: ["--data", ":memory:", ...argv] });
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
