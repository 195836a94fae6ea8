/**
 * A server process killed (SIGKILL) with one job running and two queued, then started again on
 * the same data folder: the queued jobs run, the running one is failed (JOB_INTERRUPTED), none
 * is lost. @see issue 6
 */
import { afterAll, describe, expect, it } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startProcess, type StartedProcess } from "../support/spawn-binary.ts";
import { jobSkillFolder, until } from "./job-skills.ts";

const root = join(import.meta.dir, "../..");
// Slow unless TB_TEST_JOBS_FAST=1: the first process never finishes a job, the second finishes them at once.
const slowSkill = `import { defineSkill, t } from "tollbooth";
export default defineSkill({
  skill: "test.slow",
  summary: "Waits until aborted unless told to be fast.",
  input: t.Object({ tag: t.String() }, { additionalProperties: false }),
  price: "0.003",
  async: true,
  timeoutMs: 60_000,
  examples: [{ input: { tag: "a" } }],
  async run({ tag }, ctx) {
    if (process.env.TB_TEST_JOBS_FAST !== "1") {
      await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
    }
    return { tag };
  },
});
`;

const started: StartedProcess[] = [];
afterAll(async () => {
  for (const p of started) await p.stop().catch(() => {});
});

async function serve(data: string, plugins: string, fast: boolean): Promise<StartedProcess> {
  const p = await startProcess([process.execPath, "src/main.ts", "serve", "--port", "0", "--data", data, "--plugins", plugins, "--max-concurrent-jobs", "1"], {
    cwd: root,
    env: { TB_TEST_JOBS_FAST: fast ? "1" : "0" },
  });
  started.push(p);
  return p;
}

describe("restart", () => {
  it("runs queued jobs after a kill and fails the one that was running, losing none", async () => {
    const data = mkdtempSync(join(tmpdir(), "tb-restart-"));
    const plugins = jobSkillFolder({ "test-slow.ts": slowSkill });
    const first = await serve(data, plugins, false);
    const ids: string[] = [];
    for (const tag of ["r1", "r2", "r3"]) {
      const res = await fetch(`${first.baseUrl}/v1/jobs`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ skill: "test.slow", tag }) });
      expect(res.status).toBe(202);
      ids.push(((await res.json()) as { job_id: string }).job_id);
    }
    const status = async (base: string, id: string) => ((await (await fetch(`${base}/v1/jobs/${id}`)).json()) as { status: string; error?: { code: string }; result?: unknown });
    await until(async () => ((await status(first.baseUrl, ids[0]!)).status === "running" ? true : undefined), 5_000, "r1 to run");
    expect((await status(first.baseUrl, ids[1]!)).status).toBe("queued");
    first.proc.kill("SIGKILL");
    await first.proc.exited;

    const second = await serve(data, plugins, true);
    const interrupted = await until(async () => {
      const s = await status(second.baseUrl, ids[0]!);
      return s.status === "failed" ? s : undefined;
    });
    expect(interrupted.error?.code).toBe("JOB_INTERRUPTED");
    for (const [i, id] of ids.slice(1).entries()) {
      const done = await until(async () => {
        const s = await status(second.baseUrl, id);
        return s.status === "completed" ? s : undefined;
      }, 10_000, `job ${id} to complete`);
      expect(done.result).toEqual({ tag: `r${i + 2}` });
    }
  }, 60_000);
});
