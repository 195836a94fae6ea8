/**
 * Free job-worker documents: /v1/trust and /v1/about figures from job rows (seeded, computed by
 * hand), the A2A v1.0 agent card, /ads.md, /.well-known/x402 and the OpenAPI job contract.
 * @see issue 6
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { computeStats7d, median, percentile } from "../../src/jobs/stats.ts";
import { type TestService, testService } from "../support/service.ts";

let service: TestService;
beforeAll(async () => {
  service = await testService([]);
});
afterAll(() => service.close());

type Json = Record<string, unknown>;
const getJson = async (path: string) => (await (await service.request(path)).json()) as Json;

const hour = 3_600_000;
async function seed(at: Date, fields: { status: "completed" | "failed" | "expired"; paid: boolean; durationMs: number; settled?: boolean }) {
  await service.store.jobs.recordSyncCall({
    id: `job_${crypto.randomUUID().replaceAll("-", "")}`,
    skill: "capabilities",
    status: fields.status,
    caller: "addr:127.0.0.1",
    payer: fields.paid ? "0x1111111111111111111111111111111111111111" : null,
    network: fields.paid ? "eip155:8453" : null,
    priceMicros: 2000,
    settleMode: fields.paid ? "completion" : "free",
    requestId: "req_seed",
    createdAt: at,
    startedAt: at,
    finishedAt: new Date(at.getTime() + fields.durationMs),
    settled: fields.settled ?? (fields.paid && fields.status === "completed"),
    errorCode: fields.status === "completed" ? null : "INTERNAL_ERROR",
  });
}

describe("/v1/trust", () => {
  it("has null rates and durations and zero counts without any job", async () => {
    const trust = await getJson("/v1/trust");
    expect(trust.stats_7d).toMatchObject({ window_hours: 168, jobs_accepted: 0, success_rate_paid: null, median_duration_ms: null, p90_duration_ms: null, sample_size_durations: 0, sla_cap_ms: 185000 });
    expect(trust.sla).toMatchObject({ success_rate_paid_7d: null, median_duration_ms_7d: null, p90_duration_ms_7d: null, sample_size: 0, window_hours: 168, job_timeout_sec: 180 });
    expect(trust.manager).toMatchObject({ open_for_work: true, pause_reason: "" });
  });

  it("computes stats_7d and sla from seeded rows exactly as by hand", async () => {
    const now = Date.now();
    const recent = new Date(now - 2 * hour);
    for (const d of [1000, 2000, 3000, 4000]) await seed(recent, { status: "completed", paid: true, durationMs: d });
    await seed(recent, { status: "completed", paid: true, durationMs: 200_000 }); // outlier above sla_cap_ms
    await seed(recent, { status: "failed", paid: true, durationMs: 10 });
    await seed(recent, { status: "expired", paid: true, durationMs: 180_000 });
    await seed(recent, { status: "completed", paid: false, durationMs: 5000 }); // dev (payments off)
    await seed(new Date(now - 169 * hour), { status: "completed", paid: true, durationMs: 1 }); // outside the window

    const trust = await getJson("/v1/trust");
    // by hand: 8 rows in the window; paid completed 5 (one outlier), paid failed 2, dev completed 1
    // durations of completed jobs within the cap: 1000 2000 3000 4000 5000 → median 3000, p90 rank ⌈4.5⌉=5 → 5000
    expect(trust.stats_7d).toMatchObject({
      window_hours: 168,
      jobs_accepted: 8,
      jobs_completed_paid: 5,
      jobs_failed_paid: 2,
      jobs_completed_dev: 1,
      jobs_settled_paid: 5,
      success_rate_paid: 0.7143,
      median_duration_ms: 3000,
      p90_duration_ms: 5000,
      sample_size_durations: 5,
      durations_excluded_outliers: 1,
      sla_cap_ms: 185000,
    });
    expect(trust.sla).toMatchObject({ success_rate_paid_7d: 0.7143, median_duration_ms_7d: 3000, p90_duration_ms_7d: 5000, sample_size: 5, window_hours: 168 });
    const about = await getJson("/v1/about");
    expect(about.stats_7d).toEqual(trust.stats_7d);
    expect(about.jobs).toMatchObject({ statuses: ["queued", "running", "completed", "failed", "expired"] });
  });

  it("uses the middle pair's mean for an even median and nearest rank for p90", () => {
    expect(median([1, 2, 3, 10])).toBe(3);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], 90)).toBe(10);
    expect(computeStats7d([], 185000).success_rate_paid).toBeNull();
  });
});

describe("agent card", () => {
  it("has every field A2A v1.0 requires, the older url and protocolVersion, and one skill per registry entry", async () => {
    const res = await service.request("/.well-known/agent-card.json");
    const card = (await res.json()) as Json;
    for (const field of ["name", "description", "version", "supportedInterfaces", "capabilities", "defaultInputModes", "defaultOutputModes", "skills"]) {
      expect(card[field]).toBeDefined();
    }
    expect(card.version).toBe("3.4.1-opt");
    const interfaces = card.supportedInterfaces as Json[];
    expect(interfaces.length).toBeGreaterThan(0);
    for (const i of interfaces) {
      expect(String(i.url)).toMatch(/^https?:\/\//);
      expect(typeof i.protocolBinding).toBe("string");
    }
    // A2A messaging is JSON-RPC at /a2a in v1.0 and v0.3, also the 0.3 clients' url; the jobs API is not an A2A binding.
    expect(interfaces.map((i) => [i.protocolBinding, i.url, i.protocolVersion])).toEqual([
      ["JSONRPC", "http://127.0.0.1:8402/a2a", "1.0"],
      ["JSONRPC", "http://127.0.0.1:8402/a2a", "0.3"],
    ]);
    expect(card.url).toBe("http://127.0.0.1:8402/a2a");
    expect(card.preferredTransport).toBe("JSONRPC");
    expect((card.capabilities as { extensions: Json[] }).extensions.map((e) => e.uri)).toEqual(["https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2"]);
    expect(card.protocolVersion).toBeString();
    const skills = card.skills as Json[];
    const operationIds = new Set(service.registry.plugins.map((e) => e.id));
    // web.extract is sold as an endpoint and as a job skill: the card keeps its ids unique.
    const ids = [...service.registry.plugins.map((e) => e.id), ...service.registry.skills.map((e) => (operationIds.has(e.id) ? `jobs.${e.id}` : e.id))];
    expect(skills.map((s) => s.id)).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(skills.find((s) => s.id === "jobs.web.extract")?.endpoint).toBe("POST /v1/jobs/web.extract");
    for (const skill of skills) {
      for (const field of ["id", "name", "description"]) expect(skill[field]).toBeString();
      expect((skill.tags as string[]).length).toBeGreaterThan(0);
      expect((skill.examples as string[]).length).toBeGreaterThan(0);
      expect(skill.price).toMatchObject({ currency: "USDC" });
    }
    expect(skills.find((s) => s.id === "host.report")?.price).toMatchObject({ base: "0.01" });
  });

  it("is cacheable: Cache-Control, ETag, and 304 for a matching If-None-Match", async () => {
    const res = await service.request("/agent-card.json");
    expect(res.headers.get("cache-control")).toMatch(/max-age=\d+/);
    const etag = res.headers.get("etag");
    expect(etag).toMatch(/^".+"$/);
    const again = await service.request("/agent-card.json", { headers: { "If-None-Match": etag! } });
    expect(again.status).toBe(304);
    expect((await service.request("/agent-card.json", { headers: { "If-None-Match": '"other"' } })).status).toBe(200);
  });
});

describe("other free documents", () => {
  it("capabilities list skills with prices, limits and active jobs", async () => {
    const caps = await getJson("/v1/capabilities");
    expect(caps.skills).toEqual(expect.arrayContaining(["capabilities", "host.report"]));
    expect(caps.limits).toMatchObject({ max_concurrent_jobs: 3, rate_limit_per_min: 30, max_prompt_chars: 4000, job_timeout_sec: 180, job_result_ttl_hours: 24 });
    expect(caps.active_jobs).toBe(0);
    const entry = (caps.catalogue as Json[]).find((c) => c.id === "host.report");
    expect(entry).toMatchObject({ price: "0.01", async: true, timeout_sec: 180, endpoint: "/v1/jobs", method: "POST" });
    expect((caps.catalogue as Json[]).find((c) => c.id === "capabilities")).toMatchObject({ price: "0.002", async: false, timeout_sec: 5 });
  });

  it("capabilities count the jobs active now, though the text is reused between changes", async () => {
    expect((await getJson("/v1/capabilities")).active_jobs).toBe(0);
    await seed(new Date(), { status: "completed", paid: false, durationMs: 10 });
    // A job queued through this server's job store (held, so no worker runs it), then dropped: both show at once.
    const id = `job_${crypto.randomUUID().replaceAll("-", "")}`;
    const hold = { worker: "discovery-test", untilMs: Date.now() + 60_000 };
    try {
      await service.store.jobs.insert({ id, skill: "capabilities", sync: false, input: {}, caller: "addr:127.0.0.1", payer: null, network: null, priceMicros: 0, payment: null, settleMode: "free", requestId: "req_seed", createdAt: new Date(), hold });
      expect((await getJson("/v1/capabilities")).active_jobs).toBe(1);
    } finally {
      await service.store.jobs.discard(id);
    }
    expect((await getJson("/v1/capabilities")).active_jobs).toBe(0);
  });

  it("/ads.md and /.well-known/x402 list what is sold", async () => {
    const ads = await (await service.request("/ads.md")).text();
    expect(ads).toContain("host.report ($0.01)");
    const x402 = await getJson("/.well-known/x402");
    expect(x402.resources).toEqual(expect.arrayContaining(["http://127.0.0.1:8402/v1/jobs", "http://127.0.0.1:8402/v1/jobs/host.report", "http://127.0.0.1:8402/v1/web/read"]));
  });

  it("OpenAPI documents job statuses with transitions, GET /v1/jobs/{id} and the 202 shape", async () => {
    const doc = await getJson("/openapi.json");
    const paths = doc.paths as Record<string, Json>;
    expect(paths["/v1/jobs/{id}"]).toBeDefined();
    const schemas = (doc.components as { schemas: Record<string, Json> }).schemas;
    expect((schemas.Job?.properties as Json).status).toMatchObject({ enum: ["queued", "running", "completed", "failed", "expired"] });
    expect(JSON.stringify(schemas.Job)).toContain("queued → running");
    expect(schemas.JobAccepted?.required).toEqual(expect.arrayContaining(["ok", "job_id", "status"]));
    const hostReport = (paths["/v1/jobs/host.report"] as { post: { responses: Record<string, Json> } }).post.responses;
    expect(hostReport["202"]).toBeDefined();
    expect(JSON.stringify(hostReport["202"])).toContain("JobAccepted");
    expect(JSON.stringify(hostReport)).toContain("Retry-After");
  });
});
