/**
 * `serve` with payments on and its facilitator down (issue 41): the server starts anyway, says at
 * once which upstream is unreachable and that paid calls fail until it answers, keeps serving free
 * routes, reports it on /health, and says so again when the facilitator comes up.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { join } from "node:path";
import { type RunningService, startService } from "../../src/boot.ts";
import { loadConfig } from "../../src/config.ts";
import { createMemoryLogger } from "../../src/log.ts";
import { type FacilitatorServer, startFacilitatorServer } from "../support/facilitator.ts";
import { freePort, onFreshPort } from "../support/ports.ts";

const repoRoot = join(import.meta.dir, "../..");
const payTo = `0x${"ab".repeat(20)}`;
const base = { kinds: [{ x402Version: 2, scheme: "exact", network: "eip155:8453" }], extensions: [], signers: {} };
const facilitatorImpl = {
  verify: async () => ({ isValid: false, invalidReason: "not used" }),
  settle: async () => ({ success: false }),
  supported: async () => base,
};

const paidArgs = (port: number, facilitatorUrl: string) => [
  "--port", String(port), "--public-url", `http://127.0.0.1:${port}`, "--host", "127.0.0.1", "--data", ":memory:",
  "--payments", "on", "--pay-to-base", payTo, "--facilitator-url", facilitatorUrl, "--render", "off", "--extract-workers", "0",
];

type Health = { ok: boolean; features: { settlement?: { available: boolean; detail: string } } };

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await Bun.sleep(50);
  }
}

let service: RunningService | undefined;
let facilitator: FacilitatorServer | undefined;
afterAll(async () => {
  await service?.close();
  await facilitator?.stop();
});

describe("payment upstreams at serve", () => {
  it("names an unreachable facilitator on /health and in the log, serves free routes, and says when it answers", async () => {
    const facilitatorPort = await freePort();
    const facilitatorUrl = `http://127.0.0.1:${facilitatorPort}`;
    const log = createMemoryLogger();
    service = await onFreshPort((port) => startService(loadConfig({ argv: paidArgs(port, facilitatorUrl) }), { log, upstreamRetryMs: 100 }));
    const url = service.server.url.toString().replace(/\/$/, "");
    const health = () => fetch(`${url}/health`).then((r) => r.json() as Promise<Health>);

    const down = await until(health, (h) => !h.features.settlement?.detail.startsWith("checking"));
    expect(down.ok).toBe(true);
    expect(down.features.settlement?.available).toBe(false);
    expect(down.features.settlement?.detail).toContain(`facilitator ${facilitatorUrl}`);
    expect(down.features.settlement?.detail).toContain("unreachable");
    expect(down.features.settlement?.detail).toContain("paid calls will fail until it answers");
    const warning = log.lines.find((l) => l.level === "warn" && String(l.msg).startsWith("WARNING: facilitator"));
    expect(String(warning?.msg)).toContain(facilitatorUrl);
    expect((await fetch(`${url}/v1/capabilities`)).status).toBe(200);
    expect((await fetch(`${url}/v1/web/read`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url: "https://example.com/" }) })).status).toBe(402);

    facilitator = startFacilitatorServer(facilitatorImpl, { port: facilitatorPort });
    const up = await until(health, (h) => h.features.settlement?.available === true);
    expect(up.features.settlement).toEqual({ available: true, detail: "answering: eip155:8453" });
    expect(log.lines.some((l) => l.level === "info" && String(l.msg).includes("paid calls work"))).toBe(true);
    expect(facilitator.calls).toContain("GET /supported");
  });

  it("prints the warning line under the banner of `tollbooth serve`", async () => {
    const facilitatorUrl = `http://127.0.0.1:${await freePort()}`;
    const port = await freePort();
    const proc = Bun.spawn([process.execPath, join(repoRoot, "src/main.ts"), "serve", ...paidArgs(port, facilitatorUrl)], { cwd: repoRoot, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
    try {
      const reader = proc.stdout.getReader();
      let output = "";
      const deadline = Date.now() + 30_000;
      while (!/ {2}WARNING: .*\n/.test(output) && Date.now() < deadline) {
        const { value, done } = await Promise.race([reader.read(), Bun.sleep(deadline - Date.now()).then(() => ({ value: undefined, done: true }))]);
        if (done) break;
        output += new TextDecoder().decode(value);
      }
      expect(output).toContain("listening on");
      const line = output.split("\n").find((l) => l.startsWith("  WARNING: "));
      expect(line).toContain(`facilitator ${facilitatorUrl} unreachable`);
      expect(line).toContain("paid calls will fail until it answers; free routes are served meanwhile");
    } finally {
      proc.kill();
      await proc.exited;
    }
  });
});
