/**
 * Every capital board and directory route is in the generated documents: OpenAPI (paths, query
 * parameters, error codes), /v1/capabilities, llms.txt, the agent card and /v1/about; and the
 * playbook is written from the registry. @see issue 18
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { type TestService, testService } from "../support/service.ts";

let service: TestService;
beforeAll(async () => {
  service = await testService(["--payments", "on", "--pay-to-base", "0x1111111111111111111111111111111111111111", "--facilitator-url", "http://127.0.0.1:9/"]);
});
afterAll(() => service.close());

type Json = Record<string, any>;
const getJson = async (path: string) => (await (await service.request(path)).json()) as Json;
const freePaths = ["/v1/capital", "/v1/capital/tickets", "/v1/directory", "/v1/directory/listings", "/v1/circle", "/v1/playbook"];
const skills = ["capital.ticket", "directory.intro", "network.peer_survey"];
const codes = ["CAPITAL_TICKET_NOT_FOUND", "CAPITAL_TICKET_CLOSED", "CAPITAL_TICKET_FULL", "CAPITAL_SEATS_UNAVAILABLE", "DIRECTORY_LISTING_NOT_FOUND", "DIRECTORY_LISTING_REMOVED"];

describe("capital and directory in the generated documents", () => {
  it("OpenAPI has the commit operation with its x402 info and errors, the skills, and every free route with its query", async () => {
    const doc = await getJson("/openapi.json");
    const commit = doc.paths["/v1/capital/commit"].post;
    expect(commit.operationId).toBe("capital.commit");
    expect(commit.tags).toEqual(["capital"]);
    expect(commit["x-payment-info"]).toMatchObject({ price_usd: { base: "1" }, price_depends_on_input: true });
    expect(commit.requestBody.content["application/json"].schema.required).toEqual(["ticket_id", "seats"]);
    expect(Object.keys(commit.responses)).toEqual(expect.arrayContaining(["200", "400", "402", "404", "409", "410"]));
    expect(commit.responses["410"].description).toContain("CAPITAL_TICKET_FULL");
    for (const skill of skills) expect(doc.paths[`/v1/jobs/${skill}`]?.post).toBeDefined();
    for (const path of freePaths) expect(doc.paths[path]?.get?.tags).toEqual(["free"]);
    expect(doc.paths["/v1/directory/listings"].get.parameters.map((p: Json) => p.name)).toEqual(["tag", "skill", "offset", "limit"]);
    for (const code of codes) expect(doc["x-error-codes"][code]).toBeDefined();
  });

  it("capabilities, llms.txt, the agent card and /v1/about name them", async () => {
    const caps = await getJson("/v1/capabilities");
    expect(caps.skills).toEqual(expect.arrayContaining(skills));
    expect(caps.operations.find((o: Json) => o.id === "capital.commit")).toMatchObject({ route: "POST /v1/capital/commit", price_depends_on_input: true });
    expect(caps.catalogue.find((c: Json) => c.id === "network.peer_survey")).toMatchObject({ price: "0.03", async: false, timeout_sec: 15 });

    const llms = await (await service.request("/llms.txt")).text();
    for (const id of ["capital.commit", ...skills]) expect(llms).toContain(id);
    for (const path of freePaths) expect(llms).toContain(`http://127.0.0.1:8402${path}`);

    const card = await getJson("/.well-known/agent-card.json");
    const commit = card.skills.find((s: Json) => s.id === "capital.commit");
    expect(commit.endpoint).toBe("POST /v1/capital/commit");
    expect(commit.tags).toContain("capital");
    expect(commit.tags).not.toContain("web-evidence");
    for (const skill of skills) expect(card.skills.find((s: Json) => s.id === skill)?.endpoint).toBe(`POST /v1/jobs/${skill}`);
    expect(card.links).toMatchObject({ capital_board: "http://127.0.0.1:8402/v1/capital", directory_listings: "http://127.0.0.1:8402/v1/directory/listings", circle: "http://127.0.0.1:8402/v1/circle", playbook: "http://127.0.0.1:8402/v1/playbook" });

    const about = await getJson("/v1/about");
    expect(about.free_endpoints).toEqual(expect.arrayContaining(freePaths));
    const wellKnown = await getJson("/.well-known/x402");
    expect(wellKnown.resources).toContain("http://127.0.0.1:8402/v1/capital/commit");
  });

  it("writes the playbook from the registry: steps, every evidence endpoint and skill with its price", async () => {
    const playbook = await getJson("/v1/playbook");
    expect(playbook.steps.map((s: Json) => s.name)).toEqual(["capabilities", "quote", "price preview", "run", "retries without paying twice"]);
    expect(playbook.paid_endpoints.map((e: Json) => e.id)).toEqual(service.registry.plugins.map((p) => p.id));
    expect(playbook.paid_endpoints.find((e: Json) => e.id === "web.read")).toMatchObject({ area: "web evidence", route: "POST /v1/web/read" });
    expect(playbook.paid_endpoints.find((e: Json) => e.id === "capital.commit")).toMatchObject({ area: "capital", price_usd: "1", price_depends_on_input: true });
    expect(playbook.skills.map((s: Json) => s.id)).toEqual(service.registry.skills.map((s) => s.id));
    expect(playbook.skills.find((s: Json) => s.id === "capital.ticket")).toMatchObject({ price_usd: "0.01", request: { method: "POST", body: { skill: "capital.ticket", ticket_id: "tkt_0123456789abcdef" } } });
    expect(playbook.steps[4].lookup.url).toBe("http://127.0.0.1:8402/v1/payments/{transaction or nonce}");
  });
});
