/**
 * scripts/walks.ts measures which src/ files and rooms four paid calls visit (issue 39). Run here on
 * the paid web read and the rest, with the instrumentation's own pieces checked on known text: a
 * broken instrumentation (no files recorded, a caller's frame lost to a tail call, a re-entry missed)
 * fails one of these.
 */
import { describe, expect, it } from "bun:test";
import { join } from "node:path";
import { instrument, reentered, type WalkReport } from "../scripts/walks.ts";

const root = join(import.meta.dir, "..");

describe("the instrumentation", () => {
  it("records every function's file and keeps a returned call's caller on the stack", () => {
    const text = instrument("export const f = (x: number) => g(x);\nfunction g(x: number) {\n  return h(x);\n}\nclass A extends B { constructor() { super(); } }\n", "room/a.ts");
    expect(text).toBe(
      'export const f = (x: number) => (globalThis.__walk("room/a.ts"), globalThis.__kept(g(x)));\nfunction g(x: number) {globalThis.__walk("room/a.ts");\n  return globalThis.__kept(h(x));\n}\nclass A extends B { constructor() { super();globalThis.__walk("room/a.ts"); } }\n',
    );
  });

  it("names a room re-entered when one stack shows it twice with another room between", () => {
    const found = reentered([["jobs/routes.ts", "jobs/skill-call.ts", "http/operation.ts", "jobs/limits.ts"], ["web/a.ts", "web/b.ts", "x402/c.ts"]]);
    expect([...found.keys()]).toEqual(["jobs"]);
    expect(found.get("jobs")?.rooms).toEqual(["jobs", "http", "jobs"]);
  });
});

describe("the four paid calls (anvil, the official buyer, a loopback facilitator)", () => {
  it("are walked: each succeeds, and the paid read visits paid-call/, x402/ and web/", async () => {
    const run = Bun.spawn([process.execPath, join(root, "scripts/walks.ts"), "--json"], { cwd: root, stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
    expect({ code, err: code === 0 ? "" : err }).toEqual({ code: 0, err: "" });
    const reports = JSON.parse(out) as WalkReport[];
    expect(reports.map((r) => [r.name.split(" (")[0], r.ok])).toEqual([
      ["paid web read", true],
      ["paid MCP tool call", true],
      ["paid A2A message", true],
      ["paid job submission", true],
    ]);
    const [read, mcp, a2a, job] = reports as [WalkReport, WalkReport, WalkReport, WalkReport];
    for (const room of ["http", "paid-call", "x402", "web", "evidence"]) expect(read.rooms).toContain(room);
    expect(read.files).toContain("paid-call/call.ts");
    expect(read.files.some((f) => f.startsWith("x402/"))).toBe(true);
    expect(mcp.files.some((f) => f.startsWith("mcp/"))).toBe(true);
    expect(a2a.files.some((f) => f.startsWith("a2a/"))).toBe(true);
    expect(job.files).toContain("jobs/routes.ts");
    // A plugin call builds only the module facets it reads: a web read reads none of them.
    for (const r of [read, mcp, a2a]) for (const room of ["capital", "crawl", "directory", "quotes"]) expect(r.rooms).not.toContain(room);
    // Every room listed is the room of a file visited, and each file's room is listed once.
    for (const r of reports) expect(new Set(r.files.map((f) => (f.includes("/") ? f.split("/")[0] : f)))).toEqual(new Set(r.rooms));
    for (const r of reports) expect(r.stacks.count).toBeGreaterThan(10);
    // Each room once on every stack: the runtime seam (serve.ts) is above app.ts, and a paid call, its
    // plugin, the agent doors and the job queue call nothing defined in a room already on the stack.
    const reentries = (r: WalkReport) => r.reentered.map(({ room, stack }) => `${room}: ${stack.join(" → ")}`);
    for (const r of reports) expect({ call: r.name, reentered: reentries(r) }).toEqual({ call: r.name, reentered: [] });
    for (const r of reports) expect(r.rooms.indexOf("serve.ts")).toBeGreaterThan(-1);
    for (const r of reports) expect(r.rooms.indexOf("serve.ts")).toBeLessThan(r.rooms.indexOf("app.ts"));
    // A job submission reaches the queue behind sell(call) once: jobs/ and paid-call/ are each one segment.
    expect(job.files).toContain("paid-call/sell.ts");
    expect(job.files).toContain("jobs/worker.ts");
  }, 120_000);
});
