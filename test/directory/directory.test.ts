/**
 * The directory: listings added with the real CLI (by hand, or from an A2A agent card read
 * through the guarded fetcher: loopback only with the test switch, private targets and robots
 * refusals always), the background check against a live peer (a Tollbooth serving its own card
 * and capabilities) and a stopped one, paged and filtered free listings without contacts, the
 * intro and survey skills, and /v1/directory, /v1/circle. @see issue 18
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningService, startService } from "../../src/boot.ts";
import { loadConfig } from "../../src/config.ts";
import { createDirectoryService } from "../../src/directory/service.ts";
import { createMemoryLogger } from "../../src/log.ts";
import { type SiteServer, startSiteServer } from "../support/site-server.ts";
import { type TestService, testService } from "../support/service.ts";

type Json = Record<string, any>;
const root = join(import.meta.dir, "../..");
const paidFlags = ["--payments", "on", "--pay-to-base", "0x1111111111111111111111111111111111111111", "--facilitator-url", "http://127.0.0.1:9/"];

let data: string;
let service: TestService;
let paid: TestService;
let peer: RunningService;
let peerUrl: string;
let site: SiteServer;

beforeAll(async () => {
  data = mkdtempSync(join(tmpdir(), "tb-directory-"));
  service = await testService(["--data", data, "--unsafe-allow-loopback-targets", "--directory-checks-per-min", "0"]);
  paid = await testService(["--data", data, "--directory-checks-per-min", "0", ...paidFlags]);
  peer = await startService(loadConfig({ argv: ["--data", ":memory:", "--port", "0", "--host", "127.0.0.1"] }), { log: createMemoryLogger() });
  peerUrl = peer.server.url.toString().replace(/\/$/, "");
  site = startSiteServer();
});
afterAll(async () => {
  service?.close();
  paid?.close();
  await peer?.close();
  await site?.stop();
});

/** The real CLI in its own process (async: the loopback peers answer from this one). */
async function cli(...args: string[]): Promise<{ code: number; out: any; err: string }> {
  const run = Bun.spawn([process.execPath, "src/main.ts", "directory", ...args, "--data", data], { cwd: root, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
  return { code, out: out.trim() ? JSON.parse(out) : undefined, err };
}
const checker = () => createDirectoryService({ listings: service.store.listings, web: service.web, log: createMemoryLogger(), now: () => new Date(), checksPerMin: 0 });
const job = (target: TestService, body: Json) => target.request("/v1/jobs", { method: "POST", json: body });
const listings = async (query: string) => (await (await service.request(`/v1/directory/listings${query}`)).json()) as Json;

let peerListing: Json;

describe("directory add", () => {
  it("lists a peer from its agent card served on loopback (test switch on), with its skills and prices, and keeps the contact private", async () => {
    const added = await cli("add", "--card", `${peerUrl}/.well-known/agent-card.json`, "--contact", "ops@peer.example", "--tags", "Research,web", "--unsafe-allow-loopback-targets");
    expect(added.err).toBe("");
    expect(added.code).toBe(0);
    peerListing = added.out;
    expect(peerListing.id).toMatch(/^lst_[0-9a-f]{16}$/);
    expect(peerListing).toMatchObject({ name: "Tollbooth", agent_card_url: `${peerUrl}/.well-known/agent-card.json`, endpoint: `${peerUrl}/a2a`, contact: "ops@peer.example", state: "listed" });
    expect(peerListing.skills).toEqual(expect.arrayContaining(["web.read", "capabilities", "capital.ticket", "network.peer_survey"]));
    expect(peerListing.price_summary).toMatchObject({ capabilities: "0.002", "capital.ticket": "0.01" });
    expect(peerListing.tags).toEqual(expect.arrayContaining(["research", "web", "job"]));
    expect(peerListing.last_verified_at).not.toBeNull();
    expect(peerListing.check.latency_ms).toBeGreaterThanOrEqual(0);

    const seen = (await listings("")).listings.find((l: Json) => l.id === peerListing.id);
    expect(seen).toMatchObject({ name: "Tollbooth", endpoint: `${peerUrl}/a2a` });
    expect(JSON.stringify(await listings(""))).not.toContain("ops@peer.example");
  });

  it("refuses loopback without the test switch and private addresses always, writing nothing", async () => {
    const count = (await service.store.listings.listAll({ includeRemoved: true })).length;
    const noSwitch = await cli("add", "--card", `${peerUrl}/.well-known/agent-card.json`);
    expect(noSwitch.code).toBe(1);
    expect(noSwitch.err).toContain("URL_NOT_ALLOWED");
    for (const url of ["http://127.0.0.1/card.json", "http://10.1.2.3/card.json", "http://192.168.0.7/.well-known/agent-card.json", "http://169.254.169.254/latest/meta-data/"]) {
      const refused = await cli("add", "--card", url);
      expect(refused.code).toBe(1);
      expect(refused.err).toContain("TARGET_NOT_PUBLIC");
    }
    // The switch opens loopback only.
    const privateWithSwitch = await cli("add", "--card", "http://10.1.2.3/card.json", "--unsafe-allow-loopback-targets");
    expect(privateWithSwitch.err).toContain("TARGET_NOT_PUBLIC");
    const byHand = await cli("add", "--name", "Inside", "--description", "d", "--endpoint", "http://192.168.1.5/", "--contact", "c");
    expect(byHand.code).toBe(2);
    expect(byHand.err).toContain("TARGET_NOT_PUBLIC");
    expect((await service.store.listings.listAll({ includeRemoved: true })).length).toBe(count);
  }, 30_000);

  it("honours robots.txt when reading a card", async () => {
    site.set("/robots.txt", "User-agent: *\nDisallow: /private/\n", "text/plain");
    site.set("/private/card.json", JSON.stringify({ name: "Hidden" }), "application/json");
    const refused = await cli("add", "--card", site.url("/private/card.json"), "--unsafe-allow-loopback-targets");
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("ROBOTS_DISALLOWED");
    expect(site.hits("/private/card.json")).toBe(0);
  });

  it("adds a listing by hand and removes it", async () => {
    const added = await cli("add", "--name", "Manual Agent", "--description", "Summaries on demand", "--endpoint", site.url("/"), "--contact", "m@agent.example", "--tags", "summaries", "--unsafe-allow-loopback-targets");
    expect(added.code).toBe(0);
    expect(added.out).toMatchObject({ name: "Manual Agent", tags: ["summaries"], skills: [], agent_card_url: null, contact: "m@agent.example", last_verified_at: null });
    expect((await cli("add", "--name", "x")).err).toContain("--description");
    const removed = await cli("remove", added.out.id);
    expect(removed.out.state).toBe("removed");
    expect((await listings("?tag=summaries")).total).toBe(0);
    const intro = await job(paid, { skill: "directory.intro", listing_id: added.out.id });
    expect(intro.status).toBe(410);
    expect(await intro.json()).toMatchObject({ error: "DIRECTORY_LISTING_REMOVED" });
  });
});

describe("checks", () => {
  it("records reachability, open_for_work, prices and latency from the card and capabilities, and a stopped peer as unreachable", async () => {
    await peer.store.settings.pause("maintenance window");
    const cardHits = site.hits("/agent-card.json");
    site.set("/agent-card.json", JSON.stringify({ name: "Site Agent", url: site.url("/"), skills: [{ id: "summarize", price: "0.02", tags: ["text"] }], payments: { networks: [{ network: "eip155:8453" }] } }), "application/json");
    site.set("/v1/capabilities", JSON.stringify({ ok: true, open_for_work: true, skills: ["summarize", "translate"], catalogue: [{ id: "summarize", price: "0.015" }, { id: "translate", price: "0.04" }] }), "application/json");
    const siteListing = await service.store.listings.add(
      { name: "Site Agent", description: "Summaries", tags: ["text"], skills: ["summarize"], endpoint: site.url("/"), cardUrl: site.url("/agent-card.json"), priceSummary: { summarize: "0.02" }, networks: [], contact: "s@site.example" },
      new Date(),
    );
    const gone = await startService(loadConfig({ argv: ["--data", ":memory:", "--port", "0", "--host", "127.0.0.1"] }), { log: createMemoryLogger() });
    const goneUrl = gone.server.url.toString().replace(/\/$/, "");
    const goneListing = await service.store.listings.add(
      { name: "Gone", description: "Stopped", tags: [], skills: [], endpoint: `${goneUrl}/`, cardUrl: null, priceSummary: {}, networks: [], contact: null },
      new Date(),
    );
    await gone.close();

    expect(await checker().checkDue(10)).toBeGreaterThanOrEqual(3);
    const checkedPeer = (await service.store.listings.get(peerListing.id))!;
    expect(checkedPeer).toMatchObject({ reachable: true, openForWork: false, checkError: null });
    expect(checkedPeer.latencyMs).toBeGreaterThanOrEqual(0);
    expect(checkedPeer.checkedAt).not.toBeNull();
    const checkedSite = (await service.store.listings.get(siteListing.id))!;
    expect(checkedSite).toMatchObject({ reachable: true, openForWork: true, skills: ["summarize", "translate"], priceSummary: { summarize: "0.015", translate: "0.04" }, networks: ["eip155:8453"] });
    expect(site.hits("/agent-card.json")).toBe(cardHits + 1);
    const checkedGone = (await service.store.listings.get(goneListing.id))!;
    expect(checkedGone).toMatchObject({ reachable: false, verifiedAt: null });
    expect(checkedGone.checkError).toContain("capabilities");
    await peer.store.settings.resume();
  });
});

describe("background checker", () => {
  it("re-reads listings on its own, one at a time at the configured rate", async () => {
    const timed = await testService(["--data", ":memory:", "--unsafe-allow-loopback-targets", "--directory-checks-per-min", "60"]);
    try {
      site.set("/v1/capabilities", JSON.stringify({ ok: true, open_for_work: true, skills: ["summarize"] }), "application/json");
      const listing = await timed.store.listings.add(
        { name: "Timed", description: "d", tags: [], skills: [], endpoint: site.url("/"), cardUrl: null, priceSummary: {}, networks: [], contact: null },
        new Date(),
      );
      const deadline = Date.now() + 5_000;
      while ((await timed.store.listings.get(listing.id))?.checkedAt === null && Date.now() < deadline) await Bun.sleep(100);
      expect(await timed.store.listings.get(listing.id)).toMatchObject({ reachable: true, openForWork: true, skills: ["summarize"] });
    } finally {
      timed.close();
    }
  });
});

describe("free listings", () => {
  it("pages and filters by tag or skill, never showing a contact", async () => {
    for (let i = 0; i < 5; i++) {
      await service.store.listings.add(
        { name: `Pager ${i}`, description: "paging", tags: ["paging", i % 2 ? "odd" : "even"], skills: [i % 2 ? "odd.skill" : "even.skill"], endpoint: `https://pager${i}.example/`, cardUrl: null, priceSummary: {}, networks: [], contact: `secret-${i}@pager.example` },
        new Date(Date.now() + i),
      );
    }
    const first = await listings("?tag=paging&limit=2");
    expect(first).toMatchObject({ total: 5, offset: 0, limit: 2, tag: "paging", next_offset: 2 });
    expect(first.listings.map((l: Json) => l.name)).toEqual(["Pager 4", "Pager 3"]);
    const last = await listings("?tag=paging&limit=2&offset=4");
    expect(last).toMatchObject({ total: 5, next_offset: null });
    expect(last.listings.map((l: Json) => l.name)).toEqual(["Pager 0"]);
    const odd = await listings("?skill=ODD.skill");
    expect(odd.listings.map((l: Json) => l.name)).toEqual(["Pager 3", "Pager 1"]);
    expect((await listings("?tag=even&skill=even.skill")).total).toBe(3);
    const all = await listings("?limit=100");
    expect(JSON.stringify(all)).not.toMatch(/secret-|@peer\.example|@site\.example/);
    expect(all.listings[0]).not.toHaveProperty("contact");
    const bad = await service.request("/v1/directory/listings?limit=1000");
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: "INVALID_REQUEST" });
  });

  it("describes the directory with counts, and the circle with the checked peers", async () => {
    const overview = (await (await service.request("/v1/directory")).json()) as Json;
    expect(overview.counts.listed).toBeGreaterThanOrEqual(8);
    expect(overview.counts.reachable).toBeGreaterThanOrEqual(2);
    expect(overview.listings).toBe("http://127.0.0.1:8402/v1/directory/listings");
    expect(overview.how_to_be_listed).toContain("agent card");
    const circle = (await (await service.request("/v1/circle")).json()) as Json;
    expect(circle.this_seller.skills.map((s: Json) => s.id)).toContain("capital.commit");
    expect(circle.peers.find((p: Json) => p.listing_id === peerListing.id)).toMatchObject({ reachable: true, skills: expect.arrayContaining(["web.read"]) });
    expect(JSON.stringify(circle)).not.toContain("ops@peer.example");
    expect(circle.how_to_join.length).toBeGreaterThan(0);
  });
});

describe("directory.intro and network.peer_survey", () => {
  it("sells the contact pack with when it was verified; unknown is 404 before any 402", async () => {
    const res = await job(service, { skill: "directory.intro", listing_id: peerListing.id });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    const checked = (await service.store.listings.get(peerListing.id))!;
    expect(body).toMatchObject({
      ok: true,
      skill: "directory.intro",
      result: {
        listing_id: peerListing.id,
        contact: "ops@peer.example",
        endpoints: { service: `${peerUrl}/a2a`, agent_card: `${peerUrl}/.well-known/agent-card.json`, capabilities: `${peerUrl}/v1/capabilities` },
        verified_at: checked.verifiedAt,
        last_check: { reachable: true, open_for_work: false },
      },
    });
    expect((await job(paid, { skill: "directory.intro", listing_id: peerListing.id })).status).toBe(402);
    const unknown = await job(paid, { skill: "directory.intro", listing_id: "lst_0000000000000000" });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("payment-required")).toBeNull();
    expect(await unknown.json()).toMatchObject({ error: "DIRECTORY_LISTING_NOT_FOUND" });
  });

  it("surveys peers from stored checks only, with skills, prices, reachability, open_for_work, latency and when each was seen", async () => {
    const hitsBefore = site.hits("/agent-card.json") + site.hits("/v1/capabilities");
    const res = await job(service, { skill: "network.peer_survey" });
    expect(res.status).toBe(200);
    const { result } = (await res.json()) as Json;
    const sitePeer = result.peers.find((p: Json) => p.name === "Site Agent");
    expect(sitePeer).toMatchObject({ skills: ["summarize", "translate"], prices: { summarize: "0.015", translate: "0.04" }, reachable: true, open_for_work: true });
    expect(sitePeer.latency_ms).toBeGreaterThanOrEqual(0);
    expect(Date.parse(sitePeer.seen_at)).toBeGreaterThan(0);
    expect(result.peers.find((p: Json) => p.name === "Gone")).toMatchObject({ reachable: false, seen_at: null });
    expect(result.skills).toEqual(expect.arrayContaining([{ skill: "summarize", peers: 1, lowest_price_usd: "0.015" }]));
    expect(result.counts.never_checked).toBeGreaterThanOrEqual(5);
    expect(JSON.stringify(result)).not.toMatch(/secret-|ops@peer/);
    // No live fan-out: the survey read nothing from the peers.
    expect(site.hits("/agent-card.json") + site.hits("/v1/capabilities")).toBe(hitsBefore);
  });
});
