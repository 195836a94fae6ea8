/**
 * render:true on plain-http pages (issue 15 §3), in a loopback-only network namespace where the test
 * owns ports 80 and 443 of 127.0.0.1: a page's host that refuses 443, and one whose 443 accepts and
 * never answers. Chromium's HTTPS upgrade used to try https first: the refused host failed 502, the silent
 * one took 3.6 s and then failed for a minute (the https origin's robots.txt failure was cached).
 * The namespace needs root (unshare) and iproute2 (to bring `lo` up); skipped, with one line saying so, without them.
 */
import { describe, expect, it } from "bun:test";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { skipWithout } from "../../support/requirements.ts";
import type { PlainHttpReport } from "./plain-http-namespace.ts";

const NAMESPACE_SCRIPT = join(import.meta.dir, "plain-http-namespace.ts");
const BRING_UP_LO = 'ip link set lo up && exec "$0" "$@"';

const what = "render:true on plain-http pages in a network namespace";
const describeInNamespace = skipWithout("chromium", what) || skipWithout("network-namespace", what) ? describe.skip : describe;

/** Runs plain-http-namespace.ts in a fresh network namespace with `lo` up, with extra Chromium switches. */
function runInNamespace(extraChromiumArgs: string[]): Promise<PlainHttpReport> {
  return new Promise((resolve, reject) => {
    const child = spawn("unshare", ["-n", "sh", "-c", BRING_UP_LO, process.execPath, NAMESPACE_SCRIPT, ...extraChromiumArgs], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      const line = out.trim().split("\n").at(-1) ?? "";
      try {
        resolve(JSON.parse(line) as PlainHttpReport);
      } catch {
        reject(new Error(`namespace run exited ${code}: ${out.slice(-2000)}\n${err.slice(-2000)}`));
      }
    });
  });
}

function expectExactlyTheHttpUrl(report: PlainHttpReport): void {
  expect(report.reads.map((read) => [read.host, read.ok, read.code])).toEqual([
    ...Array.from({ length: 3 }, () => ["refused.example.com", true, undefined]),
    ...Array.from({ length: 3 }, () => ["silent.example.com", true, undefined]),
  ]);
  for (const read of report.reads) {
    expect(read.finalUrl).toStartWith(`http://${read.host}/`);
    expect(read.rendered).toBe(true);
    expect(read.hasScriptText).toBe(true);
  }
  // Nothing tried https: no tunnel to 443 through the lanes, no connection to the silent 443, no https robots.txt.
  expect(report.laneDecisions.filter((d) => d.target.endsWith(":443") || d.target.startsWith("https:"))).toEqual([]);
  expect(report.accepted443).toBe(0);
  expect(report.served.filter((path) => path.endsWith("/robots.txt"))).toEqual(["refused.example.com/robots.txt", "silent.example.com/robots.txt"]);
}

describeInNamespace("web/renderer on plain-http pages (loopback-only namespace)", () => {
  it("renders exactly the http URL asked for, whether the host's 443 refuses or accepts and stays silent, render after render", async () => {
    expectExactlyTheHttpUrl(await runInNamespace([]));
  }, 90_000);

  it("still renders the http URL at once when Chromium upgrades to https anyway (HttpsUpgrades turned back on)", async () => {
    expectExactlyTheHttpUrl(await runInNamespace(["--enable-features=HttpsUpgrades"]));
  }, 90_000);
});
