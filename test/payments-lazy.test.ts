/** The chain libraries load only when payments are on: a server with payments off does not carry them (~15 MB of RSS). */
import { describe, expect, it } from "bun:test";
import { join } from "node:path";

function probe(flags: string[]): unknown {
  // A process of its own: test files share one, and others load viem and algosdk here.
  const run = Bun.spawnSync([process.execPath, join(import.meta.dir, "support/payments-load-probe.ts"), ...flags], { stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(run.stderr.toString());
  // The service logs to stdout; the probe's answer is the last line.
  return JSON.parse(run.stdout.toString().trim().split("\n").at(-1) ?? "");
}

describe("payment libraries", () => {
  it("are not loaded with payments off", () => {
    expect(probe(["--payments", "off"])).toEqual({ status: 200, viem: false, algosdk: false });
  });

  it("are loaded with payments on", () => {
    const flags = ["--payments", "on", "--pay-to-base", "0x1111111111111111111111111111111111111111", "--facilitator-url", "http://127.0.0.1:9/", "--public-url", "http://127.0.0.1:8402"];
    expect(probe(flags)).toMatchObject({ status: 200, viem: true });
  });
});
