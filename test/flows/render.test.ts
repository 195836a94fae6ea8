/**
 * render:true through the whole service: the renderer is wired into the engine, capabilities
 * say whether it works, and `--render off` refuses it with 503. Needs Debian's chromium (CI installs it).
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { type SiteServer, startSiteServer } from "../support/site-server.ts";
import { skipWithout } from "../support/requirements.ts";
import { type TestService, testService } from "../support/service.ts";

const noBrowser = skipWithout("chromium", "render:true through the service");
const scripted = `<html><head><title>Built by script</title></head><body><main id="app"></main>
<script>document.getElementById("app").innerHTML = "<h1>Rendered</h1><p>" + ["only", "with", "javascript"].join(" ") + "</p>";</script></body></html>`;

let site: SiteServer;
let service: TestService;

beforeAll(async () => {
  site = startSiteServer();
  site.set("/app", scripted);
  site.set("/robots.txt", "User-agent: *\nDisallow: /private\n", "text/plain");
  site.set("/private", "<html><body><main><p>Not for robots.</p></main></body></html>");
  site.set("/nav", `<html><body><main><p>Leaving.</p></main><script>location.href = "/private";</script></body></html>`);
  service = await testService(["--unsafe-allow-loopback-targets"]);
});
// Closing the service waits for the browser to exit (up to seconds on a loaded machine).
afterAll(async () => {
  await service.close();
  await site.stop();
}, 60_000);

describe.skipIf(noBrowser)("render:true through the service", () => {
  it("runs the page's script before extraction, and says so", async () => {
    const res = await service.request("/v1/web/read", { method: "POST", json: { url: site.url("/app"), render: true } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { text: string; javascript_rendered: boolean; headings: unknown[] };
    expect(body.text).toContain("only with javascript");
    expect(body.javascript_rendered).toBe(true);
    expect(body.headings).toEqual([{ level: 1, text: "Rendered" }]);
    const plain = (await (await service.request("/v1/web/read", { method: "POST", json: { url: site.url("/app") } })).json()) as { text: string };
    expect(plain.text).not.toContain("only with javascript");
  }, 60_000);

  it("checks robots.txt on a script navigation inside the render, never requesting the disallowed page", async () => {
    const res = await service.request("/v1/web/read", { method: "POST", json: { url: site.url("/nav"), render: true } });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { error: string }).error).toBe("ROBOTS_DISALLOWED");
    expect(site.hits("/private")).toBe(0);
  }, 60_000);

  it("reports render as available in capabilities", async () => {
    const caps = (await (await service.request("/v1/capabilities")).json()) as { features: { render: { available: boolean } } };
    expect(caps.features.render.available).toBe(true);
  });
});

describe("--render off", () => {
  it("refuses render:true with 503 and says why in capabilities, while plain reads work", async () => {
    const off = await testService(["--unsafe-allow-loopback-targets", "--render", "off"]);
    try {
      const res = await off.request("/v1/web/read", { method: "POST", json: { url: site.url("/app"), render: true } });
      expect(res.status).toBe(503);
      expect(((await res.json()) as { error: string }).error).toBe("RENDER_UNAVAILABLE");
      const caps = (await (await off.request("/v1/capabilities")).json()) as { features: { render: { available: boolean } } };
      expect(caps.features.render.available).toBe(false);
      expect((await off.request("/v1/web/read", { method: "POST", json: { url: site.url("/app") } })).status).toBe(200);
    } finally {
      await off.close();
    }
  });
});
