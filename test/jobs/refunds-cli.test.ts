/** `tollbooth refunds`: lists refunds due, marks one paid, and then lists none. @see issue 6 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../../src/database.ts";

const root = join(import.meta.dir, "../..");
const cli = (data: string, ...args: string[]) => {
  const run = Bun.spawnSync([process.execPath, "src/main.ts", "refunds", "--data", data, ...args], { cwd: root });
  return { code: run.exitCode, out: run.stdout.toString(), err: run.stderr.toString() };
};

describe("tollbooth refunds", () => {
  it("lists a refund due with job, payer and reason, and marks it paid", async () => {
    const data = mkdtempSync(join(tmpdir(), "tb-refunds-"));
    const store = openStore(data);
    const at = new Date();
    await store.jobs.insert({ id: "job_0123456789abcdef0123456789abcdef", skill: "host.report", sync: false, input: {}, caller: "payer:0xabc", payer: "0xabc", network: "algorand", priceMicros: 10_000, payment: null, settleMode: "acceptance", requestId: "req_1", createdAt: at });
    await store.jobs.markSettled("job_0123456789abcdef0123456789abcdef", null, at);
    await store.jobs.fail("job_0123456789abcdef0123456789abcdef", { status: "expired", code: "JOB_TIMEOUT", message: "late", refundReason: "JOB_TIMEOUT: late" }, at, at);
    store.close();

    const listed = cli(data);
    expect(listed.code).toBe(0);
    expect(listed.out).toContain("job_0123456789abcdef0123456789abcdef");
    expect(listed.out).toContain("$0.01");
    expect(listed.out).toContain("JOB_TIMEOUT: late");
    expect(listed.out).toContain("1 refund due");

    expect(cli(data, "--mark-paid", "job_0123456789abcdef0123456789abcdef").code).toBe(2);
    expect(cli(data, "--mark-paid", "job_0123456789abcdef0123456789abcdef", "--note", "ALGO-TX-1").code).toBe(0);
    expect(cli(data).out).toContain("no refunds due");
    expect(cli(data, "--all").out).toContain("ALGO-TX-1");
  });
});
