import { describe, expect, it } from "bun:test";
import type { DocsContext } from "../../src/docs/docs-context.ts";
import type { FreeRoute } from "../../src/docs/free-routes.ts";
import { freeRoutes } from "../../src/docs/free-routes.ts";
import { createDocumentRenderer, documentBody } from "../../src/docs/rendered-documents.ts";

const docs = {} as DocsContext;

describe("free documents rendered again only when their inputs change", () => {
  it("reuses the text while the key holds and renders anew when it changes", async () => {
    let live = "a";
    let renders = 0;
    const route: FreeRoute = { path: "/x", contentType: "application/json", summary: "", render: () => ({ n: ++renders, live }), reusedWhile: () => live };
    const render = createDocumentRenderer();
    expect((await render(route, docs)).text).toBe('{"n":1,"live":"a"}');
    expect((await render(route, docs)).text).toBe('{"n":1,"live":"a"}');
    live = "b";
    expect((await render(route, docs)).text).toBe('{"n":2,"live":"b"}');
    expect(renders).toBe(2);
  });

  it("renders on every request when a route names no key, and gives an ETag to cacheable routes and to reused texts", async () => {
    let renders = 0;
    const route: FreeRoute = { path: "/y", contentType: "text/plain", summary: "", render: () => `n=${++renders}` };
    const render = createDocumentRenderer();
    expect(await render(route, docs)).toEqual({ text: "n=1", etag: undefined });
    expect((await render(route, docs)).text).toBe("n=2");
    const cached = await render({ ...route, path: "/z", cacheSeconds: 60 }, docs);
    expect(cached.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    const reused = await render({ ...route, path: "/r", reusedWhile: () => "k" }, docs);
    expect(reused.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
  });

  it("answers a reused text from the same bytes, encoded once", async () => {
    const route: FreeRoute = { path: "/b", contentType: "application/json", summary: "", render: () => ({ text: "caf\u00e9 \u{1F4C8}" }), reusedWhile: () => "k" };
    const render = createDocumentRenderer();
    const first = documentBody(await render(route, docs));
    expect(documentBody(await render(route, docs))).toBe(first);
    expect(await new Response(first).text()).toBe((await render(route, docs)).text);
    expect(await new Response(first).text()).toBe('{"text":"café 📈"}');
  });

  it("keys the capabilities on the manager's state, the active jobs and the features", () => {
    const capabilities = freeRoutes.find((r) => r.path === "/v1/capabilities")!;
    let active = 0;
    const state = (open: boolean, features: DocsContext["features"]) =>
      ({ manager: { openForWork: open, pauseReason: open ? "" : "disk", updatedAt: "" }, jobs: { activeJobs: () => active }, features }) as unknown as DocsContext;
    const on = { render: { available: true } };
    const base = capabilities.reusedWhile!(state(true, on));
    expect(capabilities.reusedWhile!(state(false, on))).not.toBe(base);
    expect(capabilities.reusedWhile!(state(true, { render: { available: false, detail: "crashed" } }))).not.toBe(base);
    active = 2;
    expect(capabilities.reusedWhile!(state(true, on))).not.toBe(base);
  });
});
