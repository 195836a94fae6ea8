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
  }, 60_000);
});

describe("tollbooth refunds, delivery refunds", () => {
  it("lists crawl and search delivery refunds beside failed calls, each with its kind, and marks one paid", async () => {
    const data = mkdtempSync(join(tmpdir(), "tb-refunds-"));
    const store = openStore(data);
    const at = new Date("2026-12-07T01:00:00.000Z");
    await store.jobs.insert({ id: "job_0123456789abcdef0123456789abcdef", skill: "host.report", sync: false, input: {}, caller: "payer:0xabc", payer: "0xabc", network: "algorand", priceMicros: 10_000, payment: null, settleMode: "acceptance", requestId: "req_1", createdAt: at });
    await store.jobs.markSettled("job_0123456789abcdef0123456789abcdef", null, at);
    await store.jobs.fail("job_0123456789abcdef0123456789abcdef", { status: "expired", code: "JOB_TIMEOUT", message: "late", refundReason: "JOB_TIMEOUT: late" }, at, at);
    const delivery = { network: "eip155:8453", payer: "0xfeed", transaction: "0xsettled", createdAt: new Date(at.getTime() + 1000) };
    await store.deliveryRefunds.recordDue({ ...delivery, id: "pay_crawl1", operationId: "web.crawl", requestId: "req_c", quotedMicros: 15_000, priceMicros: 6_000 });
    await store.deliveryRefunds.recordDue({ ...delivery, id: "pay_search1", operationId: "web.search", requestId: "req_s", quotedMicros: 17_000, priceMicros: 3_000 });
    store.close();

    const listed = cli(data);
    expect(listed.code).toBe(0);
    const lines = listed.out.split("\n").filter((l) => l.startsWith("2026-"));
    expect(lines.length).toBe(3);
    expect(lines[0]).toContain("  failed-call  job_0123456789abcdef0123456789abcdef  host.report  $0.01");
    expect(lines[1]).toContain("  due  crawl-delivery  pay_crawl1  web.crawl  $0.006  eip155:8453  0xfeed");
    expect(lines[1]).toContain("$0.006 of $0.015 paid (request req_c)");
    expect(lines[2]).toContain("  due  search-delivery  pay_search1  web.search  $0.003");
    expect(listed.out).toContain("3 refunds due");

    expect(cli(data, "--mark-paid", "pay_crawl1", "--note", "BASE-TX-9").code).toBe(0);
    expect(cli(data, "--mark-paid", "pay_crawl1", "--note", "BASE-TX-9").code).toBe(1);
    expect(cli(data, "--mark-paid", "pay_nothing", "--note", "x").code).toBe(1);
    const after = cli(data);
    expect(after.out).not.toContain("pay_crawl1");
    expect(after.out).toContain("2 refunds due");
    const all = cli(data, "--all").out.split("\n").find((l) => l.includes("pay_crawl1"));
    expect(all).toContain("  paid  crawl-delivery  pay_crawl1");
    expect(all).toContain("BASE-TX-9");
    const reopened = openStore(data);
    expect((await reopened.deliveryRefunds.list()).find((r) => r.id === "pay_crawl1")).toMatchObject({ state: "paid", refundNote: "BASE-TX-9" });
    reopened.close();
  }, 60_000);
});
