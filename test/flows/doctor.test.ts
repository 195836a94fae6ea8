import { describe, expect, it } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { runDoctor } from "../../src/doctor.ts";
import { startFacilitatorServer } from "../support/facilitator.ts";
import { pluginFolder, skillSource } from "../support/plugin-files.ts";

const payTo = `0x${"ab".repeat(20)}`;
const tmp = () => mkdtempSync(join(tmpdir(), "tb-doctor-"));

describe("tollbooth doctor", () => {
  it("passes a fresh default setup and says payments are off", async () => {
    const report = await runDoctor(loadConfig({ argv: ["--data", join(tmp(), "data")] }));
    expect(report.ok).toBe(true);
    expect(report.lines.join("\n")).toContain("payments: off");
  });

  it("names an unusable data folder and a bad plugin file", async () => {
    const dir = tmp();
    writeFileSync(join(dir, "not-a-folder"), "x");
    const plugins = pluginFolder({ "a-one.ts": skillSource("a.one", { price: `"gratis"` }) });
    const report = await runDoctor(loadConfig({ argv: ["--data", join(dir, "not-a-folder"), "--plugins", plugins] }));
    expect(report.ok).toBe(false);
    const text = report.lines.join("\n");
    expect(text).toMatch(/\[FAIL\] data folder: .*not-a-folder/);
    expect(text).toMatch(/\[FAIL\] plugins: [^]*a-one\.ts: price/);
  });

  it("checks that the facilitator supports each network, and says when it cannot be reached", async () => {
    const facilitator = startFacilitatorServer({
      verify: async () => ({ isValid: true }),
      settle: async () => ({ success: false }),
      supported: async () => ({ kinds: [{ x402Version: 2, scheme: "exact", network: "eip155:8453" }], extensions: [], signers: {} }),
    });
    try {
      const ok = await runDoctor(loadConfig({ argv: ["--data", join(tmp(), "d"), "--payments", "on", "--pay-to-base", payTo, "--facilitator-url", facilitator.url] }));
      expect(ok.results.find((r) => r.name === "payments eip155:8453")).toMatchObject({ status: "ok" });
      expect(facilitator.calls).toContain("GET /supported");
    } finally {
      await facilitator.stop();
    }
    const down = await runDoctor(loadConfig({ argv: ["--data", join(tmp(), "d"), "--payments", "on", "--pay-to-base", payTo, "--facilitator-url", facilitator.url] }));
    expect(down.ok).toBe(false);
    expect(down.results.find((r) => r.name === "payments eip155:8453")?.detail).toContain("unreachable");
  });
});
