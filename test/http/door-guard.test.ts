/**
 * The agent doors (/mcp, /a2a) answer only the hosts configured: the --public-url host, the bind
 * address, loopback names on a loopback bind, and --allowed-hosts. A foreign Host or Origin is 403
 * before anything runs, and CORS grants only an allowed Origin. @see issue 40, defects 1, 4 and 7
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { doorHostsOf } from "../../src/http/door-guard.ts";
import { pluginFolder } from "../support/plugin-files.ts";
import { type TestService, testService } from "../support/service.ts";
import { mcpProbeSource } from "../mcp/mcp-probe-plugin.ts";

let service: TestService;
beforeAll(async () => {
  service = await testService(["--plugins", pluginFolder({ "mcp-probe.ts": mcpProbeSource }), "--allowed-hosts", "tollbooth.lan, 192.168.1.20"]);
});
afterAll(() => service?.close());

const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const toolCall = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "mcp_probe", arguments: { text: "x" } } });
const a2aSend = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params: { message: { kind: "message", role: "user", messageId: "m1", parts: [{ kind: "data", data: { skill: "mcp.probe", text: "x" } }] } } });

/** A request as it arrives: `host` is its Host (in-process, the URL's authority). */
const send = (host: string, path: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}) =>
  service.handle(new Request(`http://${host}${path}`, { method: init.method ?? "POST", headers: { ...MCP_HEADERS, ...init.headers }, ...(init.body !== undefined ? { body: init.body } : {}) }), "127.0.0.1");

describe("the agent doors' Host and Origin", () => {
  it("refuses a foreign Host even when its Origin agrees with it (DNS rebinding), before the tool runs", async () => {
    for (const [path, body] of [["/mcp", toolCall], ["/a2a", a2aSend]] as const) {
      const res = await send("evil.example:8402", path, { body, headers: { origin: "http://evil.example:8402" } });
      expect(res.status).toBe(403);
      const answer = (await res.json()) as { error: { code: number; data: { error: string } } };
      expect(answer.error).toMatchObject({ code: -32000, data: { error: "HOST_NOT_ALLOWED" } });
      expect(res.headers.get("access-control-allow-origin")).toBeNull();
    }
    expect(service.logLines.some((line) => line.operation === "mcp.probe")).toBe(false);
  });

  it("refuses a foreign Origin on a loopback Host, and a null one", async () => {
    for (const origin of ["https://evil.example", "null", "file://x"]) {
      for (const path of ["/mcp", "/a2a"]) {
        const res = await send("127.0.0.1:8402", path, { body: toolCall, headers: { origin } });
        expect(res.status).toBe(403);
        expect(((await res.json()) as { error: { data: { error: string } } }).error.data.error).toBe("ORIGIN_NOT_ALLOWED");
      }
    }
  });

  it("serves loopback names, the hosts added with --allowed-hosts, and callers that send no Origin", async () => {
    for (const host of ["127.0.0.1:8402", "localhost:8402", "[::1]:8402", "tollbooth.lan:8402", "192.168.1.20"]) {
      const res = await send(host, "/mcp", { body: toolCall, headers: { origin: `http://${host}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBe(`http://${host}`);
      expect(res.headers.get("vary")).toContain("Origin");
    }
    const bare = await send("127.0.0.1:8402", "/a2a", { body: a2aSend });
    expect(bare.status).toBe(200);
    expect(((await bare.json()) as { result: { status: { state: string } } }).result.status.state).toBe("completed");
  });

  it("never answers the doors with Access-Control-Allow-Origin: * (the paid HTTP routes keep it)", async () => {
    const a2a = await send("127.0.0.1:8402", "/a2a", { body: a2aSend, headers: { origin: "http://localhost:3000" } });
    expect(a2a.headers.get("access-control-allow-origin")).toBe("http://localhost:3000");
    const plain = await send("127.0.0.1:8402", "/v1/mcp-probe", { body: JSON.stringify({ text: "x" }), headers: { origin: "https://anywhere.example" } });
    expect(plain.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("preflights the doors for allowed origins only, allowing the headers MCP and A2A clients send", async () => {
    const ok = await send("127.0.0.1:8402", "/mcp", { method: "OPTIONS", headers: { origin: "http://127.0.0.1:5173", "access-control-request-method": "POST" } });
    expect(ok.status).toBe(204);
    expect(ok.headers.get("access-control-allow-origin")).toBe("http://127.0.0.1:5173");
    const allowed = ok.headers.get("access-control-allow-headers")!.toLowerCase();
    for (const name of ["mcp-protocol-version", "mcp-session-id", "last-event-id", "x-a2a-extensions", "a2a-extensions", "payment-signature"]) expect(allowed).toContain(name);
    const exposed = ok.headers.get("access-control-expose-headers")!.toLowerCase();
    for (const name of ["x-a2a-extensions", "a2a-extensions", "mcp-session-id", "payment-response"]) expect(exposed).toContain(name);
    const foreign = await send("127.0.0.1:8402", "/a2a", { method: "OPTIONS", headers: { origin: "https://evil.example", "access-control-request-method": "POST" } });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("the allowed hosts", () => {
  const hosts = (argv: string[]) => [...doorHostsOf(loadConfig({ argv }))].sort();

  it("come from --public-url, the bind address and --allowed-hosts, loopback names only on a loopback or wildcard bind", () => {
    expect(hosts([])).toEqual(["127.0.0.1", "[::1]", "localhost"]);
    expect(hosts(["--host", "10.0.0.5"])).toEqual(["10.0.0.5"]);
    expect(hosts(["--host", "10.0.0.5", "--public-url", "https://buy.example.com/", "--allowed-hosts", "Agent.Example,::1"])).toEqual(["10.0.0.5", "[::1]", "agent.example", "buy.example.com"]);
    expect(hosts(["--host", "0.0.0.0"])).toEqual(["127.0.0.1", "[::1]", "localhost"]);
    expect(doorHostsOf(loadConfig({ env: { TOLLBOOTH_ALLOWED_HOSTS: "env.example" } })).has("env.example")).toBe(true);
  });

  it("refuses an --allowed-hosts entry that is not a bare host name", () => {
    for (const bad of ["http://x.example", "x.example:8080", "x.example/path", "a,,b"]) {
      expect(() => loadConfig({ argv: ["--allowed-hosts", bad] })).toThrow(ConfigError);
    }
  });
});
