/**
 * Local-try mode (--local-try): reads may reach pages served on this machine, the server binds
 * loopback only and says so at start, in /health and in /v1/capabilities; a refused loopback or
 * private target names the mode, and the refusal itself stands without it.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { banner, startService } from "../../src/boot.ts";
import { loadConfig } from "../../src/config.ts";
import { runDoctor } from "../../src/doctor/doctor.ts";
import { createMemoryLogger } from "../../src/log.ts";
import { startPageServer } from "../support/page-server.ts";
import { testService } from "../support/service.ts";
import { problemsOf } from "../support/config-problems.ts";

const pages = startPageServer();
afterAll(() => pages.stop());
const pageUrl = pages.url("/pages/article.html");
const paid = ["--payments", "on", "--pay-to-base", `0x${"a".repeat(40)}`, "--facilitator-url", "http://127.0.0.1:9/"];

describe("local-try configuration", () => {
  it("allows loopback targets and binds loopback, also with payments on", () => {
    const config = loadConfig({ argv: ["--local-try", ...paid] });
    expect(config.unsafeAllowLoopbackTargets).toBe(true);
    expect(config.host).toBe("127.0.0.1");
  });

  it("refuses any bind others can reach", () => {
    expect(problemsOf(() => loadConfig({ argv: ["--local-try", "--host", "0.0.0.0"] }))[0]).toContain("--local-try: local-try mode lets reads reach the services of this machine");
    expect(problemsOf(() => loadConfig({ argv: ["--host", "10.1.2.3"], env: { TOLLBOOTH_LOCAL_TRY: "true" } }))[0]).toStartWith("TOLLBOOTH_LOCAL_TRY:");
    expect(loadConfig({ argv: ["--local-try", "--host", "localhost"] }).host).toBe("localhost");
  });

  it("is off by default, and loopback targets with it", () => {
    const config = loadConfig({});
    expect(config.localTry).toBe(false);
    expect(config.unsafeAllowLoopbackTargets).toBe(false);
  });
});

describe("a loopback target without local-try", () => {
  it("is refused, and the refusal names --local-try", async () => {
    const service = await testService();
    try {
      const answer = await service.request("/v1/web/read", { method: "POST", json: { url: pageUrl } });
      const body = (await answer.json()) as { ok: boolean; error: string; message: string };
      expect(answer.status).toBe(400);
      expect(body.ok).toBe(false);
      expect(body.error).toBe("URL_NOT_ALLOWED"); // a page server's random port is refused first
      expect(body.message).toContain("--local-try");
      expect(pages.hits("/pages/article.html")).toBe(0);
    } finally {
      await service.close();
    }
  });

  it("on port 80 is refused as not public, naming --local-try; a private address names it too", async () => {
    const service = await testService();
    try {
      for (const url of ["http://127.0.0.1/", "http://localhost/", "http://[::1]/", "http://10.0.0.1/", "http://192.168.1.1/"]) {
        const body = (await (await service.request("/v1/web/read", { method: "POST", json: { url } })).json()) as { error: string; message: string };
        expect(body.error).toBe("TARGET_NOT_PUBLIC");
        expect(body.message).toContain("--local-try");
      }
      // A documentation range is no one's own machine: no pointer to local-try.
      const doc = (await (await service.request("/v1/web/read", { method: "POST", json: { url: "http://192.0.2.1/" } })).json()) as { error: string; message: string };
      expect(doc.error).toBe("TARGET_NOT_PUBLIC");
      expect(doc.message).not.toContain("--local-try");
    } finally {
      await service.close();
    }
  });
});

describe("a server in local-try mode", () => {
  it("reads a page served on 127.0.0.1 and says it is in local-try mode in /health and /v1/capabilities", async () => {
    const service = await testService(["--local-try"]);
    try {
      const read = await service.request("/v1/web/read", { method: "POST", json: { url: pageUrl } });
      expect(read.status).toBe(200);
      expect(((await read.json()) as { ok: boolean; url: string }).url).toBe(pageUrl);
      for (const path of ["/health", "/v1/capabilities"]) {
        const { features } = (await (await service.request(path)).json()) as { features: Record<string, { available: boolean; detail: string }> };
        expect(features.local_try?.available).toBe(true);
        expect(features.local_try?.detail).toContain("127.0.0.0/8");
      }
      // Still no private network: local-try opens loopback only.
      const privateRead = (await (await service.request("/v1/web/read", { method: "POST", json: { url: "http://10.0.0.1/" } })).json()) as { error: string };
      expect(privateRead.error).toBe("TARGET_NOT_PUBLIC");
    } finally {
      await service.close();
    }
  });

  it("prints a banner no one can miss; a server without it says nothing of the kind", async () => {
    const log = createMemoryLogger();
    for (const [argv, loud] of [[["--local-try"], true], [[], false]] as const) {
      const service = await startService(loadConfig({ argv: ["--data", ":memory:", "--port", "0", "--render", "off", ...argv] }), { log });
      try {
        const text = banner(service).join("\n");
        expect(text.includes("LOCAL-TRY MODE (--local-try)")).toBe(loud);
        expect(text.includes("!".repeat(78))).toBe(loud);
        if (!loud) expect((await (await fetch(new URL("/health", service.server.url))).json()) as object).not.toHaveProperty("features.local_try");
      } finally {
        await service.close();
      }
    }
  });

  it("is named by doctor's fetch-guard check", async () => {
    const data = mkdtempSync(join(tmpdir(), "tb-local-try-"));
    try {
      const report = await runDoctor(loadConfig({ argv: ["--local-try", "--data", data, "--render", "off"] }));
      expect(report.results.find((r) => r.name === "fetch guard")).toMatchObject({ status: "warn", detail: expect.stringContaining("--local-try is on") });
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });
});
