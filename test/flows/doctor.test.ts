import { describe, expect, it } from "bun:test";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { runDoctor } from "../../src/doctor/doctor.ts";
import algosdk from "algosdk";
import { startFakeAlgod } from "../support/algod.ts";
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

  it("warns that --data :memory: keeps nothing, and makes no folder of that name", async () => {
    const cwd = process.cwd();
    process.chdir(tmp());
    try {
      const report = await runDoctor(loadConfig({ argv: ["--data", ":memory:"] }));
      expect(report.lines.join("\n")).toMatch(/\[warn\] data folder: :memory: keeps nothing/);
      expect(existsSync(":memory:")).toBe(false);
    } finally {
      process.chdir(cwd);
    }
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

  it("checks price tables against the networks payments are taken on", async () => {
    const plugins = pluginFolder({ "a-one.ts": skillSource("a.one", { price: `{ base: "0.01" }` }) });
    const paid = ["--data", join(tmp(), "d"), "--plugins", plugins, "--payments", "on", "--pay-to-base", payTo, "--facilitator-url", "http://127.0.0.1:9/"];
    const baseOnly = await runDoctor(loadConfig({ argv: paid }));
    expect(baseOnly.results.find((r) => r.name === "plugins")).toMatchObject({ status: "ok" });
    const withAlgorand = await runDoctor(loadConfig({ argv: [...paid, "--pay-to-algorand", "A".repeat(58)] }));
    expect(withAlgorand.results.find((r) => r.name === "plugins")).toMatchObject({ status: "fail", detail: expect.stringContaining("a-one.ts: price: price for algorand is missing") });
    // Networks that do not resolve (the payments check says why): tables are still checked for a well-formed column.
    const unresolved = await runDoctor(loadConfig({ argv: ["--data", join(tmp(), "d"), "--plugins", plugins, "--payments", "on"], env: { TOLLBOOTH_X402: JSON.stringify({ families: ["/nonexistent/tb-family"], networks: [{ family: "toy", network: "toynet", payTo: "T", settlement: "local" }] }) } }));
    expect(unresolved.results.find((r) => r.name === "payments")).toMatchObject({ status: "fail" });
    expect(unresolved.results.find((r) => r.name === "plugins")).toMatchObject({ status: "warn", detail: expect.stringContaining("prices not checked against the networks") });
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

  it("checks that the Algorand receiving account opted in to USDC", async () => {
    const algod = startFakeAlgod();
    try {
      const payTo = algosdk.generateAccount().addr.toString();
      const feePayer = algosdk.generateAccount();
      const x402 = {
        networks: [{ family: "avm", network: "algorand", payTo, settlement: "local", algodUrl: algod.url, feePayerMnemonic: algosdk.secretKeyToMnemonic(feePayer.sk) }],
      };
      const config = () => loadConfig({ argv: ["--data", join(tmp(), "d"), "--payments", "on"], env: { TOLLBOOTH_X402: JSON.stringify(x402) } });
      const before = await runDoctor(config());
      expect(before.results.find((r) => r.name.startsWith("opt-in"))).toMatchObject({ status: "fail" });
      algod.optIn(payTo, "31566704");
      const after = await runDoctor(config());
      expect(after.results.find((r) => r.name.startsWith("opt-in"))).toMatchObject({ status: "ok" });
    } finally {
      await algod.stop();
    }
  });
});
